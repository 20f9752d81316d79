"""Fluvial (stream power) erosion, ``noise_core/fluvial.py``: analytic profiles, the slope-area law, fastscapelib."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import noise_core as nc
from noise_core.terrain.fluvial import FLUVIAL_OPTIONS, erode_fluvial
from noise_core.terrain.heightfield import NEIGHBOURS


def noise_terrain(shape: tuple[int, int] = (48, 56), relief: float = 40.0) -> np.ndarray:
    spec = nc.NoiseSpec(kind="perlin", octaves=4, frequency=3.0, seed=11)
    return (nc.ranges.to_unit(spec, nc.evaluate_grid(spec, shape)) * relief).astype(np.float32)


def channel(length: int, slope: float, cell: float) -> np.ndarray:
    """Three rows: high walls (base level, never drained into) around a middle row rising from 0 along x;
    the middle row is a 1-D river draining to its left end."""
    heights = np.full((3, length), 1e4)
    heights[1, :-1] = slope * cell * np.arange(length - 1)
    return heights


def steepest_slopes(heights: np.ndarray, cell: float) -> np.ndarray:
    """Each inner cell's steepest drop per distance to a neighbour (0 when none is lower)."""
    rows, columns = heights.shape
    h = heights.astype(np.float64)
    best = np.zeros((rows - 2, columns - 2))
    for dy, dx in NEIGHBOURS:
        neighbour = h[1 + dy : rows - 1 + dy, 1 + dx : columns - 1 + dx]
        best = np.maximum(best, (h[1:-1, 1:-1] - neighbour) / (math.hypot(dy, dx) * cell))
    return best


@pytest.mark.parametrize("n", [1.0, 2.0])
def test_a_uniform_slope_wears_down_at_k_times_s_to_the_n(n: float) -> None:
    """With m = 0 and no uplift, ∂h/∂t = -K·S^n is a kinematic wave: a plane of slope S0 keeps its slope and
    drops by K·S0^n·t wherever the outlet's knickpoint (moving at K·S0^(n-1)) has not arrived. The implicit
    scheme is exact there (the solve of a uniform slope is)."""
    cell, slope, k, dt, steps = 10.0, 0.2, 1e-3, 50.0, 40
    heights = channel(200, slope, cell)
    result = erode_fluvial(heights, cell_size=cell, steps=steps, dt=dt, uplift=0.0, erodibility=k, m=0.0, n=n)
    time = dt * steps
    x = np.arange(200 - 1)
    reached = k * slope ** (n - 1.0) * time / cell  # cells the knickpoint has travelled
    far = x > reached + 20
    expected = slope * cell * x - k * slope**n * time
    np.testing.assert_allclose(result.heights[1, :-1][far], expected[far], rtol=1e-5)
    assert np.all(result.heights[1, :-1][~far] <= slope * cell * x[~far])
    assert np.array_equal(result.heights[[0, 2]], heights[[0, 2]].astype(np.float32))


@pytest.mark.parametrize(("m", "n"), [(0.5, 1.0), (0.4, 1.5)])
def test_a_river_profile_reaches_its_analytic_steady_state(m: float, n: float) -> None:
    """1-D river with uplift: at steady state every cell's slope to its receiver is (U/K)^(1/n)·A^(-m/n), A the
    area of the cells upstream of it (itself included), so h(x) = Σ over the cells from the outlet."""
    cell, uplift, k, length = 100.0, 1e-3, 1e-4, 60
    heights = channel(length, 0.0, cell)
    result = erode_fluvial(heights, cell_size=cell, steps=300, dt=2e4, uplift=uplift, erodibility=k, m=m, n=n)
    cells = np.arange(1, length - 1)
    area = (length - 1 - cells) * cell * cell
    slopes = (uplift / k) ** (1 / n) * area ** (-m / n)
    expected = np.concatenate(([0.0], np.cumsum(slopes * cell)))
    np.testing.assert_allclose(result.heights[1, :-1], expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(result.drainage_area[1, 1:-1], area, rtol=1e-6)


@pytest.mark.parametrize("n", [1.0, 2.0])
def test_steady_state_follows_the_slope_area_law(n: float) -> None:
    """Uniform U and K, D = 0: once steady, S = (U/K)^(1/n)·A^(-m/n) on every channel cell."""
    cell, uplift, k, m = 50.0, 1e-3, 5e-5, 0.5
    result = erode_fluvial(noise_terrain(), cell_size=cell, steps=400, dt=2e4, uplift=uplift, erodibility=k, n=n)
    slopes = steepest_slopes(result.heights, cell)
    area = result.drainage_area[1:-1, 1:-1].astype(np.float64)
    channels = area >= 5 * cell * cell
    assert channels.sum() > 200
    expected = (uplift / k) ** (1 / n) * area ** (-m / n)
    np.testing.assert_allclose(slopes[channels], expected[channels], rtol=2e-3)
    assert np.array_equal(result.rivers, result.drainage_area >= 100 * cell * cell)


def test_steady_relief_agrees_with_fastscapelib() -> None:
    """Same grid, parameters and initial heights, both at steady state (reached by step ~100): the height
    distributions agree within 3 % (the highest divides differ more: they depend on where the networks'
    branches end, which ties and routing details decide)."""
    from fastscapelib.eroders import SPLEroder
    from fastscapelib.flow import FlowGraph, PFloodSinkResolver, SingleFlowRouter
    from fastscapelib.grid import NodeStatus, RasterGrid

    cell, uplift, k, m, dt, steps = 50.0, 1e-3, 5e-5, 0.5, 2e4, 150
    initial = noise_terrain().astype(np.float64)
    ours = erode_fluvial(initial, cell_size=cell, steps=steps, dt=dt, uplift=uplift, erodibility=k, m=m)
    grid = RasterGrid(list(initial.shape), [cell, cell], NodeStatus.FIXED_VALUE)
    graph = FlowGraph(grid, [SingleFlowRouter(), PFloodSinkResolver()])
    eroder = SPLEroder(graph, k, m, 1.0, 1e-5)
    rates = np.full(initial.shape, uplift)
    rates[[0, -1], :] = rates[:, [0, -1]] = 0.0
    theirs = initial.copy()
    for _ in range(steps):
        lifted = theirs + dt * rates
        graph.update_routes(lifted)
        theirs = lifted - eroder.erode(lifted, graph.accumulate(1.0), dt)
    inner = (slice(1, -1), slice(1, -1))
    assert ours.heights[inner].mean() == pytest.approx(theirs[inner].mean(), rel=0.03)
    for percentile in (10, 50, 90):
        assert np.percentile(ours.heights[inner], percentile) == pytest.approx(
            np.percentile(theirs[inner], percentile), rel=0.03
        )


def test_diffusion_is_exact_on_a_sine_mode_and_stable_for_any_dt() -> None:
    """K = U = 0, edges at 0: a product of half sines is an eigenmode of both passes (they commute on it), so
    each step divides it exactly by (1 + c·λx)(1 + c·λy), c = D·dt/cell², λ = 2 - 2·cos(π/(cells - 1))."""
    rows, columns, cell, diffusion, dt, steps = 21, 31, 2.0, 0.5, 3.0, 4
    y, x = np.mgrid[0:rows, 0:columns]
    mode = 30.0 * np.sin(np.pi * y / (rows - 1)) * np.sin(np.pi * x / (columns - 1))
    mode[[0, -1], :] = mode[:, [0, -1]] = 0.0
    result = erode_fluvial(mode, cell_size=cell, steps=steps, dt=dt, uplift=0.0, erodibility=0.0,
                           diffusion=diffusion)  # fmt: skip
    c = diffusion * dt / cell**2
    decay = (
        (1 + c * (2 - 2 * np.cos(np.pi / (rows - 1)))) * (1 + c * (2 - 2 * np.cos(np.pi / (columns - 1))))
    ) ** -steps
    np.testing.assert_allclose(result.heights, mode * decay, rtol=1e-5, atol=1e-5)
    heights = noise_terrain((40, 40))
    for boundary in ("edges", "looped"):
        for dt in (1.0, 1e3, 1e9, 1e30):
            result = erode_fluvial(heights, steps=3, dt=dt, uplift=0.0, erodibility=0.0, diffusion=1.0,
                                   boundary=boundary)  # fmt: skip
            assert heights.min() - 1e-3 <= result.heights.min() and result.heights.max() <= heights.max() + 1e-3


def test_looped_result_tiles_and_moves_with_the_map() -> None:
    """Looped: no cell is special but the base level (the lowest cell), so rolling the input rolls the output."""
    heights = noise_terrain((40, 48))
    options = {"steps": 30, "dt": 1e4, "uplift": 1e-3, "erodibility": 5e-5, "diffusion": 0.01, "boundary": "looped"}
    result = erode_fluvial(heights, cell_size=20.0, **options)
    rolled = erode_fluvial(np.roll(heights, (7, -5), axis=(0, 1)), cell_size=20.0, **options)
    np.testing.assert_array_equal(np.roll(result.heights, (7, -5), axis=(0, 1)), rolled.heights)


def test_maps_precipitation_and_outlets() -> None:
    heights = noise_terrain()
    hard = np.where(np.arange(heights.shape[1]) < heights.shape[1] // 2, 1e-6, 1e-4) * np.ones(heights.shape)
    result = erode_fluvial(heights, cell_size=50.0, steps=50, dt=1e4, uplift=1e-3, erodibility=hard)
    left, right = result.heights[:, 1 : heights.shape[1] // 2], result.heights[:, heights.shape[1] // 2 : -1]
    assert left.mean() > right.mean()  # hard rock stands higher
    dry = erode_fluvial(heights, steps=1, dt=1.0, uplift=0.0, erodibility=0.0, precipitation=np.zeros(heights.shape))
    assert dry.drainage_area.max() == 0.0 and not dry.rivers.any()
    sea = np.zeros(heights.shape, bool)
    sea[20:25, 20:25] = True
    held = erode_fluvial(heights, steps=10, dt=1e4, uplift=1e-3, erodibility=1e-4, outlets=sea)
    assert np.array_equal(held.heights[sea], heights[sea])


def test_progress_is_called_after_every_step_and_zero_steps_only_fill() -> None:
    calls: list[tuple[int, int]] = []
    erode_fluvial(
        noise_terrain((20, 20)), steps=4, dt=1.0, uplift=1e-3, erodibility=1e-5, progress=lambda *a: calls.append(a)
    )
    assert calls == [(1, 4), (2, 4), (3, 4), (4, 4)]
    heights = noise_terrain((20, 20))
    result = erode_fluvial(heights, steps=0, dt=1.0, uplift=1.0, erodibility=1.0)
    np.testing.assert_array_equal(result.heights, nc.fill_depressions(heights, epsilon=False))
    assert result.eroded == 0.0 and result.deposited > 0.0


@settings(max_examples=25, deadline=None)
@given(
    dt=st.sampled_from([1e-6, 1.0, 1e6, 1e15]),
    uplift=st.sampled_from([0.0, 1e-3, 10.0]),
    erodibility=st.sampled_from([0.0, 1e-6, 1.0, 1e6]),
    n=st.sampled_from([0.5, 1.0, 2.5]),
    diffusion=st.sampled_from([0.0, 1e-3, 1e6]),
    boundary=st.sampled_from(["edges", "looped"]),
)
def test_never_nan_or_infinite(dt, uplift, erodibility, n, diffusion, boundary) -> None:
    heights = noise_terrain((12, 15), relief=1e3)
    result = erode_fluvial(heights, steps=3, dt=dt, uplift=uplift, erodibility=erodibility, n=n,
                           diffusion=diffusion, boundary=boundary)  # fmt: skip
    for values in (result.heights, result.drainage_area, result.erosion, result.deposition):
        assert np.isfinite(values).all()
    assert math.isfinite(result.eroded) and math.isfinite(result.deposited)


def test_options_have_defaults_the_function_accepts() -> None:
    defaults = {option.name: option.default for option in FLUVIAL_OPTIONS}
    defaults["steps"] = 2
    result = erode_fluvial(noise_terrain((16, 16)), **defaults)
    assert result.heights.dtype == np.float32 and result.heights.shape == (16, 16)


GOOD = {"steps": 1, "dt": 1.0, "uplift": 0.0, "erodibility": 0.0}


@pytest.mark.parametrize(
    ("changes", "error", "message"),
    [
        ({"steps": -1}, ValueError, "steps: must be between 0 and"),
        ({"steps": 1.5}, TypeError, "steps: expected an integer"),
        ({"dt": -1.0}, ValueError, "dt: must be"),
        ({"dt": math.nan}, ValueError, "dt: must be a finite number"),
        ({"uplift": -1.0}, ValueError, "uplift: must be"),
        ({"uplift": np.ones((3, 3))}, ValueError, "uplift: must have the heights' shape"),
        ({"erodibility": np.full((16, 16), np.inf)}, ValueError, "erodibility: must be finite"),
        ({"erodibility": "hard"}, TypeError, "erodibility: expected a number"),
        ({"m": 3.0}, ValueError, "m: must be between 0 and 2"),
        ({"n": 0.0}, ValueError, "n: must be between 0.1 and 4"),
        ({"diffusion": -1.0}, ValueError, "diffusion: must be"),
        ({"boundary": "open"}, ValueError, "boundary: 'open' is not allowed"),
        ({"cell_size": 0.0}, ValueError, "cell_size: must be"),
        ({"precipitation": -np.ones((16, 16))}, ValueError, "precipitation: must be >= 0"),
        ({"outlets": np.ones((16, 16))}, TypeError, "outlets: expected a boolean numpy array"),
        ({"river_threshold": -1.0}, ValueError, "river_threshold: must be"),
        ({"progress": 3}, TypeError, "progress: expected a callable"),
        ({"uplift": 1e30, "dt": 1e30}, ValueError, "uplift: uplift \\* dt \\* steps = 1e\\+60 would lift"),
    ],
)
def test_errors_name_the_argument(changes: dict, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        erode_fluvial(noise_terrain((16, 16)), **{**GOOD, **changes})
    with pytest.raises(TypeError, match="heights: expected a 2-D numpy array"):
        erode_fluvial([[1.0]], **GOOD)


def test_docs_option_table_matches_the_options() -> None:
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs" / "erosion.md").read_text(encoding="utf-8")
    for option in FLUVIAL_OPTIONS:
        allowed = ", ".join(option.choices) if option.choices else option.limits()
        row = f"| `{option.name}` | `{option.default!r}` | {allowed} | {option.description} |"
        assert row in text, row


def test_same_bits_on_one_and_two_threads() -> None:
    """The step's parts (bands of rows, then disjoint trees) never share a cell: the thread count changes no bit."""
    import json
    import os
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent(
        """
        import hashlib, json
        import numpy as np
        import noise_core as nc
        spec = nc.NoiseSpec(kind="perlin", octaves=4, frequency=3.0, seed=11)
        heights = nc.ranges.to_unit(spec, nc.evaluate_grid(spec, (60, 50))) * 40.0
        digests = []
        for boundary in ("edges", "looped"):
            r = nc.erode_fluvial(heights, steps=20, dt=1e4, uplift=1e-3, erodibility=5e-5, cell_size=20.0,
                                 diffusion=0.01, boundary=boundary)
            digests.append(hashlib.sha256(r.heights.tobytes() + r.drainage_area.tobytes()).hexdigest())
        print(json.dumps(digests))
        """
    )
    runs = []
    for threads in ("1", "2"):
        env = {**os.environ, "NUMBA_NUM_THREADS": threads}
        done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    assert runs[0] == runs[1]
