"""Landscapes: ``erode_fluvial`` run coarse to fine, with a margin beyond the map's edges, and valley floors.

``evolve_landscape`` evolves a terrain by uplift, stream-power incision and hillslope diffusion
(``terrain.fluvial``, Braun & Willett 2013; as Cordonnier et al. 2016 generate terrains) as Schott et al. (2023,
"Large-scale terrain authoring through interactive erosion simulation") and World Creator do: first on a model
grid of ``model_size`` cells, where the drainage network forms and reaches its steady state at a fraction of the
cost, then, the model grid's change upsampled bilinearly and added to the input (the coarse-grid correction of
multigrid methods, Brandt 1977: the input keeps its detail finer than the model grid), ``fine_steps`` steps on
the fine grid, which cut the finer valleys the model grid cannot hold. It is ``erode_fluvial`` with its
coarse-to-fine options (``multiscale``: ``fine_size``, ``model_size``, ``margin``, ``fine_steps``, declared once
there): one mechanism for the rivers of a landscape, of a recipe and of the Erode Rivers operator.

**Margin.** A map whose edges are base level drains straight to them: rivers meet the four edges at right angles
and every slope near them faces one of four directions, a square symmetry no real tile has. With ``margin`` the
model grid holds the map with ``margin`` times its size more on every side (the inputs reflected across the
edges), so the map is a window in a larger landscape: its rivers leave at any angle and its edges are not the
lowest ground. The fine steps then hold the map's edges at the heights the model grid gave them (base level: they
neither rise nor erode).

**Fine grid.** With ``fine_size`` the whole evolution runs on the map sampled to a grid of ``fine_size`` cells
and only its change is interpolated onto the map, so a map built at any size gets the same rivers, at the cost
of that grid and one pass over the map (a preview and an engine-size build agree; docs/scale.md).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace

import numpy as np

from .._jit import kernel_table
from ..schema import Option
from .flow import _edges, accumulate, d8_receivers, fill_flat, stack_order
from .fluvial import FluvialResult, erode_fluvial
from .heightfield import CELL_SIZE, check_heights, check_mask

FILL = Option(
    "valley_fill",
    float,
    0.0,
    "Fill valley floors with sediment: a river's flood level stands "
    "valley_fill x sqrt(drainage area) above its bed (0: none)",
    minimum=0.0,
    maximum=10.0,
    soft_maximum=0.05,
)


def evolve_landscape(
    heights: np.ndarray,
    *,
    steps: int,
    dt: float,
    uplift: float | np.ndarray,
    erodibility: float | np.ndarray,
    cell_size: float = 1.0,
    model_size: int = 0,
    margin: float = 0.0,
    fine_steps: int = 0,
    fine_size: int = 0,
    precipitation: np.ndarray | None = None,
    outlets: np.ndarray | None = None,
    progress: Callable[[int, int], object] | None = None,
    **options: object,
) -> FluvialResult:
    """``heights`` evolved by ``erode_fluvial`` coarse to fine (module docstring): on the grid of ``fine_size``
    cells (0: the map's), the first ``steps - fine_steps`` steps of ``dt`` on the model grid of ``model_size``
    cells with ``margin`` around it, the last ``fine_steps`` on the fine grid. ``options``: ``erode_fluvial``'s
    other keywords (``m``, ``n``, ``diffusion``, ``routing``, ...). ``progress(done, steps)`` after every step.
    The result's ``erosion``/``deposition`` are what each cell lost or gained besides its uplift.
    ``ValueError``/``TypeError`` naming the argument for a bad value."""
    return erode_fluvial(heights, steps=steps, dt=dt, uplift=uplift, erodibility=erodibility, cell_size=cell_size,
                         model_size=model_size, margin=margin, fine_steps=fine_steps, fine_size=fine_size,
                         precipitation=precipitation, outlets=outlets, progress=progress,
                         **options)  # type: ignore[arg-type]  # fmt: skip


OUTLET_AREA = Option(
    "outlet_area",
    float,
    0.0,
    "With boundary closed: the rivers leave only where they leave the heights this stage starts from, at the edge "
    "cells draining at least outlet_area cells of the fine grid (the largest if none does) (0: at the lowest edge "
    "cell)",
    minimum=0.0,
    maximum=1e9,
    soft_maximum=100_000.0,
)
"""The outlets a closed boundary keeps (``river_exits``): a tile cut out of a landscape drains where its rivers
cross the tile's edge, and nowhere else along it."""


def river_exits(heights: np.ndarray, area: float) -> np.ndarray:
    """The edge cells of ``heights`` (2-D) where its D8 rivers, once the depressions are filled (Priority-Flood+ε,
    so every cell drains to an edge), leave the map with a drainage area of at least ``area`` cells: a boolean
    map, holding the edge cell of the largest area when no cell reaches ``area``. ``ValueError`` naming the
    argument."""
    checked = check_heights(heights)
    threshold = float(replace(OUTLET_AREA, name="area", maximum=None).check(area))  # type: ignore[arg-type]
    h, shape, edges, _ = _filled(checked, None)
    receivers = d8_receivers(h.reshape(shape), outlets=edges)
    drained = accumulate(receivers, stack_order(receivers), np.ones(h.shape[0]))
    drained[edges == 0] = 0.0
    exits = drained >= threshold
    exits &= edges == 1
    if not exits.any():
        exits[int(np.argmax(drained))] = True
    return exits.reshape(shape)


def _checked(heights: np.ndarray, cell_size: float, **values: tuple[Option, float]) -> tuple:
    """``(heights, cell size, *values)`` checked, in the keywords' order: ``check_heights``, ``CELL_SIZE``'s check,
    and each ``name=(row, value)`` by its option row renamed ``name`` (the function's argument), an ``area`` row
    without its maximum (the rows' maxima bound the stage's slider, not a drainage area)."""
    checked = check_heights(heights)
    cell = float(CELL_SIZE.check(cell_size))  # type: ignore[arg-type]
    numbers = (
        float(replace(row, name=name, **({"maximum": None} if name == "area" else {})).check(value))  # type: ignore[arg-type]
        for name, (row, value) in values.items()
    )
    return (checked, cell, *numbers)


def _filled(
    checked: np.ndarray, outlets: np.ndarray | None
) -> tuple[np.ndarray, tuple[int, int], np.ndarray, np.ndarray]:
    """``(h, shape, base, inner_outlets)``: the checked heights as a flat float64 copy, epsilon-filled so every
    cell drains to ``base`` (uint8), the map's edges and ``outlets`` (checked against the heights' shape), and
    ``inner_outlets`` (bool) the outlets inside the map (held where the edges are not)."""
    shape = (int(checked.shape[0]), int(checked.shape[1]))
    base = _edges(shape)
    inner_outlets = np.zeros(base.shape[0], dtype=np.bool_)
    if outlets is not None:
        inner_outlets = check_mask("outlets", outlets, shape).reshape(-1) & (base == 0)
        base |= inner_outlets
    h = np.array(checked, dtype=np.float64).reshape(-1)
    fill_flat(h, shape, base, False, True)
    return h, shape, base, inner_outlets


def _trunk_flow(h: np.ndarray, shape: tuple[int, int], base: np.ndarray, cell: float):
    """``(receivers, order, drained, upstream)`` of the epsilon-filled flat heights ``h``: their D8 receivers, the
    stack order, the drainage area (the heights' unit squared, ``cell`` apart) and each cell's main-stem donor
    (``_main_stems``), for the trunk valleys of ``aggrade_valleys`` and ``widen_valleys``."""
    receivers = d8_receivers(h.reshape(shape), outlets=base)
    order = stack_order(receivers)
    drained = accumulate(receivers, order, np.full(h.shape[0], cell * cell))
    upstream = np.full(h.shape[0], -1, dtype=np.int64)
    _kernels().main_stems(receivers, drained, upstream)
    return receivers, order, drained, upstream


def _graded_levels(h, shape, base, cell, depth, area, exponent, grade):
    """``(receivers, order, rise, level)`` of the trunk rivers on ``_trunk_flow`` of the epsilon-filled flat
    heights ``h``: ``rise = depth·√area·((A/area)^exponent - 1)`` (0 up to ``area``) and ``level = h + rise`` donors
    first, capped at the main-stem donor's level less ``grade`` of the bed's fall (``_trunk_levels``): the flood
    level of ``aggrade_valleys`` and the ice surface of ``glacial.carve_troughs``."""
    receivers, order, drained, upstream = _trunk_flow(h, shape, base, cell)
    rise = depth * math.sqrt(area) * (np.maximum(drained / area, 1.0) ** exponent - 1.0)
    del drained
    level = np.empty(h.shape[0])
    _kernels().trunk_levels(h, order, upstream, rise, grade, level)
    return receivers, order, rise, level


def fill_valleys(
    heights: np.ndarray, *, cell_size: float = 1.0, depth: float, outlets: np.ndarray | None = None
) -> np.ndarray:
    """Valley floors filled with sediment (float64, new array): every river stands ``depth · √A`` above its bed
    (``A`` its drainage area, in the heights' unit squared) as a flood level ``W``, carried upstream along the
    D8 flow of the epsilon-filled heights, ``W(c) = max(W(r), h(c) + depth·√A(c))`` (``r`` the receiver, outlets
    and edges their own height), and every cell below its receiver's level rises to it: the bottom of each valley
    becomes a flat floor, falling downstream, as wide as the level meets its walls."""
    checked, cell, fill = _checked(heights, cell_size, depth=(FILL, depth))
    h, shape, base, _ = _filled(checked, outlets)
    receivers = d8_receivers(h.reshape(shape), outlets=base)
    order = stack_order(receivers)
    area = accumulate(receivers, order, np.full(h.shape[0], cell * cell))
    _kernels().flood(h, receivers, order, area, fill)
    return h.reshape(shape)


def _flood(h, receivers, order, area, fill):
    """``fill_valleys``' pass along the stack (receiver first): ``level`` holds each cell's flood level ``W``."""
    level = np.empty(h.shape[0])
    for i in range(order.shape[0]):
        cell = order[i]
        receiver = receivers[cell]
        own = h[cell] + fill * math.sqrt(area[cell])
        if receiver == cell:
            level[cell] = own
            continue
        if h[cell] < level[receiver]:
            h[cell] = level[receiver]
        level[cell] = max(level[receiver], own)


TRUNK_FILL = Option(
    "trunk_fill",
    float,
    0.0,
    "Aggraded floors on trunk valleys: a river draining A > trunk_fill_area stands "
    "trunk_fill x sqrt(trunk_fill_area) x ((A / trunk_fill_area)^0.4 - 1) above its bed as a flood level, "
    "never rising downstream; the valley fills to it (0: none)",
    minimum=0.0,
    maximum=10.0,
    soft_maximum=1.0,
)
TRUNK_FILL_AREA = Option(
    "trunk_fill_area",
    float,
    500.0,
    "Drainage area (cells of the fine grid) a river needs before Trunk Fill gives it a floor: smaller valleys "
    "fill only where they join a floored one",
    minimum=1.0,
    maximum=1e9,
    soft_maximum=1e5,
)
TRUNK_EXPONENT = 0.4
"""``b`` of the trunk fill's depth ``d = depth·√A_c·((A/A_c)^b - 1)``: zero at the threshold ``A_c``, growing
downstream about as a valley's width does (``A^0.3..0.5``: Wohl & David 2008, Harel et al. 2022)."""
TRUNK_GRADE = 0.8
"""A trunk's flood level falls downstream by at least this share of its bed's fall (the floor keeps a grade)."""
TRUNK_BACKWATER = 0.3
"""A trunk flooded by a larger one (backwater) rises upstream at this share of its bed's slope, not flat."""
TRUNK_TILT = 0.03
"""A floor rises by this much per distance away from its river (1.7°): it drains to the river, not along its
feet."""
TRUNK_ROUND = 3
"""Passes of ``h += ∇²h/6`` (the 9-point Laplacian) over the filled cells and their neighbours: rounded feet."""
TRUNK_EDGE = 3
"""Outer rows and columns of the map where a floor is carried on to the edge from the cells inside it
(``_floor_to_edges``)."""


def aggrade_valleys(
    heights: np.ndarray,
    *,
    cell_size: float = 1.0,
    depth: float,
    area: float,
    outlets: np.ndarray | None = None,
) -> np.ndarray:
    """Trunk valleys filled with sediment to a graded flood level (float64, new array). On the D8 flow of the
    epsilon-filled heights each river cell draining ``A > area`` (heights' unit squared) has a flood level
    ``L = h + depth·√area·((A/area)^TRUNK_EXPONENT - 1)``, taken donors first along its main stem (the donor
    of largest area) as ``min(L, L_up - TRUNK_GRADE·(h_up - h))``: it never rises downstream and falls by at
    least ``TRUNK_GRADE`` of the bed's fall. Receivers first, the level is carried up the flow,
    ``W(c) = max(W(r) + t, L(c))``, ``t`` where ``r`` is on a floor: ``TRUNK_TILT·step`` off the trunk rivers,
    ``TRUNK_BACKWATER`` times the bed's fall on them (else 0); each cell below ``W(r) + t`` rises to it (the
    flood-fill of ``fill_valleys`` with a threshold and a graded level): a floor ends where its level meets the
    walls, which keep their slopes, and a tributary fills back to the trunk's level. The map's edge cells are
    outlets and the cells beside them may drain straight off the map, never reaching a floor: in the
    ``TRUNK_EDGE`` outer rows and columns a floor is carried on to the edge from the cells inside it
    (``_floor_to_edges``). The filled cells and their neighbours then take ``TRUNK_ROUND`` passes of
    ``h += ∇²h/6`` (rounded feet), the map point-reflected across its edges (``_reflected``: its edge cells
    rounded as the others, the floors' slopes going on past the edge), and an epsilon fill (Barnes et al. 2014)
    keeps every cell draining."""
    checked, cell, scale, least = _checked(heights, cell_size, depth=(TRUNK_FILL, depth), area=(TRUNK_FILL_AREA, area))
    h, shape, base, inner_outlets = _filled(checked, outlets)
    if scale == 0.0:
        return h.reshape(shape)
    receivers, order, rise, level = _graded_levels(h, shape, base, cell, scale, least, TRUNK_EXPONENT, TRUNK_GRADE)
    kernels = _kernels()
    out = h.copy()
    kernels.raise_to(out, h, receivers, order, shape[1], rise > 0.0, TRUNK_TILT * cell, TRUNK_BACKWATER, level)
    kernels.floor_to_edges(out, h, inner_outlets, shape[0], shape[1], TRUNK_EDGE)
    out = _round_to_edges(out, h, shape, inner_outlets, TRUNK_ROUND)
    fill_flat(out, shape, base, False, True)
    return out.reshape(shape)


def _round_to_edges(
    raised: np.ndarray, before: np.ndarray, shape: tuple[int, int], held: np.ndarray, passes: int
) -> np.ndarray:
    """``passes`` of ``_round_feet`` (``h += ∇²h/6``) on the flat ``raised`` cells (above ``before``) and their
    neighbours, the map point-reflected across its edges (``_reflected``): the map's edge cells rounded as the
    others, a floor's or a trough's slopes going on past the edge, not pulled to a held border; ``held`` (flat
    bool, the outlets inside the map) stays. The map's cells, flat, a new array (``aggrade_valleys``; negated,
    ``glacial.carve_troughs``)."""
    margin = passes + 1  # the rounding's reach: the wider grid's own edge cells (held) do not reach the map
    grid = (shape[0] + 2 * margin, shape[1] + 2 * margin)
    inner = (slice(margin, -margin), slice(margin, -margin))
    wide = _reflected(raised.reshape(shape), margin)
    unraised = wide.copy()  # the cells added are not raised: only the map's raised cells and their neighbours round
    unraised[inner] = before.reshape(shape)
    fixed = _edges(grid)
    fixed.reshape(grid)[inner] |= held.reshape(shape)
    wide = wide.reshape(-1)
    _kernels().round_feet(wide, unraised.reshape(-1), grid[0], grid[1], fixed, passes)
    return np.ascontiguousarray(wide.reshape(grid)[inner]).reshape(-1)


def _reflected(heights: np.ndarray, margin: int) -> np.ndarray:
    """``heights`` (2-D) with ``margin`` cells more on every side, point-reflected through the nearest edge cell,
    ``2·h(edge) - h(inside)`` (``numpy.pad``'s odd reflection: a plane goes on as a plane, so the Laplacian
    across the edge is 0), the corners' blocks through the corner cell (not twice, across both edges)."""
    wide = np.pad(heights, margin, mode="reflect", reflect_type="odd")
    if min(heights.shape) > margin:
        for a, b in ((0, 0), (0, -1), (-1, 0), (-1, -1)):
            near = (slice(1, margin + 1) if a == 0 else slice(-margin - 1, -1),
                    slice(1, margin + 1) if b == 0 else slice(-margin - 1, -1))  # fmt: skip
            far = (slice(0, margin) if a == 0 else slice(-margin, None),
                   slice(0, margin) if b == 0 else slice(-margin, None))  # fmt: skip
            wide[far] = 2.0 * heights[a, b] - heights[near][::-1, ::-1]
    return wide


def _trunk_levels(h, order, upstream, rise, grade, level):
    """``aggrade_valleys``' flood levels, donors first: ``h + rise``, capped at the main-stem donor's level less
    ``grade`` times the bed's fall to here."""
    for i in range(order.shape[0] - 1, -1, -1):
        cell = order[i]
        value = h[cell] + rise[cell]
        up = upstream[cell]
        if up >= 0 and rise[cell] > 0.0:
            cap = level[up] - grade * (h[up] - h[cell])
            if cap < value:
                value = max(cap, h[cell])
        level[cell] = value


def _floor_to_edges(h, before, held, rows, columns, depth):
    """In the map's ``depth`` outer rows and columns, inner ones first: a cell (not ``held``) whose inward
    neighbour ``i`` is on a floor (raised above ``before``) rises to ``min(h_i, 2·h_i - h_ii)`` if it is below it
    (``ii`` the next cell inward): the floor's cross-section carried on to the edge, falling as it falls there
    (linear extrapolation), never rising."""
    depth = min(depth, (min(rows, columns) - 1) // 2 - 1)
    for j in range(depth - 1, -1, -1):
        for side in range(4):
            count = columns if side < 2 else rows
            for t in range(count):
                if side == 0:
                    cell, step = j * columns + t, columns
                elif side == 1:
                    cell, step = (rows - 1 - j) * columns + t, -columns
                elif side == 2:
                    cell, step = t * columns + j, 1
                else:
                    cell, step = t * columns + columns - 1 - j, -1
                inward = cell + step
                if held[cell] or h[inward] <= before[inward]:
                    continue
                value = min(h[inward], 2.0 * h[inward] - h[inward + step])
                if value > h[cell]:
                    h[cell] = value


def _raise_to(h, before, receivers, order, columns, trunk, tilt, grade, level):
    """Receivers first: ``W(c) = max(W(r) + t, level(c))`` (``level`` becomes ``W``), ``t`` where ``r`` is on a
    floor (a ``trunk`` cell or one raised): ``tilt·step`` off the rivers, ``grade`` times the bed's fall from
    ``c`` to ``r`` on them (a trunk flooded by a larger one keeps a grade), else 0; each cell below its
    receiver's ``W(r) + t`` rises to it."""
    floored = trunk.copy()
    for i in range(order.shape[0]):
        cell = order[i]
        receiver = receivers[cell]
        if receiver == cell:
            continue
        carried = level[receiver]
        if floored[receiver]:
            if trunk[cell]:
                carried += grade * max(before[cell] - before[receiver], 0.0)
            else:  # on a floor, off the rivers: rising away from them
                diagonal = (cell % columns != receiver % columns) and (cell // columns != receiver // columns)
                carried += tilt * (1.4142135623730951 if diagonal else 1.0)
        if h[cell] < carried:
            h[cell] = carried
            floored[cell] = True
        if carried > level[cell]:
            level[cell] = carried


def _round_feet(h, before, rows, columns, base, passes):
    """``passes`` of ``h += ∇²h/6``, ``∇²h = (4·Σ sides + Σ corners - 20·h)/6`` (the 9-point Laplacian), on the
    cells raised above ``before`` and their eight neighbours, but ``base`` and the map's border."""
    n = rows * columns
    active = np.zeros(n, dtype=np.bool_)
    for cell in range(n):
        if h[cell] > before[cell]:
            y, x = cell // columns, cell % columns
            for dy in range(-1, 2):
                for dx in range(-1, 2):
                    yy, xx = y + dy, x + dx
                    if 0 <= yy < rows and 0 <= xx < columns:
                        active[yy * columns + xx] = True
    cells = np.flatnonzero(active)
    change = np.zeros(cells.shape[0])
    for _ in range(passes):
        for k in range(cells.shape[0]):
            cell = cells[k]
            if base[cell]:
                change[k] = 0.0
                continue
            y, x = cell // columns, cell % columns
            if y == 0 or x == 0 or y == rows - 1 or x == columns - 1:
                change[k] = 0.0
                continue
            sides = h[cell - 1] + h[cell + 1] + h[cell - columns] + h[cell + columns]
            corners = h[cell - columns - 1] + h[cell - columns + 1] + h[cell + columns - 1] + h[cell + columns + 1]
            change[k] = (4.0 * sides + corners - 20.0 * h[cell]) / 6.0 / 6.0
        for k in range(cells.shape[0]):
            h[cells[k]] += change[k]


FLOOR = Option(
    "valley_floor",
    float,
    0.0,
    "Broad graded floors on trunk valleys: a river draining A > valley_floor_area gets a floor "
    "valley_floor x sqrt(valley_floor_area) x ((A / valley_floor_area)^0.3 - 1) wide, its walls moved apart (0: none)",
    minimum=0.0,
    maximum=4.0,
    soft_maximum=1.0,
)
FLOOR_AREA = Option(
    "valley_floor_area",
    float,
    500.0,
    "Drainage area (cells of the fine grid) a river needs before Valley Floor widens it: tributaries below stay "
    "V-shaped",
    minimum=1.0,
    maximum=1e9,
    soft_maximum=1e5,
)
FLOOR_EXPONENT = 0.3
"""``b`` of the floor width ``W ∝ A^b``: bedrock channels widen as ``A^0.3`` (Wohl & David 2008), valleys as a
power of the area too (Harel et al. 2022)."""
FLOOR_TILT = 0.05
"""Rise of a floor per distance from its river (5 %): floors drain to the river, not along parallel lines."""
FLOOR_SHIFT = 2.0
"""Walls within ``FLOOR_SHIFT · w`` of the river move out by the floor's half-width ``w``..."""
FLOOR_TAPER = 4.0
"""...and the shift falls linearly to 0 over the next ``FLOOR_TAPER · w``."""
FLOOR_SMOOTH = 4
"""A river's course for its floor: the mean of the cells this many steps up and down it (not the D8 zigzag)."""


def widen_valleys(
    heights: np.ndarray,
    *,
    cell_size: float = 1.0,
    width: float,
    area: float,
    outlets: np.ndarray | None = None,
) -> np.ndarray:
    """Trunk valleys with broad floors at their river's grade (float64, new array). On the D8 flow of the
    epsilon-filled heights every river cell draining ``A > area`` (heights' unit squared) gets a floor of
    half-width ``w = width·√area·((A/area)^0.3 - 1)/2`` (Wohl & David 2008's ``A^0.3``) around its course
    (smoothed along the river). Walls move apart by a grey-scale erosion (Serra 1982): each cell within
    ``(FLOOR_SHIFT + FLOOR_TAPER)·w`` of a course takes the lowest height within a disc of radius ``r`` (``w``
    up to ``FLOOR_SHIFT·w``, then falling linearly to 0), so a wall keeps its slope and moves ``r`` away from the
    river (lateral planation: Langston & Tucker 2018), but no lower than the floor ``F``: the rivers' heights
    averaged with Shepard's (1968) inverse-distance weights ``(1 - d/R)²/(1 + d²)²`` (``d`` cells from the
    course, ``R`` its reach), plus ``FLOOR_TILT·d``. Cells within ``w`` of a course become ``max(erosion, F)``
    (tributary notches filled to the floor), the others ``min(h, max(erosion, F))``; the edges and ``outlets``
    stay, then an epsilon fill (Barnes et al. 2014) keeps every cell draining. The floor falls with the river
    downstream; tributaries below ``area`` keep their V."""
    checked, cell, scale, least = _checked(heights, cell_size, width=(FLOOR, width), area=(FLOOR_AREA, area))
    h, shape, base, _ = _filled(checked, outlets)
    if scale == 0.0:
        return h.reshape(shape)
    receivers, _, drained, upstream = _trunk_flow(h, shape, base, cell)
    half = 0.5 * scale * math.sqrt(least) * (np.maximum(drained / least, 1.0) ** FLOOR_EXPONENT - 1.0) / cell
    trunk = np.flatnonzero(half > 0.5)
    kernels = _kernels()
    courses = np.empty((trunk.shape[0], 2))
    kernels.courses(receivers, upstream, trunk, shape[1], FLOOR_SMOOTH, courses)
    reach = np.zeros(h.shape[0])
    floor = np.zeros(h.shape[0])
    weight = np.zeros(h.shape[0])
    inside = np.zeros(h.shape[0], dtype=np.bool_)
    kernels.stamp_floors(h, shape[0], shape[1], trunk, courses, half, FLOOR_TILT * cell, FLOOR_SHIFT, FLOOR_TAPER,
                         reach, floor, weight, inside)  # fmt: skip
    floor = np.divide(floor, weight, out=np.full(h.shape[0], np.inf), where=weight > 0.0)
    out = h.copy()
    kernels.erode_walls(h, shape[0], shape[1], base, reach, floor, inside, out)
    fill_flat(out, shape, base, False, True)
    return out.reshape(shape)


def _main_stems(receivers, area, upstream):
    """``upstream[c]``: the donor of ``c`` with the largest drainage area (its main stem), -1 for none."""
    for cell in range(receivers.shape[0]):
        r = receivers[cell]
        if r != cell and (upstream[r] < 0 or area[cell] > area[upstream[r]]):
            upstream[r] = cell


def _courses(receivers, upstream, trunk, columns, steps, courses):
    """Each trunk cell's place on its river, smoothed: the mean (row, column) of the cells up to ``steps`` up
    its main stem and down its flow path."""
    for i in range(trunk.shape[0]):
        node = trunk[i]
        sy = float(node // columns)
        sx = float(node % columns)
        count = 1.0
        down = node
        up = node
        for _ in range(steps):
            if receivers[down] != down:
                down = receivers[down]
                sy += down // columns
                sx += down % columns
                count += 1.0
            if upstream[up] >= 0:
                up = upstream[up]
                sy += up // columns
                sx += up % columns
                count += 1.0
        courses[i, 0] = sy / count
        courses[i, 1] = sx / count


def _stamp_floors(h, rows, columns, trunk, courses, half, tilt, shift, taper, reach, floor, weight, inside):
    """Around each trunk cell's course, out to ``R = (shift + taper)·w``: ``reach`` the largest erosion radius
    (``w`` to ``shift·w``, then falling to 0 at ``R``), ``floor``/``weight`` the weighted sums of the floor
    level ``h + tilt·d``, ``inside`` within ``w``."""
    for i in range(trunk.shape[0]):
        node = trunk[i]
        w = half[node]
        outer = (shift + taper) * w
        cy, cx = courses[i, 0], courses[i, 1]
        row, column = round(cy), round(cx)
        span = int(outer) + 1
        for dy in range(-span, span + 1):
            y = row + dy
            if y < 0 or y >= rows:
                continue
            for dx in range(-span, span + 1):
                x = column + dx
                if x < 0 or x >= columns:
                    continue
                d = math.sqrt((y - cy) ** 2 + (x - cx) ** 2)
                if d >= outer:
                    continue
                r = w if d <= shift * w else (outer - d) / taper
                target = y * columns + x
                if r > reach[target]:
                    reach[target] = r
                if d <= w:
                    inside[target] = True
                fade = 1.0 - d / outer
                share = fade * fade / (1.0 + d * d) ** 2
                floor[target] += share * (h[node] + tilt * d)
                weight[target] += share


def _erode_walls(h, rows, columns, base, reach, floor, inside, out):
    """Every cell off ``base`` with a reach ``r > 0``: the lowest of ``h`` (bilinear) on rings of radius ``r,
    r - 1, ...`` around it (a grey-scale erosion by a disc of radius ``r``), no lower than ``floor``; no higher
    than itself unless ``inside``."""
    for node in range(h.shape[0]):
        r = reach[node]
        if r <= 0.0 or base[node]:
            continue
        row, column = node // columns, node % columns
        lowest = h[node]
        rho = r
        ring = 0
        while rho > 0.0:
            count = max(6, math.ceil(2.0 * math.pi * rho))
            step = 2.0 * math.pi / count
            phase = 2.399963229728653 * ring  # the golden angle: rings' samples do not line up
            for k in range(count):
                angle = phase + k * step
                y = min(max(row + rho * math.sin(angle), 0.0), rows - 1.0)
                x = min(max(column + rho * math.cos(angle), 0.0), columns - 1.0)
                y0 = min(int(y), rows - 2)
                x0 = min(int(x), columns - 2)
                fy = y - y0
                fx = x - x0
                top = h[y0 * columns + x0] * (1.0 - fx) + h[y0 * columns + x0 + 1] * fx
                bottom = h[(y0 + 1) * columns + x0] * (1.0 - fx) + h[(y0 + 1) * columns + x0 + 1] * fx
                value = top * (1.0 - fy) + bottom * fy
                if value < lowest:
                    lowest = value
            rho -= 1.0
            ring += 1
        level = max(lowest, floor[node])
        out[node] = level if inside[node] else min(h[node], level)


_kernels = kernel_table(
    serial=(
        _flood,
        _trunk_levels,
        _raise_to,
        _floor_to_edges,
        _round_feet,
        _main_stems,
        _courses,
        _stamp_floors,
        _erode_walls,
    )
)
"""The compiled kernels, built on first use."""
