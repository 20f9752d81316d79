"""``python -m noise_core stats FILE [--cell-size M] [--height-scale S] [--json]``: the geomorphometry of a
heightmap (``terrain.geomorphometry``) beside the real tiles' ranges, PASS or FAIL each.

FILE is any heightmap ``read_heightmap`` reads (.r16, .raw, .r32, .png, .exr, .tif). Its heights are the
sidecar's height range in metres (a GeoTIFF DEM's own heights) times ``--height-scale`` (default 1); a file
without a height range in metres (a plain image: values 0..1) needs ``--height-scale``, the metres that value 1
stands for. The cell size is ``--cell-size``, else the one the sidecar's engine import numbers give; a file
without them needs ``--cell-size``. The real ranges were measured on ~90 m cells: read a terrain at about that
scale (e.g. 648 cells as 58 km) to compare it with them.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import numpy as np

from ..io.heightmaps import FORMATS, read_heightmap, sidecar_spacing
from ..terrain.geomorphometry import MAX_HARMONIC8, MAX_OUTSIDE, TerrainStatistics, passes, realism, terrain_statistics

METRES = ("m", "")
"""Height units read as metres: ``m`` and none (a GeoTIFF DEM's heights)."""


def add_stats_command(commands: argparse._SubParsersAction) -> None:
    """The ``stats`` command on the subparsers ``commands``."""
    stats = commands.add_parser(
        "stats",
        help="geomorphometry of a heightmap (concavity, Hack, drainage, depressions, slopes, spectrum, grid "
        "harmonics) against the ranges of real terrain",
        description=__doc__.split("\n\n", 1)[1].replace("``", ""),
    )
    stats.add_argument("path", type=Path, metavar="FILE", help=f"heightmap file ({', '.join(FORMATS)})")
    stats.add_argument("--cell-size", type=float, help="metres between samples (default: from the sidecar)")
    stats.add_argument("--height-scale", type=float, help="multiply the heights (metres) by this (default 1)")
    stats.add_argument("--json", action="store_true", help="print the statistics and checks as JSON")


def _positive(name: str, value: float) -> float:
    if not (math.isfinite(value) and value > 0.0):
        raise ValueError(f"{name}: must be a number > 0, got {value!r}")
    return value


def read_metres(args: argparse.Namespace) -> tuple[np.ndarray, float]:
    """The heights of ``args.path`` in metres and the metres between its samples (module doc)."""
    suffix = args.path.suffix.lower()
    if suffix not in FORMATS:
        raise ValueError(
            f"path: unsupported heightmap format {suffix or '(none)'!r} in {str(args.path)!r}; use {', '.join(FORMATS)}"
        )
    found = read_heightmap(args.path)
    if args.height_scale is not None:
        _positive("height-scale", args.height_scale)
    if args.cell_size is not None:
        cell = _positive("cell-size", args.cell_size)
    else:
        spacing = sidecar_spacing(found.sidecar, found.values.shape[1], found.values.shape[0])
        if spacing is None:
            raise ValueError(
                f"cell-size: {args.path.name} has no sidecar with the distance between its samples; give "
                "--cell-size M (metres, e.g. 90 for a tile read as SRTM)"
            )
        cell = _positive("cell-size", spacing)
    if found.height_range is None or found.unit not in METRES:
        if args.height_scale is None:
            what = "no height range" if found.height_range is None else f"heights in {found.unit!r}, not metres"
            raise ValueError(
                f"height-scale: {args.path.name} has {what}; give --height-scale S, the metres its value 1 stands "
                "for (e.g. 3000 for 3 km of relief)"
            )
        heights = found.values.astype(np.float64) * args.height_scale
    else:
        heights = found.heights * (1.0 if args.height_scale is None else args.height_scale)
    return heights, cell


def _number(value: float) -> float | None:
    """``value`` for JSON: None for NaN."""
    return value if math.isfinite(value) else None


def report(stats: TerrainStatistics) -> dict:
    """The JSON record of ``stats``: the statistics, each check against the real range, and the verdict."""
    checks = realism(stats)
    return {
        "statistics": {name: _number(value) for name, value in stats.as_dict().items()},
        "checks": [
            {"name": c.name, "value": _number(c.value), "low": c.low, "high": c.high, "passed": c.passed}
            for c in checks
        ],
        "outside": sum(not c.passed for c in checks),
        "passes": passes(stats),
    }


def table(stats: TerrainStatistics) -> str:
    """The statistics as a table: value, real range, PASS/FAIL; then the verdict."""
    checks = realism(stats)
    lines = [f"{'statistic':<22}{'value':>10}   {'real range':<21}"]
    for c in checks:
        span = f"{c.low:g} .. {c.high:g}"
        lines.append(f"{c.name:<22}{c.value:>10.4g}   {span:<21}{'PASS' if c.passed else 'FAIL'}")
    outside = sum(not c.passed for c in checks)
    verdict = "PASS" if passes(stats) else "FAIL"
    lines.append(
        f"{verdict}: {outside} outside the real range ({MAX_OUTSIDE} allowed), harmonic8 {stats.harmonic8:.4g} "
        f"(at most {MAX_HARMONIC8:g})"
    )
    return "\n".join(lines)


def run_stats(args: argparse.Namespace) -> Path:
    """The ``stats`` command: measure ``args.path`` and print the table (or JSON)."""
    heights, cell = read_metres(args)
    stats = terrain_statistics(heights, cell_size=cell)
    if args.json:
        record = {"file": str(args.path), "shape": list(heights.shape), "cell_size": cell, **report(stats)}
        print(json.dumps(record, indent=1))
    else:
        rows, columns = heights.shape
        print(
            f"{args.path} ({columns}x{rows}, {cell:g} m cells, {columns * cell / 1000:g} x {rows * cell / 1000:g} km, "
            f"heights {heights.min():.6g} .. {heights.max():.6g} m)"
        )
        print(table(stats))
    return args.path
