"""Channel heads (issue 49): ``erode_fluvial``'s ``channel_head_area`` (Montgomery & Dietrich 1988; Tucker & Bras
1998): no incision above a channel head (drainage area ``A <= A_c``), full incision from ``2·A_c``, the smooth
ramp ``stream_power.head_share`` between them."""

from __future__ import annotations

import itertools
import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from noise_core.terrain.fluvial import erode_fluvial
from noise_core.terrain.recipe import RIVER_OPTIONS, Recipe, Stage, build_terrain, from_dict, read_preset, to_dict
from noise_core.terrain.stream_power import head_share

from .stages import short_rivers


def _ramp(rows: int = 12, columns: int = 16) -> np.ndarray:
    """A tilted, slightly rough plane (the same heights every call)."""
    y, x = np.mgrid[0:rows, 0:columns]
    return 0.4 * x + 0.25 * y + 0.03 * ((x * 7 + y * 3) % 5)


def test_head_share_is_a_smooth_ramp_over_a_factor_of_two() -> None:
    """0 up to the head area, 1 from twice it, ``t²(3 - 2t)`` of ``t = log₂(A/A_c)`` between (1/2 at ``√2·A_c``)."""
    assert head_share(0.0, 10.0) == 0.0 and head_share(10.0, 10.0) == 0.0
    assert head_share(20.0, 10.0) == 1.0 and head_share(1e9, 10.0) == 1.0
    assert head_share(10.0 * math.sqrt(2.0), 10.0) == pytest.approx(0.5, abs=1e-12)
    t = math.log2(1.3)
    assert head_share(13.0, 10.0) == pytest.approx(t * t * (3.0 - 2.0 * t), rel=1e-12)
    shares = [head_share(a, 10.0) for a in np.linspace(9.0, 21.0, 200)]
    assert all(b >= a for a, b in itertools.pairwise(shares))


@pytest.mark.parametrize("routing", ["d8", "random"])
def test_below_the_head_area_the_hillslope_relaxes_as_diffusion_alone(routing: str) -> None:
    """Every cell drains less than the head area: the stream power cuts nothing, so the ramp changes exactly (same
    bits) as with no erodibility at all: uplift and hillslope diffusion (linear, and nonlinear) alone."""
    heights = _ramp()
    common = {"steps": 4, "dt": 2.0, "uplift": 1e-2, "diffusion": 0.05, "routing": routing}
    for extra in ({}, {"critical_slope": 0.9}):
        headed = erode_fluvial(heights, erodibility=0.3, channel_head_area=1e6, **common, **extra)
        alone = erode_fluvial(heights, erodibility=0.0, **common, **extra)
        np.testing.assert_array_equal(headed.heights, alone.heights)
        cut = erode_fluvial(heights, erodibility=0.3, **common, **extra)
        assert not np.array_equal(cut.heights, alone.heights)  # the erodibility would cut without channel heads


def test_above_twice_the_head_area_the_rivers_cut_as_before() -> None:
    """Every cell drains at least its own cell (area ``cell_size²``): a head area below half of it changes no bit."""
    heights = _ramp()
    common = {"steps": 5, "dt": 3.0, "uplift": 1e-2, "erodibility": 0.05, "diffusion": 0.02, "cell_size": 2.0}
    off = erode_fluvial(heights, **common)
    np.testing.assert_array_equal(erode_fluvial(heights, channel_head_area=1.99, **common).heights, off.heights)
    assert not np.array_equal(erode_fluvial(heights, channel_head_area=4.5, **common).heights, off.heights)


def test_a_single_channel_incises_by_the_head_share_of_its_area() -> None:
    """One channel along the middle row of a 3-row map (the edge rows high, the left column low: every middle cell
    drains to its left neighbour, draining its own cell and the cells to its right). One implicit step (``n = 1``,
    no uplift): ``h' = (h + F·h'_r) / (1 + F)``, ``F = K·dt·A^m·head_share(A) / d`` from the outlet upstream."""
    columns, k, dt, m, head = 14, 0.2, 1.0, 0.5, 4.0
    heights = np.full((3, columns), 100.0)
    heights[1] = 1.0 + 0.5 * np.arange(columns)
    heights[1, 0] = 0.0
    result = erode_fluvial(heights, steps=1, dt=dt, uplift=0.0, erodibility=k, m=m, channel_head_area=head)
    expected = heights[1].copy()
    for j in range(1, columns - 1):
        area = float(columns - 1 - j)
        factor = k * dt * area**m * head_share(area, head)
        expected[j] = (heights[1, j] + factor * expected[j - 1]) / (1.0 + factor)
    np.testing.assert_allclose(result.heights[1, 1:-1], expected[1:-1].astype(np.float32), rtol=1e-6)
    upstream = np.arange(1, columns - 1) >= columns - 1 - head  # A <= head: not cut
    np.testing.assert_array_equal(result.heights[1, 1:-1][upstream], heights[1, 1:-1][upstream].astype(np.float32))
    assert (result.heights[1, 1:4] < heights[1, 1:4] - 1e-3).all()


def test_the_head_area_is_an_area_not_a_count_of_cells() -> None:
    """Heights, cell size and the diffusivity scaled as lengths (x2, x2, x4) and the head area as an area (x4): for
    ``m = 1/2`` the same landscape twice as large, to rounding, so the option means the same on any grid."""
    heights = _ramp()
    common = {"steps": 6, "dt": 3.0, "erodibility": 0.05, "m": 0.5, "routing": "random"}
    one = erode_fluvial(heights, uplift=1e-2, diffusion=0.02, channel_head_area=6.0, **common)
    two = erode_fluvial(2.0 * heights, uplift=2e-2, diffusion=0.08, channel_head_area=24.0, cell_size=2.0, **common)
    np.testing.assert_allclose(two.heights, 2.0 * one.heights, rtol=2e-6, atol=1e-5)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(min_value=3, max_value=12),
    st.integers(min_value=3, max_value=12),
    st.floats(min_value=0.0, max_value=1e4, allow_nan=False),
    st.floats(min_value=0.1, max_value=10.0),
    st.integers(min_value=0, max_value=2**16),
)
def test_channel_heads_only_slow_the_incision(rows: int, columns: int, head: float, cell: float, seed: int) -> None:
    """Any map, head area and cell size: one step with channel heads leaves every cell finite, at least where it
    is without them (less incision, receivers no lower) and at most uplift·dt above where it started."""
    heights = np.random.default_rng(seed).uniform(0.0, 10.0, (rows, columns))
    common = {"steps": 1, "dt": 2.0, "uplift": 1e-2, "erodibility": 0.05, "cell_size": cell}
    headed = erode_fluvial(heights, channel_head_area=head, **common).heights.astype(np.float64)
    plain = erode_fluvial(heights, **common).heights.astype(np.float64)
    filled = erode_fluvial(heights, **{**common, "erodibility": 0.0}).heights.astype(np.float64)
    assert np.isfinite(headed).all()
    assert (headed >= plain - 1e-5 * (1.0 + np.abs(plain))).all()
    assert (headed <= filled + 1e-5 * (1.0 + np.abs(filled))).all()


def test_the_row_reaches_the_river_stage() -> None:
    """``channel_head_area`` is an option of the recipe's river stage (so CLI, add-on and presets take it): a short
    River Valleys stage on a 33² grid changes with it."""
    assert "channel_head_area" in {option.name for option in RIVER_OPTIONS}
    preset = read_preset("river_valleys")
    base = {**preset.stages[0].options, "steps": 12, "fine_steps": 4, "fine_size": 0, "model_size": 17}

    def built(**changes) -> np.ndarray:
        stage = Stage.of("rivers", {**base, **changes})
        return build_terrain(replace(preset, stages=(stage,)), 33).heights

    headed = built(channel_head_area=20.0)
    assert np.isfinite(headed).all() and not np.array_equal(headed, built(channel_head_area=0.0))


@pytest.mark.parametrize(
    ("value", "error", "message"),
    [
        (-1.0, ValueError, "^channel_head_area: must be between 0 and"),
        (float("nan"), ValueError, "^channel_head_area: "),
        ("big", TypeError, "^channel_head_area: "),
    ],
)
def test_errors_name_the_option(value: object, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        erode_fluvial(_ramp(), steps=1, dt=1.0, uplift=1e-3, erodibility=1e-3, channel_head_area=value)
    record = {**to_dict(Recipe()), "stages": [{"stage": "rivers", "channel_head_area": value}]}
    with pytest.raises(error, match=message.replace("^", r"^recipe\.stages\[0\]\.")):
        from_dict(record)


def test_one_channel_head_area_as_a_map_is_the_number() -> None:
    """A channel-head map of one value gives the landscape of the number bit for bit: with D8 and random routing,
    with the threshold slope (``critical_slope``), with deposition and through the model and fine grids."""
    start = np.random.default_rng(7).uniform(0.0, 5.0, (33, 33))
    common = {"steps": 10, "dt": 100.0, "uplift": 1e-3, "erodibility": 1e-3, "diffusion": 2e-3}
    for extra in ({}, {"routing": "random", "critical_slope": 0.6}, {"deposition_coefficient": 0.3},
                  {"model_size": 17, "fine_steps": 4, "critical_slope": 0.6}, {"fine_size": 17}):  # fmt: skip
        number = erode_fluvial(start, channel_head_area=6.0, **common, **extra).heights
        mapped = erode_fluvial(start, channel_head_area=np.full((33, 33), 6.0), **common, **extra).heights
        assert np.array_equal(mapped, number)


def test_each_cell_takes_its_own_channel_head_area() -> None:
    """A map: the columns whose head area no cell drains are only uplifted (their rivers cut nothing), the columns
    of a small head area are cut as without channel heads: one step on a ramp that drains left, by rows."""
    heights = _ramp()
    heads = np.zeros(heights.shape)
    heads[:, 8:] = 1e6
    common = {"steps": 1, "dt": 2.0, "uplift": 1e-2, "erodibility": 0.05}
    mapped = erode_fluvial(heights, channel_head_area=heads, **common).heights
    plain = erode_fluvial(heights, **common).heights
    lifted = (heights + 1e-2 * 2.0).astype(np.float32)
    inner = (slice(1, -1), slice(8, -1))
    np.testing.assert_array_equal(mapped[inner], lifted[inner])
    assert (plain[inner] < lifted[inner]).all()  # they would have been cut
    np.testing.assert_array_equal(mapped[1:-1, 1:8], plain[1:-1, 1:8])


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["d8", "random"]))
def test_any_channel_head_map_only_slows_the_incision(data: int, routing: str) -> None:
    """Any channel-head map (zeros, tiny, huge, spiky) under any routing: finite heights, each cell at most
    uplift·dt above where it started and at least where the map's smallest head area would leave it."""
    rng = np.random.default_rng(data)
    heads = rng.choice([0.0, 1.0, 1e4], (12, 14)) * rng.uniform(0.0, 1.0, (12, 14))
    start = rng.uniform(0.0, 10.0, (12, 14))
    common = {"steps": 1, "dt": 2.0, "uplift": 1e-2, "erodibility": 0.05, "routing": routing}
    mapped = erode_fluvial(start, channel_head_area=heads, **common).heights.astype(np.float64)
    filled = erode_fluvial(start, **{**common, "erodibility": 0.0}).heights.astype(np.float64)
    assert np.isfinite(mapped).all()
    assert (mapped <= filled + 1e-5 * (1.0 + np.abs(filled))).all()


@pytest.mark.parametrize(
    ("value", "error", "message"),
    [
        (np.full((12, 16), -1.0), ValueError, "^channel_head_area: must be >= 0"),
        (np.full((12, 16), np.nan), ValueError, "^channel_head_area: must be finite"),
        (np.full((12, 16), 1e31), ValueError, "^channel_head_area: must be between 0 and"),
        (np.ones((3, 4)), ValueError, "^channel_head_area: must have the heights' shape"),
        (np.full((12, 16), "a"), TypeError, "^channel_head_area: dtype"),
    ],
)
def test_map_errors_name_the_option(value: np.ndarray, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        erode_fluvial(_ramp(), steps=1, dt=1.0, uplift=1e-3, erodibility=1e-3, channel_head_area=value)


def test_rock_variety_heads_reaches_the_river_stage() -> None:
    """``rock_variety_heads`` (the channel head area times ``exp(-s·z)`` of the rock field ``z``) is a row of the
    river stage: 0 keeps the landscape of before it bit for bit, it needs ``channel_head_area`` (without it the
    stage is the same), and either sign changes the landscape."""
    assert "rock_variety_heads" in {option.name for option in RIVER_OPTIONS}
    built = short_rivers("uplifted_range", defaults=("rock_variety_heads",))
    plain = built()
    assert np.array_equal(built(rock_variety_heads=0.0), plain)
    for value in (1.5, -1.0):
        assert not np.allclose(built(rock_variety_heads=value), plain)
    assert np.array_equal(built(rock_variety_heads=2.0, channel_head_area=0.0), built(channel_head_area=0.0))
    for value, error in ((5.5, ValueError), (-5.5, ValueError), ("x", TypeError)):
        with pytest.raises(error, match=r"^stage\.rock_variety_heads: "):
            Stage.of("rivers", {"rock_variety_heads": value})
