"""Droplet erosion on real terrain (issue 42): every DEM of ``tests/dems.py`` at its real cell size in metres.

After default ``erode_hydraulic`` and with ``gullies=8`` (the presets' value, and the issue's): the real river
channels (D8 area >= 100 cells over the filled DEM) are not raised on average; the share of cells in closed
depressions grows by at most 1 point; cell-scale roughness (the std of the Laplacian) grows at most 1.5x. With
gullies the deepest real depression (the deepest basin of at least 9 cells: one or two cells of a tile are voids
of the data, not landforms at 90 m) keeps at least a quarter of its depth, and the flat area does not double.
Each erosion runs once (``eroded``); the whole file takes about 13 s of CPU time once compiled.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from noise_core import depressions, erode_hydraulic

from . import dems

# Erosion of the real tiles computes the same on either Python: once per run (scripts/run.sh).
pytestmark = pytest.mark.once_per_run

RUNS = {"default": {}, "gullies": {"gullies": 8.0}}
BASIN = 9
"""The smallest basin, in cells, counted as a real depression (``depressions(min_cells=...)``)."""


@cache
def eroded(name: str, run: str) -> np.ndarray:
    dem = dems.load(name)
    return erode_hydraulic(dem.heights, cell_size=dem.cell_size, **RUNS[run]).heights.astype(np.float64)


@cache
def channels(name: str) -> np.ndarray:
    return dems.channels(dems.load(name))


CASES = [(name, run) for name in dems.NAMES for run in RUNS]


@pytest.mark.parametrize(("name", "run"), CASES)
def test_channels_are_not_raised(name: str, run: str) -> None:
    dem = dems.load(name)
    change = eroded(name, run) - dem.heights
    assert change[channels(name)].mean() <= 0.0


@pytest.mark.parametrize(("name", "run"), CASES)
def test_closed_depressions_grow_by_at_most_a_point(name: str, run: str) -> None:
    dem = dems.load(name)
    before = depressions(dem.heights, outlets=dem.sea)[0]
    after = depressions(eroded(name, run), outlets=dem.sea)[0]
    assert after <= before + 0.01


@pytest.mark.parametrize(("name", "run"), CASES)
def test_no_cell_scale_comb(name: str, run: str) -> None:
    dem = dems.load(name)
    assert dems.roughness(eroded(name, run)) <= 1.5 * dems.roughness(dem.heights)


@pytest.mark.parametrize("name", dems.NAMES)
def test_gullies_keep_the_deepest_depression_and_the_flats(name: str) -> None:
    dem = dems.load(name)
    after = eroded(name, "gullies")
    deepest = depressions(dem.heights, outlets=dem.sea, min_cells=BASIN)[1]
    assert deepest > 0.0
    assert depressions(after, outlets=dem.sea, min_cells=BASIN)[1] >= 0.25 * deepest
    assert dems.flat_share(after, dem.cell_size, dem.sea) <= 2.0 * dems.flat_share(dem.heights, dem.cell_size, dem.sea)


def test_the_depression_metric_sees_basins_of_any_size() -> None:
    """A 3 x 3 basin 2 deep (its centre) and 1 deep (its rim of 8) and, apart from it, a one-cell pit 5 deep, in a
    plateau at 10 whose edges (9) drain: 10 cells of 81 in depressions, the deepest 5, mean (2 + 8·1 + 5)/10; with
    ``min_cells`` 9 only the basin counts; a sea (``outlets``) in the basin drains it."""
    heights = np.full((9, 9), 10.0)
    heights[0, :] = heights[-1, :] = heights[:, 0] = heights[:, -1] = 9.0
    heights[2:5, 2:5] = 9.0
    heights[3, 3] = 8.0
    heights[6, 6] = 5.0
    share, deepest, mean = depressions(heights)
    assert (share, deepest, mean) == pytest.approx((10 / 81, 5.0, 1.5))
    assert depressions(heights, min_cells=9) == pytest.approx((9 / 81, 2.0, 10 / 9))
    sea = np.zeros((9, 9), dtype=bool)
    sea[3, 3] = True
    assert depressions(heights, outlets=sea) == pytest.approx((1 / 81, 5.0, 5.0))
    assert depressions(np.zeros((5, 5))) == (0.0, 0.0, 0.0)


@pytest.mark.parametrize(
    ("arguments", "error", "message"),
    [
        ({"outlets": np.zeros((7, 7))}, TypeError, "outlets: expected a boolean numpy array"),
        ({"outlets": np.zeros((3, 3), dtype=bool)}, ValueError, "outlets: must have the heights' shape"),
        ({"min_cells": 0}, ValueError, "min_cells: expected a whole number >= 1"),
        ({"min_cells": 2.5}, ValueError, "min_cells: expected a whole number >= 1"),
    ],
)
def test_the_depression_metric_names_a_bad_argument(arguments: dict, error: type, message: str) -> None:
    with pytest.raises(error, match="^" + message):
        depressions(np.zeros((7, 7)), **arguments)
