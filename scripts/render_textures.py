"""Render the texture-bake picture of the README (Cycles on the CPU): a UDIM bake of 3D noise and a normal map.

    python scripts/render_textures.py                    # docs/images/uv_bake.png
    python scripts/render_textures.py --out /tmp/t.png --samples 32 --width 640 --height 320

Left: a cube whose UV layout spans UDIM tiles 1001 and 1002, baked by *Bake Noise to UVs* (3D Perlin fBm at
the surface, so the pattern runs on across every edge although each face is its own UV island), shown
through a colour ramp. Right: a plane shaded only by a normal map from *Bake Noise Texture* (Map: Normal
Map). The tiles are written to a temporary folder; the picture whole or not at all; its path is printed.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
from collections.abc import Sequence
from importlib.util import module_from_spec, spec_from_file_location
from pathlib import Path

import bpy

if "_blender_addon" not in sys.modules:  # by its path: ``blender --python`` leaves scripts/ off sys.path (docs/cli.md)
    _spec = spec_from_file_location("_blender_addon", Path(__file__).resolve().with_name("_blender_addon.py"))
    _spec.loader.exec_module(_module := module_from_spec(_spec))
    sys.modules["_blender_addon"] = _module
addon = sys.modules["_blender_addon"]
scene = addon.sibling("_scene")

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "docs" / "images" / "uv_bake.png"


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"output PNG (default {DEFAULT_OUT})")
    scene.add_render_arguments(parser, addon.integer, 480, 240)


def _material(name: str, image: bpy.types.Image, normal: bool) -> bpy.types.Material:
    """Base colour from ``image`` through a ramp, or a plain surface bent by ``image`` as a normal map."""
    material = bpy.data.materials.new(name)
    material.use_nodes = True
    tree = material.node_tree
    shader = tree.nodes["Principled BSDF"]
    texture = tree.nodes.new("ShaderNodeTexImage")
    texture.image = image
    if normal:
        bend = tree.nodes.new("ShaderNodeNormalMap")
        tree.links.new(texture.outputs["Color"], bend.inputs["Color"])
        tree.links.new(bend.outputs["Normal"], shader.inputs["Normal"])
        shader.inputs["Base Color"].default_value = (0.55, 0.5, 0.45, 1.0)
    else:
        ramp = tree.nodes.new("ShaderNodeValToRGB")
        ramp.color_ramp.elements[0].position = 0.3
        ramp.color_ramp.elements[0].color = (0.02, 0.06, 0.25, 1.0)
        ramp.color_ramp.elements[1].position = 0.7
        ramp.color_ramp.elements[1].color = (0.95, 0.6, 0.15, 1.0)
        tree.links.new(texture.outputs["Color"], ramp.inputs["Fac"])
        tree.links.new(ramp.outputs["Color"], shader.inputs["Base Color"])
    shader.inputs["Roughness"].default_value = 0.6
    return material


def build(package, folder: Path) -> bpy.types.Object:
    """The two objects, baked and shaded; returns an empty at their middle for the camera."""
    bpy.ops.wm.read_homefile(use_empty=True)
    settings = bpy.context.scene.noisewright
    settings.kind, settings.octaves, settings.frequency = "perlin", 4, 2.0
    bpy.ops.mesh.primitive_cube_add(size=1.6, location=(-1.3, 0.0, 0.8), rotation=(0.0, 0.0, math.radians(20.0)))
    cube = bpy.context.active_object
    uv = cube.data.uv_layers.active.uv
    for polygon in list(cube.data.polygons)[:3]:  # half the faces into UDIM tile 1002
        for loop in polygon.loop_indices:
            uv[loop].vector = (uv[loop].vector[0] + 1.0, uv[loop].vector[1])
    result = bpy.ops.noisewright.bake_uv(
        width=512, height=512, margin=8, save_format="PNG_8", filepath=str(folder / "cube.png"), image_name="Cube"
    )
    if result != {"FINISHED"}:
        raise RuntimeError("Bake Noise to UVs did not finish")
    cube.data.materials.append(_material("Cube", bpy.data.images["Cube"], normal=False))
    bpy.ops.mesh.primitive_plane_add(size=2.6, location=(1.4, 0.0, 0.0))
    plane = bpy.context.active_object
    settings.dimensions, settings.tiling, settings.octaves = "2", True, 5
    result = bpy.ops.noisewright.bake_texture(
        image_name="Normals", width=1024, height=1024, map_type="NORMAL", normal_strength=0.2
    )
    if result != {"FINISHED"}:
        raise RuntimeError("Bake Noise Texture did not finish")
    plane.data.materials.append(_material("Plane", bpy.data.images["Normals"], normal=True))
    bpy.ops.object.empty_add(location=(0.0, 0.0, 0.3))
    return bpy.context.active_object


def main(argv: Sequence[str] | None = None) -> int:
    parser, args = addon.parse_arguments(__doc__.split("\n\n")[0], _add_arguments, argv)
    package = addon.addon_package()
    out = addon.output_file(parser, "--out", args.out, (".png",))
    try:
        with tempfile.TemporaryDirectory(prefix="noisewright-tiles-") as folder:
            with addon.step("baking a UDIM cube and a normal map"):
                middle = build(package, Path(folder))
            scene.stage(middle, distance=9.0, sun_angle=2.2)
            with addon.step(f"rendering ({args.width}x{args.height}, {args.samples} samples)"):
                scene.render_png(out, args.width, args.height, args.samples, package.noise_core.io.files.replacing)
    except (addon.AddonError, package.errors.UserError, OSError, RuntimeError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
