"""Render a picture of every shipped terrain preset (Cycles on the CPU, denoised), for the README.

    python scripts/render_presets.py                       # into docs/images/presets (bash scripts/run.sh presets)
    python scripts/render_presets.py --out /tmp/p --samples 32 --width 640 --height 360 --only stylised_islands
    blender --background --python scripts/render_presets.py -- --out /tmp/p

Each preset is applied to a fresh Noise Terrain (Add > Mesh > Noise Terrain, then the preset from the Noise
Terrain panel's menu, as a user would), given the Terrain Material (Object > Terrain Material) in the preset's
colours (``COLOURS``), with a sea for the islands (``SEA``), and rendered from above at an angle under a
physical sky with its sun and haze (``_scene.sky_and_haze``). The PNGs are optimised (``_scene.optimise_png``).
Files are written whole or not at all; the paths are printed.

``--hillshades`` also writes ``hillshades.png`` (with ``--no-render`` only that: the presets are built, not
rendered; ``--only`` limits the renders, never the hillshades, which always show every preset): grey hillshades
of the five real SRTM tiles of ``tests/data/dems`` (top row, each 648 cells of 90 m: 58 km) and of every preset's
terrain (below), each preset drawn as if it were as wide as a tile, its heights in the same proportion to its
width as Blender shows them (the same scale: same width, same vertical scale, same sun from the north-west).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib.util import module_from_spec, spec_from_file_location
from pathlib import Path

import bpy
import numpy as np
from mathutils import Vector

if "_blender_addon" not in sys.modules:  # by its path: ``blender --python`` leaves scripts/ off sys.path (docs/cli.md)
    _spec = spec_from_file_location("_blender_addon", Path(__file__).resolve().with_name("_blender_addon.py"))
    _spec.loader.exec_module(_module := module_from_spec(_spec))
    sys.modules["_blender_addon"] = _module
addon = sys.modules["_blender_addon"]
scene = addon.sibling("_scene")

DESERT = {"grass_color": (0.36, 0.22, 0.11), "sand_color": (0.55, 0.36, 0.19), "rock_color": (0.33, 0.15, 0.07),
          "strata_color": (0.52, 0.30, 0.15), "talus_color": (0.42, 0.25, 0.13), "snow_height": 1.0}  # fmt: skip
COLOURS = {
    "stylised_dunes": {
        **DESERT,
        "grass_color": (0.55, 0.37, 0.18),
        "sand_color": (0.6, 0.42, 0.22),
        "rock_slope": 70.0,
    },
    "eroded_canyon": {**DESERT, "strata_bands": 10.0},
    "badlands": {**DESERT, "strata_bands": 16.0},
    "stylised_islands": {"snow_height": 1.0, "sand_height": 0.12},
    "rolling_hills": {"snow_height": 1.0, "sand_height": 0.0},
    "river_valleys": {"snow_height": 1.0, "sand_height": 0.05},
    "alpine_ridges": {"snow_height": 0.62},
    "uplifted_range": {"snow_height": 0.7},
}
"""The Terrain Material's options per preset (the others take its defaults): red rock and dry soil for the
desert presets, no snow on the low ones."""
SEA = {"stylised_islands": 0.04}
"""Presets rendered with a sea: a plane of water at this share of the terrain's height range (the islands' flat
base is the sea floor)."""
SEA_COLOUR, SEA_ROUGHNESS = (0.015, 0.06, 0.09), 0.08
SHADE, GAP = 200, 6
"""Hillshade panels: pixels a side, and between panels."""
REAL_WIDTH = 647 * scene.TILE_CELL
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "docs" / "images" / "presets"


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"output folder (default {DEFAULT_OUT})")
    scene.add_render_arguments(parser, addon.integer, 1600, 900, samples=4)
    parser.add_argument(
        "--only",
        nargs="+",
        metavar="PRESET",
        help="render just these presets (file names); --hillshades still shows all",
    )
    parser.add_argument(
        "--hillshades", action="store_true", help="also write hillshades.png (presets beside real tiles)"
    )
    parser.add_argument(
        "--no-render", action="store_true", help="build the presets for --hillshades only, render no pictures"
    )


def render_preset(
    package, preset: Path, out: Path, args: argparse.Namespace, shades: list, render: bool
) -> Path | None:
    """Build ``preset`` on a fresh terrain, add its hillshade to ``shades`` and, with ``render``, render it into
    ``out / <preset>.png`` (else None)."""
    bpy.ops.wm.read_homefile(use_empty=True)
    terrain = addon.run_api("add_terrain", x_subdivisions=8, y_subdivisions=8)
    package.terrain_presets.apply_preset(bpy.context, terrain, preset)
    heights = scene.grid_heights(terrain)
    width = REAL_WIDTH / terrain.noisewright_terrain.size  # metres per unit, the terrain as wide as a real tile
    shades.append(scene.hillshade(heights * width, width * terrain.noisewright_terrain.size / (heights.shape[1] - 1),
                                  SHADE))  # fmt: skip
    if not render:
        return None
    package.terrain_material.terrain_material(terrain, **COLOURS.get(preset.stem, {}))
    if preset.stem in SEA:
        low, high = float(heights.min()), float(heights.max())
        sea(terrain, low + SEA[preset.stem] * (high - low))
    scene.stage(terrain, distance=1.55 * terrain.noisewright_terrain.size, outdoors=True)
    replacing = package.noise_core.io.files.replacing
    path = scene.render_png(out / f"{preset.stem}.png", args.width, args.height, args.samples, replacing, denoise=True)
    return scene.optimise_png(path, replacing)


def sea(terrain: bpy.types.Object, level: float) -> bpy.types.Object:
    """A plane of dark, glossy water at the height ``level`` of ``terrain`` (its local Z), twelve times as wide."""
    size = 12.0 * max(terrain.dimensions.x, terrain.dimensions.y)
    bpy.ops.mesh.primitive_plane_add(size=size, location=terrain.matrix_world @ Vector((0.0, 0.0, level)))
    plane = bpy.context.active_object
    plane.name = "Sea"
    material = bpy.data.materials.new("Sea")
    if material.node_tree is None:  # Blender < 5.0 makes node trees on request only
        material.use_nodes = True
    bsdf = next(node for node in material.node_tree.nodes if node.bl_idname == "ShaderNodeBsdfPrincipled")
    bsdf.inputs["Base Color"].default_value = (*SEA_COLOUR, 1.0)
    bsdf.inputs["Roughness"].default_value = SEA_ROUGHNESS
    plane.data.materials.append(material)
    return plane


def hillshades(shades: list[np.ndarray], path: Path, replacing) -> Path:
    """The real tiles' hillshades in the top row, the presets' below, five a row, as the PNG ``path``."""
    from PIL import Image

    real = [scene.hillshade(*scene.real_tile(name), SHADE) for name in scene.REAL_TILES]
    blank = np.full_like(real[0], 255)
    panels = real + shades + [blank] * (-len(shades) % len(real))
    rows = []
    for start in range(0, len(panels), len(real)):
        gap = np.full((SHADE, GAP, 3), 255, dtype=np.uint8)
        rows.append(np.concatenate([p for panel in panels[start : start + len(real)] for p in (panel, gap)][:-1], 1))
        rows.append(np.full((GAP, rows[-1].shape[1], 3), 255, dtype=np.uint8))
    with replacing(path) as temporary:
        grey = np.concatenate(rows[:-1], axis=0)[..., 0]  # the panels are grey: one channel
        Image.fromarray(grey).save(temporary, format="PNG", optimize=True)
    return path


def main(argv: Sequence[str] | None = None) -> int:
    parser, args = addon.parse_arguments(__doc__.split("\n\n")[0], _add_arguments, argv)
    package = addon.addon_package()
    presets = sorted(package.terrain_presets.SHIPPED.glob("*.json"))
    if args.only:
        unknown = sorted(set(args.only) - {p.stem for p in presets})
        if unknown:
            parser.error(f"--only: no preset {', '.join(unknown)}; shipped: {', '.join(p.stem for p in presets)}")
    if args.no_render and not args.hillshades:
        parser.error("--no-render: give --hillshades too (otherwise there is nothing to write)")
    rendered = set() if args.no_render else {p.stem for p in presets if not args.only or p.stem in args.only}
    out = addon.output_file(parser, "--out", args.out / "probe.png", (".png",)).parent
    written, shades = [], []
    try:
        for preset in presets:  # hillshades.png always shows every preset, whatever --only renders
            if preset.stem not in rendered and not args.hillshades:
                continue
            render = preset.stem in rendered
            what = f"rendering ({args.width}x{args.height}, {args.samples} samples)" if render else "building"
            with addon.step(f"{what} {preset.stem}"):
                path = render_preset(package, preset, out, args, shades, render)
            written += [path] if path is not None else []
        if args.hillshades:
            written.append(hillshades(shades, out / "hillshades.png", package.noise_core.io.files.replacing))
    except (addon.AddonError, package.errors.UserError, OSError, RuntimeError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
