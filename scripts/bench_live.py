"""Latency of a live Noise Terrain (issue 33): a setting assigned -> the mesh rebuilt (``addon/live.py``, the
synchronous path background mode takes, which runs ``regenerate_terrain`` as the UI's timer does); prints one
JSON object.

    python scripts/bench_live.py                 # 256² and 1024², best of 5 after a warm-up
    python scripts/bench_live.py --repeat 3 --erosion
    python scripts/bench_live.py --repeat 3 --preview 4096   # and a huge grid's reduced preview
    python scripts/bench_live.py --repeat 3 --maps 1025      # the full rebuild's main-thread share, maps recorded

Each size: a Noise Terrain (Perlin fBm, 6 octaves) of ``size``² vertices, then ``settings.noise.seed`` changed
``--repeat`` times; the best wall time of one change (targets 256² <= 10 ms, 1024² <= 60 ms without erosion) and
of ``regenerate_terrain`` alone for comparison. ``--erosion`` also times a change with the terrain's hydraulic
erosion on (its defaults, 0.5 droplets per cell): what erosion adds.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from importlib.util import module_from_spec, spec_from_file_location
from pathlib import Path

import bpy

if "_blender_addon" not in sys.modules:  # by its path: ``blender --python`` leaves scripts/ off sys.path (docs/cli.md)
    _spec = spec_from_file_location("_blender_addon", Path(__file__).resolve().with_name("_blender_addon.py"))
    _spec.loader.exec_module(_module := module_from_spec(_spec))
    sys.modules["_blender_addon"] = _module
_blender_addon = sys.modules["_blender_addon"]

SIZES = (256, 1024)
TARGETS_MS = {256: 10.0, 1024: 60.0}


def best_ms(run, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        began = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - began)
    return round(best * 1e3, 2)


def terrain(addon, size: int):
    """``(obj, change)``: a new ``size``² Noise Terrain in an empty scene and a function changing its seed."""
    bpy.ops.wm.read_homefile(use_empty=True)
    spec = addon.api.NoiseSpec(kind="perlin", octaves=6, frequency=2.0)
    obj = addon.api.add_terrain(bpy.context, spec, x_subdivisions=size - 1, y_subdivisions=size - 1)
    seeds = iter(range(1, 10_000))

    def change() -> None:
        obj.noisewright_terrain.noise.seed = next(seeds)

    return obj, change


def measure(addon, size: int, repeat: int, erosion: bool) -> dict:
    obj, change = terrain(addon, size)
    settings = obj.noisewright_terrain
    change()  # warm
    result = {
        "vertices": size * size,
        "change_ms": best_ms(change, repeat),
        "regenerate_ms": best_ms(lambda: addon.api.regenerate_terrain(bpy.context, obj), repeat),
        "target_ms": TARGETS_MS.get(size),
    }
    if erosion:
        settings.erosion.hydraulic = True
        result["change_with_erosion_ms"] = best_ms(change, max(1, repeat // 2))
    return result


def measure_preview(addon, size: int, repeat: int) -> dict:
    """A ``size``² terrain over ``live_preview.FRAME_VERTICES``: a change rebuilt in full (background) against the
    UI's reduced preview while dragging (``live.flush`` after a change, the mesh already on the preview grid) and the
    full build on release (``live.flush(settle=True)``, a job): its wall time, and the time the main thread is
    held (starting the job, ``release_start_ms``, then writing its heights: ``release_main_ms`` in all; the UI
    runs between)."""
    live = addon.live
    obj, change = terrain(addon, size)
    result: dict = {"vertices": size * size, "change_ms": best_ms(change, repeat)}
    live.in_background = lambda: False  # the UI's path, driven by hand (this process ends after)

    def dragged() -> None:
        change()
        live.flush()

    dragged()  # onto the preview grid
    plan = addon.live_preview.preview_plan(size - 1, size - 1, None)
    result["preview_faces"] = [plan.x_subdivisions, plan.y_subdivisions] if plan else None
    result["preview_ms"] = best_ms(dragged, repeat)
    dragged()
    began = time.perf_counter()
    live.flush(settle=True, finish=False)  # the release: the job starts
    started = time.perf_counter()
    live._REBUILDS[obj.name][0].finished.wait()  # the worker thread builds the heights, the UI free
    finished = time.perf_counter()
    live.wait()  # its heights written on the main thread
    ended = time.perf_counter()
    result["release_ms"] = round((ended - began) * 1e3, 2)
    result["release_main_ms"] = round((started - began + ended - finished) * 1e3, 2)
    result["release_start_ms"] = round((started - began) * 1e3, 2)
    return result


def measure_maps(addon, size: int, repeat: int) -> dict:
    """A ``size``² terrain with the default terrain maps recorded: its full rebuild as a job
    (``terrain.regenerate_job``), the worker's ``compute`` (heights and maps) and the main thread's ``apply``
    (writing them), and, for comparison, rewriting the maps on the main thread (``rewrite_terrain_maps``: what
    ``apply`` did before the maps were computed in the worker)."""
    obj, change = terrain(addon, size)
    addon.terrain_maps.write_terrain_maps(obj)
    timings: dict[str, list[float]] = {"worker_ms": [], "main_thread_ms": [], "maps_on_main_thread_ms": []}
    for _ in range(repeat):
        obj.noisewright_terrain.auto_refresh = False
        change()
        job = addon.terrain.regenerate_job(bpy.context, obj)
        began = time.perf_counter()
        result = job.compute(lambda _count: None)
        timings["worker_ms"].append(time.perf_counter() - began)
        began = time.perf_counter()
        job.apply(result)
        timings["main_thread_ms"].append(time.perf_counter() - began)
        began = time.perf_counter()
        addon.terrain_maps.rewrite_terrain_maps(obj)
        timings["maps_on_main_thread_ms"].append(time.perf_counter() - began)
    return {"vertices": size * size, **{key: round(min(values) * 1e3, 1) for key, values in timings.items()}}


def main(argv: list[str]) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="timed changes per size, best kept (default 5)")
    parser.add_argument("--erosion", action="store_true", help="also time a change with hydraulic erosion on")
    parser.add_argument(
        "--preview", type=int, default=0, metavar="SIZE", help="also time the reduced preview of a SIZE² terrain"
    )
    parser.add_argument(
        "--maps", type=int, default=0, metavar="SIZE", help="only time the full rebuild of a SIZE² terrain with maps"
    )
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error(f"--repeat: at least 1, got {args.repeat}")
    addon = sys.modules[_blender_addon.load_addon(log=lambda _message: None)]
    result = {"load": os.getloadavg()[0], "blender": bpy.app.version_string}
    if args.maps:
        result[f"maps {args.maps}"] = measure_maps(addon, args.maps, args.repeat)
        print(json.dumps(result, indent=1))
        return result
    for size in SIZES:
        result[f"{size}"] = measure(addon, size, args.repeat, args.erosion)
    if args.preview:
        result[f"preview {args.preview}"] = measure_preview(addon, args.preview, args.repeat)
    print(json.dumps(result, indent=1))
    return result


if __name__ == "__main__":
    main(sys.argv[sys.argv.index("--") + 1 :] if "--" in sys.argv else sys.argv[1:])
