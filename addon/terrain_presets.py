"""Terrain presets and recipe files: the Noise Terrain panel's preset menu, its *+*/*-*, and Save/Load Recipe.

A preset is a terrain recipe file (``noise_core.terrain.recipe``: JSON, versioned, every value checked by its
option row), the same file ``python -m noise_core terrain --preset NAME`` and ``api.add_terrain(context,
preset=NAME)`` read. The menu lists the presets shipped with the library (``noise_core/terrain/presets``), then
the user's own (``<user scripts>/presets/noisewright/terrain``, where *+* saves the active terrain's recipe and
*-* removes the selected one); older user presets written by Blender (``.py`` assignment files) still apply.
Picking one sets the active terrain's settings to it (its ``export.samples`` as the subdivisions + 1) and
regenerates the terrain; if that fails, or a ``.py`` preset sets a value outside a setting's range (which
Blender would clamp: every ``terrain.<setting> = <literal>`` is compared with what the setting holds afterwards),
the settings are put back and the terrain is left as it was. *Save Terrain Recipe* and *Load Terrain Recipe*
write and read a recipe file anywhere.
"""

from __future__ import annotations

import ast
import traceback
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

import bpy
import numpy as np
from bpy.props import BoolProperty, StringProperty
from bpy_extras.io_utils import ExportHelper, ImportHelper

from . import terrain_water
from .errors import UserError
from .noise_core.terrain.recipe import PRESETS, Recipe, write_recipe
from .noise_core.terrain.water import WATER_OPTIONS
from .properties import check_finite
from .terrain import read_recipe_file, regenerate_terrain, show_whole
from .terrain_recipe import from_recipe, library_recipe, resolved
from .terrain_settings import held, is_terrain, recall, restore, snapshot, store

PRESET_SUBDIR = "noisewright/terrain"
SHIPPED = PRESETS
"""The presets that come with the extension: the library's recipe files (read-only: *-* removes only the
user's own)."""
SUFFIXES = (".json", ".py")
"""A recipe file, or an older Blender preset file."""


def preset_paths() -> list[str]:
    """Where the menu looks: the shipped presets, then the user's."""
    return [str(SHIPPED), *bpy.utils.preset_paths(PRESET_SUBDIR)]


class NOISEWRIGHT_MT_terrain_presets(bpy.types.Menu):
    """Terrain presets: pick one to set and regenerate the active Noise Terrain"""

    bl_label = "Terrain Presets"
    preset_subdir = PRESET_SUBDIR

    def draw(self, _context):
        self.path_menu(
            preset_paths(),
            NOISEWRIGHT_OT_apply_terrain_preset.bl_idname,
            props_default={"menu_idname": self.bl_idname},
            filter_ext=lambda ext: ext.lower() in SUFFIXES,
            display_name=lambda name: bpy.path.display_name(name, title_case=True),
        )


def user_folder(create: bool = False) -> Path:
    """The folder of the user's own presets (made when ``create``)."""
    return Path(bpy.utils.user_resource("SCRIPTS", path=f"presets/{PRESET_SUBDIR}", create=create))


def save_recipe(obj: bpy.types.Object, path: Path) -> Path:
    """Write the recipe of the Noise Terrain ``obj`` (``terrain_recipe.library_recipe``: its settings and the
    stages operators applied) to ``path``, whole or not at all; ``UserError`` naming the problem."""
    if not is_terrain(obj):
        raise UserError(f"object: {getattr(obj, 'name', obj)!r} is not a Noise Terrain")
    unreplayable = obj.noisewright_terrain.unreplayable  # type: ignore[attr-defined]
    if unreplayable:
        raise UserError(f"{obj.name!r}: was changed by {unreplayable}, which a recipe cannot hold; Regenerate it "
                        "first (that drops the change) to save its recipe")  # fmt: skip
    recipe = library_recipe(resolved(recall(obj)))  # a base file "//" relative to the .blend: its full path
    recorded = terrain_water.recorded_water(obj).settings  # Object > Terrain Water: part of the recipe
    if recorded:
        recipe = replace(recipe, water={option.name: recorded[option.name] for option in WATER_OPTIONS})
    try:
        return write_recipe(recipe, path)
    except OSError as error:
        raise UserError(f"filepath: cannot write {str(path)!r}: {error.strerror or error}") from None


class NOISEWRIGHT_OT_terrain_preset_add(bpy.types.Operator):
    """Save the active Noise Terrain's recipe as a preset, or remove the selected user preset"""

    bl_idname = "noisewright.terrain_preset_add"
    bl_label = "Add Terrain Preset"
    name: StringProperty(name="Name", description="Name of the preset", maxlen=64)  # type: ignore[valid-type]
    remove_active: BoolProperty(default=False, options={"HIDDEN", "SKIP_SAVE"})  # type: ignore[valid-type]

    @classmethod
    def poll(cls, context):
        return is_terrain(context.active_object)

    def invoke(self, context, _event):
        if self.remove_active:
            return self.execute(context)
        return context.window_manager.invoke_props_dialog(self)

    def execute(self, context):
        menu = getattr(bpy.types, NOISEWRIGHT_MT_terrain_presets.__name__)
        try:
            if self.remove_active:
                remove_user_preset(menu.bl_label)
            else:
                path = save_recipe(context.active_object, user_folder(create=True) / f"{_file_name(self.name)}.json")
                menu.bl_label = bpy.path.display_name(path.name, title_case=True)
        except UserError as error:
            self.report({"ERROR"}, str(error))
            return {"CANCELLED"}
        return {"FINISHED"}


def _file_name(name: str) -> str:
    """A preset's file name for ``name`` (as Blender's presets: spaces as underscores, no path characters)."""
    cleaned = bpy.path.clean_name(name.strip()) if name.strip() else ""
    if not cleaned:
        raise UserError("name: give the preset a name")
    return cleaned


def remove_user_preset(label: str) -> Path:
    """Remove the user's preset shown as ``label``; ``UserError`` when it is a shipped one or not found."""
    for path in sorted(user_folder().glob("*")):
        if path.suffix.lower() in SUFFIXES and bpy.path.display_name(path.name, title_case=True) == label:
            path.unlink()
            return path
    raise UserError(f"preset: {label!r} is not one of your presets (the shipped presets cannot be removed)")


class NOISEWRIGHT_OT_apply_terrain_preset(bpy.types.Operator):
    """Set the active Noise Terrain to this preset and regenerate it"""

    bl_idname = "noisewright.apply_terrain_preset"
    bl_label = "Apply Terrain Preset"
    bl_options = {"REGISTER", "UNDO"}
    filepath: StringProperty(subtype="FILE_PATH", options={"SKIP_SAVE"})  # type: ignore[valid-type]
    menu_idname: StringProperty(options={"SKIP_SAVE", "HIDDEN"})  # type: ignore[valid-type]

    @classmethod
    def poll(cls, context):
        if context.mode != "OBJECT" or not is_terrain(context.active_object):
            cls.poll_message_set("Select a Noise Terrain in Object Mode")
            return False
        return True

    def execute(self, context):
        obj = context.active_object
        try:
            apply_and_show(context, obj, Path(self.filepath))
        except UserError as error:
            self.report({"ERROR"}, str(error))
            return {"CANCELLED"}
        menu = getattr(bpy.types, self.menu_idname, None)
        if menu is not None:
            menu.bl_label = bpy.path.display_name(Path(self.filepath).name, title_case=True)
        return {"FINISHED"}


class NOISEWRIGHT_OT_save_terrain_recipe(bpy.types.Operator, ExportHelper):  # type: ignore[misc]
    """Save the active Noise Terrain's recipe (noise, grid, erosion stages) as a JSON file the command line,
    the Python API and the preset menu read"""

    bl_idname = "noisewright.save_terrain_recipe"
    bl_label = "Save Terrain Recipe"
    filename_ext = ".json"
    filepath: StringProperty(name="File Path", subtype="FILE_PATH", maxlen=1024)  # type: ignore[valid-type]
    filter_glob: StringProperty(default="*.json", options={"HIDDEN"})  # type: ignore[valid-type]

    @classmethod
    def poll(cls, context):
        return is_terrain(context.active_object)

    def execute(self, context):
        try:
            path = save_recipe(context.active_object, Path(bpy.path.abspath(self.filepath)))
        except UserError as error:
            self.report({"ERROR"}, str(error))
            return {"CANCELLED"}
        self.report({"INFO"}, f"Saved {path}")
        return {"FINISHED"}


class NOISEWRIGHT_OT_load_terrain_recipe(bpy.types.Operator, ImportHelper):  # type: ignore[misc]
    """Set the active Noise Terrain to a recipe file and regenerate it"""

    bl_idname = "noisewright.load_terrain_recipe"
    bl_label = "Load Terrain Recipe"
    bl_options = {"REGISTER", "UNDO"}
    filename_ext = ".json"
    filepath: StringProperty(name="File Path", subtype="FILE_PATH", maxlen=1024)  # type: ignore[valid-type]
    filter_glob: StringProperty(default="*.json", options={"HIDDEN"})  # type: ignore[valid-type]

    @classmethod
    def poll(cls, context):
        return context.mode == "OBJECT" and is_terrain(context.active_object)

    def execute(self, context):
        try:
            apply_and_show(context, context.active_object, Path(bpy.path.abspath(self.filepath)))
        except UserError as error:
            self.report({"ERROR"}, str(error))
            return {"CANCELLED"}
        return {"FINISHED"}


def _put_back(obj: bpy.types.Object, recorded: object) -> None:
    """Restore the Terrain Water record ``recorded`` (None: none) of ``obj``."""
    if recorded is None:
        cast(Any, obj).pop(terrain_water.RECORD, None)
    else:
        cast(Any, obj)[terrain_water.RECORD] = recorded


def apply_recipe(context: bpy.types.Context, obj: bpy.types.Object, recipe: Recipe) -> None:
    """Set the Noise Terrain ``obj``'s settings to the library ``recipe`` (``terrain_recipe.from_recipe``) and
    regenerate it, with its water (``recipe.water``: recorded as Object > Terrain Water records it, so the rebuild
    adds the water too); ``UserError`` (and the settings put back) when it cannot be rebuilt."""
    if not is_terrain(obj):
        raise UserError(f"object: {getattr(obj, 'name', obj)!r} is not a Noise Terrain")
    settings = obj.noisewright_terrain  # type: ignore[attr-defined]
    before = snapshot(settings)
    recorded = cast(Any, obj).get(terrain_water.RECORD)
    if recipe.water is not None:  # its water is made with the terrain (Object > Terrain Water's, recorded)
        terrain_water.record_water(obj, recipe.water)
    try:
        store(obj, from_recipe(recipe))
        check_finite(settings)
        regenerate_terrain(context, obj)
    except UserError:
        restore(settings, before)
        if recipe.water is not None:
            _put_back(obj, recorded)
        raise


def apply_preset(context: bpy.types.Context, obj: bpy.types.Object, path: Path) -> None:
    """Set ``obj``'s terrain settings to the recipe file ``path`` (``.json``: ``apply_recipe``), or run the older
    Blender preset file ``path`` (``.py``) on them, and regenerate ``obj``.

    ``UserError`` if the file cannot be read or run, or the terrain cannot be rebuilt from its settings;
    then the settings are put back and nothing changes.
    """
    if not is_terrain(obj):
        raise UserError(f"object: {getattr(obj, 'name', obj)!r} is not a Noise Terrain")
    if path.suffix.lower() == ".json":  # a recipe file
        apply_recipe(context, obj, read_recipe_file(path))
        return
    try:
        source = path.read_text(encoding="utf-8")
    except OSError as error:
        raise UserError(f"filepath: cannot read the preset {str(path)!r}: {error.strerror or error}") from None
    settings = obj.noisewright_terrain  # type: ignore[attr-defined]
    before = snapshot(settings)
    try:
        assigned = _assignments(source)
        with context.temp_override(active_object=obj, object=obj), held(obj):  # it reads bpy.context.active_object
            exec(compile(source, str(path), "exec"), {"bpy": bpy, "terrain": settings, "__file__": str(path)})
        _check_kept(settings, assigned)
        check_finite(settings)
        regenerate_terrain(context, obj)
    except UserError:
        restore(settings, before)
        raise
    except Exception as error:  # a preset file is a script: report what it raised, then put the settings back
        restore(settings, before)
        name = _failed_setting(error, path, source) or "filepath"
        raise UserError(f"{name}: the preset {path.name!r} failed: {type(error).__name__}: {error}") from None


def _failed_setting(error: Exception, path: Path, source: str) -> str | None:
    """The setting the preset's failing line assigns (``terrain.noise.octaves = 'x'``: ``octaves``), if any."""
    lines = [frame.lineno for frame in traceback.extract_tb(error.__traceback__) if frame.filename == str(path)]
    if not lines or isinstance(error, SyntaxError):
        return None
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assign) and node.lineno == lines[-1] and isinstance(node.targets[0], ast.Attribute):
            return node.targets[0].attr
    return None


def _assignments(source: str) -> list[tuple[list[str], object]]:
    """The ``terrain.<path> = <literal>`` lines of a preset: each setting's attribute path and the value it sets."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            continue
        names: list[str] = []
        target = node.targets[0]
        while isinstance(target, ast.Attribute):
            names.insert(0, target.attr)
            target = target.value
        if not (isinstance(target, ast.Name) and target.id == "terrain" and names):
            continue
        try:
            found.append((names, ast.literal_eval(node.value)))
        except ValueError:  # not a literal (an expression): Blender's presets have none; nothing to compare
            continue
    return found


def _check_kept(settings: bpy.types.PropertyGroup, assigned: list[tuple[list[str], object]]) -> None:
    """``UserError`` naming the first setting whose value Blender did not keep as the preset set it: a number
    outside the property's range is clamped by Blender, so the preset is refused instead of applied changed."""
    for names, value in assigned:
        owner = settings
        for name in names[:-1]:
            owner = getattr(owner, name)
        stored = getattr(owner, names[-1])
        if _same(stored, value):
            continue
        prop: Any = owner.bl_rna.properties[names[-1]]  # an IntProperty or FloatProperty has hard limits
        allowed = f" (allowed: {prop.hard_min:g} to {prop.hard_max:g})" if prop.type in ("INT", "FLOAT") else ""
        raise UserError(
            f"{names[-1]}: the preset sets {value!r}, which this setting cannot hold{allowed}; Blender would make it "
            f"{_shown(stored)!r}, so the preset is not applied"
        )


def _same(stored: Any, value: object) -> bool:
    """Whether ``stored`` (as Blender keeps it: floats in 32 bits) is ``value``."""
    if isinstance(value, (tuple, list)):
        items = list(stored)
        return len(items) == len(value) and all(_same(a, b) for a, b in zip(items, value, strict=True))
    if isinstance(value, float) and not isinstance(stored, bool) and isinstance(stored, (int, float)):
        return bool(np.float32(stored) == np.float32(value)) or (np.isnan(stored) and np.isnan(value))
    return bool(stored == value)


def _shown(stored: Any) -> object:
    return stored if isinstance(stored, (str, int, float, bool)) else tuple(stored)


def apply_and_show(context: bpy.types.Context, obj: bpy.types.Object, path: Path) -> None:
    """``apply_preset``, then the 3D View's clip distances widened to hold the whole terrain
    (``terrain.show_whole``)."""
    apply_preset(context, obj, path)
    show_whole(context, obj)


CLASSES = (
    NOISEWRIGHT_MT_terrain_presets,
    NOISEWRIGHT_OT_terrain_preset_add,
    NOISEWRIGHT_OT_apply_terrain_preset,
    NOISEWRIGHT_OT_save_terrain_recipe,
    NOISEWRIGHT_OT_load_terrain_recipe,
)
