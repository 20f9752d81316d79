"""Flow routing (``noise_core/hydrology.py``): Priority-Flood against RichDEM, D8 receivers, stack, accumulation."""

from __future__ import annotations

import collections
import heapq
import math
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import noise_core as nc
from noise_core.terrain.flow import (
    accumulate,
    d8_receivers,
    fill_depressions,
    fill_flat,
    flow_accumulation,
    stack_order,
)
from noise_core.terrain.heightfield import NEIGHBOURS


def noise_terrain(shape: tuple[int, int] = (90, 110), relief: float = 50.0, dtype=np.float32) -> np.ndarray:
    spec = nc.NoiseSpec(kind="perlin", octaves=5, frequency=4.0, seed=3)
    return (nc.ranges.to_unit(spec, nc.evaluate_grid(spec, shape)) * relief).astype(dtype)


def random_terrain(shape: tuple[int, int] = (70, 60), dtype=np.float64, seed: int = 1) -> np.ndarray:
    return (np.random.default_rng(seed).random(shape) * 10.0).astype(dtype)


WITH_RICHDEM = pytest.mark.skipif(
    sys.version_info >= (3, 13), reason="richdem-fork is installed on Python 3.11 only (requirements.lock)"
)
"""The comparisons with RichDEM: on Python 3.11, where the lock file installs it, a missing RichDEM fails them."""

TERRAINS = {
    "random32": lambda: random_terrain(dtype=np.float32),
    "random64": lambda: random_terrain(),
    "noise32": lambda: noise_terrain(),
    "noise64": lambda: noise_terrain(dtype=np.float64),
    "integers": lambda: np.random.default_rng(5).integers(0, 4, (40, 50)).astype(np.float64),
}


def reference_receivers(heights: np.ndarray) -> np.ndarray:
    """D8 steepest descent in numpy: largest (h - h_n) / distance when positive, first neighbour on ties."""
    rows, columns = heights.shape
    padded = np.pad(heights.astype(np.float64), 1, constant_values=np.inf)
    best = np.zeros(heights.shape)
    receivers = np.arange(heights.size).reshape(heights.shape)
    y, x = np.mgrid[0:rows, 0:columns]
    for dy, dx in NEIGHBOURS:
        drop = (heights - padded[1 + dy : 1 + dy + rows, 1 + dx : 1 + dx + columns]) / math.hypot(dy, dx)
        steeper = drop > best
        best = np.where(steeper, drop, best)
        receivers = np.where(steeper, (y + dy) * columns + x + dx, receivers)
    receivers[[0, -1], :] = np.arange(heights.size).reshape(heights.shape)[[0, -1], :]
    receivers[:, [0, -1]] = np.arange(heights.size).reshape(heights.shape)[:, [0, -1]]
    return receivers.ravel()


def test_fill_of_a_pit_in_a_plane_is_its_spill_height() -> None:
    heights = np.add.outer(np.arange(7.0), np.zeros(7)) + 10.0  # rises along rows
    heights[3, 3] = 0.0  # a pit: its lowest neighbours are at 12
    filled = fill_depressions(heights)
    expected = heights.copy()
    expected[3, 3] = 12.0
    assert np.array_equal(filled, expected) and filled.dtype == np.float64
    steps = fill_depressions(heights, epsilon=True)
    assert steps[3, 3] == np.nextafter(12.0, np.inf)
    assert np.array_equal(np.delete(steps.ravel(), 24), np.delete(heights.ravel(), 24))


def test_a_ring_holds_a_lake_at_its_lowest_gap() -> None:
    heights = np.zeros((9, 9), dtype=np.float32)
    heights[2:7, 2:7] = 5.0
    heights[3:6, 3:6] = 1.0  # a basin inside a wall of 5
    heights[4, 2] = 3.0  # the wall's lowest gap
    filled = fill_depressions(heights)
    assert filled.dtype == np.float32
    assert np.all(filled[3:6, 3:6] == 3.0) and filled[4, 2] == 3.0
    assert np.array_equal(filled[heights != 1.0], heights[heights != 1.0])


@settings(max_examples=40, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(3, 12), st.integers(3, 12)), elements=st.floats(-1e3, 1e3)))
def test_fill_properties(heights: np.ndarray) -> None:
    """Filled >= heights, edges untouched, idempotent; epsilon: every inside cell has a strictly lower
    neighbour, and the D8 path from every cell ends on an edge."""
    filled = fill_depressions(heights)
    assert np.all(filled >= heights)
    edge = np.ones(heights.shape, bool)
    edge[1:-1, 1:-1] = False
    assert np.array_equal(filled[edge], heights[edge])
    assert np.array_equal(fill_depressions(filled), filled)
    stepped = fill_depressions(heights, epsilon=True)
    assert np.all(stepped >= filled)
    receivers = d8_receivers(stepped)
    cells = np.arange(heights.size)
    assert np.all(receivers[~edge.ravel()] != cells[~edge.ravel()])
    assert len(stack_order(receivers)) == heights.size


def minimax_fill(heights: np.ndarray, outlets: np.ndarray, looped: bool) -> np.ndarray:
    """The plain fill by its definition, relaxed to a fixed point: ``f = max(h, min over neighbours of f)``
    off the outlets, ``f = h`` on them (the lowest height from which water reaches an outlet)."""
    filled = np.where(outlets, heights, np.inf)
    while True:
        padded = np.pad(filled, 1, mode="wrap") if looped else np.pad(filled, 1, constant_values=np.inf)
        rows, columns = heights.shape
        lowest = np.min([padded[1 + dy : 1 + dy + rows, 1 + dx : 1 + dx + columns] for dy, dx in NEIGHBOURS], axis=0)
        relaxed = np.where(outlets, heights, np.maximum(heights, np.minimum(filled, lowest)))
        if np.array_equal(relaxed, filled):
            return filled
        filled = relaxed


def outlet_mask(shape: tuple[int, int], looped: bool, seed: int) -> np.ndarray:
    """The map's edges; looped: about 5 % of the cells anywhere (at least one), drawn from ``seed``."""
    if looped:
        outlets = np.random.default_rng(seed).random(shape) < 0.05
        outlets.flat[seed % outlets.size] = True
        return outlets
    outlets = np.ones(shape, bool)
    outlets[1:-1, 1:-1] = False
    return outlets


@settings(max_examples=60, deadline=None)
@given(
    arrays(np.float64, st.tuples(st.integers(3, 14), st.integers(3, 14)), elements=st.integers(0, 6).map(float)),
    st.booleans(),
    st.integers(0, 2**32 - 1),
)
def test_plain_fill_is_the_minimax_height(heights: np.ndarray, looped: bool, seed: int) -> None:
    """Plateaus, ties and looped maps with outlets anywhere (the slopes traced up outside the heap must not
    change the unique fill)."""
    outlets = outlet_mask(heights.shape, looped, seed)
    flat = heights.ravel().copy()
    fill_flat(flat, heights.shape, outlets.ravel().astype(np.uint8), looped, False)
    assert np.array_equal(flat.reshape(heights.shape), minimax_fill(heights, outlets, looped))


def epsilon_fill(heights: np.ndarray, outlets: np.ndarray, looped: bool) -> np.ndarray:
    """Barnes, Lehman & Mulla (2014), Algorithm 3, as the paper writes it: ``heapq`` of (height, cell), a
    ``deque`` of pit cells, the heap first when its top equals the pit front's height."""
    rows, columns = heights.shape
    flat = heights.ravel().copy()
    closed = outlets.ravel().copy()
    heap = [(float(flat[cell]), cell) for cell in np.flatnonzero(closed)]
    heapq.heapify(heap)
    pit: collections.deque[int] = collections.deque()
    infinity = flat.dtype.type(np.inf)
    while heap or pit:
        from_pit = pit and not (heap and heap[0][0] == flat[pit[0]])
        cell = pit.popleft() if from_pit else heapq.heappop(heap)[1]
        spill = np.nextafter(flat[cell], infinity)
        for dy, dx in NEIGHBOURS:
            y, x = cell // columns + dy, cell % columns + dx
            if looped:
                y, x = y % rows, x % columns
            elif not (0 <= y < rows and 0 <= x < columns):
                continue
            neighbour = int(y * columns + x)
            if closed[neighbour]:
                continue
            closed[neighbour] = True
            if flat[neighbour] <= spill:
                flat[neighbour] = spill
                pit.append(neighbour)
            else:
                heapq.heappush(heap, (float(flat[neighbour]), neighbour))
    return flat.reshape(heights.shape)


@settings(max_examples=60, deadline=None)
@given(
    arrays(np.float64, st.tuples(st.integers(3, 14), st.integers(3, 14)), elements=st.integers(0, 6).map(float)),
    st.booleans(),
    st.booleans(),
    st.integers(0, 2**32 - 1),
)
def test_epsilon_fill_follows_algorithm_3(heights: np.ndarray, looped: bool, single: bool, seed: int) -> None:
    """The epsilon fill depends on the order cells are reached in: the kernel (prefetching, neighbours
    without bounds checks inside the map) must visit them in Algorithm 3's order, ties by cell index."""
    heights = heights.astype(np.float32) if single else heights + 100.0
    outlets = outlet_mask(heights.shape, looped, seed)
    flat = heights.ravel().copy()
    fill_flat(flat, heights.shape, outlets.ravel().astype(np.uint8), looped, True)
    assert np.array_equal(flat.reshape(heights.shape), epsilon_fill(heights, outlets, looped))


def test_epsilon_fill_of_a_noise_terrain_follows_algorithm_3() -> None:
    heights = noise_terrain((60, 70))
    outlets = outlet_mask(heights.shape, False, 0)
    expected = epsilon_fill(heights, outlets, False)
    assert np.any(expected != heights)
    assert np.array_equal(fill_depressions(heights, epsilon=True), expected)


@WITH_RICHDEM
@pytest.mark.parametrize("name", sorted(TERRAINS))
def test_fill_equals_richdem(name: str) -> None:
    import richdem as rd

    heights = TERRAINS[name]()
    # The plain fill is unique. The epsilon fill is the same algorithm (Barnes et al. 2014, Algorithm 3) but
    # depends on the order of equal heights in the priority queue (ours: by cell index; RichDEM's: its heap's),
    # so it is compared only where no two heights are equal.
    tied = np.unique(heights).size < heights.size
    for epsilon in (False,) if tied else (False, True):
        theirs = np.asarray(rd.FillDepressions(rd.rdarray(heights.copy(), no_data=-9999.0), epsilon=epsilon))
        ours = fill_depressions(heights, epsilon=epsilon)
        assert ours.dtype == theirs.dtype
        assert np.array_equal(ours, theirs), epsilon
    assert np.any(fill_depressions(heights) != heights)  # the test has depressions to fill


def _richdem_receivers(rd, heights: np.ndarray) -> np.ndarray:
    """RichDEM's D8 receivers from its flow proportions (neighbour n at x + dx[n], y + dy[n])."""
    props = np.asarray(rd.FlowProportions(rd.rdarray(heights, no_data=-9999.0), method="D8"))
    dx, dy = (0, -1, -1, 0, 1, 1, 1, 0, -1), (0, 0, -1, -1, -1, 0, 1, 1, 1)
    columns = heights.shape[1]
    receivers = np.arange(heights.size)
    for n in range(1, 9):
        y, x = np.nonzero(props[:, :, n] > 0)
        receivers[y * columns + x] = (y + dy[n]) * columns + x + dx[n]
    return receivers


@WITH_RICHDEM
@pytest.mark.parametrize("name", ["random64", "noise64"])
def test_d8_against_richdem(name: str) -> None:
    """RichDEM's D8 (O'Callaghan & Mark) sends each cell to its *lowest* neighbour, ours to the steepest drop
    per distance (the issue's rule, as fastscapelib): the accumulation from the same receivers is equal, and
    where the receivers differ ours is steeper (or as steep: a tie). Both: edge cells, pits and flats are outlets."""
    import richdem as rd

    heights = fill_depressions(TERRAINS[name](), epsilon=True)
    theirs = _richdem_receivers(rd, heights)
    ours = d8_receivers(heights)
    assert np.array_equal(ours, reference_receivers(heights))
    accumulated = np.asarray(rd.FlowAccumulation(rd.rdarray(heights, no_data=-9999.0), method="D8"))
    assert np.array_equal(accumulate(theirs, stack_order(theirs), np.ones(heights.size)), accumulated.ravel())
    flat, columns = heights.ravel(), heights.shape[1]

    def slope(cells: np.ndarray, receivers: np.ndarray) -> np.ndarray:
        distance = np.hypot(cells // columns - receivers // columns, cells % columns - receivers % columns)
        return (flat[cells] - flat[receivers]) / distance

    differ = np.flatnonzero(ours != theirs)
    assert 0 < differ.size < heights.size // 2
    steeper, other = slope(differ, ours[differ]), slope(differ, theirs[differ])
    # ties (cells filled to the same height) go to the first neighbour in each one's order
    assert np.all(steeper >= other) and np.mean(steeper > other) > 0.5


def test_flow_accumulation_counts_every_cell_once() -> None:
    heights = fill_depressions(noise_terrain(), epsilon=True)
    area = flow_accumulation(heights)
    assert area.shape == heights.shape and area.min() == 1.0
    receivers = d8_receivers(heights)
    outlets = receivers == np.arange(heights.size)
    assert area.ravel()[outlets].sum() == heights.size
    rain = np.random.default_rng(2).random(heights.shape)
    wet = flow_accumulation(heights, weights=rain)
    assert wet.ravel()[outlets].sum() == pytest.approx(rain.sum(), rel=1e-12)
    assert np.all(wet >= rain)


def test_accumulation_of_a_tilted_plane_counts_rows() -> None:
    """A plane falling towards row 0: every inner cell drains straight down its column, so the cell in row r
    collects rows r .. rows - 2 (the last row is an edge: an outlet)."""
    rows, columns = 8, 6
    heights = np.add.outer(np.arange(rows, dtype=np.float64), np.zeros(columns))
    area = flow_accumulation(heights)
    expected = np.ones((rows, columns))
    expected[:-1, 1:-1] = (rows - 1 - np.arange(rows - 1))[:, None]
    assert np.array_equal(area, expected)


def test_stack_puts_receivers_first_and_rejects_cycles() -> None:
    receivers = d8_receivers(fill_depressions(random_terrain(), epsilon=True))
    order = stack_order(receivers)
    position = np.empty_like(order)
    position[order] = np.arange(order.size)
    assert np.array_equal(np.sort(order), np.arange(order.size))
    assert np.all(position[receivers] <= position)
    with pytest.raises(ValueError, match="receivers: they form a cycle"):
        stack_order(np.array([1, 0, 2]))
    with pytest.raises(ValueError, match="receivers: every receiver"):
        stack_order(np.array([0, 5]))


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: fill_depressions([[1.0]]), TypeError, "heights: expected a 2-D numpy array"),
        (lambda: fill_depressions(np.zeros((2, 5))), ValueError, "heights: must be a 2-D array"),
        (lambda: fill_depressions(np.full((4, 4), np.nan)), ValueError, "heights: must be finite"),
        (lambda: fill_depressions(np.zeros((4, 4)), epsilon=1), TypeError, "epsilon: expected True or False"),
        (lambda: flow_accumulation(np.zeros((4, 4)), method="dinf"), ValueError, "method: 'dinf' is not allowed"),
        (lambda: flow_accumulation(np.zeros((4, 4)), cell_size=0), ValueError, "cell_size: must be > 0"),
        (lambda: flow_accumulation(np.zeros((4, 4)), weights=np.ones(3)), ValueError, "weights: must have"),
        (lambda: flow_accumulation(np.zeros((4, 4)), weights=-np.ones((4, 4))), ValueError, "weights: must be >= 0"),
        (lambda: d8_receivers(np.zeros((4, 4)), outlets=np.ones(5, bool)), ValueError, "outlets: must hold one"),
        (lambda: d8_receivers(np.zeros((4, 4)), looped=1), TypeError, "looped: expected True or False"),
    ],
)
def test_errors_name_the_argument(call, error, message: str) -> None:
    with pytest.raises(error, match=message):
        call()
