"""Cell noise: Worley's algorithm with Poisson-distributed feature points (seed 003).

For a sample ``p`` (coordinates multiplied by the octave's frequency) the 3^d cells
around ``floor(p)`` are visited, x outermost, as the seed's ``CellNoiseFunc``. Each
cell ``(cx, cy[, cz])``:

1. seeds a generator with the FNV hash of ``(cx + seed, cy[, cz])``: starting from the
   offset basis 2166136261, each 32-bit word is xor-ed in and the state multiplied by
   the prime 16777619 (mod 2**32), exactly as the seed's ``hash``; 2D drops ``cz``;
2. draws ``r = lcg(hash)`` with the seed's LCG ``r' = 1103515245 r + 12345 mod 2**32``
   and turns it into a point count by the Poisson lookup: ``count = 1 + #{k : r >= T_k}``
   with ``T_k = floor(CDF_Poisson(k; density) * 2**32)`` for ``k = 1..8``, so the count is
   Poisson(``density``) clamped to 1..9 (density 4 gives the seed's ``probLookup``);
3. places each point at the cell corner plus d further LCG values / 2**32 (x, y, z).

The three smallest distances ``F1 <= F2 <= F3`` are kept sorted by insertion (as the
seed's ``insert``, here with min/max selects), and ``function`` combines them (F1, F2,
F3 or F2 - F1), clamped to [0, 1] as the seed does.

Tiling (``period > 0``, beyond the seed): the cell coordinates are wrapped into
``[0, period)`` before hashing while the feature points stay where the unwrapped cell
is, so the noise repeats every ``period`` cells; without tiling nothing changes.

Speed, not changing any value: positions are taken relative to the sample's cell,
the cells are visited nearest first, and a cell is skipped when its nearest possible
point is no nearer than the largest distance the function reads (F1, F2 or F3).
The LCG draws of a cell's points jump ahead from the cell's first draw
(``lcg^n(v) = A_n v + C_n``, tables ``JUMP_MULTIPLIERS``/``JUMP_INCREMENTS``), which
gives the same numbers as drawing one after another, without each point waiting
for the previous point's multiplications.

Departures from the seed, all deliberate:

* ``"euclidean"`` is the true distance. The seed's ``EuclidianDistanceFunc`` returns the
  *squared* distance; that is available as ``"squared"``.
* Arithmetic is float64 where the seed's C# uses ``float``: a port of the seed with
  doubles reproduces these values to rounding; with floats it agrees to about 1e-6
  (the feature points' float32 rounding) near the origin.
"""

from __future__ import annotations

from decimal import Decimal, localcontext
from typing import TYPE_CHECKING

import numpy as np

from ._jit import jit
from .lattice import wrap

if TYPE_CHECKING:
    from .spec import NoiseSpec

EUCLIDEAN = 0
SQUARED = 1
MANHATTAN = 2
CHEBYSHEV = 3
METRIC_CODES = {"euclidean": EUCLIDEAN, "squared": SQUARED, "manhattan": MANHATTAN, "chebyshev": CHEBYSHEV}

F1 = 0
F2 = 1
F3 = 2
F2_MINUS_F1 = 3
FUNCTION_CODES = {"f1": F1, "f2": F2, "f3": F3, "f2_minus_f1": F2_MINUS_F1}

POISSON_LEVELS = 8
"""Thresholds ``T_1..T_8``: counts 1..9 (the seed's clamp)."""

FNV_OFFSET_BASIS = np.uint32(2166136261)
FNV_PRIME = np.uint32(16777619)
LCG_MULTIPLIER = np.uint32(1103515245)
LCG_INCREMENT = np.uint32(12345)
_MASK32 = 0xFFFFFFFF
_INV_2_32 = 1.0 / 2.0**32
MAX_POINTS = POISSON_LEVELS + 1


def _lcg_jumps(steps: int) -> tuple[np.ndarray, np.ndarray]:
    """``(A_n, C_n)`` for ``n = 0..steps`` with ``lcg^n(v) = A_n v + C_n mod 2**32`` (jump ahead n draws)."""
    multipliers, increments = [1], [0]
    for _ in range(steps):
        multipliers.append(multipliers[-1] * int(LCG_MULTIPLIER) & _MASK32)
        increments.append((increments[-1] * int(LCG_MULTIPLIER) + int(LCG_INCREMENT)) & _MASK32)
    return np.array(multipliers, dtype=np.uint32), np.array(increments, dtype=np.uint32)


JUMP_MULTIPLIERS, JUMP_INCREMENTS = _lcg_jumps(3 * MAX_POINTS)


def poisson_thresholds(density: float) -> list[int]:
    """``[floor(CDF_Poisson(k; density) * 2**32) for k in 1..8]``, computed exactly.

    50-digit decimal arithmetic makes the floor exact (float64 could misround a CDF a
    hair below an integer); ``density = 4`` gives the seed's table, which the seed
    generated with Mathematica's ``CDF[PoissonDistribution[4], i] * 2^32``.
    """
    with localcontext() as context:
        context.prec = 50
        mean = Decimal(density)
        term = (-mean).exp()
        cdf = term
        thresholds = []
        for k in range(1, POISSON_LEVELS + 1):
            term = term * mean / k
            cdf += term
            thresholds.append(int(cdf * 2**32))
    return thresholds


def pack_cellular(spec: NoiseSpec) -> tuple[int, np.ndarray]:
    """Variant = metric code (compiled per metric); params = ``[function code, T_1..T_8]``."""
    params = np.array([FUNCTION_CODES[spec.function], *poisson_thresholds(spec.density)], dtype=np.float64)
    return METRIC_CODES[spec.distance], params


@jit
def _lcg(value):
    """The seed's ``lcgRandom``: ``1103515245 v + 12345 mod 2**32``."""
    return np.uint32(np.uint32(value * LCG_MULTIPLIER) + LCG_INCREMENT)


@jit
def _draw(state, n):
    """The ``n``-th LCG value after ``state`` as a fraction ``/ 2**32``: ``lcg^n(state) / 2**32``.

    A jump ahead, so the points of a cell do not wait for each other's draws.
    """
    jumped = np.uint32(np.uint32(state * JUMP_MULTIPLIERS[n]) + JUMP_INCREMENTS[n])
    return np.float64(jumped) * _INV_2_32


@jit
def _fnv_mix(state, word):
    """One FNV step of the seed's ``hash``: xor the 32-bit word in, multiply by the prime."""
    return np.uint32(np.uint32(state ^ np.uint32(word & _MASK32)) * FNV_PRIME)


@jit
def _point_count(value, params):
    """The Poisson lookup: 1 plus the number of thresholds ``params[1..8]`` that ``value`` reaches."""
    level = np.float64(value)
    count = 1
    for k in range(POISSON_LEVELS):
        count += 1 if level >= params[1 + k] else 0
    return count


@jit
def _distance(metric, dx, dy, dz):
    """Distance by ``metric`` of an offset; Euclidean is kept squared here (same order, sqrt at the end)."""
    if metric == MANHATTAN:
        return abs(dx) + abs(dy) + abs(dz)
    if metric == CHEBYSHEV:
        return max(max(abs(dx), abs(dy)), abs(dz))
    return dx * dx + dy * dy + dz * dz


@jit
def _insert(d1, d2, d3, distance):
    """The seed's insertion sort into the three smallest, as selects: ``(d1, d2, d3)`` stay sorted."""
    return min(d1, distance), min(d2, max(d1, distance)), min(d3, max(d2, distance))


@jit
def _combine(metric, params, d1, d2, d3):
    """``function`` of the sorted distances (true distances for Euclidean), clamped to [0, 1]."""
    if metric == EUCLIDEAN:
        d1, d2, d3 = np.sqrt(d1), np.sqrt(d2), np.sqrt(d3)
    function = params[0]
    value = d1
    value = d2 if function == F2 else value
    value = d3 if function == F3 else value
    value = d2 - d1 if function == F2_MINUS_F1 else value
    return min(max(value, 0.0), 1.0)


def _search_order(dim: int) -> np.ndarray:
    """The 3^d cell offsets, nearest first: the home cell, then faces, edges, corners."""
    offsets = np.array(list(np.ndindex(*([3] * dim))), dtype=np.int64) - 1
    return offsets[np.argsort(np.abs(offsets).sum(axis=1), kind="stable")]


SEARCH_2D = _search_order(2)
SEARCH_3D = _search_order(3)


@jit
def _gap(offset, local):
    """Distance along one axis from a point at ``local`` in [0, 1) of its cell to the cell ``offset`` away."""
    if offset < 0:
        return local
    return 1.0 - local if offset > 0 else 0.0


@jit
def _needed(params, d1, d2, d3):
    """The largest distance ``function`` reads: cells entirely beyond it cannot change the result."""
    function = params[0]
    if function == F1:
        return d1
    return d3 if function == F3 else d2


@jit
def _cell_hash(cell, period):
    """A cell coordinate as hashed: wrapped into [0, period) when tiling (period > 0)."""
    if period > 0.0:  # a branch, not a select: untiled noise skips wrap's division
        return np.int64(wrap(np.float64(cell), period))
    return np.int64(cell)


@jit
def cellular_2d(metric, x, y, seed, frequency, period, params):
    """2D cell noise at ``(x, y)``: the 3x3 cells around the sample's cell.

    Coordinates are taken relative to the sample's cell (exact at any distance from the
    origin); cells are visited nearest first and skipped when no point in them can be
    nearer than the distance the function needs, which leaves the result unchanged.
    """
    px = x * frequency
    py = y * frequency
    ex = np.floor(px)
    ey = np.floor(py)
    lx = px - ex
    ly = py - ey
    d1 = d2 = d3 = np.inf
    for n in range(SEARCH_2D.shape[0]):
        i = SEARCH_2D[n, 0]
        j = SEARCH_2D[n, 1]
        if _distance(metric, _gap(i, lx), _gap(j, ly), 0.0) >= _needed(params, d1, d2, d3):
            continue
        state = _lcg(
            _fnv_mix(_fnv_mix(FNV_OFFSET_BASIS, _cell_hash(ex + i, period) + seed), _cell_hash(ey + j, period))
        )
        for point in range(_point_count(state, params)):
            fx = i + _draw(state, 2 * point + 1)
            fy = j + _draw(state, 2 * point + 2)
            d1, d2, d3 = _insert(d1, d2, d3, _distance(metric, lx - fx, ly - fy, 0.0))
    return _combine(metric, params, d1, d2, d3)


@jit
def cellular_3d(metric, x, y, z, seed, frequency, period, params):
    """3D cell noise at ``(x, y, z)``: the 3x3x3 cells around the sample's cell (as ``cellular_2d``)."""
    px = x * frequency
    py = y * frequency
    pz = z * frequency
    ex = np.floor(px)
    ey = np.floor(py)
    ez = np.floor(pz)
    lx = px - ex
    ly = py - ey
    lz = pz - ez
    d1 = d2 = d3 = np.inf
    for n in range(SEARCH_3D.shape[0]):
        i = SEARCH_3D[n, 0]
        j = SEARCH_3D[n, 1]
        k = SEARCH_3D[n, 2]
        if _distance(metric, _gap(i, lx), _gap(j, ly), _gap(k, lz)) >= _needed(params, d1, d2, d3):
            continue
        state = FNV_OFFSET_BASIS
        state = _fnv_mix(state, _cell_hash(ex + i, period) + seed)
        state = _fnv_mix(state, _cell_hash(ey + j, period))
        state = _lcg(_fnv_mix(state, _cell_hash(ez + k, period)))
        for point in range(_point_count(state, params)):
            fx = i + _draw(state, 3 * point + 1)
            fy = j + _draw(state, 3 * point + 2)
            fz = k + _draw(state, 3 * point + 3)
            d1, d2, d3 = _insert(d1, d2, d3, _distance(metric, lx - fx, ly - fy, lz - fz))
    return _combine(metric, params, d1, d2, d3)
