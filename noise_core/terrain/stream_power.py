"""Stream power along the flow: the one routing and the one implicit incision solver of ``erode_fluvial`` and of
the gullies of ``erode_hydraulic``, and the routing of sediment through lakes the gullies add.

**Routing** (``Routing``): D8 receivers (steepest drop per distance) of a surface, the stack (every cell after its
receiver) and the drainage area (the sum of each cell's weight over it and everything upstream), in ``PARTS``
parts on Numba's threads (``flow``'s kernels: bands of rows for the receivers, then disjoint flow trees for the
stack and the areas), with the same bits on any thread count. A surface with pits is filled first
(Priority-Flood+ε, ``flow.fill_flat``), so every cell drains.

**Incision** (``incise``): ``∂h/∂t = U - K·A^m·S^n`` for one step ``dt``, implicit along the stack as Braun &
Willett 2013 ("A very efficient O(n), implicit and parallel method to solve the stream power equation governing
fluvial incision and landscape evolution", Geomorphology 180-181) solve it: receiver ``r`` first (distance
``d``), ``h' = h + U·dt - K·dt·A^m·((h' - h'_r)/d)^n``; for ``n = 1`` in closed form
``h' = (h + U·dt + F·h'_r) / (1 + F)``, ``F = K·dt·A^m / d``, otherwise Newton's method on ``s - s₀ + F·s^n = 0``
for ``s = h' - h'_r`` (bracketed in ``(0, s₀]``, ``F = K·dt·A^m / d^n``). Stable for any ``dt``; every cell ends at
least one ``nextafter`` step above its receiver. With **lakes** (the option the gullies use) the heights keep
their closed hollows: ``level`` holds each lake cell's spill level (the Priority-Flood fill of the heights, ``-inf``
outside lakes); a lake cell is not cut, a receiver in a lake counts at its level, a cell is never raised, and what
each cell loses is kept (``cut``).

**Sediment through lakes** (``route_sediment``): the sediment of each cell runs down the stack, donors first; a
lake gathers what reaches it (its cells grouped by the first cell outside it they drain into) and keeps
``C·I/(C + I)`` of the inflow ``I``, ``C`` its room below the spill level (a trap efficiency with the trend of
Brune 1953, "Trap efficiency of reservoirs", Transactions of the American Geophysical Union 34(3)), each of its
cells rising by the same share of its depth, so it grows shallower but keeps its shape; the rest runs on, and what
reaches an outlet leaves the map (returned). Mass is kept.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import numpy as np

from .._jit import jit, range_kernel, serial_kernel
from ..runtime import launch_blocks
from ..threads import on_threads
from .flow import DISTANCES, _accumulate, _donor_bits, _receivers, _tree_order, fill_flat

PARTS = 2
"""The parts a step runs in (bands of rows, then shares of the outlets), on up to as many threads."""
INDEX = np.int32
"""Cell indices in the routing arrays (maps have at most ``heightfield.MAX_CELLS`` = 2^28 cells): half the memory
traffic of int64 in the serial passes along the stack, which are bound by it."""
NEWTON_ITERATIONS = 60
HUGE = 1e200
"""Incision factors ``F`` beyond this (or infinite) drop the cell to its receiver (``1 / (1 + F)`` is then 0)."""


def index_mask(values: np.ndarray) -> int:
    """The mask a kernel ands a cell index with to read ``values``: all bits for a map, 0 for one value."""
    return -1 if values.shape[0] > 1 else 0


class Routing:
    """The flow routing of one map, its arrays allocated once: receivers, their directions, the stack and
    the drainage area (``weights``: each cell's own, one value or a map)."""

    def __init__(self, shape: tuple[int, int], base: np.ndarray, looped: bool, weights: np.ndarray) -> None:
        size = shape[0] * shape[1]
        self.shape, self.base, self.looped, self.weights = shape, base, looped, weights
        self.receivers = np.empty(size, dtype=INDEX)
        self.codes = np.empty(size, dtype=np.int8)
        self.order = np.empty(size, dtype=INDEX)
        self.area = np.empty(size, dtype=np.float64)
        self._buffers = (np.empty(size, dtype=np.uint8), np.empty((PARTS, size), dtype=INDEX))
        self._phase, self._pits = np.zeros(1, dtype=np.int64), np.zeros(PARTS, dtype=np.int64)
        self._outlets = np.flatnonzero(base)
        self._split = np.array([0, size // 2, size], dtype=np.int64)

    def step(self, h: np.ndarray, incision: tuple | None) -> None:
        """Route ``h`` (receivers, stack, area; depressions are filled first if any cell cannot drain), then
        uplift and incise it when ``incision`` (``_step``'s arguments) is given."""
        rows, columns = self.shape
        arguments = incision if incision is not None else (np.zeros(1), 0, np.zeros(1), 0, 0.0, 0.5, 1.0, 1.0)
        for _ in range(2):
            launch_blocks(_kernels().step, PARTS, (
                self._phase, self._pits, self._split, h, rows, columns, self.base, self.looped, self.weights,
                index_mask(self.weights), self.receivers, self.codes, self.order, *self._buffers, self.area,
                incision is not None, *arguments, np.inf,
            ))  # fmt: skip
            if self._pits.sum() == 0:
                self._balance()
                return
            fill_flat(h, self.shape, self.base, self.looped, True)
        raise AssertionError("fluvial routing: cells still without a receiver after filling")  # pragma: no cover

    def _balance(self) -> None:
        """Split the outlets for the next step where the areas of their trees (this step's) reach half: the
        parts then get about as many cells each (a choice made from the data, not the threads)."""
        drained = np.cumsum(self.area[self._outlets])
        if drained.size > 1 and drained[-1] > 0.0:
            middle = min(int(np.searchsorted(drained, drained[-1] / 2)) + 1, drained.size - 1)
            self._split[1] = self._outlets[middle]


def _step(first, last, phase, pits, split, h, rows, columns, base, looped, weights, weight_mask, receivers, codes,
          order, donors, pending, area, incise_, uplift, uplift_mask, erodibility, erodibility_mask, dt, m, n, cell,
          infinity):  # fmt: skip
    """One step, a range kernel over ``PARTS`` parts: D8 receivers and donor bits of each part's band of rows
    (``flow``); if no cell is a pit (``pits``: per part), each part's share of the outlets (by index)
    (``split[p] .. split[p + 1] - 1``) builds its trees' stack, sums their areas and, if ``incise_``, uplifts
    and incises them (``incise``). The trees are disjoint, so the parts run on Numba's threads without sharing
    a cell, and the bits do not depend on the thread count. Part 0 writes its stack at the start of ``order``,
    part 1 at the end."""
    if first < 0:
        phase[0] = 0
        on_threads(last)
        if pits.sum() == 0:
            phase[0] = 1
            on_threads(last)
            phase[0] = 2
            on_threads(last)
        return
    size = h.shape[0]
    for part in range(first, last):
        low, high = part * rows // PARTS, (part + 1) * rows // PARTS
        if phase[0] == 0:
            pits[part] = _receivers(h, rows, columns, base, looped, receivers, codes, low, high)
        elif phase[0] == 1:
            _donor_bits(codes, rows, columns, donors, low, high)
        else:
            outlets = (split[part], split[part + 1])
            if part == 0:
                count = _tree_order(receivers, donors, rows, columns, looped, order, pending[part], *outlets)
                stack = order[:count]
            else:  # backwards from the end, then turned around
                count = _tree_order(receivers, donors, rows, columns, looped, order[::-1], pending[part], *outlets)
                stack = order[size - count :]
                for i in range(count // 2):
                    stack[i], stack[count - 1 - i] = stack[count - 1 - i], stack[i]
            for i in range(count):
                area[stack[i]] = weights[stack[i] & weight_mask]
            _accumulate(receivers, stack, area)
            if incise_:
                unused = np.empty(1)  # no lakes: ``incise`` reads no ``level`` and writes no ``cut``
                incise(h, receivers, codes, stack, area, uplift, uplift_mask, erodibility, erodibility_mask, dt, m,
                       n, cell, infinity, False, unused, unused)  # fmt: skip


@jit
def incise(h, receivers, codes, stack, area, uplift, uplift_mask, erodibility, erodibility_mask, dt, m, n, cell,
           infinity, lakes, level, cut):  # fmt: skip
    """Uplift and stream power incision along ``stack``, implicit (closed form for n = 1, else Newton), every
    cell ending at least one ``nextafter`` step above its receiver. Maps are read at ``index & mask`` (mask 0:
    one value for all cells). ``lakes``: a cell below its ``level`` is in a lake and not cut, a receiver counts
    at ``max(h, level)``, no cell rises and ``cut[c]`` gets what cell ``c`` lost (``level``, ``cut``: maps;
    unused otherwise)."""
    for i in range(stack.shape[0]):
        node = stack[i]
        receiver = receivers[node]
        if receiver == node:
            continue
        lower = h[receiver]
        if lakes:
            cut[node] = 0.0
            if level[node] > h[node]:
                continue
            lower = max(lower, level[receiver])
        start = h[node] + uplift[node & uplift_mask] * dt
        if lakes and start <= lower:
            continue
        power = math.sqrt(area[node]) if m == 0.5 else area[node] ** m
        distance = DISTANCES[codes[node]] * cell
        factor = erodibility[node & erodibility_mask] * dt * power / (distance if n == 1.0 else distance**n)
        if start <= lower:
            new = start
        elif not factor < HUGE:  # also inf: the cell falls to its receiver
            new = lower
        elif n == 1.0:
            new = (start + factor * lower) / (1.0 + factor)
        else:
            new = lower + _newton(start - lower, factor, n)
        new = new if new > lower else np.nextafter(lower, infinity)
        if lakes:
            cut[node] = h[node] - new
            level[node] = new
        h[node] = new


@jit
def _newton(s0, factor, n):
    """The root ``s`` in ``(0, s0]`` of ``s - s0 + factor·s^n`` (increasing in ``s``): Newton steps, bisection
    where a step leaves the bracket."""
    low, high = 0.0, s0
    s = min(s0, (s0 / factor) ** (1.0 / n)) if factor > 0.0 else s0  # both bound the root from above
    for _ in range(NEWTON_ITERATIONS):
        power = s ** (n - 1.0)
        value = s - s0 + factor * power * s
        if value == 0.0:
            return s
        if value > 0.0:
            high = s
        else:
            low = s
        following = s - value / (1.0 + n * factor * power)
        if not low <= following <= high:
            following = 0.5 * (low + high)
        if abs(following - s) <= 1e-12 * s0:
            return following
        s = following
    return s


def _incise_all(h, receivers, codes, stack, area, strength, level, cut):
    """``incise`` with lakes over the whole ``stack`` for one unit of time, ``m = 0.5``, ``n = 1``, erodibility
    ``strength``, no uplift, cells one unit apart (the gullies' step), as a serial kernel."""
    incise(h, receivers, codes, stack, area, np.zeros(1), 0, np.full(1, strength), 0, 1.0, 0.5, 1.0, 1.0, np.inf,
           True, level, cut)  # fmt: skip


def route_sediment(h, level, receivers, stack, sediment, lake, members, starts, pool):
    """Carry ``sediment`` (each cell's; consumed) down ``stack``, donors first: the cells below their ``level``
    (lakes) are grouped by the first cell outside them they drain into (``lake``), gather what reaches them
    (``pool``, at that cell) and keep part of it (``_fill_lake``), passing on the rest; what reaches an outlet (a
    cell that is its own receiver) is returned. ``lake``, ``members``, ``pool``: scratch of a cell each;
    ``starts``: of cells + 1."""
    size = stack.shape[0]
    for i in range(size):
        node = stack[i]
        receiver = receivers[node]
        lake[node] = -1
        pool[node] = 0.0
        if receiver != node and level[node] > h[node]:  # in a lake: one with its receiver's, or draining into it
            lake[node] = lake[receiver] if lake[receiver] >= 0 else receiver
    starts[:] = 0
    for node in range(size):
        if lake[node] >= 0:
            starts[lake[node] + 1] += 1
    for node in range(size):
        starts[node + 1] += starts[node]
    for node in range(size):
        if lake[node] >= 0:
            key = lake[node]
            members[starts[key]] = node
            starts[key] += 1
    for node in range(size - 1, -1, -1):  # back to the first member of each lake
        starts[node + 1] = starts[node]
    starts[0] = 0
    carried = 0.0
    for i in range(size - 1, -1, -1):
        node = stack[i]
        if lake[node] >= 0:
            pool[lake[node]] += sediment[node]
            sediment[node] = 0.0
            continue
        if starts[node + 1] > starts[node]:  # the lake that drains here, its sediment all gathered
            sediment[node] += _fill_lake(h, level, members[starts[node] : starts[node + 1]], pool[node])
        receiver = receivers[node]
        if receiver == node:
            carried += sediment[node]
        else:
            sediment[receiver] += sediment[node]
        sediment[node] = 0.0
    return carried


@jit
def _fill_lake(h, level, members, amount):
    """Let the lake ``members`` keep ``C·I / (C + I)`` of the ``I = amount`` of sediment that reaches it, ``C`` the
    room below its ``level``: a trap efficiency that falls as the lake fills, the trend of Brune's (1953) curve of
    trapped share over capacity/inflow, so a lake never silts up flat in one step. Every cell rises by the same
    share of its depth below the level, so the lake keeps its shape, only shallower (the deepest water gets most).
    Returns what passes on."""
    room = 0.0
    for k in range(members.shape[0]):
        room += max(0.0, level[members[k]] - h[members[k]])
    if not room > 0.0 or not amount > 0.0:
        return amount
    share = amount / (amount + room)  # of each cell's depth: keeps C·I / (C + I)
    placed = 0.0
    for k in range(members.shape[0]):
        cell = members[k]
        part = share * max(0.0, level[cell] - h[cell])
        h[cell] += part
        placed += part
    return amount - placed


@dataclass(frozen=True)
class _Kernels:
    step: object
    incise: object
    sediment: object


@cache
def _kernels() -> _Kernels:
    """The compiled kernels, built on first use (so importing never compiles nor fixes the cache folder)."""
    return _Kernels(
        step=range_kernel(_step), incise=serial_kernel(_incise_all), sediment=serial_kernel(route_sediment)
    )
