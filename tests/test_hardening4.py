"""Hardening 4 (issue 46): terrain maps, rivers, water and export under bad input and faults. For allowed input a
finite answer or an error naming the user's argument; nothing lost, nothing half-written. One section per class of
defect; each property test would have found its class."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import noise_core as nc
from noise_core.terrain import flow

from .test_flow_mfd import sinks

# --- 1. MFD flow loses no water -----------------------------------------------------------------------------------


@given(
    seed=st.integers(0, 2**16),
    rows=st.integers(3, 24),
    columns=st.integers(3, 24),
    exponent=st.one_of(st.sampled_from([flow.MAX_EXPONENT, 50.0, 1.0]), st.floats(1e-3, flow.MAX_EXPONENT)),
    relief=st.sampled_from([1e-300, 1e-6, 1.0, 1e6, 1e30]),
    filled=st.booleans(),
    dtype=st.sampled_from([np.float32, np.float64]),
)
def test_mfd_passes_on_every_share_at_any_allowed_exponent(
    seed: int, rows: int, columns: int, exponent: float, relief: float, filled: bool, dtype: type
) -> None:
    """A share that rounds to 0 (a gentle neighbour at a large exponent) still lets its receiver pass its water
    on: every drop of rain ends in a sink, and every cell holds at least its own rain."""
    rng = np.random.default_rng(seed)
    heights = (rng.normal(size=(rows, columns)).cumsum(axis=0) * relief).astype(dtype)
    if filled:
        heights = nc.fill_depressions(heights, epsilon=True)
    rain = rng.uniform(0.0, 2.0, size=heights.shape)
    area = nc.flow_accumulation(heights, method="mfd", weights=rain, exponent=exponent)
    assert np.isfinite(area).all()
    assert (area >= rain * (1 - 1e-12)).all()
    assert area[sinks(heights)].sum() == pytest.approx(rain.sum(), rel=1e-12)


def test_mfd_at_the_max_exponent_with_a_far_steeper_neighbour() -> None:
    """The case the audit found: a cell whose drop to one neighbour is 10^4 times its drop to the others, exponent
    100: those shares are (10^-4)^100 = 0, and their receivers were never passed on (their water lost)."""
    heights = np.zeros((5, 5))
    heights[1:4, 1:4] = 100.0
    heights[2, 2], heights[2, 3] = 101.0, -9899.0
    area = nc.flow_accumulation(heights, method="mfd", exponent=flow.MAX_EXPONENT)
    assert area[sinks(heights)].sum() == pytest.approx(heights.size, rel=1e-12)
