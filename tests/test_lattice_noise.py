"""Value and Perlin noise: seed-exact values, ranges, continuity, tiling, fractal sums."""

from __future__ import annotations

import numba
import numpy as np
import pytest

import noise_core as nc

from . import reference

GRADIENTS = {"value": reference.value_gradient, "perlin": reference.perlin_gradient}
KINDS = tuple(GRADIENTS)
DIMS = (1, 2, 3)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dim", DIMS)
def test_matches_pure_python_port_of_the_seed(kind: str, dim: int, points3: np.ndarray) -> None:
    spec = nc.NoiseSpec(kind=kind, seed=7, frequency=3.0, octaves=3, lacunarity=2.0, persistence=0.5)
    points = points3[:24, :dim]
    got = nc.evaluate(spec, points)
    expected = [reference.fractal(GRADIENTS[kind], 7, tuple(p), 3.0, 3, 2.0, 0.5) for p in points]
    np.testing.assert_allclose(got, expected, rtol=0, atol=2e-6)


@pytest.mark.parametrize("dim", DIMS)
def test_value_noise_at_lattice_points_is_the_hash_value(dim: int) -> None:
    # At a lattice point every blend weight is 0 or 1: the value is Floats01A * 2 - 1 of that point.
    lattice = np.array([[-2, 5, 1], [0, 0, 0], [3, -7, 4]])[:, :dim]
    spec = nc.NoiseSpec(kind="value", seed=11, frequency=1.0)
    got = nc.evaluate(spec, lattice.astype(np.float64))
    expected = [(reference.hash_of(11, *p) & 255) / 255 * 2 - 1 for p in lattice.tolist()]
    np.testing.assert_allclose(got, expected, atol=1e-7)


@pytest.mark.parametrize("dim", DIMS)
def test_perlin_noise_vanishes_at_lattice_points(dim: int, rng: np.random.Generator) -> None:
    lattice = rng.integers(-50, 50, size=(64, dim)).astype(np.float64)
    np.testing.assert_array_equal(nc.evaluate(nc.NoiseSpec(kind="perlin", frequency=1), lattice), 0.0)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dim", DIMS)
def test_range(kind: str, dim: int, rng: np.random.Generator) -> None:
    points = rng.uniform(-40, 40, size=(200_000, dim))
    values = nc.evaluate(nc.NoiseSpec(kind=kind, frequency=1.0), points)
    assert values.min() >= -1.0 and values.max() <= 1.0
    assert values.max() - values.min() > 1.0, "noise should use most of its range"
    turbulent = nc.evaluate(nc.NoiseSpec(kind=kind, frequency=1.0, octaves=3, turbulence=True), points)
    assert turbulent.min() >= 0.0 and turbulent.max() <= 1.0


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dim", DIMS)
@pytest.mark.parametrize("origin", [0.0, 1e5])
def test_continuity(kind: str, dim: int, origin: float, rng: np.random.Generator) -> None:
    # Each octave's slope is at most ~4 lattice units per unit of noise; a step h of the input moves
    # the fractal sum by at most (sum of amplitude*frequency/sum of amplitudes) * 4 * h.
    spec = nc.NoiseSpec(kind=kind, frequency=4.0, octaves=4)
    h = 1e-5
    points = origin + rng.uniform(-2, 2, size=(20_000, dim))
    step = np.zeros(dim)
    step[-1] = h
    difference = np.abs(nc.evaluate(spec, points + step).astype(np.float64) - nc.evaluate(spec, points))
    weights = 0.5 ** np.arange(4)
    bound = 4.0 * float(np.sum(weights * 4.0 * 2.0 ** np.arange(4)) / np.sum(weights)) * h
    assert difference.max() <= bound + 2e-7  # plus float32 output rounding


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dim", DIMS)
def test_tiling_has_period_one(kind: str, dim: int, rng: np.random.Generator) -> None:
    spec = nc.NoiseSpec(kind=kind, frequency=3, octaves=3, lacunarity=3, tiling=True)
    points = rng.uniform(-1, 1, size=(5000, dim))
    base = nc.evaluate(spec, points)
    for axis in range(dim):
        for shift in (-2.0, 1.0, 3.0):
            moved = points.copy()
            moved[:, axis] += shift
            np.testing.assert_allclose(nc.evaluate(spec, moved), base, atol=2e-6)
    untiled = nc.evaluate(nc.NoiseSpec(kind=kind, frequency=3, octaves=3, lacunarity=3), points + 1.0)
    assert np.abs(untiled - base).max() > 0.1


def test_tiled_grid_wraps_seamlessly() -> None:
    spec = nc.NoiseSpec(kind="perlin", frequency=4, octaves=5, tiling=True)
    image = nc.evaluate_grid(spec, (64, 48))
    # Across the seam the step is the same size as any other step between neighbouring pixels.
    inner = np.abs(np.diff(image, axis=1)).max()
    seam = np.abs(image[:, 0] - image[:, -1]).max()
    assert seam <= inner * 1.01
    # The pixel after the last column is the first column again.
    after = np.column_stack([(np.full(64, 48) + 0.5) / 48, (np.arange(64) + 0.5) / 64])
    np.testing.assert_allclose(nc.evaluate(spec, after), image[:, 0], atol=2e-6)


def test_evaluate_grid_is_evaluate_at_pixel_centres() -> None:
    spec = nc.NoiseSpec(kind="value", seed=3, octaves=2)
    image = nc.evaluate_grid(spec, (5, 7))
    rows, cols = np.mgrid[0:5, 0:7]
    points = np.column_stack([(cols.ravel() + 0.5) / 7, (rows.ravel() + 0.5) / 5])
    np.testing.assert_array_equal(image.ravel(), nc.evaluate(spec, points))
    assert image.dtype == np.float32 and image.shape == (5, 7)


@pytest.mark.parametrize("kind", KINDS)
def test_fractal_sum_is_the_weighted_mean_of_its_octaves(kind: str, points3: np.ndarray) -> None:
    spec = nc.NoiseSpec(kind=kind, seed=5, frequency=1.5, octaves=4, lacunarity=2.5, persistence=0.6, turbulence=True)
    octaves = [
        np.abs(nc.evaluate(nc.NoiseSpec(kind=kind, seed=5 + o, frequency=1.5 * 2.5**o), points3).astype(np.float64))
        for o in range(4)
    ]
    weights = 0.6 ** np.arange(4)
    expected = np.tensordot(weights, np.array(octaves), axes=1) / weights.sum()
    np.testing.assert_allclose(nc.evaluate(spec, points3), expected, atol=2e-6)


def test_same_seed_same_bits_across_thread_counts(points3: np.ndarray) -> None:
    spec = nc.NoiseSpec(kind="perlin", seed=42, octaves=5)
    many = np.tile(points3, (8, 1))
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        single = nc.evaluate(spec, many)
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
        parallel = nc.evaluate(spec, many)
    finally:
        numba.set_num_threads(before)
    np.testing.assert_array_equal(single, parallel)
    np.testing.assert_array_equal(nc.evaluate(spec, many), parallel)


@pytest.mark.parametrize("kind", KINDS)
def test_different_seeds_differ(kind: str, points3: np.ndarray) -> None:
    a = nc.evaluate(nc.NoiseSpec(kind=kind, seed=1), points3)
    b = nc.evaluate(nc.NoiseSpec(kind=kind, seed=2), points3)
    assert np.mean(np.abs(a - b)) > 0.05


def test_float32_and_float64_points_agree(points3: np.ndarray) -> None:
    spec = nc.NoiseSpec(kind="perlin", octaves=3)
    single = points3.astype(np.float32)
    np.testing.assert_array_equal(nc.evaluate(spec, single), nc.evaluate(spec, single.astype(np.float64)))
    # Rounding the input to float32 (error <= 2.4e-7 here) moves the noise by less than its slope allows.
    np.testing.assert_allclose(nc.evaluate(spec, single), nc.evaluate(spec, points3), atol=2e-5)


def test_non_contiguous_points(points3: np.ndarray) -> None:
    spec = nc.NoiseSpec(kind="value")
    strided = np.asfortranarray(points3)[::2, :2]
    np.testing.assert_array_equal(nc.evaluate(spec, strided), nc.evaluate(spec, np.ascontiguousarray(strided)))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dim", (2, 3))
@pytest.mark.parametrize("tiling", (False, True))
def test_block_sampler_equals_the_pointwise_noise(kind: str, dim: int, tiling: bool, rng: np.random.Generator) -> None:
    """2D/3D lattice noise is computed per block in passes (lattice points, hashes, blends): same bits as per point."""
    from noise_core.fractal import BLOCK
    from noise_core.gradients import PERLIN, VALUE
    from noise_core.lattice_noise import lattice_2d, lattice_3d
    from noise_core.ranges import float32_range

    points = rng.uniform(-50.0, 50.0, (2 * BLOCK + 452, dim))  # three blocks, the last one partial
    points[:100] = np.round(points[:100])  # on lattice lines, where a span's p1 wraps when tiling
    spec = nc.NoiseSpec(kind=kind, seed=11, frequency=5.0, tiling=tiling)
    gradient = VALUE if kind == "value" else PERLIN
    period = 5.0 if tiling else 0.0
    pointwise = lattice_2d if dim == 2 else lattice_3d
    expected = np.array([pointwise(gradient, *p, 11, 5.0, period) for p in points], dtype=np.float32)
    # evaluate clamps to the documented range, the point function does not: value noise at a lattice point whose
    # hash byte is 255 is fma(255, float32(2/255), -1) = 1.0000001 (the rounded points hit such corners).
    np.testing.assert_array_equal(nc.evaluate(spec, points), np.clip(expected, *float32_range(spec)))
