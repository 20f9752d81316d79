"""Stream power along the flow: the one routing and the one implicit incision solver of ``erode_fluvial`` and of
the gullies of ``erode_hydraulic``, and the routing of sediment through lakes the gullies add.

**Routing** (``Routing``): D8 receivers (steepest drop per distance) of a surface, the stack (every cell after its
receiver) and the drainage area (the sum of each cell's weight over it and everything upstream), in ``PARTS``
parts on Numba's threads (``flow``'s kernels: bands of rows for the receivers, then disjoint flow trees for the
stack and the areas), with the same bits on any thread count. A surface with pits is filled first
(Priority-Flood+ε, ``flow.fill_flat``), so every cell drains.

**Random facet routing** (``Routing(random=True)``, ``erode_fluvial``'s ``routing="random"``, issue 49): D8
channels run at 0°, 45° and 90°, so a landscape evolved with them carries a herringbone. Each step every cell's
receiver is drawn instead (``_facet_receivers``): the steepest of Tarboton's (1997, "A new method for the
determination of flow directions and upslope areas in grid digital elevation models", Water Resources Research
33(2)) eight facets gives the slope and the direction ``a`` from its side towards its corner, swung by up to
``JITTER`` octants either way; the cell then drains to that corner with probability ``tan a``, else to that side,
so the expected step points along ``a``, as Fairfield & Leymarie's (1991, "Drainage networks from grid digital
elevation models", Water Resources Research 27(5)) Rho8 draws. The incision then uses the facet's slope
(``ratio[0]`` times the slope to the receiver) and each cell's own area is weighted by its expected step length
(``ratio[1]``: a corner step covers √2).

**Incision** (``incise``): ``∂h/∂t = U - K·A^m·S^n`` for one step ``dt``, implicit along the stack as Braun &
Willett 2013 ("A very efficient O(n), implicit and parallel method to solve the stream power equation governing
fluvial incision and landscape evolution", Geomorphology 180-181) solve it: receiver ``r`` first (distance
``d``), ``h' = h + U·dt - K·dt·A^m·((h' - h'_r)/d)^n``; for ``n = 1`` in closed form
``h' = (h + U·dt + F·h'_r) / (1 + F)``, ``F = K·dt·A^m / d``, otherwise Newton's method on ``s - s₀ + F·s^n = 0``
for ``s = h' - h'_r`` (bracketed in ``(0, s₀]``, ``F = K·dt·A^m / d^n``). Stable for any ``dt``; every cell ends at
least one ``nextafter`` step above its receiver. With **deposition** ``G`` (``_deposit``; ``erode_fluvial``'s
``deposition_coefficient``) Yuan et al.'s (2019, "A new efficient method to solve the stream power law model taking into
account sediment deposition", JGR Earth Surface 124) term is added: ``∂h/∂t = U - K·A^m·S^n + G·Qs/A``, ``Qs``
the sediment flux from upstream, solved by ``DEPOSITION_ITERATIONS`` Gauss-Seidel passes along the stack (at
steady state under uniform uplift every reach is ``1 + G`` times as steep).
With an **incision threshold** ``θ`` (``_over_threshold``; ``erode_fluvial``'s ``incision_threshold``) the
incision is ``K·max(A^m·S^n - θ, 0)`` (Tucker & Bras 1998, "Hillslope processes, drainage density, and landscape
morphology", Water Resources Research 34(10); Tucker 2004, "Drainage basin sensitivity to tectonic and climatic
forcing: implications of a stochastic model for the role of entrainment and erosion thresholds", ESPL 29(2)),
still solved exactly by the implicit step: a cell whose stream power before the step, ``F·s₀^n`` (``s₀ =
h + U·dt - h'_r``), is at most ``K·dt·θ`` only rises; any other solves the threshold-free equation with ``s₀ +
K·dt·θ``.

With **lakes** (the option the gullies of ``erode_hydraulic`` use) the heights keep their closed hollows: ``level``
holds each lake cell's spill level (the Priority-Flood fill of the heights; ``-inf`` outside lakes); a lake cell is
not cut, a receiver in a lake counts at its level, no cell is cut below its ``bottom``, none rises, and what each
cell loses is kept (``cut``); with a ``width`` the cut of a cell is a valley around it (``_widen``). ``_incise_all``
runs it for the gullies: the sill of a lake is cut with the share of the erodibility the lake lets sediment through
(the tools effect, Sklar & Dietrich 2001, "Sediment and rock strength controls on river incision into bedrock"), and
the cells beside a lake get a ``bottom``.

**Sediment through lakes** (``route_sediment``): the sediment of each cell runs down the stack, donors first; a
lake gathers what reaches it (its cells grouped by the first cell outside it they drain into) and keeps
``E·C·I/(C + I)`` of the inflow ``I``, ``C`` its room below the spill level (a trap efficiency with the trend of
Brune 1953, "Trap efficiency of reservoirs", Transactions of the American Geophysical Union 34(3)), ``E`` the
share that settles in it at all, each of its cells rising by the same share of its depth, so it grows shallower but
keeps its shape. Elsewhere the flow carries at most a capacity and spreads a share of the excess where it runs
(``_beside``), never damming; the rest runs on, and what reaches an outlet leaves the map (returned). Mass is kept.
"""

from __future__ import annotations

import math

import numpy as np

from .._jit import jit, kernel_table
from ..hashing import avalanche, eat, hash_seed
from ..runtime import kernel_signature, launch_blocks, range_signature
from ..threads import on_threads
from .flow import DISTANCES, SQRT2, _accumulate, _donor_bits, _receivers, _tree_order, fill_flat
from .flow import _kernels as flow_kernels
from .heightfield import NEIGHBOURS, on_edge, wrapped_columns, wrapped_rows

PARTS = 2
"""The parts a step runs in (bands of rows, then shares of the outlets), on up to as many threads."""
INDEX = np.int32
"""Cell indices in the routing arrays (maps have at most ``heightfield.MAX_CELLS`` = 2^28 cells): half the memory
traffic of int64 in the serial passes along the stack, which are bound by it."""
NEWTON_ITERATIONS = 60
HUGE = 1e200
"""Incision factors ``F`` beyond this (or infinite) drop the cell to its receiver (``1 / (1 + F)`` is then 0)."""
DEPOSITION_ITERATIONS = 4
"""Gauss-Seidel passes of the incision with deposition (Yuan et al. 2019): each takes the sediment flux of the
previous pass."""
FACETS = np.array([(4, 2), (4, 7), (6, 7), (6, 5), (3, 5), (3, 0), (1, 0), (1, 2)], dtype=np.int64)
"""Tarboton's (1997) eight triangular facets around a cell: each a side neighbour and a corner neighbour
(``NEIGHBOURS`` indices), in turn around the cell."""
OCTANTS = np.array([4, 7, 6, 5, 3, 0, 1, 2], dtype=np.int64)
"""The ``NEIGHBOURS`` index of the directions in turn: octant 0 is a side, 1 a corner, ..."""
SIDE_OCTANTS = np.array([0.0, 0.0, 2.0, 2.0, 4.0, 4.0, 6.0, 6.0])
TURNS = np.array([-1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0])
"""Facet ``f``'s steepest direction is octant ``SIDE_OCTANTS[f] + TURNS[f]·a/45°``."""
JITTER = 0.25
"""How far (in octants, 45°: here ±11.25°) the direction a cell drains in is swung at random each step."""


def index_mask(values: np.ndarray) -> int:
    """The mask a kernel ands a cell index with to read ``values``: all bits for a map, 0 for one value."""
    return -1 if values.shape[0] > 1 else 0


class Routing:
    """The flow routing of one map, its arrays allocated once: receivers, their directions, the stack and
    the drainage area (``weights``: each cell's own, one value or a map); with ``random`` the facet receivers
    drawn from ``seed`` (module docstring) and ``ratio``, the steepest facet's slope over the receiver's and the
    expected step length; with ``depositing`` the heights at the start of a step and the sediment flux (Yuan et
    al. 2019). Set ``random`` to False for D8 from then on."""

    def __init__(
        self,
        shape: tuple[int, int],
        base: np.ndarray,
        looped: bool,
        weights: np.ndarray,
        random: bool = False,
        seed: int = 0,
        depositing: bool = False,
    ) -> None:
        size = shape[0] * shape[1]
        self.shape, self.base, self.looped, self.weights = shape, base, looped, weights
        self.random, self.seed = random, seed
        self.ratio = np.ones((2, size if random else 1))
        self._sediment = (np.empty(size if depositing else 1), np.zeros(size if depositing else 1))
        self.receivers = np.empty(size, dtype=INDEX)
        self.codes = np.empty(size, dtype=np.int8)
        self.order = np.empty(size, dtype=INDEX)
        self.area = np.empty(size, dtype=np.float64)
        self._buffers = (np.empty(size, dtype=np.uint8), np.empty((PARTS, size), dtype=INDEX))
        self._phase, self._pits = np.zeros(1, dtype=np.int64), np.zeros(PARTS, dtype=np.int64)
        self._outlets = np.flatnonzero(base)
        self._split = np.array([0, size // 2, size], dtype=np.int64)

    def step(self, h: np.ndarray, incision: tuple | None, step: int = 0) -> None:
        """Route ``h`` (receivers, stack, area; depressions are filled first if any cell cannot drain), then
        uplift and incise it when ``incision`` (``_step``'s arguments) is given; ``step`` numbers the random
        routing's draws."""
        for _ in range(2):
            launch_blocks(_kernels().step, PARTS, self._arguments(h, incision, step))
            if self._pits.sum() == 0:
                self._balance()
                return
            fill_flat(h, self.shape, self.base, self.looped, True)
        raise AssertionError("fluvial routing: cells still without a receiver after filling")  # pragma: no cover

    def _arguments(self, h: np.ndarray, incision: tuple | None, step: int = 0) -> tuple:
        """The arguments of ``_step`` routing ``h`` (and incising it with ``incision``: uplift, its mask,
        erodibility, its mask, dt, m, n, cell size, deposition, channel head areas (None or a map), its mask,
        threshold slope, incision threshold) at ``step``."""
        rows, columns = self.shape
        idle = (np.zeros(1), 0, np.zeros(1), 0, 0.0, 0.5, 1.0, 1.0, 0.0, None, 0, 0.0, 0.0)
        arguments = incision if incision is not None else idle
        return (
            self._phase, self._pits, self._split, h, rows, columns, self.base, self.looped, self.weights,
            index_mask(self.weights), self.receivers, self.codes, self.order, *self._buffers, self.area,
            incision is not None, *arguments, np.inf, self.random, self.seed, step, self.ratio, *self._sediment,
        )  # fmt: skip

    def _balance(self) -> None:
        """Split the outlets for the next step where the areas of their trees (this step's) reach half: the
        parts then get about as many cells each (a choice made from the data, not the threads)."""
        drained = np.cumsum(self.area[self._outlets])
        if drained.size > 1 and drained[-1] > 0.0:
            middle = min(int(np.searchsorted(drained, drained[-1] / 2)) + 1, drained.size - 1)
            self._split[1] = self._outlets[middle]


def _step(first, last, phase, pits, split, h, rows, columns, base, looped, weights, weight_mask, receivers, codes,
          order, donors, pending, area, incise_, uplift, uplift_mask, erodibility, erodibility_mask, dt, m, n, cell,
          deposition, head, head_mask, steep, threshold, infinity, random, seed, step, ratio, previous,
          flux):  # fmt: skip
    """One step, a range kernel over ``PARTS`` parts: D8 receivers and donor bits of each part's band of rows
    (``flow``); if no cell is a pit (``pits``: per part), each part's share of the outlets (by index)
    (``split[p] .. split[p + 1] - 1``) builds its trees' stack, sums their areas and, if ``incise_``, uplifts
    and incises them (``incise``). The trees are disjoint, so the parts run on Numba's threads without sharing
    a cell, and the bits do not depend on the thread count. Part 0 writes its stack at the start of ``order``,
    part 1 at the end. ``random``: the receivers are ``_facet_receivers``' draws (``seed``, ``step``);
    ``deposition`` > 0: the incision is ``_deposit``'s (``previous``, ``flux``: its arrays); ``head``: the channel
    head areas (``head_share``; None, or a map read at ``index & head_mask``), ``steep``: the threshold slope,
    ``threshold``: the incision threshold (``incise``)."""
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
        if phase[0] == 0 and random:
            pits[part] = _facet_receivers(h, rows, columns, base, looped, receivers, codes, ratio, seed, step, low,
                                          high)  # fmt: skip
        elif phase[0] == 0:
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
                area[stack[i]] = weights[stack[i] & weight_mask] * (ratio[1, stack[i]] if random else 1.0)
            _accumulate(receivers, stack, area)
            if incise_ and deposition > 0.0:
                _deposit(h, receivers, codes, stack, area, uplift, uplift_mask, erodibility, erodibility_mask, dt, m,
                         n, cell, infinity, ratio, random, deposition, previous, flux, head, head_mask, steep,
                         threshold)  # fmt: skip
            elif incise_:
                unused = np.empty(1)  # no lakes: ``incise`` reads no ``level`` and writes no ``cut``
                incise(h, receivers, codes, stack, area, uplift, uplift_mask, erodibility, erodibility_mask, dt, m,
                       n, cell, infinity, False, unused, unused, unused, 1, 0.0, 0.0, 1.0, ratio, random,
                       head, head_mask, steep, threshold)  # fmt: skip


@jit
def incise(h, receivers, codes, stack, area, uplift, uplift_mask, erodibility, erodibility_mask, dt, m, n, cell,
           infinity, lakes, level, cut, bottom, columns, width, per_width, strength, ratio, random, head,
           head_mask, steep, threshold):  # fmt: skip
    """Uplift and stream power incision along ``stack``, implicit (closed form for n = 1, else Newton), every
    cell ending at least one ``nextafter`` step above its receiver. Maps are read at ``index & mask`` (mask 0:
    one value for all cells). ``lakes``: a cell below its ``level`` is in a lake and not cut, a receiver counts
    at ``max(h, level, bottom)`` (``bottom``: the lowest a cell may be cut to), no cell rises and ``cut[c]`` gets
    what the flow at cell ``c`` took (``level``, ``cut``, ``bottom``: maps; unused otherwise); with ``width`` > 0
    (cells; ``columns`` the map's) the flow's cut at ``c`` is a valley ``width·min(1, sqrt(A·per_width))`` cells
    wide, at least half a cell (``_widen``, each cell's share scaled by its erodibility over ``strength``; the
    width of a channel grows as the square root of its discharge, Leopold & Maddock 1953). ``random``: the slope
    is the steepest facet's, ``ratio[0]`` times the receiver's (``_factor``); ``head`` (None: none; a map read at
    ``index & head_mask``): the erodibility times ``head_share(A, head)`` (channel heads); ``steep`` > 0: no cell
    ends more than ``steep`` (a slope) above its receiver (with ``random`` the facet's slope: ``steep·d /
    ratio[0]``), threshold hillslopes;
    ``threshold`` (``θ``) > 0: an incision threshold (``_over_threshold``)."""
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
            lower = max(lower, level[receiver], bottom[node])
        start = h[node] + uplift[node & uplift_mask] * dt
        if lakes and start <= lower:
            continue
        facet = ratio[0, node] if random else 1.0  # scalars to the helpers: no reference counts
        share = 1.0
        if head is not None:  # None: no channel heads, a kernel compiled without them (docs/benchmarks.md)
            share = head_share(area[node], head[node & head_mask])
        factor = _factor(area[node], codes[node], erodibility[node & erodibility_mask], facet, dt, m, n, cell, random,
                         share)  # fmt: skip
        if start <= lower:
            new = start
        elif not factor < HUGE:  # also inf: the cell falls to its receiver
            new = lower
        elif threshold > 0.0:
            new = lower + _over_threshold(
                start - lower,
                factor,
                n,
                _threshold_drop(erodibility[node & erodibility_mask], dt, share, threshold),
                1.0,
            )
        elif n == 1.0:
            new = (start + factor * lower) / (1.0 + factor)
        else:
            new = lower + _newton(start - lower, factor, n)
        if steep > 0.0:
            new = min(new, lower + _rise(codes[node], cell, facet, random, steep))
        new = new if new > lower else np.nextafter(lower, infinity)
        if lakes and width > 0.0:
            wide = max(width * min(1.0, math.sqrt(area[node] * per_width)), 0.5)
            cut[node] = _widen(
                h, receivers, level, bottom, node, columns, wide, h[node] - new, erodibility, erodibility_mask, strength
            )
            continue
        if lakes:
            cut[node] = h[node] - new
        h[node] = new


@jit
def _widen(h, receivers, level, bottom, node, columns, width, depth, erodibility, erodibility_mask, strength):
    """Cut a valley ``width`` cells wide where the flow at ``node`` cuts ``depth``: each cell within ``width`` of
    it by ``depth·bump(dx/width)·bump(dy/width) / Σₖ bump(k/width)`` (the sum over whole offsets ``k``, so the
    overlapping cuts of the cells along a channel add up to about ``depth`` on its line) times its erodibility over
    ``strength``, none in a lake, none more than halfway down to the cell it drains into (``receivers``; at its
    ``level`` if that is in a lake) or to its ``bottom``, so every cell still drains. Narrower than a cell, it is
    ``node``'s own cut. Returns what was taken."""
    rows = h.shape[0] // columns
    y, x = node // columns, node % columns
    first_row, end_row = span(y, width, rows)
    left, right = span(x, width, columns)
    inverse = 1.0 / width
    along = 0.0
    for k in range(1 - math.ceil(width), math.ceil(width)):
        along += bump(k * inverse)
    peak = depth / along
    taken = 0.0
    for j in range(first_row, end_row):
        row = peak * bump((j - y) * inverse)
        for i in range(left, right):
            cell = j * columns + i
            if level[cell] > h[cell]:
                continue
            receiver = receivers[cell]
            floor = max(h[receiver], level[receiver], bottom[cell]) if receiver != cell else h[cell]
            share = row * bump((i - x) * inverse) * erodibility[cell & erodibility_mask] / strength
            part = min(share, 0.5 * max(0.0, h[cell] - floor))
            h[cell] -= part
            taken += part
    return taken


@jit
def _factor(area, code, erodibility, ratio, dt, m, n, cell, random, share):
    """``F = K·dt·A^m / d^n`` of a cell draining ``area`` to its receiver in direction ``code`` (times
    ``ratio^n`` with ``random``: the steepest facet's slope) times ``share`` (``head_share(A, A_c)`` with channel
    heads, else 1); it takes the cell's values, not the maps (docs/benchmarks.md: why)."""
    power = math.sqrt(area) if m == 0.5 else area**m
    distance = DISTANCES[code] * cell
    factor = erodibility * dt * power / (distance if n == 1.0 else distance**n)
    if random:
        factor *= ratio if n == 1.0 else ratio**n
    return factor * share


@jit
def _threshold_drop(erodibility, dt, share, threshold):
    """``K·dt·θ`` times ``share`` (``_factor``'s): what the incision threshold ``θ`` takes off a step's incision
    ``K·dt·A^m·S^n`` (``_over_threshold``)."""
    return erodibility * dt * threshold * share


@jit
def _over_threshold(s0, factor, n, drop, keep):
    """The drop ``s = h' - h'_r`` to the receiver after one implicit step of ``∂h/∂t = U - K·max(A^m·S^n - θ, 0)``
    (an incision threshold: Tucker & Bras 1998; Tucker 2004; Snyder et al. 2003), ``s0`` the drop without incision
    (``h + U·dt - h'_r``), ``F = factor`` (``K·dt·A^m/d^n``, the facet's slope with random routing), ``drop =
    K·dt·θ`` (``_threshold_drop``), ``keep`` (``c``: 1, or ``_deposit``'s ``1 + G·cell²/A``, ``F`` and ``drop``
    then divided by it). Backward Euler: ``c·(s - s0) + max(F·s^n - K·dt·θ, 0) = 0``, whose left side grows with
    ``s``; at ``s = s0`` the incision is ``F·s0^n - K·dt·θ``. Where it is not positive the cell only rises
    (``s0``, exact: the root is ``s0``). Else the root has ``F·s^n > K·dt·θ`` and solves ``s - (s0 + drop/c) +
    (F/c)·s^n = 0``, the threshold-free equation with ``s0 + drop/c``: for ``n = 1`` ``(s0 + drop/c) / (1 + F/c)``,
    else ``_newton``; continuous where ``F·s0^n = K·dt·θ``."""
    power = s0 if n == 1.0 else s0**n
    if not factor * power > drop:
        return s0
    lifted = s0 + drop / keep
    scaled = factor / keep
    return lifted / (1.0 + scaled) if n == 1.0 else _newton(lifted, scaled, n)


@jit
def _rise(code, cell, ratio, random, steep):
    """The most a cell draining in direction ``code`` may stand above its receiver at the threshold slope
    ``steep`` (``ratio``: ``_factor``'s)."""
    rise = steep * DISTANCES[code] * cell
    return rise / ratio if random and ratio > 0.0 else rise


@jit
def head_share(area, head):
    """The share of the stream power a cell draining ``area`` incises with, for the channel head area ``head``:
    0 up to ``head``, 1 from ``2·head``, between them ``t²(3 - 2t)`` with ``t = log₂(area / head)`` (a smooth
    ramp over a factor of 2 in area, so no step in the slopes). Above a channel head the hillslope processes
    alone shape the ground (Montgomery & Dietrich 1988; Tucker & Bras 1998)."""
    if area <= head:
        return 0.0
    if area >= 2.0 * head:
        return 1.0
    t = math.log2(area / head)
    return t * t * (3.0 - 2.0 * t)


@jit
def _deposit(h, receivers, codes, stack, area, uplift, uplift_mask, erodibility, erodibility_mask, dt, m, n, cell,
             infinity, ratio, random, deposition, previous, flux, head, head_mask, steep, threshold):  # fmt: skip
    """``incise`` with deposition (Yuan et al. 2019): ``E = K·A^m·S^n - G·Qs/A`` with ``Qs`` the sediment
    volume per time from everything upstream and the cell itself. Per pass, along ``stack``, with ``Q`` the
    upstream flux of the pass before (``flux``; the last step's at the first pass) and ``c = 1 + G·cell²/A``:
    ``s - s₀ + (F/c)·s^n = 0`` with ``s₀ = h + U·dt - h'_r + G·dt·Q/(c·A)`` (closed form for n = 1); then
    ``flux`` is summed again from the new erosion, in reverse stack order. ``DEPOSITION_ITERATIONS`` passes.
    ``threshold`` > 0: the incision is ``K·(A^m·S^n - θ)`` where positive (``_over_threshold``, with ``c``)."""
    own = cell * cell
    for i in range(stack.shape[0]):
        previous[stack[i]] = h[stack[i]]
    for _ in range(DEPOSITION_ITERATIONS):
        for i in range(stack.shape[0]):
            node = stack[i]
            receiver = receivers[node]
            if receiver == node:
                continue
            lower = h[receiver]
            start = previous[node] + uplift[node & uplift_mask] * dt
            drained = area[node]
            keep = 1.0 + deposition * own / drained if drained > 0.0 else 1.0
            dropped = deposition * dt * flux[node] / (keep * drained) if drained > 0.0 else 0.0
            facet = ratio[0, node] if random else 1.0  # scalars to the helpers: no reference counts
            share = 1.0
            if head is not None:  # None: no channel heads (compiled without them)
                share = head_share(area[node], head[node & head_mask])
            factor = _factor(area[node], codes[node], erodibility[node & erodibility_mask], facet, dt, m, n, cell,
                             random, share)  # fmt: skip
            factor /= keep
            s0 = start + dropped - lower
            if s0 <= 0.0:
                new = start + dropped
            elif not factor < HUGE:
                new = lower
            elif threshold > 0.0:
                new = lower + _over_threshold(
                    s0,
                    factor * keep,
                    n,
                    _threshold_drop(erodibility[node & erodibility_mask], dt, share, threshold),
                    keep,
                )
            elif n == 1.0:
                new = lower + s0 / (1.0 + factor)
            else:
                new = lower + _newton(s0, factor, n)
            if steep > 0.0:
                new = min(new, lower + _rise(codes[node], cell, facet, random, steep))
            h[node] = new if new > lower else np.nextafter(lower, infinity)
        for i in range(stack.shape[0]):
            flux[stack[i]] = 0.0
        for i in range(stack.shape[0] - 1, -1, -1):
            node = stack[i]
            receiver = receivers[node]
            if receiver != node:
                eroded = (previous[node] + uplift[node & uplift_mask] * dt - h[node]) * own / dt if dt > 0.0 else 0.0
                flux[receiver] += max(flux[node] + eroded, 0.0)  # what leaves a cell: never below 0


@jit
def _facet_receivers(flat, rows, columns, outlets, looped, receivers, codes, ratio, seed, step, first_row, last_row):
    """Random receivers of the rows ``first_row .. last_row - 1`` (returns how many cells that are not
    ``outlets`` have no lower neighbour, as ``flow._receivers``). The steepest of the eight facets (D∞,
    Tarboton 1997: on the facet of side drop ``s1`` and side-to-corner drop ``s2``, the slope is
    ``√(s1² + s2²)`` in the direction ````a = atan(s2/s1)```` from the side, clamped to the facet's edges) gives the
    slope ``S`` and the direction ``a``; the cell drains to the corner with probability ``tan a`` (a uniform
    draw, SmallXXHash of ``seed``, ``step`` and the cell), else to the side: the expected step then points
    along ``a``, as Fairfield & Leymarie's (1991) Rho8 draws its receivers. ``ratio[0]``: ``S`` over the slope
    to the receiver (>= 1); ``ratio[1]``: ``1 + (√2 - 1)·tan a``, the expected length of the cell's step, the
    factor on its own area: a flow line holds one cell per step, so without it a plane facing a corner (steps of
    √2) would collect 1/√2 as much area per length as one facing a side, and erode slower.)"""
    pits = 0
    drawn = eat(hash_seed(seed), step)
    near = np.empty(8, dtype=np.int64)
    for row in range(first_row, last_row):
        middle, up, down = wrapped_rows(row, rows, columns)
        for column in range(columns):
            cell = middle + column
            ratio[0, cell] = ratio[1, cell] = 1.0
            if outlets[cell] or on_edge(row, column, rows, columns, looped):
                receivers[cell] = cell
                codes[cell] = -1
                continue
            left, right = wrapped_columns(column, columns)
            near[0], near[1], near[2] = up + left, up + column, up + right  # NEIGHBOURS order
            near[3], near[4] = middle + left, middle + right
            near[5], near[6], near[7] = down + left, down + column, down + right
            height = np.float64(flat[cell])
            steepest, chosen, share = 0.0, -1, 0.0
            for facet in range(8):
                side = np.float64(flat[near[FACETS[facet, 0]]])
                corner = np.float64(flat[near[FACETS[facet, 1]]])
                s1, s2 = height - side, side - corner  # each drop taken directly: sums of drops round
                if s1 > 0.0 and s2 < s1:  # inside the facet, or along its side edge (no squares: drops of
                    slope = math.hypot(s1, s2) if s2 > 0.0 else s1  # one float step would underflow)
                    tangent = s2 / s1 if s2 > 0.0 else 0.0
                else:  # along its corner edge
                    slope = max((height - corner) / SQRT2, 0.0)
                    tangent = 1.0
                if slope > steepest:
                    steepest, chosen, share = slope, facet, tangent
            if chosen < 0:
                receivers[cell] = cell
                codes[cell] = -1
                pits += 1
                continue
            word = avalanche(eat(drawn, cell))
            draw = np.float64(word & 0xFFFF) * (1.0 / 65536.0)  # two draws from one hash: 16 bits each
            swing = (np.float64(word >> 16) * (1.0 / 65536.0) * 2.0 - 1.0) * JITTER
            octant = (SIDE_OCTANTS[chosen] + TURNS[chosen] * math.atan(share) * (4.0 / math.pi) + swing) % 8.0
            below = int(octant)
            along = octant - below  # from octant ``below`` towards the next
            tangent = math.tan((along if below % 2 == 0 else 1.0 - along) * (math.pi / 4.0))
            corner, side = (below + 1, below) if below % 2 == 0 else (below, below + 1)
            code = OCTANTS[corner % 8] if draw < tangent else OCTANTS[side % 8]
            if not np.float64(flat[near[code]]) < height:  # the swing left the downhill cells: undrawn
                code = FACETS[chosen, 1] if draw < share else FACETS[chosen, 0]
                tangent = share
            share = tangent
            receivers[cell] = near[code]
            codes[cell] = code
            ratio[0, cell] = steepest * DISTANCES[code] / (height - np.float64(flat[near[code]]))
            ratio[1, cell] = 1.0 + (SQRT2 - 1.0) * math.sqrt(share)
    return pits


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


def _incise_all(h, receivers, codes, stack, area, strength, settling, sill, level, cut, columns, width, per_width):
    """``incise`` with lakes over the whole ``stack`` for one unit of time, ``m = 0.5``, ``n = 1``, erodibility
    ``strength``, no uplift, cells one unit apart (the gullies' step), as a serial kernel. The cell a lake drains
    into (its sill) is cut with the erodibility times ``1 - E``, ``E`` the share of sediment the lake traps
    (``route_sediment``): the water leaving a lake has dropped that share of its load there, and a river cuts
    with the load it carries (Sklar & Dietrich 2001). No cell beside a lake is cut below its level minus ``sill``
    times the depth of the lake cell beside it (``bottom``): a step drains a lake by at most that share."""
    size = h.shape[0]
    erodibility = np.full(size, strength)
    exits = np.full(size, -1, np.int64)
    members = np.zeros(size)
    bottom = np.full(size, -np.inf)
    rows = size // columns
    for i in range(size):
        node = stack[i]
        receiver = receivers[node]
        if receiver != node and level[node] > h[node]:
            exit_ = exits[receiver] if exits[receiver] >= 0 else receiver
            exits[node] = exit_
            members[exit_] += 1.0
            keep = level[node] - sill * (level[node] - h[node])
            y, x = node // columns, node % columns
            for k in range(8):  # the rim: no cell beside the lake cut below ``keep``
                j, i_ = y + NEIGHBOURS[k, 0], x + NEIGHBOURS[k, 1]
                if 0 <= j < rows and 0 <= i_ < columns:
                    other = j * columns + i_
                    if not level[other] > h[other]:
                        bottom[other] = max(bottom[other], keep)
    for node in range(size):
        if members[node] > 0.0:
            erodibility[node] *= 1.0 - min(1.0, settling * members[node] / area[node])
    incise(h, receivers, codes, stack, area, np.zeros(1), 0, erodibility, -1, 1.0, 0.5, 1.0, 1.0, np.inf, True,
           level, cut, bottom, columns, width, per_width, strength, np.ones((2, 1)), False, None, 0, 0.0,
           0.0)  # fmt: skip


def route_sediment(h, level, receivers, codes, stack, area, settling, carrying, per_cell, deposition, radius, columns,
                   sediment, lake, members, starts, pool, low):  # fmt: skip
    """Carry ``sediment`` (each cell's; consumed) down ``stack``, donors first. The cells below their ``level``
    (lakes) are grouped by the first cell outside them they drain into (``lake``), gather what reaches them
    (``pool``, at that cell) and keep part of it (``_fill_lake``, with the drainage ``area`` of that cell and
    ``settling``), passing on the rest. Elsewhere the flow carries at most ``Q = carrying·A·sqrt(1 + A·per_cell)·S``
    (``A`` its area, ``S`` the slope to its receiver; ``carrying`` 0: no limit) and spreads what it cannot carry
    beside it (``_beside``, within ``radius`` cells); what reaches an outlet (a cell that is its own receiver) is
    returned. ``lake``, ``members``, ``pool``, ``low``: scratch of a cell each; ``starts``: of cells + 1."""
    size = stack.shape[0]
    for node in range(size):
        low[node] = np.inf
    for node in range(size):  # the lowest cell draining into each
        receiver = receivers[node]
        if receiver != node:
            low[receiver] = min(low[receiver], h[node])
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
    rows = size // columns
    for i in range(size - 1, -1, -1):
        node = stack[i]
        if lake[node] >= 0:
            pool[lake[node]] += sediment[node]
            sediment[node] = 0.0
            continue
        if starts[node + 1] > starts[node]:  # the lake that drains here, its sediment all gathered
            lake_cells = members[starts[node] : starts[node + 1]]
            trapped = min(1.0, settling * lake_cells.shape[0] / area[node])
            sediment[node] += _fill_lake(h, level, lake_cells, pool[node], trapped)
        receiver = receivers[node]
        if receiver == node:
            carried += sediment[node]
            sediment[node] = 0.0
            continue
        if carrying > 0.0 and sediment[node] > 0.0:
            slope = max(0.0, h[node] - h[receiver]) / DISTANCES[codes[node]]
            most = carrying * area[node] * math.sqrt(1.0 + area[node] * per_cell) * slope
            if sediment[node] > most:
                placed = _beside(h, level, low, node, rows, columns, radius, deposition * (sediment[node] - most))
                sediment[node] -= placed
        sediment[receiver] += sediment[node]
        sediment[node] = 0.0
    return carried


@jit
def bump(t):
    """``(1 - t²)²`` for ``|t| < 1``, else 0: a brush's profile along one axis (smooth, its slope 0 at the rim)."""
    u = 1.0 - t * t
    return u * u if u > 0.0 else 0.0


@jit
def span(centre, radius, size):
    """The cells ``k`` in ``[0, size)`` with ``|k - centre| < radius``, as ``(first, last + 1)``."""
    return max(math.floor(centre - radius) + 1, 0), min(math.ceil(centre + radius), size)


@jit
def brush_extent(x, y, radius, rows, columns):
    """The brush of ``radius`` at ``(x, y)`` on a ``rows`` x ``columns`` map: its columns ``left .. right - 1``
    and rows ``top .. bottom - 1`` (``span``), ``1 / radius``, and the sums of ``bump`` across and down (a cell's
    weight is ``bump((i - x)/radius)·bump((j - y)/radius)`` over their product)."""
    left, right = span(x, radius, columns)
    top, bottom = span(y, radius, rows)
    inverse = 1.0 / radius
    across = 0.0
    for i in range(left, right):
        across += bump((i - x) * inverse)
    down = 0.0
    for j in range(top, bottom):
        down += bump((j - y) * inverse)
    return left, right, top, bottom, inverse, across, down


@jit
def _beside(h, level, low, node, rows, columns, radius, amount):
    """Spread up to ``amount`` where the flow at ``node`` runs: over it and the cells within ``radius`` of it
    (weights ``bump(dx/radius)·bump(dy/radius)``) no higher than it, not in a lake, that something drains into,
    each at most halfway up to the lowest cell draining into it (``low``): every cell stays below the cells that
    drain into it and above the one it drains into, so nothing is dammed. Returns what was placed."""
    y, x = node // columns, node % columns
    left, right, top, bottom, inverse, across, down = brush_extent(x, y, radius, rows, columns)
    ceiling = h[node]
    scale = amount / (across * down)  # by the weights of all the cells: those that take none pass their share on
    placed = 0.0
    for j in range(top, bottom):
        for i in range(left, right):
            cell = j * columns + i
            if h[cell] <= ceiling and h[cell] < low[cell] < np.inf and not level[cell] > h[cell]:
                part = min(scale * bump((j - y) * inverse) * bump((i - x) * inverse), 0.5 * (low[cell] - h[cell]))
                h[cell] += part
                placed += part
    return placed


@jit
def _fill_lake(h, level, members, amount, trapped):
    """Let the lake ``members`` keep ``E·C·I / (C + I)`` of the ``I = amount`` of sediment that reaches it, ``C``
    the room below its ``level``, ``E = trapped``: a trap efficiency that falls as the lake fills, the trend of
    Brune's (1953) curve of trapped share over capacity/inflow, so a lake never silts up flat in one step, times
    the share ``E`` that settles in it at all. Every cell rises by the same share of its depth below the level,
    so the lake keeps its shape, only shallower (the deepest water gets most). Returns what passes on."""
    room = 0.0
    for k in range(members.shape[0]):
        room += max(0.0, level[members[k]] - h[members[k]])
    if not room > 0.0 or not amount > 0.0:
        return amount
    share = trapped * amount / (amount + room)  # of each cell's depth: keeps E·C·I / (C + I)
    placed = 0.0
    for k in range(members.shape[0]):
        cell = members[k]
        part = share * max(0.0, level[cell] - h[cell])
        h[cell] += part
        placed += part
    return amount - placed


def plan(lakes: bool) -> tuple:
    """The kernels the gullies' flow runs (``erosion._Flow``: the Priority-Flood+ε fill of a float64 map, its
    routing, the sediment through lakes, and with ``lakes`` the incision too), with their types, for
    ``compile_state``."""
    shape, real = (3, 3), np.zeros(9)
    routing = Routing(shape, np.zeros(9, np.uint8), False, np.ones(1))
    kernels, index, small = _kernels(), np.zeros(9, INDEX), np.zeros(10, np.int64)
    fill = flow_kernels().fill
    filling = (real, 3, 3, routing.base, False, True, np.inf, real, index, routing.base, np.zeros(2, np.int64))
    floats = (1.0,) * 5  # settling, carrying, per_cell, deposition, radius
    through = (real, real, index, routing.codes, index, real, *floats, 3, real, index, index, small, real, real)
    steps = [
        (fill, kernel_signature(fill, filling)),
        (kernels.step, range_signature(kernels.step, routing._arguments(real, None))),
        (kernels.sediment, kernel_signature(kernels.sediment, through)),
    ]
    if lakes:
        arguments = (real, index, routing.codes, index, real, 1.0, 1.0, 1.0, real, real, 3, 1.0, 1.0)
        steps.append((kernels.incise, kernel_signature(kernels.incise, arguments)))
    return tuple(steps)


_kernels = kernel_table(serial={"incise": _incise_all, "sediment": route_sediment}, ranged=(_step,))
"""The compiled kernels, built on first use."""
