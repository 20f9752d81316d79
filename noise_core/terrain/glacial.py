"""Glacial troughs (issue 49): valleys that held a glacier, carved U-shaped, with hanging side valleys.

A river cuts a V; a glacier filling the valley erodes its whole bed, fastest where the ice slides fastest, near
the middle, and widens and deepens it into a U: a broad floor between steep walls whose cross-section follows a
power law ``z = a·x^b`` (``b`` near 2: Svensson 1959's parabola; Harbor 1992's model of glacial erosion carves
a V into that shape). Tributary glaciers carry less ice and cut less deep, so their floors hang above the trunk's
where they meet (MacGregor et al. 2000), and small side valleys end in the trough's walls.

``carve_troughs`` does it at once on a height grid, with no ice flow: the ice stands in the valleys of rivers
that drain more than ``area``, ``H = depth·√area·((A/area)^GLACIER_EXPONENT - 1)`` thick (zero at the glacier's
head, growing downstream as the ice discharge does), its surface ``L = h + H`` taken along each main stem so
that it never rises downstream (``landscape.aggrade_valleys``' graded level, with the same kernels). The ice
surface is carried up the flow (flat across the valley: Nye 1952's ice surface is nearly level across a valley
glacier), so its footprint is every cell below it that drains into it: it ends where the ice surface meets the
walls, along the terrain's contours, and reaches into the mouths of the side valleys. Inside it, each cell is
carved to ``F + (L - F)·x^GLACIER_SHAPE``, never raised: ``F`` the floor of the glacier whose ice it holds (its
bed lowered by ``GLACIER_DEEPEN·H``, graded so that it drains), ``x = d / (d + e)`` its place across the trough
(``d`` its distance to the nearest glacier, ``e`` to the footprint's edge, both exact Euclidean distance
transforms: Felzenszwalb & Huttenlocher 2012), so the walls are steep at the ice's edge and the floor broad
and flat, and a trough is as wide as its ice, whatever the shape of the valley it came from. The wall keeps
``GLACIER_TEXTURE·x^GLACIER_SHAPE`` of the old slope's height above the parabola (none on the floor, half at the
ice's edge), so the gullies and spurs of the slope it cut still show, fainter, in its lower walls. Where the valley
is gentle the ice would spread over the whole basin; it reaches no further from its glacier than its thickness
over ``GLACIER_WALL``, so a trough cuts into a plateau as the Norwegian fjords do. ``F`` is the higher floor of
the glacier whose ice the cell holds and of the nearest glacier cell, so a tributary glacier under the trunk's
ice keeps its own, higher floor (a hanging valley) instead of a notch cut to the trunk's; a few passes of
the 9-point diffusion (as ``landscape.aggrade_valleys`` rounds its feet) round the steps where two floors meet.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from .._jit import kernel_table
from ..schema import Option
from .flow import fill_flat
from .heightfield import CELL_SIZE, check_heights
from .landscape import _filled, _graded_levels
from .landscape import _kernels as _landscape_kernels
from .water import INFINITE, _envelope, _shore
from .water import _kernels as _water_kernels

GLACIER_DEPTH = Option(
    "glacier_depth",
    float,
    0.0,
    "Glacial troughs: a valley draining A > glacier_area holds ice glacier_depth x sqrt(glacier_area) x "
    "((A / glacier_area)^0.4 - 1) thick, which carves it U-shaped, its side valleys hanging (0: none)",
    minimum=0.0,
    maximum=10.0,
    soft_maximum=1.0,
)
GLACIER_AREA = Option(
    "glacier_area",
    float,
    2000.0,
    "Drainage area (cells of the fine grid) from which a valley holds a glacier (Glacier Depth): smaller valleys "
    "keep their V and hang above the troughs",
    minimum=1.0,
    maximum=1e9,
    soft_maximum=1e5,
)
GLACIAL_OPTIONS = (GLACIER_DEPTH, GLACIER_AREA)
"""The river stage's rows (``recipe.RIVER_OPTIONS``)."""
GLACIER_EXPONENT = 0.4
"""``p`` of the ice thickness ``H = depth·√A_g·((A/A_g)^p - 1)``: zero at the glacier's head, growing downstream
as glacial valleys' depth and width grow with their ice discharge."""
GLACIER_GRADE = 0.2
"""The ice surface falls downstream by at least this share of its bed's fall (``landscape.TRUNK_GRADE`` for
the trunk fill's level): lower than the trunk fill's, as an ice surface is smoother than its bed."""
GLACIER_SHAPE = 2.0
"""``b`` of the cross-section ``F + (L - F)·x^b``: 2, Svensson's (1959) parabola, the shape Harbor (1992) finds."""
GLACIER_WALL = 0.5
"""The ice reaches no further from its glacier than its thickness over this slope (a trough cut into a plateau
is as wide as a V valley of this wall slope would be)."""
GLACIER_DEEPEN = 0.3
"""A glacier's floor lies this share of its ice thickness below its river's bed (an overdeepened trough)..."""
GLACIER_FLOOR_GRADE = 0.8
"""...but falls downstream by at least this share of the bed's fall, so that every trough drains."""
GLACIER_TEXTURE = 0.5
"""``τ`` of the carved wall ``U + τ·x^b·(h - U)`` (``b`` ``GLACIER_SHAPE``): the share of the old slope (its gullies
and spurs) a wall keeps, from none on the floor (``x = 0``) to ``τ`` where the ice ends (``x = 1``)."""
GLACIER_ROUND = 4
"""Passes of ``h += ∇²h/6`` over the carved cells and their neighbours (``landscape._round_feet``): the steps
where one glacier's floor meets another's and the crease at the ice's edge rounded over a few cells."""


def carve_troughs(
    heights: np.ndarray,
    *,
    cell_size: float = 1.0,
    depth: float,
    area: float,
    outlets: np.ndarray | None = None,
) -> np.ndarray:
    """Valleys draining more than ``area`` (the heights' unit squared) carved into glacial troughs (float64, new
    array; module docstring). On the D8 flow of the epsilon-filled heights ``h``, a river cell's ice is
    ``H = depth·√area·((A/area)^GLACIER_EXPONENT - 1)`` thick; its surface ``L = h + H``, donors first along the
    main stems, is capped at ``L_up - GLACIER_GRADE·(h_up - h)``. Receivers first, the surface is carried up the
    flow, ``W(c) = max(W(r), L(c))`` for cells below it, and each such cell holds the ice of the glacier cell
    that set its ``W`` (its owner). A glacier cell's floor is ``F = max(h - GLACIER_DEEPEN·(L - h), F(r) +
    GLACIER_FLOOR_GRADE·(h - h(r)))`` (``F(r) = h(r)`` off the glaciers). A cell is in the ice if it holds ice
    and its distance ``d`` to the nearest glacier cell is at most that cell's ``(L - h) / GLACIER_WALL``; it is
    carved to ``U = F + (W - F)·x^GLACIER_SHAPE``, ``x = d / (d + e)``, if below ``h``, keeping
    ``GLACIER_TEXTURE·x^b`` of the old slope: ``U + GLACIER_TEXTURE·x^b·(h - U)``; ``F`` the higher floor of its owner
    and of its nearest glacier cell, ``e`` its distance to the nearest cell outside the ice (both Euclidean
    distance transforms). The carved cells and their neighbours then take ``GLACIER_ROUND`` passes of ``h += ∇²h/6`` (no
    higher than before). The edges and ``outlets`` stay; an epsilon fill (Barnes et al. 2014) keeps every cell
    draining. ``depth`` 0: the epsilon-filled heights. ``ValueError``/``TypeError`` naming the argument for a bad
    value."""
    checked = check_heights(heights)
    cell = float(CELL_SIZE.check(cell_size))  # type: ignore[arg-type]
    scale = float(replace(GLACIER_DEPTH, name="depth").check(depth))  # type: ignore[arg-type]
    least = float(replace(GLACIER_AREA, name="area", maximum=None).check(area))  # type: ignore[arg-type]
    h, shape, base = _filled(checked, outlets)
    if scale == 0.0:
        return h.reshape(shape)
    receivers, order, thickness, level = _graded_levels(
        h, shape, base, cell, scale, least, GLACIER_EXPONENT, GLACIER_GRADE
    )
    del thickness
    kernels = _kernels()
    surface = np.empty(h.shape[0])
    owner = np.empty(h.shape[0], dtype=np.int64)
    floor = np.empty(h.shape[0])
    kernels.ice(h, receivers, order, level, base, GLACIER_DEEPEN, GLACIER_FLOOR_GRADE, surface, owner, floor)
    glaciers = owner == np.arange(h.shape[0])
    if not glaciers.any():
        return h.reshape(shape)
    nearest = np.empty(h.shape[0], dtype=np.int64)
    squared = np.empty(h.shape[0])
    kernels.nearest_sites(glaciers.reshape(shape), nearest.reshape(shape), squared.reshape(shape))
    to_glacier = np.sqrt(squared)
    reach = (surface - h) / (GLACIER_WALL * cell)  # a glacier cell's: in cells
    inside = (owner >= 0) & (to_glacier <= reach[nearest])
    owner[~inside] = -1
    to_edge = _shore(_water_kernels(), inside, shape).reshape(-1)  # inside: to the nearest cell outside the ice
    out = h.copy()
    kernels.carve(out, owner, nearest, surface, floor, to_edge, to_glacier, base, GLACIER_SHAPE, GLACIER_TEXTURE)
    if GLACIER_ROUND > 0:  # on the lowered cells: the heights negated, as aggrade_valleys' feet are raised
        np.negative(out, out=out)
        _landscape_kernels().round_feet(out, -h, shape[0], shape[1], base, GLACIER_ROUND)
        np.negative(out, out=out)
        np.minimum(out, h, out=out)  # carved, never raised
    fill_flat(out, shape, base, False, True)
    return out.reshape(shape)


def _ice(h, receivers, order, level, base, deepen, grade, surface, owner, floor):
    """Receivers first: a glacier cell (``level > h``) whose ``level`` is at least its receiver's ice surface
    sets its own (``owner`` itself, ``floor`` graded on its receiver's); any other cell below its receiver's ice
    surface takes it and its ``owner``; the rest are outside (``owner`` -1)."""
    for i in range(order.shape[0]):
        cell = order[i]
        receiver = receivers[cell]
        carried = -math.inf
        if receiver != cell and owner[receiver] >= 0:
            carried = surface[receiver]
        if level[cell] > h[cell] and level[cell] >= carried:
            surface[cell] = level[cell]
            owner[cell] = cell
            if base[cell] or receiver == cell:
                floor[cell] = h[cell]
                continue
            below = floor[receiver] if owner[receiver] == receiver else h[receiver]
            floor[cell] = max(h[cell] - deepen * (level[cell] - h[cell]), below + grade * (h[cell] - h[receiver]))
        elif h[cell] < carried:
            surface[cell] = carried
            owner[cell] = owner[receiver]
        else:
            owner[cell] = -1


def _carve(h, owner, nearest, surface, floor, to_edge, to_glacier, base, shape, texture):
    """Each cell in the ice but ``base``: ``U = F + (W - F)·x^shape``, ``x = d / (d + e)``, ``F`` the higher floor of
    its ``owner`` and of its ``nearest`` glacier cell; below ``h`` it becomes ``U + texture·x^shape·(h - U)``
    (``carve_troughs``)."""
    for cell in range(h.shape[0]):
        source = owner[cell]
        if source < 0 or base[cell]:
            continue
        d = to_glacier[cell]
        e = to_edge[cell]
        across = d / (d + e) if d + e > 0.0 else 0.0
        bottom = max(floor[source], floor[nearest[cell]])
        weight = across**shape
        carved = bottom + (surface[cell] - bottom) * weight
        if carved < h[cell]:
            h[cell] = carved + texture * weight * (h[cell] - carved)


def _nearest_sites(sites, nearest, squared):
    """For every cell of the 2-D mask ``sites``: ``nearest`` the flat index of the nearest site (-1 for none) and
    ``squared`` its squared distance (``water.INFINITE`` for none): the exact Euclidean distance transform of
    Felzenszwalb & Huttenlocher (2012), columns then rows (``water._envelope``), each vertex of the rows' lower
    envelope carrying the site its column found."""
    rows, columns = sites.shape
    size = max(rows, columns)
    line, out = np.empty(size), np.empty(size)
    vertices, bounds = np.empty(size, np.int64), np.empty(size + 1)
    found = np.empty((rows, columns), np.int64)
    for column in range(columns):
        for row in range(rows):
            line[row] = 0.0 if sites[row, column] else INFINITE
        _envelope(line, rows, out, vertices, bounds)
        j = 0
        for row in range(rows):
            squared[row, column] = out[row]
            if out[0] >= INFINITE:  # no site in this column (the envelope is empty)
                continue
            while bounds[j + 1] < row:
                j += 1
            found[row, column] = vertices[j]
    for row in range(rows):
        for column in range(columns):
            line[column] = squared[row, column]
        _envelope(line, columns, out, vertices, bounds)
        j = 0
        for column in range(columns):
            squared[row, column] = out[column]
            nearest[row, column] = -1
            if out[0] >= INFINITE:  # no site at all
                continue
            while bounds[j + 1] < column:
                j += 1
            p = vertices[j]
            nearest[row, column] = found[row, p] * columns + p


_kernels = kernel_table(serial=(_ice, _carve, _nearest_sites))
"""The compiled kernels, built on first use."""
