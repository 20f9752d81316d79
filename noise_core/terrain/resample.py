"""Bilinear resampling of regular grids, corner to corner (heightmap import and export, erosion on a coarser grid)."""

from __future__ import annotations

import numpy as np

from .._jit import jit


def bilinear_axis(count: int, source: int) -> tuple[np.ndarray, np.ndarray]:
    """Along one axis of ``resample_bilinear``: for each of ``count`` samples the lower of the two source cells
    it lies between (int64) and its fraction of the way to the next (float64)."""
    position = np.arange(count) * ((source - 1) / (count - 1))
    low = np.minimum(position.astype(np.int64), source - 2)
    return low, position - low


def resample_bilinear(heights: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """(H, W) float64 samples of the (h, w) grid ``heights`` by bilinear interpolation, corner to corner: sample
    ``(r, c)`` reads ``heights`` at ``(r (h - 1) / (H - 1), c (w - 1) / (W - 1))``, so the four corners keep
    their values and a grid resampled to its own shape is unchanged."""
    grid = np.asarray(heights, dtype=np.float64)
    rows, cols = shape
    if grid.ndim != 2 or min(grid.shape) < 2 or rows < 2 or cols < 2:
        raise ValueError(f"shape: resampling needs grids of at least 2 x 2, got {grid.shape} -> {shape}")
    top, fy = bilinear_axis(rows, grid.shape[0])
    left, fx = bilinear_axis(cols, grid.shape[1])
    bottom, right = top + 1, left + 1
    fx, fy = fx[None, :], fy[:, None]
    upper = grid[top][:, left] * (1 - fx) + grid[top][:, right] * fx
    lower = grid[bottom][:, left] * (1 - fx) + grid[bottom][:, right] * fx
    return upper * (1 - fy) + lower * fy


@jit
def bilinear_at(z, x, y):
    """The bilinear value of the grid ``z`` at column ``x``, row ``y`` inside it (``0 <= x <= columns - 1``,
    likewise ``y``): the kernels' point sampler."""
    rows, columns = z.shape
    ix, iy = min(int(x), columns - 2), min(int(y), rows - 2)
    u, v = x - ix, y - iy
    return (z[iy, ix] * (1 - u) + z[iy, ix + 1] * u) * (1 - v) + (z[iy + 1, ix] * (1 - u) + z[iy + 1, ix + 1] * u) * v
