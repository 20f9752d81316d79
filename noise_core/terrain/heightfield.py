"""Heightmaps as erosion, flow routing and the terrain maps take them: the one check of a heights array, the
distance between its cells (``CELL_SIZE``) and the 8-neighbourhood the D8 and MFD routings and the droplets'
settling walk."""

from __future__ import annotations

import numpy as np

from .._jit import jit
from ..schema import Option

CELL_SIZE = Option("cell_size", float, 1.0, "Distance between cells, in the heights' unit", minimum=0.0,
                   above=True, maximum=1e30)  # fmt: skip
"""The grid spacing every eroder and terrain map takes (the command line's ``--cell-size``, the add-on's)."""

MAX_CELLS = 1 << 28
"""Largest heightmap, in cells (16384 x 16384): cell indices fit int32 and the routing arrays stay in memory."""

NEIGHBOURS = np.array([(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)], dtype=np.int64)
"""``(dy, dx)`` of the 8 neighbours; neighbour ``k`` and ``7 - k`` are opposite."""


def check_heights(heights: object) -> np.ndarray:
    if not isinstance(heights, np.ndarray):
        raise TypeError(f"heights: expected a 2-D numpy array, got {type(heights).__name__}")
    if heights.dtype.kind not in "fiu" or heights.dtype == np.bool_:
        raise TypeError(f"heights: dtype must be a real number type, got {heights.dtype}")
    if heights.ndim != 2 or min(heights.shape) < 3:
        raise ValueError(f"heights: must be a 2-D array of at least 3x3 cells, got shape {heights.shape}")
    if heights.size > MAX_CELLS:
        raise ValueError(f"heights: {heights.shape[0]}x{heights.shape[1]} exceeds the limit of {MAX_CELLS} cells")
    if not np.isfinite(heights).all():
        raise ValueError("heights: must be finite (no NaN or infinity)")
    return heights


def check_mask(name: str, value: object, shape: tuple[int, int]) -> np.ndarray:
    """``value``, a boolean map of the heights' ``shape`` (outlets, headwaters, ...); ``TypeError``/``ValueError``
    naming ``name``."""
    if not isinstance(value, np.ndarray) or value.dtype != np.bool_:
        found = f"dtype {value.dtype}" if isinstance(value, np.ndarray) else type(value).__name__
        raise TypeError(f"{name}: expected a boolean numpy array of shape {shape}, got {found}")
    if value.shape != shape:
        raise ValueError(f"{name}: must have the heights' shape {shape}, got {value.shape}")
    return value


@jit
def wrapped_rows(row, rows, columns):
    """The first cells of ``row`` and of the rows above and below it (row-major, wrapping around the map)."""
    return row * columns, (row - 1 if row > 0 else rows - 1) * columns, (row + 1 if row < rows - 1 else 0) * columns


@jit
def wrapped_columns(column, columns):
    """The columns left and right of ``column`` (wrapping around the map)."""
    return column - 1 if column > 0 else columns - 1, column + 1 if column < columns - 1 else 0


@jit
def on_edge(row, column, rows, columns, looped):
    """Whether the cell is on the border of a map that does not loop (its outlets)."""
    return not looped and (row == 0 or row == rows - 1 or column == 0 or column == columns - 1)
