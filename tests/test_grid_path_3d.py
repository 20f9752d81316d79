"""3D lattices (``evaluate_lattice`` with ``zs``): the separable 3D grid kernel (``grid_kernels.grid_sum_3d``) for
value and Perlin noise, the row kernel of simplex noise (``grid_kernels.simplex_grid_sum_3d``) and the point kernel
in 3D grid mode (``fractal.fractal_grid_sum_3d``) for the other kinds (and narrow simplex lattices) give the point
path's bits at the lattice's points (x fastest, z slowest)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import noise_core as nc
from noise_core import api, fractal, grid_kernels
from noise_core.api import evaluate_lattice
from noise_core.fractal import fractal_sum
from noise_core.lattice import smooth32
from noise_core.lattice_noise import _blend_3d, blend_3d_of_vectors, corner_vectors_3d
from noise_core.ranges import float32_range
from noise_core.registry import kernel_arguments

# Sweeps every kernel variant: once per run (scripts/run.sh), the golden digests pin the bits on both Pythons.
pytestmark = pytest.mark.once_per_run


def lattice_points(xs: np.ndarray, ys: np.ndarray, zs: np.ndarray) -> np.ndarray:
    """The (N, 3) points of the lattice, x fastest and z slowest."""
    z, y, x = np.meshgrid(zs, ys, xs, indexing="ij")
    return np.column_stack([x.reshape(-1), y.reshape(-1), z.reshape(-1)])


def point_kernel(spec: nc.NoiseSpec, xs: np.ndarray, ys: np.ndarray, zs: np.ndarray) -> np.ndarray:
    """The noise of ``spec`` at the lattice through the generic point kernel itself."""
    points = lattice_points(xs, ys, zs)
    out = np.empty(points.shape[0], dtype=np.float32)
    family, variant, params = kernel_arguments(spec, 3)
    fractal_sum(points, out, family, 3, variant, spec, params, 2.0**31, float32_range(spec))
    return out.reshape(zs.shape[0], ys.shape[0], xs.shape[0])


def assert_same_bits(expected: np.ndarray, actual: np.ndarray) -> None:
    assert expected.dtype == actual.dtype == np.float32 and expected.shape == actual.shape
    np.testing.assert_array_equal(expected.view(np.uint32), actual.view(np.uint32))


class Calls:
    def __init__(self, function):
        self.function, self.count = function, 0

    def __call__(self, *arguments):
        self.count += 1
        return self.function(*arguments)


SEPARABLE = (
    nc.NoiseSpec(kind="value", frequency=4.0),
    nc.NoiseSpec(kind="perlin", octaves=3, lacunarity=2.17, persistence=0.61, frequency=0.93, seed=-(2**31)),
    nc.NoiseSpec(kind="perlin", tiling=True, octaves=2, frequency=3.0, seed=7),
    nc.NoiseSpec(kind="value", fractal="ridged", offset=1.0, gain=2.0, octaves=3, frequency=37.0),
)
AXES = (
    ((np.arange(40) + 0.5) / 40, (np.arange(33) + 0.5) / 33, (np.arange(5) + 0.5) / 5),  # runs; 165 rows: 3 chunks
    (np.linspace(-3.3, 7.1, 13), np.linspace(9.0, 2.0, 4), np.array([-0.25])),  # pixels hash their own corners
    (np.linspace(0.0, 1.0, fractal.BLOCK + 3), np.array([0.5]), np.array([0.1, 0.9])),  # blocks of the grid mode
    (np.linspace(-1.0, 1.0, grid_kernels.STRIP + 5), np.array([0.3, 0.7]), np.array([0.2])),  # two strips
)


@pytest.mark.parametrize("spec", SEPARABLE, ids=lambda spec: f"{spec.kind}-{spec.fractal}-{spec.tiling}")
def test_separable_3d_grid_matches_the_point_kernel(spec: nc.NoiseSpec, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = Calls(api.grid_sum_3d)
    monkeypatch.setattr(api, "grid_sum_3d", calls)
    for xs, ys, zs in AXES:
        assert_same_bits(point_kernel(spec, xs, ys, zs), evaluate_lattice(spec, xs, ys, zs=zs))
        assert_same_bits(nc.evaluate(spec, lattice_points(xs, ys, zs)).reshape(zs.size, ys.size, xs.size),
                         evaluate_lattice(spec, xs, ys, zs=zs))  # fmt: skip
    assert calls.count == 2 * len(AXES)


@pytest.mark.parametrize(
    "spec",
    (nc.NoiseSpec(kind="voronoi", function="f2"), nc.NoiseSpec(kind="white")),
    ids=lambda spec: spec.kind,
)
def test_other_kinds_run_the_point_kernel_in_3d_grid_mode(spec: nc.NoiseSpec, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = Calls(api.fractal_grid_sum_3d)
    monkeypatch.setattr(api, "fractal_grid_sum_3d", calls)
    for xs, ys, zs in AXES:
        assert_same_bits(point_kernel(spec, xs, ys, zs), evaluate_lattice(spec, xs, ys, zs=zs))
    assert calls.count == len(AXES)


SIMPLEX = (
    nc.NoiseSpec(kind="simplex", octaves=2),
    nc.NoiseSpec(kind="simplex", hash="prime", frequency=3.1, seed=-(2**31)),
    nc.NoiseSpec(kind="simplex_value", fractal="ridged", offset=1.0, gain=2.0, octaves=3, frequency=2.3, seed=-5),
)
SIMPLEX_AXES = (  # (axes, rows of simplex_grid_sum_3d): wide rows, and narrow ones in the point kernel's grid mode
    ((np.linspace(-3.3, 7.1, 50), np.array([9.0, 2.0, -0.4]), np.array([-0.25, -1e3])), True),  # negative, far
    ((np.linspace(7.0, -2.0, 48), np.array([0.5]), np.array([0.1, 0.9])), True),  # descending columns
    ((np.linspace(0.0, 1.0, fractal.BLOCK + 3) + 250.0, np.array([-0.5]), np.array([0.1])), True),  # two chunks
    ((np.linspace(-1.0, 1.0, grid_kernels.SIMPLEX_ROW_COLUMNS - 1), np.array([0.3, 0.7]), np.array([0.2])), False),
)


@pytest.mark.parametrize("spec", SIMPLEX, ids=lambda spec: f"{spec.kind}-{spec.fractal}-{spec.hash}")
def test_simplex_3d_lattice_runs_row_by_row_with_the_point_paths_bits(
    spec: nc.NoiseSpec, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = Calls(api.simplex_grid_sum_3d)
    grid_mode = Calls(api.fractal_grid_sum_3d)
    monkeypatch.setattr(api, "simplex_grid_sum_3d", rows)
    monkeypatch.setattr(api, "fractal_grid_sum_3d", grid_mode)
    for (xs, ys, zs), by_rows in SIMPLEX_AXES:
        before = rows.count
        assert_same_bits(point_kernel(spec, xs, ys, zs), evaluate_lattice(spec, xs, ys, zs=zs))
        assert rows.count == before + by_rows
    assert grid_mode.count == sum(not by_rows for _, by_rows in SIMPLEX_AXES)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    hashed=st.sampled_from(["smallxxhash", "prime"]),
    octaves=st.integers(1, 2),
    frequency=st.floats(0.05, 80.0),
    seed=st.integers(-(2**31), 2**31 - 1),
    sizes=st.tuples(st.integers(grid_kernels.SIMPLEX_ROW_COLUMNS, 90), st.integers(1, 3), st.integers(1, 2)),
    origin=st.tuples(*[st.floats(-1e4, 1e4)] * 3),
    step=st.floats(-1.0, 1.0).filter(lambda step: abs(step) >= 1e-4),
)
def test_any_simplex_3d_lattice_by_rows_has_the_point_paths_bits(hashed, octaves, frequency, seed, sizes, origin,
                                                                  step) -> None:  # fmt: skip
    spec = nc.NoiseSpec(kind="simplex", hash=hashed, octaves=octaves, frequency=frequency, seed=seed)
    xs, ys, zs = (start + step * np.arange(size) for start, size in zip(origin, sizes, strict=True))
    assert_same_bits(point_kernel(spec, xs, ys, zs), evaluate_lattice(spec, xs, ys, zs=zs))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    kind=st.sampled_from(["value", "perlin", "simplex"]),
    tiling=st.booleans(),
    octaves=st.integers(1, 3),
    frequency=st.floats(0.25, 50.0),
    seed=st.integers(-(2**31), 2**31 - 1),
    sizes=st.tuples(st.integers(1, 70), st.integers(1, 6), st.integers(1, 4)),
    origin=st.tuples(*[st.floats(-1e3, 1e3)] * 3),
    step=st.floats(1e-3, 1.0),
)
def test_any_3d_lattice_has_the_point_paths_bits(kind, tiling, octaves, frequency, seed, sizes, origin, step) -> None:
    tiling = tiling and kind != "simplex"  # simplex noise does not tile
    frequency = float(max(1, round(frequency))) if tiling else frequency  # tiling takes whole frequencies
    spec = nc.NoiseSpec(kind=kind, tiling=tiling, octaves=octaves, frequency=frequency, seed=seed)
    xs, ys, zs = (start + step * np.arange(size) for start, size in zip(origin, sizes, strict=True))
    assert_same_bits(point_kernel(spec, xs, ys, zs), evaluate_lattice(spec, xs, ys, zs=zs))


def test_progress_reports_slices_and_keeps_the_bits() -> None:
    spec = nc.NoiseSpec(kind="perlin", octaves=2)
    xs, ys, zs = np.linspace(0, 1, 600), np.linspace(0, 1, 500), np.linspace(0, 1, 3)  # 300000 points a slice
    seen = []
    blocks = evaluate_lattice(spec, xs, ys, lambda done, total: seen.append((done, total)), zs=zs)
    assert seen == [(1, 3), (2, 3), (3, 3)]
    assert_same_bits(evaluate_lattice(spec, xs, ys, zs=zs), blocks)


def test_3d_lattice_errors() -> None:
    with pytest.raises(ValueError, match=r"^zs: expected a 1-D array of coordinates, got shape \(2, 2\)"):
        evaluate_lattice(nc.NoiseSpec(), np.zeros(3), np.zeros(3), zs=np.zeros((2, 2)))
    with pytest.raises(ValueError, match=r"^points: coordinates up to .* exceed the 32-bit lattice"):
        evaluate_lattice(nc.NoiseSpec(), np.zeros(3), np.zeros(3), zs=np.array([0.0, 1e12]))
    with pytest.raises(ValueError, match=r"^points: "):
        evaluate_lattice(nc.NoiseSpec(kind="simplex"), np.zeros(3), np.array([np.nan]), zs=np.zeros(2))
    assert evaluate_lattice(nc.NoiseSpec(), np.zeros(4), np.zeros(3), zs=np.zeros(0)).shape == (0, 3, 4)


@settings(max_examples=60, deadline=None)
@given(
    gradient=st.sampled_from([0, 1]),
    hashes=st.tuples(*[st.integers(0, 2**32 - 1)] * 8),
    offsets=st.tuples(*[st.floats(0.0, 1.0, width=32)] * 3),
)
def test_blend_of_corner_vectors_has_the_blends_bits(gradient, hashes, offsets) -> None:
    """``blend_3d_of_vectors`` (the 3D grid kernel's, corners read once per cell) against ``_blend_3d``."""
    h = tuple(np.uint32(value) for value in hashes)
    gx, gy, gz = (np.float32(value) for value in offsets)
    tx, ty, tz = (np.float32(smooth32(value)) for value in (gx, gy, gz))
    vectors = np.empty(24, dtype=np.float32)
    corner_vectors_3d(gradient, h, vectors)
    expected = _blend_3d(gradient, h, gx, tx, gy, ty, gz, tz)
    actual = blend_3d_of_vectors(gradient, vectors, gx, tx, gy, ty, gz, tz)
    assert np.float32(expected).view(np.uint32) == np.float32(actual).view(np.uint32)
