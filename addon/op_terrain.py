"""``noisewright.add_terrain``: Add > Mesh > Noise Terrain, over ``api.add_terrain``.

A grid mesh raised along Z by noise, placed like Blender's own Add > Mesh objects (``AddObjectHelper``:
Align, Location and Rotation in the redo panel, the 3D cursor's rotation with Align = 3D Cursor, the
"Enter Edit Mode" preference). See ``api.add_terrain`` for the geometry.
"""

from __future__ import annotations

import bpy
from bpy.props import EnumProperty, FloatProperty, FloatVectorProperty, IntProperty, PointerProperty
from bpy_extras.object_utils import AddObjectHelper

from . import api
from .errors import UserError
from .mapping import to_domain, to_spec
from .properties import NoiseSettings, operator_settings
from .ui import draw_noise_settings


class NOISEWRIGHT_OT_add_terrain(bpy.types.Operator, AddObjectHelper):
    """Add a grid mesh raised by noise (a terrain)"""

    bl_idname = "noisewright.add_terrain"
    bl_label = "Noise Terrain"
    bl_options = {"REGISTER", "UNDO"}
    x_subdivisions: IntProperty(  # type: ignore[valid-type]
        name="X Subdivisions", description="Faces along X", default=128, min=1, max=api.MAX_SUBDIVISIONS, soft_max=2048
    )
    y_subdivisions: IntProperty(  # type: ignore[valid-type]
        name="Y Subdivisions", description="Faces along Y", default=128, min=1, max=api.MAX_SUBDIVISIONS, soft_max=2048
    )
    size: FloatProperty(  # type: ignore[valid-type]
        name="Size", description="Width and depth of the grid", default=2.0, min=1e-4, soft_max=1000.0, unit="LENGTH"
    )
    height: FloatProperty(  # type: ignore[valid-type]
        name="Height",
        description="Height of noise value 1",
        default=0.5,
        soft_min=-100.0,
        soft_max=100.0,
        unit="LENGTH",
    )
    offset: FloatVectorProperty(  # type: ignore[valid-type]
        name="Offset",
        description="Where the grid sits in the noise (move by Size for the neighbouring tile)",
        size=2,
        subtype="XYZ",
        unit="LENGTH",
    )
    falloff: EnumProperty(  # type: ignore[valid-type]
        name="Edge Falloff",
        description="Bring the terrain down to 0 towards its edges",
        items=[
            ("NONE", "None", "No falloff"),
            ("X", "X", "Towards the edges along X"),
            ("Y", "Y", "Towards the edges along Y"),
            ("RADIAL", "Radial", "Towards a circle touching the edges"),
        ],
        default="NONE",
    )
    falloff_width: FloatProperty(  # type: ignore[valid-type]
        name="Falloff Width",
        description="Fraction of the half-size over which the falloff eases in",
        default=0.3,
        min=0.0,
        max=1.0,
        subtype="FACTOR",
    )
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
        for name in ("x_subdivisions", "y_subdivisions", "size", "height", "offset", "falloff"):
            layout.prop(self, name)
        if self.falloff != "NONE":
            layout.prop(self, "falloff_width")
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


def menu_entry(menu, _context) -> None:
    menu.layout.operator(NOISEWRIGHT_OT_add_terrain.bl_idname, text="Noise Terrain", icon="RNDCURVE")


CLASSES = (NOISEWRIGHT_OT_add_terrain,)
