"""The Numba cache follows edits to any module of noise_core, not just the kernel's own file."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import noise_core

PROGRAM = """
import numpy as np, noise_core as nc
from noise_core import fractal
print(float(nc.evaluate(nc.NoiseSpec(kind="value", frequency=1), np.array([[0.3]]))[0]))
print(sum(fractal.kernel_for(0, 1, 0).stats.cache_hits.values()))
"""


def _run(root: Path) -> tuple[float, int]:
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM], cwd=root, capture_output=True, text=True, check=True, env={"PATH": ""}
    )
    value, hits = done.stdout.split()
    return float(value), int(hits)


def test_editing_a_helper_module_recompiles_the_kernel(tmp_path: Path) -> None:
    package = tmp_path / "noise_core"
    shutil.copytree(Path(noise_core.__file__).parent, package, ignore=shutil.ignore_patterns("__pycache__"))
    first, first_hits = _run(tmp_path)
    again, again_hits = _run(tmp_path)
    assert (again, first_hits, again_hits) == (first, 0, 1), "the second run loads the kernel from the cache"

    lattice = package / "lattice.py"
    # Replace the quintic weight by a linear one: only lattice.py changes, not fractal.py.
    lattice.write_text(lattice.read_text().replace("return t * t * t * (t * (t * 6.0 - 15.0) + 10.0)", "return t"))
    edited, edited_hits = _run(tmp_path)
    assert edited_hits == 0, "a stale kernel was loaded from the cache"
    assert edited != first
