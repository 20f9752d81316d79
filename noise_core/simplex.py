"""Simplex noise in 1D to 4D: radial kernels summed over a simplex lattice (seed 001; 4D extends it).

Each corner of the simplex holding the sample contributes
``falloff(offset) * gradient(hash, offset)``; the contributions are summed, not
interpolated. The gradient code is ``gradients.VALUE`` (``"simplex_value"``, seed 001
section 1) or ``gradients.SIMPLEX`` (``"simplex"``: line / circle / sphere with the
seed's normalisation factors, section 2). A corner's hash is SmallXXHash(seed)
eating its lattice coordinates in order (x, then y, then z), as for lattice noise.

* 1D (section 1.3): corners ``x0 = floor(x)`` and ``x0 + 1``, falloff ``(1 - x^2)^3``.
* 2D (sections 1.5-1.7): coordinates scaled by ``frequency / sqrt(3)``, skewed by
  ``(x + y) (sqrt(3) - 1) / 2`` to find the square cell, which the diagonal splits into
  two triangles (the seed's ``xGz`` test picks the third corner); each corner is
  un-skewed by ``(i + j) (3 - sqrt(3)) / 6`` and weighted ``8 max(0, 1/2 - r^2)^3``.
  The seed works in its XZ plane; here the plane is (x, y).
* 3D (sections 1.8-1.9): coordinates scaled by ``frequency * 0.6``, skew ``1/3``,
  un-skew ``1/6``, the four corners of the tetrahedron chosen by the seed's three
  comparisons (``xGy``, ``xGz``, ``yGz``), same falloff as 2D.
* 4D (not in the seeds; Gustavson's construction): skew ``(sqrt(5) - 1) / 4``, un-skew ``(5 - sqrt(5)) / 20``;
  the five corners of the simplex follow the ranks of the four fractions (the largest axis steps first);
  coordinates scaled by ``frequency * sqrt(0.4)``, so the shortest edge is ``sqrt(2)`` as in 2D. The same
  falloff ``8 max(0, 1/2 - r^2)^3`` is exact here too: 1/2 is the squared distance from a corner to the
  opposite face, so a corner's kernel is zero outside the simplices around it (``docs/sources.md``).

The simplex lattice does not align with squares or cubes, so, as the seed explains
in section 1.1, simplex noise does not tile (``NoiseSpec`` rejects ``tiling=True``).
"""

from __future__ import annotations

import numpy as np

from ._jit import jit
from .gradients import SIMPLEX, VALUE, evaluate_1d, evaluate_2d, evaluate_3d, evaluate_4d
from .hashing import avalanche, eat, hash_seed
from .schema import FAMILY_SIMPLEX, Kind, signed_unit_range

KINDS = (
    Kind(
        "simplex_value",
        FAMILY_SIMPLEX,
        VALUE,
        (1, 2, 3, 4),
        (),
        False,
        "Simplex value noise: random values at simplex-lattice points, radial kernels summed (range -1..1).",
        signed_unit_range,
    ),
    Kind(
        "simplex",
        FAMILY_SIMPLEX,
        SIMPLEX,
        (1, 2, 3, 4),
        (),
        False,
        "Simplex gradient noise: circle/sphere gradients with radial kernels on a simplex lattice (range -1..1).",
        signed_unit_range,
    ),
)
"""The simplex kinds (they cannot tile: the simplex lattice does not line up with the unit square)."""

SCALE_2D = 1.0 / np.sqrt(3.0)
SKEW_2D = (np.sqrt(3.0) - 1.0) / 2.0
UNSKEW_2D = (3.0 - np.sqrt(3.0)) / 6.0
SCALE_3D = 0.6
SKEW_3D = 1.0 / 3.0
UNSKEW_3D = 1.0 / 6.0
SCALE_4D = np.sqrt(0.4)
SKEW_4D = (np.sqrt(5.0) - 1.0) / 4.0
UNSKEW_4D = (5.0 - np.sqrt(5.0)) / 20.0


@jit
def _kernel_1d(gradient, accumulator, corner, x):
    """``Simplex1D.Kernel``: ``(1 - d^2)^3 * gradient`` for the corner at lattice point ``corner``."""
    offset = x - corner
    falloff = 1.0 - offset * offset
    return falloff * falloff * falloff * evaluate_1d(gradient, avalanche(accumulator), offset)


@jit
def _kernel_2d(gradient, accumulator, i, j, x, y):
    """``Simplex2D.Kernel``: the corner ``(i, j)`` un-skewed, ``8 max(0, 1/2 - r^2)^3 * gradient``."""
    unskew = (i + j) * UNSKEW_2D
    dx = x - i + unskew
    dy = y - j + unskew
    falloff = 0.5 - dx * dx - dy * dy
    falloff = max(falloff * falloff * falloff * 8.0, 0.0)
    return falloff * evaluate_2d(gradient, avalanche(accumulator), dx, dy)


@jit
def _kernel_3d(gradient, accumulator, i, j, k, x, y, z):
    """``Simplex3D.Kernel``: the corner ``(i, j, k)`` un-skewed, ``8 max(0, 1/2 - r^2)^3 * gradient``."""
    unskew = (i + j + k) * UNSKEW_3D
    dx = x - i + unskew
    dy = y - j + unskew
    dz = z - k + unskew
    falloff = 0.5 - dx * dx - dy * dy - dz * dz
    falloff = max(falloff * falloff * falloff * 8.0, 0.0)
    return falloff * evaluate_3d(gradient, avalanche(accumulator), dx, dy, dz)


@jit
def _kernel_4d(gradient, corner, x, y, z, w):
    """The 4D kernel of ``corner = (accumulator, i, j, k, m)``: ``8 max(0, 1/2 - r^2)^3 * gradient`` at the offset
    from the un-skewed corner."""
    accumulator, dx, dy, dz, dw = corner_offset_4d(corner, x, y, z, w)
    falloff = 0.5 - dx * dx - dy * dy - dz * dz - dw * dw
    falloff = max(falloff * falloff * falloff * 8.0, 0.0)
    return falloff * evaluate_4d(gradient, avalanche(accumulator), dx, dy, dz, dw)


@jit
def simplex_1d(gradient, x, seed, frequency):
    """1D simplex noise: the two kernels of the line segment holding ``x * frequency``."""
    h = hash_seed(seed)
    x = x * frequency
    x0 = np.floor(x)
    x1 = x0 + 1.0
    return _kernel_1d(gradient, eat(h, np.int64(x0)), x0, x) + _kernel_1d(gradient, eat(h, np.int64(x1)), x1, x)


@jit
def triangle(h, x, y):
    """The three corners ``(i, j, accumulator)`` of the triangle holding the skewed ``(x, y)``: the cell's
    origin, its far corner and the third corner the seed's ``xGz`` test picks; ``accumulator`` is the hash
    ``h`` has eaten the corner's ``i`` and ``j`` (not yet avalanched)."""
    skew = (x + y) * SKEW_2D
    sx = x + skew
    sy = y + skew
    x0 = np.floor(sx)
    y0 = np.floor(sy)
    x1 = x0 + 1.0
    y1 = y0 + 1.0
    x_greater = sx - x0 > sy - y0
    xc = x1 if x_greater else x0
    yc = y0 if x_greater else y1
    h0 = eat(h, np.int64(x0))
    h1 = eat(h, np.int64(x1))
    hc = h1 if x_greater else h0
    return (
        (x0, y0, eat(h0, np.int64(y0))),
        (x1, y1, eat(h1, np.int64(y1))),
        (xc, yc, eat(hc, np.int64(yc))),
    )


@jit
def simplex_2d(gradient, x, y, seed, frequency):
    """2D simplex noise: the three kernels of the triangle holding the (scaled) sample."""
    x = x * (frequency * SCALE_2D)
    y = y * (frequency * SCALE_2D)
    a, b, c = triangle(hash_seed(seed), x, y)
    return (
        _kernel_2d(gradient, a[2], a[0], a[1], x, y)
        + _kernel_2d(gradient, b[2], b[0], b[1], x, y)
        + _kernel_2d(gradient, c[2], c[0], c[1], x, y)
    )


@jit
def tetrahedron(h, x, y, z):
    """The four corners ``(i, j, k, accumulator)`` of the tetrahedron holding the skewed ``(x, y, z)``,
    chosen by the seed's three comparisons (``xGy``, ``xGz``, ``yGz``); ``accumulator`` as in ``triangle``."""
    skew = (x + y + z) * SKEW_3D
    sx = x + skew
    sy = y + skew
    sz = z + skew
    x0 = np.floor(sx)
    y0 = np.floor(sy)
    z0 = np.floor(sz)
    x1 = x0 + 1.0
    y1 = y0 + 1.0
    z1 = z0 + 1.0
    x_gt_y = sx - x0 > sy - y0
    x_gt_z = sx - x0 > sz - z0
    y_gt_z = sy - y0 > sz - z0
    x_gt_z_and_y_gt_z = x_gt_z & y_gt_z
    xa = x_gt_y & x_gt_z
    xb = x_gt_y | x_gt_z_and_y_gt_z
    ya = (not x_gt_y) & y_gt_z
    yb = (not x_gt_y) | x_gt_z_and_y_gt_z
    za = (x_gt_y & (not x_gt_z)) | ((not x_gt_y) & (not y_gt_z))
    zb = not x_gt_z_and_y_gt_z
    xca = x1 if xa else x0
    xcb = x1 if xb else x0
    yca = y1 if ya else y0
    ycb = y1 if yb else y0
    zca = z1 if za else z0
    zcb = z1 if zb else z0
    h0 = eat(h, np.int64(x0))
    h1 = eat(h, np.int64(x1))
    ha = h1 if xa else h0
    hb = h1 if xb else h0
    return (
        (x0, y0, z0, eat(eat(h0, np.int64(y0)), np.int64(z0))),
        (x1, y1, z1, eat(eat(h1, np.int64(y1)), np.int64(z1))),
        (xca, yca, zca, eat(eat(ha, np.int64(yca)), np.int64(zca))),
        (xcb, ycb, zcb, eat(eat(hb, np.int64(ycb)), np.int64(zcb))),
    )


@jit
def simplex_3d(gradient, x, y, z, seed, frequency):
    """3D simplex noise: the four kernels of the tetrahedron holding the (scaled) sample."""
    x = x * (frequency * SCALE_3D)
    y = y * (frequency * SCALE_3D)
    z = z * (frequency * SCALE_3D)
    a, b, c, d = tetrahedron(hash_seed(seed), x, y, z)
    return (
        _kernel_3d(gradient, a[3], a[0], a[1], a[2], x, y, z)
        + _kernel_3d(gradient, b[3], b[0], b[1], b[2], x, y, z)
        + _kernel_3d(gradient, c[3], c[0], c[1], c[2], x, y, z)
        + _kernel_3d(gradient, d[3], d[0], d[1], d[2], x, y, z)
    )


@jit
def _corner_4d(h, x0, y0, z0, w0, step_x, step_y, step_z, step_w, x, y, z, w, gradient):
    """The kernel of the corner ``(x0, y0, z0, w0)`` plus the 0/1 steps, hashed x, y, z, w in order."""
    i = x0 + step_x
    j = y0 + step_y
    k = z0 + step_z
    m = w0 + step_w
    accumulator = eat(eat(eat(eat(h, np.int64(i)), np.int64(j)), np.int64(k)), np.int64(m))
    return _kernel_4d(gradient, accumulator, i, j, k, m, x, y, z, w)


@jit
def corner_offset_4d(corner, x, y, z, w):
    """``(accumulator, dx, dy, dz, dw)`` of ``corner = (h, i, j, k, m)``: ``h`` having eaten ``i, j, k, m`` (not yet
    avalanched) and the offset of the (scaled) sample from the un-skewed corner."""
    h, i, j, k, m = corner
    unskew = (i + j + k + m) * UNSKEW_4D
    accumulator = eat(eat(eat(eat(h, np.int64(i)), np.int64(j)), np.int64(k)), np.int64(m))
    return accumulator, x - i + unskew, y - j + unskew, z - k + unskew, w - m + unskew


@jit
def pentachoron(h, x, y, z, w):
    """The five corners ``(h, i, j, k, m)`` of the simplex holding the (scaled) ``(x, y, z, w)``: from the skewed
    cell's origin, one step along each axis in decreasing order of the axes' fractions in the cell (a tie: the
    later axis first), the rank of each axis being how many of the other three fractions it exceeds."""
    skew = (x + y + z + w) * SKEW_4D
    x0 = np.floor(x + skew)
    y0 = np.floor(y + skew)
    z0 = np.floor(z + skew)
    w0 = np.floor(w + skew)
    fx = x + skew - x0
    fy = y + skew - y0
    fz = z + skew - z0
    fw = w + skew - w0
    rank_x = (fx > fy) + (fx > fz) + (fx > fw)
    rank_y = (fy >= fx) + (fy > fz) + (fy > fw)
    rank_z = (fz >= fx) + (fz >= fy) + (fz > fw)
    rank_w = (fw >= fx) + (fw >= fy) + (fw >= fz)
    return (
        (h, x0, y0, z0, w0),
        (h, x0 + (rank_x >= 3), y0 + (rank_y >= 3), z0 + (rank_z >= 3), w0 + (rank_w >= 3)),
        (h, x0 + (rank_x >= 2), y0 + (rank_y >= 2), z0 + (rank_z >= 2), w0 + (rank_w >= 2)),
        (h, x0 + (rank_x >= 1), y0 + (rank_y >= 1), z0 + (rank_z >= 1), w0 + (rank_w >= 1)),
        (h, x0 + 1.0, y0 + 1.0, z0 + 1.0, w0 + 1.0),
    )


@jit
def simplex_4d(gradient, x, y, z, w, seed, frequency):
    """4D simplex noise: the five kernels of the simplex holding the (scaled) sample (``pentachoron``)."""
    scale = frequency * SCALE_4D
    x = x * scale
    y = y * scale
    z = z * scale
    w = w * scale
    a, b, c, d, e = pentachoron(hash_seed(seed), x, y, z, w)
    return (
        _kernel_4d(gradient, a, x, y, z, w)
        + _kernel_4d(gradient, b, x, y, z, w)
        + _kernel_4d(gradient, c, x, y, z, w)
        + _kernel_4d(gradient, d, x, y, z, w)
        + _kernel_4d(gradient, e, x, y, z, w)
    )
