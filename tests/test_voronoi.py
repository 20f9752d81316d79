"""Voronoi noise (seed 000): seed-exact values, ranges, continuity, tiling, jitter, cells, errors."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import noise_core as nc
from noise_core import voronoi

from . import reference

# Sweeps every kernel variant: once per run (scripts/run.sh), the golden digests pin the bits on both Pythons.
pytestmark = pytest.mark.once_per_run

METRICS = ("worley", "chebyshev", "squared", "manhattan")
FUNCTIONS = ("f1", "f2", "f2_minus_f1", "cell")
DIMS = (1, 2, 3)


def _cell_points(h: int, dim: int, jitter: float) -> list[tuple[float, ...]]:
    """The seed's points of a cell with finished hash ``h``, pulled toward their anchors by ``jitter``."""
    if dim == 1:
        offsets, anchors = [(reference.floats01(h, 0),)], [0.5]
    elif dim == 2:
        offsets = [
            (reference.floats01(h, 0), reference.floats01(h, 1)),
            (reference.floats01(h, 2), reference.floats01(h, 3)),
        ]
        anchors = [0.25, 0.75]
    else:
        bits = [((h >> shift) & 31) / 31 for shift in (0, 5, 10, 15, 20, 25)]
        offsets, anchors = [tuple(bits[:3]), tuple(bits[3:])], [0.25, 0.75]
    return [tuple(r * jitter + a * (1 - jitter) for r in point) for point, a in zip(offsets, anchors, strict=True)]


def _distance(metric: str, offset: list[float]) -> float:
    if metric == "chebyshev":
        return max(abs(o) for o in offset)
    if metric == "manhattan":
        return sum(abs(o) for o in offset)
    squared = sum(o * o for o in offset)
    return squared if metric == "squared" or len(offset) > 1 else abs(offset[0])


def voronoi_reference(metric, function, seed, point, frequency, period=0, jitter=1.0) -> float:
    """Seed 000: search the 3^d cells around the sample, keep F1 <= F2 (from 2), clamp to 1, root Worley."""
    cells, fractions = [], []
    for c in point:
        floor = math.floor(c * frequency)
        cells.append(floor % period if period else floor)
        fractions.append(c * frequency - floor)
    f1 = f2 = 2.0
    nearest = (0, 0)
    for step in itertools.product((-1, 0, 1), repeat=len(point)):
        lattice = [p + s for p, s in zip(cells, step, strict=True)]
        if period:
            lattice = [0 if q == period else period - 1 if q == -1 else q for q in lattice]
        h = reference.hash_of(seed, *lattice)
        for n, offset in enumerate(_cell_points(h, len(point), jitter)):
            d = _distance(metric, [r + (s - g) for r, s, g in zip(offset, step, fractions, strict=True)])
            if d < f1:
                f1, f2, nearest = d, f1, (h, n)
            elif d < f2:
                f2 = d
    f1, f2 = min(f1, 1.0), min(f2, 1.0)
    if metric == "worley" and len(point) > 1:
        f1, f2 = math.sqrt(f1), math.sqrt(f2)
    cell = (reference.avalanche(reference.eat(*nearest)) >> 8) / 2**24
    return {"f1": f1, "f2": f2, "f2_minus_f1": f2 - f1, "cell": cell}[function]


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("dim", DIMS)
def test_matches_pure_python_port_of_the_seed(metric: str, dim: int, points3: np.ndarray) -> None:
    points = points3[:12, :dim]
    for function, tiling in itertools.product(FUNCTIONS, (False, True)):
        spec = nc.NoiseSpec(kind="voronoi", distance=metric, function=function, seed=7, frequency=3.0, tiling=tiling)
        expected = [voronoi_reference(metric, function, 7, tuple(p), 3.0, 3 if tiling else 0) for p in points]
        np.testing.assert_allclose(nc.evaluate(spec, points), expected, rtol=0, atol=1e-6, err_msg=function)


def test_two_octaves_and_jitter_match_the_port(points3: np.ndarray) -> None:
    points = points3[:12, :2]
    spec = nc.NoiseSpec(kind="voronoi", function="f2_minus_f1", seed=-4, frequency=2.0, octaves=2, jitter=0.4)
    expected = [
        (
            voronoi_reference("worley", "f2_minus_f1", -4, p, 2.0, jitter=0.4)
            + 0.5 * voronoi_reference("worley", "f2_minus_f1", -3, p, 4.0, jitter=0.4)
        )
        / 1.5
        for p in map(tuple, points)
    ]
    np.testing.assert_allclose(nc.evaluate(spec, points), expected, rtol=0, atol=1e-6)


def test_1d_feature_by_hand() -> None:
    # Sample at x = 0.5 (frequency 1) sees the points of spans -1, 0, 1 at -1 + A(-1), A(0), 1 + A(1).
    seed = 9
    a = {i: reference.floats01(reference.hash_of(seed, i), 0) for i in (-1, 0, 1)}
    distances = sorted([abs(-1 + a[-1] - 0.5), abs(a[0] - 0.5), abs(1 + a[1] - 0.5)])
    values = [
        nc.evaluate(nc.NoiseSpec(kind="voronoi", seed=seed, frequency=1.0, function=f), np.array([[0.5]]))[0]
        for f in ("f1", "f2")
    ]
    np.testing.assert_allclose(values, [distances[0], min(distances[1], 1.0)], atol=1e-7)


@pytest.mark.parametrize("dim", DIMS)
def test_zero_jitter_is_a_regular_lattice(dim: int, rng: np.random.Generator) -> None:
    # jitter=0: points at cell centres (1D), at (1/4, 1/4) and (3/4, 3/4) (+ 1/4 or 3/4 in z) per cell (2D/3D):
    # F1 is the distance to that lattice, whatever the seed.
    points = rng.uniform(-3, 3, size=(2000, dim))
    spec = nc.NoiseSpec(kind="voronoi", seed=1, frequency=2.0, jitter=0.0)
    values = nc.evaluate(spec, points)
    np.testing.assert_array_equal(
        values, nc.evaluate(nc.NoiseSpec(kind="voronoi", seed=2, frequency=2.0, jitter=0.0), points)
    )
    scaled = points * 2.0
    if dim == 1:
        expected = np.abs(scaled[:, 0] - np.floor(scaled[:, 0]) - 0.5)
    else:
        # The nearest point of the cubic lattice Z^d + a rounds every axis; F1 takes the nearer of a = 1/4, 3/4.
        nearest = [np.floor(scaled - a + 0.5) + a for a in (0.25, 0.75)]
        expected = np.min([np.linalg.norm(scaled - p, axis=1) for p in nearest], axis=0)
    np.testing.assert_allclose(values, expected, atol=1e-6)


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("dim", DIMS)
def test_ranges_and_ordering(metric: str, dim: int, rng: np.random.Generator) -> None:
    points = rng.uniform(-20, 20, size=(40_000, dim))
    values = {
        f: nc.evaluate(nc.NoiseSpec(kind="voronoi", distance=metric, function=f, frequency=1.0), points)
        for f in FUNCTIONS
    }
    for function, v in values.items():
        assert v.min() >= 0.0 and v.max() <= 1.0, function
        assert nc.value_range(nc.NoiseSpec(kind="voronoi", distance=metric, function=function)) == (0.0, 1.0)
    assert np.all(values["f1"] <= values["f2"])
    np.testing.assert_allclose(values["f2_minus_f1"], values["f2"] - values["f1"], atol=1e-6)
    assert values["cell"].max() < 1.0 and np.unique(values["cell"]).size >= 30 * dim  # 40^d cells, 1-2 points each
    assert values["f1"].max() - values["f1"].min() > 0.4


def test_1d_worley_chebyshev_and_manhattan_are_the_same_noise(points3: np.ndarray) -> None:
    points = points3[:, :1]
    for function in ("f1", "f2"):
        worley = nc.evaluate(nc.NoiseSpec(kind="voronoi", function=function), points)
        for metric in ("chebyshev", "manhattan"):
            other = nc.evaluate(nc.NoiseSpec(kind="voronoi", distance=metric, function=function), points)
            np.testing.assert_array_equal(worley, other)


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("dim", DIMS)
def test_continuity(metric: str, dim: int, rng: np.random.Generator) -> None:
    # After the clamp to 1 every searched F1/F2 is the exact one (a point outside the 3^d block is at least
    # 1 away), so F1 and F2 are continuous: a step h along one axis moves them by at most frequency * h
    # (2 frequency h for squared distances below 1), F2 - F1 by twice that. "cell" is piecewise constant.
    frequency, step = 3.0, 1e-4
    slope = frequency * (2.0 if metric == "squared" else 1.0)
    points = rng.uniform(-5, 5, size=(20_000, dim))
    for function, bound in (("f1", slope), ("f2", slope), ("f2_minus_f1", 2 * slope)):
        spec = nc.NoiseSpec(kind="voronoi", distance=metric, function=function, frequency=frequency)
        base = nc.evaluate(spec, points)
        for axis in range(dim):
            moved = points.copy()
            moved[:, axis] += step
            jump = np.abs(nc.evaluate(spec, moved) - base).max()
            assert jump <= bound * step + 1e-6, f"{function} axis {axis}: jump {jump}"


def test_cell_values_are_constant_inside_cells(rng: np.random.Generator) -> None:
    spec = nc.NoiseSpec(kind="voronoi", function="cell", frequency=3.0)
    points = rng.uniform(-5, 5, size=(20_000, 2))
    base = nc.evaluate(spec, points)
    moved = nc.evaluate(spec, points + 1e-4)
    changed = base != moved
    assert 0 < changed.mean() < 0.01, "a tiny step should cross a cell edge only rarely"
    edges = nc.evaluate(nc.NoiseSpec(kind="voronoi", function="f2_minus_f1", frequency=3.0), points[changed])
    assert edges.max() < 1e-3, "cell values change only across Voronoi edges (where F1 = F2)"


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("dim", DIMS)
def test_tiling_has_period_one(metric: str, dim: int, rng: np.random.Generator) -> None:
    points = rng.uniform(-2, 2, size=(2000, dim))
    for function in FUNCTIONS:
        spec = nc.NoiseSpec(kind="voronoi", distance=metric, function=function, frequency=3.0, octaves=2, tiling=True)
        base = nc.evaluate(spec, points)
        for axis in range(dim):
            moved = points.copy()
            moved[:, axis] += 1.0
            np.testing.assert_allclose(nc.evaluate(spec, moved), base, atol=1e-6, err_msg=f"{function} axis {axis}")


def test_tiled_grid_wraps_seamlessly() -> None:
    spec = nc.NoiseSpec(kind="voronoi", function="f2_minus_f1", frequency=4.0, octaves=2, tiling=True)
    height, width = 48, 64
    image = nc.evaluate_grid(spec, (height, width))
    xs, ys = nc.api.grid_coordinates((height, width))
    shifted = nc.evaluate(spec, np.column_stack([xs + 1.0, ys - 1.0]))
    np.testing.assert_allclose(shifted.reshape(height, width), image, atol=1e-6)
    # Across the seam the pixels are one pixel apart: F2 - F1 moves at most 2 * (4 + 0.5 * 8) / 1.5 per unit.
    slope = 2 * (4.0 + 0.5 * 8.0) / 1.5
    assert np.abs(image[:, 0] - image[:, -1]).max() <= slope / width + 1e-6
    assert np.abs(image[0, :] - image[-1, :]).max() <= slope / height + 1e-6


def test_deterministic_and_seeded(points3: np.ndarray) -> None:
    spec = nc.NoiseSpec(kind="voronoi", seed=3)
    first = nc.evaluate(spec, points3)
    np.testing.assert_array_equal(first, nc.evaluate(spec, points3))
    other = nc.evaluate(nc.NoiseSpec(kind="voronoi", seed=4), points3)
    assert np.mean(first != other) > 0.99


def test_default_jitter_is_the_seed_placement(points3: np.ndarray) -> None:
    seeded = nc.evaluate(nc.NoiseSpec(kind="voronoi", seed=5), points3)
    np.testing.assert_array_equal(seeded, nc.evaluate(nc.NoiseSpec(kind="voronoi", seed=5, jitter=1.0), points3))
    assert np.any(seeded != nc.evaluate(nc.NoiseSpec(kind="voronoi", seed=5, jitter=0.5), points3))


def test_codes_cover_the_spec_choices() -> None:
    option = voronoi.KIND.option
    assert option("distance").choices == tuple(voronoi.METRIC_CODES)  # type: ignore[union-attr]
    assert option("function").choices == tuple(voronoi.FUNCTION_CODES)  # type: ignore[union-attr]
    defaults = nc.NoiseSpec(kind="voronoi")
    assert (defaults.distance, defaults.function, defaults.jitter) == ("worley", "f1", 1.0)


@pytest.mark.parametrize(
    ("fields", "error", "message"),
    [
        ({"distance": "euclidean"}, ValueError, "distance: 'euclidean' is not allowed; choose one of 'worley'"),
        ({"function": "f3"}, ValueError, "function: 'f3' is not allowed; choose one of 'f1'"),
        ({"jitter": 1.5}, ValueError, "jitter: must be between 0 and 1"),
        ({"jitter": -0.1}, ValueError, "jitter: must be between 0 and 1"),
        ({"jitter": "high"}, TypeError, "jitter: expected a number"),
        ({"density": 2.0}, ValueError, "density: not an option of kind 'voronoi'"),
        ({"tiling": True, "frequency": 2.5}, ValueError, "frequency: tiling needs a whole-number frequency"),
        ({"kind": "perlin", "function": "f2"}, ValueError, "function: not an option of kind 'perlin'"),
        ({"kind": "value", "distance": "worley"}, ValueError, "distance: not an option of kind 'value'"),
        ({"kind": "perlin", "jitter": 0.5}, ValueError, "jitter: not an option of kind 'perlin'"),
    ],
)
def test_invalid_combinations_are_rejected(fields: dict, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=f"^{message}"):
        nc.NoiseSpec(**{"kind": "voronoi", **fields})


def test_fractal_rounding_never_leaves_the_range() -> None:
    """float32 rounding of the weighted sum and its scale stepped to 1.0000001; the kernel clamps to value_range."""
    spec = nc.NoiseSpec(kind="voronoi", function="f2", octaves=2, persistence=0.0249985)
    assert nc.evaluate(spec, np.array([[2.0216]]))[0] <= 1.0
    spec3 = nc.NoiseSpec(kind="voronoi", function="f2", distance="manhattan", octaves=15, lacunarity=0.5)
    values = nc.evaluate(spec3, np.random.default_rng(0).uniform(-20.0, 20.0, (20000, 3)))
    assert values.max() <= 1.0 and values.min() >= 0.0
