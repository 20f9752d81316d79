"""``python -m noise_core maps HEIGHT --maps slope,flow,... --out NAME_{map}.exr``: terrain maps and splat weights
of a heightmap, headlessly (``terrain_maps``, ``splat``).

HEIGHT is any heightmap (.r16, .raw, .r32, .png, .exr, .tif, .tiff) or a .npy array: its heights are the
sidecar's height range (``NAME.ext.json``, as ``bake``, ``erode`` and ``import`` write it; without one, the values
as they are) times ``--height-scale``, its cells ``--cell-size`` apart, else its sidecar's cell size, else 1.
Float formats (.exr, .tif) store each map's values as they are; a raw heightmap (.r16, .raw, .r32) stores them
over their smallest to largest value, which its sidecar records with the cell size; a PNG stores them mapped to
[0, 1] by ``unit_map`` (slope / 90°, aspect / 360°, ...), since PNG holds integers only.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np

from ..io import heightmaps
from ..io.files import ArgumentFileError, replacing_all
from ..io.heightmaps import SPLAT_BITS
from ..io.images import PNG_BITS, image_format, pack_rgba, write_image, writer_module
from ..terrain.heightfield import CELL_SIZE
from ..terrain.maps import HEIGHT_SCALE, MAP_NAMES, MAP_OPTIONS, compute_maps, unit_map
from ..terrain.splat import splat_paths, splat_weights
from .erode import cell_size_of, read_heightfile
from .flags import ROW, add_flags

HEIGHT_SUFFIXES = (*heightmaps.FORMATS, ".npy")
FLOAT32_MAX = float(np.finfo(np.float32).max)


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
        description=__doc__.split("\n\n", 1)[1].replace("``", "") + " Rows run along +y, row 0 first as stored "
        "(docs/terrain-maps.md).",
    )
    maps.add_argument("heights", type=Path, help=f"height image or array ({', '.join(HEIGHT_SUFFIXES)}), one channel")
    maps.add_argument("--maps", type=_names, default=[], help=f"comma-separated maps: {','.join(MAP_NAMES)}")
    maps.add_argument("--out", help="output path with {map} in it, e.g. out/terrain_{map}.exr (format by suffix: "
                      ".exr/.tif the values, .png mapped to 0..1, .r16/.raw/.r32 the values over their range, with a "
                      "sidecar)")  # fmt: skip
    add_flags(maps, (CELL_SIZE,), unset=None)
    add_flags(maps, (HEIGHT_SCALE, *MAP_OPTIONS), unset=ROW)
    maps.add_argument("--png-bits", type=int, choices=PNG_BITS, default=16, help="integer depth of PNG maps (16)")
    maps.add_argument("--splat", type=Path, help="JSON file: a list of splat layers (docs/terrain-maps.md)")
    maps.add_argument(
        "--splat-out", type=Path, help="splat images: NAME.png writes NAME_0.png, ... (RGBA, 4 layers each)"
    )
    add_flags(maps, (SPLAT_BITS,), unset=ROW)
    maps.add_argument("--seed", type=int, default=0, help="splat breakup noise seed (default 0)")


def read_heights(path: Path) -> tuple[np.ndarray, heightmaps.Heightmap | None]:
    """The heights in ``path`` (a heightmap with its sidecar, or a ``.npy`` array) as float64, and the heightmap
    read (None for an array); ``ValueError`` naming ``heights``."""
    if path.suffix.lower() not in HEIGHT_SUFFIXES:
        raise ValueError(f"heights: unsupported format {path.suffix or '(none)'!r}; use one of {HEIGHT_SUFFIXES}")
    if path.suffix.lower() != ".npy":
        found = read_heightfile(path, "heights")
        return found.heights, found
    if not path.is_file():
        raise ValueError(f"heights: no such file {str(path)!r}")
    try:
        values = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError) as error:
        raise ValueError(f"heights: cannot read {str(path)!r} as a numpy array: {error}") from None
    if values.ndim == 3 and values.shape[2] in (1, 2):  # grey (and alpha)
        values = values[..., 0]
    if values.ndim != 2:
        raise ValueError(f"heights: expected one channel, got an array of shape {values.shape}")
    return np.asarray(values, dtype=np.float64), None


def _check_outputs(named: list[tuple[str, Path]]) -> None:
    """``ValueError`` naming the argument (``out``, ``splat-out``) of an output of an unwritable format, in no
    folder, or the same file as another (naming both)."""
    seen: dict[str, str] = {}
    for flag, path in named:
        key = os.path.normcase(os.path.abspath(path))
        if key in seen:
            raise ValueError(f"{flag}: {str(path)!r} is also a file of --{seen[key]}; give each output its own path")
        seen[key] = flag
        if not (flag == "out" and path.suffix.lower() in heightmaps.RAW_TYPES):
            writer_module(image_format(path, flag), flag)


def _raw_map(path: Path, name: str, values: np.ndarray, cell: float, source: Path) -> dict[Path, bytes]:
    """The files of the map ``name`` as the raw heightmap ``path`` (.r16, .raw, .r32): its values over their
    smallest to largest, and the sidecar that records that range and the cell size."""
    suffix = path.suffix.lower()
    unit, span = heightmaps.normalize(values)
    settings = {"map": name, "heights": source.name}
    record = heightmaps.describe(unit.shape, suffix, span, "", settings, heightmaps.ROW_ORDER)
    record["cell_size"] = {"x": float(cell), "y": float(cell)}
    sidecar = json.dumps(record, indent=1).encode("utf-8")
    return {path: heightmaps.encode(unit, suffix), heightmaps.sidecar_path(path): sidecar}


def run_maps(args: argparse.Namespace) -> list[Path]:
    """Compute and write what ``args`` asks for; returns the written paths."""
    if not args.maps and args.splat is None:
        raise ValueError("maps: nothing to do; give --maps and/or --splat")
    if args.maps and (args.out is None or "{map}" not in args.out):
        raise ValueError("out: give an output path with {map} in it, e.g. --out terrain_{map}.exr")
    if (args.splat is None) != (args.splat_out is None):
        raise ValueError("splat-out: --splat and --splat-out go together")
    scale = float(HEIGHT_SCALE.check(args.height_scale))  # type: ignore[arg-type]  # before any file is read
    targets = [Path(args.out.replace("{map}", name)) for name in args.maps]
    named = [*(("out", target) for target in targets)]
    if args.splat_out is not None:
        named.append(("splat-out", args.splat_out))
    _check_outputs(named)
    layers = None
    if args.splat is not None:
        try:
            layers = json.loads(args.splat.read_text())
        except (OSError, json.JSONDecodeError) as error:
            raise ValueError(f"splat: cannot read {str(args.splat)!r}: {error}") from None
    started = time.perf_counter()
    read, found = read_heights(args.heights)
    args.cell_size = cell_size_of(args.cell_size, found)
    with np.errstate(over="ignore", invalid="ignore"):
        heights = read * scale
    if np.isfinite(read).all():  # NaN read is the heights' fault (compute_maps says so); overflow the scale's
        largest = float(np.abs(heights).max()) if heights.size else 0.0
        if not largest <= FLOAT32_MAX:
            raise ValueError(f"height-scale: {args.height_scale:g} makes heights up to {largest:.3g}, beyond float32 "
                             "(3.4e38)")  # fmt: skip
    settings = {option.name: getattr(args, option.name) for option in (CELL_SIZE, *MAP_OPTIONS)}
    maps = compute_maps(heights, args.maps, **settings)
    weights = None if layers is None else splat_weights(heights, layers, maps=maps, seed=args.seed, **settings)
    splats = [] if weights is None else splat_paths(args.splat_out, weights.shape[0])
    flags = ", ".join(dict.fromkeys(flag for flag, _ in named))
    _check_outputs([*(("out", target) for target in targets), *(("splat-out", splat) for splat in splats)])
    raw: dict[Path, bytes] = {}
    for name, target in zip(args.maps, targets, strict=True):
        if target.suffix.lower() in heightmaps.RAW_TYPES:
            raw.update(_raw_map(target, name, maps[name], args.cell_size, args.heights))
    files: list[Path] = []  # each map's file (and a raw one's sidecar after it)
    for target in targets:
        files += [target, heightmaps.sidecar_path(target)] if target in raw else [target]
    try:
        with replacing_all([*files, *splats], flags) as temporaries:  # all files or none
            for path, temporary in zip(files, temporaries, strict=False):
                if path in raw:
                    temporary.write_bytes(raw[path])
                    continue
                name = args.maps[targets.index(path)]
                values = unit_map(name, maps[name]) if temporary.suffix.lower() == ".png" else maps[name]
                write_image(temporary, values, args.png_bits)
            if weights is not None:
                for temporary, image in zip(temporaries[len(files) :], pack_rgba(weights), strict=True):
                    write_image(temporary, image, int(args.splat_bits))
    except OSError as error:
        raise ArgumentFileError(f"{flags}: cannot write the files (none was written): {error}") from error
    written = [*files, *splats]
    elapsed = time.perf_counter() - started
    shape = f"{heights.shape[1]}x{heights.shape[0]}"
    print(f"wrote {len(written)} files ({shape}, {', '.join(args.maps) or 'splat only'}, {elapsed:.2f} s)")
    for path in written:
        print(f"  {path}")
    return written
