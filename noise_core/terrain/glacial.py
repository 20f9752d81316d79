"""Glacial troughs (issue 49): valleys that held a glacier, carved U-shaped, with hanging side valleys.

A river cuts a V; a glacier filling the valley erodes its whole bed, fastest where the ice slides fastest, near
the middle, and widens and deepens it into a U: a broad floor between steep walls whose cross-section follows a
power law ``z = a·x^b`` (``b`` near 2: Svensson 1959's parabola; Harbor 1992's model of glacial erosion carves
a V into that shape; Graf 1970 measured it and the form ratio depth/width). Tributary glaciers carry less ice
and cut less deep, so their floors hang above the trunk's where they meet (MacGregor et al. 2000), and the
glaciers reach up valleys of every order: a network of troughs, wide trunks and narrow side valleys.

``carve_troughs`` does it at once on a height grid, with no ice flow: the ice stands in the valleys of rivers
that drain more than ``area``, ``H = depth·√area·((A/area)^GLACIER_EXPONENT - 1)`` thick (zero at the glacier's
head, growing downstream as the ice discharge does), its surface ``L = h + H`` taken along each main stem so
that it never rises downstream (``landscape.aggrade_valleys``' graded level, with the same kernels). Each glacier
cell's floor ``F`` lies ``GLACIER_DEEPEN·H`` below its bed (an overdeepened trough), graded so that it drains.
Its trough is ``w`` wide either side at the ice's level: ``H / GLACIER_WALL`` (as wide as deep), or with
``width`` a width law of its own, ``W = 2w = width·√area·(A/area)^GLACIER_WIDTH_EXPONENT`` (glacial troughs
widen as about ``A^0.36``: Bahr 1997's glacier widths ``∝ L^0.6`` with Hack's ``L ∝ A^0.6``), narrower in strong rock by
``exp(rock_width·z)`` with the river stage's rock field ``z`` (trough widths follow rock mass strength:
Augustinus 1992, 1995). Around each glacier cell the trough is the surface of revolution ``U_g(d) = F + D·((d -
f)/(w - f))^GLACIER_SHAPE`` (flat within ``f = GLACIER_FLAT·w``, the floor; ``D = h - F + GLACIER_WALL·w``, so
it is ``GLACIER_WALL·w`` above the bed at ``d = w``), and every cell becomes the lowest of them and its own
height: ``min(h, min_g U_g)``, a continuous surface, so where two troughs meet the deeper one's wall cuts the
other's floor (a hanging valley's lip) with no step across either floor. The wall keeps
``GLACIER_TEXTURE·x^GLACIER_SHAPE`` of the old slope's height above the trough (``x = d / (d + e)``, ``d`` the
distance to the nearest glacier cell, ``e`` to the nearest cell not carved, both exact Euclidean distance
transforms: Felzenszwalb & Huttenlocher 2012), so the gullies and spurs of the slope it cut still show, fainter,
in its upper walls; a few passes of the 9-point diffusion (as ``landscape.aggrade_valleys`` rounds its feet)
round the creases. With ``wall_slope`` ``s`` the cross-section goes on as the plane of gradient ``s`` beyond the
distance where the parabola is as steep: a straight wall near the rock's stable angle under a sharp shoulder
(Harbor 1992; Augustinus 1995), not a steeper notch at the foot of the old slope.
"""

from __future__ import annotations

import math

import numpy as np

from .._jit import kernel_table
from ..schema import Option
from .flow import accumulate, fill_flat
from .landscape import _checked, _filled, _graded_levels, _round_to_edges
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
GLACIER_WIDTH = Option(
    "glacier_width",
    float,
    0.0,
    "Glacial troughs' width: a glacier draining A is glacier_width x sqrt(glacier_area) x "
    "(A / glacier_area)^0.3 wide at its ice surface (0: its ice thickness over 0.5, as wide as deep)",
    minimum=0.0,
    maximum=10.0,
    soft_maximum=2.0,
)
GLACIER_ROCK = Option(
    "glacier_rock",
    float,
    0.0,
    "Glacial troughs narrower in strong rock: a trough's width times exp(glacier_rock x z), z the river stage's "
    "rock field (Rock Variety; strong rock z < 0) (0: the same width in any rock)",
    minimum=0.0,
    maximum=4.0,
    soft_maximum=1.0,
)
GLACIER_WALL_SLOPE = Option(
    "glacier_wall_slope",
    float,
    0.0,
    "Glacial troughs' walls no steeper than this gradient (0.7: 35 degrees): above it a wall rises as a plane up to "
    "the slope it cuts, a wider trough with a wall of one slope, not a steeper notch (0: the parabola throughout)",
    minimum=0.0,
    maximum=10.0,
    soft_maximum=2.0,
)
GLACIER_FLOOR_GRADE_OPTION = Option(
    "glacier_floor_grade",
    float,
    0.8,
    "Glacial troughs' floors fall downstream by at least this share of their river's fall: lower, a trunk sinks "
    "further (to 0.3 of its ice thickness below its bed), so its thinner tributaries hang higher above it",
    minimum=0.0,
    maximum=1.0,
)
GLACIER_OVERDEEPEN = Option(
    "glacier_overdeepen",
    float,
    0.0,
    "Glacial troughs overdeepened: every glacier's floor at least glacier_overdeepen x its ice thickness below its "
    "bed, past the floor grade (a trunk's thick ice sinks deeper than its tributaries', which hang; lakes fill the "
    "basins) (0: none)",
    minimum=0.0,
    maximum=2.0,
    soft_maximum=1.0,
)
GLACIAL_OPTIONS = (
    GLACIER_DEPTH,
    GLACIER_AREA,
    GLACIER_WIDTH,
    GLACIER_ROCK,
    GLACIER_WALL_SLOPE,
    GLACIER_FLOOR_GRADE_OPTION,
    GLACIER_OVERDEEPEN,
)
"""The river stage's rows (``recipe.RIVER_OPTIONS``)."""
GLACIER_EXPONENT = 0.4
"""``p`` of the ice thickness ``H = depth·√A_g·((A/A_g)^p - 1)``: zero at the glacier's head, growing downstream
as glacial valleys' depth and width grow with their ice discharge."""
GLACIER_WIDTH_EXPONENT = 0.3
"""``b`` of the trough's width ``W = width·√A_g·(A/A_g)^b`` (``glacier_width``): glacial troughs widen with
their drainage area as a power ``b`` near 0.36 (Bahr 1997: glacier widths grow as their lengths^0.6; with Hack's
law ``L ∝ A^0.6``, ``W ∝ A^0.36``), a little below so that the trunks stay 1-2 km wide when the side valleys
are 300-600 m."""
GLACIER_GRADE = 0.2
"""The ice surface falls downstream by at least this share of its bed's fall (``landscape.TRUNK_GRADE`` for
the trunk fill's level): lower than the trunk fill's, as an ice surface is smoother than its bed."""
GLACIER_SHAPE = 2.0
"""``b`` of the cross-section ``F + D·(d/w)^b``: 2, Svensson's (1959) parabola, the shape Harbor (1992) finds."""
GLACIER_WALL = 0.5
"""Without ``glacier_width`` a trough is ``H / GLACIER_WALL`` wide either side of its glacier at the ice's surface
(as wide as a V of this wall slope); every trough is at least ``GLACIER_WALL·w`` deep at ``w`` from its glacier
(a thin glacier under a wide width law still cuts a U, not a flat shelf)."""
GLACIER_FLAT = 0.45
"""The middle ``GLACIER_FLAT·w`` either side of a glacier is its floor, flat at ``F``; the walls rise beyond."""
GLACIER_REACH = 2.5
"""A glacier cell's parabola is laid out to this many half-widths ``w`` (there ``9·D`` above its floor: above
the walls it cuts)."""
GLACIER_DEEPEN = 0.3
"""A glacier's floor lies this share of its ice thickness below its river's bed (an overdeepened trough)..."""
GLACIER_FLOOR_GRADE = float(GLACIER_FLOOR_GRADE_OPTION.default)  # type: ignore[arg-type]
"""...but falls downstream by at least this share of the bed's fall (``glacier_floor_grade``'s default), so that
every trough drains; the floors of trunks far from the map's edges lie less deep than ``GLACIER_DEEPEN`` would have
them (docs/landscape-history.md measures it)..."""
GLACIER_FLOOR_STEEP = 2.0
"""...and up its main stem rises by at most this many times the bed's rise: below a tributary the thicker ice
deepens the floor, which ramps up to the thinner ice's floor above (not a step across the floor)."""
GLACIER_TAPER = 0.1
"""Up a glacier's main stem its half-width shrinks by at most this much per distance: where a tributary joins,
the trunk above narrows over a few widths, not at once across its floor."""
GLACIER_TEXTURE = 0.5
"""``τ`` of the carved wall ``U + τ·x^b·(h - U)`` (``b`` ``GLACIER_SHAPE``): the share of the old slope (its gullies
and spurs) a wall keeps, from none on the floor (``x = 0``) to ``τ`` where the trough ends (``x = 1``)."""
GLACIER_ROUND = 4
"""Passes of ``h += ∇²h/6`` over the carved cells and their neighbours (``landscape._round_feet``): the crease
where one glacier's trough meets another's and at the trough's edge rounded over a few cells."""


def carve_troughs(
    heights: np.ndarray,
    *,
    cell_size: float = 1.0,
    depth: float,
    area: float,
    width: float = 0.0,
    rock: np.ndarray | None = None,
    rock_width: float = 0.0,
    wall_slope: float = 0.0,
    floor_grade: float = GLACIER_FLOOR_GRADE,
    overdeepen: float = 0.0,
    outlets: np.ndarray | None = None,
) -> np.ndarray:
    """Valleys draining more than ``area`` (the heights' unit squared) carved into glacial troughs (float64, new array;
    module docstring). On the D8 flow of the epsilon-filled heights ``h``, a river cell draining ``A > area`` holds a
    glacier ``H = depth·√area·((A/area)^GLACIER_EXPONENT - 1)`` thick; its surface ``L = h + H``, donors first along the
    main stems, is capped at ``L_up - GLACIER_GRADE·(h_up - h)``. Receivers first, a glacier cell's floor is ``F = max(h
    - GLACIER_DEEPEN·(L - h), F(r) + floor_grade·(h - h(r)))`` (``F(r) = h(r)`` off the glaciers), up a main
    stem no higher than ``F(r) + GLACIER_FLOOR_STEEP·(h - h(r))``. Its half-width at the ice surface is ``w = (L - h) /
    GLACIER_WALL``, or with ``width`` ``w = width·√area·(A/area)^GLACIER_WIDTH_EXPONENT / 2``, times
    ``exp(rock_width·z)`` with ``rock`` ``z`` (narrower in strong rock, ``z < 0``), up a main stem at least ``w(r) -
    GLACIER_TAPER·step``. Its trough is ``U_g(d) = F + D·((d - f)/(w - f))^b`` (``F`` within ``f = GLACIER_FLAT·w``;
    ``b`` ``GLACIER_SHAPE``, ``D = h - F + GLACIER_WALL·w``, ``d`` the distance from it, out to ``GLACIER_REACH·w``;
    with ``wall_slope`` ``s`` > 0 the plane ``U_g(d*) + s·(d - d*)`` beyond ``d* = f + (s·(w - f)^b/(b·D))^(1/(b-1))``,
    out to the height ``U_g(GLACIER_REACH·w)``). Every cell becomes ``U = min(h, min_g U_g)`` (a continuous surface:
    where two troughs meet, the lower one's wall cuts the other's floor, no step), and where carved ``U +
    GLACIER_TEXTURE·x^b·(h - U)``, ``x = d / (d + e)``, ``d`` the distance to the nearest glacier cell, ``e`` to the
    nearest cell not carved (exact Euclidean distance transforms). The carved cells and their neighbours then take
    ``GLACIER_ROUND`` passes of ``h += ∇²h/6`` (no higher than before), the map point-reflected across its edges
    (``landscape._round_to_edges``): the map's edge cells are carved and rounded as the others (a trough reaches the
    edge, no rim); ``outlets`` inside the map stay. An epsilon fill (Barnes et al. 2014) keeps every cell draining.
    ``depth`` 0: the epsilon-filled heights.
    ``ValueError``/``TypeError`` naming the argument for a bad value."""
    checked, cell, scale, least, wide, strength, steepest, graded, sink = _checked(
        heights,
        cell_size,
        depth=(GLACIER_DEPTH, depth),
        area=(GLACIER_AREA, area),
        width=(GLACIER_WIDTH, width),
        rock_width=(GLACIER_ROCK, rock_width),
        wall_slope=(GLACIER_WALL_SLOPE, wall_slope),
        floor_grade=(GLACIER_FLOOR_GRADE_OPTION, floor_grade),
        overdeepen=(GLACIER_OVERDEEPEN, overdeepen),
    )
    field = None
    if rock is not None:
        field = np.asarray(rock)
        if field.shape != checked.shape or not np.issubdtype(field.dtype, np.number) or field.dtype == np.bool_:
            raise ValueError(f"rock: expected a number array of the heights' shape {checked.shape}, "
                             f"got {field.dtype} {field.shape}")  # fmt: skip
        if not np.isfinite(field).all():
            raise ValueError("rock: must be finite")
    h, shape, base, inner_outlets = _filled(checked, outlets)
    if scale == 0.0:
        return h.reshape(shape)
    receivers, order, _, level = _graded_levels(h, shape, base, cell, scale, least, GLACIER_EXPONENT, GLACIER_GRADE)
    glaciers = level > h
    if not glaciers.any():
        return h.reshape(shape)
    ice = level - h
    drained = accumulate(receivers, order, np.full(h.shape[0], cell * cell))
    if wide > 0.0:
        half = 0.5 * wide * math.sqrt(least) * (drained / least) ** GLACIER_WIDTH_EXPONENT
    else:
        half = ice / GLACIER_WALL
    if field is not None and strength > 0.0:
        half *= np.exp(strength * field.reshape(-1))
    upstream = np.full(h.shape[0], -1, dtype=np.int64)
    _landscape_kernels().main_stems(receivers, drained, upstream)
    del drained
    floor = h.copy()
    kernels = _kernels()
    kernels.floors(h, receivers, order, glaciers, inner_outlets, ice, upstream, shape[1], cell, GLACIER_DEEPEN,
                   graded, sink, GLACIER_FLOOR_STEEP, GLACIER_TAPER, floor, half)  # fmt: skip
    sites = np.flatnonzero(glaciers)
    trough = h.copy()
    kernels.troughs(trough, h, shape[1], sites, floor, half, cell, GLACIER_WALL, GLACIER_FLAT, GLACIER_SHAPE,
                    GLACIER_REACH, steepest)  # fmt: skip
    trough[inner_outlets] = h[inner_outlets]  # the map's edge cells are carved as the others
    carved = trough < h
    nearest = np.empty(h.shape[0], dtype=np.int64)
    squared = np.empty(h.shape[0])
    kernels.nearest_sites(glaciers.reshape(shape), nearest.reshape(shape), squared.reshape(shape))
    to_edge = _shore(_water_kernels(), carved, shape).reshape(-1)  # carved: to the nearest cell not carved
    out = h.copy()
    kernels.texture(out, trough, carved, np.sqrt(squared), to_edge, GLACIER_SHAPE, GLACIER_TEXTURE)
    if GLACIER_ROUND > 0:  # on the lowered cells: the heights negated, as aggrade_valleys' feet are raised
        out = -_round_to_edges(-out, -h, shape, inner_outlets, GLACIER_ROUND)
        np.minimum(out, h, out=out)  # carved, never raised
    fill_flat(out, shape, base, False, True)
    return out.reshape(shape)


def _floors(h, receivers, order, glaciers, held, ice, upstream, columns, cell, deepen, grade, sink, steep, taper, floor,
            half):  # fmt: skip
    """Receivers first: each glacier cell's ``floor`` ``max(h - deepen·ice, F(r) + grade·(h - h(r)))``,
    ``F(r)`` its receiver's floor (its height off the glaciers), with ``sink`` > 0 no higher than ``h - sink·ice``
    (overdeepened past the grade; the map's edge cells too, not the ``held`` outlets inside it); on a glacier's
    main stem (``upstream[r]``) no more than ``F(r) + steep·(h - h(r))`` and ``half`` no less than ``half(r) -
    taper·step`` (no step up the floor nor in the width where a tributary joins). The rest keep ``h``."""
    for i in range(order.shape[0]):
        node = order[i]
        receiver = receivers[node]
        if not glaciers[node]:
            continue
        if receiver == node:
            if sink > 0.0 and not held[node]:
                floor[node] = h[node] - sink * ice[node]
            continue
        fall = h[node] - h[receiver]
        value = max(h[node] - deepen * ice[node], floor[receiver] + grade * fall)
        if sink > 0.0:
            value = min(value, h[node] - sink * ice[node])
        if glaciers[receiver] and upstream[receiver] == node:
            value = min(value, floor[receiver] + steep * fall)
            diagonal = (node % columns != receiver % columns) and (node // columns != receiver // columns)
            step = cell * (1.4142135623730951 if diagonal else 1.0)
            half[node] = max(half[node], half[receiver] - taper * step)
        floor[node] = value


def _troughs(trough, h, columns, sites, floor, half, cell, wall, flat, shape, reach, steepest):
    """``trough = min(trough, F + D·((d - f)/(w - f))^shape)`` (``F`` within ``f = flat·w``) around each glacier
    cell of ``sites`` out to ``reach·w`` (``d`` the distance, ``cell`` a step; ``D = h - F + wall·w``); with
    ``steepest`` > 0, beyond the distance ``d*`` where that curve's gradient reaches ``steepest`` it goes on as the
    plane ``U(d*) + steepest·(d - d*)``, out to where it is as high as the curve at ``reach·w``."""
    rows = trough.shape[0] // columns
    for i in range(sites.shape[0]):
        site = sites[i]
        w = half[site]
        if not w > 0.0:
            continue
        bottom = floor[site]
        deep = h[site] - bottom + wall * w
        inner = flat * w
        limit = reach * w
        turn = limit  # where the curve's gradient reaches steepest (beyond: the plane)
        if steepest > 0.0 and deep > 0.0:
            turn = min(limit, inner + (w - inner) * (steepest * (w - inner) / (shape * deep)) ** (1.0 / (shape - 1.0)))
            top = deep * ((limit - inner) / (w - inner)) ** shape
            base = deep * ((turn - inner) / (w - inner)) ** shape
            limit = turn + max(top - base, 0.0) / steepest
        span = int(min(limit / cell, float(rows + columns)))  # no further than the map
        y, x = site // columns, site % columns
        for dy in range(max(-span, -y), min(span, rows - 1 - y) + 1):
            yy = y + dy
            for dx in range(max(-span, -x), min(span, columns - 1 - x) + 1):
                xx = x + dx
                d = math.sqrt(float(dy * dy + dx * dx)) * cell
                if d > limit:
                    continue
                if d > turn:
                    value = bottom + deep * ((turn - inner) / (w - inner)) ** shape + steepest * (d - turn)
                else:
                    value = bottom + deep * (max(d - inner, 0.0) / (w - inner)) ** shape
                k = yy * columns + xx
                if value < trough[k]:
                    trough[k] = value


def _texture(h, trough, carved, to_glacier, to_edge, shape, texture):
    """Each ``carved`` cell: ``U + texture·x^shape·(h - U)``, ``U`` the ``trough``, ``x = d / (d + e)``."""
    for cell in range(h.shape[0]):
        if not carved[cell]:
            continue
        d = to_glacier[cell]
        e = to_edge[cell]
        across = d / (d + e) if d + e > 0.0 else 0.0
        weight = across**shape
        h[cell] = trough[cell] + texture * weight * (h[cell] - trough[cell])


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


_kernels = kernel_table(serial=(_floors, _troughs, _texture, _nearest_sites))
"""The compiled kernels, built on first use."""
