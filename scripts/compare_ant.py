"""Erosion side by side with A.N.T. Landscape's eroder: one terrain at two resolutions, before and after.

    python scripts/compare_ant.py --ant /tmp/ant_landscape                 # 513² and 1025², docs/images/erosion/
    python scripts/compare_ant.py --ant /tmp/ant_landscape --sizes 257 513 --iterations 20 --out-dir /tmp/cmp

A one-off comparison, not a test (A.N.T. is GPL code outside this project and not in CI): ``--ant`` is a copy of
the ``ant_landscape`` folder of Blender's add-ons repository (github.com/blender/blender-addons). It is installed
as a legacy add-on of the ``bpy`` module for this process only: a temporary user scripts folder
(``BLENDER_USER_SCRIPTS``, read when ``bpy`` is imported) holds a link to it under ``addons/``, and
``addon_utils.enable`` turns it on.

The terrain is ``render_erosion.py``'s (Perlin fBm, 100 units wide, 25 high) at each of ``--sizes``. Each size
is eroded by ``bpy.ops.mesh.eroder`` (A.N.T.'s defaults but ``--iterations``, on a grid mesh of the heights),
by ``erode_hydraulic`` at its defaults and with ``render_erosion.GULLIES`` (the Eroded Canyon preset's droplet
settings). ``ant_<size>.png`` shows, left to right, before, A.N.T., ours by default, ours with gullies as
coloured hillshades (top) and their changes (bottom: red lowered, blue raised, ``±render_erosion.CHANGE_SCALE``);
``ant_detail.png`` is a crop at one pixel per cell of the largest size. The timings (wall and CPU of the whole
call; for A.N.T. also the CPU time of its erosion loop alone, what ``cProfile`` finds in its ``Grid`` methods)
and the mean |change| are printed as JSON with the machine's load. Files are written whole or not at all.
"""

from __future__ import annotations

import argparse
import cProfile
import importlib
import json
import os
import platform
import pstats
import sys
import tempfile
import time
from pathlib import Path

import imageio.v3 as iio
import numpy as np
import render_erosion as pictures

import noise_core as nc
from noise_core.io.files import replacing

DEFAULT_DIR = Path(__file__).resolve().parents[1] / "docs" / "images" / "erosion"
ANT_LOOP = ("rivergeneration", "fluvial_erosion", "diffuse", "avalanche")
"""A.N.T.'s ``Grid`` methods its operator's erosion loop calls (``ant_landscape/eroder.py``)."""
PANEL = 256
DETAIL = 256


def enable_ant(source: Path, scripts: Path):
    """Import ``bpy`` with ``scripts`` as the user scripts folder holding ``source`` as ``addons/ant_landscape``
    and enable that add-on; returns ``bpy``."""
    (scripts / "addons").mkdir(parents=True)
    (scripts / "addons" / "ant_landscape").symlink_to(source.resolve(), target_is_directory=True)
    os.environ["BLENDER_USER_SCRIPTS"] = str(scripts)
    import bpy

    addon_utils = importlib.import_module("addon_utils")  # importable once bpy is

    def failed(error: BaseException) -> None:
        raise error

    addon_utils.enable("ant_landscape", default_set=True, handle_error=failed)
    if not hasattr(bpy.ops.mesh, "eroder"):
        raise SystemExit(f"--ant: {source} did not register bpy.ops.mesh.eroder")
    return bpy


def grid_object(bpy, heights: np.ndarray, cell: float):
    """A new mesh object of ``heights`` (rows along y), one vertex per cell ``cell`` apart, active and selected."""
    rows, columns = heights.shape
    y, x = np.mgrid[0:rows, 0:columns] * cell
    vertices = np.stack([x.ravel(), y.ravel(), heights.ravel()], axis=1).astype(np.float32)
    corner = (np.arange(rows - 1)[:, None] * columns + np.arange(columns - 1)[None, :]).ravel()
    quads = np.stack([corner, corner + 1, corner + columns + 1, corner + columns], axis=1).astype(np.int32)
    mesh = bpy.data.meshes.new("terrain")
    mesh.vertices.add(len(vertices))
    mesh.vertices.foreach_set("co", vertices.ravel())
    mesh.loops.add(quads.size)
    mesh.loops.foreach_set("vertex_index", quads.ravel())
    mesh.polygons.add(len(quads))
    mesh.polygons.foreach_set("loop_start", np.arange(0, quads.size, 4, dtype=np.int32))
    mesh.update()
    mesh.validate()
    obj = bpy.data.objects.new("terrain", mesh)
    bpy.context.scene.collection.objects.link(obj)
    for other in bpy.context.view_layer.objects:
        other.select_set(False)
    bpy.context.view_layer.objects.active = obj
    obj.select_set(True)
    return obj


def heights_of(obj, shape: tuple[int, ...], cell: float, low: float) -> np.ndarray:
    """The heights of ``obj``'s grid mesh (any vertex order), ``low`` added back (A.N.T. writes heights above its
    lowest vertex)."""
    co = np.empty(len(obj.data.vertices) * 3, dtype=np.float64)
    obj.data.vertices.foreach_get("co", co)
    co = co.reshape(-1, 3)
    out = np.full(shape, np.nan)
    column = np.rint((co[:, 0] - co[:, 0].min()) / cell).astype(int)
    row = np.rint((co[:, 1] - co[:, 1].min()) / cell).astype(int)
    out[row, column] = co[:, 2] + low
    if np.isnan(out).any():
        raise RuntimeError("A.N.T. returned a mesh that is not the input grid")
    return out.astype(np.float32)


def timed(run):
    """``run()``'s result, wall and CPU seconds."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = run()
    return result, round(time.perf_counter() - wall, 3), round(time.process_time() - cpu, 3)


def run_ant(bpy, heights: np.ndarray, cell: float, iterations: int) -> tuple[np.ndarray, dict]:
    """A.N.T.'s eroder (its defaults, ``iterations``) on a grid of ``heights``; the heights and timings."""
    grid_object(bpy, heights, cell)
    profile = cProfile.Profile(time.process_time)  # the loop's CPU time: fairer than wall on a shared machine
    outcome, wall, cpu = timed(lambda: profile.runcall(bpy.ops.mesh.eroder, Iterations=iterations))
    if outcome != {"FINISHED"}:
        raise RuntimeError(f"bpy.ops.mesh.eroder: {outcome}")
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    loop = sum(entry[3] for (path, _, name), entry in stats.items() if name in ANT_LOOP and "eroder" in path)
    after = heights_of(bpy.context.view_layer.objects.active, heights.shape, cell, float(heights.min()))
    return after, {"wall_s": wall, "cpu_s": cpu, "erosion_loop_cpu_s": round(loop, 3)}


def run_ours(heights: np.ndarray, cell: float, options: dict) -> tuple[np.ndarray, dict]:
    result, wall, cpu = timed(lambda: nc.erode_hydraulic(heights, cell_size=cell, **options))
    return result.heights, {"wall_s": wall, "cpu_s": cpu}


def compare(bpy, size: int, iterations: int) -> tuple[list[np.ndarray], float, dict]:
    """The four maps (before, A.N.T., ours, ours with gullies) of one size, its cell size and the numbers."""
    heights, cell = pictures.terrain(size)
    nc.erode_hydraulic(heights[:64, :64], droplets=100, gullies=1.0)  # compiled (or loaded) before timing
    maps, numbers = [heights], {}
    for name, run in (
        ("ant", lambda: run_ant(bpy, heights, cell, iterations)),
        ("ours_default", lambda: run_ours(heights, cell, {})),
        ("ours_gullies", lambda: run_ours(heights, cell, pictures.GULLIES)),
    ):
        after, timing = run()
        change = after.astype(np.float64) - heights
        numbers[name] = {**timing, "mean_abs_change": round(float(np.abs(change).mean()), 4),
                         "net_loss": round(float(-change.mean()), 4)}  # fmt: skip
        maps.append(after)
    return maps, cell, numbers


def write(path: Path, rgb: np.ndarray) -> None:
    with replacing(path) as temporary:
        iio.imwrite(temporary, pictures.to_bytes(rgb), extension=".png")


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ant", type=Path, required=True, help="A.N.T. Landscape's ant_landscape folder")
    parser.add_argument("--sizes", type=int, nargs=2, default=(513, 1025), help="cells a side (default 513 1025)")
    parser.add_argument("--iterations", type=int, default=50, help="A.N.T.'s Iterations (default 50)")
    parser.add_argument("--out-dir", type=Path, default=DEFAULT_DIR, help=f"folder (default {DEFAULT_DIR})")
    args = parser.parse_args(argv)
    if not (args.ant / "eroder.py").is_file():
        parser.error(f"--ant: {args.ant} holds no eroder.py (give the ant_landscape folder)")
    if min(args.sizes) < 16:
        parser.error(f"--sizes: at least 16 cells a side, got {args.sizes}")
    if args.iterations < 1:
        parser.error(f"--iterations: at least 1, got {args.iterations}")
    args.out_dir.mkdir(parents=True, exist_ok=True)
    report: dict = {
        "machine": f"{platform.machine()} {os.cpu_count()} cores, Python {platform.python_version()}",
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "load_before": round(os.getloadavg()[0], 2),
        "ant_iterations": args.iterations,
    }
    with tempfile.TemporaryDirectory() as scripts:
        bpy = enable_ant(args.ant, Path(scripts))
        report["blender"] = bpy.app.version_string
        for size in sorted(args.sizes):
            maps, cell, report[str(size)] = compare(bpy, size, args.iterations)
            coloured = [pictures.coloured(h, cell) for h in maps]
            top = pictures.row([pictures.panel(m, PANEL) for m in coloured])
            changes = [np.ones_like(coloured[0])] + [pictures.change_map(h - maps[0]) for h in maps[1:]]
            bottom = pictures.row([pictures.panel(m, PANEL) for m in changes])
            write(args.out_dir / f"ant_{size}.png", np.concatenate([top, np.ones((pictures.GAP, *top.shape[1:])),
                                                                     bottom]))  # fmt: skip
            if size == max(args.sizes):
                first, side = int(size * 0.3), min(DETAIL, size)
                write(args.out_dir / "ant_detail.png",
                      pictures.row([m[first : first + side, first : first + side] for m in coloured]))  # fmt: skip
    report["load_after"] = round(os.getloadavg()[0], 2)
    json.dump(report, sys.stdout, indent=1)
    print()
    return report


if __name__ == "__main__":
    main()
