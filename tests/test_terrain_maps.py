"""Terrain maps (noise_core.terrain.maps): exact values on planes, paraboloids, cones and V-valleys, edge rule,
sliding extremes against brute force, horizons, errors."""

from __future__ import annotations

import math

import numba
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import noise_core as nc
from noise_core.terrain import maps as tm


def grid(rows: int, columns: int, cell: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """``(x, y)`` of the cells: columns along +x, rows along +y."""
    y, x = np.mgrid[0:rows, 0:columns].astype(np.float64)
    return x * cell, y * cell


coefficient = st.floats(-5.0, 5.0, allow_nan=False)


@given(a=coefficient, b=coefficient, c=st.floats(-100, 100), cell=st.sampled_from([0.25, 1.0, 3.0]))
def test_plane_slope_and_aspect_are_exact_everywhere(a: float, b: float, c: float, cell: float) -> None:
    x, y = grid(9, 11, cell)
    z = a * x + b * y + c
    expected = math.degrees(math.atan(math.hypot(a, b)))
    np.testing.assert_allclose(nc.slope(z, cell), expected, atol=1e-4)
    if math.hypot(a, b) > 1e-3:
        expected_aspect = math.degrees(math.atan2(-a, -b)) % 360.0
        difference = (nc.aspect(z, cell) - expected_aspect + 180.0) % 360.0 - 180.0
        np.testing.assert_allclose(difference, 0.0, atol=1e-3)
    for kind in tm.CURVATURE_KINDS:
        np.testing.assert_allclose(nc.curvature(z, cell, kind), 0.0, atol=1e-6)


@pytest.mark.parametrize(
    ("surface", "expected"),
    [("-x", 90.0), ("x", 270.0), ("-y", 0.0), ("y", 180.0), ("-x - y", 45.0), ("x - y", 315.0), ("x + y", 225.0)],
)
def test_aspect_is_the_direction_of_descent_clockwise_from_plus_y(surface: str, expected: float) -> None:
    x, y = grid(6, 7)
    z = eval(surface, {"x": x, "y": y})
    np.testing.assert_allclose(nc.aspect(z), expected, atol=1e-6)


def test_flat_cells_have_aspect_minus_one_and_no_slope() -> None:
    z = np.full((5, 5), 3.0)
    assert (nc.aspect(z) == tm.FLAT_ASPECT).all()
    assert (nc.slope(z) == 0.0).all()
    assert (nc.curvature(z, kind="plan") == 0.0).all()


def analytic_curvatures(p, q, r, t, s):
    """Mean, profile and plan curvature from the derivatives (the formulas of ``curvature``' docstring)."""
    g = p * p + q * q
    w = 1.0 + g
    mean = -((1 + q * q) * r - 2 * p * q * s + (1 + p * p) * t) / (2 * w**1.5)
    with np.errstate(invalid="ignore", divide="ignore"):
        profile = np.where(g > 0, -(p * p * r + 2 * p * q * s + q * q * t) / (g * w**1.5), 0.0)
        plan = np.where(g > 0, -(q * q * r - 2 * p * q * s + p * p * t) / (g * np.sqrt(w)), 0.0)
    return {"mean": mean, "profile": profile, "plan": plan}


@given(
    coefficients=st.tuples(*[st.floats(-0.5, 0.5, allow_nan=False)] * 6),
    cell=st.sampled_from([0.5, 1.0, 2.0]),
)
def test_quadratic_surfaces_are_exact_everywhere_including_edges(coefficients, cell: float) -> None:
    """z = A x² + B y² + C xy + D x + E y + F: Horn's gradient and the second differences are exact for
    quadratics, and the edge rule carries them to the edge exactly."""
    a, b, c, d, e, f = coefficients
    x, y = grid(8, 10, cell)
    x -= 4.0 * cell
    y -= 3.0 * cell
    z = a * x * x + b * y * y + c * x * y + d * x + e * y + f
    p, q = 2 * a * x + c * y + d, 2 * b * y + c * x + e
    r, t, s = 2 * a, 2 * b, c
    np.testing.assert_allclose(nc.slope(z, cell), np.degrees(np.arctan(np.hypot(p, q))), atol=2e-4)
    expected = analytic_curvatures(p, q, r, t, s)
    gradient = np.hypot(p, q)
    for kind, values in expected.items():
        got = nc.curvature(z, cell, kind)
        keep = gradient > 1e-3 if kind != "mean" else np.ones(z.shape, bool)
        np.testing.assert_allclose(got[keep], values[keep], rtol=1e-4, atol=1e-5)


def test_mean_curvature_is_the_average_of_profile_and_plan(rng: np.random.Generator) -> None:
    z = np.cumsum(np.cumsum(rng.normal(size=(40, 50)), axis=0), axis=1)
    profile, plan = nc.curvature(z, kind="profile"), nc.curvature(z, kind="plan")
    np.testing.assert_allclose(nc.curvature(z), (profile + plan) / 2, rtol=1e-4, atol=1e-6)


def test_bowl_and_dome_have_opposite_curvatures() -> None:
    x, y = grid(21, 21)
    bowl = 0.05 * ((x - 10) ** 2 + (y - 10) ** 2)
    for kind in tm.CURVATURE_KINDS:
        np.testing.assert_allclose(nc.curvature(bowl, kind=kind), -nc.curvature(-bowl, kind=kind), atol=1e-7)
    assert nc.curvature(bowl)[10, 10] == pytest.approx(-0.1)  # -2a at the bottom
    assert (nc.curvature(bowl) < 0).all() and (nc.curvature(-bowl) > 0).all()


def test_cone_has_no_profile_curvature_and_the_plan_curvature_of_its_circles() -> None:
    """z = k r (an upward cone): straight along the slope, contours circles of radius r: plan curvature
    -k / (r √(1 + k²)) (concave), slope atan k; the 3x3 differences converge as r grows."""
    k = 0.8
    x, y = grid(201, 201)
    rho = np.hypot(x - 100, y - 100)
    z = k * rho
    far = (rho > 60) & (rho < 95)
    np.testing.assert_allclose(nc.slope(z)[far], math.degrees(math.atan(k)), atol=0.02)
    np.testing.assert_allclose(nc.curvature(z, kind="profile")[far], 0.0, atol=2e-5)
    np.testing.assert_allclose(nc.curvature(z, kind="plan")[far], -k / (rho[far] * math.sqrt(1 + k * k)), rtol=2e-3)


def test_v_valley_has_plane_values_off_its_floor() -> None:
    """z = k|x - x0| + m y: two planes; off the floor (2 cells or more) slope and aspect are the planes', no
    curvature; on the floor the mean curvature is concave."""
    k, m = 0.6, 0.1
    x, y = grid(15, 21)
    z = k * np.abs(x - 10) + m * y
    off = np.abs(x - 10) >= 2
    np.testing.assert_allclose(nc.slope(z)[off], math.degrees(math.atan(math.hypot(k, m))), atol=1e-4)
    for kind in tm.CURVATURE_KINDS:
        np.testing.assert_allclose(nc.curvature(z, kind=kind)[off], 0.0, atol=1e-7)
    assert (nc.curvature(z)[:, 10] < 0).all()
    east = nc.aspect(z)[:, 15]
    np.testing.assert_allclose(east, math.degrees(math.atan2(-k, -m)) % 360, atol=1e-4)


def test_atan_matches_numpy() -> None:
    values = np.concatenate([np.linspace(-30, 30, 20001), np.geomspace(1e-12, 1e12, 2001), [0.0, np.inf, -np.inf]])
    compute = numba.njit(lambda v: np.array([tm._atan(x) for x in v]))
    np.testing.assert_allclose(compute(values), np.arctan(values), rtol=4e-16, atol=1e-300)


@given(rows=st.integers(3, 30), columns=st.integers(3, 30), radius=st.integers(1, 12), seed=st.integers(0, 2**16))
def test_relative_height_matches_brute_force(rows: int, columns: int, radius: int, seed: int) -> None:
    z = np.random.default_rng(seed).integers(0, 6, size=(rows, columns)).astype(np.float64)
    windows = np.lib.stride_tricks.sliding_window_view(np.pad(z, radius, mode="edge"), (2 * radius + 1,) * 2)
    low, high = windows.min(axis=(2, 3)), windows.max(axis=(2, 3))
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = np.where(high > low, (z - low) / (high - low), 0.5)
    np.testing.assert_allclose(nc.relative_height(z, radius), expected, atol=1e-7)


def test_horizon_samples_are_whole_cells_in_each_direction() -> None:
    samples = tm.horizon_samples(32, 16)
    assert samples.starts.shape == (17,) and samples.starts[-1] == samples.dy.size
    assert (np.hypot(samples.dy, samples.dx) <= 32 + math.sqrt(0.5)).all()
    assert np.abs(samples.dy).max() <= 32 and np.abs(samples.dx).max() <= 32
    np.testing.assert_allclose(samples.inverse, 1.0 / np.hypot(samples.dy, samples.dx))
    north = slice(samples.starts[0], samples.starts[1])  # direction 0 is +y
    assert (samples.dx[north] == 0).all() and list(samples.dy[north][:4]) == [1, 2, 3, 4]


@given(a=coefficient, b=coefficient)
def test_plane_openness_is_90_degrees_away_from_the_edges(a: float, b: float) -> None:
    """Opposite directions see opposite tangents on a plane: the mean horizon angle is 0."""
    x, y = grid(30, 30)
    z = a * x + b * y
    inner = (slice(8, 22), slice(8, 22))
    for kind in tm.OPENNESS_KINDS:
        np.testing.assert_allclose(nc.openness(z, radius=8, directions=8, kind=kind)[inner], 90.0, atol=1e-6)


def test_v_valley_openness_and_occlusion_on_its_floor() -> None:
    """z = k|x - 20|: from the floor, direction θ (clockwise from +y) rises at tan φ = k |sin θ|; 8 directions
    sample whole cells exactly along those lines."""
    k = 0.7
    x, _ = grid(41, 41)
    z = k * np.abs(x - 20)
    angles = np.arctan(k * np.abs(np.sin(2 * np.pi * np.arange(8) / 8)))
    floor = (slice(12, 29), 20)
    np.testing.assert_allclose(nc.openness(z, radius=8, directions=8)[floor], 90 - np.degrees(angles.mean()), atol=1e-4)
    negative = nc.openness(z, radius=8, directions=8, kind="negative")[floor]  # the ridge of -z, seen from above
    np.testing.assert_allclose(negative, 90 + np.degrees(angles.mean()), atol=1e-4)
    np.testing.assert_allclose(nc.occlusion(z, radius=8, directions=8)[floor], np.sin(angles).mean(), atol=1e-6)
    np.testing.assert_allclose(nc.occlusion(-z, radius=8, directions=8)[floor], 0.0, atol=1e-7)  # a ridge


def test_flat_map_is_fully_open() -> None:
    z = np.zeros((12, 12))
    assert (nc.occlusion(z, radius=4) == 0.0).all()
    np.testing.assert_allclose(nc.openness(z, radius=4), 90.0)


def test_wetness_index_from_a_given_accumulation() -> None:
    x, _ = grid(10, 10, 2.0)
    z = 0.5 * x
    area = np.arange(1.0, 101.0).reshape(10, 10)
    np.testing.assert_allclose(nc.wetness_index(z, 2.0, accumulation=area), np.log(area * 2.0 / 0.5), rtol=1e-6)
    flat = nc.wetness_index(np.zeros((4, 4)), accumulation=np.ones((4, 4)))
    np.testing.assert_allclose(flat, np.log(1.0 / tm.MIN_TAN_SLOPE), rtol=1e-6)


def test_maps_do_not_depend_on_the_thread_count(rng: np.random.Generator) -> None:
    z = rng.normal(size=(67, 45)).cumsum(axis=0)
    functions = (nc.slope, nc.aspect, nc.curvature, nc.relative_height, nc.openness, nc.occlusion)
    before = [f(z) for f in functions]
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        after = [f(z) for f in functions]
    finally:
        numba.set_num_threads(threads)
    for one, other in zip(before, after, strict=True):
        np.testing.assert_array_equal(one, other)


def test_compute_maps_by_name() -> None:
    x, _ = grid(20, 20)
    z = 0.3 * x
    maps = nc.compute_maps(z, ["slope", "height", "relative_height", "occlusion"], radius=2, horizon_radius=4)
    assert list(maps) == ["slope", "height", "relative_height", "occlusion"]
    assert all(values.dtype == np.float32 and values.shape == z.shape for values in maps.values())
    np.testing.assert_allclose(maps["slope"], math.degrees(math.atan(0.3)), atol=1e-4)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: nc.slope(np.zeros((2, 5))), "heights: must be a 2-D array of at least 3x3"),
        (lambda: nc.slope([[1, 2, 3]] * 3), "heights: expected a 2-D numpy array"),
        (lambda: nc.slope(np.full((3, 3), np.nan)), "heights: must be finite"),
        (lambda: nc.aspect(np.zeros((3, 3)), cell_size=-1), "cell_size: must be in (0, 1e+30], got -1"),
        (lambda: nc.curvature(np.zeros((3, 3)), kind="gauss"), "kind: 'gauss' is not allowed"),
        (lambda: nc.relative_height(np.zeros((3, 3)), radius=0), "radius: must be between 1 and 4096"),
        (lambda: nc.openness(np.zeros((3, 3)), directions=2), "directions: must be between 4 and 256"),
        (lambda: nc.occlusion(np.zeros((3, 3)), radius=1.5), "radius: expected an integer"),
        (lambda: nc.compute_maps(np.zeros((3, 3)), ["slope", "slant"]), "maps: 'slant' is not allowed"),
        (lambda: nc.wetness_index(np.zeros((3, 3)), accumulation=np.zeros((3, 3))), "accumulation: must be finite"),
    ],
)
def test_bad_input_names_the_argument(call, message: str) -> None:
    with pytest.raises((ValueError, TypeError)) as error:
        call()
    assert str(error.value).startswith(message)


def test_compute_maps_reports_progress_monotone_to_the_total() -> None:
    heights = np.add.outer(np.linspace(0.0, 3.0, 24), np.sin(np.linspace(0.0, 6.0, 20)))
    seen: list[tuple[int, int]] = []
    maps = nc.compute_maps(heights, ["slope", "flow", "wetness", "slope"], progress=lambda d, t: seen.append((d, t)))
    assert list(maps) == ["slope", "flow", "wetness"]
    total = tm.progress_total(["slope", "flow", "wetness"])
    assert total == 5 * tm.MAP_STEPS  # three maps, and the flow routing flow and wetness share counts two
    assert {t for _, t in seen} == {total} and seen[-1] == (total, total)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    seen.clear()
    assert nc.compute_maps(heights, ["aspect"], progress=lambda d, t: seen.append((d, t))).keys() == {"aspect"}
    assert seen[-1] == (tm.MAP_STEPS, tm.MAP_STEPS)


def _heights(rows: int, columns: int, seed: int = 3) -> np.ndarray:
    """A rough random surface (cumulated noise): every map has work to do on it."""
    rng = np.random.default_rng(seed)
    return np.cumsum(np.cumsum(rng.normal(size=(rows, columns)), axis=0), axis=1) * 0.1


@given(
    rows=st.integers(3, 29),
    columns=st.integers(3, 23),
    band=st.integers(1, 9),
    name=st.sampled_from(["slope", "aspect", "mean", "profile", "plan", "tan"]),
)
def test_a_surface_map_in_bands_is_one_launch_bit_for_bit(rows: int, columns: int, band: int, name: str) -> None:
    z = _heights(rows, columns)
    one = tm._surface(z, 0.7, name, band=rows)
    assert np.array_equal(tm._surface(z, 0.7, name, band=band), one, equal_nan=True)


@given(rows=st.integers(3, 29), columns=st.integers(3, 30), band=st.integers(1, 9), radius=st.integers(1, 5))
def test_relative_height_in_bands_is_one_launch_bit_for_bit(rows: int, columns: int, band: int, radius: int) -> None:
    z = _heights(rows, columns)
    one = tm._relative_height(z, radius, band=max(rows, columns))
    assert np.array_equal(tm._relative_height(z, radius, band=band), one)
    assert np.array_equal(tm.relative_height(z, radius), one)


@pytest.mark.parametrize("code", [tm._POSITIVE, tm._NEGATIVE, tm._OCCLUSION])
@pytest.mark.parametrize("band", [1, 2, 7, 16])
def test_horizon_maps_in_bands_are_one_launch_bit_for_bit(code: int, band: int) -> None:
    z = _heights(33, 27)  # odd sizes, bands that do not divide them
    one = tm._horizon(z, 1.5, 6, 12, code, band=33)
    assert np.array_equal(tm._horizon(z, 1.5, 6, 12, code, band=band), one)


def test_bands_tick_monotone_up_to_one_and_the_default_band_holds_the_work() -> None:
    z = _heights(41, 17)
    fractions: list[float] = []
    tm._relative_height(z, 3, fractions.append, band=4)
    assert fractions == sorted(fractions) and fractions[-1] == 1.0 and len(fractions) == 11 + 1  # rows, column blocks
    assert tm._band(4097, 4097 * tm.SURFACE_WORK, None) == tm.BAND_WORK // (4097 * tm.SURFACE_WORK)
    assert tm._band(5, 10**9, None) == 1 and tm._band(5, 1, None) == 5


def test_a_progress_that_raises_stops_compute_maps_between_bands_and_stops_the_flow_routing() -> None:
    z = _heights(300, 280)
    names = ["slope", "flow", "occlusion"]
    expected = nc.compute_maps(z, names, horizon_radius=8)
    calls: list[int] = []

    class Stop(Exception):
        pass

    def stop_at_second(done: int, _total: int) -> None:
        calls.append(done)
        if len(calls) == 2:
            raise Stop

    with pytest.raises(Stop):
        nc.compute_maps(z, names, horizon_radius=8, progress=stop_at_second)
    assert len(calls) == 2  # nothing ran on after the exception
    again = nc.compute_maps(z, names, horizon_radius=8, progress=lambda _d, _t: None)
    for name in names:
        assert np.array_equal(again[name], expected[name])


@pytest.mark.parametrize("method", ["mfd", "d8"])
def test_a_stopped_flow_routing_raises_stopped_and_a_fresh_one_is_unchanged(method: str) -> None:
    from noise_core.terrain import flow as hy

    z = _heights(257, 301)
    state = hy.routing_state()
    expected = tm.flow_map(z, method, state)
    assert state[hy.DONE] == hy.ROUTING_STEPS[method] * z.size and state[hy.STOP] == 0  # every pass counted
    stopped = hy.routing_state()
    stopped[hy.STOP] = 1  # set before it starts: the fill stops at its first look, after POLL cells
    with pytest.raises(hy.Stopped):
        tm.flow_map(z, method, stopped)
    assert 0 < stopped[hy.DONE] <= hy.POLL
    assert np.array_equal(tm.flow_map(z, method), expected)


def test_a_flow_routing_stopped_from_another_thread_returns_promptly() -> None:
    import threading
    import time

    from noise_core.terrain import flow as hy

    z = _heights(1025, 1025)
    tm.flow_map(z[:64, :64], "mfd")  # compiled
    state = hy.routing_state()
    outcome: list[object] = []

    def route() -> None:
        try:
            outcome.append(tm.flow_map(z, "mfd", state))
        except hy.Stopped as stop:
            outcome.append(stop)

    worker = threading.Thread(target=route)
    worker.start()
    while state[hy.DONE] == 0 and worker.is_alive():
        time.sleep(0.001)
    state[hy.STOP] = 1
    worker.join(timeout=30.0)
    assert not worker.is_alive()
    # a functional bound, generous for a loaded machine: the kernels look every POLL cells (a few ms)
    if isinstance(outcome[0], hy.Stopped):
        assert state[hy.DONE] < hy.ROUTING_STEPS["mfd"] * z.size
    else:  # it had finished before the flag was set (a very fast machine): the whole result
        assert outcome[0].shape == z.shape
