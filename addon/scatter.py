"""Scatter node groups: Geometry Nodes that scatter rocks, trees or grass on a terrain by its layers and masks.

``scatter_group(kind)`` builds the node group ``"Noisewright Scatter <Kind>"`` (a modifier: ``is_modifier``). Its
inputs: the terrain; ``Density`` (instances per square unit of surface); ``Weight`` and ``Avoid``, the names of
float point attributes (material layers such as ``talus``, ``moisture``, ``snow``, or splat weights; empty or
missing: no effect) that scale the density by ``w`` and ``1 - a`` (clamped to 0..1); ``Max Slope``; ``Seed``;
``Scale`` and ``Scale Random``; ``Instance``, an object to scatter instead of the built-in shape. Points are
scattered on the faces by a Poisson process of that density (Distribute Points on Faces, random), only on faces
whose normal is within ``Max Slope`` of up and all of whose corners are dry: ``water_depth`` and ``river`` (Object >
Terrain Water) zero (their face mean is zero). Trees and grass stand upright, rocks follow the ground's normal;
each turns at random about its axis. The output is the terrain with the instances.

The shipped asset library (``assets``) holds these groups, built by ``scripts/build_assets.py``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import bpy

from .terrain_shading import feed, node

WATER = ("water_depth", "river")
"""The water attributes (Object > Terrain Water) where nothing is scattered."""


@dataclass(frozen=True)
class Kind:
    density: float
    weight: str
    avoid: str
    max_slope: float
    """Degrees."""
    scale: float
    upright: bool
    colour: tuple[float, float, float]


KINDS = {
    "rocks": Kind(150.0, "talus", "snow", 60.0, 0.012, False, (0.22, 0.20, 0.18)),
    "trees": Kind(400.0, "", "snow", 30.0, 0.02, True, (0.03, 0.08, 0.025)),
    "grass": Kind(2500.0, "", "snow", 35.0, 0.006, True, (0.09, 0.16, 0.04)),
}
"""Each scatter's defaults: density, weight and avoid layers, max slope, scale, upright, colour."""
BARK = (0.09, 0.06, 0.04)


def group_name(kind: str) -> str:
    return f"Noisewright Scatter {kind.title()}"


def scatter_group(kind: str) -> bpy.types.GeometryNodeTree:
    """A new Geometry Nodes group scattering ``kind`` (a key of ``KINDS``); ``ValueError`` for another kind."""
    if kind not in KINDS:
        raise ValueError(f"kind: expected one of {', '.join(KINDS)}, got {kind!r}")
    spec = KINDS[kind]
    tree: Any = bpy.data.node_groups.new(group_name(kind), "GeometryNodeTree")
    tree.is_modifier = True
    tree.description = f"Scatter {kind} on a terrain by its layers, not in water or on slopes above Max Slope"
    _socket(tree, "Geometry", "NodeSocketGeometry", out=True)
    _socket(tree, "Geometry", "NodeSocketGeometry")
    _socket(tree, "Density", "NodeSocketFloat", spec.density, 0.0, 1e6, "Instances per square unit")
    _socket(tree, "Weight", "NodeSocketString", spec.weight, tip="Layer attribute that scales the density")
    _socket(tree, "Avoid", "NodeSocketString", spec.avoid, tip="Layer attribute where density falls to 0")
    _socket(tree, "Max Slope", "NodeSocketFloat", math.radians(spec.max_slope), 0.0, math.pi / 2, "No instances "
            "on steeper faces", subtype="ANGLE")  # fmt: skip
    _socket(tree, "Seed", "NodeSocketInt", 0)
    _socket(tree, "Scale", "NodeSocketFloat", spec.scale, 0.0, 1e4, "Size of an instance")
    _socket(tree, "Scale Random", "NodeSocketFloat", 0.4, 0.0, 1.0, "Random scale spread", subtype="FACTOR")
    _socket(tree, "Instance", "NodeSocketObject", tip="Object to scatter instead of the built-in shape")
    inputs = node(tree, "NodeGroupInput").outputs
    output = node(tree, "NodeGroupOutput")
    density = _math(tree, "MULTIPLY", inputs["Density"], _layer(tree, inputs["Weight"], 1.0))
    density = _math(tree, "MULTIPLY", density, _math(tree, "SUBTRACT", 1.0, _layer(tree, inputs["Avoid"], 0.0)))
    points = node(tree, "GeometryNodeDistributePointsOnFaces", inputs["Geometry"], _allowed(tree, inputs))
    feed(tree, density, points.inputs["Density"])
    feed(tree, inputs["Seed"], points.inputs["Seed"])
    shape = _switch(tree, _has_mesh(tree, inputs["Instance"]), _builtin(tree, kind, spec), _object(tree, inputs))
    placed = node(tree, "GeometryNodeInstanceOnPoints", points.outputs["Points"], None, shape)
    feed(tree, _rotation(tree, points, spec.upright, inputs["Seed"]), placed.inputs["Rotation"])
    feed(tree, _scale(tree, inputs), placed.inputs["Scale"])
    join = node(tree, "GeometryNodeJoinGeometry")
    for socket in (placed.outputs[0], inputs["Geometry"]):
        tree.links.new(socket, join.inputs[0])
    tree.links.new(join.outputs[0], output.inputs[0])
    return tree


def _socket(tree, name: str, kind: str, default=None, low=None, high=None, tip: str = "", *, out=False, subtype=""):
    socket = tree.interface.new_socket(name, in_out="OUTPUT" if out else "INPUT", socket_type=kind)
    socket.description = tip
    for attribute, value in (("default_value", default), ("min_value", low), ("max_value", high)):
        if value is not None:
            setattr(socket, attribute, value)
    if subtype:
        socket.subtype = subtype
    return socket


def _math(tree, operation: str, *values):
    return node(tree, "ShaderNodeMath", *values, operation=operation).outputs[0]


def _layer(tree, name, missing: float):
    """The float point attribute ``name`` clamped to 0..1, ``missing`` where the geometry has none."""
    attribute = node(tree, "GeometryNodeInputNamedAttribute", name, data_type="FLOAT")
    clamp = node(tree, "ShaderNodeClamp", attribute.outputs["Attribute"])
    choose = node(tree, "GeometryNodeSwitch", input_type="FLOAT")
    feed(tree, attribute.outputs["Exists"], choose.inputs[0])
    feed(tree, missing, choose.inputs[1])
    feed(tree, clamp.outputs[0], choose.inputs[2])
    return choose.outputs[0]


def _compare(tree, operation: str, a, b):
    return node(tree, "FunctionNodeCompare", a, b, data_type="FLOAT", operation=operation).outputs[0]


def _on_faces(tree, value, data_type: str = "FLOAT"):
    """``value`` evaluated on the face domain (a point attribute: the mean of the face's corners)."""
    return node(tree, "GeometryNodeFieldOnDomain", value, domain="FACE", data_type=data_type).outputs[0]


def _allowed(tree, inputs):
    """The faces to scatter on: normal Z at least cos(Max Slope), and no water at any corner."""
    up = node(tree, "ShaderNodeSeparateXYZ", node(tree, "GeometryNodeInputNormal").outputs["Normal"]).outputs["Z"]
    flat = _compare(tree, "GREATER_EQUAL", _on_faces(tree, up), _math(tree, "COSINE", inputs["Max Slope"]))
    keep = flat
    for name in WATER:
        water = node(tree, "GeometryNodeInputNamedAttribute", name, data_type="FLOAT").outputs["Attribute"]
        dry = _compare(tree, "LESS_EQUAL", _on_faces(tree, _math(tree, "ABSOLUTE", water)), 0.0)
        keep = node(tree, "FunctionNodeBooleanMath", keep, dry, operation="AND").outputs[0]
    return keep


def _has_mesh(tree, obj):
    info = node(tree, "GeometryNodeObjectInfo", obj)
    size = node(tree, "GeometryNodeAttributeDomainSize", info.outputs["Geometry"], component="MESH")
    return _compare(tree, "GREATER_THAN", size.outputs["Point Count"], 0.0)


def _object(tree, inputs):
    return node(tree, "GeometryNodeObjectInfo", inputs["Instance"], transform_space="ORIGINAL").outputs["Geometry"]


def _switch(tree, condition, when_false, when_true):
    choose = node(tree, "GeometryNodeSwitch", input_type="GEOMETRY")
    for index, value in enumerate((condition, when_false, when_true)):
        feed(tree, value, choose.inputs[index])
    return choose.outputs[0]


def _material(name: str, colour, roughness: float) -> bpy.types.Material:
    material = bpy.data.materials.get(name) or bpy.data.materials.new(name)
    if material.node_tree is None:
        material.use_nodes = True
    bsdf = next(n for n in material.node_tree.nodes if n.bl_idname == "ShaderNodeBsdfPrincipled")
    bsdf.inputs["Base Color"].default_value = (*colour, 1.0)
    bsdf.inputs["Roughness"].default_value = roughness
    material.diffuse_color = (*colour, 1.0)
    return material


def _painted(tree, geometry, material: bpy.types.Material):
    return node(tree, "GeometryNodeSetMaterial", geometry, None, material).outputs[0]


def _builtin(tree, kind: str, spec: Kind):
    """The built-in shape, 1 unit tall (rocks 1 wide), standing on Z = 0: a lumpy rock, a conifer, a grass tuft."""
    colour = _material(f"Noisewright {kind.title()}", spec.colour, 0.8 if kind == "rocks" else 0.6)
    if kind == "rocks":
        rock = node(tree, "GeometryNodeMeshIcoSphere", 0.5, 2).outputs["Mesh"]
        normal = node(tree, "GeometryNodeInputNormal").outputs["Normal"]
        lumps = node(tree, "ShaderNodeTexNoise")
        lumps.inputs["Scale"].default_value = 1.5
        offset = node(tree, "ShaderNodeVectorMath", normal, None, None, operation="SCALE")
        feed(tree, _math(tree, "MULTIPLY", _math(tree, "SUBTRACT", lumps.outputs[0], 0.5), 0.6),
             offset.inputs["Scale"])  # fmt: skip
        rock = node(tree, "GeometryNodeSetPosition", rock, None, None, offset.outputs[0]).outputs[0]
        transform = node(tree, "GeometryNodeTransform", rock)
        transform.inputs["Translation"].default_value = (0.0, 0.0, 0.1)
        transform.inputs["Scale"].default_value = (1.0, 0.8, 0.55)
        return _painted(tree, transform.outputs[0], colour)
    if kind == "trees":
        crown = node(tree, "GeometryNodeMeshCone", 8, 1, 1, 0.0, 0.3, 0.8)
        trunk = node(tree, "GeometryNodeMeshCone", 6, 1, 1, 0.04, 0.05, 0.3)
        parts = []
        for part, height, material in ((crown, 0.6, colour), (trunk, 0.15, _material("Noisewright Bark", BARK, 0.9))):
            moved = node(tree, "GeometryNodeTransform", part.outputs["Mesh"])
            moved.inputs["Translation"].default_value = (0.0, 0.0, height)
            parts.append(_painted(tree, moved.outputs[0], material))
        join = node(tree, "GeometryNodeJoinGeometry")
        for part in reversed(parts):
            tree.links.new(part, join.inputs[0])
        return join.outputs[0]
    blades = node(tree, "GeometryNodeJoinGeometry")
    for turn in range(3):  # a tuft: three thin blades leaning out
        blade = node(tree, "GeometryNodeMeshCone", 3, 1, 1, 0.0, 0.06, 1.0)
        moved = node(tree, "GeometryNodeTransform", blade.outputs["Mesh"])
        moved.inputs["Translation"].default_value = (0.0, 0.0, 0.45)
        leaned = node(tree, "GeometryNodeTransform", moved.outputs[0])
        leaned.inputs["Rotation"].default_value = (0.25, 0.0, turn * 2.1)
        tree.links.new(leaned.outputs[0], blades.inputs[0])
    return _painted(tree, blades.outputs[0], colour)


def _rotation(tree, points, upright: bool, seed):
    """Upright (trees, grass) or along the face normal (rocks), turned at random about the instance's Z."""
    turn = node(tree, "FunctionNodeRandomValue", data_type="FLOAT_VECTOR")
    turn.inputs[1].default_value = (0.0, 0.0, 2.0 * math.pi)
    feed(tree, _math(tree, "ADD", seed, 7.0), turn.inputs["Seed"])
    spin = node(tree, "FunctionNodeEulerToRotation", turn.outputs[0]).outputs[0]
    if upright:
        return spin
    return node(tree, "FunctionNodeRotateRotation", points.outputs["Rotation"], spin,
                rotation_space="LOCAL").outputs[0]  # fmt: skip


def _scale(tree, inputs):
    spread = node(tree, "FunctionNodeRandomValue", data_type="FLOAT")
    low = _math(tree, "MULTIPLY", inputs["Scale"], _math(tree, "SUBTRACT", 1.0, inputs["Scale Random"]))
    high = _math(tree, "MULTIPLY", inputs["Scale"], _math(tree, "ADD", 1.0, inputs["Scale Random"]))
    feed(tree, low, spread.inputs[2])
    feed(tree, high, spread.inputs[3])
    feed(tree, inputs["Seed"], spread.inputs["Seed"])
    return spread.outputs[1]
