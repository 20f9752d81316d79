"""``noisewright.terrain_material``: Object > Terrain Material, over ``terrain_material``.

A node material (Cycles and EEVEE) for a grid terrain built from its terrain maps, as layers painted from the
bottom up, each over the ones before (the rules of ``noise_core.terrain.splat``): grass everywhere; sand below
``sand_height`` of the mesh's height range; rock where the ``slope`` attribute is above ``rock_slope``
degrees; wet sediment where the ``flow`` attribute (log10 of the cells draining through a vertex) is above
``wet_flow``, and where the ``deposition`` attribute of an erosion run (Erode, a Noise Terrain's erosion) is
high. Each edge is a smoothstep ``blend`` wide. The maps are read with Attribute nodes from the point
attributes Object > Terrain Maps writes; missing ones are computed first (``terrain_maps.write_terrain_maps``).
"""

from __future__ import annotations

from typing import Any, cast

import bpy
import numpy as np

from . import mesh_io
from .errors import UserError
from .noise_core.schema import Option
from .noise_core.terrain.maps import MAP_OPTIONS
from .options import OptionsOperator, checked, properties_of, reports
from .terrain_maps import mesh_unavailable, write_terrain_maps

NEEDED_MAPS = ("slope", "flow")
"""The terrain maps the material reads (Attribute nodes), computed when the mesh lacks them."""
DEPOSITION = "deposition"
"""The erosion mask the material also reads when the mesh has it (``api.erode``)."""
LAYERS = {
    "grass": ((0.13, 0.22, 0.06), 0.85),
    "sand": ((0.62, 0.52, 0.33), 0.9),
    "rock": ((0.28, 0.25, 0.22), 0.75),
    "wet": ((0.12, 0.09, 0.06), 0.35),
}
"""Linear base colour and roughness of each layer."""

MATERIAL_OPTIONS: tuple[Option, ...] = (
    Option("rock_slope", float, 35.0, "Slope (degrees) above which the ground is rock", minimum=0.0, maximum=90.0),
    Option("sand_height", float, 0.15, "Fraction of the height range below which the ground is sand",
           minimum=0.0, maximum=1.0, subtype="FACTOR"),
    Option("wet_flow", float, 2.5, "Flow (log10 of the cells draining through a point) above which the ground "
           "is wet sediment", minimum=0.0, maximum=12.0),
    Option("blend", float, 0.5, "Width of the soft edges, as a fraction of each threshold's scale",
           minimum=0.0, maximum=1.0, subtype="FACTOR"),
)  # fmt: skip
"""The settings of ``terrain_material``."""
MAP_DEFAULTS: dict[str, Any] = {option.name: option.default for option in MAP_OPTIONS}
"""The settings of the maps computed when missing: ``compute_maps``'s defaults."""


@checked(*MATERIAL_OPTIONS)
def terrain_material(
    obj: bpy.types.Object, *, rock_slope: float, sand_height: float, wet_flow: float, blend: float
) -> bpy.types.Material:
    """Give the mesh ``obj`` a new material ``"<object> Terrain"`` (its first slot, added if there is none)
    mixing grass, sand, rock and wet sediment by its ``slope``, height, ``flow`` and ``deposition``; computes
    ``NEEDED_MAPS`` first when the mesh has no float point attributes of those names (then it must be a grid
    mesh). ``UserError`` naming the problem; then nothing changes. Returns the material."""
    if not isinstance(obj, bpy.types.Object) or obj.type != "MESH":
        raise UserError(f"object: expected a mesh object, got {getattr(obj, 'name', type(obj).__name__)!r}")
    mesh_io.check_editable(obj)
    mesh = mesh_io.mesh_of(obj)
    missing = [name for name in NEEDED_MAPS if not _point_floats(mesh, name)]
    if missing:
        write_terrain_maps(obj, missing, attributes=True, vertex_groups=False, images=False, **MAP_DEFAULTS)
    z = mesh_io.read_positions(mesh)[:, 2]
    low, high = float(z.min()), float(z.max())
    material = bpy.data.materials.new(f"{obj.name} Terrain")
    if material.node_tree is None:  # Blender < 5.0 makes node trees on request only
        material.use_nodes = True
    tree = cast(bpy.types.ShaderNodeTree, material.node_tree)
    sand_at = low + sand_height * max(high - low, 1e-6)
    sand_blend = blend * 0.2 * max(high - low, 1e-6)
    height = _link_out(tree, tree.nodes.new("ShaderNodeTexCoord").outputs["Object"], "ShaderNodeSeparateXYZ", "Z")
    covers = {
        "sand": _step(tree, height, sand_at, sand_blend, below=True),
        "rock": _step(tree, _attribute(tree, "slope"), rock_slope, blend * 20.0),
        "wet": _step(tree, _attribute(tree, "flow"), wet_flow, blend * 2.0),
    }
    if _point_floats(mesh, DEPOSITION):
        covers["wet"] = _maximum(tree, covers["wet"], _deposition(tree, mesh))
    bsdf = next(node for node in tree.nodes if node.bl_idname == "ShaderNodeBsdfPrincipled")
    colour, rough = LAYERS["grass"]
    colour_socket: object = (*colour, 1.0)
    rough_socket: object = rough
    for layer, cover in covers.items():
        colour_socket = _mix(tree, "RGBA", colour_socket, (*LAYERS[layer][0], 1.0), cover)
        rough_socket = _mix(tree, "FLOAT", rough_socket, LAYERS[layer][1], cover)
    tree.links.new(cast(bpy.types.NodeSocket, colour_socket), bsdf.inputs["Base Color"])
    tree.links.new(cast(bpy.types.NodeSocket, rough_socket), bsdf.inputs["Roughness"])
    if obj.material_slots:
        obj.material_slots[0].material = material
    else:
        mesh.materials.append(material)
    return material


def _point_floats(mesh: bpy.types.Mesh, name: str) -> bool:
    attribute = mesh.attributes.get(name)
    return attribute is not None and attribute.domain == "POINT" and attribute.data_type == "FLOAT"


def _link_out(tree, socket, kind: str, output: str):
    """A new ``kind`` node fed by ``socket``; its output ``output``."""
    node = tree.nodes.new(kind)
    tree.links.new(socket, node.inputs[0])
    return node.outputs[output]


def _attribute(tree, name: str):
    """The ``Fac`` of an Attribute node reading the point attribute ``name``."""
    node = tree.nodes.new("ShaderNodeAttribute")
    node.attribute_type, node.attribute_name = "GEOMETRY", name
    return node.outputs["Fac"]


def _step(tree, value, at: float, width: float, below: bool = False):
    """A smoothstep of ``value`` from 0 at ``at - width / 2`` to 1 at ``at + width / 2`` (reversed if
    ``below``): a Map Range node."""
    node = tree.nodes.new("ShaderNodeMapRange")
    node.interpolation_type = "SMOOTHSTEP"
    half = max(width, 1e-6) / 2.0
    start, end = (at + half, at - half) if below else (at - half, at + half)
    node.inputs["From Min"].default_value, node.inputs["From Max"].default_value = start, end
    tree.links.new(value, node.inputs["Value"])
    return node.outputs["Result"]


def _maximum(tree, a, b):
    node = tree.nodes.new("ShaderNodeMath")
    node.operation = "MAXIMUM"
    tree.links.new(a, node.inputs[0])
    tree.links.new(b, node.inputs[1])
    return node.outputs[0]


def _deposition(tree, mesh: bpy.types.Mesh):
    """``deposition`` / its 95th percentile where it is non-zero, clamped to 0..1."""
    values = np.empty(len(mesh.vertices), dtype=np.float32)
    cast(Any, mesh.attributes[DEPOSITION]).data.foreach_get("value", values)
    positive = values[values > 0]
    top = float(np.percentile(positive, 95)) if positive.size else 1.0
    node = tree.nodes.new("ShaderNodeMath")
    node.operation, node.use_clamp = "DIVIDE", True
    tree.links.new(_attribute(tree, DEPOSITION), node.inputs[0])
    node.inputs[1].default_value = max(top, 1e-12)
    return node.outputs[0]


MIX_SOCKETS = {"FLOAT": (2, 3, 0), "RGBA": (6, 7, 2)}
"""A Mix node's A and B inputs and its Result output per data type (input 0 is the float Factor)."""


def _mix(tree, data_type: str, a: object, b: object, factor):
    """A Mix node of ``data_type`` from ``a`` to ``b`` (sockets or values) by the socket ``factor``."""
    node = tree.nodes.new("ShaderNodeMix")
    node.data_type = data_type
    first, second, result = MIX_SOCKETS[data_type]
    tree.links.new(factor, node.inputs[0])
    for index, value in ((first, a), (second, b)):
        if isinstance(value, bpy.types.NodeSocket):
            tree.links.new(value, node.inputs[index])
        else:
            node.inputs[index].default_value = value
    return node.outputs[result]


class NOISEWRIGHT_OT_terrain_material(OptionsOperator, bpy.types.Operator):
    """Give the active grid mesh a material of grass, sand, rock and wet sediment from its terrain maps"""

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
