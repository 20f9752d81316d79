"""What the benchmark sections share (``scripts/bench.py`` and its section modules): the timing loops, the
machine, the random points and the settings every section uses.
"""

from __future__ import annotations

import os
import platform
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "scripts" / "bench.py"
"""The entry point, which the sections run again in child processes (``--blender-child`` ...)."""
FREQUENCY = 4.0
EXTENT = 8.0
GRID_OCTAVES = 5

MIN_SECONDS = 1.0
"""By default ``best_time`` keeps timing until this much time is spent (``--min-seconds``): a burst
of load on a shared machine then spoils some of the runs of a short measurement, not all of them."""

MAX_RUNS = 200
WARM_STARTS = 3


@dataclass
class Timing:
    """Settings of ``best_time`` for this run (``main`` sets them from the command line)."""

    min_seconds: float = MIN_SECONDS


TIMING = Timing()


def best_time(
    function: Callable[[], object],
    repeat: int,
    min_seconds: float | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> float:
    """The shortest timing of ``function()`` in seconds by ``clock`` (wall-clock by default; ``time.thread_time``
    for the CPU time of work that runs in the calling thread), over at least ``repeat`` runs and, up to
    ``MAX_RUNS`` runs, at least ``min_seconds`` (default ``TIMING.min_seconds``) of them."""
    min_seconds = TIMING.min_seconds if min_seconds is None else min_seconds
    best = float("inf")
    spent = 0.0
    runs = 0
    while runs < repeat or (spent < min_seconds and runs < MAX_RUNS):
        started = clock()
        function()
        elapsed = clock() - started
        best = min(best, elapsed)
        spent += elapsed
        runs += 1
    return best


PEER_ROUNDS = 3
"""Rounds of ``interleaved_best``: each times every side of a comparison once more, in turn."""


def interleaved_best(
    functions: dict[str, Callable[[], object]], repeat: int, clock: Callable[[], float] = time.perf_counter
) -> dict[str, float]:
    """The shortest timing of each of ``functions``, timed in ``PEER_ROUNDS`` rounds that take them in turn
    (each round a ``best_time`` with a ``PEER_ROUNDS``-th of the minimum time): on a machine whose speed drifts
    with its neighbours' load, both sides of a ratio then see the same spells of load."""
    best = dict.fromkeys(functions, float("inf"))
    for _ in range(PEER_ROUNDS):
        for key, function in functions.items():
            seconds = best_time(function, max(1, repeat // PEER_ROUNDS), TIMING.min_seconds / PEER_ROUNDS, clock)
            best[key] = min(best[key], seconds)
    return best


def machine() -> dict:
    """CPU model, core count and the versions that matter."""
    import numba

    model = platform.processor() or platform.machine()
    try:
        for line in subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout.splitlines():
            if line.startswith("Model name:"):
                model = line.split(":", 1)[1].strip()
    except (OSError, subprocess.CalledProcessError):
        pass
    return {
        "cpu": model,
        "cores": os.cpu_count(),
        "numba_threads": numba.get_num_threads(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "numba": numba.__version__,
    }


def random_points(count: int, dim: int, seed: int = 6) -> np.ndarray:
    """(count, dim) points uniform in [-EXTENT, EXTENT), representable in float32 (FastNoiseLite's input)."""
    rng = np.random.default_rng(seed + dim)
    return rng.uniform(-EXTENT, EXTENT, size=(count, dim)).astype(np.float32).astype(np.float64)
