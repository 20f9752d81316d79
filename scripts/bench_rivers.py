"""Fluvial erosion speed (issue 31): ``noise_core.erode_fluvial`` beside fastscapelib (when installed).

* One step on a ``--size``² map (default 513), both from the same heights (Perlin fBm, 200 of relief, cell 100,
  U = 1e-3, K = 2e-5, m = 0.5, n = 1, dt = 1e4): ours as one ``erode_fluvial(steps=1)`` call (it fills the
  input's depressions first and routes the result once more) and per step in a longer run
  (``(t(1 + k steps) - t(1 step)) / k``); fastscapelib 0.3's step as its examples write it (uplift,
  ``FlowGraph.update_routes`` with ``SingleFlowRouter`` + ``PFloodSinkResolver``, ``accumulate``,
  ``SPLEroder.erode``). Target: ours per step <= theirs.
* ``--long``: 1,000 steps on 1025² (target <= 30 s on the benchmark machine's 2 cores).

Wall and CPU (``time.process_time``, all threads) times; CPU time is the fairer figure on a shared machine.
Prints one JSON object. Run: ``.venv/bin/python scripts/bench_rivers.py [--size N] [--long]``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time

import numba
import numpy as np

CELL, UPLIFT, ERODIBILITY, M, N, DT = 100.0, 1e-3, 2e-5, 0.5, 1.0, 1e4
LONG_SIZE, LONG_STEPS, TARGET_LONG_S = 1025, 1000, 30.0


def heights_of(size: int) -> np.ndarray:
    import noise_core as nc

    spec = nc.NoiseSpec(kind="perlin", octaves=7, frequency=4.0, seed=4)
    return nc.ranges.to_unit(spec, nc.evaluate_grid(spec, (size, size))).astype(np.float64) * 200.0


def ours(heights: np.ndarray, steps: int, diffusion: float = 0.0, clock=time.perf_counter) -> float:
    import noise_core as nc

    started = clock()
    nc.erode_fluvial(heights, cell_size=CELL, steps=steps, dt=DT, uplift=UPLIFT, erodibility=ERODIBILITY, m=M, n=N,
                     diffusion=diffusion)  # fmt: skip
    return clock() - started


def theirs(heights: np.ndarray, steps: int, clock=time.perf_counter) -> float | None:
    """fastscapelib's steps on ``heights`` (seconds per step), or None when it is not installed."""
    try:
        from fastscapelib.eroders import SPLEroder
        from fastscapelib.flow import FlowGraph, PFloodSinkResolver, SingleFlowRouter
        from fastscapelib.grid import NodeStatus, RasterGrid
    except ImportError:
        return None
    grid = RasterGrid(list(heights.shape), [CELL, CELL], NodeStatus.FIXED_VALUE)
    graph = FlowGraph(grid, [SingleFlowRouter(), PFloodSinkResolver()])
    eroder = SPLEroder(graph, ERODIBILITY, M, N, 1e-5)
    rates = np.full(heights.shape, UPLIFT)
    rates[[0, -1], :] = rates[:, [0, -1]] = 0.0
    elevation = heights.copy()
    started = clock()
    for _ in range(steps):
        lifted = elevation + DT * rates
        graph.update_routes(lifted)
        elevation = lifted - eroder.erode(lifted, graph.accumulate(1.0), DT)
    return (clock() - started) / steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=513)
    parser.add_argument("--steps", type=int, default=20, help="steps of the per-step measurement (default 20)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--long", action="store_true", help="also 1,000 steps on 1025²")
    args = parser.parse_args()
    heights = heights_of(args.size)
    ours(heights[:32, :32], 2, diffusion=0.1)  # compile
    one = min(ours(heights, 1) for _ in range(args.repeat))
    run = min(ours(heights, 1 + args.steps) for _ in range(args.repeat))
    with_diffusion = min(ours(heights, 1 + args.steps, diffusion=1.0) for _ in range(args.repeat))
    peer = [theirs(heights, args.steps) for _ in range(args.repeat)]
    cpu_one = min(ours(heights, 1, clock=time.process_time) for _ in range(args.repeat))
    cpu_run = min(ours(heights, 1 + args.steps, clock=time.process_time) for _ in range(args.repeat))
    peer_cpu = [theirs(heights, args.steps, clock=time.process_time) for _ in range(args.repeat)]
    report = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}",
        "size": args.size,
        "ours_one_call_s": round(one, 4),
        "ours_per_step_s": round((run - one) / args.steps, 4),
        "ours_per_step_with_diffusion_s": round((with_diffusion - one) / args.steps, 4),
        "fastscapelib_per_step_s": None if peer[0] is None else round(min(p for p in peer if p is not None), 4),
        "threads": numba.get_num_threads(),
        "ours_per_step_cpu_s": round((cpu_run - cpu_one) / args.steps, 4),
        "fastscapelib_per_step_cpu_s": None if peer_cpu[0] is None else round(min(p for p in peer_cpu if p), 4),
    }
    if args.long:
        big = heights_of(LONG_SIZE)
        report["long_s"] = round(ours(big, LONG_STEPS), 2)
        report["long_target_s"] = TARGET_LONG_S
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
