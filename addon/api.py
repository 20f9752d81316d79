"""The add-on's Python API: the plain functions under its operators, for scripts and other add-ons.

``from bl_ext.<repository>.noisewright import api`` (or the extension's package name), then e.g.::

    spec = api.NoiseSpec(kind="perlin", octaves=5)
    terrain = api.add_terrain(bpy.context, spec, x_subdivisions=256, y_subdivisions=256, height=0.8)

Each function checks its arguments once and raises ``UserError`` (``addon/errors.py``) whose message
starts with the argument's name and says what is allowed; a failure leaves the scene as it was.
The operators are thin wrappers: properties -> ``NoiseSpec`` and ``Domain`` -> one of these -> report.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, cast

import bpy
import numpy as np
from bpy_extras.object_utils import object_data_add

from . import erosion_io, image_io, mesh_io, terrain
from .errors import UserError
from .mapping import Domain, check_finite_values, evaluate_chunked
from .noise_core import NoiseSpec, loops, normal_maps, uv_bake
from .noise_core.erosion import HYDRAULIC_OPTIONS, THERMAL_OPTIONS
from .noise_core.files import check_writable
from .noise_core.ranges import to_unit
from .noise_core.registry import kind_info
from .noise_core.schema import number
from .pixels import noise01_image, normal_colours, pixel_array, to_rgba
from .progress import window_progress

__all__ = [
    "Domain",
    "NoiseSpec",
    "UserError",
    "add_terrain",
    "bake",
    "bake_uv",
    "displace",
    "edge_falloff",
    "erode",
    "erode_image",
    "grid",
    "is_terrain",
    "normal_method_for",
    "regenerate_terrain",
]

FALLOFFS = tuple(item[0] for item in terrain.FALLOFF_ITEMS)
DIRECTIONS = ("NORMAL", "X", "Y", "Z", "CUSTOM")
SPACES = ("LOCAL", "WORLD")
AXES = {"X": (1.0, 0.0, 0.0), "Y": (0.0, 1.0, 0.0), "Z": (0.0, 0.0, 1.0)}
MAX_PIXELS = 1 << 26
"""Largest image (8192 x 8192; 1 GiB of float RGBA inside Blender): bigger bakes are refused."""
COLOR_MODES = ("GRAYSCALE", "RAMP")
SAVE_FORMATS = ("NONE", "PNG", "PNG_8", "OPEN_EXR")
MAP_TYPES = ("HEIGHT", "NORMAL")
NORMAL_CONVENTIONS = ("OPENGL", "DIRECTX")
NORMAL_METHODS = ("AUTO", "ANALYTIC", "DIFFERENCES")
MAX_SUBDIVISIONS = terrain.MAX_SUBDIVISIONS
MAX_VERTICES = 1 << 24
"""Largest terrain (16.7 M vertices, some 2 GB inside Blender): bigger requests are refused."""


def grid(x_subdivisions: int, y_subdivisions: int, size: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(positions (N, 3) with z = 0, quads (F, 4), uvs (N, 2))`` of a centred grid, row-major from -y."""
    columns, rows = x_subdivisions + 1, y_subdivisions + 1
    half = size * 0.5
    xs = np.linspace(-half, half, columns)
    ys = np.linspace(-half, half, rows)
    positions = np.zeros((rows * columns, 3), dtype=np.float64)
    positions[:, 0] = np.tile(xs, rows)
    positions[:, 1] = np.repeat(ys, columns)
    index = np.arange(rows * columns, dtype=np.int64).reshape(rows, columns)
    quads = np.stack((index[:-1, :-1], index[:-1, 1:], index[1:, 1:], index[1:, :-1]), axis=-1).reshape(-1, 4)
    uvs = positions[:, :2] / size + 0.5
    return positions, quads, uvs


def _smoothstep(t: np.ndarray) -> np.ndarray:
    t = np.clip(t, 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


def edge_falloff(positions: np.ndarray, size: float, mode: str, width: float) -> np.ndarray:
    """(N,) factor in 0..1: 1 inside, easing to 0 at the edges (``mode`` NONE, X, Y or RADIAL)."""
    u = np.abs(positions[:, 0]) / (size * 0.5)
    v = np.abs(positions[:, 1]) / (size * 0.5)
    distance = {"X": u, "Y": v, "RADIAL": np.hypot(u, v)}.get(mode)
    if distance is None:
        return np.ones(positions.shape[0])
    return _smoothstep((1.0 - distance) / max(width, 1e-6))


def _finite(name: str, value: object) -> float:
    """``value`` as a finite float (``noise_core``'s check), else ``UserError`` starting with ``name``."""
    try:
        return number(name, value)
    except (TypeError, ValueError) as error:
        raise UserError(str(error)) from None


def _check_noise(spec: object, domain: object) -> None:
    if not isinstance(spec, NoiseSpec):
        raise UserError(f"spec: expected a NoiseSpec, got {type(spec).__name__}")
    if not isinstance(domain, Domain):
        raise UserError(f"domain: expected a Domain, got {type(domain).__name__}")
    dims = kind_info(spec.kind).dims
    if domain.dimensions not in dims:
        allowed = ", ".join(f"{d}D" for d in dims)
        raise UserError(f"domain: kind {spec.kind!r} is defined in {allowed}, not {domain.dimensions}D")


def _check_terrain(
    x_subdivisions: object, y_subdivisions: object, size: object, height: object, offset: object, falloff: object,
    falloff_width: object,
) -> None:  # fmt: skip
    for name, value in (("x_subdivisions", x_subdivisions), ("y_subdivisions", y_subdivisions)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 1 <= value <= MAX_SUBDIVISIONS:
            raise UserError(f"{name}: must be a whole number between 1 and {MAX_SUBDIVISIONS}, got {value!r}")
    vertices = (int(x_subdivisions) + 1) * (int(y_subdivisions) + 1)  # type: ignore[call-overload]
    if vertices > MAX_VERTICES:
        raise UserError(f"x_subdivisions, y_subdivisions: {vertices} vertices exceed the limit of {MAX_VERTICES}")
    if _finite("size", size) <= 0.0:
        raise UserError(f"size: must be > 0, got {size!r}")
    _finite("height", height)
    if not isinstance(offset, Sequence) or len(offset) != 2:
        raise UserError(f"offset: expected two numbers (x, y), got {offset!r}")
    if not all(math.isfinite(v) for v in offset):
        raise UserError(f"offset: must be a finite number, got {', '.join(f'{v:g}' for v in offset)}")
    if falloff not in FALLOFFS:
        raise UserError(f"falloff: {falloff!r} is not allowed; choose one of {', '.join(map(repr, FALLOFFS))}")
    if not 0.0 <= _finite("falloff_width", falloff_width) <= 1.0:
        raise UserError(f"falloff_width: must be between 0 and 1, got {falloff_width!r}")


def _target_collection(context: bpy.types.Context, warn: Callable[[str], None] | None) -> bpy.types.LayerCollection:
    """The active layer collection, or the scene's when the active one is linked library data (read-only)."""
    layer_collection = cast(bpy.types.LayerCollection, context.view_layer.active_layer_collection)
    if layer_collection.collection.is_editable:
        return layer_collection
    if warn is not None:
        warn("The active collection is linked library data; added to the scene collection")
    return cast(bpy.types.LayerCollection, context.view_layer.layer_collection)  # the scene collection's


def add_terrain(
    context: bpy.types.Context,
    spec: NoiseSpec,
    domain: Domain | None = None,
    *,
    x_subdivisions: int = 128,
    y_subdivisions: int = 128,
    size: float = 2.0,
    height: float = 0.5,
    offset: Sequence[float] = (0.0, 0.0),
    falloff: str = "NONE",
    falloff_width: float = 0.3,
    hydraulic: dict[str, Any] | None = None,
    thermal: dict[str, Any] | None = None,
    operator: bpy.types.Operator | None = None,
    warn: Callable[[str], None] | None = None,
) -> bpy.types.Object:
    """Add a "Noise Terrain": a ``size`` wide grid raised along Z by ``spec``, placed as Blender adds objects.

    Vertex ``(x, y)`` reads the noise at ``domain.noise_points((x + offset_x, y + offset_y, 0))`` and gets
    ``z = to_unit(noise) * height * edge_falloff``, then hydraulic and thermal erosion when their options are
    given (keyword arguments of ``noise_core.erode_hydraulic``/``erode_thermal``; ``{}``: the defaults), with
    the masks in the mesh's ``erosion``/``deposition`` attributes. The object keeps all these settings
    (``regenerate_terrain``); floats as Blender stores them (32-bit), and the terrain is built from those.
    The object is added like Add > Mesh objects
    (``object_data_add``): at the 3D cursor, or at ``operator``'s Location/Rotation/Align when given (an
    ``AddObjectHelper`` operator), selected and active, in Edit Mode if the user's preference says so. A
    linked (read-only) active collection gets the object into the scene collection, with a ``warn`` call.
    Returns the object; ``UserError`` for bad arguments or when the object cannot be added (then no mesh
    or object is left behind).
    """
    domain = Domain() if domain is None else domain
    shape = {
        "x_subdivisions": x_subdivisions,
        "y_subdivisions": y_subdivisions,
        "size": size,
        "height": height,
        "offset": offset,
        "falloff": falloff,
        "falloff_width": falloff_width,
    }
    _check_noise(spec, domain)
    if isinstance(offset, Sequence) and not isinstance(offset, str):
        shape["offset"] = tuple(offset)
    hydraulic = _erosion_options("hydraulic", hydraulic, HYDRAULIC_OPTIONS)
    thermal = _erosion_options("thermal", thermal, THERMAL_OPTIONS)
    spec, domain = terrain.stored_spec(spec), terrain.stored_domain(domain)
    shape, hydraulic, thermal = terrain.as_stored(shape), terrain.as_stored(hydraulic), terrain.as_stored(thermal)
    positions, quads, uvs, masks = _terrain_geometry(context, spec, domain, shape, hydraulic, thermal)
    layer_collection = _target_collection(context, warn)
    mesh = bpy.data.meshes.new("Noise Terrain")
    try:
        mesh_io.build_grid(mesh, positions, quads, uvs)
        erosion_io.write_masks(mesh, *masks)
        with context.temp_override(layer_collection=layer_collection):
            obj = object_data_add(context, mesh, operator=operator)
    except RuntimeError as error:
        for obj in [obj for obj in bpy.data.objects if obj.data == mesh]:
            bpy.data.objects.remove(obj)
        bpy.data.meshes.remove(mesh)
        raise UserError(f"Could not add the terrain to {layer_collection.collection.name!r}: {error}") from None
    terrain.store(obj, spec, domain, shape, hydraulic, thermal)
    return obj


def _erosion_options(name: str, options: object, schema: tuple) -> dict[str, Any] | None:
    """``options`` (a dict of erosion options, or None) with every option the caller left out at its default."""
    if options is None:
        return None
    if not isinstance(options, dict):
        raise UserError(f"{name}: expected a dict of erosion options or None, got {type(options).__name__}")
    return {option.name: option.default for option in schema} | options


def _terrain_geometry(
    context: bpy.types.Context, spec: object, domain: object, shape: dict, hydraulic: object, thermal: object
) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple]:
    """``(positions, quads, uvs, (erosion, deposition))`` of the terrain of ``spec``/``domain`` on the grid
    ``shape``, eroded when ``hydraulic``/``thermal`` are given (masks None otherwise); all checked first."""
    _check_noise(spec, domain)
    _check_terrain(**shape)
    for name, options in (("hydraulic", hydraulic), ("thermal", thermal)):
        if options is not None and not isinstance(options, dict):
            raise UserError(f"{name}: expected a dict of erosion options or None, got {type(options).__name__}")
    spec, domain = cast(NoiseSpec, spec), cast(Domain, domain)
    positions, quads, uvs = grid(shape["x_subdivisions"], shape["y_subdivisions"], shape["size"])
    sample_at = positions.copy()
    sample_at[:, :2] += np.asarray(shape["offset"], dtype=np.float64)
    with window_progress(context, positions.shape[0]) as advance:
        noise01 = to_unit(spec, evaluate_chunked(spec, domain.noise_points(sample_at), advance))
    falloff = edge_falloff(positions, shape["size"], shape["falloff"], shape["falloff_width"])
    positions[:, 2] = noise01 * shape["height"] * falloff
    check_finite_values("height: vertex heights", positions[:, 2].astype(np.float32))
    masks: tuple = (None, None)
    if hydraulic is not None or thermal is not None:
        rows, columns = shape["y_subdivisions"] + 1, shape["x_subdivisions"] + 1
        cell_size = shape["size"] / math.sqrt(shape["x_subdivisions"] * shape["y_subdivisions"])
        heights = positions[:, 2].reshape(rows, columns)
        with window_progress(context, erosion_io.PROGRESS) as advance:
            eroded = erosion_io.erode_heights(heights, cell_size, cast(dict, hydraulic), cast(dict, thermal), advance)
        positions[:, 2] = eroded.heights.ravel()
        masks = (eroded.erosion.ravel(), eroded.deposition.ravel())
    return positions, quads, uvs, masks


def regenerate_terrain(context: bpy.types.Context, obj: bpy.types.Object) -> bpy.types.Object:
    """Rebuild the mesh of the Noise Terrain ``obj`` from the settings it keeps (``obj.noisewright_terrain``).

    The object stays, with its name, transform, modifiers, materials and everything else. With the same
    subdivisions only the vertex positions change (UV maps, vertex groups, attributes and face materials stay);
    with other subdivisions, or faces no longer those of the grid in its order (Mesh > Sort Elements), the mesh
    gets the new grid (its material slots stay; shape keys refuse this).
    ``UserError`` naming the problem when ``obj`` is not a Noise Terrain, is linked or in Edit Mode, or its
    settings are invalid; then nothing changes.
    """
    if not is_terrain(obj):
        name = obj.name if isinstance(obj, bpy.types.Object) else type(obj).__name__
        raise UserError(f"object: {name!r} is not a Noise Terrain (Add > Mesh > Noise Terrain makes one)")
    mesh = _mesh(obj)
    if not obj.is_editable or not mesh.is_editable:
        raise UserError(f"{obj.name!r}: linked library data cannot be changed (make it local first)")
    if obj.mode == "EDIT":
        raise UserError(f"{obj.name!r}: leave Edit Mode to regenerate the terrain")
    spec, domain, shape, hydraulic, thermal = terrain.recall(obj)
    positions, quads, uvs, masks = _terrain_geometry(context, spec, domain, shape, hydraulic, thermal)
    same_count = len(mesh.vertices) == positions.shape[0] and len(mesh.polygons) == quads.shape[0]
    if same_count and mesh_io.has_faces(mesh, quads):  # the grid's own vertex order: positions by index
        mesh_io.write_positions(mesh, positions)
    else:
        if mesh.shape_keys is not None:
            change = "a new vertex count" if not same_count else "rebuilding the grid (its vertices were reordered)"
            raise UserError(
                f"{obj.name!r}: the mesh has shape keys, which {change} would lose; keep the "
                f"subdivisions or remove the shape keys"
            )
        mesh.clear_geometry()
        mesh_io.build_grid(mesh, positions, quads, uvs)
    erosion_io.write_masks(mesh, *masks)
    mesh.update()
    return obj


def is_terrain(obj: object) -> bool:
    """Whether ``obj`` is a Noise Terrain: a mesh object ``add_terrain`` made, which keeps its settings."""
    return isinstance(obj, bpy.types.Object) and obj.type == "MESH" and obj.noisewright_terrain.is_terrain  # type: ignore[attr-defined]


# --- Erode ------------------------------------------------------------------------------------------------


def erode(
    context: bpy.types.Context,
    obj: bpy.types.Object,
    hydraulic: dict[str, Any] | None = None,
    thermal: dict[str, Any] | None = None,
) -> bpy.types.Object:
    """Erode the grid mesh ``obj`` (a Noise Terrain or any regular grid in local X/Y, heights along local Z).

    ``hydraulic``/``thermal`` are keyword arguments of ``noise_core.erode_hydraulic``/``erode_thermal``
    (``{}``: their defaults; ``None``: not run); the cell size is the grid's. The vertices move along Z, the
    masks go to the ``erosion``/``deposition`` point attributes. A Noise Terrain keeps its settings, so
    Regenerate rebuilds it uneroded (or with the erosion in its own settings). ``UserError`` naming the problem
    (not a grid, linked data, Edit Mode, bad options); then nothing changes.
    """
    if not isinstance(obj, bpy.types.Object) or obj.type != "MESH":
        raise UserError(f"object: expected a mesh object, got {getattr(obj, 'name', type(obj).__name__)!r}")
    _check_editable(obj)
    if obj.mode == "EDIT":
        raise UserError(f"{obj.name!r}: leave Edit Mode to erode")
    mesh = _mesh(obj)
    positions = mesh_io.read_positions(mesh).astype(np.float64)
    layout = erosion_io.grid_layout(obj.name, positions)
    heights = positions[layout.order, 2].reshape(layout.rows, layout.columns)
    with window_progress(context, erosion_io.PROGRESS) as advance:
        eroded = erosion_io.erode_heights(heights, layout.cell_size, hydraulic, thermal, advance)
    check_finite_values("heights: eroded heights", eroded.heights)
    positions[layout.order, 2] = eroded.heights.ravel()
    erosion, deposition = (np.empty(positions.shape[0], np.float32) for _ in range(2))
    erosion[layout.order], deposition[layout.order] = eroded.erosion.ravel(), eroded.deposition.ravel()
    mesh_io.write_positions(mesh, positions)
    erosion_io.write_masks(mesh, erosion, deposition)
    mesh.update()
    return obj


def erode_image(
    context: bpy.types.Context,
    image: bpy.types.Image,
    hydraulic: dict[str, Any] | None = None,
    thermal: dict[str, Any] | None = None,
    relief: float = 64.0,
) -> tuple[bpy.types.Image, bpy.types.Image]:
    """Erode the height image ``image`` (its red channel, written back as grey; alpha kept) and return the
    masks as float images ``"<name> Erosion"`` and ``"<name> Deposition"`` (made or replaced; amounts in the
    image's 0..1 units). ``relief``: how many pixels a height of 1 spans (the terrain's steepness).
    ``UserError`` naming the problem; then nothing changes."""
    if not isinstance(image, bpy.types.Image):
        raise UserError(f"image: expected an image, got {type(image).__name__}")
    width, height = (int(v) for v in image.size)
    if width < 3 or height < 3 or not image.has_data:
        raise UserError(f"image: {image.name!r} has no pixels of at least 3 x 3 to erode")
    if _finite("relief", relief) <= 0.0:
        raise UserError(f"relief: must be > 0 pixels, got {relief!r}")
    flat = np.empty(width * height * image.channels, dtype=np.float32)
    pixel_array(image).foreach_get(flat)
    pixels = flat.reshape(height * width, image.channels)
    heights = pixels[:, 0].reshape(height, width).astype(np.float64)
    with window_progress(context, erosion_io.PROGRESS) as advance:
        eroded = erosion_io.erode_heights(heights, 1.0 / float(relief), hydraulic, thermal, advance)
    check_finite_values("heights: eroded heights", eroded.heights)
    pixels[:, : min(3, image.channels)] = eroded.heights.reshape(-1, 1)
    pixel_array(image).foreach_set(pixels.ravel())
    image.update()
    masks = []
    for suffix, values in (("Erosion", eroded.erosion), ("Deposition", eroded.deposition)):
        name = f"{image.name} {suffix}"
        mask = bpy.data.images.get(name)
        if mask is not None and (tuple(mask.size) != (width, height) or not mask.is_float):
            bpy.data.images.remove(mask)
            mask = None
        if mask is None:
            mask = bpy.data.images.new(name, width, height, alpha=False, float_buffer=True, is_data=True)
        pixel_array(mask).foreach_set(to_rgba(values.ravel()).ravel())
        mask.update()
        masks.append(mask)
    return masks[0], masks[1]


# --- Displace ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Displacement:
    """How vertices move: ``(noise01 - midlevel) * strength * weight`` along ``direction`` in ``space``."""

    direction: str
    custom_axis: tuple[float, float, float]
    strength: float
    midlevel: float
    space: str


def _mesh(obj: bpy.types.Object) -> bpy.types.Mesh:
    return cast(bpy.types.Mesh, obj.data)


def _check_editable(obj: bpy.types.Object) -> None:
    mesh = _mesh(obj)
    if not obj.is_editable or not mesh.is_editable:
        raise UserError(f"{obj.name!r}: linked library data cannot be changed (make it local first)")
    if len(mesh.vertices) == 0:
        raise UserError(f"{obj.name!r}: the mesh has no vertices")


def _mesh_objects(objects: object) -> list[bpy.types.Object]:
    """``objects`` as a list of mesh objects, one per mesh (the first object using it)."""
    if isinstance(objects, (str, bytes, bpy.types.Object)) or not isinstance(objects, Iterable):
        raise UserError(f"objects: expected a list of mesh objects, got {type(objects).__name__}")
    meshes: dict[int, bpy.types.Object] = {}
    for obj in objects:
        if not isinstance(obj, bpy.types.Object) or obj.type != "MESH":
            shown = obj.name if isinstance(obj, bpy.types.Object) else type(obj).__name__
            raise UserError(f"objects: {shown!r} is not a mesh object")
        meshes.setdefault(_mesh(obj).as_pointer(), obj)
    if not meshes:
        raise UserError("objects: give at least one mesh object to displace")
    return list(meshes.values())


def _check_displacement(
    direction: object, custom_axis: object, strength: object, midlevel: object, space: object, shape_key: object
) -> _Displacement:
    if direction not in DIRECTIONS:
        raise UserError(f"direction: {direction!r} is not allowed; choose one of {', '.join(map(repr, DIRECTIONS))}")
    if not isinstance(custom_axis, Sequence) or len(custom_axis) != 3:
        raise UserError(f"custom_axis: expected three numbers (x, y, z), got {custom_axis!r}")
    axis = tuple(_finite("custom_axis", value) for value in custom_axis)
    if direction == "CUSTOM" and not any(axis):
        raise UserError("custom_axis: the custom direction must not be zero")
    if space not in SPACES:
        raise UserError(f"space: {space!r} is not allowed; choose one of {', '.join(map(repr, SPACES))}")
    if shape_key is not None and (not isinstance(shape_key, str) or not shape_key.strip()):
        raise UserError(f"shape_key: give the new shape key a name (or None for the base mesh), got {shape_key!r}")
    return _Displacement(
        str(direction), cast(tuple, axis), _finite("strength", strength), _finite("midlevel", midlevel), str(space)
    )


def _weighted_targets(
    context: bpy.types.Context,
    targets: list[bpy.types.Object],
    edit_mode: bool,
    vertex_group: str,
    invert_vertex_group: bool,
) -> tuple[list[bpy.types.Object], list[np.ndarray]]:
    """The targets to displace and their per-vertex weights (called in Object mode).

    In Edit mode only selected vertices move: objects without a selected vertex are skipped (left
    unchanged), and ``UserError`` is raised when no object has one.
    """
    chosen, weights = [], []
    for obj in targets:
        mesh = _mesh(obj)
        selection = mesh_io.read_selection(mesh) if edit_mode else None
        if selection is not None and not selection.any():
            continue
        _check_editable(obj)
        weight = np.ones(len(mesh.vertices), dtype=np.float32)
        if vertex_group:
            weight = mesh_io.vertex_group_weights(context, mesh, vertex_group)
            if invert_vertex_group:
                weight = 1.0 - weight
        chosen.append(obj)
        weights.append(weight if selection is None else weight * selection)
    if not chosen:
        raise UserError("Select at least one vertex to displace (no edited mesh has a selected vertex)")
    return chosen, weights


def _directions(how: _Displacement, mesh: bpy.types.Mesh, linear: np.ndarray) -> np.ndarray:
    """(N, 3) or (3,) local-space vectors that move a vertex one unit of the coordinate space."""
    world = how.space == "WORLD"
    try:
        inverse = np.linalg.inv(linear) if world else np.eye(3)
    except np.linalg.LinAlgError:
        raise UserError("space: an object with zero scale cannot use World coordinates") from None
    if how.direction == "NORMAL":
        normals = mesh_io.read_normals(mesh)
        if not world:
            return normals
        normals = normals.astype(np.float64) @ inverse
        normals /= np.maximum(np.linalg.norm(normals, axis=1, keepdims=True), 1e-30)
        return normals @ inverse.T
    axis = np.array(how.custom_axis if how.direction == "CUSTOM" else AXES[how.direction], dtype=np.float64)
    return inverse @ (axis / np.linalg.norm(axis))


def _displaced(
    obj: bpy.types.Object,
    weights: np.ndarray,
    spec: NoiseSpec,
    domain: Domain,
    how: _Displacement,
    advance,
    loop: tuple[int, int, float] | None = None,
) -> np.ndarray:
    """(N, 3) float32 new positions of ``obj``'s mesh, each vertex's displacement scaled by ``weights``;
    ``loop = (frame, frames, radius)``: by that frame of the loop of the noise (``noise_core.loops``)."""
    mesh = _mesh(obj)
    positions = mesh_io.read_positions(mesh)
    matrix = np.array(obj.matrix_world, dtype=np.float64)
    linear = matrix[:3, :3]
    directions = _directions(how, mesh, linear)
    sample_at = positions
    if how.space == "WORLD":
        sample_at = positions.astype(np.float64) @ linear.T + matrix[:3, 3]
    points = domain.noise_points(sample_at)
    if loop is not None:
        points = loops.loop_points(points, *loop)
    noise01 = to_unit(spec, evaluate_chunked(spec, points, advance))
    # float32 like the mesh: amount = (noise01 - midlevel) * strength * weight, added in place. An
    # overflow gives infinities, which ``displace`` refuses before anything is written.
    with np.errstate(over="ignore", invalid="ignore"):
        amount = (noise01 - np.float32(how.midlevel)) * np.float32(how.strength)
        amount *= weights
        if directions.ndim == 1:
            for axis in np.flatnonzero(directions):
                positions[:, axis] += amount * np.float32(directions[axis])
        else:
            positions += amount[:, None] * directions.astype(np.float32)
    return positions


def displace(
    context: bpy.types.Context,
    objects: Sequence[bpy.types.Object],
    spec: NoiseSpec,
    domain: Domain | None = None,
    *,
    direction: str = "NORMAL",
    custom_axis: Sequence[float] = (0.0, 0.0, 1.0),
    strength: float = 0.2,
    midlevel: float = 0.5,
    space: str = "LOCAL",
    vertex_group: str = "",
    invert_vertex_group: bool = False,
    shape_key: str | None = None,
    animate: str = "NONE",
    frames: int = 24,
    frame_start: int | None = None,
    loop_radius: float = loops.DEFAULT_RADIUS,
    w_step: float = 0.05,
) -> tuple[int, int]:
    """Move the vertices of ``objects``' meshes by ``(noise01 - midlevel) * strength * weight`` along
    ``direction`` (``NORMAL``, ``X``, ``Y``, ``Z`` or ``CUSTOM`` = ``custom_axis``), as Blender's Displace
    modifier; ``noise01`` is ``spec`` at the vertex (``space`` ``LOCAL`` or ``WORLD`` coordinates, through
    ``domain``) mapped to 0..1.

    ``weight`` is ``vertex_group``'s weight (1 - weight when inverted; 1 without a group), times the vertex
    selection when ``context`` is in Edit Mode (then only selected vertices move and Edit Mode is restored
    however the call ends). ``shape_key`` names a new shape key to write instead of the base mesh. Each mesh
    is displaced once, however many of ``objects`` use it. Everything is computed and checked before any
    mesh changes: ``UserError`` (naming the argument) leaves every mesh as it was. Returns ``(vertices
    moved, meshes changed)``.

    ``animate`` keys the noise over ``frames`` frames from ``frame_start`` (the scene's start by default) as one
    shape key per frame, ``<shape_key or "Noise">.0001``, ..., each keyed to 1 on its frame and 0 on the others
    (linear in between): ``LOOP`` moves around a circle of ``loop_radius`` in two extra dimensions of the noise
    (a seamless loop, repeated for ever; 2D noise loops through 4D noise, ``noise_core.loops``), ``W`` moves the
    W of 4D noise by ``w_step`` per frame (no repeat). The base mesh is left as it is.
    """
    domain = Domain() if domain is None else domain
    _check_noise(spec, domain)
    how = _check_displacement(direction, custom_axis, strength, midlevel, space, shape_key)
    animation = _check_animation(context, spec, domain, animate, frames, frame_start, loop_radius, w_step)
    targets = _mesh_objects(objects)
    for obj in targets:
        if vertex_group and vertex_group not in obj.vertex_groups:
            raise UserError(f"vertex_group: {obj.name!r} has no vertex group {vertex_group!r}")
    edit_mode = context.mode == "EDIT_MESH"
    if edit_mode:
        bpy.ops.object.mode_set(mode="OBJECT")  # writes the edit data; vertex-group weights need Object mode
    try:  # whatever happens from here on, Edit mode is restored
        targets, weights = _weighted_targets(context, targets, edit_mode, vertex_group, invert_vertex_group)
        total = sum(len(_mesh(obj).vertices) for obj in targets)
        if animation is not None:
            _animate(context, targets, weights, spec, domain, how, shape_key or "Noise", animation, total)
            return _moved(weights, edit_mode, total), len(targets)
        with window_progress(context, total) as advance:
            results = [
                _displaced(obj, weight, spec, domain, how, advance)
                for obj, weight in zip(targets, weights, strict=True)
            ]
        for obj, positions in zip(targets, results, strict=True):
            check_finite_values(f"strength: vertex positions of {obj.name!r}", positions)
        for obj, positions in zip(targets, results, strict=True):
            if shape_key is not None:
                mesh_io.add_shape_key(obj, shape_key, positions)
            else:
                mesh_io.write_positions(_mesh(obj), positions)
    finally:
        if edit_mode:
            bpy.ops.object.mode_set(mode="EDIT")
    return _moved(weights, edit_mode, total), len(targets)


def _moved(weights: list[np.ndarray], edit_mode: bool, total: int) -> int:
    """How many vertices a displacement moves: the selected ones in Edit mode, else all."""
    return sum(int(np.count_nonzero(weight)) for weight in weights) if edit_mode else total


ANIMATIONS = ("NONE", "LOOP", "W")
MAX_ANIMATION_VERTICES = 1 << 26
"""Largest ``frames x vertices`` an animated displacement stores as shape keys (64 M: some 800 MB)."""


@dataclass(frozen=True)
class _Animation:
    mode: str
    frames: int
    frame_start: int
    radius: float
    w_step: float


def _check_animation(
    context: bpy.types.Context,
    spec: NoiseSpec,
    domain: Domain,
    animate: object,
    frames: object,
    frame_start: object,
    radius: object,
    w_step: object,
) -> _Animation | None:
    """The animation ``displace`` keys (None for ``NONE``); ``UserError`` naming the argument otherwise."""
    mode = _choice("animate", animate, ANIMATIONS)
    if mode == "NONE":
        return None
    try:
        count, size = loops.check_loop(frames, radius)
    except (TypeError, ValueError) as error:
        name = str(error).split(":", 1)[0]
        raise UserError(f"{'loop_' if name == 'radius' else ''}{error}") from None
    start = context.scene.frame_start if frame_start is None else frame_start
    if isinstance(start, bool) or not isinstance(start, (int, np.integer)):
        raise UserError(f"frame_start: expected a whole frame number, got {frame_start!r}")
    if mode == "LOOP":
        try:
            loops.check_loop_kind(spec, domain.dimensions)
        except ValueError as error:
            raise UserError(
                f"animate: {str(error).removeprefix('loop: ')}; use 2D noise (Dimensions 2D), or animate W of 4D noise"
            ) from None
    elif domain.dimensions != 4:
        raise UserError(f"animate: 'W' moves the W of 4D noise; set the noise space to 4D (not {domain.dimensions}D)")
    return _Animation(mode, count, int(start), size, _finite("w_step", w_step))


def _animate(
    context: bpy.types.Context,
    targets: list[bpy.types.Object],
    weights: list[np.ndarray],
    spec: NoiseSpec,
    domain: Domain,
    how: _Displacement,
    name: str,
    animation: _Animation,
    total: int,
) -> None:
    """Every frame's positions of every target, checked, then one keyed shape key per frame and target (all or
    none: keys added before a failure are removed)."""
    if animation.frames * total > MAX_ANIMATION_VERTICES:
        raise UserError(
            f"frames: {animation.frames} frames of {total} vertices exceed the limit of {MAX_ANIMATION_VERTICES} "
            f"stored shape-key vertices; use fewer frames or a lighter mesh"
        )
    results: list[list[np.ndarray]] = [[] for _ in targets]
    with window_progress(context, total * animation.frames) as advance:
        for frame in range(animation.frames):
            if animation.mode == "LOOP":
                at, loop = domain, (frame, animation.frames, animation.radius)
            else:
                at, loop = replace(domain, w=domain.w + frame * animation.w_step), None
            for index, (obj, weight) in enumerate(zip(targets, weights, strict=True)):
                positions = _displaced(obj, weight, spec, at, how, advance, loop)
                check_finite_values(f"strength: vertex positions of {obj.name!r}", positions)
                results[index].append(positions)
    written: list[tuple[bpy.types.Object, list[bpy.types.ShapeKey], bool]] = []
    try:
        for obj, frames in zip(targets, results, strict=True):
            written.append((obj, [], obj.data.shape_keys is not None))
            for frame, positions in enumerate(frames):
                written[-1][1].append(mesh_io.add_shape_key(obj, f"{name}.{frame + 1:04d}", positions))
            mesh_io.key_frames(obj, written[-1][1], animation.frame_start, cyclic=animation.mode == "LOOP")
    except BaseException:
        for obj, added, had_keys in written:
            mesh_io.remove_shape_keys(obj, added, had_keys)
        raise


# --- Bake -------------------------------------------------------------------------------------------------


def _check_image(image: object) -> bpy.types.Image | None:
    """An existing image to bake into (None for a new one, named by a string)."""
    if isinstance(image, str):
        if not image.strip():
            raise UserError("image: give the new image a name")
        return None
    if not isinstance(image, bpy.types.Image):
        raise UserError(f"image: expected an image or the name of a new one, got {type(image).__name__}")
    if not image.is_editable:
        raise UserError(f"image: {image.name!r} is linked library data and cannot be changed")
    if 0 in tuple(image.size):
        raise UserError(f"image: {image.name!r} has no pixels (its file could not be loaded)")
    if image.source not in ("GENERATED", "FILE"):
        raise UserError(f"image: {image.name!r} is a {image.source.lower()} image; bake into a still image")
    return image


def _save_path(save_format: object, filepath: object) -> str:
    """The absolute file path to save to ("" for no file), checked to be writable."""
    if save_format not in SAVE_FORMATS:
        raise UserError(
            f"save_format: {save_format!r} is not allowed; choose one of {', '.join(map(repr, SAVE_FORMATS))}"
        )
    if save_format == "NONE":
        return ""
    if not isinstance(filepath, str) or not filepath.strip():
        raise UserError("filepath: give a file path to save the image to")
    if filepath.startswith("//") and not bpy.data.filepath:
        raise UserError("filepath: a path relative to the .blend (//) needs the .blend saved first")
    path = image_io.saved_path(filepath, str(save_format))
    directory = os.path.dirname(path) or os.curdir
    if not os.path.isdir(directory):
        raise UserError(f"filepath: the folder {directory!r} does not exist")
    if os.path.isdir(path) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise UserError(f"filepath: cannot write {path!r}")
    try:  # what the save does first: a new file in the folder (os.access cannot tell for root)
        check_writable(directory)
    except OSError as error:
        raise UserError(f"filepath: cannot write into the folder {directory!r} ({error.strerror})") from None
    return path


def _colour(name: str, value: object) -> tuple[float, float, float]:
    if not isinstance(value, Sequence) or len(value) != 3:
        raise UserError(f"{name}: expected three numbers (r, g, b), got {value!r}")
    colour = tuple(_finite(name, channel) for channel in value)
    if min(colour) < 0.0:
        raise UserError(f"{name}: channels must be >= 0, got {colour!r}")
    return cast(tuple[float, float, float], colour)


def _fill(image: bpy.types.Image, values: np.ndarray, width: int, height: int, ramp: tuple | None) -> None:
    """``values`` (grey 0..1, or (N, 3) data colours) into ``image``; non-colour data unless ``ramp``."""
    # The colour space first: changing it reloads a file image's buffer, which would undo the resize.
    if ramp is None:
        image.colorspace_settings.name = "Non-Color"
    else:
        image.colorspace_settings.name = "Linear Rec.709" if image.is_float else "sRGB"
    image_io.resize(image, width, height)
    if tuple(image.size) != (width, height):
        raise UserError(
            f"image: {image.name!r} could not be resized to {width}x{height} (it is {image.size[0]}x{image.size[1]})"
        )
    pixel_array(image).foreach_set(to_rgba(values, ramp, encode_srgb=not image.is_float))
    image.update()


def _check_image_size(width: object, height: object) -> None:
    """``width`` and ``height`` whole numbers >= 1 with at most ``MAX_PIXELS`` pixels in all."""
    for name, value in (("width", width), ("height", height)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise UserError(f"{name}: must be a whole number >= 1, got {value!r}")
    if cast(int, width) * cast(int, height) > MAX_PIXELS:
        raise UserError(f"width, height: {width}x{height} exceeds the limit of {MAX_PIXELS} pixels")


def _choice(name: str, value: object, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise UserError(f"{name}: {value!r} is not allowed; choose one of {', '.join(map(repr, allowed))}")
    return str(value)


def normal_method_for(spec: NoiseSpec, method: str = "AUTO") -> str:
    """``"ANALYTIC"`` or ``"DIFFERENCES"``: how ``bake`` computes a normal map of ``spec`` with ``method``
    (``AUTO``: analytic derivatives where the kind has them); ``UserError`` naming ``normal_method``."""
    method = _choice("normal_method", method, NORMAL_METHODS)
    try:
        return normal_maps.normal_method(spec, method.lower()).upper()
    except ValueError as error:
        raise UserError(f"normal_{error}") from None


def bake(
    context: bpy.types.Context,
    spec: NoiseSpec,
    domain: Domain | None = None,
    *,
    image: bpy.types.Image | str = "Noise",
    width: int = 1024,
    height: int = 1024,
    use_float: bool = True,
    color_mode: str = "GRAYSCALE",
    color_low: Sequence[float] = (0.02, 0.04, 0.1),
    color_high: Sequence[float] = (0.9, 0.8, 0.6),
    save_format: str = "NONE",
    filepath: str = "",
    pack: bool = False,
    warn: Callable[[str], None] | None = None,
    map_type: str = "HEIGHT",
    normal_strength: float = 0.1,
    normal_convention: str = "OPENGL",
    normal_method: str = "AUTO",
    loop_frames: int = 0,
    loop_radius: float = loops.DEFAULT_RADIUS,
) -> bpy.types.Image:
    """Bake ``spec`` on ``domain``'s plane (the 0..1 square) into an image and return it.

    Pixel ``(c, r)`` (row 0 at the bottom, as Blender stores images) holds the noise at
    ``((c + .5) / W, (r + .5) / H)`` on the plane, mapped to 0..1; with ``Domain(dimensions=2)`` and no
    rotation, scale or offset on the plane that is exactly ``evaluate_grid(spec, (H, W))``. ``image`` is an
    existing image (resized; it keeps its bit depth) or the name of a new one (32-bit float when
    ``use_float``). ``color_mode`` ``GRAYSCALE`` gives non-colour grey, ``RAMP`` blends the scene-linear
    ``color_low``..``color_high``. ``save_format`` ``PNG`` (16-bit) or ``OPEN_EXR`` (32-bit float) also writes
    ``filepath`` (its extension added if missing), whole or not at all; ``pack`` packs the image into the
    .blend. ``UserError`` naming the argument for bad input; a bake that fails (a save included) leaves an
    existing image as it was and removes a new one. ``warn`` hears that tiling cannot hold (rotation or a
    fractional plane scale).

    ``map_type="NORMAL"`` bakes the tangent-space normal map of that height instead (``noise_core.normal_maps``;
    ``color_mode`` does not apply): ``normal_strength`` is the surface's height from 0 to 1 in image widths,
    ``normal_convention`` ``OPENGL`` (green up, Blender's) or ``DIRECTX``, ``normal_method`` ``AUTO``,
    ``ANALYTIC`` (derivatives) or ``DIFFERENCES`` (central differences one pixel apart); ``PNG_8`` saves 8-bit.

    ``loop_frames`` > 0 bakes a seamless loop of that many frames instead (``noise_core.loops``: the noise moves
    around a circle of ``loop_radius`` in two extra dimensions, so 2D noise loops through 4D noise): the frames
    are saved as ``name.0001.png``, ``name.0002.png``, ... (all or none; ``save_format`` and ``filepath`` are
    needed) and loaded as a new image sequence named ``image``, which an Image Texture node plays with Frames
    set to ``loop_frames`` and Cyclic on.
    """
    domain = Domain(dimensions=2) if domain is None else domain
    _check_noise(spec, domain)
    loop = _check_loop(spec, domain, loop_frames, loop_radius)
    if loop is not None:
        if not isinstance(image, str):
            raise UserError("image: a loop is baked into a new image sequence; give its name, not an existing image")
        if pack:
            raise UserError("pack: Blender cannot pack an image sequence; leave Pack off for a loop")
        if save_format == "NONE":
            raise UserError(
                "save_format: a loop is saved as files name.0001.png, name.0002.png, ...; choose a Save format "
                "and a File Path"
            )
    existing = _check_image(image)
    _check_image_size(width, height)
    if color_mode not in COLOR_MODES:
        raise UserError(f"color_mode: {color_mode!r} is not allowed; choose one of {', '.join(map(repr, COLOR_MODES))}")
    ramp = None if color_mode == "GRAYSCALE" else (_colour("color_low", color_low), _colour("color_high", color_high))
    normal = _choice("map_type", map_type, MAP_TYPES) == "NORMAL"
    if normal:
        convention = _choice("normal_convention", normal_convention, NORMAL_CONVENTIONS).lower()
        method = normal_method_for(spec, normal_method)
        try:
            strength = normal_maps.check_strength(normal_strength)
        except (TypeError, ValueError) as error:
            raise UserError(f"normal_{error}") from None
        ramp = None
    path = _save_path(save_format, filepath)
    if loop is not None:
        return _bake_loop(context, spec, domain, str(image), (width, height), bool(use_float), ramp, save_format,
                          path, loop, (strength, convention, method.lower()) if normal else None)  # fmt: skip
    with window_progress(context, width * height) as advance:
        if normal:
            values = normal_colours(spec, domain, width, height, strength, convention, method.lower())
            advance(width * height)
        else:
            values = noise01_image(spec, domain, width, height, advance)
    if spec.tiling and not domain.keeps_tiling() and warn is not None:
        warn("tiling: rotation or a fractional plane scale breaks the seamless tiling")
    snapshot = image_io.snapshot(existing)
    target = existing or bpy.data.images.new(str(image), width, height, float_buffer=bool(use_float))
    try:  # on any failure the image is put back as it was (a new one removed)
        _fill(target, values, width, height, ramp)
        if path:
            try:
                image_io.save_image(target, path, save_format, ramp is None and not normal)
            except (RuntimeError, OSError) as error:
                raise UserError(f"filepath: Blender could not save {path!r}: {error}") from None
    except BaseException:
        image_io.restore(target, snapshot)
        raise
    if pack:
        target.pack()
    return target


def _check_loop(spec: NoiseSpec, domain: Domain, frames: object, radius: object) -> tuple[int, float] | None:
    """``(frames, radius)`` of a loop bake, None for a still image; ``UserError`` naming ``loop_frames`` or
    ``loop_radius`` otherwise."""
    if isinstance(frames, (int, np.integer)) and not isinstance(frames, bool) and frames == 0:
        return None
    try:
        checked = loops.check_loop(frames, radius)
        loops.check_loop_reach(spec, checked[1])
    except (TypeError, ValueError) as error:
        raise UserError(f"loop_{error}") from None
    try:
        loops.check_loop_kind(spec, domain.dimensions)
    except ValueError as error:
        raise UserError(f"loop_frames: {str(error).removeprefix('loop: ')}; bake 2D noise on the plane") from None
    return checked


def _bake_loop(
    context: bpy.types.Context,
    spec: NoiseSpec,
    domain: Domain,
    name: str,
    size: tuple[int, int],
    use_float: bool,
    ramp: tuple | None,
    save_format: str,
    path: str,
    loop: tuple[int, float],
    normal: tuple[float, str, str] | None,
) -> bpy.types.Image:
    """The frames of a loop, each filled into one scratch image and saved as ``name.0001.png``, ... all or none;
    then loaded as an image sequence called ``name``."""
    frames, radius = loop
    width, height = size
    paths = [str(loops.frame_path(path, frame)) for frame in range(frames)]
    scratch = bpy.data.images.new(f".{name}.frame", width, height, float_buffer=use_float)

    def fill(frame: int) -> bpy.types.Image:
        at = (frame, frames, radius)
        if normal is None:
            values = noise01_image(spec, domain, width, height, loop=at)
        else:
            values = normal_colours(spec, domain, width, height, *normal, loop=at)
        _fill(scratch, values, width, height, ramp)
        return scratch

    try:
        with window_progress(context, frames) as advance:
            image_io.save_frames(paths, fill, save_format, ramp is None and normal is None, advance)
    except (RuntimeError, OSError) as error:
        raise UserError(f"filepath: Blender could not save the frames {paths[0]!r} ...: {error}") from None
    finally:
        bpy.data.images.remove(scratch)
    sequence = bpy.data.images.load(paths[0])
    sequence.source = "SEQUENCE"
    sequence.name = name
    if ramp is None:
        sequence.colorspace_settings.name = "Non-Color"
    return sequence


# --- Bake to UVs ----------------------------------------------------------------------------------------------

UV_SPACES = ("OBJECT", "WORLD")


def surface_triangles(
    context: bpy.types.Context, obj: bpy.types.Object, uv_map: str = "", space: str = "OBJECT", faces: bool = False
) -> tuple[np.ndarray, ...]:
    """``(uvs (T, 3, 2), positions (T, 3, 3))`` of the evaluated mesh of ``obj`` (modifiers applied) through
    its UV map ``uv_map`` (the active one when empty), positions in object or world ``space``; with ``faces``
    also each triangle's face index (T,)."""
    if not isinstance(obj, bpy.types.Object) or obj.type != "MESH":
        raise UserError(f"object: expected a mesh object, got {getattr(obj, 'name', type(obj).__name__)!r}")
    space = _choice("space", space, UV_SPACES)
    source = obj.data.uv_layers.get(uv_map) if uv_map else obj.data.uv_layers.active
    if source is None:
        which = f"no UV map {uv_map!r}" if uv_map else "no UV map"
        raise UserError(f"uv_map: {obj.name!r} has {which}; unwrap it first (UV > Unwrap)")
    evaluated = obj.evaluated_get(context.evaluated_depsgraph_get())
    mesh = evaluated.to_mesh()
    try:
        layer = mesh.uv_layers.get(source.name)
        if layer is None:
            raise UserError(f"uv_map: the modifiers of {obj.name!r} remove its UV map {source.name!r}")
        mesh.calc_loop_triangles()
        count = len(mesh.loop_triangles)
        if count == 0:
            raise UserError(f"object: {obj.name!r} has no faces to bake")
        loops = np.empty(count * 3, dtype=np.int32)
        mesh.loop_triangles.foreach_get("loops", loops)
        uvs = np.empty(len(mesh.loops) * 2, dtype=np.float32)
        layer.uv.foreach_get("vector", uvs)
        corners = np.empty(len(mesh.loops), dtype=np.int32)
        mesh.loops.foreach_get("vertex_index", corners)
        positions = mesh_io.read_positions(mesh).astype(np.float64)
        matrix = np.array(evaluated.matrix_world, dtype=np.float64)
        face_of = np.empty(count, dtype=np.int64)
        mesh.loop_triangles.foreach_get("polygon_index", face_of)
    finally:
        evaluated.to_mesh_clear()
    if space == "WORLD":
        positions = positions @ matrix[:3, :3].T + matrix[:3, 3]
    triangle_uvs = uvs.reshape(-1, 2)[loops].reshape(count, 3, 2).astype(np.float64)
    if faces:
        return triangle_uvs, positions[corners[loops]].reshape(count, 3, 3), face_of
    return triangle_uvs, positions[corners[loops]].reshape(count, 3, 3)


def _heard(_message: str) -> None:
    """``uv_bake.bake_uv``'s report of triangles outside the UDIM tiles: ``bake_uv`` gave it, as faces, already."""


def _tile_paths(filepath: str, save_format: str, tiles: list[int]) -> list[str]:
    """One file per UDIM tile: ``name.<UDIM>.png`` from ``name.png`` (a ``<UDIM>`` already in the name is kept)."""
    path = image_io.saved_path(filepath, save_format)
    if "<UDIM>" not in path:
        stem, extension = os.path.splitext(path)
        path = f"{stem}.<UDIM>{extension}"
    return [str(uv_bake.tile_path(path, tile)) for tile in tiles]


def bake_uv(
    context: bpy.types.Context,
    obj: bpy.types.Object,
    spec: NoiseSpec,
    domain: Domain | None = None,
    *,
    uv_map: str = "",
    space: str = "OBJECT",
    width: int = 1024,
    height: int = 1024,
    margin: int = 16,
    image: str = "Noise UV",
    use_float: bool = True,
    save_format: str = "NONE",
    filepath: str = "",
    warn: Callable[[str], None] | None = None,
) -> bpy.types.Image:
    """Bake 3D noise at the surface of ``obj`` through its UV map into a new image and return it
    (``noise_core.uv_bake``: every texel holds the noise at the surface point its UV maps to, seams match,
    ``margin`` pixels of dilation past island borders). ``domain`` (3D) moves the noise space as elsewhere.

    UVs in one UDIM tile give a plain image (saved to ``filepath`` when ``save_format`` is not ``NONE``).
    UVs over several UDIM tiles are written as files ``name.1001.png``, ``name.1002.png``, ... (all or none)
    and loaded as a tiled image, so they need ``save_format`` and ``filepath``. ``UserError`` naming the
    argument for bad input; on failure nothing is created. ``warn`` hears which faces reach outside the UDIM
    tiles (their parts outside are not baked).
    """
    domain = Domain(dimensions=3) if domain is None else domain
    _check_noise(spec, domain)
    if domain.dimensions != 3:
        raise UserError("domain: a UV bake samples 3D noise at the surface; use a 3D domain")
    _check_image_size(width, height)
    if isinstance(margin, bool) or not isinstance(margin, (int, np.integer)) or not 0 <= margin <= uv_bake.MAX_MARGIN:
        raise UserError(f"margin: must be a whole number of pixels from 0 to {uv_bake.MAX_MARGIN}, got {margin!r}")
    if not isinstance(image, str) or not image.strip():
        raise UserError("image: give the new image a name")
    uvs, positions, face_of = surface_triangles(context, obj, uv_map, space, faces=True)
    tiles = uv_bake.tiles_of(uvs)
    if not tiles:
        raise UserError(f"uv_map: the UVs of {obj.name!r} lie outside the UDIM tiles (u and v from 0 to 10)")
    path = _save_path(save_format, filepath)
    if len(tiles) > 1 and not path:
        listed = ", ".join(map(str, tiles))
        raise UserError(
            f"save_format: the UVs reach UDIM tiles {listed}; a tiled bake is saved as files name.<UDIM>.png, "
            f"so choose a Save format and a File Path"
        )
    points = domain.noise_points(positions.reshape(-1, 3)).reshape(-1, 3, 3)
    outside = np.unique(face_of[uv_bake.outside_triangles(uvs)]).tolist()
    if outside and warn is not None:
        warn(uv_bake.outside_message(f"uv_map: faces of {obj.name!r}", outside, len(obj.data.polygons)))
    with window_progress(context, len(tiles)) as advance:
        baked = {}
        for tile in tiles:
            try:
                baked.update(uv_bake.bake_uv(spec, uvs, points, (width, height), margin, [tile], warn=_heard))
            except ValueError as error:
                raise UserError(f"noise space {error}") from None
            check_finite_values("noise", baked[tile])
            advance(1)
    created: list[bpy.types.Image] = []
    try:
        for tile, values in baked.items():
            target = bpy.data.images.new(f"{image}.{tile}" if len(tiles) > 1 else image, width, height,
                                         float_buffer=bool(use_float))  # fmt: skip
            created.append(target)
            _fill(target, values.ravel(), width, height, None)
        if len(tiles) == 1:
            if path:
                image_io.save_image(created[0], path, save_format, True)
            return created[0]
        paths = _tile_paths(filepath, save_format, tiles)
        image_io.save_images(list(zip(created, paths, strict=True)), save_format, True)
    except BaseException as error:
        for made in created:
            bpy.data.images.remove(made)
        if isinstance(error, (RuntimeError, OSError)):
            raise UserError(f"filepath: Blender could not save {path!r}: {error}") from None
        raise
    for made in created:  # the tiles now live in the files; the tiled image below reads them
        bpy.data.images.remove(made)
    tiled = bpy.data.images.load(paths[0])
    tiled.name = image
    tiled.source = "TILED"
    tiled.colorspace_settings.name = "Non-Color"
    return tiled
