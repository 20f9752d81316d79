"""Golden outputs of the octave fold: the sha256 of every fractal mode through the point, grid and derivative kernels.

``test_golden`` pins fBm (and ridged 4D); this pins the rest of ``fractal_modes``: fBm, turbulence,
multifractal, hetero_terrain, hybrid (also with its early stop) and ridged, through the point kernels
(``evaluate`` on float32 and float64 points), both grid kernels (``evaluate_grid``: the separable one for Perlin,
the point kernels in grid mode for simplex) and the value-and-gradient kernels (``derivatives=True``). The sizes
cross the kernels' block boundaries (``blocks.BLOCK`` points, ``grid_kernels.STRIP`` columns,
``derivatives.DERIVATIVE_BLOCK`` points) with a partial last block. The kinds and dimensions are those the
other tests compile too (Perlin 2D/3D, simplex 2D), so the suite compiles few extra kernels.

Like ``test_golden``'s, the digests are exact bits on a CPU with fused multiply-add (the same compiled for
x86-64 with AVX-512 and for AVX2 only); without FMA the sums round differently (docs/noise-library.md, Precision).

The digests are in ``golden_modes.json`` beside this file. What the kernels compute may not change unless
they are deliberately regenerated, with the reason in the commit message::

    PYTHONPATH=. python -m tests.test_golden_modes --update
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import noise_core as nc
from noise_core.blocks import BLOCK
from noise_core.derivatives import DERIVATIVE_BLOCK
from noise_core.grid_kernels import STRIP
from noise_core.io.files import replacing

GOLDEN_FILE = Path(__file__).with_name("golden_modes.json")

BASE = {"octaves": 5, "seed": -5, "lacunarity": 2.1, "persistence": 0.55, "frequency": 2.5}
MODES = {
    "fbm": {},
    "turbulence": {"turbulence": True},
    "multifractal": {"fractal": "multifractal"},
    "hetero_terrain": {"fractal": "hetero_terrain", "offset": 0.3},
    "hybrid": {"fractal": "hybrid", "offset": 0.7, "gain": 2.0},
    "hybrid_stop": {"fractal": "hybrid", "offset": 0.25, "gain": 4.0},  # weights fall below 0.001: octaves skipped
    "ridged": {"fractal": "ridged", "offset": 1.0, "gain": 2.0},
}
POINT_KINDS = (("perlin", 2), ("simplex", 2), ("perlin", 3))
GRID_KINDS = ("perlin", "simplex")  # evaluate_grid: the separable kernel, the point kernels in grid mode
GRID_SHAPES = ((61, 67), (3, STRIP + 4))  # 4087 pixels: two blocks, split mid-row; two strips
DERIVATIVE_CASES = (
    ("perlin", 2, ("fbm", "turbulence", "hybrid", "ridged")),
    ("perlin", 3, ("fbm", "multifractal", "hetero_terrain")),
)
POINT_COUNT = BLOCK + 452  # two blocks, the second partial
DERIVATIVE_COUNT = 2 * DERIVATIVE_BLOCK + 60


def _points(dim: int, count: int) -> np.ndarray:
    return np.random.default_rng(2800 + dim).uniform(-3.0, 3.0, size=(count, dim))


def _spec(kind: str, mode: str) -> nc.NoiseSpec:
    return nc.NoiseSpec(kind=kind, **BASE, **MODES[mode])


def _on_points(kind: str, dim: int, mode: str) -> list[np.ndarray]:
    spec, points = _spec(kind, mode), _points(dim, POINT_COUNT)
    return [nc.evaluate(spec, points.astype(np.float32)), nc.evaluate(spec, points)]


def _on_grid(kind: str, mode: str) -> list[np.ndarray]:
    return [nc.evaluate_grid(_spec(kind, mode), shape) for shape in GRID_SHAPES]


def _derivatives(kind: str, dim: int, mode: str) -> list[np.ndarray]:
    return [nc.evaluate(_spec(kind, mode), _points(dim, DERIVATIVE_COUNT), derivatives=True)]


CASES: dict[str, Callable[[], list[np.ndarray]]] = {}
for _mode in MODES:
    for _kind, _dim in POINT_KINDS:
        CASES[f"points:{_kind}:{_dim}d:{_mode}"] = lambda k=_kind, d=_dim, m=_mode: _on_points(k, d, m)
    for _kind in GRID_KINDS:
        CASES[f"grid:{_kind}:2d:{_mode}"] = lambda k=_kind, m=_mode: _on_grid(k, m)
for _kind, _dim, _modes in DERIVATIVE_CASES:
    for _mode in _modes:
        CASES[f"derivatives:{_kind}:{_dim}d:{_mode}"] = lambda k=_kind, d=_dim, m=_mode: _derivatives(k, d, m)


def digest(case: str) -> str:
    """sha256 of the case's outputs (float32 arrays, C order), one after the other."""
    outputs = CASES[case]()
    assert all(output.dtype == np.float32 and np.isfinite(output).all() for output in outputs), case
    return hashlib.sha256(b"".join(output.tobytes() for output in outputs)).hexdigest()


def _golden() -> dict[str, str]:
    return json.loads(GOLDEN_FILE.read_text(encoding="utf-8"))


def test_every_case_is_pinned() -> None:
    assert sorted(_golden()) == sorted(CASES)


@pytest.mark.parametrize("case", CASES)
def test_golden_mode(case: str) -> None:
    assert digest(case) == _golden()[case], f"{case}: output changed (regenerate only on purpose: see the docstring)"


def main() -> None:
    parser = argparse.ArgumentParser(description="Check, or with --update rewrite, the pinned fractal-mode digests.")
    parser.add_argument("--update", action="store_true", help=f"write every case's digest to {GOLDEN_FILE.name}")
    arguments = parser.parse_args()
    digests = {case: digest(case) for case in CASES}
    if arguments.update:
        with replacing(GOLDEN_FILE) as temporary:
            temporary.write_text(json.dumps(digests, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote {len(digests)} digests to {GOLDEN_FILE}")
        return
    changed = sorted(case for case, value in digests.items() if _golden().get(case) != value)
    print(f"{len(digests) - len(changed)} of {len(digests)} digests as pinned; changed: {changed or 'none'}")


if __name__ == "__main__":
    main()
