"""Shader node pieces of the terrain material (``terrain_material``): steps, mixes and the close-range detail.

Each helper adds nodes to a material's node tree and returns an output socket. The detail is procedural, in the
object's space scaled to ``detail`` features across the terrain: value noise for grass, sand and snow; for rock,
Voronoi cracks projected on the three axis planes and blended by the normal (triplanar or box mapping, Geiss,
"Generating Complex Procedural Terrains Using the GPU", GPU Gems 3, ch. 1, 2007) over strata bands: the band
value ``b = fract(bands * (z + warp))`` of the height ``z`` (in the terrain's height range), warped by noise, read
through a colour ramp of two rock colours.
"""

from __future__ import annotations

from typing import Any

import bpy

Socket = Any
"""A node output socket (``bpy.types.NodeSocket``), or a value where an input takes one."""


def node(tree, kind: str, *links: Socket, **values: Any):
    """A new ``kind`` node whose inputs 0, 1, ... take ``links`` (sockets or values), with attributes ``values``."""
    new = tree.nodes.new(kind)
    for name, value in values.items():
        setattr(new, name, value)
    for index, value in enumerate(links):
        feed(tree, value, new.inputs[index])
    return new


def feed(tree, value: Socket, socket) -> None:
    """Link ``value`` into the input ``socket`` if it is a socket, else set its default value."""
    if isinstance(value, bpy.types.NodeSocket):
        tree.links.new(value, socket)
    elif value is not None:
        socket.default_value = value


def math(tree, operation: str, *values: Socket, clamp: bool = False) -> Socket:
    """A Math node ``operation`` of ``values``; its output."""
    return node(tree, "ShaderNodeMath", *values, operation=operation, use_clamp=clamp).outputs[0]


def attribute(tree, name: str) -> Socket:
    """The ``Fac`` of an Attribute node reading the point attribute ``name``."""
    return node(tree, "ShaderNodeAttribute", attribute_type="GEOMETRY", attribute_name=name).outputs["Fac"]


def step(tree, value: Socket, at: float, width: float, below: bool = False) -> Socket:
    """A smoothstep of ``value`` from 0 at ``at - width / 2`` to 1 at ``at + width / 2`` (reversed if
    ``below``): a Map Range node."""
    new = node(tree, "ShaderNodeMapRange", interpolation_type="SMOOTHSTEP")
    half = max(width, 1e-6) / 2.0
    start, end = (at + half, at - half) if below else (at - half, at + half)
    new.inputs["From Min"].default_value, new.inputs["From Max"].default_value = start, end
    feed(tree, value, new.inputs["Value"])
    return new.outputs["Result"]


def scaled(tree, value: Socket, top: float) -> Socket:
    """``clamp(value / top, 0, 1)``."""
    return math(tree, "DIVIDE", value, max(top, 1e-12), clamp=True)


MIX_SOCKETS = {"FLOAT": (2, 3, 0), "RGBA": (6, 7, 2)}
"""A Mix node's A and B inputs and its Result output per data type (input 0 is the float Factor)."""


def mix(tree, data_type: str, a: Socket, b: Socket, factor: Socket, blend: str = "MIX") -> Socket:
    """A Mix node of ``data_type`` from ``a`` to ``b`` (sockets or values) by ``factor`` (``blend``: the
    colour blend mode, ``"MULTIPLY"``...)."""
    new = node(tree, "ShaderNodeMix", data_type=data_type)
    if data_type == "RGBA":
        new.blend_type = blend
    first, second, result = MIX_SOCKETS[data_type]
    for value, socket in ((factor, new.inputs[0]), (a, new.inputs[first]), (b, new.inputs[second])):
        feed(tree, value, socket)
    return new.outputs[result]


def rgba(colour) -> tuple[float, float, float, float]:
    """A colour option (r, g, b) as a socket value."""
    return (*colour[:3], 1.0)


def shade(colour, factor: float) -> tuple[float, float, float, float]:
    """``colour`` times ``factor`` (clamped to 1), as a socket value."""
    return (*(min(1.0, c * factor) for c in colour[:3]), 1.0)


def noise(tree, coordinates: Socket, scale: float, detail: float = 4.0) -> Socket:
    """A Noise texture's value (about 0..1, mean 0.5) at ``coordinates`` times ``scale``."""
    texture = node(tree, "ShaderNodeTexNoise", coordinates)
    texture.inputs["Scale"].default_value, texture.inputs["Detail"].default_value = scale, detail
    texture.inputs["Roughness"].default_value = 0.55
    return texture.outputs[0]


def varied(tree, colour, value: Socket, amount: float = 0.35) -> Socket:
    """``colour`` darker and lighter by ``amount`` as ``value`` runs 0..1."""
    return mix(tree, "RGBA", shade(colour, 1.0 - amount), shade(colour, 1.0 + amount), value)


def triplanar_cracks(tree, coordinates: Socket, normal: Socket, scale: float) -> Socket:
    """Rock cracks (0 in a crack, 1 on the faces between) by box mapping: a 2D Voronoi's distance to its cells'
    edges on the YZ, XZ and XY planes, mixed by the normal's components to the fourth power (normalised)."""
    axes = node(tree, "ShaderNodeSeparateXYZ", coordinates).outputs
    weights_in = node(tree, "ShaderNodeSeparateXYZ", normal).outputs
    total: Socket = None
    weights = []
    for axis in range(3):
        weights.append(math(tree, "POWER", math(tree, "ABSOLUTE", weights_in[axis]), 4.0))
    norm = math(tree, "ADD", math(tree, "ADD", weights[0], weights[1]), math(tree, "ADD", weights[2], 1e-6))
    for axis, (u, v) in enumerate(((1, 2), (0, 2), (0, 1))):
        plane = node(tree, "ShaderNodeCombineXYZ", axes[u], axes[v], float(axis) * 17.0).outputs[0]
        voronoi = node(tree, "ShaderNodeTexVoronoi", plane, voronoi_dimensions="2D", feature="DISTANCE_TO_EDGE")
        voronoi.inputs["Scale"].default_value = scale
        crack = step(tree, voronoi.outputs["Distance"], 0.04, 0.05)
        part = math(tree, "MULTIPLY", crack, math(tree, "DIVIDE", weights[axis], norm))
        total = part if total is None else math(tree, "ADD", total, part)
    return total


def strata_bands(tree, height: Socket, warp: Socket, bands: float) -> Socket:
    """The strata band value ``fract(bands * height + warp)`` (``height`` 0..1 across the terrain's range)."""
    return math(tree, "FRACT", math(tree, "MULTIPLY_ADD", height, bands, warp))


def two_tone(tree, value: Socket, low, high, positions: tuple[float, ...] = (0.0, 0.35, 0.55, 0.8)) -> Socket:
    """A Color Ramp of ``value``: ``low``, ``high``, ``low``, ``high`` at ``positions`` (hard-ish bands)."""
    ramp = node(tree, "ShaderNodeValToRGB", value)
    elements = ramp.color_ramp.elements
    for index, at in enumerate(positions):
        element = elements[index] if index < len(elements) else elements.new(at)
        element.position, element.color = at, rgba(high if index % 2 else low)
    return ramp.outputs["Color"]
