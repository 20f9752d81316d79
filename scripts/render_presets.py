"""Render a picture of every shipped terrain preset (Cycles on the CPU), for the README.

    python scripts/render_presets.py                       # into docs/images/presets (bash scripts/run.sh presets)
    python scripts/render_presets.py --out /tmp/p --samples 32 --width 640 --height 400 --only islands
    blender --background --python scripts/render_presets.py -- --out /tmp/p

Each preset is applied to a fresh Noise Terrain (Add > Mesh > Noise Terrain, then the preset from the Noise
Terrain panel's menu, as a user would), coloured by height and slope, and rendered from above at an angle.
Files are written whole or not at all; the paths are printed.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

import bpy


def _sibling(name: str) -> ModuleType:
    """``scripts/<name>.py`` imported by its path: ``blender --background --python scripts/<this>.py`` runs this
    file without putting ``scripts/`` on ``sys.path`` (docs/cli.md); one module, shared through ``sys.modules``."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, Path(__file__).resolve().with_name(f"{name}.py"))
        assert spec is not None and spec.loader is not None
        module = sys.modules[name] = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise
    return sys.modules[name]


addon = _sibling("_blender_addon")
scene = _sibling("_scene")

PALETTES = {"dunes": "sand", "islands": "island", "eroded_canyon": "canyon", "rolling_hills": "meadow",
            "badlands": "canyon", "river_valleys": "meadow"}  # fmt: skip
"""The height ramp (``_scene.PALETTES``) of presets that are not alpine."""
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "docs" / "images" / "presets"


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"output folder (default {DEFAULT_OUT})")
    scene.add_render_arguments(parser, addon.integer, 320, 200)
    parser.add_argument("--only", nargs="+", metavar="PRESET", help="render just these presets (file names)")


def render_preset(package, preset: Path, out: Path, args: argparse.Namespace) -> Path:
    """Render ``preset`` on a fresh terrain into ``out / <preset>.png``."""
    bpy.ops.wm.read_homefile(use_empty=True)
    terrain = addon.run_api("add_terrain", x_subdivisions=8, y_subdivisions=8)
    package.terrain_presets.apply_preset(bpy.context, terrain, preset)
    scene.terrain_material(terrain, PALETTES.get(preset.stem, "alpine"))
    scene.stage(terrain, distance=1.55 * terrain.noisewright_terrain.size)
    return scene.render_png(
        out / f"{preset.stem}.png", args.width, args.height, args.samples, package.noise_core.io.files.replacing
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser, args = addon.parse_arguments(__doc__.split("\n\n")[0], _add_arguments, argv)
    package = addon.addon_package()
    presets = sorted(package.terrain_presets.SHIPPED.glob("*.json"))
    if args.only:
        unknown = sorted(set(args.only) - {p.stem for p in presets})
        if unknown:
            parser.error(f"--only: no preset {', '.join(unknown)}; shipped: {', '.join(p.stem for p in presets)}")
        presets = [p for p in presets if p.stem in args.only]
    out = addon.output_file(parser, "--out", args.out / "probe.png", (".png",)).parent
    written = []
    try:
        for preset in presets:
            with addon.step(f"rendering {preset.stem} ({args.width}x{args.height}, {args.samples} samples)"):
                written.append(render_preset(package, preset, out, args))
    except (addon.AddonError, package.errors.UserError, OSError, RuntimeError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
