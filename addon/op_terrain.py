"""``noisewright.add_terrain``: Add > Mesh > Noise Terrain, over ``api.add_terrain``.

A grid mesh raised along Z by noise, placed like Blender's own Add > Mesh objects (``AddObjectHelper``:
Align, Location and Rotation in the redo panel, the 3D cursor's rotation with Align = 3D Cursor, the
"Enter Edit Mode" preference). See ``api.add_terrain`` for the geometry.
"""

from __future__ import annotations

from typing import cast

import bpy
from bpy.props import PointerProperty
from bpy_extras.object_utils import AddObjectHelper

from . import api
from .errors import UserError
from .mapping import check_finite, to_domain, to_spec
from .properties import NoiseSettings, operator_settings
from .terrain import SHAPE_FIELDS, shape_property
from .ui import draw_noise_settings


class NOISEWRIGHT_OT_add_terrain(bpy.types.Operator, AddObjectHelper):
    """Add a grid mesh raised by noise (a terrain)"""

    bl_idname = "noisewright.add_terrain"
    bl_label = "Noise Terrain"
    bl_options = {"REGISTER", "UNDO", "PRESET"}
    x_subdivisions: shape_property("x_subdivisions")  # type: ignore[valid-type]
    y_subdivisions: shape_property("y_subdivisions")  # type: ignore[valid-type]
    size: shape_property("size")  # type: ignore[valid-type]
    height: shape_property("height")  # type: ignore[valid-type]
    offset: shape_property("offset")  # type: ignore[valid-type]
    falloff: shape_property("falloff")  # type: ignore[valid-type]
    falloff_width: shape_property("falloff_width")  # type: ignore[valid-type]
    noise: PointerProperty(type=NoiseSettings, options={"SKIP_SAVE"})  # type: ignore[valid-type]

    @classmethod
    def poll(cls, context):
        if context.mode != "OBJECT":
            cls.poll_message_set("Add Noise Terrain works in Object Mode")
            return False
        return True

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        draw_shape(cast(bpy.types.UILayout, layout), self)
        for name in ("align", "location", "rotation"):
            layout.prop(self, name)
        draw_noise_settings(layout.box(), self.noise)

    def execute(self, context):
        try:
            settings = operator_settings(self, context)
            api.add_terrain(
                context,
                to_spec(settings),
                to_domain(settings),
                x_subdivisions=self.x_subdivisions,
                y_subdivisions=self.y_subdivisions,
                size=self.size,
                height=self.height,
                offset=tuple(self.offset),
                falloff=self.falloff,
                falloff_width=self.falloff_width,
                operator=self,
                warn=lambda message: self.report({"WARNING"}, message),
            )
        except UserError as error:
            self.report({"ERROR"}, str(error))
            return {"CANCELLED"}
        return {"FINISHED"}


def draw_shape(layout: bpy.types.UILayout, owner) -> None:
    """The grid fields of the operator or of a terrain's settings (falloff width only with a falloff)."""
    for name in SHAPE_FIELDS:
        if name != "falloff_width" or owner.falloff != "NONE":
            layout.prop(owner, name)


class NOISEWRIGHT_OT_regenerate_terrain(bpy.types.Operator):
    """Rebuild the active Noise Terrain from its settings, keeping the object, its modifiers and materials"""

    bl_idname = "noisewright.regenerate_terrain"
    bl_label = "Regenerate Terrain"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        if context.mode != "OBJECT":
            cls.poll_message_set("Regenerate works in Object Mode")
            return False
        if not api.is_terrain(context.active_object):
            cls.poll_message_set("The active object is not a Noise Terrain")
            return False
        return True

    def execute(self, context):
        try:
            check_finite(context.active_object.noisewright_terrain)
            api.regenerate_terrain(context, context.active_object)
        except UserError as error:
            self.report({"ERROR"}, str(error))
            return {"CANCELLED"}
        return {"FINISHED"}


def menu_entry(menu, _context) -> None:
    menu.layout.operator(NOISEWRIGHT_OT_add_terrain.bl_idname, text="Noise Terrain", icon="RNDCURVE")


CLASSES = (NOISEWRIGHT_OT_add_terrain, NOISEWRIGHT_OT_regenerate_terrain)
