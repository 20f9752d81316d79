"""The noise-space transform ``evaluate(..., transform=A)`` applies inside the kernel: an affine map.

``A`` is a (d, k + 1) float64 matrix for (N, k) points and d-dimensional noise; point ``p`` is read at

    q[j] = ((A[j, 0] * p[0] + A[j, 1] * p[1]) + ... + A[j, k - 1] * p[k - 1]) + A[j, k]

in float64 (float32 points converted exactly), each product and each sum rounded once, left to right, with no
fused multiply-add: ``affine_points`` computes the same in numpy passes, bit for bit. A row ``(0, .., 0, w)``
is a constant coordinate (the W of 4D noise), a row with a single non-zero an axis of the points (a plane's
two axes, an axis of 1D noise), and ``A = [R @ diag(s) | t]`` Blender's Mapping node of type Point
(``t + R @ (s * p)``; without rotation, ``s * p + t`` exactly, as every other product is zero).

The point launcher (``fractal.launcher_for(d, width=k)``, one per ``(d, k)`` and point type) applies it as it
copies each block's points into the block's float64 columns (``blocks.read_block_affine``), so the transformed
(N, d) points are never made: the kernel reads the caller's (N, k) rows (a mesh's float32 positions as they are)
and counts the transformed coordinates beyond the lattice limit as it counts untransformed ones.
"""

from __future__ import annotations

import numpy as np


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
