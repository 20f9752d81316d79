"""Terrain presets: the Noise Terrain panel's preset menu (Blender's ``AddPresetBase``), with shipped presets.

A preset is a Python file of assignments to the active terrain's settings (``terrain.<field> = value``), as
Blender writes for its own presets. The menu lists the presets shipped in ``presets/terrain`` beside this
module, then the user's own (``<user scripts>/presets/noisewright/terrain``, where *+* saves the active
terrain's settings). Picking one sets the settings and regenerates the terrain; if that fails, or the preset
sets a value outside a setting's range (which Blender would clamp: every ``terrain.<setting> = <literal>`` is
compared with what the setting holds afterwards), the settings are put back and the terrain is left as it was.
"""

from __future__ import annotations

import ast
import traceback
from pathlib import Path
from typing import Any

import bpy
import numpy as np
from bl_operators.presets import AddPresetBase
from bpy.props import StringProperty

from .erode_fluvial import TERRAIN_OPTIONS
from .errors import UserError
from .properties import ErosionSettings, NoiseSettings, check_finite
from .terrain import APPLY_PRESET, PRESETS, regenerate_terrain
from .terrain_recipe import SHAPE_FIELDS
from .terrain_settings import is_terrain, restore, snapshot

PRESET_SUBDIR = "noisewright/terrain"
SHIPPED = PRESETS
"""The presets that come with the extension (read-only: *-* removes only the user's own)."""


def preset_values() -> list[str]:
    """The settings a preset holds: the grid, every noise property (the kind first: menus depend on it) and
    every property of the erosion stages (rivers, then hydraulic and thermal)."""
    noise = [p.identifier for p in NoiseSettings.bl_rna.properties if p.identifier not in ("rna_type", "name")]
    noise.sort(key=lambda name: name != "kind")
    erosion = [p.identifier for p in ErosionSettings.bl_rna.properties if p.identifier not in ("rna_type", "name")]
    return (
        [f"terrain.{name}" for name in SHAPE_FIELDS]
        + [f"terrain.noise.{name}" for name in noise]
        + [f"terrain.fluvial.{option.name}" for option in TERRAIN_OPTIONS]
        + [f"terrain.erosion.{name}" for name in erosion]
    )


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
            filter_ext=lambda ext: ext.lower() == ".py",
            display_name=lambda name: bpy.path.display_name(name, title_case=True),
        )


class NOISEWRIGHT_OT_terrain_preset_add(AddPresetBase, bpy.types.Operator):  # type: ignore[misc]
    """Save the active Noise Terrain's settings as a preset, or remove the selected user preset"""

    bl_idname = "noisewright.terrain_preset_add"
    bl_label = "Add Terrain Preset"
    preset_menu = "NOISEWRIGHT_MT_terrain_presets"
    preset_subdir = PRESET_SUBDIR
    preset_defines = ["terrain = bpy.context.active_object.noisewright_terrain"]

    @property
    def preset_values(self) -> list[str]:
        return preset_values()

    @classmethod
    def poll(cls, context):
        return is_terrain(context.active_object)


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


def apply_preset(context: bpy.types.Context, obj: bpy.types.Object, path: Path) -> None:
    """Run the preset file ``path`` on ``obj``'s terrain settings and regenerate ``obj``.

    ``UserError`` if the file cannot be read or run, or the terrain cannot be rebuilt from its settings;
    then the settings are put back and nothing changes.
    """
    if not is_terrain(obj):
        raise UserError(f"object: {getattr(obj, 'name', obj)!r} is not a Noise Terrain")
    try:
        source = path.read_text(encoding="utf-8")
    except OSError as error:
        raise UserError(f"filepath: cannot read the preset {str(path)!r}: {error.strerror or error}") from None
    settings = obj.noisewright_terrain  # type: ignore[attr-defined]
    before = snapshot(settings)
    try:
        assigned = _assignments(source)
        with context.temp_override(active_object=obj, object=obj):  # the file reads bpy.context.active_object
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
    """``apply_preset``, then the 3D View's clip distances widened to hold the whole terrain (the natural
    presets are tens of kilometres across: Blender's default Clip End is 1 km)."""
    apply_preset(context, obj, path)
    space = getattr(context, "space_data", None)
    if space is not None and getattr(space, "type", "") == "VIEW_3D":
        reach = 4.0 * max(obj.dimensions)
        if space.clip_end < reach:
            space.clip_end = reach
            space.clip_start = max(space.clip_start, reach * 1e-6)


APPLY_PRESET[:] = [apply_and_show]  # Add Terrain builds its preset through it

CLASSES = (NOISEWRIGHT_MT_terrain_presets, NOISEWRIGHT_OT_terrain_preset_add, NOISEWRIGHT_OT_apply_terrain_preset)
