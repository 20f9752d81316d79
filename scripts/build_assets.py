"""Build the extension's asset library, ``addon/assets/noisewright.blend`` and its ``blender_assets.cats.txt``.

    python scripts/build_assets.py                    # into addon/assets (commit the result)
    python scripts/build_assets.py --out /tmp/assets --sheet /tmp/assets.png --preview-size 64 --samples 4

The file holds, marked as assets with catalogs and rendered previews (Cycles on the CPU, physical sky):

- catalog *Noisewright/Scatter*: the node groups ``Noisewright Scatter Rocks``, ``... Trees`` and ``... Grass``
  (``scatter.scatter_group``, Geometry Nodes modifiers) with their materials;
- catalog *Noisewright/Terrain Presets*: one Noise Terrain object per shipped preset, named after it, holding the
  preset's settings (the grid at the preset's resolution, Auto Refresh off) and a ``PREVIEW_SUBDIVISIONS`` mesh of
  it with the Terrain Material in the preset's colours (``render_presets.COLOURS``); dragged into a scene it is
  rebuilt at full resolution by Regenerate (its panel).

The file is committed (the extension zip takes ``addon/`` as it is, so the library ships without a build step),
and rebuilt with this script when the scatter groups, the presets or the material change. Written with the bpy
module (Blender 5.0): Blender reads it from 4.5 on (``assets.MIN_VERSION``). ``--sheet`` (``docs/images/assets.png``)
gets the previews side by side, for the README. Files are written whole or not at all.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
from collections.abc import Sequence
from importlib.util import module_from_spec, spec_from_file_location
from pathlib import Path

import bpy
import numpy as np

if "_blender_addon" not in sys.modules:  # by its path: ``blender --python`` leaves scripts/ off sys.path (docs/cli.md)
    _spec = spec_from_file_location("_blender_addon", Path(__file__).resolve().with_name("_blender_addon.py"))
    _spec.loader.exec_module(_module := module_from_spec(_spec))
    sys.modules["_blender_addon"] = _module
addon = sys.modules["_blender_addon"]
scene = addon.sibling("_scene")
render_presets = addon.sibling("render_presets")


DEFAULT_OUT = Path(__file__).resolve().parents[1] / "addon" / "assets"
SHEET = Path(__file__).resolve().parents[1] / "docs" / "images" / "assets.png"
PREVIEW_SUBDIVISIONS = 64
"""The mesh each preset asset carries (its settings keep the preset's own grid)."""
PATCH = {"x_subdivisions": 32, "y_subdivisions": 32, "size": 1.0, "height": 0.12}
"""The terrain patch the scatter previews show."""
PREVIEW_SCATTER = {"rocks": (6.0, 0.06), "trees": (1.0, 0.12), "grass": (1.0, 0.05)}
"""Scatter previews: density multiple and instance scale on the 1-unit patch."""


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"output folder (default {DEFAULT_OUT})")
    parser.add_argument("--preview-size", type=addon.integer(16, 512), default=128, help="preview pixels (128)")
    parser.add_argument("--samples", type=addon.integer(1, 4096), default=8, help="Cycles samples (default 8)")
    parser.add_argument("--sheet", type=Path, default=SHEET, help=f"the previews side by side (default {SHEET})")


def _preset_terrain(package, preset: Path):
    """A Noise Terrain with the recipe file ``preset``'s settings, generated at ``PREVIEW_SUBDIVISIONS`` and then
    given the recipe's own grid size back (not regenerated), with the Terrain Material in the preset's colours."""
    terrain = addon.run_api("add_terrain", x_subdivisions=8, y_subdivisions=8)
    terrain.noisewright_terrain.auto_refresh = False  # apply_recipe regenerates once, with every setting in place
    recipe = package.noise_core.terrain.recipe.read_recipe(preset)
    samples = recipe.export["samples"]
    small = dataclasses.replace(recipe, export={**recipe.export, "samples": PREVIEW_SUBDIVISIONS + 1})
    package.terrain_presets.apply_recipe(bpy.context, terrain, small)
    settings = terrain.noisewright_terrain  # Auto Refresh stays off: on, the grid size below would rebuild the mesh
    settings.x_subdivisions = settings.y_subdivisions = samples - 1
    terrain.name = terrain.data.name = bpy.path.display_name(preset.stem, title_case=True)
    package.terrain_material.terrain_material(terrain, **render_presets.COLOURS.get(preset.stem, {}))
    return terrain


def _scatter_patch(package, kind: str):
    """The patch with ``kind`` scattered on it, its group and its instance scale raised to show at preview size."""
    terrain = addon.run_api("add_terrain", **PATCH)
    package.terrain_material.terrain_material(terrain)
    density, size = PREVIEW_SCATTER[kind]
    modifier = package.assets.add_scatter(terrain, instances=kind.upper(), density_scale=density)
    package.assets.set_input(modifier, "Scale", size)
    if kind == "rocks":
        package.assets.set_input(modifier, "Weight", "")  # the patch has no talus layer
    return terrain, modifier.node_group


def _render_preview(target, size: int, samples: int, replacing) -> np.ndarray:
    """Render ``target`` (staged outdoors) at ``size`` pixels square; its RGBA pixels, float, bottom row first."""
    scene.stage(target, distance=1.7 * max(target.dimensions.x, target.dimensions.y), outdoors=True)
    with tempfile.TemporaryDirectory() as folder:
        path = scene.render_png(Path(folder) / "preview.png", size, size, samples, replacing, denoise=True)
        image = bpy.data.images.load(str(path))
        pixels = np.array(image.pixels[:], dtype=np.float32)
        bpy.data.images.remove(image)
    return pixels


def _mark(datablock, catalog: tuple[str, str], description: str, pixels: np.ndarray, size: int) -> None:
    datablock.asset_mark()
    datablock.asset_data.catalog_id = catalog[0]
    datablock.asset_data.description = description
    datablock.asset_data.author = "Noisewright"
    preview = datablock.preview_ensure()
    preview.image_size = (size, size)
    preview.image_pixels_float = pixels


def _catalogs(package) -> str:
    lines = [
        "# Blender asset catalog definition file (Noisewright's library, scripts/build_assets.py)",
        "VERSION 1",
        "",
    ]
    for uuid, path in package.assets.CATALOGS.values():
        lines.append(f"{uuid}:{path}:{path.replace('/', '-')}")
    return "\n".join(lines) + "\n"


def build(package, out: Path, size: int, samples: int, sheet: Path) -> list[Path]:
    """Render the previews, then build the assets in a clean file and write the library into ``out`` and the
    previews side by side into ``sheet``."""
    replacing = package.noise_core.io.files.replacing
    presets = sorted(package.terrain_presets.SHIPPED.glob("*.json"))
    previews: dict[str, np.ndarray] = {}
    for kind in package.scatter.KINDS:
        with addon.step(f"rendering the preview of the {kind} scatter"):
            bpy.ops.wm.read_homefile(use_empty=True)
            previews[kind] = _render_preview(_scatter_patch(package, kind)[0], size, samples, replacing)
    for preset in presets:
        with addon.step(f"rendering the preview of the preset {preset.stem}"):
            bpy.ops.wm.read_homefile(use_empty=True)
            previews[preset.stem] = _render_preview(_preset_terrain(package, preset), size, samples, replacing)
    bpy.ops.wm.read_homefile(use_empty=True)
    catalogs = package.assets.CATALOGS
    datablocks: set = set()
    for kind, spec in package.scatter.KINDS.items():
        group = package.scatter.scatter_group(kind)
        text = f"Scatter {kind} by the layer in Weight ({spec.weight or 'none'}), not where {spec.avoid} is, not in "
        _mark(group, catalogs["scatter"], text + "water nor on slopes above Max Slope", previews[kind], size)
        datablocks.add(group)
    for preset in presets:
        terrain = _preset_terrain(package, preset)
        text = f"Noise Terrain with the {terrain.name} preset's settings: Regenerate for its full resolution"
        _mark(terrain, catalogs["presets"], text, previews[preset.stem], size)
        datablocks.add(terrain)
    paths = [out / "noisewright.blend", out / "blender_assets.cats.txt", sheet]
    with package.noise_core.io.files.replacing_all(paths) as (blend, cats, picture):
        bpy.data.libraries.write(str(blend), datablocks, fake_user=True, compress=True)
        cats.write_text(_catalogs(package), encoding="utf-8")
        _contact_sheet(list(previews.values()), size, picture)
    return paths


def _contact_sheet(previews: list[np.ndarray], size: int, path: Path, columns: int = 6) -> None:
    """The previews side by side, ``columns`` a row, as an 8-bit PNG (sRGB, as Blender shows them)."""
    from PIL import Image

    tiles = [np.clip(pixels.reshape(size, size, 4)[::-1, :, :3], 0.0, 1.0) for pixels in previews]
    tiles += [np.ones_like(tiles[0])] * (-len(tiles) % columns)
    rows = [np.concatenate(tiles[i : i + columns], axis=1) for i in range(0, len(tiles), columns)]
    Image.fromarray(np.round(255 * np.concatenate(rows, axis=0)).astype(np.uint8)).save(
        path, format="PNG", optimize=True
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser, args = addon.parse_arguments(__doc__.split("\n\n")[0], _add_arguments, argv)
    package = addon.addon_package()
    out = addon.output_file(parser, "--out", args.out / "noisewright.blend", (".blend",)).parent
    try:
        written = build(package, out, args.preview_size, args.samples, args.sheet)
    except (addon.AddonError, package.errors.UserError, OSError, RuntimeError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
