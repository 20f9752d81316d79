"""White noise: one SmallXXHash value per lattice cell, against a plain-Python port; tiling, octaves, range."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import noise_core as nc

from . import reference


def white_reference(seed: int, point: tuple[float, ...], frequency: float, period: int = 0) -> float:
    """The cell ``floor(c * frequency)`` per axis (modulo ``period`` when tiling), hashed x first, top 24 bits."""
    cells = [math.floor(c * frequency) for c in point]
    if period:
        cells = [cell % period for cell in cells]
    return (reference.hash_of(seed, *cells) >> 8) / 2**24


@pytest.mark.parametrize("dim", (1, 2, 3, 4))
@pytest.mark.parametrize("tiling", (False, True))
def test_matches_plain_python(dim: int, tiling: bool) -> None:
    points = np.random.default_rng(dim).uniform(-5.0, 5.0, size=(64, dim))
    spec = nc.NoiseSpec(kind="white", seed=-12, frequency=3.0, tiling=tiling)
    expected = [white_reference(-12, tuple(p), 3.0, 3 if tiling else 0) for p in points]
    np.testing.assert_array_equal(nc.evaluate(spec, points), np.float32(expected))


def test_octaves_average_the_cells_of_each_frequency() -> None:
    points = np.random.default_rng(5).uniform(-2.0, 2.0, size=(32, 2))
    spec = nc.NoiseSpec(kind="white", seed=4, frequency=2.0, octaves=3, lacunarity=3.0, persistence=0.5)
    expected = [sum(0.5**o * white_reference(4 + o, tuple(p), 2.0 * 3.0**o) for o in range(3)) / 1.75 for p in points]
    np.testing.assert_allclose(nc.evaluate(spec, points), expected, rtol=0, atol=1e-6)


def test_constant_in_a_cell_and_seamless_when_tiled() -> None:
    spec = nc.NoiseSpec(kind="white", frequency=4.0, tiling=True)
    grid = nc.evaluate_grid(spec, (16, 16))
    np.testing.assert_array_equal(grid[::4, ::4], grid[3::4, 3::4])  # every 4x4 pixel block is one cell
    shifted = nc.evaluate(spec, np.array([[0.1, 0.3], [1.1, -0.7]]))
    assert shifted[0] == shifted[1]  # period 1 along both axes
    assert len(np.unique(grid)) == 16


@settings(max_examples=30, deadline=None)
@given(st.integers(-(2**31), 2**31 - 1), st.floats(-1e4, 1e4), st.floats(-1e4, 1e4))
def test_values_lie_in_the_documented_range(seed: int, x: float, y: float) -> None:
    spec = nc.NoiseSpec(kind="white", seed=seed, frequency=1.5)
    value = nc.evaluate(spec, np.array([[x, y]]))[0]
    assert nc.value_range(spec) == (0.0, 1.0)
    assert 0.0 <= value < 1.0
    assert value == np.float32(white_reference(seed, (x, y), 1.5))


def test_values_are_uniform() -> None:
    grid = nc.evaluate_grid(nc.NoiseSpec(kind="white", frequency=128.0), (128, 128))
    counts = np.histogram(grid, bins=8, range=(0.0, 1.0))[0]
    assert abs(grid.mean() - 0.5) < 0.01
    assert counts.min() > 0.9 * grid.size / 8
