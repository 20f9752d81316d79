"""Glacial troughs (issue 49): ``noise_core.terrain.glacial.carve_troughs`` and the river stage's
``glacier_depth``/``glacier_area``."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import noise_core as nc
from noise_core.terrain import glacial
from noise_core.terrain.flow import _edges, fill_flat
from noise_core.terrain.glacial import carve_troughs

from .stages import short_rivers
from .test_fluvial import noise_terrain

SLOPE, FALL = 0.8, 0.2
"""The analytic V valley's wall slope and its river's fall per cell (cells 1 apart)."""


def _v_valley() -> np.ndarray:
    """A V valley, walls of slope ``SLOPE``, its river along row 30 falling ``FALL`` a cell towards x = 0 (each
    column's cells drain straight across to it: the diagonal falls only ``(SLOPE + FALL) / √2``)."""
    y, x = np.mgrid[0:61, 0:120]
    return np.abs(y - 30) * SLOPE + x * FALL


def _levels(depth: float, area: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(bed, L, drained, thickness)`` along the V's river: the ice surface the docstring's recursion gives (the
    river drains the 59 cells of each column from its own to column 118: the map's edges are outlets)."""
    bed = np.arange(120) * FALL
    drained = 59.0 * (119 - np.arange(120))
    drained[0] = drained[1] + 1.0  # the mouth, an edge cell: its column's other cells are edges too
    thickness = depth * math.sqrt(area) * (np.maximum(drained / area, 1.0) ** glacial.GLACIER_EXPONENT - 1.0)
    level = bed + thickness
    for column in range(118, -1, -1):  # donors first, capped by the grade
        if thickness[column] > 0.0:
            level[column] = max(min(level[column], level[column + 1] - glacial.GLACIER_GRADE * FALL), bed[column])
    return bed, level, drained, thickness


def _trough(
    heights,
    depth: float,
    area: float,
    width: float,
    rock: float = 0.0,
    z: float = 0.0,
    wall: float = 0.0,
    grade: float = glacial.GLACIER_FLOOR_GRADE,
    sink: float = 0.0,
) -> np.ndarray:
    """The V's trough by brute force, as the docstring states it (no texture, no rounding): each glacier cell's
    floor ``F`` (graded by ``grade``, ramped), half-width ``w`` (the width law, tapered) and
    ``U_g(d)`` (with ``wall`` > 0 the plane of that gradient beyond where the parabola is as steep); every cell the
    lowest ``U_g`` and its own height (the map's edge cells too), epsilon-filled."""
    bed, level, drained, _ = _levels(depth, area)
    ice = level - bed
    glaciers = np.flatnonzero(ice > 0.0)
    half = 0.5 * width * math.sqrt(area) * (drained / area) ** glacial.GLACIER_WIDTH_EXPONENT * math.exp(rock * z)
    floor = bed.copy()
    if sink > 0.0:  # column 0 is the map's edge: its floor is its bed, overdeepened with sink
        floor[0] = bed[0] - sink * ice[0]
    for column in range(1, 120):  # receivers first
        if ice[column] > 0.0:
            value = max(bed[column] - glacial.GLACIER_DEEPEN * ice[column],
                        floor[column - 1] + grade * FALL)  # fmt: skip
            if sink > 0.0:
                value = min(value, bed[column] - sink * ice[column])
            floor[column] = min(value, floor[column - 1] + glacial.GLACIER_FLOOR_STEEP * FALL)
            half[column] = max(half[column], half[column - 1] - glacial.GLACIER_TAPER)
    y, x = np.mgrid[0 : heights.shape[0], 0 : heights.shape[1]]
    out = heights.astype(float)
    for column in glaciers:
        w, f = half[column], glacial.GLACIER_FLAT * half[column]
        deep = bed[column] - floor[column] + glacial.GLACIER_WALL * w
        d = np.hypot(y - 30, x - column)
        u = floor[column] + deep * (np.maximum(d - f, 0.0) / (w - f)) ** glacial.GLACIER_SHAPE
        reach = glacial.GLACIER_REACH * w
        if wall > 0.0:  # the parabola's gradient 2·D·(d - f)/(w - f)² is wall at d*
            turn = min(reach, f + wall * (w - f) ** 2 / (2.0 * deep))
            at = floor[column] + deep * ((turn - f) / (w - f)) ** 2
            top = floor[column] + deep * ((reach - f) / (w - f)) ** 2
            u = np.where(d > turn, at + wall * (d - turn), u)
            reach = turn + (top - at) / wall
        out = np.where(d <= reach, np.minimum(out, u), out)
    return nc.fill_depressions(out, epsilon=True)  # the mouth's floor drains


def test_a_v_valley_becomes_a_trough_of_the_width_law(monkeypatch) -> None:
    """``glacier_width``: the V's trough is the lowest of the glacier cells' ``U_g`` (exactly so before the
    texture and the rounding), as wide as the width law ``W = width·√area·(A/area)^0.3``: a floor within
    ``GLACIER_FLAT·w`` of the river (rising across no faster than the river falls: the lower floor downstream
    reaches it: no faster than the floor falls), walls steeper than the V's, wider downstream (more ice)."""
    monkeypatch.setattr(glacial, "GLACIER_ROUND", 0)
    monkeypatch.setattr(glacial, "GLACIER_TEXTURE", 0.0)
    heights = _v_valley()
    out = carve_troughs(heights, depth=0.3, area=200.0, width=0.6)
    expected = _trough(heights, 0.3, 200.0, 0.6)
    assert np.allclose(out, expected, rtol=0.0, atol=1e-9)
    _, _, drained, _ = _levels(0.3, 200.0)
    widths = []
    for column in (20, 60, 100):
        profile = out[30:, column]
        steps = np.diff(profile[: np.flatnonzero(profile >= heights[30:, column])[0] + 1])
        assert np.all(steps >= -1e-12)  # rising from the river to the trough's edge
        half = 0.3 * math.sqrt(200.0) * (drained[column] / 200.0) ** 0.3
        floor = steps[: int(glacial.GLACIER_FLAT * half)]  # the floor, rising gently
        assert floor.size >= 2 and np.all(floor <= glacial.GLACIER_FLOOR_STEEP * FALL), column
        assert steps.max() > 1.5 * SLOPE, column  # steeper walls than the V's (0.8)
        widths.append(np.count_nonzero(out[:, column] < heights[:, column] - 1e-9))
    assert widths[0] > widths[1] > widths[2]  # the trough widens downstream (column 0 is its mouth)
    assert np.array_equal(out[:25, 119], heights[:25, 119])  # above the glacier's head the V stays beyond its reach
    assert np.array_equal(nc.fill_depressions(out), out)


def test_troughs_reach_the_maps_edge() -> None:
    """The map's edge cells are carved and rounded as the others (issue 49: the held edge stood as a rim above the
    trough, 148 m on Alpine Ridges): the V's mouth column (x = 0) takes the next column's cross-section (it stood
    1.95 above it, uncarved, and pulled the next column's rounding up: 2.15 carved there, 3.48 one further), the
    cross-section goes on to the edge as a plane (linear extrapolation within 0.08); a trough leaving through a
    corner carves both edges (they stood 3.9 above the next row and column, 1.41 now where the slope is 0.6)."""
    heights = _v_valley()
    for wall in (0.0, 1.2):
        out = carve_troughs(heights, depth=0.3, area=200.0, width=0.6, wall_slope=wall)
        assert (heights - out)[:, 0].max() > 4.0, wall  # carved: 4.58 (0 before)
        assert (out[:, 0] - out[:, 1]).max() < 0.05, wall  # no rim: 0.011 (1.95 before)
        assert np.abs(out[:, 0] - 2.0 * out[:, 1] + out[:, 2]).max() < 0.1, wall  # 0.075 (0.83 before)
        assert np.array_equal(nc.fill_depressions(out), out)
    y, x = np.mgrid[0:80, 0:80]
    corner = np.abs(y - x) * SLOPE + (x + y) * FALL
    out = carve_troughs(corner, depth=0.3, area=200.0, width=0.6)
    assert (corner - out)[0, 1:6].min() > 0.8 and (corner - out)[1:6, 0].min() > 0.8  # both edges carved
    assert (out[0, :30] - out[1, :30]).max() < 1.5 and (out[:30, 0] - out[:30, 1]).max() < 1.5  # 3.9 before
    assert np.array_equal(nc.fill_depressions(out), out)


def test_the_rock_field_narrows_the_troughs(monkeypatch) -> None:
    """``rock_width`` s: the half-width times ``exp(s·z)``; in strong rock (``z < 0``) the trough is narrower,
    in weak rock wider, each exactly the brute-force trough of that width."""
    monkeypatch.setattr(glacial, "GLACIER_ROUND", 0)
    monkeypatch.setattr(glacial, "GLACIER_TEXTURE", 0.0)
    heights = _v_valley()
    carved = {}
    for z in (-1.0, 0.0, 1.0):
        out = carve_troughs(heights, depth=0.3, area=200.0, width=0.6, rock=np.full(heights.shape, z), rock_width=0.4)
        assert np.allclose(out, _trough(heights, 0.3, 200.0, 0.6, 0.4, z), rtol=0.0, atol=1e-9), z
        carved[z] = np.count_nonzero(out < heights - 1e-9)
    assert carved[-1.0] < carved[0.0] < carved[1.0]
    plain = carve_troughs(heights, depth=0.3, area=200.0, width=0.6)
    assert np.array_equal(plain, carve_troughs(heights, depth=0.3, area=200.0, width=0.6,
                                               rock=np.full(heights.shape, 2.0), rock_width=0.0))  # fmt: skip


def _junction() -> np.ndarray:
    """A tributary V joining the trunk's from above (row 60, column 60), beds concordant."""
    y, x = np.mgrid[0:81, 0:120]
    trunk = np.abs(y - 60) * SLOPE + x * FALL
    branch = np.abs(x - 60) * SLOPE + (60 - y) * 0.4 + 60 * FALL
    return np.where(y < 60, np.minimum(trunk, branch), trunk)


def _broad_junction() -> np.ndarray:
    """A trunk with a broad, gentle bottom (cross slope 0.05 within 20 rows of its river, row 70, then 0.8), a
    tributary V coming down to it from above and crossing that bottom."""
    y, x = np.mgrid[0:101, 0:120]
    across = np.abs(y - 70)
    trunk = np.where(across < 20, across * 0.05, 1.0 + (across - 20) * 0.8) + x * 0.1
    branch = np.abs(x - 60) * SLOPE + (70 - y) * 0.1 + 60 * 0.1
    return np.where(y < 70, np.minimum(trunk, branch), trunk)


@pytest.mark.parametrize("width", [0.0, 0.5])
@pytest.mark.parametrize(("valleys", "river", "fall"), [(_junction, 60, FALL), (_broad_junction, 70, 0.1)])
def test_two_troughs_meet_without_a_crack(valleys, river, fall, width) -> None:
    """Where the tributary's trough meets the trunk's, no cell of the trunk's floor lies lower than the trunk's
    river in its column (nothing but the river drains the floor: no crack across it, as the floor of one
    glacier's cells beside another's used to cut: 4 cells below the river on the broad bottom before), the
    trunk's river falls downstream without a step (no more than ``GLACIER_FLOOR_STEEP`` times its bed's fall a
    cell) and across the trunk every column rises from its river to its walls (no notch), on the side away from
    the tributary and, at the plain junction, on both."""
    heights = valleys()
    out = carve_troughs(heights, depth=0.3, area=300.0, width=width)
    bed = out[river, 1:119]
    assert np.all(out[river - 20 :, 1:119] >= bed - 1e-9)  # the river is each column's lowest cell
    falls = np.diff(bed)[30:90]  # through the junction (columns 31-90; the glacier's head is steeper)
    assert np.all(falls > 0.0) and falls.max() < glacial.GLACIER_FLOOR_STEEP * fall + 1e-9
    assert np.all(np.diff(out[river:, 1:119], axis=0) >= -1e-9)  # rising away from the river
    if valleys is _junction:
        assert np.all(-np.diff(out[41:61, 1:119], axis=0) >= -1e-9)  # and on the tributary's side
    assert np.array_equal(nc.fill_depressions(out), out)


def test_a_tributary_glacier_hangs_above_the_trunk() -> None:
    """The tributary's trough (a thinner glacier, its floor shallower) ends in a step down the trunk's wall,
    many times its bed's fall, and drains to the trunk."""
    heights = _junction()
    out = carve_troughs(heights, depth=0.3, area=300.0, width=0.5)
    course = out[30:61, 60]
    drops = -np.diff(course)  # fall per row towards the trunk
    assert np.all(drops > 0.0)  # it drains down to the trunk
    lip = np.convolve(drops, np.ones(3), "valid")  # the fall over three rows
    assert lip.max() > 1.5 * 3 * 0.4  # the lip: a step (2.27 over three rows), not the bed's 0.4 a row
    above = drops[5:15]  # above it (rows 35-45) its own floor, graded no steeper than twice its bed
    assert np.all(above <= glacial.GLACIER_FLOOR_STEEP * 0.4 + 1e-9)
    assert np.all(heights[32:44, 60] - out[32:44, 60] > 0.3)  # the tributary's own trough, up its valley
    assert np.array_equal(nc.fill_depressions(out), out)


def test_wall_slope_makes_each_wall_one_plane_up_to_the_untouched_slope(monkeypatch) -> None:
    """``wall_slope`` s: beyond the distance where the parabola is as steep as s, a glacier cell's trough goes on
    as the plane of gradient s (exactly the brute force's, before the texture and the rounding), so across the
    trough every column rises monotonically from the river to the wall's top, no step steeper than s (the
    parabola's walls reach 1.97 a cell here), no groove at the shoulder (the first cell above the trough is
    the V's own), a wider trough than the parabola's, and the slope above it untouched."""
    monkeypatch.setattr(glacial, "GLACIER_ROUND", 0)
    monkeypatch.setattr(glacial, "GLACIER_TEXTURE", 0.0)
    heights = _v_valley()  # walls of 0.8 a cell: the plane of 1.2 meets them
    parabola = carve_troughs(heights, depth=0.3, area=200.0, width=0.6)
    out = carve_troughs(heights, depth=0.3, area=200.0, width=0.6, wall_slope=1.2)
    assert np.allclose(out, _trough(heights, 0.3, 200.0, 0.6, wall=1.2), rtol=0.0, atol=1e-9)
    for column in (60, 100):  # downstream (column 20) the trough reaches the map's edges, which stay
        for side in (out[30:, column], out[30::-1, column]):
            original = heights[30:, column]
            top = np.flatnonzero(side >= original - 1e-9)[0]  # the first cell not carved: the shoulder
            assert top < 30, column
            steps = np.diff(side[: top + 1])
            assert np.all(steps >= -1e-12) and steps.max() <= 1.2 + 1e-9, column
            assert np.array_equal(side[top:], original[top:])  # the slope above is untouched
    assert np.diff(parabola[30:, 60]).max() > 1.9
    assert np.count_nonzero(out < heights - 1e-9) > np.count_nonzero(parabola < heights - 1e-9)
    assert np.array_equal(nc.fill_depressions(out), out)
    assert np.array_equal(carve_troughs(heights, depth=0.3, area=200.0, width=0.6, wall_slope=0.0), parabola)
    # on a slope steeper than s the plane would not meet it: it reaches as high as the parabola did (then a step)


def test_floor_grade_lets_the_trunk_sink_and_its_tributary_hang(monkeypatch) -> None:
    """``floor_grade`` g: a glacier cell's floor is ``max(h - 0.3·H, F(r) + g·(h - h(r)))`` (exactly the brute
    force's on the V, whose floors the grade holds up near the mouth); at the junction the trunk's floor, held 8.87
    (0.3·H would be 8.26) by the default 0.8 of its bed's fall from the map's edge, sinks to its deepened level with
    0.5, and the tributary's fall over three rows into it (its step) grows (2.27 -> 2.53), still draining."""
    with monkeypatch.context() as patched:
        patched.setattr(glacial, "GLACIER_ROUND", 0)
        patched.setattr(glacial, "GLACIER_TEXTURE", 0.0)
        v = _v_valley()
        for grade in (0.0, 0.5):
            out = carve_troughs(v, depth=0.3, area=200.0, width=0.6, floor_grade=grade)
            assert np.allclose(out, _trough(v, 0.3, 200.0, 0.6, grade=grade), rtol=0.0, atol=1e-9), grade
        assert not np.array_equal(out, carve_troughs(v, depth=0.3, area=200.0, width=0.6))
    heights = _junction()
    steps, floors = {}, {}
    for grade in (0.8, 0.5):
        out = carve_troughs(heights, depth=0.3, area=300.0, width=0.5, floor_grade=grade)
        drops = -np.diff(out[30:61, 60])
        assert np.all(drops > 0.0), grade  # the tributary drains down to the trunk
        steps[grade] = np.convolve(drops, np.ones(3), "valid").max()
        floors[grade] = out[60, 60]
        assert np.array_equal(nc.fill_depressions(out), out)
    assert floors[0.5] < floors[0.8] - 0.5 and steps[0.5] > steps[0.8] + 0.2, (floors, steps)
    assert np.array_equal(carve_troughs(heights, depth=0.3, area=300.0, width=0.5, floor_grade=0.8),
                          carve_troughs(heights, depth=0.3, area=300.0, width=0.5))  # fmt: skip


def test_overdeepen_sinks_the_trunk_below_the_grade_and_its_tributary_hangs(monkeypatch) -> None:
    """``overdeepen`` o: every glacier's floor no higher than ``h - o·H`` past the floor grade (exactly the brute
    force's on the V, the mouth's edge cell too); at the junction the trunk's floor sinks (8.87 at o 0 to 7.79 at
    0.35 and 6.40 at 0.5) and the tributary's fall over three rows into it grows (2.27 -> 2.65 -> 2.98): a hanging
    valley's step, still draining (the basins below a deeper floor fill flat: lakes). o 0 is today's, bit for bit."""
    with monkeypatch.context() as patched:
        patched.setattr(glacial, "GLACIER_ROUND", 0)
        patched.setattr(glacial, "GLACIER_TEXTURE", 0.0)
        v = _v_valley()
        for sink in (0.35, 0.6):
            out = carve_troughs(v, depth=0.3, area=200.0, width=0.6, overdeepen=sink)
            assert np.allclose(out, _trough(v, 0.3, 200.0, 0.6, sink=sink), rtol=0.0, atol=1e-9), sink
    heights = _junction()
    steps, floors = {}, {}
    for sink in (0.0, 0.35, 0.5):
        out = carve_troughs(heights, depth=0.3, area=300.0, width=0.5, overdeepen=sink)
        drops = -np.diff(out[30:61, 60])
        assert np.all(drops > 0.0), sink  # the tributary drains down to the trunk
        steps[sink] = np.convolve(drops, np.ones(3), "valid").max()
        floors[sink] = out[60, 60]
        assert np.array_equal(nc.fill_depressions(out), out)
    assert floors[0.5] < floors[0.35] - 1.0 and floors[0.35] < floors[0.0] - 0.8, floors
    assert steps[0.5] > steps[0.35] + 0.2 and steps[0.35] > steps[0.0] + 0.2, steps
    assert np.array_equal(carve_troughs(heights, depth=0.3, area=300.0, width=0.5, overdeepen=0.0),
                          carve_troughs(heights, depth=0.3, area=300.0, width=0.5))  # fmt: skip


def test_the_walls_keep_a_share_of_the_old_slope(monkeypatch) -> None:
    """``GLACIER_TEXTURE`` τ: a carved cell at ``x = d / (d + e)`` across the trough lies ``τ·x²`` of the way from the
    parabola ``U`` back up to the old slope ``h`` (exactly, before the rounding): the floor's middle is the
    parabola's, the top of the wall keeps τ of the slope's gullies and spurs (here ribs across the V's walls)."""
    monkeypatch.setattr(glacial, "GLACIER_ROUND", 0)
    y, x = np.mgrid[0:61, 0:120]
    heights = _v_valley() + 0.5 * (x % 4 == 0) * (np.abs(y - 30) > 2)  # ribs across the walls
    monkeypatch.setattr(glacial, "GLACIER_TEXTURE", 0.0)
    smooth = carve_troughs(heights, depth=0.3, area=200.0)
    monkeypatch.setattr(glacial, "GLACIER_TEXTURE", 0.6)
    textured = carve_troughs(heights, depth=0.3, area=200.0)
    carved = smooth < heights - 1e-9
    assert np.array_equal(carved, textured < heights - 1e-9)  # the same footprint
    share = (textured - smooth)[carved] / (heights - smooth)[carved]
    assert np.all(share >= -1e-9) and np.all(share <= 0.6 + 1e-9)
    assert share.max() > 0.4  # near the ice's edge x is close to 1
    column = 60  # from the river to the wall the share grows (x does)
    rows = np.flatnonzero(carved[31:, column]) + 31
    grown = (textured - smooth)[rows, column] / (heights - smooth)[rows, column]
    assert np.all(np.diff(grown) > 0.0) and grown[0] < 0.05
    assert np.array_equal(nc.fill_depressions(textured), textured)


def test_nothing_changes_without_a_glacier() -> None:
    """Depth 0, or no river draining ``area``: the epsilon-filled heights, bit for bit."""
    heights = _v_valley()
    filled = nc.fill_depressions(heights, epsilon=True)
    assert np.array_equal(carve_troughs(heights, depth=0.0, area=200.0), filled)
    assert np.array_equal(carve_troughs(heights, depth=0.3, area=61.0 * 120), filled)
    noise = noise_terrain((40, 44)).astype(np.float64)
    assert np.array_equal(carve_troughs(noise, depth=0.0, area=1.0), nc.fill_depressions(noise, epsilon=True))


def test_carve_troughs_keeps_every_cell_draining() -> None:
    for heights, cell in ((_v_valley() * 10.0, 10.0), (noise_terrain((48, 48)).astype(np.float64) * 30.0, 30.0)):
        out = carve_troughs(heights, cell_size=cell, depth=0.3, area=30 * cell * cell)
        assert np.array_equal(nc.fill_depressions(out), out)
        assert np.count_nonzero(out < nc.fill_depressions(heights, epsilon=True) - 1.0) > 10  # it carved something


@settings(max_examples=30, deadline=None)
@given(
    relief=st.sampled_from([0.0, 1e-6, 1.0, 1e3, 1e8]),
    depth=st.sampled_from([1e-6, 0.3, 1.0, 10.0]),
    area=st.sampled_from([1.0, 5.0, 1e3, 1e9]),
    shape=st.sampled_from([(3, 3), (3, 9), (12, 15), (20, 20)]),
    outlet=st.booleans(),
    width=st.sampled_from([0.0, 1e-6, 0.5, 10.0]),
    rock=st.sampled_from([0.0, 0.6, 4.0]),
    wall=st.sampled_from([0.0, 1e-6, 0.7, 10.0]),
    grade=st.sampled_from([0.0, 0.5, 0.8, 1.0]),
    sink=st.sampled_from([0.0, 0.3, 2.0]),
)
def test_carve_troughs_never_nan_nor_a_hollow(
    relief, depth, area, shape, outlet, width, rock, wall, grade, sink
) -> None:
    heights = noise_terrain(shape, relief=1.0).astype(np.float64) * relief
    outlets = None
    if outlet:
        outlets = np.zeros(shape, dtype=bool)
        outlets[shape[0] // 2, shape[1] // 2] = True
    field = np.random.default_rng(3).uniform(-3.0, 3.0, shape)  # z
    before = carve_troughs(heights, depth=0.0, area=area, outlets=outlets)  # epsilon-filled, outlets kept
    out = carve_troughs(heights, depth=depth, area=area, width=width, rock=field, rock_width=rock, wall_slope=wall,
                        floor_grade=grade, overdeepen=sink, outlets=outlets)  # fmt: skip
    assert out.shape == shape and np.isfinite(out).all()
    assert np.all(out <= before + 1e-9 * (1.0 + np.abs(before)))  # carved, never raised (but by the epsilon fill)
    base = _edges(shape) if outlets is None else _edges(shape) | outlets.reshape(-1)
    if outlets is not None:  # the outlets inside the map stay (the edge cells are carved as the others)
        assert np.array_equal(out[outlets], heights[outlets])
    filled = out.copy()
    fill_flat(filled.reshape(-1), shape, base, False, False)  # the plain Priority-Flood fill, outlets as base
    assert np.array_equal(filled, out)


@settings(max_examples=25, deadline=None)
@given(
    shape=st.tuples(st.integers(1, 17), st.integers(1, 17)),
    share=st.sampled_from([0.0, 0.02, 0.2, 1.0]),
    seed=st.integers(0, 2**16),
)
def test_nearest_sites_is_the_exact_euclidean_transform(shape, share, seed) -> None:
    """The nearest glacier cell and its squared distance, against brute force (ties: any nearest site)."""
    from noise_core.terrain.water import INFINITE

    sites = np.random.default_rng(seed).random(shape) < share
    nearest = np.empty(shape, dtype=np.int64)
    squared = np.empty(shape)
    glacial._kernels().nearest_sites(sites, nearest, squared)
    if not sites.any():
        assert np.all(nearest == -1) and np.all(squared >= INFINITE)
        return
    points = np.argwhere(sites)
    cells = np.argwhere(np.ones(shape, dtype=bool))
    brute = ((cells[:, None] - points[None]) ** 2).sum(-1).min(1)
    assert np.array_equal(squared.reshape(-1), brute)
    found = np.stack(np.divmod(nearest.reshape(-1), shape[1]), 1)
    assert sites.reshape(-1)[nearest.reshape(-1)].all()
    assert np.array_equal(((cells - found) ** 2).sum(-1), brute)


@pytest.mark.parametrize(
    ("options", "error", "pattern"),
    [
        ({"depth": -0.1, "area": 10.0}, ValueError, r"^depth: must be between 0 and 10"),
        ({"depth": 11.0, "area": 10.0}, ValueError, r"^depth: must be between 0 and 10"),
        ({"depth": "deep", "area": 10.0}, TypeError, r"^depth: expected a number"),
        ({"depth": 0.3, "area": 0.5}, ValueError, r"^area: must be >= 1"),
        ({"depth": 0.3, "area": math.nan}, ValueError, r"^area: must be a finite number"),
        ({"depth": 0.3, "area": 10.0, "cell_size": 0.0}, ValueError, r"^cell_size: "),
        ({"depth": 0.3, "area": 10.0, "width": -1.0}, ValueError, r"^width: must be between 0 and 10"),
        ({"depth": 0.3, "area": 10.0, "width": None}, TypeError, r"^width: expected a number"),
        ({"depth": 0.3, "area": 10.0, "rock_width": 5.0}, ValueError, r"^rock_width: must be between 0 and 4"),
        ({"depth": 0.3, "area": 10.0, "rock": np.zeros((3, 3))}, ValueError, r"^rock: expected a number array of "),
        ({"depth": 0.3, "area": 10.0, "wall_slope": -0.1}, ValueError, r"^wall_slope: must be between 0 and 10"),
        ({"depth": 0.3, "area": 10.0, "wall_slope": "steep"}, TypeError, r"^wall_slope: expected a number"),
        ({"depth": 0.3, "area": 10.0, "floor_grade": 1.5}, ValueError, r"^floor_grade: must be between 0 and 1"),
        ({"depth": 0.3, "area": 10.0, "rock": np.zeros((61, 120), bool)}, ValueError, r"^rock: expected a number"),
        ({"depth": 0.3, "area": 10.0, "rock": np.full((61, 120), np.nan)}, ValueError, r"^rock: must be finite"),
    ],
)
def test_carve_troughs_errors_name_the_argument(options, error, pattern) -> None:
    with pytest.raises(error, match=pattern):
        carve_troughs(_v_valley(), **options)


def test_the_rivers_stage_carves_troughs() -> None:
    """``glacier_depth``, ``glacier_area``, ``glacier_width`` and ``glacier_rock`` are rows of the recipe's river
    stage (so the CLI, the add-on and the presets take them, and its errors name them): a short River Valleys stage
    on a 33² grid carves with them and is bit-identical without; the width law and the rock field (with
    ``rock_variety``) change the troughs."""
    from noise_core.terrain.recipe import RIVER_OPTIONS, Stage

    names = {"glacier_depth", "glacier_area", "glacier_width", "glacier_rock", "glacier_wall_slope"}
    names |= {"glacier_floor_grade", "glacier_overdeepen"}
    assert names <= {o.name for o in RIVER_OPTIONS}
    for bad, pattern in (({"glacier_depth": 11}, r"^stage\.glacier_depth: must be between 0 and 10"),
                         ({"glacier_area": 0}, r"^stage\.glacier_area: must be"),
                         ({"glacier_width": 11}, r"^stage\.glacier_width: must be between 0 and 10"),
                         ({"glacier_rock": -1}, r"^stage\.glacier_rock: must be between 0 and 4"),
                         ({"glacier_wall_slope": -1}, r"^stage\.glacier_wall_slope: must be between"),
                         ({"glacier_floor_grade": 2}, r"^stage\.glacier_floor_grade: must be between"),
                         ({"glacier_overdeepen": 3}, r"^stage\.glacier_overdeepen: must be between")):  # fmt: skip
        with pytest.raises(ValueError, match=pattern):
            Stage.of("rivers", bad)
    # the map's own 1.8 km cells: channel heads of 20 cells (or an incision threshold in fine cells) would leave few
    # rivers, so neither
    built = short_rivers("river_valleys", defaults=("channel_head_area", "incision_threshold"))
    plain = built()
    assert np.array_equal(built(glacier_depth=0.0, glacier_area=5.0), plain)
    carved = plain - built(glacier_depth=0.5, glacier_area=5.0)
    assert np.count_nonzero(carved > 1.0) > 100 and carved.max() > 50.0  # metres: troughs cut in (156, 72 m)
    assert carved.min() >= 0.0  # nowhere higher than without the troughs
    wide = built(glacier_depth=0.5, glacier_area=5.0, glacier_width=0.5, rock_variety=0.5)
    narrow = built(glacier_depth=0.5, glacier_area=5.0, glacier_width=0.5, rock_variety=0.5, glacier_rock=1.0)
    assert not np.array_equal(narrow, wide)  # the rock field reaches the troughs' widths
