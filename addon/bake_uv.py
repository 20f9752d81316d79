"""Bake to UVs: 3D noise at a mesh's surface through its UV map (``bake_uv``) and its operator
``noisewright.bake_uv`` (Object > Bake Noise to UVs).

3D noise at the active mesh's surface (modifiers applied), through its UV map, into a new image: seams
match because both sides sample the same 3D points; UDIM layouts become a tiled image saved as
``name.1001.png``, ``name.1002.png``, ...
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import Any

import bpy
import numpy as np

from . import compile_status, image_io, mesh_io
from .errors import UserError
from .image_io import FILEPATH, HEIGHT, SAVE_FORMAT, USE_FLOAT, WIDTH, check_pixels, fill_image, save_path
from .jobs import Job, JobOperator, Steps, run_foreground, share
from .mapping import Domain, check_finite_values, to_domain, to_spec
from .noise_core import NoiseSpec, uv_bake
from .noise_core.io.files import Staged
from .noise_core.schema import Option
from .options import NoiseOperator, check_noise, checked, properties_of
from .properties import operator_settings
from .ui import draw_noise_settings

UV_MAP = Option("uv_map", str, "", "UV map to bake through (empty: the active one)", title="UV Map")
SPACE = Option(
    "space",
    str,
    "OBJECT",
    "Which coordinates the noise reads",
    choices=("OBJECT", "WORLD"),
    choice_text=(
        ("Object", "The mesh's own coordinates: the texture moves with the object"),
        ("World", "World coordinates: objects side by side share one continuous noise"),
    ),
)
IMAGE = Option("image", str, "Noise UV", "Name of the new image")
OPTIONS = (
    UV_MAP,
    SPACE,
    replace(WIDTH, description="Width of each tile in pixels"),
    replace(HEIGHT, description="Height of each tile in pixels"),
    Option(
        "margin",
        int,
        16,
        "Pixels baked past the UV islands' borders",
        minimum=0,
        maximum=uv_bake.MAX_MARGIN,
        allowed=f"a whole number of pixels from 0 to {uv_bake.MAX_MARGIN}",
    ),
    IMAGE,
    USE_FLOAT,
    replace(
        SAVE_FORMAT,
        description="Also write the image to File Path (UDIM tiles: name.1001.png, name.1002.png, ...; needed then)",
    ),
    replace(FILEPATH, description="Where to save; for UDIM tiles the tile number is added before the extension"),
)
"""The options of ``bake_uv``; the operator has them all but ``use_float`` (its images are 32-bit float), with
``image`` as ``image_name``."""
OPERATOR_OPTIONS = (
    replace(IMAGE, name="image_name", title="Image"),
    *(o for o in OPTIONS if o.name not in ("image", "use_float")),
)


@checked(UV_MAP, SPACE)
def surface_triangles(
    context: bpy.types.Context, obj: bpy.types.Object, uv_map: str, space: str, faces: bool = False
) -> tuple[np.ndarray, ...]:
    """``(uvs (T, 3, 2), positions (T, 3, 3))`` of the evaluated mesh of ``obj`` (modifiers applied) through
    its UV map ``uv_map`` (the active one when empty), positions in object or world ``space``; with ``faces``
    also each triangle's face index (T,)."""
    if not isinstance(obj, bpy.types.Object) or obj.type != "MESH":
        raise UserError(f"object: expected a mesh object, got {getattr(obj, 'name', type(obj).__name__)!r}")
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


@checked(*OPTIONS)
def bake_uv(
    context: bpy.types.Context,
    obj: bpy.types.Object,
    spec: NoiseSpec,
    domain: Domain | None = None,
    *,
    warn: Callable[[str], None] | None = None,
    **options: Any,
) -> bpy.types.Image:
    """Bake 3D noise at the surface of ``obj`` through its UV map into a new image and return it
    (``noise_core.uv_bake``: every texel holds the noise at the surface point its UV maps to, seams match,
    ``margin`` pixels of dilation past island borders). ``domain`` (3D) moves the noise space as elsewhere.

    UVs in one UDIM tile give a plain image (saved to ``filepath`` when ``save_format`` is not ``NONE``).
    UVs over several UDIM tiles are written as files ``name.1001.png``, ``name.1002.png``, ... (all or none)
    and loaded as a tiled image, so they need ``save_format`` and ``filepath``. ``UserError`` naming the
    argument for bad input; on failure nothing is created. ``warn`` hears which faces reach outside the UDIM
    tiles (their parts outside are not baked). Defaults and limits of the keyword arguments:
    ``OPTIONS``. This runs ``bake_uv_job``'s parts here; the operator runs them as a job.
    """
    job = bake_uv_job(context, obj, spec, domain, warn=warn, **options)
    return run_foreground(context, NOISEWRIGHT_OT_bake_uv.bl_label, job)


@checked(*OPTIONS)
def bake_uv_job(
    context: bpy.types.Context,
    obj: bpy.types.Object,
    spec: NoiseSpec,
    domain: Domain | None = None,
    *,
    uv_map: str,
    space: str,
    width: int,
    height: int,
    margin: int,
    image: str,
    use_float: bool,
    save_format: str,
    filepath: str,
    warn: Callable[[str], None] | None = None,
) -> Job:
    """``bake_uv`` as a ``jobs.Job``: this checks the arguments and reads the mesh (main thread; ``UserError``,
    nothing changed); ``compute`` bakes the tiles (``noise_core.uv_bake.bake_uv``, progress per block of points
    and pass of the margin) and encodes each tile's file into a temporary beside it (``image_io.write_file``);
    ``apply``'s steps make the image and put the files in place, all or none (closed early or failing, they
    leave no file of the set and no image); they return the image."""
    domain = Domain(dimensions=3) if domain is None else domain
    check_noise(spec, domain)
    if domain.dimensions != 3:
        raise UserError("domain: a UV bake samples 3D noise at the surface; use a 3D domain")
    check_pixels(width, height)
    if not image.strip():
        raise UserError("image: give the new image a name")
    uvs, positions, face_of = surface_triangles(context, obj, uv_map, space, faces=True)
    tiles = uv_bake.tiles_of(uvs)
    if not tiles:
        raise UserError(f"uv_map: the UVs of {obj.name!r} lie outside the UDIM tiles (u and v from 0 to 10)")
    path = save_path(save_format, filepath)
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
    noise_share = uv_bake.TILE_STEPS * len(tiles)
    paths = (_tile_paths(filepath, save_format, tiles) if len(tiles) > 1 else [path]) if path else []

    def compute(advance: Callable[[int], None]) -> tuple[dict[int, np.ndarray], Staged | None]:
        compile_status.before_plan(spec, 3, lambda: uv_bake.bake_plan(spec))
        try:
            baked = uv_bake.bake_uv(
                spec, uvs, points, (width, height), margin, tiles, warn=_heard, progress=share(advance, noise_share)
            )
        except ValueError as error:
            raise UserError(f"noise space {error}") from None
        for values in baked.values():
            check_finite_values("noise", values)
        if not paths:
            return baked, None
        tile_pixels = [  # each tile's file, as Blender would write the tile's image
            partial(image_io.file_pixels, values.ravel(), width, height, float_image=use_float, data=True,
                    file_format=save_format)
            for values in baked.values()
        ]  # fmt: skip
        return baked, image_io.write_files(paths, tile_pixels, save_format, advance)

    def apply(result: tuple[dict[int, np.ndarray], Staged | None]) -> Steps:
        baked, staged = result
        try:
            if len(tiles) == 1:
                target = bpy.data.images.new(image, width, height, float_buffer=use_float)
                try:
                    fill_image(target, baked[tiles[0]].ravel(), width, height, None)
                    if staged is not None:
                        yield 0  # the window's turn between filling the image and putting its file in place
                        image_io.commit(staged)
                except BaseException:
                    bpy.data.images.remove(target)
                    raise
                return target
            assert staged is not None  # several tiles need a file each (checked above)
            yield 0
            image_io.commit(staged)
        finally:
            if staged is not None:
                staged.discard()
        tiled = bpy.data.images.load(paths[0])
        tiled.name = image
        tiled.source = "TILED"
        tiled.colorspace_settings.name = "Non-Color"
        return tiled

    return Job(compute, apply, noise_share + len(paths))


class NOISEWRIGHT_OT_bake_uv(JobOperator, NoiseOperator, bpy.types.Operator):
    """Bake 3D noise at the active mesh's surface into an image through its UV map (UDIM tiles too)"""

    bl_idname = "noisewright.bake_uv"
    bl_label = "Bake Noise to UVs"
    __annotations__ = properties_of(*OPERATOR_OPTIONS)

    @staticmethod
    def unavailable(context) -> str:
        obj = context.active_object
        return "" if obj is not None and obj.type == "MESH" else "Select a mesh object"

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        layout.prop(self, "image_name")
        obj = context.active_object
        if obj is not None and obj.type == "MESH":
            layout.prop_search(self, "uv_map", obj.data, "uv_layers")
        for name in ("space", "width", "height", "margin", "save_format"):
            layout.prop(self, name)
        if self.save_format != "NONE":
            layout.prop(self, "filepath")
        draw_noise_settings(layout.box(), self.noise)

    def job_key(self, context) -> str:
        return context.active_object.name

    def prepare(self, context):
        """A job (``jobs``): in the UI the tiles are baked in a worker thread and Esc cancels; in background mode
        and from scripts (``execute``) it runs in the foreground."""
        settings = operator_settings(self, context)
        job = bake_uv_job(
            context,
            context.active_object,
            to_spec(settings),
            to_domain(settings, dimensions=3),
            image=self.image_name,
            warn=lambda message: self.report({"WARNING"}, message),
            **self.keywords("image_name"),
        )

        def apply(result: Any) -> Steps:
            image = yield from job.apply(result)
            tiles = len(image.tiles) if image.source == "TILED" else 1
            self.report({"INFO"}, f"Baked {image.name!r}" + (f" ({tiles} UDIM tiles)" if tiles > 1 else ""))
            return image

        return Job(job.compute, apply, job.total)


def menu_entry(menu, _context) -> None:
    menu.layout.operator(NOISEWRIGHT_OT_bake_uv.bl_idname, icon="UV")


CLASSES = (NOISEWRIGHT_OT_bake_uv,)
