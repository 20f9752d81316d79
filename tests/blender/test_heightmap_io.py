"""Heightmaps in Blender: export a Noise Terrain or grid mesh (presets, tiles, all or none), import one back."""

from __future__ import annotations

import json

import numpy as np
import png
import pytest

from .conftest import scene_state

pytestmark = pytest.mark.blender


def _positions(obj) -> np.ndarray:
    flat = np.empty(len(obj.data.vertices) * 3, dtype=np.float32)
    obj.data.vertices.foreach_get("co", flat)
    return flat.reshape(-1, 3)


def _terrain(bpy, addon, subdivisions: int = 16, size: float = 64.0):
    spec = addon.api.NoiseSpec(kind="perlin", octaves=3, frequency=0.05)
    return addon.api.add_terrain(
        bpy.context, spec, x_subdivisions=subdivisions, y_subdivisions=subdivisions, size=size, height=20.0
    )


def test_terrain_exports_regenerated_at_the_preset_size(bpy_empty, addon, tmp_path):
    bpy = bpy_empty
    obj = _terrain(bpy, addon)
    paths, numbers, how = addon.heightmap_export.export_heightmap(
        bpy.context, obj, str(tmp_path / "t.raw"), engine="UNITY", resolution=33
    )
    assert [p.name for p in paths] == ["t.raw"] and "regenerated" in how
    assert (tmp_path / "t.raw").stat().st_size == 33 * 33 * 2
    assert numbers["Resolution"] == [33, 33] and numbers["Terrain Size"][0] == pytest.approx(64.0)
    # the same terrain built at 32 subdivisions, its rows from +Y first, normalised by the sidecar's range
    finer = _terrain(bpy, addon, subdivisions=32)
    expected = _positions(finer)[:, 2].astype(np.float64).reshape(33, 33)[::-1]
    found = addon.noise_core.read_heightmap(tmp_path / "t.raw")
    low, high = found.height_range
    assert (low, high) == pytest.approx((expected.min(), expected.max()), abs=1e-5)
    codes = np.frombuffer((tmp_path / "t.raw").read_bytes(), dtype="<u2").reshape(33, 33)
    assert np.abs(codes - (expected - low) / (high - low) * 65535).max() <= 0.51
    record = json.loads((tmp_path / "t.raw.json").read_text())
    assert record["settings"]["noise"]["kind"] == "perlin" and "+Y" in record["row_order"]


def test_grid_mesh_round_trip_through_r32(bpy_empty, addon, tmp_path):
    bpy = bpy_empty
    obj = _terrain(bpy, addon, subdivisions=12, size=11.0)
    before = _positions(obj)
    addon.heightmap_export.export_heightmap(bpy.context, obj, str(tmp_path / "g.r32"))
    back = addon.heightmap_import.import_heightmap_grid(bpy.context, str(tmp_path / "g.r32"), size=11.0)
    after = _positions(back)
    assert after.shape == before.shape
    order = np.lexsort((before[:, 0], before[:, 1]))
    again = np.lexsort((after[:, 0], after[:, 1]))
    assert np.allclose(after[again, :2], before[order, :2], atol=1e-5)
    span = float(np.ptp(before[:, 2]))
    assert np.abs(after[again, 2] - before[order, 2]).max() <= span * 2e-7 + 1e-6  # float32 values: ~1 ulp
    assert json.loads(back["noisewright_heightmap"])["unit"] == "m"


def test_a_grid_mesh_is_resampled_bilinearly(bpy_empty, addon, tmp_path):
    bpy = bpy_empty
    bpy.ops.mesh.primitive_grid_add(x_subdivisions=5, y_subdivisions=5, size=4.0)  # 5 x 5 vertices, 1 apart
    obj = bpy.context.object
    co = _positions(obj)
    co[:, 2] = co[:, 0] * 2.0 + co[:, 1]  # a plane: resampling keeps it
    obj.data.vertices.foreach_set("co", co.ravel())
    addon.heightmap_export.export_heightmap(bpy.context, obj, str(tmp_path / "p.r32"), resolution=9)
    found = addon.noise_core.read_heightmap(tmp_path / "p.r32")
    x = np.linspace(-2.0, 2.0, 9)
    y = np.linspace(2.0, -2.0, 9)[:, None]  # first row at +Y
    assert np.allclose(found.heights, 2.0 * x + y, atol=1e-5)
    assert found.sidecar["settings"]["heights"].startswith("resampled bilinearly")


def test_unreal_tiles_from_a_terrain(bpy_empty, addon, tmp_path):
    bpy = bpy_empty
    obj = _terrain(bpy, addon)
    paths, numbers, _how = addon.heightmap_export.export_heightmap(
        bpy.context, obj, str(tmp_path / "w.png"), engine="UNREAL", resolution=253, tile=126
    )
    assert [p.name for p in paths] == ["w_x0_y0.png", "w_x1_y0.png", "w_x0_y1.png", "w_x1_y1.png"]
    assert numbers["Overall Resolution"] == [127, 127]
    left = addon.noise_core.read_heightmap(paths[0]).values
    right = addon.noise_core.read_heightmap(paths[1]).values
    assert np.array_equal(left[:, -1], right[:, 0])


def test_refused_size_writes_nothing_and_changes_nothing(bpy_empty, addon, tmp_path):
    bpy = bpy_empty
    obj = _terrain(bpy, addon)
    state = scene_state(bpy)
    export = addon.heightmap_export.export_heightmap
    with pytest.raises(addon.api.UserError, match=r"^resolution: Unity does not take 100x100"):
        export(bpy.context, obj, str(tmp_path / "t.raw"), engine="UNITY", resolution=100)
    with pytest.raises(addon.api.UserError, match=r"^filepath: Unity imports .raw, .r16 heightmaps, not .exr"):
        export(bpy.context, obj, str(tmp_path / "t.exr"), engine="UNITY")
    (tmp_path / "odd.r16").write_bytes(b"\0" * 12)
    with pytest.raises(addon.api.UserError, match=r"^filepath: shape: .* holds 6 samples, not a square"):
        addon.heightmap_import.import_heightmap(bpy.context, str(tmp_path / "odd.r16"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["odd.r16"]
    assert scene_state(bpy) == state


SPLAT_RULES = [
    {"name": "grass"},
    {"name": "rock", "bands": [{"map": "slope", "low": 10, "blend": 4}]},
    {"name": "low", "bands": [{"map": "relative_height", "high": 0.3, "blend": 0.1}]},
]


def _rgba(path) -> np.ndarray:
    width, height, rows, _info = png.Reader(filename=str(path)).asRGBA()
    return np.vstack([np.asarray(row, dtype=np.int64) for row in rows]).reshape(height, width, 4)


def test_splat_maps_beside_the_tiles(bpy_empty, addon, tmp_path):
    bpy = bpy_empty
    obj = _terrain(bpy, addon)
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps(SPLAT_RULES))
    out = tmp_path / "out"
    out.mkdir()
    export = addon.heightmap_export.export_heightmap
    export(bpy.context, obj, str(out / "whole.r32"), splat_rules=str(rules), splat_bits="16")
    paths, _, _ = export(bpy.context, obj, str(out / "t.r32"), tile=8, splat_rules=str(rules), splat_bits="16")
    whole = _rgba(out / "whole_splat0.png")
    assert whole.shape == (17, 17, 4) and (whole[..., 3] == 0).all()
    for path in paths:  # 2 x 2 tiles of 9 samples: cut from the whole, so shared edges are equal
        listing = json.loads((out / "t.r32.json").read_text())["tiles"]["files"]
        entry = next(e for e in listing if e["file"] == path.name)
        assert entry["splat"] == [f"{path.stem}_splat0.png"]
        row, column = entry["row"], entry["column"]
        assert np.array_equal(_rgba(out / entry["splat"][0]), whole[row : row + 9, column : column + 9])
    # the weights of the exported heights (metres, 4 m apart), computed with rows along +Y, file rows from +Y
    heights = addon.noise_core.read_heightmap(out / "whole.r32").heights
    weights = addon.noise_core.splat_weights(heights[::-1], SPLAT_RULES, cell_size=4.0)[:, ::-1]
    assert np.abs(whole[..., :3] - np.round(np.moveaxis(weights, 0, -1) * 65535)).max() <= 2
    assert 0 < whole[..., 1].mean() < 65535 and 0 < whole[..., 2].mean() < 65535  # rock and low both present
    assert (np.abs(whole[..., :3].sum(axis=2) - 65535) <= 2).all()


def test_splat_failures_write_nothing_and_change_nothing(bpy_empty, addon, tmp_path):
    bpy = bpy_empty
    obj = _terrain(bpy, addon)
    state = scene_state(bpy)
    export = addon.heightmap_export.export_heightmap
    (tmp_path / "bad.json").write_text(json.dumps([{"name": "x", "bands": [{"map": "slant"}]}]))
    (tmp_path / "rules.json").write_text(json.dumps(SPLAT_RULES))
    (tmp_path / "t_x1_y1_splat0.png").mkdir()  # the last tile's splat cannot be written
    calls = [
        ({"splat_rules": str(tmp_path / "none.json")}, "splat_rules: cannot read"),
        ({"splat_rules": str(tmp_path / "bad.json")}, "splat_rules: "),
        ({"splat_rules": str(tmp_path / "rules.json"), "splat_bits": "12"}, "splat_bits: '12' is not allowed"),
        ({"splat_rules": str(tmp_path / "rules.json"), "tile": 8}, "filepath: cannot write"),
    ]
    for options, message in calls:
        with pytest.raises(addon.api.UserError) as error:
            export(bpy.context, obj, str(tmp_path / "t.r16"), **options)
        assert str(error.value).startswith(message), str(error.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json", "rules.json", "t_x1_y1_splat0.png"]
    assert scene_state(bpy) == state


def test_operators_and_menus(bpy_empty, addon, tmp_path):
    bpy = bpy_empty
    obj = _terrain(bpy, addon)
    bpy.context.view_layer.objects.active = obj
    with pytest.raises(RuntimeError, match=r"filepath: 'op.r16' does not end in .exr, the extension of Format EXR"):
        bpy.ops.noisewright.export_heightmap(filepath=str(tmp_path / "op.r16"), file_format="EXR")
    assert list(tmp_path.iterdir()) == []  # refused, not renamed
    result = bpy.ops.noisewright.export_heightmap(
        filepath=str(tmp_path / "op.exr"), file_format="EXR", fixed_range=True, height_min=0.0, height_max=40.0
    )
    assert result == {"FINISHED"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["op.exr", "op.exr.json"]
    found = addon.noise_core.read_heightmap(tmp_path / "op.exr")
    assert found.height_range == (0.0, 40.0)
    assert bpy.ops.noisewright.import_heightmap(filepath=str(tmp_path / "op.exr")) == {"FINISHED"}
    assert len(bpy.context.object.data.vertices) == 17 * 17
    draw = [f.__name__ for f in getattr(bpy.types.TOPBAR_MT_file_export.draw, "_draw_funcs", [])]
    assert "export_menu_entry" in draw
    draw = [f.__name__ for f in getattr(bpy.types.TOPBAR_MT_file_import.draw, "_draw_funcs", [])]
    assert "import_menu_entry" in draw
