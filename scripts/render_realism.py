"""Real tiles beside the natural terrain presets, at one scale (docs/landscape.md, issue 49): ``python -m
scripts.render_realism [--size N] [--out DIR] [--only NAME ...]`` from a checkout.

Each shipped preset file (``addon/presets/terrain``) is built without Blender, as a Noise Terrain builds it: its
noise on the grid of its size (``noise_core.api.evaluate_lattice``, or the rotated points through
``noise_core.evaluate``), times its height, and its river stage (``evolve_landscape`` in cells of the grid with
the noise as uplift, the relief kept, valleys filled); ``--size`` overrides its subdivisions. The five SRTM
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
import ast
import math
import time
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

import noise_core as nc
from noise_core.api import evaluate_lattice
from noise_core.ranges import to_unit
from noise_core.terrain.fluvial import FLUVIAL_OPTIONS
from noise_core.terrain.geomorphometry import passes, realism, terrain_statistics
from noise_core.terrain.landscape import evolve_landscape, fill_valleys
from scripts.terrain_stats import real_tiles, table
from tests import dems

ROOT = Path(__file__).resolve().parent.parent
PRESETS = ROOT / "addon" / "presets" / "terrain"
NATURAL = ("river_valleys", "alpine_ridges", "uplifted_range", "eroded_canyon", "badlands", "rolling_hills")
"""The natural presets (the stylised ones, Dunes, Cratered Cells and Islands, are not landscapes)."""
OUT = ROOT / "docs" / "images" / "realism"


def read_preset(path: Path) -> dict[str, object]:
    """The ``terrain.<setting> = <literal>`` assignments of a preset file, by setting (``noise.seed``, ...)."""
    values: dict[str, object] = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Attribute):
            names, target = [], node.targets[0]
            while isinstance(target, ast.Attribute):
                names.insert(0, target.attr)
                target = target.value
            if isinstance(target, ast.Name) and target.id == "terrain":
                values[".".join(names)] = ast.literal_eval(node.value)
    return values


def _f32(value: float) -> float:
    return float(np.float32(value))  # as Blender stores the preset's floats


def build(values: dict[str, object], subdivisions: int | None = None) -> tuple[np.ndarray, float]:
    """``(heights in metres, cell size)`` of a preset's terrain (module docstring)."""
    cells = int(subdivisions or values["x_subdivisions"])  # type: ignore[call-overload]
    size, height = _f32(values["size"]), _f32(values["height"])  # type: ignore[arg-type]
    half = size * 0.5
    along = np.linspace(-half, half, cells + 1)
    fractal = str(values["noise.fractal"])
    extra = {"offset": values["noise.fractal_offset"], "gain": values["noise.fractal_gain"]} if fractal != "fbm" else {}
    spec = nc.NoiseSpec(kind=str(values["noise.kind"]), seed=int(values["noise.seed"]),  # type: ignore[call-overload]
                        frequency=_f32(values["noise.frequency"]), octaves=int(values["noise.octaves"]),  # type: ignore[arg-type, call-overload]
                        lacunarity=_f32(values["noise.lacunarity"]), persistence=_f32(values["noise.persistence"]),  # type: ignore[arg-type]
                        fractal=fractal, **extra)  # type: ignore[arg-type]  # fmt: skip
    scale = [_f32(v) for v in values["noise.scale"]]  # type: ignore[attr-defined]
    offset = [_f32(v) for v in values["noise.offset"]]  # type: ignore[attr-defined]
    turn = _f32(values["noise.rotation"][2])  # type: ignore[index]
    if turn == 0.0:
        noise = evaluate_lattice(spec, along * scale[0] + offset[0], along * scale[1] + offset[1])
    else:
        x, y = np.meshgrid(along * scale[0], along * scale[1])
        cos, sin = math.cos(turn), math.sin(turn)
        points = np.column_stack([(cos * x - sin * y).ravel() + offset[0], (sin * x + cos * y).ravel() + offset[1]])
        noise = nc.evaluate(spec, points).reshape(x.shape)
    heights = to_unit(spec, noise).astype(np.float64) * height
    falloff = str(values.get("falloff", "NONE"))
    if falloff != "NONE":  # terrain._edge_factor: smoothstep((1 - distance) / width) towards the edges
        u, v = np.abs(along)[None, :] / half, np.abs(along)[:, None] / half
        distance = {"X": u + 0 * v, "Y": v + 0 * u}.get(falloff, np.hypot(u, v))
        t = np.clip((1.0 - distance) / max(_f32(values["falloff_width"]), 1e-6), 0.0, 1.0)  # type: ignore[arg-type]
        heights = heights * (t * t * (3.0 - 2.0 * t))
    cell = size / cells
    if not values.get("fluvial.fluvial"):
        return heights, cell
    river = {key.removeprefix("fluvial."): value for key, value in values.items() if key.startswith("fluvial.")}
    options = {option.name: river.get(option.name, option.default) for option in FLUVIAL_OPTIONS}
    options = {name: _f32(value) if isinstance(value, float) else value for name, value in options.items()}
    grid = heights / cell
    if river.get("noise_uplift"):
        contrast = _f32(river.get("uplift_contrast", 1.0))  # type: ignore[arg-type]
        share = (grid - grid.min()) / np.ptp(grid)
        options["uplift"] = options["uplift"] * ((1.0 - contrast) + contrast * share)
    after = evolve_landscape(grid, **options).heights.astype(np.float64)  # type: ignore[arg-type]
    if river.get("keep_relief", True):
        after = grid.min() + (after - after.min()) * (np.ptp(grid) / np.ptp(after))
    if river.get("valley_fill", 0.0):
        after = fill_valleys(after, depth=_f32(river["valley_fill"]))  # type: ignore[arg-type]
    return after * cell, cell


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


def spread(names: list[str], seeds: int, size: int | None) -> None:
    """Per preset: ``harmonic8``, ``passes`` and the statistics outside the real range for its noise and routing
    seeds moved by ``0 .. seeds - 1``, and the 8-fold harmonic's range over them."""
    for name in names:
        values = read_preset(PRESETS / f"{name}.py")
        harmonics = []
        for shift in range(seeds):
            moved = {**values, "noise.seed": int(values["noise.seed"]) + shift}  # type: ignore[call-overload]
            moved["fluvial.routing_seed"] = int(values["fluvial.routing_seed"]) + shift  # type: ignore[call-overload]
            heights, cell = build(moved, size)
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
    args = parser.parse_args()
    if args.seeds > 0:
        spread(args.only, args.seeds, args.size)
        return
    args.out.mkdir(parents=True, exist_ok=True)
    real = [(name, hillshade(dems.load(name).heights, dems.load(name).cell_size)) for name in dems.NAMES]
    ours, stats = [], {}
    for name in args.only:
        started = time.process_time()
        heights, cell = build(read_preset(PRESETS / f"{name}.py"), args.size)
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
