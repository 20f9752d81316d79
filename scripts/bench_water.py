"""Water benchmark (issue 44), from a checkout: ``python -m scripts.bench_water [--sizes 1025 4097] [--rounds 2]``.

``noise_core.water`` on ``--sizes``² heightmaps of Perlin fBm (6 octaves, 500 m of relief on 10 m cells, float64:
hundreds of depressions to fill, spill and merge) with 0.5 m of rain, best of ``--rounds`` after a warm-up on
65² (compiling). Printed per size: the wall and CPU time (the process's, all threads: the steadier number on a
shared machine) with the load average, the CPU flags, and the CPU time of each stage (``progress`` calls).
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

import noise_core as nc
from noise_core.terrain.water import WATER_STEPS

STAGES = ("sort", "hierarchy", "routing", "fill-spill-merge", "levels", "discharge", "rivers", "shore", "flow",
          "results")  # fmt: skip
"""What each of the ``WATER_STEPS`` progress calls ends."""


def cpu_flags() -> str:
    """The AVX-512, AVX2 and FMA flags of the CPU (Linux), as the benchmarks record them."""
    try:
        words = Path("/proc/cpuinfo").read_text().split()
    except OSError:
        return "unknown"
    return " ".join(sorted({w for w in words if w.startswith("avx512") or w in ("avx2", "fma")}))


def run(heights: np.ndarray) -> tuple[float, float, np.ndarray]:
    """Wall time, CPU time and the CPU time of each stage of one ``water`` call."""
    wall, cpu = time.perf_counter(), time.process_time()
    marks = [cpu]
    nc.water(heights, cell_size=10.0, rain=0.5, progress=lambda done, total: marks.append(time.process_time()))
    return time.perf_counter() - wall, time.process_time() - cpu, np.diff(marks)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1025, 4097])
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args(argv)
    assert len(STAGES) == WATER_STEPS
    nc.water(np.random.default_rng(0).random((65, 65)) * 100.0, cell_size=10.0)  # compile
    print(f"CPU flags: {cpu_flags()}; {os.cpu_count()} cores")
    for size in args.sizes:
        spec = nc.NoiseSpec(kind="perlin", octaves=6, frequency=4.0, seed=3)
        heights = nc.evaluate_grid(spec, (size, size)).astype(np.float64) * 500.0
        best = None
        for _ in range(args.rounds):
            wall, cpu, stages = run(heights)
            if best is None or cpu < best[1]:
                best = (wall, cpu, stages)
        wall, cpu, stages = best
        print(f"{size}²: {wall:.2f} s wall, {cpu:.2f} s CPU (load {os.getloadavg()[0]:.1f}); CPU per stage: "
              + ", ".join(f"{name} {seconds:.2f}" for name, seconds in zip(STAGES, stages, strict=True)))  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
