"""Threads: running a call's blocks on several threads (``noise_core.threads``), and evaluating from several
Python threads at once under every Numba threading layer.

Numba's ``workqueue`` layer aborts the whole process ("Concurrent access has been detected", exit 134)
when two threads launch parallel kernels at the same time; ``noise_core`` serialises its launches (the point
launchers, the derivative kernels, the separable grids) unless the layer is known to allow them. The layer is
fixed per process, so each case runs in a subprocess.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numba
import numpy as np
import pytest

import noise_core as nc
from noise_core import fractal
from noise_core.threads import on_threads

PROGRAM = """
import threading
import numba
import numpy as np
import noise_core as nc

spec = nc.NoiseSpec(kind="perlin", octaves=3)
rng = np.random.default_rng(0)
points = [rng.random((100_000, 3)) for _ in range(4)]
grid = nc.NoiseSpec(kind="value", octaves=2)  # a separable grid kernel
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


@numba.njit(nogil=True)
def _record_ranges(first, last, ranges, visits, thread_ids):
    """A range kernel that records each call's range (at its first block) and counts the visits of each block."""
    if first < 0:
        on_threads(last)
        return
    ranges[first, 0] = first
    ranges[first, 1] = last
    thread_ids[first] = numba.get_thread_id()
    for block in range(first, last):
        visits[block] += 1


@numba.njit(nogil=True)
def _fail_at(first, last, failing, visits):
    """A range kernel whose range holding block ``failing`` raises, after the other ranges' blocks are visited."""
    if first < 0:
        on_threads(last)
        return
    if first <= failing < last:
        raise ValueError("a range failed")
    for block in range(first, last):
        visits[block] += 1


def _launch_recorded(blocks: int):
    ranges = np.full((blocks, 2), -1, dtype=np.int64)
    visits = np.zeros(blocks, dtype=np.int64)
    thread_ids = np.full(blocks, -1, dtype=np.int64)
    _record_ranges(-1, blocks, ranges, visits, thread_ids)
    called = ranges[:, 0] >= 0
    return ranges[called], visits, thread_ids[called]


@pytest.mark.parametrize("blocks", [1, 2, 7, 64, 1001])
def test_on_threads_runs_every_block_once_in_contiguous_ranges(blocks: int) -> None:
    ranges, visits, _ = _launch_recorded(blocks)
    assert (visits == 1).all()
    assert ranges[0, 0] == 0 and ranges[-1, 1] == blocks
    assert (ranges[1:, 0] == ranges[:-1, 1]).all()  # contiguous, each starting where the previous ended


def test_on_threads_spreads_over_numba_threads_and_runs_alone_with_one() -> None:
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        ranges, visits, _ = _launch_recorded(100)
        assert ranges.tolist() == [[0, 100]] and (visits == 1).all()  # one range, run by the caller
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
        ranges, visits, thread_ids = _launch_recorded(100)
        assert (visits == 1).all()
        if numba.config.NUMBA_NUM_THREADS > 1 and numba.threading_layer() != "tbb":  # tbb may keep one thread
            assert len(ranges) > 1 and len(set(thread_ids.tolist())) > 1
    finally:
        numba.set_num_threads(before)


@pytest.mark.parametrize("failing", [0, 5, 99])
def test_on_threads_raises_a_range_s_exception_after_every_range_is_done(failing: int) -> None:
    visits = np.zeros(100, dtype=np.int64)
    with pytest.raises(ValueError, match="a range failed"):
        _fail_at(-1, 100, failing, visits)
    assert visits[failing] == 0
    assert set(visits.tolist()) <= {0, 1} and visits.sum() >= 100 - 100 // max(1, numba.get_num_threads()) - 1


ALONE_PROGRAM = """
import numba
import numpy as np
from noise_core.threads import on_threads

@numba.njit
def count(first, last, visits):
    if first < 0:
        on_threads(last)
        return
    visits[0] += 1
    visits[1] += last - first

for blocks in (0, 1, 5):
    visits = np.zeros(2, dtype=np.int64)
    count(-1, blocks, visits)
    print(blocks, visits[1], visits[0] >= min(blocks, 1))
"""


def test_on_threads_in_a_fresh_process_starts_the_threading_layer_itself() -> None:
    """A range kernel compiled before any of ``noise_core``'s (so before anything started Numba's threads) links
    against the threading layer's symbols all the same; no blocks is no work, not a crash."""
    done = subprocess.run([sys.executable, "-c", ALONE_PROGRAM], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split("\n")[:3] == ["0 0 True", "1 1 True", "5 5 True"]


def test_on_threads_is_only_for_range_kernels() -> None:
    @numba.njit
    def not_a_range_kernel(blocks):
        on_threads(blocks)

    with pytest.raises(Exception, match="not a range kernel"):
        not_a_range_kernel(3)


def test_derivative_kernels_give_the_same_bits_on_any_thread_count() -> None:
    spec = nc.NoiseSpec(kind="perlin", seed=3, octaves=2)
    points = np.random.default_rng(4).uniform(-5.0, 5.0, (9 * fractal.BLOCK + 17, 3))
    values = nc.evaluate(spec, points)
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
