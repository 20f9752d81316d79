"""Real tiles beside the natural terrain presets, at one scale (docs/landscape.md, issue 49): ``python -m
scripts.render_realism [--size N] [--out DIR] [--only NAME ...]`` from a checkout.

Each shipped preset (``noise_core/terrain/presets/NAME.json``) is built without Blender by
``terrain.recipe.build_terrain``, as a Noise Terrain and ``python -m noise_core terrain`` build it: its noise
times its height, then its river stage (``evolve_landscape`` in cells of its fine grid with the noise as uplift, the
relief kept, valleys filled); ``--size`` overrides its subdivisions. The five SRTM
tiles (``tests/dems.py``) and each preset are shaded alike: Horn's gradient in metres, light from the north-west
at 45°, no vertical exaggeration, one pixel per cell (the presets' cells are ~90 m, the tiles' 90 m, Jacksboro's
92.7 m, so it is drawn at its own, smaller, extent). Writes ``realism.png`` (the six real tiles in the top row, the
natural presets below, each labelled) and ``realism.md`` (the statistics table, ``scripts/terrain_stats.py``'s,
of the tiles and presets in Markdown), and prints the table. ``--seeds N`` instead builds each preset with its
noise seed and its routing seed both moved by 0 .. N - 1 (0: as shipped) and prints, per preset and seed, its
8-fold harmonic, whether it passes and the statistics outside the real range: how far the shipped seeds were
picked.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from noise_core.terrain.geomorphometry import passes, realism, terrain_statistics
from noise_core.terrain.recipe import Stage, build_terrain, read_preset
from scripts.terrain_stats import real_tiles, table
from tests import dems

ROOT = Path(__file__).resolve().parent.parent
NATURAL = ("river_valleys", "alpine_ridges", "uplifted_range", "eroded_canyon", "badlands", "rolling_hills")
"""The natural presets (the stylised ones, Dunes, Cratered Cells and Islands, are not landscapes)."""
OUT = ROOT / "docs" / "images" / "realism"


def build(
    name: str, subdivisions: int | None = None, shift: int = 0, changes: dict | None = None
) -> tuple[np.ndarray, float]:
    """``(heights in metres, cell size)`` of the shipped preset ``name`` (``terrain.recipe.build_terrain``, as
    Blender and ``python -m noise_core terrain`` build it) at its own samples or ``subdivisions + 1``; ``shift``
    moves its noise seed and every stage's ``routing_seed`` by that much; ``changes`` replaces options of its
    rivers stages."""
    preset = read_preset(name)
    if changes:
        stages = tuple(
            Stage.of(stage.kind, {**stage.options, **changes}) if stage.kind == "rivers" else stage
            for stage in preset.stages
        )
        preset = replace(preset, stages=stages)
    if shift:
        stages = tuple(
            replace(stage, options={**stage.options, "routing_seed": stage.options["routing_seed"] + shift})
            if "routing_seed" in stage.options
            else stage
            for stage in preset.stages
        )
        preset = replace(preset, noise=replace(preset.noise, seed=preset.noise.seed + shift), stages=stages)
    samples = int(preset.export["samples"]) if subdivisions is None else subdivisions + 1
    built = build_terrain(preset, samples)
    return built.heights, built.cell_size


def hillshade(heights: np.ndarray, cell: float) -> np.ndarray:
    """8-bit shading: Horn's gradient, light from the north-west (the first row's side) at 45° above."""
    z = np.pad(heights, 1, mode="edge")
    p = ((z[:-2, 2:] + 2 * z[1:-1, 2:] + z[2:, 2:]) - (z[:-2, :-2] + 2 * z[1:-1, :-2] + z[2:, :-2])) / (8 * cell)
    q = ((z[2:, :-2] + 2 * z[2:, 1:-1] + z[2:, 2:]) - (z[:-2, :-2] + 2 * z[:-2, 1:-1] + z[:-2, 2:])) / (8 * cell)
    light = np.array([-1.0, -1.0, math.sqrt(2.0)]) / 2.0  # towards the north-west (up, left), 45° high
    shade = (-p * light[0] - q * light[1] + light[2]) / np.sqrt(1.0 + p * p + q * q)
    return (np.clip(shade, 0.0, 1.0) * 255.0).astype(np.uint8)


def sheet(rows: list[list[tuple[str, np.ndarray]]], tile: int) -> Image.Image:
    """The shaded tiles in rows, each at its own size (cropped to ``tile`` pixels) in a ``tile``-pixel square,
    labelled below."""
    gap, label = 6, 16
    columns = max(len(row) for row in rows)
    image = Image.new("L", (columns * (tile + gap) - gap, len(rows) * (tile + label + gap) - gap), 255)
    draw = ImageDraw.Draw(image)
    for r, row in enumerate(rows):
        for c, (name, shaded) in enumerate(row):
            x, y = c * (tile + gap), r * (tile + label + gap)
            image.paste(Image.fromarray(shaded[:tile, :tile]), (x, y))
            draw.text((x + 2, y + tile + 2), name, fill=0)
    return image


def spread(names: list[str], seeds: int, size: int | None, changes: dict | None = None) -> None:
    """Per preset: ``harmonic8``, ``passes`` and the statistics outside the real range for its noise and routing
    seeds moved by ``0 .. seeds - 1``, and the 8-fold harmonic's range over them."""
    for name in names:
        harmonics = []
        for shift in range(seeds):
            heights, cell = build(name, size, shift, changes)
            stats = terrain_statistics(heights, cell_size=cell)
            outside = [check.name for check in realism(stats) if not check.passed]
            harmonics.append(stats.harmonic8)
            print(f"{name} +{shift}: harmonic8 {stats.harmonic8:.4f}, passes {passes(stats)}, outside {outside}",
                  flush=True)  # fmt: skip
        print(f"{name}: harmonic8 {min(harmonics):.4f} .. {max(harmonics):.4f}, mean {np.mean(harmonics):.4f}",
              flush=True)  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--size", type=int, default=None, help="subdivisions of every preset (default: its own)")
    parser.add_argument("--out", type=Path, default=OUT, help=f"folder of realism.png (default {OUT})")
    parser.add_argument("--only", nargs="*", default=NATURAL, help="presets to build (default: the natural ones)")
    parser.add_argument("--seeds", type=int, default=0, help="build N seeds of each preset and print the spread")
    parser.add_argument("--set", nargs="*", default=[], metavar="OPTION=VALUE",
                        help="change options of the rivers stage (JSON values), e.g. critical_slope=0.8")  # fmt: skip
    args = parser.parse_args()
    changes = {}
    for item in args.set:
        name, _, value = item.partition("=")
        if not value:
            parser.error(f"--set: expected OPTION=VALUE, got {item!r}")
        changes[name] = json.loads(value)
    if args.seeds > 0:
        spread(args.only, args.seeds, args.size, changes)
        return
    args.out.mkdir(parents=True, exist_ok=True)
    real = [(name, hillshade(dems.load(name).heights, dems.load(name).cell_size)) for name in dems.NAMES]
    ours, stats = [], {}
    for name in args.only:
        started = time.process_time()
        heights, cell = build(name, args.size, changes=changes)
        stats[name] = terrain_statistics(heights, cell_size=cell)
        print(f"{name}: {heights.shape[1]}x{heights.shape[0]}, cell {cell:.1f} m, relief {np.ptp(heights):.0f} m, "
              f"{time.process_time() - started:.1f} s CPU")  # fmt: skip
        ours.append((name.replace("_", " "), hillshade(heights, cell)))
    tile = max(max(shaded.shape) for _, shaded in real + ours)
    sheet([real, ours], tile).save(args.out / "realism.png", optimize=True)
    measured = table({**real_tiles(), **stats}, set(stats), markdown=True)
    (args.out / "realism.md").write_text(measured + "\n", encoding="utf-8")
    print(measured)


if __name__ == "__main__":
    main()
