"""A Noise Terrain's grid: its vertex positions, quads and UVs, and the edge falloff, as numpy arrays.

The grid is centred, ``size`` wide and deep, row-major from -y (``mesh_io.is_grid`` checks a mesh has this
layout); nothing here touches Blender data, so any thread may build one.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .noise_core.terrain.recipe import edge_factor
from .noise_core.terrain.resample import resample_bilinear

MAX_SUBDIVISIONS = 16384
MAX_VERTICES = 1 << 24
"""Largest terrain (16.7 M vertices, some 2 GB inside Blender): bigger requests are refused."""
MESH_VERTICES = 1025 * 1025
"""The most vertices a Noise Terrain's mesh holds in the viewport: a larger terrain (4033² for a game engine) is
built in full, its mesh gets a grid of every ``step``-th row and column (``mesh_subdivisions``, as the live
preview's), and Export Heightmap builds it at its full size (``heightmap_export``)."""


def thinned(x_subdivisions: int, y_subdivisions: int, vertices: int) -> tuple[int, int, int]:
    """``(step, x, y)``: the grid of every ``step``-th row and column of one of ``x_subdivisions`` x
    ``y_subdivisions`` faces (``ceil(subdivisions / step)`` faces, the same size), ``step`` the smallest power of
    two that leaves at most ``vertices`` vertices (1: the grid itself)."""
    step = 1
    while (-(-x_subdivisions // step) + 1) * (-(-y_subdivisions // step) + 1) > vertices:
        step *= 2
    return step, -(-x_subdivisions // step), -(-y_subdivisions // step)


def mesh_subdivisions(x_subdivisions: int, y_subdivisions: int) -> tuple[int, int]:
    """The subdivisions of the mesh of a terrain of ``x_subdivisions`` x ``y_subdivisions`` faces: its own when
    its grid has at most ``MESH_VERTICES`` vertices, else those of its grid ``thinned`` under ``MESH_VERTICES``."""
    _step, x_kept, y_kept = thinned(x_subdivisions, y_subdivisions, MESH_VERTICES)
    return x_kept, y_kept


def on_mesh_grid(shape: dict, heights: np.ndarray, maps: tuple) -> tuple[dict, np.ndarray, tuple]:
    """``(mesh shape, heights, maps)``: a terrain's ``heights`` and per-vertex ``maps`` (flat, row-major from -y,
    on the grid ``shape``; None entries stay None) on its mesh's grid (``mesh_subdivisions``): unchanged when that
    is ``shape``'s, else resampled bilinearly corner to corner (``terrain.resample``: every ``step``-th vertex
    exactly when ``step`` divides the subdivisions), boolean maps at their nearest vertex."""
    across, down = shape["x_subdivisions"], shape["y_subdivisions"]
    kept = mesh_subdivisions(across, down)
    if kept == (across, down):
        return shape, heights, maps
    full, small = (down + 1, across + 1), (kept[1] + 1, kept[0] + 1)

    def reduced(values: np.ndarray) -> np.ndarray:
        grid_values = np.reshape(values, full)
        if grid_values.dtype == np.bool_:
            rows = np.rint(np.linspace(0, down, small[0])).astype(np.intp)
            columns = np.rint(np.linspace(0, across, small[1])).astype(np.intp)
            return grid_values[rows][:, columns].ravel()
        return resample_bilinear(grid_values.astype(np.float64), small).astype(values.dtype).ravel()

    mesh_shape = {**shape, "x_subdivisions": kept[0], "y_subdivisions": kept[1]}
    return mesh_shape, reduced(heights), tuple(None if values is None else reduced(values) for values in maps)


def grid_positions(
    x_subdivisions: int, y_subdivisions: int, size: float, heights: np.ndarray | float = 0.0, dtype: Any = np.float64
) -> np.ndarray:
    """(N, 3) positions of a centred grid, row-major from -y: x and y evenly from ``-size / 2`` to ``size / 2``
    (computed in float64, stored as ``dtype``), z ``heights`` ((N,) or one value)."""
    columns, rows = x_subdivisions + 1, y_subdivisions + 1
    half = size * 0.5
    lattice = np.empty((rows, columns, 3), dtype=dtype)
    lattice[:, :, 0] = np.linspace(-half, half, columns)
    lattice[:, :, 1] = np.linspace(-half, half, rows)[:, None]
    lattice[:, :, 2] = np.reshape(heights, (rows, columns)) if np.ndim(heights) else heights
    return lattice.reshape(-1, 3)


def grid_quads(x_subdivisions: int, y_subdivisions: int) -> np.ndarray:
    """(F, 4) int32 quads of the grid, row-major from -y: face ``(r, c)`` has the corners ``a, a + 1,
    a + 1 + columns, a + columns`` with ``a = r * columns + c`` (``mesh_io.is_grid`` checks this layout)."""
    columns, rows = x_subdivisions + 1, y_subdivisions + 1
    index = np.arange(rows * columns, dtype=np.int32).reshape(rows, columns)  # Blender's vertex indices are int32
    corners = np.empty((rows - 1, columns - 1, 4), dtype=np.int32)
    corners[:, :, 0], corners[:, :, 1] = index[:-1, :-1], index[:-1, 1:]
    corners[:, :, 2], corners[:, :, 3] = index[1:, 1:], index[1:, :-1]
    return corners.reshape(-1, 4)


def grid(
    x_subdivisions: int, y_subdivisions: int, size: float, heights: np.ndarray | float = 0.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(positions (N, 3) with z = heights, quads (F, 4), uvs (N, 2))`` of a centred grid, row-major from -y
    (``grid_positions``, ``grid_quads``)."""
    positions = grid_positions(x_subdivisions, y_subdivisions, size, heights)
    return positions, grid_quads(x_subdivisions, y_subdivisions), positions[:, :2] / size + 0.5


def edge_falloff(positions: np.ndarray, size: float, mode: str, width: float) -> np.ndarray:
    """(N,) factor in 0..1: 1 inside, easing to 0 at the edges (``mode`` NONE, X, Y or RADIAL)."""
    factor = edge_factor(positions[:, 0], positions[:, 1], size, mode, width)
    return np.ones(positions.shape[0]) if factor is None else factor
