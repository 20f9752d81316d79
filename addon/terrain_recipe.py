"""What a Noise Terrain is built from (``TerrainRecipe``) and the heights it makes (``terrain_heights``).

A terrain is its grid (``SHAPE_OPTIONS``, and a base heightmap: ``BASE_OPTIONS``), its noise on a domain and its
erosion stages, each optional, run in this order: rivers (``fluvial``), hydraulic droplets, thermal. The grid's
options are declared once, as rows: ``add_terrain``'s defaults and checks, its operator's properties and a
terrain's stored settings (``terrain_settings``) come from them. The heights are made touching no Blender data
(but the base file), so a job's worker can make them (``terrain.regenerate_job``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, cast

import bpy
import numpy as np

from . import erosion_io
from .erode_fluvial import carve_terrain
from .errors import UserError
from .mapping import Domain, check_finite_values, evaluate_mapped, evaluate_plane
from .noise_core import NoiseSpec
from .noise_core.io import heightmaps
from .noise_core.ranges import to_unit
from .noise_core.registry import COMMON_OPTIONS, kind_info
from .noise_core.schema import Option
from .noise_core.terrain import resample
from .options import check, check_noise
from .progress import window_progress
from .terrain_grid import MAX_SUBDIVISIONS, MAX_VERTICES, edge_factor, grid

SUBDIVISIONS = f"a whole number between 1 and {MAX_SUBDIVISIONS}"
SHAPE_OPTIONS = (
    Option("x_subdivisions", int, 128, "Faces along X", minimum=1, maximum=MAX_SUBDIVISIONS, soft_maximum=2048,
           allowed=SUBDIVISIONS, title="X Subdivisions"),
    Option("y_subdivisions", int, 128, "Faces along Y", minimum=1, maximum=MAX_SUBDIVISIONS, soft_maximum=2048,
           allowed=SUBDIVISIONS, title="Y Subdivisions"),
    Option("size", float, 2.0, "Width and depth of the grid", minimum=0.0, above=True, ui_minimum=1e-4,
           soft_maximum=1000.0, unit="LENGTH"),
    Option("height", float, 0.5, "Height of noise value 1", soft_minimum=-100.0, soft_maximum=100.0, unit="LENGTH"),
    Option("offset", float, (0.0, 0.0), "Where the grid sits in the noise (move by Size for the neighbouring tile)",
           size=2, subtype="XYZ", unit="LENGTH"),
    Option("falloff", str, "NONE", "Bring the terrain down to 0 towards its edges", title="Edge Falloff",
           choices=("NONE", "X", "Y", "RADIAL"),
           choice_text=(("None", "No falloff"), ("X", "Towards the edges along X"), ("Y", "Towards the edges along Y"),
                        ("Radial", "Towards a circle touching the edges"))),
    Option("falloff_width", float, 0.3, "Fraction of the half-size over which the falloff eases in", minimum=0.0,
           maximum=1.0),
)  # fmt: skip
"""The grid options of ``add_terrain``, in the order the panels draw them: the operator's properties and
a terrain's settings."""
SHAPE_FIELDS = tuple(option.name for option in SHAPE_OPTIONS)
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
"""A terrain's base heightmap (``base_heights``), kept beside its grid options; not in presets."""
BASE_FIELDS = tuple(option.name for option in BASE_OPTIONS)


@dataclass(frozen=True)
class TerrainRecipe:
    """What a Noise Terrain is built from: the noise ``spec`` read on ``domain``, the grid ``shape``
    (``SHAPE_OPTIONS`` and ``BASE_OPTIONS`` by name) and the options of its erosion stages, each None when the
    stage is off: ``hydraulic`` and ``thermal`` (``noise_core.terrain.erosion``'s keyword arguments), ``fluvial``
    (``erode_fluvial.TERRAIN_OPTIONS`` by name but the switch). A terrain keeps one (``terrain_settings.store``,
    ``recall``)."""

    spec: NoiseSpec
    domain: Domain
    shape: dict[str, Any]
    hydraulic: dict[str, Any] | None = None
    thermal: dict[str, Any] | None = None
    fluvial: dict[str, Any] | None = None

    def reshaped(self, **changes: Any) -> TerrainRecipe:
        """This recipe with ``changes`` to its grid shape (another resolution, a base file's full path)."""
        return replace(self, shape={**self.shape, **changes})


def resolved(recipe: TerrainRecipe) -> TerrainRecipe:
    """``recipe`` with its base file's path read against the .blend (``//``), on the main thread, for a worker."""
    if recipe.shape.get("base_blend", "NONE") == "NONE":
        return recipe
    return recipe.reshaped(base_file=bpy.path.abspath(recipe.shape["base_file"]))


def as_stored(value: Any) -> Any:
    """``value`` as a Blender float property keeps it (float32), recursively through tuples and dicts: a terrain
    is built from the values it stores, so Regenerate rebuilds it bit for bit (erosion amplifies the last bit)."""
    if isinstance(value, float):
        return float(np.float32(value))
    if isinstance(value, tuple):
        return tuple(as_stored(item) for item in value)
    if isinstance(value, dict):
        return {name: as_stored(item) for name, item in value.items()}
    return value


def stored_spec(spec: NoiseSpec) -> NoiseSpec:
    """``spec`` with every float field that applies to it as the terrain's settings store it (``as_stored``);
    the others stay at their defaults, which ``to_spec`` passes."""
    changes = {}
    for option in (*COMMON_OPTIONS, *kind_info(spec.kind).options):
        value = getattr(spec, option.name)
        if isinstance(value, float) and (option.requires is None or option.requires.holds(spec)):
            changes[option.name] = as_stored(value)
    return replace(spec, **changes)


def stored_domain(domain: Domain) -> Domain:
    """``domain`` with its offset, rotation and scale as the terrain's settings store them."""
    return replace(
        domain, offset=as_stored(domain.offset), rotation=as_stored(domain.rotation), scale=as_stored(domain.scale)
    )


def _check_shape(shape: dict[str, Any]) -> dict[str, Any]:
    """The grid ``shape`` checked by ``SHAPE_OPTIONS`` and against ``MAX_VERTICES``, with its base options
    (``BASE_OPTIONS``, their defaults when left out)."""
    shape = {option.name: check(option, shape[option.name]) for option in SHAPE_OPTIONS} | {
        option.name: check(option, shape.get(option.name, option.default)) for option in BASE_OPTIONS
    }
    vertices = (shape["x_subdivisions"] + 1) * (shape["y_subdivisions"] + 1)
    if vertices > MAX_VERTICES:
        raise UserError(f"x_subdivisions, y_subdivisions: {vertices} vertices exceed the limit of {MAX_VERTICES}")
    return shape


def terrain_geometry(
    context: bpy.types.Context, recipe: TerrainRecipe
) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple]:
    """``(positions, quads, uvs, masks)`` of the terrain of ``recipe``: ``grid`` of its checked shape with z
    ``terrain_heights(context, recipe)``, and its masks and flow maps; ``UserError`` as ``terrain_heights``."""
    heights, masks = terrain_heights(context, recipe)
    shape = recipe.shape
    return (*grid(shape["x_subdivisions"], shape["y_subdivisions"], shape["size"], heights), masks)


def terrain_heights(context: bpy.types.Context, recipe: TerrainRecipe) -> tuple[np.ndarray, tuple]:
    """``(heights (N,), (erosion, deposition, drainage_area, river, sediment, talus))`` of the terrain of
    ``recipe`` at the vertices of its grid (``grid_positions``, row-major from -y): ``(base + noise * height) *
    falloff`` (``base_heights``: 0 without a base), eroded by the stages it has, in this order: rivers (``fluvial``,
    ``erode_fluvial.carve_terrain``), hydraulic droplets, thermal. The masks are what all stages took and left (None
    without erosion), the flow maps the rivers' (None without them), the depths of sediment and talus the droplets
    and thermal erosion left (``erosion_io.erode_heights``; the rivers' deposition as sediment when they ran alone;
    None without erosion); all checked first. Touches no Blender data but the base heightmap's file (a job's worker
    runs it)."""
    if not isinstance(recipe, TerrainRecipe):
        raise UserError(f"recipe: expected a TerrainRecipe, got {type(recipe).__name__}")
    spec, domain = recipe.spec, recipe.domain
    check_noise(spec, domain)
    shape = _check_shape(recipe.shape)
    hydraulic, thermal, fluvial = recipe.hydraulic, recipe.thermal, recipe.fluvial
    for name, options in (("hydraulic", hydraulic), ("thermal", thermal), ("fluvial", fluvial)):
        if options is not None and not isinstance(options, dict):
            raise UserError(f"{name}: expected a dict of erosion options or None, got {type(options).__name__}")
    rows, columns = shape["y_subdivisions"] + 1, shape["x_subdivisions"] + 1
    half = shape["size"] * 0.5
    xs = np.linspace(-half, half, columns)  # grid_positions' columns and rows
    ys = np.linspace(-half, half, rows)
    base = base_heights(shape)
    if base is not None and shape["height"] == 0.0:  # Height 0 on a base adds nothing: the noise is not evaluated
        heights = base
    else:
        with window_progress(context, rows * columns) as advance:
            noise01 = to_unit(spec, _terrain_noise(spec, domain, xs, ys, shape["offset"], advance))
        raised = noise01 * shape["height"]
        heights = raised if base is None else base + raised
    factor = edge_factor(xs[None, :], ys[:, None], shape["size"], shape["falloff"], shape["falloff_width"])
    if factor is not None:  # the float64 factor's product, as stored in float64 positions
        heights = (heights.reshape(rows, columns) * factor).ravel()
    check_finite_values("height: vertex heights", np.asarray(heights, dtype=np.float32))
    masks: tuple = (None,) * 6
    if hydraulic is not None or thermal is not None or fluvial is not None:
        across, down, size = shape["x_subdivisions"], shape["y_subdivisions"], shape["size"]
        if across != down:  # a square of size x size: its cells are square only then
            raise UserError(
                f"x_subdivisions, y_subdivisions: erosion needs square cells; {across} x {down} subdivisions of a "
                f"{size:g} square make cells {size / across:.6g} along X by {size / down:.6g} along Y: make them "
                "equal, or turn the erosion off"
            )
        cell_size = shape["size"] / math.sqrt(shape["x_subdivisions"] * shape["y_subdivisions"])
        eroded = before = heights.astype(np.float64).reshape(rows, columns)  # the heights as float64 positions hold
        drainage = river = sediment = talus = None
        if fluvial is not None:
            eroded, drainage, river = carve_terrain(context, eroded, cell_size, cast(dict, fluvial))
        if hydraulic is not None or thermal is not None:
            with window_progress(context, erosion_io.PROGRESS) as advance:
                stages = erosion_io.erode_heights(
                    eroded, cell_size, cast(dict, hydraulic), cast(dict, thermal), advance
                )
            eroded, sediment, talus = stages.heights, stages.sediment.ravel(), stages.talus.ravel()
        change = eroded.astype(np.float64).ravel() - before.astype(np.float32).ravel()  # as erode_heights'
        heights = eroded.ravel()
        deposition = np.maximum(change, 0.0)
        if sediment is None:  # the rivers alone: what they laid down is sediment
            sediment = deposition.astype(np.float32)
        masks = (np.maximum(-change, 0.0), deposition, drainage, river, sediment, talus)
    return heights, masks


def _terrain_noise(
    spec: NoiseSpec, domain: Domain, xs: np.ndarray, ys: np.ndarray, offset: Sequence[float], advance
) -> np.ndarray:
    """(len(ys) * len(xs),) float32 noise at the vertices ``(xs[c] + offset_x, ys[r] + offset_y, 0)``, row by row
    (``domain.noise_points`` of them, bit for bit): 2D noise on XY without rotation reads the lattice
    ``(xs * scale_x + offset_x, ys * scale_y + offset_y)`` (``mapping.evaluate_plane``); any other domain the
    vertices, moved into noise space in the kernel (``mapping.evaluate_mapped``)."""
    x, y = xs + offset[0], ys + offset[1]
    if domain.plane_is_lattice() and domain.plane == "XY":
        along_x = x * domain.scale[0] + domain.offset[0]
        along_y = y * domain.scale[1] + domain.offset[1]
        return evaluate_plane(spec, along_x, along_y, advance).ravel()
    sample_at = np.zeros((y.shape[0], x.shape[0], 3), dtype=np.float64)
    sample_at[:, :, 0] = x[None, :]
    sample_at[:, :, 1] = y[:, None]
    return evaluate_mapped(spec, domain, sample_at.reshape(-1, 3), advance)


def read_heightmap(path: Path, name: str) -> heightmaps.Heightmap:
    """``noise_core.read_heightmap(path)``; ``UserError`` starting with ``name`` (the setting that gave the
    path) when it cannot be read."""
    try:
        return heightmaps.read_heightmap(path)
    except (ValueError, TypeError, OSError) as error:
        message = str(error).removeprefix("path: ")
        raise UserError(f"{name}: {message}" if str(path) in message else f"{name}: {str(path)!r}: {message}") from None


def base_heights(shape: dict[str, Any]) -> np.ndarray | None:
    """(N,) heights of the checked ``shape``'s base heightmap on its grid (row-major from -y), None when
    ``base_blend`` is NONE: the file's values ``v`` (``noise_core.read_heightmap``), resampled bilinearly to
    the grid when their size differs (``resample.resample_bilinear``), as ``base_low + v (base_high -
    base_low)``; its first row is the +Y edge. ``UserError`` naming ``base_file`` when it cannot be read."""
    if shape["base_blend"] == "NONE":
        return None
    if not shape["base_file"]:
        raise UserError("base_file: no heightmap file given; choose one, or set Base to None (noise only)")
    path = Path(bpy.path.abspath(shape["base_file"]))
    values = read_heightmap(path, "base_file").values
    if min(values.shape) < 2:
        raise UserError(f"base_file: {path.name!r} has {values.shape[1]} x {values.shape[0]} samples; 2 x 2 at least")
    grid_shape = (shape["y_subdivisions"] + 1, shape["x_subdivisions"] + 1)
    samples = values.astype(np.float64)
    if samples.shape != grid_shape:
        samples = resample.resample_bilinear(samples, grid_shape)
    low, high = shape["base_low"], shape["base_high"]
    return (low + samples * (high - low))[::-1].ravel()


EROSION_WEIGHT = 4
"""The share of an erosion stage (rivers; droplets and thermal) in ``stage_weights``: the noise's is 1."""


def stage_weights(recipe: TerrainRecipe) -> list[int]:
    """The shares of the ``window_progress`` blocks ``terrain_heights`` opens, in order (``progress.staged``'s
    ``weights``): the noise 1 (not evaluated on a base at height 0), the rivers and then the droplets and thermal
    erosion ``EROSION_WEIGHT`` each, when on."""
    shape = recipe.shape
    noise = shape["base_blend"] == "NONE" or shape["height"] != 0.0
    eroding = (recipe.fluvial, recipe.hydraulic if recipe.hydraulic is not None else recipe.thermal)
    return [1] * noise + [EROSION_WEIGHT for stage in eroding if stage is not None]
