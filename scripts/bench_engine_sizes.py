"""A natural terrain at game-engine sizes (issue 45): all its stages, maps and an R16 export; prints one JSON object.

    PYTHONPATH=. python scripts/bench_engine_sizes.py           # 2017² and 4033², this checkout's noise_core
    python scripts/bench_engine_sizes.py --sizes 2017 4033 8129 # each size in a process of its own
    python scripts/bench_engine_sizes.py --parity 1009 4033     # preview parity at those sizes
    python scripts/bench_engine_sizes.py --tiled 16129 4096     # tile by tile on Dask, and resumed
    python scripts/bench_engine_sizes.py --recipe river_valleys  # a shipped recipe (terrain.recipe) instead
    python scripts/bench_engine_sizes.py --blender 4033          # a Noise Terrain in Blender (bpy), exported

* Sizes: the preset (``PRESET``, Eroded Canyon's noise and droplets, with rivers and thermal erosion) built at each
  size with its stages on the grids their features need (``multiscale``: the rivers and the droplets on a grid of
  about ``MODEL_SIZE`` cells, their change added back and refined on the map's own cells), then the maps ``MAPS``
  and an R16 export into a temporary folder. Each size runs in a child process of its own (after a warm-up at 129²,
  build, maps and export, that compiles or loads every kernel they use), which reports the wall time and the process
  CPU time of each step and its peak resident memory (``ru_maxrss``). Targets on the 2-core machine: 2017² <= 15 s,
  4033² <= 60 s, 8129² <= 300 s, peak <= 8 GB. The machine is shared with other agents: the CPU time (all threads)
  is the fairer number; the load average is printed beside it.
* Parity (``--parity SMALL LARGE``): the preset at both sizes, the large one downsampled (bilinear, corner to
  corner) to the small: the correlation of the heights (target >= 0.98) and of the erosion change maps after
  3 x 3 smoothing (target >= 0.9); and the realism checks (``geomorphometry.realism``) each fails, and the large
  one's downsampled to the small size, the map taken as ``EXTENT_M`` wide.
* Blender (``--blender SIZE``): in a child process with the add-on enabled (``scripts/_blender_addon.py``), Add
  Noise Terrain of the shipped River Valleys at ``SIZE``² (built in full, its mesh at most
  ``terrain_grid.MESH_VERTICES``), Regenerate as its job (``terrain.regenerate_job`` on a ``jobs.Worker``: the
  progress it reports) and Export Heightmap at resolution 0 (R16, the full size): wall and CPU time of each, the
  mesh's vertices, the file's samples and the peak memory.
* Tiled (``--tiled SIZE TILE``): the preset by ``terrain.tiled`` (the global pass, rivers and droplets, on the
  1009² model grid; settling and thermal erosion per tile with its halo) baked into a Zarr store on a Dask cluster
  of threads in this process, its wall and CPU time, the store's size and the peak memory; then again, which
  resumes and writes nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from importlib.util import module_from_spec, spec_from_file_location
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
SIZES = (2017, 4033)
TARGETS_S = {2017: 15.0, 4033: 60.0, 8129: 300.0}
TARGET_PEAK_GB = 8.0
TARGET_HEIGHTS, TARGET_CHANGE = 0.98, 0.9
MAPS = ("slope", "curvature", "flow", "wetness")


REFERENCE = 257
"""The presets' own grid: heights, cell sizes and drainage areas are in its cells at every size."""
NOISE = {"kind": "perlin", "seed": 7, "frequency": 3.0, "octaves": 6, "fractal": "fbm"}
RELIEF = 0.35 * (REFERENCE - 1) / 2  # the preset's height 0.35 on a grid 2 wide, in reference cells
RIVERS = {"steps": 100, "dt": 2000.0, "uplift": 5e-4, "erodibility": 5e-5, "diffusion": 2e-5, "river_threshold": 30.0,
          "model_size": 505, "fine_steps": 2}  # fmt: skip
DROPLETS = {"droplet_density": 1.0, "lifetime": 60, "erosion": 0.3, "gullies": 8.0, "model_size": 1009}
THERMAL = {"talus_angle": 45.0, "iterations": 10}
EXTENT_M = 30_000.0
"""For the realism statistics (metres): the map is 30 km wide, its relief about 5 km (Badlands' 0.35 on 2)."""
PRESET = "Badlands' noise and rivers, Eroded Canyon's droplets (1 per model cell) and thermal erosion"


class Built(NamedTuple):
    heights: np.ndarray
    change: np.ndarray
    drainage_area: np.ndarray


def build(size: int, timings: dict | None = None) -> Built:
    """The preset at ``size``² (float64 heights in reference cells), each stage on the grid ``model_size`` gives."""
    import noise_core as nc
    from noise_core.api import evaluate_lattice
    from noise_core.terrain import erosion, fluvial

    times = {} if timings is None else timings

    def step(name, run):
        wall, cpu = time.perf_counter(), time.process_time()
        value = run()
        times[name] = [round(time.perf_counter() - wall, 2), round(time.process_time() - cpu, 2)]
        return value

    spec = nc.NoiseSpec(**NOISE)
    cell = (REFERENCE - 1) / (size - 1)
    axis = np.arange(size) / (size - 1)  # the vertices of a unit square: the model grids are samples of them
    noise = step("noise", lambda: nc.ranges.to_unit(spec, evaluate_lattice(spec, axis, axis)).astype(np.float64))
    noise *= RELIEF
    rivers = step("rivers", lambda: fluvial.erode_fluvial(noise, cell_size=cell, **RIVERS))
    carved = rivers.heights.astype(np.float64)  # keep the relief, as the terrain's rivers do
    carved = noise.min() + (carved - carved.min()) * (np.ptp(noise) / max(np.ptp(carved), 1e-30))
    del rivers
    eroded = step("droplets", lambda: erosion.erode_hydraulic(carved, cell_size=cell, **DROPLETS).heights)
    heights = step("thermal", lambda: erosion.erode_thermal(eroded, cell_size=cell, **THERMAL).heights)
    return Built(heights.astype(np.float64), heights - noise, np.empty(0))


def build_recipe(name: str, size: int, timings: dict | None = None) -> Built:
    """The shipped recipe ``name`` (``terrain.recipe.read_preset``) at ``size``² by ``build_terrain``, as it is: its
    river stage on its own fine grid (``fine_size``) and model grid (``model_size``), at every size."""
    from noise_core.terrain import recipe as recipes

    wall, cpu = time.perf_counter(), time.process_time()
    built = recipes.build_terrain(recipes.read_preset(name), size)
    if timings is not None:
        timings["recipe"] = [round(time.perf_counter() - wall, 2), round(time.process_time() - cpu, 2)]
    change = built.deposition - built.erosion if built.erosion is not None else np.zeros_like(built.heights)
    return Built(built.heights, change, np.empty(0))


def cpu_flags() -> list[str]:
    info = Path("/proc/cpuinfo")
    return sorted(set(re.findall(r"avx512[a-z]*|avx2|fma", info.read_text()))) if info.exists() else []


def timed(times: dict[str, list[float]]) -> Callable[[str, Callable[[], Any]], Any]:
    """``step(name, run)``: ``run()``'s value, its wall and process CPU seconds put in ``times[name]``."""

    def step(name: str, run: Callable[[], Any]) -> Any:
        wall, cpu = time.perf_counter(), time.process_time()
        value = run()
        times[name] = [round(time.perf_counter() - wall, 2), round(time.process_time() - cpu, 2)]
        return value

    return step


def child(size: int, recipe: str | None) -> dict:
    """The preset at ``size``² in this process: each step's wall and CPU seconds, and the peak memory."""
    from noise_core.io.heightmaps import write_heightmap
    from noise_core.terrain import maps

    make = build if recipe is None else (lambda n, times=None: build_recipe(recipe, n, times))
    warm = make(129)  # compiles (or loads from the cache) every kernel the steps below time: the build's, the maps'
    maps.compute_maps(warm.heights, MAPS, cell_size=1.0)  # and the R16 writer's
    with tempfile.TemporaryDirectory(prefix="noisewright-engine-") as folder:
        write_heightmap(Path(folder) / "warm.r16", np.zeros((129, 129), dtype=np.float32), height_range=(0.0, 1.0))
    times: dict[str, list[float]] = {}
    step = timed(times)

    built = step("build", lambda: make(size, times))
    cell = (REFERENCE - 1) / (size - 1)  # the maps' slopes: any unit will do for their cost
    step("maps", lambda: maps.compute_maps(built.heights, MAPS, cell_size=cell))
    low, high = float(built.heights.min()), float(built.heights.max())
    unit = (built.heights - low) / max(high - low, 1e-12)
    with tempfile.TemporaryDirectory(prefix="noisewright-engine-") as folder:
        step("r16", lambda: write_heightmap(Path(folder) / "terrain.r16", unit, height_range=(low, high)))
    total = [round(sum(times[name][k] for name in ("build", "maps", "r16")), 2) for k in (0, 1)]
    times["preset"] = PRESET if recipe is None else f"recipe {recipe}"
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    return {"size": size, "steps": times, "wall_s": total[0], "cpu_s": total[1], "peak_gb": round(peak, 2),
            "load": os.getloadavg()}  # fmt: skip


def sizes(values: list[int], recipe: str | None) -> dict:
    result = {}
    for size in values:
        named = [] if recipe is None else ["--recipe", recipe]
        run = subprocess.run([sys.executable, __file__, "--child", str(size), *named], capture_output=True, text=True,
                             cwd=ROOT, check=True)  # fmt: skip
        row = json.loads(run.stdout.strip().splitlines()[-1])
        target = TARGETS_S.get(size)
        if target is not None:
            row["target_s"] = target
            row["wall_ok"] = row["wall_s"] <= target
            row["cpu_over_2_ok"] = row["cpu_s"] / 2 <= target
        row["peak_ok"] = row["peak_gb"] <= TARGET_PEAK_GB
        result[str(size)] = row
        print(json.dumps(row), file=sys.stderr, flush=True)
    return result


def smooth3(values: np.ndarray) -> np.ndarray:
    padded = np.pad(values, 1, mode="edge")
    rows, columns = values.shape
    return sum(padded[dy : dy + rows, dx : dx + columns] for dy in range(3) for dx in range(3)) / 9.0


def parity(small: int, large: int, recipe: str | None = None) -> dict:
    """The preset (or the shipped ``recipe``) at ``small``² and at ``large``² downsampled to ``small``²:
    correlations of heights and changes."""
    from noise_core.terrain import resample

    make = build if recipe is None else (lambda n: build_recipe(recipe, n))
    a, b = make(small), make(large)
    down = resample.resample_bilinear(b.heights, a.heights.shape)
    change = resample.resample_bilinear(b.change, a.heights.shape)
    heights = float(np.corrcoef(a.heights.ravel(), down.ravel())[0, 1])
    changes = float(np.corrcoef(smooth3(a.change).ravel(), smooth3(change).ravel())[0, 1])
    result = {"small": small, "large": large, "heights": round(heights, 4), "change_smoothed": round(changes, 4),
              "heights_ok": heights >= TARGET_HEIGHTS, "change_ok": changes >= TARGET_CHANGE,
              "realism": {str(small): realism(a.heights, recipe), str(large): realism(b.heights, recipe),
                          f"{large}_at_{small}": realism(down, recipe)}}  # fmt: skip
    if recipe is not None:  # at the real tiles' 90 m cells too: the statistics' ranges are theirs
        tiles = round(recipes_size(recipe) / REAL_CELL_M) + 1
        result[f"realism_at_{tiles}"] = {str(n): realism(resample.resample_bilinear(built.heights, (tiles, tiles)),
                                                         recipe) for n, built in ((small, a), (large, b))}  # fmt: skip
    return result


REAL_CELL_M = 90.0
"""The real tiles' cell (``geomorphometry``'s ranges are of SRTM tiles at about 90 m)."""


def recipes_size(name: str) -> float:
    """The shipped recipe ``name``'s width in metres."""
    from noise_core.terrain import recipe as recipes

    return float(recipes.read_preset(name).size)


def realism(heights: np.ndarray, recipe: str | None = None) -> dict:
    """The realism checks of ``geomorphometry`` for the preset as a map ``EXTENT_M`` wide (a shipped recipe: in
    metres, its own size): the failed ones."""
    from noise_core.terrain import geomorphometry
    from noise_core.terrain import recipe as recipes

    if recipe is None:
        metres, extent = EXTENT_M / (REFERENCE - 1), EXTENT_M  # one reference cell
    else:
        metres, extent = 1.0, recipes.read_preset(recipe).size
    stats = geomorphometry.terrain_statistics(heights * metres, cell_size=extent / (heights.shape[0] - 1))
    failed = {c.name: [round(c.value, 4), c.low, c.high] for c in geomorphometry.realism(stats) if not c.passed}
    return {"passes": geomorphometry.passes(stats), "failed": failed}


def tiled_bake(size: int, tile: int) -> dict:
    """The preset at ``size``² tile by tile (``terrain.tiled``): the global pass on the droplets' model grid, then
    the tiles on a Dask cluster of threads in this process (so its CPU time counts them all) into a Zarr store in
    a temporary folder; and a re-run, which finds every tile finished."""
    import logging

    import distributed

    import noise_core as nc
    from noise_core.terrain import tiled

    cell = (REFERENCE - 1) / (size - 1)
    rivers = {name: value for name, value in RIVERS.items() if name not in ("model_size", "fine_steps")}
    plan_options = {"relief": RELIEF, "cell_size": cell, "rivers": rivers, "thermal": THERMAL,
                    "droplets": {name: value for name, value in DROPLETS.items() if name != "model_size"}}  # fmt: skip
    tiled.plan_terrain(nc.NoiseSpec(**NOISE), 129, model_size=65, **plan_options)  # compiles
    wall, cpu = time.perf_counter(), time.process_time()
    plan = tiled.plan_terrain(nc.NoiseSpec(**NOISE), size, model_size=DROPLETS["model_size"], **plan_options)
    planned = [round(time.perf_counter() - wall, 2), round(time.process_time() - cpu, 2)]
    with (
        tempfile.TemporaryDirectory(prefix="noisewright-tiled-") as folder,
        distributed.LocalCluster(n_workers=1, threads_per_worker=os.cpu_count() or 1, processes=False,
                                 dashboard_address=":0", silence_logs=logging.ERROR) as cluster,
        distributed.Client(cluster, set_as_default=False) as client,
    ):  # fmt: skip
        wall, cpu = time.perf_counter(), time.process_time()
        first = tiled.bake_terrain(plan, Path(folder) / "terrain.zarr", client, tile=tile)
        baked = [round(time.perf_counter() - wall, 2), round(time.process_time() - cpu, 2)]
        again = tiled.bake_terrain(plan, Path(folder) / "terrain.zarr", client, tile=tile)
        stored = sum(path.stat().st_size for path in Path(folder).rglob("*") if path.is_file())
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    return {"size": size, "tile": tile, "halo": plan.halo, "model_grid": list(plan.change.shape),
            "global_pass_s": planned, "tiles_s": baked, "tiles": first.written, "resumed_written": again.written,
            "resumed_skipped": again.skipped, "stored_gb": round(stored / 2**30, 2), "peak_gb": round(peak, 2),
            "load": os.getloadavg()}  # fmt: skip


def blender_child(size: int) -> dict:
    """A River Valleys Noise Terrain at ``size``² in Blender (this process imports ``bpy``): added, regenerated as
    a job, exported at its full size."""
    import bpy

    if "_blender_addon" not in sys.modules:  # by its path, as scripts/bench_jobs.py loads it
        spec = spec_from_file_location("_blender_addon", ROOT / "scripts" / "_blender_addon.py")
        spec.loader.exec_module(module := module_from_spec(spec))  # type: ignore[union-attr]
        sys.modules["_blender_addon"] = module
    _blender_addon = sys.modules["_blender_addon"]

    bpy.ops.wm.read_homefile(use_empty=True)
    addon = sys.modules[_blender_addon.load_addon(log=lambda _message: None)]
    addon.api.add_terrain(bpy.context, preset="river_valleys", x_subdivisions=128, y_subdivisions=128)  # compiles
    times: dict[str, list[float]] = {}
    step = timed(times)

    obj = step("add", lambda: addon.api.add_terrain(bpy.context, preset="river_valleys", x_subdivisions=size - 1,
                                                     y_subdivisions=size - 1))  # fmt: skip
    job = addon.terrain.regenerate_job(bpy.context, obj)
    worker = addon.jobs.Worker(job.compute, job.total)
    moves: list[int] = []
    advance = worker.advance
    worker.advance = lambda count: (advance(count), moves.append(worker.done))  # type: ignore[method-assign]
    step("regenerate_job", worker.run)
    if worker.error is not None:
        raise worker.error
    step("apply", lambda: job.apply(worker.result))
    with tempfile.TemporaryDirectory(prefix="noisewright-blender-") as folder:
        path = Path(folder) / "terrain.r16"
        step("export_r16", lambda: addon.api.export_heightmap(bpy.context, obj, str(path)))
        samples = list(addon.noise_core.read_heightmap(path).heights.shape)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    return {"size": size, "steps": times, "mesh_vertices": len(obj.data.vertices), "export_samples": samples,
            "progress_moves": len(moves), "progress_monotone": moves == sorted(moves), "progress_end": worker.done,
            "progress_total": job.total, "peak_gb": round(peak, 2), "load": os.getloadavg()}  # fmt: skip


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--parity", type=int, nargs=2, metavar=("SMALL", "LARGE"))
    parser.add_argument("--tiled", type=int, nargs=2, metavar=("SIZE", "TILE"))
    parser.add_argument("--recipe", help="a shipped recipe (terrain.recipe.preset_names) instead of PRESET")
    parser.add_argument("--blender", type=int, metavar="SIZE", help="a Noise Terrain at SIZE² in Blender")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--blender-child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.blender_child:
        result = blender_child(args.blender_child)
    elif args.blender:
        run = subprocess.run([sys.executable, __file__, "--blender-child", str(args.blender)], capture_output=True,
                             text=True, cwd=ROOT, check=True)  # fmt: skip
        result = {"cpu_flags": cpu_flags(), "blender": json.loads(run.stdout.strip().splitlines()[-1])}
    elif args.child:
        result = child(args.child, args.recipe)
    elif args.tiled:
        result = {"cpu_flags": cpu_flags(), "tiled": tiled_bake(*args.tiled)}
    elif args.parity:
        result = {"cpu_flags": cpu_flags(), "parity": parity(*args.parity, args.recipe)}
    else:
        result = {"cpu_flags": cpu_flags(), "cpu_count": os.cpu_count(), "sizes": sizes(args.sizes, args.recipe)}
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
