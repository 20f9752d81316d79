"""Game-engine heightmaps: R16/R32 bytes, round trips, sidecars, engine sizes and numbers, tiles all or none."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import png
import pytest
import tifffile
from hypothesis import given, settings
from hypothesis import strategies as st

from noise_core.cli import main
from noise_core.io import engines, heightmaps
from noise_core.io.files import replacing_all
from noise_core.io.heightmaps import read_heightmap, tile_windows, write_heightmap, write_tiles
from noise_core.io.images import integer_codes, pack_rgba, write_image
from noise_core.terrain import resample

IMAGE_SUFFIXES = (".png", ".exr", ".tif")


def _values(shape: tuple[int, int], seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).random(shape).astype(np.float32)


def test_r16_bytes_are_little_endian_codes_row_major(tmp_path: Path) -> None:
    values = np.array([[0.0, 1.0, 0.5], [1 / 65535, 256 / 65535, 0.25]], dtype=np.float32)
    write_heightmap(tmp_path / "a.r16", values)
    # round(0.5 * 65535) = 32768 (0x8000), round(0.25 * 65535) = 16384 (0x4000): low byte first
    expected = bytes([0, 0, 0xFF, 0xFF, 0x00, 0x80, 0x01, 0x00, 0x00, 0x01, 0x00, 0x40])
    assert (tmp_path / "a.r16").read_bytes() == expected


def test_r32_bytes_are_little_endian_floats(tmp_path: Path) -> None:
    values = np.array([[1.0, 0.5]], dtype=np.float32)
    write_heightmap(tmp_path / "a.r32", values)
    assert (tmp_path / "a.r32").read_bytes() == bytes.fromhex("0000803f0000003f")


def test_r16_holds_the_codes_of_the_16_bit_png_bake(tmp_path: Path) -> None:
    values = _values((7, 11))
    write_heightmap(tmp_path / "h.r16", values)
    write_image(tmp_path / "bake.png", values, 16)
    width, height, rows, _ = png.Reader(filename=str(tmp_path / "bake.png")).asDirect()
    codes = np.vstack([np.asarray(row, dtype=np.uint16) for row in rows])
    raw = np.frombuffer((tmp_path / "h.r16").read_bytes(), dtype="<u2").reshape(height, width)
    assert np.array_equal(raw, codes)


@settings(max_examples=25, deadline=None)
@given(
    rows=st.integers(1, 9),
    cols=st.integers(1, 9),
    seed=st.integers(0, 2**32 - 1),
    suffix=st.sampled_from((".r16", ".raw", ".r32")),
)
def test_raw_round_trip(tmp_path_factory, rows: int, cols: int, seed: int, suffix: str) -> None:
    folder = tmp_path_factory.mktemp("raw")
    values = _values((rows, cols), seed)
    values[0, 0] = 0.0
    back = read_heightmap(write_heightmap(folder / f"h{suffix}", values, height_range=(-3.0, 7.5), unit="m"))
    assert back.values.shape == (rows, cols)
    if suffix == ".r32":
        assert back.values.tobytes() == values.tobytes()  # bit-exact
    else:
        assert np.max(np.abs(back.values.astype(np.float64) - values)) * 65535 <= 0.5 + 1e-3  # within 1 code
    assert back.height_range == (-3.0, 7.5) and back.unit == "m"
    assert back.heights[0, 0] == -3.0


@pytest.mark.parametrize("suffix", IMAGE_SUFFIXES)
def test_image_round_trip(tmp_path: Path, suffix: str) -> None:
    values = _values((6, 10))
    back = read_heightmap(write_heightmap(tmp_path / f"h{suffix}", values, height_range=(0.0, 250.0), unit="m"))
    if suffix == ".png":
        assert np.max(np.abs(back.values.astype(np.float64) - values)) * 65535 <= 0.5 + 1e-3
    else:
        assert back.values.tobytes() == values.tobytes()
    assert back.sidecar["width"] == 10 and back.sidecar["height"] == 6


def test_sidecar_records_size_rows_range_and_settings(tmp_path: Path) -> None:
    write_heightmap(tmp_path / "h.r16", _values((3, 5)), height_range=(2.0, 9.0), unit="m", settings={"seed": 4})
    record = json.loads((tmp_path / "h.r16.json").read_text())
    assert (record["width"], record["height"]) == (5, 3)
    assert record["height_range"] == [2.0, 9.0] and record["height_unit"] == "m"
    assert record["settings"] == {"seed": 4} and "first row" in record["row_order"]


def test_square_raw_needs_no_shape_and_others_do(tmp_path: Path) -> None:
    square = _values((4, 4))
    (tmp_path / "sq.r16").write_bytes(heightmaps.encode(square, ".r16"))
    assert read_heightmap(tmp_path / "sq.r16").values.shape == (4, 4)
    (tmp_path / "wide.r32").write_bytes(heightmaps.encode(_values((2, 3)), ".r32"))
    with pytest.raises(ValueError, match=r"^shape: .* holds 6 samples, not a square"):
        read_heightmap(tmp_path / "wide.r32")
    assert read_heightmap(tmp_path / "wide.r32", shape=(2, 3)).values.shape == (2, 3)
    with pytest.raises(ValueError, match=r"^shape: shape \(3, 3\) needs 36 bytes, but .* has 24"):
        read_heightmap(tmp_path / "wide.r32", shape=(3, 3))


def test_shape_comes_from_the_sidecar(tmp_path: Path) -> None:
    write_heightmap(tmp_path / "h.r16", _values((2, 8)))
    assert read_heightmap(tmp_path / "h.r16").values.shape == (2, 8)
    (tmp_path / "h.r16").write_bytes(b"\0" * 30)
    with pytest.raises(ValueError, match=r"^path: the sidecar's height and width \(2, 8\) needs 32 bytes"):
        read_heightmap(tmp_path / "h.r16")


def test_odd_byte_count_is_refused(tmp_path: Path) -> None:
    (tmp_path / "h.r16").write_bytes(b"\0" * 7)
    with pytest.raises(ValueError, match="7 bytes, not a whole number of 2-byte samples"):
        read_heightmap(tmp_path / "h.r16")


@pytest.mark.parametrize(
    ("values", "message"),
    [
        (np.full((2, 2), 1.5, np.float32), r"^values: must lie in \[0, 1\]"),
        (np.zeros(4, np.float32), r"^values: expected a non-empty \(height, width\) array"),
        (np.zeros((2, 2), np.uint16), r"^values: expected floats"),
    ],
)
def test_bad_values_are_refused_and_nothing_written(tmp_path: Path, values: np.ndarray, message: str) -> None:
    with pytest.raises((ValueError, TypeError), match=message):
        write_heightmap(tmp_path / "h.r16", values)
    assert list(tmp_path.iterdir()) == []


def test_normalize_maps_a_range_to_unit() -> None:
    unit, low_high = heightmaps.normalize(np.array([[10.0, 20.0], [15.0, 30.0]]))
    assert low_high == (10.0, 30.0) and unit.tolist() == [[0.0, 0.5], [0.25, 1.0]]
    unit, low_high = heightmaps.normalize(np.array([[10.0, 20.0]]), (0.0, 15.0))
    assert unit.tolist() == [[np.float32(10 / 15), 1.0]] and low_high == (0.0, 15.0)  # clipped at the fixed top


def test_geotiff_heights_are_mapped_with_their_range(tmp_path: Path) -> None:
    dem = np.array([[120.0, 180.0], [150.0, 300.0]], dtype=np.float32)
    tifffile.imwrite(tmp_path / "dem.tif", dem)
    back = read_heightmap(tmp_path / "dem.tif")
    assert back.height_range == (120.0, 300.0)
    assert np.allclose(back.heights, dem, atol=1e-4)


# --- engines ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("size", "layout"),
    [
        (127, (63, 2, 1, 1)),
        (253, (63, 2, 2, 2)),
        (505, (63, 2, 4, 4)),
        (1009, (63, 2, 8, 8)),
        (2017, (63, 2, 16, 16)),
        (4033, (63, 2, 32, 32)),
        (8129, (127, 2, 32, 32)),
    ],
)
def test_unreal_recommended_sizes_have_the_technical_guides_layouts(size: int, layout: tuple) -> None:
    assert engines.unreal_layout(size, size) == layout
    assert size in engines.ENGINES["unreal"].sizes


@pytest.mark.parametrize("size", [1000, 1024, 2048, 8193, 4097])
def test_unreal_refuses_inexact_sizes(size: int) -> None:
    with pytest.raises(ValueError, match=rf"^size: Unreal Engine does not take {size}x{size}"):
        engines.ENGINES["unreal"].check_size(size, size)


def test_unreal_z_scale_and_location() -> None:
    assert engines.unreal_z_scale(512.0) == 100.0
    assert engines.unreal_z_scale(256.0) == 50.0
    assert engines.unreal_z_scale(1.0) == 0.1953125
    numbers = engines.ENGINES["unreal"].import_settings(1009, 1009, (100.0, 356.0), 2.0, ".r16")
    assert numbers["Scale (cm)"] == [200.0, 200.0, 50.0]
    assert numbers["Location (cm)"][2] == 22800.0  # (100 + 256 / 2) m
    assert numbers["Section Size"] == "63x63 Quads" and numbers["Number of Components"] == [8, 8]
    # code 0 lands at 100 m, code 65535 at 356 m less one part in 65536 (world = Z + (code - 32768) Z_scale / 128)
    z_scale, location = numbers["Scale (cm)"][2], numbers["Location (cm)"][2]
    assert location + (0 - 32768) * z_scale / 128 == 10000.0
    assert location + (65535 - 32768) * z_scale / 128 == 35600.0 - 25600.0 / 65536


def test_unity_sizes_and_numbers() -> None:
    unity = engines.ENGINES["unity"]
    assert unity.sizes == (33, 65, 129, 257, 513, 1025, 2049, 4097)
    for bad in ((1024, 1024), (513, 257), (8193, 8193), (17, 17)):
        with pytest.raises(ValueError, match=r"^size: Unity does not take"):
            unity.check_size(*bad)
    numbers = unity.import_settings(513, 513, (-20.0, 180.0), 0.5, ".raw")
    assert numbers["Terrain Size"] == [256.0, 200.0, 256.0] and numbers["Terrain Position Y"] == -20.0
    assert numbers["Byte Order"] == "Windows" and numbers["Depth"] == "Bit 16"


def test_godot_numbers_for_exr_and_r16() -> None:
    godot = engines.ENGINES["godot"]
    exr = godot.import_settings(1024, 1024, (-5.0, 95.0), 1.0, ".exr")
    assert exr["import_scale"] == 100.0 and exr["import_offset"] == -5.0 and exr["region_size"] == 1024
    r16 = godot.import_settings(300, 200, (-5.0, 95.0), 1.0, ".r16")
    assert r16["r16_range"] == [-5.0, 95.0] and r16["r16_size"] == [300, 200]


def test_engine_refusals_in_write_heightmap(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"^size: Unity does not take 10x10"):
        write_heightmap(tmp_path / "h.raw", _values((10, 10)), engine="unity")
    with pytest.raises(ValueError, match=r"^out: Unreal Engine imports .png, .r16, .raw heightmaps, not .r32"):
        write_heightmap(tmp_path / "h.r32", _values((127, 127)), engine="unreal")
    with pytest.raises(ValueError, match=r"^engine: 'cryengine' is not a preset"):
        write_heightmap(tmp_path / "h.r16", _values((127, 127)), engine="cryengine")
    assert list(tmp_path.iterdir()) == []


def test_engine_numbers_in_the_sidecar(tmp_path: Path) -> None:
    write_heightmap(tmp_path / "h.r16", _values((127, 127)), height_range=(0.0, 512.0), unit="m", engine="unreal")
    record = json.loads((tmp_path / "h.r16.json").read_text())
    assert record["import"]["engine"] == "Unreal Engine" and record["import"]["Scale (cm)"][2] == 100.0


# --- tiles ------------------------------------------------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(tile=st.integers(1, 6), across=st.integers(1, 4), down=st.integers(1, 4), overlap=st.sampled_from((0, 1)))
def test_tile_windows_cover_the_grid_and_share_edges(tile: int, across: int, down: int, overlap: int) -> None:
    shape = (down * tile + overlap, across * tile + overlap)
    grid = np.arange(shape[0] * shape[1]).reshape(shape)
    count = np.zeros(shape, dtype=int)
    windows = tile_windows(shape, tile, overlap)
    assert len(windows) == across * down
    pieces = {}
    for x, y, (row0, col0, rows, cols) in windows:
        assert rows == cols == tile + overlap
        pieces[x, y] = grid[row0 : row0 + rows, col0 : col0 + cols]
        count[row0 : row0 + rows, col0 : col0 + cols] += 1
    assert count.min() == 1
    if overlap == 1:
        for (x, y), piece in pieces.items():
            if (x + 1, y) in pieces:
                assert np.array_equal(piece[:, -1], pieces[x + 1, y][:, 0])
            if (x, y + 1) in pieces:
                assert np.array_equal(piece[-1, :], pieces[x, y + 1][0, :])
    else:
        assert count.max() == 1


def test_tile_size_must_divide(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"^tile: the width 10 - overlap 1 = 9 is not a whole multiple of 4"):
        tile_windows((9, 10), 4, 1)
    with pytest.raises(ValueError, match=r"^overlap: must be 0 or 1"):
        tile_windows((9, 9), 4, 2)


def test_tiles_written_share_edges_and_reassemble(tmp_path: Path) -> None:
    values = _values((9, 13))
    paths = write_tiles(tmp_path / "land.r32", values, 4, height_range=(0.0, 10.0), unit="m")
    assert [p.name for p in paths[:3]] == ["land_x0_y0.r32", "land_x1_y0.r32", "land_x2_y0.r32"]
    assert len(paths) == 6
    left, right = read_heightmap(paths[0]).values, read_heightmap(paths[1]).values
    assert left.shape == (5, 5) and np.array_equal(left[:, -1], right[:, 0])
    below = read_heightmap(paths[3]).values
    assert np.array_equal(left[-1, :], below[0, :])
    whole = read_heightmap(tmp_path / "land.r32")
    assert whole.values.tobytes() == values.tobytes() and whole.height_range == (0.0, 10.0)


def test_unity_tiles_are_named_x_then_z_from_the_last_row(tmp_path: Path) -> None:
    paths = write_tiles(tmp_path / "t.raw", _values((65, 97)), 32, engine="unity", height_range=(0.0, 50.0))
    names = [p.name for p in paths]
    assert names == ["t_0_1.raw", "t_1_1.raw", "t_2_1.raw", "t_0_0.raw", "t_1_0.raw", "t_2_0.raw"]
    record = json.loads((tmp_path / "t_0_0.raw.json").read_text())
    assert record["import"]["Resolution"] == [33, 33]


def test_unreal_world_partition_names_and_refused_tiles(tmp_path: Path) -> None:
    paths = write_tiles(tmp_path / "w.png", _values((253, 253)), 126, engine="unreal", height_range=(0.0, 100.0))
    assert [p.name for p in paths] == ["w_x0_y0.png", "w_x1_y0.png", "w_x0_y1.png", "w_x1_y1.png"]
    with pytest.raises(ValueError, match=r"^tile: 100 \+ 1 samples: Unreal Engine does not take 101x101"):
        write_tiles(tmp_path / "v.png", _values((201, 201)), 100, engine="unreal")
    with pytest.raises(ValueError, match=r"^overlap: Unreal Engine tiles overlap by 1, got 0"):
        write_tiles(tmp_path / "v.png", _values((200, 200)), 100, 0, engine="unreal")
    with pytest.raises(ValueError, match=r"^tile: Godot Terrain3D tiles are its region sizes"):
        write_tiles(tmp_path / "g.exr", _values((200, 200)), 100, engine="godot")
    assert not list(tmp_path.glob("v*")) and not list(tmp_path.glob("g*"))


def test_no_partial_tile_set_on_a_failure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "land_x0_y0.r16").write_bytes(b"old tile")
    calls = []
    real = heightmaps._write_file

    def failing(path: Path, values: np.ndarray, suffix: str) -> None:
        calls.append(path)
        if len(calls) == 3:
            raise OSError("disk full")
        real(path, values, suffix)

    monkeypatch.setattr(heightmaps, "_write_file", failing)
    with pytest.raises(OSError, match="disk full"):
        write_tiles(tmp_path / "land.r16", _values((9, 9)), 4)
    assert len(calls) == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["land_x0_y0.r16"]
    assert (tmp_path / "land_x0_y0.r16").read_bytes() == b"old tile"


def _splat(shape: tuple[int, int], layers: int, seed: int = 4) -> np.ndarray:
    weights = np.random.default_rng(seed).random((layers, *shape)).astype(np.float32)
    return weights / weights.sum(axis=0)


def _codes(path: Path) -> np.ndarray:
    """The integer codes of an RGBA PNG, (H, W, 4)."""
    width, height, rows, info = png.Reader(filename=str(path)).asRGBA()
    dtype = np.uint16 if info["bitdepth"] == 16 else np.uint8
    return np.vstack([np.asarray(row, dtype=dtype) for row in rows]).reshape(height, width, 4)


@pytest.mark.parametrize(("bits", "overlap"), [(8, 1), (16, 1), (8, 0)])
def test_splat_tiles_share_edges_and_reassemble_to_the_whole(tmp_path: Path, bits: int, overlap: int) -> None:
    shape = (4 * 2 + overlap, 4 * 3 + overlap)
    values, weights = _values(shape), _splat(shape, 6)
    write_heightmap(tmp_path / "whole.r16", values, splat=weights, splat_bits=bits)
    assert sorted(p.name for p in tmp_path.glob("whole_splat*")) == ["whole_splat0.png", "whole_splat1.png"]
    whole = [_codes(tmp_path / f"whole_splat{k}.png") for k in range(2)]
    expected = [integer_codes(image, bits) for image in pack_rgba(weights)]
    assert all(np.array_equal(a, b) for a, b in zip(whole, expected, strict=True))
    assert (whole[1][..., 2:] == 0).all()  # layers 6 and 7 do not exist
    paths = write_tiles(tmp_path / "t.r16", values, 4, overlap, splat=weights, splat_bits=bits)
    assembled = [np.zeros_like(image) for image in whole]
    for path in paths:
        listing = json.loads((tmp_path / "t.r16.json").read_text())["tiles"]["files"]
        entry = next(item for item in listing if item["file"] == path.name)
        assert entry["splat"] == [f"{path.stem}_splat0.png", f"{path.stem}_splat1.png"]
        row, column = entry["row"], entry["column"]
        for k in range(2):
            tile = _codes(tmp_path / entry["splat"][k])
            assert tile.shape == (4 + overlap, 4 + overlap, 4)
            assembled[k][row : row + 4 + overlap, column : column + 4 + overlap] = tile
            assert np.array_equal(tile, whole[k][row : row + 4 + overlap, column : column + 4 + overlap])
    assert all(np.array_equal(a, b) for a, b in zip(assembled, whole, strict=True))
    if overlap:  # neighbours hold the same weights on their shared edge
        left, right = _codes(tmp_path / "t_x0_y0_splat0.png"), _codes(tmp_path / "t_x1_y0_splat0.png")
        below = _codes(tmp_path / "t_x0_y1_splat0.png")
        assert np.array_equal(left[:, -1], right[:, 0]) and np.array_equal(left[-1, :], below[0, :])
    record = json.loads((tmp_path / "t.r16.json").read_text())["splat"]
    assert record["layers"] == 6 and record["bits"] == bits


def test_splat_failures_write_nothing(tmp_path: Path) -> None:
    values = _values((9, 9))
    (tmp_path / "t_x1_y1_splat0.png").mkdir()  # the last tile's splat cannot be written
    with pytest.raises(OSError):
        write_tiles(tmp_path / "t.r16", values, 4, splat=_splat((9, 9), 3))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t_x1_y1_splat0.png"]
    bad = [
        (_splat((9, 8), 3), 8, ValueError, r"^splat: expected weights \(layers, 9, 9\) over the heights"),
        (_splat((9, 9), 3) * 2.0, 8, ValueError, r"^splat: weights must lie in \[0, 1\]"),
        (np.ones((2, 9, 9), dtype=np.int64), 8, TypeError, "^splat: expected float weights"),
        (_splat((9, 9), 3), 12, ValueError, "^splat_bits: must be 8 or 16, got 12"),
    ]
    for weights, bits, error, message in bad:
        with pytest.raises(error, match=message):
            write_tiles(tmp_path / "u.r16", values, 4, splat=weights, splat_bits=bits)
        with pytest.raises(error, match=message):
            write_heightmap(tmp_path / "u.r16", values, splat=weights, splat_bits=bits)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t_x1_y1_splat0.png"]


def test_replacing_all_keeps_everything_when_one_file_is_empty(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("old a")
    with (
        pytest.raises(OSError, match="nothing was written"),
        replacing_all([tmp_path / "a.txt", tmp_path / "b.txt"]) as (
            a,
            _b,
        ),
    ):
        a.write_text("new a")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"] and (tmp_path / "a.txt").read_text() == "old a"
    same = [tmp_path / "a.txt", tmp_path / "a.txt"]
    with pytest.raises(ValueError, match=r"^out: two files of the set would both be written to"), replacing_all(same):
        pass


# --- command line -----------------------------------------------------------------------------------------


def test_cli_r16_matches_the_png_bake(tmp_path: Path) -> None:
    common = ["--width", "24", "--height", "16", "--kind", "perlin", "--seed", "3"]
    assert main(["bake", "--out", str(tmp_path / "h.r16"), *common]) == 0
    assert main(["bake", "--out", str(tmp_path / "h.png"), *common]) == 0
    width, height, rows, _ = png.Reader(filename=str(tmp_path / "h.png")).asDirect()
    codes = np.vstack([np.asarray(row, dtype=np.uint16) for row in rows])
    raw = np.frombuffer((tmp_path / "h.r16").read_bytes(), dtype="<u2").reshape(height, width)
    assert np.array_equal(raw, codes)
    record = json.loads((tmp_path / "h.r16.json").read_text())
    assert record["settings"]["seed"] == 3 and record["height_unit"] == "noise value"
    assert not (tmp_path / "h.png.json").exists()  # a plain image bake is unchanged


def test_cli_engine_tiles_reassemble_to_the_whole(tmp_path: Path) -> None:
    common = ["--size", "65", "--kind", "value", "--engine", "unity", "--height-range", "0", "80"]
    assert main(["bake", "--out", str(tmp_path / "whole.raw"), *common]) == 0
    assert main(["bake", "--out", str(tmp_path / "t.raw"), "--tile", "32", *common]) == 0
    names = sorted(p.name for p in tmp_path.glob("t_*.raw"))
    assert names == ["t_0_0.raw", "t_0_1.raw", "t_1_0.raw", "t_1_1.raw"]
    whole = read_heightmap(tmp_path / "whole.raw")
    assert np.array_equal(read_heightmap(tmp_path / "t.raw").values, whole.values)
    assert whole.sidecar["import"]["Terrain Size"] == [64.0, 80.0, 64.0]


def test_cli_tiles_with_splat_weights(tmp_path: Path) -> None:
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps([{"name": "grass"}, {"name": "rock", "bands": [{"map": "slope", "low": 20}]}]))
    common = ["--size", "65", "--kind", "perlin", "--height-range", "0", "300", "--cell-size", "4"]
    common += ["--splat", str(rules)]
    out = tmp_path / "out"
    out.mkdir()
    assert main(["bake", "--out", str(out / "whole.r16"), "--splat-bits", "16", *common]) == 0
    assert main(["bake", "--out", str(out / "t.r16"), "--tile", "32", "--splat-bits", "16", *common]) == 0
    assert sorted(p.name for p in out.glob("t_*_splat*")) == [f"t_x{x}_y{y}_splat0.png" for x in (0, 1) for y in (0, 1)]
    whole = _codes(out / "whole_splat0.png")
    assert (whole[..., 2:] == 0).all() and np.ptp(whole[..., 1]) > 60000  # rock on the steep parts only
    assert (np.abs(whole[..., :2].astype(int).sum(axis=2) - 65535) <= 1).all()  # two layers summing to 1
    for x, y in ((0, 0), (1, 0), (0, 1), (1, 1)):
        tile = _codes(out / f"t_x{x}_y{y}_splat0.png")
        assert np.array_equal(tile, whole[32 * y : 32 * y + 33, 32 * x : 32 * x + 33])
    assert json.loads((out / "whole.r16.json").read_text())["splat"]["files"] == ["whole_splat0.png"]
    for extra in (["--splat-bits", "16"], ["--splat", str(tmp_path / "none.json")]):
        with pytest.raises(SystemExit):
            main(["bake", "--out", str(out / "u.r16"), "--size", "65", *extra])
    assert not list(out.glob("u*"))


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--engine", "unreal", "--height-range", "0", "9"], "size: Unreal Engine does not take 100x100"),
        (["--engine", "unreal"], "height-range: give the heights in metres"),
        (["--overlap", "1"], "overlap: only used with --tile"),
        (["--tile", "34"], "tile: the width 100 - overlap 1 = 99 is not a whole multiple of 34"),
        (["--map", "normal"], "map: a heightmap holds heights"),
    ],
)
def test_cli_refusals_exit_2_and_write_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list, message: str
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["bake", "--out", str(tmp_path / "h.r16"), "--size", "100", *extra])
    assert exit_info.value.code == 2 and message in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_cli_import_converts_and_keeps_the_range(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    values = _values((5, 7))
    write_heightmap(tmp_path / "h.r32", values, height_range=(1.0, 2.0), unit="m")
    assert main(["import", str(tmp_path / "h.r32"), "--out", str(tmp_path / "h.exr")]) == 0
    assert "7x5" in capsys.readouterr().out
    back = read_heightmap(tmp_path / "h.exr")
    assert back.values.tobytes() == values.tobytes() and back.height_range == (1.0, 2.0) and back.unit == "m"
    assert main(["import", str(tmp_path / "missing.r16")]) == 2


def test_bilinear_resampling_keeps_planes_and_corners() -> None:
    rows, cols = np.mgrid[0:5, 0:9]
    plane = 2.0 * rows + 0.5 * cols + 1.0
    out = resample.resample_bilinear(plane, (9, 17))  # twice as fine: a plane stays the plane
    r, c = np.mgrid[0:9, 0:17]
    assert np.allclose(out, 2.0 * r / 2 + 0.5 * c / 2 + 1.0, rtol=0, atol=1e-12)
    assert np.array_equal(resample.resample_bilinear(plane, (5, 9)), plane)
    bumpy = _values((6, 7)).astype(np.float64)
    small = resample.resample_bilinear(bumpy, (3, 4))
    assert [small[0, 0], small[0, -1], small[-1, 0], small[-1, -1]] == [
        bumpy[0, 0],
        bumpy[0, -1],
        bumpy[-1, 0],
        bumpy[-1, -1],
    ]
    assert small[1, 0] == pytest.approx((bumpy[2, 0] + bumpy[3, 0]) / 2)  # row 1 of 3 reads row 2.5 of 6


def test_write_tiles_reports_each_tile_and_a_stop_writes_nothing(tmp_path: Path) -> None:
    values = np.linspace(0.0, 1.0, 9 * 13).reshape(9, 13)
    seen: list[tuple[int, int]] = []
    paths = write_tiles(tmp_path / "t.r16", values, 4, progress=lambda done, total: seen.append((done, total)))
    assert seen == [(done, 6) for done in range(1, 7)] and len(paths) == 6

    class Stop(Exception):
        pass

    def stop_at_third(done: int, _total: int) -> None:
        if done == 3:
            raise Stop

    folder = tmp_path / "stopped"
    folder.mkdir()
    with pytest.raises(Stop):
        write_tiles(folder / "t.r16", values, 4, progress=stop_at_third)
    assert list(folder.iterdir()) == []  # all or none
