"""Threads: running a call's blocks on several threads (``noise_core.threads``), and evaluating from several
Python threads at once under every Numba threading layer.

Numba's ``workqueue`` layer aborts the whole process ("Concurrent access has been detected", exit 134)
when two threads launch ``prange`` kernels at the same time; ``noise_core`` serialises the launches of its
``prange`` kernels (the point launchers and the separable grids) unless the layer is known to allow them; the
derivative kernels are range kernels, which need no lock. The layer is fixed per process, so each case runs in
a subprocess.
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
import threading

import numba
import numpy as np
import pytest

import noise_core as nc
from noise_core import fractal
from noise_core.threads import block_ranges, run_blocks

PROGRAM = """
import threading
import numba
import numpy as np
import noise_core as nc

spec = nc.NoiseSpec(kind="perlin", octaves=3)
rng = np.random.default_rng(0)
points = [rng.random((100_000, 3)) for _ in range(4)]
grid = nc.NoiseSpec(kind="value", octaves=2)  # a separable grid kernel: a prange kernel
nc.precompile(spec, 3)
nc.precompile(grid, 2)  # so that the first launches of all threads overlap (no launch has chosen the layer yet)
results = [[] for _ in points]
grids = [[] for _ in points]
slopes = [[] for _ in points]

def work(index):
    for _ in range(10):
        results[index].append(nc.evaluate(spec, points[index]))
        grids[index].append(nc.evaluate_grid(grid, (300, 200)))
        slopes[index].append(nc.evaluate(spec, points[index][:5000], derivatives=True))

threads = [threading.Thread(target=work, args=(index,)) for index in range(len(points))]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
expected = [nc.evaluate(spec, p) for p in points]
same = all(np.array_equal(r, e) for runs, e in zip(results, expected) for r in runs)
expected_grid = nc.evaluate_grid(grid, (300, 200))
same = same and all(np.array_equal(g, expected_grid) for runs in grids for g in runs)
expected_slopes = [nc.evaluate(spec, p[:5000], derivatives=True) for p in points]
same = same and all(np.array_equal(d, e) for runs, e in zip(slopes, expected_slopes) for d in runs)
print(numba.threading_layer(), sum(map(len, results)), same)
"""


@pytest.mark.parametrize("layer", ["workqueue", "default"])
def test_four_threads_evaluate_at_once(layer: str) -> None:
    env = {**os.environ, "NUMBA_THREADING_LAYER": layer}
    done = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    chosen, count, same = done.stdout.split()
    if layer != "default":
        assert chosen == layer
    assert (count, same) == ("40", "True")


@pytest.mark.parametrize(("blocks", "count"), [(1, 1), (2, 2), (7, 2), (8, 3), (3, 3), (1000, 7)])
def test_block_ranges_cover_every_block_once_in_near_equal_ranges(blocks: int, count: int) -> None:
    ranges = block_ranges(blocks, count)
    assert len(ranges) == count
    assert ranges[0][0] == 0 and ranges[-1][1] == blocks
    assert all(a[1] == b[0] for a, b in itertools.pairwise(ranges))
    sizes = [last - first for first, last in ranges]
    assert min(sizes) >= 1 and max(sizes) - min(sizes) <= 1


def test_run_blocks_runs_each_range_once_on_as_many_threads_as_numba_allows(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    lock = threading.Lock()

    def kernel(first, last, tag):
        with lock:
            calls.append((first, last, tag, threading.get_ident()))

    monkeypatch.setattr(numba, "get_num_threads", lambda: 3)
    run_blocks(kernel, 10, ("x",))
    assert sorted(call[:3] for call in calls) == [(0, 3, "x"), (3, 6, "x"), (6, 10, "x")]
    callers = {call[3] for call in calls}
    assert threading.get_ident() in callers and len(callers) >= 2  # the caller runs a range, workers the rest
    calls.clear()
    run_blocks(kernel, 2, ("y",))  # never more threads than blocks
    assert sorted(call[:3] for call in calls) == [(0, 1, "y"), (1, 2, "y")]
    calls.clear()
    monkeypatch.setattr(numba, "get_num_threads", lambda: 1)
    run_blocks(kernel, 10, ("z",))  # one thread: the caller's, in one range
    assert calls == [(0, 10, "z", threading.get_ident())]


@pytest.mark.parametrize("failing", [0, 2])
def test_run_blocks_waits_for_every_range_then_raises(monkeypatch: pytest.MonkeyPatch, failing: int) -> None:
    """No range still runs (and writes into the caller's arrays) once ``run_blocks`` has raised, whether the
    caller's own range failed or a worker's."""
    finished = []
    started = threading.Barrier(2, timeout=10)

    def kernel(first, last):
        started.wait()
        if first == failing:
            raise ValueError(f"range {first}-{last}")
        threading.Event().wait(0.2)
        finished.append(first)

    monkeypatch.setattr(numba, "get_num_threads", lambda: 2)
    with pytest.raises(ValueError, match=f"range {failing}-{failing + 2}"):
        run_blocks(kernel, 4, ())
    assert finished == [2 - failing]


def test_derivative_kernels_take_no_lock_and_give_the_same_bits_on_any_thread_count(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    spec = nc.NoiseSpec(kind="perlin", seed=3, octaves=2)
    points = np.random.default_rng(4).uniform(-5.0, 5.0, (9 * fractal.BLOCK + 17, 3))
    values = nc.evaluate(spec, points)

    def no_guard():
        raise AssertionError("a range kernel launch took the launch guard")

    monkeypatch.setattr(fractal, "launch_guard", no_guard)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        single = nc.evaluate(spec, points, derivatives=True)
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
        parallel = nc.evaluate(spec, points, derivatives=True)
    finally:
        numba.set_num_threads(before)
    np.testing.assert_array_equal(single, parallel)
    np.testing.assert_array_equal(parallel[:, 0], values)
