"""Every bad input gets a clear error naming the field; N = 0 returns an empty result."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import noise_core as nc

POINTS = np.zeros((4, 2))


@pytest.mark.parametrize(
    ("fields", "error", "message"),
    [
        ({"kind": "plasma"}, ValueError, r"kind: unknown kind 'plasma'; allowed: 'value', 'perlin'"),
        ({"kind": 3}, ValueError, r"kind: unknown kind 3"),
        ({"seed": 2**31}, ValueError, r"seed: must be a 32-bit signed integer"),
        ({"seed": 1.5}, TypeError, r"seed: expected an integer"),
        ({"frequency": 0}, ValueError, r"frequency: must be > 0"),
        ({"frequency": -2.0}, ValueError, r"frequency: must be > 0"),
        ({"frequency": float("nan")}, ValueError, r"frequency: must be a finite number"),
        ({"frequency": "4"}, TypeError, r"frequency: expected a number"),
        ({"octaves": 0}, ValueError, r"octaves: must be between 1 and 16"),
        ({"octaves": 17}, ValueError, r"octaves: must be between 1 and 16"),
        ({"octaves": 2.0}, TypeError, r"octaves: expected an integer"),
        ({"lacunarity": 0.0}, ValueError, r"lacunarity: must be > 0"),
        ({"persistence": -0.1}, ValueError, r"persistence: must be between 0 and 100"),
        ({"persistence": 1e300, "octaves": 16}, ValueError, r"persistence: must be between 0 and 100"),
        ({"frequency": 1e300, "lacunarity": 1e30, "octaves": 16}, ValueError, r"frequency: the highest octave"),
        ({"frequency": 2.0**20, "lacunarity": 2.0, "octaves": 12}, ValueError, r"= 2\^31.0, must stay below 2\^31"),
        ({"turbulence": 1}, TypeError, r"turbulence: expected True or False"),
        ({"tiling": "yes"}, TypeError, r"tiling: expected True or False"),
        ({"tiling": True, "frequency": 2.5}, ValueError, r"frequency: tiling needs a whole-number frequency"),
        ({"tiling": True, "lacunarity": 1.5}, ValueError, r"lacunarity: tiling needs a whole-number lacunarity"),
        ({"kind": "perlin", "distance": "chebyshev"}, ValueError, r"distance: not an option of kind 'perlin'"),
        ({"kind": "value", "function": "f2"}, ValueError, r"function: not an option of kind 'value'"),
        ({"kind": "perlin", "density": 2.0}, ValueError, r"density: not an option of kind 'perlin'"),
        ({"kind": "value", "sizes": np.array([1.0, 2.0])}, ValueError, r"sizes: not an option of kind 'value'"),
    ],
)
def test_bad_spec_fields(fields: dict, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        nc.NoiseSpec(**fields)


def test_highest_frequency_inside_the_lattice_is_accepted() -> None:
    spec = nc.NoiseSpec(frequency=2.0**20, lacunarity=2.0, octaves=11, persistence=100.0)
    assert spec.highest_frequency == 2.0**30
    assert nc.NoiseSpec(frequency=8.0, lacunarity=0.5, octaves=16).highest_frequency == 8.0
    values = nc.evaluate(spec, np.array([[0.3, 0.7], [1.2, -1.4]]))
    assert np.all(np.isfinite(values)) and np.all(np.abs(values) <= 1.0)


def test_spec_is_immutable_and_normalised() -> None:
    spec = nc.NoiseSpec(frequency=4, lacunarity=np.float32(2), octaves=np.int64(3))
    assert spec.frequency == 4.0 and isinstance(spec.frequency, float)
    assert spec.octaves == 3 and type(spec.octaves) is int
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.seed = 3  # type: ignore[misc]
    with pytest.raises(ValueError, match="octaves"):
        dataclasses.replace(spec, octaves=99)


@pytest.mark.parametrize(
    ("points", "error", "message"),
    [
        ([[0.0, 1.0]], TypeError, r"points: expected a numpy array"),
        (np.zeros((3, 2), dtype=np.int64), TypeError, r"points: dtype must be float32 or float64, got int64"),
        (np.zeros((3, 2), dtype=np.float16), TypeError, r"points: dtype must be float32 or float64"),
        (np.zeros(3), ValueError, r"points: shape must be \(N, d\) with d in 1, 2, 3, 4; got \(3,\)"),
        (np.zeros((3, 5)), ValueError, r"points: shape must be \(N, d\) with d in 1, 2, 3, 4; got \(3, 5\)"),
        (np.zeros((3, 0)), ValueError, r"points: shape must be \(N, d\)"),
        (np.zeros((2, 2, 2)), ValueError, r"points: shape must be \(N, d\)"),
        (np.array([[0.0, np.nan]]), ValueError, r"points: coordinates must be finite"),
        (np.array([[np.inf, 0.0]]), ValueError, r"points: coordinates must be finite"),
        (np.array([[1e12, 0.0]]), ValueError, r"points: coordinates up to 1e\+12 .* exceed the 32-bit lattice"),
    ],
)
def test_bad_points(points: object, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        nc.evaluate(nc.NoiseSpec(), points)  # type: ignore[arg-type]


@pytest.mark.parametrize("kind", ["value", "voronoi", "cellular", "hill"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("bad", [np.nan, -np.inf, 1e9])
def test_one_bad_coordinate_anywhere_is_rejected(kind: str, dtype: type, bad: float) -> None:
    """The kernel notices a single bad coordinate in any block and axis (here the last of 5000 3D points)."""
    points = np.random.default_rng(1).uniform(-2.0, 2.0, (5000, 3)).astype(dtype)
    spec = nc.NoiseSpec(kind=kind, frequency=4.0, octaves=1 if kind == "hill" else 2)
    assert np.isfinite(nc.evaluate(spec, points)).all()
    points[-1, 2] = bad
    message = "exceed the 32-bit lattice" if np.isfinite(bad) else "coordinates must be finite"
    with pytest.raises(ValueError, match=message):
        nc.evaluate(spec, points)


def test_the_lattice_limit_applies_to_the_highest_octave() -> None:
    """2e8 * 4 fits in 32 bits; at the fifth octave (frequency 64) it does not."""
    points = np.array([[2e8, 0.0]])
    assert np.isfinite(nc.evaluate(nc.NoiseSpec(frequency=4.0, octaves=1), points)).all()
    with pytest.raises(ValueError, match=r"coordinates up to 2e\+08 at frequency 64 exceed"):
        nc.evaluate(nc.NoiseSpec(frequency=4.0, octaves=5), points)


def test_bad_spec_argument() -> None:
    with pytest.raises(TypeError, match="spec: expected a NoiseSpec, got dict"):
        nc.evaluate({"kind": "perlin"}, POINTS)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="spec: expected a NoiseSpec"):
        nc.evaluate_grid("perlin", (4, 4))  # type: ignore[arg-type]


@pytest.mark.parametrize("dim", [1, 2, 3])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_empty_points_give_an_empty_result(dim: int, dtype: type) -> None:
    result = nc.evaluate(nc.NoiseSpec(), np.empty((0, dim), dtype=dtype))
    assert result.shape == (0,) and result.dtype == np.float32


@pytest.mark.parametrize(
    ("shape", "error", "message"),
    [
        ((0, 4), ValueError, r"shape: height and width must be positive"),
        ((4, -1), ValueError, r"shape: height and width must be positive"),
        ([4, 4], TypeError, r"shape: expected a tuple \(height, width\)"),
        ((4.0, 4), TypeError, r"shape: expected a tuple"),
        ((4, 4, 4), TypeError, r"shape: expected a tuple"),
        ((1 << 15, 1 << 15), ValueError, r"shape: 32768x32768 exceeds the limit"),
    ],
)
def test_bad_grid_shapes(shape: object, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        nc.evaluate_grid(nc.NoiseSpec(), shape)  # type: ignore[arg-type]


HUGE = 10**400


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"frequency": HUGE}, r"frequency: must be a finite number"),
        ({"frequency": -HUGE}, r"frequency: must be a finite number"),
        ({"lacunarity": HUGE}, r"lacunarity: must be a finite number"),
        ({"lacunarity": -HUGE}, r"lacunarity: must be a finite number"),
        ({"persistence": HUGE}, r"persistence: must be a finite number"),
        ({"persistence": -HUGE}, r"persistence: must be a finite number"),
        ({"kind": "cellular", "density": HUGE}, r"density: must be a finite number"),
        ({"kind": "voronoi", "jitter": -HUGE}, r"jitter: must be a finite number"),
        ({"kind": "hill", "distribution": "weibull", "beta": HUGE}, r"beta: must be a finite number"),
        ({"kind": "hill", "distribution": "weibull", "alpha": HUGE}, r"alpha: must be a finite number"),
        ({"kind": "hill", "smoothness": HUGE}, r"smoothness: must be a finite number"),
        ({"kind": "hill", "sizes": (1, HUGE)}, r"sizes\[1\]: must be a finite number"),
    ],
)
def test_huge_integers_get_the_fields_error(fields: dict, message: str) -> None:
    """float(10**400) overflows; the validator reports it as the field's non-finite value, not an OverflowError."""
    with pytest.raises(ValueError, match=message):
        nc.NoiseSpec(**fields)


@pytest.mark.parametrize("kind", ["voronoi", "cellular"])
@pytest.mark.parametrize("field", ["distance", "function"])
@pytest.mark.parametrize("value", [0, "", False, [], ()])
def test_falsy_option_values_are_errors_not_defaults(kind: str, field: str, value: object) -> None:
    with pytest.raises((ValueError, TypeError), match=rf"^{field}: "):
        nc.NoiseSpec(kind=kind, **{field: value})
    assert getattr(nc.NoiseSpec(kind=kind, **{field: None}), field) in ("worley", "euclidean", "f1")


def test_bools_and_arrays_get_a_clear_error() -> None:
    with pytest.raises(ValueError, match=r"^jitter: not an option of kind 'perlin'"):
        nc.NoiseSpec(jitter=True)
    with pytest.raises(ValueError, match=r"^density: not an option of kind 'value'"):
        nc.NoiseSpec(kind="value", density=np.bool_(True))
    with pytest.raises(TypeError, match=r"^jitter: expected a number, got bool"):
        nc.NoiseSpec(kind="voronoi", jitter=True)
    with pytest.raises(TypeError, match=r"^distance: expected one of 'worley', .* \(a string\), got ndarray"):
        nc.NoiseSpec(kind="voronoi", distance=np.array(["worley", "squared"]))
    with pytest.raises(TypeError, match=r"^function: expected one of 'f1', .* got ndarray"):
        nc.NoiseSpec(kind="cellular", function=np.array(["f1"]))
    with pytest.raises(TypeError, match=r"^distribution: expected one of 'uniform'"):
        nc.NoiseSpec(kind="hill", distribution=np.array(["raw"]))
    # equal numbers of another numeric type are still the default
    assert nc.NoiseSpec(jitter=1, density=np.float32(4.0)).kind == "perlin"
