"""MFD flow accumulation (noise_core.terrain.flow, method="mfd"): mass balance, exact values on planes, symmetry,
the exponent, and the flow and wetness maps built on it."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import noise_core as nc
from noise_core.terrain import flow


def sinks(heights: np.ndarray) -> np.ndarray:
    """Cells that keep what they receive: the map's edges and cells with no lower neighbour."""
    rows, columns = heights.shape
    padded = np.pad(heights, 1, constant_values=np.inf)
    lower = np.zeros(heights.shape, bool)
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            lower |= padded[1 + dy : 1 + dy + rows, 1 + dx : 1 + dx + columns] < heights
    keep = ~lower
    keep[0] = keep[-1] = keep[:, 0] = keep[:, -1] = True
    return keep


@given(
    seed=st.integers(0, 2**16),
    rows=st.integers(3, 40),
    columns=st.integers(3, 40),
    exponent=st.sampled_from([0.5, 1.0, 1.1, 4.0]),
    filled=st.booleans(),
)
def test_mfd_conserves_the_rain(seed: int, rows: int, columns: int, exponent: float, filled: bool) -> None:
    """Every drop of rain ends in a sink: the sinks' areas sum to the rain."""
    rng = np.random.default_rng(seed)
    heights = rng.normal(size=(rows, columns)).cumsum(axis=0)
    if filled:
        heights = nc.fill_depressions(heights, epsilon=True)
    rain = rng.uniform(0.0, 2.0, size=heights.shape)
    area = nc.flow_accumulation(heights, method="mfd", weights=rain, exponent=exponent)
    assert (area >= rain - 1e-12).all()
    assert area[sinks(heights)].sum() == pytest.approx(rain.sum(), rel=1e-12)


def test_plane_spreads_sideways_but_sums_along_the_slope() -> None:
    """A plane falling towards +x: far from the top and bottom edges, the flow through a cell is the cells
    upslope of it in its row (the lateral spreading cancels out); column 0 is an outlet, so column c holds c."""
    _, x = np.mgrid[0:60, 0:12].astype(np.float64)
    area = nc.flow_accumulation(-x, method="mfd")
    np.testing.assert_allclose(area[20:40], np.tile(np.maximum(np.arange(12.0), 1.0), (20, 1)), rtol=1e-12)


def test_mfd_splits_by_contour_length_and_drop() -> None:
    """One raised cell in the middle of a flat 3x3 block of a 5x5 map: it sends its rain to its 8 neighbours,
    sides 1/2 (drop 1 per 1), corners √2/4 (drop 1 per √2, relative 1/√2, to the power p)."""
    heights = np.zeros((5, 5))
    heights[2, 2] = 1.0
    for p in (1.0, 2.0):
        area = nc.flow_accumulation(heights, method="mfd", exponent=p)
        side, corner = 0.5, math.sqrt(2) / 4 * (1 / math.sqrt(2)) ** p
        total = 4 * side + 4 * corner
        assert area[1, 2] == pytest.approx(1 + side / total)
        assert area[1, 1] == pytest.approx(1 + corner / total)


def test_a_cone_drains_symmetrically() -> None:
    y, x = np.mgrid[0:41, 0:41].astype(np.float64)
    cone = -np.hypot(x - 20, y - 20)
    area = nc.flow_accumulation(cone, method="mfd")
    for turned in (np.rot90(area), area.T, area[::-1]):
        np.testing.assert_allclose(turned, area, rtol=1e-12)


def test_a_large_exponent_approaches_d8() -> None:
    rng = np.random.default_rng(3)
    heights = nc.fill_depressions(rng.normal(size=(30, 30)).cumsum(axis=1), epsilon=True)
    d8 = nc.flow_accumulation(heights, method="d8")
    mfd = nc.flow_accumulation(heights, method="mfd", exponent=60.0)
    assert np.abs(np.log(mfd) - np.log(d8)).mean() < 0.05


def test_flow_and_wetness_maps_use_the_filled_heights() -> None:
    y, x = np.mgrid[0:30, 0:30].astype(np.float64)
    bowl = 0.1 * ((x - 15) ** 2 + (y - 15) ** 2) + 0.5 * x
    maps = nc.compute_maps(bowl, ["flow", "wetness"], cell_size=2.0)
    area = nc.flow_accumulation(nc.fill_depressions(bowl, epsilon=True), method="mfd")
    np.testing.assert_allclose(maps["flow"], np.log10(area), rtol=1e-6)
    np.testing.assert_allclose(maps["wetness"], nc.wetness_index(bowl, 2.0, accumulation=area), rtol=1e-6)
    assert (nc.wetness_index(bowl, 2.0) == maps["wetness"]).all()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"exponent": 0.0}, "exponent: must be in (0, 100]"),
        ({"exponent": "1"}, "exponent: expected a number"),
        ({"method": "dinf"}, "method: 'dinf' is not allowed"),
    ],
)
def test_bad_options_name_themselves(options: dict, message: str) -> None:
    with pytest.raises((ValueError, TypeError)) as error:
        nc.flow_accumulation(np.zeros((4, 4)), **{"method": "mfd", **options})
    assert str(error.value).startswith(message)


def test_d8_ignores_the_exponent_only_when_not_given() -> None:
    with pytest.raises(ValueError, match="exponent: only used with method='mfd'"):
        flow.flow_accumulation(np.zeros((4, 4)), method="d8", exponent=2.0)
