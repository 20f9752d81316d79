"""``noisewright.terrain_material``: Object > Terrain Material, over ``terrain_material``.

A node material (Cycles and EEVEE) for a grid terrain, built from its material layers and terrain maps as covers
painted from the bottom up, each over the ones before (the rules of ``noise_core.terrain.splat``):

- grass everywhere, in patches of a drier tint;
- sand below ``sand_height`` of the mesh's height range;
- sediment where the ``sediment`` attribute (depth, in the mesh's units) is deep (full at ``sediment_depth`` of the
  height range), and talus (scree) where ``talus`` is (full at ``talus_depth``);
- rock where the ``slope`` attribute is above ``rock_slope`` degrees: box-mapped cracks over strata bands, toned by
  the ``strata`` attribute (hardness band 0..1) when the mesh has it;
- wet ground (darker, glossier) by the ``moisture`` attribute (0..1), or, on a mesh without it, where the ``flow``
  attribute (log10 of the cells draining through a vertex) is above ``wet_flow`` and where an erosion run's
  ``deposition`` attribute is high;
- snow on top by the ``snow`` attribute (cover 0..1), or, without it, above ``snow_height`` of the height range
  where it is not rock.

Each edge is a smoothstep ``blend`` wide, wobbled by noise; ``detail`` sets the close-range detail (features
across the terrain, ``terrain_shading``). The maps are read with Attribute nodes from point attributes: the layers
from Object > Terrain Maps' material layers, ``slope`` and ``flow`` computed first when missing
(``terrain_maps.write_terrain_maps``). Every colour is an option (linear RGB).
"""

from __future__ import annotations

from typing import Any, cast

import bpy
import numpy as np

from . import mesh_io
from . import terrain_shading as sh
from .errors import UserError
from .noise_core.schema import Option
from .noise_core.terrain.maps import MAP_OPTIONS
from .options import OptionsOperator, checked, properties_of, reports
from .terrain_maps import mesh_unavailable, write_terrain_maps

NEEDED_MAPS = ("slope", "flow")
"""The terrain maps the material reads (Attribute nodes), computed when the mesh lacks them."""
DEPOSITION = "deposition"
"""The erosion mask the material also reads when the mesh has it and no ``moisture`` (``api.erode``)."""
LAYERS = ("snow", "sediment", "talus", "moisture", "strata")
"""The material layers (float point attributes) the material reads when the mesh has them."""
ROUGHNESS = {"grass": 0.85, "sand": 0.9, "sediment": 0.8, "talus": 0.8, "rock": 0.7, "wet": 0.6, "snow": 0.5}
"""Roughness of each cover."""


def _colour(name: str, default: tuple[float, float, float], what: str) -> Option:
    return Option(f"{name}_color", float, default, f"Colour of {what} (linear RGB)", size=3, minimum=0.0,
                  soft_maximum=1.0, subtype="COLOR")  # fmt: skip


COLOUR_OPTIONS: tuple[Option, ...] = (
    _colour("grass", (0.07, 0.12, 0.035), "grass"),
    _colour("sand", (0.55, 0.46, 0.30), "sand low down"),
    _colour("sediment", (0.24, 0.19, 0.12), "sediment"),
    _colour("talus", (0.33, 0.31, 0.28), "talus (scree below cliffs)"),
    _colour("rock", (0.20, 0.19, 0.18), "rock"),
    _colour("strata", (0.30, 0.25, 0.19), "the rock's alternate strata bands"),
    _colour("snow", (0.86, 0.89, 0.93), "snow"),
)
"""The colours of the covers."""
MATERIAL_OPTIONS: tuple[Option, ...] = (
    Option("rock_slope", float, 35.0, "Slope (degrees) above which the ground is rock", minimum=0.0, maximum=90.0),
    Option("sand_height", float, 0.15, "Fraction of the height range below which the ground is sand (0: none)",
           minimum=0.0, maximum=1.0, subtype="FACTOR"),
    Option("wet_flow", float, 2.5, "Flow (log10 of the cells draining through a point) above which the ground "
           "is wet, on a mesh without a moisture layer", minimum=0.0, maximum=12.0),
    Option("snow_height", float, 0.8, "Fraction of the height range above which there is snow, on a mesh "
           "without a snow layer (1: none)", minimum=0.0, maximum=1.0, subtype="FACTOR"),
    Option("sediment_depth", float, 0.004, "Sediment depth, as a fraction of the height range, that covers the "
           "ground fully", minimum=1e-6, maximum=1.0, soft_maximum=0.05),
    Option("talus_depth", float, 0.004, "Talus depth, as a fraction of the height range, that covers the ground "
           "fully", minimum=1e-6, maximum=1.0, soft_maximum=0.05),
    Option("blend", float, 0.5, "Width of the soft edges, as a fraction of each threshold's scale",
           minimum=0.0, maximum=1.0, subtype="FACTOR"),
    Option("detail", float, 150.0, "Close-range detail: texture features across the terrain", minimum=1.0,
           maximum=100000.0, soft_maximum=2000.0),
    Option("bump", float, 0.6, "Strength of the close-range relief (a Bump node; 0: none, the mesh's smooth "
           "normal)", minimum=0.0, maximum=1.0, subtype="FACTOR"),
    Option("strata_bands", float, 6.0, "Rock strata bands across the height range", minimum=0.0,
           maximum=1000.0, soft_maximum=100.0),
    *COLOUR_OPTIONS,
)  # fmt: skip
"""The settings of ``terrain_material``."""
MAP_DEFAULTS: dict[str, Any] = {option.name: option.default for option in MAP_OPTIONS}
"""The settings of the maps computed when missing: ``compute_maps``'s defaults."""


@checked(*MATERIAL_OPTIONS)
def terrain_material(obj: bpy.types.Object, **settings: Any) -> bpy.types.Material:
    """Give the mesh ``obj`` a new material ``"<object> Terrain"`` (its first slot, added if there is none)
    of grass, sand, sediment, talus, rock, wet ground and snow by its layers, ``slope``, height, ``flow`` and
    ``deposition``; computes ``NEEDED_MAPS`` first when the mesh has no float point attributes of those names
    (then it must be a grid mesh). ``UserError`` naming the problem; then nothing changes. Returns the material."""
    if not isinstance(obj, bpy.types.Object) or obj.type != "MESH":
        raise UserError(f"object: expected a mesh object, got {getattr(obj, 'name', type(obj).__name__)!r}")
    mesh_io.check_editable(obj)
    mesh = mesh_io.mesh_of(obj)
    missing = [name for name in NEEDED_MAPS if not _point_floats(mesh, name)]
    if missing:
        write_terrain_maps(obj, missing, attributes=True, vertex_groups=False, images=False, **MAP_DEFAULTS)
    material = bpy.data.materials.new(f"{obj.name} Terrain")
    if material.node_tree is None:  # Blender < 5.0 makes node trees on request only
        material.use_nodes = True
    tree = cast(bpy.types.ShaderNodeTree, material.node_tree)
    bsdf = next(node for node in tree.nodes if node.bl_idname == "ShaderNodeBsdfPrincipled")
    colour, rough, bump = _covers(tree, mesh, settings)
    tree.links.new(colour, bsdf.inputs["Base Color"])
    tree.links.new(rough, bsdf.inputs["Roughness"])
    if bump is not None:
        tree.links.new(bump, bsdf.inputs["Normal"])
    if obj.material_slots:
        obj.material_slots[0].material = material
    else:
        mesh.materials.append(material)
    return material


def _covers(tree, mesh: bpy.types.Mesh, s: dict[str, Any]):
    """The colour, roughness and bumped normal (None without ``bump``) sockets of the covers, bottom up."""
    positions = mesh_io.read_positions(mesh)
    low, high = positions.min(axis=0), positions.max(axis=0)
    size = float(max(high[0] - low[0], high[1] - low[1], 1e-6))
    span = float(max(high[2] - low[2], 1e-6))
    blend = s["blend"]
    coordinates = sh.node(tree, "ShaderNodeTexCoord")
    scaled = sh.node(tree, "ShaderNodeVectorMath", coordinates.outputs["Object"], operation="SCALE")
    scaled.inputs["Scale"].default_value = s["detail"] / size
    texture = scaled.outputs["Vector"]
    z = sh.node(tree, "ShaderNodeSeparateXYZ", coordinates.outputs["Object"]).outputs["Z"]
    height = sh.math(tree, "DIVIDE", sh.math(tree, "SUBTRACT", z, float(low[2])), span)
    wobble = sh.math(tree, "SUBTRACT", sh.noise(tree, texture, 0.12, 3.0), 0.5)
    fine = sh.noise(tree, texture, 1.0, 6.0)

    def wobbled(value, amount: float):
        return sh.math(tree, "MULTIPLY_ADD", wobble, amount * max(blend, 0.05), value)

    has = {name: _point_floats(mesh, name) for name in (*LAYERS, DEPOSITION)}
    covers: dict[str, Any] = {}
    if s["sand_height"] > 0.0:
        covers["sand"] = sh.step(tree, wobbled(height, 0.2), s["sand_height"], blend * 0.2, below=True)
    for layer in ("sediment", "talus"):  # depths in the mesh's units, full at their share of the height range
        if has[layer]:
            full = s[f"{layer}_depth"] * span
            covers[layer] = sh.scaled(tree, wobbled(sh.attribute(tree, layer), full), full)
    covers["rock"] = rock = sh.step(tree, wobbled(sh.attribute(tree, "slope"), 20.0), s["rock_slope"], blend * 20.0)
    if has["moisture"]:
        covers["wet"] = sh.attribute(tree, "moisture")
    else:
        covers["wet"] = sh.step(tree, sh.attribute(tree, "flow"), s["wet_flow"], blend * 2.0)
        if has[DEPOSITION]:
            covers["wet"] = sh.math(tree, "MAXIMUM", covers["wet"], _deposition(tree, mesh))
    snow = sh.attribute(tree, "snow") if has["snow"] else None
    if snow is None and s["snow_height"] < 1.0:
        snow = sh.math(tree, "MULTIPLY", sh.step(tree, height, s["snow_height"], blend * 0.2),
                       sh.math(tree, "SUBTRACT", 1.0, rock))  # fmt: skip
    if snow is not None:
        covers["snow"] = sh.step(tree, wobbled(snow, 0.6), 0.5, max(blend, 0.05))

    rock_colour, rock_relief = _rock(tree, texture, coordinates.outputs["Normal"], height, has["strata"], s)
    patches = sh.noise(tree, texture, 0.05, 3.0)
    dry = tuple(c * f for c, f in zip(s["grass_color"], (1.5, 1.3, 0.9), strict=True))
    paint: dict[str, Any] = {
        "grass": sh.mix(
            tree,
            "RGBA",
            sh.varied(tree, s["grass_color"], fine),
            sh.varied(tree, dry, fine),
            sh.step(tree, patches, 0.55, 0.2),
        ),
        "sand": sh.varied(tree, s["sand_color"], sh.noise(tree, texture, 3.0), 0.15),
        "sediment": sh.varied(tree, s["sediment_color"], sh.noise(tree, texture, 2.0), 0.25),
        "talus": sh.varied(tree, s["talus_color"], sh.noise(tree, texture, 6.0, 2.0), 0.4),
        "rock": rock_colour,
        "snow": sh.varied(tree, s["snow_color"], sh.noise(tree, texture, 0.4), 0.05),
    }
    colour: Any = paint["grass"]  # then each cover over it, in the order of ``covers``
    rough: Any = ROUGHNESS["grass"]
    relief: Any = sh.math(tree, "MULTIPLY", fine, 0.3) if s["bump"] > 0.0 else None
    for name, cover in covers.items():
        if name == "wet":
            colour = sh.mix(tree, "RGBA", colour, (0.45, 0.45, 0.45, 1.0), sh.math(tree, "MULTIPLY", cover, 0.8),
                            blend="MULTIPLY")  # fmt: skip
        else:
            colour = sh.mix(tree, "RGBA", colour, paint[name], cover)
        rough = sh.mix(tree, "FLOAT", rough, ROUGHNESS[name], cover)
        if relief is None:
            continue
        if name == "rock":
            relief = sh.mix(tree, "FLOAT", relief, rock_relief, cover)
        elif name == "snow":
            relief = sh.mix(tree, "FLOAT", relief, sh.math(tree, "MULTIPLY", fine, 0.05), cover)
    if relief is None:
        return colour, rough, None
    bump = sh.node(tree, "ShaderNodeBump")
    bump.inputs["Strength"].default_value, bump.inputs["Distance"].default_value = s["bump"], 0.5 * size / s["detail"]
    tree.links.new(relief, bump.inputs["Height"])
    return colour, rough, bump.outputs["Normal"]


def _rock(tree, texture, normal, height, strata: bool, s: dict[str, Any]):
    """The rock's colour and relief (None without ``bump``): strata bands (of the ``strata`` layer when the mesh
    has it, else of the height, warped by noise) in the rock and strata colours, toned by finer bands and darkened
    in box-mapped cracks; the relief (bump) is the bands and noise (the cracks stay out of it: a Bump node
    evaluates its input three times, and the cracks are the material's most costly part)."""
    warp = sh.math(tree, "MULTIPLY", sh.noise(tree, texture, 0.08, 2.0), 0.6)
    bands = sh.strata_bands(tree, height, warp, s["strata_bands"])
    layered = sh.attribute(tree, "strata") if strata else bands
    hue = sh.two_tone(tree, layered, s["rock_color"], s["strata_color"], (0.0, 0.3, 0.5, 0.85))
    tone = sh.two_tone(tree, sh.strata_bands(tree, height, warp, 2.0 * s["strata_bands"]), (0.93, 0.93, 0.93),
                       (1.0, 1.0, 1.0))  # fmt: skip
    toned = sh.mix(tree, "RGBA", hue, tone, 1.0, blend="MULTIPLY")
    cracks = sh.triplanar_cracks(tree, texture, normal, 5.0)
    colour = sh.mix(tree, "RGBA", toned, (0.6, 0.6, 0.6, 1.0), sh.math(tree, "SUBTRACT", 1.0, cracks),
                    blend="MULTIPLY")  # fmt: skip
    if s["bump"] == 0.0:
        return colour, None
    return colour, sh.math(
        tree, "MULTIPLY_ADD", bands, 0.5, sh.math(tree, "MULTIPLY", sh.noise(tree, texture, 3.0), 0.5)
    )


def _point_floats(mesh: bpy.types.Mesh, name: str) -> bool:
    attribute = mesh.attributes.get(name)
    return attribute is not None and attribute.domain == "POINT" and attribute.data_type == "FLOAT"


def _deposition(tree, mesh: bpy.types.Mesh):
    """``deposition`` / its 95th percentile where it is non-zero, clamped to 0..1."""
    values = np.empty(len(mesh.vertices), dtype=np.float32)
    cast(Any, mesh.attributes[DEPOSITION]).data.foreach_get("value", values)
    positive = values[values > 0]
    top = float(np.percentile(positive, 95)) if positive.size else 1.0
    return sh.scaled(tree, sh.attribute(tree, DEPOSITION), top)


class NOISEWRIGHT_OT_terrain_material(OptionsOperator, bpy.types.Operator):
    """Give the active grid mesh a material of grass, sand, sediment, talus, rock, wet ground and snow from its
    material layers and terrain maps"""

    bl_idname = "noisewright.terrain_material"
    bl_label = "Terrain Material"
    __annotations__ = properties_of(*MATERIAL_OPTIONS)

    @staticmethod
    def unavailable(context) -> str:
        return mesh_unavailable(context)  # a mesh in Object Mode

    @reports
    def execute(self, context):
        terrain_material(context.active_object, **self.keywords())
        return {"FINISHED"}


def menu_entry(self, _context) -> None:
    self.layout.operator(NOISEWRIGHT_OT_terrain_material.bl_idname)


CLASSES = (NOISEWRIGHT_OT_terrain_material,)
