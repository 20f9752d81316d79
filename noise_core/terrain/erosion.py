"""Hydraulic and thermal erosion of heightmaps.

**Hydraulic** (``erode_hydraulic``): the droplet model of Hans Theobald Beyer, "Implementation of a method
for hydraulic erosion" (2015), as Sebastian Lague ported it. A droplet starts at a random point with
``initial_water`` and ``initial_speed``; each step it reads the bilinear height ``h`` and gradient ``g`` at
its position, turns ``d = d·inertia - g·(1 - inertia)`` (normalised) and moves one cell. With the height
change ``Δh`` its capacity is ``c = max(-Δh, min_slope)·speed·water·capacity``; it deposits
``min(Δh, sediment)`` going uphill or ``(sediment - c)·deposition`` when over capacity (bilinearly on the
four corners of the cell it left), and otherwise erodes ``min((c - sediment)·erosion, -Δh)`` through a disc
around that cell (weights ``radius - distance``, normalised), no cell of it below the height the droplet
flows down to, ``h + Δh``. Then ``speed = sqrt(max(0, speed² - Δh·gravity))`` (speed grows downhill, as in
Beyer; the port has ``+ Δh``) and ``water *= 1 - evaporation``. Nothing vanishes: a droplet that leaves the
map carries its sediment off the edge.

*The same at any resolution.* Beyer's constants are per step of one cell, so the same terrain sampled finer
eroded less, and a fixed droplet count spread thinner. Here the constants are per **model cell**,
``1/MODEL_CELLS`` of the map's longer side (whatever its resolution); a map whose cells are ``r`` model cells
(``r = 1024 / (longer side - 1)``) takes steps of one cell with ``lifetime / r`` steps, ``inertia^r``,
``1 - (1 - f)^r`` for ``f`` = erosion, deposition and evaporation, ``gravity·r``, and ``capacity / r`` (a
droplet stands for the rain on its share of the map, ``r²`` model cells, measured in cells³). The number of
droplets is ``droplet_density`` per cell (``droplets`` overrides it), and ``brush_radius`` is in the heights'
unit (0: 3 model cells). So the sediment moved per unit of area, and where, depend on the terrain's shape,
not on its resolution (tested: 129² against 257² of one terrain; 513² against 1025² in
``scripts/bench_erosion.py``).

*Wide brushes on a coarser grid.* When the brush spans ``1.5·COARSE_BRUSH`` cells or more (the default on maps
over about 1537 cells wide: 12 cells at 4097²), the droplets run on the map sampled ``s`` times coarser
(bilinearly, corner to corner; ``coarse_shape``: about ``radius / COARSE_BRUSH``, so the brush is about 3
cells there), as many per unit of area as asked (``droplets / s²``, each standing for the rain of ``s²`` of the
map's droplets), with that grid's constants, as a map of that size would erode; the change they make is
interpolated bilinearly onto the map and added to its heights, which keep their finer detail, and the map is
then settled. This is the coarse-grid correction of multigrid methods (Brandt 1977, "Multi-level adaptive
solutions to boundary-value problems"; Briggs, Henson & McCormick 2000, "A Multigrid Tutorial", ch. 3) applied to
the erosion's change. ``carried_off`` is then what the map lost: what the droplets took over the edges, and the
coarse change of the half coarse cell the coarse edge cells reach beyond the map. ``MAX_BRUSH_CELLS`` limits
only droplets on the map's own cells. Tested against the map's own cells (257², brushes of 5 and 6 cells).

*No pits.* Droplets dig pits: a disc takes most from its centre, and each droplet erodes most where it
starts. Three rules keep the surface draining: a droplet that stops (flat ground or end of its life)
spreads what it carries over the disc, not on four cells; a droplet going uphill fills the hollow it leaves
(Beyer); and after the droplets, sediment settles into closed hollows: every interior cell lower by ``d``
than the lowest of its 8 neighbours takes ``d / 9`` from each of them (it ends level with the lowest, the
rim stays above it, mass is kept), repeated up to ``SETTLE_PASSES`` times. No cell is left lower than all
its neighbours unless four passes were not enough (tested: pit density after default erosion within
1.5 x before + 5 per 10,000 cells).

*Gullies* (``gullies`` > 0): rivers cut between the droplets. After each ``STREAM_STEPS``-th of the droplets
comes one step of stream-power incision, ``∂h/∂t = -K·a^0.5·S`` (Howard 1994, "A detachment-limited model of
drainage basin evolution") for one unit of time, ``K = STREAM_POWER·gullies``, ``a`` the D8 catchment per unit
of width in model cells and ``S`` the slope to the D8 receiver, solved implicitly along the flow as Braun &
Willett 2013 do (``_incise``), over the map with its hollows filled (Priority-Flood, Barnes et al. 2014). The
sediment it cuts runs down the flow; a hollow it reaches keeps ``C·I/(C + I)`` of the inflow ``I``, ``C``
its room below the spill level (a trap efficiency with the trend of Brune 1953, "Trap efficiency of
reservoirs"), raising each of its cells by the same share of its depth, so hollows grow shallower but keep
their shape instead of silting up into flats; the rest runs on, and what reaches an edge leaves the map
(``carried_off``). Cells that collect more water cut deeper, the
droplets widen and feed what they cut, and the valleys branch (tested: drainage-network junctions). Each
step is serial, so the bits still do not depend on the thread count; droplets on a coarser grid have their
steps there too (``strength`` per grid, ``_model``).

Heights and ``cell_size`` share one unit: the model runs on heights in cells (``heights / cell_size``), so
slopes are true slopes. Start points are ``SmallXXHash(seed)`` of the droplet's index. *On every core*: a
droplet changes the terrain the next one flows over, so droplets that run at once must never touch a common
cell. The map is cut into square tiles ``2·(steps + reach + 3) + 1`` cells wide (``tile_width``: a droplet
moves at most one cell per step and touches cells up to ``reach + 2`` from where it is), and the droplets are
taken in rounds (``ROUND_PER_TILE`` per tile): sorted by the tile they start in (keeping their order), then
run in four phases, the tiles at even rows and even columns, even and odd, odd and even, odd and odd. Two
tiles of one phase have a whole tile between them, so their droplets never meet; each tile's run one after
another, and the tiles of a phase run on Numba's threads at once. The result depends only on the seed and the
options, never on the thread count (tested with 1, 2 and 4 threads); this is the order of Beyer's serial
loop regrouped, not a different model (the quality tests of ``tests/test_erosion.py`` hold as before).

**Thermal** (``erode_thermal``): material slides off slopes steeper than the talus angle. Each iteration,
every cell whose drop ``h - h_n`` to a neighbour ``n`` (8 neighbours, distance 1 or √2 cells) exceeds
``tan(talus_angle)·distance`` moves ``rate·(largest excess)/2`` to those neighbours, split by excess; all
moves are computed from the same state and then applied (in parallel, with the same bits on any thread
count). The map's edges are closed: no material leaves.

Both return an ``ErosionResult``: the new heights (float32; the input is not changed), the masks
``erosion = max(0, before - after)`` and ``deposition = max(0, after - before)`` per cell, and their totals,
with ``carried_off`` (what droplets took over the edges): ``eroded - deposited = carried_off`` up to float
rounding. The work runs in float64 and is rounded to float32 once at the end.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import numpy as np

from .. import runtime
from .._jit import jit, range_kernel, serial_kernel
from ..hashing import avalanche, eat, hash_seed
from ..schema import Option
from ..threads import on_threads
from . import flow
from .heightfield import CELL_SIZE, NEIGHBOURS, check_heights
from .resample import bilinear_axis, resample_bilinear

MODEL_CELLS = 1024
"""The model cell is this fraction of the map's longer side: rates and path lengths are per model cell."""
MAX_BRUSH_CELLS = 16.0
"""The widest brush, in cells, of droplets that run on the map's own cells (a wider one runs them on a coarser
grid, ``coarse_shape``, unless the map is too small for one)."""
ROUND_PER_TILE = 256
ROUNDS = (1 << 12, 1 << 16)
BATCH_WORK = 1 << 26
"""Droplets are sorted by the tile they start in and run in four phases of tiles, a round of ``ROUND_PER_TILE``
per tile (within ``ROUNDS``) at a time: fewer, longer phases keep the threads busy. A batch (between two
progress reports, where a job can stop) is whole rounds, of at most ``BATCH_WORK`` brush cells touched (steps x
brush cells per droplet), about 0.2 s on one core, unless a round alone is more."""
BATCHES = 64
"""Droplets run in at least ``BATCHES`` launches of whole rounds when there are enough (progress is reported
between them)."""
SETTLE_PASSES = 4
STREAM_STEPS = 4
"""With ``gullies``, the droplets run in this many parts, each followed by a stream-power step."""
STREAM_POWER = 0.05
"""The erodibility ``K`` of those steps per unit of ``gullies`` (catchment in model cells, one unit of time)."""
COARSE_BRUSH = 3.0
"""A brush wider than ``1.5 * COARSE_BRUSH`` cells runs its droplets on a grid coarse enough for it to be about
``COARSE_BRUSH`` cells wide (``coarse_shape``)."""
COARSE_MIN = 16
"""The shortest side of a coarse grid, in cells (smaller maps run on their own cells)."""
HYDRAULIC_OPTIONS: tuple[Option, ...] = (
    Option("droplets", int, 0, "Number of droplets (0: droplet_density per cell)", minimum=0, maximum=100_000_000,
           soft_maximum=2_000_000),
    Option("droplet_density", float, 0.5, "Droplets per cell of the map, when droplets is 0", minimum=0.0,
           maximum=1000.0, soft_maximum=4.0),
    Option("seed", int, 0, "Start points: SmallXXHash(seed) of the droplet index", minimum=-(2**31),
           maximum=2**31 - 1),
    Option("lifetime", int, 30, "Length of a droplet's path, in model cells (1/1024 of the map's longer side)",
           minimum=1, maximum=1000, soft_maximum=200),
    Option("inertia", float, 0.05, "How much a droplet keeps its direction (0: follows the slope)", minimum=0.0,
           maximum=1.0),
    Option("capacity", float, 4.0, "Sediment a droplet can carry per unit of slope, speed and water", minimum=0.0,
           maximum=1000.0, soft_maximum=20.0),
    Option("min_slope", float, 0.01, "Slope used for the capacity on flatter ground", minimum=0.0, maximum=10.0,
           soft_maximum=0.1),
    Option("deposition", float, 0.3, "Fraction of the excess sediment dropped per model cell", minimum=0.0,
           maximum=1.0),
    Option("erosion", float, 0.3, "Fraction of the free capacity taken from the ground per model cell",
           minimum=0.0, maximum=1.0),
    Option("evaporation", float, 0.01, "Fraction of the water lost per model cell", minimum=0.0, maximum=1.0),
    Option("gravity", float, 4.0, "Acceleration along the slope", minimum=0.0, maximum=1000.0, soft_maximum=20.0),
    Option("brush_radius", float, 0.0, "Radius of the disc a droplet erodes, in the heights' unit (0: 3 model "
           "cells)", minimum=0.0, maximum=1e30, soft_maximum=1.0),
    Option("gullies", float, 0.0, "Rivers cut between batches of droplets: stream-power erodibility 0.05 x "
           "gullies (0: off)", minimum=0.0, maximum=100.0, soft_maximum=16.0),
    Option("initial_water", float, 1.0, "Water of a new droplet", minimum=0.0, above=True, maximum=1000.0,
           ui_minimum=1e-3, soft_maximum=10.0),
    Option("initial_speed", float, 1.0, "Speed of a new droplet", minimum=0.0, maximum=1000.0, soft_maximum=10.0),
)  # fmt: skip
THERMAL_OPTIONS: tuple[Option, ...] = (
    Option("talus_angle", float, 35.0, "Steepest stable slope, in degrees", minimum=0.0, maximum=89.0),
    Option("iterations", int, 50, "Relaxation steps", minimum=0, maximum=100_000, soft_maximum=500),
    Option("rate", float, 0.5, "Fraction of the excess moved per step", minimum=0.0, maximum=1.0),
)


@dataclass(frozen=True)
class ErosionResult:
    """Eroded ``heights`` (float32, new array), per-cell ``erosion`` and ``deposition`` masks (float32, >= 0) and
    totals: ``eroded`` = sum of erosion, ``deposited`` = sum of deposition, ``carried_off`` = sediment that left
    over the edges (0 for thermal erosion)."""

    heights: np.ndarray
    erosion: np.ndarray
    deposition: np.ndarray
    eroded: float
    deposited: float
    carried_off: float


MAX_HEIGHT = 1e38
"""Largest height magnitude: heights, erosion and deposition all stay within float32 (3.4e38), the result's type."""
MAX_HEIGHT_IN_CELLS = 1e100
"""Largest ``|heights / cell_size|``: the model's products of slope, speed and water stay far within float64."""


def _cells(heights: object, cell_size: float) -> np.ndarray:
    """``heights / cell_size`` as a new float64 array (the model's unit), checked: ``ValueError`` naming ``heights``
    beyond ``MAX_HEIGHT`` or ``cell_size`` so small that the heights in cells pass ``MAX_HEIGHT_IN_CELLS``."""
    values = np.asarray(check_heights(heights), dtype=np.float64)
    largest = float(np.abs(values).max())
    if largest > MAX_HEIGHT:
        raise ValueError(
            f"heights: values up to {largest:.3g} lie beyond {MAX_HEIGHT:g} (the eroded heights are float32, "
            f"at most 3.4e38); scale the heights down"
        )
    if largest / cell_size > MAX_HEIGHT_IN_CELLS:
        raise ValueError(
            f"cell_size: {cell_size:g} is too small for heights up to {largest:g} (heights / cell_size would reach "
            f"{largest / cell_size:.3g}, at most {MAX_HEIGHT_IN_CELLS:g}); give the distance between cells in the "
            f"heights' unit"
        )
    return np.ascontiguousarray(values / cell_size)


def _checked(result: ErosionResult) -> ErosionResult:
    """``result`` if every array and total in it is finite; otherwise ``ArithmeticError`` (a fault of the model,
    never a silently broken terrain)."""
    arrays = (result.heights, result.erosion, result.deposition)
    totals = (result.eroded, result.deposited, result.carried_off)
    if not (all(np.isfinite(a).all() for a in arrays) and np.isfinite(totals).all()):
        raise ArithmeticError("erosion: the result is not finite (NaN or infinity); please report these inputs")
    return result


def _options(options: tuple[Option, ...], values: dict) -> dict:
    unknown = sorted(set(values) - {option.name for option in options} - {"cell_size"})
    if unknown:
        allowed = ", ".join(option.name for option in (*options, CELL_SIZE))
        raise TypeError(f"{unknown[0]}: not an erosion option; allowed: {allowed}")
    checked = {option.name: option.check(values.get(option.name, option.default)) for option in options}
    checked["cell_size"] = CELL_SIZE.check(values.get("cell_size", CELL_SIZE.default))
    return checked


def _result(before: np.ndarray, after: np.ndarray, scale: float, carried_off: float) -> ErosionResult:
    """The result of eroding ``before`` (float64, in cells) to ``after``; ``scale`` = cell size."""
    change = (after - before) * scale
    heights = ((before + (after - before)) * scale).astype(np.float32)
    erosion = np.maximum(-change, 0.0)
    deposition = np.maximum(change, 0.0)
    return ErosionResult(
        heights=heights,
        erosion=erosion.astype(np.float32),
        deposition=deposition.astype(np.float32),
        eroded=float(erosion.sum()),
        deposited=float(deposition.sum()),
        carried_off=float(carried_off * scale),
    )


def erode_hydraulic(
    heights: np.ndarray, progress: Callable[[int, int], None] | None = None, **options: object
) -> ErosionResult:
    """Hydraulic (droplet) erosion of ``heights`` (a 2-D array, rows along y); options in ``HYDRAULIC_OPTIONS``
    and ``cell_size``. ``progress(done, total)`` is called after each batch of droplets. ``ValueError``/
    ``TypeError`` naming the option for a bad value."""
    values = _options(HYDRAULIC_OPTIONS, options)
    cells = _cells(heights, values["cell_size"])
    before = cells.copy()
    model = _model(values, cells.shape)
    droplets = model.pop("droplets")
    coarse = coarse_shape(_brush_cells(values, cells.shape, math.inf), cells.shape) if droplets else None
    if coarse is None:
        carried_off = _droplets(cells, droplets, model, progress)
    else:
        carried_off = _droplets_coarse(cells, droplets, values, coarse, progress)
    if droplets:
        _kernels().settle(cells, np.empty_like(cells), SETTLE_PASSES)
    return _checked(_result(before, cells, values["cell_size"], carried_off))


def _droplets(cells: np.ndarray, droplets: int, model: dict, progress: Callable[[int, int], None] | None) -> float:
    """Run ``droplets`` droplets with the per-step constants ``model`` (``_model`` without its count) over
    ``cells`` (float64, in place), in batches of whole rounds; returns the sediment carried off the map."""
    kernels = _kernels()
    tile = tile_width(model["steps"], int(np.abs(model["brush_dy"]).max()))
    tiles = ((cells.shape[0] - 2) // tile + 1) * ((cells.shape[1] - 2) // tile + 1)
    span = np.zeros(3, dtype=np.int64)
    carried = np.zeros(tiles, dtype=np.float64)
    work = model["steps"] * model["brush_w"].shape[0]  # per droplet
    size = min(max(min(ROUND_PER_TILE * tiles, BATCH_WORK // work), ROUNDS[0]), ROUNDS[1])
    scratch = (np.empty(size), np.empty(size), np.empty(size, np.int64), np.empty(tiles + 1, np.int64),
               np.empty(tiles, np.int64), carried, tile, model["seed"])  # fmt: skip
    constants = [value for name, value in model.items() if name not in ("seed", "gullies")]
    batch = size * max(1, min(-(-droplets // (BATCHES * size)), BATCH_WORK // (work * size)))
    batches = -(-droplets // batch) if droplets else 0
    carried_off = 0.0
    for index, first in enumerate(range(0, droplets, batch)):
        last = min(first + batch, droplets)
        span[:2] = first, last
        runtime.launch_blocks(kernels.hydraulic, 1, (cells, span, *scratch, *constants))
        if model["gullies"] > 0.0:  # rivers cut along the flow after each STREAM_STEPS-th of the droplets
            for _ in range((index + 1) * STREAM_STEPS // batches - index * STREAM_STEPS // batches):
                carried_off += _stream_power_step(cells, model["gullies"])
        if progress is not None:
            progress(last, droplets)
    return carried_off + float(carried.sum())


def _stream_power_step(cells: np.ndarray, strength: float) -> float:
    """One implicit stream-power step over ``cells`` (float64, in place; ``strength`` = ``K / sqrt(r)``, see
    ``_incise``), routed by D8 over the depression-filled map; returns the sediment carried off the edges."""
    filled = flow.fill_depressions(cells, epsilon=True).reshape(-1)
    receivers = flow.d8_receivers(filled.reshape(cells.shape))
    order = flow.stack_order(receivers)
    area = flow.accumulate(receivers, order, np.ones(cells.size))
    size = cells.size
    scratch = (np.empty(size), np.empty(size, np.int64), np.empty(size, np.int64), np.empty(size + 1, np.int64))
    flat = cells.reshape(-1)  # a view of a C-contiguous map, else a copy (written back)
    carried = _kernels().incise(flat, filled, receivers, order, area, cells.shape[1], strength, *scratch)
    if not np.shares_memory(flat, cells):
        cells[...] = flat.reshape(cells.shape)
    return float(carried)


def coarse_shape(radius: float, shape: tuple[int, ...]) -> tuple[int, int] | None:
    """The grid the droplets run on when the brush is ``radius`` cells of a map of ``shape``: ``None`` (the map
    itself) for a brush under ``1.5 * COARSE_BRUSH`` cells, else the map sampled ``s`` times coarser, ``s`` about
    ``radius / COARSE_BRUSH`` and splitting the longer side into whole coarse cells (``None`` too when the
    shorter side would fall under ``COARSE_MIN`` cells)."""
    if radius < 1.5 * COARSE_BRUSH:
        return None
    longer = max(shape) - 1
    s = longer / max(1, round(longer * COARSE_BRUSH / radius))
    coarse = (round((shape[0] - 1) / s) + 1, round((shape[1] - 1) / s) + 1)
    return None if min(coarse) < COARSE_MIN else coarse


def _droplets_coarse(
    cells: np.ndarray, droplets: int, values: dict, shape: tuple[int, int], progress: Callable[[int, int], None] | None
) -> float:
    """Run the droplets of ``cells`` (float64, in place) on the grid ``shape`` (``coarse_shape``) and add the
    change back, bilinearly interpolated; returns what the map lost (see the module docstring)."""
    s = (max(cells.shape) - 1) / (max(shape) - 1)  # map cells per coarse cell
    small = resample_bilinear(cells, shape) / s  # in coarse cells
    start = small.copy()
    count = max(1, round(droplets * (shape[0] * shape[1]) / cells.size))
    model = _model(
        {**values, "brush_radius": _brush_cells(values, cells.shape, math.inf) * values["cell_size"],
         "cell_size": values["cell_size"] * s, "droplets": count},
        shape,
    )  # fmt: skip
    del model["droplets"]
    report = None if progress is None else lambda done, total: progress(done * droplets // total, droplets)
    _droplets(small, count, model, report)
    _kernels().settle(small, np.empty_like(small), SETTLE_PASSES)
    sums = np.empty(cells.shape[0])
    top, fy = bilinear_axis(cells.shape[0], shape[0])
    left, fx = bilinear_axis(cells.shape[1], shape[1])
    runtime.launch_blocks(_kernels().add_change, cells.shape[0], (cells, (small - start) * s, top, fy, left, fx, sums))
    return -float(sums.sum())


def _incise(cells, filled, receivers, order, area, columns, strength, sediment, lake, members, starts):
    """Stream-power incision ``dh/dt = -K·sqrt(a)·S`` for one unit of time, implicit along the stack
    (Braun & Willett 2013): receiver first, ``h' = (h + F·h_r) / (1 + F)`` with ``F = strength·sqrt(A)/d``
    (``A`` the D8 area in cells over ``filled``, the map with its hollows filled; ``d`` the distance in cells;
    ``strength = K / sqrt(r)`` for cells of ``r`` model cells: ``F = K·sqrt(a)/d'`` with ``a = A·r`` the
    catchment per unit of width and ``d' = d·r`` in model cells).
    ``h_r`` is the receiver's height, or its lake level (``filled``) when it lies in a hollow, so no cell
    falls below what its receiver may become; cells in hollows are not cut. Then the sediment runs down the
    flow, donors first; a hollow (its cells grouped by the cell outside it they drain into, ``lake``) gathers
    what reaches it and keeps part of it (``_fill_lake``), passing on the rest; what reaches an edge leaves the
    map (returned). Mass is kept."""
    size = order.shape[0]
    for i in range(size):
        node = order[i]
        sediment[node] = 0.0
        receiver = receivers[node]
        lake[node] = -1
        h = cells[node]
        if filled[node] > h:  # in a hollow: one lake with the receiver's, or draining into the receiver
            lake[node] = lake[receiver] if lake[receiver] >= 0 else receiver
            continue
        if receiver == node:
            continue
        lower = max(cells[receiver], filled[receiver])
        if h <= lower:
            continue
        diagonal = receiver // columns != node // columns and receiver % columns != node % columns
        factor = strength * math.sqrt(area[node]) * (0.7071067811865476 if diagonal else 1.0)
        new = (h + factor * lower) / (1.0 + factor)
        if not new > lower:
            new = lower
        sediment[node] = h - new
        cells[node] = filled[node] = new
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
    pool = area  # no longer needed: what each lake gathers, at its exit
    for node in range(size):
        if lake[node] >= 0:
            pool[lake[node]] = 0.0
    for i in range(size - 1, -1, -1):
        node = order[i]
        if lake[node] >= 0:
            pool[lake[node]] += sediment[node]
            continue
        if starts[node + 1] > starts[node]:  # the lake that drains here, its sediment all gathered
            sediment[node] += _fill_lake(cells, filled, members[starts[node] : starts[node + 1]], pool[node])
        receiver = receivers[node]
        if receiver == node:
            carried += sediment[node]
        else:
            sediment[receiver] += sediment[node]
    return carried


@jit
def _fill_lake(cells, filled, members, amount):
    """Let the hollow ``members`` keep ``C·I / (C + I)`` of the ``I = amount`` of sediment that reaches it,
    ``C`` the room below its lake level (``filled``): a trap efficiency that falls as the hollow fills, the
    trend of Brune's (1953) curve of trapped share over capacity/inflow, so a hollow never silts up flat in one
    step. Every cell rises by the same share of its depth below the lake level, so the hollow keeps its shape,
    only shallower (the deepest water gets most). Returns what passes on."""
    room = 0.0
    for k in range(members.shape[0]):
        room += max(0.0, filled[members[k]] - cells[members[k]])
    if not room > 0.0 or not amount > 0.0:
        return amount
    share = amount / (amount + room)  # of each cell's depth: keeps C·I / (C + I)
    placed = 0.0
    for k in range(members.shape[0]):
        cell = members[k]
        part = share * max(0.0, filled[cell] - cells[cell])
        cells[cell] += part
        placed += part
    return amount - placed


def _model_cell(shape: tuple[int, ...]) -> float:
    """``r``: the map's cell in model cells."""
    return MODEL_CELLS / (max(shape) - 1)


def _brush_cells(values: dict, shape: tuple[int, ...], most: float = MAX_BRUSH_CELLS) -> float:
    """The brush radius in cells of a map of ``shape``: ``brush_radius / cell_size`` (0: 3 model cells), within
    half a cell and ``most``."""
    radius = values["brush_radius"] / values["cell_size"] if values["brush_radius"] else 3.0 / _model_cell(shape)
    return min(max(radius, 0.5), most)


def _model(values: dict, shape: tuple[int, int]) -> dict:
    """The droplet count, the seed and the kernel's per-step constants for a map of ``shape`` cells: a step is
    one cell, ``r = MODEL_CELLS / (longer side - 1)`` model cells (see the module docstring)."""
    cells = shape[0] * shape[1]
    r = _model_cell(shape)
    droplets = values["droplets"] or round(values["droplet_density"] * cells)

    def per_step(fraction: float) -> float:
        return 1.0 - (1.0 - fraction) ** r

    return {
        "droplets": droplets,
        "seed": values["seed"],
        "steps": max(1, round(values["lifetime"] / r)),
        "inertia": values["inertia"] ** r,
        "capacity": values["capacity"] / r,
        "min_slope": values["min_slope"],
        "deposition": per_step(values["deposition"]),
        "erosion": per_step(values["erosion"]),
        "evaporation": per_step(values["evaporation"]),
        "gravity": values["gravity"] * r,
        "gullies": values["gullies"] * STREAM_POWER / math.sqrt(r),
        **dict(zip(("brush_dy", "brush_dx", "brush_w"), _brush(_brush_cells(values, shape)), strict=True)),
        "initial_water": values["initial_water"],
        "initial_speed": values["initial_speed"],
    }


def erode_thermal(heights: np.ndarray, **options: object) -> ErosionResult:
    """Thermal erosion of ``heights`` (a 2-D array); options in ``THERMAL_OPTIONS`` and ``cell_size``.
    ``ValueError``/``TypeError`` naming the option for a bad value."""
    values = _options(THERMAL_OPTIONS, options)
    cells = _cells(heights, values["cell_size"])
    before = cells.copy()
    if values["iterations"]:
        flows = np.zeros((*cells.shape, 8), dtype=np.float64)
        phase = np.zeros(1, dtype=np.int64)
        talus = math.tan(math.radians(values["talus_angle"]))
        arguments = (cells, flows, phase, talus, values["iterations"], values["rate"])
        runtime.launch_blocks(_kernels().thermal, cells.shape[0], arguments)
    return _checked(_result(before, cells, values["cell_size"], 0.0))


@jit
def _unit(h):
    """A ``uint32`` hash as a float in [0, 1)."""
    return np.float64(h) * (1.0 / 4294967296.0)


@jit
def _sample(cells, x, y):
    """Bilinear height and gradient ``(h, gx, gy)`` at ``(x, y)`` inside the map (``x`` < columns - 1)."""
    ix, iy = int(x), int(y)
    u, v = x - ix, y - iy
    h00, h10 = cells[iy, ix], cells[iy, ix + 1]
    h01, h11 = cells[iy + 1, ix], cells[iy + 1, ix + 1]
    gx = (h10 - h00) * (1.0 - v) + (h11 - h01) * v
    gy = (h01 - h00) * (1.0 - u) + (h11 - h10) * u
    h = h00 * (1 - u) * (1 - v) + h10 * u * (1 - v) + h01 * (1 - u) * v + h11 * u * v
    return h, gx, gy


@jit
def _deposit(cells, x, y, amount):
    """Add ``amount`` at ``(x, y)``, split bilinearly over the cell's four corners."""
    ix, iy = int(x), int(y)
    u, v = x - ix, y - iy
    cells[iy, ix] += amount * (1.0 - u) * (1.0 - v)
    cells[iy, ix + 1] += amount * u * (1.0 - v)
    cells[iy + 1, ix] += amount * (1.0 - u) * v
    cells[iy + 1, ix + 1] += amount * u * v


def _brush(radius: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(dy, dx, weight)`` of the cells within ``radius`` (in cells, > 0) of a cell, weights
    ``radius - distance`` > 0 (float64); the cell itself always."""
    reach = math.ceil(radius)
    dy, dx = np.mgrid[-reach : reach + 1, -reach : reach + 1]
    weight = np.maximum(0.0, radius - np.sqrt(dx * dx + dy * dy))
    keep = weight > 0.0
    return dy[keep].astype(np.int64), dx[keep].astype(np.int64), weight[keep]


@jit
def _lowest_neighbour(cells, x, y):
    """The lowest of the (up to 8) neighbours of cell ``(x, y)`` inside the map."""
    rows, columns = cells.shape
    lowest = math.inf
    for ny in range(max(y - 1, 0), min(y + 2, rows)):
        for nx in range(max(x - 1, 0), min(x + 2, columns)):
            if (nx != x or ny != y) and cells[ny, nx] < lowest:
                lowest = cells[ny, nx]
    return lowest


@jit
def _brush_total(cells, ix, iy, brush_dy, brush_dx, brush_w, reach, full):
    """The sum of the brush's weights over its cells around ``(ix, iy)`` inside the map (``full`` when the
    brush, ``reach`` cells from its centre, is all inside)."""
    rows, columns = cells.shape
    if reach <= ix < columns - reach and reach <= iy < rows - reach:
        return full
    total = 0.0
    for k in range(brush_w.shape[0]):
        x, y = ix + brush_dx[k], iy + brush_dy[k]
        if 0 <= x < columns and 0 <= y < rows:
            total += brush_w[k]
    return total


@jit
def _erode_disc(cells, ix, iy, brush_dy, brush_dx, brush_w, reach, full, amount, floor):
    """Take ``amount`` from the brush's cells around ``(ix, iy)``, by weight over the cells inside the map,
    none below ``floor``; returns what was taken (at most ``amount``)."""
    rows, columns = cells.shape
    scale = amount / _brush_total(cells, ix, iy, brush_dy, brush_dx, brush_w, reach, full)
    taken = 0.0
    for k in range(brush_w.shape[0]):
        x, y = ix + brush_dx[k], iy + brush_dy[k]
        if 0 <= x < columns and 0 <= y < rows:
            part = min(scale * brush_w[k], max(0.0, cells[y, x] - floor))
            cells[y, x] -= part
            taken += part
    return taken


@jit
def _spread(cells, ix, iy, brush_dy, brush_dx, brush_w, reach, full, amount):
    """Add ``amount`` over the brush's cells around ``(ix, iy)`` inside the map, by weight."""
    rows, columns = cells.shape
    scale = amount / _brush_total(cells, ix, iy, brush_dy, brush_dx, brush_w, reach, full)
    for k in range(brush_w.shape[0]):
        x, y = ix + brush_dx[k], iy + brush_dy[k]
        if 0 <= x < columns and 0 <= y < rows:
            cells[y, x] += scale * brush_w[k]


@jit
def _droplet(
    cells, x, y, steps, inertia, capacity, min_slope, deposition, erosion, evaporation, gravity, brush_dy, brush_dx,
    brush_w, reach, full, initial_water, initial_speed,
):  # fmt: skip
    """Run one droplet from ``(x, y)`` over ``cells`` (float64, in place) with the per-step constants of
    ``_model``. Returns the sediment it carried off the map."""
    rows, columns = cells.shape
    dx = dy = 0.0
    speed, water, sediment = initial_speed, initial_water, 0.0
    for _ in range(steps):
        h, gx, gy = _sample(cells, x, y)
        dx = dx * inertia - gx * (1.0 - inertia)
        dy = dy * inertia - gy * (1.0 - inertia)
        length = math.sqrt(dx * dx + dy * dy)
        if length == 0.0:  # flat: the droplet stops here
            break
        dx /= length
        dy /= length
        nx, ny = x + dx, y + dy
        if not (0.0 <= nx < columns - 1 and 0.0 <= ny < rows - 1):  # off the map, with its sediment
            return sediment
        delta = _sample(cells, nx, ny)[0] - h
        carry = max(-delta, min_slope) * speed * water * capacity
        if delta > 0.0 or sediment > carry:  # uphill (fill the hollow it leaves) or over capacity
            amount = min(delta, sediment) if delta > 0.0 else (sediment - carry) * deposition
            _deposit(cells, x, y, amount)
            sediment -= amount
        else:
            amount = min((carry - sediment) * erosion, -delta)
            sediment += _erode_disc(cells, int(x), int(y), brush_dy, brush_dx, brush_w, reach, full, amount, h + delta)
        speed = math.sqrt(max(0.0, speed * speed - delta * gravity))
        water *= 1.0 - evaporation
        x, y = nx, ny
    if sediment != 0.0:  # stopped: spread what it carries
        _spread(cells, int(x + 0.5), int(y + 0.5), brush_dy, brush_dx, brush_w, reach, full, sediment)
    return 0.0


def tile_width(steps: int, reach: int) -> int:
    """The side of the tiles droplets are grouped in (cells): a droplet moves at most one cell per step, and
    reads or changes cells up to ``reach + 2`` cells from where it is, so two droplets starting in tiles with a
    whole tile between them never touch the same cell."""
    return 2 * (steps + reach + 3) + 1


def _hydraulic(
    first, last, cells, span, xs, ys, order, offsets, cursor, carried, tile, seed, steps, inertia, capacity,
    min_slope, deposition, erosion, evaporation, gravity, brush_dy, brush_dx, brush_w, initial_water, initial_speed,
):  # fmt: skip
    """Run droplets ``span[0]`` to ``span[1] - 1`` over ``cells`` (float64, in place), a range kernel over the
    tiles (``tile`` cells wide, ``tile_width``) of one phase. Launched (``first < 0``), it takes the droplets in
    rounds of ``len(xs)``; for each it finds their start points (``xs``, ``ys``) and sorts them by the tile they
    start in, keeping their order (``order``, ``offsets``), then runs four phases, telling the threads which by
    ``span[2]``: the tiles at even rows and columns, even rows and odd columns, odd and even, odd and odd. A
    tile's droplets run one after another; the tiles of one phase never touch a common cell, so they run at once
    and the bits never depend on the thread count. ``carried[t]`` adds up what tile ``t``'s droplets carry off."""
    rows, columns = cells.shape
    across = (columns - 2) // tile + 1
    down = (rows - 2) // tile + 1
    reach = np.abs(brush_dy).max()
    full = brush_w.sum()
    if first < 0:  # the launch
        base = hash_seed(seed)
        for start in range(span[0], span[1], xs.shape[0]):
            end = min(start + xs.shape[0], span[1])
            offsets[:] = 0
            for droplet in range(start, end):
                state = eat(base, droplet)
                x = _unit(avalanche(state)) * (columns - 1)
                y = _unit(avalanche(eat(state, -1))) * (rows - 1)
                xs[droplet - start], ys[droplet - start] = x, y
                offsets[(int(y) // tile) * across + int(x) // tile + 1] += 1
            for t in range(across * down):
                offsets[t + 1] += offsets[t]
                cursor[t] = offsets[t]
            for k in range(end - start):
                t = (int(ys[k]) // tile) * across + int(xs[k]) // tile
                order[cursor[t]] = k
                cursor[t] += 1
            for phase in range(4):
                blocks = ((down - phase // 2 + 1) // 2) * ((across - phase % 2 + 1) // 2)
                if blocks > 0:
                    span[2] = phase
                    on_threads(blocks)
        return
    phase = span[2]
    per_row = (across - phase % 2 + 1) // 2
    for block in range(first, last):
        t = (phase // 2 + 2 * (block // per_row)) * across + phase % 2 + 2 * (block % per_row)
        for k in range(offsets[t], offsets[t + 1]):
            i = order[k]
            carried[t] += _droplet(
                cells, xs[i], ys[i], steps, inertia, capacity, min_slope, deposition, erosion, evaporation, gravity,
                brush_dy, brush_dx, brush_w, reach, full, initial_water, initial_speed,
            )  # fmt: skip


def _add_change(first, last, cells, change, top, fy, left, fx, sums):
    """Add to rows ``first`` to ``last - 1`` of ``cells`` the coarse ``change`` bilinearly interpolated, as
    ``resample_bilinear`` does (``top``, ``fy``, ``left``, ``fx``: ``bilinear_axis`` of the rows and columns);
    ``sums[y]`` gets what row ``y`` gained. A range kernel over rows."""
    if first < 0:  # the launch
        on_threads(last)
        return
    for y in range(first, last):
        t, v = top[y], fy[y]
        total = 0.0
        for x in range(cells.shape[1]):
            u = fx[x]
            upper = change[t, left[x]] * (1.0 - u) + change[t, left[x] + 1] * u
            lower = change[t + 1, left[x]] * (1.0 - u) + change[t + 1, left[x] + 1] * u
            part = upper * (1.0 - v) + lower * v
            cells[y, x] += part
            total += part
        sums[y] = total


def _settle(cells, before, passes):
    """Fill the closed one-cell hollows of ``cells`` (float64, in place) from their rims, up to ``passes`` times:
    an interior cell lower by ``d`` than the lowest of its 8 neighbours (in ``before``, a copy of ``cells``) takes
    ``d / 9`` from each of them (it ends level with the lowest; mass is kept). Returns the hollows filled."""
    rows, columns = cells.shape
    filled = 0
    for _ in range(passes):
        before[:] = cells
        found = 0
        for y in range(1, rows - 1):
            for x in range(1, columns - 1):
                h = before[y, x]
                lowest = _lowest_neighbour(before, x, y)
                if h < lowest:
                    part = (lowest - h) / 9.0
                    for ny in range(y - 1, y + 2):
                        for nx in range(x - 1, x + 2):
                            cells[ny, nx] -= part
                    cells[y, x] += 9.0 * part
                    found += 1
        filled += found
        if found == 0:
            break
    return filled


def _thermal(first, last, cells, flows, phase, talus, iterations, rate):
    """``iterations`` talus relaxation steps over ``cells`` (float64, in place), closed edges: a range kernel
    over rows. Launched (``first < 0``), it runs each step's two passes over all rows on Numba's threads, telling
    them which by ``phase[0]``: the flows out of every cell (``flows``: rows x columns x 8, all from the same
    heights), then each cell's change (its inflows minus its outflows)."""
    if first < 0:  # the launch
        for _ in range(iterations):
            phase[0] = 0
            on_threads(last)
            phase[0] = 1
            on_threads(last)
        return
    rows, columns = cells.shape
    if phase[0] == 0:
        for row in range(first, last):
            for column in range(columns):
                h = cells[row, column]
                total = 0.0
                largest = 0.0
                for k in range(8):
                    y, x = row + NEIGHBOURS[k, 0], column + NEIGHBOURS[k, 1]
                    flows[row, column, k] = 0.0
                    if 0 <= y < rows and 0 <= x < columns:
                        distance = math.sqrt(np.float64(NEIGHBOURS[k, 0] ** 2 + NEIGHBOURS[k, 1] ** 2))
                        excess = h - cells[y, x] - talus * distance
                        if excess > 0.0:
                            flows[row, column, k] = excess
                            total += excess
                            largest = max(largest, excess)
                if total > 0.0:
                    moved = rate * largest * 0.5
                    for k in range(8):
                        flows[row, column, k] *= moved / total
    else:
        for row in range(first, last):
            for column in range(columns):
                change = 0.0
                for k in range(8):
                    change -= flows[row, column, k]
                    y, x = row + NEIGHBOURS[k, 0], column + NEIGHBOURS[k, 1]
                    if 0 <= y < rows and 0 <= x < columns:
                        change += flows[y, x, 7 - k]
                cells[row, column] += change


@dataclass(frozen=True)
class _Kernels:
    hydraulic: object
    add_change: object
    incise: object
    settle: object
    thermal: object


def pit_density(heights: np.ndarray) -> float:
    """Closed one-cell hollows of ``heights`` (2-D): interior cells lower than all 8 neighbours, per 10,000
    interior cells (the measure of pitting the settling rule keeps down)."""
    inner = heights[1:-1, 1:-1]
    lower = np.ones(inner.shape, bool)
    rows, columns = heights.shape
    for dy, dx in NEIGHBOURS:
        lower &= inner < heights[1 + dy : rows - 1 + dy, 1 + dx : columns - 1 + dx]
    return float(lower.sum()) / max(inner.size, 1) * 1e4


def compile_state(kinds: tuple[str, ...] = ("hydraulic", "gullies", "thermal", "coarse")) -> str:
    """How ready the least ready kernel of ``kinds`` (``"hydraulic"``: the droplets; ``"gullies"``: the
    stream-power steps ``gullies`` > 0 adds; ``"thermal"``; ``"coarse"``: adding back the change of droplets run
    on a coarser grid, ``coarse_shape``) is, as ``noise_core.compile_state`` tells for noise: ``"compiled"`` (in
    memory), ``"cached"`` (loads from the disk cache) or ``"uncompiled"`` (the next such erosion compiles first:
    seconds). Cheap; compiles nothing."""
    kernels = _kernels()
    cells = np.zeros((3, 3))
    model = _model(_options(HYDRAULIC_OPTIONS, {}), cells.shape)
    del model["droplets"], model["seed"], model["gullies"]
    thermal = (cells, np.zeros((3, 3, 8)), np.zeros(1, np.int64), 0.5, 1, 0.5)
    index, real = np.zeros(1, np.int64), np.zeros(1)
    hydraulic = (cells, index, real, real, index, index, index, real, 1, 0, *model.values())
    coarse = (cells, cells, index, real, index, real, real)
    pairs = {
        "hydraulic": (
            (kernels.hydraulic, runtime.range_signature(kernels.hydraulic, hydraulic)),
            (kernels.settle, runtime.kernel_signature(kernels.settle, (cells, cells, SETTLE_PASSES))),
        ),
        "gullies": _stream_power_plan(kernels),
        "thermal": ((kernels.thermal, runtime.range_signature(kernels.thermal, thermal)),),
        "coarse": ((kernels.add_change, runtime.range_signature(kernels.add_change, coarse)),),
    }
    return runtime.least_ready(pair for kind in kinds for pair in pairs[kind])


def hydraulic_kinds(shape: tuple[int, ...], **options: object) -> tuple[str, ...]:
    """The ``compile_state`` kinds ``erode_hydraulic`` of a map of ``shape`` with ``options`` runs: always
    ``"hydraulic"``, ``"gullies"`` when ``gullies`` > 0, ``"coarse"`` when its droplets run on a coarser grid."""
    values = _options(HYDRAULIC_OPTIONS, options)
    coarse = coarse_shape(_brush_cells(values, shape, math.inf), shape) is not None
    return ("hydraulic",) + ("gullies",) * (values["gullies"] > 0) + ("coarse",) * coarse


def _stream_power_plan(kernels: _Kernels) -> tuple:
    """The kernels ``_stream_power_step`` runs (``hydrology``'s routing, then ``_incise``), with their types."""
    routing = flow._kernels()
    real, index, mask, small = np.zeros(9), np.zeros(9, np.int64), np.zeros(9, np.uint8), np.zeros(9, np.int8)
    calls = (
        (routing.fill, (real, 3, 3, mask, False, True, np.inf, real, np.zeros(9, np.int32), mask, index[:2])),
        (routing.receivers, (real, 3, 3, mask, False, index, small)),
        (routing.stack, (index, index, index, index, index)),
        (routing.accumulate, (index, index, real)),
        (kernels.incise, (real, real, index, index, real, 3, 0.5, real, index, index, index)),
    )
    return tuple((kernel, runtime.kernel_signature(kernel, arguments)) for kernel, arguments in calls)


@cache
def _kernels() -> _Kernels:
    """The compiled kernels, built on first use (so importing never compiles nor fixes the cache folder)."""
    return _Kernels(
        hydraulic=range_kernel(_hydraulic),
        add_change=range_kernel(_add_change),
        incise=serial_kernel(_incise),
        settle=serial_kernel(_settle),
        thermal=range_kernel(_thermal),
    )
