"""The extension's asset library (``addon/assets``, built by ``scripts/build_assets.py``): registered while the
add-on is enabled, its node groups and preset terrains marked as assets in their catalogs with previews, the groups
appended and scattering on a preset terrain."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from .test_scatter import _faces, _instances, _under

pytestmark = pytest.mark.blender

GROUPS = ("Noisewright Scatter Rocks", "Noisewright Scatter Trees", "Noisewright Scatter Grass")
PRESETS = ("Alpine Ridges", "Badlands", "Eroded Canyon", "River Valleys", "Rolling Hills", "Stylised Cratered Cells",
           "Stylised Dunes", "Stylised Islands", "Uplifted Range")  # fmt: skip


def _ours(bpy, addon) -> list:
    return [lib for lib in bpy.context.preferences.filepaths.asset_libraries if addon.assets._ours(lib)]


def test_the_library_ships_in_the_staged_extension_and_is_registered(bpy_empty, addon):
    bpy = bpy_empty
    folder = Path(addon.__file__).parent / "assets"  # the add-on as staged for the zip (build_extension)
    assert (folder / "noisewright.blend").is_file() and folder / "noisewright.blend" == addon.assets.BLEND
    libraries = _ours(bpy, addon)
    assert len(libraries) == 1 and libraries[0].name == "Noisewright"
    assert libraries[0].import_method in ("APPEND_REUSE", "APPEND")
    addon.assets.register_library()  # once only
    assert len(_ours(bpy, addon)) == 1
    addon.assets.unregister_library()
    assert not _ours(bpy, addon)
    addon.assets.register_library()
    assert len(_ours(bpy, addon)) == 1
    catalogs = (folder / "blender_assets.cats.txt").read_text(encoding="utf-8").splitlines()
    for uuid, path in addon.assets.CATALOGS.values():
        assert f"{uuid}:{path}:{path.replace('/', '-')}" in catalogs


def test_the_library_holds_the_groups_and_presets_as_assets(bpy_empty, addon):
    bpy = bpy_empty
    with bpy.data.libraries.load(str(addon.assets.BLEND), assets_only=True) as (source, _target):
        assert sorted(source.node_groups) == sorted(GROUPS)
        assert sorted(source.objects) == sorted(PRESETS)
    with bpy.data.libraries.load(str(addon.assets.BLEND), link=False) as (_source, target):
        target.node_groups = list(GROUPS)
        target.objects = list(PRESETS)
    scatter_catalog, preset_catalog = (addon.assets.CATALOGS[key][0] for key in ("scatter", "presets"))
    for datablock, catalog in [(g, scatter_catalog) for g in target.node_groups] + [
        (o, preset_catalog) for o in target.objects
    ]:
        assert datablock.asset_data is not None and datablock.asset_data.catalog_id == catalog, datablock.name
        assert tuple(datablock.preview.image_size) == (128, 128), datablock.name
        pixels = np.array(datablock.preview.image_pixels_float[:]).reshape(-1, 4)
        assert pixels[:, :3].std() > 0.02, datablock.name  # a picture, not a blank
    for group in target.node_groups:
        assert group.is_modifier
    for obj in target.objects:  # a small mesh, the preset's own settings
        settings = obj.noisewright_terrain
        assert settings.is_terrain and not settings.auto_refresh, obj.name
        assert len(obj.data.vertices) == 65 * 65 and settings.x_subdivisions >= 64, obj.name
    assert target.objects[PRESETS.index("Alpine Ridges")].noisewright_terrain.x_subdivisions == 647


def test_a_library_group_scatters_on_a_preset_terrain(bpy_empty, addon):
    bpy = bpy_empty
    with bpy.data.libraries.load(str(addon.assets.BLEND), link=False) as (_source, target):
        target.objects = ["Stylised Cratered Cells"]
    terrain = target.objects[0]
    bpy.context.scene.collection.objects.link(terrain)
    modifier = addon.assets.add_scatter(terrain, instances="TREES", density_scale=1.0)
    assert modifier.node_group.name == "Noisewright Scatter Trees"
    assert modifier.node_group.asset_data is not None  # appended from the library, not made anew
    points = _instances(bpy, terrain)
    _corners, normals, centres = _faces(terrain)
    steep = normals[:, 2] < math.cos(math.radians(addon.scatter.KINDS["trees"].max_slope))
    assert steep.mean() > 0.2 and len(points) > 100
    assert not steep[_under(points, centres)].any()
