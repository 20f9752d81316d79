"""Lattice (value and Perlin) noise in 1D to 4D (seed 004, "Value Noise", "Perlin Noise"; 4D extends it).

The sample's coordinates, multiplied by the frequency, fall in a lattice cell. Each
corner's hash is SmallXXHash(seed) eating the corner's lattice coordinates in
order (x, then y, then z, then w) (with ``hash="prime"``, 2D and 3D: ``hashing.prime_finish``, FastNoiseLite's
hash, in the block pass only, and Perlin noise takes FastNoise2's gradients: ``gradients.PRIME_PERLIN``); its
gradient is evaluated at the sample's offset from
that corner, and the corners are blended with the quintic weights of the spans,
x outermost, exactly as the seeds' ``Lattice1D/2D/3D``; 4D blends sixteen corners the same way (the
gradients in ``gradients.evaluate_4d``).

Each noise is three pieces: where the sample lies (``lattice.span32``: the cell split in float64, so the noise
stays exact far from the origin, then the offset rounded to float32 and its quintic weight ``lattice.smooth32``),
the corner hashes (``_corner_hashes_*``, integers only) and the blend (``_blend_*``, float32 like the seeds'
``float4`` code, within 4.2e-7 of a float64 blend: docs/benchmarks.md). The float32 pieces are ``_jit.exact``
helpers, so their bits are the same wherever they are inlined. ``lattice_2d``/``lattice_3d`` chain the pieces per
point (and the grid kernels per pixel). ``lattice_block`` computes the same numbers for a block of points
in two passes: the cells and offsets (``lattice.split_cells``, float64), then the corner hashes and the blend in
one loop of 32-bit lanes, which LLVM vectorises at full width (8 lanes with AVX2, 16 with AVX-512; a loop with
float64 in it runs half as wide, and the hashes in a pass of their own made a round trip through memory that cost
3-10 %). 1D and 4D blend in float64.
"""

from __future__ import annotations

import numpy as np

from ._jit import exact, fmuladd, inline, jit, named, scratch
from .blocks import BLOCK
from .gradients import (
    PERLIN,
    PRIME_PERLIN,
    VALUE,
    evaluate_1d,
    evaluate_4d,
    finish_blend_2d32,
    finish_blend_3d32,
    lattice_2d32,
    lattice_3d32,
    lattice_from_vector_3d32,
    lattice_vector_3d32,
)
from .hashing import (
    HASH_OPTION,
    PRIME_X,
    PRIME_Y,
    PRIME_Z,
    avalanche,
    eat,
    hash_seed,
    hashed_variant,
    prime_eat,
    prime_finish,
    prime_scaled,
    prime_seed,
)
from .lattice import next_point, smooth32, span, span32, split_block, split_rows, wrap_point
from .schema import FAMILY_LATTICE, Kind, signed_unit_range

KINDS = (
    Kind(
        "value",
        FAMILY_LATTICE,
        VALUE,
        (1, 2, 3, 4),
        (HASH_OPTION,),
        True,
        "Value noise: random values at lattice points, smoothly blended (range -1..1).",
        signed_unit_range,
        variant=hashed_variant(VALUE),
    ),
    Kind(
        "perlin",
        FAMILY_LATTICE,
        PERLIN,
        (1, 2, 3, 4),
        (HASH_OPTION,),
        True,
        "Perlin gradient noise on the square/cubic lattice (range -1..1).",
        signed_unit_range,
        variant=hashed_variant(PERLIN),
    ),
)
"""The lattice kinds: value and Perlin noise, tileable, in 1-4 dimensions."""

_ONE = np.float32(1.0)


@jit
def _lerp(a, b, t):
    return a + (b - a) * t


@jit
def lattice_1d(gradient, x, seed, frequency, period):
    """1D lattice noise of gradient kind ``gradient`` at ``x``."""
    h = hash_seed(seed)
    x0, x1, gx0, gx1, tx = span(x * frequency, period)
    a = evaluate_1d(gradient, avalanche(eat(h, x0)), gx0)
    b = evaluate_1d(gradient, avalanche(eat(h, x1)), gx1)
    return _lerp(a, b, tx)


@jit
def _corner_hashes_2d(h, x0, x1, y0, y1):
    """Finished hashes of the corners ``(x0, y0), (x0, y1), (x1, y0), (x1, y1)``."""
    return _corner_hashes_of_columns(eat(h, x0), eat(h, x1), y0, y1)


@jit
def _corner_hashes_of_columns(h0, h1, y0, y1):
    """``_corner_hashes_2d`` from the columns' partial hashes ``h0 = eat(h, x0)`` and ``h1 = eat(h, x1)`` (the
    separable grid keeps them per column: ``grid_kernels``)."""
    return avalanche(eat(h0, y0)), avalanche(eat(h0, y1)), avalanche(eat(h1, y0)), avalanche(eat(h1, y1))


@exact
def _lerp32(a, b, t):
    """``a + (b - a) t`` in float32, one fused multiply-add."""
    return fmuladd(b - a, t, a)


@exact
def _blend_2d(gradient, h00, h01, h10, h11, gx, tx, gy, ty):
    """Bilinear blend, with the float32 weights ``tx, ty``, of the four corner gradients at the sample, whose
    float32 offset from the lower corner is ``(gx, gy)`` (from the upper: ``g - 1``); float32 throughout."""
    gx1 = gx - _ONE
    gy1 = gy - _ONE
    a = _lerp32(lattice_2d32(gradient, h00, gx, gy), lattice_2d32(gradient, h01, gx, gy1), ty)
    b = _lerp32(lattice_2d32(gradient, h10, gx1, gy), lattice_2d32(gradient, h11, gx1, gy1), ty)
    return finish_blend_2d32(gradient, _lerp32(a, b, tx))


@jit
def lattice_2d(gradient, x, y, seed, frequency, period):
    """2D lattice noise at ``(x, y)``: bilinear blend of four corner gradients."""
    x0, x1, gx, tx = span32(x, frequency, period)
    y0, y1, gy, ty = span32(y, frequency, period)
    h00, h01, h10, h11 = _corner_hashes_2d(hash_seed(seed), x0, x1, y0, y1)
    return np.float64(_blend_2d(gradient, h00, h01, h10, h11, gx, tx, gy, ty))


@jit
def _corner_hashes_3d(h, x0, x1, y0, y1, z0, z1):
    """Finished hashes of the eight corners, x slowest and z fastest: ``(x0, y0, z0), (x0, y0, z1), ...``."""
    return _corner_hashes_of_columns_3d(eat(h, x0), eat(h, x1), y0, y1, z0, z1)


@jit
def _corner_hashes_of_columns_3d(h0, h1, y0, y1, z0, z1):
    """``_corner_hashes_3d`` from the columns' partial hashes ``h0 = eat(h, x0)`` and ``h1 = eat(h, x1)`` (the
    separable 3D grid keeps them per column: ``grid_kernels``)."""
    h00 = eat(h0, y0)
    h01 = eat(h0, y1)
    h10 = eat(h1, y0)
    h11 = eat(h1, y1)
    return (
        avalanche(eat(h00, z0)),
        avalanche(eat(h00, z1)),
        avalanche(eat(h01, z0)),
        avalanche(eat(h01, z1)),
        avalanche(eat(h10, z0)),
        avalanche(eat(h10, z1)),
        avalanche(eat(h11, z0)),
        avalanche(eat(h11, z1)),
    )


@exact
def _blend_3d(gradient, h, gx, tx, gy, ty, gz, tz):
    """Trilinear blend of the eight corner gradients (hashes ``h`` as ``_corner_hashes_3d`` orders them), float32
    offsets from the lower corner and weights, as ``_blend_2d``."""
    gx1 = gx - _ONE
    gy1 = gy - _ONE
    gz1 = gz - _ONE
    a = _lerp32(
        _lerp32(lattice_3d32(gradient, h[0], gx, gy, gz), lattice_3d32(gradient, h[1], gx, gy, gz1), tz),
        _lerp32(lattice_3d32(gradient, h[2], gx, gy1, gz), lattice_3d32(gradient, h[3], gx, gy1, gz1), tz),
        ty,
    )
    b = _lerp32(
        _lerp32(lattice_3d32(gradient, h[4], gx1, gy, gz), lattice_3d32(gradient, h[5], gx1, gy, gz1), tz),
        _lerp32(lattice_3d32(gradient, h[6], gx1, gy1, gz), lattice_3d32(gradient, h[7], gx1, gy1, gz1), tz),
        ty,
    )
    return finish_blend_3d32(gradient, _lerp32(a, b, tx))


@jit
def corner_vectors_3d(gradient, h, vectors):
    """``lattice_vector_3d32`` of the eight corner hashes ``h`` into ``vectors[3 k .. 3 k + 2]``."""
    for k in range(8):
        vectors[3 * k], vectors[3 * k + 1], vectors[3 * k + 2] = lattice_vector_3d32(gradient, h[k])


@exact
def _corner_3d(gradient, vectors, k, x, y, z):
    return lattice_from_vector_3d32(gradient, vectors[3 * k], vectors[3 * k + 1], vectors[3 * k + 2], x, y, z)


@exact
def blend_3d_of_vectors(gradient, vectors, gx, tx, gy, ty, gz, tz):
    """``_blend_3d`` of the corners whose ``corner_vectors_3d`` are ``vectors``: the same operations, the same
    bits, for kernels that blend many samples in one cell."""
    gx1 = gx - _ONE
    gy1 = gy - _ONE
    gz1 = gz - _ONE
    a = _lerp32(
        _lerp32(_corner_3d(gradient, vectors, 0, gx, gy, gz), _corner_3d(gradient, vectors, 1, gx, gy, gz1), tz),
        _lerp32(_corner_3d(gradient, vectors, 2, gx, gy1, gz), _corner_3d(gradient, vectors, 3, gx, gy1, gz1), tz),
        ty,
    )
    b = _lerp32(
        _lerp32(_corner_3d(gradient, vectors, 4, gx1, gy, gz), _corner_3d(gradient, vectors, 5, gx1, gy, gz1), tz),
        _lerp32(_corner_3d(gradient, vectors, 6, gx1, gy1, gz), _corner_3d(gradient, vectors, 7, gx1, gy1, gz1), tz),
        ty,
    )
    return finish_blend_3d32(gradient, _lerp32(a, b, tx))


@jit
def lattice_3d(gradient, x, y, z, seed, frequency, period):
    """3D lattice noise at ``(x, y, z)``: trilinear blend of eight corner gradients."""
    x0, x1, gx, tx = span32(x, frequency, period)
    y0, y1, gy, ty = span32(y, frequency, period)
    z0, z1, gz, tz = span32(z, frequency, period)
    h = _corner_hashes_3d(hash_seed(seed), x0, x1, y0, y1, z0, z1)
    return np.float64(_blend_3d(gradient, h, gx, tx, gy, ty, gz, tz))


def quadrilinear(corner, lerp, zero, name):
    """``blend(gradient, x, y, z, w, seed, frequency, period)``: 4D lattice noise's walk over the sixteen corners of
    the cell of ``(x, y, z, w) * frequency``, ``corner(gradient, hash, gx, gy, gz, gw)`` at each (its finished
    hash, the sample's offsets from it), blended along w, then z, y and x by ``lerp(a, b, t, g0, axis)`` (``t`` the
    quintic weight of the low corner's offset ``g0`` along ``axis``), from ``zero``: a value (``lattice_4d``) or a
    value with its gradient (``derivatives.lattice_4d_d``). ``name`` names the compiled code."""

    def blend(gradient, x, y, z, w, seed, frequency, period):
        x0, x1, gx0, gx1, tx = span(x * frequency, period)
        y0, y1, gy0, gy1, ty = span(y * frequency, period)
        z0, z1, gz0, gz1, tz = span(z * frequency, period)
        w0, w1, gw0, gw1, tw = span(w * frequency, period)
        h = hash_seed(seed)
        result = zero
        for a in range(2):
            gx = gx0 if a == 0 else gx1
            hx = eat(h, x0 if a == 0 else x1)
            along_y = zero
            for b in range(2):
                gy = gy0 if b == 0 else gy1
                hy = eat(hx, y0 if b == 0 else y1)
                along_z = zero
                for c in range(2):
                    gz = gz0 if c == 0 else gz1
                    hz = eat(hy, z0 if c == 0 else z1)
                    low = corner(gradient, avalanche(eat(hz, w0)), gx, gy, gz, gw0)
                    high = corner(gradient, avalanche(eat(hz, w1)), gx, gy, gz, gw1)
                    along_w = lerp(low, high, tw, gw0, 3)
                    along_z = along_w if c == 0 else lerp(along_z, along_w, tz, gz0, 2)
                along_y = along_z if b == 0 else lerp(along_y, along_z, ty, gy0, 1)
            result = along_y if a == 0 else lerp(result, along_y, tx, gx0, 0)
        return result

    return jit(named(blend, name))


@jit
def _lerp_along(a, b, t, g0, axis):
    """``_lerp(a, b, t)``: ``quadrilinear``'s blend of values."""
    return _lerp(a, b, t)


lattice_4d = quadrilinear(evaluate_4d, _lerp_along, 0.0, "lattice_4d")
"""``lattice_4d(gradient, x, y, z, w, seed, frequency, period)``: 4D lattice noise at ``(x, y, z, w)``, the
quadrilinear blend of sixteen corner gradients (``quadrilinear``)."""


@jit
def prime_column(s, x):
    """The prime hash's state after the lattice ``x`` from the state ``s = prime_seed(seed)`` (a column's partial
    hash, as ``eat(h, x)`` is SmallXXHash's)."""
    return prime_eat(s, prime_scaled(x, PRIME_X))


@jit
def prime_corner_hashes_2d(s, x0, x1, y0, y1):
    """``_corner_hashes_2d``'s four corners (same order) by the prime hash (``hashing.prime_finish``) from the
    state ``s = prime_seed(seed)``."""
    return prime_corner_hashes_of_columns(prime_column(s, x0), prime_column(s, x1), y0, y1)


@jit
def prime_corner_hashes_of_columns(h0, h1, y0, y1):
    """``prime_corner_hashes_2d`` from the columns' partial hashes ``h0 = prime_column(s, x0)``, ``h1 = ...x1``."""
    w0 = prime_scaled(y0, PRIME_Y)
    w1 = prime_scaled(y1, PRIME_Y)
    return (
        prime_finish(prime_eat(h0, w0)),
        prime_finish(prime_eat(h0, w1)),
        prime_finish(prime_eat(h1, w0)),
        prime_finish(prime_eat(h1, w1)),
    )


@jit
def prime_corner_hashes_3d(s, x0, x1, y0, y1, z0, z1):
    """``_corner_hashes_3d``'s eight corners (same order: x slowest, z fastest) by the prime hash."""
    return prime_corner_hashes_of_columns_3d(prime_column(s, x0), prime_column(s, x1), y0, y1, z0, z1)


@jit
def prime_corner_hashes_of_columns_3d(h0, h1, y0, y1, z0, z1):
    """``prime_corner_hashes_3d`` from the columns' partial hashes ``h0 = prime_column(s, x0)``, ``h1 = ...x1``."""
    v0 = prime_scaled(y0, PRIME_Y)
    v1 = prime_scaled(y1, PRIME_Y)
    w0 = prime_scaled(z0, PRIME_Z)
    w1 = prime_scaled(z1, PRIME_Z)
    h00 = prime_eat(h0, v0)
    h01 = prime_eat(h0, v1)
    h10 = prime_eat(h1, v0)
    h11 = prime_eat(h1, v1)
    return (
        prime_finish(prime_eat(h00, w0)),
        prime_finish(prime_eat(h00, w1)),
        prime_finish(prime_eat(h01, w0)),
        prime_finish(prime_eat(h01, w1)),
        prime_finish(prime_eat(h10, w0)),
        prime_finish(prime_eat(h10, w1)),
        prime_finish(prime_eat(h11, w0)),
        prime_finish(prime_eat(h11, w1)),
    )


def lattice_block(dim, prime=False, rows=False):
    """The block sampler of lattice noise in ``dim`` (2 or 3) dimensions (``sampling.BLOCK_SAMPLERS``'
    arguments; ``params`` unused, ``zs`` in 2D too): ``values[i] = lattice_2d(gradient, xs[i], ys[i], ...)`` or
    ``lattice_3d(gradient, xs[i], ys[i], zs[i], ...)``, float32, for a block, in two passes (module doc). ``dim`` is
    a closure constant, so the other dimension's branches are pruned before typing. ``prime``: the corners hashed
    by the prime hash (``hash="prime"``: ``prime_corner_hashes_2d``/``_3d``) instead of SmallXXHash. ``rows``:
    ``xs`` is the block's float32 (n, ``dim``) rows, flattened (``ys``, ``zs`` unused), split as they are
    (``lattice.split_rows``: the same bits as the float64 columns)."""
    start = prime_seed if prime else hash_seed
    hashes_2d = prime_corner_hashes_2d if prime else _corner_hashes_2d
    hashes_3d = prime_corner_hashes_3d if prime else _corner_hashes_3d

    def lattice_block_nd(gradient, _dim, xs, ys, zs, seed, frequency, period, params, values):
        n = values.shape[0]
        cells = scratch((3, BLOCK), (dim, n), np.int32)
        offsets = scratch((3, BLOCK), (dim, n), np.float32)
        if rows:
            split_rows(dim, xs, frequency, period, cells, offsets)
        else:
            split_block(dim, xs, ys, zs, frequency, period, cells, offsets)
        h = start(seed)
        wrap_at = wrap_point(period)
        blend = PRIME_PERLIN if prime and gradient == PERLIN else gradient  # gradients.blend_code
        for i in range(n):
            x0 = np.int64(cells[0, i])
            y0 = np.int64(cells[1, i])
            gx = offsets[0, i]
            gy = offsets[1, i]
            if dim == 2:
                h00, h01, h10, h11 = hashes_2d(h, x0, next_point(x0, wrap_at), y0, next_point(y0, wrap_at))
                values[i] = _blend_2d(blend, h00, h01, h10, h11, gx, smooth32(gx), gy, smooth32(gy))
            else:
                z0 = np.int64(cells[2, i])
                gz = offsets[2, i]
                corner_hashes = hashes_3d(
                    h, x0, next_point(x0, wrap_at), y0, next_point(y0, wrap_at), z0, next_point(z0, wrap_at)
                )
                values[i] = _blend_3d(blend, corner_hashes, gx, smooth32(gx), gy, smooth32(gy), gz, smooth32(gz))

    name = f"lattice_block_{dim}d" + ("_prime" if prime else "") + ("_rows" if rows else "")
    return inline(named(lattice_block_nd, name))
