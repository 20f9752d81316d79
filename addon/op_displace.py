"""``noisewright.displace``: move the vertices of the selected meshes by noise.

Each vertex moves by ``(noise01 - midlevel) * strength * weight`` along the chosen direction, as
Blender's Displace modifier (``noise01``: see ``mapping``). ``weight`` is the vertex-group weight (or
1 - weight when inverted), times the selection in Edit Mode. With World coordinates the noise is read
at world positions and strength and direction are in world space; with Local, in the object's space.
Everything is computed and checked before any mesh changes: NaN or infinite positions (noise settings
that give them, or a strength that overflows) cancel the run. Edit Mode, left for Object Mode while the
meshes are read and written, is restored however the run ends.
"""

from __future__ import annotations

import bpy
from bpy.props import (
    BoolProperty,
    EnumProperty,
    FloatProperty,
    FloatVectorProperty,
    IntProperty,
    PointerProperty,
    StringProperty,
)

from . import api
from .errors import UserError
from .mapping import to_domain, to_spec
from .noise_core.loops import MAX_FRAMES
from .properties import NoiseSettings, loop_radius_property, operator_settings
from .ui import draw_noise_settings


def _targets(context: bpy.types.Context, edit_mode: bool) -> list[bpy.types.Object]:
    """The selected mesh objects (the objects in Edit Mode when editing); ``UserError`` when there are none."""
    objects = context.objects_in_mode if edit_mode else context.selected_objects
    meshes = [obj for obj in objects if obj.type == "MESH"]
    if not meshes:
        raise UserError("Select at least one mesh object to displace")
    return meshes


class NOISEWRIGHT_OT_displace(bpy.types.Operator):
    """Displace the vertices of the selected meshes (selected vertices in Edit Mode) by noise"""

    bl_idname = "noisewright.displace"
    bl_label = "Displace with Noise"
    bl_options = {"REGISTER", "UNDO", "PRESET"}

    direction: EnumProperty(  # type: ignore[valid-type]
        name="Direction",
        description="Direction vertices move in",
        items=[
            ("NORMAL", "Normal", "Along the vertex normal"),
            ("X", "X", "Along the X axis"),
            ("Y", "Y", "Along the Y axis"),
            ("Z", "Z", "Along the Z axis"),
            ("CUSTOM", "Custom", "Along the custom axis"),
        ],
        default="NORMAL",
    )
    custom_axis: FloatVectorProperty(  # type: ignore[valid-type]
        name="Axis", description="Custom direction (normalised)", size=3, default=(0.0, 0.0, 1.0), subtype="XYZ"
    )
    strength: FloatProperty(  # type: ignore[valid-type]
        name="Strength",
        description="Displacement where noise01 - midlevel = 1",
        default=0.2,
        soft_min=-10.0,
        soft_max=10.0,
    )
    midlevel: FloatProperty(  # type: ignore[valid-type]
        name="Midlevel",
        description="Noise value (0..1) that leaves vertices in place",
        default=0.5,
        soft_min=0.0,
        soft_max=1.0,
    )
    space: EnumProperty(  # type: ignore[valid-type]
        name="Coordinates",
        description="Space the noise is read in; direction and strength use the same space",
        items=[("LOCAL", "Local", "Object space"), ("WORLD", "World", "World space")],
        default="LOCAL",
    )
    vertex_group: StringProperty(  # type: ignore[valid-type]
        name="Vertex Group", description="Scale the displacement by this group's weights (blank: all 1)", default=""
    )
    invert_vertex_group: BoolProperty(  # type: ignore[valid-type]
        name="Invert", description="Use 1 - weight", default=False
    )
    use_shape_key: BoolProperty(  # type: ignore[valid-type]
        name="New Shape Key",
        description="Write the result into a new shape key instead of the base mesh (non-destructive)",
        default=False,
    )
    shape_key_name: StringProperty(  # type: ignore[valid-type]
        name="Shape Key", description="Name of the new shape key", default="Noise"
    )
    animate: EnumProperty(  # type: ignore[valid-type]
        name="Animate",
        description="Key the noise over frames, one shape key per frame (the base mesh is left as it is)",
        items=[
            ("NONE", "Still", "Displace once"),
            ("LOOP", "Seamless Loop", "Move around a circle in two extra noise dimensions: frame N+1 is frame 1 "
             "again, repeated for ever (2D noise loops through 4D noise)"),
            ("W", "Move W", "Move the W of 4D noise by W Step per frame (evolves without repeating)"),
        ],
        default="NONE",
    )  # fmt: skip
    frames: IntProperty(  # type: ignore[valid-type]
        name="Frames", description="How many frames (shape keys) to key", default=24, min=1, max=MAX_FRAMES,
        soft_max=240,
    )  # fmt: skip
    frame_start: IntProperty(  # type: ignore[valid-type]
        name="Start Frame", description="The frame of the first shape key", default=1
    )
    loop_radius: loop_radius_property()  # type: ignore[valid-type]
    w_step: FloatProperty(  # type: ignore[valid-type]
        name="W Step", description="How far W moves per frame", default=0.05, soft_min=-1.0, soft_max=1.0
    )
    noise: PointerProperty(type=NoiseSettings, options={"SKIP_SAVE"})  # type: ignore[valid-type]

    def invoke(self, context, event):
        self.frame_start = context.scene.frame_start
        return self.execute(context)

    @classmethod
    def poll(cls, context):
        return context.mode in ("OBJECT", "EDIT_MESH")

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        for name in ("direction", "custom_axis", "strength", "midlevel", "space"):
            if name != "custom_axis" or self.direction == "CUSTOM":
                layout.prop(self, name)
        obj = context.active_object
        row = layout.row(align=True)
        if obj is not None:
            row.prop_search(self, "vertex_group", obj, "vertex_groups")
        else:
            row.prop(self, "vertex_group")
        row.prop(self, "invert_vertex_group", text="", icon="ARROW_LEFTRIGHT")
        layout.prop(self, "animate")
        if self.animate != "NONE":
            layout.prop(self, "frames")
            layout.prop(self, "frame_start")
            layout.prop(self, "loop_radius" if self.animate == "LOOP" else "w_step")
            layout.prop(self, "shape_key_name", text="Shape Keys")
        else:
            layout.prop(self, "use_shape_key")
            if self.use_shape_key:
                layout.prop(self, "shape_key_name")
        draw_noise_settings(layout.box(), self.noise)

    def execute(self, context):
        try:
            settings = operator_settings(self, context)
            moved, meshes = api.displace(
                context,
                _targets(context, context.mode == "EDIT_MESH"),
                to_spec(settings),
                to_domain(settings),
                direction=self.direction,
                custom_axis=tuple(self.custom_axis),
                strength=self.strength,
                midlevel=self.midlevel,
                space=self.space,
                vertex_group=self.vertex_group,
                invert_vertex_group=self.invert_vertex_group,
                shape_key=self.shape_key_name if self.use_shape_key or self.animate != "NONE" else None,
                animate=self.animate,
                frames=self.frames,
                frame_start=self.frame_start,
                loop_radius=self.loop_radius,
                w_step=self.w_step,
            )
        except UserError as error:
            self.report({"ERROR"}, str(error))
            return {"CANCELLED"}
        if self.animate != "NONE":
            self.report({"INFO"}, f"Keyed {self.frames} frames of {moved} vertices in {meshes} mesh(es) as shape keys")
            return {"FINISHED"}
        self.report({"INFO"}, f"Displaced {moved} vertices in {meshes} mesh(es)")
        return {"FINISHED"}


CLASSES = (NOISEWRIGHT_OT_displace,)
