"""Noisewright: displace meshes, add noise terrains and bake noise textures (Blender extension).

The noise comes from ``noise_core`` (numpy + Numba, no bpy), shipped as a subpackage beside these
modules. ``register`` only defines classes, properties, menu entries and the preview collection: no
kernel is compiled and no noise computed until an operator runs or a panel shows the preview; first,
Numba's on-disk cache is pointed at the extension's user folder (``preferences.use_user_cache``). Importing
``noise_core`` checks the numba found in Blender's shared site-packages (``NumbaVersionError`` naming the
installed version if it is older than noise_core needs), so enabling the add-on fails with that message.
"""

import bpy

from . import api as api  # the Python API (a facade over the feature modules), an attribute of the package
from . import (
    assets,
    bake,
    bake_uv,
    displace,
    erode,
    erode_fluvial,
    heightmap_export,
    heightmap_import,
    jobs,
    live,
    panels,
    preferences,
    preview,
    properties,
    terrain,
    terrain_layers,
    terrain_maps,
    terrain_material,
    terrain_presets,
    terrain_settings,
    terrain_water,
)

CLASSES = (
    properties.CLASSES
    + erode_fluvial.CLASSES  # its FluvialSettings before TerrainSettings
    + terrain_settings.CLASSES
    + terrain.CLASSES
    + displace.CLASSES
    + erode.CLASSES
    + terrain_maps.CLASSES
    + terrain_layers.CLASSES
    + terrain_material.CLASSES
    + assets.CLASSES
    + terrain_water.CLASSES
    + jobs.CLASSES
    + live.CLASSES
    + terrain_presets.CLASSES
    + bake.CLASSES
    + bake_uv.CLASSES
    + panels.CLASSES
    + preferences.CLASSES
    + heightmap_export.CLASSES
    + heightmap_import.CLASSES
)
MENU_ENTRIES = (
    (bpy.types.VIEW3D_MT_mesh_add, terrain.menu_entry),
    (bpy.types.IMAGE_MT_image, bake.menu_entry),
    (bpy.types.IMAGE_MT_image, bake_uv.menu_entry),
    (bpy.types.VIEW3D_MT_object, bake_uv.menu_entry),
    (bpy.types.TOPBAR_MT_file_export, heightmap_export.export_menu_entry),
    (bpy.types.TOPBAR_MT_file_import, heightmap_import.import_menu_entry),
    (bpy.types.VIEW3D_MT_object, terrain_maps.menu_entry),
    (bpy.types.VIEW3D_MT_object, terrain_layers.menu_entry),
    (bpy.types.IMAGE_MT_image, terrain_maps.image_menu_entry),
    (bpy.types.VIEW3D_MT_object, terrain_material.menu_entry),
    (bpy.types.VIEW3D_MT_object, assets.menu_entry),
    (bpy.types.VIEW3D_MT_object, terrain_water.menu_entry),
)


def register() -> None:
    preferences.use_user_cache()
    live.attach_callbacks()
    for cls in CLASSES:
        bpy.utils.register_class(cls)
    properties.attach()
    terrain_settings.attach()
    preview.attach()
    for menu, entry in MENU_ENTRIES:
        menu.append(entry)
    assets.register_library()


def unregister() -> None:
    preferences.cancel_job()
    assets.unregister_library()
    live.detach()  # the full rebuilds Auto Refresh runs as jobs cancelled
    for menu, entry in reversed(MENU_ENTRIES):
        menu.remove(entry)
    preview.detach()
    terrain_settings.detach()
    properties.detach()
    for cls in reversed(CLASSES):
        bpy.utils.unregister_class(cls)
