"""The add-on's Python API: the plain functions under its operators, for scripts and other add-ons.

``from bl_ext.<repository>.noisewright import api`` (or the extension's package name), then e.g.::

    spec = api.NoiseSpec(kind="perlin", octaves=5)
    terrain = api.add_terrain(bpy.context, spec, x_subdivisions=256, y_subdivisions=256, height=0.8)

Each function checks its arguments once and raises ``UserError`` (``addon/errors.py``) whose message
starts with the argument's name and says what is allowed; a failure leaves the scene as it was.
The operators are thin wrappers: properties -> ``NoiseSpec`` and ``Domain`` -> one of these -> report.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import cast

import bpy
import numpy as np

from . import image_io, mesh_io
from .displace import displace
from .erode import erode, erode_image
from .errors import UserError
from .mapping import Domain, check_finite_values
from .noise_core import NoiseSpec, loops, normal_maps, uv_bake
from .noise_core.files import check_writable
from .noise_core.registry import kind_info
from .noise_core.schema import number
from .pixels import noise01_image, normal_colours, pixel_array, to_rgba
from .progress import window_progress
from .terrain import add_terrain, edge_falloff, grid, is_terrain, regenerate_terrain

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

MAX_PIXELS = 1 << 26
"""Largest image (8192 x 8192; 1 GiB of float RGBA inside Blender): bigger bakes are refused."""
COLOR_MODES = ("GRAYSCALE", "RAMP")
SAVE_FORMATS = ("NONE", "PNG", "PNG_8", "OPEN_EXR")
MAP_TYPES = ("HEIGHT", "NORMAL")
NORMAL_CONVENTIONS = ("OPENGL", "DIRECTX")
NORMAL_METHODS = ("AUTO", "ANALYTIC", "DIFFERENCES")


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


# --- Erode ------------------------------------------------------------------------------------------------


def _mesh(obj: bpy.types.Object) -> bpy.types.Mesh:
    return cast(bpy.types.Mesh, obj.data)


def _check_editable(obj: bpy.types.Object) -> None:
    mesh = _mesh(obj)
    if not obj.is_editable or not mesh.is_editable:
        raise UserError(f"{obj.name!r}: linked library data cannot be changed (make it local first)")
    if len(mesh.vertices) == 0:
        raise UserError(f"{obj.name!r}: the mesh has no vertices")


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
    context: bpy.types.Context, obj: bpy.types.Object, uv_map: str = "", space: str = "OBJECT"
) -> tuple[np.ndarray, np.ndarray]:
    """``(uvs (T, 3, 2), positions (T, 3, 3))`` of the evaluated mesh of ``obj`` (modifiers applied) through
    its UV map ``uv_map`` (the active one when empty), positions in object or world ``space``."""
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
    finally:
        evaluated.to_mesh_clear()
    if space == "WORLD":
        positions = positions @ matrix[:3, :3].T + matrix[:3, 3]
    triangle_uvs = uvs.reshape(-1, 2)[loops].reshape(count, 3, 2).astype(np.float64)
    return triangle_uvs, positions[corners[loops]].reshape(count, 3, 3)


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
) -> bpy.types.Image:
    """Bake 3D noise at the surface of ``obj`` through its UV map into a new image and return it
    (``noise_core.uv_bake``: every texel holds the noise at the surface point its UV maps to, seams match,
    ``margin`` pixels of dilation past island borders). ``domain`` (3D) moves the noise space as elsewhere.

    UVs in one UDIM tile give a plain image (saved to ``filepath`` when ``save_format`` is not ``NONE``).
    UVs over several UDIM tiles are written as files ``name.1001.png``, ``name.1002.png``, ... (all or none)
    and loaded as a tiled image, so they need ``save_format`` and ``filepath``. ``UserError`` naming the
    argument for bad input; on failure nothing is created.
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
    uvs, positions = surface_triangles(context, obj, uv_map, space)
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
    with window_progress(context, len(tiles)) as advance:
        baked = {}
        for tile in tiles:
            try:
                baked.update(uv_bake.bake_uv(spec, uvs, points, (width, height), margin, [tile]))
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
