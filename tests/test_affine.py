"""``evaluate(..., transform=A)``: the noise-space transform applied in the kernel (``noise_core/affine.py``)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from noise_core import NoiseSpec, compile_state, evaluate, precompile
from noise_core.affine import affine_points, check_transform
from noise_core.api import COMPILE_STATES, evaluate_lattice
from noise_core.registry import KINDS

# Sweeps every kernel variant: once per run (scripts/run.sh), the golden digests pin the bits on both Pythons.
pytestmark = pytest.mark.once_per_run

FAMILY_KINDS = ("perlin", "simplex", "voronoi", "cellular", "hill", "white", "gabor")
"""One kind of each family of kernels (lattice, simplex, Voronoi, cellular, hill, white, Gabor)."""

COUNT = 2048 + 1000
"""Points per case: a whole block and a partial one (``blocks.BLOCK``)."""


def bits(values: np.ndarray) -> np.ndarray:
    return values.view(np.uint32 if values.dtype == np.float32 else np.uint64)


def matrix(rng: np.random.Generator, dim: int, width: int) -> np.ndarray:
    """A random affine map from ``width`` to ``dim`` coordinates: rotation-like mixing, offsets off the lattice."""
    return np.hstack([rng.normal(0.0, 1.5, size=(dim, width)), rng.uniform(-40.0, 40.0, size=(dim, 1))])


def test_kinds_cover_every_family() -> None:
    assert {KINDS[kind].family for kind in FAMILY_KINDS} == {info.family for info in KINDS.values()}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kind", FAMILY_KINDS)
def test_transform_in_kernel_is_the_noise_at_the_transformed_points(kind: str, dtype: type) -> None:
    rng = np.random.default_rng(36)
    points = rng.uniform(-3.0, 3.0, size=(COUNT, 3)).astype(dtype)
    for dim in KINDS[kind].dims:
        spec = NoiseSpec(kind=kind, octaves=1 if kind == "hill" else 3, seed=7)
        transform = matrix(rng, dim, 3)
        got = evaluate(spec, points, transform=transform)
        expected = evaluate(spec, affine_points(points, transform))
        assert got.dtype == np.float32 and got.shape == (COUNT,)
        np.testing.assert_array_equal(bits(got), bits(expected), err_msg=f"{kind} {dim}D {np.dtype(dtype)}")


@pytest.mark.parametrize("width", [1, 2, 4])
def test_points_of_any_width(width: int) -> None:
    rng = np.random.default_rng(width)
    points = rng.uniform(-3.0, 3.0, size=(COUNT, width))
    spec = NoiseSpec(kind="perlin", octaves=2, fractal="ridged")
    for dim in (2, 3):
        transform = matrix(rng, dim, width)
        got = evaluate(spec, points, transform=transform)
        np.testing.assert_array_equal(bits(got), bits(evaluate(spec, affine_points(points, transform))))


def test_mapping_without_rotation_is_scale_then_offset_exactly() -> None:
    """``[diag(s) | t]`` with rows picked (a plane, W as a constant row) gives ``(p * s + t)[:, axes]`` bit for bit,
    the add-on's numpy transform before the kernel did it."""
    rng = np.random.default_rng(5)
    points = rng.uniform(-3.0, 3.0, size=(1000, 3)).astype(np.float32)
    scale, offset = np.array([1.3, -0.7, 4.1]), np.array([0.1, 17.25, -3.3])
    moved = np.asarray(points, dtype=np.float64) * scale + offset
    full = np.hstack([np.diag(scale), offset[:, None]])
    for axes in ((0, 1, 2), (0, 2), (1,)):
        np.testing.assert_array_equal(bits(affine_points(points, full[list(axes)])), bits(moved[:, axes].copy()))
    with_w = np.vstack([full, [0.0, 0.0, 0.0, 0.25]])
    np.testing.assert_array_equal(affine_points(points, with_w)[:, 3], np.full(1000, 0.25))


def test_identity_transform_reads_the_points_as_they_are() -> None:
    points = np.random.default_rng(1).uniform(-3.0, 3.0, size=(COUNT, 3)).astype(np.float32)
    spec = NoiseSpec(kind="simplex", octaves=2)
    identity = np.hstack([np.eye(3), np.zeros((3, 1))])
    np.testing.assert_array_equal(bits(evaluate(spec, points, transform=identity)), bits(evaluate(spec, points)))


def test_warped_spec_takes_the_transformed_points() -> None:
    rng = np.random.default_rng(2)
    points = rng.uniform(-3.0, 3.0, size=(500, 3))
    spec = NoiseSpec(kind="perlin", warp="independent", warp_amplitude=0.3)
    transform = matrix(rng, 2, 3)
    expected = evaluate(spec, affine_points(points, transform))
    np.testing.assert_array_equal(bits(evaluate(spec, points, transform=transform)), bits(expected))


@given(
    entries=st.lists(st.floats(-8.0, 8.0, allow_subnormal=False), min_size=8, max_size=8),
    seed=st.integers(0, 2**31 - 1),
)
def test_any_affine_map(entries: list[float], seed: int) -> None:
    points = np.random.default_rng(seed).uniform(-2.0, 2.0, size=(300, 3)).astype(np.float32)
    transform = np.array(entries).reshape(2, 4)
    spec = NoiseSpec(kind="perlin", seed=seed % 1000)
    np.testing.assert_array_equal(
        bits(evaluate(spec, points, transform=transform)), bits(evaluate(spec, affine_points(points, transform)))
    )


def test_empty_points() -> None:
    out = evaluate(NoiseSpec(), np.empty((0, 3)), transform=np.zeros((2, 4)))
    assert out.shape == (0,) and out.dtype == np.float32


def test_coordinates_beyond_the_lattice_after_the_transform() -> None:
    points = np.ones((10, 3))
    with pytest.raises(ValueError, match="exceed the 32-bit lattice"):
        evaluate(NoiseSpec(kind="perlin"), points, transform=[[1e12, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]])


@pytest.mark.parametrize(
    ("transform", "error", "message"),
    [
        ("abc", TypeError, "transform: expected a"),
        ([[1.0, 2.0]], ValueError, r"transform: shape must be \(d, 4\)"),
        (np.zeros((5, 4)), ValueError, r"transform: shape must be \(d, 4\)"),
        ([[np.nan, 0.0, 0.0, 0.0]], ValueError, "transform: entries must be finite"),
        (np.zeros((4, 4)), ValueError, "points: kind 'voronoi' is defined in 1, 2, 3 dimensions, got d=4"),
    ],
)
def test_bad_transform(transform: object, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        evaluate(NoiseSpec(kind="voronoi"), np.zeros((4, 3)), transform=transform)


def test_not_with_derivatives() -> None:
    with pytest.raises(ValueError, match="transform: not with derivatives"):
        evaluate(NoiseSpec(), np.zeros((4, 3)), derivatives=True, transform=np.zeros((2, 4)))


def test_check_transform_copies_into_float64() -> None:
    given_matrix = np.eye(2, 3, dtype=np.float32)
    checked = check_transform(given_matrix, 2)
    assert checked.dtype == np.float64 and checked.flags.c_contiguous and checked is not given_matrix


def test_compile_state_and_precompile_of_the_transform_launcher() -> None:
    spec = NoiseSpec(kind="perlin")
    assert precompile(spec, 3, np.float32, transform_width=3) in COMPILE_STATES
    assert compile_state(spec, 3, np.float32, transform_width=3) == "compiled"
    with pytest.raises(ValueError, match="transform_width: must be 1, 2, 3 or 4"):
        compile_state(spec, 3, np.float32, transform_width=5)


@pytest.mark.parametrize("kind", ["perlin", "voronoi"])
def test_evaluate_lattice_is_evaluate_of_the_lattice_points(kind: str) -> None:
    """The separable grid kernel (Perlin) and the point kernel in grid mode (Voronoi), and a warped spec."""
    xs = np.linspace(-1.3, 2.2, 37) * 3.1 + 0.25
    ys = np.linspace(-0.7, 0.9, 21) * 1.7 - 4.5
    points = np.column_stack([np.tile(xs, ys.shape[0]), np.repeat(ys, xs.shape[0])])
    for spec in (NoiseSpec(kind=kind, octaves=3), NoiseSpec(kind=kind, warp="independent")):
        got = evaluate_lattice(spec, xs, ys)
        assert got.shape == (21, 37)
        np.testing.assert_array_equal(bits(got.ravel()), bits(evaluate(spec, points)))


def test_evaluate_lattice_errors() -> None:
    with pytest.raises(ValueError, match="exceed the 32-bit lattice"):
        evaluate_lattice(NoiseSpec(), np.array([0.0, 1e12]), np.zeros(3))
    with pytest.raises(ValueError, match="must be finite"):
        evaluate_lattice(NoiseSpec(), np.array([0.0, np.nan]), np.zeros(3))
    with pytest.raises(ValueError, match="xs: expected a 1-D array"):
        evaluate_lattice(NoiseSpec(), np.zeros((2, 2)), np.zeros(3))
    assert evaluate_lattice(NoiseSpec(), np.zeros(0), np.zeros(3)).shape == (3, 0)
