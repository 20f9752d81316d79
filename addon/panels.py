"""The "Noise" sidebar tabs (3D Viewport: settings, Displace, Add Terrain; Image Editor: settings, Bake)."""

from __future__ import annotations

import bpy

from . import preview
from .errors import UserError
from .mapping import to_domain, to_spec
from .op_bake import NOISEWRIGHT_OT_bake_texture, bake_domain
from .op_displace import NOISEWRIGHT_OT_displace
from .op_terrain import NOISEWRIGHT_OT_add_terrain
from .ui import draw_noise_settings

CATEGORY = "Noise"
PREVIEW_SCALE = 6.0


def draw_preview(layout: bpy.types.UILayout, context: bpy.types.Context, baking: bool = False) -> None:
    """The live preview of the scene's settings (or why there is none); ``baking``: of the noise a bake
    with default options writes (2D on the plane)."""
    settings = context.scene.noisewright
    try:
        spec, domain = to_spec(settings), (bake_domain(settings) if baking else to_domain(settings))
    except UserError:
        return  # draw_noise_settings shows the message
    icon, error = preview.icon_for(spec, domain)
    if preview.status():
        layout.label(text=preview.status(), icon="TIME")
    if error:
        layout.label(text=error, icon="ERROR")
    elif icon:
        layout.template_icon(icon_value=icon, scale=PREVIEW_SCALE)
    elif not preview.status():
        layout.label(text="Computing preview...", icon="TIME")


class _NoiseSettingsPanel:
    bl_category = CATEGORY
    bl_label = "Noise Settings"
    previews_bake = False

    def draw(self, context):
        draw_preview(self.layout, context, self.previews_bake)  # type: ignore[attr-defined]
        draw_noise_settings(self.layout, context.scene.noisewright)  # type: ignore[attr-defined]


class VIEW3D_PT_noisewright_settings(_NoiseSettingsPanel, bpy.types.Panel):
    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"


class IMAGE_PT_noisewright_settings(_NoiseSettingsPanel, bpy.types.Panel):
    bl_space_type = "IMAGE_EDITOR"
    bl_region_type = "UI"
    previews_bake = True


class VIEW3D_PT_noisewright_apply(bpy.types.Panel):
    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = CATEGORY
    bl_label = "Apply Noise"

    def draw(self, context):
        column = self.layout.column(align=True)
        column.operator(NOISEWRIGHT_OT_displace.bl_idname, icon="MOD_DISPLACE")
        column.operator(NOISEWRIGHT_OT_add_terrain.bl_idname, text="Add Noise Terrain", icon="RNDCURVE")
        self.layout.label(text="Tune a run in Adjust Last Operation", icon="INFO")


class IMAGE_PT_noisewright_bake(bpy.types.Panel):
    bl_space_type = "IMAGE_EDITOR"
    bl_region_type = "UI"
    bl_category = CATEGORY
    bl_label = "Bake"

    def draw(self, context):
        self.layout.operator(NOISEWRIGHT_OT_bake_texture.bl_idname, icon="TEXTURE")
        self.layout.label(text="Size, colours, saving: Adjust Last Operation", icon="INFO")


CLASSES = (
    VIEW3D_PT_noisewright_settings,
    VIEW3D_PT_noisewright_apply,
    IMAGE_PT_noisewright_settings,
    IMAGE_PT_noisewright_bake,
)
