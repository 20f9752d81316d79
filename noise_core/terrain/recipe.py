"""A terrain recipe: everything a terrain is built from, as one small versioned JSON file, and the one function
that builds its heights (``build_terrain``), which the add-on, the Python API and ``python -m noise_core terrain``
all run.

A ``Recipe`` holds the terrain's width and depth ``size`` and the height of noise value 1 ``height`` (metres:
Blender units at unit scale 1), where its grid sits in the noise (``offset``), the noise (a ``NoiseSpec`` read
on a ``Domain``), an edge ``falloff``, an optional base heightmap (``base``), the ordered erosion ``stages``
(each a row of ``STAGES``: name, ``schema.Option`` rows, the function that runs it), the terrain maps and splat
layers to write with it (``maps``, ``splat``), export settings (``export``: samples per side, engine, tile) and the
water to write with it (``water``: lakes, rivers, the flow map; ``terrain.water``).

The heights at ``N x N`` samples (``build_terrain``): vertex ``(x, y)`` of a centred ``size`` square grid (row 0
at ``y = -size / 2``) gets ``z = (base + to_unit(noise(domain(x + offset_x, y + offset_y, 0))) * height) *
falloff``, then each stage in order, in metres with the grid spacing ``size / (N - 1)``. Every number of a
recipe is kept as float32, as Blender keeps a terrain's settings, so the add-on's terrain and the command line
build the same bits from the same file.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import numpy as np

from .. import evaluate
from ..api import compile_state, evaluate_lattice, plan
from ..domain import AXIS_INDEX, PLANE_AXES, Domain
from ..io import heightmaps
from ..ranges import to_unit
from ..registry import COMMON_OPTIONS, kind_info, options_by_name
from ..runtime import least_ready
from ..schema import Option
from ..spec import NoiseSpec
from . import erosion, multiscale, resample
from .erosion import (
    HYDRAULIC_OPTIONS,
    THERMAL_OPTIONS,
    ErosionResult,
    erode_hydraulic,
    erode_thermal,
    hydraulic_kinds,
)
from .fluvial import FLUVIAL_OPTIONS
from .glacial import (
    GLACIAL_OPTIONS,
    GLACIER_AREA,
    GLACIER_DEPTH,
    GLACIER_FLOOR_GRADE_OPTION,
    GLACIER_OVERDEEPEN,
    GLACIER_ROCK,
    GLACIER_WALL_SLOPE,
    GLACIER_WIDTH,
    carve_troughs,
)
from .landscape import (
    FILL,
    FLOOR,
    FLOOR_AREA,
    OUTLET_AREA,
    TRUNK_FILL,
    TRUNK_FILL_AREA,
    aggrade_valleys,
    evolve_landscape,
    fill_valleys,
    river_exits,
    widen_valleys,
)
from .layers import STRATA, deposits, rock
from .maps import MAP_NAMES
from .splat import check_layers
from .variety import (
    RAIN_HEIGHT,
    RAIN_OPTIONS,
    RAIN_VARIETY,
    RAIN_VARIETY_SCALE,
    ROCK_DETAIL,
    ROCK_DETAIL_SCALE,
    ROCK_FIELD_OPTIONS,
    ROCK_VARIETY,
    ROCK_VARIETY_CONTRAST,
    ROCK_VARIETY_DIFFUSION,
    ROCK_VARIETY_HEADS,
    ROCK_VARIETY_OCTAVES,
    ROCK_VARIETY_PACE,
    ROCK_VARIETY_SCALE,
    ROCK_VARIETY_SLOPE,
    ROCK_VARIETY_STRETCH,
    ROCK_VARIETY_STRIKE,
    ROCK_VARIETY_UPLIFT,
    SCOUR_DEPTH,
    SCOUR_SCALE,
    rain_field,
    rock_detail,
    rock_field,
    scour,
)
from .water import WATER_OPTIONS

VERSION = 1
"""The recipe file format's version (the ``version`` key); files of another version are refused."""
MAX_SAMPLES = 16385
MAX_CELLS = 8129 * 8129
"""The most samples ``build_terrain`` builds at once: Unreal's largest landscape, 8129², about 8 GB at its
peak (docs/scale.md); larger terrains are built tile by tile (``terrain.tiled``)."""
CHUNK = 1 << 18
"""Points per ``evaluate`` call off the lattice: the progress moves once per chunk."""

TERRAIN_OPTIONS = (
    Option("size", float, 2.0, "Width and depth of the terrain, in metres", minimum=0.0, above=True, ui_minimum=1e-4,
           soft_maximum=1000.0, unit="LENGTH"),
    Option("height", float, 0.5, "Height of noise value 1, in metres", soft_minimum=-100.0, soft_maximum=100.0,
           unit="LENGTH"),
    Option("offset", float, (0.0, 0.0), "Where the grid sits in the noise (move by Size for the neighbouring tile)",
           size=2, subtype="XYZ", unit="LENGTH"),
    Option("falloff", str, "NONE", "Bring the terrain down to 0 towards its edges", title="Edge Falloff",
           choices=("NONE", "X", "Y", "RADIAL"),
           choice_text=(("None", "No falloff"), ("X", "Towards the edges along X"), ("Y", "Towards the edges along Y"),
                        ("Radial", "Towards a circle touching the edges"))),
    Option("falloff_width", float, 0.3, "Fraction of the half-size over which the falloff eases in", minimum=0.0,
           maximum=1.0),
)  # fmt: skip
"""A recipe's own numbers (the add-on's terrain settings of the same names)."""
BASE_OPTIONS = (
    Option("base_blend", str, "NONE", "How the base heightmap and the noise make the terrain", title="Base",
           choices=("NONE", "ADD"),
           choice_text=(("None", "Noise only (the base file is not read)"),
                        ("Add", "The base heightmap's heights plus the noise times Height"))),
    Option("base_file", str, "", f"Heightmap file of the base ({heightmaps.listed()}), resampled bilinearly to the "
           "grid; its first row is the +Y edge", title="Base File", subtype="FILE_PATH"),
    Option("base_low", float, 0.0, "Height of the base's value 0", title="Base Lowest", unit="LENGTH"),
    Option("base_high", float, 1.0, "Height of the base's value 1", title="Base Highest", unit="LENGTH"),
)  # fmt: skip
"""A terrain's base heightmap (``base_heights``); its ``base`` section in a file (``blend``, ``file``, ...)."""
KEEP_RELIEF = Option("keep_relief", bool, True, "Scale the result to the input's lowest and highest heights")
NOISE_UPLIFT = Option(
    "noise_uplift",
    bool,
    False,
    "Scale the uplift by the terrain's height before erosion (0 at its lowest, 1 at its highest): ranges rise "
    "where the noise is high",
    title="Noise as Uplift",
)
UPLIFT_CONTRAST = Option(
    "uplift_contrast", float, 1.0, "With Noise as Uplift: the share of the uplift the noise sets; the rest is "
    "the same everywhere (1: all from the noise)", minimum=0.0, maximum=1.0,
)  # fmt: skip
ROCK_DIP = Option(
    "rock_dip", float, 0.0, "With layered rock: the beds' dip, height per distance, falling towards the dip "
    "direction (0: flat beds)", minimum=0.0, maximum=10.0, soft_maximum=1.0,
)  # fmt: skip
ROCK_DIP_DIRECTION = Option(
    "rock_dip_direction", float, 30.0, "With layered rock: the direction the beds dip towards, degrees "
    "anticlockwise from +x", minimum=-360.0, maximum=360.0,
)  # fmt: skip
RIVER_OPTIONS = (
    *FLUVIAL_OPTIONS,
    OUTLET_AREA,
    KEEP_RELIEF,
    NOISE_UPLIFT,
    UPLIFT_CONTRAST,
    ROCK_DIP,
    ROCK_DIP_DIRECTION,
    *ROCK_FIELD_OPTIONS,
    *RAIN_OPTIONS,
    FILL,
    FLOOR,
    FLOOR_AREA,
    *GLACIAL_OPTIONS,
    TRUNK_FILL,
    TRUNK_FILL_AREA,
    ROCK_DETAIL,
    ROCK_DETAIL_SCALE,
    multiscale.FLOOR_INTERPOLATION,
    multiscale.KEEP_DRAINAGE,
    multiscale.DRAIN_LAKES,
    SCOUR_DEPTH,
    SCOUR_SCALE,
)
"""The river stage's options: the stream-power model's (``fluvial.FLUVIAL_OPTIONS``, heights in cells of the fine
grid, with its coarse-to-fine rows ``fine_size``, ``model_size``, ``margin`` and ``fine_steps``), the terrain's own
(rock variety: ``terrain.variety``) and, after the relief is kept, valley floors (``landscape.widen_valleys``,
glacial troughs: ``glacial.carve_troughs``, ``landscape.aggrade_valleys``, then ``landscape.fill_valleys``) and
rock detail (``variety.rock_detail``) and areal scour (``variety.scour``; issue 49, docs/landscape.md)."""
FORMER_RIVER_OPTIONS = {
    "coarse": "; it became model_size, the model grid's cells (coarse c on an n-sample fine grid: (n - 1) / c + 1)",
    "refine_steps": "; it became fine_steps, the last of the steps (steps s and refine_steps r: steps s + r, "
    "fine_steps r)",
}
"""What a rivers stage's options of before issue 45's coarse to fine became (the error names it)."""
DOMAIN_OPTIONS = (
    Option("offset", float, (0.0, 0.0, 0.0), "Noise-space offset", size=3),
    Option("rotation", float, (0.0, 0.0, 0.0), "Noise-space XYZ Euler rotation, radians", size=3),
    Option("scale", float, (1.0, 1.0, 1.0), "Noise-space scale", size=3),
    Option("dimensions", int, 3, "Dimensions of the noise read", minimum=1, maximum=4),
    Option("plane", str, "XY", "Plane 2D noise reads", choices=tuple(PLANE_AXES)),
    Option("axis", str, "X", "Axis 1D noise reads", choices=tuple(AXIS_INDEX)),
    Option("w", float, 0.0, "Fourth coordinate of 4D noise"),
)
"""The ``noise.domain`` section (``domain.Domain``'s fields)."""
EXPORT_OPTIONS = (
    Option("samples", int, 257, "Samples per side when none are asked for", minimum=2, maximum=MAX_SAMPLES),
    heightmaps.ENGINE,
    Option("tile", int, 0, "0: one file; else tiles of this many quads (+1 shared edge sample)", minimum=0),
)
"""The ``export`` section: what ``python -m noise_core terrain`` takes when its flags are not given."""


class Cancelled(Exception):
    """Raised by a ``progress`` callback to stop ``build_terrain`` (a cancel): nothing is returned."""


Progress = Callable[[str, int, int], None]
"""``progress(stage, done, total)``: called with ``done`` 0 when a stage starts (``"noise"``, then each stage's
name) and after each piece of it; an exception it raises (``Cancelled``) stops the build there."""
Notice = Callable[[str], None]
"""``notice(text)``: called before work that compiles kernels first (seconds, once per machine)."""


@dataclass(frozen=True)
class StageResult:
    """What a stage made: the heights (rows, columns, float64 or float32) and the rivers' flow maps (or None)."""

    heights: np.ndarray
    drainage_area: np.ndarray | None = None
    river: np.ndarray | None = None
    eroded: ErosionResult | None = None
    """The eroder's own result (metres), for the depths of sediment and talus (``layers.deposits``); None: the
    stage's change lies as sediment where it raised the ground."""


@dataclass(frozen=True)
class StageKind:
    """One row of ``STAGES``: a stage's ``name``, its options (``schema.Option`` rows, checked when a recipe is
    read), the progress it reports in all (``steps(options)``) and ``run(heights, cell_size, options, advance,
    notice)`` returning a ``StageResult`` (heights in metres, ``cell_size`` metres apart)."""

    name: str
    options: tuple[Option, ...]
    description: str
    run: Callable[[np.ndarray, float, dict, Callable[[int], None], Notice], StageResult]
    steps: Callable[[dict], int]


def _rivers(heights: np.ndarray, cell_size: float, options: dict, advance, notice: Notice) -> StageResult:
    """Stream-power rivers (``landscape.evolve_landscape``, coarse to fine) on the heights in cells of the fine
    grid (``fine_size`` samples over the terrain; 0: the map's own), scaled back to the input's lowest and highest
    with ``keep_relief``, then the trunk valleys widened (``valley_floor``, ``valley_floor_area``,
    ``landscape.widen_valleys``), glacial troughs carved (``glacier_depth``, ``glacier_area``,
    ``glacial.carve_troughs``), the trunk valleys aggraded (``trunk_fill``, ``trunk_fill_area``,
    ``landscape.aggrade_valleys``) and the valleys filled (``valley_fill``, ``landscape.fill_valleys``), on the fine
    grid, their change interpolated onto a finer map bilinearly or as ``floor_interpolation`` says;
    ``noise_uplift`` scales the uplift by ``1 - c + c·t``, ``t`` the heights' 0..1 range and ``c`` the
    ``uplift_contrast``; with ``rock_layers`` the beds dip by ``rock_dip`` towards ``rock_dip_direction`` (the
    ``rock_offset`` of ``erode_fluvial``: a plane); ``rock_variety`` ``s`` multiplies the erodibility and the uplift
    by ``exp(s·z)``, ``z`` ``variety.rock_field`` of the map (``rock_variety_scale``, ``_octaves``, ``_contrast``,
    ``_strike``, ``_stretch``; seeded by ``routing_seed``), ``rock_variety_diffusion`` ``s_D`` the diffusivity
    by ``exp(-s_D·z)``, ``rock_variety_slope`` ``s_S`` the critical slope by ``exp(-s_S·min(z, 0))`` and
    ``rock_variety_heads`` ``s_H`` the channel head area by ``exp(-s_H·z)``; ``rain_variety``,
    ``rain_variety_scale`` and ``rain_height`` weigh the drainage area by ``variety.rain_field`` (stochastic or
    orographic runoff; None: even rain);
    last, ``rock_detail`` adds ``variety.rock_detail``'s texture on the slopes, in metres, off the channels (the
    drainage area in cells of the fine grid), and on a map finer than the fine grid ``keep_drainage`` keeps that
    share of every cell's drop on the map before the detail (``multiscale.keep_drainage``: the texture closes no
    pit on the map's own cells; with ``drain_lakes`` that map's own pits are filled first, so none is left); then
    ``scour_depth`` carves ``variety.scour``'s knobs and closed rock basins into the gentle ground (weighed by
    the slopes before the detail, on the fine grid). With
    ``fine_size`` the
    stage's numbers mean the same at every sample count: a terrain built at any size gets the same rivers
    (docs/scale.md)."""
    model = {option.name: options[option.name] for option in FLUVIAL_OPTIONS}
    if options[NOISE_UPLIFT.name]:
        low, span = float(heights.min()), float(np.ptp(heights))
        share = (heights - low) / span if span > 0.0 else heights * 0.0
        contrast = float(options[UPLIFT_CONTRAST.name])
        model["uplift"] = float(model["uplift"]) * ((1.0 - contrast) + contrast * share)
        del share  # engine sizes: one map-sized array fewer while the landscape evolves
    size = int(options["fine_size"])
    unit = cell_size if size == 0 else cell_size * (max(heights.shape) - 1) / (size - 1)  # a fine grid's cell
    cells = heights / unit
    if options["rock_layers"] > 0.0 and options[ROCK_DIP.name] > 0.0:
        rows, columns = heights.shape
        angle = math.radians(float(options[ROCK_DIP_DIRECTION.name]))
        y, x = np.mgrid[0:rows, 0:columns] * (cell_size / unit)
        model["rock_offset"] = float(options[ROCK_DIP.name]) * (x * math.cos(angle) + y * math.sin(angle))
    variety, hillslopes = float(options[ROCK_VARIETY.name]), float(options[ROCK_VARIETY_DIFFUSION.name])
    steeper = float(options[ROCK_VARIETY_SLOPE.name]) if float(model["critical_slope"]) > 0.0 else 0.0
    heads = float(options[ROCK_VARIETY_HEADS.name]) if float(model["channel_head_area"]) > 0.0 else 0.0
    if variety > 0.0 or hillslopes != 0.0 or steeper > 0.0 or heads != 0.0:
        factor = rock_field(heights.shape, scale=options[ROCK_VARIETY_SCALE.name], seed=int(options["routing_seed"]),
                            octaves=options[ROCK_VARIETY_OCTAVES.name], contrast=options[ROCK_VARIETY_CONTRAST.name],
                            strike=options[ROCK_VARIETY_STRIKE.name],
                            stretch=options[ROCK_VARIETY_STRETCH.name])  # fmt: skip
    pace = float(options[ROCK_VARIETY_PACE.name]) if variety > 0.0 else 0.0
    # the rates in rock z (strong z < 0; s rock_variety, u its uplift share, d its diffusion, p its pace: all
    # three over exp(p·s·z), their ratios, the steady state, kept): U·exp((u - p)·s·z), K·exp((1 - p)·s·z) and
    # D·exp(-(d + p·s)·z)
    lifting = float(options[ROCK_VARIETY_UPLIFT.name]) - pace
    eroding = 1.0 - pace
    spreading = hillslopes + pace * variety
    if (hillslopes != 0.0 or pace > 0.0) and float(model["diffusion"]) > 0.0:  # strong rock diffuses at its own rate
        model["diffusion"] = float(model["diffusion"]) * np.exp(-spreading * factor)
    if steeper > 0.0:  # strong rock (z < 0) stands steeper
        model["critical_slope"] = float(model["critical_slope"]) * np.exp(-steeper * np.minimum(factor, 0.0))
    if heads != 0.0:  # strong rock (z < 0) holds larger faces above its channel heads
        model["channel_head_area"] = float(model["channel_head_area"]) * np.exp(-heads * factor)
    if variety > 0.0:
        factor *= variety
        lifted = np.exp(lifting * factor) if lifting != eroding else None  # U/K times exp((u - 1)·s·z)
        factor *= eroding
        np.exp(factor, out=factor)  # K, and U alike with u 1: U/K, the relief, stays
        if isinstance(model["uplift"], np.ndarray):
            model["uplift"] *= factor if lifted is None else lifted
        else:
            model["uplift"] = model["uplift"] * (factor if lifted is None else lifted)
        del lifted
        factor *= float(model["erodibility"])
        model["erodibility"] = factor
    rain = rain_field(heights, variety=options[RAIN_VARIETY.name], scale=options[RAIN_VARIETY_SCALE.name],
                      height=options[RAIN_HEIGHT.name], seed=int(options["routing_seed"]))  # fmt: skip
    if rain is not None:  # the runoff weighting the drainage area (None: even rain, today's bits)
        model["precipitation"] = rain
    del rain
    if options["boundary"] == "closed" and options[OUTLET_AREA.name] > 0.0:  # in cells of the map
        model["outlets"] = river_exits(cells, options[OUTLET_AREA.name] * (unit / cell_size) ** 2)
    result = evolve_landscape(cells, cell_size=cell_size / unit, progress=lambda *_: advance(1), **model)
    model.clear()  # engine sizes: the uplift and erodibility maps are not needed below
    lowest, relief = float(cells.min()), float(np.ptp(cells))
    del cells
    after = result.heights.astype(np.float64)
    span = float(np.ptp(after))
    if options[KEEP_RELIEF.name] and span > 0.0:
        after -= after.min()
        after *= relief / span
        after += lowest
    if any(options[option.name] > 0.0 for option in (FLOOR, GLACIER_DEPTH, TRUNK_FILL, FILL)):
        fine = multiscale.model_shape(after.shape, size, "fine_size")
        small = after if fine is None else resample.resample_bilinear(after, fine)
        floored = small
        if options[FLOOR.name] > 0.0:  # in cells of the fine grid (or the map's own)
            floored = widen_valleys(floored, width=options[FLOOR.name], area=options[FLOOR_AREA.name])
        if options[GLACIER_DEPTH.name] > 0.0:  # before the trunk fill, which fills the troughs' floors flat
            strong = None
            if options[GLACIER_ROCK.name] > 0.0 and variety > 0.0:  # the rock field on this grid: narrower troughs
                strong = rock_field(floored.shape, scale=options[ROCK_VARIETY_SCALE.name],
                                    seed=int(options["routing_seed"]), octaves=options[ROCK_VARIETY_OCTAVES.name],
                                    contrast=options[ROCK_VARIETY_CONTRAST.name],
                                    strike=options[ROCK_VARIETY_STRIKE.name],
                                    stretch=options[ROCK_VARIETY_STRETCH.name])  # fmt: skip
            floored = carve_troughs(floored, depth=options[GLACIER_DEPTH.name], area=options[GLACIER_AREA.name],
                                    width=options[GLACIER_WIDTH.name], rock=strong,
                                    rock_width=options[GLACIER_ROCK.name],
                                    wall_slope=options[GLACIER_WALL_SLOPE.name],
                                    floor_grade=options[GLACIER_FLOOR_GRADE_OPTION.name],
                                    overdeepen=options[GLACIER_OVERDEEPEN.name])  # fmt: skip
        if options[TRUNK_FILL.name] > 0.0:
            floored = aggrade_valleys(floored, depth=options[TRUNK_FILL.name], area=options[TRUNK_FILL_AREA.name])
        if options[FILL.name] > 0.0:
            floored = fill_valleys(floored, depth=options[FILL.name])
        if fine is None:
            after = floored
        elif options[multiscale.FLOOR_INTERPOLATION.name] == "spline":  # as the rivers' fine_interpolation
            multiscale.add_change_spline(after, multiscale.band_limited(floored - small))
        else:  # on the fine grid, its change interpolated: the floors of the same valleys at every size
            multiscale.add_change(after, floored - small)
    area = result.drainage_area.astype(np.float64) * (unit / cell_size) ** 2  # in the map's cells
    after *= unit
    metres = after
    textured = metres
    if options[ROCK_DETAIL.name] > 0.0:  # on the map's own cells, in metres: the same texture at every size
        textured = rock_detail(metres, cell_size=cell_size, amplitude=options[ROCK_DETAIL.name],
                               wavelength=options[ROCK_DETAIL_SCALE.name], seed=int(options["routing_seed"]),
                               area=result.drainage_area)  # in cells of the fine grid  # fmt: skip
    fine = multiscale.model_shape(metres.shape, size, "fine_size")  # None: the map is no finer than the fine grid
    share = float(options[multiscale.KEEP_DRAINAGE.name])
    if share > 0.0 and fine is not None:
        textured = multiscale.keep_drainage(metres, textured, share, bool(options[multiscale.DRAIN_LAKES.name]))
    if options[SCOUR_DEPTH.name] > 0.0:  # after keep_drainage: its closed basins are the point
        ground = metres if fine is None else resample.resample_bilinear(metres, fine)  # the weight's slopes
        textured = scour(textured, cell_size=cell_size, depth=options[SCOUR_DEPTH.name],
                         wavelength=options[SCOUR_SCALE.name], seed=int(options["routing_seed"]),
                         ground=ground)  # fmt: skip
        del ground
    metres = textured
    return StageResult(metres, area, result.rivers.astype(np.float32))


def _droplets(heights: np.ndarray, cell_size: float, options: dict, advance, notice: Notice) -> StageResult:
    """Droplet (hydraulic) erosion (``erosion.erode_hydraulic``) of the heights as float32."""
    cells = np.asarray(heights, dtype=np.float32)
    contrast = options.pop(STRATA.name)
    if erosion.compile_state(hydraulic_kinds(cells.shape, cell_size=cell_size, **options)) == "uncompiled":
        notice(EROSION_NOTICE)
    shown = [0]

    def progress(done: int, total: int) -> None:
        now = DROPLET_STEPS * done // max(total, 1)
        advance(now - shown[0])
        shown[0] = now

    result = erode_hydraulic(cells, progress, cell_size=cell_size, **options, **rock(cells, cell_size, contrast))
    advance(DROPLET_STEPS - shown[0])
    return StageResult(result.heights, eroded=result)


def _thermal(heights: np.ndarray, cell_size: float, options: dict, advance, notice: Notice) -> StageResult:
    """Thermal erosion (``erosion.erode_thermal``) of the heights as float32."""
    if erosion.compile_state(("thermal",)) == "uncompiled":
        notice(EROSION_NOTICE)
    cells = np.asarray(heights, dtype=np.float32)
    contrast = options.pop(STRATA.name)
    result = erode_thermal(cells, cell_size=cell_size, **options, **rock(cells, cell_size, contrast))
    advance(1)
    return StageResult(result.heights, eroded=result)


DROPLET_STEPS = 100
EROSION_NOTICE = "Compiling erosion - first use only, this takes a few seconds"
STAGES: dict[str, StageKind] = {
    kind.name: kind
    for kind in (
        StageKind("rivers", RIVER_OPTIONS, "Rivers and uplift: the stream power law", _rivers,
                  lambda options: int(options["steps"])),
        StageKind("droplets", (*HYDRAULIC_OPTIONS, STRATA), "Hydraulic erosion by droplets", _droplets,
                  lambda _options: DROPLET_STEPS),
        StageKind("thermal", (*THERMAL_OPTIONS, STRATA), "Thermal erosion: slopes above the talus angle slide",
                  _thermal, lambda _options: 1),
    )
}  # fmt: skip
"""The stages a recipe may list, by name: a new stage is one more row."""


def as_stored(value: Any) -> Any:
    """``value`` with every float as float32 keeps it, recursively through tuples, lists and dicts: a recipe's
    numbers are what Blender's float properties hold, so a terrain is built from the same bits everywhere."""
    if isinstance(value, float):
        return float(np.float32(value))
    if isinstance(value, (tuple, list)):
        return type(value)(as_stored(item) for item in value)
    if isinstance(value, dict):
        return {name: as_stored(item) for name, item in value.items()}
    return value


@dataclass(frozen=True)
class Stage:
    """One erosion stage of a recipe: the ``STAGES`` row ``kind`` and every one of its options (checked)."""

    kind: str
    options: dict = field(default_factory=dict)

    @classmethod
    def of(cls, kind: str, options: Mapping | None = None, path: str = "stage") -> Stage:
        """The stage ``kind`` with ``options`` checked by its rows (those left out at their defaults); ``ValueError``
        naming ``path.option`` for an unknown stage or option, or a bad value."""
        row = STAGES.get(kind) if isinstance(kind, str) else None
        if row is None:
            raise ValueError(f"{path}: no stage {kind!r}; the stages: {', '.join(STAGES)}")
        given = dict(options or {})
        rows = {option.name: option for option in row.options}
        unknown = sorted(set(given) - set(rows))
        if unknown:
            former = FORMER_RIVER_OPTIONS.get(unknown[0], "") if kind == "rivers" else ""
            raise ValueError(f"{path}.{unknown[0]}: not an option of stage {kind!r}{former} (its options: "
                             f"{', '.join(rows)})")  # fmt: skip
        checked = {name: _check(option, given.get(name, option.default), path) for name, option in rows.items()}
        return cls(kind, as_stored(checked))


def _check(option: Option, value: object, path: str) -> Any:
    """``option.check(value)`` with its message's leading name as ``path.name``."""
    try:
        return option.check(value)
    except (TypeError, ValueError) as error:
        message = str(error)
        raise type(error)(f"{path}.{message}" if message.startswith(option.name) else f"{path}.{option.name}: "
                          f"{message}") from None  # fmt: skip


@dataclass(frozen=True)
class Recipe:
    """A terrain (module docstring). Make one with ``recipe(...)``, ``from_dict`` or ``read_recipe``: those
    check every value and keep the numbers as float32 (``as_stored``)."""

    noise: NoiseSpec = field(default_factory=NoiseSpec)
    domain: Domain = field(default_factory=Domain)
    size: float = 2.0
    height: float = 0.5
    offset: tuple[float, float] = (0.0, 0.0)
    falloff: str = "NONE"
    falloff_width: float = 0.3
    base: dict | None = None
    """``BASE_OPTIONS`` by name (``base_blend`` ADD), or None: no base heightmap."""
    stages: tuple[Stage, ...] = ()
    maps: tuple[str, ...] = ()
    """Terrain maps (``terrain.maps.MAP_NAMES``) to write with the heights."""
    splat: tuple | None = None
    """Splat layers (``terrain.splat.check_layers``' dicts) to write with the heights, or None."""
    export: dict = field(default_factory=lambda: {option.name: option.default for option in EXPORT_OPTIONS})
    water: dict | None = None
    """``terrain.water.WATER_OPTIONS`` by name: lakes, rivers and the flow map to write with the heights, or None."""

    def with_stages(self, *stages: Stage) -> Recipe:
        """This recipe with ``stages`` run after its own."""
        return replace(self, stages=(*self.stages, *stages))


def stored_spec(spec: NoiseSpec) -> NoiseSpec:
    """``spec`` with every float field that applies to it as float32 keeps it (``as_stored``)."""
    changes = {}
    for option in (*COMMON_OPTIONS, *kind_info(spec.kind).options):
        value = getattr(spec, option.name)
        if isinstance(value, (float, tuple)) and (option.requires is None or option.requires.holds(spec)):
            changes[option.name] = as_stored(value)
    return replace(spec, **changes)


def stored_domain(domain: Domain) -> Domain:
    """``domain`` with its numbers as float32 keeps them."""
    return replace(
        domain,
        offset=as_stored(tuple(domain.offset)),
        rotation=as_stored(tuple(domain.rotation)),
        scale=as_stored(tuple(domain.scale)),
        w=as_stored(float(domain.w)),
    )


def _noise_values(spec: NoiseSpec) -> dict:
    """The fields of ``spec`` that apply to its kind (the common ones whose condition holds, the kind's own)."""
    values = {}
    for option in (*COMMON_OPTIONS, *kind_info(spec.kind).options):
        if option.requires is None or option.requires.holds(spec):
            value = getattr(spec, option.name)
            if value is not None:
                values[option.name] = list(value) if isinstance(value, tuple) else value
    return values


def _plain(value: Any) -> Any:
    """``value`` ready for JSON: tuples as lists, floats as the shortest text float32 reads back the same."""
    if isinstance(value, float):
        return float(str(np.float32(value))) if math.isfinite(value) else value
    if isinstance(value, (tuple, list)):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {name: _plain(item) for name, item in value.items()}
    return value


def to_dict(recipe: Recipe) -> dict:
    """``recipe`` as the JSON-ready dict ``write_recipe`` writes (``from_dict`` reads it back equal)."""
    if not isinstance(recipe, Recipe):
        raise TypeError(f"recipe: expected a Recipe, got {type(recipe).__name__}")
    record: dict[str, Any] = {"version": VERSION}
    record.update({option.name: getattr(recipe, option.name) for option in TERRAIN_OPTIONS})
    record["noise"] = {**_noise_values(recipe.noise), "domain": asdict(recipe.domain)}
    if recipe.base is not None:
        record["base"] = {name.removeprefix("base_"): value for name, value in recipe.base.items()}
    record["stages"] = [{"stage": stage.kind, **stage.options} for stage in recipe.stages]
    record["maps"] = list(recipe.maps)
    if recipe.splat is not None:
        record["splat"] = list(recipe.splat)
    record["export"] = dict(recipe.export)
    if recipe.water is not None:
        record["water"] = dict(recipe.water)
    return _plain(record)


TOP_KEYS = ("version", *(option.name for option in TERRAIN_OPTIONS), "noise", "base", "stages", "maps", "splat",
            "export", "water")  # fmt: skip


def _section(record: object, path: str, allowed: Sequence[str]) -> dict:
    """``record`` as a dict whose keys are all ``allowed``; ``ValueError`` naming ``path.key`` otherwise."""
    if not isinstance(record, Mapping):
        raise TypeError(f"{path}: expected an object of keys, got {type(record).__name__}")
    for key in record:
        if key not in allowed:
            raise ValueError(f"{path}.{key}: unknown key; the keys: {', '.join(allowed)}")
    return dict(record)


def from_dict(record: object, path: str = "recipe") -> Recipe:
    """The ``Recipe`` of ``record`` (as ``to_dict`` makes, e.g. read from JSON), every value checked by its
    ``schema.Option`` row, left-out keys at their defaults; ``ValueError``/``TypeError`` naming the key's path
    (``recipe.stages[1].talus_angle: ...``) for an unknown key, a bad value or another ``version``."""
    top = _section(record, path, TOP_KEYS)
    if "version" not in top:
        raise ValueError(f"{path}.version: missing; this reads recipe files of version {VERSION}")
    if top["version"] != VERSION or isinstance(top["version"], bool):
        raise ValueError(f"{path}.version: {top['version']!r} is not {VERSION}, the version this reads")
    values: dict[str, Any] = {
        option.name: _check(option, top.get(option.name, option.default), path) for option in TERRAIN_OPTIONS
    }
    noise = _section(top.get("noise", {}), f"{path}.noise", (*options_by_name(), "domain"))
    domain_values = _section(noise.pop("domain", {}), f"{path}.noise.domain", [o.name for o in DOMAIN_OPTIONS])
    domain = Domain(**{o.name: _check(o, domain_values.get(o.name, o.default), f"{path}.noise.domain")
                       for o in DOMAIN_OPTIONS})  # fmt: skip
    try:
        spec = NoiseSpec(**{name: tuple(value) if isinstance(value, list) else value for name, value in noise.items()})
    except (TypeError, ValueError) as error:
        raise type(error)(f"{path}.noise.{error}") from None
    if domain.dimensions not in kind_info(spec.kind).dims:
        raise ValueError(f"{path}.noise.domain.dimensions: kind {spec.kind!r} has no {domain.dimensions}D noise")
    base = None
    if top.get("base") is not None:
        names = [option.name.removeprefix("base_") for option in BASE_OPTIONS]
        given = _section(top["base"], f"{path}.base", names)
        base = {option.name: _check(option, given.get(option.name.removeprefix("base_"), option.default),
                                    f"{path}.base") for option in BASE_OPTIONS}  # fmt: skip
        base = None if base["base_blend"] == "NONE" else base
    stages = top.get("stages", [])
    if not isinstance(stages, list):
        raise TypeError(f"{path}.stages: expected a list of stages, got {type(stages).__name__}")
    checked_stages = []
    for index, stage in enumerate(stages):
        where = f"{path}.stages[{index}]"
        if not isinstance(stage, Mapping) or "stage" not in stage:
            raise ValueError(f"{where}: expected an object with a 'stage' key naming one of {', '.join(STAGES)}")
        options = {name: value for name, value in stage.items() if name != "stage"}
        checked_stages.append(Stage.of(stage["stage"], options, where))
    maps = top.get("maps", [])
    if not isinstance(maps, list) or any(name not in MAP_NAMES for name in maps):
        raise ValueError(f"{path}.maps: expected a list of map names from {', '.join(MAP_NAMES)}, got {maps!r}")
    splat = top.get("splat")
    if splat is not None:
        try:
            check_layers(splat)
        except (TypeError, ValueError) as error:
            raise type(error)(f"{path}.splat: {error}") from None
        splat = tuple(splat)
    export = _section(top.get("export", {}), f"{path}.export", [option.name for option in EXPORT_OPTIONS])
    if isinstance(export.get("engine"), str):  # an engine's name in any case, as the command line takes it
        export["engine"] = export["engine"].lower()
    export = {option.name: _check(option, export.get(option.name, option.default), f"{path}.export")
              for option in EXPORT_OPTIONS}  # fmt: skip
    water = None
    if top.get("water") is not None:
        given = _section(top["water"], f"{path}.water", [option.name for option in WATER_OPTIONS])
        water = as_stored({option.name: _check(option, given.get(option.name, option.default), f"{path}.water")
                           for option in WATER_OPTIONS})  # fmt: skip
    return Recipe(
        noise=stored_spec(spec), domain=stored_domain(domain), **as_stored(values), base=as_stored(base),
        stages=tuple(checked_stages), maps=tuple(maps), splat=splat, export=export, water=water,
    )  # fmt: skip


def recipe(noise: NoiseSpec | None = None, domain: Domain | None = None, **values: Any) -> Recipe:
    """A checked ``Recipe`` of ``noise`` on ``domain`` and the other fields by name (``stages`` as ``Stage``
    records or ``{"stage": name, ...}`` dicts); as ``from_dict`` checks them."""
    unknown = sorted(set(values) - {f.name for f in fields(Recipe)})
    if unknown:
        raise TypeError(f"{unknown[0]}: not a recipe field")
    stages = [
        {"stage": stage.kind, **stage.options} if isinstance(stage, Stage) else stage
        for stage in values.pop("stages", ())
    ]
    draft = Recipe(noise=NoiseSpec() if noise is None else noise, domain=Domain() if domain is None else domain)
    record = to_dict(draft) | {"stages": stages}
    for name, value in values.items():
        if name == "base":
            value = None if value is None else {key.removeprefix("base_"): item for key, item in value.items()}
        record[name] = _plain(value)
    return from_dict(record)


def read_recipe(path: str | Path) -> Recipe:
    """The recipe in the JSON file ``path``; ``ValueError`` starting with ``path`` (a bad file) or the key's path."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ValueError(f"path: cannot read the recipe {str(path)!r}: {error.strerror or error}") from None
    try:
        record = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"path: {str(path)!r} is not JSON: {error}") from None
    return from_dict(record, path.name)


def recipe_text(recipe: Recipe) -> str:
    """The text of ``recipe``'s file (JSON, indented)."""
    return json.dumps(to_dict(recipe), indent=1) + "\n"


def write_recipe(recipe: Recipe, path: str | Path) -> Path:
    """Write ``recipe`` to the JSON file ``path``, whole or not at all (``io.files.replacing``)."""
    from ..io.files import replacing

    text = recipe_text(recipe)
    with replacing(Path(path)) as temporary:
        temporary.write_text(text, encoding="utf-8")
    return Path(path)


@dataclass(frozen=True)
class TerrainHeights:
    """``build_terrain``'s result: ``heights`` (rows, columns) float64, row 0 at ``y = -size / 2`` (``float32``
    gives what a mesh or a file holds); what all stages took and left (``erosion``, ``deposition``, None without
    stages); the rivers' ``drainage_area`` (cells) and ``river`` mask (None without rivers); ``cell_size``; the
    depths of loose ``sediment`` and ``talus`` the stages left, stacked in their order (``layers.deposits``; None
    without stages)."""

    heights: np.ndarray
    cell_size: float
    erosion: np.ndarray | None = None
    deposition: np.ndarray | None = None
    drainage_area: np.ndarray | None = None
    river: np.ndarray | None = None
    sediment: np.ndarray | None = None
    talus: np.ndarray | None = None

    @property
    def float32(self) -> np.ndarray:
        return self.heights.astype(np.float32)


def _samples(samples: object, name: str) -> int:
    if isinstance(samples, bool) or not isinstance(samples, (int, np.integer)) or not 2 <= samples <= MAX_SAMPLES:
        raise ValueError(f"{name}: samples per side must be a whole number from 2 to {MAX_SAMPLES}, got {samples!r}")
    return int(samples)


def edge_factor(x: np.ndarray, y: np.ndarray, size: float, mode: str, width: float) -> np.ndarray | None:
    """The edge falloff at ``x``, ``y`` (arrays that broadcast together): ``smoothstep((1 - d) / width)`` of the
    distance ``d`` from the centre in half-sizes (``|x|``, ``|y|`` or their hypotenuse for X, Y, RADIAL); None for
    NONE."""
    if mode not in ("X", "Y", "RADIAL"):
        return None
    u = np.abs(x) / (size * 0.5)
    v = np.abs(y) / (size * 0.5)
    distance = {"X": u, "Y": v}.get(mode)
    distance = np.hypot(u, v) if distance is None else distance
    t = np.clip((1.0 - distance) / max(width, 1e-6), 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


def base_heights(base: dict, shape: tuple[int, int]) -> np.ndarray:
    """(rows, columns) heights of the ``base`` heightmap (``BASE_OPTIONS`` by name) on the grid (row 0 at -y): the
    file's values ``v`` (``io.heightmaps.read_heightmap``), resampled bilinearly when their size differs, as
    ``base_low + v (base_high - base_low)``; the file's first row is the +Y edge. ``ValueError`` naming
    ``base_file``."""
    if not base["base_file"]:
        raise ValueError("base_file: no heightmap file given; choose one, or set Base to None (noise only)")
    path = Path(base["base_file"])
    try:
        values = heightmaps.read_heightmap(path).values
    except (ValueError, TypeError, OSError) as error:
        message = str(error).removeprefix("path: ")
        raise ValueError(f"base_file: {message}" if str(path) in message else f"base_file: {str(path)!r}: {message}"
                         ) from None  # fmt: skip
    if min(values.shape) < 2:
        raise ValueError(f"base_file: {path.name!r} has {values.shape[1]} x {values.shape[0]} samples; 2 x 2 at least")
    samples = values.astype(np.float64)
    if samples.shape != shape:
        samples = resample.resample_bilinear(samples, shape)
    low, high = base["base_low"], base["base_high"]
    return (low + samples * (high - low))[::-1]


def noise_heights(recipe: Recipe, xs: np.ndarray, ys: np.ndarray, advance, notice: Notice) -> np.ndarray:
    """(len(ys), len(xs)) float32 noise at the grid's vertices ``(xs[c] + offset_x, ys[r] + offset_y, 0)``: 2D
    noise on XY without rotation on the lattice ``(x * scale_x + offset_x, y * scale_y + offset_y)``
    (``api.evaluate_lattice``), any other domain at the vertices moved into noise space in the kernel
    (``evaluate``'s ``transform``), the same bits as ``Domain.noise_points``."""
    spec, domain = recipe.noise, recipe.domain
    x, y = xs + recipe.offset[0], ys + recipe.offset[1]
    if domain.plane_is_lattice() and domain.plane == "XY":
        if least_ready(_lattice_plan(spec)) == "uncompiled":
            notice(noise_notice(spec.kind, 2))
        done = [0]

        def progress(rows: int, _total: int) -> None:
            advance((rows - done[0]) * xs.shape[0])
            done[0] = rows

        along_x = x * domain.scale[0] + domain.offset[0]
        along_y = y * domain.scale[1] + domain.offset[1]
        return evaluate_lattice(spec, along_x, along_y, progress)
    transform = domain.kernel_transform()
    points = np.zeros((y.shape[0], x.shape[0], 3), dtype=np.float64)
    points[:, :, 0] = x[None, :]
    points[:, :, 1] = y[:, None]
    points = points.reshape(-1, 3)
    dim = 3 if transform is None else transform.shape[0]
    if compile_state(spec, dim, np.float64, transform_width=None if transform is None else 3) == "uncompiled":
        notice(noise_notice(spec.kind, dim))
    out = np.empty(points.shape[0], dtype=np.float32)
    for start in range(0, points.shape[0], CHUNK):
        chunk = points[start : start + CHUNK]
        out[start : start + chunk.shape[0]] = evaluate(spec, chunk, transform=transform)
        advance(chunk.shape[0])
    return out.reshape(y.shape[0], x.shape[0])


def _lattice_plan(spec: NoiseSpec) -> list:
    """The kernels ``api.evaluate_lattice`` runs: ``api.plan``'s for a 2D lattice but the checks that tell one,
    which it does not run (it is given the axes); as the add-on's ``compile_status.lattice_plan``."""
    checks = {"_row_width", "_is_lattice"}
    return [step for step in plan(spec, 2, lattice=True)
            if getattr(getattr(step[0], "py_func", None), "__name__", "") not in checks]  # fmt: skip


def noise_notice(kind: str, dim: int) -> str:
    """The notice shown while the kernel of ``kind`` in ``dim`` dimensions compiles."""
    return f"Compiling {kind.replace('_', ' ')} noise ({dim}D) - first use only, this takes a few seconds"


def _finite(name: str, values: np.ndarray) -> None:
    bad = int(np.count_nonzero(~np.isfinite(values)))
    if bad:
        raise ValueError(f"{name}: {bad} of {values.size} values would be NaN or infinite with these settings")


def build_terrain(
    recipe: Recipe,
    samples: int,
    rows: int | None = None,
    *,
    progress: Progress | None = None,
    notice: Notice | None = None,
) -> TerrainHeights:
    """The terrain of ``recipe`` at ``samples`` columns and ``rows`` rows (default ``samples``): the noise, base and
    falloff (module docstring), then its stages in order (``STAGES``' functions, heights in metres, cells
    ``size / (samples - 1)`` apart; stages need a square grid). ``progress(stage, done, total)`` follows each
    stage (``Progress``: raising from it cancels), ``notice(text)`` says when kernels compile first.
    ``ValueError``/``TypeError`` naming the problem (``base_file``, ``stages[1].talus_angle``, ...)."""
    if not isinstance(recipe, Recipe):
        raise TypeError(f"recipe: expected a Recipe, got {type(recipe).__name__}")
    columns = _samples(samples, "samples")
    rows = columns if rows is None else _samples(rows, "rows")
    if rows * columns > MAX_CELLS:
        raise ValueError(f"samples: {columns} x {rows} samples exceed the limit of {MAX_CELLS} (8129 x 8129, about "
                         "8 GB at its peak); build larger terrains tile by tile (terrain.tiled)")  # fmt: skip
    report = progress or (lambda _stage, _done, _total: None)
    tell = notice or (lambda _text: None)
    half = recipe.size * 0.5
    xs, ys = np.linspace(-half, half, columns), np.linspace(-half, half, rows)
    base = None if recipe.base is None else base_heights(recipe.base, (rows, columns))
    if base is not None and recipe.height == 0.0:  # Height 0 on a base adds nothing: the noise is not evaluated
        heights = base
    else:
        report("noise", 0, rows * columns)
        done = [0]

        def advance(count: int) -> None:
            done[0] += count
            report("noise", done[0], rows * columns)

        try:
            noise = noise_heights(recipe, xs, ys, advance, tell)
        except ValueError as error:  # coordinates beyond the lattice: the noise space (offset, scale) says why
            raise ValueError(f"noise space {error}") from None
        _finite("noise", noise)
        raised = to_unit(recipe.noise, noise) * recipe.height
        heights = raised if base is None else base + raised
    factor = edge_factor(xs[None, :], ys[:, None], recipe.size, recipe.falloff, recipe.falloff_width)
    if factor is not None:
        heights = heights * factor
    heights = np.asarray(heights, dtype=np.float64)
    _finite("height: heights", heights.astype(np.float32))
    if not recipe.stages:
        return TerrainHeights(heights, recipe.size / math.sqrt((columns - 1) * (rows - 1)))
    if rows != columns:
        raise ValueError(
            f"samples: erosion needs square cells; {columns} x {rows} samples of a {recipe.size:g} square make "
            "them unequal: make them equal, or leave out the stages"
        )
    cell_size = recipe.size / (columns - 1)
    before = heights
    drainage = river = None
    results: list[ErosionResult] = []
    for index, stage in enumerate(recipe.stages):
        row = STAGES[stage.kind]
        total = row.steps(stage.options)
        report(stage.kind, 0, total)
        count = [0]

        def step(amount: int, kind: str = stage.kind, total: int = total, count: list = count) -> None:
            count[0] += amount
            report(kind, count[0], total)

        try:
            result = row.run(heights, cell_size, dict(stage.options), step, tell)
        except (TypeError, ValueError) as error:
            raise type(error)(f"stages[{index}].{error}") from None
        results.append(result.eroded or _laid(heights, result.heights))
        heights = result.heights
        _finite(f"stages[{index}] ({stage.kind}): heights", np.asarray(heights, dtype=np.float32))
        if result.drainage_area is not None:
            drainage, river = result.drainage_area, result.river
    sediment, talus = deposits(results)
    del results  # engine sizes: the stages' maps are not needed below
    change = heights.astype(np.float64) - before.astype(np.float32)
    lowered = np.negative(change)  # in place from here: one map-sized temporary fewer
    np.maximum(lowered, 0.0, out=lowered)
    np.maximum(change, 0.0, out=change)
    return TerrainHeights(
        heights.astype(np.float64),
        cell_size,
        lowered,
        change,
        drainage,
        river,
        sediment,
        talus,
    )


def _laid(before: np.ndarray, after: np.ndarray) -> ErosionResult:
    """A stage's change as an eroder's result: lowered ground eroded, raised ground sediment (the rivers')."""
    change = np.asarray(after, dtype=np.float64) - np.asarray(before, dtype=np.float64)
    erosion, deposition = np.maximum(-change, 0.0).astype(np.float32), np.maximum(change, 0.0).astype(np.float32)
    return ErosionResult(np.asarray(after, dtype=np.float32), erosion, deposition, float(erosion.sum()),
                         float(deposition.sum()), 0.0)  # fmt: skip


def build_heights(recipe: Recipe, samples: int, *, progress: Progress | None = None,
                  notice: Notice | None = None) -> np.ndarray:  # fmt: skip
    """(samples, samples) float32 heights of ``recipe`` (``build_terrain``), row 0 at ``y = -size / 2``."""
    return build_terrain(recipe, samples, progress=progress, notice=notice).float32


PRESETS = Path(__file__).parent / "presets"
"""The shipped presets: one recipe file per preset, ``NAME.json``."""


def preset_names() -> tuple[str, ...]:
    """The shipped presets' names, sorted."""
    return tuple(sorted(path.stem for path in PRESETS.glob("*.json")))


def preset_path(name: object) -> Path:
    """The recipe file of the shipped preset ``name``; ``ValueError`` naming ``preset`` and the presets."""
    names = preset_names()
    if not isinstance(name, str) or name not in names:
        raise ValueError(f"preset: no preset {name!r}; the presets: {', '.join(names)}")
    return PRESETS / f"{name}.json"


def read_preset(name: object) -> Recipe:
    """The shipped preset ``name``'s recipe (``preset_names``)."""
    return read_recipe(preset_path(name))
