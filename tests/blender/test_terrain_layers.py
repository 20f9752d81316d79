"""Material layers in Blender: ``terrain_layers.write_terrain_layers`` on grid meshes, the Erode depths."""

from __future__ import annotations

import numpy as np
import pytest

from .test_erode import _attribute, _positions

pytestmark = pytest.mark.blender


def test_layers_of_a_terrain_as_noise_core_computes_them(bpy_empty, addon):
    bpy = bpy_empty
    spec = addon.api.NoiseSpec(kind="perlin", octaves=3, frequency=2.0)
    obj = addon.api.add_terrain(bpy.context, spec, x_subdivisions=20, y_subdivisions=20, size=2.0)
    addon.api.erode(bpy.context, obj, hydraulic={"droplets": 200}, thermal={"iterations": 3})
    positions = _positions(obj)
    layout = addon.erosion_io.grid_layout(obj.name, positions)
    heights = positions[layout.order, 2].reshape(layout.rows, layout.columns).astype(np.float64)
    names = ("snow", "sediment", "talus", "strata", "strata_band")
    found = addon.terrain_layers.write_terrain_layers(obj, names, images=True, wind_distance=4)
    expected = addon.noise_core.terrain.layers.compute_layers(
        heights, ["snow", "strata", "strata_band"], layout.cell_size, wind_distance=4
    )
    for name, values in expected.items():
        per_vertex = np.empty(positions.shape[0], np.float32)
        per_vertex[layout.order] = values.ravel()
        np.testing.assert_allclose(_attribute(obj, name), per_vertex, rtol=1e-5, atol=1e-6)
        assert bpy.data.images[f"{obj.name} {name}"].size[:] == (layout.columns, layout.rows)
    assert found["sediment"].any() and np.array_equal(found["talus"], _attribute(obj, "talus"))
    with pytest.raises(addon.api.UserError, match=r"^layers: 'rock'"):
        addon.terrain_layers.write_terrain_layers(obj, ["rock"])
    assert bpy.ops.noisewright.terrain_layers(layers={"moisture"}) == {"FINISHED"}
    assert "moisture" in obj.data.attributes


def test_a_noise_terrain_with_erosion_keeps_its_sediment_and_talus_depths(bpy_empty, addon):
    bpy = bpy_empty
    spec = addon.api.NoiseSpec(kind="perlin", octaves=3, frequency=2.0)
    thermal = {"iterations": 3, "talus_angle": 10.0}
    shape = {"x_subdivisions": 16, "y_subdivisions": 16, "size": 2.0}
    obj = addon.api.add_terrain(bpy.context, spec, hydraulic={"droplets": 200}, thermal=thermal, **shape)
    sediment, talus = _attribute(obj, "sediment"), _attribute(obj, "talus")
    assert sediment.min() >= 0.0 and talus.min() >= 0.0 and sediment.any() and talus.any()
    obj.noisewright_terrain.erosion.hydraulic = False
    obj.noisewright_terrain.erosion.thermal = False
    addon.terrain.regenerate_terrain(bpy.context, obj)
    assert not {"sediment", "talus", "erosion"} & set(obj.data.attributes.keys())


def test_erode_terrain_over_strata_as_noise_core_does(bpy_empty, addon):
    bpy = bpy_empty
    spec = addon.api.NoiseSpec(kind="perlin", octaves=3, frequency=2.0)
    obj = addon.api.add_terrain(bpy.context, spec, x_subdivisions=16, y_subdivisions=16, size=2.0, height=1.5)
    positions = _positions(obj).astype(np.float64)
    layout = addon.erosion_io.grid_layout(obj.name, positions)
    heights = positions[layout.order, 2].reshape(layout.rows, layout.columns)
    thermal = {"iterations": 10, "talus_angle": 20.0}
    addon.api.erode(bpy.context, obj, thermal=thermal, strata=0.7)
    core = addon.noise_core.terrain
    rock = core.layers.erodibility(core.layers.strata(heights, layout.cell_size)[0], 0.7)
    expected = core.erosion.erode_thermal(heights, cell_size=layout.cell_size, erodibility=rock, **thermal)
    per_vertex = np.empty(positions.shape[0], np.float32)
    per_vertex[layout.order] = expected.heights.ravel()
    np.testing.assert_allclose(_positions(obj)[:, 2], per_vertex, atol=1e-6)
    with pytest.raises(addon.api.UserError, match=r"^strata"):
        addon.api.erode(bpy.context, obj, thermal=thermal, strata=1.5)
