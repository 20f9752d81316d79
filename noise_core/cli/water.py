"""``python -m noise_core water FILE [--rain R] ... --out-level LEVEL --out-flow FLOW.png --rivers RIVERS.json``:
lakes, the water level, the flow map and the river network of a heightmap (``terrain.water``, docs/water.md).

FILE is any heightmap ``read_heightmap`` reads, its heights in metres as for ``stats`` (the sidecar's height
range times ``--height-scale``; ``--cell-size`` or the sidecar's engine numbers). ``--sea LEVEL``: cells at or
below LEVEL metres are sea, where water leaves as at the map's edges. The water options are ``water()``'s
(``--rain inf``: every depression full). Outputs, all written or none: ``--out-level`` the water level as a
heightmap with the input's height range (levels above it clipped) and a sidecar; ``--out-flow`` the flow map (RGB
PNG, ``--engine``'s convention, ``grid`` without one); ``--rivers`` the river network as JSON polylines;
``--carve`` the heights with river beds cut ``--carve-depth`` deep (default: each river's own depth).
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

from ..io.files import replacing_all
from ..io.heightmaps import (
    ENGINE,
    FORMATS,
    ROW_ORDER,
    HeightmapOptions,
    describe,
    heightmap_format,
    normalize,
    read_heightmap,
    sidecar_path,
)
from ..io.images import PNG_BITS, image_format, write_image, writer_module
from ..io.water_maps import flow_image, level_sidecar, write_level
from ..terrain.water import WATER_OPTIONS, WaterResult, carve_rivers, water
from .flags import ROW, add_flags
from .stats import read_metres


def add_water_command(commands: argparse._SubParsersAction) -> None:
    """The ``water`` command on the subparsers ``commands``."""
    parser = commands.add_parser(
        "water",
        help="lakes (Fill-Spill-Merge), water level, flow map and river network of a heightmap",
        description=__doc__.split("\n\n", 1)[1].replace("``", ""),
    )
    parser.add_argument("path", type=Path, metavar="FILE", help=f"heightmap file ({', '.join(FORMATS)})")
    parser.add_argument("--cell-size", type=float, help="metres between samples (default: from the sidecar)")
    parser.add_argument("--height-scale", type=float, help="multiply the heights (metres) by this (default 1)")
    parser.add_argument("--sea", type=float, metavar="LEVEL", help="cells at or below LEVEL metres are sea (outlets)")
    group = parser.add_argument_group("water (noise_core.water; --rain inf: unlimited, every depression full)")
    add_flags(group, WATER_OPTIONS, unset=ROW)
    out = parser.add_argument_group("outputs (all written or none)")
    out.add_argument("--out-level", type=Path, help="the water level as a heightmap (.r16, .r32, .png, .exr, ...)")
    out.add_argument("--out-flow", type=Path, help="the flow map, an RGB .png (R, G: direction and speed)")
    out.add_argument("--flow-bits", type=int, choices=PNG_BITS, default=8, help="PNG depth of the flow map (8)")
    add_flags(out, (ENGINE,), unset=None)  # the flow map's convention and the level's import numbers
    out.add_argument("--rivers", type=Path, help="the river network as JSON polylines (x, y, z in metres)")
    out.add_argument("--carve", type=Path, help="the heights with river beds cut along the rivers, as a heightmap")
    out.add_argument("--carve-depth", type=float, help="depth of the cut beds in metres (default: the rivers')")


def _settings(args: argparse.Namespace) -> dict:
    """``water()``'s keyword arguments from ``args``, checked (``--rain inf``: unlimited)."""
    settings = {}
    for option in WATER_OPTIONS:
        value = getattr(args, option.name)
        unlimited = option.name == "rain" and math.isinf(value) and value > 0
        settings[option.name] = value if unlimited else option.check(value)
    return settings


def rivers_record(result: WaterResult, cell: float) -> dict:
    """The JSON record of ``result.rivers``: each reach's points ``[x, y, z]``, discharge, width, depth."""
    return {
        "units": "metres (x along the columns, y along the rows from the first, z the water level)",
        "cell_size": cell,
        "rivers": [
            {
                "points": reach.points.round(6).tolist(),
                "discharge": reach.discharge.tolist(),
                "width": reach.width.round(6).tolist(),
                "depth": reach.depth.round(6).tolist(),
                "downstream": reach.downstream,
            }
            for reach in result.rivers
        ],
    }


def run_water(args: argparse.Namespace) -> Path:
    """The ``water`` command: compute, print a summary, write the outputs asked for."""
    outputs = [args.out_level, args.out_flow, args.rivers, args.carve]
    if all(target is None for target in outputs):
        raise ValueError("out-level: nothing to write; give --out-level, --out-flow, --rivers and/or --carve")
    if args.carve_depth is not None and args.carve is None:
        raise ValueError("carve-depth: only used with --carve")
    for name, target in (("out-level", args.out_level), ("carve", args.carve)):
        if target is not None:
            try:
                suffix = heightmap_format(target)
            except ValueError as error:
                raise ValueError(f"{name}{str(error)[3:]}") from None
            if suffix in (".png", ".tif", ".tiff", ".exr"):
                writer_module(suffix)
    if args.out_flow is not None and image_format(args.out_flow) != ".png":
        raise ValueError(f"out-flow: the flow map is an RGB .png, not {args.out_flow.suffix!r}")
    settings = _settings(args)
    engine = None if args.engine in (None, "none") else args.engine
    heights, cell = read_metres(args)
    found = read_heightmap(args.path)
    scale = 1.0 if args.height_scale is None else args.height_scale
    known = found.height_range is not None and found.unit in ("m", "")
    low, high = (found.height_range[0] * scale, found.height_range[1] * scale) if known else (
        float(heights.min()), float(heights.max()))  # fmt: skip
    high = high if high > low else low + 1.0
    sea = None if args.sea is None else heights <= args.sea
    started = time.perf_counter()
    result = water(heights, cell_size=cell, outlets=sea, **settings)
    elapsed = time.perf_counter() - started
    rows, columns = heights.shape
    print(
        f"{args.path} ({columns}x{rows}, {cell:g} m cells): {result.lake_level.size} lakes holding "
        f"{result.stored_volume:.6g} m3, {len(result.rivers)} river reaches, {result.outflow_volume:.6g} m3 left the "
        f"map ({elapsed:.2f} s)"
    )
    targets, writers = [], []
    if args.out_level is not None:
        suffix = args.out_level.suffix.lower()
        flow_name = args.out_flow.name if args.out_flow is not None else ""
        options = HeightmapOptions(height_range=(low, high), unit="m", engine=engine, cell_size=cell)
        record = level_sidecar((rows, columns), suffix, options, flow_name)
        values, _ = normalize(result.level, (low, high))
        targets += [args.out_level, sidecar_path(args.out_level)]
        writers += [lambda path: write_level(path, values, suffix), lambda path: _json(path, record)]
    if args.out_flow is not None:
        rgb = flow_image(result.flow, engine or "grid")
        targets.append(args.out_flow)
        writers.append(lambda path: write_image(path, rgb, args.flow_bits))
    if args.rivers is not None:
        targets.append(args.rivers)
        writers.append(lambda path: path.write_text(json.dumps(rivers_record(result, cell)), encoding="utf-8"))
    if args.carve is not None:
        carved = carve_rivers(heights, result.rivers, cell_size=cell, depth=args.carve_depth)
        span = (min(low, float(carved.min())), high)
        suffix_carved = args.carve.suffix.lower()
        carved_values, _ = normalize(carved, span)
        carved_record = describe((rows, columns), suffix_carved, span, "m", None, ROW_ORDER)
        targets += [args.carve, sidecar_path(args.carve)]
        writers += [
            lambda path: write_level(path, carved_values, suffix_carved),
            lambda path: _json(path, carved_record),
        ]
    with replacing_all(targets) as temporaries:
        for temporary, write in zip(temporaries, writers, strict=True):
            write(temporary)
    for target in targets:
        print(f"  wrote {target}")
    return args.path


def _json(path: Path, record: dict) -> None:
    path.write_text(json.dumps(record, indent=1), encoding="utf-8")
