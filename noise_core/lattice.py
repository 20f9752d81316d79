"""Lattice spans: where a coordinate sits between two lattice points (seed 004, "Tiling").

``span(c, period)`` splits a coordinate already multiplied by the frequency into
the two surrounding lattice points ``p0 = floor(c)``, ``p1 = p0 + 1``, the offsets
``g0 = c - p0`` and ``g1 = g0 - 1`` from them, and the quintic interpolation weight
``t = 6g0^5 - 15g0^4 + 10g0^3`` (C2-continuous, seed 004 "Smooth Noise").

``period == 0`` is the seeds' ``LatticeNormal``. ``period > 0`` is ``LatticeTiling``:
``p0`` wraps into ``[0, period)`` and ``p1`` wraps ``period`` to ``0``, so the noise
repeats every ``period`` lattice cells. As the seed recommends, the wrap uses a
floating-point division instead of an integer ``%`` so the loop stays vectorisable.

Coordinates are float64 throughout: at 1e5 lattice units the fraction is still
exact to about 1e-11, so the noise is smooth far from the origin. (``split_rows`` splits float32 points in
float32 where that gives the same bits: at power-of-two frequencies.)
"""

from __future__ import annotations

import math

import numpy as np

from ._jit import exact, flip_sign_where_negative, fmuladd, fused_multiply_add, inline, jit, low_word


@jit
def smooth(t):
    """Quintic interpolation weight ``t^3 (t (6t - 15) + 10)``."""
    return t * t * t * (t * (t * 6.0 - 15.0) + 10.0)


@jit
def wrap(point, period):
    """A lattice coordinate (a whole float) modulo ``period``; unchanged when period is 0."""
    safe = max(period, 1.0)
    wrapped = point - np.floor(point / safe) * safe
    wrapped = wrapped - safe if wrapped >= safe else wrapped
    wrapped = wrapped + safe if wrapped < 0.0 else wrapped
    return wrapped if period > 0.0 else point


NO_WRAP = np.int64(-(2**40))
"""``wrap_point`` of noise that does not tile: no lattice point ``p0 + 1`` of a 32-bit ``p0`` equals it."""


@jit
def wrap_point(period):
    """The lattice point that tiling with ``period`` wraps to 0 (``p1 = 0`` where ``p0 + 1 == period``):
    ``period`` as an integer when it is a whole number > 0, else ``NO_WRAP``."""
    whole = period > 0.0 and period == np.floor(period)
    return np.int64(period) if whole else NO_WRAP


@jit
def next_point(p0, wrap_at):
    """The lattice point after ``p0`` (int64) given ``wrap_point(period)``: ``p0 + 1``, or 0 where tiling wraps
    (``span``'s ``p1``; the block passes derive it from ``p0`` with this too)."""
    p1 = p0 + 1
    return np.int64(0) if p1 == wrap_at else p1


@jit
def span(coordinate, period):
    """``(p0, p1, g0, g1, t)`` for one coordinate; ``p0``/``p1`` are int64 lattice points.

    ``floor(coordinate)`` must lie in ``[-2**31, 2**31)`` (``api`` checks it): ``p0`` is
    converted through int32, which AVX2 does four lanes at a time (a float64 to int64
    conversion has no vector instruction there and would stop the loop vectorising).
    """
    floor = np.floor(coordinate)
    g0 = coordinate - floor
    p0 = np.int64(np.int32(wrap(floor, period)))
    return p0, next_point(p0, wrap_point(period)), g0, g0 - 1.0, smooth(g0)


_ZERO32 = np.float32(0.0)
_HALF32 = np.float32(0.5)
_ONE32 = np.float32(1.0)
_SIX32 = np.float32(6.0)
_FIFTEEN32 = np.float32(15.0)
_TEN32 = np.float32(10.0)


@exact
def _quintic32(t):
    """``t^3 (t (6t - 15) + 10)`` in float32, for ``t <= 1/2`` (where the inner polynomial is 4..10: no
    cancellation)."""
    return t * t * t * fmuladd(fmuladd(t, _SIX32, -_FIFTEEN32), t, _TEN32)


@exact
def smooth32(t):
    """The quintic weight of ``t`` in [0, 1] in float32, by its symmetry ``s(t) = 1 - s(1 - t)`` on the upper
    half (``1 - t`` is exact there): within about 1e-7 of the exact weight and as smooth, where the direct
    evaluation loses up to 8 float32 steps to cancellation near ``t = 1``."""
    upper = t > _HALF32
    weight = _quintic32(_ONE32 - t if upper else t)
    return _ONE32 - weight if upper else weight


@jit
def offset32(g0):
    """The float32 offset and weight the float32 blends take from ``span``'s float64 offset ``g0``:
    ``(float32(g0), smooth32(float32(g0)))``."""
    g = np.float32(g0)
    return g, smooth32(g)


@jit
def span32(coordinate, frequency, period):
    """``(p0, p1, g0, t)`` of ``span(coordinate * frequency)`` for the float32 blends: the split stays float64,
    so the offset ``g0``, rounded to float32, is exact far from the origin; ``(g0, t)`` is ``offset32``'s."""
    p0, p1, g0, _, _ = span(coordinate * frequency, period)
    g, t = offset32(g0)
    return p0, p1, g, t


_CELL_MAGIC = 1.5 * 2.0**52


@jit
def cell_index(whole):
    """A whole float64 lattice coordinate (``|whole| < 2**51``) as the int64 of its low 32 bits (sign-extended),
    which is all ``eat`` reads of it. Adding ``1.5 * 2**52`` places the integer, in two's complement, in the low
    bits of the sum's mantissa (exact, one ulp being 1 there): a bit pattern, read without a conversion (float64 to
    int64 has no AVX2 instruction: a loop converting so would not vectorise)."""
    return low_word(whole + _CELL_MAGIC)


@jit
def validate_single_step(point, period):
    """``ValidateSingleStep``: a neighbour one step outside ``[0, period)`` wraps back.

    Used by searches that visit the lattice points next to ``p0`` (Voronoi): with
    tiling, ``-1`` becomes ``period - 1`` and ``period`` becomes ``0``; without
    tiling (``period == 0``) the point is returned unchanged.
    """
    p = np.int64(period)
    wrapped = np.int64(0) if point == p else point
    wrapped = p - 1 if point == -1 else wrapped
    return wrapped if p > 0 else point


@jit
def split_cells(coordinates, frequency, period, cells, offsets):
    """A block pass: each coordinate times ``frequency`` as its lattice cell (``span``'s ``p0``, int32)
    and its offset in the cell (float32), for the block passes that work in 32-bit lanes (lattice noise's
    blends, Voronoi's and cell noise's searches)."""
    for i in range(cells.shape[0]):
        scaled = coordinates[i] * frequency
        floor = np.floor(scaled)
        cells[i] = np.int32(wrap(floor, period))  # span's p0 and g0, without compiling the rest of span
        offsets[i] = np.float32(scaled - floor)


@inline
def split_block(dim, xs, ys, zs, frequency, period, cells, offsets):
    """``split_cells`` of a block's ``dim`` (2 or 3) axes: ``cells`` and ``offsets`` (int32 and float32, one row per
    axis and a column per sample); ``zs`` is read in 3D only."""
    split_cells(xs, frequency, period, cells[0], offsets[0])
    split_cells(ys, frequency, period, cells[1], offsets[1])
    if dim == 3:
        split_cells(zs, frequency, period, cells[2], offsets[2])


@jit
def power_of_two32(frequency):
    """Whether ``frequency`` is a power of two that is a normal float32 (``2**-126 .. 2**127``)."""
    mantissa, _ = math.frexp(frequency)
    return mantissa == 0.5 and np.float64(np.float32(frequency)) == frequency and frequency >= 2.0**-126


@inline
def split_rows(dim, rows, frequency, period, cells, offsets):
    """``split_block`` of a block's points read straight from their float32 (n, ``dim``) rows, flattened, bit for
    bit: ``cells`` and ``offsets`` are ``split_block``'s of the float64 columns ``blocks.read_block`` copies,
    without that copy. Row by row, a row's coordinates together (LLVM reads them with wide loads and shuffles).

    Without tiling and where the frequency ``f`` is a power of two (``power_of_two32``, as the default frequency
    and lacunarity give), in float32: ``x f`` is then exact in float32 but where it underflows, so
    ``cell = floor(x f)`` and the offset ``fused_multiply_add(x, f, -cell)`` (the exact ``x f - cell`` rounded
    once to float32) are the float64 split's; a sign bit set on that offset means ``x f`` underflowed below its
    rounded cell (``x f < cell``: the cell one lower, the offset again). Else each coordinate is widened to float64
    and split as ``split_block`` splits it."""
    if period == 0.0 and power_of_two32(frequency):
        f = np.float32(frequency)
        for i in range(cells.shape[1]):
            for axis in range(dim):
                x = rows[i * dim + axis]
                cell = np.floor(x * f)
                below = flip_sign_where_negative(_ONE32, fused_multiply_add(x, f, -cell)) < _ZERO32
                cell = cell - _ONE32 if below else cell
                cells[axis, i] = np.int32(cell)
                offsets[axis, i] = fused_multiply_add(x, f, -cell)
        return
    for i in range(cells.shape[1]):
        for axis in range(dim):
            scaled = np.float64(rows[i * dim + axis]) * frequency
            floor = np.floor(scaled)
            cells[axis, i] = np.int32(wrap(floor, period))
            offsets[axis, i] = np.float32(scaled - floor)
