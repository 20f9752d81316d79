"""What a Noise Terrain object remembers: its grid, height, falloff and noise (``Object.noisewright_terrain``).

``api.add_terrain`` stores them on the object it adds; the Noise Terrain panel shows them for the active
terrain, and ``api.regenerate_terrain`` rebuilds the mesh from them (as A.N.T. Landscape's refresh). The
grid's properties are declared once here (``SHAPE_PROPERTIES``) and shared with the Add Terrain operator.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import bpy
import numpy as np
from bpy.props import BoolProperty, EnumProperty, FloatProperty, FloatVectorProperty, IntProperty, PointerProperty

from .mapping import Domain, from_domain, from_spec, to_domain, to_spec
from .noise_core import NoiseSpec
from .noise_core.registry import COMMON_OPTIONS, kind_info
from .properties import ErosionSettings, NoiseSettings, erosion_options

MAX_SUBDIVISIONS = 16384
FALLOFF_ITEMS = [
    ("NONE", "None", "No falloff"),
    ("X", "X", "Towards the edges along X"),
    ("Y", "Y", "Towards the edges along Y"),
    ("RADIAL", "Radial", "Towards a circle touching the edges"),
]
SHAPE_PROPERTIES: dict[str, Any] = {
    "x_subdivisions": IntProperty(  # type: ignore[func-returns-value]
        name="X Subdivisions", description="Faces along X", default=128, min=1, max=MAX_SUBDIVISIONS, soft_max=2048
    ),
    "y_subdivisions": IntProperty(  # type: ignore[func-returns-value]
        name="Y Subdivisions", description="Faces along Y", default=128, min=1, max=MAX_SUBDIVISIONS, soft_max=2048
    ),
    "size": FloatProperty(  # type: ignore[func-returns-value]
        name="Size", description="Width and depth of the grid", default=2.0, min=1e-4, soft_max=1000.0, unit="LENGTH"
    ),
    "height": FloatProperty(  # type: ignore[func-returns-value]
        name="Height",
        description="Height of noise value 1",
        default=0.5,
        soft_min=-100.0,
        soft_max=100.0,
        unit="LENGTH",
    ),
    "offset": FloatVectorProperty(  # type: ignore[func-returns-value]
        name="Offset",
        description="Where the grid sits in the noise (move by Size for the neighbouring tile)",
        size=2,
        subtype="XYZ",
        unit="LENGTH",
    ),
    "falloff": EnumProperty(  # type: ignore[func-returns-value]
        name="Edge Falloff",
        description="Bring the terrain down to 0 towards its edges",
        items=FALLOFF_ITEMS,
        default="NONE",
    ),
    "falloff_width": FloatProperty(  # type: ignore[func-returns-value]
        name="Falloff Width",
        description="Fraction of the half-size over which the falloff eases in",
        default=0.3,
        min=0.0,
        max=1.0,
        subtype="FACTOR",
    ),
}
SHAPE_FIELDS = tuple(SHAPE_PROPERTIES)
"""The grid arguments of ``api.add_terrain``, in the order the panels draw them."""


def shape_property(name: str) -> Any:
    """The Blender property of the grid argument ``name`` (one definition for the operator and the object)."""
    return SHAPE_PROPERTIES[name]


class TerrainSettings(bpy.types.PropertyGroup):
    """A Noise Terrain's settings: its grid (``SHAPE_FIELDS``) and its noise (``noise``)."""

    is_terrain: BoolProperty(  # type: ignore[valid-type]
        name="Noise Terrain", description="Made by Add > Mesh > Noise Terrain: can be regenerated", default=False
    )
    x_subdivisions: shape_property("x_subdivisions")  # type: ignore[valid-type]
    y_subdivisions: shape_property("y_subdivisions")  # type: ignore[valid-type]
    size: shape_property("size")  # type: ignore[valid-type]
    height: shape_property("height")  # type: ignore[valid-type]
    offset: shape_property("offset")  # type: ignore[valid-type]
    falloff: shape_property("falloff")  # type: ignore[valid-type]
    falloff_width: shape_property("falloff_width")  # type: ignore[valid-type]
    noise: PointerProperty(type=NoiseSettings)  # type: ignore[valid-type]
    erosion: PointerProperty(type=ErosionSettings)  # type: ignore[valid-type]


def as_stored(value: Any) -> Any:
    """``value`` as a Blender float property keeps it (float32), recursively through tuples and dicts: a terrain
    is built from the values it stores, so Regenerate rebuilds it bit for bit (erosion amplifies the last bit)."""
    if isinstance(value, float):
        return float(np.float32(value))
    if isinstance(value, tuple):
        return tuple(as_stored(item) for item in value)
    if isinstance(value, dict):
        return {name: as_stored(item) for name, item in value.items()}
    return value


def stored_spec(spec: NoiseSpec) -> NoiseSpec:
    """``spec`` with every float field that applies to it as the terrain's settings store it (``as_stored``);
    the others stay at their defaults, which ``to_spec`` passes."""
    changes = {}
    for option in (*COMMON_OPTIONS, *kind_info(spec.kind).options):
        value = getattr(spec, option.name)
        if isinstance(value, float) and (option.requires is None or option.requires.holds(spec)):
            changes[option.name] = as_stored(value)
    return replace(spec, **changes)


def stored_domain(domain: Domain) -> Domain:
    """``domain`` with its offset, rotation and scale as the terrain's settings store them."""
    return replace(
        domain, offset=as_stored(domain.offset), rotation=as_stored(domain.rotation), scale=as_stored(domain.scale)
    )


def store(
    obj: bpy.types.Object,
    spec: NoiseSpec,
    domain: Domain,
    shape: dict[str, Any],
    hydraulic: dict[str, Any] | None = None,
    thermal: dict[str, Any] | None = None,
) -> None:
    """Remember on ``obj`` the noise ``spec``, ``domain``, grid ``shape`` (``SHAPE_FIELDS``) and erosion options
    (``None``: that erosion is off) it was built from."""
    terrain = obj.noisewright_terrain  # type: ignore[attr-defined]
    from_spec(terrain.noise, spec)
    from_domain(terrain.noise, domain)
    terrain.erosion.hydraulic = hydraulic is not None
    terrain.erosion.thermal = thermal is not None
    for name, value in {**(hydraulic or {}), **(thermal or {})}.items():
        setattr(terrain.erosion, name, value)
    for name in SHAPE_FIELDS:
        value = shape[name]
        setattr(terrain, name, tuple(value) if name == "offset" else value)
    terrain.is_terrain = True


def recall(obj: bpy.types.Object) -> tuple[NoiseSpec, Domain, dict[str, Any], dict | None, dict | None]:
    """``(spec, domain, shape, hydraulic, thermal)`` as stored on ``obj``; ``UserError`` (from ``to_spec``) if
    the noise settings are invalid."""
    terrain = obj.noisewright_terrain  # type: ignore[attr-defined]
    shape = {name: getattr(terrain, name) for name in SHAPE_FIELDS}
    shape["offset"] = tuple(shape["offset"])
    return (to_spec(terrain.noise), to_domain(terrain.noise), shape, *erosion_options(terrain.erosion))


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
            values[name] = value if isinstance(value, (str, int, float, bool)) else tuple(value)
    return values


def restore(group: bpy.types.PropertyGroup, values: dict[str, Any]) -> None:
    """Put back what ``snapshot`` took (``kind`` first: the option menus depend on it)."""
    if "kind" in values:
        group.kind = values["kind"]  # type: ignore[attr-defined]
    for name, value in values.items():
        if isinstance(value, dict):
            restore(getattr(group, name), value)
        elif name != "kind" and value != "":
            setattr(group, name, value)


def attach() -> None:
    bpy.types.Object.noisewright_terrain = PointerProperty(  # type: ignore[attr-defined, func-returns-value]
        type=TerrainSettings, name="Noise Terrain", description="The settings this Noise Terrain was built from"
    )


def detach() -> None:
    del bpy.types.Object.noisewright_terrain  # type: ignore[attr-defined]


CLASSES = (TerrainSettings,)
