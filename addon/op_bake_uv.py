"""``noisewright.bake_uv``: Object > Bake Noise to UVs, over ``api.bake_uv``.

3D noise at the active mesh's surface (modifiers applied), through its UV map, into a new image: seams
match because both sides sample the same 3D points; UDIM layouts become a tiled image saved as
``name.1001.png``, ``name.1002.png``, ...
"""

from __future__ import annotations

import bpy
from bpy.props import EnumProperty, IntProperty, PointerProperty, StringProperty

from . import api
from .errors import UserError
from .mapping import to_domain, to_spec
from .op_bake import PATH_OPTIONS, SAVE_ITEMS
from .properties import NoiseSettings, operator_settings
from .ui import draw_noise_settings


class NOISEWRIGHT_OT_bake_uv(bpy.types.Operator):
    """Bake 3D noise at the active mesh's surface into an image through its UV map (UDIM tiles too)"""

    bl_idname = "noisewright.bake_uv"
    bl_label = "Bake Noise to UVs"
    bl_options = {"REGISTER", "UNDO", "PRESET"}

    image_name: StringProperty(  # type: ignore[valid-type]
        name="Image", description="Name of the new image", default="Noise UV"
    )
    uv_map: StringProperty(  # type: ignore[valid-type]
        name="UV Map", description="UV map to bake through (empty: the active one)", default=""
    )
    space: EnumProperty(  # type: ignore[valid-type]
        name="Space",
        description="Which coordinates the noise reads",
        items=[
            ("OBJECT", "Object", "The mesh's own coordinates: the texture moves with the object"),
            ("WORLD", "World", "World coordinates: objects side by side share one continuous noise"),
        ],
        default="OBJECT",
    )
    width: IntProperty(  # type: ignore[valid-type]
        name="Width", description="Width of each tile in pixels", default=1024, min=1, max=16384, soft_max=8192
    )
    height: IntProperty(  # type: ignore[valid-type]
        name="Height", description="Height of each tile in pixels", default=1024, min=1, max=16384, soft_max=8192
    )
    margin: IntProperty(  # type: ignore[valid-type]
        name="Margin", description="Pixels baked past the UV islands' borders", default=16, min=0, max=256
    )
    save_format: EnumProperty(  # type: ignore[valid-type]
        name="Save",
        description="Also write the image to File Path (UDIM tiles: name.1001.png, name.1002.png, ...; needed then)",
        items=SAVE_ITEMS,
        default="NONE",
    )
    filepath: StringProperty(  # type: ignore[valid-type]
        name="File Path",
        description="Where to save; for UDIM tiles the tile number is added before the extension",
        default="",
        subtype="FILE_PATH",
        options=PATH_OPTIONS,
    )
    noise: PointerProperty(type=NoiseSettings, options={"SKIP_SAVE"})  # type: ignore[valid-type]

    @classmethod
    def poll(cls, context):
        obj = context.active_object
        if obj is None or obj.type != "MESH":
            cls.poll_message_set("Select a mesh object")
            return False
        return True

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        layout.prop(self, "image_name")
        obj = context.active_object
        if obj is not None and obj.type == "MESH":
            layout.prop_search(self, "uv_map", obj.data, "uv_layers")
        layout.prop(self, "space")
        layout.prop(self, "width")
        layout.prop(self, "height")
        layout.prop(self, "margin")
        layout.prop(self, "save_format")
        if self.save_format != "NONE":
            layout.prop(self, "filepath")
        draw_noise_settings(layout.box(), self.noise)

    def execute(self, context):
        try:
            settings = operator_settings(self, context)
            image = api.bake_uv(
                context,
                context.active_object,
                to_spec(settings),
                to_domain(settings, dimensions=3),
                uv_map=self.uv_map,
                space=self.space,
                width=self.width,
                height=self.height,
                margin=self.margin,
                image=self.image_name,
                save_format=self.save_format,
                filepath=self.filepath,
                warn=lambda message: self.report({"WARNING"}, message),
            )
        except UserError as error:
            self.report({"ERROR"}, str(error))
            return {"CANCELLED"}
        tiles = len(image.tiles) if image.source == "TILED" else 1
        self.report({"INFO"}, f"Baked {image.name!r}" + (f" ({tiles} UDIM tiles)" if tiles > 1 else ""))
        return {"FINISHED"}


def menu_entry(menu, _context) -> None:
    menu.layout.operator(NOISEWRIGHT_OT_bake_uv.bl_idname, icon="UV")


CLASSES = (NOISEWRIGHT_OT_bake_uv,)
