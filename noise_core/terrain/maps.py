"""Terrain maps of a heightmap: slope, aspect, curvature, relative height, openness, occlusion, wetness.

``heights`` is a 2-D array with rows along +y and columns along +x, as ``evaluate_grid`` makes it; ``cell_size``
is the grid spacing in the heights' unit: one number for square cells, or ``(dy, dx)``, the distance between rows
and the distance between columns (slope, aspect, curvature, openness and occlusion use both; the flow and wetness
maps, routed in cells, need square ones). Every map is float32, the shape of ``heights``; the work runs in
float64 on Numba's threads (a range kernel over rows, so the bits never depend on the thread count).

**Derivatives.** ``p = ∂z/∂x`` and ``q = ∂z/∂y`` come from Horn's 3x3 stencil (Horn 1981: the central
differences of the three rows, or columns, weighted 1, 2, 1); the second derivatives ``r = ∂²z/∂x²``,
``t = ∂²z/∂y²``, ``s = ∂²z/∂x∂y`` from the 3x3 window as in Zevenbergen & Thorne (1987) (Evans 1979):
``r = (z₋ₓ - 2z + z₊ₓ)/L²``, ``t`` likewise along y, ``s = (z₊₊ - z₋₊ - z₊₋ + z₋₋)/(4L²)``. All are exact on
quadratic surfaces (planes, paraboloids, saddles). **Edge rule**: a cell on the map's edge uses the window of
the nearest interior cell, its first derivatives carried to the edge cell with the second ones
(``p + r·dx + s·dy``): exact on quadratics there too, so a plane has one slope everywhere.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from .._jit import jit, kernel_table
from ..runtime import launch_blocks
from ..schema import Option, choice, integer
from ..threads import leaving_one_core, on_threads
from .heightfield import CELL_SIZE, check_heights

CURVATURE_KINDS = ("mean", "profile", "plan")
OPENNESS_KINDS = ("positive", "negative")
FLAT_ASPECT = -1.0
"""The aspect of a cell with no slope (``p = q = 0``)."""
MIN_TAN_SLOPE = 1e-3
"""``tan β`` is taken at least this in the wetness index, so flat cells get a large finite value."""

_SLOPE, _ASPECT, _MEAN, _PROFILE, _PLAN, _TAN = range(6)
_CODES = {"slope": _SLOPE, "aspect": _ASPECT, "mean": _MEAN, "profile": _PROFILE, "plan": _PLAN, "tan": _TAN}


Spacing = float | tuple[float, float]
"""A ``cell_size``: one number (square cells) or ``(dy, dx)``, the distances between rows and between columns."""
FLOAT32_MAX = float(np.finfo(np.float32).max)
MAX_HEIGHT_IN_CELLS = 1e100
"""Largest ``|heights| / cell_size``: slopes, tangents and their squares then stay far within float64."""


def as_heights(heights: object) -> np.ndarray:
    """``heights`` checked (a finite real 2-D array of at least 3x3, within float32's range: the maps are float32)
    as C-contiguous float64; ``TypeError`` or ``ValueError`` naming ``heights`` otherwise."""
    z = np.ascontiguousarray(check_heights(heights), dtype=np.float64)
    largest = float(np.abs(z).max())
    if largest > FLOAT32_MAX:
        raise ValueError(f"heights: values up to {largest:.3g} lie beyond float32 (3.4e38), the maps' type; scale "
                         "them down")  # fmt: skip
    return z


def _spacing(cell_size: object, z: np.ndarray | None = None) -> tuple[float, float]:
    """``(dy, dx)`` of ``cell_size``: one number (square cells) or ``(dy, dx)``, each checked as ``_cell_size``."""
    if isinstance(cell_size, (tuple, list, np.ndarray)):
        if len(cell_size) != 2:
            raise TypeError(f"cell_size: expected a number or (dy, dx), the distances between rows and between "
                            f"columns, got {len(cell_size)} values")  # fmt: skip
        return _cell_size(cell_size[0], z), _cell_size(cell_size[1], z)
    step = _cell_size(cell_size, z)
    return step, step


def _square(spacing: tuple[float, float], what: str) -> float:
    """The one cell size of ``spacing`` (dy, dx); ``ValueError`` naming ``cell_size`` when the cells are not
    square (``what`` needs them)."""
    if spacing[0] != spacing[1]:
        raise ValueError(f"cell_size: {what} need square cells (the routing runs in cells); got dy = {spacing[0]:g} "
                         f"between rows and dx = {spacing[1]:g} between columns")  # fmt: skip
    return spacing[0]


def _cell_size(cell_size: object, z: np.ndarray | None = None) -> float:
    """``cell_size`` checked (``CELL_SIZE``), and not so small beside the heights ``z`` that ``|z| / cell_size``
    passes ``MAX_HEIGHT_IN_CELLS``."""
    step = float(CELL_SIZE.check(cell_size))  # type: ignore[arg-type]
    largest = float(np.abs(z).max()) if z is not None else 0.0
    if largest / step > MAX_HEIGHT_IN_CELLS:
        raise ValueError(
            f"cell_size: {step:g} is too small for heights up to {largest:g} (heights / cell_size would reach "
            f"{largest / step:.3g}, at most {MAX_HEIGHT_IN_CELLS:g}); give the distance between cells in the "
            "heights' unit"
        )
    return step


_ATAN_P = (
    -8.750608600031904122785e-1,
    -1.615753718733365076637e1,
    -7.500855792314704667340e1,
    -1.228866684490136173410e2,
    -6.485021904942025371773e1,
)
_ATAN_Q = (2.485846490142306297962e1, 1.650270098316988542046e2, 4.328810604912902668951e2,
           4.853903996359136964868e2, 1.945506571482613964425e2)  # fmt: skip


@jit
def _atan(t):
    """``atan(t)`` to within 1 ulp, branch-free so loops calling it vectorise (``math.atan`` is a call into
    libm): Cephes' ``atan`` (Moshier 1989), the argument reduced to ``|u| <= 0.66`` and a rational
    ``P(u²)/Q(u²)``."""
    x = abs(t)
    big = x > 2.41421356237309504880
    mid = x > 0.66
    u = -1.0 / x if big else ((x - 1.0) / (x + 1.0) if mid else x)
    base = math.pi / 2.0 if big else (math.pi / 4.0 if mid else 0.0)
    z = u * u
    num = (((_ATAN_P[0] * z + _ATAN_P[1]) * z + _ATAN_P[2]) * z + _ATAN_P[3]) * z + _ATAN_P[4]
    den = ((((z + _ATAN_Q[0]) * z + _ATAN_Q[1]) * z + _ATAN_Q[2]) * z + _ATAN_Q[3]) * z + _ATAN_Q[4]
    angle = base + (u * z * num / den + u)
    return -angle if t < 0.0 else angle


@jit
def _stencil(above, middle, below, cc, sy, sx):
    """``(p, q, r, t, s)`` of the 3x3 window centred on column ``cc`` of the rows ``above`` (y - 1), ``middle``
    and ``below`` (y + 1), rows ``sy`` and columns ``sx`` apart: Horn's gradient, Zevenbergen & Thorne's second
    derivatives (module doc, with ``L`` the spacing along each axis and ``4·sx·sy`` for ``s``)."""
    a, b, c = above[cc - 1], above[cc], above[cc + 1]
    d, e, f = middle[cc - 1], middle[cc], middle[cc + 1]
    g, h, i = below[cc - 1], below[cc], below[cc + 1]
    p = ((c + 2.0 * f + i) - (a + 2.0 * d + g)) / (8.0 * sx)
    q = ((g + 2.0 * h + i) - (a + 2.0 * b + c)) / (8.0 * sy)
    r = (d - 2.0 * e + f) / (sx * sx)
    t = (b - 2.0 * e + h) / (sy * sy)
    s = (i - g - c + a) / (4.0 * sy * sx)
    return p, q, r, t, s


@jit
def _surface_value(code, p, q, r, t, s):
    """The map ``code`` (``_SLOPE`` ...) of a cell from its derivatives (formulas: the public functions)."""
    gradient2 = p * p + q * q
    if code == _SLOPE:
        return _atan(math.sqrt(gradient2)) * (180.0 / math.pi)
    if code == _TAN:
        return math.sqrt(gradient2)
    if code == _ASPECT:  # atan2(-p, -q) in [0, 360), from _atan
        x, y = -q, -p
        ax, ay = abs(x), abs(y)
        ratio = min(ax, ay) / max(ax, ay) if gradient2 > 0.0 else 0.0
        angle = _atan(ratio)
        angle = math.pi / 2.0 - angle if ay > ax else angle
        angle = math.pi - angle if x < 0.0 else angle
        angle = 2.0 * math.pi - angle if y < 0.0 else angle
        return angle * (180.0 / math.pi) if gradient2 > 0.0 else FLAT_ASPECT
    w = 1.0 + gradient2
    if code == _MEAN:
        return -((1.0 + q * q) * r - 2.0 * p * q * s + (1.0 + p * p) * t) / (2.0 * w * math.sqrt(w))
    if code == _PROFILE:
        value = -(p * p * r + 2.0 * p * q * s + q * q * t) / (gradient2 * w * math.sqrt(w))
    else:
        value = -(q * q * r - 2.0 * p * q * s + p * p * t) / (gradient2 * math.sqrt(w))
    return value if gradient2 > 0.0 else 0.0


def _surface_kernel(first, last, offset, z, sy, sx, code, out):
    """``out[row] = _surface_value(code, derivatives)`` for the rows ``offset + first .. offset + last - 1``
    (edge rule: module doc): a range kernel (``_banded``)."""
    if first < 0:
        on_threads(last)
        return
    rows, columns = z.shape
    for row in range(offset + first, offset + last):
        rc = min(max(row, 1), rows - 2)
        dy = (row - rc) * sy
        above, middle, below, line = z[rc - 1], z[rc], z[rc + 1], out[row]
        for column in range(columns):
            cc = min(max(column, 1), columns - 2)
            if cc == column:  # the loop LLVM splits off and vectorises: no edge
                p, q, r, t, s = _stencil(above, middle, below, column, sy, sx)
                line[column] = _surface_value(code, p + s * dy, q + t * dy, r, t, s)
            else:
                p, q, r, t, s = _stencil(above, middle, below, cc, sy, sx)
                dx = (column - cc) * sx
                line[column] = _surface_value(code, p + r * dx + s * dy, q + s * dx + t * dy, r, t, s)


Tick = Callable[[float], None] | None
"""Called with the fraction of a map done after each band of it (``compute_maps``' progress and cancel)."""
BAND_WORK = 1 << 24
"""About how much work one band of a map holds, in horizon samples (a cell of openness and occlusion costs one
per sample of ``horizon_samples``, of slope, aspect or curvature ``SURFACE_WORK``, of each pass of the relative
height ``SLIDE_WORK``): 0.02-0.05 s on two cores (docs/benchmarks.md, "Terrain maps in bands")."""
SURFACE_WORK = 16
SLIDE_WORK = 32


def _band(blocks: int, work_per_block: int, band: int | None) -> int:
    """Blocks per band: ``band`` when given (tests), else as many as hold ``BAND_WORK``, at least 1."""
    return band if band is not None else max(1, min(blocks, BAND_WORK // max(work_per_block, 1)))


def _banded(kernel, blocks: int, arguments: tuple, band: int, tick: Tick, share: tuple[float, float] = (0, 1)):
    """Launch the range kernel ``kernel(first, last, offset, *arguments)`` over the blocks ``0 .. blocks - 1``
    in bands of ``band`` blocks (``offset`` the band's first block), each on Numba's threads; ``tick(f)`` after
    each, ``f`` moving from ``share[0]`` to ``share[1]``. The blocks are independent, so the bits are those of one
    launch; between bands ``tick`` can stop the work (an exception it raises)."""
    for start in range(0, blocks, band):
        launch_blocks(kernel, min(band, blocks - start), (start, *arguments))
        if tick is not None:
            tick(share[0] + (share[1] - share[0]) * min(start + band, blocks) / blocks)


def _surface(heights: object, cell_size: object, name: str, tick: Tick = None, band: int | None = None):
    """The map ``name`` (``_CODES``; float32, ``"tan"`` float64 for the wetness index)."""
    z = as_heights(heights)
    sy, sx = _spacing(cell_size, z)
    out = np.empty(z.shape, dtype=np.float64 if name == "tan" else np.float32)
    rows = _band(z.shape[0], z.shape[1] * SURFACE_WORK, band)
    _banded(_kernels().surface, z.shape[0], (z, sy, sx, _CODES[name], out), rows, tick)
    if name in ("mean", "profile", "plan") and not np.isfinite(out).all():
        raise ValueError(
            f"cell_size, heights: the {name} curvature passes float32 (3.4e38 per unit) where the heights bend "
            f"sharply over cells {sy:g} x {sx:g} apart; give the distance between cells in the heights' unit, or scale "
            "the heights down"
        )
    return out


def slope(heights: np.ndarray, cell_size: Spacing = 1.0) -> np.ndarray:
    """Slope in degrees, ``atan(√(p² + q²))`` (Horn 1981's gradient; edge rule: module doc). 0 on a flat."""
    return _surface(heights, cell_size, "slope")


def aspect(heights: np.ndarray, cell_size: Spacing = 1.0) -> np.ndarray:
    """Direction of steepest descent in degrees clockwise from +y, in [0, 360): ``atan2(-p, -q)`` (Horn 1981's
    gradient), so a plane falling towards +y faces 0°, towards +x 90°, towards -x 270°. Flat cells
    (``p = q = 0``) get ``FLAT_ASPECT`` (-1)."""
    return _surface(heights, cell_size, "aspect")


def curvature(heights: np.ndarray, cell_size: Spacing = 1.0, kind: str = "mean") -> np.ndarray:
    """Surface curvature in 1/(heights' unit), positive where the surface is convex (domes, ridges, the top of a
    slope that steepens) and negative where it is concave (bowls, valleys, a slope's foot); 0 on a plane.

    With the derivatives of the module doc and ``w = 1 + p² + q²`` (Florinsky 2016, ch. 2; Shary 1995):

    - ``"mean"``: ``H = -((1 + q²) r - 2pqs + (1 + p²) t) / (2 w^{3/2})``, so a paraboloid ``z = a(x² + y²)``
      has ``-2a`` at its bottom;
    - ``"profile"`` (vertical curvature, along the slope): ``-(p²r + 2pqs + q²t) / ((p² + q²) w^{3/2})``;
    - ``"plan"`` (horizontal curvature, across the slope): ``-(q²r - 2pqs + p²t) / ((p² + q²) w^{1/2})``;

    ``mean = (profile + plan) / 2`` where the slope is not 0; there profile and plan are 0.
    """
    kind = choice("kind", kind, CURVATURE_KINDS)
    return _surface(heights, cell_size, kind)


def _tan_slope(heights: np.ndarray, cell_size: float, tick: Tick = None) -> np.ndarray:
    return _surface(heights, cell_size, "tan", tick)


def relative_height(heights: np.ndarray, radius: int = 16) -> np.ndarray:
    """Position of each cell between the lowest and highest cell of the square of ``radius`` cells around it
    (the map padded with its edge values, the same as clipped to the map): ``(z - min) / (max - min)`` in
    [0, 1], 0.5 where that square is flat. The sliding minimum and maximum cost the same at any radius (van
    Herk 1992; Gil & Werman 1993), a pass along each axis."""
    return _relative_height(heights, radius)


def _relative_height(heights: np.ndarray, radius: int, tick: Tick = None, band: int | None = None) -> np.ndarray:
    z = as_heights(heights)
    radius = integer("radius", radius)
    if not 1 <= radius <= 4096:
        raise ValueError(f"radius: must be between 1 and 4096 cells, got {radius}")
    high = np.empty(z.shape)
    low = np.empty(z.shape)
    out = np.empty(z.shape, dtype=np.float32)
    kernels = _kernels()
    rows, blocks = z.shape[0], -(-z.shape[1] // SLIDE_COLUMNS)
    along = _band(rows, z.shape[1] * SLIDE_WORK, band)
    _banded(kernels.slide_rows, rows, (z, high, low, radius), along, tick, (0.0, 0.5))
    columns = _band(blocks, rows * SLIDE_COLUMNS * SLIDE_WORK, band)
    _banded(kernels.slide_columns, blocks, (z, high, low, radius, out), columns, tick, (0.5, 1.0))
    return out


SLIDE_COLUMNS = 8
"""Columns per block of the sliding minimum and maximum along y (one AVX-512 vector of float64)."""


@jit
def _runs(values, ahead_high, ahead_low, behind_high, behind_low, width):
    """van Herk/Gil-Werman: cut ``values`` (1-D, padded) into runs of ``width``; the running maximum and minimum
    from each run's start (``ahead``) and to its end (``behind``), so the window ``[i, i + width - 1]`` has the
    maximum ``max(behind_high[i], ahead_high[i + width - 1])`` (and the minimum likewise)."""
    n = values.shape[0]
    for i in range(n):
        value = values[i]
        if i % width == 0:
            ahead_high[i] = ahead_low[i] = value
        else:
            ahead_high[i] = max(ahead_high[i - 1], value)
            ahead_low[i] = min(ahead_low[i - 1], value)
    for i in range(n - 1, -1, -1):
        value = values[i]
        if i % width == width - 1 or i == n - 1:
            behind_high[i] = behind_low[i] = value
        else:
            behind_high[i] = max(behind_high[i + 1], value)
            behind_low[i] = min(behind_low[i + 1], value)


def _slide_rows_kernel(first, last, offset, z, high, low, radius):
    """The largest and smallest value within ``radius`` columns of each cell, same row (``_runs`` on the row
    padded with its end values), for the rows ``offset + first .. offset + last - 1``: a range kernel."""
    if first < 0:
        on_threads(last)
        return
    columns = z.shape[1]
    width = 2 * radius + 1
    padded = np.empty(columns + 2 * radius)
    scratch = np.empty((4, columns + 2 * radius))
    for row in range(offset + first, offset + last):
        for i in range(padded.shape[0]):
            padded[i] = z[row, min(max(i - radius, 0), columns - 1)]
        _runs(padded, scratch[0], scratch[1], scratch[2], scratch[3], width)
        for j in range(columns):
            high[row, j] = max(scratch[2, j], scratch[0, j + width - 1])
            low[row, j] = min(scratch[3, j], scratch[1, j + width - 1])


def _slide_columns_kernel(first, last, offset, z, high, low, radius, out):
    """Per block of ``SLIDE_COLUMNS`` columns, ``offset + first .. offset + last - 1``: the largest and
    smallest of ``high`` and ``low`` within ``radius`` rows (``_runs`` along y, the columns padded with their end
    values), then ``out = (z - low) / (high - low)`` (0.5 where they are equal): a range kernel."""
    if first < 0:
        on_threads(last)
        return
    rows, columns = z.shape
    width = 2 * radius + 1
    padded = rows + 2 * radius
    ahead_high = np.empty((padded, SLIDE_COLUMNS))
    ahead_low = np.empty((padded, SLIDE_COLUMNS))
    behind_high = np.empty((padded, SLIDE_COLUMNS))
    behind_low = np.empty((padded, SLIDE_COLUMNS))
    for block in range(offset + first, offset + last):
        c0 = block * SLIDE_COLUMNS
        n = min(SLIDE_COLUMNS, columns - c0)
        for i in range(padded):
            source = min(max(i - radius, 0), rows - 1)
            start = i % width == 0
            for j in range(n):
                top, bottom = high[source, c0 + j], low[source, c0 + j]
                ahead_high[i, j] = top if start else max(ahead_high[i - 1, j], top)
                ahead_low[i, j] = bottom if start else min(ahead_low[i - 1, j], bottom)
        for i in range(padded - 1, -1, -1):
            source = min(max(i - radius, 0), rows - 1)
            end = i % width == width - 1 or i == padded - 1
            for j in range(n):
                top, bottom = high[source, c0 + j], low[source, c0 + j]
                behind_high[i, j] = top if end else max(behind_high[i + 1, j], top)
                behind_low[i, j] = bottom if end else min(behind_low[i + 1, j], bottom)
        for i in range(rows):
            for j in range(n):
                top = max(behind_high[i, j], ahead_high[i + width - 1, j])
                bottom = min(behind_low[i, j], ahead_low[i + width - 1, j])
                span = top - bottom
                out[i, c0 + j] = (z[i, c0 + j] - bottom) / span if span > 0.0 else 0.5


@dataclass(frozen=True)
class _Horizon:
    """The sample offsets of a horizon search: per direction ``k`` the samples ``starts[k] .. starts[k + 1] - 1``
    at ``(dy, dx)`` cells, ``1 / distance`` (in cells) in ``inverse``."""

    dy: np.ndarray
    dx: np.ndarray
    inverse: np.ndarray
    starts: np.ndarray


def horizon_samples(radius: int, directions: int, spacing: tuple[float, float] | None = None) -> _Horizon:
    """Directions ``θ_k = 360°·k/directions`` clockwise from +y; along each, cells at distances 1, 2, 3, ...
    growing by a quarter each step (``d ← max(d + 1, round(1.25 d))``) up to ``radius``, each rounded to the
    nearest cell ``(round(d cos θ), round(d sin θ))`` (duplicates dropped); the exact distance of the cell
    sampled is used. With ``spacing`` ``(dy, dx)`` (cells that are not square) the directions and distances are
    taken on the ground, in units of the smaller spacing, each sample rounded to the nearest cell
    ``(round(d u cos θ / dy), round(d u sin θ / dx))`` with ``u = min(dy, dx)``, and ``inverse`` holds
    ``1 / distance`` on the ground (in the heights' unit)."""
    distances = [1]
    while distances[-1] < radius:
        distances.append(min(radius, max(distances[-1] + 1, round(distances[-1] * 1.25))))
    unit = 1.0 if spacing is None else min(spacing)
    sy, sx = (unit, unit) if spacing is None else spacing
    dy, dx, inverse, starts = [], [], [], [0]
    for k in range(directions):
        theta = 2.0 * math.pi * k / directions
        seen = set()
        for d in distances:
            if spacing is None:
                cell = (round(d * math.cos(theta)), round(d * math.sin(theta)))
            else:
                cell = (round(d * unit * math.cos(theta) / sy), round(d * unit * math.sin(theta) / sx))
            if cell in seen or cell == (0, 0):
                continue
            seen.add(cell)
            dy.append(cell[0])
            dx.append(cell[1])
            inverse.append(1.0 / math.hypot(*cell) if spacing is None else 1.0 / math.hypot(cell[0] * sy, cell[1] * sx))
        starts.append(len(dy))
    return _Horizon(
        np.array(dy, np.int64), np.array(dx, np.int64), np.array(inverse, np.float64), np.array(starts, np.int64)
    )


_POSITIVE, _NEGATIVE, _OCCLUSION = range(3)


def _horizon_kernel(first, last, offset, padded, radius, dy, dx, inverse, starts, step, code, out):
    """Per row ``offset + first .. offset + last - 1``: per direction the largest (``_POSITIVE``,
    ``_OCCLUSION``) or smallest (``_NEGATIVE``) tangent ``(z_sample - z) / distance`` over its samples, then the
    map (``openness``, ``occlusion``). ``padded`` is the heights padded by ``radius`` cells (edge values) on
    every side."""
    if first < 0:
        on_threads(last)
        return
    columns = out.shape[1]
    directions = starts.shape[0] - 1
    extreme = np.empty(columns)
    total = np.empty(columns)
    for row in range(offset + first, offset + last):
        centre = padded[row + radius, radius : radius + columns]
        for j in range(columns):
            total[j] = 0.0
        for k in range(directions):
            for j in range(columns):
                extreme[j] = -np.inf if code != _NEGATIVE else np.inf
            for n in range(starts[k], starts[k + 1]):
                line = padded[row + radius + dy[n], radius + dx[n] : radius + dx[n] + columns]
                scale = inverse[n] / step
                if code == _NEGATIVE:
                    for j in range(columns):
                        extreme[j] = min(extreme[j], (line[j] - centre[j]) * scale)
                else:
                    for j in range(columns):
                        extreme[j] = max(extreme[j], (line[j] - centre[j]) * scale)
            if code == _OCCLUSION:
                for j in range(columns):
                    tangent = max(extreme[j], 0.0)
                    total[j] += tangent / math.sqrt(1.0 + tangent * tangent)
            else:
                for j in range(columns):
                    total[j] += _atan(extreme[j])
        for j in range(columns):
            if code == _OCCLUSION:
                out[row, j] = total[j] / directions
            elif code == _POSITIVE:
                out[row, j] = 90.0 - math.degrees(total[j] / directions)
            else:
                out[row, j] = 90.0 + math.degrees(total[j] / directions)


def _horizon(heights, cell_size, radius, directions, code, tick: Tick = None, band: int | None = None) -> np.ndarray:
    z = as_heights(heights)
    spacing = _spacing(cell_size, z)
    radius = integer("radius", radius)
    if not 1 <= radius <= 1024:
        raise ValueError(f"radius: must be between 1 and 1024 cells, got {radius}")
    directions = integer("directions", directions)
    if not 4 <= directions <= 256:
        raise ValueError(f"directions: must be between 4 and 256, got {directions}")
    square = spacing[0] == spacing[1]  # square cells: distances in cells, divided by the cell size in the kernel
    samples = horizon_samples(radius, directions, None if square else spacing)
    step = spacing[0] if square else 1.0
    padded = np.pad(z, radius, mode="edge")
    out = np.empty(z.shape, dtype=np.float32)
    arguments = (padded, radius, samples.dy, samples.dx, samples.inverse, samples.starts, step, code, out)
    rows = _band(z.shape[0], z.shape[1] * samples.dy.shape[0], band)
    _banded(_kernels().horizon, z.shape[0], arguments, rows, tick)
    return out


def openness(
    heights: np.ndarray, cell_size: Spacing = 1.0, radius: int = 32, directions: int = 16, kind: str = "positive"
) -> np.ndarray:
    """Topographic openness in degrees (Yokoyama, Shirasawa & Pike 2002): ``"positive"`` is ``90° - mean_k φ_k``
    with ``φ_k`` the largest elevation angle ``atan((z_sample - z) / distance)`` seen along direction ``k`` within
    ``radius`` cells (high on peaks and ridges, 90° on a plane, low in valleys); ``"negative"`` is ``90° +
    mean_k ψ_k`` with ``ψ_k`` the smallest (high in valleys). Samples: ``horizon_samples``; beyond the map's
    edge the terrain continues at the edge cell's height."""
    kind = choice("kind", kind, OPENNESS_KINDS)
    return _horizon(heights, cell_size, radius, directions, _POSITIVE if kind == "positive" else _NEGATIVE)


def occlusion(heights: np.ndarray, cell_size: Spacing = 1.0, radius: int = 32, directions: int = 16) -> np.ndarray:
    """Ambient occlusion in [0, 1]: ``1 - SVF``, the sky-view factor ``SVF = 1 - mean_k sin g_k`` of Zakšek,
    Oštir & Kokalj (2011) with ``g_k = max(φ_k, 0)`` the horizon angle along direction ``k`` (as ``openness``):
    0 on a flat plane or a peak, towards 1 at the bottom of a deep narrow valley."""
    return _horizon(heights, cell_size, radius, directions, _OCCLUSION)


def wetness_index(
    heights: np.ndarray, cell_size: float = 1.0, accumulation: np.ndarray | None = None, method: str = "mfd"
) -> np.ndarray:
    """Topographic wetness index ``ln(a / tan β)`` (Beven & Kirkby 1979): ``a`` the specific catchment area,
    contributing area per unit contour width, ``accumulation · cell_size`` (``accumulation`` in cells; when not
    given, ``flow_map(heights, method)``: over the heights with their depressions filled); ``β`` the slope
    (``slope``), ``tan β`` at least ``MIN_TAN_SLOPE``."""
    z = as_heights(heights)
    step = _square(_spacing(cell_size, z), "the wetness index and its flow accumulation")
    if accumulation is None:
        accumulation = flow_map(z, method)
    area = np.asarray(accumulation, dtype=np.float64)
    if area.shape != z.shape:
        raise ValueError(f"accumulation: shape {area.shape} differs from the heights' {z.shape}")
    if not (np.isfinite(area).all() and (area > 0.0).all()):
        raise ValueError("accumulation: must be finite and > 0 in every cell (each cell counts itself)")
    return _wetness(area, _tan_slope(z, step), step)


def _wetness(area: np.ndarray, tan_slope: np.ndarray, step: float) -> np.ndarray:
    """``ln(area · step / max(tan_slope, MIN_TAN_SLOPE))`` as float32 (``wetness_index``); where the quotient
    overflows or underflows (extreme cell sizes or areas), as ``ln area + ln step - ln tan``."""
    tangent = np.maximum(tan_slope.astype(np.float64), MIN_TAN_SLOPE)
    with np.errstate(over="ignore", under="ignore"):
        quotient = area * step / tangent
    wetness = np.log(quotient, where=(quotient > 0.0) & np.isfinite(quotient), out=np.empty(area.shape))
    apart = ~((quotient > 0.0) & np.isfinite(quotient))
    if apart.any():
        wetness[apart] = np.log(area[apart]) + math.log(step) - np.log(tangent[apart])
    return wetness.astype(np.float32)


FLOW_METHODS = ("d8", "mfd")
MAP_OPTIONS: tuple[Option, ...] = (
    Option("radius", int, 16, "Neighbourhood of the relative height, in cells", minimum=1, maximum=4096,
           soft_maximum=256),
    Option("horizon_radius", int, 32, "How far openness and occlusion look, in cells", minimum=1, maximum=1024,
           soft_maximum=256),
    Option("directions", int, 16, "Directions openness and occlusion look in", minimum=4, maximum=256,
           soft_maximum=64),
    Option("flow_method", str, "mfd", "Flow routing of the flow and wetness maps", choices=FLOW_METHODS,
           choice_text=(("D8", "All water to the steepest neighbour"),
                        ("MFD", "Water shared between all lower neighbours"))),
)  # fmt: skip
"""The settings of ``compute_maps`` beside the maps and the cell size (the add-on's operator shows them)."""
HEIGHT_SCALE = Option("height_scale", float, 1.0, "Height of a pixel value of 1, in the cell size's unit", minimum=0.0,
                      above=True, maximum=1e30, soft_maximum=1000.0)  # fmt: skip
"""What a height image's values are multiplied by to be heights (the command line's and the add-on's maps of an
image)."""
MAP_NAMES = (
    "height", "slope", "aspect", "curvature", "profile_curvature", "plan_curvature", "relative_height",
    "openness", "negative_openness", "occlusion", "flow", "wetness",
)  # fmt: skip
"""The maps ``compute_maps`` makes. ``flow`` is ``log10`` of the flow accumulation in cells (0 where a cell
receives only its own rain) over the heights with depressions filled (``fill_depressions(epsilon=True)``);
``curvature`` is the mean curvature; ``openness`` the positive openness."""


def flow_map(heights: np.ndarray, method: str = "mfd", state: np.ndarray | None = None) -> np.ndarray:
    """The flow accumulation (cells, float64) of ``heights`` with its depressions filled so every cell drains
    to an edge (``fill_depressions(heights, epsilon=True)`` then ``flow_accumulation(.., method)``). ``state``
    (``hydrology.routing_state``): progress, and ``hydrology.Stopped`` soon after ``state[STOP]`` is set."""
    from .flow import fill_depressions, flow_accumulation

    method = choice("flow_method", method, FLOW_METHODS)
    filled = fill_depressions(as_heights(heights), epsilon=True, state=state)
    return flow_accumulation(filled, method=method, state=state)


MAP_STEPS = 100
"""Progress steps of each map in ``compute_maps`` (moved on band by band); the flow routing ``flow`` and
``wetness`` share counts twice as many."""
FLOW_WAIT = 0.05
"""Seconds between two progress calls while ``compute_maps`` waits for the flow routing."""


def progress_total(names: Sequence[str]) -> int:
    """The ``total`` ``compute_maps(heights, names)`` reports progress out of."""
    wanted = list(dict.fromkeys(names))
    return MAP_STEPS * (len(wanted) + 2 * any(name in ("flow", "wetness") for name in wanted))


def compute_maps(
    heights: np.ndarray,
    names: Sequence[str],
    cell_size: Spacing = 1.0,
    radius: int = 16,
    horizon_radius: int = 32,
    directions: int = 16,
    flow_method: str = "mfd",
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, np.ndarray]:
    """The maps ``names`` (``MAP_NAMES``) of ``heights`` as float32 arrays, by name. ``radius``: of
    ``relative_height``; ``horizon_radius`` and ``directions``: of the openness and occlusion; ``flow_method``:
    of ``flow`` and ``wetness``. ``progress(done, total)`` is called on the calling thread (``done`` monotone,
    ``total`` = ``progress_total(names)``) after each band of rows of a map (``BAND_WORK``) and every
    ``FLOW_WAIT`` seconds while the flow routing ``flow`` and ``wetness`` share (on a thread of its own, beside
    the other maps) runs; an exception it raises stops the work within a band, the routing within
    ``hydrology.POLL`` cells, and is raised here."""
    from .flow import DONE, ROUTING_STEPS, STOP, routing_state

    if isinstance(names, str) or not isinstance(names, Sequence):
        raise TypeError(f"names: expected a list of map names, got {type(names).__name__}")
    for name in names:
        choice("maps", name, MAP_NAMES)
    z = as_heights(heights)
    flow_method = choice("flow_method", flow_method, FLOW_METHODS)
    step = _spacing(cell_size, z)
    if "flow" in names or "wetness" in names:
        _square(step, "the flow and wetness maps")
    horizon = (horizon_radius, directions)
    makers: dict[str, Callable[[Tick], np.ndarray]] = {
        "height": lambda _tick: z.astype(np.float32),
        "slope": lambda tick: _surface(z, step, "slope", tick),
        "aspect": lambda tick: _surface(z, step, "aspect", tick),
        "curvature": lambda tick: _surface(z, step, "mean", tick),
        "profile_curvature": lambda tick: _surface(z, step, "profile", tick),
        "plan_curvature": lambda tick: _surface(z, step, "plan", tick),
        "relative_height": lambda tick: _relative_height(z, radius, tick),
        "openness": lambda tick: _horizon(z, step, *horizon, _POSITIVE, tick),
        "negative_openness": lambda tick: _horizon(z, step, *horizon, _NEGATIVE, tick),
        "occlusion": lambda tick: _horizon(z, step, *horizon, _OCCLUSION, tick),
    }
    wanted = list(dict.fromkeys(names))
    local = [name for name in wanted if name not in ("flow", "wetness")]
    routed = len(local) < len(wanted)
    total, report = progress_total(wanted), progress or (lambda _done, _total: None)
    state = routing_state()
    passes = ROUTING_STEPS[flow_method] * z.size

    def flow_done() -> int:
        return 2 * MAP_STEPS * min(int(state[DONE]), passes) // passes if routed else 0

    def tick_at(index: int) -> Tick:
        return lambda fraction: report(index * MAP_STEPS + int(MAP_STEPS * fraction) + flow_done(), total)

    maps: dict[str, np.ndarray] = {}
    if not routed:
        for index, name in enumerate(local):
            maps[name] = makers[name](tick_at(index))
            report((index + 1) * MAP_STEPS, total)
        return maps
    # The flow routing (fill + accumulation) runs on one thread: on a thread of its own, beside the other maps
    # (each on Numba's threads); its result is the same bits either way. ``report`` is called on this thread only;
    # when it raises, the routing is stopped (``state[STOP]``) before the pool's end waits for it.
    others: dict[str, np.ndarray] = {}
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="noise_core-flow") as pool:
        routing = pool.submit(flow_map, z, flow_method, state)
        try:
            with leaving_one_core():  # the routing keeps a core to itself (docs/benchmarks.md, "Terrain maps")
                for index, name in enumerate(local):
                    others[name] = makers[name](tick_at(index))
                tangent = _tan_slope(z, step, tick_at(len(local))) if "wetness" in wanted else None
            finished = MAP_STEPS * (len(local) + (tangent is not None))
            while True:
                try:
                    area = routing.result(timeout=FLOW_WAIT)
                    break
                except TimeoutError:
                    report(finished + flow_done(), total)
        except BaseException:
            state[STOP] = 1
            raise
    if "flow" in wanted:
        others["flow"] = np.log10(area).astype(np.float32)
    if tangent is not None:
        others["wetness"] = _wetness(area, tangent, step[0])
    report(total, total)
    for name in wanted:
        maps[name] = others[name]
    return maps


def unit_map(name: str, values: np.ndarray) -> np.ndarray:
    """``values`` of the map ``name`` in [0, 1] for a PNG: slope / 90, aspect / 360 (flat cells 0), openness /
    180, relative height and occlusion as they are, flow / its largest value, curvature ``0.5 + k / (2 max|k|)``
    (0.5 is flat), height and wetness from their smallest to their largest value. ``values`` must be finite
    (``ValueError`` naming ``values``)."""
    choice("name", name, MAP_NAMES)
    values = np.asarray(values, dtype=np.float64)
    if not np.isfinite(values).all():
        raise ValueError(f"values: the {name} map must be finite (no NaN or infinity)")
    if name == "slope":
        return values / 90.0
    if name == "aspect":
        return np.maximum(values, 0.0) / 360.0
    if name in ("openness", "negative_openness"):
        return values / 180.0
    if name in ("relative_height", "occlusion"):
        return values
    if name == "flow":
        top = values.max()
        return values / top if top > 0.0 else values
    if name.endswith("curvature"):
        top = np.abs(values).max()
        return 0.5 + values / (2.0 * top) if top > 0.0 else np.full(values.shape, 0.5)
    low, high = values.min(), values.max()
    return (values - low) / (high - low) if high > low else np.zeros(values.shape)


_kernels = kernel_table(
    ranged=(_surface_kernel, _slide_rows_kernel, _slide_columns_kernel, _horizon_kernel),
)
"""The compiled kernels, built on first use."""
