"""Command line: ``python -m noise_core bake ...`` writes a noise texture headlessly.

Every ``NoiseSpec`` field is an option (``--kind``, ``--seed``, ``--frequency``,
``--octaves``, ``--tiling`` ...), with help, choices and types from the kind registry
(``registry.py``), so new kinds and options appear automatically; unset options keep the
spec's defaults.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import fields
from pathlib import Path

from .api import evaluate_grid
from .files import replacing
from .images import FORMATS, PNG_BITS, image_format, write_image, writer_module
from .loops import DEFAULT_RADIUS, MAX_FRAMES, check_loop, check_loop_kind, frame_path, loop_grid, write_sequence
from .normal_maps import CONVENTIONS, METHOD_TEXT, METHODS, encode, grid_normals, normal_method
from .ranges import to_unit, value_range
from .registry import COMMON_NAMES, KINDS, option_kinds, options_by_name
from .spec import NoiseSpec
from .tiled_bake import MAX_SIDE, BakeError, add_options, bake_from_args, check_untiled, is_tiled

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
    """The ``noise_core`` argument parser with its ``bake`` command."""
    parser = argparse.ArgumentParser(prog="python -m noise_core", description="Procedural noise, headless.")
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
        help="output image path (.png, .tif, .tiff, .exr); tiled: a .zarr store or a pattern with {row} and {col}",
    )
    bake.add_argument("--size", type=_positive_size, default=512, help="width and height in pixels (default 512)")
    bake.add_argument("--width", type=_positive_size, help="width in pixels (overrides --size)")
    bake.add_argument("--height", type=_positive_size, help="height in pixels (overrides --size)")
    bake.add_argument("--png-bits", type=int, choices=PNG_BITS, default=16, help="integer depth of a .png (default 16)")
    _add_normal_options(bake)
    _add_loop_options(bake)
    _add_spec_options(bake)
    add_options(bake)  # tiled bakes: noise_core.tiled_bake
    return parser


DEFAULT_NORMAL_STRENGTH = 0.1


def _add_normal_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("normal maps (noise_core.normal_maps)")
    group.add_argument(
        "--map",
        choices=("height", "normal"),
        default="height",
        help="height: the noise mapped to 0..1 (default); normal: a tangent-space normal map of that height (RGB)",
    )
    group.add_argument(
        "--normal-strength",
        type=float,
        default=DEFAULT_NORMAL_STRENGTH,
        help=f"height of the surface from h = 0 to 1, in texture widths (default {DEFAULT_NORMAL_STRENGTH})",
    )
    group.add_argument(
        "--normal-convention",
        choices=CONVENTIONS,
        default="opengl",
        help="green channel: opengl = +Y up the texture (Blender, default), directx = -Y",
    )
    group.add_argument(
        "--normal-method",
        choices=METHODS,
        default="auto",
        help="analytic derivatives, central differences of the height, or auto: analytic where the kind has them",
    )


def _add_loop_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("seamless loops (noise_core.loops: 4D noise of value, perlin, simplex kinds)")
    group.add_argument(
        "--frames",
        type=int,
        help=f"write a looping image sequence of this many frames (1..{MAX_FRAMES}): --out name.png becomes "
        "name.0001.png, name.0002.png, ...; frame N+1 would be frame 1 again",
    )
    group.add_argument(
        "--loop-radius",
        type=float,
        default=DEFAULT_RADIUS,
        help=f"radius of the circle the loop moves around in the two extra dimensions, in noise-space units "
        f"(default {DEFAULT_RADIUS:g}): larger is faster change from frame to frame",
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
    if is_tiled(args.out):
        if args.map != "height":
            raise ValueError(
                "map: tiled bakes (.zarr or a tile pattern) write heights only; bake a normal map as one image"
            )
        return bake_from_args(spec, (height, width), args)
    check_untiled(args)
    if args.frames is None and args.loop_radius != DEFAULT_RADIUS:
        raise ValueError("loop-radius: only used with --frames (a looping sequence)")
    if max(width, height) > MAX_SIZE:
        raise ValueError(
            f"size: {width}x{height} is larger than {MAX_SIZE} for one image; bake it tiled "
            "(--out NAME.zarr or a tile pattern such as 'tiles/{row}_{col}.png')"
        )
    method = normal_method(spec, args.normal_method) if args.map == "normal" else ""
    writer_module(image_format(args.out))
    if not args.out.parent.is_dir():
        raise OSError(f"folder {str(args.out.parent)!r} does not exist")
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


def _bake_loop(spec: NoiseSpec, shape: tuple[int, int], method: str, args: argparse.Namespace, started: float) -> Path:
    """Write the ``--frames`` frames of the loop of the image to ``name.0001.png``, ... (all or none)."""
    try:
        frames, radius = check_loop(args.frames, args.loop_radius)
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


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the process exit code (2 for bad arguments, a missing writer or unwritable output).

    The image is written whole or not at all (``files.replacing``): on a failed write (full disk,
    file-size limit, unwritable folder) no partial file remains and an existing file is kept.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        bake(args)
    except (ValueError, TypeError) as error:
        parser.error(str(error))
    except ModuleNotFoundError as error:
        print(f"python -m noise_core: error: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"python -m noise_core: error: out: cannot write {str(args.out)!r}: {error}", file=sys.stderr)
        return 2
    except BakeError as error:
        print(f"python -m noise_core: error: {error}", file=sys.stderr)
        return 1
    return 0
