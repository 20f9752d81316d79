"""Material layers of a terrain: snow, sediment and talus depth, moisture along water, rock strata.

Each layer is a float32 map of the heights' shape, named as the add-on's point attributes and the engine splat
channels name it (``LAYER_NAMES``). Heights and ``cell_size`` share one unit (metres in the add-on). Heights
"as a share of the range" are ``(z - min z) / (max z - min z)`` (0 on a flat map), so one setting suits any
terrain. All per-cell work runs in Numba kernels (range kernels over rows, or serial ones where the order is the
model's, as the avalanche's is); the bits never depend on the thread count.

**Snow** (``snow``, cover 0..1). Four factors, in the order snow falls, blows, slides and melts:

1. *Altitude*: the snowfall ``a = smoothstep((h - snow_line) / snow_blend)`` of the relative height ``h``
   (0 below the snow line, 1 at ``snow_line + snow_blend`` and above).
2. *Wind*: Winstral, Elder & Davis (2002), "Spatial snow modeling of wind-redistributed snow using terrain-based
   parameters" (J. Hydrometeorology 3): the maximum upwind slope ``Sx = max_d atan((z(x + d·w) - z(x)) / d)``
   over the points ``d = 1 .. wind_distance`` cells towards where the wind comes from (``w``, unit vector of
   ``wind_azimuth``; bilinear heights; 0 at the upwind edge). Sheltered cells (``Sx > 0``, behind a ridge)
   gather snow, exposed ones (``Sx < 0``, windward slopes and crests) are scoured: the snowfall is multiplied by
   ``clip(1 + wind·Sx / SHELTER_ANGLE, 0, 2)``.
3. *Sliding*: SnowSlide (Bernhardt & Schulz 2010, "SnowSlide: A simple routine for calculating gravitational
   snow transport", Geophys. Res. Lett. 37, L11502): cells are taken from the highest down; each keeps the share
   ``r = 1 - smoothstep((β - repose_angle + repose_blend/2) / repose_blend)`` of the snow it holds (its own plus
   what slid into it; SnowSlide's holding depth falls with the slope, here the share) and shares the rest among
   its lower neighbours in proportion to the slope to each (multiple flow directions, as SnowSlide routes it),
   so snow leaves faces steeper than the angle of repose and is added at their feet; snow is conserved (none
   leaves the map: a cell with no lower neighbour keeps it all).
4. *Melt*: the sun's incidence on the slope, ``cos i = cos Z·cos β + sin Z·sin β·cos(A_sun - A)`` (slope ``β``,
   aspect ``A``, the sun at zenith angle ``Z = 90° - sun_elevation`` and azimuth ``A_sun``, both clockwise from
   +y; Iqbal 1983, "An Introduction to Solar Radiation", §1.6), against flat ground's ``cos Z``: the excess
   ``e = max(0, cos i - cos Z) / (1 - cos Z)`` (1 on a slope facing the sun straight on) melts the share
   ``melt·e`` of the snow (the radiation index of snowmelt models, e.g. Hock 1999, "A distributed
   temperature-index ice- and snowmelt model including potential direct solar radiation", J. Glaciology 45).

The cover is the snow that stays, ``clip(s·(1 - melt·e), 0, 1)`` (an avalanche's deposit can pass 1 cover).

**Sediment and talus** (``deposits``, depth in the heights' unit). Each erosion stage's result carries its
deposition as sediment (droplets, gullies, stream power: ``ErosionResult.sediment``, a ``FluvialResult``'s
``deposition``) or as talus (thermal: ``ErosionResult.talus``). Stacked in the order the stages ran, a stage's
erosion first takes the loose cover (sediment and talus in proportion to their depths), then its deposition is
laid on as its material: ``s' = s·(1 - k) + d_s``, ``t' = t·(1 - k) + d_t`` with ``k = min(1, e / (s + t))``.
What is left is how deep each material lies on the bedrock, not only where it fell.

**Moisture** (``moisture``, 0..1). Wetness along water: with ``D`` the distance to the nearest water cell (a
lake, ``depth > 0``, or a river cell; 8-neighbour chamfer distance with steps 1 and √2 cells, exact along rows,
columns and diagonals: Borgefors 1986, "Distance transformations in digital images") and ``H`` the height above
that water's surface (carried along with the distance), ``near = exp(-D / moisture_distance)·exp(-max(0, H) /
moisture_height)``; joined with the topographic wetness index ``TWI`` (``maps.wetness_index``, Beven & Kirkby
1979) scaled to 0..1 over the map, ``moisture = 1 - (1 - near)·(1 - wetness_weight·TWI')``.

**Strata** (``strata``, hardness 0..1 and the band id). Rock layers as in Gaea's Stratify, placed in a
stratigraphic coordinate ``u = h - tan(strata_tilt)·(x sin φ + y cos φ) / range + strata_warp·strata_spacing·n``
(the relative height ``h``, the dip direction ``φ = strata_azimuth``, ``n`` Perlin noise in [-1, 1]): band
``b = floor(u / strata_spacing)``; the upper ``strata_hard_share`` of each band is hard rock (a cap rock of
hardness ``1 - strata_variation·ξ_b``, ``ξ_b`` in [0, 1) hashed from the band and ``strata_seed``), the rest
soft (0). ``erodibility(hardness)`` = ``1 - strata_contrast·hardness`` is the multiplier the eroders take
(``erode_hydraulic``/``erode_thermal`` ``erodibility=``, ``erode_fluvial``'s ``erodibility = K·that``): hard
bands erode slower and stand steeper, so slopes break into cliffs and benches (Forte, Yanites & Whipple 2016,
"Complexities of landscape evolution during incision through layered stratigraphy with contrasts in rock
strength", Earth Surf. Process. Landforms 41; Tucker & Slingerland 1994).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .._jit import jit, kernel_table
from ..hashing import avalanche, eat, hash_seed
from ..runtime import launch_blocks
from ..schema import Option, choice
from ..threads import on_threads
from .erosion import ErosionResult
from .fluvial import FluvialResult
from .heightfield import CELL_SIZE, NEIGHBOURS
from .maps import as_heights, aspect, slope, wetness_index
from .resample import bilinear_at
from .stream_power import index_mask

SHELTER_ANGLE = math.radians(30.0)
"""The upwind slope ``Sx`` at which full ``wind`` doubles the snowfall (and its negative scours it all)."""

SNOW_OPTIONS: tuple[Option, ...] = (
    Option("snow_line", float, 0.55, "Height where snow begins, as a share of the height range (0: lowest, 1: "
           "highest; below 0: everywhere)", minimum=-1.0, maximum=2.0, soft_minimum=0.0, soft_maximum=1.0),
    Option("snow_blend", float, 0.15, "Height over which the snowfall rises from none to full, as a share of the "
           "height range", minimum=0.0, above=True, maximum=2.0, ui_minimum=1e-3, soft_maximum=0.5),
    Option("repose_angle", float, 38.0, "Snow slides off slopes steeper than this, in degrees, and lies at their "
           "feet", minimum=0.0, maximum=90.0),
    Option("repose_blend", float, 10.0, "Range of slope, in degrees, over which snow goes from staying to "
           "sliding", minimum=0.0, above=True, maximum=90.0, ui_minimum=0.1),
    Option("sun_azimuth", float, 180.0, "Direction of the sun, in degrees clockwise from +y", minimum=0.0,
           maximum=360.0),
    Option("sun_elevation", float, 35.0, "Height of the sun above the horizon, in degrees", minimum=1.0,
           maximum=90.0),
    Option("melt", float, 0.6, "Share of the snow melted on a slope facing the sun straight on", minimum=0.0,
           maximum=1.0),
    Option("wind_azimuth", float, 270.0, "Direction the wind comes from, in degrees clockwise from +y",
           minimum=0.0, maximum=360.0),
    Option("wind", float, 0.5, "Strength of the wind's drifting: snow blown off crests into lees (0: none)",
           minimum=0.0, maximum=1.0),
    Option("wind_distance", int, 16, "How far upwind the shelter is looked for, in cells", minimum=1,
           maximum=1024, soft_maximum=128),
)  # fmt: skip
MOISTURE_OPTIONS: tuple[Option, ...] = (
    Option("moisture_distance", float, 8.0, "Distance from water over which the moisture falls to 1/e, in cells",
           minimum=0.0, above=True, maximum=1e6, ui_minimum=0.01, soft_maximum=64.0),
    Option("moisture_height", float, 0.05, "Height above the water over which the moisture falls to 1/e, as a "
           "share of the height range", minimum=0.0, above=True, maximum=100.0, ui_minimum=1e-4, soft_maximum=0.5),
    Option("wetness_weight", float, 0.5, "Share of the topographic wetness index in the moisture", minimum=0.0,
           maximum=1.0),
)  # fmt: skip
STRATA_OPTIONS: tuple[Option, ...] = (
    Option("strata_spacing", float, 0.08, "Thickness of a rock band, as a share of the height range", minimum=0.0,
           above=True, maximum=10.0, ui_minimum=1e-3, soft_maximum=0.5),
    Option("strata_hard_share", float, 0.35, "Share of each band that is hard rock (its top)", minimum=0.0,
           maximum=1.0),
    Option("strata_variation", float, 0.5, "How much the hard rock's hardness varies from band to band",
           minimum=0.0, maximum=1.0),
    Option("strata_tilt", float, 4.0, "Dip of the layers, in degrees", minimum=0.0, maximum=80.0),
    Option("strata_azimuth", float, 45.0, "Direction the layers rise towards, in degrees clockwise from +y",
           minimum=0.0, maximum=360.0),
    Option("strata_warp", float, 0.6, "Folding of the layers by noise, in band thicknesses", minimum=0.0,
           maximum=10.0, soft_maximum=3.0),
    Option("strata_seed", int, 0, "Seed of the bands' hardness and folding", minimum=-(2**31), maximum=2**31 - 1),
    Option("strata_contrast", float, 0.8, "How much slower hard rock erodes: erodibility 1 - contrast x hardness",
           minimum=0.0, maximum=0.99),
)  # fmt: skip
LAYER_OPTIONS: tuple[Option, ...] = (*SNOW_OPTIONS, *MOISTURE_OPTIONS, *STRATA_OPTIONS)
"""Every layer's settings, by name: the command line's flags and the add-on's properties."""
LAYER_NAMES = ("snow", "sediment", "talus", "moisture", "strata", "strata_band")
"""The layers ``compute_layers`` makes: snow cover 0..1, sediment and talus depth (heights' unit), moisture
0..1, rock hardness 0..1 and the rock band's id."""
STRATA_FREQUENCY = 3.0
"""Cycles of the strata's folding noise across the map."""


def _values(options: tuple[Option, ...], given: dict) -> dict:
    """``given`` checked against ``options`` (the defaults filling in); ``TypeError`` naming an unknown one."""
    names = {option.name for option in options}
    unknown = sorted(set(given) - names)
    if unknown:
        raise TypeError(f"{unknown[0]}: not a layer option; allowed: {', '.join(sorted(names))}")
    return {option.name: option.check(given.get(option.name, option.default)) for option in options}


def _relative(z: np.ndarray) -> tuple[float, float]:
    """``(min z, range)``; the range 1 on a flat map (every relative height 0)."""
    low, high = float(z.min()), float(z.max())
    return low, (high - low) if high > low else 1.0


@jit
def _smoothstep(t):
    """0 for ``t <= 0``, 1 for ``t >= 1``, ``3t² - 2t³`` between."""
    t = min(max(t, 0.0), 1.0)
    return t * t * (3.0 - 2.0 * t)


def _snowfall_kernel(first, last, z, low, span, line, blend, wx, wy, reach, cell, wind, out):
    """Rows ``first`` to ``last - 1`` of the snowfall before sliding: altitude times wind (module doc, 1-2)."""
    if first < 0:  # the launch
        on_threads(last)
        return
    rows, columns = z.shape
    for row in range(first, last):
        for column in range(columns):
            h = z[row, column]
            fall = _smoothstep(((h - low) / span - line) / blend)
            if wind > 0.0 and fall > 0.0:
                shelter = -np.inf
                for d in range(1, reach + 1):
                    x, y = column + d * wx, row + d * wy
                    if not (0.0 <= x <= columns - 1 and 0.0 <= y <= rows - 1):
                        break
                    shelter = max(shelter, math.atan((bilinear_at(z, x, y) - h) / (d * cell)))
                if shelter > -np.inf:
                    fall *= min(max(1.0 + wind * shelter / SHELTER_ANGLE, 0.0), 2.0)
            out[row, column] = fall


def _slide(z, order, keep, snow):
    """SnowSlide (module doc, 3): the cells in ``order`` (highest first) keep the share ``keep`` of their snow
    and share the rest among their lower neighbours in proportion to the slope to each; ``snow`` (flat, float64)
    in place."""
    rows, columns = z.shape
    flat = z.reshape(-1)
    for c in order:
        moved = snow[c] * (1.0 - keep[c])
        if not moved > 0.0:
            continue
        row, column = c // columns, c % columns
        total = 0.0
        for k in range(8):
            y, x = row + NEIGHBOURS[k, 0], column + NEIGHBOURS[k, 1]
            if 0 <= y < rows and 0 <= x < columns and z[y, x] < flat[c]:
                total += (flat[c] - z[y, x]) / math.sqrt(np.float64(NEIGHBOURS[k, 0] ** 2 + NEIGHBOURS[k, 1] ** 2))
        if total > 0.0:
            snow[c] -= moved
            for k in range(8):
                y, x = row + NEIGHBOURS[k, 0], column + NEIGHBOURS[k, 1]
                if 0 <= y < rows and 0 <= x < columns and z[y, x] < flat[c]:
                    drop = (flat[c] - z[y, x]) / math.sqrt(np.float64(NEIGHBOURS[k, 0] ** 2 + NEIGHBOURS[k, 1] ** 2))
                    snow[y * columns + x] += moved * drop / total


def _melt_kernel(first, last, snow, slope, aspect, cos_z, sin_z, azimuth, melt, repose, blend, out):
    """Rows ``first`` to ``last - 1``: ``out`` = the cover after melt (``snow`` slid), or, when ``snow`` has no
    rows, the share each cell keeps while sliding (module doc, 3-4)."""
    if first < 0:  # the launch
        on_threads(last)
        return
    columns = out.shape[1]
    for row in range(first, last):
        for column in range(columns):
            beta = math.radians(slope[row, column])
            if snow.shape[0] == 0:
                out[row, column] = 1.0 - _smoothstep((slope[row, column] - repose + 0.5 * blend) / blend)
                continue
            incidence = cos_z * math.cos(beta) + sin_z * math.sin(beta) * math.cos(azimuth - math.radians(
                max(aspect[row, column], 0.0)))  # fmt: skip
            excess = max(incidence - cos_z, 0.0) / (1.0 - cos_z)
            out[row, column] = min(max(snow[row, column] * (1.0 - melt * excess), 0.0), 1.0)


def snow(heights: np.ndarray, cell_size: float = 1.0, **options: object) -> np.ndarray:
    """Snow cover 0..1 (float32) of ``heights``: snowfall by altitude, drifted by the wind (Winstral's ``Sx``),
    slid off steep faces onto their feet (SnowSlide) and melted on slopes facing the sun (module doc).
    ``options``: ``SNOW_OPTIONS``."""
    z = as_heights(heights)
    cell = float(CELL_SIZE.check(cell_size))  # type: ignore[arg-type]
    v = _values(SNOW_OPTIONS, options)
    kernels = _kernels()
    low, span = _relative(z)
    towards = math.radians(v["wind_azimuth"])
    fall = np.empty(z.shape)
    wx, wy = round(math.sin(towards), 12), round(math.cos(towards), 12)  # due east is (1, 0), not (1, 6e-17)
    arguments = (z, low, span, v["snow_line"], v["snow_blend"], wx, wy,
                 v["wind_distance"], cell, v["wind"], fall)  # fmt: skip
    launch_blocks(kernels.snowfall, z.shape[0], arguments)
    steep = slope(z, cell).astype(np.float64)
    facing = aspect(z, cell).astype(np.float64)
    zenith = math.radians(90.0 - v["sun_elevation"])
    sun = (math.cos(zenith), math.sin(zenith), math.radians(v["sun_azimuth"]), v["melt"], v["repose_angle"],
           v["repose_blend"])  # fmt: skip
    keep = np.empty(z.shape)
    launch_blocks(kernels.melt, z.shape[0], (np.empty((0, 0)), steep, facing, *sun, keep))
    order = np.argsort(-z.reshape(-1), kind="stable")
    slid = fall.reshape(-1).copy()
    kernels.slide(z, order, keep.reshape(-1), slid)
    cover = np.empty(z.shape, dtype=np.float32)
    launch_blocks(kernels.melt, z.shape[0], (slid.reshape(z.shape), steep, facing, *sun, cover))
    return cover


def _stack(sediment, talus, eroded, laid_sediment, laid_talus, talus_mask):
    """One erosion stage on the loose cover (module doc): ``eroded`` takes sediment and talus in proportion, then
    ``laid_sediment`` and ``laid_talus`` (cell ``c & talus_mask``: one value for all cells with the mask 0) are
    added; in place. The stage's maps are read in their own dtype (float32 or float64), the cover sums in
    float64."""
    for c in range(sediment.shape[0]):
        loose = sediment[c] + talus[c]
        if loose > 0.0 and eroded[c] > 0.0:
            kept = 1.0 - min(1.0, eroded[c] / loose)
            sediment[c] *= kept
            talus[c] *= kept
        sediment[c] += laid_sediment[c]
        talus[c] += laid_talus[c & talus_mask]


def deposits(results: Sequence[ErosionResult | FluvialResult]) -> tuple[np.ndarray, np.ndarray]:
    """``(sediment, talus)``: the depth of each loose material (float32, heights' unit) left by the erosion
    ``results`` in the order their stages ran (module doc; a ``FluvialResult``'s deposition is sediment).
    ``TypeError``/``ValueError`` naming ``results``."""
    if isinstance(results, (ErosionResult, FluvialResult)) or not isinstance(results, Sequence) or not results:
        raise TypeError(f"results: expected a non-empty list of erosion results, got {type(results).__name__}")
    shape = None
    for index, result in enumerate(results):
        if not isinstance(result, (ErosionResult, FluvialResult)):
            raise TypeError(f"results[{index}]: expected an ErosionResult or FluvialResult, got "
                            f"{type(result).__name__}")  # fmt: skip
        if shape is not None and result.heights.shape != shape:
            raise ValueError(f"results[{index}]: shape {result.heights.shape} differs from the first's {shape}")
        shape = result.heights.shape
    sediment, talus = np.zeros(results[0].heights.size), np.zeros(results[0].heights.size)

    def flat(values: np.ndarray) -> np.ndarray:  # float32 maps stay float32: no float64 copy at engine sizes
        values = np.asarray(values)
        return np.ascontiguousarray(values, dtype=values.dtype if values.dtype.kind == "f" else np.float64).reshape(-1)

    none = np.zeros(1)  # a stage that lays no talus: one 0 for every cell (talus_mask 0)
    for result in results:
        laid = (result.sediment, result.talus) if isinstance(result, ErosionResult) else (result.deposition, None)
        laid_talus = none if laid[1] is None else flat(laid[1])
        _kernels().stack(sediment, talus, flat(result.erosion), flat(laid[0]), laid_talus, index_mask(laid_talus))
    return sediment.reshape(shape).astype(np.float32), talus.reshape(shape).astype(np.float32)


def _check_water(level: object, wet: object, shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    if not isinstance(level, np.ndarray) or level.dtype.kind != "f":
        raise TypeError(f"level: expected a float numpy array of shape {shape}, got {type(level).__name__}")
    if level.shape != shape:
        raise ValueError(f"level: must have the heights' shape {shape}, got {level.shape}")
    if not isinstance(wet, np.ndarray) or wet.dtype != np.bool_:
        raise TypeError(f"wet: expected a boolean numpy array of shape {shape}")
    if wet.shape != shape:
        raise ValueError(f"wet: must have the heights' shape {shape}, got {wet.shape}")
    if not np.isfinite(level[wet]).all():
        raise ValueError("level: must be finite on the water cells (wet)")
    return np.ascontiguousarray(level, dtype=np.float64), np.ascontiguousarray(wet, dtype=np.uint8)


def _chamfer(wet, level, distance, source):
    """The 8-neighbour chamfer distance (cells) from every cell to the nearest ``wet`` one and that cell's
    ``level`` (``source``), in two passes (Borgefors 1986); ``inf`` where there is no water."""
    rows, columns = wet.shape
    diagonal = math.sqrt(2.0)
    for row in range(rows):
        for column in range(columns):
            if wet[row, column]:
                distance[row, column] = 0.0
                source[row, column] = level[row, column]
            else:
                distance[row, column] = np.inf
                source[row, column] = 0.0
    for sweep in range(2):
        step = 1 if sweep == 0 else -1
        for i in range(rows):
            row = i if sweep == 0 else rows - 1 - i
            for j in range(columns):
                column = j if sweep == 0 else columns - 1 - j
                for k in range(4):  # the neighbours already swept: the row before, and the cell before
                    dy = -step if k < 3 else 0
                    dx = (k - 1) * step if k < 3 else -step
                    y, x = row + dy, column + dx
                    if 0 <= y < rows and 0 <= x < columns:
                        through = distance[y, x] + (diagonal if dx != 0 and dy != 0 else 1.0)
                        if through < distance[row, column]:
                            distance[row, column] = through
                            source[row, column] = source[y, x]


def _moisture_kernel(first, last, z, distance, source, reach, height, twi, low, span, weight, out):
    """Rows ``first`` to ``last - 1`` of the moisture (module doc)."""
    if first < 0:  # the launch
        on_threads(last)
        return
    for row in range(first, last):
        for column in range(z.shape[1]):
            near = 0.0
            if distance[row, column] < np.inf:
                above = max(z[row, column] - source[row, column], 0.0)
                near = math.exp(-distance[row, column] / reach) * math.exp(-above / height)
            wetness = (twi[row, column] - low) / span if span > 0.0 else 0.0
            out[row, column] = 1.0 - (1.0 - near) * (1.0 - weight * wetness)


def moisture(
    heights: np.ndarray,
    cell_size: float = 1.0,
    *,
    level: np.ndarray | None = None,
    wet: np.ndarray | None = None,
    **options: object,
) -> np.ndarray:
    """Moisture 0..1 (float32) of ``heights`` along its water and in its wet hollows (module doc). ``level``
    (the water surface, floats) and ``wet`` (bool: the lake and river cells) of the heights' shape; when both are
    None, ``water.water(heights, cell_size=cell_size)``'s (``depth > 0`` or ``river_mask``). ``options``:
    ``MOISTURE_OPTIONS``."""
    z = as_heights(heights)
    cell = float(CELL_SIZE.check(cell_size))  # type: ignore[arg-type]
    v = _values(MOISTURE_OPTIONS, options)
    if level is None and wet is None:
        from .water import water

        found = water(z, cell_size=cell)
        level, wet = found.level, (found.depth > 0) | found.river_mask
    elif level is None or wet is None:
        raise TypeError(f"{'level' if level is None else 'wet'}: give level and wet together (or neither)")
    surface, mask = _check_water(level, wet, z.shape)
    kernels = _kernels()
    distance, source = np.empty(z.shape), np.empty(z.shape)
    kernels.chamfer(mask, surface, distance, source)
    twi = wetness_index(z, cell).astype(np.float64) if v["wetness_weight"] > 0.0 else np.zeros(z.shape)
    low, span = float(twi.min()), float(twi.max() - twi.min())
    out = np.empty(z.shape, dtype=np.float32)
    height = v["moisture_height"] * _relative(z)[1]
    arguments = (z, distance, source, v["moisture_distance"], height, twi, low, span, v["wetness_weight"], out)
    launch_blocks(kernels.moisture, z.shape[0], arguments)
    return out


def _strata_kernel(first, last, z, warp, low, span, slope_x, slope_y, spacing, share, variation, seed, hard, band):
    """Rows ``first`` to ``last - 1`` of the hardness and band id (module doc)."""
    if first < 0:  # the launch
        on_threads(last)
        return
    base = hash_seed(seed)
    for row in range(first, last):
        for column in range(z.shape[1]):
            u = ((z[row, column] - low) / span + slope_x * column + slope_y * row) / spacing + warp[row, column]
            b = math.floor(u)
            band[row, column] = b
            if u - b >= 1.0 - share and share > 0.0:
                xi = np.float64(avalanche(eat(base, np.int64(b)))) * (1.0 / 4294967296.0)
                hard[row, column] = 1.0 - variation * xi
            else:
                hard[row, column] = 0.0


STRATA = Option("strata", float, 0.0, "Erode over rock strata (Terrain Layers' bands): hard rock erodes 1 - this as "
                "fast (0: uniform rock)", minimum=0.0, maximum=0.99)  # fmt: skip
"""An erosion stage's option (Erode Terrain, a recipe's droplets and thermal stages): the ``strata_contrast`` of
``erodibility`` over the ``strata`` of the heights the stage starts from at their defaults, 0 for none."""


def rock(heights: np.ndarray, cell_size: float, contrast: float) -> dict[str, np.ndarray]:
    """The eroders' keyword arguments for erosion over rock strata of ``contrast`` (``STRATA``): ``{}`` for 0,
    else ``{"erodibility": erodibility(strata(heights, cell_size)[0], contrast)}``."""
    value = float(STRATA.check(contrast))  # type: ignore[arg-type]
    return {} if not value else {"erodibility": erodibility(strata(heights, cell_size)[0], value)}


def strata(heights: np.ndarray, cell_size: float = 1.0, **options: object) -> tuple[np.ndarray, np.ndarray]:
    """``(hardness, band)``: the rock hardness 0..1 (float32) and the band id (int32) of each cell of ``heights``
    (module doc). ``options``: ``STRATA_OPTIONS`` (``strata_contrast`` is ``erodibility``'s)."""
    from ..api import evaluate_grid
    from ..spec import NoiseSpec

    z = as_heights(heights)
    cell = float(CELL_SIZE.check(cell_size))  # type: ignore[arg-type]
    v = _values(STRATA_OPTIONS, options)
    low, span = _relative(z)
    if v["strata_warp"] > 0.0:
        spec = NoiseSpec(kind="perlin", frequency=STRATA_FREQUENCY, octaves=3, seed=v["strata_seed"])
        warp = evaluate_grid(spec, z.shape).astype(np.float64) * v["strata_warp"]
    else:
        warp = np.zeros(z.shape)
    rise = math.tan(math.radians(v["strata_tilt"])) * cell / span
    azimuth = math.radians(v["strata_azimuth"])
    hard, band = np.empty(z.shape, dtype=np.float32), np.empty(z.shape, dtype=np.int32)
    arguments = (z, warp, low, span, -rise * math.sin(azimuth), -rise * math.cos(azimuth), v["strata_spacing"],
                 v["strata_hard_share"], v["strata_variation"], v["strata_seed"], hard, band)  # fmt: skip
    launch_blocks(_kernels().strata, z.shape[0], arguments)
    return hard, band


def erodibility(hardness: np.ndarray, strata_contrast: float = 0.8) -> np.ndarray:
    """The erodibility multiplier ``1 - strata_contrast·hardness`` (float64) of a hardness map (``strata``), for
    the eroders' ``erodibility`` (``erode_fluvial``: times its ``K``)."""
    contrast = float(STRATA_OPTIONS[-1].check(strata_contrast))  # type: ignore[arg-type]
    if not isinstance(hardness, np.ndarray) or hardness.dtype.kind not in "fiu" or hardness.dtype == np.bool_:
        raise TypeError(f"hardness: expected a numpy array of numbers in [0, 1], got {type(hardness).__name__}")
    values = hardness.astype(np.float64)
    if not (np.isfinite(values).all() and (values >= 0.0).all() and (values <= 1.0).all()):
        raise ValueError("hardness: must be finite numbers in [0, 1]")
    return 1.0 - contrast * values


def compute_layers(
    heights: np.ndarray,
    names: Sequence[str] = LAYER_NAMES,
    cell_size: float = 1.0,
    *,
    erosion: Sequence[ErosionResult | FluvialResult] = (),
    level: np.ndarray | None = None,
    wet: np.ndarray | None = None,
    **options: object,
) -> dict[str, np.ndarray]:
    """The layers ``names`` (``LAYER_NAMES``) of ``heights`` as float32 maps, by name (``strata_band`` as float32
    too). ``erosion``: the results of the stages that made ``heights``, in order (``sediment``/``talus`` are 0
    without them); ``level``/``wet``: the water (``moisture``); ``options``: ``LAYER_OPTIONS``."""
    if isinstance(names, str) or not isinstance(names, Sequence):
        raise TypeError(f"names: expected a list of layer names, got {type(names).__name__}")
    for name in names:
        choice("names", name, LAYER_NAMES)
    z = as_heights(heights)
    _values(LAYER_OPTIONS, options)

    def only(rows: tuple[Option, ...]) -> dict:
        return {row.name: options[row.name] for row in rows if row.name in options}

    out: dict[str, np.ndarray] = {}
    if "snow" in names:
        out["snow"] = snow(z, cell_size, **only(SNOW_OPTIONS))
    if "sediment" in names or "talus" in names:
        if len(erosion):
            sediment, talus = deposits(erosion)
            if sediment.shape != z.shape:
                raise ValueError(f"erosion: its shape {sediment.shape} differs from the heights' {z.shape}")
        else:
            sediment = talus = np.zeros(z.shape, dtype=np.float32)
        out["sediment"], out["talus"] = sediment, talus
    if "moisture" in names:
        out["moisture"] = moisture(z, cell_size, level=level, wet=wet, **only(MOISTURE_OPTIONS))
    if "strata" in names or "strata_band" in names:
        hard, band = strata(z, cell_size, **only(STRATA_OPTIONS))
        out["strata"], out["strata_band"] = hard, band.astype(np.float32)
    return {name: out[name] for name in dict.fromkeys(names)}


_kernels = kernel_table(
    serial={"slide": _slide, "stack": _stack, "chamfer": _chamfer},
    ranged=(_snowfall_kernel, _melt_kernel, _moisture_kernel, _strata_kernel),
)
"""The compiled kernels, built on first use."""
