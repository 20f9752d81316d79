"""Terrain maps in Blender: ``terrain_maps.write_terrain_maps`` on grid meshes, the operator, errors."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from .test_erode import _attribute, _positions

pytestmark = pytest.mark.blender


def _weights(obj, name: str) -> np.ndarray:
    index = obj.vertex_groups[name].index
    return np.array([next(g.weight for g in v.groups if g.group == index) for v in obj.data.vertices])


def _terrain(bpy, addon):
    spec = addon.api.NoiseSpec(kind="perlin", octaves=4, frequency=2.0)
    return addon.api.add_terrain(bpy.context, spec, x_subdivisions=30, y_subdivisions=20, size=2.0)


def test_maps_of_a_terrain_as_noise_core_computes_them(bpy_empty, addon):
    bpy = bpy_empty
    obj = _terrain(bpy, addon)
    positions = _positions(obj)
    maps = ("slope", "aspect", "curvature", "relative_height")
    addon.terrain_maps.write_terrain_maps(obj, maps, vertex_groups=True, images=True, radius=3)
    layout = addon.erosion_io.grid_layout(obj.name, positions)
    heights = positions[layout.order, 2].reshape(layout.rows, layout.columns).astype(np.float64)
    core = addon.noise_core
    for name in maps:
        expected = np.empty(positions.shape[0], np.float32)
        expected[layout.order] = core.compute_maps(heights, [name], cell_size=layout.spacing, radius=3)[name].ravel()
        np.testing.assert_allclose(_attribute(obj, name), expected, rtol=1e-5, atol=1e-6)
        unit = np.clip(core.terrain.maps.unit_map(name, expected), 0, 1)
        np.testing.assert_allclose(_weights(obj, name), unit, atol=0.5 / addon.terrain_maps.WEIGHT_LEVELS + 1e-6)
        image = bpy.data.images[f"{obj.name} {name}"]
        assert tuple(image.size) == (layout.columns, layout.rows)
        pixels = np.empty(layout.rows * layout.columns * 4, np.float32)
        image.pixels.foreach_get(pixels)  # bottom row first: row 0 is the lowest Y, as the grid's
        np.testing.assert_allclose(pixels[0::4], expected[layout.order], rtol=1e-5, atol=1e-6)


def test_any_vertex_order_and_the_operator(bpy_empty, addon):
    bpy = bpy_empty
    bpy.ops.mesh.primitive_grid_add(x_subdivisions=12, y_subdivisions=12, size=2.0)
    grid = bpy.context.active_object
    flat = _positions(grid)
    flat[:, 2] = 0.3 * flat[:, 0]  # a plane falling towards -x
    grid.data.vertices.foreach_set("co", flat.ravel())
    assert bpy.ops.noisewright.terrain_maps(maps={"slope", "aspect"}) == {"FINISHED"}
    np.testing.assert_allclose(_attribute(grid, "slope"), np.degrees(np.arctan(0.3)), atol=1e-4)
    np.testing.assert_allclose(_attribute(grid, "aspect"), 270.0, atol=1e-4)
    assert "slope" not in grid.vertex_groups


def test_errors_change_nothing(bpy_empty, addon):
    bpy = bpy_empty
    bpy.ops.mesh.primitive_uv_sphere_add()
    sphere = bpy.context.active_object
    with pytest.raises(addon.errors.UserError, match="not a regular grid mesh"):
        addon.terrain_maps.write_terrain_maps(sphere, ("slope",))
    assert "slope" not in sphere.data.attributes
    obj = _terrain(bpy, addon)
    with pytest.raises(addon.errors.UserError, match="radius: must be between 1 and 4096"):
        addon.terrain_maps.write_terrain_maps(obj, ("relative_height",), radius=0)
    with pytest.raises(addon.errors.UserError, match="maps: 'slant' is not allowed"):
        addon.terrain_maps.write_terrain_maps(obj, ("slant",))
    assert "relative_height" not in obj.data.attributes
    with pytest.raises(RuntimeError, match="maps: choose at least one map"):  # the operator's error report
        bpy.ops.noisewright.terrain_maps(maps=set())


def test_regenerate_writes_the_maps_again(bpy_empty, addon):
    bpy = bpy_empty
    obj = _terrain(bpy, addon)
    addon.terrain_maps.write_terrain_maps(obj, ("slope", "relative_height"), radius=3)
    addon.terrain_maps.write_terrain_maps(obj, ("slope",), vertex_groups=True)  # slope now also a group
    before = _attribute(obj, "slope")
    obj.noisewright_terrain.noise.seed = 5
    addon.terrain.regenerate_terrain(bpy.context, obj)
    positions = _positions(obj)
    layout = addon.erosion_io.grid_layout(obj.name, positions)
    heights = positions[layout.order, 2].reshape(layout.rows, layout.columns).astype(np.float64)
    core = addon.noise_core
    for name, radius in (("slope", 16), ("relative_height", 3)):
        expected = np.empty(positions.shape[0], np.float32)
        computed = core.compute_maps(heights, [name], cell_size=layout.spacing, radius=radius)[name]
        expected[layout.order] = computed.ravel()
        np.testing.assert_allclose(_attribute(obj, name), expected, rtol=1e-5, atol=1e-6)
    assert not np.allclose(_attribute(obj, "slope"), before)
    unit = np.clip(core.terrain.maps.unit_map("slope", _attribute(obj, "slope")), 0, 1)
    np.testing.assert_allclose(_weights(obj, "slope"), unit, atol=0.5 / addon.terrain_maps.WEIGHT_LEVELS + 1e-6)
    assert "relative_height" not in obj.vertex_groups


def _height_image(bpy, name: str, rows: int, columns: int, seed: int = 2):
    """A float image of smooth random heights in its red channel (alpha 1); returns it and the heights
    (rows, columns), row 0 the bottom row as Blender stores it."""
    rng = np.random.default_rng(seed)
    heights = (rng.normal(size=(rows, columns)).cumsum(axis=0).cumsum(axis=1) * 0.01).astype(np.float32)
    image = bpy.data.images.new(name, columns, rows, alpha=True, float_buffer=True, is_data=True)
    pixels = np.zeros((rows * columns, 4), np.float32)
    pixels[:, 0], pixels[:, 3] = heights.ravel(), 1.0
    image.pixels.foreach_set(pixels.ravel())
    return image, heights.astype(np.float64)


def _red(image) -> np.ndarray:
    columns, rows = image.size
    pixels = np.empty(rows * columns * 4, np.float32)
    image.pixels.foreach_get(pixels)
    return pixels[0::4].reshape(rows, columns)


IMAGE_MAPS = ("slope", "aspect", "relative_height", "flow", "wetness")


def test_maps_of_a_height_image_as_noise_core_computes_them(bpy_empty, addon):
    bpy = bpy_empty
    image, heights = _height_image(bpy, "Heights", 17, 24)
    made = addon.terrain_maps.image_terrain_maps(image, IMAGE_MAPS, height_scale=40.0, cell_size=0.5, radius=3)
    expected = addon.noise_core.compute_maps(heights * 40.0, IMAGE_MAPS, cell_size=0.5, radius=3)
    assert list(made) == list(IMAGE_MAPS)
    for name in IMAGE_MAPS:
        result = bpy.data.images[f"Heights_{name}"]
        assert made[name] == result and result.is_float and tuple(result.size) == (24, 17)
        assert result.colorspace_settings.name == "Non-Color"
        np.testing.assert_array_equal(_red(result), expected[name])
    assert np.ptp(expected["flow"]) > 0.5 and np.ptp(expected["slope"]) > 1.0  # maps with something in them


def test_the_operator_on_an_image_saves_exr_files(bpy_empty, addon, tmp_path):
    bpy = bpy_empty
    _height_image(bpy, "Baked", 12, 9)
    assert bpy.context.active_object is None  # the image source needs no grid mesh
    assert bpy.ops.noisewright.terrain_maps.poll() and not bpy.ops.noisewright.terrain_material.poll()
    result = bpy.ops.noisewright.terrain_maps(
        source="IMAGE", image_name="Baked", maps={"slope", "occlusion"}, height_scale=5.0, cell_size=2.0,
        horizon_radius=4, save_folder=str(tmp_path),
    )  # fmt: skip
    assert result == {"FINISHED"}
    _, heights = _height_image(bpy, "again", 12, 9)
    expected = addon.noise_core.compute_maps(heights * 5.0, ["slope", "occlusion"], cell_size=2.0, horizon_radius=4)
    for name in ("slope", "occlusion"):
        np.testing.assert_array_equal(_red(bpy.data.images[f"Baked_{name}"]), expected[name])
        saved = importlib.import_module(f"{addon.noise_core.__name__}.io.images").read_image(
            tmp_path / f"Baked_{name}.exr"
        )
        saved = saved if saved.ndim == 2 else saved[..., 0]
        np.testing.assert_allclose(saved[::-1], expected[name], rtol=1e-6, atol=1e-7)  # files: top row first
    assert sorted(p.name for p in tmp_path.iterdir()) == ["Baked_occlusion.exr", "Baked_slope.exr"]
    assert not [image.name for image in bpy.data.images if image.name.startswith(".noisewright")]


def test_a_map_named_twice_is_made_and_saved_once(bpy_empty, addon, tmp_path):
    bpy = bpy_empty
    image, _ = _height_image(bpy, "Twice", 9, 7)
    made = addon.terrain_maps.image_terrain_maps(image, ("slope", "aspect", "slope"), save_folder=str(tmp_path))
    assert list(made) == ["slope", "aspect"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["Twice_aspect.exr", "Twice_slope.exr"]


def test_image_errors_name_the_argument_and_change_nothing(bpy_empty, addon, tmp_path):
    bpy = bpy_empty
    image, _ = _height_image(bpy, "H", 10, 10)
    previous = addon.image_io.data_image("H_slope", np.full((4, 5), 7.0, np.float32))  # an older map
    maps = addon.terrain_maps

    def unchanged() -> None:
        assert sorted(i.name for i in bpy.data.images) == ["H", "H_slope"]
        assert tuple(previous.size) == (5, 4) and (_red(previous) == 7.0).all()

    blocked = tmp_path / "H_slope.exr"
    blocked.mkdir()  # the second file cannot be written: neither is, and no image changes
    calls = [
        (lambda: maps.image_terrain_maps(image, ("slope",), radius=0), "radius: must be between 1 and 4096"),
        (lambda: maps.image_terrain_maps(image, ("slope",), height_scale=-1), "height_scale: must be in (0, 1e+30]"),
        (lambda: maps.image_terrain_maps(image, ("slope",), cell_size=0), "cell_size: must be in (0, 1e+30]"),
        (lambda: maps.image_terrain_maps(image, ("slant",)), "maps: 'slant' is not allowed"),
        (lambda: maps.image_terrain_maps(image, ()), "maps: choose at least one map"),
        (lambda: maps.image_terrain_maps("H", ("slope",)), "image: expected an image, got str"),
        (lambda: maps.image_terrain_maps(image, ("aspect", "slope"), save_folder=str(tmp_path / "nowhere")),
         "save_folder: no such folder"),
        (lambda: maps.image_terrain_maps(image, ("aspect", "slope"), save_folder=str(tmp_path)), "save_folder: "),
    ]  # fmt: skip
    for call, message in calls:
        with pytest.raises(addon.errors.UserError) as error:
            call()
        assert str(error.value).startswith(message), str(error.value)
        unchanged()
    assert [p.name for p in tmp_path.iterdir()] == ["H_slope.exr"]
    tiny = bpy.data.images.new("tiny", 2, 5, float_buffer=True)
    with pytest.raises(addon.errors.UserError, match="image: 'tiny' has no pixels of at least 3 x 3"):
        maps.image_terrain_maps(tiny, ("slope",))
    bpy.data.images.remove(tiny)
    with pytest.raises(RuntimeError, match="image_name: there is no image 'missing'"):
        bpy.ops.noisewright.terrain_maps(source="IMAGE", image_name="missing")
    with pytest.raises(RuntimeError, match="image_name: choose a height image"):
        bpy.ops.noisewright.terrain_maps(source="IMAGE")
    unchanged()


def test_image_maps_as_a_job_step_by_step_and_a_cancel_changes_nothing(bpy_empty, addon):
    bpy = bpy_empty
    image, heights = _height_image(bpy, "J", 20, 16)
    maps = ("slope", "flow", "wetness")
    job = addon.terrain_maps.image_terrain_maps_job(image, maps, height_scale=30.0)
    compute, apply, total = job.compute, job.apply, job.total
    assert total == addon.noise_core.terrain.maps.progress_total(maps)  # per map, and the routing they share
    seen: list[int] = []

    def counted(advance):
        def hook(count):
            advance(count)
            seen.append(worker.done)
            if len(seen) == 1:
                worker._cancel.set()

        return compute(hook)

    worker = addon.jobs.Worker(counted, total)
    worker.run()
    assert worker.cancelled and len(seen) == 1 and 0 < seen[0] < total and [i.name for i in bpy.data.images] == ["J"]
    finished = addon.jobs.Worker(compute, total)
    finished.run()
    assert finished.done == total and [i.name for i in bpy.data.images] == ["J"]  # nothing made before apply
    made = apply(finished.result)
    expected = addon.noise_core.compute_maps(heights * 30.0, maps)
    for name in maps:
        np.testing.assert_array_equal(_red(made[name]), expected[name])
