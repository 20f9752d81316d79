"""Hill noise (kind "hill") against a transcription of seed 002's classes, and its statistics."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import noise_core as nc
from noise_core.hill import fast_sin, golden_permutation, hill_sizes, sigma, weibull_upper

from .reference import hash_of

GOLDEN_RATIO = (math.sqrt(5) + 1) / 2
WIDE = 500.0
"""Half-width of the wide domain the statistics are sampled over (2000 largest periods at frequency 1)."""


def _offsets(seed: int, count: int) -> list[float]:
    return [hash_of(seed, k) / 2**32 * 2 * math.pi for k in range(count)]


def _normal_cdf(noise: float) -> float:
    return 0.5 * (-1 if noise < 0 else 1) * math.sqrt(1 - math.exp(-2 / math.pi * noise * noise)) + 0.5


def seed_hill(point: tuple[float, ...], sizes: list[float], seed: int, frequency: float) -> float:
    """Seed 002's HillNoise / HillNoise2D / HillNoise3D.evaluate with its slips fixed as documented:
    ``resolution = len(sizes)``, ``sigma = sqrt(sum s^2 / (2 d))`` and no extra division by d;
    the input is ``2 pi max(sizes) frequency * point``."""
    dim = len(point)
    x, y, z = ((2 * math.pi * max(sizes) * frequency * c) for c in (*point, 0.0, 0.0)[:3])
    offsets = _offsets(seed, dim * len(sizes))
    noise = 0.0
    if dim == 1:
        for i, size in enumerate(sizes):
            noise += size * math.sin(x / size + offsets[i])
    elif dim == 2:
        for i, size in enumerate(sizes):
            rotation = (i * GOLDEN_RATIO % 1) * 2 * math.pi
            u = x * math.cos(rotation) - y * math.sin(rotation)
            v = -x * math.sin(rotation) - y * math.cos(rotation)
            noise += size / 2 * (math.sin(u / size + offsets[2 * i]) + math.sin(v / size + offsets[2 * i + 1]))
    else:
        resolution = len(sizes)
        fib_num = math.floor(math.log((resolution - 1) * math.sqrt(5) + 0.5) / math.log(GOLDEN_RATIO))
        dec = math.floor(0.5 + (GOLDEN_RATIO**fib_num) / math.sqrt(5))
        inc = math.floor(0.5 + dec / GOLDEN_RATIO)
        j = 0
        for i in range(len(sizes)):
            if j >= dec:
                j -= dec
            else:
                j += inc
                if j >= len(sizes):
                    j -= dec
            phi = ((i * GOLDEN_RATIO) % 1) * 2 * math.pi
            theta = math.acos(-1 + 2 * ((j * GOLDEN_RATIO) % 1))
            n1x, n1y, n1z = math.sin(phi) * math.cos(theta), math.sin(phi) * math.sin(theta), math.cos(phi)
            n2x, n2y, n2z = math.cos(phi) * math.cos(theta), math.cos(phi) * math.sin(theta), -math.sin(phi)
            n3x, n3y, n3z = (n1y * n2z - n1z * n2y, n1z * n2x - n1x * n2z, n1x * n2y - n1y * n2x)
            u = n1x * x + n1y * y + n1z * z
            v = n2x * x + n2y * y + n2z * z
            w = n3x * x + n3y * y + n3z * z
            size = sizes[j]
            noise += (
                size
                / 3
                * (
                    math.cos(u / size + offsets[3 * i])
                    + math.cos(v / size + offsets[3 * i + 1])
                    + math.cos(w / size + offsets[3 * i + 2])
                )
            )
    return _normal_cdf(noise / math.sqrt(sum(s * s for s in sizes) / (2 * dim)))


HAND_POINTS = np.array([[0.3, -0.7, 0.2], [12.5, 3.25, -8.0], [-0.01, 0.02, 0.03]])


@pytest.mark.parametrize(
    ("dim", "fields"),
    [
        (1, {}),
        (1, {"sizes": (0.5, 2.0, 1.0)}),
        (2, {"smoothness": 3.0, "sines": 7}),
        (3, {}),
        (3, {"sizes": (1.0, 0.3, 0.6, 0.2, 0.8)}),
    ],
)
def test_matches_the_seed_construction(dim, fields):
    spec = nc.NoiseSpec(kind="hill", seed=5, frequency=1.5, **fields)
    sizes = list(hill_sizes(spec))
    got = nc.evaluate(spec, HAND_POINTS[:, :dim])
    for point, value in zip(HAND_POINTS[:, :dim], got, strict=True):
        assert value == pytest.approx(seed_hill(tuple(point), sizes, 5, 1.5), abs=1e-6)


def test_sizes_follow_the_smoothness_rule_or_the_explicit_list():
    spec = nc.NoiseSpec(kind="hill", smoothness=3.0, sines=5)
    expected = [((i + 0.5) / 6) ** (-math.log(3.0)) for i in range(5)]
    assert hill_sizes(spec) == pytest.approx(expected, rel=1e-15)
    explicit = nc.NoiseSpec(kind="hill", sizes=[2, 0.5])
    assert explicit.sizes == (2.0, 0.5)
    assert list(hill_sizes(explicit)) == [2.0, 0.5]


def test_the_golden_shuffle_is_a_permutation():
    for count in range(1, 257):
        assert sorted(golden_permutation(count)) == list(range(count))


def test_fast_sin_matches_libm(rng):
    for x in np.concatenate([rng.uniform(-10, 10, 300), rng.uniform(-1e5, 1e5, 300), [0.0, math.pi / 4, -math.pi]]):
        assert fast_sin(x) == pytest.approx(math.sin(x), abs=1e-12)


@pytest.mark.parametrize(("dim", "ks_limit"), [(1, 0.045), (2, 0.025), (3, 0.025)])
def test_uniform_over_a_wide_domain_and_sigma(dim, ks_limit):
    """KS distance to U(0, 1) is small, and the raw sum's spread is the derived sigma_d."""
    points = np.random.default_rng(dim).uniform(-WIDE, WIDE, size=(20000, dim))
    uniform = nc.NoiseSpec(kind="hill", frequency=1.0)
    values = nc.evaluate(uniform, points)
    assert values.min() >= 0.0 and values.max() <= 1.0
    assert stats.kstest(values, "uniform").statistic < ks_limit
    raw = nc.evaluate(nc.NoiseSpec(kind="hill", frequency=1.0, distribution="raw"), points)
    assert raw.min() >= -1.0 and raw.max() <= 1.0
    sizes = hill_sizes(uniform)
    assert raw.std() * sizes.sum() == pytest.approx(sigma(sizes, dim), rel=0.05)
    assert nc.value_range(uniform) == (0.0, 1.0)
    assert nc.value_range(nc.NoiseSpec(kind="hill", distribution="raw")) == (-1.0, 1.0)


def test_weibull_is_the_inverse_transform_of_the_uniform_noise(points3):
    points = points3[:, :2]
    spec = nc.NoiseSpec(kind="hill", distribution="weibull", alpha=2.0, beta=0.5)
    weibull = nc.evaluate(spec, points).astype(np.float64)
    uniform = nc.evaluate(nc.NoiseSpec(kind="hill"), points).astype(np.float64)
    expected = 2.0 * (-np.log(np.maximum(1.0 - uniform, 2.0**-20))) ** 2.0
    assert weibull == pytest.approx(expected, rel=1e-4, abs=1e-5)
    low, high = nc.value_range(spec)
    assert (low, high) == (0.0, weibull_upper(2.0, 0.5)) == (0.0, 2.0 * (20 * math.log(2)) ** 2)
    assert weibull.min() >= low and weibull.max() <= high


def test_continuous(rng):
    """|dU/dz| <= 0.4 and |dz/dp| <= N 2 pi s_max f / sigma, so a step h moves 2D noise by at most their product * h."""
    spec = nc.NoiseSpec(kind="hill", frequency=4.0)
    sizes = hill_sizes(spec)
    start = rng.uniform(-50.0, 50.0, size=(4000, 2))
    step = 1e-5
    change = np.abs(nc.evaluate(spec, start + step / math.sqrt(2)) - nc.evaluate(spec, start))
    bound = 0.4 * len(sizes) * 2 * math.pi * sizes.max() * 4.0 / sigma(sizes, 2) * step
    assert change.max() <= bound + 1e-6
    assert change.max() < 2e-3


def _largest_far_autocorrelation(spec: nc.NoiseSpec, n: int = 384, spacing: float = 0.37) -> float:
    """Max |autocorrelation| of the noise on an n x n grid over lags 2..n*spacing/2 units (unbiased estimate)."""
    t = np.arange(n) * spacing
    x, y = np.meshgrid(t, t, indexing="ij")
    values = nc.evaluate(spec, np.stack([x.ravel(), y.ravel()], axis=1)).reshape(n, n).astype(np.float64)
    values -= values.mean()
    spectrum = np.fft.rfft2(values, s=(2 * n, 2 * n))
    correlation = np.fft.irfft2(spectrum * np.conj(spectrum), s=(2 * n, 2 * n))
    lags = np.abs(np.fft.fftfreq(2 * n, 1.0 / (2 * n))).astype(int)
    correlation *= n * n / np.outer(np.maximum(n - lags, 1), np.maximum(n - lags, 1)) / correlation[0, 0]
    far = np.hypot(*np.meshgrid(lags * spacing, lags * spacing, indexing="ij")) > 2.0
    near_enough = (lags[:, None] < n // 2) & (lags[None, :] < n // 2)
    return float(np.abs(correlation[far & near_enough]).max())


def test_no_visible_period():
    """Over 70 x 70 largest periods the autocorrelation never returns to the 1 of a periodic pattern.

    Hill noise is quasi-periodic: with the defaults the largest sine pair carries about half
    the variance, so the autocorrelation reaches about 0.88 where the others nearly align.
    A single sine pair (truly periodic) reaches 1, which this check tells apart.
    """
    assert _largest_far_autocorrelation(nc.NoiseSpec(kind="hill", frequency=1.0)) < 0.95
    assert _largest_far_autocorrelation(nc.NoiseSpec(kind="hill", frequency=1.0, sizes=(1.0,))) > 0.99


def test_deterministic_and_seeds_differ(points3):
    spec = nc.NoiseSpec(kind="hill", seed=42)
    values = nc.evaluate(spec, points3)
    assert np.array_equal(values, nc.evaluate(spec, points3))
    other = nc.evaluate(nc.NoiseSpec(kind="hill", seed=43), points3)
    assert np.abs(values - other).mean() > 0.1


@pytest.mark.parametrize(
    ("fields", "error", "message"),
    [
        ({"octaves": 2}, ValueError, "octaves: hill noise carries its own octaves"),
        ({"distribution": "gauss"}, ValueError, "distribution: 'gauss' is not allowed"),
        ({"smoothness": 0.0}, ValueError, "smoothness: must be between"),
        ({"smoothness": -2.0}, ValueError, "smoothness: must be between"),
        ({"smoothness": 1e4}, ValueError, "smoothness: must be between"),
        ({"smoothness": "rough"}, TypeError, "smoothness: expected a number"),
        ({"smoothness": math.inf}, ValueError, "smoothness: must be a finite number"),
        ({"sines": 0}, ValueError, "sines: must be between 1 and 256"),
        ({"sines": 257}, ValueError, "sines: must be between 1 and 256"),
        ({"sines": 2.5}, TypeError, "sines: expected an integer"),
        ({"sizes": ()}, ValueError, "sizes: must hold between 1 and 256"),
        ({"sizes": (1.0,) * 257}, ValueError, "sizes: must hold between 1 and 256"),
        ({"sizes": (1.0, -1.0)}, ValueError, "sizes: every size must be > 0"),
        ({"sizes": (1.0, 0.0)}, ValueError, "sizes: every size must be > 0"),
        ({"sizes": (1.0, math.nan)}, ValueError, r"sizes\[1\]: must be a finite number"),
        ({"sizes": (1.0, "big")}, TypeError, r"sizes\[1\]: expected a number"),
        ({"sizes": "123"}, TypeError, "sizes: expected a sequence"),
        ({"sizes": 3.0}, TypeError, "sizes: expected a sequence"),
        ({"sizes": (1e-13, 1.0)}, ValueError, "sizes: the largest size may be at most"),
        ({"sizes": (1.0, 2.0), "sines": 4}, ValueError, "sines: unused when sizes are given"),
        ({"sizes": (1.0, 2.0), "smoothness": 4.0}, ValueError, "smoothness: unused when sizes are given"),
        ({"distribution": "weibull", "alpha": 0.0}, ValueError, "alpha: must be between 1e-30 and 1e\\+30"),
        ({"distribution": "weibull", "beta": -1.0}, ValueError, "beta: must be > 0"),
        ({"distribution": "weibull", "beta": "one"}, TypeError, "beta: expected a number"),
        ({"alpha": 2.0}, ValueError, "alpha: only used with distribution='weibull'"),
        ({"distribution": "raw", "beta": 2.0}, ValueError, "beta: only used with distribution='weibull'"),
        ({"density": 2.0}, ValueError, "density: not an option of kind 'hill'"),
        ({"tiling": True}, ValueError, "tiling: kind 'hill' cannot tile"),
    ],
)
def test_invalid_fields_are_rejected(fields, error, message):
    with pytest.raises(error, match=message):
        nc.NoiseSpec(kind="hill", **fields)


def test_fast_sin_is_exact_and_bounded_for_huge_arguments(rng):
    """Beyond 2**48 the Cody-Waite reduction loses n's integer bits; libm's exact reduction takes over."""
    xs = np.concatenate([2.0 ** rng.uniform(40, 100, 400), [2.0**48, 2.0**54 + 3.0, 5e18, 3e29, 1.7e308]])
    for x in np.concatenate([xs, -xs]):
        assert fast_sin(x) == pytest.approx(math.sin(x), abs=1e-12)
    assert fast_sin(2.0**48 - 1.0) == pytest.approx(math.sin(2.0**48 - 1.0), abs=1e-15)


@pytest.mark.parametrize(
    ("dim", "fields"),
    [
        (2, {"smoothness": 1000.0, "sines": 256}),  # sizes spread 5e18: tiny sines at phases near 1e20
        (1, {"smoothness": 642.5, "sines": 167}),
        (3, {"smoothness": 1e-3, "sines": 256}),
        (1, {"sizes": (1e-100, 1e-88)}),
        (2, {"sizes": (1e100, 1e88, 3e95)}),
    ],
)
@pytest.mark.parametrize("distribution", ["raw", "uniform"])
def test_extreme_allowed_parameters_stay_in_range(dim, fields, distribution):
    spec = nc.NoiseSpec(kind="hill", distribution=distribution, **fields)
    points = np.random.default_rng(0).random((1000, dim))
    values = nc.evaluate(spec, points)
    low, high = nc.value_range(spec)
    assert np.isfinite(values).all() and low <= values.min() and values.max() <= high
    assert values.std() > 0.01


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"sizes": (1e-300,)}, r"sizes: every size must be between 1e-100 and 1e\+100"),
        ({"sizes": (1e308,)}, r"sizes: every size must be between 1e-100 and 1e\+100"),
        ({"sizes": (1.0, 1e-101)}, "sizes: every size must be between"),
        ({"distribution": "weibull", "beta": 0.001}, r"beta: the largest Weibull value .* would be 1e1142"),
        ({"distribution": "weibull", "beta": 0.01}, r"beta: .* with alpha=1 beta must be at least 0\.03005"),
        ({"distribution": "weibull", "alpha": 1e38}, r"alpha: must be between 1e-30 and 1e\+30"),
        ({"distribution": "weibull", "alpha": 1e-31}, r"alpha: must be between 1e-30 and 1e\+30"),
        ({"distribution": "weibull", "alpha": 1e30, "beta": 0.14}, r"beta: .* at least 0\.1428"),
    ],
)
def test_sizes_and_weibull_limits(fields, message):
    with pytest.raises(ValueError, match=message):
        nc.NoiseSpec(kind="hill", **fields)


@pytest.mark.parametrize(("alpha", "beta"), [(1.0, 0.03005), (1e30, 0.1428), (1e-30, 0.0168), (1e30, 1e300)])
def test_weibull_at_its_limits_is_finite_in_float32(alpha, beta):
    spec = nc.NoiseSpec(kind="hill", distribution="weibull", alpha=alpha, beta=beta)
    low, high = nc.value_range(spec)
    assert low == 0.0 and high <= 1e38
    values = nc.evaluate(spec, np.random.default_rng(2).uniform(-50.0, 50.0, (20000, 2)))
    assert np.isfinite(values).all() and values.min() >= low and values.max() <= high
