"""Glacial areal scour (issue 49, ``terrain.variety.scour``, the river stage's ``scour_depth`` and ``scour_scale``):
knobs of rock between closed rock basins on the gentle ground, none on flat floors or steep walls."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from noise_core.terrain.geomorphometry import terrain_statistics
from noise_core.terrain.recipe import RIVER_OPTIONS, Stage
from noise_core.terrain.variety import SCOUR_DEPTH, SCOUR_FLAT, SCOUR_SCALE, SCOUR_STEEP, scour

from .stages import short_rivers


def _plane(size: int, slope: float, angle: float = 0.3) -> np.ndarray:
    y, x = np.mgrid[0:size, 0:size].astype(np.float64)
    return slope * (x * np.cos(angle) + y * np.sin(angle))


def _weight(slope: float) -> float:
    """``w(S)`` of the module docstring."""
    flat = (slope / SCOUR_FLAT) ** 2
    return flat / (1.0 + flat) / (1.0 + (slope / SCOUR_STEEP) ** 2)


def test_depth_zero_changes_nothing_and_scour_only_lowers() -> None:
    plane = _plane(48, 0.1)
    assert np.array_equal(scour(plane, depth=0.0, wavelength=12.0), plane)
    change = scour(plane, depth=5.0, wavelength=12.0) - plane
    assert change.max() <= 0.0 and change.min() < -1.0


def test_gentle_ground_takes_it_flats_and_steep_walls_keep_their_form() -> None:
    """On planes of one slope the deepest cut is ``d·w(S)``: all but nothing on a floor (slope 0.002) and on a
    wall (slope 1.5), most on gentle ground (slope 0.1), as the weight says."""
    depth = 10.0
    deepest = {}
    for slope in (0.002, 0.1, 1.5):
        plane = _plane(64, slope)
        change = scour(plane, depth=depth, wavelength=16.0, seed=3) - plane
        inner = change[2:-2, 2:-2]  # the stencil repeats the edge cells: their slope is half
        deepest[slope] = -float(inner.min())
        assert deepest[slope] <= depth * _weight(slope) * (1 + 1e-9)
        assert deepest[slope] >= 0.9 * depth * _weight(slope)  # some cell reaches the basins' full depth
    assert deepest[0.002] < 0.03 and deepest[1.5] < 0.5 and deepest[0.1] > 7.0


def test_the_basins_are_closed_depressions() -> None:
    """A gentle plane has no depression; scoured, it holds closed basins (Priority-Flood depths above 0), as deep
    as the setting at most."""
    plane = _plane(96, 0.08)
    before = terrain_statistics(plane, cell_size=1.0)
    after = terrain_statistics(scour(plane, depth=6.0, wavelength=20.0, seed=1), cell_size=1.0)
    assert before.depression_share == 0.0
    assert after.depression_share > 0.02 and 0.5 < after.depression_depth <= 6.0


def test_the_ground_weighs_it() -> None:
    """With ``ground`` the weight follows its slopes, not the heights': a gentle plane's scour applied to a flat
    map, and none where the ground is flat."""
    plane = _plane(48, 0.1)
    flat = np.zeros_like(plane)
    on_flat = scour(flat, depth=5.0, wavelength=12.0, ground=plane)
    assert np.allclose(on_flat, scour(plane, depth=5.0, wavelength=12.0) - plane, atol=1e-12)
    assert np.array_equal(scour(plane, depth=5.0, wavelength=12.0, ground=flat), plane)


def test_a_coarser_ground_weighs_it_interpolated() -> None:
    """A ground grid coarser than the map (the river stage's fine grid) gives the weight of its own slopes: a
    plane's weight is one number, so the scour is the map's own away from the edges; where the ground is flat on
    one half, the map's cells there are barely cut."""
    plane = _plane(65, 0.1)
    coarse = _plane(17, 0.4)  # the same plane, its cells 4 apart
    same = scour(plane, depth=5.0, wavelength=12.0, ground=coarse)[5:-5, 5:-5]  # edge cells: half the slope
    assert np.allclose(same, scour(plane, depth=5.0, wavelength=12.0)[5:-5, 5:-5], atol=1e-12)
    half = coarse.copy()
    half[:, :8] = 0.0
    change = scour(plane, depth=5.0, wavelength=12.0, ground=half) - plane
    assert np.abs(change[:, :24]).max() < 0.05 and change[:, 40:].min() < -3.0
    # a fine grid keeps a map's proportions to within a cell (1009 x 513 samples: 648 x 330, not 648 x 329.6)
    oblong = _plane(65, 0.1)[:, :33]
    assert scour(oblong, depth=5.0, wavelength=12.0, ground=_plane(21, 0.3)[:, :11]).shape == oblong.shape


def test_the_same_basins_at_every_cell_size() -> None:
    """The noise is read in the heights' unit, so a map twice as fine over the same ground has the same scour at
    the cells both have."""
    coarse = scour(_plane(41, 0.1), cell_size=2.0, depth=8.0, wavelength=40.0, seed=4) - _plane(41, 0.1)
    fine = scour(_plane(81, 0.05), cell_size=1.0, depth=8.0, wavelength=40.0, seed=4) - _plane(81, 0.05)
    assert np.abs(coarse[1:-1, 1:-1] - fine[2:-2:2, 2:-2:2]).max() < 1e-9
    assert coarse.min() < -4.0


@settings(max_examples=30, deadline=None)
@given(
    st.integers(3, 24),
    st.integers(3, 24),
    st.floats(0.0, 1e3),
    st.floats(0.5, 100.0),
    st.integers(-(2**31), 2**31 - 1),
    st.integers(0, 2**32 - 1),
)
def test_scour_is_bounded(rows: int, columns: int, depth: float, wavelength: float, seed: int, data: int) -> None:
    """On any heights the scour is finite, never raises a cell and never cuts deeper than ``depth``."""
    heights = np.random.default_rng(data).normal(0.0, 5.0, (rows, columns))
    change = scour(heights, depth=depth, wavelength=wavelength, seed=seed) - heights
    assert np.isfinite(change).all() and change.max() <= 0.0 and change.min() >= -depth * (1 + 1e-12)


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: scour(np.zeros((4, 4)), depth=-1.0), ValueError, "^depth: must be"),
        (lambda: scour(np.zeros((4, 4)), depth=1.0, wavelength=0.0), ValueError, "^wavelength: must be"),
        (lambda: scour(np.zeros((4, 4)), depth=1.0, seed=1.5), TypeError, "^seed: expected"),
        (lambda: scour([[1.0]], depth=1.0), TypeError, "^heights: expected"),
        (lambda: scour(np.zeros((4, 4)), depth=1.0, cell_size=0.0), ValueError, "^cell_size: must be"),
        (lambda: scour(np.zeros((4, 4)), depth=1.0, ground=np.zeros((4, 5))), ValueError, "^ground: must be a grid"),
        (lambda: scour(np.zeros((9, 9)), depth=1.0, ground=np.zeros((2, 5))), ValueError, "^ground: must be a grid"),
        (lambda: scour(np.zeros((4, 4)), depth=1.0, ground=[[0.0]]), TypeError, "^ground: expected"),
        (lambda: scour(np.zeros((4, 4)), depth=1.0, ground=np.full((4, 4), np.nan)), ValueError, "^ground: must be"),
        (lambda: Stage.of("rivers", {"scour_depth": -2.0}), ValueError, r"^stage\.scour_depth: must be"),
        (lambda: Stage.of("rivers", {"scour_scale": 0.0}), ValueError, r"^stage\.scour_scale: must be"),
    ],
)
def test_errors_name_the_argument(call, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        call()


def test_the_rows_reach_the_river_stage() -> None:
    """The rows are the river stage's (recipe, CLI, add-on and presets take them): a short Rolling Hills stage
    on a 33² grid only loses ground to the scour, at most its depth, and is as before without it."""
    assert {SCOUR_DEPTH.name, SCOUR_SCALE.name} <= {option.name for option in RIVER_OPTIONS}
    built = short_rivers("rolling_hills")
    plain = built(scour_depth=0.0)
    scoured = built(scour_depth=50.0, scour_scale=4000.0)
    change = scoured - plain
    assert change.max() <= 1e-9 and -50.0 <= change.min() < -1.0
