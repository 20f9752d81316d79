"""A Noise Terrain's settings on its object (``Object.noisewright_terrain``, ``TerrainSettings``): its grid, noise
and erosion stages, kept as Blender properties made from their rows, and read back as a ``TerrainRecipe``
(``recall``; ``store`` writes one). The Noise Terrain panel edits them; Regenerate rebuilds the mesh from them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import bpy
from bpy.props import BoolProperty, PointerProperty, StringProperty

from .erode_fluvial import FluvialSettings, fluvial_options
from .errors import UserError
from .mapping import from_domain, from_spec, to_domain, to_spec
from .noise_core.terrain.recipe import Stage
from .options import properties_of
from .properties import ErosionSettings, NoiseSettings, erosion_options
from .terrain_recipe import BASE_FIELDS, BASE_OPTIONS, SHAPE_FIELDS, SHAPE_OPTIONS, TerrainRecipe


def is_terrain(obj: object) -> bool:
    """Whether ``obj`` is a Noise Terrain: a mesh object ``add_terrain`` made, which keeps its settings."""
    return isinstance(obj, bpy.types.Object) and obj.type == "MESH" and obj.noisewright_terrain.is_terrain  # type: ignore[attr-defined]


_HELD: set[int] = set()
"""The objects (``as_pointer()``) whose settings are being written as a whole (``held``)."""


@contextmanager
def held(owner: object) -> Iterator[None]:
    """While inside, changes to the settings of ``owner`` (an object, or a property group of one) do not rebuild
    it (``live.changed`` asks ``is_held``): a recipe, a preset or a snapshot is written as a whole, then built
    once by its caller, and a failure leaves the mesh as it was."""
    target = getattr(owner, "id_data", owner)
    key = target.as_pointer() if isinstance(target, bpy.types.ID) else None
    if key is None or key in _HELD:
        yield
        return
    _HELD.add(key)
    try:
        yield
    finally:
        _HELD.discard(key)


def is_held(obj: bpy.types.ID) -> bool:
    """Whether the settings of ``obj`` are being written as a whole (``held``)."""
    return obj.as_pointer() in _HELD


def _plain(value: Any) -> Any:
    """A property's value as plain Python (vectors as tuples)."""
    return value if isinstance(value, (str, int, float, bool)) else tuple(value)


class TerrainSettings(bpy.types.PropertyGroup):
    """A Noise Terrain's settings: its grid (``SHAPE_OPTIONS``), its noise and its erosion stages (rivers in
    ``fluvial``, hydraulic and thermal in ``erosion``)."""

    __annotations__ = {  # Blender reads the properties from here
        "is_terrain": BoolProperty(  # type: ignore[func-returns-value]
            name="Noise Terrain", description="Made by Add > Mesh > Noise Terrain: can be regenerated", default=False
        ),
        "auto_refresh": BoolProperty(  # type: ignore[func-returns-value]
            name="Auto Refresh", description="Rebuild the terrain whenever one of its settings changes", default=True
        ),
        **properties_of(*SHAPE_OPTIONS),
        **properties_of(*BASE_OPTIONS),
        "noise": PointerProperty(type=NoiseSettings),  # type: ignore[func-returns-value]
        "erosion": PointerProperty(type=ErosionSettings),  # type: ignore[func-returns-value]
        "fluvial": PointerProperty(type=FluvialSettings),  # type: ignore[func-returns-value]
        "applied_stages": StringProperty(  # type: ignore[func-returns-value]
            name="Applied Stages",
            description="Erosion applied by operators since (JSON list of recipe stages), run after the settings'",
            default="[]",
            options={"HIDDEN"},
        ),
        "unreplayable": StringProperty(  # type: ignore[func-returns-value]
            name="Not Replayable",
            description="An edit of the mesh its recipe cannot replay (a rebuild at another size would lose it)",
            default="",
            options={"HIDDEN"},
        ),
    }


def store(obj: bpy.types.Object, recipe: TerrainRecipe) -> None:
    """Remember on ``obj`` the ``recipe`` it was built from: its noise, domain, grid shape (``SHAPE_FIELDS``,
    ``BASE_FIELDS``) and erosion stages (``None``: that stage is off)."""
    with held(obj):
        terrain = obj.noisewright_terrain  # type: ignore[attr-defined]
        from_spec(terrain.noise, recipe.spec)
        from_domain(terrain.noise, recipe.domain)
        terrain.erosion.hydraulic = recipe.hydraulic is not None
        terrain.erosion.thermal = recipe.thermal is not None
        for name, value in {**(recipe.hydraulic or {}), **(recipe.thermal or {})}.items():
            setattr(terrain.erosion, name, value)
        terrain.fluvial.fluvial = recipe.fluvial is not None
        for name, value in (recipe.fluvial or {}).items():
            setattr(terrain.fluvial, name, value)
        for name in SHAPE_FIELDS:
            setattr(terrain, name, recipe.shape[name])
        for option in BASE_OPTIONS:
            setattr(terrain, option.name, recipe.shape.get(option.name, option.default))
        terrain.applied_stages = json.dumps([{"stage": stage.kind, **stage.options} for stage in recipe.extra])
        terrain.unreplayable = ""
        terrain.is_terrain = True


def applied_stages(terrain: TerrainSettings) -> tuple[Stage, ...]:
    """The stages operators applied to the terrain of ``terrain`` (its ``applied_stages``), checked; ``UserError``
    naming the stage when one cannot be read (e.g. an option an older version wrote)."""
    try:
        records = json.loads(terrain.applied_stages or "[]")  # type: ignore[attr-defined]
        return tuple(
            Stage.of(record["stage"], {k: v for k, v in record.items() if k != "stage"}, f"applied_stages[{index}]")
            for index, record in enumerate(records)
        )
    except (TypeError, ValueError, KeyError, AttributeError) as error:
        raise UserError(f"applied_stages: cannot read the erosion applied to this terrain: {error}") from None


def recall(obj: bpy.types.Object) -> TerrainRecipe:
    """The ``TerrainRecipe`` stored on ``obj``; ``UserError`` (from ``to_spec``) if the noise settings are
    invalid."""
    terrain = obj.noisewright_terrain  # type: ignore[attr-defined]
    shape = {name: _plain(getattr(terrain, name)) for name in (*SHAPE_FIELDS, *BASE_FIELDS)}
    hydraulic, thermal = erosion_options(terrain.erosion)
    fluvial = fluvial_options(terrain.fluvial)
    extra = applied_stages(terrain)
    return TerrainRecipe(to_spec(terrain.noise), to_domain(terrain.noise), shape, hydraulic, thermal, fluvial, extra)


def snapshot(group: bpy.types.PropertyGroup) -> dict[str, Any]:
    """Every property of ``group`` (nested groups as dicts), to put back with ``restore``."""
    values: dict[str, Any] = {}
    for prop in group.bl_rna.properties:
        name = prop.identifier
        if name in ("rna_type", "name"):
            continue
        value = getattr(group, name)
        if prop.type == "POINTER":
            values[name] = snapshot(value)
        else:
            values[name] = _plain(value)
    return values


def restore(group: bpy.types.PropertyGroup, values: dict[str, Any]) -> None:
    """Put back what ``snapshot`` took (``kind`` first: the option menus depend on it), as a whole (``held``: no
    rebuild on the way)."""
    with held(group):
        _restore(group, values)


def _restore(group: bpy.types.PropertyGroup, values: dict[str, Any]) -> None:
    if "kind" in values:
        group.kind = values["kind"]  # type: ignore[attr-defined]
    for name, value in values.items():
        if isinstance(value, dict):
            _restore(getattr(group, name), value)
        elif name != "kind" and value != "":
            setattr(group, name, value)


def draw_shape(layout: bpy.types.UILayout, owner) -> None:
    """The grid fields of the operator or of a terrain's settings (falloff width only with a falloff; a
    terrain's base heightmap, its file and range only with a base)."""
    for name in SHAPE_FIELDS:
        if name != "falloff_width" or owner.falloff != "NONE":
            layout.prop(owner, name)
    if isinstance(owner, TerrainSettings):
        for name in BASE_FIELDS:
            if name == "base_blend" or owner.base_blend != "NONE":  # type: ignore[attr-defined]
                layout.prop(owner, name)


def attach() -> None:
    bpy.types.Object.noisewright_terrain = PointerProperty(  # type: ignore[attr-defined, func-returns-value]
        type=TerrainSettings, name="Noise Terrain", description="The settings this Noise Terrain was built from"
    )


def detach() -> None:
    del bpy.types.Object.noisewright_terrain  # type: ignore[attr-defined]


CLASSES = (TerrainSettings,)
