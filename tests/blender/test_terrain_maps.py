"""Terrain maps in Blender: ``terrain_maps.write_terrain_maps`` on grid meshes, the operator, errors."""

from __future__ import annotations

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
        expected[layout.order] = core.compute_maps(heights, [name], cell_size=layout.cell_size, radius=3)[name].ravel()
        np.testing.assert_allclose(_attribute(obj, name), expected, rtol=1e-5, atol=1e-6)
        unit = np.clip(core.terrain_maps.unit_map(name, expected), 0, 1)
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
        computed = core.compute_maps(heights, [name], cell_size=layout.cell_size, radius=radius)[name]
        expected[layout.order] = computed.ravel()
        np.testing.assert_allclose(_attribute(obj, name), expected, rtol=1e-5, atol=1e-6)
    assert not np.allclose(_attribute(obj, "slope"), before)
    unit = np.clip(core.terrain_maps.unit_map("slope", _attribute(obj, "slope")), 0, 1)
    np.testing.assert_allclose(_weights(obj, "slope"), unit, atol=0.5 / addon.terrain_maps.WEIGHT_LEVELS + 1e-6)
    assert "relative_height" not in obj.vertex_groups
