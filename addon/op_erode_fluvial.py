"""``noisewright.erode_fluvial``: rivers carved into a grid mesh by ``noise_core.erode_fluvial`` (stream power law,
Braun & Willett 2013; docs/erosion.md).

``erode_fluvial_mesh`` is the plain function, ``NOISEWRIGHT_OT_erode_fluvial`` its thin operator. The mesh is a
regular grid in local X/Y as for *Erode Terrain* (a Noise Terrain, Add > Mesh > Grid); heights are local Z. The
model runs in cells (heights ÷ the grid spacing, ``cell_size = 1``), so its options mean the same on any size of
grid; with *Keep Relief* the result is scaled back to the input's lowest and highest heights. Vertex groups
(optional) scale the uplift, the erodibility and the rain per vertex: where ranges rise, where rock is soft,
where it rains. Results: the vertices move along Z; point attributes ``erosion`` and ``deposition`` (as *Erode
Terrain*), ``drainage_area`` (in cells) and ``river`` (1 on river cells, else 0) for materials and Geometry Nodes.
"""

from __future__ import annotations

from typing import Any, cast

import bpy
import numpy as np
from bpy.props import BoolProperty, StringProperty

from . import erosion_io, mesh_io
from .api import _check_editable, _mesh
from .errors import UserError
from .mapping import check_finite, check_finite_values
from .noise_core.fluvial import FLUVIAL_OPTIONS, erode_fluvial
from .progress import window_progress
from .properties import schema_property

GROUPS = ("uplift_group", "erodibility_group", "precipitation_group")
"""The operator's vertex-group settings, each scaling the option named before ``_group``."""
FLOW_ATTRIBUTES = ("drainage_area", "river")


def erode_fluvial_mesh(
    context: bpy.types.Context,
    obj: bpy.types.Object,
    keep_relief: bool = True,
    groups: dict[str, str] | None = None,
    **options: Any,
) -> bpy.types.Object:
    """Carve rivers into the grid mesh ``obj``: ``options`` are keyword arguments of ``noise_core.erode_fluvial``
    (``steps``, ``dt``, ``uplift``, ``erodibility`` required; heights in cells of the grid). ``groups`` maps
    ``"uplift"``/``"erodibility"``/``"precipitation"`` to vertex-group names whose weights scale that option per
    vertex (precipitation: the weight is the rain). ``UserError`` naming the problem; then nothing changes."""
    if not isinstance(obj, bpy.types.Object) or obj.type != "MESH":
        raise UserError(f"object: expected a mesh object, got {getattr(obj, 'name', type(obj).__name__)!r}")
    _check_editable(obj)
    if obj.mode == "EDIT":
        raise UserError(f"{obj.name!r}: leave Edit Mode to erode")
    mesh = _mesh(obj)
    positions = mesh_io.read_positions(mesh).astype(np.float64)
    layout = erosion_io.grid_layout(obj.name, positions)
    shape = (layout.rows, layout.columns)
    heights = positions[layout.order, 2].reshape(shape)
    for field, group in (groups or {}).items():
        if not group:
            continue
        if group not in obj.vertex_groups:
            raise UserError(f"{field}_group: {obj.name!r} has no vertex group {group!r}")
        weights = mesh_io.vertex_group_weights(context, mesh, group)[layout.order].reshape(shape).astype(np.float64)
        options[field] = weights if field == "precipitation" else weights * float(options[field])
    steps = int(options.get("steps", 0))
    with window_progress(context, steps) as advance:
        try:
            result = erode_fluvial(heights / layout.cell_size, progress=lambda *_: advance(1), **options)
        except (ValueError, TypeError) as error:
            raise UserError(str(error)) from None
    after = result.heights.astype(np.float64) * layout.cell_size
    scale = layout.cell_size  # of the masks: cells to the mesh's units, times the relief's factor
    span = float(np.ptp(after))
    if keep_relief and span > 0.0:
        factor = float(np.ptp(heights)) / span
        after = float(heights.min()) + (after - after.min()) * factor
        scale *= factor
    check_finite_values("heights: eroded heights", after)
    positions[layout.order, 2] = after.ravel()
    per_vertex = {}
    masks = {"erosion": result.erosion * scale, "deposition": result.deposition * scale,
             "drainage_area": result.drainage_area, "river": result.rivers.astype(np.float32)}  # fmt: skip
    for name, values in masks.items():
        per_vertex[name] = np.empty(positions.shape[0], np.float32)
        per_vertex[name][layout.order] = values.ravel()
    mesh_io.write_positions(mesh, positions)
    erosion_io.write_masks(mesh, per_vertex["erosion"], per_vertex["deposition"])
    for name in FLOW_ATTRIBUTES:
        attribute = mesh.attributes.get(name)
        if attribute is not None and (attribute.data_type != "FLOAT" or attribute.domain != "POINT"):
            mesh.attributes.remove(attribute)
            attribute = None
        if attribute is None:
            attribute = mesh.attributes.new(name, "FLOAT", "POINT")
        cast(Any, attribute).data.foreach_set("value", per_vertex[name])
    mesh.update()
    return obj


class NOISEWRIGHT_OT_erode_fluvial(bpy.types.Operator):
    """Carve rivers into the active grid mesh (stream power erosion): branching valleys, drainage and river maps"""

    bl_idname = "noisewright.erode_fluvial"
    bl_label = "Erode Terrain (Rivers)"
    bl_options = {"REGISTER", "UNDO", "PRESET"}
    __annotations__ = {  # Blender reads the properties from here
        **{option.name: schema_property(option) for option in FLUVIAL_OPTIONS},
        "keep_relief": BoolProperty(  # type: ignore[func-returns-value]
            name="Keep Relief", default=True, description="Scale the result to the input's lowest and highest heights"
        ),
        **{
            name: StringProperty(  # type: ignore[func-returns-value]
                name=name.replace("_", " ").title(),
                description=f"Vertex group whose weights scale the {name.split('_')[0]} per vertex (empty: none)",
            )
            for name in GROUPS
        },
    }

    @classmethod
    def poll(cls, context):
        obj = context.active_object
        if context.mode != "OBJECT" or obj is None or obj.type != "MESH":
            cls.poll_message_set("Select a grid mesh in Object Mode")
            return False
        return True

    def draw(self, context):
        layout = cast(bpy.types.UILayout, self.layout)
        layout.use_property_split = True
        layout.use_property_decorate = False
        for option in FLUVIAL_OPTIONS:
            layout.prop(self, option.name)
        layout.prop(self, "keep_relief")
        obj = context.active_object
        for name in GROUPS:
            if obj is not None:
                layout.prop_search(self, name, obj, "vertex_groups")

    def execute(self, context):
        try:
            check_finite(self)
            # the properties are declared in __annotations__ from the option rows: read them by name
            names = (*(option.name for option in FLUVIAL_OPTIONS), "keep_relief", *GROUPS)
            settings = {name: getattr(self, name) for name in names}
            options = {option.name: settings[option.name] for option in FLUVIAL_OPTIONS}
            groups = {name.removesuffix("_group"): settings[name] for name in GROUPS}
            erode_fluvial_mesh(context, context.active_object, settings["keep_relief"], groups, **options)
        except UserError as error:
            self.report({"ERROR"}, str(error))
            return {"CANCELLED"}
        return {"FINISHED"}


CLASSES = (NOISEWRIGHT_OT_erode_fluvial,)
