"""Analytic derivatives (``evaluate(..., derivatives=True)``) against central finite differences."""

from __future__ import annotations

import numpy as np
import pytest

import noise_core as nc

# Sweeps every kernel variant: once per run (scripts/run.sh), the golden digests pin the bits on both Pythons.
pytestmark = pytest.mark.once_per_run

DERIVABLE = ("value", "perlin", "simplex_value", "simplex")
STEP = 1e-4
"""Central-difference step in noise-space units, divided by the spec's highest frequency."""


def central_differences(spec: nc.NoiseSpec, points: np.ndarray) -> np.ndarray:
    """``(f(p + h e_a) - f(p - h e_a)) / 2h`` per axis, from float32 values (rounding error ~6e-8 / h)."""
    h = STEP / spec.highest_frequency
    dim = points.shape[1]
    columns = []
    for axis in range(dim):
        shift = np.zeros(dim)
        shift[axis] = h
        plus = nc.evaluate(spec, points + shift).astype(np.float64)
        minus = nc.evaluate(spec, points - shift).astype(np.float64)
        columns.append((plus - minus) / (2.0 * h))
    return np.column_stack(columns)


def bound(spec: nc.NoiseSpec) -> float:
    """The documented bound: float32 rounding of the two values over the step, plus the step's truncation
    error; both grow with the highest frequency (the gradient's own scale)."""
    return 2e-3 * spec.highest_frequency * max(1.0, abs(nc.value_range(spec)[1]))


def points(dim: int, count: int = 600, centre: float = 0.0, seed: int = 3) -> np.ndarray:
    return centre + np.random.default_rng(seed).uniform(-2.0, 2.0, size=(count, dim))


def agreement(spec: nc.NoiseSpec, at: np.ndarray) -> np.ndarray:
    """Per point: whether the analytic gradient is within ``bound`` of the central differences."""
    analytic = nc.evaluate(spec, at, derivatives=True)
    assert analytic.shape == (at.shape[0], 1 + at.shape[1]) and analytic.dtype == np.float32
    np.testing.assert_array_equal(analytic[:, 0], nc.evaluate(spec, at))
    return (np.abs(analytic[:, 1:] - central_differences(spec, at)) <= bound(spec)).all(axis=1)


@pytest.mark.parametrize("dim", [1, 2, 3, 4])
@pytest.mark.parametrize("kind", DERIVABLE)
def test_every_kind_and_dimension_matches_central_differences(kind: str, dim: int) -> None:
    spec = nc.NoiseSpec(kind=kind, octaves=3, frequency=3.0, seed=11)
    assert agreement(spec, points(dim)).all()


@pytest.mark.parametrize("dim", [1, 2, 3, 4])
@pytest.mark.parametrize("kind", DERIVABLE)
def test_far_from_the_origin(kind: str, dim: int) -> None:
    """At 1e4 the float64 cell split keeps the fraction exact, so the gradient is as good as near 0."""
    spec = nc.NoiseSpec(kind=kind, octaves=2, frequency=2.0)
    assert agreement(spec, points(dim, centre=1.0e4)).all()


@pytest.mark.parametrize("kind", ["value", "perlin"])
@pytest.mark.parametrize("dim", [2, 3, 4])
def test_tiling_gradient_matches_and_tiles(kind: str, dim: int) -> None:
    spec = nc.NoiseSpec(kind=kind, octaves=2, frequency=3.0, tiling=True)
    at = points(dim)
    assert agreement(spec, at).all()
    np.testing.assert_allclose(
        nc.evaluate(spec, at + 1.0, derivatives=True), nc.evaluate(spec, at, derivatives=True), atol=2e-4
    )


@pytest.mark.parametrize("fractal", ["fbm", "multifractal", "hetero_terrain"])
@pytest.mark.parametrize("kind", ["perlin", "simplex"])
def test_smooth_fractal_modes_match_everywhere(kind: str, fractal: str) -> None:
    options = {"offset": 0.3} if fractal == "hetero_terrain" else {}
    spec = nc.NoiseSpec(kind=kind, octaves=4, frequency=2.0, persistence=0.5, fractal=fractal, **options)
    assert agreement(spec, points(3)).all()


@pytest.mark.parametrize(
    "options",
    [
        {"turbulence": True},
        {"fractal": "ridged", "offset": 1.0, "gain": 2.0},
        {"fractal": "hybrid", "offset": 0.7, "gain": 1.5},
    ],
    ids=["turbulence", "ridged", "hybrid"],
)
@pytest.mark.parametrize("kind", ["value", "perlin", "simplex"])
def test_modes_with_creases_match_off_the_creases(kind: str, options: dict) -> None:
    """|n| (turbulence, ridged) and hybrid's min/stop have creases where the derivative jumps; central
    differences straddling one disagree there, on a small share of points; everywhere else they agree."""
    spec = nc.NoiseSpec(kind=kind, octaves=4, frequency=2.0, **options)
    assert agreement(spec, points(2, count=2000)).mean() >= 0.98


@pytest.mark.parametrize("warp", ["independent", "progressive"])
@pytest.mark.parametrize(("kind", "warp_kind", "dim"), [("perlin", "simplex", 2), ("simplex", "value", 3)])
def test_domain_warp_by_the_chain_rule(warp: str, kind: str, warp_kind: str, dim: int) -> None:
    spec = nc.NoiseSpec(
        kind=kind, octaves=2, frequency=2.0, warp=warp, warp_kind=warp_kind, warp_amplitude=0.3, warp_octaves=3
    )
    analytic = nc.evaluate(spec, points(dim), derivatives=True)
    assert np.abs(analytic[:, 0] - nc.evaluate(spec, points(dim))).max() < 1e-6
    differences = central_differences(spec, points(dim))
    # the warp multiplies the gradient by up to (1 + amplitude x warp gradient): scale the bound with it
    assert (np.abs(analytic[:, 1:] - differences) <= 3 * bound(spec)).all()
    plain = nc.evaluate(nc.NoiseSpec(kind=kind, octaves=2, frequency=2.0), points(dim), derivatives=True)
    assert np.abs(analytic[:, 1:] - plain[:, 1:]).max() > 0.5  # the warp does change the gradient


def test_float32_points_and_an_empty_array() -> None:
    spec = nc.NoiseSpec(octaves=2)
    at = points(3).astype(np.float32)
    np.testing.assert_array_equal(
        nc.evaluate(spec, at, derivatives=True), nc.evaluate(spec, at.astype(np.float64), derivatives=True)
    )
    assert nc.evaluate(spec, np.empty((0, 2)), derivatives=True).shape == (0, 3)


@pytest.mark.parametrize("kind", ["voronoi", "cellular", "hill"])
def test_kinds_without_a_gradient_are_refused_by_name(kind: str) -> None:
    with pytest.raises(ValueError, match=rf"^derivatives: kind '{kind}' has no analytic gradient.*perlin"):
        nc.evaluate(nc.NoiseSpec(kind=kind), points(2), derivatives=True)


def test_bad_flag_and_bad_points() -> None:
    with pytest.raises(TypeError, match=r"^derivatives: expected True or False"):
        nc.evaluate(nc.NoiseSpec(), points(2), derivatives="yes")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"^points: coordinates must be finite"):
        nc.evaluate(nc.NoiseSpec(), np.array([[np.nan, 0.0]]), derivatives=True)
