"""Hardening 4 (issue 46), Blender side: grids with cells that are not square, operators on meshes without
vertices, damaged records on objects, NaN heightmaps; a clear message naming what to change, never a traceback,
and nothing changed when refused."""

from __future__ import annotations

import contextlib
import io
import json
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .conftest import scene_state

pytestmark = pytest.mark.blender


def _positions(obj) -> np.ndarray:
    flat = np.empty(len(obj.data.vertices) * 3, dtype=np.float32)
    obj.data.vertices.foreach_get("co", flat)
    return flat.reshape(-1, 3)


def _attribute(obj, name: str) -> np.ndarray:
    values = np.empty(len(obj.data.vertices), dtype=np.float32)
    obj.data.attributes[name].data.foreach_get("value", values)
    return values


def _tilted_grid(bpy, x_subdivisions: int = 12, y_subdivisions: int = 6, size: float = 2.0, a=0.3, b=-0.2):
    """Add ▸ Mesh ▸ Grid with other X than Y subdivisions (cells size/x by size/y), heights ``a x + b y``."""
    bpy.ops.mesh.primitive_grid_add(x_subdivisions=x_subdivisions, y_subdivisions=y_subdivisions, size=size)
    grid = bpy.context.active_object
    flat = _positions(grid)
    flat[:, 2] = a * flat[:, 0] + b * flat[:, 1]
    grid.data.vertices.foreach_set("co", flat.ravel())
    grid.data.update()
    return grid


# --- 2. grids with cells that are not square --------------------------------------------------------------------


@pytest.mark.parametrize(("x_subdivisions", "y_subdivisions"), [(12, 6), (5, 15), (20, 7)])
def test_terrain_maps_of_a_grid_with_cells_that_are_not_square(bpy_empty, addon, x_subdivisions, y_subdivisions):
    """A tilted plane on a grid whose cells are longer one way: one slope and one aspect everywhere (with the
    averaged spacing the slope along the longer cells was over- or underestimated)."""
    bpy = bpy_empty
    grid = _tilted_grid(bpy, x_subdivisions, y_subdivisions)
    assert bpy.ops.noisewright.terrain_maps(maps={"slope", "aspect", "openness"}, horizon_radius=2) == {"FINISHED"}
    np.testing.assert_allclose(_attribute(grid, "slope"), math.degrees(math.atan(math.hypot(0.3, 0.2))), atol=1e-3)
    np.testing.assert_allclose(_attribute(grid, "aspect"), math.degrees(math.atan2(-0.3, 0.2)) % 360.0, atol=1e-3)
    assert np.isfinite(_attribute(grid, "openness")).all()


def test_flow_maps_erosion_and_rivers_refuse_cells_that_are_not_square(bpy_empty, addon):
    bpy = bpy_empty
    grid = _tilted_grid(bpy)
    before = scene_state(bpy)
    spacing = r"'Grid': its grid cells are 0\.166667 along X by 0\.333333 along Y, not square"
    with pytest.raises(addon.errors.UserError, match=rf"^{spacing}; the flow and wetness maps"):
        addon.terrain_maps.write_terrain_maps(grid, ("slope", "flow"))
    with pytest.raises(addon.errors.UserError, match=rf"^{spacing}; erosion needs square cells"):
        addon.api.erode(bpy.context, grid, hydraulic={"droplets": 100})
    with pytest.raises(addon.errors.UserError, match=rf"^{spacing}; river erosion needs square cells"):
        addon.api.erode_fluvial_mesh(bpy.context, grid, steps=2)
    with pytest.raises(RuntimeError, match=spacing):  # the operator's report
        bpy.ops.noisewright.erode()
    with pytest.raises(addon.errors.UserError, match=rf"^{spacing}; the flow and wetness maps .* need square"):
        addon.terrain_material.terrain_material(grid)  # it computes the flow map it reads
    assert scene_state(bpy) == before
    assert "flow" not in grid.data.attributes and "erosion" not in grid.data.attributes


def test_a_noise_terrain_with_erosion_needs_as_many_x_as_y_subdivisions(bpy_empty, addon):
    bpy = bpy_empty
    spec = addon.api.NoiseSpec(kind="perlin", octaves=3)
    message = r"^x_subdivisions, y_subdivisions: erosion needs square cells; 20 x 10 subdivisions of a 2 square"
    with pytest.raises(addon.errors.UserError, match=message):
        addon.api.add_terrain(bpy.context, spec, x_subdivisions=20, y_subdivisions=10, size=2.0, hydraulic={})
    assert not bpy.data.objects
    terrain = addon.api.add_terrain(bpy.context, spec, x_subdivisions=20, y_subdivisions=10, size=2.0)
    terrain.noisewright_terrain.erosion.hydraulic = True  # Auto Refresh: refused and said, the mesh kept
    with pytest.raises(RuntimeError, match="x_subdivisions, y_subdivisions: erosion needs square cells"):
        bpy.ops.noisewright.regenerate_terrain()


def test_export_records_both_spacings_and_engines_use_them(bpy_empty, addon, tmp_path):
    """An Unreal-sized grid of 127 x 64 vertices on a 2 m square: cells 2/126 m along X, 2/63 m along Y. The
    sidecar and Unreal's X and Y scale say both (the export wrote one averaged spacing); Terrain3D, with one vertex
    spacing, is refused naming the grid; imported back as a grid mesh, the spacings are the file's."""
    bpy = bpy_empty
    grid = _tilted_grid(bpy, 126, 63)
    before = scene_state(bpy)
    paths, numbers, _how = addon.api.export_heightmap(bpy.context, grid, str(tmp_path / "g.r16"), engine="UNREAL")
    record = json.loads((tmp_path / "g.r16.json").read_text())
    assert record["cell_size"] == pytest.approx({"x": 2 / 126, "y": 2 / 63}, rel=1e-5)
    assert numbers["Scale (cm)"][:2] == pytest.approx([200 / 126, 200 / 63], rel=1e-5)
    with pytest.raises(addon.errors.UserError, match=r"^'Grid': its grid cells .* Godot Terrain3D has one vertex"):
        addon.api.export_heightmap(bpy.context, grid, str(tmp_path / "g.exr"), engine="GODOT")
    assert not (tmp_path / "g.exr").exists() and scene_state(bpy) == before
    back = addon.api.import_heightmap_grid(bpy.context, str(paths[0]))
    span = np.ptp(_positions(back)[:, :2], axis=0)
    assert span == pytest.approx((2.0, 2.0), rel=1e-5)  # 126 cells of 2/126 m along X, 63 of 2/63 m along Y
    square = np.random.default_rng(2).random((9, 9)).astype(np.float32)  # 9 x 9 samples, 1 m by 2 m apart
    addon.noise_core.write_heightmap(tmp_path / "s.r32", square, height_range=(0.0, 5.0), cell_size=(2.0, 1.0))
    with pytest.raises(addon.errors.UserError, match=r"^filepath: 's.r32' has samples 1 apart along X and 2 along Y"):
        addon.api.import_heightmap(bpy.context, str(tmp_path / "s.r32"))
    assert np.ptp(_positions(addon.api.import_heightmap_grid(bpy.context, str(tmp_path / "s.r32")))[:, :2], axis=0) \
        == pytest.approx((8.0, 16.0))  # fmt: skip


# --- 4. no tracebacks: meshes without vertices, damaged records ---------------------------------------------------

OPERATORS = {
    "displace": {},
    "erode": {},
    "erode_fluvial": {},
    "terrain_maps": {},
    "export_heightmap": {"filepath": "{tmp}/x.r16"},
    "bake_uv": {},
    "terrain_material": {},
}


def _empty_mesh_object(bpy, name: str = "Empty"):
    mesh = bpy.data.meshes.new(name)
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    bpy.context.view_layer.objects.active = obj
    obj.select_set(True)
    return obj


@pytest.mark.parametrize("operator", list(OPERATORS))
def test_operators_on_a_mesh_without_vertices_say_so(bpy_empty, addon, tmp_path, operator):
    bpy = bpy_empty
    _empty_mesh_object(bpy)
    before = scene_state(bpy)
    arguments = {key: value.format(tmp=tmp_path) for key, value in OPERATORS[operator].items()}
    with pytest.raises(RuntimeError) as error:
        getattr(bpy.ops.noisewright, operator)(**arguments)
    assert "Traceback" not in str(error.value) and "'Empty'" in str(error.value), str(error.value)
    assert scene_state(bpy) == before and not list(tmp_path.iterdir())


def test_a_noise_terrain_whose_vertices_were_deleted_is_rebuilt(bpy_empty, addon):
    bpy = bpy_empty
    terrain = addon.api.add_terrain(bpy.context, addon.api.NoiseSpec(), x_subdivisions=4, y_subdivisions=4)
    terrain.data.clear_geometry()
    with pytest.raises(RuntimeError, match="'Noise Terrain': the mesh has no vertices"):
        bpy.ops.noisewright.terrain_maps()
    assert bpy.ops.noisewright.regenerate_terrain() == {"FINISHED"}
    assert len(terrain.data.vertices) == 25


JUNK_RECORDS = st.one_of(
    st.text(max_size=12),
    st.sampled_from([
        "[", "{}", "null", "[1]", '[{"maps": "slope"}]', '[{"maps": []}]', '[{"maps": ["slant"]}]',
        '[{"maps": ["slope"], "radius": "x"}]', '[{"maps": ["slope"], "radius": 0}]',
        '[{"maps": ["slope"], "rain": 1}]',
        '[{"maps": ["slope"], "flow_method": "dinf"}]', '[{"maps": [1]}]', '[[["slope"]]]', "[" * 5000,
        '[{"maps": ["slope"], "radius": 3}]', "[]",
    ]),
    st.integers(-5, 5),
    st.lists(st.integers(0, 3), min_size=1, max_size=3),
    st.just({"maps": "slope"}),
)  # fmt: skip


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(record=JUNK_RECORDS)
def test_a_damaged_terrain_maps_record_is_said_and_can_be_reset(bpy_empty, addon, record):
    """Any value in the terrain maps record: Regenerate either works (a sound record: its maps written again) or
    reports what is damaged and how to recover, Auto Refresh says so on the console, both without a traceback
    and without changing the mesh; Reset Terrain Maps Record removes it, and Regenerate works again."""
    bpy = bpy_empty
    bpy.ops.wm.read_homefile(use_empty=True)
    spec = addon.api.NoiseSpec(kind="perlin", octaves=2)
    terrain = addon.api.add_terrain(bpy.context, spec, x_subdivisions=6, y_subdivisions=6, size=2.0)
    terrain[addon.terrain_maps.RECORD] = record
    sound = not addon.terrain_maps.record_damage(terrain)
    before = _positions(terrain).copy()
    if sound:
        assert bpy.ops.noisewright.regenerate_terrain() == {"FINISHED"}
        return
    with pytest.raises(RuntimeError) as error:
        bpy.ops.noisewright.regenerate_terrain()
    message = str(error.value)
    assert "Traceback" not in message and "is damaged" in message and "Reset Terrain Maps Record" in message, message
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        terrain.noisewright_terrain.noise.seed = 7  # Auto Refresh (background: at once)
    assert "Auto Refresh of 'Noise Terrain'" in printed.getvalue() and "is damaged" in printed.getvalue()
    np.testing.assert_array_equal(_positions(terrain), before)
    with pytest.raises(RuntimeError, match="is damaged"):
        bpy.ops.noisewright.terrain_maps(maps={"slope"})
    assert bpy.ops.noisewright.reset_terrain_maps() == {"FINISHED"}
    assert addon.terrain_maps.RECORD not in terrain
    assert bpy.ops.noisewright.regenerate_terrain() == {"FINISHED"}
    assert bpy.ops.noisewright.terrain_maps(maps={"slope"}) == {"FINISHED"}


def test_the_reset_entry_shows_in_the_object_menu_only_for_a_damaged_record(bpy_empty, addon):
    bpy = bpy_empty
    terrain = addon.api.add_terrain(bpy.context, addon.api.NoiseSpec(), x_subdivisions=4, y_subdivisions=4)
    assert not bpy.ops.noisewright.reset_terrain_maps.poll()  # no record
    addon.terrain_maps.write_terrain_maps(terrain, ("slope",))
    assert addon.terrain_maps.record_damage(terrain) == ""
    terrain[addon.terrain_maps.RECORD] = "[{"
    assert "is damaged" in addon.terrain_maps.record_damage(terrain)
    assert bpy.ops.noisewright.reset_terrain_maps.poll()


# --- 5 and 8. a heightmap with NaN samples: refused by every import, naming the file ------------------------------


@pytest.mark.parametrize("importer", ["import_heightmap_grid", "import_heightmap"])
@pytest.mark.parametrize("suffix", [".r32", ".exr"])
def test_a_heightmap_with_nan_samples_is_refused_naming_the_file(bpy_empty, addon, tmp_path, importer, suffix):
    bpy = bpy_empty
    values = np.full((9, 9), 0.5, np.float32)
    values[3, 4] = np.nan
    path = tmp_path / f"nan{suffix}"
    if suffix == ".r32":
        path.write_bytes(values.astype("<f4").tobytes())
    else:
        addon.noise_core.io.images.write_image(path, values)
    before = scene_state(bpy)
    with pytest.raises(addon.errors.UserError, match=r"^filepath: .*nan.* has samples that are not finite numbers"):
        getattr(addon.api, importer)(bpy.context, str(path))
    with pytest.raises(RuntimeError, match=r"filepath: .* not finite") as error:
        getattr(bpy.ops.noisewright, importer)(filepath=str(path))
    assert "height:" not in str(error.value)
    assert scene_state(bpy) == before


def test_export_and_image_maps_errors_name_their_own_settings(bpy_empty, addon, tmp_path):
    """The core's ``out`` is the export's ``filepath``; the heights of an image are its pixels times
    ``height_scale``, so their limits are named by it."""
    bpy = bpy_empty
    grid = _tilted_grid(bpy, 8, 8)
    with pytest.raises(addon.errors.UserError, match=r"^filepath: unsupported heightmap format '.txt'"):
        addon.api.export_heightmap(bpy.context, grid, str(tmp_path / "x.txt"))
    with pytest.raises(addon.errors.UserError, match=r"^filepath: Unity imports .raw, .r16 heightmaps, not .exr"):
        addon.api.export_heightmap(bpy.context, grid, str(tmp_path / "x.exr"), engine="UNITY")
    image = bpy.data.images.new("Spiky", 9, 9, float_buffer=True)
    pixels = np.zeros((9, 9, 4), np.float32)
    pixels[4, 4, 0] = 1.0
    image.pixels.foreach_set(pixels.ravel())
    with pytest.raises(addon.errors.UserError, match=r"^cell_size, height_scale: the mean curvature passes float32"):
        addon.terrain_maps.image_terrain_maps(image, ("curvature",), height_scale=1e30, cell_size=1e-30)
    assert not list(tmp_path.iterdir()) and "Spiky_curvature" not in bpy.data.images
