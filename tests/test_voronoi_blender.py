"""Voronoi's Blender functions (smooth F1, distance to edge, n-sphere radius) and the Minkowski metric, against
plain-Python ports on our lattice: exact values, the documented range, limits, tiling, octaves and errors."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import noise_core as nc

from . import reference
from .test_voronoi import _cell_points

RINGS = 3


def _split(point, frequency, period):
    cells, fractions = [], []
    for c in point:
        floor = math.floor(c * frequency)
        cells.append(floor % period if period else floor)
        fractions.append(c * frequency - floor)
    return cells, fractions


def _ring_order(dim: int):
    """The cells in the order of the search: the 3^d block (x fastest), then the shells of 5^d and 7^d."""
    for ring in range(1, RINGS + 1):
        side = range(-ring, ring + 1)
        for step in itertools.product(side, repeat=dim):
            step = step[::-1]  # product varies the last fastest; x is the fastest here
            if ring == 1 or max(map(abs, step)) == ring:
                yield step


def _points(seed, point, frequency, period, jitter):
    """Every feature point of the 7^d block as (vector from the sample, cell hash, index), in search order."""
    cells, fractions = _split(point, frequency, period)
    for step in _ring_order(len(point)):
        lattice = [p + s for p, s in zip(cells, step, strict=True)]
        if period:
            lattice = [q % period for q in lattice]
        h = reference.hash_of(seed, *lattice)
        for n, offset in enumerate(_cell_points(h, len(point), jitter)):
            yield [r + (s - g) for r, s, g in zip(offset, step, fractions, strict=True)], h, n


def minkowski(vector, p):
    return sum(abs(d) ** p for d in vector) ** (1.0 / p)


def smooth_f1_reference(seed, point, frequency, smoothing, period=0, jitter=1.0, metric=None):
    """Blender's ``voronoi_smooth_f1`` loop (k = smoothing / 2) over every point of the 7^d block, in order."""
    k = smoothing / 2
    distance = metric or (lambda v: math.sqrt(sum(d * d for d in v)))
    smooth, first = 0.0, True
    for vector, _, _ in _points(seed, point, frequency, period, jitter):
        d = min(distance(vector), 8.0)
        if first:
            h = 1.0
        else:
            t = min(max(0.5 + 0.5 * (smooth - d) / k, 0.0), 1.0)
            h = t * t * (3 - 2 * t)
        smooth = smooth + (d - smooth) * h - k * h * (1 - h)
        first = False
    return min(max(smooth, 0.0), 1.0)


def edge_reference(seed, point, frequency, period=0, jitter=1.0):
    """Distance to the nearest Voronoi cell boundary: the nearest bisector over every point of the 7^d block."""
    vectors = [v for v, _, _ in _points(seed, point, frequency, period, jitter)]
    nearest = min(vectors, key=lambda v: sum(d * d for d in v))
    best = math.inf
    for q in vectors:
        e = [a - b for a, b in zip(q, nearest, strict=True)]
        apart = math.sqrt(sum(d * d for d in e))
        if apart > 1e-9:
            best = min(best, sum((a + b) * d for a, b, d in zip(nearest, q, e, strict=True)) / (2 * apart))
    return min(best, 1.0)


def n_sphere_reference(seed, point, frequency, period=0, jitter=1.0):
    """Half the distance from the nearest point to its own nearest other point (every point of the 7^d block)."""
    vectors = [v for v, _, _ in _points(seed, point, frequency, period, jitter)]
    nearest = min(vectors, key=lambda v: sum(d * d for d in v))
    apart = [math.dist(q, nearest) for q in vectors]
    return min(min(a for a in apart if a > 1e-9) / 2, 1.0)


def minkowski_reference(function, seed, point, frequency, p, period=0, jitter=1.0):
    """F1, F2, F2 - F1 of the Minkowski distance over the 3^d block (the seed's search), clamped to 1."""
    block = 3 ** len(point) * (1 if len(point) == 1 else 2)
    distances = sorted(
        minkowski(v, p) for v, _, _ in itertools.islice(_points(seed, point, frequency, period, jitter), block)
    )
    f1, f2 = min(distances[0], 1.0), min(distances[1], 1.0)
    return {"f1": f1, "f2": f2, "f2_minus_f1": f2 - f1}[function]


@pytest.fixture(scope="module")
def samples() -> np.ndarray:
    return np.random.default_rng(34).uniform(-3.0, 3.0, size=(40, 3))


@pytest.mark.parametrize("dim", (1, 2, 3))
@pytest.mark.parametrize("tiling", (False, True))
def test_smooth_f1_matches_blenders_loop(dim: int, tiling: bool, samples: np.ndarray) -> None:
    points = samples[:, :dim]
    for smoothing, jitter in ((1.0, 1.0), (0.3, 0.7)):
        spec = nc.NoiseSpec(
            kind="voronoi", function="smooth_f1", smoothing=smoothing, jitter=jitter, seed=5, frequency=2.0,
            tiling=tiling,
        )  # fmt: skip
        period = 2 if tiling else 0
        expected = [smooth_f1_reference(5, tuple(p), 2.0, smoothing, period, jitter) for p in points]
        np.testing.assert_allclose(nc.evaluate(spec, points), expected, rtol=0, atol=2e-6)


@pytest.mark.parametrize("dim", (1, 2, 3))
def test_distance_to_edge_is_the_exact_distance_to_the_cell_boundary(dim: int, samples: np.ndarray) -> None:
    points = samples[:, :dim]
    for tiling in (False, True):
        spec = nc.NoiseSpec(kind="voronoi", function="distance_to_edge", seed=-3, frequency=3.0, tiling=tiling)
        expected = [edge_reference(-3, tuple(p), 3.0, 3 if tiling else 0) for p in points]
        np.testing.assert_allclose(nc.evaluate(spec, points), expected, rtol=0, atol=2e-6)


@pytest.mark.parametrize("dim", (1, 2, 3))
def test_n_sphere_radius_matches_plain_python(dim: int, samples: np.ndarray) -> None:
    points = samples[:, :dim]
    spec = nc.NoiseSpec(kind="voronoi", function="n_sphere_radius", seed=9, frequency=2.5, jitter=0.8)
    expected = [n_sphere_reference(9, tuple(p), 2.5, 0, 0.8) for p in points]
    np.testing.assert_allclose(nc.evaluate(spec, points), expected, rtol=0, atol=2e-6)


@pytest.mark.parametrize("dim", (2, 3))
def test_minkowski_matches_plain_python(dim: int, samples: np.ndarray) -> None:
    points = samples[:, :dim]
    for function, p in (("f1", 0.5), ("f2", 3.0), ("f2_minus_f1", 1.5)):
        spec = nc.NoiseSpec(kind="voronoi", distance="minkowski", exponent=p, function=function, frequency=2.0)
        expected = [minkowski_reference(function, 0, tuple(q), 2.0, p) for q in points]
        np.testing.assert_allclose(nc.evaluate(spec, points), expected, rtol=0, atol=2e-6, err_msg=function)
    spec = nc.NoiseSpec(kind="voronoi", distance="minkowski", exponent=4.0, function="smooth_f1", smoothing=0.5)
    expected = [smooth_f1_reference(0, tuple(q), 4.0, 0.5, metric=lambda v: minkowski(v, 4.0)) for q in points]
    np.testing.assert_allclose(nc.evaluate(spec, points), expected, rtol=0, atol=2e-6)


def test_limits_are_the_classic_functions(samples: np.ndarray) -> None:
    for dim in (1, 2, 3):
        points = samples[:, :dim]
        for function in ("f1", "f2", "f2_minus_f1", "cell"):
            for p, metric in ((2.0, "worley"), (1.0, "manhattan")):
                ours = nc.NoiseSpec(kind="voronoi", distance="minkowski", exponent=p, function=function)
                theirs = nc.NoiseSpec(kind="voronoi", distance=metric, function=function)
                np.testing.assert_array_equal(nc.evaluate(ours, points), nc.evaluate(theirs, points))
        f1 = nc.evaluate(nc.NoiseSpec(kind="voronoi"), points)
        smooth_0 = nc.evaluate(nc.NoiseSpec(kind="voronoi", function="smooth_f1", smoothing=0.0), points)
        np.testing.assert_array_equal(smooth_0, f1)
        smooth = nc.evaluate(nc.NoiseSpec(kind="voronoi", function="smooth_f1", smoothing=0.2), points)
        assert (smooth <= f1 + 1e-6).all() and (smooth >= 0.0).all()  # the smooth minimum never exceeds F1
    points = samples[:, :3]
    chebyshev = nc.evaluate(nc.NoiseSpec(kind="voronoi", distance="chebyshev"), points)
    large = nc.evaluate(nc.NoiseSpec(kind="voronoi", distance="minkowski", exponent=1000.0), points)
    np.testing.assert_allclose(large, chebyshev, rtol=3 ** (1 / 1000) - 1 + 1e-6, atol=1e-6)


def test_edge_distance_lies_between_the_f1_f2_bounds(samples: np.ndarray) -> None:
    """(F2 - F1) / 2 <= distance to edge <= F1 ... F2 bisector: zero exactly where two points are equally near."""
    grid = np.random.default_rng(1).uniform(-2.0, 2.0, size=(2000, 2))
    edge = nc.evaluate(nc.NoiseSpec(kind="voronoi", function="distance_to_edge"), grid)
    f1 = nc.evaluate(nc.NoiseSpec(kind="voronoi", function="f1"), grid)
    f2 = nc.evaluate(nc.NoiseSpec(kind="voronoi", function="f2"), grid)
    inside = f2 < 1.0
    assert (edge[inside] >= (f2 - f1)[inside] / 2 - 1e-6).all()
    assert (edge[inside] <= ((f2**2 - f1**2) / (2 * (f2 - f1) + 1e-12))[inside] + 1e-5).all()


@pytest.mark.parametrize("function", ("smooth_f1", "distance_to_edge", "n_sphere_radius"))
def test_tiles_and_sums_octaves(function: str) -> None:
    tiled = nc.NoiseSpec(kind="voronoi", function=function, frequency=3.0, octaves=3, tiling=True)
    grid = nc.evaluate_grid(tiled, (24, 24))
    points = np.random.default_rng(2).uniform(0.0, 1.0, size=(16, 2))
    np.testing.assert_array_equal(nc.evaluate(tiled, points), nc.evaluate(tiled, points + np.array([1.0, -2.0])))
    assert grid.min() >= 0.0 and grid.max() <= 1.0
    single = [
        nc.evaluate(nc.NoiseSpec(kind="voronoi", function=function, frequency=3.0 * 2**o, seed=o, tiling=True), points)
        for o in range(3)
    ]
    expected = (single[0] + 0.5 * single[1] + 0.25 * single[2]) / 1.75
    np.testing.assert_allclose(nc.evaluate(tiled, points), expected, rtol=0, atol=1e-6)


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(("smooth_f1", "distance_to_edge", "n_sphere_radius", "f1", "f2", "f2_minus_f1", "cell")),
    st.floats(0.0, 1.0),
    st.floats(0.0, 1.0),
    st.floats(0.01, 1000.0),
    st.lists(st.floats(-1e3, 1e3), min_size=3, max_size=3),
)
def test_values_stay_in_the_unit_range(function, smoothing, jitter, exponent, point) -> None:
    options: dict = {"function": function, "jitter": jitter}
    if function == "smooth_f1":
        options["smoothing"] = smoothing
    if function not in ("distance_to_edge", "n_sphere_radius"):
        options.update(distance="minkowski", exponent=exponent)
    spec = nc.NoiseSpec(kind="voronoi", **options)
    assert nc.value_range(spec) == (0.0, 1.0)
    for dim in (1, 2, 3):
        value = nc.evaluate(spec, np.array([point[:dim]]))[0]
        assert 0.0 <= value <= 1.0


def test_errors_name_the_option() -> None:
    with pytest.raises(ValueError, match=r"^distance: function 'distance_to_edge' measures Euclidean"):
        nc.NoiseSpec(kind="voronoi", function="distance_to_edge", distance="manhattan")
    with pytest.raises(ValueError, match=r"^exponent: only used with distance='minkowski'"):
        nc.NoiseSpec(kind="voronoi", exponent=3.0)
    with pytest.raises(ValueError, match=r"^smoothing: only used with function='smooth_f1'"):
        nc.NoiseSpec(kind="voronoi", smoothing=0.5)
    with pytest.raises(ValueError, match=r"^exponent: must be in \(0, 1000\]"):
        nc.NoiseSpec(kind="voronoi", distance="minkowski", exponent=0.0)
    with pytest.raises(ValueError, match=r"^smoothing: must be between 0 and 1"):
        nc.NoiseSpec(kind="voronoi", function="smooth_f1", smoothing=1.5)
