"""``python -m noise_core terrain --preset NAME | --recipe FILE --out FILE``: a terrain recipe to a heightmap.

The heights are ``terrain.recipe.build_terrain``'s (the same the add-on's Noise Terrain has at that many samples),
written in metres as the heightmap format of ``--out``'s suffix with its JSON sidecar (height range in metres,
cell size in metres: the recipe's size over the samples less one, the recipe itself); ``--engine`` checks the size
and format for the engine and prints its import numbers (Unreal's Z scale, ...); ``--tile`` cuts a tile set. The
file's first row is the terrain's +Y edge. ``--maps`` and ``--splat`` write terrain maps and splat weights beside.
Existing files are replaced only when every file of the set is written (all or none); the output's folder is made
when missing. Progress and a first use's compile notice go to stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from ..io import heightmaps
from ..io.engines import engine as engine_of
from ..io.files import ArgumentFileError, replacing_all
from ..io.images import write_image
from ..io.water_maps import write_water_maps
from ..terrain.maps import MAP_NAMES, compute_maps, unit_map
from ..terrain.recipe import (
    MAX_SAMPLES,
    Recipe,
    build_terrain,
    preset_names,
    read_preset,
    read_recipe,
    to_dict,
)
from ..terrain.splat import check_layers, splat_weights
from ..terrain.water import WATER_OPTIONS, water

ENGINES = tuple(heightmaps.ENGINE.choices)
MAPS_TEXT = ", ".join(MAP_NAMES)


def _engine(text: str) -> str:
    """``--engine`` in any case: ``Unreal``, ``UNITY``, ``godot``."""
    name = text.lower()
    if name not in ENGINES:
        raise argparse.ArgumentTypeError(f"{text!r} is not an engine; choose from {', '.join(ENGINES)}")
    return name


def _maps(text: str) -> tuple[str, ...]:
    names = tuple(name.strip() for name in text.split(",") if name.strip())
    for name in names:
        if name not in MAP_NAMES:
            raise argparse.ArgumentTypeError(f"{name!r} is not a map; choose from {','.join(MAP_NAMES)}")
    return names


def _samples(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of samples, got {text!r}") from None
    if not 2 <= value <= MAX_SAMPLES:
        raise argparse.ArgumentTypeError(f"must be between 2 and {MAX_SAMPLES} samples per side, got {value}")
    return value


def add_terrain_command(commands: argparse._SubParsersAction) -> None:
    """The ``terrain`` command on the subparsers ``commands``."""
    terrain = commands.add_parser(
        "terrain",
        help="build a terrain from a preset or a recipe file and write it as a heightmap (engines, tiles, maps)",
        description=__doc__.split("\n\n", 1)[1].replace("``", ""),
    )
    source = terrain.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--preset",
        choices=preset_names(),
        metavar="NAME",
        help=f"a shipped preset (a recipe file of the library): {', '.join(preset_names())}",
    )
    source.add_argument("--recipe", type=Path, metavar="FILE", help="a terrain recipe file (JSON, docs/cli.md)")
    terrain.add_argument(
        "--out",
        type=Path,
        required=True,
        metavar="FILE",
        help=f"heightmap file ({heightmaps.listed()}); with --tile the tile set's name",
    )
    terrain.add_argument("--size", type=_samples, help="samples per side (default: the recipe's export.samples)")
    terrain.add_argument(
        "--engine",
        type=_engine,
        help=f"game engine whose sizes and formats to check and whose import numbers to print: {', '.join(ENGINES)} "
        "(any case; default: the recipe's export.engine)",
    )
    terrain.add_argument("--tile", type=int, help="tiles of this many quads (+1 shared edge sample); 0: one file")
    terrain.add_argument(
        "--maps",
        type=_maps,
        help=f"terrain maps to write beside as NAME_map.png, comma-separated: {MAPS_TEXT}",
    )
    terrain.add_argument("--splat", type=Path, help="JSON file of splat layers (default: the recipe's splat)")
    terrain.add_argument("--splat-bits", choices=heightmaps.SPLAT_BITS.choices, default=heightmaps.SPLAT_BITS.default,
                         help="depth of the splat PNGs (default 8)")  # fmt: skip
    terrain.add_argument("--save-recipe", type=Path, help="also write the recipe used to this JSON file")
    terrain.add_argument(
        "--water",
        action="store_true",
        help="also write the water level (NAME_water.ext, with its sidecar) and flow map (NAME_flow.png) of the "
        "terrain (the recipe's water settings, or the defaults; lakes by Fill-Spill-Merge, docs/water.md); "
        "with a recipe that has water, it is written without this flag",
    )


def _progress():
    """``build_terrain``'s progress as lines on stderr: each stage's start and every 10 % of it."""
    shown: dict[str, int] = {}

    def progress(stage: str, done: int, total: int) -> None:
        tenth = 10 * done // max(total, 1)
        if shown.get(stage, -1) < tenth:
            shown[stage] = tenth
            print(f"terrain: {stage} {10 * tenth}%", file=sys.stderr, flush=True)

    return progress


def _recipe(args: argparse.Namespace) -> Recipe:
    """The recipe of ``--preset`` or ``--recipe``; ``ValueError`` naming the flag."""
    if args.preset is not None:
        return read_preset(args.preset)
    try:
        return read_recipe(args.recipe)
    except ValueError as error:
        raise ValueError(f"recipe: {str(error).removeprefix('path: ')}") from None


def _splat_layers(args: argparse.Namespace, recipe: Recipe) -> tuple | None:
    if args.splat is None:
        return None if recipe.splat is None else check_layers(recipe.splat)
    try:
        return check_layers(json.loads(args.splat.read_text(encoding="utf-8")))
    except (OSError, json.JSONDecodeError) as error:
        raise ValueError(f"splat: cannot read {str(args.splat)!r}: {error}") from None


def run_terrain(args: argparse.Namespace) -> list[Path]:
    """The ``terrain`` command: build, write, print what was written (and the engine's import numbers)."""
    recipe = _recipe(args)
    samples = recipe.export["samples"] if args.size is None else args.size
    engine_name = recipe.export["engine"] if args.engine is None else args.engine
    tile = recipe.export["tile"] if args.tile is None else args.tile
    if tile < 0:
        raise ValueError(f"tile: must be >= 0 quads, got {tile}")
    preset = None if engine_name == "none" else engine_of(engine_name)
    suffix = heightmaps.heightmap_format(args.out)
    maps = recipe.maps if args.maps is None else args.maps
    layers = _splat_layers(args, recipe)
    if preset is not None:  # the format and size are checked before any work
        preset.check_format(suffix)
        if not tile:
            preset.check_size(samples, samples)
    if tile:
        heightmaps.check_tiles((samples, samples), tile, None, preset)
    if args.save_recipe is not None and args.save_recipe.suffix.lower() != ".json":
        raise ValueError(f"save-recipe: a recipe file is .json, not {args.save_recipe.suffix!r}")
    map_paths = [args.out.with_name(f"{args.out.stem}_{name}.png") for name in maps]
    started = time.perf_counter()
    built = build_terrain(recipe, samples, progress=_progress(), notice=lambda text: print(text, file=sys.stderr))
    heights = built.float32[::-1]  # row 0 at +Y, as heightmap files are
    values, height_range = heightmaps.normalize(heights.astype(np.float64))
    keywords = {
        "height_range": height_range,
        "unit": "m",
        "settings": to_dict(recipe),
        "engine": preset,
        "cell_size": built.cell_size,
        "row_order": "row-major; the first row is the terrain's +Y edge, columns from -X to +X",
    }
    if layers is not None:
        keywords["splat"] = splat_weights(heights.astype(np.float64), layers, cell_size=built.cell_size,
                                          seed=recipe.noise.seed)  # fmt: skip
        keywords["splat_bits"] = int(args.splat_bits)
    images = compute_maps(heights.astype(np.float64), maps, cell_size=built.cell_size) if maps else {}
    water_options = recipe.water
    if water_options is None and args.water:
        water_options = {option.name: option.default for option in WATER_OPTIONS}
    flooded = None
    if water_options is not None:
        flooded = water(heights.astype(np.float64), cell_size=built.cell_size, **water_options)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    extra = map_paths + ([args.save_recipe] if args.save_recipe is not None else [])
    try:
        with replacing_all(extra, "maps, save-recipe") as temporaries:  # committed after the heightmap's set
            for name, temporary in zip(maps, temporaries, strict=False):
                write_image(temporary, unit_map(name, images[name]), 16)
            if args.save_recipe is not None:
                temporaries[-1].write_text(json.dumps(to_dict(recipe), indent=1) + "\n", encoding="utf-8")
            if tile:
                written = heightmaps.write_tiles(args.out, values, tile, None, **keywords)
            else:
                written = [heightmaps.write_heightmap(args.out, values, **keywords)]
            if flooded is not None:  # the whole terrain's water, beside the file or the tile set
                extra += write_water_maps(args.out, flooded.level, flooded.flow, height_range=height_range,
                                          engine=None if preset is None else preset.name, cell_size=built.cell_size,
                                          settings=water_options)  # fmt: skip
    except OSError as error:
        if isinstance(error, ArgumentFileError):
            raise
        raise ArgumentFileError(f"out: cannot write {str(args.out)!r} (nothing was written): {error}") from error
    elapsed = time.perf_counter() - started
    low, high = (value + 0.0 for value in height_range)  # no "-0"
    what = f"{written[0]}" if len(written) == 1 else f"{len(written)} tiles {written[0].name} .. {written[-1].name}"
    source = args.preset if args.preset is not None else str(args.recipe)
    print(f"wrote {what} and {heightmaps.sidecar_path(args.out).name} ({samples}x{samples} of {source}, heights "
          f"{low:.6g} .. {high:.6g} m, cell {built.cell_size:.6g} m, {len(recipe.stages)} stages, "
          f"{elapsed:.2f} s)")  # fmt: skip
    for path in extra:
        print(f"  {path}")
    if preset is not None:
        record = heightmaps.read_heightmap(written[0]).sidecar.get("import", {})
        for name, value in record.items():
            print(f"  {name}: {value}")
        if preset.name == "unreal":
            print(f"Z scale: {record['Scale (cm)'][2]:.6g} (Unreal's landscape Scale Z, for {low:.6g} .. {high:.6g} m)")
    return [*written, *extra]
