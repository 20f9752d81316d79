"""Points moved by noise values, in one pass: Blender's Displace modifier (its "Strength" and "Midlevel").

Point ``i`` moves by ``amount * direction`` with

    unit = clip((value - low) * scale, 0, 1)          (``ranges.to_unit``: scale = 1 / (high - low))
    amount = ((unit - midlevel) * strength) * weight

in float32, each operation rounded once in this order (no fused multiply-add), and each moved coordinate
``p + amount * d`` likewise: bit for bit the numpy expressions ``to_unit``, ``(unit - midlevel) * strength``,
``amount *= weight``, ``p += amount * d`` one pass each. ``directions`` holds one direction for every point
((N, 3): vertex normals, every axis moved) or one for all ((1, 3): an axis; only its non-zero components are
added, as numpy added them axis by axis). Points and values are read and written in place, block by block on
Numba's threads, and the coordinates that end up NaN or infinite are counted in the same pass.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from ._jit import exact, range_kernel, scratch
from .blocks import BLOCK, block_span
from .fractal import launch_blocks
from .threads import on_threads


@exact
def _amount(value, low, scale, midlevel, strength, weight):
    """``((clip((value - low) * scale, 0, 1) - midlevel) * strength) * weight`` in float32, in order."""
    unit = (value - low) * scale
    unit = min(max(unit, np.float32(0.0)), np.float32(1.0))
    return ((unit - midlevel) * strength) * weight


@exact
def _moved(coordinate, amount, direction):
    """``coordinate + amount * direction``, two float32 roundings."""
    return coordinate + amount * direction


def _displace_blocks(first, last, positions, values, low, scale, midlevel, strength, weights, directions,
                     every_axis, bad):  # fmt: skip
    """Move blocks ``first .. last - 1`` of ``positions`` (module docstring); ``bad[block]``: how many of the
    block's coordinates are NaN or infinite afterwards. Loops without branches over contiguous arrays, which LLVM
    vectorises: the block's amounts first, then the coordinates, then the count."""
    if first < 0:  # the launch: this kernel over blocks 0 .. last - 1 on Numba's threads
        on_threads(last)
        return
    for block in range(first, last):
        start, stop = block_span(block, BLOCK, values.shape[0])
        block_values = values[start:stop]
        m = stop - start
        amounts = scratch(BLOCK, m, np.float32)
        if weights.shape[0] > 1:
            block_weights = weights[start:stop]
            for j in range(m):
                amounts[j] = _amount(block_values[j], low, scale, midlevel, strength, block_weights[j])
        else:
            for j in range(m):
                amounts[j] = _amount(block_values[j], low, scale, midlevel, strength, weights[0])
        moved = positions[start:stop]
        if every_axis:
            along = directions[start:stop]
            for j in range(m):
                moved[j, 0] = _moved(moved[j, 0], amounts[j], along[j, 0])
                moved[j, 1] = _moved(moved[j, 1], amounts[j], along[j, 1])
                moved[j, 2] = _moved(moved[j, 2], amounts[j], along[j, 2])
        else:
            for axis in range(3):
                direction = directions[0, axis]
                if direction != 0:
                    for j in range(m):
                        moved[j, axis] = _moved(moved[j, axis], amounts[j], direction)
        flat = moved.ravel()
        count = 0
        for k in range(flat.shape[0]):
            count += 0 if np.isfinite(flat[k]) else 1
        bad[block] = count


@cache
def _kernel():
    return range_kernel(_displace_blocks)


def displace_points(
    positions: np.ndarray,
    values: np.ndarray,
    value_range: tuple[float, float],
    midlevel: float,
    strength: float,
    weights: np.ndarray,
    directions: np.ndarray,
) -> int:
    """Move ``positions`` ((N, 3) float32, C-contiguous, in place) by the noise ``values`` ((N,) float32) whose
    documented range is ``value_range`` (module docstring); ``weights`` float32 (N,) or (1,), ``directions``
    float32 (N, 3) or (1, 3). Returns how many coordinates are NaN or infinite afterwards."""
    low, high = value_range
    count = values.shape[0]
    if positions.shape != (count, 3) or positions.dtype != np.float32 or not positions.flags.c_contiguous:
        raise ValueError(f"positions: expected a C-contiguous ({count}, 3) float32 array, got {positions.shape}")
    if weights.shape not in ((count,), (1,)) or directions.shape not in ((count, 3), (1, 3)):
        raise ValueError(f"weights, directions: expected ({count},) or (1,), ({count}, 3) or (1, 3) arrays")
    blocks = (count + BLOCK - 1) // BLOCK
    bad = np.zeros(blocks, dtype=np.int64)
    arguments = (
        positions,
        np.ascontiguousarray(values, dtype=np.float32),
        np.float32(low),
        np.float32(1.0 / (high - low)),
        np.float32(midlevel),
        np.float32(strength),
        np.ascontiguousarray(weights, dtype=np.float32),
        np.ascontiguousarray(directions, dtype=np.float32),
        directions.shape[0] > 1,
        bad,
    )
    launch_blocks(_kernel(), blocks, arguments)
    return int(bad.sum())
