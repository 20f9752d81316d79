"""The separable grid path (``noise_core.grid_kernels``): the same bits as the point path on every grid."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import noise_core as nc
from noise_core.api import grid_coordinates
from noise_core.grid_kernels import grid_sum
from noise_core.ranges import float32_range
from noise_core.registry import KINDS

SHAPES = ((1, 7), (33, 65), (64, 64), (5, 1))
WINDOWS = (((100, 300), (17, 33, 40, 29)), ((65, 33), (0, 0, 1, 33)), ((1, 7), (0, 3, 1, 4)))


def point_path(spec: nc.NoiseSpec, shape: tuple[int, int], window=None) -> np.ndarray:
    """The noise of ``spec`` at the grid's pixel centres through the generic point kernel."""
    rows, cols = shape if window is None else window[2:]
    return nc.evaluate(spec, np.column_stack(grid_coordinates(shape, window))).reshape(rows, cols)


def grid_kernel_path(spec: nc.NoiseSpec, shape: tuple[int, int], window=None) -> np.ndarray:
    """The same grid through ``grid_kernels.grid_sum``, with the coordinates ``grid_coordinates`` uses."""
    height, width = shape
    row0, col0, rows, cols = (0, 0, height, width) if window is None else window
    xs = (np.arange(col0, col0 + cols, dtype=np.float64) + 0.5) / width
    ys = (np.arange(row0, row0 + rows, dtype=np.float64) + 0.5) / height
    out = np.empty((rows, cols), dtype=np.float32)
    grid_sum(xs, ys, out, KINDS[spec.kind].variant_of(spec), spec, float32_range(spec))
    return out


def assert_same_bits(expected: np.ndarray, actual: np.ndarray) -> None:
    assert expected.dtype == actual.dtype == np.float32
    np.testing.assert_array_equal(expected.view(np.uint32), actual.view(np.uint32))


# (octaves, lacunarity, persistence, frequency, seed): whole numbers (tileable) and fractional ones (untiled)
WHOLE = ((1, 2.0, 0.5, 4.0, 0), (3, 3.0, 0.8, 1.0, -5), (6, 2.0, 0.35, 37.0, 2**31 - 1), (16, 2.0, 0.5, 1.0, 7))
FRACTIONAL = ((1, 2.0, 0.5, 4.7, 11), (5, 2.17, 0.61, 0.93, -(2**31)), (4, 0.5, 1.7, 1234.5, 3))


@pytest.mark.parametrize("kind", ["value", "perlin"])
@pytest.mark.parametrize("tiling", [False, True])
@pytest.mark.parametrize("turbulence", [False, True])
def test_grid_kernel_matches_the_point_path_bit_for_bit(kind: str, tiling: bool, turbulence: bool) -> None:
    cases = WHOLE if tiling else WHOLE + FRACTIONAL
    for (octaves, lacunarity, persistence, frequency, seed), shape in itertools.product(cases, SHAPES):
        spec = nc.NoiseSpec(
            kind=kind,
            tiling=tiling,
            turbulence=turbulence,
            octaves=octaves,
            lacunarity=lacunarity,
            persistence=persistence,
            frequency=frequency,
            seed=seed,
        )
        assert_same_bits(point_path(spec, shape), grid_kernel_path(spec, shape))


@pytest.mark.parametrize("kind", ["value", "perlin"])
@pytest.mark.parametrize("tiling", [False, True])
def test_grid_kernel_windows_match_the_point_path(kind: str, tiling: bool) -> None:
    spec = nc.NoiseSpec(kind=kind, tiling=tiling, octaves=4, frequency=3.0, seed=9)
    for shape, window in WINDOWS:
        assert_same_bits(point_path(spec, shape, window), grid_kernel_path(spec, shape, window))
