"""Terrain maps benchmark (issue 30), from a checkout: ``python -m scripts.bench_maps [--size 4097]
[--flow-size 2049]``.

* Every map but the horizon ones (slope, aspect, the three curvatures, relative height r = 16, flow and wetness
  by MFD over the epsilon-filled heights, a 4-layer splat) of a ``--size``² heightmap (Perlin fBm, 6 octaves,
  500 units of relief, cell size 1): target <= 5 s in all on 2 cores.
  Timed one map at a time, then all at once (``compute_maps``: the flow routing on a thread of its own beside
  the other maps), then the routing's two steps beside RichDEM's epsilon fill and Quinn MFD on the same heights.
* Openness and occlusion, 16 directions, radius 32 cells: target <= 5 s more.
* ``fill_depressions`` (plain and epsilon) and fill + D8 ``flow_accumulation`` on a ``--flow-size``² terrain
  against RichDEM (``richdem-fork``: ``FillDepressions`` then ``FlowAccumulation(method="D8")``) when it is
  installed, alternately for ``--rounds`` rounds (best of each): target at least as fast. ``--flow-only``: only
  this comparison.
* ``--cancel-only`` (issue 33): the wall time of each band of each map of ``compute_maps`` (the longest and the
  mean; a cancel lands between two), and how long ``compute_maps`` takes to return after its ``progress``
  raises (a job's cancel) while the flow routing runs, at ``--size``.

Each is timed after a warm-up call on a small map (compiling); wall time and CPU time of the process (all
threads) are printed, with the load average, since a shared machine inflates the wall time.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable

import numpy as np

import noise_core as nc

TARGET_MAPS_S = 5.0
TARGET_HORIZON_S = 5.0
SPLAT = [
    {"name": "grass"},
    {"name": "sand", "bands": [{"map": "height", "high": -150, "blend": 40}], "breakup": 0.3},
    {"name": "rock", "bands": [{"map": "slope", "low": 35, "blend": 10}]},
    {"name": "sediment", "bands": [{"map": "flow", "low": 3, "blend": 1}]},
]


def terrain(size: int) -> np.ndarray:
    spec = nc.NoiseSpec(kind="perlin", octaves=6, frequency=4.0, seed=7)
    return nc.evaluate_grid(spec, (size, size)).astype(np.float64) * 500.0


def timed(label: str, call: Callable[[], object]) -> float:
    """Run ``call`` once, print and return its wall time."""
    wall, cpu = time.perf_counter(), time.process_time()
    call()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(f"  {label:<34} {wall:7.2f} s wall {cpu:7.2f} s CPU", flush=True)
    return wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=4097)
    parser.add_argument("--flow-size", type=int, default=2049)
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds of the fill comparison")
    parser.add_argument("--flow-only", action="store_true", help="only the fill + D8 comparison with RichDEM")
    parser.add_argument("--cancel-only", action="store_true", help="only the band times and cancel latency")
    args = parser.parse_args()
    import numba

    print(f"numba {numba.__version__}, {numba.get_num_threads()} threads, load {os.getloadavg()[0]:.1f}")
    small = terrain(65)
    if args.flow_only:
        compare_flow(terrain(args.flow_size).astype(np.float32), small.astype(np.float32), args.rounds)
        return
    if args.cancel_only:
        bands_and_cancel(terrain(args.size), small)
        return
    names = ["slope", "aspect", "curvature", "profile_curvature", "plan_curvature", "relative_height", "flow",
             "wetness"]  # fmt: skip
    nc.compute_maps(small, [*names, "openness", "occlusion"], horizon_radius=8)
    nc.splat_weights(small, SPLAT, maps=nc.compute_maps(small, ["flow"]))
    heights = terrain(args.size)
    print(f"{args.size}² heightmap, every map but openness and occlusion (target <= {TARGET_MAPS_S:g} s):")
    total = 0.0
    maps: dict[str, np.ndarray] = {}
    for group in [[name] for name in names[:-2]] + [names[-2:]]:  # flow and wetness share one routing
        label = " + ".join(group) + (" (fill + MFD)" if "flow" in group else "")
        total += timed(label, lambda group=group: maps.update(nc.compute_maps(heights, group)))
    total += timed("splat (4 layers, maps given)", lambda: nc.splat_weights(heights, SPLAT, maps=maps))
    print(f"  {'total, one map at a time':<34} {total:7.2f} s wall")
    together = timed("compute_maps(all 8 at once)", lambda: maps.update(nc.compute_maps(heights, names)))
    together += timed("splat (4 layers, maps given)", lambda: nc.splat_weights(heights, SPLAT, maps=maps))
    print(f"  {'total, at once':<34} {together:7.2f} s wall")
    compare_routing(heights)
    print(f"openness and occlusion, 16 directions, radius 32 (target <= {TARGET_HORIZON_S:g} s):")
    horizon = timed("openness", lambda: nc.openness(heights, radius=32, directions=16))
    horizon += timed("occlusion", lambda: nc.occlusion(heights, radius=32, directions=16))
    print(f"  {'total':<34} {horizon:7.2f} s wall")
    compare_flow(terrain(args.flow_size).astype(np.float32), small.astype(np.float32), args.rounds)


class _Stop(Exception):
    pass


def bands_and_cancel(heights: np.ndarray, small: np.ndarray) -> None:
    """Per map, the longest and the mean wall time between two progress calls of ``compute_maps`` (a band), then
    the seconds ``compute_maps(["flow"])`` and ``compute_maps(["flow", "slope"])`` take to return once their
    progress raises, 1 s and 3 s into the routing (the routing is then stopped by ``hydrology``'s poll)."""
    names = ["slope", "curvature", "relative_height", "occlusion", "wetness"]
    nc.compute_maps(small, names, horizon_radius=8)
    size = heights.shape[0]
    print(f"{size}², wall time between two progress calls (a band), per map:")
    for name in names:
        times: list[float] = []
        last = [time.perf_counter()]

        def tick(_done: int, _total: int, times: list[float] = times, last: list[float] = last) -> None:
            now = time.perf_counter()
            times.append(now - last[0])
            last[0] = now

        nc.compute_maps(heights, [name], progress=tick)
        print(f"  {name:<20} {len(times):4d} calls, longest {max(times):.3f} s, mean {np.mean(times):.3f} s")
    print(f"{size}², seconds from a raising progress to compute_maps' return:")
    for group in (["flow"], ["flow", "slope"]):
        for delay in (1.0, 3.0):
            began = time.perf_counter()
            raised = [0.0]

            def stop(_done: int, _total: int, began: float = began, delay: float = delay, raised=raised) -> None:
                if time.perf_counter() - began > delay:
                    raised[0] = time.perf_counter()
                    raise _Stop

            try:
                nc.compute_maps(heights, group, progress=stop)
            except _Stop:
                print(f"  {' + '.join(group):<14} after {delay:g} s: {time.perf_counter() - raised[0]:.4f} s")


def compare_routing(heights: np.ndarray) -> None:
    """The flow map's routing on ``heights`` (float64): ours (epsilon fill, MFD) beside RichDEM's epsilon fill and
    Quinn et al.'s MFD (``FlowAccumulation(method="Quinn")``, the same split with exponent 1), once each."""
    from noise_core.terrain.flow import fill_depressions, flow_accumulation

    filled: list[np.ndarray] = []
    timed("noise_core fill (epsilon)", lambda: filled.append(fill_depressions(heights, epsilon=True)))
    timed("noise_core MFD", lambda: flow_accumulation(filled[0], method="mfd"))
    try:
        import richdem
    except ModuleNotFoundError:
        print("  RichDEM (richdem-fork) not installed: no comparison")
        return
    dem = richdem.rdarray(heights.copy(), no_data=-9999.0)
    timed("RichDEM FillDepressions (epsilon)", lambda: richdem.FillDepressions(dem, epsilon=True, in_place=True))
    timed("RichDEM FlowAccumulation (Quinn)", lambda: richdem.FlowAccumulation(dem, method="Quinn"))


def compare_flow(heights: np.ndarray, small: np.ndarray, rounds: int) -> None:
    """Fill, then fill + D8 accumulation, ours and RichDEM's alternately for ``rounds`` rounds (a loaded
    machine slows both alike within a round); prints the best wall and CPU time of each."""
    from noise_core.terrain.flow import fill_depressions, flow_accumulation

    size = heights.shape[0]
    print(f"fill and fill + D8 on {size}² (float32), best of {rounds} alternating rounds:")
    runs: dict[str, Callable[[], object]] = {
        "noise_core fill": lambda: fill_depressions(heights),
        "noise_core fill (epsilon)": lambda: fill_depressions(heights, epsilon=True),
        "noise_core fill + D8": lambda: flow_accumulation(fill_depressions(heights), method="d8"),
    }
    flow_accumulation(fill_depressions(small, epsilon=True), method="d8")
    flow_accumulation(fill_depressions(small), method="d8")
    try:
        import richdem
    except ModuleNotFoundError:
        print("  RichDEM (richdem-fork) not installed: no comparison")
    else:

        def peer(epsilon: bool = False, d8: bool = False) -> None:
            dem = richdem.rdarray(heights.copy(), no_data=-9999.0)
            richdem.FillDepressions(dem, epsilon=epsilon, in_place=True)
            if d8:
                richdem.FlowAccumulation(dem, method="D8")

        runs["RichDEM FillDepressions"] = peer
        runs["RichDEM FillDepressions (epsilon)"] = lambda: peer(epsilon=True)
        runs["RichDEM FillDepressions + D8"] = lambda: peer(d8=True)
    best = {label: [np.inf, np.inf] for label in runs}
    for _ in range(rounds):
        for label, call in runs.items():
            wall, cpu = time.perf_counter(), time.process_time()
            call()
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            best[label] = [min(best[label][0], wall), min(best[label][1], cpu)]
    for label, (wall, cpu) in best.items():
        print(f"  {label:<34} {wall:7.2f} s wall {cpu:7.2f} s CPU", flush=True)
    if "RichDEM FillDepressions + D8" in best:
        ours, theirs = best["noise_core fill + D8"], best["RichDEM FillDepressions + D8"]
        print(f"  fill + D8, RichDEM / noise_core: {theirs[0] / ours[0]:.2f} wall, {theirs[1] / ours[1]:.2f} CPU")


if __name__ == "__main__":
    main()
