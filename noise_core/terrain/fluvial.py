"""Fluvial erosion: rivers carving drainage networks by the stream power law.

``erode_fluvial`` solves ``∂h/∂t = U - K·A^m·S^n + D·∇²h`` (uplift ``U``, erodibility ``K``, drainage area ``A``,
slope ``S`` to the D8 receiver, hillslope diffusivity ``D``) with the implicit scheme of Braun & Willett 2013
("A very efficient O(n), implicit and parallel method to solve the stream power equation governing fluvial
incision and landscape evolution", Geomorphology 180-181), as Cordonnier et al. 2016 ("Large Scale Terrain
Generation from Tectonic Uplift and Fluvial Erosion") use it for terrains. Each time step ``dt``:

1. D8 receivers (steepest drop per distance) of the current heights, the stack (every cell after its receiver)
   and the drainage area ``A`` = the sum of ``precipitation * cell_size²`` over the cell and everything upstream
   (``stream_power.Routing``, which the gullies of ``erode_hydraulic`` share).
2. Uplift and incision, implicit, along the stack (receiver ``r`` already solved, distance ``d``;
   ``stream_power.incise``, the solver the gullies of ``erode_hydraulic`` share):
   ``h' = h + U·dt - K·dt·A^m·((h' - h'_r)/d)^n``. For ``n = 1`` in closed form,
   ``h' = (h + U·dt + F·h'_r) / (1 + F)`` with ``F = K·dt·A^m / d``; otherwise Newton's method on
   ``s - s₀ + F·s^n = 0`` for ``s = h' - h'_r`` (bracketed in ``(0, s₀]``, ``F = K·dt·A^m / d^n``). Stable
   for any ``dt``.
3. Diffusion, implicit (backward Euler, split into a row and a column pass of tridiagonal solves, Thomas'
   algorithm; cyclic lines by Sherman-Morrison when looped): stable and free of overshoots for any ``dt``.

**Depressions**: the input is first filled (Priority-Flood+ε, ``hydrology.fill_depressions``) so every cell
drains to a base-level cell; the fill counts as deposition (lakes fill with sediment). Afterwards every cell is
kept at least one ``nextafter`` step above its receiver after each pass (step 2 keeps it so in exact arithmetic;
the clamp undoes rounding, and lifts a cell that diffusion or uneven uplift dropped below its receiver: a
local fill along the flow path), so every cell keeps a strictly descending path to base level.

**Coarse to fine** (``fine_size``, ``model_size``, ``margin``, ``fine_steps``; ``multiscale``: Schott et al.
2023 and 2024): with ``fine_size`` the whole stage runs on the map sampled to a grid of ``fine_size`` cells along
its longer side (the fine grid; else the map's own cells) and its change, interpolated, is added to the map. On
the fine grid the first ``steps - fine_steps`` steps run on a grid of ``model_size`` cells (the model grid;
``margin`` times the map's size more beyond each edge, the inputs reflected there, so the map is a window in a
larger landscape and its rivers leave at any angle; with a margin the model grid nests in the fine grid, every
``s``-th cell, ``s`` the whole number nearest to ``(longer - 1) / (model_size - 1)``, reaching past the far edge
into the reflection: a spacing that is no whole number of cells interpolates every cell with other weights, a
pattern that raised River Valleys' 8-fold harmonic from 0.003 to 0.010) and their change, interpolated, is
added; the last ``fine_steps`` run on the fine grid itself, its edges at base level. On a map finer than the
fine grid, ``detail_steps`` substeps of one more step ``dt`` of uplift and incision (no diffusion) then run on the
map's own cells, or on every ``k``-th of them (``multiscale.detail_shape``), and cut the channels the fine grid
cannot hold (``_detail_steps``); the drainage area is then theirs, interpolated. The fine grid's change reaches
the map bilinearly, or with ``fine_interpolation`` ``"spline"`` cut to the disc of frequencies the fine grid
resolves in every direction (``multiscale.band_limited``: the corners of its square spectrum are the grid's) and
then by the cubic B-spline through it (``multiscale.add_change_spline``), whose slope has no creases along the
fine grid's lines.

**Boundaries**: ``"edges"``: the map's edge cells are at base level (they neither uplift nor erode) and take the
water that leaves. ``"looped"``: the map wraps around (left-right and top-bottom neighbours), so the result
tiles; the base level is then the lowest cell of the input. ``outlets`` (a boolean map) adds base-level cells
(a sea) in either mode.

**Landscapes** (issue 49; docs/landscape.md). D8 channels run at 0°, 45° and 90°: a landscape evolved with them
carries a herringbone. ``routing="random"`` draws each cell's receiver every step instead
(``stream_power.Routing``'s random facet routing: Tarboton's 1997 D∞ facets, Fairfield & Leymarie's 1991 Rho8 draws,
swung by up to ±11.25°), and the diffusion is an explicit 9-point one, isotropic to leading order (Patra & Karttunen
2006, "Stencils with isotropic discretization error for differential operators", Numerical Methods for PDE 22(4)).
``deposition_coefficient`` adds Yuan et al.'s (2019, "A new efficient method to solve the stream power law model
taking into account sediment deposition", JGR Earth Surface 124) term: ``∂h/∂t = U - K·A^m·S^n + G·Qs/A`` with
``Qs`` the sediment flux from upstream (``stream_power``'s solver with deposition; at steady state under uniform
uplift it makes every reach ``1 + G`` times as steep; tested). ``valley_width`` gives big rivers flat floors: each
river cell lowers the cells within ``valley_width·√A / 2`` of it to its level, a width growing as the square root of
the discharge, as a river's own width does (Leopold & Maddock 1953, "The hydraulic geometry of stream channels").

**Crests and rock** (issue 49). ``critical_slope`` (``Sc``) makes the hillslope transport nonlinear, Roering,
Kirchner & Dietrich's (1999) flux ``q = D·S / (1 - (S/Sc)²)`` instead of ``D·S``: explicit, on the 9-point stencil
(each cell's ``S`` by the isotropic gradient stencil, the flux across each of the 8 links with the mean of its two
cells' conductance ``k = 1 / (1 - (S/Sc)²)``, capped at ``CONDUCTANCE_CAP``), so slopes stay below about ``Sc``
while the crests between them stay sharp (their curvature ``-U/D`` where ``S`` is small). ``rock_layers`` (a
thickness ``T``) and ``rock_contrast`` (``c``) make the rock layered: at each step a cell's erodibility is
``K·(1 - c·hard)``, ``hard = clamp(1/2 + 3/2·sin(2π(h + rock_offset)/T), 0, 1)`` the bed its surface cuts
(``rock_offset``, a map, tilts the beds; the recipe makes it a dipping plane), and with ``critical_slope`` its
critical slope is ``Sc / (1 - c·hard)``: hard beds erode slower and stand steeper (Forte, Yanites & Whipple 2016,
"Complexities of landscape evolution during incision through layered stratigraphy with contrasts in rock
strength", Earth Surface Processes and Landforms 41(12); Perne et al. 2017, "Steady state, erosional continuity,
and the topography of landscapes developed in layered rocks", Earth Surface Dynamics 5). The beds stay where they
are while the land rises through them (they do not move with the uplift). ``channel_diffusion`` (``c``) adds
``c·√A`` (``A`` the drainage area in cells, blurred over 3 x 3 cells) to the conductance: river beds spreading
their sediment sideways (Smith & Bretherton 1972, "Stability and the conservation of mass in drainage basin
evolution", Water Resources Research 8(6); Tucker & Bras 1998, "Hillslope processes, drainage density, and
landscape morphology", Water Resources Research 34(10)), so big valleys round out below knife-edge crests.
``channel_head_area`` (``A_c``, an area) puts channel heads into the stream power law: a cell incises by
``K·A^m·S^n·φ(A)``, ``φ = 0`` for ``A <= A_c``, ``1`` for ``A >= 2·A_c``, between them ``t²(3 - 2t)`` with
``t = log₂(A/A_c)`` (``stream_power.head_share``). Above its channel head only the hillslope law moves the ground
(with ``critical_slope`` a planar face near the threshold slope), so first-order valleys start where hillslopes
converge enough water, not in every cell (Montgomery & Dietrich 1988, "Where do channels begin?", Nature 336;
Tucker & Bras 1998; Perron, Kirchner & Dietrich 2008, "Controls on the spacing of first-order valleys", JGR 113).
With ``critical_slope`` too, no cell ends a step more than ``THRESHOLD_HEADROOM·Sc·d`` above its receiver (``d``
the distance; with random routing the steepest facet's slope is held so): threshold hillslopes, Roering et al.'s
flux in its limit (landslides), which carry the uplift the capped nonlinear flux cannot, so the faces above the
channel heads are planes near the threshold slope. ``A_c`` is an area, not a count of cells: it means the same on
the model, fine and detail grids.
``incision_threshold`` (``θ``) makes the incision ``K·max(A^m·S^n - θ, 0)`` (Tucker & Bras 1998; Tucker 2004,
"Drainage basin sensitivity to tectonic and climatic forcing", ESPL 29(2); Snyder et al. 2003, "Importance of a
stochastic distribution of floods and erosion thresholds in the bedrock river incision problem", JGR 108(B2);
``stream_power._over_threshold``, exact in the implicit step): the hollows of a face, small ``A`` on a gentle
slope, do not cut, the main valleys cut as before with ``θ`` more stream power at steady state (``A^m·S^n =
U/K + θ``); with ``critical_slope`` the same slope limit as channel heads holds the faces that no longer cut.
``θ`` is in the heights' unit to the ``2m`` (area^m), the same on every grid.
``rock_roughness`` (``s``) varies the erodibility over a few cells (``_rough_rock``; Sklar & Dietrich 2001).
``diffusion`` may be a map: ``∂h/∂t = ∇·(D∇h)`` by the explicit 9-point scheme in flux form (each link's flux
times the mean of its two cells' ``D/D_max``, in the substeps ``D_max`` needs; with any routing), and with
``critical_slope`` each cell's conductance times its ``D/D_max``: the valley spacing, set by ``D/K`` (Perron,
Kirchner & Dietrich 2009), varies with the rock (Howard 1994, "A detailed model for the evolution of drainage
basins", Water Resources Research 30(7)). ``critical_slope`` may be a map too (> 0 everywhere): each cell's
conductance takes its own ``Sc`` (stronger rock stands steeper: Schmidt & Montgomery 1995, "Limits to relief",
Science 270; Forte et al. 2016), the channel heads' threshold slope the map's largest. One number keeps the schemes
above.

Heights, ``cell_size`` and the area share one length unit (areas in that unit squared), ``dt`` one time unit:
``U`` is length per time, ``D`` length² per time, ``K`` length^(1 - 2m) per time (for ``m = 0.5`` simply 1/time;
``S`` has no unit). The work runs in float64, each step in two parts (bands of rows, then disjoint flow trees)
that never share a cell, so the bits do not depend on the thread count; it is rounded to float32 once at the
end.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .._jit import jit, kernel_table
from ..hashing import avalanche, eat, hash_seed
from ..schema import Option
from . import multiscale
from .flow import DISTANCES, _edges, check_weights, fill_flat
from .heightfield import CELL_SIZE, NEIGHBOURS, check_heights, check_mask, on_edge, wrapped_columns, wrapped_rows
from .resample import resample_bilinear
from .stream_power import Routing
from .stream_power import index_mask as _index_mask

BOUNDARIES = ("edges", "looped", "closed")
ROUTINGS = ("d8", "random")
FLUVIAL_OPTIONS: tuple[Option, ...] = (
    Option("steps", int, 200, "Time steps", minimum=0, maximum=1_000_000, soft_maximum=2000),
    Option("dt", float, 5000.0, "Length of a time step (in the time unit of uplift and erodibility)", minimum=0.0,
           maximum=1e30, soft_maximum=1e5),
    Option("uplift", float, 1e-3, "Uplift rate U: height per time unit (base-level cells do not rise)",
           minimum=0.0, maximum=1e30, soft_maximum=0.01),
    Option("erodibility", float, 2e-5, "Erodibility K of the stream power law (per time unit for m = 0.5, n = 1)",
           minimum=0.0, maximum=1e30, soft_maximum=1e-3),
    Option("m", float, 0.5, "Drainage area exponent m", minimum=0.0, maximum=2.0),
    Option("n", float, 1.0, "Slope exponent n", minimum=0.1, maximum=4.0),
    Option("diffusion", float, 0.0, "Hillslope diffusivity D: area per time unit (0: none)", minimum=0.0,
           maximum=1e30, soft_maximum=1.0),
    Option("boundary", str, "edges", "Edges at base level; looped (the result tiles); or closed: no water or "
           "soil crosses the edges, the rivers leave only by the outlets (a terrain's rivers stage: the edge cells "
           "where rivers draining outlet_area leave; else the lowest edge cell)", choices=BOUNDARIES),
    Option("river_threshold", float, 100.0, "Drainage area, in cells, from which a cell is a river", minimum=0.0,
           maximum=1e30, soft_maximum=10_000.0),
    Option("routing", str, "d8", "Where each cell drains: d8 (its steepest neighbour) or random (each step one of "
           "the two neighbours of its steepest facet, drawn so the mean direction is the slope's)", choices=ROUTINGS),
    Option("routing_seed", int, 0, "Random routing: SmallXXHash(routing_seed) of the step and cell",
           minimum=-(2**31), maximum=2**31 - 1),
    Option("deposition_coefficient", float, 0.0, "Deposition coefficient G: rivers drop G x their sediment per "
           "discharge (0: none)", minimum=0.0, maximum=1.0),
    Option("valley_width", float, 0.0, "Flat valley floors: a river lowers the cells within half of "
           "valley_width x sqrt(drainage area) to its level (0: none)", minimum=0.0, maximum=10.0,
           soft_maximum=0.2),
    Option("critical_slope", float, 0.0, "Nonlinear hillslopes: the slope (height per distance) at which the "
           "hillslope flux D x S / (1 - (S / critical_slope)^2) grows without bound, so crests stay sharp "
           "(0: linear diffusion)", minimum=0.0, maximum=1e6, soft_maximum=10.0),
    Option("channel_diffusion", float, 0.0, "With critical_slope: the hillslope conductance grows by "
           "channel_diffusion x sqrt(drainage area in cells), sediment spreading across river beds (0: none)",
           minimum=0.0, maximum=100.0, soft_maximum=2.0),
    Option("channel_head_area", float, 0.0, "Channel heads: the drainage area (in the heights' unit squared; in a "
           "terrain's rivers stage, cells of the fine grid) below which rivers do not cut and the hillslopes alone "
           "shape the ground, full incision from twice it (0: rivers cut everywhere)", minimum=0.0, maximum=1e30,
           soft_maximum=10_000.0),
    Option("incision_threshold", float, 0.0, "Incision threshold: rivers cut by erodibility x (A^m x S^n - "
           "incision_threshold) where that is positive, not at all below it, so the hollows of a face do not cut "
           "(A the drainage area in the heights' unit squared, in a terrain's rivers stage cells of the fine grid; "
           "at steady state A^m x S^n = uplift / erodibility + incision_threshold; with critical_slope the slopes "
           "that do not cut stand at most 1.25 x it) (0: none)", minimum=0.0, maximum=1e30, soft_maximum=100.0),
    Option("rock_layers", float, 0.0, "Layered rock: the thickness (in height units) of one hard and one soft "
           "layer, whose erodibility alternates by rock_contrast (0: one rock)", minimum=0.0, maximum=1e30,
           soft_maximum=100.0),
    Option("rock_roughness", float, 0.0, "Rock strength that varies over a few cells: the standard deviation of "
           "the natural log of the erodibility, drawn by SmallXXHash(routing_seed) of each cell and blurred (0: even)",
           minimum=0.0, maximum=3.0),
    Option("rock_contrast", float, 0.5, "Layered rock: the hard layers' erodibility is (1 - rock_contrast) x the "
           "soft ones'", minimum=0.0, maximum=0.99),
    Option("rock_hard_share", float, 0.5, "Layered rock: the share of each hard and soft pair of layers that is hard "
           "(0.5: equal beds; less: thin caprock beds over thick soft ones)", minimum=0.05, maximum=0.95),
    Option("landslide_return_time", float, 0.0, "Bedrock landslides: the return time of a landslide at a cell "
           "steep and high enough to fail with certainty, in the time unit of dt (0: none)", minimum=0.0,
           maximum=1e30, soft_maximum=1e7),
    Option("landslide_slope", float, 0.7, "Bedrock landslides: the rock's internal friction as a gradient (0.7: 35 "
           "degrees); only steeper cells fail, each slide cutting its ground down to a plane halfway between this "
           "and the steepest slope above the slide's foot", minimum=0.01, maximum=10.0),
    Option("landslide_height", float, 1.0, "Bedrock landslides: the cohesion's height scale 4C / (rho g), in the "
           "heights' unit (in a terrain's rivers stage, cells of the fine grid): a cell fails with the chance of its "
           "drop to its receiver over the Culmann critical height, which this scales (larger: stronger rock, fewer "
           "slides)", minimum=0.0, above=True,
           maximum=1e30, soft_maximum=100.0),
    multiscale.MODEL_SIZE,
    multiscale.MARGIN,
    multiscale.FINE_STEPS,
    multiscale.FINE_SIZE,
    multiscale.DETAIL_STEPS,
    multiscale.FINE_INTERPOLATION,
)  # fmt: skip
OPTIONS_BY_NAME = {option.name: option for option in FLUVIAL_OPTIONS}
ABOVE_FINE_GRID = (multiscale.FINE_SIZE.name, multiscale.DETAIL_STEPS.name, multiscale.FINE_INTERPOLATION.name)
"""The options that act between the fine grid and the map: not passed to the run on the fine grid itself."""
NOT_PASSED_TO_FINE_GRID = (*ABOVE_FINE_GRID, "critical_slope", "channel_head_area")
"""The options the run on the fine grid does not take from ``values``: ``ABOVE_FINE_GRID``, and
``critical_slope`` and ``channel_head_area``, which it takes sampled with the other maps."""
FLOAT32_MAX = float(np.finfo(np.float32).max)
DIFFUSION_CAP = 1e8
"""``D·dt / cell²`` beyond this is taken as this: the lines are then relaxed to within 1e-8 of their steady state
(and the tridiagonal solves stay well conditioned)."""
CONDUCTANCE_CAP = 5.0
"""The nonlinear hillslope flux (``critical_slope``) grows as ``1 / (1 - (S / Sc)²)`` up to this many times the
linear one (``S`` about 0.89·Sc); beyond it the flux stays that large, so the explicit substeps stay bounded (and the
grid's small gradient errors, which the flux magnifies most near the cap, do not become a grid bias)."""
SUBSTEP = 0.15
"""The largest ``D·dt / cell²`` of one explicit substep of the isotropic diffusion (random routing): stable
and free of overshoots up to 3/16 for the 9-point stencil."""
MAX_SUBSTEPS = 256
"""At most this many substeps per step: ``D·dt / cell²`` up to ``SUBSTEP · MAX_SUBSTEPS`` (38.4) with random
routing."""
ROUGH_SALT = 0x5EED
LANDSLIDE_SALT = 0x51DE
"""Eaten after ``routing_seed`` before the step and cell by the landslides' draws (``_landslides``)."""
"""Eaten after ``routing_seed`` before the cell by ``rock_roughness``: its draws differ from the routing's."""
THRESHOLD_HEADROOM = 1.25
"""With ``channel_head_area`` or ``incision_threshold`` and ``critical_slope``: no cell stands more than this times
``critical_slope`` above its receiver (threshold hillslopes: the nonlinear flux, capped at ``CONDUCTANCE_CAP``,
carries what it can below that slope, the limit holds the rest; at 1.0 the faces piled at the limit,
docs/landscape-history.md)."""
FLOOR_SLOPE = 1e-3
"""The slope (height per distance) of a flat valley floor towards its river (``valley_width``)."""


@dataclass(frozen=True)
class FluvialResult:
    """Eroded ``heights`` (float32, new array); ``drainage_area`` (float32, rain-weighted upstream area in the
    heights' unit squared, of the final heights); ``rivers`` (bool: area ≥ ``river_threshold`` cells);
    ``erosion``/``deposition`` (float32, >= 0): what each cell lost or gained besides its uplift,
    ``max(0, ±(before + uplift - after))``; totals ``eroded``/``deposited`` (sums of the masks)."""

    heights: np.ndarray
    drainage_area: np.ndarray
    rivers: np.ndarray
    erosion: np.ndarray
    deposition: np.ndarray
    eroded: float
    deposited: float


def _field(name: str, value: object, shape: tuple[int, int]) -> np.ndarray:
    """``value`` (a number within its option's limits, or a map of ``shape`` of such numbers) as float64: a
    flat map, or one value for all cells (then the kernels read it with the index mask 0, ``_index_mask``)."""
    option = OPTIONS_BY_NAME[name]
    if isinstance(value, np.ndarray):
        values = check_weights(value, shape, name)
        if option.maximum is not None and values.size and values.max() > option.maximum:
            raise ValueError(f"{name}: must be {option.limits()}, got a maximum of {values.max()!r}")
        return values.reshape(-1)  # check_weights' array is a new one (astype): no second copy
    return np.full(1, float(option.check(value)))  # type: ignore[arg-type]


def _mask(name: str, value: object, shape: tuple[int, int]) -> np.ndarray:
    return check_mask(name, value, shape).reshape(-1)


def erode_fluvial(
    heights: np.ndarray,
    *,
    steps: int,
    dt: float,
    uplift: float | np.ndarray,
    erodibility: float | np.ndarray,
    cell_size: float = 1.0,
    m: float = 0.5,
    n: float = 1.0,
    diffusion: float | np.ndarray = 0.0,
    precipitation: np.ndarray | None = None,
    boundary: str = "edges",
    outlets: np.ndarray | None = None,
    river_threshold: float = 100.0,
    routing: str = "d8",
    routing_seed: int = 0,
    deposition_coefficient: float = 0.0,
    valley_width: float = 0.0,
    critical_slope: float | np.ndarray = 0.0,
    channel_diffusion: float = 0.0,
    channel_head_area: float | np.ndarray = 0.0,
    incision_threshold: float = 0.0,
    rock_layers: float = 0.0,
    rock_contrast: float = 0.5,
    rock_hard_share: float = 0.5,
    rock_roughness: float = 0.0,
    landslide_return_time: float = 0.0,
    landslide_slope: float = 0.7,
    landslide_height: float = 1.0,
    rock_offset: np.ndarray | None = None,
    model_size: int = 0,
    fine_steps: int = 0,
    margin: float = 0.0,
    fine_size: int = 0,
    detail_steps: int = 0,
    fine_interpolation: str = "bilinear",
    progress: Callable[[int, int], object] | None = None,
) -> FluvialResult:
    """Fluvial erosion of ``heights`` (2-D, rows along y) by the stream power law, ``steps`` implicit steps of
    ``dt`` (Braun & Willett 2013; the module docstring gives the scheme). ``uplift``/``erodibility``/``diffusion``/
    ``critical_slope``/``channel_head_area``: numbers or maps of ``heights``' shape (a diffusion, critical-slope or
    channel-head map: the module docstring's "Crests and rock");
    ``precipitation``: rain per cell (a map >= 0, default 1) weighting the drainage area; ``outlets``: a boolean
    map of extra base-level cells; ``routing``, ``routing_seed``, ``deposition_coefficient`` and
    ``valley_width``: the module docstring's "Landscapes"; ``critical_slope``, ``channel_diffusion``,
    ``channel_head_area``, ``rock_layers``, ``rock_contrast``, ``rock_hard_share``, ``rock_roughness`` and
    ``rock_offset`` (a map of
    heights added before the bed is found): its "Crests and rock"; ``progress(done, steps)`` is called after each
    step (not after the detail substeps). ``fine_size``, ``model_size``, ``margin``, ``fine_steps``,
    ``detail_steps`` and ``fine_interpolation``: the module docstring's "Coarse to fine" (``multiscale.model_shape``;
    rain, uplift, erodibility, diffusion, critical_slope, channel_head_area, outlets and rock_offset are sampled
    with the heights).
    ``ValueError``/``TypeError`` naming the argument for a bad value."""
    checked = check_heights(heights)
    shape = (int(checked.shape[0]), int(checked.shape[1]))
    count = OPTIONS_BY_NAME["steps"].check(steps)
    values = {name: OPTIONS_BY_NAME[name].check(value) for name, value in
              (("dt", dt), ("m", m), ("n", n), ("boundary", boundary),
               ("river_threshold", river_threshold), ("routing", routing), ("routing_seed", routing_seed),
               ("deposition_coefficient", deposition_coefficient), ("valley_width", valley_width),
               ("channel_diffusion", channel_diffusion), ("incision_threshold", incision_threshold),
               ("rock_layers", rock_layers),
               ("rock_contrast", rock_contrast), ("rock_hard_share", rock_hard_share),
               ("rock_roughness", rock_roughness), ("landslide_return_time", landslide_return_time),
               ("landslide_slope", landslide_slope), ("landslide_height", landslide_height),
               ("model_size", model_size), ("fine_steps", fine_steps), ("margin", margin),
               ("fine_size", fine_size), ("detail_steps", detail_steps),
               ("fine_interpolation", fine_interpolation))}  # fmt: skip
    fine = multiscale.model_shape(shape, values["fine_size"], "fine_size")
    coarse = multiscale.model_shape(fine or shape, values["model_size"])
    for name, grid in (("fine_size", fine), ("model_size", coarse), ("margin", values["margin"] or None)):
        if grid is not None and values["boundary"] == "looped":
            allowed = "'edges'" if name == "margin" else "'edges' or 'closed'"
            raise ValueError(f"{name}: needs boundary {allowed} (a looped map is not sampled corner to corner); "
                             "set it to 0 or the boundary to edges")  # fmt: skip
    if values["landslide_return_time"] > 0.0 and values["boundary"] == "looped":
        raise ValueError("landslide_return_time: needs boundary 'edges' or 'closed' (a slide does not cross the "
                         "edges of a looped map); set it to 0 or change the boundary")  # fmt: skip
    if values["margin"] > 0.0 and values["boundary"] == "closed":
        raise ValueError("margin: needs boundary 'edges' (the margin's outer edges are the base level: with closed "
                         "edges no water leaves there); set it to 0 or the boundary to edges")  # fmt: skip
    if (coarse is not None or values["margin"] > 0.0) and values["fine_steps"] > count:
        raise ValueError(f"fine_steps: must be at most steps ({count}), got {values['fine_steps']}")
    cell = float(CELL_SIZE.check(cell_size))  # type: ignore[arg-type]
    random = values["routing"] == "random"
    slopes = _field("critical_slope", critical_slope, shape)  # one value, or a map (then weighed by its largest)
    values["critical_slope"] = float(slopes.max())
    if slopes.shape[0] > 1 and not slopes.min() > 0.0:
        raise ValueError(f"critical_slope: a map must be > 0 everywhere, got a minimum of {slopes.min()!r}")
    heads = _field("channel_head_area", channel_head_area, shape)  # one value, or a map (>= 0: 0 cuts everywhere)
    values["channel_head_area"] = float(heads.max())
    diffusivity = _field("diffusion", diffusion, shape)  # one value, or a map (then weighed by its largest)
    top = float(diffusivity.max()) if diffusivity.size else 0.0
    varying = diffusivity.shape[0] > 1 and top > 0.0
    weight = diffusivity / top if varying else np.ones(1)  # D / D_max: exactly 1 for one value
    spread = top * values["dt"] / (cell * cell)
    if (random or varying) and fine is None and not spread <= SUBSTEP * MAX_SUBSTEPS:  # on a fine grid: there
        limit = SUBSTEP * MAX_SUBSTEPS
        which = "routing='random'" if random else "a diffusivity map"
        raise ValueError(f"diffusion: with {which}, diffusion * dt / cell_size**2 must be <= {limit:g} "
                         f"(the isotropic diffusion's substeps), got {spread:g}")  # fmt: skip
    nonlinear = values["critical_slope"] > 0.0 and top > 0.0
    if values["channel_diffusion"] > 0.0 and not nonlinear:
        raise ValueError("channel_diffusion: needs critical_slope > 0 and diffusion > 0 (it adds to the nonlinear "
                         "hillslope conductance); set it to 0 or set both")  # fmt: skip
    if nonlinear and fine is None and not spread * CONDUCTANCE_CAP <= SUBSTEP * MAX_SUBSTEPS:
        limit = SUBSTEP * MAX_SUBSTEPS / CONDUCTANCE_CAP
        raise ValueError(
            f"critical_slope: nonlinear hillslopes need diffusion * dt / cell_size**2 <= {limit:g} "
            f"(their explicit substeps), got {spread:g}; set critical_slope to 0 or shorten dt"
        )
    rising = _field("uplift", uplift, shape)
    hardness = _field("erodibility", erodibility, shape)
    rain = np.ones(1) if precipitation is None else _field_rain(precipitation, shape)
    offsets = np.zeros(1) if rock_offset is None else _rock_offset(rock_offset, shape)
    if progress is not None and not callable(progress):
        raise TypeError(f"progress: expected a callable (done, steps), got {type(progress).__name__}")
    looped = values["boundary"] == "looped"
    closed = values["boundary"] == "closed"
    base = np.zeros(shape[0] * shape[1], dtype=np.uint8) if looped or closed else _edges(shape)
    if outlets is not None:
        base |= _mask("outlets", outlets, shape)
    before = np.array(checked, dtype=np.float64).reshape(-1)
    _check_ranges(before, rain, cell)
    if not base.any():
        base[_lowest_edge_cell(before, shape) if closed else int(np.argmin(before))] = 1
        if closed:  # the same outlet on the model, fine and detail grids
            outlets = base.reshape(shape) == 1
    detail = 1 if fine is not None and values["detail_steps"] > 0 else 0  # one step more, above the fine grid only
    uplifted = np.where(base == 1, 0.0, rising * (values["dt"] * (count + detail)))  # base cells never rise
    # the maps a model or fine grid samples
    fields = {"uplift": uplift, "erodibility": erodibility, "precipitation": precipitation, "outlets": outlets,
              "rock_offset": rock_offset, "diffusion": diffusion, "critical_slope": critical_slope,
              "channel_head_area": channel_head_area}  # fmt: skip
    if fine is not None:  # the fine grid samples the caller's maps: no checked map-sized copy held while it runs
        rising = hardness = rain = offsets = slopes = heads = diffusivity = weight = None
        return _on_fine_grid(before.reshape(shape), fine, count, cell, values, uplifted, fields, progress)
    if coarse is not None or values["margin"] > 0.0:
        arguments = {
            name: values[name]
            for name in (
                "dt",
                "boundary",
                "m",
                "n",
                "river_threshold",
                "routing",
                "routing_seed",
                "deposition_coefficient",
                "valley_width",
                "channel_diffusion",
                "incision_threshold",
                "rock_layers",
                "rock_contrast",
                "rock_hard_share",
                "rock_roughness",
                "landslide_return_time",
                "landslide_slope",
                "landslide_height",
            )
        }
        report = None if progress is None else (lambda done, _total: progress(done, count))
        if values["margin"] > 0.0:
            spacing = 1.0 if coarse is None else float(round(multiscale.cells_per_model_cell(shape, coarse)))
            h = _margin_steps(before.reshape(shape), spacing, values["margin"], count - values["fine_steps"], cell,
                              arguments, fields, report)  # fmt: skip
            if rising.shape[0] == 1:
                rising = np.full(before.shape[0], rising[0])
            coarse_rise = rising * (values["dt"] * (count - values["fine_steps"]))  # the margin lifts the edges too
            uplifted = coarse_rise + np.where(base == 1, 0.0, rising * (values["dt"] * values["fine_steps"]))
        else:
            h = _coarse_steps(before.reshape(shape), coarse, count - values["fine_steps"], cell, arguments, fields,
                              report)  # fmt: skip
        if closed:  # the outlets stay at base level, whatever the model grid's change beside them
            held = base == 1
            h[held] = before[held]
        refine = values["fine_steps"]
        report = None if progress is None else (lambda done, _total: progress(count - refine + done, count))
        refined = erode_fluvial(h.reshape(shape), steps=refine, cell_size=cell, **arguments, **fields, progress=report)
        after = refined.heights.astype(np.float64).reshape(-1)
        return _result(before, after, uplifted, refined.drainage_area.astype(np.float64).reshape(-1),
                       values["river_threshold"] * cell * cell, shape)  # fmt: skip
    ring = _Ring(shape) if closed else None  # the map inside a ring: a wall for the water, a mirror for the soil
    grid = shape if ring is None else ring.shape
    if ring is not None:
        before_map, base = before, ring.pad(base, 1)
        rising, hardness, rain, offsets, slopes, weight, heads = (
            ring.pad(field) if field.shape[0] > 1 else field
            for field in (rising, hardness, rain, offsets, slopes, weight, heads)
        )
        before = ring.pad(before)
        ring.wall(before)
    h = before.copy()
    fill_flat(h, grid, base, looped, True)
    if float(np.abs(h).max()) + float(uplifted.max()) > FLOAT32_MAX:
        rise = float(uplifted.max())
        raise ValueError(f"uplift: uplift * dt * steps = {rise:g} would lift heights beyond the float32 range")
    routing = Routing(
        grid,
        base,
        looped,
        rain * (cell * cell),
        random,
        values["routing_seed"],
        values["deposition_coefficient"] > 0.0,
    )
    kernels = _kernels()
    layered = values["rock_layers"] > 0.0 and values["rock_contrast"] > 0.0
    shift = math.sin(math.pi * (0.5 - values["rock_hard_share"]))  # cos(π·share): 0 exactly at 0.5
    sharpness = 1.5 / (1.0 - abs(shift))  # the same short transitions at every share (1.5 at 0.5)
    if values["rock_roughness"] > 0.0:
        rough = np.empty(h.shape[0])
        kernels.rough_rock(hardness, _index_mask(hardness), values["rock_roughness"], values["routing_seed"],
                           grid[0], grid[1], np.empty(h.shape[0]), rough)  # fmt: skip
        hardness = rough
    rock = np.empty(h.shape[0]) if layered else hardness
    limited = values["channel_head_area"] > 0.0 or values["incision_threshold"] > 0.0
    steep = values["critical_slope"] * THRESHOLD_HEADROOM if limited else 0.0
    incision = (rising, _index_mask(rising), rock, _index_mask(rock), values["dt"], values["m"], values["n"],
                cell, values["deposition_coefficient"], heads if values["channel_head_area"] > 0.0 else None,
                _index_mask(heads), steep,
                values["incision_threshold"])  # fmt: skip
    lines = (np.empty(max(grid)), np.empty(max(grid), dtype=np.uint8), np.empty(max(grid)), np.empty(max(grid)))
    scratch = np.empty(h.shape[0] if random or nonlinear or varying else 1)
    conductance = np.empty(h.shape[0] if nonlinear else 1)
    one = np.ones(1)
    relative = slopes / values["critical_slope"] if slopes.shape[0] > 1 else one  # Sc / Sc_max: the rise's share
    if layered:  # the layered rock's local Sc: Sc·(Sc / Sc_max)·K / K_layered
        stronger = hardness * relative
        strengths = (stronger, _index_mask(stronger), rock, _index_mask(rock))
    else:
        strengths = (relative, _index_mask(relative), one, 0)
    sliding = values["landslide_return_time"] > 0.0
    chance = -math.expm1(-values["dt"] / values["landslide_return_time"]) if sliding else 0.0  # in one step
    room = h.shape[0] if sliding else 1
    slides = (np.empty(room, dtype=np.int64), np.zeros(room, dtype=np.int64), np.zeros(room, dtype=np.int64),
              np.empty(room, dtype=np.int64), np.zeros(1, dtype=np.int64))  # fmt: skip
    for done in range(count):
        if layered:
            kernels.rock_strength(h, hardness, _index_mask(hardness), offsets, _index_mask(offsets),
                                  values["rock_layers"], values["rock_contrast"], shift, sharpness, rock)  # fmt: skip
        if ring is not None:
            ring.wall(h)
        routing.step(h, incision, done)
        if values["valley_width"] > 0.0:
            kernels.valley_floors(h, grid[0], grid[1], base, looped, routing.order, routing.area,
                                  values["valley_width"], cell)  # fmt: skip
        if ring is not None:
            ring.mirror(h)
        if nonlinear:
            kernels.diffuse_nonlinear(h, grid[0], grid[1], base, looped, spread, values["critical_slope"] * cell,
                                      *strengths, routing.area, values["channel_diffusion"], 1.0 / (cell * cell),
                                      weight, _index_mask(weight), scratch, conductance)  # fmt: skip
        elif top > 0.0 and (random or varying):
            kernels.diffuse_isotropic(h, grid[0], grid[1], base, looped, spread, weight, _index_mask(weight),
                                      scratch)  # fmt: skip
        elif top > 0.0:
            kernels.diffuse(h, grid[0], grid[1], base, looped, min(spread, DIFFUSION_CAP), *lines)
        if sliding:
            kernels.landslides(h, grid[0], grid[1], routing.receivers, routing.codes, base, cell,
                               values["landslide_slope"], values["landslide_height"], chance, values["routing_seed"],
                               done, *slides)  # fmt: skip
        if top > 0.0 or values["valley_width"] > 0.0 or sliding:
            kernels.drain(h, routing.receivers, routing.order, np.inf)
        if progress is not None:
            progress(done + 1, count)
    routing.random = False  # the maps of the result: D8 (steepest descent) of the final heights
    if ring is not None:
        ring.wall(h)
    routing.step(h, None, count)
    threshold = values["river_threshold"] * cell * cell
    if ring is not None:
        return _result(before_map, ring.crop(h), uplifted, ring.crop(routing.area), threshold, shape)
    return _result(before, h, uplifted, routing.area, threshold, shape)


def _sampled(fields: dict, grid: tuple[int, int], boundary: str = "edges") -> dict:
    """``fields`` (``erode_fluvial``'s maps by name; None or a number where not a map) sampled bilinearly onto
    ``grid``, corner to corner; outlets where at least half a cell's weight is outlet, and with a closed
    ``boundary`` also the cell of ``grid`` nearest to each outlet (the only way out: none may vanish)."""
    sampled = {name: resample_bilinear(value, grid) if isinstance(value, np.ndarray) else value
               for name, value in fields.items()}  # fmt: skip
    if sampled["outlets"] is not None:
        sampled["outlets"] = sampled["outlets"] >= 0.5
        if boundary == "closed":
            rows, columns = np.nonzero(fields["outlets"])
            shape = fields["outlets"].shape
            rows = np.rint(rows * ((grid[0] - 1) / (shape[0] - 1))).astype(np.int64)
            columns = np.rint(columns * ((grid[1] - 1) / (shape[1] - 1))).astype(np.int64)
            sampled["outlets"][rows, columns] = True
    return sampled


def _coarse_steps(
    before: np.ndarray, coarse: tuple[int, int], steps: int, cell: float, arguments: dict, fields: dict, progress
) -> np.ndarray:
    """``before`` (2-D float64) with the change of ``steps`` steps of ``erode_fluvial`` on the grid ``coarse``
    (its maps in ``fields`` sampled there, outlets where at least half a coarse cell's weight is outlet) added,
    interpolated (``multiscale.coarse_to_fine``); flat."""

    def run(small: np.ndarray, s: float) -> np.ndarray:
        sampled = _sampled(fields, coarse, arguments["boundary"])
        after = erode_fluvial(small, steps=steps, cell_size=cell * s, **arguments, **sampled, progress=progress).heights
        return small + (after.astype(np.float64) - small.astype(np.float32))  # a cell left alone changes by 0

    return multiscale.coarse_to_fine(before, run, coarse).reshape(-1)


def _margin_steps(
    before: np.ndarray, spacing: float, share: float, steps: int, cell: float, arguments: dict, fields: dict, progress
) -> np.ndarray:
    """``before`` (2-D float64) with the change of ``steps`` steps of ``erode_fluvial`` on a model grid ``spacing``
    cells apart with a margin of ``share`` of the map beyond each edge (``multiscale.margin_axes``; the heights and
    maps reflected across the edges there, outlets at the nearest cell) added, interpolated bilinearly; flat."""
    rows, columns, pad = multiscale.margin_axes(before.shape, spacing, share)
    sampled = {name: multiscale.sample_reflected(np.asarray(value, dtype=np.float64), rows, columns)
               if isinstance(value, np.ndarray) and name != "outlets" else value
               for name, value in fields.items()}  # fmt: skip
    if fields["outlets"] is not None:
        sampled["outlets"] = multiscale.nearest_reflected(check_mask("outlets", fields["outlets"], before.shape),
                                                          rows, columns)  # fmt: skip
    small = multiscale.sample_reflected(before, rows, columns)
    after = erode_fluvial(small, steps=steps, cell_size=cell * spacing, **arguments, **sampled, progress=progress)
    change = after.heights.astype(np.float64) - small  # the coarse-grid correction: the map keeps its finer detail
    fine_rows = np.arange(before.shape[0]) / spacing + pad
    fine_columns = np.arange(before.shape[1]) / spacing + pad
    return (before + multiscale.sample_reflected(change, fine_rows, fine_columns)).reshape(-1)


def _on_fine_grid(before, fine, count, cell, values, uplifted, fields, progress) -> FluvialResult:
    """``erode_fluvial`` of all ``values`` but ``fine_size`` on the map ``before`` (2-D float64) sampled to the
    grid ``fine`` (its maps too, outlets where at least half a cell's weight is outlet), its change added to the
    map interpolated (``multiscale.add_change``, or with ``fine_interpolation`` ``"spline"`` ``band_limited``
    then ``add_change_spline``), its drainage area interpolated bilinearly; ``river_threshold`` counts the fine
    grid's cells."""
    shape = before.shape
    s = multiscale.cells_per_model_cell(shape, fine)
    sampled = _sampled(fields, fine, values["boundary"])
    arguments = {name: value for name, value in values.items() if name not in NOT_PASSED_TO_FINE_GRID}
    small = resample_bilinear(before, fine)
    result = erode_fluvial(small, steps=count, cell_size=cell * s, **arguments, **sampled, progress=progress)
    after = before.copy()
    change = result.heights.astype(np.float64) - small.astype(np.float32)
    if values["fine_interpolation"] == "spline":  # the frequencies the fine grid resolves in every direction
        multiscale.add_change_spline(after, multiscale.band_limited(change))
    else:
        multiscale.add_change(after, change)
    if values["boundary"] == "closed" and fields["outlets"] is not None:  # at base level, whatever beside them
        after[fields["outlets"]] = before[fields["outlets"]]
    area = np.zeros(shape)  # the area interpolated in one pass, without resample_bilinear's temporaries
    if values["detail_steps"] > 0:
        detail = _detail_steps(after, fine, cell, values, fields)
        multiscale.add_change(area, detail.drainage_area)
    else:
        multiscale.add_change(area, result.drainage_area)
    area = area.reshape(-1)
    threshold = values["river_threshold"] * (cell * s) ** 2
    return _result(before.reshape(-1), after.reshape(-1), uplifted, area, threshold, shape)


def _detail_steps(after: np.ndarray, fine: tuple[int, int], cell: float, values: dict, fields: dict) -> FluvialResult:
    """The detail above the fine grid (``detail_steps``): one more step ``dt`` of ``erode_fluvial`` (uplift and
    incision; no diffusion) in ``detail_steps`` substeps (with random routing their draws average over the
    directions, as the fine grid's many steps do) on ``after`` (the map with the fine grid's change, 2-D
    float64, changed in place) or, on a map over twice as fine, on every ``k``-th of its cells
    (``multiscale.detail_shape``), its change interpolated onto the map. The incision cuts the
    channels as narrow as that grid's cells, which the fine grid cannot hold; the hillslopes keep the fine grid's
    diffusion (a step of it on the finer grid would smooth what the fine grid balanced). This is Schott et al.
    2024's amplification, erosion at a finer scale after the coarse one, as the coarse-grid correction of Brandt
    1977. Returns that run's result (its drainage area on its grid)."""
    arguments = {name: value for name, value in values.items()
                 if name not in (*NOT_PASSED_TO_FINE_GRID, "model_size", "margin", "fine_steps")}  # fmt: skip
    fields = {**fields, "diffusion": 0.0}  # incision only: the fine grid's diffusion set the hillslopes at its scale
    arguments["channel_diffusion"] = 0.0  # a share of the diffusion, which is off
    arguments["landslide_return_time"] = 0.0  # the hillslopes are the fine grid's
    arguments["dt"] = values["dt"] / values["detail_steps"]  # one step of dt in substeps: their draws averaged
    grid = multiscale.detail_shape(after.shape, fine)
    if grid is None:
        result = erode_fluvial(after, steps=values["detail_steps"], cell_size=cell, **arguments, **fields)
        after[:] = result.heights
        return result
    s = multiscale.cells_per_model_cell(after.shape, grid)
    sampled = _sampled(fields, grid, values["boundary"])
    small = resample_bilinear(after, grid)
    result = erode_fluvial(small, steps=values["detail_steps"], cell_size=cell * s, **arguments, **sampled)
    multiscale.add_change(after, result.heights.astype(np.float64) - small.astype(np.float32))
    return result


def _lowest_edge_cell(flat: np.ndarray, shape: tuple[int, int]) -> int:
    """The index of the lowest of the map's edge cells (the first in row-major order among equals)."""
    edge = np.flatnonzero(_edges(shape))
    return int(edge[np.argmin(flat[edge])])


class _Ring:
    """The closed boundary: the map inside a ring of one cell. Every routing kernel takes the edge cells of the
    grid it is given as base level; the ring's cells are those, so the map's own edge cells route and erode as
    any other. Before the water is routed the ring is raised above the whole map (``wall``): no cell drains into
    it. Before the hillslopes diffuse it holds a copy of the map's edge cells beside it (``mirror``): the slope
    across the map's edge is 0, so no soil crosses it (a no-flux boundary)."""

    def __init__(self, shape: tuple[int, int]) -> None:
        self.inner = shape
        self.shape = (shape[0] + 2, shape[1] + 2)

    def pad(self, flat: np.ndarray, ring_value: int | None = None) -> np.ndarray:
        """The flat map ``flat`` in the ring: the ring holds ``ring_value``, or the nearest edge cell's value."""
        inner = flat.reshape(self.inner)
        if ring_value is None:
            return np.pad(inner, 1, mode="edge").reshape(-1)
        return np.pad(inner, 1, mode="constant", constant_values=ring_value).reshape(-1)

    def crop(self, flat: np.ndarray) -> np.ndarray:
        """The map's cells of the ringed flat array ``flat`` (a flat copy)."""
        return flat.reshape(self.shape)[1:-1, 1:-1].reshape(-1)

    def wall(self, flat: np.ndarray) -> None:
        """Raise the ring of ``flat`` above every cell of the map, by the map's relief and at least 1."""
        grid = flat.reshape(self.shape)
        inner = grid[1:-1, 1:-1]
        high, low = float(inner.max()), float(inner.min())
        level = high + max(high - low, 1.0)
        grid[0, :] = grid[-1, :] = level
        grid[:, 0] = grid[:, -1] = level

    def mirror(self, flat: np.ndarray) -> None:
        """Set the ring of ``flat`` to the map's edge cells beside it (corners: the map's corners)."""
        grid = flat.reshape(self.shape)
        grid[0, :] = grid[1, :]
        grid[-1, :] = grid[-2, :]
        grid[:, 0] = grid[:, 1]
        grid[:, -1] = grid[:, -2]


def _check_ranges(before: np.ndarray, rain: np.ndarray, cell: float) -> None:
    """``ValueError`` naming ``heights`` beyond float32 (the result's type), or ``cell_size`` (``precipitation``)
    so large that the drainage area, at most the rain of every cell times ``cell_size²``, would pass it."""
    largest = float(np.abs(before).max())
    if largest > FLOAT32_MAX:
        raise ValueError(f"heights: values up to {largest:.3g} lie beyond float32 (3.4e38), the eroded heights' type; "
                         "scale them down")  # fmt: skip
    total = float(rain.sum()) * (before.shape[0] if rain.shape[0] == 1 else 1)
    if total * cell * cell > FLOAT32_MAX:
        name = "cell_size" if total <= before.shape[0] else "cell_size, precipitation"
        raise ValueError(
            f"{name}: the drainage area could reach {total * cell * cell:.3g} (the rain of all cells times "
            f"cell_size² = {cell:g}²), beyond float32 (3.4e38), the drainage area's type; at most "
            f"{math.sqrt(FLOAT32_MAX / max(total, 1e-300)):.3g} for this map"
        )


def _rock_offset(rock_offset: object, shape: tuple[int, int]) -> np.ndarray:
    """``rock_offset`` as a flat float64 map of ``shape`` with finite values (errors naming it)."""
    if not isinstance(rock_offset, np.ndarray):
        raise TypeError(f"rock_offset: expected a numpy array of shape {shape}, got {type(rock_offset).__name__}")
    if rock_offset.shape != shape or not np.issubdtype(rock_offset.dtype, np.number):
        raise ValueError(
            f"rock_offset: expected a numeric map of shape {shape}, got {rock_offset.dtype} {rock_offset.shape}"
        )
    values = rock_offset.astype(np.float64).reshape(-1)
    if not np.isfinite(values).all():
        raise ValueError("rock_offset: every value must be finite")
    return values


def _rock_strength(
    h, erodibility, erodibility_mask, rock_offset, offset_mask, thickness, contrast, shift, sharpness, out
):
    """The erodibility of layered rock at every cell's surface: ``K·(1 - c·hard(ζ))``, ``ζ = (h + rock_offset) /
    thickness`` the layer the surface cuts, ``hard = clamp(1/2 + k·(sin(2πζ) - s), 0, 1)`` with ``s = cos(π·p)``
    and ``k = 3/2 / (1 - |s|)`` (``p`` the hard share: ``sin(2πζ) > s`` on that share of each pair; ``p = 1/2``:
    ``clamp(1/2 + 3/2·sin(2πζ), 0, 1)``, beds of equal thickness): hard and soft beds with short transitions,
    the hard ones eroding ``1 - c`` times as fast (layered rock of
    contrasting strength: Forte, Yanites & Whipple 2016, "Complexities of landscape evolution during incision
    through layered stratigraphy with contrasts in rock strength", Earth Surface Processes and Landforms 41(12);
    Perne, Covington, Thaler & Myre 2017, "Steady state, erosional continuity, and the topography of landscapes
    developed in layered rocks", Earth Surface Dynamics 5)."""
    for cell in range(h.shape[0]):
        phase = (h[cell] + rock_offset[cell & offset_mask]) / thickness
        hard = min(1.0, max(0.0, 0.5 + sharpness * (math.sin(2.0 * math.pi * phase) - shift)))
        out[cell] = erodibility[cell & erodibility_mask] * (1.0 - contrast * hard)


def _rough_rock(erodibility, erodibility_mask, sigma, seed, rows, columns, noise, out):
    """Erodibility that varies over a few cells, ``K·exp(s·z)``: ``z`` is ``√12·(u - 1/2)``, ``u`` uniform in
    [0, 1) from SmallXXHash(``seed``) of the cell, blurred by the binomial kernel ``[1 2 1; 2 4 2; 1 2 1] / 16``
    (the edge cells repeated) and divided by 0.375 so its standard deviation stays 1 (the log erodibility's is
    ``s``): rock strength varies over short distances with its fractures and so does the erodibility of bedrock
    (Sklar & Dietrich 2001, "Sediment and rock strength controls on river incision into bedrock", Geology 29(12):
    erosion rate ∝ tensile strength⁻²). The blur keeps the field from being white noise, whose gradients the
    grid's stencils see anisotropically."""
    base = eat(hash_seed(seed), ROUGH_SALT)
    for cell in range(out.shape[0]):
        noise[cell] = math.sqrt(12.0) * (avalanche(eat(base, cell)) * (1.0 / 4294967296.0) - 0.5)
    for row in range(rows):
        up, down = max(row - 1, 0) * columns, min(row + 1, rows - 1) * columns
        middle = row * columns
        for column in range(columns):
            left, right = max(column - 1, 0), min(column + 1, columns - 1)
            blurred = (4.0 * noise[middle + column] + 2.0 * (noise[up + column] + noise[down + column]
                       + noise[middle + left] + noise[middle + right]) + noise[up + left] + noise[up + right]
                       + noise[down + left] + noise[down + right]) / 16.0  # fmt: skip
            cell = middle + column
            out[cell] = erodibility[cell & erodibility_mask] * math.exp(sigma * blurred / 0.375)


def _field_rain(precipitation: object, shape: tuple[int, int]) -> np.ndarray:
    return check_weights(precipitation, shape, "precipitation").reshape(-1)


def _result(before, after, uplifted, area, threshold, shape) -> FluvialResult:
    change = after - before
    change -= uplifted
    lost = np.negative(change)  # in place from here: two map-sized float64 arrays at a time (engine sizes)
    np.maximum(lost, 0.0, out=lost)
    erosion, eroded = lost.astype(np.float32).reshape(shape), float(lost.sum())
    del lost
    np.maximum(change, 0.0, out=change)
    return FluvialResult(
        heights=after.astype(np.float32).reshape(shape),
        drainage_area=area.astype(np.float32).reshape(shape),
        rivers=(area >= threshold).reshape(shape),
        erosion=erosion,
        deposition=change.astype(np.float32).reshape(shape),
        eroded=eroded,
        deposited=float(change.sum()),
    )


def _diffuse_isotropic(h, rows, columns, base, looped, factor, weight, weight_mask, scratch):
    """Explicit diffusion ``h += c·∇²h`` with the 9-point Laplacian ``(4·(sides) + corners - 20·h) / 6``, whose
    error is isotropic to leading order (Patra & Karttunen 2006), in ``ceil(factor / SUBSTEP)`` substeps of
    ``c <= SUBSTEP`` (``factor = D·dt / cell²``); base cells stay. With a map ``weight`` (``D / D_max`` of each
    cell, ``weight_mask`` not 0) ``h += c·∇·(w∇h)``: the flux across each of the 8 links times the mean of its two
    cells' ``w`` (conservative; the same stencil for ``w = 1``)."""
    if weight_mask != 0:
        _diffuse_weighted(h, rows, columns, base, looped, factor, weight, scratch)
        return
    substeps = max(1, min(MAX_SUBSTEPS, math.ceil(factor / SUBSTEP)))
    c = factor / substeps / 6.0
    for _ in range(substeps):
        for row in range(rows):
            middle, up, down = wrapped_rows(row, rows, columns)
            for column in range(columns):
                cell = middle + column
                if base[cell] or on_edge(row, column, rows, columns, looped):
                    scratch[cell] = h[cell]
                    continue
                left, right = wrapped_columns(column, columns)
                sides = h[up + column] + h[middle + left] + h[middle + right] + h[down + column]
                corners = h[up + left] + h[up + right] + h[down + left] + h[down + right]
                scratch[cell] = h[cell] + c * (4.0 * sides + corners - 20.0 * h[cell])
        for cell in range(h.shape[0]):
            h[cell] = scratch[cell]


@jit
def _diffuse_weighted(h, rows, columns, base, looped, factor, weight, scratch):
    """``_diffuse_isotropic`` with a diffusivity map: ``h += c·∇·(w∇h)`` on the 9-point stencil, the flux between
    a cell and each neighbour ``w·(w_i + w_j)/2·(h_j - h_i)`` (``w`` 4/6 for a side, 1/6 for a corner), in
    ``ceil(factor / SUBSTEP)`` substeps (``w <= 1``: as stable as ``w = 1``); base cells stay."""
    substeps = max(1, min(MAX_SUBSTEPS, math.ceil(factor / SUBSTEP)))
    c = factor / substeps / 6.0
    for _ in range(substeps):
        _flux_step(h, rows, columns, base, looped, c, weight, scratch)


@jit
def _flux_step(h, rows, columns, base, looped, c, k_map, scratch):
    """One explicit step ``h += c·∇·(k∇h)`` (times 6) of the conservative 9-point flux form: between a cell and
    each neighbour ``w·(k_i + k_j)/2·(h_j - h_i)``, ``w`` 4/6 for a side and 1/6 for a corner; base and edge
    cells (unless looped) stay."""
    for row in range(rows):
        middle, up, down = wrapped_rows(row, rows, columns)
        for column in range(columns):
            cell = middle + column
            here = h[cell]
            if base[cell] or on_edge(row, column, rows, columns, looped):
                scratch[cell] = here
                continue
            left, right = wrapped_columns(column, columns)
            k = k_map[cell]
            sides = ((k + k_map[up + column]) * (h[up + column] - here)
                     + (k + k_map[down + column]) * (h[down + column] - here)
                     + (k + k_map[middle + left]) * (h[middle + left] - here)
                     + (k + k_map[middle + right]) * (h[middle + right] - here))  # fmt: skip
            corners = ((k + k_map[up + left]) * (h[up + left] - here)
                       + (k + k_map[up + right]) * (h[up + right] - here)
                       + (k + k_map[down + left]) * (h[down + left] - here)
                       + (k + k_map[down + right]) * (h[down + right] - here))  # fmt: skip
            scratch[cell] = here + 0.5 * c * (4.0 * sides + corners)
    for cell in range(h.shape[0]):
        h[cell] = scratch[cell]


def _diffuse_nonlinear(
    h,
    rows,
    columns,
    base,
    looped,
    factor,
    rise,
    strength,
    strength_mask,
    rock,
    rock_mask,
    area,
    channel,
    per_cell,
    weight,
    weight_mask,
    scratch,
    conductance,
):
    """Explicit nonlinear hillslope transport, ``∂h/∂t = ∇·(D·k(S)·∇h)`` with ``k = 1 / (1 - (S/Sc)²)``
    (Roering, Kirchner & Dietrich 1999, "Evidence for nonlinear, diffusive sediment transport on hillslopes and
    implications for landscape morphology", Water Resources Research 35(3)), capped at ``CONDUCTANCE_CAP``.
    ``S`` is each cell's gradient by the isotropic stencil ``(4·(h_E - h_W) + h_NE - h_NW + h_SE - h_SW) / 12``
    (and likewise in y); the flux between a cell and each of its 8 neighbours is ``w·(k_i + k_j)/2·(h_j - h_i)``,
    ``w`` 4/6 for a side and 1/6 for a corner: conservative, and for ``k = 1`` the 9-point Laplacian of
    ``_diffuse_isotropic`` (isotropic to leading order, Patra & Karttunen 2006). ``rise`` is ``Sc·cell``, at each
    cell times ``strength / rock`` (the erodibility of one rock over the layered rock's: hard beds stand steeper,
    as stronger rock does; Forte et al. 2016); the
    step takes ``ceil(factor·k_max / SUBSTEP)`` substeps, ``k_max`` the largest ``k`` at its start, and holds
    every ``k`` at most ``k_max`` within it (stable); edge cells take ``k = 1``; base cells stay. Each ``k`` is
    times ``weight`` (``D / D_max``, at most 1: a diffusivity map; ``[1]`` with ``weight_mask`` 0 for one ``D``)."""
    bound = _conductance(h, rows, columns, looped, rise, strength, strength_mask, rock, rock_mask, area, channel,
                         per_cell, weight, weight_mask, CONDUCTANCE_CAP, conductance)  # fmt: skip
    substeps = max(1, min(MAX_SUBSTEPS, math.ceil(factor * bound / SUBSTEP)))
    c = factor / substeps / 6.0
    for substep in range(substeps):
        if substep > 0:
            _conductance(h, rows, columns, looped, rise, strength, strength_mask, rock, rock_mask, area, channel,
                         per_cell, weight, weight_mask, bound, conductance)  # fmt: skip
        _flux_step(h, rows, columns, base, looped, c, conductance, scratch)


@jit
def _conductance(h, rows, columns, looped, rise, strength, strength_mask, rock, rock_mask, area, channel, per_cell,
                 weight, weight_mask, bound, conductance):  # fmt: skip
    """``conductance = min(1 / (1 - (S/Sc)²) + channel·√(A·per_cell), bound)`` of every cell
    (``_diffuse_nonlinear``; ``A·per_cell`` the drainage area in cells, blurred by the binomial 3 by 3 kernel
    ``[1 2 1; 2 4 2; 1 2 1] / 16`` so a river one cell wide spreads over its neighbours alike in every direction;
    the second term is ``channel_diffusion``:
    transport-limited river beds spreading their sediment sideways, Smith & Bretherton 1972, Tucker & Bras 1998;
    1 on the edges), times ``weight`` (``D / D_max <= 1``: within ``bound`` too); returns the largest."""
    largest = 1.0
    ratio_cap = math.sqrt(1.0 - 1.0 / bound)
    for row in range(rows):
        middle, up, down = wrapped_rows(row, rows, columns)
        for column in range(columns):
            cell = middle + column
            if on_edge(row, column, rows, columns, looped):
                conductance[cell] = weight[cell & weight_mask]
                continue
            left, right = wrapped_columns(column, columns)
            gx = (4.0 * (h[middle + right] - h[middle + left]) + h[up + right] - h[up + left]
                  + h[down + right] - h[down + left]) / 12.0  # fmt: skip
            gy = (4.0 * (h[down + column] - h[up + column]) + h[down + left] - h[up + left]
                  + h[down + right] - h[up + right]) / 12.0  # fmt: skip
            weaker = rock[cell & rock_mask]
            local = rise * strength[cell & strength_mask] / weaker if weaker > 0.0 else rise
            ratio = min(math.sqrt(gx * gx + gy * gy) / local, ratio_cap)
            k = 1.0 / (1.0 - ratio * ratio)
            if channel > 0.0:
                spread = (4.0 * area[cell] + 2.0 * (area[up + column] + area[down + column] + area[middle + left]
                          + area[middle + right]) + area[up + left] + area[up + right] + area[down + left]
                          + area[down + right]) / 16.0  # fmt: skip
                k = min(bound, k + channel * math.sqrt(spread * per_cell))
            k *= weight[cell & weight_mask]
            conductance[cell] = k
            largest = max(largest, k)
    return largest


def _valley_floors(h, rows, columns, base, looped, order, area, width, cell):
    """Flat valley floors: along the stack (downstream first), every cell lowers the cells within
    ``R = width·√A / 2`` of it (``A`` its drainage area; from ``R`` = 1 cell on) to its own height plus
    ``FLOOR_SLOPE`` times their distance; base cells stay. The width grows as the square root of the area, as
    a river's does with its discharge (Leopold & Maddock 1953)."""
    for i in range(order.shape[0]):
        node = order[i]
        reach = 0.5 * width * math.sqrt(area[node]) / cell
        if reach < 1.0:
            continue
        row, column = node // columns, node % columns
        level = h[node]
        span = int(reach)
        for dy in range(-span, span + 1):
            y = row + dy
            if looped:
                y = y % rows
            elif y < 0 or y >= rows:
                continue
            for dx in range(-span, span + 1):
                distance = math.sqrt(dy * dy + dx * dx)
                if distance > reach or distance == 0.0:
                    continue
                x = column + dx
                if looped:
                    x = x % columns
                elif x < 0 or x >= columns:
                    continue
                target = y * columns + x
                floor = level + FLOOR_SLOPE * distance * cell
                if not base[target] and h[target] > floor:
                    h[target] = floor


def _landslides(
    h,
    rows,
    columns,
    receivers,
    codes,
    base,
    cell,
    friction,
    height,
    chance,
    seed,
    step,
    feet,
    stamps,
    seen,
    queue,
    serial,
):
    """Bedrock landslides of one step (Campforts et al. 2020, HyLands 1.0, GMD 13(9); Densmore, Ellis & Anderson
    1998, JGR 103(B7)), in place. A cell whose slope ``S`` to its receiver is steeper than the internal friction
    ``tan φ`` (``friction``) fails with the chance ``chance·min(1, H / H_c)`` (a draw of SmallXXHash(``seed``) of
    the step and cell), ``H`` its drop to its receiver (``receivers``, in the direction ``codes``) and
    ``H_c = height·sin β·cos φ / (1 - cos(β - φ))`` Culmann's critical height (``β = atan S``); its receiver is
    the slide's foot. In the order of the cells, each foot not cut by an earlier slide of the step takes the
    steepest slope ``s`` up to a neighbour steeper than ``tan φ`` and cuts every cell connected to it above the
    foot down to the plane rising from the foot at ``(tan φ + s) / 2`` (breadth first from the foot's upslope
    neighbours). A base cell may be a foot but does not slide. The material leaves with the rivers. ``feet``,
    ``stamps``, ``seen``, ``queue``: work arrays of the map's size (``stamps`` and ``seen`` zero at the first
    step); ``serial[0]``: the slides so far."""
    size = h.shape[0]
    phi = math.atan(friction)
    salted = eat(hash_seed(seed), LANDSLIDE_SALT)
    drawn = eat(salted, step)
    mark = step + 1  # stamps of this step: > any earlier step's
    count = 0
    for node in range(size):
        code = codes[node]  # the direction to the receiver (NEIGHBOURS), -1 for none
        if code < 0 or base[node]:
            continue
        receiver = receivers[node]
        drop = h[node] - h[receiver]
        distance = cell * DISTANCES[code]
        if not drop > friction * distance:  # no steeper than the friction: no trigonometry for most cells
            continue
        beta = math.atan(drop / distance)
        if not beta > phi:
            continue
        gap = 1.0 - math.cos(beta - phi)  # 0 where beta is phi to rounding: H_c is infinite, no slide
        if not gap > 0.0:
            continue
        critical = height * math.sin(beta) * math.cos(phi) / gap
        fails = avalanche(eat(drawn, node)) * (1.0 / 4294967296.0) < chance * min(drop / critical, 1.0)
        if fails and stamps[receiver] != mark:
            stamps[receiver] = mark
            feet[count] = receiver
            count += 1
    feet[:count].sort()
    cut = -mark  # stamps of cells a slide of this step cut
    for i in range(count):
        foot = feet[i]
        if stamps[foot] == cut:
            continue
        row, column = foot // columns, foot % columns
        level = h[foot]
        steepest = friction
        for k in range(8):
            y, x = row + NEIGHBOURS[k, 0], column + NEIGHBOURS[k, 1]
            if 0 <= y < rows and 0 <= x < columns:
                rise = (h[y * columns + x] - level) / (cell * DISTANCES[k])
                steepest = max(steepest, rise)
        if not steepest > friction:
            continue
        plane = 0.5 * (friction + steepest)
        serial[0] += 1
        visit = serial[0]  # in ``seen``: the cells this slide has queued
        head = tail = 0
        queue[tail] = foot
        tail += 1
        seen[foot] = visit
        while head < tail:
            here = queue[head]
            head += 1
            y0, x0 = here // columns, here % columns
            if here != foot:
                floor = level + plane * cell * math.hypot(y0 - row, x0 - column)
                if not floor < h[here]:
                    continue
                h[here] = floor
                stamps[here] = cut
            for k in range(8):
                y, x = y0 + NEIGHBOURS[k, 0], x0 + NEIGHBOURS[k, 1]
                if 0 <= y < rows and 0 <= x < columns:
                    other = y * columns + x
                    if h[other] > level and not base[other] and seen[other] != visit and stamps[other] != cut:
                        seen[other] = visit
                        queue[tail] = other
                        tail += 1


def _drain(h, receivers, order, infinity):
    """Keep every cell at least one step (``nextafter``) above its receiver, along the stack."""
    for i in range(order.shape[0]):
        node = order[i]
        receiver = receivers[node]
        if receiver != node and not h[node] > h[receiver]:
            h[node] = np.nextafter(h[receiver], infinity)


def _diffuse(h, rows, columns, base, looped, factor, line, fixed, scratch, other):
    """One backward-Euler diffusion step ``(1 - c·δ²) h' = h`` (``c = D·dt / cell²``), split into a pass along
    the rows and one along the columns; base cells stay."""
    for row in range(rows):
        _solve_line(h, row * columns, 1, columns, base, looped, factor, line, fixed, scratch, other)
    for column in range(columns):
        _solve_line(h, column, columns, rows, base, looped, factor, line, fixed, scratch, other)


@jit
def _solve_line(h, start, stride, count, base, looped, factor, line, fixed, scratch, other):
    """Solve ``-c·x[j-1] + (1 + 2c)·x[j] - c·x[j+1] = h[j]`` along one line of ``h`` (identity rows at base
    cells), in place: tridiagonal, or cyclic when looped (Sherman-Morrison, as Numerical Recipes' ``cyclic``:
    ``A = A' + u·vᵀ`` with ``u = (gamma, 0…, alpha)``, ``v = (1, 0…, beta/gamma)``)."""
    for j in range(count):
        line[j] = h[start + j * stride]
        fixed[j] = base[start + j * stride]
    if not looped:
        _thomas(line, fixed, count, factor, 0.0, 0.0, scratch)
    else:
        beta = 0.0 if fixed[0] else -factor  # A[0, n - 1]
        alpha = 0.0 if fixed[count - 1] else -factor  # A[n - 1, 0]
        gamma = -1.0 if fixed[0] else -(1.0 + 2.0 * factor)
        _thomas(line, fixed, count, factor, gamma, alpha * (beta / gamma), scratch)
        for j in range(count):
            other[j] = 0.0
        other[0], other[count - 1] = gamma, alpha
        _thomas(other, fixed, count, factor, gamma, alpha * (beta / gamma), scratch)
        share = (line[0] + beta * line[count - 1] / gamma) / (1.0 + other[0] + beta * other[count - 1] / gamma)
        for j in range(count):
            line[j] -= share * other[j]
    for j in range(count):
        h[start + j * stride] = line[j]


@jit
def _thomas(x, fixed, count, factor, first_shift, last_shift, scratch):
    """Thomas' algorithm for the tridiagonal system of ``_solve_line`` (without its corners; ``first_shift``
    and ``last_shift`` are subtracted from the first and last diagonal entries), right-hand side ``x``, in
    place. Diagonally dominant: no pivoting needed."""
    for j in range(count):
        below = 0.0 if fixed[j] or j == 0 else -factor
        above = 0.0 if fixed[j] or j == count - 1 else -factor
        diagonal = 1.0 if fixed[j] else 1.0 + 2.0 * factor
        if j == 0:
            diagonal -= first_shift
        if j == count - 1:
            diagonal -= last_shift
        if j > 0:
            diagonal -= below * scratch[j - 1]
            x[j] = (x[j] - below * x[j - 1]) / diagonal
        else:
            x[j] = x[j] / diagonal
        scratch[j] = above / diagonal
    for j in range(count - 2, -1, -1):
        x[j] -= scratch[j] * x[j + 1]


_kernels = kernel_table(
    serial=(
        _drain,
        _diffuse,
        _diffuse_isotropic,
        _diffuse_nonlinear,
        _valley_floors,
        _rock_strength,
        _rough_rock,
        _landslides,
    )
)
"""The compiled kernels, built on first use."""
