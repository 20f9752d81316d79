"""``python -m noise_core maps HEIGHT --maps slope,flow,... --out NAME_{map}.exr``: terrain maps and splat weights
of a height image, headlessly (``terrain_maps``, ``splat``).

Float formats (.exr, .tif) store each map's values as they are; a PNG stores them mapped to [0, 1] by
``unit_map`` (slope / 90°, aspect / 360°, ...), since PNG holds integers only.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from ..io.files import replacing_all
from ..io.heightmaps import SPLAT_BITS
from ..io.images import FORMATS, PNG_BITS, image_format, pack_rgba, read_image, write_image, writer_module
from ..terrain.heightfield import CELL_SIZE
from ..terrain.maps import HEIGHT_SCALE, MAP_NAMES, MAP_OPTIONS, compute_maps, unit_map
from ..terrain.splat import splat_paths, splat_weights
from .flags import ROW, add_flags

HEIGHT_SUFFIXES = (*FORMATS, ".npy")


def _names(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    for name in names:
        if name not in MAP_NAMES:
            raise argparse.ArgumentTypeError(f"{name!r} is not a map; choose from {','.join(MAP_NAMES)}")
    return names


def add_maps_command(commands) -> None:
    """The ``maps`` command on the subparsers ``commands``."""
    maps = commands.add_parser(
        "maps",
        help="terrain maps (slope, aspect, curvature, flow, ...) and splat weights of a height image",
        description="Terrain maps of a heightmap (rows along +y, row 0 first as stored) and, with --splat, splat "
        "weights. Float formats (.exr, .tif) store the values; PNG stores them mapped to [0, 1] "
        "(docs/terrain-maps.md).",
    )
    maps.add_argument("heights", type=Path, help=f"height image or array ({', '.join(HEIGHT_SUFFIXES)}), one channel")
    maps.add_argument("--maps", type=_names, default=[], help=f"comma-separated maps: {','.join(MAP_NAMES)}")
    maps.add_argument("--out", help="output path with {map} in it, e.g. out/terrain_{map}.exr (format by suffix)")
    add_flags(maps, (CELL_SIZE, HEIGHT_SCALE, *MAP_OPTIONS), unset=ROW)
    maps.add_argument("--png-bits", type=int, choices=PNG_BITS, default=16, help="integer depth of PNG maps (16)")
    maps.add_argument("--splat", type=Path, help="JSON file: a list of splat layers (docs/terrain-maps.md)")
    maps.add_argument(
        "--splat-out", type=Path, help="splat images: NAME.png writes NAME_0.png, ... (RGBA, 4 layers each)"
    )
    add_flags(maps, (SPLAT_BITS,), unset=ROW)
    maps.add_argument("--seed", type=int, default=0, help="splat breakup noise seed (default 0)")


def read_heights(path: Path) -> np.ndarray:
    """The heights in ``path`` (an image or a ``.npy`` array) as float64; ``ValueError`` naming ``heights``."""
    if path.suffix.lower() not in HEIGHT_SUFFIXES:
        raise ValueError(f"heights: unsupported format {path.suffix or '(none)'!r}; use one of {HEIGHT_SUFFIXES}")
    if not path.is_file():
        raise ValueError(f"heights: no such file {str(path)!r}")
    values = np.load(path, allow_pickle=False) if path.suffix.lower() == ".npy" else read_image(path)
    if values.ndim == 3 and values.shape[2] in (1, 2):  # grey (and alpha)
        values = values[..., 0]
    if values.ndim != 2:
        raise ValueError(f"heights: expected one channel, got an array of shape {values.shape}")
    return np.asarray(values, dtype=np.float64)


def run_maps(args: argparse.Namespace) -> list[Path]:
    """Compute and write what ``args`` asks for; returns the written paths."""
    if not args.maps and args.splat is None:
        raise ValueError("maps: nothing to do; give --maps and/or --splat")
    if args.maps and (args.out is None or "{map}" not in args.out):
        raise ValueError("out: give an output path with {map} in it, e.g. --out terrain_{map}.exr")
    if (args.splat is None) != (args.splat_out is None):
        raise ValueError("splat-out: --splat and --splat-out go together")
    targets = [Path(args.out.replace("{map}", name)) for name in args.maps]
    for target in targets:
        writer_module(image_format(target))
    layers = None
    if args.splat is not None:
        writer_module(image_format(args.splat_out))
        try:
            layers = json.loads(args.splat.read_text())
        except (OSError, json.JSONDecodeError) as error:
            raise ValueError(f"splat: cannot read {str(args.splat)!r}: {error}") from None
    started = time.perf_counter()
    heights = read_heights(args.heights) * HEIGHT_SCALE.check(args.height_scale)  # type: ignore[operator]
    settings = {option.name: getattr(args, option.name) for option in (CELL_SIZE, *MAP_OPTIONS)}
    maps = compute_maps(heights, args.maps, **settings)
    weights = None if layers is None else splat_weights(heights, layers, maps=maps, seed=args.seed, **settings)
    splats = [] if weights is None else splat_paths(args.splat_out, weights.shape[0])
    with replacing_all([*targets, *splats]) as temporaries:  # all files or none
        for name, temporary in zip(args.maps, temporaries, strict=False):
            values = unit_map(name, maps[name]) if temporary.suffix.lower() == ".png" else maps[name]
            write_image(temporary, values, args.png_bits)
        if weights is not None:
            for temporary, image in zip(temporaries[len(targets) :], pack_rgba(weights), strict=True):
                write_image(temporary, image, int(args.splat_bits))
    written = [*targets, *splats]
    elapsed = time.perf_counter() - started
    shape = f"{heights.shape[1]}x{heights.shape[0]}"
    print(f"wrote {len(written)} files ({shape}, {', '.join(args.maps) or 'splat only'}, {elapsed:.2f} s)")
    for path in written:
        print(f"  {path}")
    return written
