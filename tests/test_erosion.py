"""Hydraulic and thermal erosion (``noise_core/erosion.py``): determinism, threads, mass, masks, extremes, errors."""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import noise_core as nc
from noise_core.terrain.erosion import HYDRAULIC_OPTIONS, THERMAL_OPTIONS, erode_hydraulic, erode_thermal, pit_density


def terrain(size: int = 96, relief: float = 30.0) -> np.ndarray:
    spec = nc.NoiseSpec(kind="perlin", octaves=4, frequency=3.0, persistence=0.45)
    return (nc.ranges.to_unit(spec, nc.evaluate_grid(spec, (size, size))) * relief).astype(np.float32)


def cone(size: int = 64, relief: float = 40.0) -> np.ndarray:
    y, x = np.mgrid[0:size, 0:size] - (size - 1) / 2
    return (relief * np.maximum(0.0, 1.0 - np.hypot(x, y) / (size / 2))).astype(np.float32)


def _check_mass(before: np.ndarray, result, tolerance: float = 1e-4) -> None:
    scale = max(result.eroded, 1.0)
    assert result.eroded - result.deposited == pytest.approx(result.carried_off, abs=tolerance * scale)
    lost = float(before.astype(np.float64).sum() - result.heights.astype(np.float64).sum())
    # float32 heights: each of the cells rounds by up to half an ulp of its height
    rounding = before.size * float(np.spacing(before.max()))
    assert lost == pytest.approx(result.carried_off, abs=tolerance * scale + rounding)


def test_hydraulic_is_deterministic_and_the_seed_matters() -> None:
    heights = terrain()
    first = erode_hydraulic(heights, droplets=3000, seed=7)
    again = erode_hydraulic(heights, droplets=3000, seed=7)
    other = erode_hydraulic(heights, droplets=3000, seed=8)
    assert np.array_equal(first.heights, again.heights) and first.carried_off == again.carried_off
    assert not np.array_equal(first.heights, other.heights)


def test_same_bits_on_one_two_and_four_threads() -> None:
    """Hydraulic droplets run in tiles whose droplets never touch a common cell, and thermal moves are computed
    from one state: the thread count never changes a bit (on a map with many tiles, and gullies)."""
    script = textwrap.dedent(
        """
        import hashlib, json
        import numpy as np
        import noise_core as nc
        from noise_core.terrain.erosion import erode_hydraulic, erode_thermal
        spec = nc.NoiseSpec(kind="perlin", octaves=4, frequency=3.0)
        heights = nc.ranges.to_unit(spec, nc.evaluate_grid(spec, (80, 70))) * 25.0
        big = nc.ranges.to_unit(spec, nc.evaluate_grid(spec, (300, 257))) * 40.0
        digests = [hashlib.sha256(r.heights.tobytes() + r.erosion.tobytes()).hexdigest()
                   + repr(r.carried_off)
                   for r in (erode_hydraulic(heights, droplets=2000, seed=3, gullies=4.0),
                             erode_hydraulic(big, droplets=60_000, seed=5, gullies=2.0),
                             erode_hydraulic(big, droplets=20_000, seed=6, brush_radius=8.0),
                             erode_thermal(heights, iterations=20))]
        print(json.dumps(digests))
        """
    )
    runs = []
    for threads in ("1", "2", "4"):
        env = {**os.environ, "NUMBA_NUM_THREADS": threads}
        done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    assert runs[0] == runs[1] == runs[2]


@pytest.mark.parametrize("heights", [terrain(), cone()], ids=["terrain", "cone"])
def test_hydraulic_conserves_mass_and_masks_add_up(heights: np.ndarray) -> None:
    result = erode_hydraulic(heights, droplets=5000, seed=1)
    assert result.eroded > 0.0 and result.deposited > 0.0
    _check_mass(heights, result)
    assert result.erosion.min() >= 0.0 and result.deposition.min() >= 0.0
    assert not np.any((result.erosion > 0) & (result.deposition > 0))
    np.testing.assert_allclose(result.heights - heights, result.deposition - result.erosion, atol=1e-4)


def test_a_cone_is_cut_on_its_slope_and_gets_deposits_at_its_foot() -> None:
    """The slope loses more than the foot, the foot gets more deposits than the slope. (The cone no longer has
    to turn unround: the radial grooves the droplets cut into it, one brush apart, were the cell-scale comb of
    issue 42.)"""
    heights = cone(80)
    result = erode_hydraulic(heights, droplets=20000, seed=2)
    centre = np.hypot(*(np.mgrid[0:80, 0:80] - 39.5))
    slope, foot = (centre > 8) & (centre < 30), (centre >= 36) & (centre < 40)
    assert result.erosion[slope].mean() > result.erosion[foot].mean()
    assert result.deposition[foot].mean() > result.deposition[slope].mean()


def test_droplets_leaving_the_map_carry_sediment_off() -> None:
    ramp = np.tile(np.linspace(30.0, 0.0, 64, dtype=np.float32), (64, 1))  # downhill towards x = 63
    result = erode_hydraulic(ramp, droplets=3000, seed=4)
    assert result.carried_off > 0.0
    _check_mass(ramp, result)


def test_thermal_relaxes_slopes_to_the_talus_angle_and_conserves_mass() -> None:
    heights = cone(48, relief=40.0)
    result = erode_thermal(heights, talus_angle=30.0, iterations=400, rate=0.5)
    assert result.carried_off == 0.0
    _check_mass(heights, result)
    slope_before = np.abs(np.diff(heights.astype(np.float64), axis=1)).max()
    slope_after = np.abs(np.diff(result.heights.astype(np.float64), axis=1)).max()
    assert slope_before > 1.5 and slope_after < np.tan(np.radians(30.0)) * 1.15
    unchanged = erode_thermal(heights, talus_angle=89.0, iterations=10)
    assert np.array_equal(unchanged.heights, heights) and unchanged.eroded == 0.0


def test_cell_size_makes_erosion_scale_free() -> None:
    """The same shape in other units erodes the same: heights x 8 with cell_size 8 (a power of two, so the
    heights in cells are the same bits: droplets are chaotic, the last bit of a start height can matter)."""
    heights = terrain(64)
    unit = erode_hydraulic(heights, droplets=2000, seed=5)
    scaled = erode_hydraulic(heights * 8.0, droplets=2000, seed=5, cell_size=8.0)
    np.testing.assert_array_equal(scaled.heights, unit.heights * 8.0)
    assert scaled.eroded == pytest.approx(unit.eroded * 8.0)
    thermal = erode_thermal(heights * 8.0, iterations=5, cell_size=8.0)
    np.testing.assert_array_equal(thermal.heights, erode_thermal(heights, iterations=5).heights * 8.0)


@pytest.mark.parametrize(
    "options",
    [
        {"inertia": 0.0},
        {"inertia": 1.0},
        {"evaporation": 1.0},
        {"capacity": 1000.0, "erosion": 1.0, "gravity": 1000.0, "initial_speed": 1000.0},
        {"deposition": 0.0, "erosion": 0.0},
        {"min_slope": 10.0, "brush_radius": 1e6, "lifetime": 1000},
        {"gullies": 100.0, "brush_radius": 1e-9},
        {"initial_water": 1000.0, "evaporation": 0.0},
    ],
)
def test_never_nan_at_the_extremes(options: dict) -> None:
    for heights in (terrain(48) * 1e6, np.zeros((5, 5), np.float32), cone(32)):
        result = erode_hydraulic(heights, droplets=500, **options)
        assert np.isfinite(result.heights).all() and np.isfinite([result.eroded, result.carried_off]).all()
        _check_mass(heights, result, tolerance=1e-3)


def test_input_is_left_alone_and_any_real_dtype_works() -> None:
    heights = terrain(32).astype(np.float64)
    before = heights.copy()
    erode_hydraulic(heights, droplets=100)
    erode_thermal(heights.astype(np.int32), iterations=3)
    assert np.array_equal(heights, before)
    assert erode_hydraulic(heights, droplet_density=0.0).eroded == 0.0


@pytest.mark.parametrize(
    ("heights", "options", "error", "message"),
    [
        ([[1.0] * 4] * 4, {}, TypeError, "heights: expected a 2-D numpy array, got list"),
        (np.zeros((2, 9)), {}, ValueError, "heights: must be a 2-D array of at least 3x3 cells"),
        (np.zeros(9), {}, ValueError, "heights: must be a 2-D array"),
        (np.full((4, 4), np.nan), {}, ValueError, "heights: must be finite"),
        (np.zeros((4, 4), bool), {}, TypeError, "heights: dtype must be a real number type"),
        (np.zeros((4, 4)), {"droplets": -1}, ValueError, "droplets: must be between 0 and 1e+08"),
        (np.zeros((4, 4)), {"droplets": 2.5}, TypeError, "droplets: expected an integer"),
        (np.zeros((4, 4)), {"brush_radius": -1}, ValueError, "brush_radius: must be between 0 and 1e+30"),
        (np.zeros((4, 4)), {"radius": 3}, TypeError, "radius: not an erosion option; allowed:"),  # retired
        (np.zeros((4, 4)), {"inertia": float("nan")}, ValueError, "inertia: must be a finite number"),
        (np.zeros((4, 4)), {"cell_size": 0.0}, ValueError, "cell_size: must be in (0, 1e+30]"),
        (np.zeros((4, 4)), {"talus_angle": 30.0}, TypeError, "talus_angle: not an erosion option"),
    ],
)
def test_bad_input_names_the_argument(heights, options, error, message) -> None:
    with pytest.raises(error, match="^" + re.escape(message)):
        erode_hydraulic(heights, **options)


def test_thermal_options_are_checked() -> None:
    with pytest.raises(ValueError, match=r"^talus_angle: must be between 0 and 89"):
        erode_thermal(np.zeros((4, 4)), talus_angle=90.0)
    with pytest.raises(TypeError, match=r"^droplets: not an erosion option"):
        erode_thermal(np.zeros((4, 4)), droplets=3)


def test_docs_erosion_tables_match_the_options() -> None:
    from pathlib import Path

    page = (Path(__file__).resolve().parents[1] / "docs" / "erosion.md").read_text(encoding="utf-8")
    for option in (*HYDRAULIC_OPTIONS, *THERMAL_OPTIONS):
        default = f"{option.default:_}" if option.type is int else f"{option.default!r}"
        assert f"| `{option.name}` | `{default}` |" in page, option.name


def shaped(size: int, relief: float = 0.15) -> tuple[np.ndarray, float]:
    """One terrain (1 unit wide, ``relief`` high) sampled at ``size``² cells, and its cell size."""
    spec = nc.NoiseSpec(kind="perlin", octaves=6, frequency=3.0, seed=3)
    return nc.ranges.to_unit(spec, nc.evaluate_grid(spec, (size, size))) * relief, 1.0 / (size - 1)


def _smooth(change: np.ndarray) -> np.ndarray:
    """``change`` averaged over 5x5 cells (the valid part)."""
    box = np.ones(5) / 5
    rows = np.apply_along_axis(np.convolve, 0, change, box, mode="valid")
    return np.apply_along_axis(np.convolve, 1, rows, box, mode="valid")


@pytest.mark.parametrize("gullies", [0.0, 8.0])
def test_default_erosion_is_alike_at_two_resolutions(gullies: float) -> None:
    """Defaults per cell and per model cell: the same terrain at 257² and 513² loses about as much per cell,
    in the same places (the change maps, on the 257² raster and smoothed over 5x5 cells, are correlated), with
    and without gullies; ``scripts/bench_erosion.py`` checks 513² against 1025²."""
    coarse, coarse_cell = shaped(257)
    fine, fine_cell = shaped(513)
    first = erode_hydraulic(coarse, cell_size=coarse_cell, gullies=gullies).heights - coarse
    second = erode_hydraulic(fine, cell_size=fine_cell, gullies=gullies).heights - fine
    ratio = np.abs(first).mean() / np.abs(second).mean()
    assert 0.75 < ratio < 1.25
    correlation = np.corrcoef(_smooth(first).ravel(), _smooth(second[::2, ::2]).ravel())[0, 1]
    assert correlation > 0.75


def test_explicit_droplet_counts_override_the_density() -> None:
    heights, cell = shaped(65)
    by_density = erode_hydraulic(heights, cell_size=cell, droplet_density=0.75)
    by_count = erode_hydraulic(heights, cell_size=cell, droplets=round(0.75 * 65 * 65), droplet_density=9.0)
    assert np.array_equal(by_density.heights, by_count.heights)
    assert not np.array_equal(erode_hydraulic(heights, cell_size=cell, droplets=500).heights, by_density.heights)


@pytest.mark.parametrize("gullies", [0.0, 8.0])
def test_default_erosion_leaves_no_pits(gullies: float) -> None:
    """The issue's measure: interior cells lower than all 8 neighbours, before and after."""
    for size in (129, 257):
        heights, cell = shaped(size)
        result = erode_hydraulic(heights, cell_size=cell, gullies=gullies)
        assert pit_density(result.heights) <= 1.5 * pit_density(heights) + 5.0
        _check_mass(heights.astype(np.float32), result)


def test_sediment_settles_into_a_closed_hollow_from_its_rim() -> None:
    """The settling rule on its own, exactly: a hollow ``d`` = 9 below its flat rim takes 1 from each of its 8
    neighbours and ends level with them; mass is kept; a second hollow two cells away shares a rim cell."""
    from noise_core.terrain.erosion import _kernels

    cells = np.zeros((7, 7))
    cells[2, 2] = -9.0
    cells[2, 4] = -18.0
    filled = _kernels().settle(cells, np.empty_like(cells), 4)
    assert filled == 2
    assert cells[2, 2] == -1.0 and cells[2, 4] == -2.0
    assert cells[1, 1] == -1.0 and cells[1, 3] == -3.0 and cells[1, 5] == -2.0 and cells[0, 0] == 0.0
    assert cells.sum() == pytest.approx(-27.0, abs=1e-12)
    assert pit_density(cells) == 0.0


def test_gullies_concentrate_erosion_along_the_flow() -> None:
    """With ``gullies`` the cells that collect the most water (top 5 % of the MFD flow) lose a larger share."""
    heights, cell = shaped(129)
    flow = nc.flow_accumulation(heights, method="mfd")
    wet = flow >= np.quantile(flow, 0.95)
    shares = []
    for gullies in (0.0, 8.0):
        erosion = erode_hydraulic(heights, cell_size=cell, gullies=gullies).erosion
        shares.append(erosion[wet].mean() / erosion.mean())
    assert shares[1] > 1.2 * shares[0]


def junctions(heights: np.ndarray, threshold: float = 50.0) -> int:
    """Confluences of the drainage network of ``heights`` as it is (unfilled: a hollow ends its channel): cells
    of D8 area >= ``threshold`` cells, not flat towards their receiver, with at least two such donors."""
    from noise_core.terrain.flow import accumulate, d8_receivers, stack_order

    flat = heights.astype(np.float64).ravel()
    receivers = d8_receivers(heights.astype(np.float64))
    area = accumulate(receivers, stack_order(receivers), np.ones(flat.size))
    channel = (area >= threshold) & (flat - flat[receivers] > 1e-6 * np.ptp(flat))
    donors = np.bincount(receivers[channel & (receivers != np.arange(flat.size))], minlength=flat.size)
    return int((channel & (donors >= 2)).sum())


def channel_depth(heights: np.ndarray, cell: float, threshold: float = 50.0) -> float:
    """How deep the drainage network of ``heights`` lies in its surroundings, in cells: the mean, over the cells of
    D8 area >= ``threshold`` cells of its Priority-Flood+ε fill, of the 7 x 7 mean of the heights minus the
    cell's height."""
    from noise_core.terrain.flow import accumulate, d8_receivers, fill_depressions, stack_order

    values = heights.astype(np.float64)
    receivers = d8_receivers(fill_depressions(values, epsilon=True))
    area = accumulate(receivers, stack_order(receivers), np.ones(values.size)).reshape(values.shape)
    box = np.ones(7) / 7
    mean = np.apply_along_axis(np.convolve, 0, np.pad(values, 3, mode="edge"), box, mode="valid")
    mean = np.apply_along_axis(np.convolve, 1, mean, box, mode="valid")
    return float((mean - values)[area >= threshold].mean() / cell)


def test_gullies_deepen_the_valleys_and_keep_their_network() -> None:
    """Droplets alone keep the drainage network of the noise (its confluences, within a tenth; the former droplets
    filled its valleys: 82 confluences to 26 here, issue 42's defect) and barely deepen it. With ``gullies`` rivers
    cut along it: the network lies deeper in its surroundings, by more than a fifth, keeping its confluences (the
    former gullies cut through every closed hollow of the noise, 157 confluences, and so through every lake, which
    issue 42 forbids: lakes keep their sills now)."""
    heights, cell = shaped(257)
    plain = erode_hydraulic(heights, cell_size=cell).heights
    cut = erode_hydraulic(heights, cell_size=cell, gullies=8.0)
    before = junctions(heights)
    assert 0.9 * before <= junctions(plain) and 0.9 * before <= junctions(cut.heights)
    assert channel_depth(cut.heights, cell) > 1.2 * channel_depth(heights, cell)
    assert channel_depth(cut.heights, cell) > 1.2 * channel_depth(plain, cell)
    _check_mass(heights.astype(np.float32), cut)
    assert cut.carried_off > erode_hydraulic(heights, cell_size=cell).carried_off  # rivers reach the edges


def test_gullies_cut_on_a_coarse_grid_too() -> None:
    """A wide brush runs the droplets, and so the stream-power steps, on a coarser grid: they still cut (more
    leaves over the edges) and keep the mass."""
    heights, cell = shaped(257)
    plain = erode_hydraulic(heights, cell_size=cell, brush_radius=8 * cell)
    cut = erode_hydraulic(heights, cell_size=cell, brush_radius=8 * cell, gullies=8.0)
    assert cut.carried_off > 2 * plain.carried_off
    _check_mass(heights.astype(np.float32), cut)


def _routed(cells: np.ndarray, strength: float) -> float:
    from noise_core.terrain.erosion import _stream_power_step

    return _stream_power_step(cells, strength)


def test_stream_power_step_on_a_ramp_is_the_implicit_solution() -> None:
    """Two interior cells draining to the left edge: the upper one (area 1) into the lower (area 2), exactly
    ``h' = (h + F·h_r) / (1 + F)`` along the flow, ``F = strength·sqrt(A)``; all that is cut leaves the map."""
    cells = np.tile(np.arange(4.0), (3, 1))
    before = cells.copy()
    carried = _routed(cells, 1.0)
    lower = 1.0 / (1.0 + math.sqrt(2.0))
    upper = (2.0 + lower) / 2.0
    assert cells[1, 1] == pytest.approx(lower, rel=1e-15) and cells[1, 2] == pytest.approx(upper, rel=1e-15)
    np.testing.assert_array_equal(np.delete(cells.ravel(), [5, 6]), np.delete(before.ravel(), [5, 6]))
    assert carried == pytest.approx(3.0 - lower - upper, rel=1e-14)


def test_stream_power_sediment_partly_fills_a_hollow() -> None:
    """A pit (0) between a slope (8) and the exit (4, then the edge at 3). The lake traps the share ``E`` of what
    reaches it that its surface is of its catchment (1 cell of the 3 that drain through its exit), so its sill
    cuts with ``1 - E`` of the erodibility (the tools effect): ``F = (1 - E)·sqrt(3)``. The slope is cut towards
    the lake's spill level, ``(8 + 4) / 2``; of the ``I = 2`` cut, the pit (room ``C = 4``) keeps
    ``E·C·I / (C + I) = 4/9`` and the rest runs on over the edge; mass is kept to rounding."""
    cells = np.full((3, 5), 10.0)
    cells[1, 1:] = 8.0, 0.0, 4.0, 3.0
    before = cells.copy()
    carried = _routed(cells, 1.0)
    factor = math.sqrt(3.0) * (1.0 - 1.0 / 3.0)
    assert cells[1, 3] == pytest.approx((4.0 + 3.0 * factor) / (1.0 + factor), rel=1e-14)
    assert cells[1, 1] == pytest.approx(6.0, rel=1e-14)
    assert cells[1, 2] == pytest.approx(4.0 / 9.0, rel=1e-12)
    assert before.sum() - cells.sum() == pytest.approx(carried, abs=1e-12)
    assert carried == pytest.approx(4.0 - cells[1, 3] + 2.0 - 4.0 / 9.0, rel=1e-9)


def test_a_hollow_keeps_its_shape_as_it_fills() -> None:
    """A hollow of two cells (depths 3 and 1 below its spill level 4) fed ``I`` = 8 of sediment from a steep
    slope keeps ``E·C·I/(C + I)`` of it (room ``C`` = 4; ``E`` = 1: all of it settles, 8/3; ``E`` = 1/2: half
    that): each cell rises by the same share of its depth, so the deeper stays deeper (no flat); the rest runs
    on. Any inflow leaves it a hollow."""
    from noise_core.terrain.stream_power import _fill_lake

    cells = np.array([1.0, 3.0])
    left = _fill_lake(cells, np.array([4.0, 4.0]), np.array([0, 1]), 8.0, 1.0)
    assert left == pytest.approx(16.0 / 3.0, rel=1e-14)
    assert cells == pytest.approx([3.0, 11.0 / 3.0], rel=1e-14)
    cells = np.array([1.0, 3.0])
    left = _fill_lake(cells, np.array([4.0, 4.0]), np.array([0, 1]), 8.0, 0.5)
    assert left == pytest.approx(8.0 - 4.0 / 3.0, rel=1e-14)
    assert cells == pytest.approx([2.0, 10.0 / 3.0], rel=1e-14)
    cells = np.array([1.0, 3.0])
    _fill_lake(cells, np.array([4.0, 4.0]), np.array([0, 1]), 1e12, 1.0)
    assert cells[0] < cells[1] < 4.0


@given(
    seed=st.integers(0, 2**32 - 1),
    shape=st.tuples(st.integers(3, 24), st.integers(3, 24)),
    strength=st.floats(0.0, 1e6),
    relief=st.floats(1e-3, 1e3),
)
@settings(max_examples=60)
def test_stream_power_steps_keep_mass_and_stay_within_the_heights(
    seed: int, shape: tuple[int, int], strength: float, relief: float
) -> None:
    """Any terrain, any strength: what is cut either fills a hollow or leaves over an edge (mass kept to
    rounding), no cell is cut below the lowest height nor filled above the highest, and none becomes a pit."""
    cells = np.random.default_rng(seed).random(shape) * relief
    before = cells.copy()
    carried = _routed(cells, strength)
    assert np.isfinite(cells).all() and carried >= 0.0
    assert before.sum() - cells.sum() == pytest.approx(carried, abs=1e-9 * relief * cells.size)
    assert cells.min() >= before.min() and cells.max() <= before.max()
    assert pit_density(cells) <= pit_density(before)


def test_tiles_of_one_phase_are_out_of_each_others_reach() -> None:
    """Two droplets starting in tiles with a whole tile between them never touch a common cell: one moves at most
    ``steps`` cells and touches cells up to ``reach + 2`` from where it is (bilinear corners, rounding)."""
    from noise_core.terrain.erosion import tile_width

    for steps, reach in ((1, 1), (30, 3), (120, 16)):
        tile = tile_width(steps, reach)
        last_touched = tile - 1 + steps + reach + 2  # from the last cell of tile 0
        first_touched = 2 * tile - (steps + reach + 2)  # from the first cell of tile 2
        assert last_touched < first_touched


def test_progress_is_reported_per_batch_and_changes_nothing() -> None:
    heights = terrain(64)
    calls: list[tuple[int, int]] = []
    with_progress = erode_hydraulic(heights, lambda done, total: calls.append((done, total)), droplets=40_000)
    assert [total for _, total in calls] == [40_000] * len(calls) and len(calls) >= 2
    assert [done for done, _ in calls] == sorted({done for done, _ in calls}) and calls[-1][0] == 40_000
    np.testing.assert_array_equal(with_progress.heights, erode_hydraulic(heights, droplets=40_000).heights)


def test_compile_state_tells_whether_erosion_would_compile() -> None:
    from noise_core.terrain.erosion import compile_state, hydraulic_kinds

    erode_hydraulic(terrain(16), droplets=10, gullies=1.0)
    assert compile_state(("hydraulic",)) == "compiled" and compile_state(("gullies",)) == "compiled"
    assert hydraulic_kinds((16, 16)) == ("hydraulic",)
    assert hydraulic_kinds((4097, 4097), gullies=2.0) == ("hydraulic", "gullies", "coarse")
    erode_hydraulic(terrain(64), droplets=10, brush_radius=6.0)
    assert compile_state(hydraulic_kinds((64, 64), brush_radius=6.0)) == "compiled"
    assert compile_state(()) == "compiled"
    assert compile_state() in ("compiled", "cached", "uncompiled")


def test_the_coarse_grid_splits_the_longer_side_into_whole_cells() -> None:
    """A brush from 1.5 x ``COARSE_BRUSH`` cells on runs on a grid where it is about ``COARSE_BRUSH`` cells."""
    from noise_core.terrain.erosion import coarse_shape

    assert coarse_shape(12.0, (4097, 4097)) == (1025, 1025)  # the default brush at 4097²: 3 model cells
    assert coarse_shape(6.0, (2049, 2049)) == (1025, 1025)
    assert coarse_shape(24.0, (8193, 8193)) == (1025, 1025)  # no 16-cell limit where the coarse grid takes it
    assert coarse_shape(12.0, (4097, 2049)) == (1025, 513)
    assert coarse_shape(16.0, (1025, 1000)) == (193, 188)  # 1024 / round(1024 * 3 / 16) = 1024 / 192 cells
    assert coarse_shape(4.49, (4097, 4097)) is None  # narrower: the map's own cells
    assert coarse_shape(16.0, (80, 40)) is None  # the coarse grid would be under COARSE_MIN cells


@pytest.mark.parametrize(("brush", "grid"), [(6.0, 129), (5.0, 155)])
def test_a_wide_brush_erodes_on_a_coarser_grid_as_on_the_map(
    monkeypatch: pytest.MonkeyPatch, brush: float, grid: int
) -> None:
    """A 6-cell brush on 257² runs its droplets on 129² (a 3-cell brush; 5 cells: on 155², 1.66 cells apart)
    and adds the change back, bilinearly: mass is kept, no pits, and it erodes about as much, in the same places,
    as the droplets on the map's own cells (the former path, forced by a brush limit of infinity): the criteria
    of the resolution test."""
    from noise_core.terrain import erosion

    heights, cell = shaped(257)
    assert erosion.coarse_shape(brush, heights.shape) == (grid, grid)
    coarse = erode_hydraulic(heights, cell_size=cell, brush_radius=brush * cell)
    _check_mass(heights.astype(np.float32), coarse)
    assert pit_density(coarse.heights) <= 1.5 * pit_density(heights) + 5.0
    monkeypatch.setattr(erosion, "COARSE_BRUSH", float("inf"))
    own = erode_hydraulic(heights, cell_size=cell, brush_radius=brush * cell)
    first, second = coarse.heights - heights, own.heights - heights
    assert 0.75 < np.abs(first).mean() / np.abs(second).mean() < 1.25
    assert np.corrcoef(_smooth(first).ravel(), _smooth(second).ravel())[0, 1] > 0.75


def test_progress_on_the_coarse_grid_counts_the_droplets_asked_for() -> None:
    heights, cell = shaped(129)
    calls: list[tuple[int, int]] = []
    erode_hydraulic(heights, lambda done, total: calls.append((done, total)), cell_size=cell, droplets=30_000,
                    brush_radius=8 * cell)  # fmt: skip
    assert len(calls) >= 2 and all(total == 30_000 for _, total in calls)
    assert [done for done, _ in calls] == sorted({done for done, _ in calls}) and calls[-1][0] == 30_000
