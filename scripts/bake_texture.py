r"""Bake a noise texture to an image file with the Noisewright add-on, headless.

    blender --background --python scripts/bake_texture.py -- \
        --out noise.exr --size 1024 --kind perlin --octaves 5
    python scripts/bake_texture.py --out noise.png --width 2048 --height 1024 --tiling --colors ramp

The format follows the file extension: .png (16-bit) or .exr (32-bit float OpenEXR), written by Blender
whole or not at all (a failed save exits with status 1 and keeps an existing file; bad options exit with 2).
Noise options default to 2D noise on the XY plane, so the image equals ``noise_core.evaluate_grid``
mapped to 0..1 (as ``python -m noise_core bake`` writes it); ``--dimensions 3`` bakes a slice of 3D noise.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib.util import module_from_spec, spec_from_file_location
from pathlib import Path

if "_blender_addon" not in sys.modules:  # by its path: ``blender --python`` leaves scripts/ off sys.path (docs/cli.md)
    _spec = spec_from_file_location("_blender_addon", Path(__file__).resolve().with_name("_blender_addon.py"))
    _spec.loader.exec_module(_module := module_from_spec(_spec))
    sys.modules["_blender_addon"] = _module
addon = sys.modules["_blender_addon"]


FORMATS = {".png": "PNG", ".exr": "OPEN_EXR"}
MAX_SIDE = 65536
DEFAULT_NOISE = {"dimensions": "2", "plane": "XY"}


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    pixels, colour = addon.integer(1, MAX_SIDE), addon.number(0.0)
    parser.add_argument("--out", type=Path, required=True, help="image file to write: .png (16-bit) or .exr (float)")
    parser.add_argument("--size", type=pixels, default=1024, help="width and height in pixels (default 1024)")
    parser.add_argument("--width", type=pixels, help="width in pixels (overrides --size)")
    parser.add_argument("--height", type=pixels, help="height in pixels (overrides --size)")
    parser.add_argument(
        "--colors", choices=("grayscale", "ramp"), default="grayscale", help="grey values or a two-colour ramp"
    )
    parser.add_argument("--low", type=colour, nargs=3, metavar=("R", "G", "B"), help="ramp colour of noise value 0")
    parser.add_argument("--high", type=colour, nargs=3, metavar=("R", "G", "B"), help="ramp colour of noise value 1")


def main(argv: Sequence[str] | None = None) -> int:
    parser, args = addon.parse_arguments(__doc__.split("\n\n")[0], _add_arguments, argv)
    file_format = FORMATS.get(args.out.suffix.lower())
    if file_format is None:
        parser.error(
            f"--out: unsupported image format {args.out.suffix or '(none)'!r}; use one of {', '.join(FORMATS)}"
        )
    addon.apply_noise_arguments(parser, args, DEFAULT_NOISE)
    out = addon.output_file(parser, "--out", args.out, tuple(FORMATS))
    width, height = args.width or args.size, args.height or args.size
    max_pixels = addon.addon_package().api.MAX_PIXELS
    if width * height > max_pixels:
        parser.error(f"--width, --height: {width}x{height} exceeds the limit of {max_pixels} pixels")
    ramp = {name: value for name, value in (("color_low", args.low), ("color_high", args.high)) if value}
    try:
        with addon.step(f"baking {width}x{height} noise into {out}"):
            addon.run_api(
                "bake",
                noise_dimensions="SETTINGS",  # the options' dimensions (2D unless --dimensions says otherwise)
                image="Noise",
                width=width,
                height=height,
                use_float=True,
                color_mode=args.colors.upper(),
                save_format=file_format,
                filepath=str(out),
                **ramp,
            )
    except addon.AddonError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
