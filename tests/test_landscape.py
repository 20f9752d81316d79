"""Landscapes (issue 49): ``erode_fluvial``'s random routing, deposition and valley floors, and
``noise_core.terrain.landscape`` (coarse to fine, margin, valley fill, threshold hillslopes)."""

from __future__ import annotations

import hashlib
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import noise_core as nc
from noise_core.terrain.flow import _edges, fill_flat
from noise_core.terrain.fluvial import erode_fluvial
from noise_core.terrain.geomorphometry import _horn, terrain_statistics
from noise_core.terrain.landscape import (
    FLOOR_SHIFT,
    FLOOR_TAPER,
    TRUNK_EXPONENT,
    TRUNK_GRADE,
    TRUNK_TILT,
    aggrade_valleys,
    evolve_landscape,
    fill_valleys,
    widen_valleys,
)

from .test_fluvial import channel, noise_terrain


def _digest(result) -> str:
    data = result.heights.tobytes() + result.drainage_area.tobytes() + result.erosion.tobytes()
    return hashlib.sha256(data).hexdigest()[:16]


def test_defaults_keep_the_former_bits() -> None:
    """The new options at their defaults change no bit: digests of main's ``erode_fluvial`` before them."""
    spec = nc.NoiseSpec(kind="perlin", octaves=4, frequency=3.0, seed=11)
    heights = nc.ranges.to_unit(spec, nc.evaluate_grid(spec, (60, 50))) * 40.0
    expected = ["0a0f5596127723a8", "0ea4421828b57348", "eb0dd85fe5a17072", "9eb78d6624d501ab"]
    cases = ({}, {"diffusion": 0.01}, {"boundary": "looped", "diffusion": 0.01}, {"n": 2.0, "m": 0.4})
    for options, digest in zip(cases, expected, strict=True):
        result = erode_fluvial(heights, steps=20, dt=1e4, uplift=1e-3, erodibility=5e-5, cell_size=20.0, **options)
        assert _digest(result) == digest, options
        same = evolve_landscape(heights, steps=20, dt=1e4, uplift=1e-3, erodibility=5e-5, cell_size=20.0, **options)
        assert _digest(same) == digest, options


def _cone(size: int = 129) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A radially symmetric uplift (a cone's), small noise to start from and the radius of each cell (0..1)."""
    y, x = (np.mgrid[0:size, 0:size] - (size - 1) / 2) / (size / 2)
    radius = np.hypot(x, y)
    spec = nc.NoiseSpec(kind="perlin", octaves=6, frequency=12.0, seed=1)
    return 1e-3 * np.clip(1.2 - radius, 0.0, 1.0), nc.evaluate_grid(spec, (size, size)).astype(np.float64), radius


def _harmonics(heights: np.ndarray, cell: float, inside: np.ndarray) -> tuple[float, float]:
    p, q = _horn(heights.astype(np.float64), cell)
    weight, direction = np.hypot(p, q)[inside], np.arctan2(q, p)[inside]
    return tuple(abs((weight * np.exp(1j * k * direction)).sum()) / weight.sum() for k in (4, 8))  # type: ignore[return-value]


def test_random_routing_has_no_herringbone() -> None:
    """On a symmetric cone of uplift with noise, D8 carves its 0°/45°/90° herringbone: the 8-fold harmonic of the
    gradient directions is 0.12-0.2 (real tiles: at most 0.009); the random facet routing has a third of it or
    less (0.02-0.05 on this cone for any seed: its few big valleys make the harmonic of one map scatter)."""
    uplift, start, radius = _cone(193)
    options = {"cell_size": 90.0, "steps": 150, "dt": 5e3, "uplift": uplift, "erodibility": 8e-5, "m": 0.4,
               "diffusion": 0.3}  # fmt: skip
    inside = radius < 0.9
    d8 = _harmonics(erode_fluvial(start, **options).heights, 90.0, inside)[1]
    random = _harmonics(erode_fluvial(start, routing="random", routing_seed=3, **options).heights, 90.0, inside)[1]
    assert d8 > 0.1
    assert random < d8 / 2.5


def test_random_routing_keeps_the_rivers_concavity() -> None:
    """Uniform uplift, n = 1, m = 0.45: at steady state the rivers' slope-area concavity (Flint's θ, measured by
    ``terrain_statistics`` on the D8 network of the result) is m within 0.1, with a good power-law fit."""
    spec = nc.NoiseSpec(kind="perlin", octaves=6, frequency=8.0, seed=2)
    start = nc.evaluate_grid(spec, (129, 129)).astype(np.float64) * 5.0
    result = erode_fluvial(start, cell_size=90.0, steps=200, dt=1e4, uplift=1e-3, erodibility=4e-5, m=0.45,
                           diffusion=0.3, routing="random", routing_seed=2)  # fmt: skip
    stats = terrain_statistics(result.heights, cell_size=90.0)
    assert stats.concavity == pytest.approx(0.45, abs=0.1)
    assert stats.concavity_r2 > 0.9


def test_random_routing_balances_uplift_at_steady_state() -> None:
    """At steady state the mass the uplift adds in a step leaves over the edges: heights stop changing."""
    options = {"cell_size": 50.0, "dt": 2e4, "uplift": 1e-3, "erodibility": 5e-5, "routing": "random",
               "routing_seed": 4, "diffusion": 0.5}  # fmt: skip
    steady = erode_fluvial(noise_terrain((48, 48)), steps=300, **options)
    later = erode_fluvial(steady.heights, steps=20, **options)
    inner = (slice(1, -1), slice(1, -1))
    lifted = 1e-3 * 2e4 * 20
    change = later.heights[inner].astype(np.float64) - steady.heights[inner]
    assert abs(change.mean()) < 0.02 * lifted  # uplift and erosion balance over the map
    assert later.eroded == pytest.approx(lifted * change.size, rel=0.05)  # all that rose was carried off


@pytest.mark.once_per_run
def test_random_routing_same_bits_on_one_and_two_threads() -> None:
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
        from noise_core.terrain.landscape import evolve_landscape
        spec = nc.NoiseSpec(kind="perlin", octaves=4, frequency=3.0, seed=11)
        heights = nc.ranges.to_unit(spec, nc.evaluate_grid(spec, (61, 53))) * 40.0
        r = evolve_landscape(heights, steps=12, dt=1e4, uplift=1e-3, erodibility=5e-5, cell_size=20.0,
                             diffusion=0.01, routing="random", routing_seed=5, deposition_coefficient=0.5,
                             valley_width=0.05, model_size=31, margin=0.25, fine_steps=4)
        print(json.dumps(hashlib.sha256(r.heights.tobytes() + r.drainage_area.tobytes()).hexdigest()))
        """
    )
    runs = []
    for threads in ("1", "2"):
        env = {**os.environ, "NUMBA_NUM_THREADS": threads}
        done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    assert runs[0] == runs[1]


@pytest.mark.parametrize("deposition", [0.5, 1.0])
def test_deposition_steepens_a_steady_river_by_one_plus_g(deposition: float) -> None:
    """Yuan et al. (2019): at steady state under uniform uplift the sediment flux is U·A, so
    U = K·A^m·S - G·U and every reach is (1 + G) times as steep as without deposition."""
    cell, uplift, k, length = 100.0, 1e-3, 1e-4, 60
    heights = channel(length, 0.0, cell)
    plain = erode_fluvial(heights, cell_size=cell, steps=300, dt=2e4, uplift=uplift, erodibility=k)
    deposited = erode_fluvial(heights, cell_size=cell, steps=300, dt=2e4, uplift=uplift, erodibility=k,
                              deposition_coefficient=deposition)  # fmt: skip
    np.testing.assert_allclose(deposited.heights[1, :-1], (1.0 + deposition) * plain.heights[1, :-1], rtol=1e-4)


def test_valley_width_flattens_the_floor_of_a_big_river() -> None:
    """A straight valley draining a big area: with valley_width the cells within W/2 = width·√A/2 of the river
    stand within the floor's slope of its level (the river's own cells set it)."""
    rows, columns, cell = 41, 80, 10.0
    y, x = np.mgrid[0:rows, 0:columns]
    heights = np.abs(y - rows // 2) * 5.0 + x * 0.5 + 100.0  # a V valley along x, falling to the left edge
    rain = np.ones((rows, columns))
    rain[rows // 2, -2] = 4e4  # a big river enters at the valley head
    result = erode_fluvial(heights, cell_size=cell, steps=1, dt=1.0, uplift=0.0, erodibility=0.0,
                           precipitation=rain, valley_width=0.05)  # fmt: skip
    area = 4e4 * cell * cell
    reach = 0.5 * 0.05 * math.sqrt(area) / cell  # 5 cells
    river = result.heights[rows // 2, 10:-10].astype(np.float64)
    for offset in range(1, int(reach)):
        floor = result.heights[rows // 2 + offset, 10:-10].astype(np.float64)
        assert np.all(floor - river <= 1e-3 * cell * (offset + 1) + 1e-3)
    assert np.all(result.heights[rows // 2 + int(reach) + 2, 10:-10] > river + 10.0)  # the walls beyond stay


def test_fill_valleys_makes_flat_floors_and_only_raises() -> None:
    rows, columns = 41, 60
    y, x = np.mgrid[0:rows, 0:columns]
    heights = np.abs(y - rows // 2) * 10.0 + x * 1.0  # a V valley falling to x = 0
    filled = fill_valleys(heights, cell_size=10.0, depth=0.05)
    assert np.all(filled >= heights - 1e-9)
    middle = filled[:, 40]
    floor = middle[np.abs(np.arange(rows) - rows // 2) <= 1]  # the bed and its two neighbours, 10 m above it
    assert np.ptp(floor) < 2.0 and floor.min() > heights[rows // 2, 40] + 5.0  # a floor (within the valley's
    assert np.array_equal(middle[:15], heights[:15, 40])  # fall of 1 m a cell), above the old bed; walls stay
    assert np.array_equal(fill_valleys(heights, depth=0.0), nc.fill_depressions(heights, epsilon=True))


def _v_valley() -> np.ndarray:
    """A V valley (walls of slope 1 on 10 m cells) whose river falls 0.1 a cell towards x = 0: its drainage
    area grows downstream, 61 cells a column."""
    y, x = np.mgrid[0:61, 0:120]
    return np.abs(y - 30) * 10.0 + x * 1.0


def test_widen_valleys_floors_widen_downstream_at_the_rivers_grade() -> None:
    heights = _v_valley()
    out = widen_valleys(heights, cell_size=10.0, width=0.3, area=200 * 100.0)
    bed = out[30]
    assert np.all(np.diff(bed) > 0.0)  # the floor falls downstream all along
    assert np.abs(bed - heights[30]).max() < 1.0  # at the river's grade: its bed moved by less than one cell's fall

    def floor_cells(column: int) -> int:  # cells within 3 m of the bed: the floor rises 0.05 a metre across
        return int(np.count_nonzero(out[:, column] - bed[column] < 3.0))

    widths = [floor_cells(column) for column in (118, 100, 60, 20)]
    assert widths == sorted(widths) and widths[0] == 1 and widths[-1] >= 9  # V above 200 cells, 9+ cells downstream
    # (A = 61·100 cells at x = 20: w = 0.5·0.3·√200·((6100/200)^0.3 - 1) = 3.8 cells each side)
    walls = np.abs(np.diff(out[:, 20]))
    assert walls.max() <= 10.0 * (1.15 + 1.0 / FLOOR_TAPER)  # steeper by the taper (1/4) and the floor widening
    reach = (FLOOR_SHIFT + FLOOR_TAPER) * 0.5 * 0.3 * math.sqrt(200.0) * ((61 * 120 / 200.0) ** 0.3 - 1.0)
    far = np.abs(np.arange(61) - 30) > reach + 1.0
    assert np.array_equal(out[far], heights[far])  # hillslopes beyond the widest reach stay as they were


def test_widen_valleys_keeps_every_cell_draining() -> None:
    """No closed depression: the plain Priority-Flood fill adds nothing, on the V and on noise."""
    for heights, cell in ((_v_valley(), 10.0), (noise_terrain((48, 48)).astype(np.float64) * 30.0, 30.0)):
        out = widen_valleys(heights, cell_size=cell, width=0.5, area=20 * cell * cell)
        assert np.array_equal(nc.fill_depressions(out), out)
        assert not np.array_equal(out, nc.fill_depressions(heights, epsilon=True))  # it did widen something
    assert np.array_equal(widen_valleys(heights, width=0.0, area=1.0), nc.fill_depressions(heights, epsilon=True))


def _trunk_valley() -> tuple[np.ndarray, np.ndarray]:
    """A V valley on 10 m cells, walls of slope 0.5, its river falling 1 m a cell towards x = 0 (drainage area
    61 cells a column), and the flood level ``aggrade_valleys(depth=0.05, area=200 cells)`` sets along its bed
    (the docstring's recursion on the bed's profile, donors first)."""
    y, x = np.mgrid[0:61, 0:120]
    heights = np.abs(y - 30) * 5.0 + x * 1.0
    bed = heights[30]
    area = 61.0 * (120 - np.arange(120)) * 100.0
    rise = 0.05 * math.sqrt(2e4) * (np.maximum(area / 2e4, 1.0) ** TRUNK_EXPONENT - 1.0)
    level = bed + rise
    for column in range(118, -1, -1):
        if rise[column] > 0.0:
            level[column] = max(min(level[column], level[column + 1] - TRUNK_GRADE * 1.0), bed[column])
    return heights, level


def test_aggrade_valleys_floods_the_trunk_to_its_graded_level() -> None:
    heights, level = _trunk_valley()
    out = aggrade_valleys(heights, cell_size=10.0, depth=0.05, area=200 * 100.0)
    bed = out[30]
    assert np.all(np.diff(bed) > 0.0)  # the level never rises downstream: the floor falls all along it
    # each bed cell at its receiver's level (one column down), the rounding moving it by under 1.5 m (off the
    # outlet's column and the floor's head, where the D8 area is not yet 61 cells a column)
    assert np.abs(bed[3:91] - level[2:90]).max() < 1.5
    assert level[19] - heights[30, 19] > 15.0  # a real depth there: 19.4 m of fill, the grade capping 20.7
    for column in (100, 60, 20):  # the floor reaches where the level, rising TRUNK_TILT a metre, meets the walls
        depth = level[column - 1] - heights[30, column - 1] - 1.0
        half = depth / (5.0 - 10.0 * TRUNK_TILT)
        flooded = np.flatnonzero(out[:, column] - heights[:, column] > 1.0)
        assert abs((flooded.size - 1) / 2 - half) <= 1.5, (column, flooded, half)
        assert np.ptp(out[30 - int(half) : 31 + int(half), column]) < 2.5  # flat, rising 0.3 m a cell from the bed
        far = np.abs(np.arange(61) - 30) > half + 3
        assert np.array_equal(out[far, column], heights[far, column])  # the walls above keep their slope
    assert np.array_equal(out[:, 119], heights[:, 119])  # above the threshold area: no floor


def test_aggrade_valleys_floors_reach_the_maps_edge() -> None:
    """The map's edge cells under a floor rise with it (issue 49: River Valleys' trunk dropped 200-330 m over its
    last 3-8 cells at the east edge): the edge column's cross-section is the next column's, the bed keeps its
    grade to the edge cell, the walls beyond the floor and the cells away from it keep their heights."""
    heights, level = _trunk_valley()  # its river leaves the map at x = 0
    out = aggrade_valleys(heights, cell_size=10.0, depth=0.05, area=200 * 100.0)
    raised = out - heights
    assert raised[30, 0] > 20.0  # the edge cell under the floor: 22.7 m (it stayed at its bed's height before)
    assert np.abs(raised[:, 0] - raised[:, 1]).max() < 0.5  # the floor's whole width reaches the edge
    assert abs(out[30, 0] - level[0]) < 1.5 and out[30, 1] - out[30, 0] < 1.5  # its graded level, no drop
    wall = raised[:, 1] == 0.0
    assert wall.sum() > 20 and np.array_equal(out[wall, 0], heights[wall, 0])  # the walls above: untouched
    assert np.array_equal(nc.fill_depressions(out), out)
    # a valley leaving through the map's corner (0, 0): the corner rises with the floor too
    y, x = np.mgrid[0:80, 0:80]
    corner = np.abs(y - x) * 5.0 + (x + y) * 0.7
    out = aggrade_valleys(corner, cell_size=10.0, depth=0.05, area=200 * 100.0)
    bed = np.diag(out)
    assert np.all(np.diff(bed) > 0.0)  # falling all along the diagonal, to the corner
    assert bed[0] - corner[0, 0] > 0.8 * np.max(bed[:10] - np.diag(corner)[:10])  # 19.4 m of 19.9 (0 before)
    assert bed[1] - bed[0] < 2.0  # no drop at the corner (12.6 m before)
    assert np.array_equal(out[40:, :3], corner[40:, :3]) and np.array_equal(out[:3, 40:], corner[:3, 40:])
    assert np.array_equal(nc.fill_depressions(out), out)


def test_aggrade_valleys_keeps_every_cell_draining() -> None:
    for heights, cell in ((_trunk_valley()[0], 10.0), (noise_terrain((48, 48)).astype(np.float64) * 30.0, 30.0)):
        out = aggrade_valleys(heights, cell_size=cell, depth=0.05, area=30 * cell * cell)
        assert np.array_equal(nc.fill_depressions(out), out)
        assert np.count_nonzero(out > nc.fill_depressions(heights, epsilon=True) + 1.0) > 10  # it filled something
    assert np.array_equal(aggrade_valleys(heights, depth=0.0, area=1.0), nc.fill_depressions(heights, epsilon=True))


@settings(max_examples=30, deadline=None)
@given(
    relief=st.sampled_from([0.0, 1e-6, 1.0, 1e3, 1e8]),
    depth=st.sampled_from([1e-6, 0.05, 1.0, 10.0]),
    area=st.sampled_from([1.0, 5.0, 1e3, 1e9]),
    shape=st.sampled_from([(3, 3), (3, 9), (12, 15)]),
    outlet=st.booleans(),
)
def test_aggrade_valleys_never_nan_nor_a_hollow(relief, depth, area, shape, outlet) -> None:
    heights = noise_terrain(shape, relief=1.0).astype(np.float64) * relief
    outlets = None
    if outlet:
        outlets = np.zeros(shape, dtype=bool)
        outlets[shape[0] // 2, shape[1] // 2] = True
    out = aggrade_valleys(heights, depth=depth, area=area, outlets=outlets)
    assert out.shape == shape and np.isfinite(out).all()
    base = _edges(shape) if outlets is None else _edges(shape) | outlets.reshape(-1)
    filled = out.copy()
    fill_flat(filled.reshape(-1), shape, base, False, False)  # the plain Priority-Flood fill, outlets as base
    assert np.array_equal(filled, out)


def test_the_rivers_stage_aggrades_its_trunks() -> None:
    """``trunk_fill`` and ``trunk_fill_area`` are rows of the recipe's river stage (so the CLI, the add-on and the
    presets take them): a short River Valleys stage on a 33² grid raises its valleys with them."""
    from dataclasses import replace

    from noise_core.terrain.recipe import RIVER_OPTIONS, Stage, build_terrain, read_preset

    assert {"trunk_fill", "trunk_fill_area"} <= {option.name for option in RIVER_OPTIONS}
    preset = read_preset("river_valleys")
    # the map's own 1.8 km cells: channel heads of 30 cells would leave no river, so River Valleys' hillslopes of
    # before (no channel heads, no incision threshold, D 1e-5)
    base = {**preset.stages[0].options, "steps": 12, "fine_steps": 4, "fine_size": 0, "model_size": 17,
            "channel_head_area": 0.0, "incision_threshold": 0.0, "diffusion": 1e-5}  # fmt: skip

    def built(**changes) -> np.ndarray:
        stage = Stage.of("rivers", {**base, **changes})
        return build_terrain(replace(preset, stages=(stage,)), 33).heights.astype(np.float64)

    plain = built(trunk_fill=0.0, valley_fill=0.0)
    floored = built(trunk_fill=0.05, trunk_fill_area=20.0, valley_fill=0.0)
    raised = floored - plain
    # metres: the floors rise (207 cells, up to 160 m); only the rounding of their feet lowers a few cells beside
    # them (spur tips, 29 cells, at most 50 m)
    assert np.count_nonzero(raised > 1.0) > 4 * np.count_nonzero(raised < -1.0) > 0
    assert raised.max() > 100.0 and raised.min() > -0.5 * raised.max()


def test_evolve_landscape_coarse_to_fine() -> None:
    """A coarse stage with a margin then refine steps: every step reports progress; the rivers leave the map
    where they meet it (its edges are not all at base level), the map drains, and it is a landscape."""
    _, start, _ = _cone(97)
    calls: list[tuple[int, int]] = []
    result = evolve_landscape(
        start, cell_size=90.0, steps=40, dt=5e3, uplift=1e-3, erodibility=8e-5, m=0.4, diffusion=0.5,
        routing="random", routing_seed=1, model_size=33, margin=0.25, fine_steps=6, progress=lambda *a: calls.append(a),
    )  # fmt: skip
    assert calls == [(i, 40) for i in range(1, 41)]
    assert result.heights.shape == start.shape
    edges = np.concatenate([result.heights[0], result.heights[-1], result.heights[:, 0], result.heights[:, -1]])
    assert np.ptp(edges) > 1.0  # the edges lie on the evolved slopes, not at one base level
    stats = terrain_statistics(result.heights, cell_size=90.0)
    assert stats.depression_share < 0.01


@pytest.mark.parametrize(
    ("call", "options", "error", "message"),
    [
        (erode_fluvial, {"routing": "dinf"}, ValueError, "routing: 'dinf' is not allowed"),
        (erode_fluvial, {"routing_seed": 1.5}, TypeError, "routing_seed: expected an integer"),
        (erode_fluvial, {"deposition_coefficient": -1.0}, ValueError, "deposition_coefficient: must be between 0 and"),
        (erode_fluvial, {"deposition_coefficient": 2.0}, ValueError, "deposition_coefficient: must be between 0 and"),
        (erode_fluvial, {"valley_width": 20.0}, ValueError, "valley_width: must be between 0 and 10"),
        (erode_fluvial, {"routing": "random", "diffusion": 1.0, "dt": 100.0}, ValueError,
         "diffusion: with routing='random', diffusion \\* dt / cell_size\\*\\*2 must be <= 38.4"),
        (evolve_landscape, {"model_size": 3}, ValueError, "model_size: must be 0, or a whole number from 16"),
        (evolve_landscape, {"fine_size": 3}, ValueError, "fine_size: must be 0, or a whole number from 16"),
        (evolve_landscape, {"margin": 2.0}, ValueError, "margin: must be between 0 and 1"),
        (evolve_landscape, {"fine_steps": -1}, ValueError, "fine_steps: must be between 0 and"),
        (evolve_landscape, {"margin": 0.1, "fine_steps": 2}, ValueError, "fine_steps: must be at most steps"),
        (evolve_landscape, {"margin": 0.1, "boundary": "looped"}, ValueError, "margin: needs boundary 'edges'"),
        (evolve_landscape, {"margin": 0.1, "uplift": np.ones((3, 3))}, ValueError, "uplift: "),
        (evolve_landscape, {"margin": 0.5, "outlets": np.ones((16, 16))}, TypeError, "outlets: expected a boolean"),
    ],
)  # fmt: skip
def test_errors_name_the_argument(call, options: dict, error: type, message: str) -> None:
    good = {"steps": 1, "dt": 1.0, "uplift": 0.0, "erodibility": 0.0}
    with pytest.raises(error, match=message):
        call(noise_terrain((16, 16)), **{**good, **options})


@pytest.mark.parametrize(
    ("call", "options", "message"),
    [
        (fill_valleys, {"depth": -1.0}, "depth: must be between 0 and 10"),
        (fill_valleys, {"depth": 0.1, "cell_size": 0.0}, "cell_size: must be"),
        (widen_valleys, {"width": -1.0, "area": 10.0}, "width: must be between 0 and 4"),
        (widen_valleys, {"width": 0.3, "area": 0.0}, "area: must be >= 1"),
        (widen_valleys, {"width": 0.3, "area": 10.0, "cell_size": -1.0}, "cell_size: must be"),
        (aggrade_valleys, {"depth": -1.0, "area": 10.0}, "depth: must be between 0 and 10"),
        (aggrade_valleys, {"depth": 0.02, "area": 0.0}, "area: must be >= 1"),
        (aggrade_valleys, {"depth": 0.02, "area": 10.0, "cell_size": 0.0}, "cell_size: must be"),
    ],
)
def test_post_steps_errors_name_the_argument(call, options: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call(noise_terrain((16, 16)), **options)
