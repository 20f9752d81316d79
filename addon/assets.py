"""The extension's asset library: the scatter node groups and the terrain presets, in ``assets/noisewright.blend``.

``register_library`` (on enable) adds the folder ``assets`` beside this module to the Preferences' asset libraries
as *Noisewright* (imported by Append, reusing data); ``unregister_library`` (on disable) removes it. Blender 4.2-5.x
has no manifest entry for an extension's asset library, so the add-on registers it as add-ons did before
extensions. The file is written by ``scripts/build_assets.py`` with Blender 5.0; Blender reads files of a newer
version only from 4.5 on, so older Blenders get no library (``MIN_VERSION``) but can still make the same groups
(``scatter.scatter_group``) through ``add_scatter``.

In the Asset Browser: catalog *Noisewright / Scatter* holds the node groups ``Noisewright Scatter Rocks``,
``... Trees``, ``... Grass`` (Geometry Nodes modifiers: drag one onto a terrain, or Add Modifier > Noisewright), and
*Noisewright / Terrain Presets* one Noise Terrain object per shipped preset, its settings those of the preset
(drag it into the scene, then Regenerate at full resolution), with a rendered thumbnail.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import bpy

from . import scatter
from .errors import UserError
from .noise_core.schema import Option
from .options import OptionsOperator, checked, properties_of, reports

LIBRARY_NAME = "Noisewright"
FOLDER = Path(__file__).resolve().parent / "assets"
BLEND = FOLDER / "noisewright.blend"
IMPORT_METHODS = ("APPEND_REUSE", "APPEND")
"""How the Asset Browser brings an asset in, preferred first: Append (Reuse Data) where Blender offers it (4.x),
else Append (5.0, whose default would be Pack: linked, so a node group could not be edited)."""
MIN_VERSION = (4, 5, 0)
"""The first Blender that reads the library's file (written by 5.0)."""
CATALOGS = {
    "scatter": ("5b0e3c1e-9f0a-4a57-8d6e-2f3b7c9a1d01", "Noisewright/Scatter"),
    "presets": ("5b0e3c1e-9f0a-4a57-8d6e-2f3b7c9a1d02", "Noisewright/Terrain Presets"),
}
"""Catalog UUID and path of each kind of asset (``assets/blender_assets.cats.txt``)."""


def _libraries():
    return bpy.context.preferences.filepaths.asset_libraries


def _ours(library) -> bool:
    return bool(library.path) and Path(library.path).resolve() == FOLDER


def register_library() -> Any:
    """Add the asset library (once; not before ``MIN_VERSION``); the library, or None."""
    if bpy.app.version < MIN_VERSION or not BLEND.is_file():
        return None
    for library in _libraries():
        if _ours(library):
            return library
    library = _libraries().new(name=LIBRARY_NAME, directory=str(FOLDER))
    for method in IMPORT_METHODS:  # the enum lists Append (Reuse Data) in 5.0 too, but refuses it there
        try:
            library.import_method = method
        except TypeError:
            continue
        break
    return library


def unregister_library() -> None:
    """Remove the asset library ``register_library`` added."""
    for library in [library for library in _libraries() if _ours(library)]:
        _libraries().remove(library)


def scatter_node_group(kind: str) -> bpy.types.GeometryNodeTree:
    """The scatter group of ``kind``: the one in this file if appended before, else appended from the library
    (made by ``scatter.scatter_group`` where this Blender cannot read the library)."""
    name = scatter.group_name(kind)
    group = bpy.data.node_groups.get(name)
    if group is not None and group.bl_idname == "GeometryNodeTree":
        return group
    if bpy.app.version < MIN_VERSION or not BLEND.is_file():
        return scatter.scatter_group(kind)
    with cast(Any, bpy.data.libraries).load(str(BLEND), link=False) as (source, target):
        if name not in source.node_groups:
            raise UserError(f"instances: the asset library {BLEND} has no node group {name!r}")
        target.node_groups = [name]
    return target.node_groups[0]


SCATTER_OPTIONS: tuple[Option, ...] = (
    Option("instances", str, "TREES", "What to scatter", choices=("ROCKS", "TREES", "GRASS"),
           choice_text=(("Rocks", "Boulders on talus, along the ground"), ("Trees", "Conifers, upright"),
                        ("Grass", "Grass tufts, upright"))),
    Option("density_scale", float, 1.0, "Density as a multiple of the scatter's default", minimum=0.0,
           soft_maximum=10.0, maximum=1000.0),
    Option("seed", int, 0, "Random seed of the scatter", minimum=0, maximum=2**31 - 1),
)  # fmt: skip
"""The settings of ``add_scatter``."""


MAX_INSTANCES = 500_000
"""``add_scatter`` lowers the density so the object's footprint holds about this many instances at most."""


@checked(*SCATTER_OPTIONS)
def add_scatter(obj: bpy.types.Object, *, instances: str, density_scale: float, seed: int) -> bpy.types.Modifier:
    """Add a Geometry Nodes modifier with the scatter group of ``instances`` to the mesh ``obj`` (its density the
    group's default times ``density_scale``, lowered to about ``MAX_INSTANCES`` over the object's footprint, its
    ``seed``). ``UserError`` naming the problem. Returns it."""
    if not isinstance(obj, bpy.types.Object) or obj.type != "MESH":
        raise UserError(f"object: expected a mesh object, got {getattr(obj, 'name', type(obj).__name__)!r}")
    group = scatter_node_group(instances.lower())
    modifier: Any = obj.modifiers.new(group.name, "NODES")
    modifier.node_group = group
    density = next(item for item in group.interface.items_tree if item.item_type == "SOCKET" and item.name == "Density")
    footprint = float(obj.dimensions.x * obj.dimensions.y)  # a 58 km landscape at one tree per 10 m² is 3e8 trees
    wanted = density.default_value * density_scale
    if footprint > 0.0 and wanted * footprint > MAX_INSTANCES:
        wanted = MAX_INSTANCES / footprint
    set_input(modifier, "Density", wanted)
    set_input(modifier, "Seed", seed)
    return modifier


def set_input(modifier: Any, name: str, value: Any) -> None:
    """Set the input ``name`` of the Geometry Nodes ``modifier`` to ``value``: through ``properties.inputs`` (Blender
    5.1 on) or the modifier's ID property named after the socket (before), then re-evaluate its object."""
    item = next(i for i in modifier.node_group.interface.items_tree if i.item_type == "SOCKET" and i.name == name)
    properties = getattr(modifier, "properties", None)
    if properties is not None:
        getattr(properties.inputs, item.identifier).value = value
    else:
        modifier[item.identifier] = value
    modifier.id_data.update_tag()


class NOISEWRIGHT_OT_add_scatter(OptionsOperator, bpy.types.Operator):
    """Scatter rocks, trees or grass on the active mesh by its material layers, not in water or on cliffs (a
    Geometry Nodes modifier from the Noisewright asset library)"""

    bl_idname = "noisewright.add_scatter"
    bl_label = "Terrain Scatter"
    __annotations__ = properties_of(*SCATTER_OPTIONS)

    @staticmethod
    def unavailable(context) -> str:
        obj = context.active_object
        return "" if obj is not None and obj.type == "MESH" else "Needs an active mesh object"

    @reports
    def execute(self, context):
        add_scatter(context.active_object, **self.keywords())
        return {"FINISHED"}


def menu_entry(self, _context) -> None:
    self.layout.operator(NOISEWRIGHT_OT_add_scatter.bl_idname)


CLASSES = (NOISEWRIGHT_OT_add_scatter,)
"""The scatter operator; the library itself is registered by ``register_library``."""
