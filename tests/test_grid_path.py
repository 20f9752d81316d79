"""The separable grid path (``noise_core.grid_kernels``): the same bits as the point path on every grid."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import noise_core as nc
from noise_core import api, fractal, grid_kernels
from noise_core.api import grid_coordinates
from noise_core.fractal import fractal_sum
from noise_core.grid_kernels import grid_kernel_and_signature, grid_sum, separable
from noise_core.ranges import float32_range
from noise_core.registry import kernel_arguments
from noise_core.warp import is_warped

# Sweeps every kernel variant: once per run (scripts/run.sh), the golden digests pin the bits on both Pythons.
pytestmark = pytest.mark.once_per_run

SHAPES = ((1, 7), (33, 65), (64, 64), (5, 1), (3, fractal.BLOCK - 1))  # the last: three blocks, one partial
WINDOWS = (((100, 300), (17, 33, 40, 29)), ((65, 33), (0, 0, 1, 33)), ((1, 7), (0, 3, 1, 4)))


def point_kernel(spec: nc.NoiseSpec, points: np.ndarray) -> np.ndarray:
    """The noise of ``spec`` (no warp) at ``points`` through the generic point kernel itself (``evaluate``
    hands lattices of points to the grid kernel)."""
    out = np.empty(points.shape[0], dtype=np.float32)
    family, variant, params = kernel_arguments(spec, points.shape[1])
    fractal_sum(points, out, family, points.shape[1], variant, spec, params, 2.0**31, float32_range(spec))
    return out


def point_path(spec: nc.NoiseSpec, shape: tuple[int, int], window=None) -> np.ndarray:
    """The noise of ``spec`` at the grid's pixel centres through the generic point kernel (``evaluate`` on the
    pixel centres for a warped spec, whose moved points are no lattice)."""
    rows, cols = shape if window is None else window[2:]
    points = np.column_stack(grid_coordinates(shape, window))
    values = nc.evaluate(spec, points) if is_warped(spec) else point_kernel(spec, points)
    return values.reshape(rows, cols)


def grid_kernel_path(spec: nc.NoiseSpec, shape: tuple[int, int], window=None) -> np.ndarray:
    """The same grid through ``grid_kernels.grid_sum``, with the coordinates ``grid_coordinates`` uses."""
    height, width = shape
    row0, col0, rows, cols = (0, 0, height, width) if window is None else window
    xs = (np.arange(col0, col0 + cols, dtype=np.float64) + 0.5) / width
    ys = (np.arange(row0, row0 + rows, dtype=np.float64) + 0.5) / height
    out = np.empty((rows, cols), dtype=np.float32)
    grid_sum(xs, ys, out, spec, float32_range(spec))
    return out


def assert_same_bits(expected: np.ndarray, actual: np.ndarray) -> None:
    assert expected.dtype == actual.dtype == np.float32
    np.testing.assert_array_equal(expected.view(np.uint32), actual.view(np.uint32))


# (octaves, lacunarity, persistence, frequency, seed): whole numbers (tileable) and fractional ones (untiled)
WHOLE = ((1, 2.0, 0.5, 4.0, 0), (3, 3.0, 0.8, 1.0, -5), (6, 2.0, 0.35, 37.0, 2**31 - 1), (16, 2.0, 0.5, 1.0, 7))
FRACTIONAL = ((1, 2.0, 0.5, 4.7, 11), (5, 2.17, 0.61, 0.93, -(2**31)), (4, 0.5, 1.7, 1234.5, 3))


@pytest.mark.parametrize("kind", ["value", "perlin"])
@pytest.mark.parametrize("tiling", [False, True])
@pytest.mark.parametrize("turbulence", [False, True])
def test_grid_kernel_matches_the_point_path_bit_for_bit(kind: str, tiling: bool, turbulence: bool) -> None:
    cases = WHOLE if tiling else WHOLE + FRACTIONAL
    for (octaves, lacunarity, persistence, frequency, seed), shape in itertools.product(cases, SHAPES):
        spec = nc.NoiseSpec(
            kind=kind,
            tiling=tiling,
            turbulence=turbulence,
            octaves=octaves,
            lacunarity=lacunarity,
            persistence=persistence,
            frequency=frequency,
            seed=seed,
        )
        assert_same_bits(point_path(spec, shape), grid_kernel_path(spec, shape))


@pytest.mark.parametrize("kind", ["value", "perlin"])
@pytest.mark.parametrize("tiling", [False, True])
def test_grid_kernel_windows_match_the_point_path(kind: str, tiling: bool) -> None:
    spec = nc.NoiseSpec(kind=kind, tiling=tiling, octaves=4, frequency=3.0, seed=9)
    for shape, window in WINDOWS:
        assert_same_bits(point_path(spec, shape, window), grid_kernel_path(spec, shape, window))


@pytest.mark.parametrize("kind", ["value", "perlin"])
@pytest.mark.parametrize("tiling", [False, True])
def test_grid_kernel_both_blends_match(kind: str, tiling: bool) -> None:
    """Octaves with wide lattice cells hash once per cell and row (``RUN_LENGTH`` columns or more per cell),
    narrow ones per pixel: 1 to 2048 cells over 4096 columns take both, also in one spec. Grids wider than a
    ``STRIP`` are computed strip by strip."""
    assert (grid_kernels.RUN_LENGTH, grid_kernels.STRIP) == (8, 4096)
    for octaves, frequency in ((12, 1.0), (1, 511.0), (1, 513.0), (2, 300.0)):
        spec = nc.NoiseSpec(kind=kind, tiling=tiling, octaves=octaves, frequency=frequency, persistence=0.9)
        for shape in ((3, 4096), (2, 4095), (2, 9000)):
            assert_same_bits(point_path(spec, shape), grid_kernel_path(spec, shape))
        for shape, window in (((3, 4096), (1, 1000, 2, 3000)), ((2, 9000), (0, 4000, 2, 4200))):
            assert_same_bits(point_path(spec, shape, window), grid_kernel_path(spec, shape, window))


MODES = (
    dict(fractal="multifractal", octaves=5, persistence=0.6),
    dict(fractal="multifractal", octaves=3, persistence=1.3, lacunarity=3.0),
    dict(fractal="hetero_terrain", octaves=6, offset=0.7),
    dict(fractal="hetero_terrain", octaves=2, offset=-0.2, persistence=0.9),
    dict(fractal="hybrid", octaves=8, offset=0.8, gain=1.5),
    dict(fractal="hybrid", octaves=5, offset=0.25, gain=4.0),  # weights fall below 0.001: octaves skipped
    dict(fractal="ridged", octaves=6, offset=1.0, gain=2.0),
    dict(fractal="ridged", octaves=1, offset=0.5, gain=0.0, frequency=7.0),
)


@pytest.mark.parametrize("kind", ["value", "perlin"])
@pytest.mark.parametrize("tiling", [False, True])
@pytest.mark.parametrize("options", MODES, ids=lambda options: options["fractal"])
def test_grid_kernel_musgrave_modes_match_the_point_path(kind: str, tiling: bool, options: dict) -> None:
    spec = nc.NoiseSpec(kind=kind, tiling=tiling, seed=21, **options)
    assert separable(spec)
    for shape in SHAPES:
        assert_same_bits(point_path(spec, shape), grid_kernel_path(spec, shape))
    shape, window = WINDOWS[0]
    assert_same_bits(point_path(spec, shape, window), nc.evaluate_grid(spec, shape, window))


class Calls:
    """Stands in for ``api.grid_sum`` (or ``function``): counts the calls and runs the real one."""

    def __init__(self, function=grid_sum) -> None:
        self.count = 0
        self.function = function

    def __call__(self, *arguments) -> None:
        self.count += 1
        self.function(*arguments)


@pytest.mark.parametrize("kind", ["value", "perlin"])
@pytest.mark.parametrize("tiling", [False, True])
def test_evaluate_grid_runs_value_and_perlin_on_the_grid_path(
    kind: str, tiling: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = Calls()
    monkeypatch.setattr(api, "grid_sum", calls)
    specs = [
        nc.NoiseSpec(kind=kind, tiling=tiling, octaves=5, frequency=2.0, persistence=0.7, seed=-3),
        nc.NoiseSpec(kind=kind, tiling=tiling, turbulence=True, octaves=3, lacunarity=3.0),
        nc.NoiseSpec(kind=kind, tiling=tiling, warp="independent", warp_amplitude=0.0),  # amplitude 0: no warp
        nc.NoiseSpec(kind=kind, tiling=tiling, fractal="ridged", octaves=4, offset=1.0, gain=2.0),
    ]
    for spec in specs:
        assert separable(spec)
        for shape in SHAPES:
            assert_same_bits(point_path(spec, shape), nc.evaluate_grid(spec, shape))
        for shape, window in WINDOWS:
            assert_same_bits(point_path(spec, shape, window), nc.evaluate_grid(spec, shape, window))
            whole = nc.evaluate_grid(spec, shape)
            row0, col0, rows, cols = window
            assert_same_bits(whole[row0 : row0 + rows, col0 : col0 + cols], nc.evaluate_grid(spec, shape, window))
    assert calls.count == len(specs) * (len(SHAPES) + 3 * len(WINDOWS))


OTHER_PATH = (
    nc.NoiseSpec(kind="simplex", octaves=3),
    nc.NoiseSpec(kind="simplex_value", tiling=False),
    nc.NoiseSpec(kind="voronoi", octaves=2),
    nc.NoiseSpec(kind="value", warp="progressive", warp_amplitude=0.3, warp_octaves=2),
    nc.NoiseSpec(kind="perlin", warp="independent", warp_amplitude=0.2, tiling=True),
)


@pytest.mark.parametrize("spec", OTHER_PATH, ids=lambda spec: f"{spec.kind}-{spec.fractal}-{spec.warp}")
def test_other_specs_keep_the_point_kernel(spec: nc.NoiseSpec, monkeypatch: pytest.MonkeyPatch) -> None:
    """Not separable: the point kernel, in grid mode when unwarped (no (N, 2) array), on the points when warped."""
    calls = Calls()
    monkeypatch.setattr(api, "grid_sum", calls)
    assert not separable(spec)
    shape, window = WINDOWS[0]
    assert_same_bits(point_path(spec, shape), nc.evaluate_grid(spec, shape))
    assert_same_bits(point_path(spec, shape, window), nc.evaluate_grid(spec, shape, window))
    if spec.warp == "none":  # a warp's components, unwarped noise at the grid's points, may take the grid kernel
        assert calls.count == 0


GRID_MODE = (
    nc.NoiseSpec(kind="simplex_value", octaves=2),
    nc.NoiseSpec(kind="simplex", fractal="hybrid", offset=0.5, gain=1.5, octaves=3),
    nc.NoiseSpec(kind="voronoi", function="f2_minus_f1", tiling=True, octaves=2),
    nc.NoiseSpec(kind="voronoi", function="cell", distance="chebyshev"),
    nc.NoiseSpec(kind="cellular", function="f2", tiling=True),
    nc.NoiseSpec(kind="hill"),
)


@pytest.mark.parametrize("spec", GRID_MODE, ids=lambda spec: f"{spec.kind}-{spec.fractal}-{spec.tiling}")
@pytest.mark.parametrize("shape", SHAPES)
def test_point_kernel_in_grid_mode_matches_it_bit_for_bit(
    spec: nc.NoiseSpec, shape: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The grid mode makes the pixel centres in the kernel (point ``i`` at column ``i mod W``, row ``i div W``):
    the same coordinates as the (N, 2) array, so the same bits; also across block boundaries."""
    calls = Calls(fractal.fractal_grid_sum)
    monkeypatch.setattr(api, "fractal_grid_sum", calls)
    assert_same_bits(point_path(spec, shape), nc.evaluate_grid(spec, shape))
    assert calls.count == 1
    for whole, window in WINDOWS:
        assert_same_bits(point_path(spec, whole, window), nc.evaluate_grid(spec, whole, window))


@pytest.mark.parametrize("spec", GRID_MODE[:3], ids=lambda spec: spec.kind)
def test_evaluate_hands_lattices_of_other_kinds_to_the_grid_mode(
    spec: nc.NoiseSpec, monkeypatch: pytest.MonkeyPatch
) -> None:
    xs = np.linspace(-3.3, 7.1, 301).astype(np.float32)
    ys = np.linspace(9.0, 2.0, 77).astype(np.float32)
    points = np.column_stack([np.tile(xs, ys.shape[0]), np.repeat(ys, xs.shape[0])])
    calls = Calls(fractal.fractal_grid_sum)
    monkeypatch.setattr(api, "fractal_grid_sum", calls)
    assert_same_bits(point_kernel(spec, points), nc.evaluate(spec, points))
    assert calls.count == 1


def test_precompile_in_2d_compiles_the_grid_mode_kernel() -> None:
    spec = nc.NoiseSpec(kind="voronoi", function="f2", octaves=2)
    *_, (block, block_signature), (launcher, signature) = api.plan(spec, 2, lattice=True)
    nc.precompile(spec, 2)
    assert signature in launcher.overloads and block_signature in block.overloads
    before = dict(launcher.overloads)
    nc.evaluate_grid(spec, (3, 5))
    assert launcher.overloads.keys() == before.keys()


def test_out_of_range_coordinates_raise_the_point_paths_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """Grid coordinates lie in (0, 1), inside the lattice for every valid spec; were the limit lower, the
    grid gives the point path's error rather than meaningless values."""
    spec = nc.NoiseSpec(kind="perlin", frequency=8.0)
    monkeypatch.setattr(api, "_lattice_limit", lambda spec: 0.5)
    with pytest.raises(ValueError, match=r"^points: coordinates up to 0\.875 at frequency 8 exceed the 32-bit lattice"):
        nc.evaluate_grid(spec, (4, 4))
    with pytest.raises(ValueError, match=r"^points: coordinates up to"):
        nc.evaluate_grid(spec, (4, 4), window=(0, 0, 1, 4))  # rows below 0.5, columns above


def test_precompile_in_2d_compiles_the_grid_kernel() -> None:
    spec = nc.NoiseSpec(kind="value", tiling=True, octaves=2)
    kernel, signature = grid_kernel_and_signature(spec)
    nc.precompile(spec, 2)
    assert signature in kernel.overloads
    # the signature is the one evaluate_grid calls with
    before = dict(kernel.overloads)
    nc.evaluate_grid(spec, (3, 5))
    assert kernel.overloads.keys() == before.keys()
    assert grid_kernels.grid_kernel_for(0, True) is kernel


LATTICE_SPECS = (
    nc.NoiseSpec(kind="perlin", octaves=4),
    nc.NoiseSpec(kind="value", tiling=True, fractal="ridged", offset=1.0, gain=2.0, octaves=3),
)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("spec", LATTICE_SPECS, ids=["perlin", "value"])
def test_evaluate_hands_lattices_of_points_to_the_grid_kernel(
    spec: nc.NoiseSpec, dtype: type, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Any axis-aligned lattice of 2D points in rows (a bake's plane, a grid mesh), not only pixel centres."""
    xs = np.linspace(-3.3, 7.1, 301).astype(dtype)
    ys = np.linspace(9.0, 2.0, 77).astype(dtype)
    points = np.column_stack([np.tile(xs, ys.shape[0]), np.repeat(ys, xs.shape[0])])
    calls = Calls()
    monkeypatch.setattr(api, "grid_sum", calls)
    assert_same_bits(point_kernel(spec, points), nc.evaluate(spec, points))
    assert calls.count == 1


def test_points_that_are_not_a_lattice_keep_the_point_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = nc.NoiseSpec(kind="perlin", octaves=2)
    xs, ys = np.linspace(0.0, 1.0, 40), np.linspace(0.0, 1.0, 30)
    lattice = np.column_stack([np.tile(xs, ys.shape[0]), np.repeat(ys, xs.shape[0])])
    moved = lattice.copy()
    moved[500, 0] += 1e-9  # one point off its column
    cases = {
        "random": np.random.default_rng(0).uniform(-4, 4, (2000, 2)),
        "one point moved": moved,
        "a partial last row": lattice[:-3],
        "narrow rows": np.column_stack([np.tile(xs[:4], 300), np.repeat(np.linspace(0, 1, 300), 4)]),
    }
    calls = Calls()
    monkeypatch.setattr(api, "grid_sum", calls)
    for points in cases.values():
        assert api.lattice_axes(points) is None
        assert_same_bits(point_kernel(spec, points), nc.evaluate(spec, points))
    assert calls.count == 0
    with pytest.raises(ValueError, match=r"^points: coordinates must be finite"):
        nan_lattice = lattice.copy()
        nan_lattice[:, 0][lattice[:, 0] == xs[3]] = np.nan
        nc.evaluate(spec, nan_lattice)


@pytest.mark.parametrize(
    "spec",
    [
        nc.NoiseSpec(kind="voronoi", distance="manhattan", function="f2_minus_f1", tiling=True, fractal="multifractal"),
        nc.NoiseSpec(kind="perlin", fractal="hetero_terrain", offset=0.25, tiling=True),
    ],
    ids=["grid mode", "separable"],
)
def test_compile_state_of_the_grid_kernels(spec: nc.NoiseSpec) -> None:
    """``compile_state(..., grid=True)`` asks about the kernels ``evaluate_grid`` and lattices of points run (the
    lattice test, then the grid kernels), which evaluating a lattice compiles (the point launcher it does not
    need may stay uncompiled)."""
    nc.evaluate(spec, np.column_stack(grid_coordinates((4, 9))))
    assert nc.compile_state(spec, 2, grid=True) == "compiled"
    kernels = api.plan(spec, 2, lattice=True)
    wanted = grid_kernel_and_signature(spec)[0] if separable(spec) else fractal.launcher_for(2, grid=True)
    assert wanted in [kernel for kernel, _ in kernels]
    assert all(signature in kernel.overloads for kernel, signature in kernels)
