"""``terrain.geomorphometry``: analytic surfaces, a steady-state river landscape, the real tiles against the
literature, ``REAL_RANGES`` derived again from the tiles, bad inputs, and ``python -m noise_core stats``."""

from __future__ import annotations

import json
import math
import re
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import noise_core as nc
from noise_core.cli import main
from noise_core.io.heightmaps import normalize, write_heightmap
from noise_core.io.images import write_image
from noise_core.terrain import geomorphometry as gm
from noise_core.terrain.fluvial import erode_fluvial
from noise_core.terrain.geomorphometry import (
    REAL_RANGES,
    STATISTICS,
    TerrainStatistics,
    derive_ranges,
    passes,
    realism,
    terrain_statistics,
)
from tests import dems

PAGE = Path(__file__).resolve().parent.parent / "docs" / "terrain-realism.md"


@cache
def real(name: str) -> TerrainStatistics:
    dem = dems.load(name)
    return terrain_statistics(dem.heights, cell_size=dem.cell_size, outlets=dem.sea if dem.sea.any() else None)


def _grid(size: int, cell: float) -> tuple[np.ndarray, np.ndarray]:
    """x along columns, y along rows, in metres, centred on the map."""
    y, x = np.mgrid[0:size, 0:size].astype(np.float64)
    return (x - (size - 1) / 2) * cell, (y - (size - 1) / 2) * cell


def _interior(values: np.ndarray) -> np.ndarray:
    return values[1:-1, 1:-1].ravel()


# --- analytic surfaces ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("angle", [0.0, 22.5, 45.0, 117.0])
def test_a_plane_has_one_slope_and_one_direction(angle: float) -> None:
    x, y = _grid(64, 30.0)
    gradient = 0.25
    a = math.radians(angle)
    stats = terrain_statistics(gradient * (x * math.cos(a) + y * math.sin(a)), cell_size=30.0)
    slope = math.degrees(math.atan(gradient))
    assert stats.slope_median == pytest.approx(slope, abs=1e-9)
    assert stats.slope_p90 == pytest.approx(slope, abs=1e-9)
    assert stats.harmonic4 == pytest.approx(1.0, abs=1e-12)  # one direction: every harmonic is 1
    assert stats.harmonic8 == pytest.approx(1.0, abs=1e-12)
    assert stats.depression_share == 0.0 and stats.depression_depth == 0.0


@pytest.mark.parametrize("half_angle", [11.25, 22.5, 30.0])
def test_a_valley_of_two_planes_has_the_harmonics_of_its_two_directions(half_angle: float) -> None:
    """Two planes meeting along the middle row, gradient directions ∓a on the rows either side: ``|Σ w e^{ikφ}| /
    Σ w = |cos ka|`` over them (a = 11.25°: cos 45° for k = 4, 0 for k = 8); the seam row's cells (Horn's window
    straddles it: gradient along x only, weight u) are counted as they are."""
    size, cell, u = 65, 10.0, 0.2
    x, y = _grid(size, cell)
    alpha = math.radians(half_angle)
    v = u * math.tan(alpha)
    stats = terrain_statistics(u * x + v * np.abs(y), cell_size=cell)
    side = (size - 3) // 2  # measured rows either side of the seam row
    w = math.hypot(u, v)
    for k in (4, 8):
        expected = abs(2 * side * w * math.cos(k * alpha) + u) / (2 * side * w + u)
        assert getattr(stats, f"harmonic{k}") == pytest.approx(expected, abs=1e-12)


def test_a_paraboloid_has_its_exact_slopes() -> None:
    """Horn's gradient is exact on quadratics: the slope of ``c (x² + y²)`` is ``atan(2 c r)``."""
    size, cell, c = 101, 20.0, 2e-4
    x, y = _grid(size, cell)
    stats = terrain_statistics(-c * (x**2 + y**2), cell_size=cell)  # a dome: no depression
    slopes = np.degrees(np.arctan(2 * c * np.hypot(_interior(x), _interior(y))))
    assert stats.slope_median == pytest.approx(float(np.median(slopes)), rel=1e-12)
    assert stats.slope_p90 == pytest.approx(float(np.percentile(slopes, 90)), rel=1e-12)
    assert stats.depression_share == 0.0


def test_a_closed_bowl_is_one_depression_of_its_depth() -> None:
    """A bowl ``T - d (1 - r²/R²)`` in a flat rim at ``T`` three cells wide, a cone falling to the edges beyond:
    the Priority-Flood fills the bowl to ``T``, so its cells are the depression and ``d`` its depth."""
    size, cell, radius, top, depth = 81, 50.0, 500.0, 1000.0, 37.5
    x, y = _grid(size, cell)
    r = np.hypot(x, y)
    rim = radius + 3 * cell
    heights = np.where(r < radius, top - depth * (1 - r**2 / radius**2), np.where(r <= rim, top, top - 0.2 * (r - rim)))
    stats = terrain_statistics(heights, cell_size=cell)
    assert stats.depression_share == np.count_nonzero(r < radius) / heights.size
    assert stats.depression_depth == depth  # the centre cell is at r = 0


def test_a_depression_of_fewer_than_four_cells_has_no_depth() -> None:
    heights = np.add.outer(np.arange(20.0), np.arange(20.0)) * 10.0
    heights[8, 8:11] -= 100.0  # three cells
    stats = terrain_statistics(heights, cell_size=10.0)
    assert stats.depression_share == 3 / 400 and stats.depression_depth == 0.0
    heights[9, 8] -= 100.0  # now four
    assert terrain_statistics(heights, cell_size=10.0).depression_depth > 0.0


def _fractal(exponent: float, size: int, seed: int) -> np.ndarray:
    """A periodic surface whose power spectrum is exactly ``|k|^-exponent`` (random phases)."""
    ky, kx = np.fft.fftfreq(size)[:, None], np.fft.rfftfreq(size)[None, :]
    k = np.hypot(ky, kx)
    k[0, 0] = 1.0
    amplitude = k ** (-exponent / 2)
    amplitude[0, 0] = 0.0
    phase = np.random.default_rng(seed).uniform(0.0, 2 * math.pi, amplitude.shape)
    return np.fft.irfft2(amplitude * np.exp(1j * phase), s=(size, size))


@pytest.mark.parametrize("exponent", [2.0, 2.5, 3.0, 3.5, 4.0])
@pytest.mark.parametrize("seed", [0, 1])
def test_the_spectral_slope_of_a_synthetic_fractal(exponent: float, seed: int) -> None:
    stats = terrain_statistics(1000.0 * _fractal(exponent, 512, seed), cell_size=90.0)
    assert stats.spectral_slope == pytest.approx(-exponent, abs=0.15)
    assert stats.harmonic4 < 0.02 and stats.harmonic8 < 0.02  # isotropic: no preferred directions


@pytest.mark.parametrize("m", [0.35, 0.5, 0.65])
def test_a_steady_state_river_landscape_has_its_concavity(m: float) -> None:
    """Stream power at steady state (n = 1): ``U = K A^m S``, so ``S = (U/K) A^-m``: θ = m exactly, R² ~ 1; the
    drainage is tree-like, with no depression (K chosen so that S = 0.1 at 1 km²)."""
    spec = nc.NoiseSpec(kind="perlin", octaves=6, frequency=4.0, seed=1)
    start = 10.0 * nc.evaluate_grid(spec, (160, 160)).astype(np.float64)
    result = erode_fluvial(start, cell_size=90.0, steps=100, dt=1e5, uplift=1e-3, erodibility=1e-2 * 1e6**-m, m=m)
    stats = terrain_statistics(result.heights, cell_size=90.0)
    assert stats.concavity == pytest.approx(m, abs=0.01)
    assert stats.concavity_r2 > 0.999
    assert stats.depression_share == 0.0


def test_fbm_noise_does_not_pass_as_real() -> None:
    """Noise as issue 49 measured it: closed basins everywhere and the area exponent of noise."""
    spec = nc.NoiseSpec(kind="perlin", octaves=8, frequency=6.0, seed=3)
    heights = nc.evaluate_grid(spec, (648, 648)).astype(np.float64)
    stats = terrain_statistics(3000.0 * (heights - heights.min()) / np.ptp(heights), cell_size=90.0)
    assert stats.depression_share > 0.2 and stats.area_exponent > 0.6
    assert not passes(stats)


# --- the real tiles -----------------------------------------------------------------------------------------


def test_the_real_tiles_against_the_literature() -> None:
    """θ in the interquartile range 0.225-0.575 of Gailleton et al. (2021) on most tiles, Hack's exponent near
    Hack's 0.5-0.6, the area exponent near Rodríguez-Iturbe & Rinaldo's 0.43 (a finite map steepens it a little),
    no grid in the gradient directions."""
    stats = [real(name) for name in dems.NAMES]
    assert sum(0.225 <= s.concavity <= 0.575 for s in stats) >= len(stats) - 1
    assert all(s.concavity_r2 > 0.8 for s in stats)
    assert all(0.45 <= s.hack_exponent <= 0.65 for s in stats)
    assert all(0.4 <= s.area_exponent <= 0.6 for s in stats)
    assert all(0.3 <= s.hypsometric_integral <= 0.6 for s in stats)
    assert all(s.harmonic8 <= 0.02 for s in stats)
    assert all(s.depression_share <= 0.12 for s in stats)  # issue 49: real tiles 0-12 %


def test_real_ranges_are_the_real_tiles_ranges() -> None:
    """The stored constants are what the tiles give (rounded outward): they cannot drift from the method."""
    derived = derive_ranges(real(name) for name in dems.NAMES)
    assert list(REAL_RANGES) == list(STATISTICS) == list(derived)
    step = 10.0**-gm.RANGE_DECIMALS
    for name in STATISTICS:
        assert REAL_RANGES[name] == pytest.approx(derived[name], abs=step / 2), name


def test_every_real_tile_passes() -> None:
    for name in dems.NAMES:
        stats = real(name)
        assert passes(stats), name
        assert [check.name for check in realism(stats) if not check.passed] == [], name


def test_the_pass_rule_allows_one_statistic_outside_and_caps_harmonic8() -> None:
    inside = {name: (low + high) / 2 for name, (low, high) in REAL_RANGES.items()}
    inside["harmonic8"] = 0.005
    assert passes(TerrainStatistics(**inside))
    one_out = {**inside, "slope_median": 80.0}
    assert passes(TerrainStatistics(**one_out))
    assert not passes(TerrainStatistics(**{**one_out, "drainage_density": 5.0}))
    assert not passes(TerrainStatistics(**{**one_out, "concavity": math.nan}))  # NaN is outside
    grid = {**inside, "harmonic8": 0.015}  # outside the real range (one allowed) but within the cap
    assert passes(TerrainStatistics(**grid))
    assert not passes(TerrainStatistics(**{**inside, "harmonic8": 0.03}))
    checks = realism(TerrainStatistics(**one_out))
    assert [(c.name, c.passed) for c in checks if not c.passed] == [("slope_median", False)]
    assert checks[0] == gm.Check("concavity", inside["concavity"], *REAL_RANGES["concavity"], True)


def test_the_docs_table_is_the_tiles_table() -> None:
    import terrain_stats  # scripts/ (pytest's pythonpath)

    expected = terrain_stats.table({name: real(name) for name in dems.NAMES}, set(), markdown=True)
    assert expected in PAGE.read_text(encoding="utf-8")


def test_the_docs_python_example_runs_as_written(capsys: pytest.CaptureFixture[str]) -> None:
    block = re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), flags=re.DOTALL)[0]
    exec(compile(block, str(PAGE), "exec"), {})
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("concavity 0.500, harmonic8 0.0") and lines[-1] == "fails"
    assert len(lines) == len(STATISTICS) + 2


def test_the_sea_is_base_level_and_not_land() -> None:
    dem = dems.load("norway")
    with_sea = real("norway")
    without = terrain_statistics(dem.heights, cell_size=dem.cell_size)
    assert with_sea != without
    assert with_sea.as_dict().keys() == set(STATISTICS)


# --- bad input ----------------------------------------------------------------------------------------------


@given(st.sampled_from([math.nan, math.inf, -math.inf]), st.integers(0, 63))
def test_non_finite_heights_are_refused(bad: float, where: int) -> None:
    heights = np.zeros((8, 8))
    heights.flat[where] = bad
    with pytest.raises(ValueError, match=r"^heights: must be finite"):
        terrain_statistics(heights, cell_size=1.0)


@given(st.lists(st.integers(1, 6), min_size=0, max_size=4).filter(lambda s: len(s) != 2 or min(s) < 3))
def test_heights_of_the_wrong_shape_are_refused(shape: list[int]) -> None:
    with pytest.raises(ValueError, match=r"^heights: must be a 2-D array of at least 3x3"):
        terrain_statistics(np.zeros(shape), cell_size=1.0)


@given(st.one_of(st.floats(max_value=0.0), st.just(math.nan), st.just(math.inf)))
def test_a_cell_size_that_is_not_positive_is_refused(cell: float) -> None:
    with pytest.raises(ValueError, match=r"^cell_size: must be"):
        terrain_statistics(np.zeros((5, 5)), cell_size=cell)


def test_other_bad_arguments_name_themselves() -> None:
    heights = np.zeros((5, 5))
    with pytest.raises(TypeError, match=r"^cell_size: expected a number"):
        terrain_statistics(heights, cell_size="90")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^heights: expected a 2-D numpy array"):
        terrain_statistics([[0.0] * 5] * 5, cell_size=1.0)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^outlets: expected a boolean numpy array"):
        terrain_statistics(heights, cell_size=1.0, outlets=np.zeros((5, 5)))
    with pytest.raises(ValueError, match=r"^outlets: must have the heights' shape"):
        terrain_statistics(heights, cell_size=1.0, outlets=np.zeros((4, 5), dtype=bool))
    with pytest.raises(ValueError, match=r"^outlets: every cell is an outlet"):
        terrain_statistics(heights, cell_size=1.0, outlets=np.ones((5, 5), dtype=bool))
    with pytest.raises(TypeError, match=r"^stats: expected TerrainStatistics"):
        realism({"concavity": 0.4})  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^measured: expected one or more"):
        derive_ranges([])


@given(
    arrays(np.float64, st.tuples(st.integers(3, 12), st.integers(3, 12)), elements=st.floats(-1e4, 1e4)),
    st.floats(1e-3, 1e4),
    st.integers(0, 2**32 - 1),
)
def test_any_finite_map_gives_statistics_in_their_domains(heights: np.ndarray, cell: float, seed: int) -> None:
    sea = np.random.default_rng(seed).random(heights.shape) < 0.2
    sea.flat[0] = False
    stats = terrain_statistics(heights, cell_size=cell, outlets=sea)
    values = stats.as_dict()
    assert all(isinstance(value, float) for value in values.values())
    assert 0.0 <= stats.depression_share <= 1.0 and stats.depression_depth >= 0.0
    for name in ("harmonic4", "harmonic8", "hypsometric_integral"):
        assert math.isnan(values[name]) or -1e-12 <= values[name] <= 1.0 + 1e-12, name
    assert math.isnan(stats.slope_median) or 0.0 <= stats.slope_median <= stats.slope_p90 <= 90.0


def test_a_flat_map_measures_what_it_can() -> None:
    stats = terrain_statistics(np.full((40, 40), 5.0), cell_size=90.0)
    assert stats.slope_median == 0.0 and stats.depression_share == 0.0
    assert math.isnan(stats.concavity) and math.isnan(stats.harmonic8)  # no channel, no gradient direction
    assert not passes(stats)


# --- python -m noise_core stats -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def colorado(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Colorado tile as an .r32 heightmap in metres with its sidecar (no engine: no cell size in it)."""
    values, height_range = normalize(dems.load("colorado").heights)
    path = tmp_path_factory.mktemp("stats") / "colorado.r32"
    write_heightmap(path, values, height_range=height_range, unit="m")
    return path


def test_stats_prints_the_table(colorado: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stats", str(colorado), "--cell-size", "90"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert "648x648, 90 m cells" in lines[0]
    for name in STATISTICS:
        row = next(line for line in lines if line.startswith(name + " "))
        low, high = REAL_RANGES[name]
        assert f"{low:g} .. {high:g}" in row and row.endswith("PASS")
    assert lines[-1].startswith("PASS: 0 outside the real range")


def test_stats_json_is_the_statistics(colorado: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stats", str(colorado), "--cell-size", "90", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    expected = real("colorado")
    assert list(record["statistics"]) == list(STATISTICS)
    for name in STATISTICS:  # the .r32 stores float32 heights: close to the tile's, not equal
        assert record["statistics"][name] == pytest.approx(getattr(expected, name), rel=0.02, abs=0.002), name
    assert record["passes"] is True and record["outside"] == 0 and record["cell_size"] == 90.0
    assert record["checks"][0] == {"name": "concavity", "value": record["statistics"]["concavity"],
                                   "low": REAL_RANGES["concavity"][0], "high": REAL_RANGES["concavity"][1],
                                   "passed": True}  # fmt: skip


def test_stats_reads_the_cell_size_from_the_sidecar(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The engine numbers in a sidecar give the spacing (Terrain3D's vertex spacing); --height-scale scales."""
    values, height_range = normalize(dems.load("highlands").heights)
    path = tmp_path / "highlands.r16"
    write_heightmap(path, values, height_range=height_range, unit="m", engine="godot", cell_size=90.0)
    assert main(["stats", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["cell_size"] == 90.0
    assert main(["stats", str(path), "--json", "--height-scale", "2"]) == 0
    doubled = json.loads(capsys.readouterr().out)["statistics"]
    assert doubled["slope_median"] > real("highlands").slope_median * 1.5


def test_stats_of_a_plain_image_needs_a_height_scale(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    x, _ = _grid(64, 1.0)
    path = tmp_path / "plane.png"
    write_image(path, (x - x.min()) / np.ptp(x))
    assert main(["stats", str(path), "--cell-size", "90", "--height-scale", "630", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)["statistics"]
    assert record["slope_median"] == pytest.approx(math.degrees(math.atan(630 / 63 / 90)), abs=0.01)
    assert record["concavity"] is None  # NaN: no channel of 1 km² on this plane


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ([], "cell-size: colorado.r32 has no sidecar with the distance between its samples"),
        (["--cell-size", "0"], "cell-size: must be a number > 0, got 0.0"),
        (["--cell-size", "nan"], "cell-size: must be a number > 0"),
        (["--cell-size", "90", "--height-scale", "-1"], "height-scale: must be a number > 0"),
    ],
)
def test_stats_errors_name_the_option(colorado: Path, extra: list[str], message: str, capsys) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["stats", str(colorado), *extra])
    assert stopped.value.code == 2
    assert f"error: --{message}" in capsys.readouterr().err  # the flag named


def test_stats_errors_for_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stats", str(tmp_path / "missing.r32"), "--cell-size", "90"]) == 2
    assert "error: path: no file" in capsys.readouterr().err
    path = tmp_path / "plain.png"
    write_image(path, np.zeros((8, 8)))
    with pytest.raises(SystemExit):
        main(["stats", str(path), "--cell-size", "90"])
    assert "error: --height-scale: plain.png has no height range; give --height-scale" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["stats", str(tmp_path / "x.jpg"), "--cell-size", "90"])
    assert "error: path: unsupported heightmap format '.jpg'" in capsys.readouterr().err
