"""Material layers benchmark (issue 47), from a checkout: ``python -m scripts.bench_layers [--tile NAME]
[--size 1025]``.

* Each layer of ``compute_layers`` (snow, moisture with the ``water()`` it runs, strata) on a real tile
  (``/work/shared/reference/dems``, 648², ~90 m cells, heights in feet converted to metres) and on a ``--size``²
  Perlin fBm (6 octaves, 500 m of relief, 10 m cells).
* ``deposits`` of a droplet run and a thermal run on the ``--size``² map, and those runs with a strata
  erodibility map against without it (the same options), CPU time of both.

Each is timed after a warm-up call on a small map (compiling); wall time and CPU time of the process (all
threads) are printed, with the load average and the CPU flags, since a shared machine inflates the wall time.
"""

from __future__ import annotations

import argparse
import os
import re
import time
from collections.abc import Callable
from pathlib import Path

import imageio.v3 as iio
import numpy as np

import noise_core as nc
from noise_core.terrain import layers

DEMS = Path("/work/shared/reference/dems")
FEET = 0.3048


def timed(label: str, work: Callable[[], object]) -> object:
    wall, cpu = time.perf_counter(), time.process_time()
    result = work()
    print(f"  {label:<40} {time.perf_counter() - wall:7.2f} s wall {time.process_time() - cpu:7.2f} s CPU")
    return result


def flags() -> str:
    text = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    return " ".join(sorted(set(re.findall(r"avx512[a-z]*|avx2|fma", text))))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tile", default="himalaya-annapurna", help="a tile of /work/shared/reference/dems")
    parser.add_argument("--size", type=int, default=1025, help="cells a side of the noise map (default 1025)")
    args = parser.parse_args(argv)
    print(f"CPU flags: {flags()}; load average {os.getloadavg()[0]:.1f}")
    layers.compute_layers(np.random.default_rng(0).random((32, 32)), cell_size=1.0)  # compiled first
    spec = nc.NoiseSpec(kind="perlin", octaves=6, seed=1)
    noise = nc.evaluate_grid(spec, (args.size, args.size)).astype(np.float64) * 250.0
    maps = [(f"{args.tile} 648², 90 m", iio.imread(DEMS / f"{args.tile}.png").astype(np.float64) * FEET, 90.0),
            (f"Perlin {args.size}², 10 m", noise, 10.0)]  # fmt: skip
    for title, heights, cell in maps:
        print(title)
        for name in ("snow", "moisture", "strata"):
            timed(name, lambda h=heights, c=cell, n=name: layers.compute_layers(h, [n], c))
    print(f"erosion with and without strata, Perlin {args.size}²")
    hard, _ = layers.strata(noise, 10.0)
    rock = layers.erodibility(hard)
    nc.erode_hydraulic(noise[:65, :65], droplets=100, cell_size=10.0, erodibility=rock[:65, :65])  # compiled
    nc.erode_thermal(noise[:65, :65], cell_size=10.0, erodibility=rock[:65, :65])
    plain = timed("erode_hydraulic", lambda: nc.erode_hydraulic(noise, cell_size=10.0))
    timed("erode_hydraulic, erodibility", lambda: nc.erode_hydraulic(noise, cell_size=10.0, erodibility=rock))
    slid = timed("erode_thermal", lambda: nc.erode_thermal(plain.heights, cell_size=10.0))
    timed("erode_thermal, erodibility", lambda: nc.erode_thermal(plain.heights, cell_size=10.0, erodibility=rock))
    timed("deposits of both", lambda: nc.deposits([plain, slid]))


if __name__ == "__main__":
    main()
