"""Cell noise (kind "cellular") against a line-by-line port of seed 003's C# generator."""

from __future__ import annotations

import math

import numpy as np
import pytest

import noise_core as nc
from noise_core.cellular import poisson_thresholds

# Sweeps every kernel variant: once per run (scripts/run.sh), the golden digests pin the bits on both Pythons.
pytestmark = pytest.mark.once_per_run

M32 = 0xFFFFFFFF
SEED_TABLE = [393325350, 1022645910, 1861739990, 2700834071, 3372109335, 3819626178, 4075350088, 4203212043]
"""Seed 003's ``probLookup`` thresholds (Mathematica, Poisson mean 4)."""


def _lcg(value: int) -> int:
    return (1103515245 * value + 12345) & M32


def _fnv(*words: int) -> int:
    state = 2166136261
    for word in words:
        state = ((state ^ (word & M32)) * 16777619) & M32
    return state


def _prob_lookup(value: int) -> int:
    for count, threshold in enumerate(SEED_TABLE, start=1):
        if value < threshold:
            return count
    return 9


def _insert(array: list[float], value: float) -> None:
    for i in range(len(array) - 1, -1, -1):
        if value > array[i]:
            break
        temp = array[i]
        array[i] = value
        if i + 1 < len(array):
            array[i + 1] = temp


def seed_cell_noise(point: tuple[float, ...], seed: int, distance) -> list[float]:
    """Seed 003's ``CellNoiseFunc`` in doubles, d = len(point): the three smallest distances."""
    distances = [6666.0] * 3
    home = [math.floor(c) for c in point]
    for offset in np.ndindex(*([3] * len(point))):
        cube = [h + o - 1 for h, o in zip(home, offset, strict=True)]
        last = _lcg(_fnv(cube[0] + seed, *cube[1:]))
        for _ in range(_prob_lookup(last)):
            feature = []
            for c in cube:
                last = _lcg(last)
                feature.append(c + last / 2**32)
            _insert(distances, distance([p - f for p, f in zip(point, feature, strict=True)]))
    return distances


def seed_squared(diff: list[float]) -> float:
    """The seed's ``EuclidianDistanceFunc``: in fact the squared distance."""
    return sum(d * d for d in diff)


def seed_chebyshev(diff: list[float]) -> float:
    return max(abs(d) for d in diff)


def seed_manhattan(diff: list[float]) -> float:
    return sum(abs(d) for d in diff)


HAND_POINTS = [(0.3, 0.7, 0.1), (-2.45, 1.65, -0.9), (13.25, -7.5, 4.125)]
FUNCTIONS = {"f1": lambda d: d[0], "f2": lambda d: d[1], "f3": lambda d: d[2], "f2_minus_f1": lambda d: d[1] - d[0]}


def test_density_4_reproduces_the_seed_threshold_table():
    assert poisson_thresholds(4.0) == SEED_TABLE


@pytest.mark.parametrize(
    ("distance", "dim", "port", "fix"),
    [
        ("squared", 3, seed_squared, lambda d: d),
        ("euclidean", 3, seed_squared, math.sqrt),
        ("euclidean", 2, seed_squared, math.sqrt),
        ("chebyshev", 2, seed_chebyshev, lambda d: d),
        ("manhattan", 2, seed_manhattan, lambda d: d),
    ],
)
def test_matches_a_port_of_the_seed_generator(distance, dim, port, fix):
    points = np.array(HAND_POINTS)[:, :dim]
    for function, combine in FUNCTIONS.items():
        spec = nc.NoiseSpec(kind="cellular", seed=11, frequency=1.0, distance=distance, function=function)
        got = nc.evaluate(spec, points)
        for point, value in zip(points, got, strict=True):
            distances = [fix(d) for d in seed_cell_noise(tuple(point), 11, port)]
            expected = min(max(combine(distances), 0.0), 1.0)
            assert value == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize(
    ("distance", "port", "fix"), [("euclidean", seed_squared, math.sqrt), ("manhattan", seed_manhattan, abs)]
)
@pytest.mark.parametrize("dim", [2, 3])
def test_many_points_match_the_port(distance, port, fix, dim, rng):
    """300 points (two sub-blocks, the second partial) far and near: both the branch-free near-cell search
    and the skipping search of the edge/corner cells give the seed's F1, F2, F3."""
    points = rng.uniform(-40.0, 40.0, size=(300, dim))
    expected = np.array([[fix(d) for d in seed_cell_noise(tuple(p * 2.0), 5, port)] for p in points])
    for index, function in enumerate(("f1", "f2", "f3")):
        spec = nc.NoiseSpec(kind="cellular", seed=5, frequency=2.0, distance=distance, function=function)
        np.testing.assert_allclose(nc.evaluate(spec, points), np.clip(expected[:, index], 0, 1), atol=1e-6)


def test_frequency_scales_the_input():
    point = np.array([[0.3, 0.7, 0.1]])
    spec = nc.NoiseSpec(kind="cellular", seed=3, frequency=2.5)
    expected = math.sqrt(seed_cell_noise((0.75, 1.75, 0.25), 3, seed_squared)[0])
    assert nc.evaluate(spec, point)[0] == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize("dim", [2, 3])
def test_sorted_distances_ranges_and_determinism(dim, points3):
    points = points3[:, :dim]
    f1, f2, f3 = (nc.evaluate(nc.NoiseSpec(kind="cellular", function=f), points) for f in ("f1", "f2", "f3"))
    assert np.all(f1 <= f2) and np.all(f2 <= f3)
    spec = nc.NoiseSpec(kind="cellular", function="f2_minus_f1")
    difference = nc.evaluate(spec, points)
    assert np.all(difference >= 0.0) and np.all(difference <= 1.0)
    assert nc.value_range(spec) == (0.0, 1.0)
    assert np.array_equal(difference, nc.evaluate(spec, points))
    assert not np.array_equal(
        difference, nc.evaluate(nc.NoiseSpec(kind="cellular", function="f2_minus_f1", seed=1), points)
    )
    assert f1.min() >= 0.0 and f3.max() <= 1.0 and f1.max() > 0.3


@pytest.mark.parametrize("dim", [2, 3])
def test_tiling_repeats_every_unit(dim, points3):
    spec = nc.NoiseSpec(kind="cellular", tiling=True, frequency=3.0, octaves=2, function="f2")
    points = points3[:500, :dim]
    values = nc.evaluate(spec, points)
    for axis in range(dim):
        shifted = points.copy()
        shifted[:, axis] -= 1.0
        assert nc.evaluate(spec, shifted) == pytest.approx(values, abs=1e-6)
    assert values.std() > 0.05


def test_f1_is_continuous(rng):
    """F1 is 1-Lipschitz in Euclidean distance: a step of h moves it by at most h * frequency."""
    spec = nc.NoiseSpec(kind="cellular", frequency=4.0)
    start = rng.uniform(-5.0, 5.0, size=(2000, 3))
    step = rng.normal(size=(2000, 3))
    step *= 1e-4 / np.linalg.norm(step, axis=1, keepdims=True)
    change = np.abs(nc.evaluate(spec, start + step) - nc.evaluate(spec, start))
    assert change.max() <= 4.0 * 1e-4 + 1e-6


def test_density_sets_the_feature_point_count(points3):
    """More points per cell bring the nearest one closer: the 2D mean F1 is 1 / (2 sqrt(density))."""
    points = points3[:, :2] * 10.0
    sparse = nc.evaluate(nc.NoiseSpec(kind="cellular", density=0.5, frequency=1.0), points)
    dense = nc.evaluate(nc.NoiseSpec(kind="cellular", density=3.0, frequency=1.0), points)
    assert dense.mean() == pytest.approx(1.0 / (2.0 * math.sqrt(3.0)), rel=0.1)
    assert sparse.mean() > 1.3 * dense.mean()


@pytest.mark.parametrize(
    ("fields", "error", "message"),
    [
        ({"distance": "worley"}, ValueError, "distance: 'worley' is not allowed"),
        ({"function": "cell"}, ValueError, "function: 'cell' is not allowed"),
        ({"density": 0.0}, ValueError, r"density: must be in \(0, 16\]"),
        ({"density": -2.0}, ValueError, r"density: must be in \(0, 16\]"),
        ({"density": 17.0}, ValueError, r"density: must be in \(0, 16\]"),
        ({"density": "four"}, TypeError, "density: expected a number"),
        ({"density": math.nan}, ValueError, "density: must be a finite number"),
        ({"jitter": 0.5}, ValueError, "jitter: not an option of kind 'cellular'"),
        ({"smoothness": 3.0}, ValueError, "smoothness: not an option of kind 'cellular'"),
        ({"tiling": True, "frequency": 2.5}, ValueError, "frequency: tiling needs a whole-number frequency"),
    ],
)
def test_invalid_fields_are_rejected(fields, error, message):
    with pytest.raises(error, match=message):
        nc.NoiseSpec(kind="cellular", **fields)


def test_one_dimensional_points_are_rejected():
    with pytest.raises(ValueError, match="points: kind 'cellular' is defined in 2, 3 dimensions"):
        nc.evaluate(nc.NoiseSpec(kind="cellular"), np.zeros((3, 1)))
