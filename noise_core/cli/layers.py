"""``python -m noise_core layers HEIGHT --layers snow,moisture,strata --out NAME_{layer}.exr``: the material
layers of a height image, headlessly (``terrain.layers``; docs/layers.md).

The layers a height image alone gives: ``snow``, ``moisture`` (along the water ``terrain.water`` finds),
``strata`` and ``strata_band``; ``sediment`` and ``talus`` need the erosion run that made the heights (the
library's ``layers.deposits``, the add-on's Erode). Float formats (.exr, .tif) store the values; a PNG stores
them in [0, 1]: snow, moisture, strata and erodibility as they are, the band ids from their smallest to their
largest. ``erodibility`` (``1 - strata_contrast x strata``) is what ``erode --erodibility-map`` takes, so a
heightmap erodes over its own strata.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from ..io.files import ArgumentFileError, replacing_all
from ..io.images import PNG_BITS, image_format, write_image, writer_module
from ..terrain.heightfield import CELL_SIZE
from ..terrain.layers import LAYER_OPTIONS, compute_layers, erodibility
from ..terrain.maps import HEIGHT_SCALE
from .erode import cell_size_of
from .flags import ROW, add_flags
from .maps import HEIGHT_SUFFIXES, read_heights

IMAGE_LAYERS = ("snow", "moisture", "strata", "strata_band", "erodibility")
"""The layers of a height image alone (``sediment`` and ``talus`` need an erosion run), and ``erodibility``:
``layers.erodibility`` of the strata (``1 - strata_contrast x strata``), for ``erode --erodibility-map``."""


def _names(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    for name in names:
        if name not in IMAGE_LAYERS:
            raise argparse.ArgumentTypeError(f"{name!r} is not a layer of a height image; choose from "
                                             f"{','.join(IMAGE_LAYERS)}")  # fmt: skip
    return names


def add_layers_command(commands) -> None:
    """The ``layers`` command on the subparsers ``commands``."""
    layers = commands.add_parser(
        "layers",
        help="material layers (snow, moisture along water, rock strata) of a height image",
        description="Material layers of a heightmap (rows along +y, row 0 first as stored): snow cover, moisture "
        "along water, rock strata hardness and band ids. Float formats (.exr, .tif) store the values; PNG stores "
        "them in [0, 1] (docs/layers.md).",
    )
    layers.add_argument("heights", type=Path, help=f"heightmap or array ({', '.join(HEIGHT_SUFFIXES)}); its heights "
                        "and cell size from its sidecar, as maps reads them")  # fmt: skip
    listed = ",".join(IMAGE_LAYERS)
    layers.add_argument("--layers", type=_names, default=list(IMAGE_LAYERS[:3]),
                        help=f"comma-separated layers: {listed} (default snow,moisture,strata)")  # fmt: skip
    layers.add_argument("--out", required=True, help="output path with {layer} in it, e.g. out/t_{layer}.exr")
    add_flags(layers, (CELL_SIZE,), unset=None)  # the sidecar's, else the row's default
    add_flags(layers, (HEIGHT_SCALE, *LAYER_OPTIONS), unset=ROW)
    layers.add_argument("--png-bits", type=int, choices=PNG_BITS, default=16, help="integer depth of PNG layers (16)")


def unit_layer(name: str, values: np.ndarray) -> np.ndarray:
    """``values`` of the layer ``name`` in [0, 1] for a PNG: the band ids from their smallest to their largest,
    the others (0..1 already) as they are."""
    if name != "strata_band":
        return values
    low, high = float(values.min()), float(values.max())
    return (values - low) / (high - low) if high > low else np.zeros(values.shape, np.float32)


def run_layers(args: argparse.Namespace) -> list[Path]:
    """Compute and write the layers ``args`` asks for; returns the written paths."""
    if "{layer}" not in args.out:
        raise ValueError("out: give an output path with {layer} in it, e.g. --out terrain_{layer}.exr")
    if not args.layers:
        raise ValueError("layers: name at least one layer")
    scale = float(HEIGHT_SCALE.check(args.height_scale))  # type: ignore[arg-type]
    if args.cell_size is not None:
        CELL_SIZE.check(args.cell_size)  # before any work
    targets = [Path(args.out.replace("{layer}", name)) for name in args.layers]
    for target in targets:  # before any work: a format that cannot be written, a missing folder
        writer_module(image_format(target, "out"), "out")
    settings = {option.name: getattr(args, option.name) for option in LAYER_OPTIONS}
    started = time.perf_counter()
    read, heightmap = read_heights(args.heights)
    heights = read * scale
    cell = cell_size_of(args.cell_size, heightmap)
    wanted = [name for name in args.layers if name != "erodibility"]
    if "erodibility" in args.layers and "strata" not in wanted:
        wanted.append("strata")
    found = compute_layers(heights, wanted, cell, **settings)
    if "erodibility" in args.layers:
        found["erodibility"] = erodibility(found["strata"], settings["strata_contrast"]).astype(np.float32)
    try:
        with replacing_all(targets, "out") as temporaries:  # all files or none
            for name, temporary in zip(args.layers, temporaries, strict=True):
                png = temporary.suffix.lower() == ".png"
                write_image(temporary, unit_layer(name, found[name]) if png else found[name], args.png_bits)
    except OSError as error:
        raise ArgumentFileError(f"out: cannot write the files (none was written): {error}") from error
    elapsed = time.perf_counter() - started
    print(f"wrote {len(targets)} files ({heights.shape[1]}x{heights.shape[0]}, {', '.join(args.layers)}, "
          f"{elapsed:.2f} s)")  # fmt: skip
    for path in targets:
        print(f"  {path}")
    return targets
