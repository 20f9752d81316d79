"""The geomorphometry of the real tiles, and of any heightmap files, side by side (docs/terrain-realism.md), from a
checkout: ``python -m scripts.terrain_stats [FILE ...] [--cell-size M] [--height-scale S] [--markdown]
[--ranges]``.

The columns are the six real tiles of ``tests/dems.py`` (five SRTM tiles and Jacksboro, in metres on ~90 m
cells; Norway's sea as outlets), then each FILE (read as ``python -m noise_core stats`` reads it: its sidecar's
height range and cell size, or ``--height-scale`` and ``--cell-size``), then ``REAL_RANGES``; a file's cell is
marked ``*`` where it falls outside. ``--markdown`` prints a Markdown table (the one in docs/terrain-realism.md);
``--ranges`` prints the ranges the tiles give (``derive_ranges``), to compare with ``REAL_RANGES``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from noise_core.cli.stats import read_metres
from noise_core.terrain.geomorphometry import (
    REAL_RANGES,
    STATISTICS,
    TerrainStatistics,
    derive_ranges,
    passes,
    realism,
    terrain_statistics,
)
from tests import dems


def real_tiles() -> dict[str, TerrainStatistics]:
    """The statistics of the six real tiles, by name."""
    measured = {}
    for name in dems.NAMES:
        dem = dems.load(name)
        sea = dem.sea if dem.sea.any() else None
        measured[name] = terrain_statistics(dem.heights, cell_size=dem.cell_size, outlets=sea)
    return measured


def _cell(stats: TerrainStatistics, name: str, mark: bool) -> str:
    value = getattr(stats, name)
    low, high = REAL_RANGES[name]
    outside = mark and not low <= value <= high
    return f"{value:.4g}" + ("*" if outside else "")


def table(columns: dict[str, TerrainStatistics], marked: set[str], markdown: bool) -> str:
    """Statistics down, columns across, the real range last; ``marked`` columns get ``*`` outside it."""
    head = ["statistic", *columns, "real range"]
    rows = [
        [name, *(_cell(stats, name, key in marked) for key, stats in columns.items()),
         f"{REAL_RANGES[name][0]:g} .. {REAL_RANGES[name][1]:g}"]
        for name in STATISTICS
    ]  # fmt: skip
    rows.append(["passes", *("yes" if passes(stats) else "no" for stats in columns.values()), ""])
    if markdown:
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for row in rows:
            name = f"`{row[0]}`" if row[0] in STATISTICS else row[0]
            lines.append("| " + " | ".join([name, *row[1:]]) + " |")
        return "\n".join(lines)
    widths = [max(len(row[i]) for row in [head, *rows]) for i in range(len(head))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)) for row in [head, *rows]]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path, metavar="FILE", help="heightmap files to measure too")
    parser.add_argument("--cell-size", type=float, help="metres between samples of the files (default: sidecar)")
    parser.add_argument("--height-scale", type=float, help="multiply the files' heights by this")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument("--ranges", action="store_true", help="print the ranges the real tiles give")
    args = parser.parse_args(argv)
    columns = real_tiles()
    marked = set()
    for path in args.files:
        try:
            heights, cell = read_metres(argparse.Namespace(path=path, cell_size=args.cell_size,
                                                           height_scale=args.height_scale))  # fmt: skip
        except (ValueError, TypeError, OSError) as error:
            parser.error(f"{path}: {error}")
        key = path.name
        columns[key] = terrain_statistics(heights, cell_size=cell)
        marked.add(key)
    print(table(columns, marked, args.markdown))
    if args.ranges:
        derived = derive_ranges(columns[name] for name in dems.NAMES)
        print("{\n" + "".join(f"    {name!r}: {derived[name]!r},\n" for name in STATISTICS) + "}")
        drift = [name for name in STATISTICS if derived[name] != REAL_RANGES[name]]
        print("REAL_RANGES: " + (f"differ on {', '.join(drift)}" if drift else "the same"))
    for key in marked:
        outside = [check.name for check in realism(columns[key]) if not check.passed]
        print(f"{key}: {'passes' if passes(columns[key]) else 'fails'}; outside: {', '.join(outside) or 'none'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
