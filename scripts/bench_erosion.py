"""Droplet erosion's speed, its sameness across resolutions and its pits (issue 35); prints one JSON object.

    python scripts/bench_erosion.py                # all three
    python scripts/bench_erosion.py --repeat 1 --skip-speed
    python scripts/bench_erosion.py --threads   # one thread against all, and 4097² with 8 M droplets
    python scripts/bench_erosion.py --against ../main-before   # speed: that checkout's erosion against this one
    python scripts/bench_erosion.py --real [--against ../main-before]   # the real DEMs' measures (issue 42)

* Speed: ``erode_hydraulic`` on the 1024² ridged heightmap of ``bench_terrain.py`` (200 cells of relief) with
  500,000 droplets and the other options at their defaults, then with ``gullies=8`` (target <= 3 s on the
  machine); best wall time of ``--repeat`` runs after a warm-up call that compiles, and the process CPU time of
  that run (on a busy shared machine the CPU time is the fairer number: the kernel runs on one thread).
* Threads (``--threads``): the same 1024² run on one thread and on all of Numba's threads (the same bits: the
  droplets run in tiles, in phases), their wall-time ratio measured in the same run (target >= 1.7 on 2 cores),
  and 4097² with 8 M droplets on all threads (target <= 20 s). On a shared machine, the load of the other
  processes is printed beside them (``os.getloadavg``).
* Resolution: the terrain of ``render_erosion.py`` (100 units wide, 25 high) at 513² and 1025², eroded with the
  defaults and with ``render_erosion.GULLIES``: mean |change| per cell of each and their ratio (target within
  25 %), and the correlation of the two change maps on the 513² raster (the 1025² map at every other cell), raw
  and smoothed over 5 x 5 cells.
* Pits: interior cells lower than all 8 neighbours per 10,000, before and after, at both sizes (target: after
  <= 1.5 x before + 5).
* Against (``--against TREE``): the speed run of another checkout's ``noise_core`` (A) and of this one (B), both
  copied and imported into this process (``bench_ab.load_tree``), their calls alternating (A B, B A, ...) so
  both see the same spells of load; the best CPU and wall time of each and the ratio B/A of the best CPU times
  (target <= 1.2), with the CPU's vector flags.
* Real (``--real``): every DEM of ``tests/dems.py`` at its cell size in metres, eroded with the defaults and with
  ``gullies=8``: the mean change on its channel cells (m), the share of cells in closed depressions before and
  after (%), the cell-scale roughness after over before, the deepest basin of >= 9 cells before and after (m),
  the flat share before and after (%), and the CPU time; with ``--against TREE`` the same for that checkout's
  erosion, measured the same way (issue 42's table).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import math
import os
import re
import sys
import time
from pathlib import Path

import numba
import numpy as np
import render_erosion
from bench_ab import ROOT, WORK, load_tree

import noise_core as nc
from noise_core.terrain import erosion
from noise_core.terrain.erosion import pit_density

SPEED_GRID, SPEED_DROPLETS, SPEED_RELIEF = 1024, 500_000, 200.0
SIZES = (513, 1025)
TARGET_S = 3.0
BIG_GRID, BIG_DROPLETS, BIG_TARGET_S = 4097, 8_000_000, 20.0


def timed(run, repeat: int) -> dict:
    """Best wall time of ``repeat`` calls of ``run`` and the CPU time of that call, in seconds."""
    best = (float("inf"), 0.0)
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        run()
        best = min(best, (time.perf_counter() - wall, time.process_time() - cpu))
    return {"wall_s": round(best[0], 3), "cpu_s": round(best[1], 3)}


def speed(repeat: int) -> dict:
    spec = nc.NoiseSpec(kind="perlin", octaves=8, frequency=2.0, fractal="ridged", offset=1.0, gain=2.0)
    heights = nc.ranges.to_unit(spec, nc.evaluate_grid(spec, (SPEED_GRID, SPEED_GRID))) * SPEED_RELIEF
    nc.erode_hydraulic(heights[:64, :64], droplets=100, gullies=1.0)
    result = {"grid": SPEED_GRID, "droplets": SPEED_DROPLETS, "target_s": TARGET_S}
    for name, options in (("default", {}), ("gullies", {"gullies": 8.0})):
        result[name] = timed(lambda o=options: nc.erode_hydraulic(heights, droplets=SPEED_DROPLETS, **o), repeat)
    return result


def threads(repeat: int, big_droplets: int) -> dict:
    spec = nc.NoiseSpec(kind="perlin", octaves=8, frequency=2.0, fractal="ridged", offset=1.0, gain=2.0)
    heights = nc.ranges.to_unit(spec, nc.evaluate_grid(spec, (SPEED_GRID, SPEED_GRID))) * SPEED_RELIEF
    nc.erode_hydraulic(heights[:64, :64], droplets=100, brush_radius=6.0)  # compiles both paths (own cells, coarse)
    most = numba.get_num_threads()
    result: dict = {"grid": SPEED_GRID, "droplets": SPEED_DROPLETS, "load_before": os.getloadavg()[0]}
    digests, runs = set(), []
    for count in (1, most):
        numba.set_num_threads(count)
        result[f"threads_{count}"] = timed(lambda: runs.append(nc.erode_hydraulic(heights, droplets=SPEED_DROPLETS)),
                                           repeat)  # fmt: skip
        digests.add(hashlib.sha256(runs[-1].heights.tobytes()).hexdigest())
    result["speedup"] = round(result["threads_1"]["wall_s"] / result[f"threads_{most}"]["wall_s"], 2)
    result["same_bits"] = len(digests) == 1
    big = nc.ranges.to_unit(spec, nc.evaluate_grid(spec, (BIG_GRID, BIG_GRID))) * SPEED_RELIEF * 4
    result["big"] = {"grid": BIG_GRID, "droplets": big_droplets, "target_s": BIG_TARGET_S, "threads": most,
                     **timed(lambda: nc.erode_hydraulic(big, droplets=big_droplets), 1)}  # fmt: skip
    result["big"]["wall_s_for_8M"] = round(result["big"]["wall_s"] * BIG_DROPLETS / big_droplets, 1)
    result["load_after"] = os.getloadavg()[0]
    return result


def ridged(size: int) -> np.ndarray:
    """The ridged terrain of ``speed`` sampled at ``size``², ``SPEED_RELIEF`` cells of relief at 1024² (the same
    shape at every size: the relief in cells grows with the size)."""
    spec = nc.NoiseSpec(kind="perlin", octaves=8, frequency=2.0, fractal="ridged", offset=1.0, gain=2.0)
    return nc.ranges.to_unit(spec, nc.evaluate_grid(spec, (size, size))) * SPEED_RELIEF * (size - 1) / 1023


def balance(tiles_across: int, droplets: int, threads: int, rounds: int = 20) -> float:
    """Modelled parallel efficiency of the tile phases: droplets start uniformly at random (as the hashed start
    points do), a tile's work is its droplet count, each phase's blocks are split into ``threads`` contiguous
    ranges (``threads.on_threads``) and waits for the busiest; the mean over ``rounds`` draws of the summed
    mean loads over the summed busiest loads (1.0: no thread ever waits)."""
    rng = np.random.default_rng(0)
    ratios = []
    for _ in range(rounds):
        counts = rng.multinomial(droplets, np.full(tiles_across**2, 1.0 / tiles_across**2))
        counts = counts.reshape(tiles_across, tiles_across)
        busy = mean = 0.0
        for phase in range(4):
            blocks = counts[phase // 2 :: 2, phase % 2 :: 2].ravel()
            parts = [part.sum() for part in np.array_split(blocks, min(threads, blocks.size))]
            busy, mean = busy + max(parts), mean + blocks.sum() / threads
        ratios.append(mean / busy)
    return round(float(np.mean(ratios)), 3)


def parts(heights: np.ndarray) -> dict:
    """One settling pass and one routing of the droplets' flow (``erosion._Flow.route``: the Priority-Flood+ε
    fill, D8 routing, lakes) over ``heights``, and the whole default run."""
    kernels = erosion._kernels()
    cells = np.ascontiguousarray(heights, dtype=np.float64)
    flow = erosion._Flow(cells.shape)
    return {
        "settle_pass": timed(lambda: kernels.settle(cells.copy(), np.empty_like(cells), 1), 1),
        "route": timed(lambda: flow.route(cells), 1),
        "default_now": timed(lambda: nc.erode_hydraulic(heights), 1),
    }


def profile(sizes: tuple[int, ...], sample: int) -> dict:
    """Where the time of default erosion goes as the map grows (issue 33: 4097² with 8 M droplets), measured in
    CPU time (fair on a shared machine): per size, the brush in cells, the steps of a droplet, the tiles, the
    coarse grid the droplets now run on; the CPU time per droplet on the map's own cells (``sample`` droplets,
    the former path, forced with ``COARSE_BRUSH`` = inf) and extrapolated to the default density (0.5 per
    cell); the modelled thread balance of the tile phases; one settling pass and one flow accumulation
    (gullies) on the map; then the whole default run as it is now (coarse grid when the brush is wide)."""
    most = numba.get_num_threads()
    result: dict = {"threads": most, "load_before": os.getloadavg()[0]}
    nc.erode_hydraulic(ridged(65), droplets=100, gullies=1.0, brush_radius=6.0)  # compiles both paths
    for size in sizes:
        heights = ridged(size)
        values = erosion._options(erosion.HYDRAULIC_OPTIONS, {})
        model = erosion._model(values, heights.shape)
        radius = erosion._brush_cells(values, heights.shape, math.inf)
        reach = math.ceil(model["radius"]) + 1
        brush = (2 * math.ceil(model["radius"])) ** 2  # cells a brush touches, at most
        tile = erosion.tile_width(model["steps"], reach)
        across = (size - 2) // tile + 1
        row: dict = {
            "brush_radius_cells": round(radius, 2), "brush_cells": brush,
            "steps": model["steps"], "work_per_droplet": model["steps"] * brush,
            "tile": tile, "tiles": across**2, "droplets": model["droplets"],
            "coarse_grid": erosion.coarse_shape(radius, heights.shape),
        }  # fmt: skip
        count = min(sample, model["droplets"])
        saved, erosion.COARSE_BRUSH = erosion.COARSE_BRUSH, math.inf
        try:
            own = timed(lambda: nc.erode_hydraulic(heights, droplets=count), 1)  # noqa: B023
        finally:
            erosion.COARSE_BRUSH = saved
        per = own["cpu_s"] / count
        row["own_cells"] = {"droplets": count, **own, "cpu_us_per_droplet": round(per * 1e6, 2),
                            "cpu_s_at_density": round(per * model["droplets"], 1),
                            "cpu_s_for_8M": round(per * BIG_DROPLETS, 1)}  # fmt: skip
        work, tiles = row["work_per_droplet"], across**2
        per_round = min(max(min(erosion.ROUND_PER_TILE * tiles, erosion.BATCH_WORK // work), erosion.ROUNDS[0]),
                        erosion.ROUNDS[1])  # fmt: skip
        row["droplets_per_round"] = per_round
        row["phase_balance"] = balance(across, per_round, most)
        row.update(parts(heights))
        result[f"{size}"] = row
        print(json.dumps({f"{size}": row}), flush=True)
    result["load_after"] = os.getloadavg()[0]
    return result


def compare(size: int) -> dict:
    """Default erosion of the ``ridged`` terrain at ``size``² with the droplets on the coarse grid (as now) and on
    the map's own cells (``COARSE_BRUSH`` = inf, the former path): times, mean |change| and their ratio, the
    correlation of the two change maps (raw and smoothed over 5 x 5 cells), pits and what left the map."""
    heights = ridged(size)
    nc.erode_hydraulic(heights[:64, :64], droplets=100, brush_radius=6.0)  # compiles both paths
    runs, result = {}, {"grid": size, "load_before": os.getloadavg()[0]}
    for name, limit in (("coarse", erosion.COARSE_BRUSH), ("own_cells", math.inf)):
        saved, erosion.COARSE_BRUSH = erosion.COARSE_BRUSH, limit
        try:
            result[name] = timed(lambda: runs.update({name: nc.erode_hydraulic(heights)}), 1)  # noqa: B023
        finally:
            erosion.COARSE_BRUSH = saved
        run = runs[name]
        change = float(np.abs(run.heights - heights).mean())
        result[name].update(mean_abs_change=change, pits=round(pit_density(run.heights), 2), eroded=run.eroded,
                            carried_off=run.carried_off)  # fmt: skip
    first, second = (runs[name].heights - heights for name in ("coarse", "own_cells"))
    result["pits_before"] = round(pit_density(heights), 2)
    result["ratio"] = round(result["coarse"]["mean_abs_change"] / result["own_cells"]["mean_abs_change"], 3)
    result["correlation"] = round(float(np.corrcoef(first.ravel(), second.ravel())[0, 1]), 3)
    result["correlation_smoothed"] = round(float(np.corrcoef(smooth(first).ravel(), smooth(second).ravel())[0, 1]), 3)
    result["load_after"] = os.getloadavg()[0]
    return result


def smooth(change: np.ndarray, width: int = 5) -> np.ndarray:
    box = np.ones(width) / width
    rows = np.apply_along_axis(np.convolve, 0, change, box, mode="valid")
    return np.apply_along_axis(np.convolve, 1, rows, box, mode="valid")


def resolution_and_pits() -> dict:
    """The resolution and pit checks at the defaults and with ``render_erosion.GULLIES``."""
    runs = (("default", {}), ("gullies", render_erosion.GULLIES))
    return {name: _resolution_and_pits(options) for name, options in runs}


def _resolution_and_pits(options: dict) -> dict:
    changes, result = [], {}
    for size in SIZES:
        heights, cell = render_erosion.terrain(size)
        after = nc.erode_hydraulic(heights, cell_size=cell, **options).heights
        change = after.astype(np.float64) - heights
        changes.append(change)
        before_pits, after_pits = pit_density(heights), pit_density(after)
        result[f"{size}"] = {
            "mean_abs_change": float(np.abs(change).mean()),
            "pits_before": round(before_pits, 2),
            "pits_after": round(after_pits, 2),
            "pits_ok": after_pits <= 1.5 * before_pits + 5.0,
        }
    coarse, fine = changes[0], changes[1][::2, ::2]
    ratio = result[f"{SIZES[0]}"]["mean_abs_change"] / result[f"{SIZES[1]}"]["mean_abs_change"]
    result["ratio"] = round(ratio, 3)
    result["ratio_ok"] = 0.75 <= ratio <= 1.25
    result["correlation"] = round(float(np.corrcoef(coarse.ravel(), fine.ravel())[0, 1]), 3)
    result["correlation_smoothed"] = round(float(np.corrcoef(smooth(coarse).ravel(), smooth(fine).ravel())[0, 1]), 3)
    return result


def cpu_flags() -> list[str]:
    """The CPU's AVX-512, AVX2 and FMA flags (``/proc/cpuinfo``; empty where there is none)."""
    info = Path("/proc/cpuinfo")
    return sorted(set(re.findall(r"avx512[a-z]*|avx2|fma", info.read_text()))) if info.exists() else []


def against(tree: Path, repeat: int) -> dict:
    """``speed``'s runs with another checkout's erosion (A) and this one's (B), alternating: the best CPU and wall
    time of each and the ratio of the best CPU times."""
    work = WORK.resolve()
    work.mkdir(parents=True, exist_ok=True)
    sides = {"a": load_tree(tree.resolve(), "noise_core_a", work), "b": load_tree(ROOT, "noise_core_b", work)}
    heights = ridged(SPEED_GRID)
    result: dict = {"a": str(tree.resolve()), "b": str(ROOT), "grid": SPEED_GRID, "droplets": SPEED_DROPLETS,
                    "flags": cpu_flags(), "load_before": os.getloadavg()[0]}  # fmt: skip
    for module in sides.values():
        module.erode_hydraulic(heights[:64, :64], droplets=100, gullies=1.0)  # compiles
    for name, options in (("default", {}), ("gullies", {"gullies": 8.0})):
        best = {key: (float("inf"), float("inf")) for key in sides}
        for turn in range(2 * repeat):
            for key in ("a", "b") if turn % 2 == 0 else ("b", "a"):
                wall, cpu = time.perf_counter(), time.process_time()
                sides[key].erode_hydraulic(heights, droplets=SPEED_DROPLETS, **options)
                best[key] = min(best[key], (time.process_time() - cpu, time.perf_counter() - wall))
        result[name] = {f"{key}_{unit}": round(best[key][index], 3) for key in sides
                        for index, unit in enumerate(("cpu_s", "wall_s"))}  # fmt: skip
        result[name]["cpu_ratio_b_over_a"] = round(best["b"][0] / best["a"][0], 3)
    result["load_after"] = os.getloadavg()[0]
    return result


def _dems():
    """``tests/dems.py``, loaded from its file (the tests are no installed package)."""
    spec = importlib.util.spec_from_file_location("noisewright_test_dems", ROOT / "tests" / "dems.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # before running it: its dataclass looks itself up there
    spec.loader.exec_module(module)
    return module


def real(tree: Path | None) -> dict:
    """Issue 42's measures on every real DEM, for this checkout's erosion and, with ``tree``, that checkout's."""
    dems = _dems()
    work = WORK.resolve()
    work.mkdir(parents=True, exist_ok=True)
    sides = {"this": load_tree(ROOT, "noise_core_b", work)}
    depressions = sides["this"].depressions
    if tree is not None:
        sides["other"] = load_tree(tree.resolve(), "noise_core_a", work)
    result: dict = {"flags": cpu_flags()}
    for name in dems.NAMES:
        dem = dems.load(name)
        channel = dems.channels(dem)
        before = depressions(dem.heights, outlets=dem.sea)
        deepest = depressions(dem.heights, outlets=dem.sea, min_cells=9)[1]
        flat = dems.flat_share(dem.heights, dem.cell_size, dem.sea)
        for side, module in sides.items():
            for run, options in (("default", {}), ("gullies", {"gullies": 8.0})):
                cpu = time.process_time()
                after = module.erode_hydraulic(dem.heights, cell_size=dem.cell_size, **options).heights
                cpu = time.process_time() - cpu
                after = after.astype(np.float64)
                row = {
                    "channel_change_m": round(float((after - dem.heights)[channel].mean()), 1),
                    "depressions_pct": [round(100 * before[0], 2),
                                        round(100 * depressions(after, outlets=dem.sea)[0], 2)],
                    "roughness_ratio": round(dems.roughness(after) / dems.roughness(dem.heights), 2),
                    "deepest_m": [round(deepest, 1), round(depressions(after, outlets=dem.sea, min_cells=9)[1], 1)],
                    "flat_pct": [round(100 * flat, 3), round(100 * dems.flat_share(after, dem.cell_size, dem.sea), 3)],
                    "cpu_s": round(cpu, 2),
                }  # fmt: skip
                result[f"{name} {side} {run}"] = row
                print(json.dumps({f"{name} {side} {run}": row}), flush=True)
    return result


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="timed runs, best kept (default 3)")
    parser.add_argument("--skip-speed", action="store_true", help="only the resolution and pit checks")
    parser.add_argument("--threads", action="store_true", help="only one thread against all, and 4097²")
    parser.add_argument(
        "--profile",
        type=int,
        nargs="*",
        metavar="SIZE",
        help="only the profile: where the time goes at these sizes (default 513 1025 2049 4097)",
    )
    parser.add_argument(
        "--compare", type=int, metavar="SIZE", help="only default erosion at SIZE² on the coarse grid and on the map"
    )
    parser.add_argument(
        "--sample",
        type=int,
        default=100_000,
        help="droplets per size run on the map's own cells in --profile (default 100,000)",
    )
    parser.add_argument(
        "--against",
        type=Path,
        metavar="TREE",
        help="another checkout: its speed (or with --real its measures) beside this one's",
    )
    parser.add_argument("--real", action="store_true", help="only the real DEMs' measures (issue 42)")
    parser.add_argument("--big-droplets", type=int, default=BIG_DROPLETS,
                        help="droplets of the 4097² run (default 8 M; fewer: scaled to 8 M)")  # fmt: skip
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error(f"--repeat: at least 1, got {args.repeat}")
    if args.real:
        result = {"real": real(args.against)}
        print(json.dumps(result, indent=1))
        return result
    if args.against is not None:
        result = {"against": against(args.against, args.repeat)}
        print(json.dumps(result, indent=1))
        return result
    if args.compare:
        result = {"compare": compare(args.compare)}
        print(json.dumps(result, indent=1))
        return result
    if args.profile is not None:
        result = {"profile": profile(tuple(args.profile) or (513, 1025, 2049, 4097), max(1, args.sample))}
        print(json.dumps(result, indent=1))
        return result
    if args.threads:
        result = {"threads": threads(args.repeat, max(1, args.big_droplets))}
        print(json.dumps(result, indent=1))
        return result
    result = {} if args.skip_speed else {"speed": speed(args.repeat)}
    result["resolution"] = resolution_and_pits()
    print(json.dumps(result, indent=1))
    return result


if __name__ == "__main__":
    main()
