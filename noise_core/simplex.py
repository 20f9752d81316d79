"""Simplex noise in 1D to 4D: radial kernels summed over a simplex lattice (seed 001; 4D extends it).

Each corner of the simplex holding the sample contributes
``falloff(offset) * gradient(hash, offset)``; the contributions are summed, not
interpolated. The gradient code is ``gradients.VALUE`` (``"simplex_value"``, seed 001
section 1) or ``gradients.SIMPLEX`` (``"simplex"``: line / circle / sphere with the
seed's normalisation factors, section 2). A corner's hash is SmallXXHash(seed)
eating its lattice coordinates in order (x, then y, then z), as for lattice noise (with ``hash="prime"``, 2D and
3D: FastNoiseLite's hash, ``prime_triangle_hashes``/``prime_tetrahedron_hashes``, in the block passes; then
``"simplex"`` sums FastNoise2's kernels ``max(0, 1/2 - r^2)^4 (g . d)`` with select-made gradients,
``prime_triangle_sum``/``prime_tetrahedron_sum``, and the prime hash runs in the sum's loop).

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

2D and 3D are three pieces, as lattice noise: where the sample lies (``triangle_cell``/``tetrahedron_cell``:
skew, cell and the offset from the cell's origin, in float64 so the noise stays exact far from the origin; with
``hash="prime"``, float32 points in 2D near the origin in float32 as FastNoise2, ``prime_triangle_cell32``),
the corner hashes (``*_hashes``, integers only) and the kernels' sum (``*_sum``), which runs in float32 like the
seed's ``float4`` code: within 6e-7 of float64 arithmetic (docs/benchmarks.md). ``simplex_2d``/``simplex_3d``
chain them per point; ``simplex_block_2d``/``_3d`` run them over a block in three passes, so the hashing is an
integer loop and the sum a float32 loop that LLVM vectorises 16 lanes wide (AVX-512).

The simplex lattice does not align with squares or cubes, so, as the seed explains
in section 1.1, simplex noise does not tile (``NoiseSpec`` rejects ``tiling=True``).
"""

from __future__ import annotations

import numpy as np

from ._jit import exact, fmuladd, inline, jit, named, scratch
from .blocks import BLOCK
from .gradients import (
    SIMPLEX,
    SIMPLEX_2D_SCALE,
    SIMPLEX_3D_SCALE,
    VALUE,
    dot2,
    dot3,
    evaluate_1d,
    evaluate_4d,
    octahedron_vectors32,
    prime_gradient_2d,
    prime_gradient_3d,
    signed_byte32,
    square_vectors32,
)
from .hashing import (
    HASH_OPTION,
    PRIME_X,
    PRIME_Y,
    PRIME_Z,
    avalanche,
    eat,
    eat_scaled,
    hash_seed,
    hashed_variant,
    prime_eat,
    prime_finish,
    prime_scaled,
    prime_seed,
    scaled_words,
)
from .lattice import cell_index
from .schema import FAMILY_SIMPLEX, Kind, signed_unit_range

KINDS = (
    Kind(
        "simplex_value",
        FAMILY_SIMPLEX,
        VALUE,
        (1, 2, 3, 4),
        (HASH_OPTION,),
        False,
        "Simplex value noise: random values at simplex-lattice points, radial kernels summed (range -1..1).",
        signed_unit_range,
        variant=hashed_variant(VALUE),
    ),
    Kind(
        "simplex",
        FAMILY_SIMPLEX,
        SIMPLEX,
        (1, 2, 3, 4),
        (HASH_OPTION,),
        False,
        "Simplex gradient noise: circle/sphere gradients with radial kernels on a simplex lattice (range -1..1).",
        signed_unit_range,
        variant=hashed_variant(SIMPLEX),
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

# float32 constants of the 2D and 3D kernels (typed float32 in the kernels, so no float64 creeps in).
_ZERO = np.float32(0.0)
_HALF = np.float32(0.5)
_ONE = np.float32(1.0)
_EIGHT = np.float32(8.0)
_UNSKEW_2D_32 = np.float32(UNSKEW_2D)
_SKEW_2D_32 = np.float32(SKEW_2D)
_ONE_LESS_UNSKEW_2D = np.float32(1.0 - UNSKEW_2D)
_FAR_2D = np.float32(1.0 - 2.0 * UNSKEW_2D)
_UNSKEW_3D_32 = np.float32(UNSKEW_3D)
_TWO_UNSKEW_3D_32 = np.float32(2.0 * UNSKEW_3D)
# The kernels' factor 8 times the gradients' scale: applied once to the sum (``_falloff``).
_EIGHT_SIMPLEX_2D_SCALE_32 = _EIGHT * np.float32(SIMPLEX_2D_SCALE)
_EIGHT_SIMPLEX_3D_SCALE_32 = _EIGHT * np.float32(SIMPLEX_3D_SCALE)
# ``kind="simplex"`` with ``hash="prime"`` (``prime_triangle_sum``, ``prime_tetrahedron_sum``): FastNoise2's kernel
# ``max(0, 1/2 - r^2)^4`` and select-made gradients, the sums divided by their largest value (docs/sources.md).
PRIME_SIMPLEX_2D_BOUND = 0.0261208079755306243896484375
"""The largest 2D prime-hash simplex sum: FastNoise2's ``kBounding`` of its 2D Simplex (a numerical search over
the triangle finds 0.02612078, docs/sources.md)."""
PRIME_FLOAT32_SPLIT_LIMIT = 4096.0
"""Float32 points of ``hash="prime"`` simplex 2D are split into triangles in float32, as FastNoise2 splits them
(``prime_triangle_cell32``), where every ``|coordinate * frequency / sqrt(3)|`` of the block is below this many
lattice units; else in float64 (``triangle_cell``)."""
PRIME_SIMPLEX_3D_BOUND = 0.01300717
"""The largest 3D prime-hash simplex sum (each corner with its best gradient), found by a numerical search over
the cell (0.013007157, docs/sources.md), rounded up."""
_PRIME_SIMPLEX_2D_SCALE_32 = np.float32(1.0 / PRIME_SIMPLEX_2D_BOUND)
_PRIME_SIMPLEX_3D_SCALE_32 = np.float32(1.0 / PRIME_SIMPLEX_3D_BOUND)


@jit
def _kernel_1d(gradient, accumulator, corner, x):
    """``Simplex1D.Kernel``: ``(1 - d^2)^3 * gradient`` for the corner at lattice point ``corner``."""
    offset = x - corner
    falloff = 1.0 - offset * offset
    return falloff * falloff * falloff * evaluate_1d(gradient, avalanche(accumulator), offset)


@jit
def _kernel_4d(gradient, corner, x, y, z, w):
    """The 4D kernel of ``corner = (accumulator, i, j, k, m)``: ``8 max(0, 1/2 - r^2)^3 * gradient`` at the offset
    from the un-skewed corner."""
    accumulator, dx, dy, dz, dw = corner_offset_4d(corner, x, y, z, w)
    falloff = 0.5 - dx * dx - dy * dy - dz * dz - dw * dw
    falloff = max(falloff * falloff * falloff * 8.0, 0.0)
    return falloff * evaluate_4d(gradient, avalanche(accumulator), dx, dy, dz, dw)


@jit
def segment(x, seed, frequency):
    """``(x * frequency, x0, h0, x1, h1)``: the scaled sample, the ends ``x0 = floor``, ``x1 = x0 + 1`` of the line
    segment holding it and their accumulators (the seed's hash having eaten the end)."""
    h = hash_seed(seed)
    x = x * frequency
    x0 = np.floor(x)
    x1 = x0 + 1.0
    return x, x0, eat(h, np.int64(x0)), x1, eat(h, np.int64(x1))


@jit
def simplex_1d(gradient, x, seed, frequency, period):
    """1D simplex noise: the two kernels of the line segment holding ``x * frequency`` (``segment``); ``period`` is
    unused (it does not tile)"""
    x, x0, h0, x1, h1 = segment(x, seed, frequency)
    return _kernel_1d(gradient, h0, x0, x) + _kernel_1d(gradient, h1, x1, x)


@exact
def _falloff(squared):
    """The radial kernel ``8 max(0, 1/2 - r^2)^3`` in float32, from ``r^2``, without its factor 8: the sums
    multiply by 8 once, which gives the same bits (a power of two scales every rounding exactly)."""
    base = _HALF - squared
    return max(base * base * base, _ZERO)


@exact
def _gradient_2d(gradient, h, dx, dy):
    """The corner's gradient at the float32 offset ``(dx, dy)``: the value ``Floats01A * 2 - 1`` or the seed's
    ``circle`` (the ``square`` vector normalised), before ``SIMPLEX_2D_SCALE``; float32 as in the seed."""
    if gradient == VALUE:
        return signed_byte32(h, 0)
    gx, gy = square_vectors32(h)
    return dot2(gx, gy, dx, dy) / np.sqrt(dot2(gx, gy, gx, gy))


@exact
def _gradient_3d(gradient, h, dx, dy, dz):
    """The corner's gradient at the float32 offset ``(dx, dy, dz)``: the value or the seed's ``sphere`` (the
    ``octahedron`` vector normalised), before ``SIMPLEX_3D_SCALE``."""
    if gradient == VALUE:
        return signed_byte32(h, 0)
    gx, gy, gz = octahedron_vectors32(h)
    return dot3(gx, gy, gz, dx, dy, dz) / np.sqrt(dot3(gx, gy, gz, gx, gy, gz))


@jit
def triangle_cell(x, y):
    """Where the (scaled) ``(x, y)`` lies, in float64 (exact far from the origin): the skewed square cell
    ``(i, j)`` (int64), the seed's ``xGz`` test (the third corner is ``(i + 1, j)`` when true, else
    ``(i, j + 1)``) and the offset of the sample from the cell's un-skewed origin, rounded to float32."""
    skew = (x + y) * SKEW_2D
    sx = x + skew
    sy = y + skew
    x0 = np.floor(sx)
    y0 = np.floor(sy)
    unskew = (x0 + y0) * UNSKEW_2D
    # Through int32 (vectorised on AVX2, unlike lattice.cell_index's reduction): |sx|, |sy| <= sqrt(3) max(|x|, |y|)
    # < 2**31 for the coordinates ``api`` accepts, scaled by SCALE_2D = 1/sqrt(3) (only rounding could reach 2**31,
    # which x86 converts to -2**31, its low 32 bits).
    i = np.int64(np.int32(x0))
    j = np.int64(np.int32(y0))
    return i, j, sx - x0 > sy - y0, np.float32(x - x0 + unskew), np.float32(y - y0 + unskew)


@exact
def prime_triangle_cell32(x, y, scale):
    """``triangle_cell`` in float32, as FastNoise2's 2D Simplex splits: ``p = (x, y) scale`` rounded to float32,
    skewed by ``(sqrt(3) - 1) / 2`` and un-skewed by ``(3 - sqrt(3)) / 6`` (both float32), each operation rounded
    to float32 (no fused operation); the cell as float32 ``(floor(sx), floor(sy))``."""
    x = x * scale
    y = y * scale
    skew = (x + y) * _SKEW_2D_32
    sx = x + skew
    sy = y + skew
    x0 = np.floor(sx)
    y0 = np.floor(sy)
    unskew = (x0 + y0) * _UNSKEW_2D_32
    return x0, y0, sx - x0 > sy - y0, x - x0 + unskew, y - y0 + unskew


@jit
def triangle_hashes(h, i, j, x_greater):
    """Finished hashes of the triangle's corners: the cell's origin ``(i, j)``, its far corner ``(i + 1, j + 1)``
    and the third corner; ``h`` eats x, then y (each coordinate's product with the prime formed once, as in
    ``tetrahedron_hashes``)."""
    i0, i1 = scaled_words(i)
    j0, j1 = scaled_words(j)
    h0 = eat_scaled(h, i0)
    h1 = eat_scaled(h, i1)
    third = h1 if x_greater else h0
    return (
        avalanche(eat_scaled(h0, j0)),
        avalanche(eat_scaled(h1, j1)),
        avalanche(eat_scaled(third, j0 if x_greater else j1)),
    )


@jit
def prime_triangle_hashes(s, i, j, x_greater):
    """``triangle_hashes``' three corners (same order) by the prime hash (``hashing.prime_finish``) from the
    state ``s = prime_seed(seed)``: a step adds the axis's prime to the coordinate's word."""
    i0 = prime_scaled(i, PRIME_X)
    j0 = prime_scaled(j, PRIME_Y)
    i1 = np.uint32(i0 + PRIME_X)
    j1 = np.uint32(j0 + PRIME_Y)
    h0 = prime_eat(s, i0)
    h1 = prime_eat(s, i1)
    third = h1 if x_greater else h0
    return (
        prime_finish(prime_eat(h0, j0)),
        prime_finish(prime_eat(h1, j1)),
        prime_finish(prime_eat(third, j0 if x_greater else j1)),
    )


@exact
def triangle_offsets(x_greater, dx, dy):
    """The float32 offsets of the sample from the three corners (``triangle_hashes``' order), given its offset
    ``(dx, dy)`` from the origin: a corner ``s`` steps away is also un-skewed by ``s`` times ``UNSKEW_2D``."""
    third_x = _ONE_LESS_UNSKEW_2D if x_greater else -_UNSKEW_2D_32
    third_y = -_UNSKEW_2D_32 if x_greater else _ONE_LESS_UNSKEW_2D
    return dx, dy, dx - _FAR_2D, dy - _FAR_2D, dx - third_x, dy - third_y


@exact
def triangle_sum(gradient, h0, h1, h2, x_greater, dx, dy):
    """The three kernels ``falloff * gradient`` summed, float32 (the seed's ``Simplex2D``)."""
    ax, ay, bx, by, cx, cy = triangle_offsets(x_greater, dx, dy)
    total = _falloff(dot2(ax, ay, ax, ay)) * _gradient_2d(gradient, h0, ax, ay)
    total = fmuladd(_falloff(dot2(bx, by, bx, by)), _gradient_2d(gradient, h1, bx, by), total)
    total = fmuladd(_falloff(dot2(cx, cy, cx, cy)), _gradient_2d(gradient, h2, cx, cy), total)
    return total * (_EIGHT_SIMPLEX_2D_SCALE_32 if gradient == SIMPLEX else _EIGHT)


@exact
def _falloff4(squared):
    """FastNoise2's radial kernel ``max(0, 1/2 - r^2)^4`` in float32, from ``r^2``."""
    base = max(_HALF - squared, _ZERO)
    base = base * base
    return base * base


@exact
def prime_triangle_sum(gradient, h0, h1, h2, x_greater, dx, dy):
    """``triangle_sum`` for ``hash="prime"``: simplex value noise unchanged; simplex gradient noise is FastNoise2's
    2D Simplex on the same triangles, ``sum(max(0, 1/2 - r^2)^4 * prime_gradient_2d) / PRIME_SIMPLEX_2D_BOUND``,
    float32."""
    if gradient == VALUE:
        return triangle_sum(gradient, h0, h1, h2, x_greater, dx, dy)
    ax, ay, bx, by, cx, cy = triangle_offsets(x_greater, dx, dy)
    total = _falloff4(dot2(ax, ay, ax, ay)) * prime_gradient_2d(h0, ax, ay)
    total = fmuladd(_falloff4(dot2(bx, by, bx, by)), prime_gradient_2d(h1, bx, by), total)
    total = fmuladd(_falloff4(dot2(cx, cy, cx, cy)), prime_gradient_2d(h2, cx, cy), total)
    return total * _PRIME_SIMPLEX_2D_SCALE_32


@jit
def simplex_2d(gradient, x, y, seed, frequency, period):
    """2D simplex noise: the three kernels of the triangle holding the (scaled) sample; ``period`` is unused (it does
    not tile)"""
    x = x * (frequency * SCALE_2D)
    y = y * (frequency * SCALE_2D)
    i, j, x_greater, dx, dy = triangle_cell(x, y)
    h0, h1, h2 = triangle_hashes(hash_seed(seed), i, j, x_greater)
    return np.float64(triangle_sum(gradient, h0, h1, h2, x_greater, dx, dy))


def simplex_block_2d_of(prime, rows=False):
    """``simplex_block_2d``, or with ``prime`` the same with the prime hash (``prime_triangle_hashes``); with
    ``rows``, reading ``xs`` as the block's float32 (n, 2) rows, flattened (``ys`` unused), each coordinate widened
    to float64 as the copy to float64 columns would (the same bits, without the copy)."""
    start = prime_seed if prime else hash_seed
    hashes_of = prime_triangle_hashes if prime else triangle_hashes
    sum_of = prime_triangle_sum if prime else triangle_sum

    def simplex_block_2d(gradient, dim, xs, ys, zs, seed, frequency, period, params, values):
        """``values[i] = simplex_2d(gradient, xs[i], ys[i], ...)`` for a block, in three passes (module doc); the
        block samplers' arguments (``sampling.BLOCK_SAMPLERS``: ``dim``, ``zs``, ``period`` and ``params``
        unused)."""
        n = values.shape[0]
        scale = frequency * SCALE_2D
        cells = scratch((3, BLOCK), (3, n), np.int32)
        offsets = scratch((2, BLOCK), (2, n), np.float32)
        far = 0
        if prime and rows:  # the float32 split where the block is near the origin (PRIME_FLOAT32_SPLIT_LIMIT)
            for k in range(2 * n):
                far += np.float64(abs(xs[k])) * scale >= PRIME_FLOAT32_SPLIT_LIMIT
        if prime and rows and far == 0:
            scale32 = np.float32(scale)
            for m in range(n):
                x0, y0, x_greater, dx, dy = prime_triangle_cell32(xs[2 * m], xs[2 * m + 1], scale32)
                cells[0, m] = np.int32(x0)
                cells[1, m] = np.int32(y0)
                cells[2, m] = np.int32(x_greater)
                offsets[0, m] = dx
                offsets[1, m] = dy
        else:
            for m in range(n):
                if rows:
                    x, y = np.float64(xs[2 * m]), np.float64(xs[2 * m + 1])
                else:
                    x, y = xs[m], ys[m]
                i, j, x_greater, dx, dy = triangle_cell(x * scale, y * scale)
                cells[0, m] = np.int32(i)
                cells[1, m] = np.int32(j)
                cells[2, m] = np.int32(x_greater)
                offsets[0, m] = dx
                offsets[1, m] = dy
        h = start(seed)
        if prime:  # the prime hash's few operations in the sum's loop (no round trip through memory)
            for m in range(n):
                x_greater = cells[2, m] != 0
                h0, h1, h2 = hashes_of(h, np.int64(cells[0, m]), np.int64(cells[1, m]), x_greater)
                values[m] = sum_of(gradient, h0, h1, h2, x_greater, offsets[0, m], offsets[1, m])
            return
        hashes = scratch((3, BLOCK), (3, n), np.uint32)
        for m in range(n):
            h0, h1, h2 = hashes_of(h, np.int64(cells[0, m]), np.int64(cells[1, m]), cells[2, m] != 0)
            hashes[0, m] = h0
            hashes[1, m] = h1
            hashes[2, m] = h2
        for m in range(n):
            values[m] = sum_of(
                gradient, hashes[0, m], hashes[1, m], hashes[2, m], cells[2, m] != 0, offsets[0, m], offsets[1, m]
            )

    return inline(named(simplex_block_2d, "simplex_block_2d" + ("_prime" if prime else "") + ("_rows" if rows else "")))


simplex_block_2d = simplex_block_2d_of(False)
"""``values[i] = simplex_2d(gradient, xs[i], ys[i], ...)`` for a block, in three passes (module doc)."""


@jit
def tetrahedron_cell(x, y, z):
    """Where the (scaled) ``(x, y, z)`` lies, in float64: the skewed cube cell ``(i, j, k)`` (int64) and the
    float32 offset of the sample from the cell's un-skewed origin."""
    skew = (x + y + z) * SKEW_3D
    x0 = np.floor(x + skew)
    y0 = np.floor(y + skew)
    z0 = np.floor(z + skew)
    unskew = (x0 + y0 + z0) * UNSKEW_3D
    return (
        cell_index(x0),
        cell_index(y0),
        cell_index(z0),
        np.float32(x - x0 + unskew),
        np.float32(y - y0 + unskew),
        np.float32(z - z0 + unskew),
    )


@jit
def tetrahedron_steps(dx, dy, dz):
    """The steps of the tetrahedron's second and third corners from the cell's origin: ``(xa, ya, za)`` one step
    along the largest fraction, ``(xb, yb, zb)`` two steps, along the two largest. The seed's comparisons
    ``xGy = sx - x0 > sy - y0`` (and ``xGz``, ``yGz``) are made on the float32 offsets from the origin, as the seed
    makes them in float32 (``dx - dy`` is ``(sx - x0) - (sy - y0)``: the skew cancels). Its truth table, e.g.
    ``xB = xGy | (xGz & yGz)``, is written per axis (``xB = xGy | xGz``): the same for ordered comparisons."""
    x_gt_y = dx > dy
    x_gt_z = dx > dz
    y_gt_z = dy > dz
    y_ge_x = dy >= dx
    z_ge_x = dz >= dx
    z_ge_y = dz >= dy
    return (
        x_gt_y & x_gt_z,
        y_ge_x & y_gt_z,
        z_ge_x & z_ge_y,
        x_gt_y | x_gt_z,
        y_ge_x | y_gt_z,
        z_ge_x | z_ge_y,
    )


@jit
def tetrahedron_hashes(h, i, j, k, dx, dy, dz):
    """Finished hashes of the tetrahedron's corners: the origin ``(i, j, k)``, the far corner
    ``(i + 1, j + 1, k + 1)`` and the corners one and two steps away (``tetrahedron_steps``). Each
    coordinate's product with the hash's prime is formed once (``scaled_word``); a step adds the prime to it."""
    xa, ya, za, xb, yb, zb = tetrahedron_steps(dx, dy, dz)
    i0, i1 = scaled_words(i)
    j0, j1 = scaled_words(j)
    k0, k1 = scaled_words(k)
    h0 = eat_scaled(h, i0)
    h1 = eat_scaled(h, i1)
    ha = h1 if xa else h0
    hb = h1 if xb else h0
    return (
        avalanche(eat_scaled(eat_scaled(h0, j0), k0)),
        avalanche(eat_scaled(eat_scaled(h1, j1), k1)),
        avalanche(eat_scaled(eat_scaled(ha, j1 if ya else j0), k1 if za else k0)),
        avalanche(eat_scaled(eat_scaled(hb, j1 if yb else j0), k1 if zb else k0)),
    )


@jit
def prime_tetrahedron_hashes(s, i, j, k, dx, dy, dz):
    """``tetrahedron_hashes``' four corners (same order) by the prime hash from the state ``s = prime_seed(seed)``:
    a step adds the axis's prime to the coordinate's word."""
    xa, ya, za, xb, yb, zb = tetrahedron_steps(dx, dy, dz)
    i0 = prime_scaled(i, PRIME_X)
    j0 = prime_scaled(j, PRIME_Y)
    k0 = prime_scaled(k, PRIME_Z)
    i1 = np.uint32(i0 + PRIME_X)
    j1 = np.uint32(j0 + PRIME_Y)
    k1 = np.uint32(k0 + PRIME_Z)
    h0 = prime_eat(s, i0)
    h1 = prime_eat(s, i1)
    ha = h1 if xa else h0
    hb = h1 if xb else h0
    return (
        prime_finish(prime_eat(prime_eat(h0, j0), k0)),
        prime_finish(prime_eat(prime_eat(h1, j1), k1)),
        prime_finish(prime_eat(prime_eat(ha, j1 if ya else j0), k1 if za else k0)),
        prime_finish(prime_eat(prime_eat(hb, j1 if yb else j0), k1 if zb else k0)),
    )


@exact
def _step_offset(step, d, unskew):
    """The float32 offset along one axis from a corner that is ``step`` (0/1) further and un-skewed by
    ``unskew``."""
    return d - (_ONE - unskew if step else -unskew)


@exact
def tetrahedron_sum(gradient, h0, h1, h2, h3, dx, dy, dz):
    """The four kernels ``falloff * gradient`` summed, float32 (the seed's ``Simplex3D``): the origin's at
    ``(dx, dy, dz)``, the far corner's (``f``) and those one and two steps away (``a``, ``b``) at their
    ``tetrahedron_offsets``."""
    _, (fx, fy, fz), (ax, ay, az), (bx, by, bz) = tetrahedron_offsets(dx, dy, dz)
    total = _falloff(dot3(dx, dy, dz, dx, dy, dz)) * _gradient_3d(gradient, h0, dx, dy, dz)
    total = fmuladd(_falloff(dot3(fx, fy, fz, fx, fy, fz)), _gradient_3d(gradient, h1, fx, fy, fz), total)
    total = fmuladd(_falloff(dot3(ax, ay, az, ax, ay, az)), _gradient_3d(gradient, h2, ax, ay, az), total)
    total = fmuladd(_falloff(dot3(bx, by, bz, bx, by, bz)), _gradient_3d(gradient, h3, bx, by, bz), total)
    return total * (_EIGHT_SIMPLEX_3D_SCALE_32 if gradient == SIMPLEX else _EIGHT)


@exact
def prime_tetrahedron_sum(gradient, h0, h1, h2, h3, dx, dy, dz):
    """``tetrahedron_sum`` for ``hash="prime"``: simplex value noise unchanged; simplex gradient noise sums
    ``max(0, 1/2 - r^2)^4 * prime_gradient_3d`` over the same tetrahedron's corners, divided by
    ``PRIME_SIMPLEX_3D_BOUND``, float32."""
    if gradient == VALUE:
        return tetrahedron_sum(gradient, h0, h1, h2, h3, dx, dy, dz)
    _, (fx, fy, fz), (ax, ay, az), (bx, by, bz) = tetrahedron_offsets(dx, dy, dz)
    total = _falloff4(dot3(dx, dy, dz, dx, dy, dz)) * prime_gradient_3d(h0, dx, dy, dz)
    total = fmuladd(_falloff4(dot3(fx, fy, fz, fx, fy, fz)), prime_gradient_3d(h1, fx, fy, fz), total)
    total = fmuladd(_falloff4(dot3(ax, ay, az, ax, ay, az)), prime_gradient_3d(h2, ax, ay, az), total)
    total = fmuladd(_falloff4(dot3(bx, by, bz, bx, by, bz)), prime_gradient_3d(h3, bx, by, bz), total)
    return total * _PRIME_SIMPLEX_3D_SCALE_32


@exact
def tetrahedron_offsets(dx, dy, dz):
    """The float32 offsets of the sample from the four corners (``tetrahedron_hashes``' order), given its offset
    ``(dx, dy, dz)`` from the origin: a corner ``s`` steps away is also un-skewed by ``s`` times ``UNSKEW_3D``."""
    xa, ya, za, xb, yb, zb = tetrahedron_steps(dx, dy, dz)
    return (
        (dx, dy, dz),
        (dx - _HALF, dy - _HALF, dz - _HALF),
        (_step_offset(xa, dx, _UNSKEW_3D_32), _step_offset(ya, dy, _UNSKEW_3D_32), _step_offset(za, dz, _UNSKEW_3D_32)),
        (
            _step_offset(xb, dx, _TWO_UNSKEW_3D_32),
            _step_offset(yb, dy, _TWO_UNSKEW_3D_32),
            _step_offset(zb, dz, _TWO_UNSKEW_3D_32),
        ),
    )


@jit
def simplex_3d(gradient, x, y, z, seed, frequency, period):
    """3D simplex noise: the four kernels of the tetrahedron holding the (scaled) sample; ``period`` is unused (it does
    not tile)"""
    x = x * (frequency * SCALE_3D)
    y = y * (frequency * SCALE_3D)
    z = z * (frequency * SCALE_3D)
    i, j, k, dx, dy, dz = tetrahedron_cell(x, y, z)
    h0, h1, h2, h3 = tetrahedron_hashes(hash_seed(seed), i, j, k, dx, dy, dz)
    return np.float64(tetrahedron_sum(gradient, h0, h1, h2, h3, dx, dy, dz))


def _tetrahedra_of(prime):
    """The block passes after the cell pass (module doc): each sample's four corner hashes (``tetrahedron_hashes``,
    or with ``prime`` ``prime_tetrahedron_hashes`` in the sum's loop) from its cell, then the kernels' float32 sum
    (``tetrahedron_sum``, or ``prime_tetrahedron_sum``) into ``values``."""
    start = prime_seed if prime else hash_seed
    hashes_of = prime_tetrahedron_hashes if prime else tetrahedron_hashes
    sum_of = prime_tetrahedron_sum if prime else tetrahedron_sum

    def tetrahedra(gradient, seed, cells, offsets, values):
        """``values[m] = tetrahedron_sum(...)`` of the samples whose cells and offsets ``tetrahedron_cell`` gave
        (``cells``: i, j, k; ``offsets``: dx, dy, dz), the hashes in their own pass."""
        n = values.shape[0]
        h = start(seed)
        if prime:  # the prime hash's few operations in the sum's loop (no round trip through memory)
            for m in range(n):
                dx, dy, dz = offsets[0, m], offsets[1, m], offsets[2, m]
                h0, h1, h2, h3 = hashes_of(
                    h, np.int64(cells[0, m]), np.int64(cells[1, m]), np.int64(cells[2, m]), dx, dy, dz
                )
                values[m] = sum_of(gradient, h0, h1, h2, h3, dx, dy, dz)
            return
        hashes = scratch((4, BLOCK), (4, n), np.uint32)
        for m in range(n):
            h0, h1, h2, h3 = hashes_of(
                h, np.int64(cells[0, m]), np.int64(cells[1, m]), np.int64(cells[2, m]), offsets[0, m], offsets[1, m],
                offsets[2, m]
            )  # fmt: skip
            hashes[0, m] = h0
            hashes[1, m] = h1
            hashes[2, m] = h2
            hashes[3, m] = h3
        for m in range(n):
            values[m] = sum_of(
                gradient, hashes[0, m], hashes[1, m], hashes[2, m], hashes[3, m], offsets[0, m], offsets[1, m],
                offsets[2, m]
            )  # fmt: skip

    return inline(named(tetrahedra, "tetrahedra" + ("_prime" if prime else "")))


def simplex_block_3d_of(prime, rows=False):
    """``simplex_block_3d``, or with ``prime`` the same with the prime hash (``prime_tetrahedron_hashes``); with
    ``rows``, reading ``xs`` as the block's float32 (n, 3) rows, flattened, as ``simplex_block_2d_of``."""
    tetrahedra = _tetrahedra_of(prime)

    def simplex_block_3d(gradient, dim, xs, ys, zs, seed, frequency, period, params, values):
        """``values[i] = simplex_3d(gradient, xs[i], ys[i], zs[i], ...)`` for a block, in three passes (module
        doc); the block samplers' arguments (``sampling.BLOCK_SAMPLERS``: ``dim``, ``period`` and ``params``
        unused)."""
        n = values.shape[0]
        scale = frequency * SCALE_3D
        cells = scratch((3, BLOCK), (3, n), np.int32)
        offsets = scratch((3, BLOCK), (3, n), np.float32)
        for m in range(n):
            if rows:
                x, y, z = np.float64(xs[3 * m]), np.float64(xs[3 * m + 1]), np.float64(xs[3 * m + 2])
            else:
                x, y, z = xs[m], ys[m], zs[m]
            i, j, k, dx, dy, dz = tetrahedron_cell(x * scale, y * scale, z * scale)
            cells[0, m] = np.int32(i)
            cells[1, m] = np.int32(j)
            cells[2, m] = np.int32(k)
            offsets[0, m] = dx
            offsets[1, m] = dy
            offsets[2, m] = dz
        tetrahedra(gradient, seed, cells, offsets, values)

    return inline(named(simplex_block_3d, "simplex_block_3d" + ("_prime" if prime else "") + ("_rows" if rows else "")))


def simplex_row_3d_of(prime):
    """``simplex_row_3d``, or with ``prime`` the same with the prime hash."""
    tetrahedra = _tetrahedra_of(prime)

    def simplex_row_3d(gradient, xs, y, z, seed, frequency, values):
        """``values[m] = simplex_3d(gradient, xs[m], y, z, ...)`` along a row of a 3D lattice: ``simplex_block_3d``
        with ``y * scale`` and ``z * scale`` formed once for the row (the same products, so the same bits)."""
        n = values.shape[0]
        scale = frequency * SCALE_3D
        y = y * scale
        z = z * scale
        cells = scratch((3, BLOCK), (3, n), np.int32)
        offsets = scratch((3, BLOCK), (3, n), np.float32)
        for m in range(n):
            i, j, k, dx, dy, dz = tetrahedron_cell(xs[m] * scale, y, z)
            cells[0, m] = np.int32(i)
            cells[1, m] = np.int32(j)
            cells[2, m] = np.int32(k)
            offsets[0, m] = dx
            offsets[1, m] = dy
            offsets[2, m] = dz
        tetrahedra(gradient, seed, cells, offsets, values)

    return inline(named(simplex_row_3d, "simplex_row_3d" + ("_prime" if prime else "")))


simplex_block_3d = simplex_block_3d_of(False)
"""``values[i] = simplex_3d(gradient, xs[i], ys[i], zs[i], ...)`` for a block, in three passes (module doc)."""


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
def scaled_pentachoron(x, y, z, w, seed, frequency):
    """``(scale, scaled sample, corners)``: the coordinates' scale ``frequency * SCALE_4D``, the sample times it
    and the five corners of the simplex holding it (``pentachoron``)."""
    scale = frequency * SCALE_4D
    x = x * scale
    y = y * scale
    z = z * scale
    w = w * scale
    return scale, (x, y, z, w), pentachoron(hash_seed(seed), x, y, z, w)


@jit
def simplex_4d(gradient, x, y, z, w, seed, frequency, period):
    """4D simplex noise: the five kernels of the simplex holding the (scaled) sample (``scaled_pentachoron``);
    ``period`` is unused (it does not tile)"""
    _, (x, y, z, w), (a, b, c, d, e) = scaled_pentachoron(x, y, z, w, seed, frequency)
    return (
        _kernel_4d(gradient, a, x, y, z, w)
        + _kernel_4d(gradient, b, x, y, z, w)
        + _kernel_4d(gradient, c, x, y, z, w)
        + _kernel_4d(gradient, d, x, y, z, w)
        + _kernel_4d(gradient, e, x, y, z, w)
    )
