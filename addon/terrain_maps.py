"""``noisewright.terrain_maps``: Object > Terrain Maps, over ``write_terrain_maps``.

Computes terrain maps (``noise_core.terrain.maps``: slope, aspect, curvature, relative height, openness,
occlusion, flow, wetness) of a grid mesh (a Noise Terrain, Add > Mesh > Grid, any regular grid in local X/Y,
heights along local Z) and stores each as a float point attribute named after the map (for an Attribute node
in a material, and Geometry Nodes), as a vertex group of the same name, its weights the map mapped to 0..1 as in
PNG images (``noise_core.terrain.maps.unit_map``: slope / 90, ...), for particle density and weight paint,
and/or as a float image ``"<object> <map>"`` of columns x rows pixels (the values as they are, non-colour data;
pixel row 0 is the grid's lowest Y, as Blender stores images bottom row first). The object remembers which maps
were written, how (``RECORD``); a Noise Terrain's Regenerate writes them again (``rewrite_terrain_maps``).

From a baked height image (``image_terrain_maps``; the operator's ``source`` "IMAGE"): the heights are the
image's red channel times ``height_scale``, one cell per pixel of ``cell_size``, rows along +y from the bottom
pixel row (as Blender stores images); each map becomes a float image ``"<image>_<map>"`` of the same size, and
with ``save_folder`` also an OpenEXR file ``<image>_<map>.exr`` there (all files or none).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, cast

import bpy
import numpy as np
from bpy.props import EnumProperty

from . import image_io, mesh_io
from .erosion_io import grid_layout
from .errors import UserError
from .image_io import data_image
from .jobs import Job, JobOperator
from .noise_core.io.files import Staged
from .noise_core.schema import Option, choice
from .noise_core.terrain.heightfield import CELL_SIZE
from .noise_core.terrain.maps import HEIGHT_SCALE, MAP_NAMES, MAP_OPTIONS, compute_maps, progress_total, unit_map
from .options import OptionsOperator, checked, properties_of
from .progress import steps_of

WEIGHT_LEVELS = 4096
"""Vertex group weights are rounded to multiples of 1 / WEIGHT_LEVELS: Blender's API sets one weight for a list
of vertices at a time, so the vertices are grouped by weight, one call per level, not one per vertex."""
DEFAULT_MAPS = ("slope", "curvature", "flow")
RECORD = "noisewright_terrain_maps"
"""The object's custom property (JSON) listing the maps ``write_terrain_maps`` wrote, with their settings, for
``rewrite_terrain_maps`` (a Noise Terrain's Regenerate)."""


STORE_OPTIONS: tuple[Option, ...] = (
    Option("attributes", bool, True, "Store float point attributes (Attribute node, Geometry Nodes)"),
    Option("vertex_groups", bool, False, "Store vertex groups, weights mapped to 0..1"),
    Option("images", bool, False, "Store float images named '<object> <map>', one pixel per vertex"),
)
"""Where ``write_terrain_maps`` stores the maps."""


@checked(*STORE_OPTIONS, *MAP_OPTIONS)
def write_terrain_maps(
    obj: bpy.types.Object, maps: tuple[str, ...] | list[str] = DEFAULT_MAPS, **options: Any
) -> dict[str, np.ndarray]:
    """Compute ``maps`` of the grid mesh ``obj`` (cell size: the grid's spacing) and write them as point
    attributes (``attributes``), vertex groups (``vertex_groups``) named after the maps and/or float images
    (``images``) named ``"<object> <map>"``, replacing existing ones of those names; the other options are
    ``noise_core.terrain.maps.MAP_OPTIONS``. Returns the maps per vertex (float32, in vertex order).
    ``UserError`` naming the problem (not a grid, linked data, Edit Mode, an unknown map, bad settings); then
    nothing changes."""
    return terrain_maps_job(obj, maps, **options).run()


def _map_names(maps: tuple[str, ...] | list[str]) -> list[str]:
    """``maps`` as a list without repeats, checked: at least one, each of ``MAP_NAMES`` (``UserError`` naming
    ``maps``)."""
    names = list(dict.fromkeys(maps))
    if not names:
        raise UserError("maps: choose at least one map")
    try:
        for name in names:
            choice("maps", name, MAP_NAMES)
    except (TypeError, ValueError) as error:
        raise UserError(str(error)) from None
    return names


@checked(*STORE_OPTIONS, *MAP_OPTIONS)
def terrain_maps_job(obj: bpy.types.Object, maps: tuple[str, ...] | list[str] = DEFAULT_MAPS, **options: Any) -> Job:
    """``write_terrain_maps`` as a ``jobs.Job``: this reads the grid (main thread; ``UserError`` as
    ``write_terrain_maps``), ``compute(advance)`` computes the maps touching no Blender data (any thread;
    ``advance`` after each band of rows of a map and while the flow routing runs: ``compute_maps``' progress),
    ``apply(maps)`` writes them (main thread; ``UserError``, changing nothing, when the object was removed or its
    mesh changed meanwhile) and returns them per vertex."""
    if not isinstance(obj, bpy.types.Object) or obj.type != "MESH":
        raise UserError(f"object: expected a mesh object, got {getattr(obj, 'name', type(obj).__name__)!r}")
    mesh = cast(bpy.types.Mesh, obj.data)
    if not obj.is_editable or not mesh.is_editable:
        raise UserError(f"{obj.name!r}: linked library data cannot be changed (make it local first)")
    if obj.mode == "EDIT":
        raise UserError(f"{obj.name!r}: leave Edit Mode to compute terrain maps")
    if not (options["attributes"] or options["vertex_groups"] or options["images"]):
        raise UserError("attributes, vertex_groups, images: choose at least one way to store the maps")
    names = _map_names(maps)
    if len(mesh.vertices) == 0:
        raise UserError(f"{obj.name!r}: the mesh has no vertices; terrain maps need a grid mesh")
    _recorded(obj)  # a damaged record is said now, not after the maps are computed
    positions = mesh_io.read_positions(mesh).astype(np.float64)
    return _grid_job(obj.name, mesh.name, positions, names, **options)


@checked(*STORE_OPTIONS, *MAP_OPTIONS)
def _grid_job(
    object_name: str,
    mesh_name: str,
    positions: np.ndarray,
    names: list[str],
    *,
    attributes: bool,
    vertex_groups: bool,
    images: bool,
    radius: int,
    horizon_radius: int,
    directions: int,
    flow_method: str,
) -> Job:
    """``terrain_maps_job`` for the mesh ``mesh_name`` of the object ``object_name`` whose vertices are at
    ``positions`` (float64; any thread: it reads no Blender data)."""
    layout = grid_layout(object_name, positions)
    if not layout.square and ("flow" in names or "wetness" in names):
        layout.square_cell(object_name, "the flow and wetness maps (routed in cells) need")  # raises, naming both
    heights = positions[layout.order, 2].reshape(layout.rows, layout.columns)
    settings = {"attributes": attributes, "vertex_groups": vertex_groups, "images": images, "radius": radius,
                "horizon_radius": horizon_radius, "directions": directions, "flow_method": flow_method}  # fmt: skip

    def compute(advance: Callable[[int], None]) -> dict[str, np.ndarray]:
        try:
            return compute_maps(
                heights, names, cell_size=layout.spacing, radius=radius, horizon_radius=horizon_radius,
                directions=directions, flow_method=flow_method, progress=steps_of(advance),
            )  # fmt: skip
        except (TypeError, ValueError) as error:  # the heights and cell size are the mesh's: named by it
            grid = str(error).startswith(("heights", "cell_size"))
            raise UserError(f"{object_name!r}: {error}" if grid else str(error)) from None

    def apply(computed: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        target = bpy.data.objects.get(object_name)
        if target is None or target.type != "MESH" or target.data.name != mesh_name or target.mode == "EDIT":
            raise UserError(f"{object_name!r}: the object was removed, renamed or is in Edit Mode; nothing was changed")
        target_mesh = cast(bpy.types.Mesh, target.data)
        if len(target_mesh.vertices) != positions.shape[0]:
            raise UserError(f"{object_name!r}: the mesh changed while computing its maps; nothing was changed")
        per_vertex = {}
        for name, values in computed.items():
            flat = np.empty(positions.shape[0], dtype=np.float32)
            flat[layout.order] = values.ravel()
            per_vertex[name] = flat
        for name, values in per_vertex.items():
            if attributes:
                mesh_io.write_point_floats(target_mesh, name, values)
            if vertex_groups:
                _write_group(target, name, unit_map(name, values))
        if images:
            for name, values in computed.items():
                data_image(f"{object_name} {name}", values)
        target_mesh.update()
        entries = [{**entry, "maps": [m for m in entry["maps"] if m not in names]} for entry in _recorded(target)]
        record = [entry for entry in entries if entry["maps"]] + [{"maps": names, **settings}]
        cast(Any, target)[RECORD] = json.dumps(record)
        return per_vertex

    return Job(compute, apply, progress_total(names))


SOURCES = ("MESH", "IMAGE")
IMAGE_OPTIONS: tuple[Option, ...] = (
    Option("source", str, "MESH", "What the heights come from", choices=SOURCES,
           choice_text=(("Mesh", "The active grid mesh: maps as attributes, vertex groups and/or images"),
                        ("Image", "A baked height image (red channel): maps as float images"))),
    Option("image_name", str, "", "The height image (its red channel); empty: the Image Editor's", title="Image"),
    HEIGHT_SCALE,
    CELL_SIZE,
    Option("save_folder", str, "", "Also save each map as <image>_<map>.exr in this folder (empty: do not save)",
           subtype="DIR_PATH"),
)  # fmt: skip
"""The options of the operator's image source (``image_terrain_maps``)."""


@checked(*IMAGE_OPTIONS[2:], *MAP_OPTIONS)
def image_terrain_maps(
    image: bpy.types.Image, maps: tuple[str, ...] | list[str] = DEFAULT_MAPS, **options: Any
) -> dict[str, bpy.types.Image]:
    """Compute ``maps`` of the height image ``image`` (module doc: red channel times ``height_scale``, pixels
    ``cell_size`` apart, rows along +y from the bottom row) and store each as the float image
    ``"<image>_<map>"`` (made or replaced, the values as they are, non-colour data); with ``save_folder`` (a
    Blender path, ``//`` relative to the .blend) also as OpenEXR files ``<image>_<map>.exr`` there, all or none.
    The other options are ``noise_core.terrain.maps.MAP_OPTIONS``. Returns the images by map. ``UserError``
    naming the problem (no pixels, an unknown map, bad settings, an unwritable folder); then nothing changes."""
    return image_terrain_maps_job(image, maps, **options).run()


@checked(*IMAGE_OPTIONS[2:], *MAP_OPTIONS)
def image_terrain_maps_job(
    image: bpy.types.Image,
    maps: tuple[str, ...] | list[str] = DEFAULT_MAPS,
    *,
    height_scale: float,
    cell_size: float,
    save_folder: str,
    radius: int,
    horizon_radius: int,
    directions: int,
    flow_method: str,
) -> Job:
    """``image_terrain_maps`` as a ``jobs.Job`` (as ``terrain_maps_job``): this reads the pixels (main thread),
    ``compute(advance)`` computes the maps and encodes their files beside their targets (any thread),
    ``apply(result)`` puts the files in place, all or none, and makes the images (main thread; ``UserError``,
    changing nothing, when the files cannot be written)."""
    if not isinstance(image, bpy.types.Image):
        raise UserError(f"image: expected an image, got {type(image).__name__}")
    names = _map_names(maps)
    width, height = (int(v) for v in image.size)
    if width < 3 or height < 3 or not image.has_data:
        raise UserError(f"image: {image.name!r} has no pixels of at least 3 x 3")
    _, heights = image_io.height_pixels(image)
    folder = bpy.path.abspath(save_folder) if save_folder else ""
    if folder and not os.path.isdir(folder):
        raise UserError(f"save_folder: no such folder {folder!r}")
    prefix = image.name
    total = progress_total(names) + (len(names) if folder else 0)

    paths = [os.path.join(folder, f"{prefix}_{name}.exr") for name in names] if folder else []

    def compute(advance: Callable[[int], None]) -> tuple[dict[str, np.ndarray], Staged | None]:
        try:
            computed = compute_maps(
                heights * height_scale, names, cell_size=cell_size, radius=radius, horizon_radius=horizon_radius,
                directions=directions, flow_method=flow_method, progress=steps_of(advance),
            )  # fmt: skip
        except (TypeError, ValueError) as error:  # the heights are the pixels times height_scale
            name, colon, rest = str(error).partition(": ")
            name = name.replace("heights", "height_scale")
            raise UserError(f"{name}: {rest}" if colon else str(error)) from None
        for name, values in computed.items():
            if not np.isfinite(values).all():
                raise UserError(f"height_scale: {height_scale:g} makes the {name} map overflow; use a smaller one")
        if not paths:
            return computed, None
        map_pixels = [  # each map as OpenEXR, 32-bit float grey, top row first
            partial(np.ascontiguousarray, computed[name][::-1], dtype=np.float32) for name in names
        ]
        return computed, image_io.write_files(paths, map_pixels, "OPEN_EXR", advance, "save_folder")

    def apply(result: tuple[dict[str, np.ndarray], Staged | None]) -> dict[str, bpy.types.Image]:
        computed, staged = result
        if staged is not None:
            try:
                image_io.commit(staged)
            finally:
                staged.discard()
        return {name: data_image(f"{prefix}_{name}", values) for name, values in computed.items()}

    return Job(compute, apply, total)


RECORD_OPTIONS = {option.name: option for option in (*STORE_OPTIONS, *MAP_OPTIONS)}  # an entry's, besides its maps


def _recorded(obj: bpy.types.Object) -> list[dict[str, Any]]:
    """The entries of ``obj``'s ``RECORD`` (``[]`` without one), each ``{"maps": [...], settings}``, checked:
    ``UserError`` saying what is damaged and how to recover (``NOISEWRIGHT_OT_reset_terrain_maps``) when the
    property is not what ``write_terrain_maps`` stores (edited by hand, or by another tool)."""
    text = cast(Any, obj).get(RECORD)
    if text is None:
        return []
    try:
        return _checked_record(text)
    except (TypeError, ValueError, RecursionError) as error:
        raise UserError(
            f"{obj.name!r}: its terrain maps record (custom property {RECORD!r}) is damaged: {error}; reset it "
            f"(Object > Reset Terrain Maps Record, or delete the property) and run Object > Terrain Maps again"
        ) from None


def _checked_record(text: object) -> list[dict[str, Any]]:
    """The entries of the record ``text``; ``TypeError``/``ValueError`` saying what is wrong."""
    if not isinstance(text, str):
        raise TypeError(f"it is a {type(text).__name__}, not JSON text")
    entries = json.loads(text)
    if not isinstance(entries, list):
        raise TypeError(f"expected a list of entries, got {type(entries).__name__}")
    checked = []
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise TypeError(f"entry {index}: expected an object, got {type(entry).__name__}")
        maps = entry.get("maps")
        if not isinstance(maps, list) or not maps or not all(isinstance(name, str) for name in maps):
            raise TypeError(f"entry {index}: 'maps' must be a list of map names, got {maps!r}")
        for name in maps:
            choice(f"entry {index}: maps", name, MAP_NAMES)
        unknown = sorted(set(entry) - {"maps", *RECORD_OPTIONS})
        if unknown:
            raise ValueError(f"entry {index}: {unknown[0]!r} is not a setting of Terrain Maps")
        settings = {key: RECORD_OPTIONS[key].check(value) for key, value in entry.items() if key != "maps"}
        checked.append({"maps": list(dict.fromkeys(maps)), **settings})
    return checked


def record_damage(obj: bpy.types.Object) -> str:
    """What is wrong with ``obj``'s ``RECORD`` ("" when it has none, or a sound one)."""
    try:
        _recorded(obj)
    except UserError as error:
        return str(error)
    return ""


def rewrite_terrain_maps(obj: bpy.types.Object) -> None:
    """Compute and store again every map ``write_terrain_maps`` stored on ``obj``, with the settings it had
    (recorded in the custom property ``RECORD``): after the mesh changed, as a Noise Terrain's Regenerate does."""
    for entry in _recorded(obj):
        write_terrain_maps(obj, **entry)


@dataclass(frozen=True)
class RecordedMaps:
    """The maps ``write_terrain_maps`` recorded on the object ``object_name`` (``RECORD``: ``entries``), read on the
    main thread, to make again of the positions its mesh ``mesh_name`` will get (a Noise Terrain's rebuild,
    ``terrain.regenerate_job``)."""

    object_name: str
    mesh_name: str
    entries: tuple[dict[str, Any], ...]

    @property
    def total(self) -> int:
        """The progress ``job(positions)``'s ``compute`` reports in all (0: no maps recorded)."""
        return sum(progress_total(entry["maps"]) for entry in self.entries)

    def job(self, positions: np.ndarray) -> Job:
        """Every recorded map of the mesh with vertices at ``positions`` as a ``jobs.Job`` (made and computed on
        any thread, touching no Blender data); its ``apply``, once the mesh has them, writes the maps as
        ``rewrite_terrain_maps`` would (main thread; when the record changed meanwhile, it is that)."""
        jobs = []
        for entry in self.entries:
            settings = {key: value for key, value in entry.items() if key != "maps"}
            at = positions.astype(np.float64)
            jobs.append(_grid_job(self.object_name, self.mesh_name, at, entry["maps"], **settings))

        def compute(advance: Callable[[int], None]) -> list:
            return [job.compute(advance) for job in jobs]

        def apply(computed: list) -> None:
            target = bpy.data.objects[self.object_name]
            if tuple(_recorded(target)) != self.entries:
                rewrite_terrain_maps(target)
                return
            for job, maps in zip(jobs, computed, strict=True):
                job.apply(maps)

        return Job(compute, apply, self.total)


def recorded_maps(obj: bpy.types.Object) -> RecordedMaps:
    """The maps ``write_terrain_maps`` recorded on ``obj`` (``RecordedMaps``), read here (main thread)."""
    return RecordedMaps(obj.name, cast(bpy.types.Mesh, obj.data).name, tuple(_recorded(obj)))


def _write_group(obj: bpy.types.Object, name: str, weights: np.ndarray) -> None:
    """The vertex group ``name`` (made or emptied) with every vertex at ``weights`` (0..1, rounded to
    ``WEIGHT_LEVELS``)."""
    group = obj.vertex_groups.get(name) or obj.vertex_groups.new(name=name)
    everyone = list(range(weights.shape[0]))
    group.remove(everyone)
    levels = np.round(np.clip(weights, 0.0, 1.0) * WEIGHT_LEVELS).astype(np.int64)
    order = np.argsort(levels, kind="stable")
    values, starts = np.unique(levels[order], return_index=True)
    ends = [*starts[1:], order.shape[0]]
    for level, start, end in zip(values, starts, ends, strict=True):
        group.add(order[start:end].tolist(), float(level) / WEIGHT_LEVELS, "REPLACE")


def mesh_unavailable(context: bpy.types.Context) -> str:
    """Why there is no mesh to compute maps of in ``context`` ("" when the active object is a mesh in Object
    Mode)."""
    obj = context.active_object
    return "" if context.mode == "OBJECT" and obj is not None and obj.type == "MESH" else "Select a grid mesh"


MAP_ITEMS = [(name, name.replace("_", " ").title(), f"The {name.replace('_', ' ')} map") for name in MAP_NAMES]


class NOISEWRIGHT_OT_terrain_maps(JobOperator, OptionsOperator, bpy.types.Operator):
    """Compute terrain maps (slope, curvature, flow, ...) of the active grid mesh as attributes or vertex groups,
    or of a height image as float images"""

    bl_idname = "noisewright.terrain_maps"
    bl_label = "Terrain Maps"
    __annotations__ = {
        "maps": EnumProperty(  # type: ignore[func-returns-value]
            name="Maps", items=MAP_ITEMS, options={"ENUM_FLAG"}, default=set(DEFAULT_MAPS),
            description="The maps to compute; each is stored under its own name",
        ),
        **properties_of(*IMAGE_OPTIONS[:1], *STORE_OPTIONS, *IMAGE_OPTIONS[1:], *MAP_OPTIONS),
    }  # fmt: skip

    MESH_ONLY = tuple(option.name for option in STORE_OPTIONS)
    IMAGE_ONLY = tuple(option.name for option in IMAGE_OPTIONS[1:])

    @staticmethod
    def unavailable(context) -> str:
        if not mesh_unavailable(context) or len(bpy.data.images):
            return ""
        return "Select a grid mesh, or load a height image"

    def height_image(self, context) -> bpy.types.Image:
        """The image named ``image_name``, or the Image Editor's when it is empty."""
        if not self.image_name:
            image = getattr(context.space_data, "image", None)
            if image is None:
                raise UserError("image_name: choose a height image (or open one in the Image Editor)")
            return image
        image = bpy.data.images.get(self.image_name)
        if image is None:
            raise UserError(f"image_name: there is no image {self.image_name!r}")
        return image

    def draw(self, _context):
        layout = cast(bpy.types.UILayout, self.layout)
        layout.prop(self, "source", expand=True)
        layout.prop(self, "maps")
        hidden = self.IMAGE_ONLY if self.source == "MESH" else self.MESH_ONLY
        for name in self.keywords("maps", "source", *hidden):
            if name == "image_name":
                layout.prop_search(self, name, bpy.data, "images")
            else:
                layout.prop(self, name)

    def job_key(self, context) -> str:
        if self.source == "IMAGE":
            return f"image {self.height_image(context).name}"
        if context.active_object is None:
            raise UserError("object: select a grid mesh (or choose the Image source)")
        return context.active_object.name

    def prepare(self, context):
        """A job (``jobs``): in the UI the maps are computed in a worker thread, band by band, and Esc
        cancels within a band (the flow routing within a few milliseconds); in background mode and from
        scripts (``execute``) in the foreground."""
        if self.source == "IMAGE":
            options = self.keywords("source", "image_name", *self.MESH_ONLY)
            options["maps"] = sorted(options["maps"], key=MAP_NAMES.index)
            job = image_terrain_maps_job(self.height_image(context), **options)

            def report(computed: dict[str, np.ndarray]) -> dict[str, bpy.types.Image]:
                made = job.apply(computed)
                self.report({"INFO"}, f"Terrain maps as images: {', '.join(image.name for image in made.values())}")
                return made

            return Job(job.compute, report, job.total)
        options = self.keywords("source", *self.IMAGE_ONLY)
        options["maps"] = sorted(options["maps"], key=MAP_NAMES.index)
        return terrain_maps_job(context.active_object, **options)


class NOISEWRIGHT_OT_reset_terrain_maps(bpy.types.Operator):
    """Remove the active object's terrain maps record (when it is damaged); the maps already stored stay"""

    bl_idname = "noisewright.reset_terrain_maps"
    bl_label = "Reset Terrain Maps Record"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        obj = context.active_object
        if obj is None or RECORD not in obj:
            cls.poll_message_set("The active object has no terrain maps record")
            return False
        return True

    def execute(self, context):
        obj = context.active_object
        what = "the damaged record" if record_damage(obj) else "the record"
        del cast(Any, obj)[RECORD]
        self.report({"INFO"}, f"{obj.name!r}: {what} was removed; its maps stay, Terrain Maps records them again")
        return {"FINISHED"}


def menu_entry(self, context) -> None:
    self.layout.operator(NOISEWRIGHT_OT_terrain_maps.bl_idname)
    obj = context.active_object
    if obj is not None and RECORD in obj and record_damage(obj):  # only when there is something to recover from
        self.layout.operator(NOISEWRIGHT_OT_reset_terrain_maps.bl_idname, icon="ERROR")


def image_menu_entry(self, _context) -> None:
    """The operator in the Image Editor's Image menu, on the image shown."""
    self.layout.operator(NOISEWRIGHT_OT_terrain_maps.bl_idname).source = "IMAGE"


CLASSES = (NOISEWRIGHT_OT_terrain_maps, NOISEWRIGHT_OT_reset_terrain_maps)
