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


@jit
def _cell_2d(metric, px, py, cx, cy, seed, params, d1, d2, d3):
    """Insert the distances from ``(px, py)`` to the feature points of cell ``(cx, cy)``."""
    state = _lcg(_fnv_mix(_fnv_mix(FNV_OFFSET_BASIS, cx + seed), cy))
    for _ in range(_point_count(state, params)):
        state = _lcg(state)
        fx = cx + np.float64(state) * _INV_2_32
        state = _lcg(state)
        fy = cy + np.float64(state) * _INV_2_32
        d1, d2, d3 = _insert(d1, d2, d3, _distance(metric, px - fx, py - fy, 0.0))
    return d1, d2, d3


@jit
def _cell_3d(metric, px, py, pz, cx, cy, cz, seed, params, d1, d2, d3):
    """Insert the distances from ``(px, py, pz)`` to the feature points of cell ``(cx, cy, cz)``."""
    state = _lcg(_fnv_mix(_fnv_mix(_fnv_mix(FNV_OFFSET_BASIS, cx + seed), cy), cz))
    for _ in range(_point_count(state, params)):
        state = _lcg(state)
        fx = cx + np.float64(state) * _INV_2_32
        state = _lcg(state)
        fy = cy + np.float64(state) * _INV_2_32
        state = _lcg(state)
        fz = cz + np.float64(state) * _INV_2_32
        d1, d2, d3 = _insert(d1, d2, d3, _distance(metric, px - fx, py - fy, pz - fz))
    return d1, d2, d3


@jit
def cellular_2d(metric, x, y, seed, frequency, params):
    """2D cell noise at ``(x, y)``: the 3x3 cells around the sample's cell."""
    px = x * frequency
    py = y * frequency
    ex = np.int64(np.floor(px))
    ey = np.int64(np.floor(py))
    d1 = d2 = d3 = np.inf
    for i in range(-1, 2):
        for j in range(-1, 2):
            d1, d2, d3 = _cell_2d(metric, px, py, ex + i, ey + j, seed, params, d1, d2, d3)
    return _combine(metric, params, d1, d2, d3)


@jit
def cellular_3d(metric, x, y, z, seed, frequency, params):
    """3D cell noise at ``(x, y, z)``: the 3x3x3 cells around the sample's cell."""
    px = x * frequency
    py = y * frequency
    pz = z * frequency
    ex = np.int64(np.floor(px))
    ey = np.int64(np.floor(py))
    ez = np.int64(np.floor(pz))
    d1 = d2 = d3 = np.inf
    for i in range(-1, 2):
        for j in range(-1, 2):
            for k in range(-1, 2):
                d1, d2, d3 = _cell_3d(metric, px, py, pz, ex + i, ey + j, ez + k, seed, params, d1, d2, d3)
    return _combine(metric, params, d1, d2, d3)
