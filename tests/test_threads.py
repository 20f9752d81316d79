"""Evaluating from several Python threads at once is safe under every Numba threading layer.

Numba's ``workqueue`` layer aborts the whole process ("Concurrent access has been detected", exit 134)
when two threads launch parallel kernels at the same time; ``noise_core`` serialises launches unless the
layer is known to allow them. The layer is fixed per process, so each case runs in a subprocess.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

PROGRAM = """
import threading
import numba
import numpy as np
import noise_core as nc

spec = nc.NoiseSpec(kind="perlin", octaves=3)
rng = np.random.default_rng(0)
points = [rng.random((100_000, 3)) for _ in range(4)]
nc.precompile(spec, 3)  # so that the first launches of all threads overlap (no launch has chosen the layer yet)
results = [[] for _ in points]

def work(index):
    for _ in range(10):
        results[index].append(nc.evaluate(spec, points[index]))

threads = [threading.Thread(target=work, args=(index,)) for index in range(len(points))]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
expected = [nc.evaluate(spec, p) for p in points]
same = all(np.array_equal(r, e) for runs, e in zip(results, expected) for r in runs)
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
