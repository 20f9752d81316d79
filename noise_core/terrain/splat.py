"""Splat weights: N texture layers painted over a terrain by rules on its maps, summing to 1 in every cell.

A layer covers the cells its **bands** allow: each band is a range ``[low, high)`` of one map (``SPLAT_MAPS``: a
terrain map of ``terrain_maps``, the ``erosion``/``deposition`` masks of an erosion run, or a material layer of
``layers``: ``snow``, ``moisture``, ``strata``, ``strata_band`` computed, the ``sediment``/``talus`` depths given)
with soft edges ``blend`` wide (a smoothstep from 0 at ``low - blend/2`` to 1 at ``low + blend/2``, and down again
around ``high``); the coverage is the product of its bands times ``strength``. ``breakup`` adds Perlin noise in [-1, 1]
times ``breakup`` to the coverage (clipped to [0, 1]): ragged edges and patches. Layers are painted in order,
each covering what is below it: ``w_i = c_i · Π_{j>i} (1 - c_j)``, the first layer (the base) covering
everything (``c_0 = 1``), so the weights sum to 1 in every cell (in float64, rounded to float32 once).

``pack_rgba`` packs 4 layers per image (R, G, B, A), and ``write_splat`` writes them as 8/16-bit PNG, float
TIFF or OpenEXR (``images.write_image``), all images or none (``files.replacing_all``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from .._jit import jit, range_kernel
from ..io.files import replacing_all
from ..io.images import image_format, pack_rgba, write_image, writer_module
from ..runtime import launch_blocks
from ..schema import integer, number
from ..threads import on_threads
from .layers import LAYER_NAMES, LAYER_OPTIONS, compute_layers
from .maps import MAP_NAMES, as_heights, compute_maps

MASKS = ("erosion", "deposition", "sediment", "talus")
"""The maps an erosion run gives (``maps=``): its masks and the depths of the loose material (``layers.deposits``)."""
SPLAT_MAPS = (*MAP_NAMES, *dict.fromkeys((*MASKS, *LAYER_NAMES)))
MAX_LAYERS = 64
BREAKUP_OCTAVES = 3


@dataclass(frozen=True)
class Band:
    """Where a layer may lie: ``low <= map < high`` with soft edges ``blend`` wide (in the map's unit)."""

    map: str
    low: float = -math.inf
    high: float = math.inf
    blend: float = 0.0


@dataclass(frozen=True)
class SplatLayer:
    """One texture layer: its ``bands`` (all must hold), ``strength`` (coverage at most, 0..1), ``breakup``
    (noise added to the coverage, 0..1). The first layer of a list is the base and takes no bands."""

    name: str
    bands: tuple[Band, ...] = ()
    strength: float = 1.0
    breakup: float = 0.0


def _unit_interval(name: str, value: object) -> float:
    checked = number(name, value)
    if not 0.0 <= checked <= 1.0:
        raise ValueError(f"{name}: must be between 0 and 1, got {value!r}")
    return checked


def _bound(name: str, value: object) -> float:
    """A band limit: a number, or ±infinity (``None`` or a float infinity) for no limit."""
    if isinstance(value, float) and math.isinf(value):
        return value
    return number(name, value)


def _check_band(name: str, band: object) -> Band:
    if isinstance(band, Mapping):
        unknown = sorted(set(band) - {"map", "low", "high", "blend"})
        if unknown:
            raise TypeError(f"{name}.{unknown[0]}: not a band field; allowed: map, low, high, blend")
        if "map" not in band:
            raise TypeError(f"{name}.map: missing; choose one of {', '.join(SPLAT_MAPS)}")
        band = Band(**band)
    if not isinstance(band, Band):
        raise TypeError(f"{name}: expected a Band or a dict, got {type(band).__name__}")
    if band.map not in SPLAT_MAPS:
        raise ValueError(f"{name}.map: {band.map!r} is not allowed; choose one of {', '.join(map(repr, SPLAT_MAPS))}")
    low = -math.inf if band.low is None else _bound(f"{name}.low", band.low)
    high = math.inf if band.high is None else _bound(f"{name}.high", band.high)
    if not low < high:
        raise ValueError(f"{name}.high: must be above low ({low:g}), got {high:g}")
    blend = number(f"{name}.blend", band.blend)
    if blend < 0.0:
        raise ValueError(f"{name}.blend: must be >= 0, got {blend:g}")
    return Band(band.map, low, high, blend)


def check_layers(layers: object) -> tuple[SplatLayer, ...]:
    """``layers`` (``SplatLayer`` records or dicts of their fields, e.g. read from JSON) checked; errors name
    the field: ``layers[1].bands[0].map: ...``."""
    if isinstance(layers, (str, bytes, Mapping)) or not isinstance(layers, Sequence):
        raise TypeError(f"layers: expected a list of layers, got {type(layers).__name__}")
    if not 1 <= len(layers) <= MAX_LAYERS:
        raise ValueError(f"layers: must hold 1 to {MAX_LAYERS} layers, got {len(layers)}")
    checked = []
    for index, layer in enumerate(layers):
        name = f"layers[{index}]"
        if isinstance(layer, Mapping):
            unknown = sorted(set(layer) - {"name", "bands", "strength", "breakup"})
            if unknown:
                raise TypeError(f"{name}.{unknown[0]}: not a layer field; allowed: name, bands, strength, breakup")
            layer = SplatLayer(**{**layer, "bands": tuple(layer.get("bands", ()))})
        if not isinstance(layer, SplatLayer):
            raise TypeError(f"{name}: expected a SplatLayer or a dict, got {type(layer).__name__}")
        if not isinstance(layer.name, str) or not layer.name:
            raise TypeError(f"{name}.name: expected a non-empty string, got {layer.name!r}")
        if isinstance(layer.bands, (str, bytes, Mapping)) or not isinstance(layer.bands, Sequence):
            raise TypeError(f"{name}.bands: expected a list of bands, got {type(layer.bands).__name__}")
        if index == 0 and layer.bands:
            raise ValueError(f"{name}.bands: the first layer is the base, covering what the others leave; it takes "
                             "no bands")  # fmt: skip
        bands = tuple(_check_band(f"{name}.bands[{k}]", band) for k, band in enumerate(layer.bands))
        strength = _unit_interval(f"{name}.strength", layer.strength)
        breakup = _unit_interval(f"{name}.breakup", layer.breakup)
        checked.append(SplatLayer(layer.name, bands, strength, breakup))
    return tuple(checked)


@jit
def _ramp(value, edge, blend):
    """0 below ``edge``, 1 above, a smoothstep ``blend`` wide around it (a step at ``edge`` when 0)."""
    if blend == 0.0:
        return 1.0 if value >= edge else 0.0
    x = min(max((value - edge) / blend + 0.5, 0.0), 1.0)  # a tiny blend overflows to ±inf: a step
    return x * x * (3.0 - 2.0 * x)


def _splat_kernel(first, last, values, bands, band_layer, band_map, strength, breakup, noise_index, noise, out):
    """The weights ``out`` (layers x rows x columns) of the rows ``first .. last - 1`` (module doc): per cell, the
    layers from the top down, each covering ``cover * remaining``. ``values``: the maps the bands read
    (``band_map``), ``bands``: ``(low, high, blend)`` rows, ``noise``: the breakup noise of the layers whose
    ``noise_index`` is not -1. A range kernel."""
    if first < 0:
        on_threads(last)
        return
    layers, _, columns = out.shape
    for row in range(first, last):
        for column in range(columns):
            remaining = 1.0
            for layer in range(layers - 1, 0, -1):
                cover = strength[layer]
                for b in range(bands.shape[0]):
                    if band_layer[b] == layer:
                        value = np.float64(values[band_map[b], row, column])
                        if bands[b, 0] > -np.inf:
                            cover *= _ramp(value, bands[b, 0], bands[b, 2])
                        if bands[b, 1] < np.inf:
                            cover *= 1.0 - _ramp(value, bands[b, 1], bands[b, 2])
                if noise_index[layer] >= 0:
                    cover += breakup[layer] * np.float64(noise[noise_index[layer], row, column])
                    cover = min(max(cover, 0.0), 1.0)
                weight = cover * remaining
                out[layer, row, column] = weight
                remaining -= weight
            out[0, row, column] = remaining


@cache
def _kernel():
    """The compiled kernel, built on first use (importing never compiles nor fixes the cache folder)."""
    return range_kernel(_splat_kernel)


def splat_weights(
    heights: np.ndarray,
    layers: Sequence[SplatLayer | Mapping],
    cell_size: float | tuple[float, float] = 1.0,
    maps: Mapping[str, np.ndarray] | None = None,
    seed: int = 0,
    breakup_frequency: float = 8.0,
    **settings: object,
) -> np.ndarray:
    """The weights (N, H, W) float32 of the N ``layers`` over ``heights`` (module doc), summing to 1 in every
    cell. The maps the bands use are computed (``terrain_maps.compute_maps`` with ``settings``, e.g.
    ``radius``) unless given in ``maps``; ``erosion`` and ``deposition`` must be given. Breakup noise: Perlin
    (``BREAKUP_OCTAVES`` octaves) of ``breakup_frequency`` cycles across the map, seed ``seed + layer index``.
    The material layers (``layers.LAYER_NAMES`` but the given ``MASKS``) are ``layers.compute_layers``' with the
    ``settings`` named in ``layers.LAYER_OPTIONS``."""
    from ..api import evaluate_grid
    from ..spec import NoiseSpec

    heights = as_heights(heights)
    checked = check_layers(layers)
    shape = heights.shape
    given = _check_maps(maps, shape)
    seed = integer("seed", seed)
    breakup_frequency = number("breakup_frequency", breakup_frequency)
    needed = sorted({band.map for layer in checked for band in layer.bands} - set(given))
    missing = [name for name in needed if name in MASKS]
    if missing:
        raise ValueError(f"maps: the bands use {missing[0]!r}; pass it in maps (an erosion result's mask)")
    layer_settings = {name: value for name, value in settings.items() if name in LAYER_NAMES_OPTIONS}
    map_settings = {name: value for name, value in settings.items() if name not in LAYER_NAMES_OPTIONS}
    surface = [name for name in needed if name in MAP_NAMES]
    given.update(compute_maps(heights, surface, cell_size=cell_size, **map_settings))
    material = [name for name in needed if name not in MAP_NAMES]
    if material:
        given.update(compute_layers(heights, material, _square_cell(cell_size), **layer_settings))
    used = sorted({band.map for layer in checked for band in layer.bands})
    values = np.empty((max(len(used), 1), *shape), dtype=np.float32)
    for index, name in enumerate(used):
        values[index] = given[name]
    rows = [(index, band) for index, layer in enumerate(checked) for band in layer.bands]
    bands = np.array([(band.low, band.high, band.blend) for _, band in rows], dtype=np.float64).reshape(-1, 3)
    band_layer = np.array([index for index, _ in rows], dtype=np.int64)
    band_map = np.array([used.index(band.map) for _, band in rows], dtype=np.int64)
    broken = [index for index, layer in enumerate(checked) if index > 0 and layer.breakup > 0.0]
    noise = np.zeros((max(len(broken), 1), *shape), dtype=np.float32)
    for k, index in enumerate(broken):
        spec = NoiseSpec(kind="perlin", frequency=breakup_frequency, octaves=BREAKUP_OCTAVES, seed=seed + index)
        noise[k] = evaluate_grid(spec, shape)
    noise_index = np.array([broken.index(i) if i in broken else -1 for i in range(len(checked))], dtype=np.int64)
    strength = np.array([layer.strength for layer in checked], dtype=np.float64)
    breakup = np.array([layer.breakup for layer in checked], dtype=np.float64)
    weights = np.empty((len(checked), *shape), dtype=np.float32)
    arguments = (values, bands, band_layer, band_map, strength, breakup, noise_index, noise, weights)
    launch_blocks(_kernel(), shape[0], arguments)
    return weights


LAYER_NAMES_OPTIONS = frozenset(option.name for option in LAYER_OPTIONS)
MATERIAL_SPLAT: tuple[SplatLayer, ...] = (
    SplatLayer("grass"),
    SplatLayer("wet", (Band("moisture", 0.55, math.inf, 0.2),)),
    SplatLayer("rock", (Band("slope", 36.0, math.inf, 10.0),)),
    SplatLayer("strata", (Band("slope", 30.0, math.inf, 10.0), Band("strata", 0.2, math.inf, 0.2))),
    SplatLayer("snow", (Band("snow", 0.5, math.inf, 0.3),)),
)
"""Ready splat layers from the material layers (docs/layers.md): grass, wet ground along water, rock on steep
slopes, its hard strata bands, snow; ``material_splat`` adds the erosion's sediment and talus."""


def material_splat(sediment: float | None = None, talus: float | None = None) -> tuple[SplatLayer, ...]:
    """``MATERIAL_SPLAT`` with a ``sediment`` layer where sediment lies deeper than ``sediment`` and a ``talus``
    (scree) layer where talus lies deeper than ``talus`` (heights' unit; None: no such layer), painted above the
    grass and wet ground, below rock and snow. Their maps come from an erosion run (``maps=``, ``MASKS``)."""
    extra = tuple(
        SplatLayer(name, (Band(name, number(name, depth), math.inf, number(name, depth)),))
        for name, depth in (("sediment", sediment), ("talus", talus))
        if depth is not None
    )
    return (*MATERIAL_SPLAT[:2], *extra, *MATERIAL_SPLAT[2:])


def _square_cell(cell_size: object) -> object:
    """The one cell size of a ``(dy, dx)`` pair of equal sizes (the material layers take square cells)."""
    if isinstance(cell_size, (tuple, list)) and len(cell_size) == 2 and cell_size[0] == cell_size[1]:
        return cell_size[0]
    return cell_size


FLOAT32_MAX = float(np.finfo(np.float32).max)


def _check_maps(maps: object, shape: tuple[int, ...]) -> dict[str, np.ndarray]:
    """``maps`` (None, or map name -> array of ``shape``) as a dict of float32 arrays: real, finite numbers within
    float32 (the bands read them as float32); ``TypeError``/``ValueError`` naming ``maps`` or ``maps['name']``."""
    if maps is None:
        return {}
    if not isinstance(maps, Mapping):
        raise TypeError(f"maps: expected a dict of map name -> array, got {type(maps).__name__}")
    checked = {}
    for name, values in maps.items():
        if name not in SPLAT_MAPS:
            raise ValueError(f"maps: {name!r} is not a map; choose from {', '.join(SPLAT_MAPS)}")
        array = np.asarray(values)
        if array.dtype.kind not in "biuf":
            raise TypeError(f"maps[{name!r}]: expected real numbers, got dtype {array.dtype}")
        if array.shape != shape:
            raise ValueError(f"maps[{name!r}]: shape {array.shape} differs from the heights' {shape}")
        array = array.astype(np.float64)
        if not np.isfinite(array).all():
            raise ValueError(f"maps[{name!r}]: must be finite (no NaN or infinity)")
        if array.size and np.abs(array).max() > FLOAT32_MAX:
            raise ValueError(f"maps[{name!r}]: values up to {np.abs(array).max():.3g} lie beyond float32 (3.4e38)")
        checked[name] = array.astype(np.float32)
    return checked


def check_weights(weights: object, name: str = "weights") -> np.ndarray:
    """``weights`` (N, H, W), N >= 1 layers of at least 1 x 1 real numbers in [0, 1], as float32; ``TypeError``/
    ``ValueError`` naming ``name`` otherwise."""
    if not isinstance(weights, np.ndarray):
        raise TypeError(f"{name}: expected a numpy array (layers, height, width), got {type(weights).__name__}")
    if weights.dtype.kind not in "uif":
        raise TypeError(f"{name}: expected real numbers in [0, 1], got dtype {weights.dtype}")
    if weights.ndim != 3 or 0 in weights.shape:
        raise ValueError(f"{name}: expected (layers, height, width) with at least one layer, got shape {weights.shape}")
    if weights.shape[0] > MAX_LAYERS:
        raise ValueError(f"{name}: {weights.shape[0]} layers exceed the limit of {MAX_LAYERS}")
    values = weights.astype(np.float64)
    if not np.isfinite(values).all():
        raise ValueError(f"{name}: must be finite numbers in [0, 1] (found NaN or infinity)")
    if values.min() < 0.0 or values.max() > 1.0:
        raise ValueError(f"{name}: must lie in [0, 1], got {values.min():g} .. {values.max():g}")
    return values.astype(np.float32)


def splat_paths(path: str | Path, count: int) -> list[Path]:
    """The files ``write_splat`` writes for ``count`` layers: ``NAME_0.png``, ``NAME_1.png``, ... beside
    ``path`` (``NAME.png``), one per 4 layers."""
    path = Path(path)
    return [path.with_name(f"{path.stem}_{index}{path.suffix}") for index in range(-(-count // 4))]


def write_splat(path: str | Path, weights: np.ndarray, bits: int = 8) -> list[Path]:
    """Write ``pack_rgba(weights)`` to ``splat_paths(path, N)`` (format by suffix; ``bits`` for PNG), all
    files or none (``files.replacing_all``). ``weights``: (N, H, W) in [0, 1] (``check_weights``)."""
    weights = check_weights(weights)
    images = pack_rgba(weights)
    paths = splat_paths(path, weights.shape[0])
    writer_module(image_format(paths[0], "path"), "path")
    with replacing_all(paths) as temporaries:
        for temporary, image in zip(temporaries, images, strict=True):
            write_image(temporary, image, bits)
    return paths
