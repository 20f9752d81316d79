"""Windows of a global grid (``evaluate_grid(..., window=)``) and tiled bakes on Dask (``noise_core.scale``,
``noise_core.tiled_bake``): bit-identical to one ``evaluate_grid`` call."""

from __future__ import annotations

import numpy as np
import pytest

import noise_core as nc

WINDOW_SPECS = [
    nc.NoiseSpec(kind="value", octaves=3, tiling=True),
    nc.NoiseSpec(kind="perlin", octaves=3, turbulence=True),
    nc.NoiseSpec(kind="perlin", octaves=3, tiling=True),
    nc.NoiseSpec(kind="simplex_value", octaves=2),
    nc.NoiseSpec(kind="simplex", seed=-7, octaves=2),
    nc.NoiseSpec(kind="voronoi", distance="chebyshev", function="f2_minus_f1", jitter=0.5),
    nc.NoiseSpec(kind="voronoi", function="cell", tiling=True),
    nc.NoiseSpec(kind="cellular", distance="manhattan", function="f3", octaves=2),
    nc.NoiseSpec(kind="hill", distribution="weibull", beta=2.0),
]
SHAPE = (45, 61)  # 2745 pixels: three of the kernel's 1024-point blocks, none aligned with a row
WINDOWS = [
    (0, 0, 45, 61),
    (0, 0, 1, 1),
    (44, 60, 1, 1),
    (0, 60, 1, 1),
    (44, 0, 1, 61),
    (0, 60, 45, 1),
    (17, 0, 1, 61),
    (3, 5, 40, 55),
    (30, 41, 15, 20),
]


def _bits(values: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(values).view(np.uint32)


@pytest.mark.parametrize("spec", WINDOW_SPECS, ids=lambda spec: f"{spec.kind}-{spec.distance}-{spec.tiling}")
def test_windows_are_the_full_grid_bit_for_bit(spec: nc.NoiseSpec) -> None:
    full = nc.evaluate_grid(spec, SHAPE)
    rng = np.random.default_rng(15)
    windows = list(WINDOWS)
    for _ in range(12):
        row0, col0 = int(rng.integers(SHAPE[0])), int(rng.integers(SHAPE[1]))
        windows.append(
            (row0, col0, int(rng.integers(1, SHAPE[0] - row0 + 1)), int(rng.integers(1, SHAPE[1] - col0 + 1)))
        )
    for row0, col0, height, width in windows:
        window = nc.evaluate_grid(spec, SHAPE, window=(row0, col0, height, width))
        assert window.shape == (height, width) and window.dtype == np.float32
        np.testing.assert_array_equal(_bits(window), _bits(full[row0 : row0 + height, col0 : col0 + width]))


def test_a_window_of_a_grid_beyond_the_sample_limit() -> None:
    """A 65536² grid is too large for one call, but any window of it is computed as the same pixels."""
    spec = nc.NoiseSpec(octaves=2)
    shape = (1 << 16, 1 << 16)
    corner = nc.evaluate_grid(spec, shape, window=(65534, 65533, 2, 3))
    rows, cols = np.mgrid[65534:65536, 65533:65536]
    points = np.column_stack([(cols.ravel() + 0.5) / 65536, (rows.ravel() + 0.5) / 65536])
    np.testing.assert_array_equal(_bits(corner.ravel()), _bits(nc.evaluate(spec, points)))


@pytest.mark.parametrize(
    ("window", "error", "message"),
    [
        ([0, 0, 1, 1], TypeError, r"window: expected a tuple \(row0, col0, height, width\)"),
        ((0, 0, 1), TypeError, r"window: expected a tuple"),
        ((0, 0, 1.0, 1), TypeError, r"window: expected a tuple"),
        ((0, True, 1, 1), TypeError, r"window: expected a tuple"),
        ((-1, 0, 1, 1), ValueError, r"window: .* must have row0, col0 >= 0, height, width >= 1 and lie inside the 8x6"),
        ((0, 0, 0, 1), ValueError, r"window: .* lie inside"),
        ((0, 0, 9, 1), ValueError, r"window: .* lie inside"),
        ((7, 5, 1, 2), ValueError, r"window: .* lie inside"),
    ],
)
def test_bad_windows(window: object, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        nc.evaluate_grid(nc.NoiseSpec(), (8, 6), window=window)  # type: ignore[arg-type]


def test_window_sample_limit_applies_to_the_window() -> None:
    with pytest.raises(ValueError, match=r"window: 32768x32768 exceeds the limit"):
        nc.evaluate_grid(nc.NoiseSpec(), (1 << 16, 1 << 16), window=(0, 0, 1 << 15, 1 << 15))
