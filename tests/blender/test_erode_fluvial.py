"""Rivers in Blender: ``op_erode_fluvial.erode_fluvial_mesh`` on grid meshes and its operator."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.blender

FEW = {"steps": 10, "dt": 1e4, "uplift": 1e-3, "erodibility": 5e-5}


def _positions(obj) -> np.ndarray:
    flat = np.empty(len(obj.data.vertices) * 3, dtype=np.float32)
    obj.data.vertices.foreach_get("co", flat)
    return flat.reshape(-1, 3)


def _attribute(obj, name: str) -> np.ndarray:
    values = np.empty(len(obj.data.vertices), dtype=np.float32)
    obj.data.attributes[name].data.foreach_get("value", values)
    return values


def _terrain(bpy, addon):
    spec = addon.api.NoiseSpec(kind="perlin", octaves=4, frequency=2.0)
    return addon.api.add_terrain(bpy.context, spec, x_subdivisions=40, y_subdivisions=30, size=2.0)


def test_rivers_on_a_terrain_as_noise_core_carves_them(bpy_empty, addon):
    bpy = bpy_empty
    obj = _terrain(bpy, addon)
    before = _positions(obj)
    addon.op_erode_fluvial.erode_fluvial_mesh(bpy.context, obj, keep_relief=False, **FEW)
    after = _positions(obj)
    cell = addon.erosion_io.grid_layout("Noise Terrain", before).cell_size
    heights = before[:, 2].reshape(31, 41).astype(np.float64)
    expected = addon.noise_core.erode_fluvial(heights / cell, **FEW)
    np.testing.assert_allclose(after[:, 2], expected.heights.ravel() * cell, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(after[:, :2], before[:, :2])
    np.testing.assert_array_equal(_attribute(obj, "river"), expected.rivers.ravel().astype(np.float32))
    np.testing.assert_allclose(_attribute(obj, "drainage_area"), expected.drainage_area.ravel())
    assert _attribute(obj, "erosion").max() > 0


def test_operator_keeps_the_relief_and_reads_vertex_groups(bpy_empty, addon):
    bpy = bpy_empty
    obj = _terrain(bpy, addon)
    before = _positions(obj)
    group = obj.vertex_groups.new(name="Rain")
    group.add(list(range(len(obj.data.vertices) // 2)), 1.0, "REPLACE")
    assert bpy.ops.noisewright.erode_fluvial(steps=5, precipitation_group="Rain") == {"FINISHED"}
    after = _positions(obj)
    assert after[:, 2].min() == pytest.approx(before[:, 2].min(), abs=1e-5)
    assert after[:, 2].max() == pytest.approx(before[:, 2].max(), abs=1e-5)
    # rain falls on the group's vertices only (weight 1: one cell of water each), and all of it leaves the map
    # through the edge vertices (base level)
    layout = addon.erosion_io.grid_layout(obj.name, after)
    area = _attribute(obj, "drainage_area")[layout.order].reshape(layout.rows, layout.columns)
    edges = np.concatenate([area[0], area[-1], area[1:-1, 0], area[1:-1, -1]])
    assert edges.sum() == pytest.approx(len(obj.data.vertices) // 2)
    assert area.min() == 0.0


def test_operator_errors_change_nothing(bpy_empty, addon):
    bpy = bpy_empty
    obj = _terrain(bpy, addon)
    before = _positions(obj)
    with pytest.raises(RuntimeError, match="uplift_group: 'Noise Terrain' has no vertex group 'Nope'"):
        bpy.ops.noisewright.erode_fluvial(steps=2, uplift_group="Nope")
    np.testing.assert_array_equal(_positions(obj), before)
    assert "river" not in obj.data.attributes
