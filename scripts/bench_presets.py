"""Time every shipped terrain preset at one size in Blender (docs/benchmarks.md, issue 49):
``python scripts/bench_presets.py [--size 1024] [--json FILE]``.

Each preset is applied to a fresh Noise Terrain (as the preset menu applies it: settings, then Regenerate) with
its subdivisions set to ``--size`` (1024: 1025 x 1025 vertices) and its other settings as shipped; the time is
that of the whole apply (noise, erosion stages, mesh), once after a warm-up build of the same preset at 64
subdivisions (which compiles what the preset uses). Prints wall and CPU seconds (``time.process_time``: every
thread of the process) per preset; ``--json`` writes them too.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections.abc import Sequence
from importlib.util import module_from_spec, spec_from_file_location
from pathlib import Path

import bpy

if "_blender_addon" not in sys.modules:  # by its path: ``blender --python`` leaves scripts/ off sys.path (docs/cli.md)
    _spec = spec_from_file_location("_blender_addon", Path(__file__).resolve().with_name("_blender_addon.py"))
    _spec.loader.exec_module(_module := module_from_spec(_spec))
    sys.modules["_blender_addon"] = _module
addon = sys.modules["_blender_addon"]


def _sized(preset: Path, size: int, folder: Path) -> Path:
    """A copy of ``preset`` in ``folder`` with both subdivisions set to ``size``: a recipe file's
    ``export.samples`` (``size + 1``), or an older Blender preset file's subdivisions (a checkout before the
    recipes, for the before-and-after timings)."""
    text = preset.read_text(encoding="utf-8")
    if preset.suffix == ".json":
        text = re.sub(r'("samples": )\d+', rf"\g<1>{size + 1}", text)
    else:
        text = re.sub(r"(terrain\.[xy]_subdivisions = )\d+", rf"\g<1>{size}", text)
    path = folder / preset.name
    path.write_text(text, encoding="utf-8")
    return path


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--size", type=int, default=1024, help="subdivisions along X and Y (default 1024)")
    parser.add_argument("--json", type=Path, help="also write the timings here")
    parser.add_argument("--only", nargs="+", metavar="PRESET", help="just these presets (file names)")


def main(argv: Sequence[str] | None = None) -> int:
    _, args = addon.parse_arguments(__doc__.split("\n\n")[0], _add_arguments, argv)
    package = addon.addon_package()
    presets = sorted(package.terrain_presets.SHIPPED.glob("*.json")) or sorted(
        package.terrain_presets.SHIPPED.glob("*.py")
    )
    presets = [p for p in presets if not args.only or p.stem in args.only]
    timings = {}
    with tempfile.TemporaryDirectory(prefix="noisewright-bench-presets-") as temporary:
        for preset in presets:
            for size in (64, args.size):
                bpy.ops.wm.read_homefile(use_empty=True)
                terrain = addon.run_api("add_terrain", x_subdivisions=8, y_subdivisions=8)
                sized = _sized(preset, size, Path(temporary))
                wall, cpu = time.perf_counter(), time.process_time()
                package.terrain_presets.apply_preset(bpy.context, terrain, sized)
                wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            timings[preset.stem] = {"wall_s": round(wall, 2), "cpu_s": round(cpu, 2)}
            print(f"{preset.stem}: {args.size + 1}², wall {wall:.2f} s, CPU {cpu:.2f} s", flush=True)
    if args.json is not None:
        args.json.write_text(json.dumps({"size": args.size, "presets": timings}, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
