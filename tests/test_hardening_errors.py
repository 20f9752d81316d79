"""Hardening (issue 29): for allowed input a finite answer or an error naming the user's argument; never a silently
wrong result. One section per class of fault."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import noise_core as nc
from noise_core import loops, normal_maps, scale, uv_bake
from noise_core.cli import main
from noise_core.terrain import erosion

POINTS = np.random.default_rng(29).random((400, 2))

# --- analytic derivatives that overflow float32 ------------------------------------------------------------------

STEEP_RIDGES = {"fractal": "ridged", "offset": 1.0, "gain": 2.0, "persistence": 100.0, "octaves": 16,
                "lacunarity": 4.0, "frequency": 1.0}  # fmt: skip
STRONG_WARP = {"warp": "progressive", "warp_amplitude": 1000.0, "warp_octaves": 16}


@pytest.mark.parametrize(("options", "field"), [(STEEP_RIDGES, "persistence"), (STRONG_WARP, "warp_amplitude")])
def test_derivatives_beyond_float32_are_refused_naming_the_field(options: dict, field: str) -> None:
    spec = nc.NoiseSpec(**options)
    assert np.isfinite(nc.evaluate(spec, POINTS)).all()  # the values themselves are fine
    with pytest.raises(ValueError, match=rf"^{field}: .*gradient.* beyond float32"):
        nc.evaluate(spec, POINTS, derivatives=True)


def test_cli_refuses_a_normal_map_whose_gradient_overflows(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "n.png"
    steep = "--fractal ridged --offset 1 --gain 2 --persistence 100 --octaves 16 --lacunarity 4 --frequency 1"
    arguments = ["bake", "--out", str(out), "--size", "16", "--map", "normal", *steep.split()]
    with pytest.raises(SystemExit) as exit_info:
        main(arguments)
    assert exit_info.value.code == 2 and "persistence: " in capsys.readouterr().err
    assert not out.exists()


def test_huge_but_finite_slopes_give_unit_normals() -> None:
    """Slopes whose squares overflow float64 still normalise (scaled by the largest component first)."""
    spec = nc.NoiseSpec(frequency=1.0)
    normals = normal_maps.surface_normals(spec, POINTS, (1e200, 0.0), (0.0, 1e200), (0.01, 0.01), strength=1000.0)
    assert np.isfinite(normals).all()
    np.testing.assert_allclose(np.linalg.norm(normals, axis=1), 1.0, rtol=1e-6)


# --- surface_normals arguments ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (((1.0, 0.0), (0.0, 1.0), (0.0, 0.0)), r"^pixel: the texel size .* must be > 0"),
        (((1.0, 0.0), (0.0, 1.0), (0.01, -0.01)), r"^pixel: the texel size .* must be > 0"),
        (((1.0, 0.0, 0.0), (0.0, 1.0), (0.01, 0.01)), r"^du: expected 2 numbers"),
        (((1.0, 0.0), (1.0,), (0.01, 0.01)), r"^dv: expected 2 numbers"),
        (((1.0, np.nan), (0.0, 1.0), (0.01, 0.01)), r"^du: must be finite"),
    ],
)
@pytest.mark.parametrize("method", ["analytic", "differences"])
def test_surface_normals_check_du_dv_and_the_pixel_size(arguments: tuple, message: str, method: str) -> None:
    with pytest.raises(ValueError, match=message):
        normal_maps.surface_normals(nc.NoiseSpec(), POINTS, *arguments, method=method)


# --- erosion: finite output or a named error ----------------------------------------------------------------------

ERODERS = [
    pytest.param(lambda heights, **kw: erosion.erode_hydraulic(heights, droplets=200, **kw), id="hydraulic"),
    pytest.param(lambda heights, **kw: erosion.erode_thermal(heights, iterations=5, **kw), id="thermal"),
]
HILL = np.random.default_rng(4).random((24, 24))


@pytest.mark.parametrize("erode", ERODERS)
@pytest.mark.parametrize("cell_size", [1e-310, 1e-200, 5e-324])
def test_erosion_refuses_a_cell_size_too_small_for_the_heights(erode, cell_size: float) -> None:
    with pytest.raises(ValueError, match=r"^cell_size: .* is too small for heights up to"):
        erode(HILL, cell_size=cell_size)


@pytest.mark.parametrize("erode", ERODERS)
@pytest.mark.parametrize("scale", [1e39, -1e300, np.finfo(np.float64).max / 2])
def test_erosion_refuses_heights_beyond_float32(erode, scale: float) -> None:
    with pytest.raises(ValueError, match=r"^heights: values up to .* lie beyond 1e\+38"):
        erode(HILL * scale)


@pytest.mark.parametrize("erode", ERODERS)
@pytest.mark.parametrize(("scale", "cell_size"), [(1e38, 1.0), (1.0, 1e-100), (1e-300, 1e-300), (1e38, 1e-62)])
def test_erosion_at_the_limits_stays_finite(erode, scale: float, cell_size: float) -> None:
    result = erode(HILL * scale - scale / 2, cell_size=cell_size)
    for values in (result.heights, result.erosion, result.deposition):
        assert np.isfinite(values).all()
    assert np.isfinite([result.eroded, result.deposited, result.carried_off]).all()


# --- shapes: one check, the same errors everywhere ----------------------------------------------------------------

BAD_SHAPES = [
    ((0, 8), ValueError, r"^shape: height and width must be positive"),
    ((8, -3), ValueError, r"^shape: height and width must be positive"),
    ((8.0, 8), TypeError, r"^shape: expected a tuple \(height, width\) of two integers"),
    ((8, 2.5), TypeError, r"^shape: expected a tuple"),
    ([8, 8], TypeError, r"^shape: expected a tuple"),
    ((True, 8), TypeError, r"^shape: expected a tuple"),
    ((8,), TypeError, r"^shape: expected a tuple"),
]
TOO_MANY = ((65536, 65536), ValueError, r"^shape: 65536x65536 exceeds the limit of 268435456 samples")
LOOP_SPEC = nc.NoiseSpec(kind="simplex")


@pytest.mark.parametrize(("shape", "error", "message"), [*BAD_SHAPES, TOO_MANY])
@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda shape: nc.evaluate_grid(LOOP_SPEC, shape), id="evaluate_grid"),
        pytest.param(lambda shape: loops.loop_grid(LOOP_SPEC, shape, 0, 4), id="loop_grid"),
        pytest.param(lambda shape: normal_maps.grid_normals(LOOP_SPEC, shape), id="grid_normals"),
        pytest.param(lambda shape: normal_maps.grid_normals(LOOP_SPEC, shape, loop=(0, 4, 0.25)), id="loop_normals"),
    ],
)
def test_grids_check_their_shape_as_evaluate_grid_does(call, shape: object, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        call(shape)


@pytest.mark.parametrize(("shape", "error", "message"), BAD_SHAPES)
def test_scale_grid_checks_its_shape(shape: object, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        scale.grid(LOOP_SPEC, shape)


# --- the tiled CLI refuses what it would drop ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--out", "{tmp}/w.zarr", "--frames", "3"], "frames: --frames is for single images"),
        (["--out", "{tmp}/t_{row}_{col}.png", "--frames", "3"], "frames: --frames is for single images"),
        (["--out", "{tmp}/w.zarr", "--loop-radius", "2"], "loop-radius: only used with --frames"),
        (["--out", "{tmp}/w.exr", "--png-bits", "8"], "png-bits: only used for a single .png image"),
        (["--out", "{tmp}/w.r16", "--png-bits", "8"], "png-bits: only used for a single .png image"),
        (["--out", "{tmp}/w.zarr", "--normal-strength", "0.5"], "normal-strength: only used with --map normal"),
        (["--out", "{tmp}/w.png", "--normal-method", "differences"], "normal-method: only used with --map normal"),
        (["--out", "{tmp}/t_{row}_{col}.png", "--normal-convention", "directx"], "normal-convention: only used"),
        (["--out", "{tmp}/t_{row}_{col}.png", "--png-bits", "8"], "png-bits: only used for a single .png image"),
        (["--out", "{tmp}/{row}{col}.png", "--size", "1200", "--tile", "100"],
         "out: the tile pattern '{tmp}/{row}{col}.png' names tile (11, 0) and tile (1, 10) alike"),
        (["--out", "{tmp}/a{row}{col}/../t.png", "--size", "8", "--tile", "4"], "out: a tile pattern needs exactly"),
        (["--out", "{tmp}/t{row}.{col}", "--size", "8", "--tile", "4"], "out: "),
    ],
)  # fmt: skip
def test_tiled_cli_refuses_options_it_would_drop_and_colliding_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], arguments: list[str], message: str
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["bake", "--size", "8", *(argument.replace("{tmp}", str(tmp_path)) for argument in arguments)])
    assert exit_info.value.code == 2
    assert message.replace("{tmp}", str(tmp_path)) in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


# --- a spec NoiseSpec accepts evaluates -----------------------------------------------------------------------------


@pytest.mark.parametrize("lacunarity", [1e-300, 1e-200, 1e-170])
def test_progressive_warp_octaves_that_underflow_are_refused_at_construction(lacunarity: float) -> None:
    with pytest.raises(ValueError, match=r"^lacunarity: .* makes warp octave \d+'s frequency"):
        nc.NoiseSpec(warp="progressive", lacunarity=lacunarity, warp_octaves=16)


@pytest.mark.parametrize(
    "options",
    [
        {"warp": "progressive", "lacunarity": 1e-150, "warp_octaves": 3},
        {"warp": "independent", "lacunarity": 1e-300, "warp_octaves": 3, "octaves": 3},
        {"warp": "independent", "frequency": 2.0e9 / 1.1, "warp_amplitude": 0.0999},
        {"warp": "progressive", "frequency": 2.0**31 / 1001.5, "warp_amplitude": 1000.0},
    ],
)
def test_accepted_warped_specs_evaluate(options: dict) -> None:
    spec = nc.NoiseSpec(**options)
    assert np.isfinite(nc.evaluate_grid(spec, (8, 8))).all()
    assert np.isfinite(nc.evaluate(spec, POINTS[:20])).all()


def test_a_warp_reaching_past_the_lattice_is_refused_at_construction() -> None:
    with pytest.raises(ValueError, match=r"^warp_amplitude: the warp moves the unit square's points"):
        nc.NoiseSpec(warp="independent", frequency=2.0**31 / 1000.0, warp_amplitude=1000.0)


# --- errors name the user's argument ------------------------------------------------------------------------------

FAR_WARP = nc.NoiseSpec(kind="simplex", warp="independent", frequency=2.0**31 / 1100.0, warp_amplitude=1000.0)


def test_a_warp_pushing_points_past_the_lattice_is_named() -> None:
    points = 1050.0 + POINTS  # in range themselves; the warp moves some past 2**31 / frequency = 1100
    for derivatives in (False, True):
        with pytest.raises(ValueError, match=r"^warp_amplitude: the warp \(amplitude 1000\) moves the points"):
            nc.evaluate(FAR_WARP, points, derivatives=derivatives)
    with pytest.raises(ValueError, match=r"^points: coordinates up to 5000"):
        nc.evaluate(FAR_WARP, np.full((4, 2), 5000.0))  # out of range before the warp: the points are named


def test_a_huge_loop_radius_is_named() -> None:
    spec = nc.NoiseSpec(kind="simplex", frequency=4000.0)
    with pytest.raises(ValueError, match=r"^radius: the loop's circle has coordinates up to 1e\+06"):
        loops.loop_grid(spec, (4, 4), 0, 4, radius=1e6)
    with pytest.raises(ValueError, match=r"^radius: "):
        loops.evaluate_loop(spec, POINTS, 1, 4, radius=1e6)
    with pytest.raises(ValueError, match=r"^radius: .* plus the warp's 1000"):
        loops.loop_grid(FAR_WARP, (4, 4), 0, 4, radius=500.0)
    with pytest.raises(ValueError, match=r"^radius: "):
        normal_maps.grid_normals(spec, (4, 4), loop=(0, 4, 1e6))


def test_cli_names_the_loop_radius(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["bake", "--out", str(tmp_path / "n.png"), "--size", "4", "--kind", "simplex", "--frames", "2",
              "--loop-radius", "1e6", "--frequency", "4000"])  # fmt: skip
    assert "loop-radius: the loop's circle" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_huge_mesh_positions_in_a_uv_bake_are_named() -> None:
    uvs = np.array([[(0.1, 0.1), (0.9, 0.1), (0.5, 0.9)]])
    positions = np.array([[(0.0, 0.0, 0.0), (1e9, 0.0, 0.0), (0.0, 1.0, 0.0)]])
    with pytest.raises(ValueError, match=r"^positions: coordinates up to 1e\+09 at frequency 4"):
        uv_bake.bake_uv(nc.NoiseSpec(), uvs, positions, (8, 8))


# --- UV bakes: tiles, triangles outside the UDIM tiles ------------------------------------------------------------

SQUARE_UVS = np.array([[(0.1, 0.1), (0.9, 0.1), (0.9, 0.9)], [(0.1, 0.1), (0.9, 0.9), (0.1, 0.9)]])
SQUARE_POSITIONS = np.concatenate([SQUARE_UVS, np.zeros((2, 3, 1))], axis=2)


@pytest.mark.parametrize(
    ("tiles", "error", "message"),
    [
        (["1001"], ValueError, r"^tiles: UDIM tiles are whole numbers"),
        ("1001", TypeError, r"^tiles: expected UDIM tile numbers"),
        ([1001.5], ValueError, r"^tiles: UDIM tiles are whole numbers"),
        ([1001.0], ValueError, r"^tiles: UDIM tiles are whole numbers"),
        ([True], ValueError, r"^tiles: UDIM tiles are whole numbers"),
        ([], ValueError, r"^tiles: no tile given"),
        (1001, TypeError, r"^tiles: expected UDIM tile numbers"),
    ],
)
def test_bake_uv_checks_its_tiles(tiles: object, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        uv_bake.bake_uv(nc.NoiseSpec(), SQUARE_UVS, SQUARE_POSITIONS, (8, 8), tiles=tiles)


def test_triangles_outside_the_udim_tiles_are_reported() -> None:
    uvs = np.concatenate([SQUARE_UVS, [[(9.5, 9.5), (10.5, 9.5), (9.5, 10.5)], [(-0.5, 0.2), (0.5, 0.2), (0.5, 0.8)]]])
    positions = np.concatenate([uvs, np.zeros((4, 3, 1))], axis=2)
    heard: list[str] = []
    baked = uv_bake.bake_uv(nc.NoiseSpec(), uvs, positions, (8, 8), margin=0, warn=heard.append)
    assert sorted(baked) == [1001, 1100]
    assert heard == ["uvs: triangles 2, 3 (2 of 4) reach outside the UDIM tiles 1001-1100 (u and v from 0 to 10); "
                     "the parts outside are not baked"]  # fmt: skip
    with pytest.warns(UserWarning, match=r"^uvs: triangles 2, 3 \(2 of 4\) reach outside"):
        uv_bake.bake_uv(nc.NoiseSpec(), uvs, positions, (8, 8), margin=0)
    assert uv_bake.outside_triangles(SQUARE_UVS).size == 0


def test_central_differences_past_the_lattice_name_the_pixel() -> None:
    spec = nc.NoiseSpec(frequency=4.0)
    with pytest.raises(ValueError, match=r"^pixel: the central differences, a texel \(pixel x du, dv\) away"):
        normal_maps.surface_normals(spec, POINTS, (1.0, 0.0), (0.0, 1.0), (1e9, 1e9), method="differences")
    with pytest.raises(ValueError, match=r"^points: coordinates up to 1e\+09"):
        normal_maps.surface_normals(spec, POINTS * 0 + 1e9, (1.0, 0.0), (0.0, 1.0), (0.1, 0.1), method="differences")
