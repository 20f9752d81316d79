"""Incision threshold (issue 49): ``erode_fluvial``'s ``incision_threshold`` ``θ`` (Tucker & Bras 1998; Tucker 2004):
the incision is ``K·max(A^m·S^n - θ, 0)``, solved exactly by the implicit step (``stream_power._over_threshold``)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from noise_core.terrain.fluvial import erode_fluvial
from noise_core.terrain.recipe import RIVER_OPTIONS, Recipe, Stage, build_terrain, from_dict, read_preset, to_dict
from noise_core.terrain.stream_power import _over_threshold


def _ramp(rows: int = 12, columns: int = 16) -> np.ndarray:
    """A tilted, slightly rough plane (the same heights every call)."""
    y, x = np.mgrid[0:rows, 0:columns]
    return 0.4 * x + 0.25 * y + 0.03 * ((x * 7 + y * 3) % 5)


def _channel(columns: int = 14) -> np.ndarray:
    """One channel along the middle row of a 3-row map (edge rows high, the left column low): every middle cell
    drains to its left neighbour, draining its own cell and the cells to its right."""
    heights = np.full((3, columns), 100.0)
    heights[1] = 1.0 + 0.5 * np.arange(columns)
    heights[1, 0] = 0.0
    return heights


@pytest.mark.once_per_run
@pytest.mark.parametrize("routing", ["d8", "random"])
def test_no_threshold_is_todays_bits(routing: str) -> None:
    """``incision_threshold`` 0 (the default) runs the threshold-free solver: the same bits as leaving it out, with
    channel heads, the slope limit and deposition too; a vanishing threshold gives the same heights to rounding."""
    heights = _ramp()
    common = {"steps": 5, "dt": 3.0, "uplift": 1e-2, "erodibility": 0.05, "diffusion": 0.02, "routing": routing}
    for extra in ({}, {"critical_slope": 0.9, "channel_head_area": 2.5}, {"deposition_coefficient": 0.5}):
        off = erode_fluvial(heights, **common, **extra).heights
        np.testing.assert_array_equal(erode_fluvial(heights, incision_threshold=0.0, **common, **extra).heights, off)
        tiny = erode_fluvial(heights, incision_threshold=1e-12, **common, **extra).heights
        np.testing.assert_allclose(tiny, off, rtol=1e-6, atol=1e-6)


def test_a_single_channel_incises_by_its_stream_power_over_the_threshold() -> None:
    """One implicit step (``n = 1``, uplift ``U``) along the channel from the outlet upstream, by brute force: a cell
    whose stream power before the step, ``F·(h + U·dt - h'_r)`` with ``F = K·dt·A^m/d``, is at most ``K·dt·θ`` only
    rises by ``U·dt``; any other solves ``h' = h + U·dt - K·dt·(A^m·(h' - h'_r)/d - θ)``."""
    columns, k, dt, m, theta, uplift = 14, 0.2, 1.0, 0.5, 0.9, 0.05
    heights = _channel(columns)
    result = erode_fluvial(heights, steps=1, dt=dt, uplift=uplift, erodibility=k, m=m, incision_threshold=theta)
    expected = heights[1].copy()
    below = []
    for j in range(1, columns - 1):
        area = float(columns - 1 - j)
        factor, start = k * dt * area**m, heights[1, j] + uplift * dt
        if factor * (start - expected[j - 1]) <= k * dt * theta:
            expected[j] = start
            below.append(j)
        else:
            expected[j] = (start + factor * expected[j - 1] + k * dt * theta) / (1.0 + factor)
            slope = expected[j] - expected[j - 1]
            assert area**m * slope > theta  # the cut leaves the cell above the threshold: the branch is consistent
            assert expected[j] == pytest.approx(start - k * dt * (area**m * slope - theta), rel=1e-12)
    np.testing.assert_allclose(result.heights[1, 1:-1], expected[1:-1].astype(np.float32), rtol=1e-6)
    assert below and len(below) < columns - 2  # both branches are taken
    rise = (heights[1, below] + uplift * dt).astype(np.float32)
    np.testing.assert_array_equal(result.heights[1, below], rise)  # under the threshold: uplift alone, exactly


def test_a_threshold_above_every_stream_power_leaves_uplift_alone() -> None:
    """A threshold no cell's stream power reaches: every cell rises by ``U·dt`` each step, as with no erodibility."""
    heights = _ramp()
    common = {"steps": 3, "dt": 2.0, "uplift": 1e-2, "routing": "random"}
    high = erode_fluvial(heights, erodibility=0.3, incision_threshold=1e6, **common).heights
    np.testing.assert_array_equal(high, erode_fluvial(heights, erodibility=0.0, **common).heights)


@pytest.mark.parametrize("n", [1.0, 1.5, 0.7])
def test_the_step_solves_the_thresholded_equation(n: float) -> None:
    """``_over_threshold``'s drop ``s`` solves ``c·(s - s0) + max(F·s^n - drop, 0) = 0`` for either branch."""
    for s0, factor, drop, keep in (
        (2.0, 1.5, 0.4, 1.0),
        (2.0, 0.1, 0.4, 1.0),
        (0.3, 40.0, 5.0, 1.7),
        (5.0, 3.0, 0.0, 1.2),
    ):
        s = _over_threshold(s0, factor, n, drop, keep)
        assert 0.0 < s <= s0
        assert keep * (s - s0) + max(factor * s**n - drop, 0.0) == pytest.approx(0.0, abs=1e-9 * s0)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(min_value=3, max_value=12),
    st.integers(min_value=3, max_value=12),
    st.floats(min_value=0.0, max_value=50.0, allow_nan=False),
    st.sampled_from([1.0, 1.5]),
    st.sampled_from(["d8", "random"]),
    st.integers(min_value=0, max_value=2**16),
)
def test_the_threshold_only_slows_the_incision(
    rows: int, columns: int, theta: float, n: float, routing: str, seed: int
) -> None:
    """Any map, threshold, slope exponent and routing: one step with a threshold leaves every cell finite, at least
    where it is without it and with half of it (less incision, receivers no lower), at most ``U·dt`` above where it
    started."""
    heights = np.random.default_rng(seed).uniform(0.0, 10.0, (rows, columns))
    common = {"steps": 1, "dt": 2.0, "uplift": 1e-2, "erodibility": 0.05, "n": n, "routing": routing}
    cut = erode_fluvial(heights, incision_threshold=theta, **common)
    held = cut.heights.astype(np.float64)
    half = erode_fluvial(heights, incision_threshold=0.5 * theta, **common).heights.astype(np.float64)
    plain = erode_fluvial(heights, **common).heights.astype(np.float64)
    filled = erode_fluvial(heights, **{**common, "erodibility": 0.0}).heights.astype(np.float64)
    tolerance = 1e-5 * (1.0 + np.abs(plain))
    assert np.isfinite(held).all()
    assert (held >= half - tolerance).all() and (half >= plain - tolerance).all()
    assert (held <= filled + tolerance).all()


def test_the_row_reaches_the_river_stage() -> None:
    """``incision_threshold`` is an option of the recipe's river stage (so CLI, add-on and presets take it): a short
    River Valleys stage on a 33² grid changes with it."""
    assert "incision_threshold" in {option.name for option in RIVER_OPTIONS}
    preset = read_preset("river_valleys")
    base = {**preset.stages[0].options, "steps": 12, "fine_steps": 4, "fine_size": 0, "model_size": 17}

    def built(**changes) -> np.ndarray:
        stage = Stage.of("rivers", {**base, **changes})
        return build_terrain(replace(preset, stages=(stage,)), 33).heights

    held = built(incision_threshold=2.0)
    assert np.isfinite(held).all() and not np.array_equal(held, built(incision_threshold=0.0))


@pytest.mark.parametrize(
    ("value", "error", "message"),
    [
        (-1.0, ValueError, "^incision_threshold: must be between 0 and"),
        (float("nan"), ValueError, "^incision_threshold: "),
        ("big", TypeError, "^incision_threshold: "),
    ],
)
def test_errors_name_the_option(value: object, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        erode_fluvial(_ramp(), steps=1, dt=1.0, uplift=1e-3, erodibility=1e-3, incision_threshold=value)
    record = {**to_dict(Recipe()), "stages": [{"stage": "rivers", "incision_threshold": value}]}
    with pytest.raises(error, match=message.replace("^", r"^recipe\.stages\[0\]\.")):
        from_dict(record)
