"""Water on a heightmap: lakes that fill their depressions, spill and merge; the water level and depth, lake ids,
shore distance, discharge, rivers (a mask, widths and polylines) and a flow map for engine water shaders
(docs/water.md).

``heights`` is a 2-D array, rows along +y and columns along +x (as ``evaluate_grid`` makes it), cells ``cell_size``
apart in the heights' unit. The map's edge cells and the ``outlets`` (sea) are where water leaves.

**Depression hierarchy** (Barnes, Callaghan & Wickert 2020, "Computing water flow through complex landscapes -
Part 2: Finding hierarchies in depressions and morphological segmentations", Earth Surface Dynamics 8): the cells
are visited in ascending ``(height, index)`` order and joined (union-find) to the components of the neighbours
visited before them; the outlets belong to the ocean. A cell with no visited neighbour starts a leaf depression
(a pit). A cell touching two components is their spill point at its height ``s``: both close there, holding
``V = sum(s - h)`` over their cells, and become the children of a new depression whose lake stands above ``s``
(touching the ocean, they drain into it instead). A top-level depression's spill level is the height
``fill_depressions`` gives its cells: the lowest level from which water leaves the map.

**Fill-Spill-Merge** (Barnes, Callaghan & Wickert 2021, "Computing water flow through complex landscapes - Part 3:
Fill-Spill-Merge: flow routing in depression hierarchies", Earth Surface Dynamics 9, 105-121): every cell's rain
(a depth ``rain`` times the cell's area) runs down its D8 path (steepest descent, O'Callaghan & Mark 1984; a
flat drains to its nearest lower edge, Garbrecht & Martz 1997) to a pit or an outlet. A depression keeps up to its
capacity and passes the excess over its spill point into the leaf depression its steepest step there leads to;
when a depression and its sibling are both full, the water goes into their parent, whose lake rises above the
spill point between them; what reaches the ocean leaves the map. Each depression keeps ``min(capacity, inflow)``,
so the order of the pours does not change the result. With ``evaporation`` ``e`` a lake also loses ``e`` per
unit of its surface: a depression's capacity is ``V(s) + e A(s)`` (``A``: the area of its cells below ``s``), and a
lake holding ``w`` stands at the lowest ``L`` with ``V(L) + e A(L) >= w`` (``L`` at a cell's height when the area
step there takes the rest). ``rain=math.inf``: every depression is full (its level is ``fill_depressions``'),
and the discharge is that of a unit rain passing every lake.

**Discharge and rivers**: ``Q`` is the water that runs through a cell (heights' unit cubed): the rain along the
D8 paths, plus each depression's overflow from the cell below its spill point; lake cells absorb what reaches them
(their ``Q`` is 0). River cells are dry cells with ``Q`` at least the rain of ``river_area`` (or the D8 paths
down from ``headwaters``); their width ``w = a Q^b`` and depth ``d = c Q^f`` follow Leopold & Maddock's (1953)
hydraulic geometry ("The hydraulic geometry of stream channels and some physiographic implications", USGS
Professional Paper 252), and the water level there is ``heights + d``. The river network's polylines run along
the D8 paths between sources, junctions (shared points) and mouths.

**Shore distance**: the Euclidean distance from each dry cell to the nearest lake cell, and from each lake cell to
the nearest dry cell (Felzenszwalb & Huttenlocher 2012, "Distance transforms of sampled functions", Theory of
Computing 8); infinite without lakes (or without dry cells).

**Flow map** ``(rows, columns, 2)``: on river cells the unit D8 direction times a speed ``(Q / Q_max)^m`` with
``m = 1 - b - f`` (Leopold & Maddock's ``b + f + m = 1``), box-blurred over ``flow_blur`` cells, stored as
``R = 0.5 + 0.5 v_x``, ``G = 0.5 + 0.5 v_y`` (0.5 still; ``x`` along the columns, ``y`` along the rows).

The kernels run on one thread in a fixed order, but the distance transform and the blur, whose lines are
independent, on Numba's threads: the result never depends on the thread count.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise

import numpy as np

from .._jit import jit, kernel_table, prefetch
from ..blocks import block_span
from ..runtime import launch_blocks
from ..schema import Option, number
from ..threads import on_threads
from .flow import DISTANCES, check_weights
from .heightfield import CELL_SIZE, NEIGHBOURS, check_heights, check_mask

OCEAN = 0
"""The node every outlet belongs to: what reaches it leaves the map."""
AUTO_RIVER_SHARE = 0.001
"""``river_area=0``: rivers drain at least this share of the map's area."""
WATER_STEPS = 10
"""Progress steps of ``water`` (``progress(done, WATER_STEPS)`` after each stage)."""

WATER_OPTIONS: tuple[Option, ...] = (
    Option("rain", float, 1.0, "Depth of rain on every cell, in the heights' unit", minimum=0.0, maximum=1e30,
           soft_maximum=10.0),
    Option("evaporation", float, 0.0, "Depth lost from every lake's surface, in the heights' unit", minimum=0.0,
           maximum=1e30, soft_maximum=10.0),
    Option("river_area", float, 0.0, "Drainage area (heights' unit squared) whose rain makes a river; 0: 0.1 % of "
           "the map's area", minimum=0.0, maximum=1e30),
    Option("width_coefficient", float, 0.02, "a of the river width w = a Q^b (Leopold & Maddock 1953)",
           minimum=0.0, maximum=1e30, soft_maximum=1.0),
    Option("width_exponent", float, 0.5, "b of the river width w = a Q^b", minimum=0.0, maximum=1.0),
    Option("depth_coefficient", float, 0.005, "c of the river depth d = c Q^f", minimum=0.0, maximum=1e30,
           soft_maximum=1.0),
    Option("depth_exponent", float, 0.4, "f of the river depth d = c Q^f", minimum=0.0, maximum=1.0),
    Option("flow_blur", int, 2, "Radius in cells of the box blur that smooths the flow map", minimum=0,
           maximum=256, soft_maximum=16),
)  # fmt: skip
"""The settings of ``water`` beside the heights, the cell size and the masks (CLI flags, Blender properties)."""

# node fields: integers
PARENT, UF, CHILD_A, CHILD_B, CH_COUNT, OWN_COUNT, LT, LT_CH, TOP_N, GEOLINK, INJECT, SADDLE, FULL, UP = range(14)
INT_FIELDS = 14
# node fields: floats
BASE, SPILL, OWN_SUM, TOP_H, CAP, HELD, SPILLED, LEVEL = range(8)
FLOAT_FIELDS = 8
NONE = -1


@dataclass(frozen=True)
class River:
    """One reach of the river network: from a source, a junction or a lake's spill point to a junction, a lake or
    the map's edge. ``points`` (N, 3): ``(x, y, z)`` in the heights' unit (``x = column * cell_size``, ``y = row *
    cell_size``, ``z`` the water level); ``discharge``, ``width`` and ``depth`` per point; ``cells`` the flat cell
    index of each point; ``downstream``: the index (in ``WaterResult.rivers``) of the reach whose first point is
    this one's last (a junction), or -1."""

    points: np.ndarray
    discharge: np.ndarray
    width: np.ndarray
    depth: np.ndarray
    cells: np.ndarray
    downstream: int


@dataclass(frozen=True)
class WaterResult:
    """What ``water`` computes (module doc). Per cell: ``level`` (the water surface, >= heights; the heights'
    float type), ``depth`` (``level - heights``, the same type), ``lakes`` (int32 lake id, 0: none),
    ``shore_distance`` (float32), ``discharge`` (float64), ``river_mask`` (bool), ``width`` (float64, 0 off
    rivers), ``flow`` ((rows, columns, 2) float32 in [0, 1]). Per lake ``k`` (id ``k + 1``): ``lake_level``,
    ``lake_volume``, ``lake_area``, ``lake_outflow`` (what it spills on). Totals (heights' unit cubed): ``rain_volume``,
    ``stored_volume`` (in the lakes), ``evaporated_volume``, ``outflow_volume`` (left the map)."""

    level: np.ndarray
    depth: np.ndarray
    lakes: np.ndarray
    shore_distance: np.ndarray
    discharge: np.ndarray
    river_mask: np.ndarray
    width: np.ndarray
    flow: np.ndarray
    rivers: tuple[River, ...]
    lake_level: np.ndarray
    lake_volume: np.ndarray
    lake_area: np.ndarray
    lake_outflow: np.ndarray
    rain_volume: float
    stored_volume: float
    evaporated_volume: float
    outflow_volume: float


def _mask(name: str, value: object, shape: tuple[int, int]) -> np.ndarray:
    """``value`` as a flat uint8 mask; ``TypeError``/``ValueError`` naming ``name``."""
    return np.ascontiguousarray(check_mask(name, value, shape), dtype=np.uint8).reshape(-1)


def _rain(rain: object, shape: tuple[int, int]) -> tuple[np.ndarray, bool]:
    """``(rain per cell or a 1-element array, unlimited)``."""
    if isinstance(rain, np.ndarray):
        return np.ascontiguousarray(check_weights(rain, shape, "rain")).reshape(-1), False
    if isinstance(rain, (int, float)) and not isinstance(rain, bool) and math.isinf(rain) and rain > 0:
        return np.ones(1), True
    value = float(WATER_OPTIONS[0].check(rain))  # type: ignore[arg-type]
    return np.full(1, value), False


def water(
    heights: np.ndarray,
    *,
    cell_size: float,
    rain: float | np.ndarray = 1.0,
    evaporation: float = 0.0,
    outlets: np.ndarray | None = None,
    headwaters: np.ndarray | None = None,
    river_area: float = 0.0,
    width_coefficient: float = 0.02,
    width_exponent: float = 0.5,
    depth_coefficient: float = 0.005,
    depth_exponent: float = 0.4,
    flow_blur: int = 2,
    progress: Callable[[int, int], object] | None = None,
) -> WaterResult:
    """Lakes, water level, depth, shore distance, discharge, rivers and a flow map of ``heights`` (module doc):
    ``rain`` a depth per cell (a number, ``math.inf`` for unlimited water, or an array of the heights' shape),
    ``evaporation`` a depth lost over each lake's surface, ``outlets`` (bool, optional) sea cells where water leaves
    as at the map's edges, ``headwaters`` (bool, optional) the cells rivers start from instead of ``river_area``,
    the river width ``a Q^b`` and depth ``c Q^f``, ``flow_blur`` the flow map's blur radius in cells.
    ``progress(done, WATER_STEPS)`` is called after each stage; an exception it raises stops the work."""
    checked = check_heights(heights)
    shape = (int(checked.shape[0]), int(checked.shape[1]))
    cell = float(CELL_SIZE.check(cell_size))  # type: ignore[arg-type]
    per_cell, unlimited = _rain(rain, shape)
    options = dict(zip((option.name for option in WATER_OPTIONS[1:]), (
        evaporation, river_area, width_coefficient, width_exponent, depth_coefficient, depth_exponent, flow_blur,
    ), strict=True))  # fmt: skip
    values = {option.name: option.check(options[option.name]) for option in WATER_OPTIONS[1:]}
    sea = np.zeros(checked.size, np.uint8) if outlets is None else _mask("outlets", outlets, shape)
    if sea.all():
        raise ValueError("outlets: every cell is an outlet; at least one land cell is needed")
    heads = None if headwaters is None else _mask("headwaters", headwaters, shape)
    if progress is not None and not callable(progress):
        raise TypeError(f"progress: expected a callable (done, total), got {type(progress).__name__}")
    _check_volumes(checked, cell, per_cell, unlimited)
    step = _Steps(progress)
    return _water(checked, shape, cell, per_cell, unlimited, sea, heads, values, step)


VOLUME_LIMIT = 1e300
"""The largest volume ``water`` works with (float64 to 1.8e308, with room for the sums)."""


def _check_volumes(heights: np.ndarray, cell: float, rain: np.ndarray, unlimited: bool) -> None:
    """``ValueError`` when the depressions' volumes (the heights' span times the map's area) or the rain's could
    pass ``VOLUME_LIMIT``, naming ``heights`` and ``cell_size`` or ``rain``."""
    area = heights.size * cell * cell
    span = float(np.ptp(heights.astype(np.float64)))
    if not span * area <= VOLUME_LIMIT:
        raise ValueError(
            f"heights, cell_size: heights spanning {span:g} over {heights.size} cells of {cell:g} could hold volumes "
            f"past {VOLUME_LIMIT:g}; use a smaller cell size or smaller heights"
        )
    if not unlimited and not float(rain.max()) * area <= VOLUME_LIMIT:
        raise ValueError(f"rain: {float(rain.max()):g} on {heights.size} cells of {cell:g} passes {VOLUME_LIMIT:g}")


class _Steps:
    """Calls ``progress(done, WATER_STEPS)`` one stage at a time."""

    def __init__(self, progress: Callable[[int, int], object] | None) -> None:
        self._progress, self._done = progress, 0

    def __call__(self) -> None:
        self._done += 1
        if self._progress is not None:
            self._progress(min(self._done, WATER_STEPS), WATER_STEPS)


def _water(heights, shape, cell, rain, unlimited, sea, heads, values, step) -> WaterResult:
    rows, columns = shape
    size = rows * columns
    kernels = _kernels()
    area = cell * cell
    h = np.ascontiguousarray(heights, dtype=np.float64).reshape(-1) + 0.0  # -0.0 as 0.0: one order of equal heights
    outlet = sea.copy()
    outlet.reshape(shape)[[0, -1], :] = 1
    outlet.reshape(shape)[:, [0, -1]] = 1
    keys = h.view(np.uint64).copy()
    kernels.sort_keys(keys)
    order = kernels.radix_sort(keys, np.arange(size, dtype=np.int32), np.empty_like(keys), np.empty(size, np.int32))
    del keys
    step()
    pits = kernels.count_pits(h, rows, columns, outlet)
    capacity = 2 * pits + 2
    ints = np.full((capacity, INT_FIELDS), NONE, dtype=np.int64)
    floats = np.zeros((capacity, FLOAT_FIELDS))
    owner = np.empty(size, np.int32)
    low_leaf = np.empty(size, np.int32)
    evaporation = float(values["evaporation"])
    nodes = kernels.hierarchy(h, rows, columns, outlet, order, evaporation, owner, low_leaf, ints, floats)
    ints, floats = ints[:nodes], floats[:nodes]
    step()
    receivers = np.empty(size, np.int32)
    kernels.routes(h, rows, columns, outlet, receivers, np.zeros(size, np.uint8), np.empty(size, np.int32))
    sequence = np.empty(size, np.int32)
    kernels.topological(receivers, sequence, np.zeros(size, np.uint8))
    step()
    uniform = rain.shape[0] == 1
    inflow = np.zeros(nodes)
    kernels.runoff(receivers, sequence, outlet, owner, rain, uniform, 1.0, inflow, np.empty(size, np.int32))
    rain_volume = math.inf if unlimited else float(inflow.sum()) * area  # the hierarchy counts in depth x cells
    outflow = kernels.fill_spill_merge(ints, floats, inflow, unlimited)
    step()
    kernels.solve_levels(h, order, owner, ints, floats, evaporation, np.zeros(nodes, np.int64), np.zeros(nodes),
                         np.full(nodes, -np.inf))  # fmt: skip
    del order
    cover = np.full(nodes, -np.inf)
    source = np.full(nodes, NONE, dtype=np.int64)
    kernels.cover(ints, floats, cover, source)
    level = np.empty(size)
    lakes = np.zeros(size, np.int32)
    lake_of_node = np.zeros(nodes, np.int64)
    count = kernels.lake_cells(h, owner, cover, source, level, lakes, lake_of_node)
    step()
    del owner, low_leaf
    wet = lakes > 0
    discharge = np.zeros(size)
    kernels.discharge(receivers, sequence, wet.view(np.uint8), rain, uniform, area, ints, floats, discharge)
    step()
    mean_rain = 1.0 if unlimited else float(rain.mean())
    threshold = (float(values["river_area"]) or AUTO_RIVER_SHARE * size * area) * mean_rain
    river = np.zeros(size, np.uint8)
    if heads is None:
        river[:] = (~wet) & (discharge >= threshold) & (discharge > 0.0)
    else:
        kernels.headwater_paths(receivers, heads, wet.view(np.uint8), river)
    river[sea.view(bool)] = 0  # rivers end at the sea: its cells keep their heights
    a, b = float(values["width_coefficient"]), float(values["width_exponent"])
    c, f = float(values["depth_coefficient"]), float(values["depth_exponent"])
    on_river = river.view(bool)
    width = np.zeros(size)
    width[on_river] = a * discharge[on_river] ** b
    river_depth = np.zeros(size)
    river_depth[on_river] = c * discharge[on_river] ** f
    level += river_depth
    rivers = _rivers(kernels, receivers, river, wet, discharge, level, ints, floats, shape, cell, (a, b, c, f))
    step()
    shore = _shore(kernels, wet, shape) * cell
    step()
    flow = _flow(kernels, receivers, river, discharge, shape, 1.0 - b - f, int(values["flow_blur"]))
    step()
    dtype = heights.dtype if heights.dtype in (np.float32, np.float64) else np.float64
    lake_level = np.empty(count)
    lake_volume = np.zeros(count)
    lake_area = np.zeros(count)
    lake_outflow = np.zeros(count)
    ids = lakes[wet] - 1
    lake_volume[:] = np.bincount(ids, (level[wet] - h[wet]) * area, minlength=count)
    lake_area[:] = np.bincount(ids, minlength=count) * area
    tops = np.flatnonzero(lake_of_node)
    lake_level[lake_of_node[tops] - 1] = cover[tops]
    lake_outflow[lake_of_node[tops] - 1] = floats[tops, SPILLED] * area
    stored = float(lake_volume.sum())
    held = 0.0 if unlimited else float(floats[1:, HELD].sum()) * area
    depth = (level - h).astype(dtype)
    out_level = level.astype(dtype)
    step()
    return WaterResult(
        level=out_level.reshape(shape),
        depth=depth.reshape(shape),
        lakes=lakes.reshape(shape),
        shore_distance=shore.astype(np.float32).reshape(shape),
        discharge=discharge.reshape(shape),
        river_mask=on_river.reshape(shape).copy(),
        width=width.reshape(shape),
        flow=flow,
        rivers=rivers,
        lake_level=lake_level,
        lake_volume=lake_volume,
        lake_area=lake_area,
        lake_outflow=lake_outflow,
        rain_volume=rain_volume,
        stored_volume=stored,
        evaporated_volume=0.0 if unlimited else max(held - stored, 0.0),
        outflow_volume=math.inf if unlimited else float(outflow) * area,
    )


def _rivers(kernels, receivers, river, wet, discharge, level, ints, floats, shape, cell, law) -> tuple[River, ...]:
    """The river network's reaches as ``River`` objects (module doc)."""
    size = receivers.shape[0]
    spilling = np.flatnonzero(floats[:, SPILLED] > 0.0)
    entries = ints[spilling, INJECT]
    keep = entries >= 0
    entry_order = np.argsort(entries[keep], kind="stable")
    entry_cells = np.ascontiguousarray(entries[keep][entry_order])
    saddles = np.ascontiguousarray(ints[spilling, SADDLE][keep][entry_order])
    donors = np.zeros(size, np.uint8)
    reaches = kernels.count_reaches(receivers, river, donors)
    starts = np.empty(reaches + 1, np.int64)
    cells = np.empty(int(river.sum()) + 2 * reaches, np.int64)
    downstream = np.empty(reaches, np.int64)
    points = kernels.trace_reaches(receivers, river, wet.view(np.uint8), donors, entry_cells, saddles, starts, cells,
                                   downstream)  # fmt: skip
    cells = cells[:points]
    flows = np.empty(points)
    kernels.point_discharge(cells, starts, discharge, flows)
    a, b, c, f = law
    columns = shape[1]
    xyz = np.empty((points, 3))
    xyz[:, 0] = (cells % columns) * cell
    xyz[:, 1] = (cells // columns) * cell
    xyz[:, 2] = level[cells]
    width = a * flows**b
    depth = c * flows**f
    return tuple(
        River(
            points=xyz[first:last], discharge=flows[first:last], width=width[first:last], depth=depth[first:last],
            cells=cells[first:last], downstream=int(downstream[index]),
        )
        for index, (first, last) in enumerate(pairwise(starts))
    )  # fmt: skip


INFINITE = 1e30
"""The squared distance of a cell with no site, in the distance transform."""


def _shore(kernels, wet: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """The distance in cells from each dry cell to the nearest lake cell and from each lake cell to the nearest dry
    cell (inf where there is none)."""
    rows, columns = shape
    grid = wet.reshape(shape)
    to_lake = np.where(grid, 0.0, INFINITE)
    to_dry = np.where(grid, INFINITE, 0.0)
    for squared in (to_lake, to_dry):
        launch_blocks(kernels.edt_columns, -(-columns // LINES), (squared,))
        launch_blocks(kernels.edt_rows, rows, (squared,))
    distance = np.sqrt(np.where(grid, to_dry, to_lake))
    distance[distance >= math.sqrt(INFINITE) / 2] = np.inf
    return distance


def _flow(kernels, receivers, river, discharge, shape, exponent: float, blur: int) -> np.ndarray:
    """The flow map (module doc): (rows, columns, 2) float32 in [0, 1]."""
    rows, columns = shape
    vectors = np.zeros((2, rows, columns))
    top = float(discharge[river.view(bool)].max()) if river.any() else 0.0
    if top > 0.0:
        kernels.flow_vectors(receivers, river, discharge, top, max(exponent, 0.0), columns, vectors)
        if blur > 0:
            for channel in vectors:
                launch_blocks(kernels.blur_rows, rows, (channel, blur))
                launch_blocks(kernels.blur_columns, -(-columns // LINES), (channel, blur))
    flow = np.empty((rows, columns, 2), np.float32)
    flow[..., 0] = 0.5 + 0.5 * np.clip(vectors[0], -1.0, 1.0)
    flow[..., 1] = 0.5 + 0.5 * np.clip(vectors[1], -1.0, 1.0)
    return flow


def carve_rivers(
    heights: np.ndarray, rivers: tuple[River, ...] | list[River], *, cell_size: float, depth: float | None = None
) -> np.ndarray:
    """``heights`` with a bed cut along ``rivers`` (``water(...).rivers``, on a grid ``cell_size`` apart): at each
    point a parabolic channel ``depth`` deep (None: the point's own river depth) and the point's width wide (at least
    one cell), its bottom never rising downstream; cells only go down. Returns a new array (the heights' float
    type)."""
    checked = check_heights(heights)
    cell = float(CELL_SIZE.check(cell_size))  # type: ignore[arg-type]
    if isinstance(rivers, River) or not isinstance(rivers, (tuple, list)):
        raise TypeError(f"rivers: expected a list of River (water(...).rivers), got {type(rivers).__name__}")
    for index, river in enumerate(rivers):
        if not isinstance(river, River):
            raise TypeError(f"rivers: item {index} is a {type(river).__name__}, not a River")
    fixed = -1.0
    if depth is not None:
        fixed = number("depth", depth)
        if fixed < 0.0:
            raise ValueError(f"depth: must be >= 0, got {depth!r}")
    dtype = checked.dtype if checked.dtype in (np.float32, np.float64) else np.float64
    carved = np.array(checked, dtype=np.float64, order="C", copy=True)
    original = carved.copy()
    rows, columns = carved.shape
    for river in rivers:
        cells = np.ascontiguousarray(river.cells, dtype=np.int64)
        if cells.size and (cells.min() < 0 or cells.max() >= carved.size):
            raise ValueError(f"rivers: a point lies off the {rows}x{columns} heights (rivers of another map?)")
        depths = np.full(cells.size, fixed) if fixed >= 0.0 else np.asarray(river.depth, dtype=np.float64)
        radii = np.maximum(np.asarray(river.width, dtype=np.float64) / (2.0 * cell), 0.5)
        _kernels().carve(carved.reshape(-1), original.reshape(-1), rows, columns, cells, depths, radii)
    return carved.astype(dtype)


# ---------------------------------------------------------------------------------------------------- kernels


def _sort_keys(keys):
    """Float64 bit patterns (in place) as unsigned keys in the floats' order: negative numbers' bits flipped, the
    sign bit set on the others."""
    sign = np.uint64(1) << np.uint64(63)
    for i in range(keys.shape[0]):
        k = keys[i]
        keys[i] = ~k if k & sign else k | sign


def _radix_sort(keys, index, spare_keys, spare_index):
    """The cell indices ``index`` (0, 1, ... on entry) sorted by ``keys``, stably (so equal keys in index order):
    least significant digit first, 16 bits a pass, passes whose digit is the same for every key skipped. Returns
    the sorted indices (``index`` or ``spare_index``)."""
    size = keys.shape[0]
    counts = np.empty(65537, np.int64)
    mask = np.uint64(0xFFFF)
    for digit in range(4):
        shift = np.uint64(16 * digit)
        counts[:] = 0
        for i in range(size):
            counts[np.int64((keys[i] >> shift) & mask) + 1] += 1
        if counts.max() == size:
            continue
        for b in range(65536):
            counts[b + 1] += counts[b]
        for i in range(size):
            bucket = np.int64((keys[i] >> shift) & mask)
            target = counts[bucket]
            counts[bucket] = target + 1
            spare_keys[target] = keys[i]
            spare_index[target] = index[i]
        keys, spare_keys = spare_keys, keys
        index, spare_index = spare_index, index
    return index


@jit
def _before(h, a, b):
    """Whether cell ``a`` comes before cell ``b`` in the ``(height, index)`` order."""
    return h[a] < h[b] or (h[a] == h[b] and a < b)


@jit
def _neighbour(cell, k, rows, columns):
    """Neighbour ``k`` (``NEIGHBOURS``) of ``cell``; -1 off the map."""
    y, x = cell // columns + NEIGHBOURS[k, 0], cell % columns + NEIGHBOURS[k, 1]
    return y * columns + x if 0 <= y < rows and 0 <= x < columns else -1


def _count_pits(h, rows, columns, outlet):
    """Cells that are not outlets and have no neighbour before them: the leaf depressions."""
    pits = 0
    for cell in range(rows * columns):
        if outlet[cell]:
            continue
        lowest = True
        for k in range(8):
            n = _neighbour(cell, k, rows, columns)
            if n >= 0 and _before(h, n, cell):
                lowest = False
                break
        pits += lowest
    return pits


@jit
def _root(ints, x, link):
    """The last node on the path from node ``x`` along the links ``ints[:, link]`` (a node linked to itself
    ends it), halving the path on the way (path halving): the root of ``x``'s union-find set (``UF``), or the
    lowest node at or above ``x`` that is not sealed (``UP``: a node is sealed, ``UP`` its parent, once it and
    its sibling are full; water reaching it goes to the parent)."""
    while True:
        parent = ints[x, link]
        if parent == x:
            return x
        grand = ints[parent, link]
        ints[x, link] = grand
        x = grand


@jit
def _count(ints, x):
    return ints[x, CH_COUNT] + ints[x, OWN_COUNT]


@jit
def _close(ints, floats, x, level, evaporation):
    """Close node ``x`` at its spill ``level``: its area below it and its capacity (module doc)."""
    floats[x, SPILL] = level
    ties = ints[x, TOP_N] if floats[x, TOP_H] == level else 0
    ints[x, LT] = _count(ints, x) - ties
    volume = ints[x, CH_COUNT] * (level - floats[x, BASE]) + (ints[x, OWN_COUNT] * level - floats[x, OWN_SUM])
    floats[x, CAP] = max(volume + evaporation * (ints[x, LT] - ints[x, LT_CH]), 0.0)


@jit
def _join(ints, floats, x, height):
    """Cell of ``height`` joins node ``x`` (not the ocean) as one of its own cells."""
    ints[x, OWN_COUNT] += 1
    floats[x, OWN_SUM] += height
    if floats[x, TOP_H] == height:
        ints[x, TOP_N] += 1
    else:
        floats[x, TOP_H] = height
        ints[x, TOP_N] = 1


@jit
def _new_node(ints, floats, node, base):
    ints[node, UF] = node
    ints[node, CH_COUNT] = 0
    ints[node, OWN_COUNT] = 0
    ints[node, LT_CH] = 0
    ints[node, TOP_N] = 0
    ints[node, FULL] = 0
    ints[node, UP] = node
    floats[node, BASE] = base
    floats[node, OWN_SUM] = 0.0
    floats[node, TOP_H] = base
    floats[node, SPILL] = math.inf


@jit
def _link(ints, child, parent, leaf, entry, saddle):
    """``child`` of ``parent``: its overflow crosses ``saddle`` into ``entry``, on its way to the leaf ``leaf``."""
    ints[child, PARENT] = parent
    ints[child, UF] = parent
    ints[child, GEOLINK] = leaf
    ints[child, INJECT] = entry
    ints[child, SADDLE] = saddle


def _hierarchy(h, rows, columns, outlet, order, evaporation, owner, low_leaf, ints, floats):
    """The depression hierarchy (module doc): every cell's ``owner`` (the node it joined) and ``low_leaf`` (the
    leaf its steepest descent in the ``(height, index)`` order reaches, ``OCEAN`` from an outlet); the nodes'
    fields. Returns the number of nodes."""
    roots = np.empty(9, np.int64)
    best = np.empty(9, np.int64)
    drops = np.empty(9)
    _new_node(ints, floats, OCEAN, -math.inf)
    nodes = 1
    size = order.shape[0]
    for i in range(size):
        cell = np.int64(order[i])
        if i + AHEAD < size:  # the cells come in height order, far apart: ask for a later one's window now
            ahead = np.int64(order[i + AHEAD])
            for offset in (-columns, 0, columns):
                prefetch(h, ahead + offset)
                prefetch(owner, ahead + offset)
                prefetch(low_leaf, ahead + offset)
        height = h[cell]
        count = 0
        steep, steepest = -1, -1.0
        last_owner, root = -1, -1
        inside = 0 < cell // columns < rows - 1 and 0 < cell % columns < columns - 1
        for k in range(8):
            if inside:
                n = cell + NEIGHBOURS[k, 0] * columns + NEIGHBOURS[k, 1]
            else:
                n = _neighbour(cell, k, rows, columns)
                if n < 0:
                    continue
            if not _before(h, n, cell):
                continue
            drop = (height - h[n]) / DISTANCES[k]
            if drop > steepest:
                steep, steepest = n, drop
            if owner[n] != last_owner:  # neighbours mostly share one owner: find its root once
                last_owner = owner[n]
                root = _root(ints, last_owner, UF)
            j = 0
            while j < count and roots[j] != root:
                j += 1
            if j == count:
                roots[j], best[j], drops[j] = root, n, drop
                count += 1
            elif drop > drops[j]:
                best[j], drops[j] = n, drop
        if outlet[cell]:
            low_leaf[cell] = OCEAN
        elif steep >= 0:
            low_leaf[cell] = low_leaf[steep]
        if count == 0:
            if outlet[cell]:
                owner[cell] = OCEAN
                continue
            node = nodes
            nodes += 1
            _new_node(ints, floats, node, height)
            _join(ints, floats, node, height)
            owner[cell] = node
            low_leaf[cell] = node
            continue
        ocean = -1
        for j in range(count):
            if roots[j] == OCEAN:
                ocean = j
        if outlet[cell] or ocean >= 0:
            entry = cell if outlet[cell] else best[ocean]
            link = OCEAN if outlet[cell] else low_leaf[entry]
            for j in range(count):
                root = roots[j]
                if root == OCEAN:
                    continue
                _close(ints, floats, root, height, evaporation)
                ints[root, PARENT] = OCEAN
                ints[root, UF] = OCEAN
                ints[root, GEOLINK] = link
                ints[root, INJECT] = entry
                ints[root, SADDLE] = cell
            owner[cell] = OCEAN
            continue
        if count > 1:  # roots in node order, so the merges do not depend on the neighbours' order
            for j in range(1, count):
                m = j
                while m > 0 and roots[m - 1] > roots[m]:
                    roots[m - 1], roots[m] = roots[m], roots[m - 1]
                    best[m - 1], best[m] = best[m], best[m - 1]
                    drops[m - 1], drops[m] = drops[m], drops[m - 1]
                    m -= 1
        current, group_best, group_drop = roots[0], best[0], drops[0]
        for j in range(1, count):
            other = roots[j]
            _close(ints, floats, current, height, evaporation)
            _close(ints, floats, other, height, evaporation)
            node = nodes
            nodes += 1
            _new_node(ints, floats, node, height)
            ints[node, CHILD_A], ints[node, CHILD_B] = current, other
            ints[node, CH_COUNT] = _count(ints, current) + _count(ints, other)
            ints[node, LT_CH] = ints[current, LT] + ints[other, LT]
            ties = 0
            if floats[current, TOP_H] == height:
                ties += ints[current, TOP_N]
            if floats[other, TOP_H] == height:
                ties += ints[other, TOP_N]
            ints[node, TOP_N] = ties
            _link(ints, current, node, low_leaf[best[j]], best[j], cell)
            _link(ints, other, node, low_leaf[group_best], group_best, cell)
            if drops[j] > group_drop:
                group_best, group_drop = best[j], drops[j]
            current = node
        _join(ints, floats, current, height)
        owner[cell] = current
    return nodes


AHEAD = 8
"""How many cells ahead in the height order ``_hierarchy`` prefetches (their 3 x 3 windows of heights and owners)."""


@jit
def _drains_to(receivers, flat, queue, tail, cell, receiver):
    """The flat ``cell`` drains to ``receiver``: marked drained (``flat`` 2) and queued at ``tail``; returns the
    queue's new length."""
    receivers[cell] = receiver
    flat[cell] = 2
    queue[tail] = cell
    return tail + 1


def _routes(h, rows, columns, outlet, receivers, flat, queue):
    """D8 receivers for the water's paths: the steepest lower neighbour; an outlet is its own; a flat cell (no lower
    neighbour) drains to its nearest neighbour of the same height that has a lower one or is an outlet (breadth
    first from them), and a closed flat to its first neighbour before it in the ``(height, index)`` order; a pit is
    its own receiver."""
    size = rows * columns
    for cell in range(size):
        if outlet[cell]:
            receivers[cell] = cell
            continue
        best, steepest = -1, 0.0
        for k in range(8):
            n = _neighbour(cell, k, rows, columns)
            if n >= 0:
                drop = (h[cell] - h[n]) / DISTANCES[k]
                if drop > steepest:
                    best, steepest = n, drop
        receivers[cell] = best
        flat[cell] = best < 0
    tail = 0
    for cell in range(size):
        if flat[cell] != 1:
            continue
        for k in range(8):
            n = _neighbour(cell, k, rows, columns)
            if n >= 0 and flat[n] == 0 and h[n] == h[cell]:
                tail = _drains_to(receivers, flat, queue, tail, cell, n)
                break
    head = 0
    while head < tail:
        cell = queue[head]
        head += 1
        for k in range(8):
            n = _neighbour(cell, k, rows, columns)
            if n >= 0 and flat[n] == 1 and h[n] == h[cell]:
                tail = _drains_to(receivers, flat, queue, tail, n, cell)
    for cell in range(size):
        if flat[cell] == 1:
            receivers[cell] = cell
            for k in range(8):
                n = _neighbour(cell, k, rows, columns)
                if n >= 0 and _before(h, n, cell):
                    receivers[cell] = n
                    break


def _topological(receivers, sequence, donors):
    """``sequence``: every cell before its receiver (Kahn 1962: a cell once all its donors are in)."""
    size = receivers.shape[0]
    for cell in range(size):
        if receivers[cell] != cell:
            donors[receivers[cell]] += 1
    top = 0
    filled = 0
    for cell in range(size - 1, -1, -1):
        if donors[cell] == 0:
            sequence[size - 1 - top] = cell  # the stack's bottom, kept at the far end until popped
            top += 1
    while top > 0:
        top -= 1
        cell = sequence[size - 1 - top]
        sequence[filled] = cell
        filled += 1
        receiver = receivers[cell]
        if receiver != cell:
            donors[receiver] -= 1
            if donors[receiver] == 0:
                sequence[size - 1 - top] = receiver
                top += 1


def _runoff(receivers, sequence, outlet, owner, rain, uniform, area, inflow, end):
    """The rain reaching each leaf (``inflow[node]``; the ocean's: what runs straight off the map)."""
    size = receivers.shape[0]
    for i in range(size - 1, -1, -1):
        cell = sequence[i]
        receiver = receivers[cell]
        if receiver != cell:
            end[cell] = end[receiver]
        else:
            end[cell] = OCEAN if outlet[cell] else owner[cell]
        inflow[end[cell]] += (rain[0] if uniform else rain[cell]) * area


@jit
def _pour(ints, floats, node, amount):
    """Pour ``amount`` into ``node`` (a leaf, or a node whose children are full); returns what reaches the
    ocean."""
    water = amount
    d = node
    while water > 0.0:
        if d == OCEAN:
            return water
        if ints[d, FULL] == 0:
            room = floats[d, CAP] - floats[d, HELD]
            if water < room:
                floats[d, HELD] += water
                return 0.0
            water -= room
            floats[d, HELD] = floats[d, CAP]
            ints[d, FULL] = 1
            parent = ints[d, PARENT]
            if parent != OCEAN:
                sibling = ints[parent, CHILD_A] if ints[parent, CHILD_B] == d else ints[parent, CHILD_B]
                if ints[sibling, FULL]:
                    ints[d, UP] = parent
                    ints[sibling, UP] = parent
            if water <= 0.0:
                return 0.0
        up = _root(ints, d, UP)
        if up != d:
            d = up
            continue
        floats[d, SPILLED] += water
        d = ints[d, GEOLINK]
    return 0.0


def _fill_spill_merge(ints, floats, inflow, unlimited):
    """Pour every leaf's rain (module doc); returns what left the map. ``unlimited``: the rain passes every
    depression (capacities taken as 0 while pouring), then every depression is full."""
    nodes = ints.shape[0]
    caps = floats[:, CAP].copy()
    if unlimited:
        floats[:, CAP] = 0.0
    floats[:, HELD] = 0.0
    floats[:, SPILLED] = 0.0
    out = inflow[OCEAN]
    for node in range(1, nodes):
        if inflow[node] > 0.0:
            out += _pour(ints, floats, node, inflow[node])
    if unlimited:
        floats[:, CAP] = caps
        for node in range(1, nodes):
            floats[node, HELD] = caps[node]
            ints[node, FULL] = 1
    return out


def _solve_levels(h, order, owner, ints, floats, evaporation, counted, summed, last):
    """The lake level of every node holding water in its own range (module doc), in ``LEVEL``: the spill level of a
    full node, else the lowest ``L`` with ``V(L) + e A(L) >= held``, scanning its own cells from the lowest."""
    nodes = ints.shape[0]
    floats[:, LEVEL] = -math.inf
    for node in range(1, nodes):
        if ints[node, FULL]:
            floats[node, LEVEL] = floats[node, SPILL]
    for i in range(order.shape[0]):
        cell = order[i]
        node = owner[cell]
        if node == OCEAN or ints[node, FULL] or floats[node, HELD] <= 0.0 or floats[node, LEVEL] > -math.inf:
            continue
        wet = ints[node, CH_COUNT] + counted[node]
        if wet > 0:
            level = _level(floats[node, HELD], ints[node, CH_COUNT], floats[node, BASE], counted[node], summed[node],
                           ints[node, LT_CH], evaporation)  # fmt: skip
            if level <= h[cell]:
                floor = last[node] if counted[node] > 0 else floats[node, BASE]
                floats[node, LEVEL] = max(level, floor)
                continue
        counted[node] += 1
        summed[node] += h[cell]
        last[node] = h[cell]
    for node in range(1, nodes):
        if not ints[node, FULL] and floats[node, HELD] > 0.0 and floats[node, LEVEL] == -math.inf:
            level = _level(floats[node, HELD], ints[node, CH_COUNT], floats[node, BASE], counted[node], summed[node],
                           ints[node, LT_CH], evaporation)  # fmt: skip
            floor = last[node] if counted[node] > 0 else floats[node, BASE]
            floats[node, LEVEL] = min(max(level, floor), floats[node, SPILL])


@jit
def _level(held, children, base, own, own_sum, children_area, evaporation):
    """``L`` with ``G(L) = held`` while ``own`` own cells (heights summing to ``own_sum``) and the ``children``'s
    cells (full to ``base``, ``children_area`` of them below it) are wet."""
    wet = children + own
    return (held + children * base + own_sum - evaporation * (wet - children_area)) / wet


def _cover(ints, floats, cover, source):
    """Each node's water level from itself or the lowest ancestor whose lake covers it (``cover``) and the node
    whose level that is (``source``), parents first (a parent is made after its children)."""
    for node in range(ints.shape[0] - 1, 0, -1):
        own = floats[node, LEVEL]
        parent = ints[node, PARENT]
        if parent > OCEAN and cover[parent] > -math.inf and cover[parent] >= own:
            cover[node] = cover[parent]
            source[node] = source[parent]
        elif own > -math.inf:
            cover[node] = own
            source[node] = node


def _lake_cells(h, owner, cover, source, level, lakes, lake_of_node):
    """The water level of every cell, and lake ids numbered in the order of their first cell; returns how many."""
    count = 0
    for cell in range(h.shape[0]):
        node = owner[cell]
        if node != OCEAN and cover[node] > h[cell]:
            level[cell] = cover[node]
            top = source[node]
            if lake_of_node[top] == 0:
                count += 1
                lake_of_node[top] = count
            lakes[cell] = lake_of_node[top]
        else:
            level[cell] = h[cell]
    return count


def _discharge(receivers, sequence, wet, rain, uniform, area, ints, floats, discharge):
    """``Q`` (module doc): the overflows (``SPILLED``, in depth x cells) at the cells below the spill points and the
    rain, times the cell's ``area``, summed down the receivers; lake cells absorb (and keep 0)."""
    for node in range(1, ints.shape[0]):
        if floats[node, SPILLED] > 0.0 and ints[node, INJECT] >= 0:
            discharge[ints[node, INJECT]] += floats[node, SPILLED] * area
    for i in range(sequence.shape[0]):
        cell = sequence[i]
        discharge[cell] += (rain[0] if uniform else rain[cell]) * area
        if wet[cell]:
            discharge[cell] = 0.0
            continue
        receiver = receivers[cell]
        if receiver != cell:
            discharge[receiver] += discharge[cell]


def _headwater_paths(receivers, heads, wet, river):
    """River cells: the paths down the receivers from every headwater cell, to a lake, a pit or an outlet."""
    for start in range(receivers.shape[0]):
        if not heads[start]:
            continue
        cell = start
        while not wet[cell] and not river[cell]:
            river[cell] = 1
            receiver = receivers[cell]
            if receiver == cell:
                break
            cell = receiver


def _count_reaches(receivers, river, donors):
    """Each river cell's river donors; returns the number of reaches (starting at river cells with other than
    one)."""
    size = receivers.shape[0]
    for cell in range(size):
        if river[cell] and receivers[cell] != cell and river[receivers[cell]]:
            donors[receivers[cell]] += 1
    reaches = 0
    for cell in range(size):
        if river[cell] and donors[cell] != 1:
            reaches += 1
    return reaches


@jit
def _search(values, key):
    """The index of ``key`` in the sorted ``values``, or -1."""
    low, high = 0, values.shape[0]
    while low < high:
        middle = (low + high) // 2
        if values[middle] < key:
            low = middle + 1
        else:
            high = middle
    return low if low < values.shape[0] and values[low] == key else -1


def _trace_reaches(receivers, river, wet, donors, entry_cells, saddles, starts, cells, downstream):
    """The reaches' cells, one after another (``starts``: where each begins): a source's reach starts at the spill
    point its overflow came over (if any); each runs down to a junction (its first cell, shared), a lake cell or an
    outlet. Returns the number of points."""
    size = receivers.shape[0]
    reach = 0
    filled = 0
    first_cells = np.empty(starts.shape[0] - 1, np.int64)
    for cell in range(size):
        if river[cell] and donors[cell] != 1:
            first_cells[reach] = cell
            reach += 1
    for r in range(first_cells.shape[0]):
        start = first_cells[r]
        starts[r] = filled
        downstream[r] = -1
        if donors[start] == 0:
            found = _search(entry_cells, start)
            if found >= 0 and saddles[found] >= 0 and saddles[found] != start:
                cells[filled] = saddles[found]
                filled += 1
        cells[filled] = start
        filled += 1
        cell = start
        while True:
            receiver = receivers[cell]
            if receiver == cell:
                break
            if river[receiver]:
                cells[filled] = receiver
                filled += 1
                if donors[receiver] != 1:
                    downstream[r] = _search(first_cells, receiver)
                    break
                cell = receiver
                continue
            if wet[receiver]:
                cells[filled] = receiver
                filled += 1
            break
    starts[first_cells.shape[0]] = filled
    return filled


def _point_discharge(cells, starts, discharge, flows):
    """Each point's discharge: its cell's, or for a point off the river (a spill point, a lake cell at a mouth) the
    next (or previous) point's in its reach."""
    for r in range(starts.shape[0] - 1):
        first, last = starts[r], starts[r + 1]
        for i in range(first, last):
            flows[i] = discharge[cells[i]]
        if last - first > 1 and flows[first] == 0.0:
            flows[first] = flows[first + 1]
        if last - first > 1 and flows[last - 1] == 0.0:
            flows[last - 1] = flows[last - 2]


LINES = 8
"""Columns a block of the column passes gathers at a time (one cache line of float64 per row)."""


@jit
def _columns_to_lines(values, lines, low, high):
    """Copy the columns ``low .. high - 1`` of ``values`` into the rows ``0 .. high - low - 1`` of ``lines``."""
    for row in range(values.shape[0]):
        for column in range(low, high):
            lines[column - low, row] = values[row, column]


@jit
def _lines_to_columns(lines, values, low, high):
    """The inverse of ``_columns_to_lines``: the rows of ``lines`` back into the columns ``low ..`` of ``values``."""
    for row in range(values.shape[0]):
        for column in range(low, high):
            values[row, column] = lines[column - low, row]


def _edt_rows_kernel(first, last, squared):
    """The squared distance transform (``_envelope``) along each row ``first .. last - 1`` of ``squared``, in
    place: a range kernel."""
    if first < 0:
        on_threads(last)
        return
    columns = squared.shape[1]
    line, out = np.empty(columns), np.empty(columns)
    vertices, bounds = np.empty(columns, np.int64), np.empty(columns + 1)
    for row in range(first, last):
        for column in range(columns):
            line[column] = squared[row, column]
        _envelope(line, columns, out, vertices, bounds)
        for column in range(columns):
            squared[row, column] = out[column]


def _edt_columns_kernel(first, last, squared):
    """As ``_edt_rows_kernel`` along the columns of the blocks of ``LINES`` columns ``first .. last - 1``."""
    if first < 0:
        on_threads(last)
        return
    rows, columns = squared.shape
    lines, out = np.empty((LINES, rows)), np.empty(rows)
    vertices, bounds = np.empty(rows, np.int64), np.empty(rows + 1)
    for block in range(first, last):
        low, high = block_span(block, LINES, columns)
        _columns_to_lines(squared, lines, low, high)
        for column in range(low, high):
            _envelope(lines[column - low], rows, out, vertices, bounds)
            for row in range(rows):
                lines[column - low, row] = out[row]
        _lines_to_columns(lines, squared, low, high)


@jit
def _envelope(f, n, out, vertices, bounds):
    """``out[q] = min over p of (q - p)^2 + f[p]``: the lower envelope of parabolas (Felzenszwalb & Huttenlocher
    2012, algorithm DT(f)); points without a site (``f >= INFINITE``) have no parabola."""
    k = -1
    for q in range(n):
        if f[q] >= INFINITE:
            continue
        if k < 0:
            k = 0
            vertices[0] = q
            bounds[0] = -math.inf
            bounds[1] = math.inf
            continue
        s = _meet(f, q, vertices[k])
        while s <= bounds[k]:
            k -= 1
            s = _meet(f, q, vertices[k])
        k += 1
        vertices[k] = q
        bounds[k] = s
        bounds[k + 1] = math.inf
    if k < 0:
        for q in range(n):
            out[q] = INFINITE
        return
    j = 0
    for q in range(n):
        while bounds[j + 1] < q:
            j += 1
        p = vertices[j]
        out[q] = (q - p) * (q - p) + f[p]


@jit
def _meet(f, q, p):
    """Where the parabolas of ``q`` and ``p`` (``p < q``) meet."""
    return ((f[q] + q * q) - (f[p] + p * p)) / (2.0 * (q - p))


def _flow_vectors(receivers, river, discharge, top, exponent, columns, vectors):
    """On river cells, the unit D8 direction to the receiver times ``(Q / top)^exponent``."""
    for cell in range(receivers.shape[0]):
        receiver = receivers[cell]
        if not river[cell] or receiver == cell:
            continue
        dy = receiver // columns - cell // columns
        dx = receiver % columns - cell % columns
        length = math.sqrt(dx * dx + dy * dy)
        speed = (discharge[cell] / top) ** exponent if exponent > 0.0 else 1.0
        row, column = cell // columns, cell % columns
        vectors[0, row, column] = speed * dx / length
        vectors[1, row, column] = speed * dy / length


@jit
def _blur_line(line, n, radius, sums):
    """Each of the ``n`` values of ``line`` as the mean of its ``2 radius + 1`` window (clipped), in place."""
    sums[0] = 0.0
    for i in range(n):
        sums[i + 1] = sums[i] + line[i]
    for i in range(n):
        low, high = max(i - radius, 0), min(i + radius + 1, n)
        line[i] = (sums[high] - sums[low]) / (high - low)


def _blur_rows_kernel(first, last, values, radius):
    """``_blur_line`` along the rows ``first .. last - 1`` of ``values``: a range kernel."""
    if first < 0:
        on_threads(last)
        return
    columns = values.shape[1]
    sums = np.empty(columns + 1)
    for row in range(first, last):
        _blur_line(values[row], columns, radius, sums)


def _blur_columns_kernel(first, last, values, radius):
    """``_blur_line`` along the columns of the blocks of ``LINES`` columns ``first .. last - 1``."""
    if first < 0:
        on_threads(last)
        return
    rows, columns = values.shape
    lines, sums = np.empty((LINES, rows)), np.empty(rows + 1)
    for block in range(first, last):
        low, high = block_span(block, LINES, columns)
        _columns_to_lines(values, lines, low, high)
        for column in range(low, high):
            _blur_line(lines[column - low], rows, radius, sums)
        _lines_to_columns(lines, values, low, high)


def _carve(carved, original, rows, columns, cells, depths, radii):
    """Lower ``carved`` along one reach: at point ``i`` a paraboloid ``bed_i + depth_i (r / R_i)^2`` within ``R_i``
    cells, ``bed_i`` the point's original height less its depth, never above the bed upstream."""
    bed = math.inf
    for i in range(cells.shape[0]):
        centre = cells[i]
        bed = min(bed, original[centre] - depths[i])
        radius = radii[i]
        reach = math.ceil(radius)
        row, column = centre // columns, centre % columns
        for y in range(max(row - reach, 0), min(row + reach + 1, rows)):
            for x in range(max(column - reach, 0), min(column + reach + 1, columns)):
                r2 = ((y - row) ** 2 + (x - column) ** 2) / (radius * radius)
                if r2 <= 1.0:
                    target = bed + depths[i] * r2
                    index = y * columns + x
                    if target < carved[index]:
                        carved[index] = target


_kernels = kernel_table(
    serial=(
        _sort_keys,
        _radix_sort,
        _count_pits,
        _hierarchy,
        _routes,
        _topological,
        _runoff,
        _fill_spill_merge,
        _solve_levels,
        _cover,
        _lake_cells,
        _discharge,
        _headwater_paths,
        _count_reaches,
        _trace_reaches,
        _point_discharge,
        _flow_vectors,
        _carve,
    ),
    ranged=(_edt_rows_kernel, _edt_columns_kernel, _blur_rows_kernel, _blur_columns_kernel),
)
"""The compiled kernels, built on first use."""
