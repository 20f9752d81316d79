"""``noisewright.erode_fluvial`` and ``noisewright.erode_fluvial_image``: rivers carved into a grid mesh or a height
image by ``noise_core.erode_fluvial`` (stream power law, Braun & Willett 2013; docs/erosion.md).

``erode_fluvial_mesh`` and ``erode_fluvial_image`` are the plain functions, ``NOISEWRIGHT_OT_erode_fluvial`` and
``NOISEWRIGHT_OT_erode_fluvial_image`` their thin operators. The image's red channel times *Relief* (pixels a
height of 1 spans) is the height in cells; it is written back as grey (alpha kept), and the flow maps become
float images ``"<name> Drainage"`` (``log(1 + A) / log(1 + max A)``) and ``"<name> Rivers"`` (0/1). The mesh is a
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
from bpy.props import BoolProperty, FloatProperty, StringProperty

from . import erosion_io, image_io, mesh_io
from .erode import grid_heights
from .errors import UserError
from .mapping import check_finite, check_finite_values
from .noise_core.fluvial import FLUVIAL_OPTIONS, erode_fluvial
from .pixels import pixel_array
from .progress import window_progress
from .properties import schema_property

GROUPS = ("uplift_group", "erodibility_group", "precipitation_group")
"""The operator's vertex-group settings, each scaling the option named before ``_group``."""
FLOW_ATTRIBUTES = ("drainage_area", "river")
KEEP_RELIEF, RELIEF = "keep_relief", "relief"
"""Property names read with ``getattr``: declared in ``__annotations__``, so type checkers do not see them."""


def _carve(context: bpy.types.Context, heights: np.ndarray, keep_relief: bool, options: dict[str, Any]):
    """``erode_fluvial`` of ``heights`` (in cells) with the window's progress, as ``(heights, result, factor)``:
    the new heights (float64, scaled back to the input's lowest and highest with ``keep_relief``), the result
    and the factor the relief was scaled by; ``UserError`` with noise_core's message for bad options."""
    with window_progress(context, int(options.get("steps", 0))) as advance:
        try:
            result = erode_fluvial(heights, progress=lambda *_: advance(1), **options)
        except (ValueError, TypeError) as error:
            raise UserError(str(error)) from None
    after = result.heights.astype(np.float64)
    span, factor = float(np.ptp(after)), 1.0
    if keep_relief and span > 0.0:
        factor = float(np.ptp(heights)) / span
        after = float(heights.min()) + (after - after.min()) * factor
    check_finite_values("heights: eroded heights", after)
    return after, result, factor


def erode_fluvial_image(
    context: bpy.types.Context, image: bpy.types.Image, relief: float = 64.0, keep_relief: bool = True, **options: Any
) -> tuple[bpy.types.Image, bpy.types.Image]:
    """Carve rivers into the height image ``image`` (module docstring); ``options`` are keyword arguments of
    ``noise_core.erode_fluvial``. Returns the drainage and river images (made or replaced). ``UserError`` naming
    the problem; then nothing changes."""
    pixels, heights = image_io.height_pixels(image)
    if not (isinstance(relief, (int, float)) and np.isfinite(relief) and relief > 0.0):
        raise UserError(f"relief: must be > 0 pixels, got {relief!r}")
    after, result, _ = _carve(context, heights * float(relief), keep_relief, options)
    pixels[:, : min(3, image.channels)] = (after / float(relief)).reshape(-1, 1)
    pixel_array(image).foreach_set(pixels.ravel())
    image.update()
    area = np.log1p(result.drainage_area.astype(np.float64))
    drainage = image_io.data_image(f"{image.name} Drainage", area / max(float(area.max()), 1e-30))
    return drainage, image_io.data_image(f"{image.name} Rivers", result.rivers.astype(np.float32))


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
    mesh, positions, layout, heights = grid_heights(obj)
    shape = (layout.rows, layout.columns)
    for field, group in (groups or {}).items():
        if not group:
            continue
        if group not in obj.vertex_groups:
            raise UserError(f"{field}_group: {obj.name!r} has no vertex group {group!r}")
        weights = mesh_io.vertex_group_weights(context, mesh, group)[layout.order].reshape(shape).astype(np.float64)
        options[field] = weights if field == "precipitation" else weights * float(options[field])
    after, result, factor = _carve(context, heights / layout.cell_size, keep_relief, options)
    scale = layout.cell_size * factor  # of the masks: cells to the mesh's units, times the relief's factor
    positions[layout.order, 2] = after.ravel() * layout.cell_size
    per_vertex = {}
    masks = {"erosion": result.erosion * scale, "deposition": result.deposition * scale,
             "drainage_area": result.drainage_area, "river": result.rivers.astype(np.float32)}  # fmt: skip
    for name, values in masks.items():
        per_vertex[name] = np.empty(positions.shape[0], np.float32)
        per_vertex[name][layout.order] = values.ravel()
    mesh_io.write_positions(mesh, positions)
    erosion_io.write_masks(mesh, per_vertex["erosion"], per_vertex["deposition"])
    for name in FLOW_ATTRIBUTES:
        mesh_io.write_point_floats(mesh, name, per_vertex[name])
    mesh.update()
    return obj


def _model_properties() -> dict[str, Any]:
    """The operators' properties of the model: one per ``FLUVIAL_OPTIONS`` row, and *Keep Relief*."""
    return {
        **{option.name: schema_property(option) for option in FLUVIAL_OPTIONS},
        KEEP_RELIEF: BoolProperty(  # type: ignore[func-returns-value]
            name="Keep Relief", default=True, description="Scale the result to the input's lowest and highest heights"
        ),
    }


def _draw_model(layout: bpy.types.UILayout, operator: bpy.types.Operator) -> None:
    layout.use_property_split = True
    layout.use_property_decorate = False
    for name in (*(option.name for option in FLUVIAL_OPTIONS), KEEP_RELIEF):
        layout.prop(operator, name)


def _model_settings(operator: bpy.types.Operator) -> tuple[bool, dict[str, Any]]:
    """``(keep_relief, options)`` from the operator (its properties are declared in ``__annotations__`` from the
    option rows, so they are read by name)."""
    check_finite(operator)
    options = {option.name: getattr(operator, option.name) for option in FLUVIAL_OPTIONS}
    return bool(getattr(operator, KEEP_RELIEF)), options


class NOISEWRIGHT_OT_erode_fluvial(bpy.types.Operator):
    """Carve rivers into the active grid mesh (stream power erosion): branching valleys, drainage and river maps"""

    bl_idname = "noisewright.erode_fluvial"
    bl_label = "Erode Terrain (Rivers)"
    bl_options = {"REGISTER", "UNDO", "PRESET"}
    __annotations__ = {  # Blender reads the properties from here
        **_model_properties(),
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
        _draw_model(layout, self)
        obj = context.active_object
        for name in GROUPS:
            if obj is not None:
                layout.prop_search(self, name, obj, "vertex_groups")

    def execute(self, context):
        try:
            keep_relief, options = _model_settings(self)
            groups = {name.removesuffix("_group"): getattr(self, name) for name in GROUPS}
            erode_fluvial_mesh(context, context.active_object, keep_relief, groups, **options)
        except UserError as error:
            self.report({"ERROR"}, str(error))
            return {"CANCELLED"}
        return {"FINISHED"}


class NOISEWRIGHT_OT_erode_fluvial_image(bpy.types.Operator):
    """Carve rivers into the image as a height map (red channel); drainage and river maps become new images"""

    bl_idname = "noisewright.erode_fluvial_image"
    bl_label = "Erode Height Image (Rivers)"
    bl_options = {"REGISTER", "UNDO", "PRESET"}
    __annotations__ = {  # Blender reads the properties from here
        RELIEF: FloatProperty(  # type: ignore[func-returns-value]
            name="Relief", description="Pixels a height of 1 spans: how steep the image's terrain is",
            default=64.0, min=1e-3, soft_min=1.0, soft_max=1024.0,
        ),
        **_model_properties(),
    }  # fmt: skip

    @classmethod
    def poll(cls, context):
        if getattr(context.space_data, "image", None) is None:
            cls.poll_message_set("Open an image in the Image Editor")
            return False
        return True

    def draw(self, _context):
        layout = cast(bpy.types.UILayout, self.layout)
        layout.prop(self, RELIEF)
        _draw_model(layout, self)

    def execute(self, context):
        try:
            keep_relief, options = _model_settings(self)
            erode_fluvial_image(context, context.space_data.image, getattr(self, RELIEF), keep_relief,
                                **options)  # fmt: skip
        except UserError as error:
            self.report({"ERROR"}, str(error))
            return {"CANCELLED"}
        return {"FINISHED"}


CLASSES = (NOISEWRIGHT_OT_erode_fluvial, NOISEWRIGHT_OT_erode_fluvial_image)
