"""Live terrains (``addon/live.py``): a setting of a Noise Terrain rebuilds it, at once in background mode and
once per burst of changes in the UI, bit for bit as Regenerate does."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.blender


def _positions(obj) -> np.ndarray:
    flat = np.empty(len(obj.data.vertices) * 3, dtype=np.float32)
    obj.data.vertices.foreach_get("co", flat)
    return flat


def _terrain(bpy, addon):
    spec = addon.api.NoiseSpec(kind="perlin", octaves=3, seed=4)
    return addon.api.add_terrain(bpy.context, spec, x_subdivisions=20, y_subdivisions=16, size=3.0)


def test_a_setting_assigned_in_background_rebuilds_before_it_returns_as_regenerate_does(bpy_empty, addon):
    bpy = bpy_empty
    obj = _terrain(bpy, addon)
    settings = obj.noisewright_terrain
    assert bpy.app.background and settings.auto_refresh  # on by default
    before = _positions(obj)
    settings.noise.seed = 9  # a noise setting
    after_seed = _positions(obj)
    assert not np.array_equal(after_seed, before)
    addon.api.regenerate_terrain(bpy.context, obj)
    np.testing.assert_array_equal(_positions(obj), after_seed)  # bit-identical to Regenerate
    settings.height = 2.0  # a grid setting
    assert np.abs(_positions(obj)[2::3]).max() > np.abs(after_seed[2::3]).max()
    settings.x_subdivisions = 10  # a new grid
    assert len(obj.data.vertices) == 11 * 17
    settings.erosion.hydraulic, settings.erosion.droplets = True, 2000  # erosion settings
    eroded = _positions(obj)
    addon.api.regenerate_terrain(bpy.context, obj)
    np.testing.assert_array_equal(_positions(obj), eroded)


def test_auto_refresh_off_and_other_owners_change_nothing(bpy_empty, addon):
    bpy = bpy_empty
    obj = _terrain(bpy, addon)
    before = _positions(obj)
    bpy.context.scene.noisewright.seed = 11  # the scene's noise settings: the same property group
    bpy.context.scene.noisewright_erosion.droplets = 5
    np.testing.assert_array_equal(_positions(obj), before)
    obj.noisewright_terrain.auto_refresh = False
    obj.noisewright_terrain.noise.seed = 12
    np.testing.assert_array_equal(_positions(obj), before)
    obj.noisewright_terrain.auto_refresh = True  # turning it on rebuilds
    assert not np.array_equal(_positions(obj), before)


def test_a_bad_setting_leaves_the_mesh_and_says_why(bpy_empty, addon, capsys):
    bpy = bpy_empty
    obj = _terrain(bpy, addon)
    before = _positions(obj)
    capsys.readouterr()
    obj.noisewright_terrain.size = float("inf")
    assert f"Auto Refresh of {obj.name!r}" in capsys.readouterr().out
    np.testing.assert_array_equal(_positions(obj), before)


def test_in_the_ui_a_burst_of_changes_is_one_rebuild_at_the_timer(bpy_empty, addon, monkeypatch):
    bpy = bpy_empty
    live = addon.live
    obj = _terrain(bpy, addon)
    other = _terrain(bpy, addon)
    rebuilt: list[str] = []
    refresh_now = live.refresh_now
    monkeypatch.setattr(live, "in_background", lambda: False)
    monkeypatch.setattr(live, "refresh_now", lambda o: rebuilt.append(o.name) or refresh_now(o))
    before = _positions(obj)
    for seed in range(20, 40):  # a dragged slider
        obj.noisewright_terrain.noise.seed = seed
    other.noisewright_terrain.height = 1.5
    assert live.pending() == {obj.name, other.name}
    assert bpy.app.timers.is_registered(live._flush)  # one timer for the burst
    np.testing.assert_array_equal(_positions(obj), before)  # nothing yet
    live.flush()
    assert sorted(rebuilt) == sorted([obj.name, other.name]) and live.pending() == set()
    after = _positions(obj)
    addon.api.regenerate_terrain(bpy.context, obj)
    np.testing.assert_array_equal(_positions(obj), after)
    assert not np.array_equal(after, before)


def test_in_the_ui_an_eroded_terrain_previews_with_fewer_droplets_then_builds_in_full(bpy_empty, addon, monkeypatch):
    bpy = bpy_empty
    live = addon.live
    obj = _terrain(bpy, addon)
    erosion = obj.noisewright_terrain.erosion
    erosion.hydraulic, erosion.droplets = True, 4000  # background: rebuilt at once, in full
    monkeypatch.setattr(live, "in_background", lambda: False)
    obj.noisewright_terrain.noise.seed = 30
    live.flush()
    preview = _positions(obj)
    assert set(live._PREVIEWED) == {obj.name} and bpy.app.timers.is_registered(live._settle)
    live.flush(settle=True)
    full = _positions(obj)
    assert not np.array_equal(preview, full) and live._PREVIEWED == {}
    addon.api.regenerate_terrain(bpy.context, obj)
    np.testing.assert_array_equal(_positions(obj), full)  # the full build is Regenerate's
    settings = obj.noisewright_terrain
    spec, domain, shape, hydraulic, thermal, fluvial = addon.terrain.recall(obj)
    fewer = {**hydraulic, "droplets": 4000 // live.PREVIEW_SHARE}
    expected = addon.terrain.terrain_geometry(bpy.context, spec, domain, shape, fewer, thermal, fluvial)[0]
    np.testing.assert_array_equal(preview, expected[:, :].astype(np.float32).ravel())
    assert settings.auto_refresh
