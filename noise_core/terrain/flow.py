"""Flow routing on heightmaps: depression filling, D8 receivers, the stack order and flow accumulation.

**Depressions** (``fill_depressions``): Priority-Flood (Barnes, Lehman & Mulla 2014, "Priority-flood: An optimal
depression-filling and watershed-labeling algorithm for digital elevation models", Algorithms 2 and 3). The map's
edge cells are the outlets; every other cell is raised to the lowest height from which water can leave the map
(8-connected): ``filled(c) = max(h(c), min over paths from c to an edge of the highest cell on the path)``. That
surface is unique, so any correct implementation gives the same bits. With ``epsilon`` each cell reached from a
cell ``c`` is raised to at least ``nextafter(filled(c), +inf)`` (the next representable height above) instead of
``filled(c)``: lakes and flats become surfaces that fall, by the smallest steps the dtype has, towards their
outlet, so every cell has a strictly lower neighbour on a path to an edge. The plain fill traces slopes up
outside the priority queue (Zhou, Sun & Fu 2016, "An efficient variant of the Priority-Flood algorithm for filling
depressions in raster digital elevation models"): a cell higher than the cell it is met from is final at its own
height, so only cells that must wait for a lower neighbour enter the queue; the epsilon fill keeps Algorithm 3's
order (its result depends on it).

**D8 receivers** (O'Callaghan & Mark 1984, "The extraction of drainage networks from digital elevation data"):
each cell drains to the neighbour with the steepest drop ``(h - h_n) / distance`` (distance 1 or √2 cells; ties to
the first in ``NEIGHBOURS`` order) when that drop is positive; otherwise it is its own receiver (an outlet, a pit
or a flat). Edge cells are outlets (unless the map is looped: then every cell has 8 neighbours, across the
edges). **Stack** (Braun & Willett 2013, "A very efficient O(n), implicit and parallel method to solve the stream
power equation governing fluvial incision and landscape evolution"): an order of the cells in which every cell
comes after its receiver (each outlet, then the cells draining to it, depth first), built in O(n) from the donor
lists.
**Flow accumulation**: in reverse stack order each cell adds its area to its receiver's: ``A(c) = w(c) + sum of A
over the cells draining into c``, with ``w`` the rain per cell (1: each cell counts itself).
**MFD** (multiple flow directions, ``flow_accumulation(method="mfd")``): each cell splits its area between all its
lower neighbours, neighbour ``k`` taking ``L_k (s_k / s_max)^p / sum_j L_j (s_j / s_max)^p`` with ``s_k`` the drop
per distance to it, ``L_k`` the contour length it drains across (1/2 cell to the sides, √2/4 to the corners:
Quinn, Beven, Chevallier & Planchon 1991, "The prediction of hillslope flow paths for distributed hydrological
modelling using digital terrain models") and ``p`` the ``exponent`` (default 1, Quinn et al.'s split; Freeman
1991, "Calculating catchment area with divergent flow based on a regular grid", used 1.1 without ``L_k``; large
``p`` tends to D8). Cells are passed on in a topological order (Kahn 1962: a cell once every higher neighbour
draining into it has been), so each is visited once; a lower neighbour whose share rounds to 0 (a large ``p``)
still counts as passed, so it is visited too. Edge cells, pits and flats keep what they receive, as in D8;
nothing is lost: the rain sums to what the edges, pits and flats hold.

Cells are numbered row-major (``row * columns + column``; int32 in the queues: maps have at most
``heightfield.MAX_CELLS`` = 2²⁸ cells); all kernels run on one thread, so the bits never depend on the thread count.
"""

from __future__ import annotations

import math

import numpy as np

from .._jit import jit, kernel_table, prefetch
from ..schema import choice, number
from .heightfield import NEIGHBOURS, check_heights, on_edge, wrapped_columns, wrapped_rows

FLOW_METHODS = ("d8", "mfd")
SQRT2 = math.sqrt(2.0)
DISTANCES = np.array([SQRT2 if dy and dx else 1.0 for dy, dx in NEIGHBOURS])
"""The distance in cells to each neighbour of ``NEIGHBOURS``."""


def _floats(heights: np.ndarray) -> np.ndarray:
    """``heights`` as a C-contiguous float32 or float64 copy (other dtypes as float64)."""
    dtype = heights.dtype if heights.dtype in (np.float32, np.float64) else np.float64
    return np.array(heights, dtype=dtype, order="C", copy=True)


def _edges(shape: tuple[int, int]) -> np.ndarray:
    """A flat uint8 mask of the map's edge cells."""
    mask = np.ones(shape, dtype=np.uint8)
    mask[1:-1, 1:-1] = 0
    return mask.ravel()


STOP, DONE = 0, 1
"""The two entries of a routing ``state`` (``routing_state``): set ``state[STOP]`` (from any thread) to stop the
routing; ``state[DONE]`` counts the cells its steps have finished (``ROUTING_STEPS`` steps of all the cells)."""
POLL = 1 << 14
"""Cells between two looks at ``state[STOP]`` in the fill and MFD kernels (a few milliseconds of work)."""
ROUTING_STEPS = {"d8": 4, "mfd": 3}
"""Passes over the cells ``flow_accumulation`` after ``fill_depressions`` makes, by method: the fill, then the
MFD's count of donors and its routing, or D8's receivers, stack and accumulation."""


class Stopped(Exception):
    """The routing was stopped through its ``state`` (``state[STOP]`` set); its result was discarded."""


def routing_state() -> np.ndarray:
    """A fresh ``state`` for ``fill_depressions`` and ``flow_accumulation``: int64 ``[STOP, DONE]``, both 0."""
    return np.zeros(2, dtype=np.int64)


def _stopped(state: np.ndarray | None) -> None:
    """``Stopped`` when ``state[STOP]`` is set."""
    if state is not None and state[STOP]:
        raise Stopped


def _passed(state: np.ndarray | None, cells: int) -> None:
    """A pass over ``cells`` cells done: ``Stopped`` when ``state[STOP]`` is set, else ``cells`` more done."""
    _stopped(state)
    if state is not None:
        state[DONE] += cells


def fill_depressions(heights: np.ndarray, epsilon: bool = False, state: np.ndarray | None = None) -> np.ndarray:
    """``heights`` with every depression filled to its spill height (Priority-Flood, Barnes, Lehman & Mulla
    2014); map-edge cells are the outlets. ``epsilon``: filled cells rise by ``nextafter`` steps towards the
    spill point so that every cell has a strictly descending path to an edge. Returns a new array (float32 for
    float32 input, float64 otherwise). ``state`` (``routing_state``): progress in ``state[DONE]``; ``Stopped``
    soon after another thread sets ``state[STOP]``."""
    checked = check_heights(heights)
    if not isinstance(epsilon, bool):
        raise TypeError(f"epsilon: expected True or False, got {epsilon!r}")
    filled = _floats(checked)
    flat = filled.reshape(-1)
    fill_flat(flat, filled.shape, _edges(filled.shape), False, epsilon, state)
    if epsilon and not np.isfinite(filled.max()):  # nextafter steps from the dtype's largest number: infinity
        raise ValueError(
            f"heights: filling with epsilon steps raises cells past the largest {filled.dtype} "
            f"({np.finfo(filled.dtype).max:.3g}); keep the heights of lakes and flats below it"
        )
    return filled


def fill_flat(
    flat: np.ndarray,
    shape: tuple[int, int],
    outlets: np.ndarray,
    looped: bool,
    epsilon: bool,
    state: np.ndarray | None = None,
) -> None:
    """Priority-Flood ``flat`` (the cells of a ``shape`` map, float32/float64, in place) from the cells where
    ``outlets`` (uint8) is set; ``looped``: the map wraps around at its edges. ``state``: as
    ``fill_depressions``'s (after ``Stopped``, ``flat`` is half filled)."""
    size = flat.shape[0]
    shared = routing_state() if state is None else state
    base = int(shared[DONE])
    if not epsilon:
        _kernels().fill_plain(flat, shape[0], shape[1], outlets, looped, np.empty(2 * size),
                              np.empty(size, dtype=np.int32), np.zeros(size, dtype=np.uint8), shared)  # fmt: skip
    else:
        _kernels().fill(
            flat, shape[0], shape[1], outlets, looped, epsilon, flat.dtype.type(np.inf),
            np.empty(2 * size), np.empty(size, dtype=np.int32), np.zeros(size, dtype=np.uint8), shared,
        )  # fmt: skip
    _stopped(state)
    shared[DONE] = base + size


def d8_receivers(heights: np.ndarray, looped: bool = False, outlets: np.ndarray | None = None) -> np.ndarray:
    """The D8 receiver of every cell (flat int64 indices, row-major; an outlet is its own receiver) of the
    finite 2-D array ``heights``; ``outlets`` (flat bool/uint8, optional) forces outlets, as the map's edges
    are unless ``looped``."""
    checked = _floats(check_heights(heights))
    if not isinstance(looped, bool):
        raise TypeError(f"looped: expected True or False, got {looped!r}")
    if outlets is None:
        mask = np.zeros(checked.size, dtype=np.uint8) if looped else _edges(checked.shape)
    else:
        mask = np.asarray(outlets, dtype=np.uint8).reshape(-1)
        if mask.size != checked.size:
            raise ValueError(f"outlets: must hold one value per cell ({checked.size}), got {mask.size}")
    receivers = np.empty(checked.size, dtype=np.int64)
    codes = np.empty(checked.size, dtype=np.int8)
    _kernels().receivers(checked.reshape(-1), checked.shape[0], checked.shape[1], mask, looped, receivers, codes)
    return receivers


def stack_order(receivers: np.ndarray) -> np.ndarray:
    """An order of the cells (int64) in which every cell follows its receiver (Braun & Willett 2013): each
    outlet (``receivers[c] == c``) followed by the cells draining to it, depth first."""
    receivers = np.ascontiguousarray(receivers, dtype=np.int64)
    size = receivers.shape[0]
    if size and (receivers.min() < 0 or receivers.max() >= size):
        raise ValueError("receivers: every receiver must be a cell index in [0, cells)")
    order = np.empty(size, dtype=np.int64)
    count = _kernels().stack(receivers, order, np.empty(size + 1, dtype=np.int64), np.empty(size, dtype=np.int64),
                             np.empty(size, dtype=np.int64))  # fmt: skip
    if count != size:
        raise ValueError("receivers: they form a cycle (some cells never reach an outlet)")
    return order


def accumulate(receivers: np.ndarray, order: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Flow accumulation along ``receivers`` in reverse ``order`` (``stack_order``): each cell's ``weights``
    plus everything draining into it (float64, flat). ``ValueError`` naming the argument unless the three
    hold one entry per cell and the indices are cells (the kernel does not check its indices)."""
    receivers = np.ascontiguousarray(receivers, dtype=np.int64).reshape(-1)
    order = np.ascontiguousarray(order, dtype=np.int64).reshape(-1)
    size = receivers.shape[0]
    area = check_weights(np.asarray(weights), np.shape(weights), "weights").reshape(-1).copy()
    for name, values in (("order", order), ("weights", area)):
        if values.shape[0] != size:
            raise ValueError(f"{name}: must hold one entry per cell ({size}), got {values.shape[0]}")
    for name, values in (("receivers", receivers), ("order", order)):
        if size and (values.min() < 0 or values.max() >= size):
            raise ValueError(f"{name}: every entry must be a cell index in [0, {size})")
    _kernels().accumulate(receivers, order, area)
    return area


def flow_accumulation(
    heights: np.ndarray,
    method: str = "d8",
    cell_size: float = 1.0,
    weights: np.ndarray | None = None,
    exponent: float | None = None,
    state: np.ndarray | None = None,
) -> np.ndarray:
    """Contributing area of every cell of ``heights`` in cells (float64, same shape): the cell itself plus every
    cell whose D8 path passes through it (``weights``: rain per cell instead of 1); with ``method="mfd"`` the
    shares of every cell that drains into it by multiple flow directions (module doc; ``exponent`` p, default
    ``MFD_EXPONENT``). Edge cells, pits and flats
    are outlets: fill the depressions first (``fill_depressions(heights, epsilon=True)``) to route across them.
    ``cell_size`` is checked (> 0) but does not change D8 routing (drops over distances in cells). ``state``
    (``routing_state``): progress in ``state[DONE]``; ``Stopped`` soon after another thread sets
    ``state[STOP]``."""
    checked = check_heights(heights)
    method = choice("method", method, FLOW_METHODS)
    cell = number("cell_size", cell_size)
    if not cell > 0.0:
        raise ValueError(f"cell_size: must be > 0, got {cell_size!r}")
    if exponent is not None and method != "mfd":
        raise ValueError(f"exponent: only used with method='mfd', got method={method!r}")
    rain = np.ones(checked.shape) if weights is None else check_weights(weights, checked.shape, "weights")
    if method == "mfd":
        p = MFD_EXPONENT if exponent is None else number("exponent", exponent)
        if not 0.0 < p <= MAX_EXPONENT:
            raise ValueError(f"exponent: must be in (0, {MAX_EXPONENT:g}], got {exponent!r}")
        dtype = checked.dtype if checked.dtype in (np.float32, np.float64) else np.float64
        flat = np.ascontiguousarray(checked, dtype=dtype).reshape(-1)  # only read: no copy when it need not be
        return mfd_accumulate(flat, checked.shape, _edges(checked.shape), rain, p, state).reshape(checked.shape)
    receivers = d8_receivers(checked)
    _passed(state, checked.size)
    order = stack_order(receivers)
    _passed(state, checked.size)
    area = accumulate(receivers, order, rain)
    _passed(state, checked.size)
    return area.reshape(checked.shape)


MFD_EXPONENT = 1.0
"""The default exponent ``p`` of the MFD split: 1, Quinn et al.'s (1991) split (Freeman 1991 used 1.1)."""
MAX_EXPONENT = 100.0
CONTOURS = np.array([SQRT2 / 4.0 if dy and dx else 0.5 for dy, dx in NEIGHBOURS])
"""Quinn et al.'s (1991) contour length each neighbour of ``NEIGHBOURS`` is drained across, in cells."""


def mfd_accumulate(
    flat: np.ndarray,
    shape: tuple[int, int],
    outlets: np.ndarray,
    weights: np.ndarray,
    exponent: float,
    state: np.ndarray | None = None,
) -> np.ndarray:
    """MFD accumulation (module doc) of the row-major heights ``flat`` of a ``shape`` map from ``weights``
    (float64, C-contiguous: summed in place, it becomes the result); ``outlets`` (flat uint8) keep what they
    receive. Float64, flat. ``state``: as ``flow_accumulation``'s."""
    area = weights.reshape(-1)
    size = area.shape[0]
    shared = routing_state() if state is None else state
    base = int(shared[DONE])
    _kernels().mfd(
        flat, shape[0], shape[1], outlets, float(exponent), area, np.empty(size, np.uint8), np.empty(size, np.int32),
        shared,
    )  # fmt: skip
    _stopped(state)
    shared[DONE] = base + 2 * size
    return area


def depression_basins(depth: np.ndarray, shape: tuple[int, int], min_cells: int) -> tuple[int, float, float]:
    """The basins of the cells of the flat ``depth`` map of ``shape`` (filled height less height) with depth > 0,
    8-connected, of at least ``min_cells`` cells: ``(cells, deepest, depth_sum)``, their cell count, their
    largest depth and the sum of their depths."""
    cells, deepest, total = _kernels().depressions(
        depth, shape[0], shape[1], min_cells, np.zeros(depth.size, np.uint8), np.empty(depth.size, np.int64)
    )
    return int(cells), float(deepest), float(total)


def check_weights(weights: object, shape: tuple[int, ...], name: str) -> np.ndarray:
    """``weights`` as a finite float64 array of ``shape``, >= 0; ``TypeError``/``ValueError`` naming ``name``."""
    if not isinstance(weights, np.ndarray):
        raise TypeError(f"{name}: expected a numpy array of shape {shape}, got {type(weights).__name__}")
    if weights.dtype.kind not in "fiu" or weights.dtype == np.bool_:
        raise TypeError(f"{name}: dtype must be a real number type, got {weights.dtype}")
    if weights.shape != shape:
        raise ValueError(f"{name}: must have the heights' shape {shape}, got {weights.shape}")
    values = weights.astype(np.float64)
    if not np.isfinite(values).all():
        raise ValueError(f"{name}: must be finite (no NaN or infinity)")
    if values.size and values.min() < 0.0:
        raise ValueError(f"{name}: must be >= 0, got a minimum of {values.min()!r}")
    return values


def _fill(flat, rows, columns, outlets, looped, epsilon, infinity, pairs, pit, closed, state):
    """Priority-Flood+ (Barnes et al. 2014, Algorithms 2 and 3) of ``flat`` in place: a binary heap of
    (height, cell) for the open cells, a FIFO of the cells found inside depressions (already filled). The
    cell after the next (the heap's new top, or a pit cell ``PIT_AHEAD`` places on) is prefetched: the cells
    come in height order, far apart in memory. Every ``POLL`` cells ``state[DONE]`` moves on and the fill
    returns if ``state[STOP]`` is set."""
    base = state[DONE]
    done = 0
    heap = _seed_outlets(flat, outlets, closed, pairs)
    head = tail = 0
    while heap > 0 or head < tail:
        if head < tail and not (heap > 0 and epsilon and pairs[0] == flat[pit[head]]):
            cell = pit[head]
            head += 1
            if head + PIT_AHEAD <= tail:
                _prefetch_window(flat, closed, pit[head + PIT_AHEAD - 1], columns)
        else:
            cell = np.int64(pairs[1])
            heap = _heap_pop(pairs, heap)
            if heap > 0:
                _prefetch_window(flat, closed, np.int64(pairs[1]), columns)
        done += 1
        if done % POLL == 0:
            state[DONE] = base + done
            if state[STOP]:
                return
        height = flat[cell]
        spill = np.nextafter(height, infinity) if epsilon else height
        row, column = cell // columns, cell % columns
        inside = not looped and 0 < row < rows - 1 and 0 < column < columns - 1
        for k in range(8):
            if inside:
                neighbour = cell + NEIGHBOURS[k, 0] * columns + NEIGHBOURS[k, 1]
            else:
                y, x = row + NEIGHBOURS[k, 0], column + NEIGHBOURS[k, 1]
                if looped:
                    y, x = y % rows, x % columns
                elif not (0 <= y < rows and 0 <= x < columns):
                    continue
                neighbour = y * columns + x
            if closed[neighbour]:
                continue
            closed[neighbour] = 1
            if flat[neighbour] <= spill:
                flat[neighbour] = spill
                pit[tail] = neighbour
                tail += 1
            else:
                heap = _heap_push(pairs, heap, flat[neighbour], neighbour)


PIT_AHEAD = 4
"""How many pit cells ahead ``_fill`` prefetches (docs/benchmarks.md, "Terrain maps at once")."""


@jit
def _prefetch_window(flat, closed, cell, columns):
    """Prefetch the 3x3 window of ``cell`` in ``flat`` and ``closed`` (its three rows; off the map at the
    edges, where a prefetch is harmless)."""
    for offset in (-columns, 0, columns):
        prefetch(flat, cell + offset)
        prefetch(closed, cell + offset)


@jit
def _neighbour(cell, k, rows, columns, looped):
    """Neighbour ``k`` (``NEIGHBOURS``) of ``cell``, across the edges if ``looped``; -1 off the map."""
    row, column = cell // columns, cell % columns
    y, x = row + NEIGHBOURS[k, 0], column + NEIGHBOURS[k, 1]
    if looped:
        return (y % rows) * columns + x % columns
    if 0 <= y < rows and 0 <= x < columns:
        return y * columns + x
    return -1


@jit
def _lower_closed(flat, closed, cell, rows, columns, looped):
    """Whether an 8-neighbour of the open ``cell`` is closed and lower: one not expanded yet (expanded, it
    would have closed ``cell``), which will reach ``cell`` when it is."""
    inside = not looped and 0 < cell // columns < rows - 1 and 0 < cell % columns < columns - 1
    for k in range(8):
        if inside:
            neighbour = cell + NEIGHBOURS[k, 0] * columns + NEIGHBOURS[k, 1]
        else:
            neighbour = _neighbour(cell, k, rows, columns, looped)
            if neighbour < 0:
                continue
        if closed[neighbour] and flat[neighbour] < flat[cell]:
            return True
    return False


def _fill_plain(flat, rows, columns, outlets, looped, pairs, work, closed, state):
    """The plain Priority-Flood of ``flat`` in place from the ``outlets`` (uint8), across the edges if
    ``looped``, with slopes traced up outside the heap (Zhou, Sun & Fu 2016). A cell met from a cell of final
    height ``w`` that is higher than ``w`` is final at its own height: it goes to a FIFO with the depression
    cells and is expanded at once; it enters the heap only if it has an open neighbour not higher than itself
    that no pending lower cell will reach first (the heap must then decide that neighbour in height order).
    ``state``: as ``_fill``'s."""
    base = state[DONE]
    done = 0
    heap = _seed_outlets(flat, outlets, closed, pairs)
    while heap > 0:
        work[0] = np.int64(pairs[1])
        level = flat[work[0]]
        head, tail = 0, 1
        heap = _heap_pop(pairs, heap)
        while head < tail:
            cell = work[head]
            head += 1
            if head + PIT_AHEAD <= tail:
                _prefetch_window(flat, closed, work[head + PIT_AHEAD - 1], columns)
            done += 1
            if done % POLL == 0:
                state[DONE] = base + done
                if state[STOP]:
                    return
            height = flat[cell]
            inside = not looped and 0 < cell // columns < rows - 1 and 0 < cell % columns < columns - 1
            wait = False
            for k in range(8):
                if inside:
                    neighbour = cell + NEIGHBOURS[k, 0] * columns + NEIGHBOURS[k, 1]
                else:
                    neighbour = _neighbour(cell, k, rows, columns, looped)
                    if neighbour < 0:
                        continue
                if closed[neighbour]:
                    continue
                if flat[neighbour] > height:  # a slope: final at its own height
                    closed[neighbour] = 1
                    work[tail] = neighbour
                    tail += 1
                elif height == level:  # a depression (or a flat) at the spill level
                    closed[neighbour] = 1
                    flat[neighbour] = level
                    work[tail] = neighbour
                    tail += 1
                elif not wait and not _lower_closed(flat, closed, neighbour, rows, columns, looped):
                    wait = True  # a lower open cell that no pending cell will reach first: wait for it
            if wait:
                heap = _heap_push(pairs, heap, height, cell)


@jit
def _before(key, cell, heap, i):
    """Whether ``(key, cell)`` comes before heap entry ``i``: lower key, then lower cell index (a total order,
    so the heap pops the same sequence whatever its layout)."""
    return key < heap[2 * i] or (key == heap[2 * i] and cell < heap[2 * i + 1])


@jit
def _seed_outlets(flat, outlets, closed, pairs):
    """The start of a Priority-Flood: every cell open (``closed`` 0) but the ``outlets``, which are closed and
    pushed on the empty heap ``pairs`` with their heights; returns the heap's size."""
    heap = 0
    for cell in range(flat.shape[0]):
        closed[cell] = 0
    for cell in range(flat.shape[0]):
        if outlets[cell]:
            closed[cell] = 1
            heap = _heap_push(pairs, heap, flat[cell], cell)
    return heap


@jit
def _heap_push(heap, size, key, cell):
    """Push ``(key, cell)`` (float64: heights and cell indices are exact in it) on the heap of ``size``
    entries, stored as pairs side by side in ``heap`` (one cache line per comparison), moving a hole up;
    returns the new size."""
    key, cell = np.float64(key), np.float64(cell)
    i = size
    while i > 0:
        parent = (i - 1) >> 1
        if not _before(key, cell, heap, parent):
            break
        heap[2 * i], heap[2 * i + 1] = heap[2 * parent], heap[2 * parent + 1]
        i = parent
    heap[2 * i], heap[2 * i + 1] = key, cell
    return size + 1


@jit
def _heap_pop(heap, size):
    """Remove the heap's first entry; returns the new size. The hole left at the top goes down to a leaf
    along the smaller children, then the last entry moves up into it from there (Floyd's bottom-up
    deletion: about half the comparisons, since the last entry belongs near the bottom)."""
    size -= 1
    key, cell = heap[2 * size], heap[2 * size + 1]
    i = 0
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and _before(heap[2 * child + 2], heap[2 * child + 3], heap, child):
            child += 1
        heap[2 * i], heap[2 * i + 1] = heap[2 * child], heap[2 * child + 1]
        i = child
    while i > 0:
        parent = (i - 1) >> 1
        if not _before(key, cell, heap, parent):
            break
        heap[2 * i], heap[2 * i + 1] = heap[2 * parent], heap[2 * parent + 1]
        i = parent
    heap[2 * i], heap[2 * i + 1] = key, cell
    return size


@jit
def _consider(flat, height, neighbour, code, distance, steepest, best, best_code):
    """The steeper of the best drop so far and the drop to ``neighbour`` (``NEIGHBOURS[code]``) at ``distance``
    (ties: the first)."""
    drop = (height - np.float64(flat[neighbour])) / distance
    better = drop > steepest  # selects, not branches: the comparisons are unpredictable
    return drop if better else steepest, neighbour if better else best, code if better else best_code


@jit
def _receivers(flat, rows, columns, outlets, looped, receivers, codes, first_row, last_row):
    """D8 steepest-descent receivers and the direction to them (``codes``: the ``NEIGHBOURS`` index, -1 for
    an outlet, a pit or a flat) of the rows ``first_row .. last_row - 1``; returns how many cells that are not
    ``outlets`` have no lower neighbour."""
    pits = 0
    for row in range(first_row, last_row):
        middle, up, down = wrapped_rows(row, rows, columns)
        for column in range(columns):
            cell = middle + column
            if outlets[cell] or on_edge(row, column, rows, columns, looped):
                receivers[cell] = cell
                codes[cell] = -1
                continue
            left, right = wrapped_columns(column, columns)
            height = np.float64(flat[cell])
            found = (0.0, cell, -1)
            found = _consider(flat, height, up + left, 0, SQRT2, *found)  # NEIGHBOURS order
            found = _consider(flat, height, up + column, 1, 1.0, *found)
            found = _consider(flat, height, up + right, 2, SQRT2, *found)
            found = _consider(flat, height, middle + left, 3, 1.0, *found)
            found = _consider(flat, height, middle + right, 4, 1.0, *found)
            found = _consider(flat, height, down + left, 5, SQRT2, *found)
            found = _consider(flat, height, down + column, 6, 1.0, *found)
            found = _consider(flat, height, down + right, 7, SQRT2, *found)
            receivers[cell] = found[1]
            codes[cell] = found[2]
            pits += found[2] < 0
    return pits


@jit
def _donor_bits(codes, rows, columns, donors, first_row, last_row):
    """Each cell's donors as bits: bit ``k`` when the neighbour ``NEIGHBOURS[k]`` drains into it (its code is
    ``7 - k``, the opposite direction), for the rows ``first_row .. last_row - 1``. Gathered, not scattered, so
    the loop has no branches. Neighbours across the edges of a map that is not looped are edge cells: outlets,
    which drain nowhere."""
    for row in range(first_row, last_row):
        middle, up, down = wrapped_rows(row, rows, columns)
        for column in range(columns):
            left, right = wrapped_columns(column, columns)
            donors[middle + column] = (
                (codes[up + left] == 7)
                | (codes[up + column] == 6) << 1
                | (codes[up + right] == 5) << 2
                | (codes[middle + left] == 4) << 3
                | (codes[middle + right] == 3) << 4
                | (codes[down + left] == 2) << 5
                | (codes[down + column] == 1) << 6
                | (codes[down + right] == 0) << 7
            )


@jit
def _tree_order(receivers, donors, rows, columns, looped, order, pending, first, last):
    """The stack of the trees of the outlets ``first .. last - 1`` from the donor bits (``_donor_bits``): each
    outlet, in index order, then its tree depth first (``pending``: the cells still to visit), so that a
    river's cells lie close together in the order. Returns how many cells it holds."""
    filled = 0
    for outlet in range(first, last):
        if receivers[outlet] != outlet:
            continue
        pending[0] = outlet
        top = 1
        while top > 0:
            top -= 1
            cell = pending[top]
            order[filled] = cell
            filled += 1
            bits = donors[cell]
            if bits == 0:
                continue
            row, column = (cell // columns, cell % columns) if looped else (0, 0)
            for k in range(8):
                if bits & (1 << k):
                    if looped:  # across the edges
                        y, x = row + NEIGHBOURS[k, 0], column + NEIGHBOURS[k, 1]
                        y = y + rows if y < 0 else (y - rows if y >= rows else y)
                        x = x + columns if x < 0 else (x - columns if x >= columns else x)
                        pending[top] = y * columns + x
                    else:  # edge cells have no neighbours outside
                        pending[top] = cell + NEIGHBOURS[k, 0] * columns + NEIGHBOURS[k, 1]
                    top += 1
    return filled


@jit
def _stack(receivers, order, starts, donors, pending):
    """Fill ``order`` with the stack from the donor lists (``starts``: offsets into ``donors``, a counting sort by
    receiver): each outlet, in index order, then its tree depth first (``pending``: the cells still to visit), so
    that a river's cells lie close together in the order. Returns how many cells it holds (all but cycles)."""
    size = receivers.shape[0]
    for i in range(size + 1):
        starts[i] = 0
    for cell in range(size):
        if receivers[cell] != cell:
            starts[receivers[cell] + 1] += 1
    for i in range(size):
        starts[i + 1] += starts[i]
    for cell in range(size):
        receiver = receivers[cell]
        if receiver != cell:
            donors[starts[receiver]] = cell
            starts[receiver] += 1
    # starts[r] now ends r's donors; they begin where r - 1's end (0 for r = 0)
    filled = 0
    for outlet in range(size):
        if receivers[outlet] != outlet:
            continue
        pending[0] = outlet
        top = 1
        while top > 0:
            top -= 1
            cell = pending[top]
            order[filled] = cell
            filled += 1
            for i in range(starts[cell - 1] if cell > 0 else 0, starts[cell]):
                pending[top] = donors[i]
                top += 1
    return filled


def _depressions(depth, rows, columns, min_cells, seen, members):
    """The basins of the cells with ``depth`` > 0 (8-connected) of at least ``min_cells`` cells: their cell count,
    their deepest depth and the sum of their depths. ``seen``, ``members``: scratch of a cell each."""
    counted, deepest, total = 0, 0.0, 0.0
    for first in range(depth.shape[0]):
        if seen[first] or not depth[first] > 0.0:
            continue
        seen[first] = 1
        members[0] = first
        count, next_, most, summed = 1, 0, 0.0, 0.0
        while next_ < count:
            cell = members[next_]
            next_ += 1
            most = max(most, depth[cell])
            summed += depth[cell]
            row, column = cell // columns, cell % columns
            for k in range(8):
                y, x = row + NEIGHBOURS[k, 0], column + NEIGHBOURS[k, 1]
                if 0 <= y < rows and 0 <= x < columns:
                    other = y * columns + x
                    if not seen[other] and depth[other] > 0.0:
                        seen[other] = 1
                        members[count] = other
                        count += 1
        if count >= min_cells:
            counted += count
            deepest = max(deepest, most)
            total += summed
    return counted, deepest, total


@jit
def _accumulate(receivers, order, area):
    """``area`` (the weights) summed down the receivers, in reverse stack order."""
    for i in range(order.shape[0] - 1, -1, -1):
        cell = order[i]
        receiver = receivers[cell]
        if receiver != cell:
            area[receiver] += area[cell]


def _receivers_kernel(flat, rows, columns, outlets, looped, receivers, codes):
    return _receivers(flat, rows, columns, outlets, looped, receivers, codes, 0, rows)


def _stack_kernel(receivers, order, starts, donors, pending):
    return _stack(receivers, order, starts, donors, pending)


def _accumulate_kernel(receivers, order, area):
    _accumulate(receivers, order, area)


def _mfd(flat, rows, columns, outlets, exponent, area, donors, ready, state):
    """Route ``area`` (the weights) to the lower neighbours of every cell that is not an outlet (module doc), a
    cell once every higher neighbour draining into it has been: Kahn's topological order, the ready cells on a
    stack so that a chain downhill is followed at once (close in memory: twice as fast as a queue). ``donors``
    starts as the count of higher neighbours that are not outlets (gathered per cell, row by row). ``state``: as
    ``_fill``'s (the count a row at a time, then a cell routed at a time)."""
    size = rows * columns
    base = state[DONE]
    shares = np.empty(8)
    lower = np.zeros(8, np.bool_)
    near = np.empty(8, np.int64)
    for row in range(rows):
        if row % (POLL // columns + 1) == 0:
            state[DONE] = base + row * columns
            if state[STOP]:
                return
        for column in range(columns):
            cell = row * columns + column
            height = flat[cell]
            count = 0
            for k in range(8):
                y, x = row + NEIGHBOURS[k, 0], column + NEIGHBOURS[k, 1]
                if 0 <= y < rows and 0 <= x < columns:
                    neighbour = y * columns + x
                    count += (outlets[neighbour] == 0) & (height < flat[neighbour])
            donors[cell] = count
    top = 0
    for cell in range(size - 1, -1, -1):
        if donors[cell] == 0:
            ready[top] = cell
            top += 1
    done = 0
    while top > 0:
        top -= 1
        cell = ready[top]
        done += 1
        if done % POLL == 0:
            state[DONE] = base + size + done
            if state[STOP]:
                return
        if outlets[cell]:
            continue
        row, column = cell // columns, cell % columns
        inside = 0 < row < rows - 1 and 0 < column < columns - 1
        for k in range(8):  # the neighbours' indices, -1 off the map
            y, x = row + NEIGHBOURS[k, 0], column + NEIGHBOURS[k, 1]
            if inside:
                near[k] = cell + NEIGHBOURS[k, 0] * columns + NEIGHBOURS[k, 1]
            else:
                near[k] = y * columns + x if 0 <= y < rows and 0 <= x < columns else -1
        height = np.float64(flat[cell])
        steepest = 0.0
        for k in range(8):
            drop = 0.0
            if near[k] >= 0:
                drop = max(0.0, (height - np.float64(flat[near[k]])) / DISTANCES[k])
            shares[k] = drop
            steepest = max(steepest, drop)
        if steepest == np.inf:  # a difference beyond float64 (heights near its largest): the drops halved
            steepest = 0.0
            for k in range(8):
                drop = 0.0
                if near[k] >= 0:
                    drop = max(0.0, (0.5 * height - 0.5 * np.float64(flat[near[k]])) / DISTANCES[k])
                shares[k] = drop
                steepest = max(steepest, drop)
        if steepest == 0.0:  # a pit or a flat
            continue
        total = 0.0
        for k in range(8):
            lower[k] = shares[k] > 0.0
            if lower[k]:
                ratio = shares[k] / steepest
                shares[k] = CONTOURS[k] * (ratio if exponent == 1.0 else ratio**exponent)
                total += shares[k]
        part = area[cell] / total
        for k in range(8):
            if lower[k]:  # a share that underflowed to 0 still counts its receiver's donor off
                neighbour = near[k]
                area[neighbour] += part * shares[k]
                donors[neighbour] -= 1
                if donors[neighbour] == 0:
                    ready[top] = neighbour
                    top += 1


_kernels = kernel_table(
    serial=(_fill, _fill_plain, _receivers_kernel, _stack_kernel, _accumulate_kernel, _mfd, _depressions),
)
"""The compiled kernels, built on first use."""
