"""Gabor noise: a plain-Python port on our lattice, the spectrum's peak and isotropy, ranges, tiling, errors."""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import noise_core as nc
from noise_core import gabor

from . import reference


def gabor_reference(seed, point, frequency, kernel_frequency=2.0, anisotropy=1.0, orientation=gabor.DEFAULT_ORIENTATION,
                    direction=(1.0, 1.0, 0.0), output="value", period=0):  # fmt: skip
    """Lagae's sparse convolution with Blender's choices (8 impulses, Bernoulli weights, Hann-windowed Gaussian),
    in float64 with the exact window, sine and cosine."""
    dim = len(point)
    cells, fractions = [], []
    for c in point:
        floor = math.floor(c * frequency)
        cells.append(floor % period if period else floor)
        fractions.append(c * frequency - floor)
    isotropy = 1.0 - anisotropy
    re = im = 0.0
    for step in itertools.product((-1, 0, 1), repeat=dim):
        accumulator = reference.seed(seed)
        for cell, s in zip(cells, step, strict=True):
            accumulator = reference.eat(accumulator, (cell + s) % period if period else cell + s)
        for k in range(8):
            h1 = reference.avalanche(reference.eat(accumulator, k))
            h2 = reference.avalanche(reference.eat(accumulator, k + 8))
            d = [
                g - s - (((h1 >> (10 * a)) & 1023) + 0.5) / 1024
                for a, (g, s) in enumerate(zip(fractions, step, strict=True))
            ]
            s2 = sum(x * x for x in d)
            if s2 >= 1.0:
                continue
            g = math.exp(-math.pi * s2) * (0.5 + 0.5 * math.cos(math.pi * s2)) * (-1 if h1 >> 31 else 1)
            r1, r2 = (h2 & 65535) / 65536, (h2 >> 16) / 65536
            if dim == 2:
                theta = orientation + (r1 - 0.5) * math.pi * isotropy
                omega = (math.cos(theta), math.sin(theta))
            else:
                length = math.hypot(*direction)
                x, y, z = (c / length for c in direction)
                omega = (x, y, z)
                if isotropy > 0:
                    inclination = math.acos(z) + r1 * math.pi * isotropy
                    azimuth = math.copysign(math.acos(x / math.hypot(x, y)), y) + r2 * math.pi * isotropy
                    omega = (
                        math.sin(inclination) * math.cos(azimuth),
                        math.sin(inclination) * math.sin(azimuth),
                        math.cos(inclination),
                    )
            phase = 2 * math.pi * kernel_frequency * sum(a * b for a, b in zip(d, omega, strict=True))
            re += g * math.cos(phase)
            im += g * math.sin(phase)
    sigma = math.sqrt(8 * 0.5 * (0.25 if dim == 2 else 1 / (4 * math.sqrt(2))))
    if output == "value":
        return max(-1.0, min(1.0, im / (6 * sigma)))
    if output == "phase":
        return (math.atan2(im, re) + math.pi) / (2 * math.pi)
    return min(1.0, math.hypot(re, im) / (6 * sigma))


@pytest.fixture(scope="module")
def samples() -> np.ndarray:
    return np.random.default_rng(43).uniform(-3.0, 3.0, size=(48, 3))


@pytest.mark.parametrize("dim", (2, 3))
@pytest.mark.parametrize("output", ("value", "phase", "intensity"))
def test_matches_plain_python(dim: int, output: str, samples: np.ndarray) -> None:
    points = samples[:, :dim]
    cases = [
        {"kernel_frequency": 2.0, "anisotropy": 1.0},
        {"kernel_frequency": 3.5, "anisotropy": 0.3, "orientation": -1.0, "direction": (0.2, -0.5, 0.8)},
        {"kernel_frequency": 0.5, "anisotropy": 0.0, "period": 3},
    ]
    for case in cases:
        spec = nc.NoiseSpec(
            kind="gabor", seed=11, frequency=3.0, gabor_frequency=case["kernel_frequency"],
            anisotropy=case["anisotropy"], orientation=case.get("orientation", gabor.DEFAULT_ORIENTATION),
            orientation_3d=case.get("direction"), output=output, tiling="period" in case,
        )  # fmt: skip
        expected = np.array([gabor_reference(11, tuple(p), 3.0, output=output, **case) for p in points])
        got = nc.evaluate(spec, points)
        if output == "phase":  # compare on the circle; near |G| = 0 the phase is ill-conditioned
            intensity = np.array([gabor_reference(11, tuple(p), 3.0, output="intensity", **case) for p in points])
            error = np.abs((got - expected + 0.5) % 1.0 - 0.5)[intensity > 1e-3]
            assert error.max() < 1e-3, case
        else:
            np.testing.assert_allclose(got, expected, rtol=0, atol=2e-5, err_msg=str(case))


def test_window_and_sincos_are_accurate() -> None:
    s = np.linspace(0.0, 1.0, 10001, dtype=np.float32)[:-1]
    exact = np.exp(-np.pi * s.astype(np.float64)) * (0.5 + 0.5 * np.cos(np.pi * s.astype(np.float64)))
    assert np.abs(np.array([gabor.window(x) for x in s]) - exact).max() < 2e-7
    assert gabor.window(np.float32(1.0)) == 0.0
    t = np.linspace(-40.0, 40.0, 20001, dtype=np.float32)
    pairs = np.array([gabor.sincos_turns(x) for x in t])
    angle = 2 * np.pi * t.astype(np.float64)
    assert np.abs(pairs[:, 0] - np.cos(angle)).max() < 3e-7
    assert np.abs(pairs[:, 1] - np.sin(angle)).max() < 3e-7


def _spectrum(spec: nc.NoiseSpec, size: int = 256, seeds: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Power of the tiled grid's FFT (averaged over ``seeds`` seeds) and each bin's frequency (cycles per unit)
    along x and y."""
    power = np.zeros((size, size))
    for seed in range(seeds):
        grid = nc.evaluate_grid(dataclasses.replace(spec, seed=seed), (size, size)).astype(np.float64)
        power += np.abs(np.fft.fft2(grid - grid.mean())) ** 2
    fy, fx = np.meshgrid(np.fft.fftfreq(size, 1 / size), np.fft.fftfreq(size, 1 / size), indexing="ij")
    return power, fx, fy


def test_spectrum_peaks_along_the_orientation_at_the_product_of_frequencies() -> None:
    theta = 0.5
    spec = nc.NoiseSpec(kind="gabor", frequency=8.0, gabor_frequency=4.0, orientation=theta, tiling=True)
    power, fx, fy = _spectrum(spec)
    half = fx * math.cos(theta) + fy * math.sin(theta) > 0  # the spectrum is symmetric: one lobe
    weights = power * half
    cx, cy = (weights * fx).sum() / weights.sum(), (weights * fy).sum() / weights.sum()
    assert math.hypot(cx, cy) == pytest.approx(32.0, rel=0.05)
    assert math.atan2(cy, cx) == pytest.approx(theta, abs=0.03)
    peak = np.unravel_index(np.argmax(power * half), power.shape)
    assert math.hypot(fx[peak], fy[peak]) == pytest.approx(32.0, abs=4.0)


def test_spectrum_is_isotropic_without_anisotropy() -> None:
    spec = nc.NoiseSpec(kind="gabor", frequency=8.0, gabor_frequency=4.0, anisotropy=0.0, tiling=True)
    power, fx, fy = _spectrum(spec, seeds=8)
    radius = np.hypot(fx, fy)
    ring = (radius > 16) & (radius < 48)
    assert (power * ring).sum() > 0.9 * power.sum()
    assert (power * radius).sum() / power.sum() == pytest.approx(32.0, rel=0.08)
    angles = np.mod(np.arctan2(fy, fx), np.pi)[ring]
    sectors = np.histogram(angles, bins=8, range=(0.0, np.pi), weights=power[ring])[0]
    assert sectors.min() > 0.85 * sectors.mean() and sectors.max() < 1.15 * sectors.mean()


def test_3d_waves_run_along_the_direction() -> None:
    """Anisotropic 3D noise varies along its direction and is constant across it (kernels are plane waves)."""
    spec = nc.NoiseSpec(kind="gabor", frequency=2.0, orientation_3d=(0.0, 0.0, 5.0), gabor_frequency=6.0)
    base = np.random.default_rng(3).uniform(-2.0, 2.0, size=(200, 3))
    along = base + np.array([0.0, 0.0, 0.25 / 12.0])  # a quarter period along z
    across = base + np.array([0.25 / 12.0, 0.0, 0.0])
    value = nc.evaluate(spec, base)
    assert np.abs(nc.evaluate(spec, along) - value).mean() > 3 * np.abs(nc.evaluate(spec, across) - value).mean()


@pytest.mark.parametrize("output", ("value", "phase", "intensity"))
def test_tiles_ranges_and_octaves(output: str) -> None:
    spec = nc.NoiseSpec(kind="gabor", frequency=2.0, octaves=3, tiling=True, output=output, anisotropy=0.5)
    low, high = nc.value_range(spec)
    assert (low, high) == ((-1.0, 1.0) if output == "value" else (0.0, 1.0))
    points = np.random.default_rng(4).uniform(0.0, 1.0, size=(32, 3))
    values = nc.evaluate(spec, points)
    np.testing.assert_array_equal(values, nc.evaluate(spec, points + np.array([1.0, -1.0, 2.0])))
    assert ((values >= low) & (values <= high)).all()
    single = [
        nc.evaluate(
            nc.NoiseSpec(kind="gabor", frequency=2.0 * 2**o, seed=o, output=output, anisotropy=0.5, tiling=True),
            points,
        )
        for o in range(3)
    ]
    np.testing.assert_allclose(values, (single[0] + 0.5 * single[1] + 0.25 * single[2]) / 1.75, atol=1e-6)


@settings(max_examples=30, deadline=None)
@given(
    st.sampled_from(("value", "phase", "intensity")),
    st.floats(1e-3, 1000.0),
    st.floats(0.0, 1.0),
    st.lists(st.floats(-1e4, 1e4), min_size=3, max_size=3),
)
def test_values_stay_in_range(output, kernel_frequency, anisotropy, point) -> None:
    spec = nc.NoiseSpec(kind="gabor", output=output, gabor_frequency=kernel_frequency, anisotropy=anisotropy)
    low, high = nc.value_range(spec)
    for dim in (2, 3):
        value = nc.evaluate(spec, np.array([point[:dim]]))[0]
        assert low <= value <= high


def test_errors_name_the_option() -> None:
    with pytest.raises(ValueError, match=r"^gabor_frequency: must be in \(0, 1000\]"):
        nc.NoiseSpec(kind="gabor", gabor_frequency=0.0)
    with pytest.raises(ValueError, match=r"^anisotropy: must be between 0 and 1"):
        nc.NoiseSpec(kind="gabor", anisotropy=1.5)
    with pytest.raises(ValueError, match=r"^orientation_3d: expected three numbers"):
        nc.NoiseSpec(kind="gabor", orientation_3d=(1.0, 0.0))
    with pytest.raises(ValueError, match=r"^orientation_3d: the direction must have a finite, non-zero length"):
        nc.NoiseSpec(kind="gabor", orientation_3d=(0.0, 0.0, 0.0))
    with pytest.raises(ValueError, match=r"^output: 'color' is not allowed"):
        nc.NoiseSpec(kind="gabor", output="color")
    with pytest.raises(ValueError, match=r"^gabor_frequency: not an option of kind 'perlin'"):
        nc.NoiseSpec(gabor_frequency=3.0)
