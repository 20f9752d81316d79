"""``noisewright.erode`` and ``noisewright.erode_image``: hydraulic and thermal erosion, over ``api.erode`` and
``api.erode_image``.

*Erode* works on the active mesh when it is a regular grid (a Noise Terrain, Add > Mesh > Grid); the masks go to
its ``erosion``/``deposition`` attributes. *Erode Image* works on the Image Editor's image (a baked height
map), with the masks as two new float images. A run starts from the scene's erosion settings
(``scene.noisewright_erosion``, hydraulic and thermal; hydraulic erosion when neither is on); every option is
in Adjust Last Operation.
"""

from __future__ import annotations

from typing import cast

import bpy
from bpy.props import FloatProperty, PointerProperty

from . import api
from .errors import UserError
from .mapping import check_finite
from .noise_core.erosion import HYDRAULIC_OPTIONS, THERMAL_OPTIONS
from .properties import ErosionSettings, erosion_options


def draw_erosion(layout: bpy.types.UILayout, settings: ErosionSettings) -> None:
    """The hydraulic and thermal switches, each with its options when on."""
    layout.use_property_split = True
    layout.use_property_decorate = False
    for switch, options in (("hydraulic", HYDRAULIC_OPTIONS), ("thermal", THERMAL_OPTIONS)):
        layout.prop(settings, switch)
        if getattr(settings, switch):
            column = layout.column(align=True)
            for option in options:
                column.prop(settings, option.name)


def _settings(operator, context) -> ErosionSettings:
    """The operator's erosion settings: a first run without explicit ones starts from the scene's
    (``scene.noisewright_erosion``: hydraulic and thermal options), hydraulic when the scene's turn neither on."""
    if not operator.properties.is_property_set("erosion"):
        scene = context.scene.noisewright_erosion
        for name in scene.bl_rna.properties.keys():  # noqa: SIM118 (bl_rna collections are not dicts)
            if name not in ("rna_type", "name"):
                setattr(operator.erosion, name, getattr(scene, name))
        operator.erosion.hydraulic = scene.hydraulic or not scene.thermal
    check_finite(operator)
    return operator.erosion


class NOISEWRIGHT_OT_erode(bpy.types.Operator):
    """Erode the active grid mesh (a Noise Terrain or any regular grid): droplets carve channels, slopes settle"""

    bl_idname = "noisewright.erode"
    bl_label = "Erode Terrain"
    bl_options = {"REGISTER", "UNDO", "PRESET"}
    erosion: PointerProperty(type=ErosionSettings, options={"SKIP_SAVE"})  # type: ignore[valid-type]

    @classmethod
    def poll(cls, context):
        obj = context.active_object
        if context.mode != "OBJECT" or obj is None or obj.type != "MESH":
            cls.poll_message_set("Select a grid mesh in Object Mode")
            return False
        return True

    def draw(self, _context):
        draw_erosion(cast(bpy.types.UILayout, self.layout), self.erosion)

    def execute(self, context):
        try:
            settings = _settings(self, context)
            api.erode(context, context.active_object, *erosion_options(settings))
        except UserError as error:
            self.report({"ERROR"}, str(error))
            return {"CANCELLED"}
        return {"FINISHED"}


class NOISEWRIGHT_OT_erode_image(bpy.types.Operator):
    """Erode the image as a height map (red channel); the erosion and deposition masks become new images"""

    bl_idname = "noisewright.erode_image"
    bl_label = "Erode Height Image"
    bl_options = {"REGISTER", "UNDO", "PRESET"}
    relief: FloatProperty(  # type: ignore[valid-type]
        name="Relief",
        description="Pixels a height of 1 spans: how steep the image's terrain is",
        default=64.0,
        min=1e-3,
        soft_min=1.0,
        soft_max=1024.0,
    )
    erosion: PointerProperty(type=ErosionSettings, options={"SKIP_SAVE"})  # type: ignore[valid-type]

    @classmethod
    def poll(cls, context):
        space = context.space_data
        if getattr(space, "image", None) is None:
            cls.poll_message_set("Open an image in the Image Editor")
            return False
        return True

    def draw(self, _context):
        self.layout.prop(self, "relief")
        draw_erosion(cast(bpy.types.UILayout, self.layout), self.erosion)

    def execute(self, context):
        try:
            settings = _settings(self, context)
            image = context.space_data.image
            api.erode_image(context, image, *erosion_options(settings), relief=self.relief)
        except UserError as error:
            self.report({"ERROR"}, str(error))
            return {"CANCELLED"}
        return {"FINISHED"}


CLASSES = (NOISEWRIGHT_OT_erode, NOISEWRIGHT_OT_erode_image)
