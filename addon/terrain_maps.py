"""``noisewright.terrain_maps``: Object > Terrain Maps, over ``write_terrain_maps``.

Computes terrain maps (``noise_core.terrain_maps``: slope, aspect, curvature, relative height, openness,
occlusion, flow, wetness) of a grid mesh (a Noise Terrain, Add > Mesh > Grid, any regular grid in local X/Y,
heights along local Z) and stores each as a float point attribute named after the map (for an Attribute node
in a material, and Geometry Nodes), as a vertex group of the same name, its weights the map mapped to 0..1 as in
PNG images (``noise_core.terrain_maps.unit_map``: slope / 90, ...), for particle density and weight paint,
and/or as a float image ``"<object> <map>"`` of columns x rows pixels (the values as they are, non-colour data;
pixel row 0 is the grid's lowest Y, as Blender stores images bottom row first). The object remembers which maps
were written, how (``RECORD``); a Noise Terrain's Regenerate writes them again (``rewrite_terrain_maps``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, cast

import bpy
import numpy as np
from bpy.props import EnumProperty

from . import mesh_io
from .erosion_io import grid_layout
from .errors import UserError
from .image_io import data_image
from .jobs import JobOperator
from .noise_core.schema import Option, choice
from .noise_core.terrain_maps import MAP_NAMES, MAP_OPTIONS, compute_maps, unit_map
from .options import OptionsOperator, checked, properties_of

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
    ``noise_core.terrain_maps.MAP_OPTIONS``. Returns the maps per vertex (float32, in vertex order).
    ``UserError`` naming the problem (not a grid, linked data, Edit Mode, an unknown map, bad settings); then
    nothing changes."""
    compute, apply, _total = terrain_maps_parts(obj, maps, **options)
    return apply(compute(lambda _count: None))


@checked(*STORE_OPTIONS, *MAP_OPTIONS)
def terrain_maps_parts(
    obj: bpy.types.Object,
    maps: tuple[str, ...] | list[str] = DEFAULT_MAPS,
    *,
    attributes: bool,
    vertex_groups: bool,
    images: bool,
    radius: int,
    horizon_radius: int,
    directions: int,
    flow_method: str,
) -> tuple[Callable[[Callable[[int], None]], Any], Callable[[Any], dict[str, np.ndarray]], int]:
    """``write_terrain_maps`` in three parts, for ``jobs``: this reads the grid (main thread; ``UserError`` as
    ``write_terrain_maps``), ``compute(advance)`` computes the maps touching no Blender data (any thread;
    ``advance(1)`` after each map, ``total`` in all, the third item), ``apply(maps)`` writes them (main
    thread; ``UserError``, changing nothing, when the object was removed or its mesh changed meanwhile)."""
    if not isinstance(obj, bpy.types.Object) or obj.type != "MESH":
        raise UserError(f"object: expected a mesh object, got {getattr(obj, 'name', type(obj).__name__)!r}")
    mesh = cast(bpy.types.Mesh, obj.data)
    if not obj.is_editable or not mesh.is_editable:
        raise UserError(f"{obj.name!r}: linked library data cannot be changed (make it local first)")
    if obj.mode == "EDIT":
        raise UserError(f"{obj.name!r}: leave Edit Mode to compute terrain maps")
    if not (attributes or vertex_groups or images):
        raise UserError("attributes, vertex_groups, images: choose at least one way to store the maps")
    names = list(maps)
    if not names:
        raise UserError("maps: choose at least one map")
    try:
        for name in names:
            choice("maps", name, MAP_NAMES)
    except (TypeError, ValueError) as error:
        raise UserError(str(error)) from None
    positions = mesh_io.read_positions(mesh).astype(np.float64)
    layout = grid_layout(obj.name, positions)
    heights = positions[layout.order, 2].reshape(layout.rows, layout.columns)
    object_name, mesh_name = obj.name, mesh.name
    settings = {"attributes": attributes, "vertex_groups": vertex_groups, "images": images, "radius": radius,
                "horizon_radius": horizon_radius, "directions": directions, "flow_method": flow_method}  # fmt: skip
    unique = list(dict.fromkeys(names))
    total = len(unique) + ("flow" in unique or "wetness" in unique)

    def compute(advance: Callable[[int], None]) -> dict[str, np.ndarray]:
        try:
            return compute_maps(
                heights, names, cell_size=layout.cell_size, radius=radius, horizon_radius=horizon_radius,
                directions=directions, flow_method=flow_method, progress=lambda _done, _total: advance(1),
            )  # fmt: skip
        except (TypeError, ValueError) as error:
            raise UserError(str(error)) from None

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

    return compute, apply, total


def _recorded(obj: bpy.types.Object) -> list[dict[str, Any]]:
    return json.loads(cast(Any, obj).get(RECORD, "[]"))


def rewrite_terrain_maps(obj: bpy.types.Object) -> None:
    """Compute and store again every map ``write_terrain_maps`` stored on ``obj``, with the settings it had
    (recorded in the custom property ``RECORD``): after the mesh changed, as a Noise Terrain's Regenerate does."""
    for entry in _recorded(obj):
        write_terrain_maps(obj, **entry)


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


MAP_ITEMS = [(name, name.replace("_", " ").title(), f"The {name.replace('_', ' ')} map") for name in MAP_NAMES]


class NOISEWRIGHT_OT_terrain_maps(JobOperator, OptionsOperator, bpy.types.Operator):
    """Compute terrain maps (slope, curvature, flow, ...) of the active grid mesh as attributes or vertex groups"""

    bl_idname = "noisewright.terrain_maps"
    bl_label = "Terrain Maps"
    __annotations__ = {
        "maps": EnumProperty(  # type: ignore[func-returns-value]
            name="Maps", items=MAP_ITEMS, options={"ENUM_FLAG"}, default=set(DEFAULT_MAPS),
            description="The maps to compute; each is stored under its own name",
        ),
        **properties_of(*STORE_OPTIONS, *MAP_OPTIONS),
    }  # fmt: skip

    @staticmethod
    def unavailable(context) -> str:
        obj = context.active_object
        return "" if context.mode == "OBJECT" and obj is not None and obj.type == "MESH" else "Select a grid mesh"

    def job_key(self, context) -> str:
        return context.active_object.name

    def prepare(self, context):
        """A job (``jobs``): in the UI the maps are computed in a worker thread, one map a step, and Esc
        cancels; in background mode and from scripts (``execute``) in the foreground."""
        options = self.keywords()
        options["maps"] = sorted(options["maps"], key=MAP_NAMES.index)
        compute, apply, self.job_total = terrain_maps_parts(context.active_object, **options)
        return compute, apply


def menu_entry(self, _context) -> None:
    self.layout.operator(NOISEWRIGHT_OT_terrain_maps.bl_idname)


CLASSES = (NOISEWRIGHT_OT_terrain_maps,)
