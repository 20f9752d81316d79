"""Noisewright demo: a noise terrain, displaced, with baked height and colour textures, saved as a .blend.

    python scripts/demo.py                      # into ./out/demo (bash scripts/run.sh demo runs this)
    python scripts/demo.py --out /tmp/demo --size large --seed 3 --octaves 8
    blender --background --python scripts/demo.py -- --out /tmp/demo

Runs on the embedded Blender (the ``bpy`` module) or inside Blender, with the Noisewright add-on loaded
as a user would have it (see ``_blender_addon``). Steps: add a terrain grid raised by fractal Perlin
noise, displace it along its normals by finer noise, bake the terrain's noise as a 32-bit float height
map (``height.exr``) and as a colour ramp (``color.png``, 16-bit), and save ``terrain.blend`` (terrain
with a material using ``color.png``, a camera and a sun) next to them. The terrain spans the noise
square 0..1 that the textures are baked on, so ``height.exr`` is its height field before the detail
displacement. The noise options (``--kind``, ``--seed``, ``--octaves`` ...) change the terrain noise; the
detail noise uses the terrain's seed + 100. Every file is written whole or not at all.
"""

from __future__ import annotations

import argparse
import runpy
import sys
from collections.abc import Sequence
from pathlib import Path

import bpy

addon = runpy.run_path(str(Path(__file__).with_name("_blender_addon.py")), run_name="_blender_addon")

SIZES = {"small": (64, 128), "medium": (256, 1024), "large": (1024, 4096)}
"""Preset -> (terrain subdivisions per side, texture width and height in pixels)."""
TERRAIN_NOISE = {"kind": "perlin", "seed": 7, "dimensions": "2", "plane": "XY", "frequency": 3.0, "octaves": 6}
DETAIL_NOISE = {"kind": "perlin", "dimensions": "2", "plane": "XY", "frequency": 48.0, "octaves": 2}
TERRAIN_HEIGHT = 0.25
DETAIL_STRENGTH = 0.01
DETAIL_SEED_OFFSET = 100
RAMP = {"color_low": (0.01, 0.05, 0.01), "color_high": (0.8, 0.7, 0.55)}
FILES = {"blend": "terrain.blend", "height": "height.exr", "color": "color.png"}


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", type=Path, default=Path("out/demo"), help="output folder (default ./out/demo)")
    parser.add_argument("--size", choices=list(SIZES), default="medium", help="terrain and texture resolution preset")


def _bake(name: str, path: Path, pixels: int, file_format: str, **properties) -> None:
    with addon["step"](f"baking {name} ({pixels}x{pixels}) into {path}"):
        addon["run_api"](
            "bake",
            noise_dimensions="PLANE_2D",
            image=name,
            width=pixels,
            height=pixels,
            use_float=True,
            save_format=file_format,
            filepath=str(path),
            **properties,
        )


def _finish_scene(terrain: bpy.types.Object, color_path: Path) -> None:
    """Give the terrain a material showing ``color_path`` through its UVs; add a camera and a sun."""
    material = bpy.data.materials.new("Noise Terrain")
    if material.node_tree is None:  # Blender < 5.0 makes node trees on request only
        material.use_nodes = True
    nodes = material.node_tree.nodes
    texture = nodes.new("ShaderNodeTexImage")
    texture.image = bpy.data.images.load(str(color_path), check_existing=True)
    material.node_tree.links.new(texture.outputs["Color"], nodes["Principled BSDF"].inputs["Base Color"])
    terrain.data.materials.append(material)
    scene = bpy.context.scene
    camera = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
    camera.location, camera.rotation_euler = (0.0, -1.3, 0.9), (0.95, 0.0, 0.0)
    sun = bpy.data.objects.new("Sun", bpy.data.lights.new("Sun", type="SUN"))
    sun.rotation_euler = (0.6, 0.2, 0.8)
    for obj in (camera, sun):
        scene.collection.objects.link(obj)
    scene.camera = camera


def run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> dict[str, Path]:
    """Make the demo's files in ``args.out``; return them by kind (blend, height, color)."""
    paths = {kind: args.out / name for kind, name in FILES.items()}
    paths = {kind: addon["output_file"](parser, "--out", path, (path.suffix,)) for kind, path in paths.items()}
    subdivisions, pixels = SIZES[args.size]
    bpy.ops.wm.read_homefile(use_empty=True)
    addon["apply_noise_arguments"](parser, args, TERRAIN_NOISE)
    detail_noise = {**DETAIL_NOISE, "seed": bpy.context.scene.noisewright.seed + DETAIL_SEED_OFFSET}
    with addon["step"](f"adding a {subdivisions}x{subdivisions} terrain"):
        terrain = addon["run_api"](
            "add_terrain",
            x_subdivisions=subdivisions,
            y_subdivisions=subdivisions,
            size=1.0,
            offset=(0.5, 0.5),
            height=TERRAIN_HEIGHT,
        )
    addon["set_noise_settings"](detail_noise)
    with addon["step"]("displacing it along its normals by finer noise"):
        addon["run_api"]("displace", objects=[terrain], strength=DETAIL_STRENGTH)
    addon["apply_noise_arguments"](parser, args, TERRAIN_NOISE)
    _bake("Height", paths["height"], pixels, "OPEN_EXR", color_mode="GRAYSCALE")
    _bake("Color", paths["color"], pixels, "PNG", color_mode="RAMP", **RAMP)
    _finish_scene(terrain, paths["color"])
    addon["save_blend"](paths["blend"])
    return paths


def main(argv: Sequence[str] | None = None) -> int:
    parser, args = addon["parse_arguments"](__doc__.split("\n\n")[0], _add_arguments, argv)
    try:
        paths = run(parser, args)
    except (addon["AddonError"], OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print("\nNoisewright demo written to", paths["blend"].parent)
    for kind, path in paths.items():
        print(f"  {kind:6s} {path}")
    print(f"Open it with: blender {paths['blend']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
