"""Bedrock landslides in ``erode_fluvial`` (``landslide_return_time``, ``landslide_slope``, ``landslide_height``;
Campforts et al. 2020's HyLands criterion): a slide cuts the ground above its foot down to a plane between the
friction slope and the steepest slope above it, only slopes steeper than the friction fail, the draws are the
seed's, and the option is off by default (every golden digest stays)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import noise_core as nc
from noise_core.terrain.fluvial import erode_fluvial

IDLE = {"steps": 1, "dt": 1.0, "uplift": 0.0, "erodibility": 0.0}
"""One step that only routes: every change is a landslide's."""


def cliff(rows: int = 21, columns: int = 25, gradient: float = 0.4) -> np.ndarray:
    """A plane rising from the west edge at ``gradient`` (height per cell)."""
    return np.tile(gradient * np.arange(columns, dtype=np.float64), (rows, 1))


def test_a_slide_cuts_the_ground_down_to_its_plane() -> None:
    """Campforts et al.'s example: a plateau 10 high drained by one edge cell at 0 (the foot), friction 1, every
    draw a slide. The steepest slope up from the foot is 10, so the plane rises at (1 + 10) / 2 = 5.5: the cell
    above the foot is cut to 5.5, the two beside it (√2 away) to 5.5·√2, and nothing further (the plane is above
    the plateau there)."""
    heights = np.full((7, 7), 10.0)
    heights[0, 3] = 0.0
    result = erode_fluvial(heights, landslide_return_time=1e-9, landslide_slope=1.0, landslide_height=1e-9, **IDLE)
    after = result.heights.astype(np.float64)
    np.testing.assert_allclose(after[1, 2:5], [5.5 * math.sqrt(2.0), 5.5, 5.5 * math.sqrt(2.0)], rtol=1e-6)
    changed = np.abs(after - heights) > 1e-3
    assert changed.sum() == 3 and changed[1, 2:5].all()


def test_no_slope_gentler_than_the_friction_fails() -> None:
    heights = cliff(gradient=0.4)
    result = erode_fluvial(heights, landslide_return_time=1e-9, landslide_slope=0.5, landslide_height=1e-6, **IDLE)
    np.testing.assert_array_equal(result.heights, heights.astype(np.float32))
    steeper = erode_fluvial(heights, landslide_return_time=1e-9, landslide_slope=0.3, landslide_height=1e-6, **IDLE)
    assert (steeper.heights < heights - 1e-3).any()


def test_the_draws_follow_the_seed_and_the_return_time() -> None:
    spec = nc.NoiseSpec(kind="perlin", octaves=4, frequency=3.0, seed=11)
    heights = nc.ranges.to_unit(spec, nc.evaluate_grid(spec, (40, 48))) * 60.0
    options = {"steps": 20, "dt": 1000.0, "uplift": 2e-2, "erodibility": 2e-4, "diffusion": 1e-3,
               "routing": "random", "landslide_slope": 0.6, "landslide_height": 0.5}  # fmt: skip
    none = erode_fluvial(heights, **options)
    rare = erode_fluvial(heights, landslide_return_time=1e6, **options)
    often = erode_fluvial(heights, landslide_return_time=1e4, **options)
    again = erode_fluvial(heights, landslide_return_time=1e4, **options)
    other = erode_fluvial(heights, landslide_return_time=1e4, routing_seed=3, **options)
    np.testing.assert_array_equal(often.heights, again.heights)  # the seed's draws: the same bits
    assert not np.array_equal(often.heights, other.heights)
    relief = [float(np.ptp(result.heights)) for result in (none, rare, often)]
    assert relief[0] > relief[1] > relief[2]  # more slides, less relief
    assert often.eroded > none.eroded


def test_landslides_need_open_or_closed_edges() -> None:
    heights = cliff()
    with pytest.raises(ValueError, match="landslide_return_time: needs boundary 'edges' or 'closed'"):
        erode_fluvial(heights, landslide_return_time=1e3, boundary="looped", **IDLE)
    with pytest.raises(ValueError, match="landslide_slope: must be"):
        erode_fluvial(heights, landslide_return_time=1e3, landslide_slope=0.0, **IDLE)
    with pytest.raises(ValueError, match="landslide_height: must be"):
        erode_fluvial(heights, landslide_return_time=1e3, landslide_height=0.0, **IDLE)
    with pytest.raises(ValueError, match="landslide_return_time: must be"):
        erode_fluvial(heights, landslide_return_time=-1.0, **IDLE)
