"""The "Noise" sidebar tabs (3D Viewport: settings, Displace, Add Terrain; Image Editor: settings, Bake)."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import bpy

from . import preview
from .bake import NOISEWRIGHT_OT_bake_texture, bake_domain
from .bake_uv import NOISEWRIGHT_OT_bake_uv
from .displace import NOISEWRIGHT_OT_displace
from .erode import NOISEWRIGHT_OT_erode, NOISEWRIGHT_OT_erode_image, draw_erosion
from .erode_fluvial import NOISEWRIGHT_OT_erode_fluvial, NOISEWRIGHT_OT_erode_fluvial_image, draw_fluvial
from .errors import UserError
from .jobs import draw_cancel, running_keys
from .live import previewing
from .mapping import to_domain, to_spec
from .terrain import NOISEWRIGHT_OT_add_terrain, NOISEWRIGHT_OT_regenerate_terrain
from .terrain_presets import (
    NOISEWRIGHT_MT_terrain_presets,
    NOISEWRIGHT_OT_load_terrain_recipe,
    NOISEWRIGHT_OT_save_terrain_recipe,
    NOISEWRIGHT_OT_terrain_preset_add,
)
from .terrain_settings import draw_shape, is_terrain
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


if TYPE_CHECKING:  # the mixins below are panels to a type checker (Blender wants mixins plain classes)
    _Panel = bpy.types.Panel
else:
    _Panel = object


class _SidebarPanel(_Panel):
    """Mixin of the panels: the Noise tab of the sidebar."""

    bl_region_type = "UI"
    bl_category = CATEGORY


class _NoiseSettingsPanel(_SidebarPanel):
    bl_label = "Noise Settings"
    previews_bake = False

    def draw(self, context):
        layout = cast(bpy.types.UILayout, self.layout)
        draw_preview(layout, context, self.previews_bake)
        draw_noise_settings(layout, context.scene.noisewright)


class VIEW3D_PT_noisewright_settings(_NoiseSettingsPanel, bpy.types.Panel):
    bl_space_type = "VIEW_3D"


class IMAGE_PT_noisewright_settings(_NoiseSettingsPanel, bpy.types.Panel):
    bl_space_type = "IMAGE_EDITOR"
    previews_bake = True


class VIEW3D_PT_noisewright_apply(_SidebarPanel, bpy.types.Panel):
    bl_space_type = "VIEW_3D"
    bl_label = "Apply Noise"

    def draw(self, context):
        column = self.layout.column(align=True)
        column.operator(NOISEWRIGHT_OT_displace.bl_idname, icon="MOD_DISPLACE")
        column.operator(NOISEWRIGHT_OT_add_terrain.bl_idname, text="Add Noise Terrain", icon="RNDCURVE")
        column.operator(NOISEWRIGHT_OT_erode.bl_idname, icon="MOD_FLUIDSIM")
        column.operator(NOISEWRIGHT_OT_erode_fluvial.bl_idname, icon="MOD_OCEAN")
        column.operator(NOISEWRIGHT_OT_bake_uv.bl_idname, icon="UV")
        draw_erosion(self.layout.box(), context.scene.noisewright_erosion)  # what Erode starts from
        self.layout.label(text="Tune a run in Adjust Last Operation", icon="INFO")


class VIEW3D_PT_noisewright_terrain(_SidebarPanel, bpy.types.Panel):
    """The active Noise Terrain's own settings, its presets and Regenerate."""

    bl_space_type = "VIEW_3D"
    bl_label = "Noise Terrain"

    @classmethod
    def poll(cls, context):
        return is_terrain(context.active_object)

    def draw(self, context):
        settings = context.active_object.noisewright_terrain
        row = self.layout.row(align=True)
        row.menu(NOISEWRIGHT_MT_terrain_presets.__name__, text=NOISEWRIGHT_MT_terrain_presets.bl_label)
        row.operator(NOISEWRIGHT_OT_terrain_preset_add.bl_idname, text="", icon="ADD")
        remove = row.operator(NOISEWRIGHT_OT_terrain_preset_add.bl_idname, text="", icon="REMOVE")
        remove.remove_active = True
        row = self.layout.row(align=True)
        row.operator(NOISEWRIGHT_OT_load_terrain_recipe.bl_idname, text="Load Recipe", icon="IMPORT")
        row.operator(NOISEWRIGHT_OT_save_terrain_recipe.bl_idname, text="Save Recipe", icon="EXPORT")
        if settings.unreplayable:
            self.layout.label(text=f"Changed by {settings.unreplayable}: not in its recipe", icon="ERROR")
        elif settings.applied_stages not in ("", "[]"):
            self.layout.label(text="Erosion applied by operators is kept in its recipe", icon="INFO")
        row = self.layout.row(align=True)
        row.operator(NOISEWRIGHT_OT_regenerate_terrain.bl_idname, icon="FILE_REFRESH")
        row.prop(settings, "auto_refresh", text="", icon="AUTO", toggle=True)
        draw_cancel(cast(bpy.types.UILayout, self.layout), [context.active_object.name])
        if said := previewing(context.active_object.name):  # a reduced preview while settings change
            self.layout.label(text=said, icon="TIME")
        column = self.layout.column()
        column.use_property_split = True
        column.use_property_decorate = False
        draw_shape(column, settings)
        draw_noise_settings(self.layout.box(), settings.noise)
        draw_fluvial(self.layout.box(), settings.fluvial)  # the erosion stages in the order they run
        draw_erosion(self.layout.box(), settings.erosion)


class IMAGE_PT_noisewright_bake(_SidebarPanel, bpy.types.Panel):
    bl_space_type = "IMAGE_EDITOR"
    bl_label = "Bake"

    def draw(self, context):
        self.layout.operator(NOISEWRIGHT_OT_bake_texture.bl_idname, icon="TEXTURE")
        self.layout.operator(NOISEWRIGHT_OT_bake_uv.bl_idname, icon="UV")
        self.layout.operator(NOISEWRIGHT_OT_erode_image.bl_idname, icon="MOD_FLUIDSIM")
        self.layout.operator(NOISEWRIGHT_OT_erode_fluvial_image.bl_idname, icon="MOD_OCEAN")
        obj = context.active_object  # a bake or erosion running: its Cancel button (Esc cancels too)
        keys = [*running_keys("image "), *([obj.name] if obj is not None else [])]
        draw_cancel(cast(bpy.types.UILayout, self.layout), keys)
        self.layout.label(text="Size, colours, saving: Adjust Last Operation", icon="INFO")


CLASSES = (
    VIEW3D_PT_noisewright_settings,
    VIEW3D_PT_noisewright_apply,
    VIEW3D_PT_noisewright_terrain,
    IMAGE_PT_noisewright_settings,
    IMAGE_PT_noisewright_bake,
)
