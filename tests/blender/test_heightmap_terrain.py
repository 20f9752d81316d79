"""A heightmap imported as a Noise Terrain whose base it is (File > Import > Heightmap as Noise Terrain): its
heights are the file's, it regenerates bit for bit, noise goes on top, it exports again; bad files change nothing."""

from __future__ import annotations

import math

import numpy as np
import pytest

from .conftest import scene_state

pytestmark = pytest.mark.blender

RANGE = (-12.5, 250.0)  # float32 numbers, as a terrain keeps them: the heights come back exactly


def _heights(obj) -> np.ndarray:
    """The vertex heights as (rows, columns) with row 0 at +Y, the file's row order."""
    flat = np.empty(len(obj.data.vertices) * 3, dtype=np.float32)
    obj.data.vertices.foreach_get("co", flat)
    side = math.isqrt(len(obj.data.vertices))
    return flat.reshape(-1, 3)[:, 2].reshape(side, side)[::-1]


def _write(addon, path, side: int = 17, engine: str | None = None):
    values = np.random.default_rng(5).random((side, side)).astype(np.float32)
    spacing = {"cell_size": 2.0} if engine else {}  # without an engine and a cell size: 1 m per sample
    addon.noise_core.write_heightmap(path, values, height_range=RANGE, unit="m", engine=engine, **spacing)
    return addon.noise_core.read_heightmap(path)


@pytest.mark.parametrize("suffix", [".r16", ".r32", ".png", ".exr", ".tif"])
def test_import_gives_a_noise_terrain_with_the_files_heights(bpy_empty, addon, tmp_path, suffix):
    bpy = bpy_empty
    found = _write(addon, tmp_path / f"h{suffix}")
    obj = addon.api.import_heightmap(bpy.context, str(tmp_path / f"h{suffix}"))
    assert addon.api.is_terrain(obj) and obj.name == "h"
    settings = obj.noisewright_terrain
    assert (settings.base_blend, settings.base_low, settings.base_high, settings.height) == ("ADD", *RANGE, 0.0)
    assert (settings.x_subdivisions, settings.size) == (16, pytest.approx(16.0))  # no engine: 1 m per sample
    heights = _heights(obj)
    if suffix in (".r32", ".exr", ".tif"):  # float: bit for bit
        assert np.array_equal(heights, found.heights.astype(np.float32))
    code = (RANGE[1] - RANGE[0]) / 65535
    assert np.abs(heights - found.heights).max() <= code


def test_regenerate_is_bit_identical(bpy_empty, addon, tmp_path):
    bpy = bpy_empty
    _write(addon, tmp_path / "h.r16", side=33, engine="unity")
    obj = addon.api.import_heightmap(bpy.context, str(tmp_path / "h.r16"))
    assert obj.noisewright_terrain.size == pytest.approx(64.0)  # the sidecar's 2 m vertex spacing
    before = _heights(obj).copy()
    addon.api.regenerate_terrain(bpy.context, obj)
    assert np.array_equal(_heights(obj), before)


def test_noise_on_top_then_export_again(bpy_empty, addon, tmp_path):
    bpy = bpy_empty
    found = _write(addon, tmp_path / "h.r32")
    spec = addon.api.NoiseSpec(kind="perlin", octaves=3, frequency=0.05)
    obj = addon.api.import_heightmap(bpy.context, str(tmp_path / "h.r32"), spec)
    obj.noisewright_terrain.height = 20.0
    addon.api.regenerate_terrain(bpy.context, obj)
    plain = addon.api.add_terrain(bpy.context, spec, x_subdivisions=16, y_subdivisions=16, size=16.0, height=20.0)
    noise = _heights(plain).astype(np.float64)
    assert np.ptp(noise) > 1.0
    mixed = _heights(obj)
    assert np.allclose(mixed, found.heights + noise, rtol=0, atol=1e-4)  # base + noise x height, float32
    addon.heightmap_export.export_heightmap(bpy.context, obj, str(tmp_path / "again.r32"))
    again = addon.noise_core.read_heightmap(tmp_path / "again.r32")
    assert again.height_range == pytest.approx((mixed.min(), mixed.max()))
    assert np.allclose(again.heights, mixed, rtol=0, atol=1e-6 * np.ptp(mixed))
    # and back in: the exported file is the base of a new terrain with the same heights
    back = addon.api.import_heightmap(bpy.context, str(tmp_path / "again.r32"))
    assert np.array_equal(_heights(back), again.heights.astype(np.float32))


def test_another_grid_resamples_the_base_bilinearly(bpy_empty, addon, tmp_path):
    bpy = bpy_empty
    found = _write(addon, tmp_path / "h.r32", side=9)
    obj = addon.api.import_heightmap(bpy.context, str(tmp_path / "h.r32"))
    obj.noisewright_terrain.x_subdivisions = obj.noisewright_terrain.y_subdivisions = 16
    addon.api.regenerate_terrain(bpy.context, obj)
    heights = _heights(obj).astype(np.float64)
    expected = addon.noise_core.terrain.resample.resample_bilinear(found.values, (17, 17))
    low, high = RANGE
    assert np.array_equal(heights[::2, ::2], found.heights.astype(np.float32))  # the file's own samples
    assert np.allclose(heights, low + expected * (high - low), rtol=0, atol=1e-4)
    midpoint = (found.heights[0, 0] + found.heights[0, 1]) / 2
    assert heights[0, 1] == pytest.approx(midpoint, abs=1e-4)


def test_bad_files_are_refused_and_change_nothing(bpy_empty, addon, tmp_path):
    bpy = bpy_empty
    state = scene_state(bpy)
    with pytest.raises(addon.api.UserError, match=r"^filepath: no file '.*missing.r16'"):
        addon.api.import_heightmap(bpy.context, str(tmp_path / "missing.r16"))
    wide = np.zeros((5, 9), dtype=np.float32)
    addon.noise_core.write_heightmap(tmp_path / "wide.r16", wide)
    with pytest.raises(addon.api.UserError, match=r"^filepath: 'wide.r16' has 9 x 5 samples; a Noise Terrain is"):
        addon.api.import_heightmap(bpy.context, str(tmp_path / "wide.r16"))
    assert scene_state(bpy) == state
    grid = addon.heightmap_import.import_heightmap_grid(bpy.context, str(tmp_path / "wide.r16"))  # any shape
    assert len(grid.data.vertices) == 45 and not addon.api.is_terrain(grid)


def test_a_lost_base_file_refuses_regenerate_and_changes_nothing(bpy_empty, addon, tmp_path):
    bpy = bpy_empty
    _write(addon, tmp_path / "h.r16")
    obj = addon.api.import_heightmap(bpy.context, str(tmp_path / "h.r16"))
    (tmp_path / "h.r16").unlink()
    obj.noisewright_terrain.height = 3.0
    state = scene_state(bpy)
    with pytest.raises(addon.api.UserError, match=r"^base_file: no file '.*h.r16'"):
        addon.api.regenerate_terrain(bpy.context, obj)
    obj.noisewright_terrain.base_file = ""
    with pytest.raises(addon.api.UserError, match=r"^base_file: no heightmap file given"):
        addon.api.regenerate_terrain(bpy.context, obj)
    assert scene_state(bpy) == state
    obj.noisewright_terrain.base_blend = "NONE"  # noise only: the file is not needed
    addon.api.regenerate_terrain(bpy.context, obj)


def test_the_operators_and_menu(bpy_empty, addon, tmp_path):
    bpy = bpy_empty
    _write(addon, tmp_path / "h.exr")
    assert bpy.ops.noisewright.import_heightmap(filepath=str(tmp_path / "h.exr")) == {"FINISHED"}
    assert addon.api.is_terrain(bpy.context.object)
    assert bpy.ops.noisewright.import_heightmap_grid(filepath=str(tmp_path / "h.exr"), size=8.0) == {"FINISHED"}
    assert not addon.api.is_terrain(bpy.context.object) and bpy.context.object.dimensions.x == pytest.approx(8.0)
    labels = []

    class Layout:
        def operator(self, idname, text=""):
            labels.append((idname, text))

    class Menu:
        layout = Layout()

    addon.heightmap_import.import_menu_entry(Menu(), bpy.context)
    assert labels == [
        ("noisewright.import_heightmap", "Heightmap as Noise Terrain"),
        ("noisewright.import_heightmap_grid", "Heightmap as Grid Mesh"),
    ]


def test_an_imported_terrain_erodes_and_its_panel_shows_the_base(bpy_empty, addon, tmp_path):
    bpy = bpy_empty
    found = _write(addon, tmp_path / "h.r32")
    obj = addon.api.import_heightmap(bpy.context, str(tmp_path / "h.r32"))
    obj.noisewright_terrain.erosion.thermal = True
    addon.api.regenerate_terrain(bpy.context, obj)
    eroded = _heights(obj).copy()
    assert not np.array_equal(eroded, found.heights.astype(np.float32))  # thermal erosion moved material
    assert obj.data.attributes.get("erosion") is not None
    addon.api.regenerate_terrain(bpy.context, obj)
    assert np.array_equal(_heights(obj), eroded)
    drawn = []

    class Layout:
        def prop(self, _owner, name):
            drawn.append(name)

    addon.terrain_settings.draw_shape(Layout(), obj.noisewright_terrain)
    assert drawn[-4:] == ["base_blend", "base_file", "base_low", "base_high"]
