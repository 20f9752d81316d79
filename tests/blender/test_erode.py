"""Erosion in Blender: ``api.erode`` on grid meshes, ``api.erode_image``, eroded terrains, the operators."""

from __future__ import annotations

import numpy as np
import pytest

from .conftest import scene_state

pytestmark = pytest.mark.blender

FEW = {"droplets": 3000, "seed": 2}


def _positions(obj) -> np.ndarray:
    flat = np.empty(len(obj.data.vertices) * 3, dtype=np.float32)
    obj.data.vertices.foreach_get("co", flat)
    return flat.reshape(-1, 3)


def _attribute(obj, name: str) -> np.ndarray:
    values = np.empty(len(obj.data.vertices), dtype=np.float32)
    obj.data.attributes[name].data.foreach_get("value", values)
    return values


def _terrain(bpy, addon, **options):
    spec = addon.api.NoiseSpec(kind="perlin", octaves=4, frequency=2.0)
    return addon.api.add_terrain(bpy.context, spec, x_subdivisions=40, y_subdivisions=40, size=2.0, **options)


def test_erode_a_terrain_as_noise_core_does_with_masks(bpy_empty, addon):
    bpy = bpy_empty
    obj = _terrain(bpy, addon)
    before = _positions(obj)
    addon.api.erode(bpy.context, obj, hydraulic=FEW)
    after = _positions(obj)
    heights = before[:, 2].reshape(41, 41)
    cell = addon.erosion_io.grid_layout("Noise Terrain", before).cell_size  # from the float32 positions
    expected = addon.noise_core.erode_hydraulic(heights, cell_size=cell, **FEW)
    np.testing.assert_allclose(after[:, 2], expected.heights.ravel(), atol=1e-6)
    np.testing.assert_array_equal(after[:, :2], before[:, :2])
    np.testing.assert_allclose(_attribute(obj, "erosion"), expected.erosion.ravel(), atol=1e-6)
    np.testing.assert_allclose(_attribute(obj, "deposition"), expected.deposition.ravel(), atol=1e-6)
    np.testing.assert_allclose(_attribute(obj, "sediment"), expected.deposition.ravel(), atol=1e-6)
    assert not _attribute(obj, "talus").any()
    assert expected.eroded > 0


def test_grid_layout_of_vertices_in_rows_is_the_sorted_layout(addon, monkeypatch):
    """``grid_layout`` takes vertices already in rows (a Noise Terrain's) without sorting: the same rows, columns,
    order and cell size, bit for bit, as for the same vertices shuffled (found by sorting)."""
    rng = np.random.default_rng(5)
    xs, ys = np.linspace(-1.5, 1.5, 13), np.linspace(-0.8, 0.8, 9) + 0.3
    grid = np.stack(np.broadcast_arrays(xs[None, :], ys[:, None], 0.0), axis=-1).reshape(-1, 3).astype(np.float32)
    grid[:, :2] += rng.uniform(-1e-6, 1e-6, (grid.shape[0], 2)).astype(np.float32)  # within the tolerance
    shuffle = rng.permutation(grid.shape[0])
    sorted_ = addon.erosion_io.grid_layout("shuffled", grid[shuffle])
    monkeypatch.setattr(addon.erosion_io, "_axis_levels", None)  # vertices in rows are not sorted
    in_rows = addon.erosion_io.grid_layout("rows", grid)
    assert (in_rows.rows, in_rows.columns, in_rows.cell_size) == (sorted_.rows, sorted_.columns, sorted_.cell_size)
    np.testing.assert_array_equal(in_rows.order, np.arange(grid.shape[0]))
    np.testing.assert_array_equal(grid[shuffle][sorted_.order], grid)
    with pytest.raises(addon.errors.UserError, match="not evenly spaced"):
        addon.erosion_io.grid_layout("uneven", grid * np.where(grid > 1.2, 1.1, 1.0))


def test_erode_any_vertex_order_of_a_blender_grid(bpy_empty, addon):
    bpy = bpy_empty
    bpy.ops.mesh.primitive_grid_add(x_subdivisions=24, y_subdivisions=24, size=2.0)
    grid = bpy.context.active_object
    addon.api.displace(bpy.context, [grid], addon.api.NoiseSpec(octaves=3), direction="Z", strength=0.5)
    positions = _positions(grid)
    addon.api.erode(bpy.context, grid, hydraulic=FEW, thermal={"iterations": 5})
    order = np.lexsort((positions[:, 0], positions[:, 1]))  # row by row from -y, x increasing
    side = 25
    heights = positions[order, 2].reshape(side, side)
    cell = addon.erosion_io.grid_layout("Grid", positions).cell_size
    first = addon.noise_core.erode_hydraulic(heights, cell_size=cell, **FEW)
    expected = addon.noise_core.erode_thermal(first.heights, cell_size=cell, iterations=5)
    np.testing.assert_allclose(_positions(grid)[order, 2], expected.heights.ravel(), atol=1e-5)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda bpy: bpy.ops.mesh.primitive_cube_add(), r"^'Cube': not a regular grid mesh"),
        (lambda bpy: bpy.ops.mesh.primitive_uv_sphere_add(), r"^'Sphere': not a regular grid mesh"),
    ],
)
def test_other_meshes_are_refused_and_nothing_changes(bpy_empty, addon, make, message):
    bpy = bpy_empty
    make(bpy)
    before = scene_state(bpy)
    with pytest.raises(addon.api.UserError, match=message):
        addon.api.erode(bpy.context, bpy.context.active_object, hydraulic={})
    assert scene_state(bpy) == before
    with pytest.raises(RuntimeError, match=message[1:]):  # the operator reports the error and cancels
        bpy.ops.noisewright.erode()
    assert scene_state(bpy) == before


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"hydraulic": {"brush_radius": -2}}, r"^brush_radius: must be between 0 and 1e\+30, got -2"),
        ({"thermal": {"talus_angle": "steep"}}, r"^talus_angle: expected a number"),
        ({"hydraulic": {"rain": 1}}, r"^rain: not an erosion option"),
        ({}, r"^hydraulic, thermal: turn on at least one kind of erosion"),
    ],
)
def test_bad_options_name_the_option_and_nothing_changes(bpy_empty, addon, options, message):
    bpy = bpy_empty
    obj = _terrain(bpy, addon)
    before = scene_state(bpy)
    with pytest.raises(addon.api.UserError, match=message):
        addon.api.erode(bpy.context, obj, **options)
    assert scene_state(bpy) == before and "erosion" not in obj.data.attributes


def test_an_eroded_terrain_regenerates_the_same_and_can_drop_its_erosion(bpy_empty, addon):
    bpy = bpy_empty
    obj = _terrain(bpy, addon, hydraulic=FEW, thermal={"iterations": 3})
    settings = obj.noisewright_terrain.erosion
    assert settings.hydraulic and settings.thermal and settings.droplets == 3000
    eroded = _positions(obj)
    assert "erosion" in obj.data.attributes
    addon.api.regenerate_terrain(bpy.context, obj)
    np.testing.assert_array_equal(_positions(obj), eroded)
    settings.hydraulic = settings.thermal = False
    addon.api.regenerate_terrain(bpy.context, obj)
    assert "erosion" not in obj.data.attributes and not np.array_equal(_positions(obj), eroded)


def test_the_erode_operator_erodes_the_active_terrain(bpy_empty, addon):
    bpy = bpy_empty
    assert bpy.ops.noisewright.add_terrain(x_subdivisions=16, y_subdivisions=16) == {"FINISHED"}
    obj = bpy.context.active_object
    before = _positions(obj)
    assert bpy.ops.noisewright.erode() == {"FINISHED"}  # hydraulic, defaults
    assert not np.array_equal(_positions(obj), before)
    assert _attribute(obj, "erosion").max() > 0


def test_erode_image_writes_heights_and_mask_images(bpy_empty, addon):
    bpy = bpy_empty
    image = addon.api.bake(bpy.context, addon.api.NoiseSpec(octaves=4), image="Height", width=48, height=40)
    pixels = np.empty(48 * 40 * 4, dtype=np.float32)
    image.pixels.foreach_get(pixels)
    heights = pixels.reshape(-1, 4)[:, 0].reshape(40, 48)
    erosion, deposition = addon.api.erode_image(bpy.context, image, hydraulic=FEW, relief=32.0)
    expected = addon.noise_core.erode_hydraulic(heights, cell_size=1 / 32.0, **FEW)
    image.pixels.foreach_get(pixels)
    np.testing.assert_allclose(pixels.reshape(-1, 4)[:, 1].reshape(40, 48), expected.heights, atol=1e-6)
    assert (erosion.name, deposition.name) == ("Height Erosion", "Height Deposition")
    mask = np.empty(48 * 40 * 4, dtype=np.float32)
    erosion.pixels.foreach_get(mask)
    np.testing.assert_allclose(mask.reshape(-1, 4)[:, 0].reshape(40, 48), expected.erosion, atol=1e-6)
    with pytest.raises(addon.api.UserError, match=r"^relief: must be > 0 pixels"):
        addon.api.erode_image(bpy.context, image, hydraulic={}, relief=0.0)


def test_the_erode_operator_runs_thermal_erosion_with_its_settings(bpy_empty, addon):
    bpy = bpy_empty
    assert bpy.ops.noisewright.add_terrain(x_subdivisions=16, y_subdivisions=16) == {"FINISHED"}
    obj = bpy.context.active_object
    before = _positions(obj)
    thermal = {"talus_angle": 10.0, "iterations": 7, "rate": 0.4}
    settings = bpy.context.scene.noisewright_erosion  # what a new run starts from (the Apply Noise panel's)
    settings.thermal = True
    for name, value in thermal.items():
        setattr(settings, name, value)
    assert bpy.ops.noisewright.erode() == {"FINISHED"}
    order = np.lexsort((before[:, 0], before[:, 1]))
    cell = addon.erosion_io.grid_layout(obj.name, before).cell_size
    expected = addon.noise_core.erode_thermal(before[order, 2].reshape(17, 17), cell_size=cell, **thermal)
    np.testing.assert_allclose(_positions(obj)[order, 2], expected.heights.ravel(), atol=1e-6)
    assert expected.eroded > 0


def test_erosion_reports_progress_per_batch_of_droplets(bpy_empty, addon):
    heights = np.random.default_rng(1).random((64, 64)).astype(np.float32)
    steps: list[int] = []
    addon.erosion_io.erode_heights(heights, 0.05, {"droplets": 40_000}, {"iterations": 2}, steps.append)
    assert sum(steps) == addon.erosion_io.PROGRESS and len([step for step in steps if step > 0]) >= 3
    assert min(steps) >= 0


def test_a_first_erosion_that_compiles_says_so_first(bpy_empty, addon, capfd, monkeypatch):
    bpy = bpy_empty
    obj = _terrain(bpy, addon)
    monkeypatch.setattr(addon.compile_status, "erosion_compile_state", lambda _kinds: "uncompiled")
    capfd.readouterr()
    addon.api.erode(bpy.context, obj, hydraulic=FEW)
    assert "Noisewright: Compiling erosion - first use only" in capfd.readouterr().out
    monkeypatch.undo()
    assert addon.noise_core.terrain.erosion.compile_state(("hydraulic",)) == "compiled"
    addon.api.erode(bpy.context, obj, hydraulic=FEW)
    assert "Compiling" not in capfd.readouterr().out
