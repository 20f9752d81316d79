"""Droplet erosion's speed, its sameness across resolutions and its pits (issue 35); prints one JSON object.

    python scripts/bench_erosion.py                # all three
    python scripts/bench_erosion.py --repeat 1 --skip-speed
    python scripts/bench_erosion.py --threads   # one thread against all, and 4097² with 8 M droplets

* Speed: ``erode_hydraulic`` on the 1024² ridged heightmap of ``bench_terrain.py`` (200 cells of relief) with
  500,000 droplets and the other options at their defaults, then with ``gullies=8`` (target <= 3 s on the
  machine); best wall time of ``--repeat`` runs after a warm-up call that compiles, and the process CPU time of
  that run (on a busy shared machine the CPU time is the fairer number: the kernel runs on one thread).
* Threads (``--threads``): the same 1024² run on one thread and on all of Numba's threads (the same bits: the
  droplets run in tiles, in phases), their wall-time ratio measured in the same run (target >= 1.7 on 2 cores),
  and 4097² with 8 M droplets on all threads (target <= 20 s). On a shared machine, the load of the other
  processes is printed beside them (``os.getloadavg``).
* Resolution: the terrain of ``render_erosion.py`` (100 units wide, 25 high) at 513² and 1025², eroded with the
  defaults: mean |change| per cell of each and their ratio (target within 25 %), and the correlation of the two
  change maps on the 513² raster (the 1025² map at every other cell), raw and smoothed over 5 x 5 cells.
* Pits: interior cells lower than all 8 neighbours per 10,000, before and after, at both sizes (target: after
  <= 1.5 x before + 5).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import time

import numba
import numpy as np
import render_erosion

import noise_core as nc
from noise_core.erosion import pit_density

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
    nc.erode_hydraulic(heights[:64, :64], droplets=100)
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


def smooth(change: np.ndarray, width: int = 5) -> np.ndarray:
    box = np.ones(width) / width
    rows = np.apply_along_axis(np.convolve, 0, change, box, mode="valid")
    return np.apply_along_axis(np.convolve, 1, rows, box, mode="valid")


def resolution_and_pits() -> dict:
    changes, result = [], {}
    for size in SIZES:
        heights, cell = render_erosion.terrain(size)
        after = nc.erode_hydraulic(heights, cell_size=cell).heights
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


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="timed runs, best kept (default 3)")
    parser.add_argument("--skip-speed", action="store_true", help="only the resolution and pit checks")
    parser.add_argument("--threads", action="store_true", help="only one thread against all, and 4097²")
    parser.add_argument("--big-droplets", type=int, default=BIG_DROPLETS,
                        help="droplets of the 4097² run (default 8 M; fewer: scaled to 8 M)")  # fmt: skip
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error(f"--repeat: at least 1, got {args.repeat}")
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
