"""Command line: ``python -m noise_core bake ...`` writes a noise texture headlessly; ``import`` reads a heightmap.

Every ``NoiseSpec`` field is an option (``--kind``, ``--seed``, ``--frequency``,
``--octaves``, ``--tiling`` ...), with help, choices and types from the kind registry
(``registry.py``), so new kinds and options appear automatically; unset options keep the
spec's defaults.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from dataclasses import asdict, fields
from pathlib import Path

import numpy as np

from .._version import __version__
from ..api import evaluate_grid
from ..io import heightmaps
from ..io.engines import engine
from ..io.files import ArgumentFileError, replacing
from ..io.images import FORMATS, PNG_BITS, image_format, write_image, writer_module
from ..loops import (
    MAX_FRAMES,
    RADIUS,
    check_loop,
    check_loop_kind,
    check_loop_reach,
    frame_path,
    loop_grid,
    write_sequence,
)
from ..normal_maps import METHOD_TEXT, encode, grid_normals, normal_method
from ..normal_maps import OPTIONS as NORMAL_OPTIONS
from ..ranges import to_unit, value_range
from ..registry import COMMON_NAMES, KINDS, option_kinds, options_by_name
from ..spec import NoiseSpec
from ..terrain.splat import SplatLayer, check_layers, splat_weights
from ..tiled_bake import MAX_SIDE, OPTIONS, BakeError, add_options, bake_from_args, check_untiled, is_tiled
from .erode import add_erode_command, erode
from .flags import OUTPUTS, ROW, WRITES, Parser, add_flags, make_folders, remove_folders
from .layers import add_layers_command, run_layers
from .maps import add_maps_command, run_maps
from .stats import add_stats_command, run_stats
from .terrain import add_terrain_command, run_terrain
from .water import add_water_command, run_water

MAX_SIZE = 16384


def _option_help(name: str) -> str:
    """The help text of one noise option: description, limits and default per kind, the kinds using it."""
    if name in COMMON_NAMES:
        option = options_by_name()[name]
        limits = f"; {option.limits()}" if option.limits() else ""
        return f"{option.description}{limits} (default {option.default!r})"
    parts = []
    for kind_name in option_kinds(name):
        option = KINDS[kind_name].option(name)
        assert option is not None
        allowed = ", ".join(option.choices) if option.choices else option.limits()
        parts.append(f"{kind_name}: {allowed}, default {option.default!r}")
    return f"{options_by_name()[name].description} ({'; '.join(parts)})"


def _add_spec_options(parser: argparse.ArgumentParser) -> None:
    """One option per registry option (common first, then each kind's); unset ones keep the spec's defaults."""
    group = parser.add_argument_group("noise settings (NoiseSpec fields, from the kind registry)")
    for name, option in options_by_name().items():
        flag = "--" + name.replace("_", "-")
        keywords: dict = {"default": argparse.SUPPRESS, "help": _option_help(name)}
        if option.type is bool:
            group.add_argument(flag, action=argparse.BooleanOptionalAction, **keywords)
        elif option.type is tuple:
            group.add_argument(flag, type=float, nargs="+", **keywords)
        elif name == "kind":
            group.add_argument(flag, choices=list(KINDS), **keywords)
        else:  # choices are checked by NoiseSpec, whose message names the kind's allowed values
            group.add_argument(flag, type=option.type, **keywords)


def _positive_size(text: str) -> int:
    value = int(text)
    if not 1 <= value <= MAX_SIDE:
        raise argparse.ArgumentTypeError(f"must be between 1 and {MAX_SIZE} ({MAX_SIDE} for a tiled bake), got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The ``noise_core`` argument parser with its ``bake``, ``import``, ``erode``, ``maps``, ``layers``, ``stats``,
    ``water`` and ``terrain`` commands."""
    parser = Parser(prog="python -m noise_core", description="Procedural noise, headless.", epilog=WRITES)
    parser.add_argument("--version", action="version", version=f"noise_core {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    bake = commands.add_parser(
        "bake",
        help="write a noise texture to an image file",
        description="Bake 2D noise on a pixel grid to an image. Formats by extension: "
        + ", ".join(f"{suffix} ({text})" for suffix, text in FORMATS.items())
        + ". Values are mapped from the kind's documented range to [0, 1].",
    )
    bake.add_argument(
        "--out",
        type=Path,
        required=True,
        help=f"output image path ({heightmaps.listed(FORMATS)}), a raw heightmap "
        f"({heightmaps.listed(heightmaps.RAW_TYPES)}); tiled: a .zarr store or a pattern with {{row}} and {{col}}",
    )
    bake.add_argument("--size", type=_positive_size, default=512, help="width and height in pixels (default 512)")
    bake.add_argument("--width", type=_positive_size, help="width in pixels (overrides --size)")
    bake.add_argument("--height", type=_positive_size, help="height in pixels (overrides --size)")
    bake.add_argument("--png-bits", type=int, choices=PNG_BITS, default=16, help="integer depth of a .png (default 16)")
    _add_normal_options(bake)
    _add_loop_options(bake)
    _add_heightmap_options(bake)
    _add_spec_options(bake)
    add_options(bake)  # tiled bakes: noise_core.tiled_bake
    reader = commands.add_parser(
        "import",
        help=f"read a heightmap ({heightmaps.listed()}) and print its size, range and engine numbers",
        description="Read a heightmap back (noise_core.read_heightmap): raw files take their size from --shape, "
        "their sidecar NAME.ext.json, or a square of their sample count. A tile set is read by its set name. "
        "--out writes it again in another format (with the same height range).",
    )
    reader.add_argument("path", type=Path, help="the heightmap file (or a tile set's NAME.ext)")
    reader.add_argument("--shape", type=int, nargs=2, metavar=("HEIGHT", "WIDTH"), help="size of a raw file")
    reader.add_argument("--out", type=Path, help="write it again to this heightmap file (format by extension)")
    add_erode_command(commands)
    add_maps_command(commands)  # terrain maps: noise_core.cli.maps
    add_layers_command(commands)  # material layers: noise_core.cli.layers
    add_stats_command(commands)  # geomorphometry: noise_core.cli.stats
    add_water_command(commands)  # lakes, rivers, flow maps: noise_core.cli.water
    add_terrain_command(commands)  # a recipe or preset to a heightmap: noise_core.cli.terrain
    for command in commands.choices.values():  # those that write say how
        if any(action.dest in OUTPUTS for action in command._actions):
            command.epilog = WRITES
    return parser


HEIGHTMAP_FLAGS = (heightmaps.ENGINE, heightmaps.CELL_SIZE, heightmaps.OVERLAP, heightmaps.SPLAT, heightmaps.SPLAT_BITS)
"""The heightmap options given as flags (``noise_core.io.heightmaps``' rows); ``--height-range`` is two numbers."""
HEIGHTMAP_OPTIONS = (*(option.name for option in HEIGHTMAP_FLAGS), "height_range")


def _add_heightmap_options(parser: argparse.ArgumentParser) -> None:
    raw = "/".join(heightmaps.RAW_TYPES)
    group = parser.add_argument_group(
        f"game-engine heightmaps (noise_core.io.heightmaps; with --out NAME{raw} or these options: a "
        "NAME.ext.json sidecar is written beside the file)"
    )
    add_flags(group, HEIGHTMAP_FLAGS, unset=None)
    group.add_argument(
        "--height-range",
        type=float,
        nargs=2,
        metavar=("LOW", "HIGH"),
        help="the heights in metres that 0 and 1 stand for (needed with --engine); default: the noise's range",
    )


def _add_normal_options(parser: argparse.ArgumentParser) -> None:
    add_flags(parser.add_argument_group("normal maps (noise_core.normal_maps)"), NORMAL_OPTIONS, unset=ROW)


def _add_loop_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("seamless loops (noise_core.loops: 4D noise of value, perlin, simplex kinds)")
    group.add_argument(
        "--frames",
        type=int,
        help=f"write a looping image sequence of this many frames (1..{MAX_FRAMES}): --out name.png becomes "
        "name.0001.png, name.0002.png, ...; frame N+1 would be frame 1 again",
    )
    add_flags(group, (RADIUS,), unset=ROW)


def _refuse_unused(args: argparse.Namespace) -> None:
    """``ValueError`` naming an option given where this bake would not use it (rather than dropping it)."""
    unused = {
        **{option.name.replace("_", "-"): args.map != "normal" and getattr(args, option.name) != option.default
           for option in NORMAL_OPTIONS[1:]},
        "loop-radius": args.frames is None and args.loop_radius != RADIUS.default,
    }  # fmt: skip
    uses = {"normal-strength": "--map normal (a normal map)", "normal-convention": "--map normal (a normal map)",
            "normal-method": "--map normal (a normal map)", "loop-radius": "--frames (a looping sequence)"}  # fmt: skip
    for name in (name for name, given in unused.items() if given):
        raise ValueError(f"{name}: only used with {uses[name]}")
    single_png = not is_tiled(args.out) and not _is_heightmap(args) and Path(args.out).suffix.lower() == ".png"
    if args.png_bits != 16 and not single_png:
        raise ValueError(
            "png-bits: only used for a single .png image (tiled .png tiles are 16-bit; .zarr stores take --bits, "
            ".exr and .tif images and heightmaps have their own depth)"
        )


def _spec_from_args(args: argparse.Namespace) -> NoiseSpec:
    values = {field.name: getattr(args, field.name) for field in fields(NoiseSpec) if hasattr(args, field.name)}
    if "sizes" in values:
        values["sizes"] = tuple(values["sizes"])
    return NoiseSpec(**values)


def bake(args: argparse.Namespace) -> Path:
    """Compute and write the texture described by ``args``; return the written path."""
    spec = _spec_from_args(args)
    width = args.width or args.size
    height = args.height or args.size
    _refuse_unused(args)
    if _is_heightmap(args):
        return _bake_heightmap(spec, (height, width), args)
    if is_tiled(args.out):
        if args.map != "height":
            raise ValueError(
                "map: tiled bakes (.zarr or a tile pattern) write heights only; bake a normal map as one image"
            )
        if args.frames is not None:
            raise ValueError(
                "frames: --frames is for single images; a tiled bake (.zarr or a tile pattern) writes one still "
                "image in tiles"
            )
        return bake_from_args(spec, (height, width), args)
    check_untiled(args)
    if max(width, height) > MAX_SIZE:
        raise ValueError(
            f"size: {width}x{height} is larger than {MAX_SIZE} for one image; bake it tiled "
            "(--out NAME.zarr or a tile pattern such as 'tiles/{row}_{col}.png')"
        )
    method = normal_method(spec, args.normal_method) if args.map == "normal" else ""
    writer_module(image_format(args.out))
    started = time.perf_counter()
    if args.frames is not None:
        return _bake_loop(spec, (height, width), method, args, started)
    if args.map == "normal":
        normals = grid_normals(
            spec, (height, width), strength=args.normal_strength, convention=args.normal_convention, method=method
        )
        pixels = encode(normals)
        what = f"{args.normal_convention} normal map from {METHOD_TEXT[method]}, strength {args.normal_strength:g}"
    else:
        pixels = to_unit(spec, evaluate_grid(spec, (height, width)))
        low, high = value_range(spec)
        what = f"range [{low:g}, {high:g}] -> [0, 1]"
    with replacing(args.out) as temporary:
        write_image(temporary, pixels, args.png_bits)
    elapsed = time.perf_counter() - started
    print(f"wrote {args.out} ({width}x{height}, kind {spec.kind}, {what}, {elapsed:.2f} s)")
    return args.out


def _is_heightmap(args: argparse.Namespace) -> bool:
    """Whether ``bake`` writes a game-engine heightmap: a raw ``--out`` or any heightmap option."""
    raw = Path(args.out).suffix.lower() in heightmaps.RAW_TYPES
    return raw or any(getattr(args, name) is not None for name in HEIGHTMAP_OPTIONS)


def _splat_layers(args: argparse.Namespace) -> tuple[SplatLayer, ...] | None:
    """The splat layers of ``--splat`` (read and checked before any noise is computed), None without it."""
    if args.splat is None:
        if args.splat_bits is not None:
            raise ValueError("splat-bits: only used with --splat")
        return None
    try:
        text = args.splat.read_text(encoding="utf-8")
        return check_layers(json.loads(text))
    except (OSError, json.JSONDecodeError) as error:
        raise ValueError(f"splat: cannot read {str(args.splat)!r}: {error}") from None


def _bake_heightmap(spec: NoiseSpec, shape: tuple[int, int], args: argparse.Namespace) -> Path:
    """Write the heights of ``spec`` as a heightmap with its sidecar (``--tile``: a tile set), all or none."""
    heightmaps.heightmap_format(args.out)
    for name in (*(option for option in OPTIONS if option != "tile"), "frames"):
        if getattr(args, name) is not None:
            raise ValueError(f"{name.replace('_', '-')}: not used for a heightmap (--out {args.out.suffix})")
    if args.map != "height":
        raise ValueError("map: a heightmap holds heights; bake a normal map to .png, .tif or .exr")
    if max(shape) > MAX_SIZE:
        raise ValueError(f"size: {shape[1]}x{shape[0]} is larger than {MAX_SIZE} for one heightmap")
    preset = None if args.engine in (None, "none") else engine(args.engine)
    if preset is not None and args.height_range is None:
        raise ValueError(
            "height-range: give the heights in metres that 0 and 1 stand for (e.g. --height-range 0 500), "
            f"for {preset.title}'s import numbers"
        )
    if args.overlap is not None and args.tile is None:
        raise ValueError("overlap: only used with --tile")
    layers = _splat_layers(args)
    if args.height_range is None:
        height_range, unit = value_range(spec), "noise value"
    else:
        height_range, unit = tuple(args.height_range), "m"
    keywords = {
        "height_range": height_range,
        "unit": unit,
        "settings": asdict(spec),
        "engine": preset,
        "cell_size": args.cell_size,  # recorded in the sidecar when given (None: the row's default, 1 m)
    }
    if preset is not None:  # the size, format and tiles are checked before the noise is computed
        preset.check_format(heightmaps.heightmap_format(args.out))
        if args.tile is None:
            preset.check_size(shape[1], shape[0])
    if args.tile is not None:
        heightmaps.check_tiles(shape, args.tile, args.overlap, preset)
    started = time.perf_counter()
    values = to_unit(spec, evaluate_grid(spec, shape))
    low, high = height_range
    if layers is not None:
        heights = low + values.astype(np.float64) * (high - low)
        cell = heightmaps.CELL_SIZE.default if args.cell_size is None else args.cell_size
        keywords["splat"] = splat_weights(heights, layers, cell_size=cell, seed=spec.seed)
        keywords["splat_bits"] = int(heightmaps.SPLAT_BITS.default if args.splat_bits is None else args.splat_bits)
    if args.tile is None:
        heightmaps.write_heightmap(args.out, values, **keywords)
        what = f"{args.out} and {heightmaps.sidecar_path(args.out).name}"
    else:
        paths = heightmaps.write_tiles(args.out, values, args.tile, args.overlap, **keywords)
        what = f"{len(paths)} tiles {paths[0].name} .. {paths[-1].name} and {heightmaps.sidecar_path(args.out).name}"
    elapsed = time.perf_counter() - started
    print(
        f"wrote {what} ({shape[1]}x{shape[0]}, kind {spec.kind}, [0, 1] = {low:g} .. {high:g} {unit}, {elapsed:.2f} s)"
    )
    if preset is not None:
        record = heightmaps.read_heightmap(args.out if args.tile is None else paths[0]).sidecar.get("import", {})
        for name, value in record.items():
            print(f"  {name}: {value}")
    return args.out


def import_heightmap(args: argparse.Namespace) -> Path:
    """The ``import`` command: read ``args.path``, print what it holds, write it to ``--out`` if given."""
    found = heightmaps.read_heightmap(args.path, None if args.shape is None else tuple(args.shape))
    values = found.values
    height, width = values.shape
    span = (
        "no height range"
        if found.height_range is None
        else (f"[0, 1] = {found.height_range[0]:g} .. {found.height_range[1]:g} {found.unit}".rstrip())
    )
    print(f"read {args.path} ({width}x{height}, values {values.min():g} .. {values.max():g}, {span})")
    for name, value in found.sidecar.get("import", {}).items():
        print(f"  {name}: {value}")
    if args.out is not None:
        heightmaps.write_heightmap(
            args.out,
            values,
            height_range=found.height_range or (0.0, 1.0),
            unit=found.unit,
            settings=found.sidecar.get("settings"),
            cell_size=found.cell_size,  # the spacings it records, if any
        )
        print(f"wrote {args.out} and {heightmaps.sidecar_path(args.out).name}")
    return args.path


def _bake_loop(spec: NoiseSpec, shape: tuple[int, int], method: str, args: argparse.Namespace, started: float) -> Path:
    """Write the ``--frames`` frames of the loop of the image to ``name.0001.png``, ... (all or none)."""
    try:
        frames, radius = check_loop(args.frames, args.loop_radius)
        check_loop_reach(spec, radius)
    except (ValueError, TypeError) as error:
        name = str(error).split(":", 1)[0]
        raise ValueError(f"{'loop-' if name == 'radius' else ''}{error}") from None
    check_loop_kind(spec, 2)

    def render(frame: int):
        if args.map == "normal":
            normals = grid_normals(
                spec, shape, strength=args.normal_strength, convention=args.normal_convention, method=method,
                loop=(frame, frames, radius),
            )  # fmt: skip
            return encode(normals)
        return to_unit(spec, loop_grid(spec, shape, frame, frames, radius))

    paths = write_sequence(args.out, frames, render, args.png_bits)
    what = f"{args.normal_convention} normal maps" if args.map == "normal" else "heights"
    elapsed = time.perf_counter() - started
    print(
        f"wrote {len(paths)} frames {paths[0]} .. {paths[-1]} ({shape[1]}x{shape[0]}, kind {spec.kind}, {what}, "
        f"a seamless loop around a circle of radius {radius:g}, {elapsed:.2f} s)"
    )
    return frame_path(args.out, 0)


def _os_message(args: argparse.Namespace, error: OSError) -> str:
    """What to say of ``error``: as it is when it names the user's argument (``ArgumentFileError``, an input not
    found), else as a failure to write ``--out``."""
    named = isinstance(error, FileNotFoundError) and re.match(r"\w+: ", str(error))
    if isinstance(error, ArgumentFileError) or named:
        return str(error)
    out = getattr(args, "out", None)
    return f"out: cannot write {str(out)!r}: {error}" if out is not None else str(error)


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the process exit code (2 for bad arguments, a missing writer or unwritable output).

    The folders of the outputs are made first (``flags.make_folders``) and removed again if the command fails.
    Every file is written whole or not at all (``files.replacing``): on a failed write (full disk, file-size
    limit, unwritable folder) no partial file remains and an existing file is kept.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    command = parser.command_parser(args)
    made: list[Path] = []
    status = 2
    try:
        run = {"bake": bake, "erode": erode, "import": import_heightmap, "maps": run_maps, "layers": run_layers,
               "stats": run_stats, "water": run_water, "terrain": run_terrain}  # fmt: skip
        made = make_folders(args)
        run[args.command](args)
        status = 0
    except (ValueError, TypeError) as error:
        command.error(str(error))
    except ModuleNotFoundError as error:
        print(f"{command.prog}: error: {command.flag_message(str(error))}", file=sys.stderr)
    except OSError as error:
        print(f"{command.prog}: error: {command.flag_message(_os_message(args, error))}", file=sys.stderr)
    except BakeError as error:
        print(f"{command.prog}: error: {error}", file=sys.stderr)
        status = 1
    finally:
        if status:
            remove_folders(made)
    return status
