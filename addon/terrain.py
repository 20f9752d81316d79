"""Noise Terrain: a grid mesh raised by noise (``add_terrain``), the settings it keeps, and its operators.

``add_terrain`` adds the object (Add > Mesh > Noise Terrain: ``noisewright.add_terrain``, placed like Blender's
own Add > Mesh objects through ``AddObjectHelper``) and stores on it its grid, noise and erosion stages
(``Object.noisewright_terrain``: rivers, then hydraulic droplets, then thermal, each optional); the Noise
Terrain panel shows them for the active terrain and ``regenerate_terrain`` (``noisewright.regenerate_terrain``)
rebuilds the mesh from them, as A.N.T. Landscape's refresh. The grid's options are declared once, as rows
(``SHAPE_OPTIONS``): the function's defaults and checks, the operator's properties and the object's settings
come from them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

import bpy
import numpy as np
from bpy.props import BoolProperty, PointerProperty
from bpy_extras.object_utils import AddObjectHelper, object_data_add

from . import erosion_io, mesh_io, terrain_maps
from .erode_fluvial import TERRAIN_OPTIONS, FluvialSettings, carve_terrain, fluvial_options, write_flow
from .errors import UserError
from .mapping import (
    Domain,
    check_finite,
    check_finite_values,
    evaluate_mapped,
    evaluate_plane,
    from_domain,
    from_spec,
    to_domain,
    to_spec,
)
from .mesh_io import mesh_of
from .noise_core import NoiseSpec
from .noise_core.io import heightmaps
from .noise_core.ranges import to_unit
from .noise_core.registry import COMMON_OPTIONS, kind_info
from .noise_core.schema import Option
from .noise_core.terrain import resample
from .noise_core.terrain.erosion import HYDRAULIC_OPTIONS, THERMAL_OPTIONS
from .options import NoiseOperator, OptionsOperator, check, check_noise, checked, properties_of, reports
from .progress import staged, window_progress
from .properties import ErosionSettings, NoiseSettings, erosion_options, operator_settings
from .ui import draw_noise_settings

MAX_SUBDIVISIONS = 16384
MAX_VERTICES = 1 << 24
"""Largest terrain (16.7 M vertices, some 2 GB inside Blender): bigger requests are refused."""
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
    Option("base_file", str, "", "Heightmap file of the base (.r16, .raw, .r32, .png, .exr, .tif), resampled "
           "bilinearly to the grid; its first row is the +Y edge", title="Base File", subtype="FILE_PATH"),
    Option("base_low", float, 0.0, "Height of the base's value 0", title="Base Lowest", unit="LENGTH"),
    Option("base_high", float, 1.0, "Height of the base's value 1", title="Base Highest", unit="LENGTH"),
)  # fmt: skip
"""A terrain's base heightmap (``base_heights``), kept beside its grid options; not in presets."""
BASE_FIELDS = tuple(option.name for option in BASE_OPTIONS)


def grid_positions(
    x_subdivisions: int, y_subdivisions: int, size: float, heights: np.ndarray | float = 0.0, dtype: Any = np.float64
) -> np.ndarray:
    """(N, 3) positions of a centred grid, row-major from -y: x and y evenly from ``-size / 2`` to ``size / 2``
    (computed in float64, stored as ``dtype``), z ``heights`` ((N,) or one value)."""
    columns, rows = x_subdivisions + 1, y_subdivisions + 1
    half = size * 0.5
    lattice = np.empty((rows, columns, 3), dtype=dtype)
    lattice[:, :, 0] = np.linspace(-half, half, columns)
    lattice[:, :, 1] = np.linspace(-half, half, rows)[:, None]
    lattice[:, :, 2] = np.reshape(heights, (rows, columns)) if np.ndim(heights) else heights
    return lattice.reshape(-1, 3)


def grid_quads(x_subdivisions: int, y_subdivisions: int) -> np.ndarray:
    """(F, 4) int32 quads of the grid, row-major from -y: face ``(r, c)`` has the corners ``a, a + 1,
    a + 1 + columns, a + columns`` with ``a = r * columns + c`` (``mesh_io.is_grid`` checks this layout)."""
    columns, rows = x_subdivisions + 1, y_subdivisions + 1
    index = np.arange(rows * columns, dtype=np.int32).reshape(rows, columns)  # Blender's vertex indices are int32
    corners = np.empty((rows - 1, columns - 1, 4), dtype=np.int32)
    corners[:, :, 0], corners[:, :, 1] = index[:-1, :-1], index[:-1, 1:]
    corners[:, :, 2], corners[:, :, 3] = index[1:, 1:], index[1:, :-1]
    return corners.reshape(-1, 4)


def grid(
    x_subdivisions: int, y_subdivisions: int, size: float, heights: np.ndarray | float = 0.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(positions (N, 3) with z = heights, quads (F, 4), uvs (N, 2))`` of a centred grid, row-major from -y
    (``grid_positions``, ``grid_quads``)."""
    positions = grid_positions(x_subdivisions, y_subdivisions, size, heights)
    return positions, grid_quads(x_subdivisions, y_subdivisions), positions[:, :2] / size + 0.5


def _smoothstep(t: np.ndarray) -> np.ndarray:
    t = np.clip(t, 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


def _edge_factor(x: np.ndarray, y: np.ndarray, size: float, mode: str, width: float) -> np.ndarray | None:
    """``edge_falloff``'s factor at ``x``, ``y`` (arrays that broadcast together); None without a falloff."""
    if mode not in ("X", "Y", "RADIAL"):
        return None
    u = np.abs(x) / (size * 0.5)
    v = np.abs(y) / (size * 0.5)
    distance = {"X": u, "Y": v}.get(mode)
    distance = np.hypot(u, v) if distance is None else distance
    return _smoothstep((1.0 - distance) / max(width, 1e-6))


def edge_falloff(positions: np.ndarray, size: float, mode: str, width: float) -> np.ndarray:
    """(N,) factor in 0..1: 1 inside, easing to 0 at the edges (``mode`` NONE, X, Y or RADIAL)."""
    factor = _edge_factor(positions[:, 0], positions[:, 1], size, mode, width)
    return np.ones(positions.shape[0]) if factor is None else factor


def _target_collection(context: bpy.types.Context, warn: Callable[[str], None] | None) -> bpy.types.LayerCollection:
    """The active layer collection, or the scene's when the active one is linked library data (read-only)."""
    layer_collection = cast(bpy.types.LayerCollection, context.view_layer.active_layer_collection)
    if layer_collection.collection.is_editable:
        return layer_collection
    if warn is not None:
        warn("The active collection is linked library data; added to the scene collection")
    return cast(bpy.types.LayerCollection, context.view_layer.layer_collection)  # the scene collection's


@checked(*SHAPE_OPTIONS, *BASE_OPTIONS)
def add_terrain(
    context: bpy.types.Context,
    spec: NoiseSpec,
    domain: Domain | None = None,
    *,
    hydraulic: dict[str, Any] | None = None,
    thermal: dict[str, Any] | None = None,
    fluvial: dict[str, Any] | None = None,
    operator: bpy.types.Operator | None = None,
    warn: Callable[[str], None] | None = None,
    **shape: Any,
) -> bpy.types.Object:
    """Add a "Noise Terrain": a ``size`` wide grid raised along Z by ``spec``, placed as Blender adds objects.

    Vertex ``(x, y)`` reads the noise at ``domain.noise_points((x + offset_x, y + offset_y, 0))`` and gets
    ``z = to_unit(noise) * height * edge_falloff``, then the erosion stages whose options are given (``{}``:
    the defaults; ``terrain_geometry``): rivers (``fluvial``: ``erode_fluvial.TERRAIN_OPTIONS`` by name but the
    switch), hydraulic and thermal erosion (keyword arguments of ``noise_core.erode_hydraulic``/``erode_thermal``),
    with the masks in the mesh's ``erosion``/``deposition`` attributes and the rivers' flow maps in
    ``drainage_area``/``river``. The object keeps all these settings
    (``regenerate_terrain``); floats as Blender stores them (32-bit), and the terrain is built from those.
    The object is added like Add > Mesh objects
    (``object_data_add``): at the 3D cursor, or at ``operator``'s Location/Rotation/Align when given (an
    ``AddObjectHelper`` operator), selected and active, in Edit Mode if the user's preference says so. A
    linked (read-only) active collection gets the object into the scene collection, with a ``warn`` call.
    Returns the object; ``UserError`` for bad arguments or when the object cannot be added (then no mesh
    or object is left behind). The grid's keyword arguments (``x_subdivisions``, ``y_subdivisions``, ``size``,
    ``height``, ``offset``, ``falloff``, ``falloff_width``), their defaults and limits: ``SHAPE_OPTIONS``; the
    base heightmap's (``base_blend``, ``base_file``, ``base_low``, ``base_high``): ``BASE_OPTIONS``.
    """
    domain = Domain() if domain is None else domain
    check_noise(spec, domain)
    hydraulic = _erosion_options("hydraulic", hydraulic, HYDRAULIC_OPTIONS)
    thermal = _erosion_options("thermal", thermal, THERMAL_OPTIONS)
    fluvial = _erosion_options("fluvial", fluvial, TERRAIN_OPTIONS[1:])
    spec, domain = stored_spec(spec), stored_domain(domain)
    shape, hydraulic, thermal = as_stored(shape), as_stored(hydraulic), as_stored(thermal)
    fluvial = as_stored(fluvial)
    positions, quads, uvs, masks = terrain_geometry(context, spec, domain, shape, hydraulic, thermal, fluvial)
    layer_collection = _target_collection(context, warn)
    mesh = bpy.data.meshes.new("Noise Terrain")
    try:
        mesh_io.build_grid(mesh, positions, quads, uvs)
        write_maps(mesh, masks)
        with context.temp_override(layer_collection=layer_collection):
            obj = object_data_add(context, mesh, operator=operator)
    except RuntimeError as error:
        for obj in [obj for obj in bpy.data.objects if obj.data == mesh]:
            bpy.data.objects.remove(obj)
        bpy.data.meshes.remove(mesh)
        raise UserError(f"Could not add the terrain to {layer_collection.collection.name!r}: {error}") from None
    store(obj, spec, domain, shape, hydraulic, thermal, fluvial)
    return obj


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


def _erosion_options(name: str, options: object, schema: tuple) -> dict[str, Any] | None:
    """``options`` (a dict of erosion options, or None) with every option the caller left out at its default."""
    if options is None:
        return None
    if not isinstance(options, dict):
        raise UserError(f"{name}: expected a dict of erosion options or None, got {type(options).__name__}")
    return {option.name: option.default for option in schema} | options


def terrain_geometry(
    context: bpy.types.Context, spec: object, domain: object, shape: dict, *stages: object
) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple]:
    """``(positions, quads, uvs, masks)`` of the terrain: ``grid`` of the checked ``shape`` with z
    ``terrain_heights(context, spec, domain, shape, hydraulic, thermal, fluvial=None)`` (``stages``: the last three),
    and its masks and flow maps; ``UserError`` as ``terrain_heights``."""
    heights, masks = terrain_heights(context, spec, domain, shape, *stages)
    return (*grid(shape["x_subdivisions"], shape["y_subdivisions"], shape["size"], heights), masks)


def terrain_heights(
    context: bpy.types.Context,
    spec: object,
    domain: object,
    shape: dict,
    hydraulic: object,
    thermal: object,
    fluvial: object = None,
) -> tuple[np.ndarray, tuple]:
    """``(heights (N,), (erosion, deposition, drainage_area, river))`` of the terrain of ``spec``/``domain`` at the
    vertices of the grid ``shape`` (``grid_positions``, row-major from -y): ``(base + noise * height) * falloff``
    (``base_heights``: 0 without a base), eroded by the stages given, in this order: rivers (``fluvial``,
    ``erode_fluvial.carve_terrain``), hydraulic droplets, thermal. The masks are what all stages took and left
    (None without erosion), the flow maps the rivers' (None without them); all checked first."""
    check_noise(spec, domain)
    shape = _check_shape(shape)
    for name, options in (("hydraulic", hydraulic), ("thermal", thermal), ("fluvial", fluvial)):
        if options is not None and not isinstance(options, dict):
            raise UserError(f"{name}: expected a dict of erosion options or None, got {type(options).__name__}")
    spec, domain = cast(NoiseSpec, spec), cast(Domain, domain)
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
    factor = _edge_factor(xs[None, :], ys[:, None], shape["size"], shape["falloff"], shape["falloff_width"])
    if factor is not None:  # the float64 factor's product, as stored in float64 positions
        heights = (heights.reshape(rows, columns) * factor).ravel()
    check_finite_values("height: vertex heights", np.asarray(heights, dtype=np.float32))
    masks: tuple = (None, None, None, None)
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
        drainage = river = None
        if fluvial is not None:
            eroded, drainage, river = carve_terrain(context, eroded, cell_size, cast(dict, fluvial))
        if hydraulic is not None or thermal is not None:
            with window_progress(context, erosion_io.PROGRESS) as advance:
                eroded = erosion_io.erode_heights(
                    eroded, cell_size, cast(dict, hydraulic), cast(dict, thermal), advance
                ).heights
        change = eroded.astype(np.float64).ravel() - before.astype(np.float32).ravel()  # as erode_heights'
        heights = eroded.ravel()
        masks = (np.maximum(-change, 0.0), np.maximum(change, 0.0), drainage, river)
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


def write_maps(mesh: bpy.types.Mesh, maps: tuple) -> None:
    """Store ``terrain_geometry``'s masks and flow maps as point attributes (None removes one)."""
    erosion_io.write_masks(mesh, *maps[:2])
    write_flow(mesh, *maps[2:])


def regenerate_terrain(context: bpy.types.Context, obj: bpy.types.Object) -> bpy.types.Object:
    """Rebuild the mesh of the Noise Terrain ``obj`` from the settings it keeps (``obj.noisewright_terrain``).

    The object stays, with its name, transform, modifiers, materials and everything else. With the same
    subdivisions only the vertex positions change (UV maps, vertex groups, attributes and face materials stay);
    with other subdivisions, or faces no longer those of the grid in its order (Mesh > Sort Elements), the mesh
    gets the new grid (its material slots stay; shape keys refuse this).
    ``UserError`` naming the problem when ``obj`` is not a Noise Terrain, is linked or in Edit Mode, or its
    settings are invalid; then nothing changes.
    """
    compute, apply = regenerate_parts(context, obj)
    apply(compute(lambda _count: None))
    return obj


REBUILD_STEPS = 1000
"""The progress ``regenerate_parts``' ``compute`` reports in all (``stage_weights``' shares)."""
EROSION_WEIGHT = 4
"""The share of an erosion stage (rivers; droplets and thermal) in ``stage_weights``: the noise's is 1."""
MAPS_WEIGHT = 2
"""The share of the recorded terrain maps in ``regenerate_parts``' progress (``terrain_maps.rewrite_parts``)."""


def stage_weights(shape: dict, hydraulic: object, thermal: object, fluvial: object = None) -> list[int]:
    """The shares of the ``window_progress`` blocks ``terrain_heights`` opens, in order (``progress.staged``'s
    ``weights``): the noise 1 (not evaluated on a base at height 0), the rivers and then the droplets and thermal
    erosion ``EROSION_WEIGHT`` each, when on."""
    noise = shape["base_blend"] == "NONE" or shape["height"] != 0.0
    eroding = (fluvial, hydraulic if hydraulic is not None else thermal)
    return [1] * noise + [EROSION_WEIGHT for stage in eroding if stage is not None]


def regenerate_parts(
    context: bpy.types.Context, obj: object
) -> tuple[Callable[[Callable[[int], None]], tuple], Callable[[tuple], None]]:
    """``regenerate_terrain`` in three parts, for jobs (``live``): this checks ``obj`` and reads its settings (main
    thread; ``UserError`` as ``regenerate_terrain``); ``compute(advance)`` makes the heights and masks
    (``terrain_heights``: any thread, touching no Blender data; on a job's worker its noise chunks and droplet
    batches check for a cancel), and the terrain maps recorded on it (``terrain_maps.rewrite_parts``) of the new
    heights; ``apply(result)`` writes them (main thread; ``UserError``, changing nothing, when the object was
    removed or renamed, is in Edit Mode, or its settings changed meanwhile). On a job's worker ``compute`` moves
    ``advance`` on through ``REBUILD_STEPS`` in all, monotone (``progress.staged``)."""
    _check_regenerable(obj)
    obj = cast(bpy.types.Object, obj)
    recalled = recall(obj)
    spec, domain, shape, *stages = recalled
    if shape["base_blend"] != "NONE":  # a "//" path read against the .blend here, not on the worker
        shape = {**shape, "base_file": bpy.path.abspath(shape["base_file"])}
    name, mesh_name = obj.name, mesh_of(obj).name
    maps_total, maps_compute, maps_apply = terrain_maps.rewrite_parts(obj)
    weights = stage_weights(shape, *stages) + [MAPS_WEIGHT] * (maps_total > 0)

    def compute(advance: Callable[[int], None]) -> tuple:
        with staged(advance, REBUILD_STEPS, weights):  # a job's progress, stage by stage
            heights, masks = terrain_heights(context, spec, domain, shape, *stages)
            size = (shape["x_subdivisions"], shape["y_subdivisions"], shape["size"])
            positions = grid_positions(*size, heights, np.float32)  # what a mesh with the grid gets
            maps = []
            if maps_total:  # the recorded terrain maps of these positions, made here too
                with window_progress(context, maps_total) as maps_advance:
                    maps = maps_compute(positions, maps_advance)
        return heights, masks, positions, maps

    def apply(result: tuple) -> None:
        target = bpy.data.objects.get(name)
        if target is None or not is_terrain(target) or mesh_of(target).name != mesh_name or recall(target) != recalled:
            raise UserError(f"{name!r}: the terrain was removed, renamed or changed meanwhile; nothing was changed")
        _check_regenerable(target)
        *terrain, maps = result
        _write_terrain(target, shape, *terrain)
        maps_apply(target, maps)  # the maps Object > Terrain Maps wrote, of the new heights

    return compute, apply


def _check_regenerable(obj: object) -> None:
    """``UserError`` when ``obj`` is not a Noise Terrain, is linked or in Edit Mode."""
    if not is_terrain(obj):
        name = obj.name if isinstance(obj, bpy.types.Object) else type(obj).__name__
        raise UserError(f"object: {name!r} is not a Noise Terrain (Add > Mesh > Noise Terrain makes one)")
    obj = cast(bpy.types.Object, obj)
    mesh = mesh_of(obj)
    if not obj.is_editable or not mesh.is_editable:
        raise UserError(f"{obj.name!r}: linked library data cannot be changed (make it local first)")
    if obj.mode == "EDIT":
        raise UserError(f"{obj.name!r}: leave Edit Mode to regenerate the terrain")


def _write_terrain(
    obj: bpy.types.Object, shape: dict, heights: np.ndarray, masks: tuple, positions: np.ndarray
) -> None:
    """Give the terrain ``obj`` the ``heights`` and ``masks`` of its grid ``shape`` (``regenerate_terrain``;
    ``positions``: ``grid_positions`` of the heights, float32)."""
    mesh = mesh_of(obj)
    x_subdivisions, y_subdivisions, size = shape["x_subdivisions"], shape["y_subdivisions"], shape["size"]
    if mesh_io.is_grid(mesh, x_subdivisions + 1, y_subdivisions + 1):  # the grid's faces: write the positions only
        mesh_io.write_positions(mesh, positions)
    else:
        if mesh.shape_keys is not None:
            faces = x_subdivisions * y_subdivisions
            same_count = len(mesh.vertices) == heights.shape[0] and len(mesh.polygons) == faces
            change = "a new vertex count" if not same_count else "rebuilding the grid (its vertices were reordered)"
            raise UserError(
                f"{obj.name!r}: the mesh has shape keys, which {change} would lose; keep the "
                f"subdivisions or remove the shape keys"
            )
        mesh.clear_geometry()
        mesh_io.build_grid(mesh, *grid(x_subdivisions, y_subdivisions, size, heights))
    write_maps(mesh, masks)
    mesh.update()


def is_terrain(obj: object) -> bool:
    """Whether ``obj`` is a Noise Terrain: a mesh object ``add_terrain`` made, which keeps its settings."""
    return isinstance(obj, bpy.types.Object) and obj.type == "MESH" and obj.noisewright_terrain.is_terrain  # type: ignore[attr-defined]


def _plain(value: Any) -> Any:
    """A property's value as plain Python (vectors as tuples)."""
    return value if isinstance(value, (str, int, float, bool)) else tuple(value)


class TerrainSettings(bpy.types.PropertyGroup):
    """A Noise Terrain's settings: its grid (``SHAPE_OPTIONS``), its noise and its erosion stages (rivers in
    ``fluvial``, hydraulic and thermal in ``erosion``)."""

    __annotations__ = {  # Blender reads the properties from here
        "is_terrain": BoolProperty(  # type: ignore[func-returns-value]
            name="Noise Terrain", description="Made by Add > Mesh > Noise Terrain: can be regenerated", default=False
        ),
        "auto_refresh": BoolProperty(  # type: ignore[func-returns-value]
            name="Auto Refresh", description="Rebuild the terrain whenever one of its settings changes", default=True
        ),
        **properties_of(*SHAPE_OPTIONS),
        **properties_of(*BASE_OPTIONS),
        "noise": PointerProperty(type=NoiseSettings),  # type: ignore[func-returns-value]
        "erosion": PointerProperty(type=ErosionSettings),  # type: ignore[func-returns-value]
        "fluvial": PointerProperty(type=FluvialSettings),  # type: ignore[func-returns-value]
    }


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


def store(
    obj: bpy.types.Object,
    spec: NoiseSpec,
    domain: Domain,
    shape: dict[str, Any],
    hydraulic: dict[str, Any] | None = None,
    thermal: dict[str, Any] | None = None,
    fluvial: dict[str, Any] | None = None,
) -> None:
    """Remember on ``obj`` the noise ``spec``, ``domain``, grid ``shape`` (``SHAPE_FIELDS``) and erosion stages'
    options (``None``: that stage is off) it was built from."""
    terrain = obj.noisewright_terrain  # type: ignore[attr-defined]
    from_spec(terrain.noise, spec)
    from_domain(terrain.noise, domain)
    terrain.erosion.hydraulic = hydraulic is not None
    terrain.erosion.thermal = thermal is not None
    for name, value in {**(hydraulic or {}), **(thermal or {})}.items():
        setattr(terrain.erosion, name, value)
    terrain.fluvial.fluvial = fluvial is not None
    for name, value in (fluvial or {}).items():
        setattr(terrain.fluvial, name, value)
    for name in SHAPE_FIELDS:
        setattr(terrain, name, shape[name])
    for option in BASE_OPTIONS:
        setattr(terrain, option.name, shape.get(option.name, option.default))
    terrain.is_terrain = True


def recall(
    obj: bpy.types.Object,
) -> tuple[NoiseSpec, Domain, dict[str, Any], dict | None, dict | None, dict | None]:
    """``(spec, domain, shape, hydraulic, thermal, fluvial)`` as stored on ``obj``; ``UserError`` (from
    ``to_spec``) if the noise settings are invalid."""
    terrain = obj.noisewright_terrain  # type: ignore[attr-defined]
    shape = {name: _plain(getattr(terrain, name)) for name in (*SHAPE_FIELDS, *BASE_FIELDS)}
    erosion = erosion_options(terrain.erosion)
    return (to_spec(terrain.noise), to_domain(terrain.noise), shape, *erosion, fluvial_options(terrain.fluvial))


def snapshot(group: bpy.types.PropertyGroup) -> dict[str, Any]:
    """Every property of ``group`` (nested groups as dicts), to put back with ``restore``."""
    values: dict[str, Any] = {}
    for prop in group.bl_rna.properties:
        name = prop.identifier
        if name in ("rna_type", "name"):
            continue
        value = getattr(group, name)
        if prop.type == "POINTER":
            values[name] = snapshot(value)
        else:
            values[name] = _plain(value)
    return values


def restore(group: bpy.types.PropertyGroup, values: dict[str, Any]) -> None:
    """Put back what ``snapshot`` took (``kind`` first: the option menus depend on it)."""
    if "kind" in values:
        group.kind = values["kind"]  # type: ignore[attr-defined]
    for name, value in values.items():
        if isinstance(value, dict):
            restore(getattr(group, name), value)
        elif name != "kind" and value != "":
            setattr(group, name, value)


class NOISEWRIGHT_OT_add_terrain(NoiseOperator, bpy.types.Operator, AddObjectHelper):
    """Add a grid mesh raised by noise (a terrain)"""

    bl_idname = "noisewright.add_terrain"
    bl_label = "Noise Terrain"
    __annotations__ = properties_of(*SHAPE_OPTIONS)

    @staticmethod
    def unavailable(context) -> str:
        return "" if context.mode == "OBJECT" else "Add Noise Terrain works in Object Mode"

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        draw_shape(cast(bpy.types.UILayout, layout), self)
        for name in ("align", "location", "rotation"):
            layout.prop(self, name)
        draw_noise_settings(layout.box(), self.noise)

    @reports
    def execute(self, context):
        settings = operator_settings(self, context)
        add_terrain(
            context,
            to_spec(settings),
            to_domain(settings),
            operator=self,
            warn=lambda message: self.report({"WARNING"}, message),
            **self.keywords("align", "location", "rotation"),
        )
        return {"FINISHED"}


def draw_shape(layout: bpy.types.UILayout, owner) -> None:
    """The grid fields of the operator or of a terrain's settings (falloff width only with a falloff; a
    terrain's base heightmap, its file and range only with a base)."""
    for name in SHAPE_FIELDS:
        if name != "falloff_width" or owner.falloff != "NONE":
            layout.prop(owner, name)
    if isinstance(owner, TerrainSettings):
        for name in BASE_FIELDS:
            if name == "base_blend" or owner.base_blend != "NONE":  # type: ignore[attr-defined]
                layout.prop(owner, name)


BEFORE_REGENERATE: list[Callable[[str], None]] = []
"""Called with a Noise Terrain's name before Regenerate rebuilds it (``live.forget``, added by
``live.attach_callbacks``: a full rebuild Auto Refresh runs as a job is dropped, this one builds it instead)."""


class NOISEWRIGHT_OT_regenerate_terrain(OptionsOperator, bpy.types.Operator):
    """Rebuild the active Noise Terrain from its settings, keeping the object, its modifiers and materials"""

    bl_idname = "noisewright.regenerate_terrain"
    bl_label = "Regenerate Terrain"
    bl_options = {"REGISTER", "UNDO"}

    @staticmethod
    def unavailable(context) -> str:
        if context.mode != "OBJECT":
            return "Regenerate works in Object Mode"
        return "" if is_terrain(context.active_object) else "The active object is not a Noise Terrain"

    @reports
    def execute(self, context):
        check_finite(context.active_object.noisewright_terrain)
        for hook in BEFORE_REGENERATE:
            hook(context.active_object.name)
        regenerate_terrain(context, context.active_object)
        return {"FINISHED"}


def menu_entry(menu, _context) -> None:
    menu.layout.operator(NOISEWRIGHT_OT_add_terrain.bl_idname, text="Noise Terrain", icon="RNDCURVE")


def attach() -> None:
    bpy.types.Object.noisewright_terrain = PointerProperty(  # type: ignore[attr-defined, func-returns-value]
        type=TerrainSettings, name="Noise Terrain", description="The settings this Noise Terrain was built from"
    )


def detach() -> None:
    del bpy.types.Object.noisewright_terrain  # type: ignore[attr-defined]


CLASSES = (TerrainSettings, NOISEWRIGHT_OT_add_terrain, NOISEWRIGHT_OT_regenerate_terrain)
