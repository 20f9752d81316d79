"""Gradients: what each lattice point contributes at an offset from it.

Chosen by a gradient code (``VALUE``, ``PERLIN``, ``SIMPLEX``); the ``evaluate_*``
functions take the finished hash ``h`` of the lattice point and the offset of the
sample from that point. Constructions and normalisation factors are the seeds':

* value (004 "Value Noise"): the constant ``Floats01A * 2 - 1``;
* Perlin (004 "Perlin Noise"): 1D ``line``; 2D ``square`` scaled by ``2 / 0.53528``;
  3D ``octahedron`` scaled by ``1 / 0.56290``. (Seed 004 prints the 2D code before
  its "Normalized 2D Noise" step, still with a factor ``2``; the normalised
  ``2 / 0.53528`` is the tutorial's final version and is used here.)
* simplex (001 "Simplex Gradient Noise"): ``line * 32/27``, ``circle * 5.832/sqrt(2)``,
  ``sphere * 1024 / (125 sqrt(3))``.
* 4D (not in the seeds): Perlin's and Gustavson's 32 gradients ``(0, ±1, ±1, ±1)`` and their permutations,
  the midpoints of a tesseract's edges (``hypercube``). Perlin: scaled by ``1 / PERLIN_4D_MAX``; simplex:
  ``hypercube / sqrt(3)`` (unit length) scaled by ``1 / SIMPLEX_4D_MAX``; the maxima are the largest values
  the blend can reach with each corner's best gradient (found numerically, ``docs/sources.md``), so the
  range is -1..1 as in 1-3D.
"""

from __future__ import annotations

import numpy as np

from ._jit import exact, flip_sign_where_negative, flip_sign_where_top_bit, fmuladd, jit
from .hashing import floats01a, signed_floats01

VALUE = 0
PERLIN = 1
SIMPLEX = 2
PRIME_PERLIN = 3
"""The float32 lattice blends' code for Perlin noise hashed by the prime hash (``hash="prime"``, 2D and 3D):
FastNoise2's gradients (``prime_gradient_2d``/``_3d``), the blend divided once by FastNoise2's bound
(``finish_blend32``). Never a kind's gradient code: the lattice kernels built with ``prime`` blend ``PERLIN``
with it (``blend_code``)."""

PERLIN_2D_SCALE = 2.0 / 0.53528
PERLIN_3D_SCALE = 1.0 / 0.56290
SIMPLEX_1D_SCALE = 32.0 / 27.0
SIMPLEX_2D_SCALE = 5.832 / np.sqrt(2.0)
SIMPLEX_3D_SCALE = 1024.0 / (125.0 * np.sqrt(3.0))
PRIME_PERLIN_2D_BOUND = 1.726796627044677734375
"""FastNoise2's ``kBounding`` of its 2D Perlin (Perlin.inl): the largest blend of ``prime_gradient_2d``."""
PRIME_PERLIN_3D_BOUND = 1.0363423824310302734375
"""FastNoise2's ``kBounding`` of its 3D Perlin (Perlin.inl): the largest blend of ``prime_gradient_3d``."""
PERLIN_4D_MAX = 1.5366
SIMPLEX_4D_MAX = 0.17177
PERLIN_4D_SCALE = 1.0 / PERLIN_4D_MAX
SIMPLEX_4D_SCALE = 1.0 / (np.sqrt(3.0) * SIMPLEX_4D_MAX)


@jit
def value(h):
    """Value gradient: a constant in [-1, 1] per lattice point."""
    return signed_floats01(h, 0)


@jit
def line(h, x):
    """``BaseGradients.Line``: ``(1 + Floats01A) * ±x``, the sign from hash bit 8."""
    signed = x if (h & 256) == 0 else -x
    return (1.0 + floats01a(h)) * signed


@jit
def square_vectors(h):
    """``SquareVectors``: a gradient on the outline of a diamond, from ``Floats01A``."""
    gx = signed_floats01(h, 0)
    gy = 0.5 - abs(gx)
    gx = gx - np.floor(gx + 0.5)
    return gx, gy


@jit
def octahedron_vectors(h):
    """``OctahedronVectors``: a gradient on an octahedron, from ``Floats01A`` and ``D``."""
    gx = signed_floats01(h, 0)
    gy = signed_floats01(h, 24)
    gz = 1.0 - abs(gx) - abs(gy)
    offset = max(-gz, 0.0)
    # gx, gy are never 0 (odd multiples of 1/255), so this is the seed's
    # "gx += gx < 0 ? offset : -offset" without compares and blends.
    gx = gx - np.copysign(offset, gx)
    gy = gy - np.copysign(offset, gy)
    return gx, gy, gz


@jit
def square(h, x, y):
    """Dot product of the square gradient with the offset."""
    gx, gy = square_vectors(h)
    return gx * x + gy * y


@jit
def circle(h, x, y):
    """The square gradient normalised to unit length (for non-square lattices)."""
    gx, gy = square_vectors(h)
    return (gx * x + gy * y) / np.sqrt(gx * gx + gy * gy)


@jit
def octahedron(h, x, y, z):
    """Dot product of the octahedron gradient with the offset."""
    gx, gy, gz = octahedron_vectors(h)
    return gx * x + gy * y + gz * z


@jit
def sphere(h, x, y, z):
    """The octahedron gradient normalised to unit length."""
    gx, gy, gz = octahedron_vectors(h)
    return (gx * x + gy * y + gz * z) / np.sqrt(gx * gx + gy * gy + gz * gz)


@jit
def hypercube_vectors(h):
    """One of the 32 vectors ``(0, ±1, ±1, ±1)`` (and permutations): hash bits 8-11 give the signs of x, y,
    z, w, bits 0-1 the axis that is zero."""
    zero = h & 3
    gx = 0.0 if zero == 0 else (-1.0 if h & 256 else 1.0)
    gy = 0.0 if zero == 1 else (-1.0 if h & 512 else 1.0)
    gz = 0.0 if zero == 2 else (-1.0 if h & 1024 else 1.0)
    gw = 0.0 if zero == 3 else (-1.0 if h & 2048 else 1.0)
    return gx, gy, gz, gw


@jit
def hypercube(h, x, y, z, w):
    """Dot product of the hypercube gradient with the offset."""
    gx, gy, gz, gw = hypercube_vectors(h)
    return gx * x + gy * y + gz * z + gw * w


_ZERO32 = np.float32(0.0)
_HALF32 = np.float32(0.5)
_ONE32 = np.float32(1.0)
_TWO_BY_255_32 = np.float32(2.0 / 255.0)
_PERLIN_2D_SCALE_32 = np.float32(PERLIN_2D_SCALE)
_PERLIN_3D_SCALE_32 = np.float32(PERLIN_3D_SCALE)
_PRIME_PERLIN_2D_SCALE_32 = np.float32(1.0 / PRIME_PERLIN_2D_BOUND)
_PRIME_PERLIN_3D_SCALE_32 = np.float32(1.0 / PRIME_PERLIN_3D_BOUND)
_ROOT2_PLUS_ONE_32 = np.float32(1.0 + np.sqrt(2.0))
# uint32 masks and codes, so the gradients' bit tests stay in 32-bit lanes (an int64 literal widens them).
_ZERO_WORD = np.uint32(0)
_BIT_2 = np.uint32(4)
_BIT_3 = np.uint32(8)
_BITS_0_2_3 = np.uint32(13)
_CODE_12 = np.uint32(12)
_CODE_2 = np.uint32(2)


@exact
def signed_byte32(h, shift):
    """``Floats01X * 2 - 1`` of the byte at ``shift`` in float32, as the seeds compute it (one fused
    multiply-add)."""
    return fmuladd(np.float32((h >> shift) & 255), _TWO_BY_255_32, -_ONE32)


@exact
def square_vectors32(h):
    """``square_vectors`` in float32 (the 2D kernels that blend or sum in float32)."""
    gx = signed_byte32(h, 0)
    gy = _HALF32 - abs(gx)
    gx = gx - np.floor(gx + _HALF32)
    return gx, gy


@exact
def octahedron_vectors32(h):
    """``octahedron_vectors`` in float32. The seed's ``gx += gx < 0 ? offset : -offset`` with
    ``offset = max(-gz, 0)`` is ``gx + fold`` with ``fold = min(gz, 0)``, its sign flipped where ``gx < 0``: the
    same sums (``a - b`` is ``a + -b``; a zero fold leaves ``gx``, never 0, as it is), in fewer operations."""
    gx = signed_byte32(h, 0)
    gy = signed_byte32(h, 24)
    gz = _ONE32 - abs(gx) - abs(gy)
    fold = min(gz, _ZERO32)
    return gx + flip_sign_where_negative(fold, gx), gy + flip_sign_where_negative(fold, gy), gz


@exact
def dot2(ax, ay, bx, by):
    """``ax bx + ay by`` in float32, the second product fused into the sum."""
    return fmuladd(ay, by, ax * bx)


@exact
def dot3(ax, ay, az, bx, by, bz):
    """``ax bx + ay by + az bz`` in float32, summed left to right with the later products fused."""
    return fmuladd(az, bz, fmuladd(ay, by, ax * bx))


@exact
def prime_gradient_2d(h, dx, dy):
    """FastNoise2's ``GetGradientDotPerlin`` (2D): the dot product of the offset with one of the eight gradients
    ``(±(1+√2), ±1)``, ``(±1, ±(1+√2))``; hash bit 0 flips x, bit 1 flips y, bit 2 swaps the axes. Sign flips and
    selects only (no table, no conversion)."""
    dx = flip_sign_where_top_bit(dx, h << 31)
    dy = flip_sign_where_top_bit(dy, h << 30)
    swap = np.uint32(h & _BIT_2) != _ZERO_WORD
    return fmuladd(_ROOT2_PLUS_ONE_32, dy if swap else dx, dx if swap else dy)


@exact
def prime_gradient_3d(h, dx, dy, dz):
    """Perlin's improved-noise gradient (FastNoise2's ``GetGradientDotCommon``): the dot product of the offset with
    one of the twelve cube edges ``(±1, ±1, 0)`` and permutations (sixteen codes, four edges twice) from hash bits
    0-3, ``h < 8 ? x : y`` plus ``h < 4 ? y : h in (12, 14) ? x : z``, signed by bits 0 and 1. Selects and sign
    flips only."""
    low = np.uint32(h & _BITS_0_2_3)
    u = dy if np.uint32(h & _BIT_3) != _ZERO_WORD else dx
    v = dx if low == _CODE_12 else dz
    v = dy if low < _CODE_2 else v
    return flip_sign_where_top_bit(u, h << 31) + flip_sign_where_top_bit(v, h << 30)


def blend_code(gradient: int, prime: bool) -> int:
    """The float32 blends' code of lattice gradient ``gradient`` in a kernel hashed by the prime hash (``prime``):
    ``PRIME_PERLIN`` for ``PERLIN``, else ``gradient``."""
    return PRIME_PERLIN if prime and gradient == PERLIN else gradient


@exact
def finish_blend_2d32(gradient, value):
    """The 2D float32 blend ``value`` as the noise: ``PRIME_PERLIN``'s divided by its bound (one multiply); the
    others unchanged (their corners are scaled)."""
    return value * _PRIME_PERLIN_2D_SCALE_32 if gradient == PRIME_PERLIN else value


@exact
def finish_blend_3d32(gradient, value):
    """``finish_blend_2d32`` in 3D, then ``+ 0`` so that an exact zero is ``+0`` whatever the corners' signs of
    zero: the point kernels' ``prime_gradient_3d`` and the 3D grid kernel's ``dot3`` of ``lattice_vector_3d32``
    give the same corner values but in the sign of an exact zero (``±u ± v`` against a product by a zero
    component), and a sign of zero changes nothing else in the blend."""
    return value * _PRIME_PERLIN_3D_SCALE_32 + _ZERO32 if gradient == PRIME_PERLIN else value


@exact
def lattice_2d32(gradient, h, x, y):
    """``evaluate_2d`` of a lattice gradient (value or Perlin ``square``) in float32, at the float32 offset."""
    if gradient == VALUE:
        return signed_byte32(h, 0)
    if gradient == PRIME_PERLIN:
        return prime_gradient_2d(h, x, y)
    gx, gy = square_vectors32(h)
    return dot2(gx, gy, x, y) * _PERLIN_2D_SCALE_32


@exact
def lattice_3d32(gradient, h, x, y, z):
    """``evaluate_3d`` of a lattice gradient (value or Perlin ``octahedron``) in float32."""
    if gradient == VALUE:
        return signed_byte32(h, 0)
    if gradient == PRIME_PERLIN:
        return prime_gradient_3d(h, x, y, z)
    gx, gy, gz = octahedron_vectors32(h)
    return dot3(gx, gy, gz, x, y, z) * _PERLIN_3D_SCALE_32


@exact
def lattice_vector_3d32(gradient, h):
    """What ``lattice_3d32`` reads of the hash ``h``: the value noise constant (in all three) or the octahedron
    gradient ``octahedron_vectors32(h)``, for kernels that reuse a corner over many samples."""
    if gradient == VALUE:
        v = signed_byte32(h, 0)
        return v, v, v
    if gradient == PRIME_PERLIN:  # the edge vector: each component is prime_gradient_3d of a unit offset (±1, ±0)
        return (
            prime_gradient_3d(h, _ONE32, _ZERO32, _ZERO32),
            prime_gradient_3d(h, _ZERO32, _ONE32, _ZERO32),
            prime_gradient_3d(h, _ZERO32, _ZERO32, _ONE32),
        )
    return octahedron_vectors32(h)


@exact
def lattice_from_vector_3d32(gradient, gx, gy, gz, x, y, z):
    """``lattice_3d32`` from ``lattice_vector_3d32``'s ``(gx, gy, gz)``: the same operations, the same bits."""
    if gradient == VALUE:
        return gx
    if gradient == PRIME_PERLIN:
        return dot3(gx, gy, gz, x, y, z)
    return dot3(gx, gy, gz, x, y, z) * _PERLIN_3D_SCALE_32


@jit
def evaluate_1d(gradient, h, x):
    """1D gradient ``gradient`` of the point with hash ``h`` at offset ``x``."""
    if gradient == VALUE:
        return value(h)
    if gradient == PERLIN:
        return line(h, x)
    return line(h, x) * SIMPLEX_1D_SCALE


@jit
def evaluate_2d(gradient, h, x, y):
    """2D gradient ``gradient`` of the point with hash ``h`` at offset ``(x, y)``."""
    if gradient == VALUE:
        return value(h)
    if gradient == PERLIN:
        return square(h, x, y) * PERLIN_2D_SCALE
    return circle(h, x, y) * SIMPLEX_2D_SCALE


@jit
def evaluate_3d(gradient, h, x, y, z):
    """3D gradient ``gradient`` of the point with hash ``h`` at offset ``(x, y, z)``."""
    if gradient == VALUE:
        return value(h)
    if gradient == PERLIN:
        return octahedron(h, x, y, z) * PERLIN_3D_SCALE
    return sphere(h, x, y, z) * SIMPLEX_3D_SCALE


@jit
def evaluate_4d(gradient, h, x, y, z, w):
    """4D gradient ``gradient`` of the point with hash ``h`` at offset ``(x, y, z, w)``."""
    if gradient == VALUE:
        return value(h)
    if gradient == PERLIN:
        return hypercube(h, x, y, z, w) * PERLIN_4D_SCALE
    return hypercube(h, x, y, z, w) * SIMPLEX_4D_SCALE
