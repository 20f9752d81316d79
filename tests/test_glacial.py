"""Glacial troughs (issue 49): ``noise_core.terrain.glacial.carve_troughs`` and the river stage's
``glacier_depth``/``glacier_area``."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import noise_core as nc
from noise_core.terrain import glacial
from noise_core.terrain.flow import _edges, fill_flat
from noise_core.terrain.glacial import carve_troughs

from .test_fluvial import noise_terrain

SLOPE, FALL = 0.8, 0.2
"""The analytic V valley's wall slope and its river's fall per cell (cells 1 apart)."""


def _v_valley() -> np.ndarray:
    """A V valley, walls of slope ``SLOPE``, its river along row 30 falling ``FALL`` a cell towards x = 0 (each
    column's cells drain straight across to it: the diagonal falls only ``(SLOPE + FALL) / √2``)."""
    y, x = np.mgrid[0:61, 0:120]
    return np.abs(y - 30) * SLOPE + x * FALL


def _levels(depth: float, area: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(bed, L, F)`` along the V's river: the ice surface and the floor the docstring's recursions give (the
    river drains the 59 cells of each column from its own to column 118: the map's edges are outlets)."""
    bed = np.arange(120) * FALL
    drained = 59.0 * (119 - np.arange(120))
    thickness = depth * math.sqrt(area) * (np.maximum(drained / area, 1.0) ** glacial.GLACIER_EXPONENT - 1.0)
    level = bed + thickness
    for column in range(118, -1, -1):  # donors first, capped by the grade
        if thickness[column] > 0.0:
            level[column] = max(min(level[column], level[column + 1] - glacial.GLACIER_GRADE * FALL), bed[column])
    floor = bed.copy()
    for column in range(1, 120):  # receivers first (column 0 is the map's edge: it stays)
        if level[column] > bed[column]:
            deepened = bed[column] - glacial.GLACIER_DEEPEN * (level[column] - bed[column])
            floor[column] = max(deepened, floor[column - 1] + glacial.GLACIER_FLOOR_GRADE * FALL)
    return bed, level, floor


def test_a_v_valley_becomes_u_shaped(monkeypatch) -> None:
    """Each column of the V: the ice reaches where its surface meets the walls (half-width ``H / SLOPE``); inside,
    the cross-section is ``F + (L - F)·(d / (d + e))²`` (``d`` rows from the river, ``e`` the exact distance to
    the nearest cell above the ice; exactly so before the rounding), so the floor is flat and the walls steep at
    the ice's edge."""
    heights = _v_valley()
    rounded = carve_troughs(heights, depth=0.3, area=200.0)
    monkeypatch.setattr(glacial, "GLACIER_ROUND", 0)
    out = carve_troughs(heights, depth=0.3, area=200.0)
    assert 0.0 < np.abs(rounded - out).max() < 1.0  # the crease at the ice's edge (0.79; the ice 9 thick there)
    bed, level, floor = _levels(0.3, 200.0)
    x = np.mgrid[0:61, 0:120][1]
    inside = (heights < level[x]) & (x > 0)
    outside = np.argwhere(~inside)
    for column in (20, 60, 100):
        half = (level[column] - bed[column]) / SLOPE
        carved = np.flatnonzero(heights[:, column] - out[:, column] > 1e-9)
        assert carved.min() == 30 - math.ceil(half - 1) and carved.max() == 30 + math.ceil(half - 1), column
        rows = np.flatnonzero(inside[:, column])
        d = np.abs(rows - 30).astype(float)
        e = np.sqrt(((outside - np.stack([rows, np.full_like(rows, column)], 1)[:, None]) ** 2).sum(-1).min(1))
        across = d / (d + e)
        u_shape = floor[column] + (level[column] - floor[column]) * across**2
        old = heights[rows, column]
        expected = np.where(u_shape < old, u_shape + glacial.GLACIER_TEXTURE * across**2 * (old - u_shape), old)
        assert np.allclose(out[rows, column], expected, rtol=0.0, atol=1e-9), column
        for profile in (out, rounded):
            steps = np.diff(profile[30 : 31 + math.ceil(half), column])  # the river to the first cell above the ice
            assert np.all(steps > 0.0)  # rising from the river to the ice's edge: it drains to the floor's middle
            # a flat floor, walls steeper than the V's (the narrowest trough, column 100: 0.27 and 1.19, rounded)
            assert steps[0] < 0.35 * SLOPE and steps.max() > 1.45 * SLOPE
            assert np.argmax(steps) >= steps.size // 2  # the steepest where the ice ends
    assert level[60] - bed[60] > 8.5 and floor[60] < bed[60] - 2.0  # 8.96 cells of ice, the floor 2.4 below the bed
    assert np.array_equal(rounded[:, 119], heights[:, 119])  # above the glacier's head: the V stays
    assert np.array_equal(nc.fill_depressions(out), out) and np.array_equal(nc.fill_depressions(rounded), rounded)


def test_the_walls_keep_a_share_of_the_old_slope(monkeypatch) -> None:
    """``GLACIER_TEXTURE`` τ: a carved cell at ``x = d / (d + e)`` across the trough lies ``τ·x²`` of the way from the
    parabola ``U`` back up to the old slope ``h`` (exactly, before the rounding): the floor's middle is the
    parabola's, the top of the wall keeps τ of the slope's gullies and spurs (here ribs across the V's walls)."""
    monkeypatch.setattr(glacial, "GLACIER_ROUND", 0)
    y, x = np.mgrid[0:61, 0:120]
    heights = _v_valley() + 0.5 * (x % 4 == 0) * (np.abs(y - 30) > 2)  # ribs across the walls
    monkeypatch.setattr(glacial, "GLACIER_TEXTURE", 0.0)
    smooth = carve_troughs(heights, depth=0.3, area=200.0)
    monkeypatch.setattr(glacial, "GLACIER_TEXTURE", 0.6)
    textured = carve_troughs(heights, depth=0.3, area=200.0)
    carved = smooth < heights - 1e-9
    assert np.array_equal(carved, textured < heights - 1e-9)  # the same footprint
    share = (textured - smooth)[carved] / (heights - smooth)[carved]
    assert np.all(share >= -1e-9) and np.all(share <= 0.6 + 1e-9)
    assert share.max() > 0.4  # near the ice's edge x is close to 1
    column = 60  # from the river to the wall the share grows (x does)
    rows = np.flatnonzero(carved[31:, column]) + 31
    grown = (textured - smooth)[rows, column] / (heights - smooth)[rows, column]
    assert np.all(np.diff(grown) > 0.0) and grown[0] < 0.05
    assert np.array_equal(nc.fill_depressions(textured), textured)


def test_a_tributary_glacier_hangs_above_the_trunk() -> None:
    """A tributary V joining the trunk's from above (row 60, column 60), beds concordant: after carving, the
    tributary's floor (a thinner glacier) ends in a step down the trunk's wall, many times its bed's fall."""
    y, x = np.mgrid[0:81, 0:120]
    trunk = np.abs(y - 60) * SLOPE + x * FALL
    branch = np.abs(x - 60) * SLOPE + (60 - y) * 0.4 + 60 * FALL
    heights = np.where(y < 60, np.minimum(trunk, branch), trunk)
    out = carve_troughs(heights, depth=0.3, area=300.0)
    course = out[30:61, 60]
    drops = -np.diff(course)  # fall per row towards the trunk
    assert np.all(np.diff(course) < 0.0)  # it drains down to the trunk
    lip = np.convolve(drops, np.ones(3), "valid")  # the fall over three rows
    assert lip.max() > 2.5 * 3 * 0.4  # the lip: a step (3.8 over three rows, rounded), not the bed's 0.4 a row
    above = drops[10:21]  # above it (rows 40-50) its own floor, graded no steeper than its bed (0.32-0.40 a row)
    assert np.all(above <= 0.4 + 1e-9) and above.mean() < 0.37
    assert np.all(heights[32:44, 60] - out[32:44, 60] > 0.3)  # the tributary's own trough, up its valley
    assert np.array_equal(nc.fill_depressions(out), out)


def test_nothing_changes_without_a_glacier() -> None:
    """Depth 0, or no river draining ``area``: the epsilon-filled heights, bit for bit."""
    heights = _v_valley()
    filled = nc.fill_depressions(heights, epsilon=True)
    assert np.array_equal(carve_troughs(heights, depth=0.0, area=200.0), filled)
    assert np.array_equal(carve_troughs(heights, depth=0.3, area=61.0 * 120), filled)
    noise = noise_terrain((40, 44)).astype(np.float64)
    assert np.array_equal(carve_troughs(noise, depth=0.0, area=1.0), nc.fill_depressions(noise, epsilon=True))


def test_carve_troughs_keeps_every_cell_draining() -> None:
    for heights, cell in ((_v_valley() * 10.0, 10.0), (noise_terrain((48, 48)).astype(np.float64) * 30.0, 30.0)):
        out = carve_troughs(heights, cell_size=cell, depth=0.3, area=30 * cell * cell)
        assert np.array_equal(nc.fill_depressions(out), out)
        assert np.count_nonzero(out < nc.fill_depressions(heights, epsilon=True) - 1.0) > 10  # it carved something


@settings(max_examples=30, deadline=None)
@given(
    relief=st.sampled_from([0.0, 1e-6, 1.0, 1e3, 1e8]),
    depth=st.sampled_from([1e-6, 0.3, 1.0, 10.0]),
    area=st.sampled_from([1.0, 5.0, 1e3, 1e9]),
    shape=st.sampled_from([(3, 3), (3, 9), (12, 15), (20, 20)]),
    outlet=st.booleans(),
)
def test_carve_troughs_never_nan_nor_a_hollow(relief, depth, area, shape, outlet) -> None:
    heights = noise_terrain(shape, relief=1.0).astype(np.float64) * relief
    outlets = None
    if outlet:
        outlets = np.zeros(shape, dtype=bool)
        outlets[shape[0] // 2, shape[1] // 2] = True
    before = carve_troughs(heights, depth=0.0, area=area, outlets=outlets)  # epsilon-filled, outlets kept
    out = carve_troughs(heights, depth=depth, area=area, outlets=outlets)
    assert out.shape == shape and np.isfinite(out).all()
    assert np.all(out <= before + 1e-9 * (1.0 + np.abs(before)))  # carved, never raised (but by the epsilon fill)
    base = _edges(shape) if outlets is None else _edges(shape) | outlets.reshape(-1)
    assert np.array_equal(out.reshape(-1)[base.view(bool)], heights.reshape(-1)[base.view(bool)])  # edges stay
    filled = out.copy()
    fill_flat(filled.reshape(-1), shape, base, False, False)  # the plain Priority-Flood fill, outlets as base
    assert np.array_equal(filled, out)


@settings(max_examples=25, deadline=None)
@given(
    shape=st.tuples(st.integers(1, 17), st.integers(1, 17)),
    share=st.sampled_from([0.0, 0.02, 0.2, 1.0]),
    seed=st.integers(0, 2**16),
)
def test_nearest_sites_is_the_exact_euclidean_transform(shape, share, seed) -> None:
    """The nearest glacier cell and its squared distance, against brute force (ties: any nearest site)."""
    from noise_core.terrain.water import INFINITE

    sites = np.random.default_rng(seed).random(shape) < share
    nearest = np.empty(shape, dtype=np.int64)
    squared = np.empty(shape)
    glacial._kernels().nearest_sites(sites, nearest, squared)
    if not sites.any():
        assert np.all(nearest == -1) and np.all(squared >= INFINITE)
        return
    points = np.argwhere(sites)
    cells = np.argwhere(np.ones(shape, dtype=bool))
    brute = ((cells[:, None] - points[None]) ** 2).sum(-1).min(1)
    assert np.array_equal(squared.reshape(-1), brute)
    found = np.stack(np.divmod(nearest.reshape(-1), shape[1]), 1)
    assert sites.reshape(-1)[nearest.reshape(-1)].all()
    assert np.array_equal(((cells - found) ** 2).sum(-1), brute)


@pytest.mark.parametrize(
    ("options", "error", "pattern"),
    [
        ({"depth": -0.1, "area": 10.0}, ValueError, r"^depth: must be between 0 and 10"),
        ({"depth": 11.0, "area": 10.0}, ValueError, r"^depth: must be between 0 and 10"),
        ({"depth": "deep", "area": 10.0}, TypeError, r"^depth: expected a number"),
        ({"depth": 0.3, "area": 0.5}, ValueError, r"^area: must be >= 1"),
        ({"depth": 0.3, "area": math.nan}, ValueError, r"^area: must be a finite number"),
        ({"depth": 0.3, "area": 10.0, "cell_size": 0.0}, ValueError, r"^cell_size: "),
    ],
)
def test_carve_troughs_errors_name_the_argument(options, error, pattern) -> None:
    with pytest.raises(error, match=pattern):
        carve_troughs(_v_valley(), **options)


def test_the_rivers_stage_carves_troughs() -> None:
    """``glacier_depth`` and ``glacier_area`` are rows of the recipe's river stage (so the CLI, the add-on and the
    presets take them, and its errors name them): a short River Valleys stage on a 33² grid carves with them and
    is bit-identical without."""
    from dataclasses import replace

    from noise_core.terrain.recipe import RIVER_OPTIONS, Stage, build_terrain, read_preset

    assert {"glacier_depth", "glacier_area"} <= {option.name for option in RIVER_OPTIONS}
    for bad, pattern in (({"glacier_depth": 11}, r"^stage\.glacier_depth: must be between 0 and 10"),
                         ({"glacier_area": 0}, r"^stage\.glacier_area: must be")):  # fmt: skip
        with pytest.raises(ValueError, match=pattern):
            Stage.of("rivers", bad)
    preset = read_preset("river_valleys")
    # the map's own 1.8 km cells: channel heads of 30 cells would leave no river, so River Valleys' hillslopes of
    # before (no channel heads, D 1e-5)
    base = {**preset.stages[0].options, "steps": 12, "fine_steps": 4, "fine_size": 0, "model_size": 17,
            "channel_head_area": 0.0, "diffusion": 1e-5}  # fmt: skip

    def built(**changes) -> np.ndarray:
        stage = Stage.of("rivers", {**base, **changes})
        return build_terrain(replace(preset, stages=(stage,)), 33).heights.astype(np.float64)

    plain = built()
    assert np.array_equal(built(glacier_depth=0.0, glacier_area=5.0), plain)
    carved = plain - built(glacier_depth=0.5, glacier_area=5.0)
    assert np.count_nonzero(carved > 1.0) > 100 and carved.max() > 50.0  # metres: troughs cut in (156, 72 m)
    assert carved.min() >= 0.0  # nowhere higher than without the troughs
