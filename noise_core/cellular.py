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

How it is computed (``cellular_block``, the kernel's block sampler), with the same
result as visiting the cells one by one: positions are split into the sample's cell
(int32) and the offset in it, so precision does not degrade far from the origin. The
home cell and its face neighbours (5 cells in 2D, 7 in 3D, the nearest in
``SEARCH_*`` order) are searched for every sample without a branch, vectorised over
the samples: each point slot 1..9 is evaluated, a slot beyond the cell's count
being infinitely far. The remaining edge and corner cells are visited per sample,
nearest first, and skipped when their nearest possible point is no nearer than the
largest distance the function reads (F1, F2 or F3). The LCG draws of a cell's points
jump ahead from the cell's first draw (``lcg^n(v) = A_n v + C_n``, tables
``JUMP_MULTIPLIERS``/``JUMP_INCREMENTS``): the same numbers as drawing one after
another, without each point waiting for the previous one's multiplications.

Departures from the seed, all deliberate:

* ``"euclidean"`` is the true distance. The seed's ``EuclidianDistanceFunc`` returns the
  *squared* distance; that is available as ``"squared"``.
* Offsets and distances are float32 like the seed's C# ``float`` (which is what lets
  the search run eight samples per AVX2 instruction), but relative to the sample's
  cell; a port of the seed in doubles agrees to about 2e-7.
"""

from __future__ import annotations

from decimal import Decimal, localcontext
from typing import TYPE_CHECKING

import numpy as np

from ._jit import inline, jit, scratch
from .lattice import split_cells, wrap
from .schema import FAMILY_CELLULAR, Kind, Option, unit_range

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
NEAR_CELLS_PARAM = 1 + POISSON_LEVELS
"""Where ``_pack`` puts the number of near cells in the parameters."""


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


def _variant(spec: NoiseSpec) -> int:
    """The metric code is the variant (compiled per metric)."""
    return METRIC_CODES[spec.distance]


def _pack(spec: NoiseSpec, dim: int) -> np.ndarray:
    """``[function code, T_1..T_8, near cells]``: near cells is ``NEAR_CELLS_2D`` or ``_3D``, passed at run time
    so that LLVM does not unroll the loop over them (``_search_near_cells``)."""
    near = NEAR_CELLS_3D if dim == 3 else NEAR_CELLS_2D
    return np.array([FUNCTION_CODES[spec.function], *poisson_thresholds(spec.density), near], dtype=np.float64)


KIND = Kind(
    "cellular",
    FAMILY_CELLULAR,
    EUCLIDEAN,
    (2, 3),
    (
        Option(
            "distance",
            str,
            "euclidean",
            "Distance metric between a point and the feature points",
            choices=tuple(METRIC_CODES),
        ),
        Option(
            "function",
            str,
            "f1",
            "Which distance becomes the noise value",
            choices=tuple(FUNCTION_CODES),
        ),
        Option(
            "density",
            float,
            4.0,
            "Mean feature points per cell",
            minimum=0.0,
            maximum=16.0,
            above=True,
            ui_minimum=1e-3,
            soft_minimum=0.5,
        ),
    ),
    True,
    "Worley cell noise: Poisson-distributed feature points per cell, F1/F2/F3/F2-F1 (range 0..1).",
    unit_range,
    variant=_variant,
    pack=_pack,
)
"""Worley cell noise: every function is clamped to [0, 1], as seed 003 does."""


@jit
def _lcg(value):
    """The seed's ``lcgRandom``: ``1103515245 v + 12345 mod 2**32``."""
    return np.uint32(np.uint32(value * LCG_MULTIPLIER) + LCG_INCREMENT)


@jit
def _draw(state, n):
    """The ``n``-th LCG value after ``state`` as a fraction: ``lcg^n(state) / 2**32``, rounded once to float32.

    A jump ahead, so the points of a cell do not wait for each other's draws; float32
    is the seed's ``(float)random / 4294967296``.
    """
    jumped = np.uint32(np.uint32(state * JUMP_MULTIPLIERS[n]) + JUMP_INCREMENTS[n])
    return np.float32(jumped) * np.float32(_INV_2_32)


@jit
def _fnv_mix(state, word):
    """One FNV step of the seed's ``hash``: xor the 32-bit word in, multiply by the prime."""
    return np.uint32(np.uint32(state ^ np.uint32(word & _MASK32)) * FNV_PRIME)


@jit
def _point_count(value, thresholds):
    """The Poisson lookup: 1 plus the number of thresholds ``T_1..T_8`` (uint32) that ``value`` reaches."""
    count = np.int32(1)
    for k in range(POISSON_LEVELS):
        count += np.int32(1) if value >= thresholds[k] else np.int32(0)
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
    return min(max(value, np.float32(0.0)), np.float32(1.0))


def _search_order(dim: int) -> np.ndarray:
    """The 3^d cell offsets as (i, j, k) rows (k = 0 in 2D), nearest first: home cell, faces, edges, corners."""
    offsets = np.array(list(np.ndindex(*([3] * dim))), dtype=np.int64) - 1
    offsets = offsets[np.argsort(np.abs(offsets).sum(axis=1), kind="stable")]
    return np.column_stack([offsets, np.zeros((len(offsets), 3 - dim), dtype=np.int64)])


SEARCH_2D = _search_order(2)
SEARCH_3D = _search_order(3)
NEAR_CELLS_2D = 5
NEAR_CELLS_3D = 7
"""The home cell and its face neighbours (the first rows of ``SEARCH_*``): searched for every sample."""

SUB_BLOCK = 256
"""Samples per pass of ``cellular_block``: their arrays stay in the L1 cache."""


@jit
def _gap(offset, local):
    """Distance along one axis from a point at ``local`` in [0, 1) of its cell to the cell ``offset`` away."""
    if offset < 0:
        return local
    return np.float32(1.0) - local if offset > 0 else np.float32(0.0)


@jit
def _needed(params, d1, d2, d3):
    """The largest distance ``function`` reads: cells entirely beyond it cannot change the result."""
    function = params[0]
    if function == F1:
        return d1
    return d3 if function == F3 else d2


@jit
def _cell_hash(cell, offset, period):
    """Cell coordinate ``cell + offset`` as hashed: wrapped into [0, period) when tiling (period > 0)."""
    coordinate = np.int64(cell) + offset
    if period > 0.0:  # a branch, not a select: untiled noise skips wrap's division
        return np.int64(wrap(np.float64(coordinate), period))
    return coordinate


@jit
def _cell_state(dim, cells, s, i, j, k, seed, period):
    """The seed's ``lcg(hash(cx + seed, cy[, cz]))`` of the cell ``(i, j, k)`` away from sample ``s``'s cell."""
    state = _fnv_mix(FNV_OFFSET_BASIS, _cell_hash(cells[0, s], i, period) + seed)
    state = _fnv_mix(state, _cell_hash(cells[1, s], j, period))
    if dim == 3:
        state = _fnv_mix(state, _cell_hash(cells[2, s], k, period))
    return _lcg(state)


@jit
def _point_distance(metric, dim, local, s, state, point, i, j, k):
    """Distance from sample ``s`` to point ``point`` of the cell ``(i, j, k)`` away whose generator is ``state``."""
    dx = local[0, s] - (np.float32(i) + _draw(state, dim * point + 1))
    dy = local[1, s] - (np.float32(j) + _draw(state, dim * point + 2))
    dz = np.float32(0.0)
    if dim == 3:
        dz = local[2, s] - (np.float32(k) + _draw(state, dim * point + 3))
    return _distance(metric, dx, dy, dz)


@inline
def _search_near_cells(metric, dim, m, cells, local, nearest, states, counts, seed, period, thresholds, near_cells):
    """Every sample against every point slot of the home and face cells: branch-free, vectorised over samples.

    Per cell, one pass finds each sample's cell generator and point count; the next
    evaluates all ``MAX_POINTS`` slots, a slot beyond the sample's count being at
    infinite distance (its insertion changes nothing).
    """
    search = SEARCH_3D if dim == 3 else SEARCH_2D
    far = np.float32(np.inf)
    for c in range(near_cells):
        i = search[c, 0]
        j = search[c, 1]
        k = search[c, 2]
        for s in range(m):
            state = _cell_state(dim, cells, s, i, j, k, seed, period)
            states[s] = state
            counts[s] = _point_count(state, thresholds)
        for s in range(m):
            state = states[s]
            count = counts[s]
            d1 = nearest[0, s]
            d2 = nearest[1, s]
            d3 = nearest[2, s]
            for point in range(MAX_POINTS):
                beyond = far if point >= count else np.float32(0.0)
                distance = _point_distance(metric, dim, local, s, state, point, i, j, k)
                d1, d2, d3 = _insert(d1, d2, d3, max(distance, beyond))
            nearest[0, s] = d1
            nearest[1, s] = d2
            nearest[2, s] = d3


@inline
def _search_far_cells(metric, dim, m, cells, local, nearest, seed, period, params, thresholds):
    """The edge (and corner) cells, per sample, skipping those that cannot hold a nearer point."""
    search = SEARCH_3D if dim == 3 else SEARCH_2D
    for s in range(m):
        d1 = nearest[0, s]
        d2 = nearest[1, s]
        d3 = nearest[2, s]
        for c in range(NEAR_CELLS_3D if dim == 3 else NEAR_CELLS_2D, search.shape[0]):
            i = search[c, 0]
            j = search[c, 1]
            k = search[c, 2]
            gap = _distance(metric, _gap(i, local[0, s]), _gap(j, local[1, s]), _gap(k, local[2, s]))
            if gap >= _needed(params, d1, d2, d3):
                continue
            state = _cell_state(dim, cells, s, i, j, k, seed, period)
            for point in range(_point_count(state, thresholds)):
                d1, d2, d3 = _insert(d1, d2, d3, _point_distance(metric, dim, local, s, state, point, i, j, k))
        nearest[0, s] = d1
        nearest[1, s] = d2
        nearest[2, s] = d3


@inline
def cellular_block(metric, dim, xs, ys, zs, seed, frequency, period, params, values):
    """``values[i]``: 2D/3D cell noise at ``(xs[i], ys[i][, zs[i]])`` for a block (see the module doc); the block
    samplers' arguments (``sampling.BLOCK_SAMPLERS``)."""
    n = values.shape[0]
    cells = scratch((3, SUB_BLOCK), (3, SUB_BLOCK), np.int32)
    local = scratch((3, SUB_BLOCK), (3, SUB_BLOCK), np.float32)
    nearest = scratch((3, SUB_BLOCK), (3, SUB_BLOCK), np.float32)
    states = scratch(SUB_BLOCK, SUB_BLOCK, np.uint32)
    counts = scratch(SUB_BLOCK, SUB_BLOCK, np.int32)
    thresholds = scratch(POISSON_LEVELS, POISSON_LEVELS, np.uint32)
    if dim == 2:  # the third axis reads 0 (``_gap``'s offset 0 ignores it; zeroed all the same)
        for s in range(SUB_BLOCK):
            cells[2, s] = 0
            local[2, s] = np.float32(0.0)
    for level in range(POISSON_LEVELS):
        thresholds[level] = np.uint32(params[1 + level])
    near = np.int64(params[NEAR_CELLS_PARAM])
    for start in range(0, n, SUB_BLOCK):
        m = min(SUB_BLOCK, n - start)
        # Cells unwrapped (period 0): tiling wraps them only where they are hashed.
        split_cells(xs[start:], frequency, 0.0, cells[0, :m], local[0, :m])
        split_cells(ys[start:], frequency, 0.0, cells[1, :m], local[1, :m])
        if dim == 3:
            split_cells(zs[start:], frequency, 0.0, cells[2, :m], local[2, :m])
        nearest[:, :m] = np.float32(np.inf)
        _search_near_cells(metric, dim, m, cells, local, nearest, states, counts, seed, period, thresholds, near)
        _search_far_cells(metric, dim, m, cells, local, nearest, seed, period, params, thresholds)
        for s in range(m):
            values[start + s] = _combine(metric, params, nearest[0, s], nearest[1, s], nearest[2, s])
