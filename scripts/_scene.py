"""Scene pieces the demo and the preset pictures share: a terrain material, camera and sun, a Cycles render.

Loaded by the entry points by its path (``_blender_addon.sibling("_scene")``).

The material colours a terrain by height (a ramp from sand through grass to rock and snow over the mesh's
height range), by slope (steep faces turn to rock: the normal's Z below ``ROCK_SLOPE``) and, when the mesh has
them, by the erosion masks of ``api.erode`` (``deposition`` darkens to wet sediment, ``erosion`` to bare rock).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

import bpy
import numpy as np

PALETTES = {
    "alpine": (
        (0.0, (0.30, 0.33, 0.14)),
        (0.3, (0.13, 0.22, 0.06)),
        (0.55, (0.30, 0.28, 0.25)),
        (0.8, (0.9, 0.92, 0.95)),
    ),
    "sand": ((0.0, (0.45, 0.30, 0.16)), (0.5, (0.72, 0.55, 0.33)), (1.0, (0.86, 0.72, 0.50))),
    "canyon": (
        (0.0, (0.42, 0.22, 0.12)),
        (0.4, (0.62, 0.33, 0.17)),
        (0.75, (0.74, 0.50, 0.30)),
        (1.0, (0.55, 0.42, 0.28)),
    ),
    "meadow": ((0.0, (0.10, 0.20, 0.05)), (0.5, (0.20, 0.34, 0.08)), (1.0, (0.36, 0.42, 0.16))),
    "island": (
        (0.0, (0.04, 0.16, 0.30)),
        (0.06, (0.70, 0.62, 0.42)),
        (0.14, (0.16, 0.30, 0.07)),
        (0.7, (0.30, 0.28, 0.24)),
    ),
}
"""Height ramps, ``(position in the height range, colour)``: sand to grass to rock to snow, desert, island."""
ROCK = (0.28, 0.25, 0.22)
SEDIMENT = (0.20, 0.15, 0.10)
ROCK_SLOPE = (0.72, 0.88)
"""Normal Z from which faces are all rock (first) to all ramp colour (second)."""


def _node(nodes, kind: str, location: tuple[float, float], **inputs):
    node = nodes.new(kind)
    node.location = location
    for name, value in inputs.items():
        node.inputs[name].default_value = value
    return node


def _mix(tree, a, b, factor, location):
    """A colour mix node ``a`` -> ``b`` by ``factor`` (sockets or colours)."""
    mix = tree.nodes.new("ShaderNodeMix")
    mix.data_type = "RGBA"
    mix.location = location
    for socket, value in ((mix.inputs[6], a), (mix.inputs[7], b), (mix.inputs[0], factor)):
        if isinstance(value, bpy.types.NodeSocket):
            tree.links.new(value, socket)
        else:
            socket.default_value = (*value, 1.0) if len(value) == 3 else value
    return mix.outputs[2]


def terrain_material(obj: bpy.types.Object, palette: str = "alpine", name: str = "Terrain") -> bpy.types.Material:
    """A height/slope (and erosion-mask) material for the terrain ``obj`` with the ramp ``PALETTES[palette]``,
    added to its slots."""
    heights = np.empty(len(obj.data.vertices) * 3, dtype=np.float32)
    obj.data.vertices.foreach_get("co", heights)
    low, high = float(heights[2::3].min()), float(heights[2::3].max())
    material = bpy.data.materials.new(name)
    if material.node_tree is None:  # Blender < 5.0 makes node trees on request only
        material.use_nodes = True
    tree = material.node_tree
    nodes, links = tree.nodes, tree.links
    coordinates = _node(nodes, "ShaderNodeTexCoord", (-1200, 200))
    position = _node(nodes, "ShaderNodeSeparateXYZ", (-1000, 200))
    links.new(coordinates.outputs["Object"], position.inputs[0])
    to_unit = _node(nodes, "ShaderNodeMapRange", (-800, 200))
    to_unit.inputs["From Min"].default_value = low
    to_unit.inputs["From Max"].default_value = max(high, low + 1e-6)
    links.new(position.outputs["Z"], to_unit.inputs["Value"])
    ramp = _node(nodes, "ShaderNodeValToRGB", (-600, 200))
    elements = ramp.color_ramp.elements
    for index, (at, color) in enumerate(PALETTES[palette]):
        element = elements[index] if index < len(elements) else elements.new(at)
        element.position, element.color = at, (*color, 1.0)
    links.new(to_unit.outputs["Result"], ramp.inputs["Fac"])
    geometry = _node(nodes, "ShaderNodeNewGeometry", (-1000, -150))
    normal = _node(nodes, "ShaderNodeSeparateXYZ", (-800, -150))
    links.new(geometry.outputs["Normal"], normal.inputs[0])
    flatness = _node(nodes, "ShaderNodeMapRange", (-600, -150))
    flatness.inputs["From Min"].default_value, flatness.inputs["From Max"].default_value = ROCK_SLOPE
    links.new(normal.outputs["Z"], flatness.inputs["Value"])
    color = _mix(tree, ROCK, ramp.outputs["Color"], flatness.outputs["Result"], (-350, 100))
    attributes = obj.data.attributes
    if "erosion" in attributes and "deposition" in attributes:
        color = _mix(tree, color, ROCK, _mask(tree, obj, "erosion", (-600, -400)), (-150, 0))
        color = _mix(tree, color, SEDIMENT, _mask(tree, obj, "deposition", (-600, -600)), (50, -100))
    links.new(color, nodes["Principled BSDF"].inputs["Base Color"])
    nodes["Principled BSDF"].inputs["Roughness"].default_value = 0.9
    obj.data.materials.append(material)
    return material


def _mask(tree, obj: bpy.types.Object, attribute: str, location: tuple[float, float]):
    """``clamp(attribute / its 95th percentile where non-zero)``: a 0..1 factor from an erosion mask attribute."""
    values = np.empty(len(obj.data.vertices), dtype=np.float32)
    obj.data.attributes[attribute].data.foreach_get("value", values)
    nonzero = values[values > 0]
    top = float(np.percentile(nonzero, 95)) if nonzero.size else 1.0
    node = _node(tree.nodes, "ShaderNodeAttribute", location)
    node.attribute_name = attribute
    scale = _node(tree.nodes, "ShaderNodeMath", (location[0] + 200, location[1]))
    scale.operation, scale.use_clamp = "MULTIPLY", True
    scale.inputs[1].default_value = 1.0 / max(top, 1e-12)
    tree.links.new(node.outputs["Fac"], scale.inputs[0])
    return scale.outputs[0]


def add_render_arguments(
    parser: argparse.ArgumentParser, integer: Callable, width: int, height: int, samples: int = 16
) -> None:
    """The picture scripts' ``--width``, ``--height`` and ``--samples`` (``integer`` is ``_blender_addon``'s)."""
    parser.add_argument("--width", type=integer(16, 4096), default=width, help=f"picture width (default {width})")
    parser.add_argument("--height", type=integer(16, 4096), default=height, help=f"picture height (default {height})")
    parser.add_argument("--samples", type=integer(1, 4096), default=samples, help=f"Cycles samples (default {samples})")


def stage(target: bpy.types.Object, distance: float, sun_angle: float = 0.5, outdoors: bool = False) -> None:
    """A camera looking down at ``target`` from ``distance`` (south-west, 35 degrees up) and a low sun (or, with
    ``outdoors``, a physical sky, its sun and haze: ``outdoors``)."""
    scene = bpy.context.scene
    camera = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
    camera.data.lens = 40.0
    elevation, heading = math.radians(35.0), math.radians(-30.0)
    center = np.array(target.location) + np.array((0.0, 0.0, target.dimensions.z * 0.3))
    offset = distance * np.array(
        (math.sin(heading) * math.cos(elevation), -math.cos(heading) * math.cos(elevation), math.sin(elevation))
    )
    camera.location = tuple(center + offset)
    direction = -offset
    camera.rotation_euler = (math.atan2(math.hypot(direction[0], direction[1]), -direction[2]), 0.0, heading)
    sun = bpy.data.objects.new("Sun", bpy.data.lights.new("Sun", type="SUN"))
    sun.data.energy = 4.0
    sun.rotation_euler = (math.radians(55.0), 0.0, sun_angle)
    for obj in (camera, sun):
        scene.collection.objects.link(obj)
    scene.camera = camera
    if outdoors:
        sky_and_haze(target, sun)
        return
    world = scene.world or bpy.data.worlds.new("World")
    scene.world = world
    if world.node_tree is None:
        world.use_nodes = True
    world.node_tree.nodes["Background"].inputs["Color"].default_value = (0.55, 0.65, 0.8, 1.0)
    world.node_tree.nodes["Background"].inputs["Strength"].default_value = 0.6


SKY_TYPES = ("MULTIPLE_SCATTERING", "NISHITA")
"""The physical sky models, preferred first: Blender 5.0's multiple scattering, else the single scattering of 4.x
(Nishita; 5.0 calls it ``SINGLE_SCATTERING``)."""
SUN_ELEVATION, SUN_ROTATION = math.radians(16.0), math.radians(-62.0)
"""The sun: 16 degrees up, west-south-west (the sky's rotation 0 puts it in the south, -Y)."""
SKY_STRENGTH, SKY_SEEN, SUN_STRENGTH = 0.1, 0.5, 3.0
"""The sky's strength as it lights the scene and as the camera sees it, and the sun's (W/m²)."""
HAZE_DENSITY = 0.04
"""Haze: the extinction coefficient of the volume around the terrain per terrain width (about 11 % lost per
width of air)."""


def sky_and_haze(target: bpy.types.Object, sun: bpy.types.Object) -> None:
    """A physical sky (Sky Texture, ``SKY_TYPES``; its sun disc off), ``sun`` turned to the sky's sun, and a box
    of thin haze (Principled Volume) around ``target`` up to the camera."""
    scene = bpy.context.scene
    world = bpy.data.worlds.new("Sky")
    scene.world = world
    if world.node_tree is None:
        world.use_nodes = True
    nodes = world.node_tree.nodes
    sky = nodes.new("ShaderNodeTexSky")
    kinds = {item.identifier for item in sky.bl_rna.properties["sky_type"].enum_items}
    sky.sky_type = next(kind for kind in SKY_TYPES if kind in kinds)
    sky.sun_disc = False
    sky.sun_elevation, sky.sun_rotation = SUN_ELEVATION, SUN_ROTATION
    sky.altitude = 800.0
    background = nodes["Background"]
    world.node_tree.links.new(sky.outputs["Color"], background.inputs["Color"])
    strength = nodes.new("ShaderNodeMapRange")  # the sky as the camera sees it, dimmer as it lights the ground
    strength.inputs["To Min"].default_value, strength.inputs["To Max"].default_value = SKY_STRENGTH, SKY_SEEN
    world.node_tree.links.new(nodes.new("ShaderNodeLightPath").outputs["Is Camera Ray"], strength.inputs["Value"])
    world.node_tree.links.new(strength.outputs["Result"], background.inputs["Strength"])
    sun.data.energy = SUN_STRENGTH
    sun.data.color = (1.0, 0.93, 0.85)
    sun.data.angle = math.radians(1.0)
    sun.rotation_euler = (math.pi / 2 - SUN_ELEVATION, 0.0, SUN_ROTATION)
    size = max(target.dimensions.x, target.dimensions.y)
    bpy.ops.mesh.primitive_cube_add(location=target.location, scale=(2.0 * size, 2.0 * size, 1.5 * size))
    haze = bpy.context.active_object
    haze.name = "Haze"
    material = bpy.data.materials.new("Haze")
    if material.node_tree is None:
        material.use_nodes = True
    tree = material.node_tree
    tree.nodes.remove(tree.nodes["Principled BSDF"])
    volume = tree.nodes.new("ShaderNodeVolumePrincipled")
    volume.inputs["Density"].default_value = HAZE_DENSITY / size
    volume.inputs["Color"].default_value = (0.75, 0.82, 0.95, 1.0)
    tree.links.new(volume.outputs["Volume"], tree.nodes["Material Output"].inputs["Volume"])
    haze.data.materials.append(material)
    haze.visible_shadow = False


def render_png(
    path: Path,
    width: int,
    height: int,
    samples: int,
    replacing: Callable[[Path], AbstractContextManager[Path]],
    denoise: bool = False,
) -> Path:
    """Render the scene's camera with Cycles on the CPU into the PNG ``path``, written whole or not at all
    through ``replacing`` (the add-on's ``noise_core.io.files.replacing``); ``denoise``: Cycles' denoiser on, and
    at most one diffuse and one glossy bounce (the outdoor renders)."""
    scene = bpy.context.scene
    scene.render.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = samples
    scene.cycles.use_denoising = denoise
    if denoise:  # few light bounces: an outdoor scene lit by the sun and the sky needs little more
        cycles = scene.cycles
        cycles.max_bounces, cycles.diffuse_bounces, cycles.glossy_bounces = 3, 1, 1
        cycles.transmission_bounces, cycles.volume_bounces, cycles.transparent_max_bounces = 0, 0, 2
    scene.render.resolution_x, scene.render.resolution_y = width, height
    scene.render.resolution_percentage = 100
    scene.render.image_settings.file_format = "PNG"
    scene.render.image_settings.color_mode = "RGB"
    scene.render.film_transparent = False
    with replacing(path) as temporary:
        scene.render.filepath = str(temporary)
        scene.render.use_file_extension = False
        bpy.ops.render.render(write_still=True)
        if not temporary.is_file() or temporary.stat().st_size == 0:
            raise OSError(f"Cycles wrote nothing to {temporary}")
    return path


def optimise_png(path: Path, replacing: Callable[[Path], AbstractContextManager[Path]], colours: int = 256) -> Path:
    """Rewrite the 8-bit RGB PNG ``path`` with at most ``colours`` colours (a palette by median cut, dithered) and
    zlib's best compression: about a third of the size, for pictures in the repository."""
    from PIL import Image  # the README pictures' scripts run where Pillow is (the add-on bundles it)

    with Image.open(path) as image:
        palette = image.convert("RGB").quantize(
            colours, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.FLOYDSTEINBERG
        )
    with replacing(path) as temporary:
        palette.save(temporary, format="PNG", optimize=True)
    return path


REAL_TILES = ("himalaya-annapurna", "karakoram", "norway", "highlands", "colorado")
"""The SRTM tiles of ``tests/data/dems`` (16-bit PNG, elevation in feet, 648 x 648 cells of about 90 m)."""
TILE_CELL = 90.0
FOOT = 0.3048


def real_tile(name: str) -> tuple[np.ndarray, float]:
    """The SRTM tile ``name`` (``REAL_TILES``): heights in metres and the cell size."""
    from PIL import Image

    with Image.open(Path(__file__).resolve().parents[1] / "tests" / "data" / "dems" / f"{name}.png") as image:
        return np.asarray(image, dtype=np.float64) * FOOT, TILE_CELL


def hillshade(heights: np.ndarray, cell_size: float, pixels: int) -> np.ndarray:
    """Grey Lambertian shading of ``heights`` (rows southwards) under a sun from the north-west, 45 degrees up,
    area-averaged to ``pixels`` square, as 8-bit RGB (0.1..1 of white)."""
    gy, gx = np.gradient(heights, cell_size)
    sun = np.array([-1.0, -1.0, math.sqrt(2.0)]) / 2.0
    shade = np.clip((-gx * sun[0] - gy * sun[1] + sun[2]) / np.sqrt(gx * gx + gy * gy + 1.0), 0.0, 1.0)
    edges = np.linspace(0, shade.shape[0], pixels + 1).astype(int)
    if shade.shape[0] < pixels:
        nearest = np.arange(pixels) * shade.shape[0] // pixels
        shade = shade[nearest][:, nearest]
    else:
        shade = np.add.reduceat(shade, edges[:-1], axis=0) / np.diff(edges)[:, None]
        shade = np.add.reduceat(shade, edges[:-1], axis=1) / np.diff(edges)[None, :]
    return np.repeat(np.round(255 * (0.1 + 0.9 * shade))[..., None], 3, axis=2).astype(np.uint8)


def grid_heights(obj: bpy.types.Object) -> np.ndarray:
    """The heights of the grid mesh ``obj`` as rows (north first) by columns (west first)."""
    positions = np.empty(len(obj.data.vertices) * 3, dtype=np.float64)
    obj.data.vertices.foreach_get("co", positions)
    x, y, z = positions.reshape(-1, 3).T
    columns = len(np.unique(np.round(x, 6)))
    order = np.lexsort((x, -y))
    return z[order].reshape(-1, columns)
