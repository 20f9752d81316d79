"""Geomorphometry benchmark (issue 49), from a checkout: ``python -m scripts.bench_geomorphometry [--size 1025]
[--rounds 3]``.

``terrain_statistics`` of a ``--size``² heightmap (Perlin fBm, 8 octaves, 3 km of relief on 90 m cells: a noise
terrain, full of depressions, the slow case of the fill) and of the real Himalaya tile resampled to the same size
(a river network), beside the part of its work RichDEM (``richdem-fork``) could do, an epsilon fill and a D8
flow accumulation of the same heights, when it is installed. Best of ``--rounds`` after a warm-up call
(compiling); wall time and the process's CPU time (all threads) are printed with the load average, since a
shared machine inflates the wall time; the ratio is of CPU times in the same run.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable

import numpy as np

import noise_core as nc
from noise_core.terrain.geomorphometry import terrain_statistics
from noise_core.terrain.resample import resample_bilinear
from tests import dems

CELL = 90.0


def best(call: Callable[[], object], rounds: int) -> tuple[float, float]:
    """The smallest wall and CPU times of ``rounds`` calls."""
    walls, cpus = [], []
    for _ in range(rounds):
        wall, cpu = time.perf_counter(), time.process_time()
        call()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return min(walls), min(cpus)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=1025)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    terrain_statistics(np.random.default_rng(0).random((65, 65)) * 1000.0, cell_size=CELL)  # compile
    spec = nc.NoiseSpec(kind="perlin", octaves=8, frequency=6.0, seed=3)
    noise = nc.evaluate_grid(spec, (args.size, args.size)).astype(np.float64)
    noise = 3000.0 * (noise - noise.min()) / np.ptp(noise)
    river = resample_bilinear(dems.load("himalaya-annapurna").heights, (args.size, args.size))
    print(f"load {os.getloadavg()[0]:.1f}; {args.size}² cells of {CELL:g} m, best of {args.rounds}")
    try:
        import richdem
    except ImportError:
        richdem = None
        print("RichDEM (richdem-fork) not installed: no comparison")
    for label, heights in (("fBm noise, 3 km relief", noise), ("Himalaya tile, resampled", river)):
        wall, cpu = best(lambda heights=heights: terrain_statistics(heights, cell_size=CELL), args.rounds)
        print(f"  {label:<26} terrain_statistics          {wall:6.2f} s wall {cpu:6.2f} s CPU")
        if richdem is not None:

            def routing(heights=heights):
                dem = richdem.rdarray(heights.copy(), no_data=-9999.0)
                dem.geotransform = [0.0, CELL, 0.0, 0.0, 0.0, -CELL]  # else RichDEM warns on every call
                richdem.FillDepressions(dem, epsilon=True, in_place=True)
                richdem.FlowAccumulation(dem, method="D8")

            rich_wall, rich_cpu = best(routing, args.rounds)
            print(f"  {'':<26} RichDEM fill + D8 accumulation {rich_wall:6.2f} s wall {rich_cpu:6.2f} s CPU "
                  f"(statistics / RichDEM: {cpu / rich_cpu:.2f}x CPU)")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
