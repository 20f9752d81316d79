"""Noisewright demo: an eroded ridged terrain with a material from its terrain maps, rendered, saved as a .blend.

    python scripts/demo.py                      # into ./out/demo (bash scripts/run.sh demo runs this)
    python scripts/demo.py --out /tmp/demo --size large --seed 3 --octaves 9
    blender --background --python scripts/demo.py -- --out /tmp/demo

Runs on the embedded Blender (the ``bpy`` module) or inside Blender, with the Noisewright add-on loaded
as a user would have it (see ``_blender_addon``). Steps: add a Noise Terrain of ridged multifractal Perlin
noise, eroded by droplets (hydraulic, one per vertex, with gullies) and then by thermal erosion, both kept in the
terrain's settings (re-editable in its panel); export the eroded terrain's heights as a 32-bit float heightmap
(``height.exr``: its own grid, values 0..1 over the height range that its sidecar ``height.exr.json`` records, as
Export Heightmap writes them); bake the terrain's noise as a colour ramp (``color.png``, 16-bit); give the terrain
the add-on's material layers (Object > Terrain Layers: snow, moisture, strata, with the erosion's sediment and
talus depths) and its Terrain Material (grass, sand low down, sediment, talus, strata-banded rock by its slope map,
wet ground by its moisture, snow); add a camera, a physical sky with its sun and haze (``_scene.sky_and_haze``);
render ``preview.png`` (1600x900 unless ``--width``/``--height``; 8 samples and Cycles' denoiser, on the CPU; an
optimised PNG: README's ``docs/images/demo.png``); save ``terrain.blend``. The terrain spans the noise square
0..1 that the colour ramp is baked on. The noise options (``--kind``, ``--seed``, ``--octaves`` ...) change the
terrain noise. Every file is written whole or not at all.
"""

from __future__ import annotations

import argparse
import sys
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

SIZES = {"small": (64, 128), "medium": (256, 1024), "large": (1024, 4096)}
"""Preset -> (terrain subdivisions per side, texture width and height in pixels)."""
TERRAIN_NOISE = {
    "kind": "perlin",
    "seed": 7,
    "dimensions": "2",
    "plane": "XY",
    "frequency": 2.0,
    "octaves": 8,
    "fractal": "ridged",
    "fractal_offset": 1.0,
    "fractal_gain": 2.0,
}
TERRAIN_HEIGHT = 0.25
DROPLETS_PER_VERTEX = 1
GULLIES = {"gullies": 8.0, "lifetime": 60}
"""Erosion along the flow, as the Eroded Canyon preset has it (docs/erosion.md)."""
THERMAL = {"talus_angle": 40.0, "iterations": 10}
SAMPLES = 8
"""Cycles samples of the preview, denoised: the quick start's budget (90 s from a fresh clone on 2 cores)."""
LAYERS = ("snow", "moisture", "strata")
"""The material layers computed for the material; the erosion's ``sediment`` and ``talus`` depths are added."""
RAMP = {"color_low": (0.01, 0.05, 0.01), "color_high": (0.8, 0.7, 0.55)}
FILES = {"blend": "terrain.blend", "height": "height.exr", "color": "color.png", "preview": "preview.png"}


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", type=Path, default=Path("out/demo"), help="output folder (default ./out/demo)")
    parser.add_argument("--size", choices=list(SIZES), default="medium", help="terrain and texture resolution preset")
    scene.add_render_arguments(parser, addon.integer, 1600, 900, samples=SAMPLES)


def _bake(name: str, path: Path, pixels: int, file_format: str, **properties) -> None:
    with addon.step(f"baking {name} ({pixels}x{pixels}) into {path}"):
        addon.run_api(
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


def run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> dict[str, Path]:
    """Make the demo's files in ``args.out``; return them by kind (blend, height, color, preview)."""
    paths = {kind: args.out / name for kind, name in FILES.items()}
    paths = {kind: addon.output_file(parser, "--out", path, (path.suffix,)) for kind, path in paths.items()}
    subdivisions, pixels = SIZES[args.size]
    bpy.ops.wm.read_homefile(use_empty=True)
    addon.apply_noise_arguments(parser, args, TERRAIN_NOISE)
    droplets = DROPLETS_PER_VERTEX * (subdivisions + 1) ** 2
    with addon.step(f"adding a {subdivisions}x{subdivisions} terrain, eroded by {droplets} droplets"):
        terrain = addon.run_api(
            "add_terrain",
            x_subdivisions=subdivisions,
            y_subdivisions=subdivisions,
            size=1.0,
            offset=(0.5, 0.5),
            height=TERRAIN_HEIGHT,
            hydraulic={"droplet_density": DROPLETS_PER_VERTEX, "seed": 1, **GULLIES},
            thermal=THERMAL,
        )
    package = addon.addon_package()
    with addon.step(f"exporting the eroded terrain's heights into {paths['height']}"):
        try:
            package.api.export_heightmap(bpy.context, terrain, str(paths["height"]), resolution=0)
        except package.errors.UserError as error:
            raise addon.AddonError(f"export_heightmap: {error}") from None
    _bake("Color", paths["color"], pixels, "PNG", color_mode="RAMP", **RAMP)
    deposits = [name for name in ("sediment", "talus") if name in terrain.data.attributes]
    with addon.step(f"giving the terrain its layers ({', '.join(LAYERS + tuple(deposits))}) and a material"):
        try:
            package.terrain_layers.write_terrain_layers(terrain, LAYERS + tuple(deposits))
            package.terrain_material.terrain_material(terrain)
        except package.errors.UserError as error:
            raise addon.AddonError(f"terrain_material: {error}") from None
    scene.stage(terrain, distance=1.6, outdoors=True)
    replacing = package.noise_core.io.files.replacing
    size = f"{args.width}x{args.height}"
    with addon.step(f"rendering {paths['preview']} ({size}, Cycles on the CPU, {args.samples} samples, denoised)"):
        scene.render_png(paths["preview"], args.width, args.height, args.samples, replacing, denoise=True)
        scene.optimise_png(paths["preview"], replacing)
    addon.save_blend(paths["blend"])
    return paths


def main(argv: Sequence[str] | None = None) -> int:
    parser, args = addon.parse_arguments(__doc__.split("\n\n")[0], _add_arguments, argv)
    try:
        paths = run(parser, args)
    except (addon.AddonError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print("\nNoisewright demo written to", paths["blend"].parent)
    for kind, path in paths.items():
        print(f"  {kind:7s} {path}")
    print(f"Open it with: blender {paths['blend']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
