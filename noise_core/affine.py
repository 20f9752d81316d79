"""The noise-space transform ``evaluate(..., transform=A)`` applies inside the kernel: an affine map.

``A`` is a (d, k + 1) float64 matrix for (N, k) points and d-dimensional noise; point ``p`` is read at

    q[j] = ((A[j, 0] * p[0] + A[j, 1] * p[1]) + ... + A[j, k - 1] * p[k - 1]) + A[j, k]

in float64 (float32 points converted exactly), each product and each sum rounded once, left to right, with no
fused multiply-add: ``affine_points`` computes the same in numpy passes, bit for bit. A row ``(0, .., 0, w)``
is a constant coordinate (the W of 4D noise), a row with a single non-zero an axis of the points (a plane's
two axes, an axis of 1D noise), and ``A = [R @ diag(s) | t]`` Blender's Mapping node of type Point
(``t + R @ (s * p)``; without rotation, ``s * p + t`` exactly, as every other product is zero).

The point launcher (``fractal_kernel_affine``, one per ``(d, k)`` and point type) applies it as it copies
each block's points into the block's float64 columns, so the transformed (N, d) points are never made: the
kernel reads the caller's (N, k) rows (a mesh's float32 positions as they are) and counts the transformed
coordinates beyond the lattice limit as ``fractal_kernel`` counts its own.
"""

from __future__ import annotations

import numpy as np

from ._jit import exact, jit, named, range_kernel, scratch
from .blocks import BLOCK
from .fractal import _call_block, block_address, kernel_arguments, kernel_for
from .fractal_modes import MODE_CODES
from .runtime import launch_blocks
from .threads import on_threads


def check_transform(transform: object, width: int) -> np.ndarray:
    """``transform`` as a C-contiguous (d, ``width`` + 1) float64 array of finite numbers, d from 1 to 4;
    ``TypeError``/``ValueError`` naming ``transform`` otherwise."""
    if isinstance(transform, (str, bytes)):
        raise TypeError(f"transform: expected a (d, k + 1) array of numbers, got {type(transform).__name__}")
    try:
        matrix = np.array(transform, dtype=np.float64, order="C")
    except (TypeError, ValueError):
        raise TypeError(f"transform: expected a (d, k + 1) array of numbers, got {type(transform).__name__}") from None
    if matrix.ndim != 2 or not 1 <= matrix.shape[0] <= 4 or matrix.shape[1] != width + 1:
        raise ValueError(
            f"transform: shape must be (d, {width + 1}) with d in 1, 2, 3, 4 for points of {width} columns; "
            f"got {matrix.shape}"
        )
    if not np.isfinite(matrix).all():
        raise ValueError("transform: entries must be finite (no NaN or infinity)")
    return matrix


def affine_points(points: np.ndarray, transform: np.ndarray) -> np.ndarray:
    """(N, d) float64 ``q = A[:, :k] @ p + A[:, k]`` for (N, k) ``points``, in the order and precision the
    kernel computes it (module docstring)."""
    matrix = check_transform(transform, points.shape[1])
    width = points.shape[1]
    columns = [np.asarray(points[:, i], dtype=np.float64) for i in range(width)]
    out = np.empty((points.shape[0], matrix.shape[0]), dtype=np.float64)
    for j, row in enumerate(matrix):
        total = row[0] * columns[0]
        for i in range(1, width):
            total = total + row[i] * columns[i]
        out[:, j] = total + row[width]
    return out


@exact
def _coordinate(rows, first, width, matrix, axis):
    """``q[axis]`` of the point whose ``width`` coordinates start at ``rows[first]`` (module docstring): no
    fast-math flags, so the sums stay in order and no product is fused with them, wherever this is inlined."""
    total = matrix[axis, 0] * np.float64(rows[first])
    for i in range(1, width):
        total = total + matrix[axis, i] * np.float64(rows[first + i])
    return total + matrix[axis, width]


@jit
def read_block_affine(rows, width, dim, matrix, limit, local):
    """``read_block`` of the transformed points: the block's (n, ``width``) rows, flattened, mapped by ``matrix``
    into the float64 columns ``local[axis]``; returns how many transformed coordinates are not below ``limit``
    in magnitude (NaN counts as outside)."""
    block_outside = 0
    for i in range(local.shape[1]):
        for axis in range(dim):
            coordinate = _coordinate(rows, i * width, width, matrix, axis)
            local[axis, i] = coordinate
            block_outside += 0 if abs(coordinate) < limit else 1
    return block_outside


def _build_launcher(dim, width):
    """``fractal.fractal_kernel`` for (N, ``width``) points mapped by a (``dim``, ``width`` + 1) matrix into
    ``dim``-dimensional noise space as each block is read."""

    def fractal_kernel_affine(first, last, points, out, outside, limit, block_address, seed, frequency,
                              octaves, lacunarity, persistence, turbulence, offset, gain, params, low, high,
                              matrix):  # fmt: skip
        if first < 0:  # the launch, as ``fractal_kernel``'s
            on_threads(last)
            return
        n = out.shape[0]
        for block in range(first, last):
            start = block * BLOCK
            stop = min(start + BLOCK, n)
            local = scratch((dim, BLOCK), (dim, stop - start), np.float64)
            outside[block] = read_block_affine(points[start:stop].ravel(), width, dim, matrix, limit, local)
            _call_block(block_address, local, out[start:stop], seed, frequency, octaves, lacunarity, persistence,
                        turbulence, offset, gain, params, low, high)  # fmt: skip

    return range_kernel(named(fractal_kernel_affine, f"fractal_kernel_affine_{dim}d_from_{width}"))


_LAUNCHERS: dict = {}


def launcher_for(dim: int, width: int):
    """The launcher of ``dim``-dimensional noise on points of ``width`` columns, built on first use."""
    key = (int(dim), int(width))
    found = _LAUNCHERS.get(key)
    if found is None:
        found = _LAUNCHERS[key] = _build_launcher(*key)
    return found


def affine_arguments(points, out, outside, address, spec, params, limit, bounds, matrix) -> tuple:
    """The affine launcher's arguments, in order: ``fractal.kernel_arguments``, then ``matrix``."""
    return (*kernel_arguments(points, out, outside, address, spec, params, limit, bounds), matrix)


def affine_fractal_sum(points, matrix, out, family, variant, spec, params, limit, bounds) -> int:
    """``fractal.fractal_sum`` of ``spec`` at ``affine_points(points, matrix)``, without making those points:
    fills ``out`` and returns how many transformed coordinates are not below ``limit`` in magnitude.
    ``points`` is a C-contiguous (N, k) float32 or float64 array, ``matrix`` a checked (d, k + 1) one."""
    dim = matrix.shape[0]
    blocks = (out.shape[0] + BLOCK - 1) // BLOCK
    outside = np.zeros(blocks, dtype=np.int64)
    address = block_address(kernel_for(family, dim, variant, spec.tiling, MODE_CODES[spec.fractal]))
    arguments = affine_arguments(points, out, outside, address, spec, params, limit, bounds, matrix)
    launch_blocks(launcher_for(dim, points.shape[1]), blocks, arguments)
    return int(outside.sum())
