"""Hydraulic and thermal erosion of heightmaps.

**Hydraulic** (``erode_hydraulic``): droplets after Hans Theobald Beyer, "Implementation of a method for hydraulic
erosion" (2015), as Sebastian Lague ported it, made to carve valleys instead of filling them on real terrain
(issue 42). The droplets run in parts (``STREAM_STEPS`` with ``gullies``, else one); before each the map is
routed (``stream_power.Routing``: D8 over its Priority-Flood+ε fill, Barnes, Lehman & Mulla 2014), giving each
cell its catchment per unit of width ``a`` (model cells) and marking its lakes (cells the fill raises by more than
``LAKE_DEPTH``, relative). A droplet starts at a random point with ``initial_water`` and ``initial_speed``; each
step it reads the bilinear height ``h`` and gradient ``g`` at its position, turns ``d = d·inertia -
g·(1 - inertia)`` (normalised) and moves one cell, to a point of height ``h - δ``. It stops where its next cell is
a lake, where ``δ <= 0`` (a low point of its path: it reached the flow) or on flat ground. Its capacity is
``c = max(δ, min_slope)·speed·water·capacity·sqrt(1 + a/STREAM_AREA)``: the flow's discharge raises it, as
Nick McDonald's SimpleHydrology raises a droplet's equilibrium load with the discharge of its cell
(``source/water.h``: ``(1 + entrainment·discharge)·Δh``; there a map the droplets fill, here the routed catchment,
which droplets on parallel tiles can read without racing; its momentum map is left out), and as the pipe models
tie capacity to the flow (Mei, Decaudin & Hu 2007, "Fast hydraulic erosion simulation and visualization on GPU";
Št'ava et al. 2008, "Interactive terrain modeling using hydraulic erosion"): fast, gathered water carries more,
water that slows drops its load. Over capacity it drops ``(sediment - c)·deposition``, under capacity it takes
``min((c - sediment)·erosion, erosion₁·δ)`` (``erosion₁``: the option per model cell), both through its brush at
its true position (``_brush``: weights ``bump(dx/R)·bump(dy/R)``, ``bump(t) = (1 - t²)²``, ``R`` at least
``BRUSH_MIN`` cells, so its trace is smooth, not a comb of cells), no cell moving more than halfway to ``h - δ``
(a deposit never raises ground above where the water flows on, so it never dams a channel; none goes into a
lake). Then ``speed = sqrt(speed² + δ·gravity)`` and ``water *= 1 - evaporation``. What a droplet still carries
when it stops joins the flow at its cell (``load``); after the part the flow carries it down
(``stream_power.route_sediment``): lakes keep a share (``E·C·I/(C + I)``, ``E`` = their share of their catchment,
``SETTLING``), the flow drops what it cannot carry where it runs (capacity ``carrying·A·sqrt(1 + a/STREAM_AREA)·S``,
``carrying`` the droplets' ``capacity`` per cell of the part), never damming anything, and the rest leaves over
the edges (``carried_off``). Nothing vanishes.

*The same at any resolution.* Beyer's constants are per step of one cell, so the same terrain sampled finer
eroded less, and a fixed droplet count spread thinner. Here the constants are per **model cell**,
``1/MODEL_CELLS`` of the map's longer side (whatever its resolution); a map whose cells are ``r`` model cells
(``r = 1024 / (longer side - 1)``) takes steps of one cell with ``lifetime / r`` steps, ``inertia^r``,
``1 - (1 - f)^r`` for ``f`` = erosion, deposition and evaporation, ``gravity·r``, and ``capacity / r`` (a
droplet stands for the rain on its share of the map, ``r²`` model cells, measured in cells³). The number of
droplets is ``droplet_density`` per cell (``droplets`` overrides it), and ``brush_radius`` is in the heights'
unit (0: 3 model cells, at least ``BRUSH_MIN`` cells). A droplet takes at most ``erosion`` of the drop per model
cell it travels; catchments, valley widths and the lakes' shares are in model cells too. So the sediment moved
per unit of area, and where, depend on the terrain's shape, not on its resolution (tested: 257² against 513² of
one terrain; 513² against 1025² in ``scripts/bench_erosion.py``).

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
``model_size`` (``multiscale.MODEL_SIZE``) sets that grid instead: its longer side in cells
(``multiscale.model_shape``), the brush as many of its cells as fit, at least ``BRUSH_MIN``; a map built at
that size is then the preview of the larger one (``tests/test_multiscale.py``).

*No pits.* After the droplets, sediment settles into closed one-cell hollows: every interior cell lower by
``d`` than the lowest of its 8 neighbours takes ``d / 9`` from each of them (it ends level with the lowest, the
rim stays above it, mass is kept), repeated up to ``SETTLE_PASSES`` times (tested: pit density after default
erosion within 1.5 x before + 5 per 10,000 cells). ``depressions`` measures closed basins of any size.

*Gullies* (``gullies`` > 0): rivers cut between the parts of the droplets. After each part comes one step of
stream-power incision, ``∂h/∂t = -K·a^0.5·S`` (Howard 1994, "A detachment-limited model of drainage basin
evolution") for one unit of time, ``K = STREAM_POWER·gullies``, ``S`` the slope to the D8 receiver, solved
implicitly along the flow as Braun & Willett 2013 do, by ``stream_power.incise`` (the solver ``erode_fluvial``
uses) with lakes kept: a lake cell is not cut, a receiver in a lake counts at its spill level, the sill a lake
drains over is cut with ``1 - E`` of ``K`` (the share its lake lets through: a river cuts with the load it
carries, Sklar & Dietrich 2001, "Sediment and rock strength controls on river incision into bedrock"), and no cell
beside a lake is cut below its level minus ``SILL_SHARE`` of the lake's depth there, so a step drains a lake by at
most that share. A river cuts a valley, not a notch: what the solver takes from a cell is taken from the cells
within ``WIDE·min(1, sqrt(a/WIDE_AREA))`` model cells of it (a channel widens as the square root of its
discharge: Leopold & Maddock 1953, "The hydraulic geometry of stream channels"), each at most halfway down to the
cell it drains into (``stream_power._widen``). The sediment cut joins the droplets' load down the flow. Each step
is serial, so the bits still do not depend on the thread count; droplets on a coarser grid have their steps there
too (``strength`` per grid, ``_model``).

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
count). The map's edges are closed: no material leaves. A step changes a cell from the cells within 2 of it, so
a map whose flows pass ``THERMAL_BAND`` cells runs in bands of rows, each with ``2·iterations`` rows of halo
(the same bits, in bounded memory).

Both return an ``ErosionResult``: the new heights (float32; the input is not changed), the masks
``erosion = max(0, before - after)`` and ``deposition = max(0, after - before)`` per cell, and their totals,
with ``carried_off`` (what droplets took over the edges): ``eroded - deposited = carried_off`` up to float
rounding, and the deposition's depth as ``sediment`` (hydraulic) or ``talus`` (thermal) for the material layers
(``layers.deposits``). The work runs in float64 and is rounded to float32 once at the end.

*Rock of varying hardness* (``erodibility=``, a map of multipliers in ``(0, MAX_ERODIBILITY]``, e.g.
``layers.erodibility`` of ``layers.strata``): a droplet takes ``erodibility`` times as much from the cell it is on,
and a cell's talus slope is ``tan(talus_angle) / erodibility``: hard bands stand steep, soft ones slump, and a
slope breaks into cliffs and benches (Forte, Yanites & Whipple 2016). Without it (or with ones) the bits are
today's.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .. import runtime
from .._jit import jit, kernel_table
from ..hashing import avalanche, eat, hash_seed
from ..schema import Option, choice
from ..threads import on_threads
from . import flow, multiscale, stream_power
from .heightfield import CELL_SIZE, NEIGHBOURS, check_heights, check_mask
from .resample import resample_bilinear
from .stream_power import brush_extent, bump

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
STREAM_POWER = 0.02
"""The erodibility ``K`` of those steps per unit of ``gullies`` (catchment in model cells, one unit of time)."""
STREAM_AREA = 30.0
"""The catchment per unit of width (model cells, the droplets' ``lifetime``) from which the flow counts as a
stream: a droplet's capacity is ``sqrt(1 + a/STREAM_AREA)`` times Beyer's (``_prepare``)."""
BRUSH_MIN = 1.5
"""The narrowest brush, in cells: a bump narrower than that at a droplet's true position would land on one or two
cells, a comb a cell wide."""
SETTLING = 1.0
"""A lake keeps the share ``min(1, SETTLING·cells / catchment)`` of the sediment that can settle in it: the water
it gathers passes over its surface, and sediment settles in proportion to the surface the flow crosses (the
overflow rate of an ideal settling basin, Hazen 1904, "On sedimentation"; Camp 1946, "Sedimentation and the design
of settling tanks"), taken with a settling rate equal to the rain's."""
LAKE_DEPTH = 1e-9
"""A cell is in a lake when the fill raises it by more than this, relative to ``1 + |height|`` (flats, which
Priority-Flood+ε slopes by float steps, are not lakes)."""
WIDE = 5.0
"""The widest valley a gullies step cuts around a cell, in model cells (its half-width)."""
WIDE_AREA = 30.0
"""The catchment per unit of width (model cells) from which a gullies step cuts its widest valley; narrower as the
square root of the catchment below it."""
SILL_SHARE = 0.25
"""A gullies step cuts no cell beside a lake below the lake's level minus this share of its depth there."""
"""The narrowest brush, in cells: a narrower bump at a droplet's true position could miss every cell."""
THERMAL_BAND = 1 << 22
"""Cells whose flows thermal erosion holds at once (8 float64 each: 256 MB); a larger map runs in bands of rows
(``_thermal_bands``), with the same bits."""
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
    Option("erosion", float, 0.1, "Fraction of the free capacity, and at most of the drop, taken from the ground "
           "per model cell", minimum=0.0, maximum=1.0),
    Option("evaporation", float, 0.01, "Fraction of the water lost per model cell", minimum=0.0, maximum=1.0),
    Option("gravity", float, 4.0, "Acceleration along the slope", minimum=0.0, maximum=1000.0, soft_maximum=20.0),
    Option("brush_radius", float, 0.0, "Radius of the disc a droplet erodes, in the heights' unit (0: 3 model "
           "cells)", minimum=0.0, maximum=1e30, soft_maximum=1.0),
    Option("gullies", float, 0.0, "Rivers cut between batches of droplets: stream-power erodibility 0.02 x "
           "gullies (0: off)", minimum=0.0, maximum=100.0, soft_maximum=16.0),
    Option("initial_water", float, 1.0, "Water of a new droplet", minimum=0.0, above=True, maximum=1000.0,
           ui_minimum=1e-3, soft_maximum=10.0),
    Option("initial_speed", float, 1.0, "Speed of a new droplet", minimum=0.0, maximum=1000.0, soft_maximum=10.0),
    multiscale.MODEL_SIZE,
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
    over the edges (0 for thermal erosion). ``kind``: ``"hydraulic"`` (droplets, their gullies and the flow lay
    sediment), ``"thermal"`` (what slides lies as talus) or ``"stages"`` (several run one after another);
    ``sediment`` and ``talus`` (float32, >= 0, the heights' unit): how deep each loose material lies per cell after
    the run, by default the deposition as the ``kind``'s material and 0 of the other (``layers.deposits`` stacks
    stages, and gives them for ``"stages"``)."""

    heights: np.ndarray
    erosion: np.ndarray
    deposition: np.ndarray
    eroded: float
    deposited: float
    carried_off: float
    kind: str = "hydraulic"
    sediment: np.ndarray = None  # type: ignore[assignment]
    talus: np.ndarray = None  # type: ignore[assignment]

    def __post_init__(self) -> None:
        choice("kind", self.kind, EROSION_KINDS)
        for name, own in (("sediment", "hydraulic"), ("talus", "thermal")):
            if getattr(self, name) is None:
                object.__setattr__(self, name, self.deposition if self.kind == own else np.zeros_like(self.deposition))


EROSION_KINDS = ("hydraulic", "thermal", "stages")


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


def _result(
    before: np.ndarray, after: np.ndarray, scale: float, carried_off: float, kind: str = "hydraulic"
) -> ErosionResult:
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
        kind=kind,
    )


def erode_hydraulic(
    heights: np.ndarray,
    progress: Callable[[int, int], None] | None = None,
    *,
    erodibility: np.ndarray | None = None,
    **options: object,
) -> ErosionResult:
    """Hydraulic (droplet) erosion of ``heights`` (a 2-D array, rows along y); options in ``HYDRAULIC_OPTIONS``
    and ``cell_size``. ``erodibility`` (optional, a map of the heights' shape, ``check_erodibility``) scales what
    a droplet takes from the ground on each cell (harder rock: less; rock layers, ``layers.strata``; the gullies'
    stream-power steps keep their own rate). ``progress(done, total)`` is called after each batch of droplets.
    ``ValueError``/``TypeError`` naming the option for a bad value."""
    values = _options(HYDRAULIC_OPTIONS, options)
    cells = _cells(heights, values["cell_size"])
    hard = np.ones(1) if erodibility is None else check_erodibility(erodibility, cells.shape)
    before = cells.copy()
    model = _model(values, cells.shape)
    droplets = model.pop("droplets")
    coarse = _grid(values, cells.shape) if droplets else None
    if coarse is None:
        carried_off = _droplets(cells, droplets, model, progress, hard)
    else:
        carried_off = _droplets_coarse(cells, droplets, values, coarse, progress, hard)
    if droplets:
        _kernels().settle(cells, np.empty_like(cells), SETTLE_PASSES)
    return _checked(_result(before, cells, values["cell_size"], carried_off))


def _droplets(
    cells: np.ndarray,
    droplets: int,
    model: dict,
    progress: Callable[[int, int], None] | None,
    hard: np.ndarray,
) -> float:
    """Run ``droplets`` droplets with the per-step constants ``model`` (``_model`` without its count) over
    ``cells`` (float64, C-contiguous, in place), in batches of whole rounds, in parts (``STREAM_STEPS`` with
    gullies, else one). The map is routed before the first part and after each (``_Flow.route``); after each
    part its flow carries what the part's droplets handed over, with gullies after one stream-power step
    (``_Flow.carry``), and the next part's droplets read that routing. ``hard``: the erodibility (``_droplet``; one
    value, or a map of ``cells``' shape). Returns the sediment carried off the map."""
    if droplets == 0:
        return 0.0
    if not cells.flags.c_contiguous:
        raise AssertionError("erosion: the droplets' map must be C-contiguous (its flat view is routed)")
    kernels = _kernels()
    tile = tile_width(model["steps"], math.ceil(model["radius"]) + 1)
    tiles = ((cells.shape[0] - 2) // tile + 1) * ((cells.shape[1] - 2) // tile + 1)
    span = np.zeros(3, dtype=np.int64)
    carried = np.zeros(tiles, dtype=np.float64)
    work = model["steps"] * (2 * math.ceil(model["radius"])) ** 2  # brush cells touched per droplet, at most
    size = min(max(min(ROUND_PER_TILE * tiles, BATCH_WORK // work), ROUNDS[0]), ROUNDS[1])
    scratch = (np.empty(size), np.empty(size), np.empty(size, np.int64), np.empty(tiles + 1, np.int64),
               np.empty(tiles, np.int64), carried, tile, model["seed"])  # fmt: skip
    constants = [value for name, value in model.items() if name not in ("seed", "gullies")]
    batch = size * max(1, min(-(-droplets // (BATCHES * size)), BATCH_WORK // (work * size)))
    batches = -(-droplets // batch)
    parts = STREAM_STEPS if model["gullies"] > 0.0 else 1
    flow_ = _Flow(cells.shape)
    flow_.route(cells)
    flat = np.ascontiguousarray(hard).reshape(-1)
    carried_off = 0.0
    for part in range(parts):
        first_batch, end_batch = part * batches // parts, (part + 1) * batches // parts
        for index in range(first_batch, end_batch):
            first, last = index * batch, min((index + 1) * batch, droplets)
            span[:2] = first, last
            arguments = (cells, flow_.stream, flow_.load, flat, stream_power.index_mask(flat), span, *scratch,
                         *constants)  # fmt: skip
            runtime.launch_blocks(kernels.hydraulic, 1, arguments)
            if progress is not None:
                progress(last, droplets)
        flow_.route(cells)  # the map as these droplets left it
        done = min(end_batch * batch, droplets) - min(first_batch * batch, droplets)
        carrying = done / cells.size * model["capacity"]
        carried_off += flow_.carry(cells, model["gullies"], carrying, model["deposition"], model["radius"],
                                   WIDE / _model_cell(cells.shape))  # fmt: skip
    return carried_off + float(carried.sum())


class _Flow:
    """The flow of a map between parts of the droplets: its Priority-Flood+ε fill, the D8 routing over it
    (``stream_power.Routing``), its lakes and the map droplets read (``_prepare``), and the sediment the droplets
    hand over (``load``)."""

    def __init__(self, shape: tuple[int, int]) -> None:
        size = shape[0] * shape[1]
        self.shape = shape
        self.edges = flow._edges(shape)
        self.routing = stream_power.Routing(shape, self.edges, False, np.ones(1))
        self.filled, self.level, self.cut = np.empty(size), np.empty(size), np.zeros(size)
        self.stream, self.load = np.empty(shape), np.zeros(shape)
        self._scratch = (np.empty(size, np.int32), np.empty(size, np.int32), np.empty(size + 1, np.int64),
                         np.empty(size), np.empty(size))  # fmt: skip

    def route(self, cells: np.ndarray) -> None:
        """Route ``cells`` (C-contiguous) as they are, over their fill, and mark their lakes."""
        flat = cells.reshape(-1)
        self.filled[:] = flat
        flow.fill_flat(self.filled, self.shape, self.edges, False, True)
        routing = self.routing
        routing.step(self.filled, None)
        _kernels().prepare(flat, self.filled, routing.area, _model_cell(self.shape) / STREAM_AREA,
                           self.stream.reshape(-1), self.level)  # fmt: skip

    def carry(
        self, cells: np.ndarray, strength: float, carrying: float, deposition: float, radius: float, wide: float
    ) -> float:
        """Along the flow of the last ``route``: with ``strength`` > 0 one stream-power step (``stream_power.incise``
        with lakes; ``_model``'s ``gullies``) cutting valleys up to ``wide`` cells wide (0: the flow's cell only),
        then what it cut and what the droplets handed over carried down, through the lakes, spreading what the
        flow cannot carry (``carrying``, ``deposition``, ``radius``: ``stream_power.route_sediment``'s) where it
        runs; returns what left the map."""
        flat = cells.reshape(-1)
        routing = self.routing
        kernels = stream_power._kernels()
        if strength > 0.0:
            kernels.incise(flat, routing.receivers, routing.codes, routing.order, routing.area, strength, SETTLING,
                           SILL_SHARE, self.level, self.cut, self.shape[1], wide,
                           _model_cell(self.shape) / WIDE_AREA)  # fmt: skip
        sediment = self.load.reshape(-1)
        if strength > 0.0:
            sediment += self.cut
        return float(kernels.sediment(
            flat, self.level, routing.receivers, routing.codes, routing.order, routing.area, SETTLING, carrying,
            _model_cell(self.shape) / STREAM_AREA, deposition, radius, self.shape[1], sediment, *self._scratch,
        ))  # fmt: skip


def _prepare(h, filled, area, per_cell, stream, level):
    """The lakes of ``h`` (cells its fill ``filled`` raises by more than ``LAKE_DEPTH``, relative: not the flats
    Priority-Flood+ε slopes by float steps): ``level`` = their spill level there, ``-inf``
    elsewhere; ``stream``: 0 in a lake, else ``sqrt(1 + a / STREAM_AREA)``, ``a = area·r`` the catchment per unit
    of width in model cells (``per_cell`` = ``r / STREAM_AREA``)."""
    for c in range(h.shape[0]):
        if filled[c] - h[c] > LAKE_DEPTH * (1.0 + abs(filled[c])):
            level[c] = filled[c]
            stream[c] = 0.0
        else:
            level[c] = -np.inf
            stream[c] = math.sqrt(1.0 + area[c] * per_cell)


def _stream_power_step(cells: np.ndarray, strength: float) -> float:
    """One gullies step over ``cells`` (float64, C-contiguous, in place) on its own: routing, one implicit
    stream-power step of erodibility ``strength`` (``_model``'s ``gullies``), and the cut sediment carried down the
    flow through the lakes; returns what left the map."""
    flow_ = _Flow(cells.shape)
    flow_.route(cells)
    return flow_.carry(cells, strength, 0.0, 0.0, 0.0, 0.0)


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


def _grid(values: dict, shape: tuple[int, ...]) -> tuple[int, int] | None:
    """The grid the droplets run on: ``model_size``'s (``multiscale.model_shape``), or with 0 the brush's
    (``coarse_shape``); ``None``: the map's own cells."""
    if values["model_size"]:
        return multiscale.model_shape(shape, values["model_size"])
    return coarse_shape(_brush_cells(values, shape, math.inf), shape)


def _droplets_coarse(
    cells: np.ndarray,
    droplets: int,
    values: dict,
    shape: tuple[int, int],
    progress: Callable[[int, int], None] | None,
    hard: np.ndarray,
) -> float:
    """Run the droplets of ``cells`` (float64, in place) on the grid ``shape`` (``coarse_shape``, the erodibility
    ``hard`` resampled to it when a map) and add the change back, bilinearly interpolated; returns what the map
    lost (see the module docstring)."""
    s = (max(cells.shape) - 1) / (max(shape) - 1)  # map cells per coarse cell
    small = np.ascontiguousarray(resample_bilinear(cells, shape) / s)  # in coarse cells
    start = small.copy()
    count = max(1, round(droplets * (shape[0] * shape[1]) / cells.size))
    model = _model(
        {**values, "brush_radius": _brush_cells(values, cells.shape, math.inf) * values["cell_size"],
         "cell_size": values["cell_size"] * s, "droplets": count},
        shape,
    )  # fmt: skip
    del model["droplets"]
    report = None if progress is None else lambda done, total: progress(done * droplets // total, droplets)
    coarse_hard = hard if hard.size == 1 else np.ascontiguousarray(resample_bilinear(hard, shape))
    _droplets(small, count, model, report, coarse_hard)
    _kernels().settle(small, np.empty_like(small), SETTLE_PASSES)
    return -multiscale.add_change(cells, (small - start) * s)


def _model_cell(shape: tuple[int, ...]) -> float:
    """``r``: the map's cell in model cells."""
    return MODEL_CELLS / (max(shape) - 1)


def _brush_cells(values: dict, shape: tuple[int, ...], most: float = MAX_BRUSH_CELLS) -> float:
    """The brush radius in cells of a map of ``shape``: ``brush_radius / cell_size`` (0: 3 model cells), within
    ``BRUSH_MIN`` and ``most``."""
    radius = values["brush_radius"] / values["cell_size"] if values["brush_radius"] else 3.0 / _model_cell(shape)
    return min(max(radius, BRUSH_MIN), most)


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
        "cutting": values["erosion"],
        "evaporation": per_step(values["evaporation"]),
        "gravity": values["gravity"] * r,
        "gullies": values["gullies"] * STREAM_POWER / math.sqrt(r),
        "radius": _brush_cells(values, shape),
        "initial_water": values["initial_water"],
        "initial_speed": values["initial_speed"],
    }


def erode_thermal(heights: np.ndarray, *, erodibility: np.ndarray | None = None, **options: object) -> ErosionResult:
    """Thermal erosion of ``heights`` (a 2-D array); options in ``THERMAL_OPTIONS`` and ``cell_size``.
    ``erodibility`` (optional, a map of the heights' shape, ``check_erodibility``): harder rock stands steeper,
    the talus slope of a cell is ``tan(talus_angle) / erodibility`` (at most ``tan(MAX_TALUS)``; rock layers,
    ``layers.strata``). ``ValueError``/``TypeError`` naming the option for a bad value."""
    values = _options(THERMAL_OPTIONS, options)
    cells = _cells(heights, values["cell_size"])
    talus = np.full(1, math.tan(math.radians(values["talus_angle"])))
    if erodibility is not None:
        factor = check_erodibility(erodibility, cells.shape).reshape(-1)
        talus = np.minimum(talus[0] / factor, math.tan(math.radians(MAX_TALUS)))
    before = cells.copy()
    if values["iterations"]:
        cells = _thermal_bands(cells, talus, values["iterations"], values["rate"])
    return _checked(_result(before, cells, values["cell_size"], 0.0, "thermal"))


MAX_ERODIBILITY = 100.0
"""The largest erodibility multiplier the eroders take (a rock a hundred times softer than the default)."""
MAX_TALUS = 89.0
"""The steepest talus angle a hard cell gets, in degrees."""


def check_erodibility(erodibility: object, shape: tuple[int, ...]) -> np.ndarray:
    """``erodibility``, a map of ``shape`` of multipliers in ``(0, MAX_ERODIBILITY]`` (1: the eroder's own rates,
    smaller: harder rock), as C-contiguous float64; ``TypeError``/``ValueError`` naming ``erodibility``."""
    values = flow.check_weights(erodibility, shape, "erodibility")
    if values.size and not (values.min() > 0.0 and values.max() <= MAX_ERODIBILITY):
        raise ValueError(f"erodibility: must be in (0, {MAX_ERODIBILITY:g}] in every cell, got {values.min():g} .. "
                         f"{values.max():g}")  # fmt: skip
    return np.ascontiguousarray(values)


def _thermal_bands(cells: np.ndarray, talus: np.ndarray, iterations: int, rate: float) -> np.ndarray:
    """``iterations`` talus steps of ``cells`` (float64; ``talus``: ``_thermal``'s, one value or one per cell): at
    once when its flows fit ``THERMAL_BAND`` cells, else in bands of rows, each with a halo of ``2·iterations``
    rows on either side (a step changes a cell from the heights within 2 cells, so the halo's own edge, closed,
    reaches no row of the band): the same bits."""
    rows, columns = cells.shape
    halo = 2 * iterations
    band = max(THERMAL_BAND // columns, 2 * halo, 1)
    phase = np.zeros(1, dtype=np.int64)
    mask = stream_power.index_mask(talus)
    if band >= rows:
        flows = np.zeros((rows, columns, 8), dtype=np.float64)
        runtime.launch_blocks(_kernels().thermal, rows, (cells, flows, phase, talus, mask, iterations, rate))
        return cells
    result = np.empty_like(cells)
    flows = np.zeros((min(rows, band + 2 * halo), columns, 8), dtype=np.float64)
    for first in range(0, rows, band):
        last = min(first + band, rows)
        top, bottom = max(0, first - halo), min(rows, last + halo)
        part = cells[top:bottom].copy()
        steepest = talus if talus.size == 1 else np.ascontiguousarray(talus[top * columns : bottom * columns])
        runtime.launch_blocks(_kernels().thermal, bottom - top,
                              (part, flows[: bottom - top], phase, steepest, mask, iterations, rate))  # fmt: skip
        result[first:last] = part[first - top : last - top]
    return result


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
def _brush(cells, stream, x, y, radius, amount, limit, sign):
    """Move ``amount`` at ``(x, y)`` through the brush, cell ``(i, j)`` weighted by
    ``bump((i - x)/radius)·bump((j - y)/radius)`` normalised over the cells inside the map: taken (``sign`` < 0)
    or added (``sign`` > 0; none in a lake: ``stream`` 0; a lake takes its share through the flow, ``_Flow.carry``),
    no cell moving more than halfway to ``limit`` (so none is levelled with it). Returns what was moved."""
    rows, columns = cells.shape
    left, right, top, bottom, inverse, across, down = brush_extent(x, y, radius, rows, columns)
    if not across * down > 0.0:
        return 0.0
    scale = amount / (across * down)
    moved = 0.0
    for j in range(top, bottom):
        row = scale * bump((j - y) * inverse)
        for i in range(left, right):
            share = row * bump((i - x) * inverse)
            if sign > 0.0 and stream[j, i] == 0.0:
                continue
            h = cells[j, i]
            part = min(share, 0.5 * max(0.0, h - limit if sign < 0.0 else limit - h))
            cells[j, i] = h - part if sign < 0.0 else h + part
            moved += part
    return moved


@jit
def _droplet(
    cells, stream, load, hard, mask, x, y, steps, inertia, capacity, min_slope, deposition, erosion, cutting,
    evaporation, gravity, radius, initial_water, initial_speed,
):  # fmt: skip
    """Run one droplet from ``(x, y)`` over ``cells`` (float64, in place) with the per-step constants of
    ``_model``, reading the flow factor (0 in lakes) from ``stream``; what it carries when its run ends is added
    to ``load`` at its cell. What it takes from the ground is scaled by the erodibility ``hard[cell & mask]`` of
    the cell it is on (``mask`` 0: one value for all). Returns the sediment it carried off the map."""
    rows, columns = cells.shape
    dx = dy = 0.0
    speed, water, sediment = initial_speed, initial_water, 0.0
    for _ in range(steps):
        h, gx, gy = _sample(cells, x, y)
        dx = dx * inertia - gx * (1.0 - inertia)
        dy = dy * inertia - gy * (1.0 - inertia)
        length = math.sqrt(dx * dx + dy * dy)
        if length == 0.0:  # flat: the water stays here
            break
        dx /= length
        dy /= length
        nx, ny = x + dx, y + dy
        if not (0.0 <= nx < columns - 1 and 0.0 <= ny < rows - 1):  # off the map, with its sediment
            return sediment
        factor = stream[int(ny + 0.5), int(nx + 0.5)]
        below = _sample(cells, nx, ny)[0]
        drop = h - below
        if factor == 0.0 or not drop > 0.0:  # into a lake, or at a low point of its path: it joins the flow
            break
        carry = max(drop, min_slope) * speed * water * capacity * factor
        if sediment > carry:  # over capacity: drop some, filling only what lies below where it flows to
            sediment -= _brush(cells, stream, x, y, radius, (sediment - carry) * deposition, below, 1.0)
        else:  # take a share of the free capacity and at most ``cutting`` of the drop, none below where it flows to
            here = (int(y + 0.5) * columns + int(x + 0.5)) & mask
            taken = min(erosion * (carry - sediment), cutting * drop) * hard[here]
            sediment += _brush(cells, stream, x, y, radius, taken, below, -1.0)
        speed = math.sqrt(speed * speed + drop * gravity)
        water *= 1.0 - evaporation
        x, y = nx, ny
    if sediment != 0.0:  # its water joins the flow, which carries what it still holds (``_Flow.finish``)
        load[int(y + 0.5), int(x + 0.5)] += sediment
    return 0.0


def tile_width(steps: int, reach: int) -> int:
    """The side of the tiles droplets are grouped in (cells): a droplet moves at most one cell per step, and
    reads or changes cells up to ``reach + 2`` cells from where it is, so two droplets starting in tiles with a
    whole tile between them never touch the same cell."""
    return 2 * (steps + reach + 3) + 1


def _hydraulic(
    first, last, cells, stream, load, hard, mask, span, xs, ys, order, offsets, cursor, carried, tile, seed, steps,
    inertia, capacity, min_slope, deposition, erosion, cutting, evaporation, gravity, radius, initial_water,
    initial_speed,
):  # fmt: skip
    """Run droplets ``span[0]`` to ``span[1] - 1`` over ``cells`` (float64, in place), a range kernel over the
    tiles (``tile`` cells wide, ``tile_width``) of one phase. Launched (``first < 0``), it takes the droplets in
    rounds of ``len(xs)``; for each it finds their start points (``xs``, ``ys``) and sorts them by the tile they
    start in, keeping their order (``order``, ``offsets``), then runs four phases, telling the threads which by
    ``span[2]``: the tiles at even rows and columns, even rows and odd columns, odd and even, odd and odd. A
    tile's droplets run one after another; the tiles of one phase never touch a common cell, so they run at once
    and the bits never depend on the thread count. ``carried[t]`` adds up what tile ``t``'s droplets carry off;
    ``stream``, ``load``, ``hard`` and ``mask``: ``_droplet``'s."""
    rows, columns = cells.shape
    across = (columns - 2) // tile + 1
    down = (rows - 2) // tile + 1
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
                cells, stream, load, hard, mask, xs[i], ys[i], steps, inertia, capacity, min_slope, deposition, erosion,
                cutting, evaporation, gravity, radius, initial_water, initial_speed,
            )  # fmt: skip


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


def _thermal(first, last, cells, flows, phase, talus, mask, iterations, rate):
    """``iterations`` talus relaxation steps over ``cells`` (float64, in place), closed edges: a range kernel
    over rows. ``talus[cell & mask]``: the tangent of the talus angle (one value, ``mask`` 0, or one per cell,
    ``mask`` -1: ``stream_power.index_mask``). Launched (``first < 0``), it runs each step's two passes over all
    rows on Numba's threads, telling them which by ``phase[0]``: the flows out of every cell (``flows``: rows x
    columns x 8, all from the same heights), then each cell's change (its inflows minus its outflows)."""
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
                steepest = talus[(row * columns + column) & mask]
                total = 0.0
                largest = 0.0
                for k in range(8):
                    y, x = row + NEIGHBOURS[k, 0], column + NEIGHBOURS[k, 1]
                    flows[row, column, k] = 0.0
                    if 0 <= y < rows and 0 <= x < columns:
                        distance = math.sqrt(np.float64(NEIGHBOURS[k, 0] ** 2 + NEIGHBOURS[k, 1] ** 2))
                        excess = h - cells[y, x] - steepest * distance
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


def pit_density(heights: np.ndarray) -> float:
    """Closed one-cell hollows of ``heights`` (2-D): interior cells lower than all 8 neighbours, per 10,000
    interior cells (the measure of pitting the settling rule keeps down)."""
    inner = heights[1:-1, 1:-1]
    lower = np.ones(inner.shape, bool)
    rows, columns = heights.shape
    for dy, dx in NEIGHBOURS:
        lower &= inner < heights[1 + dy : rows - 1 + dy, 1 + dx : columns - 1 + dx]
    return float(lower.sum()) / max(inner.size, 1) * 1e4


def depressions(
    heights: np.ndarray, *, outlets: np.ndarray | None = None, min_cells: int = 1
) -> tuple[float, float, float]:
    """The closed depressions of ``heights`` (2-D): the cells its Priority-Flood fill (Barnes, Lehman & Mulla
    2014; the map's edges and ``outlets``, a boolean map, drain) raises, grouped into basins of 8-connected cells,
    counting the basins of at least ``min_cells`` cells. Returns ``(share, deepest, mean_depth)``: the fraction of
    the map's cells in them, the largest depth below the spill level and the mean depth over their cells (0 when
    there are none); depths in the heights' unit. Unlike ``pit_density`` it sees basins of any size."""
    checked = check_heights(heights)
    shape = (int(checked.shape[0]), int(checked.shape[1]))
    if isinstance(min_cells, bool) or not isinstance(min_cells, (int, np.integer)) or min_cells < 1:
        raise ValueError(f"min_cells: expected a whole number >= 1, got {min_cells!r}")
    drains = flow._edges(shape)
    if outlets is not None:
        drains |= check_mask("outlets", outlets, shape).reshape(-1)
    values = np.array(checked, dtype=np.float64).reshape(-1)
    filled = values.copy()
    flow.fill_flat(filled, shape, drains, False, False)
    cells, deepest, total = flow.depression_basins(filled - values, shape, int(min_cells))
    return cells / values.size, deepest, total / cells if cells else 0.0


def compile_state(kinds: tuple[str, ...] = ("hydraulic", "gullies", "thermal", "coarse")) -> str:
    """How ready the least ready kernel of ``kinds`` (``"hydraulic"``: the droplets; ``"gullies"``: the
    stream-power steps ``gullies`` > 0 adds; ``"thermal"``; ``"coarse"``: adding back the change of droplets run
    on a coarser grid, ``coarse_shape``) is, as ``noise_core.compile_state`` tells for noise: ``"compiled"`` (in
    memory), ``"cached"`` (loads from the disk cache) or ``"uncompiled"`` (the next such erosion compiles first:
    seconds). Cheap; compiles nothing."""
    kernels = _kernels()
    add_kernel = multiscale._kernels().add_change
    cells = np.zeros((3, 3))
    model = _model(_options(HYDRAULIC_OPTIONS, {}), cells.shape)
    del model["droplets"], model["seed"], model["gullies"]
    thermal = (cells, np.zeros((3, 3, 8)), np.zeros(1, np.int64), np.ones(1), 0, 1, 0.5)
    index, real, flat = np.zeros(1, np.int64), np.zeros(1), np.zeros(9)
    hydraulic = (cells, cells, cells, real, 0, index, real, real, index, index, index, real, 1, 0, *model.values())
    coarse = (cells, cells, index, real, index, real, real)
    pairs = {
        "hydraulic": (
            (kernels.hydraulic, runtime.range_signature(kernels.hydraulic, hydraulic)),
            (kernels.prepare, runtime.kernel_signature(kernels.prepare, (flat, flat, flat, 1.0, flat, flat))),
            (kernels.settle, runtime.kernel_signature(kernels.settle, (cells, cells, SETTLE_PASSES))),
            *stream_power.plan(lakes=False),
        ),
        "gullies": stream_power.plan(lakes=True),
        "thermal": ((kernels.thermal, runtime.range_signature(kernels.thermal, thermal)),),
        "coarse": ((add_kernel, runtime.range_signature(add_kernel, coarse)),),
    }
    return runtime.least_ready(pair for kind in kinds for pair in pairs[kind])


def hydraulic_kinds(shape: tuple[int, ...], **options: object) -> tuple[str, ...]:
    """The ``compile_state`` kinds ``erode_hydraulic`` of a map of ``shape`` with ``options`` runs: always
    ``"hydraulic"``, ``"gullies"`` when ``gullies`` > 0, ``"coarse"`` when its droplets run on a coarser grid."""
    values = _options(HYDRAULIC_OPTIONS, options)
    coarse = _grid(values, shape) is not None
    return ("hydraulic",) + ("gullies",) * (values["gullies"] > 0) + ("coarse",) * coarse


_kernels = kernel_table(
    serial={"prepare": _prepare, "settle": _settle},
    ranged=(_hydraulic, _thermal),
)
"""The compiled kernels, built on first use."""
