"""The natural terrain presets pass as real landscapes (issue 49): built in Blender at their own size (648 x 648
vertices over 58 km: ~90 m cells, as the real tiles'), their vertex heights fall inside the real tiles' range
on every statistic of ``noise_core.terrain.geomorphometry`` but one, with no grid herringbone."""

from __future__ import annotations

import numpy as np
import pytest

from noise_core.terrain.geomorphometry import passes, realism, terrain_statistics

NATURAL = ("alpine_ridges", "badlands", "eroded_canyon", "river_valleys", "rolling_hills", "uplifted_range")


def _heights(obj) -> tuple[np.ndarray, float]:
    """The terrain's vertex heights as its (rows, columns) grid, and the spacing of its vertices."""
    settings = obj.noisewright_terrain
    flat = np.empty(len(obj.data.vertices) * 3, dtype=np.float32)
    obj.data.vertices.foreach_get("co", flat)
    positions = flat.reshape(settings.y_subdivisions + 1, settings.x_subdivisions + 1, 3).astype(np.float64)
    cell = float(np.mean(np.diff(positions[0, :, 0])))
    return positions[:, :, 2], cell


@pytest.mark.once_per_run
@pytest.mark.parametrize("name", NATURAL)
def test_a_natural_preset_passes_as_a_real_landscape(bpy_empty, addon, name: str) -> None:
    bpy = bpy_empty
    obj = addon.api.add_terrain(bpy.context, addon.api.NoiseSpec(kind="perlin"), x_subdivisions=4, y_subdivisions=4)
    addon.terrain_presets.apply_preset(bpy.context, obj, addon.terrain_presets.SHIPPED / f"{name}.json")
    heights, cell = _heights(obj)
    assert obj.noisewright_terrain.fluvial.fluvial and "river" in obj.data.attributes  # it carves rivers
    assert heights.shape == (648, 648) and cell == pytest.approx(90.0, rel=1e-3)
    assert 1500.0 < np.ptp(heights) < 7000.0  # metres: the real tiles' relief is 0.8-7 km
    stats = terrain_statistics(heights, cell_size=cell)
    outside = [check.name for check in realism(stats) if not check.passed]
    assert passes(stats), outside
    assert stats.harmonic8 <= 0.02


@pytest.mark.once_per_run
def test_add_terrain_builds_a_landscape_by_default(bpy_empty, addon) -> None:
    """Add > Mesh > Noise Terrain with its defaults builds the default preset (a landscape with rivers), not one
    octave of plain noise; with Preset None it is the plain noise terrain it was."""
    bpy = bpy_empty
    assert bpy.ops.noisewright.add_terrain() == {"FINISHED"}
    obj = bpy.context.active_object
    settings = obj.noisewright_terrain
    assert addon.terrain.DEFAULT_PRESET == "river_valleys"
    assert settings.fluvial.fluvial and settings.fluvial.routing == "random" and settings.size > 10_000.0
    assert "river" in obj.data.attributes
    assert bpy.ops.noisewright.add_terrain(preset="NONE") == {"FINISHED"}
    plain = bpy.context.active_object
    assert plain is not obj and not plain.noisewright_terrain.fluvial.fluvial
    assert plain.noisewright_terrain.size == pytest.approx(2.0)
