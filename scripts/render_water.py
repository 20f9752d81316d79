"""Render docs/water.md's picture: a Noise Terrain with its lakes and rivers (Object > Terrain Water), Cycles on the
CPU.

    python scripts/render_water.py                          # docs/images/water.png
    python scripts/render_water.py --out /tmp/water.png --samples 32 --width 960 --height 600

The terrain is ``TERRAIN`` (a 2 m Noise Terrain of 256 x 256 cells: warped Perlin fBm, its rivers carved by the
stream-power stage); Terrain Water adds its lakes (``WATER``: a rain that fills the small depressions and leaves
the large ones partly full) and rivers; the terrain is coloured by height and slope (``_scene.terrain_material``),
the water by its depth (the add-on's water material). Written whole or not at all; prints the path.
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

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "docs" / "images" / "water.png"
NOISE = {"kind": "perlin", "seed": 11, "frequency": 1.6, "octaves": 6, "warp": "progressive", "warp_amplitude": 0.25}
TERRAIN = {"x_subdivisions": 256, "y_subdivisions": 256, "size": 2.0, "height": 0.5}
HYDRAULIC = {"droplets": 150_000, "seed": 3}
WATER = {"rain": 0.004, "river_area": 0.01, "width_coefficient": 1.5, "depth_coefficient": 0.05}


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"output picture (default {DEFAULT_OUT})")
    scene.add_render_arguments(parser, addon.integer, 800, 500)


def render(package, out: Path, args: argparse.Namespace) -> Path:
    """The terrain, its water, the camera and sun, rendered to ``out``."""
    bpy.ops.wm.read_homefile(use_empty=True)
    spec = package.noise_core.NoiseSpec(**NOISE)
    terrain = package.api.add_terrain(bpy.context, spec, hydraulic=HYDRAULIC, **TERRAIN)
    made = package.terrain_water.terrain_water(terrain, **WATER)
    result = made["result"]
    print(f"{result.lake_level.size} lakes, {len(result.rivers)} river reaches", flush=True)
    scene.terrain_material(terrain, "meadow")
    scene.stage(terrain, distance=1.5 * TERRAIN["size"], sun_angle=0.9)
    replacing = package.noise_core.io.files.replacing
    return scene.render_png(out, args.width, args.height, args.samples, replacing, denoise=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser, args = addon.parse_arguments(__doc__.split("\n\n")[0], _add_arguments, argv)
    package = addon.addon_package()
    out = addon.output_file(parser, "--out", args.out, (".png",))
    try:
        with addon.step(f"rendering the water picture ({args.width}x{args.height}, {args.samples} samples)"):
            written = render(package, out, args)
    except (addon.AddonError, package.errors.UserError, OSError, RuntimeError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(written)
    return 0


if __name__ == "__main__":
    sys.exit(main())
