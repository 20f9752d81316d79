"""``noise_core.water``: lakes by Fill-Spill-Merge, exact on analytic bowls, chains of basins and merging basins;
unlimited water equals ``fill_depressions`` (real DEMs too); mass balance and level >= terrain as properties;
rivers as polylines, their carving, the flow map and the shore distance."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import noise_core as nc
from noise_core.cli import main
from noise_core.io.heightmaps import read_heightmap
from noise_core.io.images import read_image
from noise_core.io.water_maps import engine_flow, water_files, write_water_maps
from noise_core.terrain.flow import fill_flat
from noise_core.terrain.water import WATER_STEPS, carve_rivers, water

from .dems import NAMES, load


def volume(heights: np.ndarray, level: float) -> float:
    """The water a basin of cells ``heights`` holds at ``level``."""
    return float(np.maximum(level - heights, 0.0).sum())


def level_for(heights: np.ndarray, water_volume: float, evaporation: float = 0.0) -> float:
    """The lowest level at which cells ``heights`` hold ``water_volume`` plus ``evaporation`` over the cells below
    it, by bisection (independent of the module's own solver)."""
    low, high = float(heights.min()), float(heights.max()) + water_volume + 1.0
    for _ in range(200):
        middle = 0.5 * (low + high)
        held = volume(heights, middle) + evaporation * np.count_nonzero(heights < middle)
        low, high = (low, middle) if held >= water_volume else (middle, high)
    return high


def bowl(side: int = 31, notch: float = 2.0) -> np.ndarray:
    """A paraboloid bowl inside an edge of height 100 with one notch in it: every inside cell drains to the centre;
    the bowl spills at ``notch``."""
    y, x = np.mgrid[0:side, 0:side]
    centre = side // 2
    heights = 0.01 * ((x - centre) ** 2 + (y - centre) ** 2).astype(np.float64)
    heights[[0, -1], :] = heights[:, [0, -1]] = 100.0
    heights[0, centre] = notch
    return heights


def inside(shape: tuple[int, int]) -> np.ndarray:
    mask = np.zeros(shape, bool)
    mask[1:-1, 1:-1] = True
    return mask


def test_a_bowl_holds_the_rain_that_reaches_it_and_stands_at_the_level_of_its_volume() -> None:
    heights = bowl()
    cells = heights[inside(heights.shape)]
    capacity = volume(cells, 2.0)
    for rain in (0.01, 0.3, capacity / cells.size * 0.999):
        result = water(heights, cell_size=1.0, rain=rain)
        assert result.lake_level.shape == (1,)
        assert result.lake_volume[0] == pytest.approx(rain * cells.size, rel=1e-12)
        assert result.lake_level[0] == pytest.approx(level_for(cells, rain * cells.size), rel=1e-12)
        assert result.lake_outflow[0] == 0.0
        assert result.outflow_volume == pytest.approx(rain * (heights.size - cells.size), rel=1e-12)
        lake = result.lakes == 1
        assert np.array_equal(lake, heights < result.lake_level[0])
        assert np.all(result.level[lake] == result.lake_level[0])
        np.testing.assert_allclose(result.depth[lake], result.lake_level[0] - heights[lake], rtol=1e-6)
    cell_size = 2.5  # volumes scale with the cells' area, levels do not
    result = water(heights, cell_size=cell_size, rain=5.0)  # more than the bowl holds: full, the rest spills on
    inflow = 5.0 * cells.size * cell_size**2
    assert result.lake_level[0] == 2.0
    assert result.lake_volume[0] == pytest.approx(capacity * cell_size**2, rel=1e-12)
    assert result.lake_outflow[0] == pytest.approx(inflow - capacity * cell_size**2, rel=1e-12)


def test_evaporation_lowers_a_closed_lake_to_where_its_volume_and_surface_loss_take_the_inflow() -> None:
    heights = bowl()
    cells = heights[inside(heights.shape)]
    rain, evaporation = 0.2, 1.5
    result = water(heights, cell_size=1.0, rain=rain, evaporation=evaporation)
    expected = level_for(cells, rain * cells.size, evaporation)
    assert result.lake_level[0] == pytest.approx(expected, rel=1e-9)
    wet = np.count_nonzero(cells < expected)
    assert result.evaporated_volume == pytest.approx(evaporation * wet, rel=1e-9)
    assert result.stored_volume + result.evaporated_volume == pytest.approx(rain * cells.size, rel=1e-12)
    dry = water(heights, cell_size=1.0, rain=0.001, evaporation=10.0)  # evaporates before it stands anywhere
    assert dry.lake_level.size == 0 and dry.stored_volume == 0.0
    assert dry.evaporated_volume == pytest.approx(0.001 * cells.size, rel=1e-9)


def chain(floors=(10.0, 8.0, 6.0, 4.0), walls=(12.0, 10.0, 8.0, 6.0), width: int = 7) -> tuple[np.ndarray, list]:
    """Basins side by side, each spilling over its right wall into the next; the last one over its wall onto the
    map's right edge (height 0). Returns the heights and each basin's cell mask."""
    rows, columns = 7, 1 + len(floors) * (width + 1) + 1
    heights = np.full((rows, columns), 100.0)
    heights[1:-1, -1] = 0.0
    masks = []
    for k, (floor, wall) in enumerate(zip(floors, walls, strict=True)):
        left = 1 + k * (width + 1)
        y, x = np.mgrid[1 : rows - 1, left : left + width]
        heights[1:-1, left : left + width] = floor + 0.05 * np.abs(x - (left + width // 2)) + 0.01 * np.abs(y - 3)
        heights[1:-1, left + width] = wall
        mask = np.zeros((rows, columns), bool)
        mask[1:-1, left : left + width] = True
        masks.append(mask)
    return heights, masks


@pytest.mark.parametrize("rain", [(3.0, 0.0, 0.0, 0.0), (0.5, 0.2, 0.0, 1.0), (9.0, 9.0, 0.05, 0.1), (0.1,) * 4])
def test_a_chain_of_basins_spills_one_into_the_next(rain) -> None:
    """Each basin stores min(capacity, its rain + what the one above spills); the rest spills on."""
    heights, masks = chain()
    walls = (12.0, 10.0, 8.0, 6.0)
    falling = np.zeros(heights.shape)
    for mask, depth in zip(masks, rain, strict=True):
        falling[mask] = depth
    result = water(heights, cell_size=1.0, rain=falling)
    spilled = 0.0
    for mask, wall, depth in zip(masks, walls, rain, strict=True):
        capacity = volume(heights[mask], wall)
        inflow = depth * mask.sum() + spilled
        stored = min(capacity, inflow)
        lake = np.unique(result.lakes[mask & (heights < wall - 0.05)])
        if stored == 0.0:
            assert lake.tolist() == [0]
        else:
            centre = result.lakes[3][mask[3]].max()
            assert result.lake_volume[centre - 1] == pytest.approx(stored, rel=1e-12)
            assert result.lake_level[centre - 1] == pytest.approx(level_for(heights[mask], stored), rel=1e-12)
            assert result.lake_outflow[centre - 1] == pytest.approx(inflow - stored, rel=1e-12, abs=1e-12)
        spilled = inflow - stored
    assert result.outflow_volume == pytest.approx(spilled, rel=1e-12, abs=1e-12)
    assert result.rain_volume == pytest.approx(falling.sum(), rel=1e-12)


def twins() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Basin A (floor 0) and basin B (floor 2) joined over a saddle column of height 5, the pair spilling at 9
    through a notch in the map's edge. Returns the heights and the masks of A, B and the saddle."""
    rows, columns = 7, 17
    heights = np.full((rows, columns), 100.0)
    y, x = np.mgrid[0:rows, 0:columns]
    a = (x >= 1) & (x <= 7) & (y >= 1) & (y <= 5)
    b = (x >= 9) & (x <= 15) & (y >= 1) & (y <= 5)
    saddle = (x == 8) & (y >= 1) & (y <= 5)
    heights[a] = (0.1 * np.abs(x - 4) + 0.1 * np.abs(y - 3))[a]
    heights[b] = (2.0 + 0.1 * np.abs(x - 12) + 0.1 * np.abs(y - 3))[b]
    heights[saddle] = 5.0
    heights[3, 16] = 9.0
    return heights, a, b, saddle


def test_two_basins_fill_spill_and_merge() -> None:
    """Rain on A only: A fills alone; then spills into B; when both are full the merged lake rises above the
    saddle, up to the notch."""
    heights, a, b, saddle = twins()
    capacity_a, capacity_b = volume(heights[a], 5.0), volume(heights[b], 5.0)
    both = heights[a | b | saddle]
    for total in (0.5 * capacity_a, capacity_a + 0.4 * capacity_b, capacity_a + capacity_b + 40.0, 1e6):
        falling = np.where(a, total / a.sum(), 0.0)
        result = water(heights, cell_size=1.0, rain=falling)
        assert result.rain_volume == pytest.approx(total, rel=1e-12)
        if total <= capacity_a:
            assert result.lake_level.size == 1 and not result.lakes[b].any()
            assert result.lake_level[0] == pytest.approx(level_for(heights[a], total), rel=1e-12)
        elif total <= capacity_a + capacity_b:
            id_a, id_b = result.lakes[3, 4], result.lakes[3, 12]
            assert result.lake_level[id_a - 1] == 5.0
            assert result.lake_outflow[id_a - 1] == pytest.approx(total - capacity_a, rel=1e-12)
            assert result.lake_level[id_b - 1] == pytest.approx(level_for(heights[b], total - capacity_a), rel=1e-12)
            assert result.lake_volume[id_b - 1] == pytest.approx(total - capacity_a, rel=1e-12)
        elif total < volume(both, 9.0):
            assert result.lake_level.size == 1 and result.lakes[saddle].all()
            assert result.lake_level[0] == pytest.approx(level_for(both, total), rel=1e-12)
            assert result.outflow_volume == 0.0
        else:
            assert result.lake_level.tolist() == [9.0]
            assert result.outflow_volume == pytest.approx(total - volume(both, 9.0), rel=1e-12)


def test_unlimited_water_fills_every_depression_as_fill_depressions() -> None:
    heights = nc.evaluate_grid(nc.NoiseSpec(kind="perlin", octaves=5, frequency=6.0, seed=4), (96, 80)) * 50.0
    for grid in (heights, heights.astype(np.float64)):
        result = water(grid, cell_size=1.0, rain=math.inf)
        filled = nc.fill_depressions(grid)
        assert result.level.dtype == grid.dtype
        closed = filled > grid
        assert np.array_equal(result.level[closed], filled[closed])
        assert np.array_equal(result.lakes > 0, closed)
        assert math.isinf(result.rain_volume) and math.isinf(result.outflow_volume)
        depth = filled.astype(np.float64) - grid.astype(np.float64)
        assert result.stored_volume == pytest.approx(float(depth.sum()), rel=1e-9)


def filled_with_outlets(heights: np.ndarray, sea: np.ndarray) -> np.ndarray:
    outlets = sea.copy()
    outlets[[0, -1], :] = outlets[:, [0, -1]] = True
    filled = np.array(heights, dtype=np.float64, order="C", copy=True)
    fill_flat(filled.reshape(-1), filled.shape, outlets.astype(np.uint8).reshape(-1), False, False)
    return filled


def check_lakes(heights: np.ndarray, result, filled: np.ndarray) -> None:
    """Every lake is flat, wet exactly where the terrain is below its level among the cells it connects, never
    above the filled surface; one that spills stands at the lowest cell around it; the water balances."""
    assert np.all(result.level >= heights)
    wet = result.lakes > 0
    assert np.all(result.level[wet] <= filled[wet])
    rows, columns = heights.shape
    high = np.pad(heights, 1, constant_values=np.inf)
    for k, level in enumerate(result.lake_level):
        lake = result.lakes == k + 1
        assert np.all(heights[lake] < level) and np.all(result.level[lake] == result.level[lake][0])
        ring = np.zeros((rows + 2, columns + 2), bool)
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                ring[1 + dy : 1 + dy + rows, 1 + dx : 1 + dx + columns] |= lake
        ring &= np.pad(~lake, 1)
        rim = high[ring].min()
        assert rim >= level
        if result.lake_outflow[k] > 0.0:
            assert rim == level
    if math.isfinite(result.rain_volume):
        balance = result.stored_volume + result.evaporated_volume + result.outflow_volume
        assert balance == pytest.approx(result.rain_volume, rel=1e-9)


@pytest.mark.once_per_run
@pytest.mark.parametrize("name", NAMES)
def test_real_dems(name: str) -> None:
    """On the real tiles (metres, 90 m cells; Norway's sea as outlets): unlimited water fills exactly the
    depressions; a given rain stores what reaches each lake less what spills on, lakes as ``check_lakes``."""
    dem = load(name)
    sea = dem.sea if dem.sea.any() else None
    filled = filled_with_outlets(dem.heights, dem.sea)
    full = water(dem.heights, cell_size=dem.cell_size, rain=math.inf, outlets=sea)
    closed = filled > dem.heights
    assert np.array_equal(full.level[closed], filled[closed]) and np.array_equal(full.lakes > 0, closed)
    for rain in (0.002, 0.2):
        result = water(dem.heights, cell_size=dem.cell_size, rain=rain, outlets=sea)
        check_lakes(dem.heights, result, filled)
        assert result.evaporated_volume <= 1e-9 * result.rain_volume
        np.testing.assert_allclose(result.lake_volume.sum(), result.stored_volume)
        assert np.all(result.lake_volume > 0.0)
        if dem.sea.any():
            assert not result.lakes[dem.sea].any() and np.all(result.level[dem.sea] == dem.heights[dem.sea])


heights_strategy = arrays(
    np.float64,
    st.tuples(st.integers(3, 11), st.integers(3, 11)),
    elements=st.one_of(st.floats(0.0, 100.0), st.integers(0, 4).map(float)),  # integers: flats and ties
)


@settings(max_examples=80, deadline=None)
@given(heights_strategy, st.floats(0.0, 20.0), st.floats(0.0, 3.0), st.booleans())
def test_properties(heights: np.ndarray, rain: float, evaporation: float, per_cell: bool) -> None:
    """Mass balance, level >= terrain, lakes flat and bounded by their rims, more rain never lowers a lake, the
    same input gives the same bits, and unlimited rain fills as ``fill_depressions``."""
    falling = np.linspace(0.0, 2.0 * rain, heights.size).reshape(heights.shape) if per_cell else rain
    result = water(heights, cell_size=1.5, rain=falling, evaporation=evaporation)
    filled = nc.fill_depressions(heights)
    check_lakes(heights, result, filled)
    assert result.rain_volume == pytest.approx(float(np.broadcast_to(falling, heights.shape).sum()) * 2.25)
    again = water(heights, cell_size=1.5, rain=falling, evaporation=evaporation)
    for field in ("level", "lakes", "discharge", "flow", "shore_distance", "width"):
        assert np.array_equal(getattr(result, field), getattr(again, field))
    more = water(heights, cell_size=1.5, rain=falling * 2.0 + 0.5, evaporation=evaporation)
    lakes_before = np.where(result.lakes > 0, result.level, heights)
    lakes_after = np.where(more.lakes > 0, more.level, heights)
    assert np.all(lakes_after >= lakes_before)
    full = water(heights, cell_size=1.5, rain=math.inf)
    closed = filled > heights
    assert np.array_equal(full.level[closed], filled[closed]) and np.array_equal(full.lakes > 0, closed)


def valley(rows: int = 41, columns: int = 60) -> np.ndarray:
    """A V-shaped valley falling towards +x (the columns), its floor along the middle row."""
    y, x = np.mgrid[0:rows, 0:columns]
    return 0.5 * np.abs(y - rows // 2) + 0.1 * (columns - x)


def test_rivers_run_down_the_valley_as_polylines_with_shared_junctions() -> None:
    heights = valley()
    result = water(heights, cell_size=2.0, rain=1.0, river_area=40.0, width_coefficient=0.1, width_exponent=0.5)
    middle = heights.shape[0] // 2
    assert result.river_mask[middle, 10:].all() and result.lake_level.size == 0
    flow = result.flow[middle, 10:-3]
    assert np.all(flow[:, 0] > 0.5) and np.allclose(flow[:, 1], 0.5, atol=1e-6)  # +x along the columns
    on = result.river_mask
    np.testing.assert_allclose(result.width[on], 0.1 * result.discharge[on] ** 0.5, rtol=1e-6)
    assert np.all(result.width[~on] == 0.0)
    np.testing.assert_allclose(result.depth[on], 0.005 * result.discharge[on] ** 0.4, rtol=1e-5)
    check_network(result, heights.shape, 2.0)


def check_network(result, shape: tuple[int, int], cell: float) -> None:
    """Reaches step between 8-neighbours downhill in the discharge, cover the river cells once (junctions shared),
    and a junction is the first point of the reach downstream."""
    rows, columns = shape
    seen = np.zeros(rows * columns, int)
    for reach in result.rivers:
        cells = reach.cells
        assert np.all(np.abs(np.diff(cells // columns)) <= 1) and np.all(np.abs(np.diff(cells % columns)) <= 1)
        np.testing.assert_array_equal(reach.points[:, 0], (cells % columns) * cell)
        np.testing.assert_array_equal(reach.points[:, 1], (cells // columns) * cell)
        np.testing.assert_array_equal(reach.points[:, 2], result.level.reshape(-1)[cells])
        assert reach.discharge.shape == reach.width.shape == reach.depth.shape == cells.shape
        on = result.river_mask.reshape(-1)[cells]
        seen[cells[on]] += 1
        if reach.downstream >= 0:
            assert result.rivers[reach.downstream].cells[0] == cells[-1]
            seen[cells[-1]] -= 1
    assert np.array_equal(seen > 0, result.river_mask.reshape(-1)) and seen.max() <= 1


def test_headwaters_start_the_rivers_and_lakes_end_them() -> None:
    heights, a, _, _ = twins()
    heads = np.zeros(heights.shape, bool)
    heads[1, 1] = heads[5, 7] = True
    result = water(heights, cell_size=1.0, rain=np.where(a, 0.2, 0.0), headwaters=heads)
    assert result.river_mask[1, 1] and result.river_mask[5, 7]
    lake = result.lakes == result.lakes[3, 4]
    for reach in result.rivers:
        assert lake.reshape(-1)[reach.cells[-1]]  # each ends on the lake it runs into
    check_network(result, heights.shape, 1.0)


def test_a_lake_spill_starts_a_river_at_its_spill_point() -> None:
    """A basin spilling over its wall onto a slope down to the map's edge: the river starts on the wall."""
    heights, masks = chain(floors=(10.0,), walls=(12.0,))
    slope = 11.0 - 0.5 * np.arange(10)
    heights = np.concatenate([heights[:, :-1], np.tile(slope, (7, 1)), heights[:, -1:]], axis=1)
    heights[[0, -1], 9:-1] = 100.0
    basin = np.concatenate([masks[0][:, :-1], np.zeros((7, 11), bool)], axis=1)
    result = water(heights, cell_size=1.0, rain=np.where(basin, 3.0, 0.0), river_area=1.0)
    assert result.lake_outflow[0] > 0.0
    spill = np.flatnonzero((heights == 12.0).reshape(-1))
    sources = [reach for reach in result.rivers if reach.cells[0] in spill]
    assert len(sources) == 1 and sources[0].cells.size >= 10
    np.testing.assert_allclose(sources[0].discharge[1:-1], result.lake_outflow[0], rtol=1e-12)
    check_network(result, heights.shape, 1.0)


def test_carving_cuts_a_bed_that_never_rises_downstream() -> None:
    heights = nc.evaluate_grid(nc.NoiseSpec(kind="perlin", octaves=5, frequency=3.0, seed=9), (80, 80)) * 40.0
    result = water(heights, cell_size=1.0, rain=1.0, river_area=30.0)
    assert result.rivers
    carved = carve_rivers(heights, result.rivers, cell_size=1.0, depth=0.5)
    assert carved.dtype == heights.dtype and np.all(carved <= heights)
    flat = carved.reshape(-1).astype(np.float64)
    for reach in result.rivers:
        bed = flat[reach.cells]
        lowest_upstream = np.minimum.accumulate(heights.reshape(-1)[reach.cells].astype(np.float64) - 0.5)
        assert np.all(bed <= lowest_upstream + 1e-5)  # 0.5 below the terrain, never rising downstream
    own = carve_rivers(heights, result.rivers, cell_size=1.0)  # each point's own river depth
    assert np.all(own <= heights) and np.any(own < heights)
    assert np.array_equal(carve_rivers(heights, [], cell_size=1.0), heights)


def test_shore_distance_is_the_euclidean_distance_across_the_shore() -> None:
    heights, a, _, _ = twins()
    result = water(heights, cell_size=3.0, rain=np.where(a, 0.1, 0.0))
    wet = result.lakes > 0
    ys, xs = np.nonzero(wet)
    dry_ys, dry_xs = np.nonzero(~wet)
    for (y, x), distance in np.ndenumerate(result.shore_distance):
        other = (dry_ys, dry_xs) if wet[y, x] else (ys, xs)
        expected = 3.0 * np.sqrt(((other[0] - y) ** 2 + (other[1] - x) ** 2).min())
        assert distance == pytest.approx(expected, rel=1e-6)
    assert np.all(np.isinf(water(valley(), cell_size=1.0).shore_distance))


def test_progress_and_cancel() -> None:
    heights = valley()
    calls = []
    water(heights, cell_size=1.0, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(step, WATER_STEPS) for step in range(1, WATER_STEPS + 1)]

    class Stop(Exception):
        pass

    def stop(done, total):
        if done == 3:
            raise Stop

    with pytest.raises(Stop):
        water(heights, cell_size=1.0, progress=stop)


@pytest.mark.parametrize(
    ("keywords", "error", "message"),
    [
        ({"heights": np.zeros((2, 5))}, ValueError, "heights: must be a 2-D array"),
        ({"cell_size": 0.0}, ValueError, "cell_size: must be in"),
        ({"rain": -1.0}, ValueError, "rain: must be between"),
        ({"rain": np.ones((3, 3))}, ValueError, "rain: must have the heights' shape"),
        ({"rain": "wet"}, TypeError, "rain: expected a number"),
        ({"evaporation": -0.1}, ValueError, "evaporation: must be between"),
        ({"width_exponent": 2.0}, ValueError, "width_exponent: must be between 0 and 1"),
        ({"flow_blur": 1.5}, TypeError, "flow_blur: expected an integer"),
        ({"outlets": np.ones((8, 8), bool)}, ValueError, "outlets: every cell is an outlet"),
        ({"outlets": np.zeros((8, 8))}, TypeError, "outlets: expected a boolean numpy array"),
        ({"headwaters": np.zeros((4, 4), bool)}, ValueError, "headwaters: must have the heights' shape"),
        ({"progress": 3}, TypeError, "progress: expected a callable"),
        ({"heights": np.eye(8) * 1e300}, ValueError, "heights, cell_size: heights spanning 1e\\+300"),
        ({"heights": np.eye(8) * 1e250, "cell_size": 1e30}, ValueError, "heights, cell_size: .* could hold volumes"),
        ({"rain": np.full((8, 8), 1e299)}, ValueError, "rain: 1e\\+299 on 64 cells"),
    ],
)
def test_bad_arguments_are_named(keywords, error, message) -> None:
    arguments = {"heights": np.eye(8), "cell_size": 1.0, **keywords}
    with pytest.raises(error, match=message):
        water(arguments.pop("heights"), **arguments)


def test_carve_rivers_refuses_what_is_not_a_river() -> None:
    heights = valley()
    with pytest.raises(TypeError, match="rivers: expected a list of River"):
        carve_rivers(heights, "rivers", cell_size=1.0)
    with pytest.raises(TypeError, match="rivers: item 0 is a int"):
        carve_rivers(heights, [3], cell_size=1.0)
    rivers = water(heights, cell_size=1.0, river_area=40.0).rivers
    with pytest.raises(ValueError, match="depth: must be >= 0"):
        carve_rivers(heights, rivers, cell_size=1.0, depth=-1.0)
    with pytest.raises(ValueError, match="rivers: a point lies off"):
        carve_rivers(heights[:5, :5], rivers, cell_size=1.0)


def test_engine_flow_conventions() -> None:
    flow = np.random.default_rng(3).random((5, 7, 2)).astype(np.float32)
    for engine in ("grid", "unreal", "godot"):
        assert np.array_equal(engine_flow(flow, engine), flow)
    unity = engine_flow(flow, "unity")
    assert np.array_equal(unity[..., 0], flow[..., 0]) and np.allclose(unity[..., 1], 1.0 - flow[..., 1])
    with pytest.raises(ValueError, match="engine: 'cryengine' is not a flow convention"):
        engine_flow(flow, "cryengine")
    with pytest.raises(ValueError, match="flow: values must lie in"):
        engine_flow(flow * 2.0, "grid")


def test_water_maps_beside_a_heightmap(tmp_path: Path) -> None:
    """The level as a heightmap of the terrain's range (same Z scale in the engine) and the flow PNG beside it."""
    heights = bowl(33)
    result = water(heights, cell_size=4.0, rain=0.2)
    low, high = float(heights.min()), float(heights.max())
    paths = write_water_maps(tmp_path / "land.r16", result.level, result.flow, height_range=(low, high),
                             engine="unity", cell_size=4.0)  # fmt: skip
    assert [p.name for p in paths] == ["land_water.r16", "land_water.r16.json", "land_flow.png"]
    read = read_heightmap(paths[0])
    np.testing.assert_allclose(read.heights, np.clip(result.level, low, high), atol=(high - low) / 65535)
    assert read.sidecar["water"]["flow_convention"] == "unity" and read.sidecar["import"]["engine"] == "Unity"
    image = read_image(paths[2])
    expected = engine_flow(result.flow, "unity")
    np.testing.assert_allclose(image[..., :2], expected, atol=0.5 / 255 + 1e-6)
    assert np.all(image[..., 2] == 0.0)
    with pytest.raises(ValueError, match="size: Unity does not take 33x20"):
        write_water_maps(tmp_path / "bad.r16", result.level[:20], result.flow[:20], height_range=(low, high),
                         engine="unity")  # fmt: skip
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in paths)


def test_water_maps_in_one_set_with_their_heightmap(tmp_path: Path) -> None:
    """``water_files`` as ``write_heightmap``'s ``beside``: the same bytes as ``write_water_maps``, all or none with
    the heightmap."""
    heights = bowl(33)
    result = water(heights, cell_size=4.0, rain=0.2)
    low, high = float(heights.min()), float(heights.max())
    options = {"height_range": (low, high), "engine": "unity", "cell_size": 4.0}
    alone = write_water_maps(tmp_path / "alone.r16", result.level, result.flow, **options)
    together = tmp_path / "set"
    together.mkdir()
    beside = water_files(together / "alone.r16", result.level, result.flow, **options)
    nc.write_heightmap(together / "alone.r16", (heights - low) / (high - low), height_range=(low, high),
                       engine="unity", cell_size=4.0, beside=beside)  # fmt: skip
    for path in alone:
        assert (together / path.name).read_bytes() == path.read_bytes(), path.name
    written = sorted(p.name for p in together.iterdir())
    assert written == sorted(["alone.r16", "alone.r16.json", *(p.name for p in alone)])
    failed = tmp_path / "failed"
    failed.mkdir()
    targets, write = water_files(failed / "f.r16", result.level, result.flow, **options)

    def broken(temporaries: list[Path]) -> None:
        write(temporaries)
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        nc.write_heightmap(failed / "f.r16", (heights - low) / (high - low), beside=(targets, broken))
    assert list(failed.iterdir()) == []


def test_the_water_command(tmp_path: Path, capsys) -> None:
    land = tmp_path / "land.exr"
    heights = nc.evaluate_grid(nc.NoiseSpec(kind="perlin", octaves=5, frequency=3.0, seed=2), (65, 65)) * 300.0
    low, high = float(heights.min()), float(heights.max())
    nc.write_heightmap(land, (heights - low) / (high - low), height_range=(low, high), unit="m", engine="godot",
                       cell_size=5.0)  # fmt: skip
    read = read_heightmap(land).heights
    out = [tmp_path / name for name in ("level.exr", "flow.png", "rivers.json", "carved.r32")]
    arguments = ["water", str(land), "--rain", "0.5", "--river-area", "5000", "--engine", "godot", "--out-level",
                 str(out[0]), "--out-flow", str(out[1]), "--rivers", str(out[2]), "--carve", str(out[3])]  # fmt: skip
    assert main(arguments) == 0
    expected = water(read, cell_size=5.0, rain=0.5, river_area=5000.0)
    assert f"{expected.lake_level.size} lakes" in capsys.readouterr().out
    level = read_heightmap(out[0])
    assert level.height_range == (low, high)
    np.testing.assert_allclose(level.heights, np.clip(expected.level, low, high), atol=1e-4 * (high - low))
    np.testing.assert_allclose(read_image(out[1])[..., :2], expected.flow, atol=0.5 / 255 + 1e-6)
    record = json.loads(out[2].read_text())
    assert record["cell_size"] == 5.0 and len(record["rivers"]) == len(expected.rivers)
    for reach, written in zip(expected.rivers, record["rivers"], strict=True):
        np.testing.assert_allclose(written["points"], reach.points, atol=1e-6)
        assert written["downstream"] == reach.downstream
    carved = read_heightmap(out[3]).heights
    np.testing.assert_allclose(carved, carve_rivers(read, expected.rivers, cell_size=5.0), atol=1e-3)
    full = main(["water", str(land), "--rain", "inf", "--out-level", str(tmp_path / "full.exr")])
    assert full == 0
    filled = nc.fill_depressions(read)
    lakes = filled > read  # every depression full (rivers elsewhere stand above the terrain)
    np.testing.assert_allclose(read_heightmap(tmp_path / "full.exr").heights[lakes], filled[lakes], atol=1e-4 * high)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ([], "out-level: nothing to write"),
        (["--out-flow", "f.exr"], "out-flow: the flow map is an RGB .png"),
        (["--out-level", "l.jpg"], "out-level: unsupported heightmap format '.jpg'"),
        (["--rivers", "r.json", "--carve-depth", "1"], "carve-depth: only used with --carve"),
        (["--rivers", "r.json", "--rain", "-1"], "rain: must be between 0"),
        (["--rivers", "r.json", "--width-exponent", "3"], "--width-exponent: must be between 0 and 1"),
    ],
)
def test_the_water_command_refuses_bad_options(tmp_path: Path, capsys, arguments, message) -> None:
    land = tmp_path / "land.r16"
    nc.write_heightmap(land, np.zeros((9, 9), np.float32), height_range=(0.0, 10.0), unit="m", cell_size=1.0)
    files = sorted(tmp_path.iterdir())
    with pytest.raises(SystemExit):
        paths = [str(tmp_path / a) if a.endswith((".exr", ".jpg", ".json")) else a for a in arguments]
        main(["water", str(land), "--cell-size", "1", *paths])
    assert message in capsys.readouterr().err
    assert sorted(tmp_path.iterdir()) == files  # nothing written


def test_the_water_command_takes_the_sea_as_outlets(tmp_path: Path) -> None:
    """``--sea LEVEL``: the cells at or below LEVEL are outlets, as ``water(outlets=...)``."""
    heights, _, _, _ = twins()
    heights = heights.copy()
    heights[:, :3] = 0.0  # a strip of sea along the left edge, into basin A
    land = tmp_path / "land.r32"
    nc.write_heightmap(land, heights / 100.0, height_range=(0.0, 100.0), unit="m", cell_size=1.0)
    read = read_heightmap(land).heights
    arguments = ["--cell-size", "1", "--sea", "0", "--rain", "0.3", "--out-level", str(tmp_path / "level.r32")]
    assert main(["water", str(land), *arguments]) == 0
    expected = water(read, cell_size=1.0, rain=0.3, outlets=read <= 0.0)
    assert expected.lake_level.size != water(read, cell_size=1.0, rain=0.3).lake_level.size  # the sea drains A
    level = read_heightmap(tmp_path / "level.r32").heights
    np.testing.assert_allclose(level, np.clip(expected.level, 0.0, 100.0), atol=1e-5)


@settings(max_examples=40, deadline=None)
@given(st.integers(-300, 300), st.floats(1e-30, 1e30), st.floats(0.0, 1e30), st.integers(0, 3), st.booleans())
def test_finite_at_any_allowed_scale(exponent: int, cell: float, rain: float, seed: int, single: bool) -> None:
    """Heights from 1e-300 to 1e300, cells from 1e-30 to 1e30, any rain: refused by name (volumes past
    ``VOLUME_LIMIT``) or every output finite, the level at least the heights and the water balanced."""
    heights = np.random.default_rng(seed).random((9, 9)) * 10.0**exponent
    heights = heights.astype(np.float32) if single and abs(exponent) < 30 else heights
    try:
        result = water(heights, cell_size=cell, rain=rain)
    except ValueError as error:
        assert str(error).startswith(("heights, cell_size:", "rain:"))
        return
    for field in ("level", "depth", "discharge", "width", "flow", "lake_level", "lake_volume", "lake_outflow"):
        assert np.all(np.isfinite(getattr(result, field))), field
    assert np.all(result.level >= heights) and np.all(result.depth >= 0.0)
    balance = result.stored_volume + result.evaporated_volume + result.outflow_volume
    assert balance == pytest.approx(result.rain_volume, rel=1e-9, abs=1e-300)
