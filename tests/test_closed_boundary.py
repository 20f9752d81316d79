"""``erode_fluvial(boundary="closed")``: no water and no soil crosses the map's edges, the rivers leave by the
outlets only (the lowest edge cell without them), on every grid of a coarse-to-fine run; ``river_exits`` and the
rivers stage's ``outlet_area`` name the outlets where a map's rivers cross its edge."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import noise_core as nc
from noise_core.terrain.fluvial import erode_fluvial
from noise_core.terrain.landscape import river_exits
from noise_core.terrain.recipe import Recipe, Stage, build_terrain
from tests.test_fluvial import noise_terrain

RIVERS = {"steps": 40, "dt": 1e4, "uplift": 1e-3, "erodibility": 5e-5, "diffusion": 0.01}


def edge_mask(shape: tuple[int, int]) -> np.ndarray:
    mask = np.zeros(shape, bool)
    mask[0, :] = mask[-1, :] = mask[:, 0] = mask[:, -1] = True
    return mask


@pytest.mark.parametrize("routing", ["d8", "random"])
def test_every_cell_drains_to_the_lowest_edge_cell(routing: str) -> None:
    heights = noise_terrain((40, 48))
    edges = edge_mask(heights.shape)
    lowest = np.unravel_index(np.argmin(np.where(edges, heights, np.inf)), heights.shape)
    result = erode_fluvial(heights, cell_size=20.0, routing=routing, boundary="closed", **RIVERS)
    assert result.drainage_area[lowest] == pytest.approx(heights.size * 20.0**2, rel=1e-6)
    assert result.heights[lowest] == heights[lowest]  # the one base-level cell neither rises nor erodes
    others = edges.copy()
    others[lowest] = False
    opened = erode_fluvial(heights, cell_size=20.0, routing=routing, **RIVERS)
    assert np.array_equal(opened.heights[edges], heights[edges])  # with edges at base level they stay
    assert (result.heights[others] > heights[others]).mean() > 0.9  # closed: the edge cells rise with the rest


def test_the_outlets_are_the_only_way_out() -> None:
    heights = noise_terrain((40, 48))
    outlets = np.zeros(heights.shape, bool)
    outlets[-1, 10] = outlets[0, 30] = True
    result = erode_fluvial(heights, boundary="closed", outlets=outlets, **RIVERS)
    assert np.array_equal(result.heights[outlets], heights[outlets])
    assert result.drainage_area[outlets].sum() == pytest.approx(heights.size, rel=1e-6)
    assert result.drainage_area[outlets].min() > 10.0  # both drain a basin of their own


@pytest.mark.parametrize(
    "options",
    [
        {"routing": "d8"},  # the implicit line solves
        {"routing": "random"},  # the explicit 9-point diffusion
        {"routing": "random", "critical_slope": 2.0},  # the nonlinear hillslopes
        {"routing": "d8", "diffusion": np.full((48, 48), 0.5)},  # a diffusivity map
    ],
)
def test_no_soil_crosses_a_closed_edge(options: dict) -> None:
    """Hillslope diffusion alone (no uplift, no rivers) of a hill beside the edges: with the edges at base level
    the soil leaves the map; closed, the volume stays, to within the outlet's share and the first-order edge."""
    y, x = np.mgrid[0:48, 0:48]
    heights = 10.0 * np.exp(-((x - 30.0) ** 2 + (y - 30.0) ** 2) / 60.0) + 1.0
    heights[0, 0] = 0.0  # the outlet, far from the hill
    options = {"diffusion": 0.5} | options
    run = {"steps": 200, "dt": 1.0, "uplift": 0.0, "erodibility": 0.0}
    opened = erode_fluvial(heights, **run, **options)
    closed = erode_fluvial(heights, boundary="closed", **run, **options)
    volume = heights.sum()
    assert opened.heights.astype(np.float64).sum() < 0.85 * volume
    assert closed.heights.astype(np.float64).sum() == pytest.approx(volume, rel=0.015)
    assert closed.heights[:, -1].mean() > opened.heights[:, -1].mean() + 0.5  # the soil piled against the edge


def test_a_coarse_to_fine_run_keeps_a_one_cell_outlet_on_every_grid() -> None:
    """An outlet on a cell no model-grid cell sits on still drains the whole map: it reaches each grid at its
    nearest cell instead of vanishing under the bilinear weights."""
    heights = noise_terrain((41, 49))
    outlets = np.zeros(heights.shape, bool)
    outlets[-1, 7] = True  # odd: between the cells of a model grid every second cell
    result = erode_fluvial(heights, boundary="closed", outlets=outlets, model_size=25, fine_steps=5, **RIVERS)
    assert result.drainage_area[-1, 7] == pytest.approx(heights.size, rel=1e-6)
    assert result.heights[-1, 7] == heights[-1, 7]
    fine = erode_fluvial(heights, boundary="closed", outlets=outlets, fine_size=25, **RIVERS)
    row, column = np.unravel_index(np.argmax(fine.drainage_area), heights.shape)
    assert row == 40 and abs(column - 7) <= 1  # the fine grid's outlet, its nearest cell, interpolated
    assert fine.drainage_area.max() == pytest.approx(heights.size, rel=0.1)
    assert fine.heights[-1, 7] == heights[-1, 7]


def test_a_margin_needs_open_edges() -> None:
    with pytest.raises(ValueError, match="margin: needs boundary 'edges'"):
        erode_fluvial(noise_terrain((40, 48)), boundary="closed", margin=0.1, model_size=17, **RIVERS)


@settings(max_examples=20, deadline=None)
@given(
    dt=st.sampled_from([1e-6, 1.0, 1e6, 1e15]),
    uplift=st.sampled_from([0.0, 1e-3, 10.0]),
    erodibility=st.sampled_from([0.0, 1e-6, 1.0, 1e6]),
    diffusion=st.sampled_from([0.0, 1e-3, 1e6]),
    routing=st.sampled_from(["d8", "random"]),
)
def test_closed_never_nan_or_infinite(dt, uplift, erodibility, diffusion, routing) -> None:
    if routing == "random" and diffusion * dt > 38.4:
        diffusion = 0.0  # beyond the explicit substeps: an error, tested in test_fluvial
    heights = noise_terrain((12, 15), relief=1e3)
    result = erode_fluvial(heights, steps=3, dt=dt, uplift=uplift, erodibility=erodibility, diffusion=diffusion,
                           routing=routing, boundary="closed")  # fmt: skip
    for values in (result.heights, result.drainage_area, result.erosion, result.deposition):
        assert np.isfinite(values).all()
    assert math.isfinite(result.eroded) and math.isfinite(result.deposited)


def test_river_exits_are_where_the_rivers_leave() -> None:
    """Two valleys leaving by the south edge, one larger: the exits by area, the largest when none is large
    enough; errors name the argument."""
    y, x = np.mgrid[0:30, 0:40].astype(np.float64)
    heights = (30.0 - y) + 2.0 * np.minimum(np.abs(x - 10.0), np.abs(x - 30.0) + 0.5)
    heights[:, 20:] += 0.01 * (30.0 - y[:, 20:])  # the east valley a little steeper, its basin the same
    exits = river_exits(heights, area=100.0)
    assert set(zip(*np.nonzero(exits), strict=True)) == {(29, 10), (29, 30)}
    largest = river_exits(heights, area=1e6)
    assert largest.sum() == 1 and largest[29].any()
    with pytest.raises(ValueError, match="area: must be"):
        river_exits(heights, area=-1.0)
    with pytest.raises(TypeError, match="heights: expected a 2-D numpy array"):
        river_exits([[1.0]], area=1.0)


def test_a_rivers_stage_with_outlet_area_drains_through_its_exits() -> None:
    """The recipe's rivers stage with a closed boundary: its rivers leave where the noise's rivers left, at the
    exits ``outlet_area`` names, and nowhere else along the edge."""
    stage = Stage.of("rivers", {"steps": 30, "dt": 1e4, "uplift": 1e-3, "erodibility": 5e-5, "diffusion": 0.01,
                                "boundary": "closed", "outlet_area": 40.0, "keep_relief": False})  # fmt: skip
    recipe = Recipe(noise=nc.NoiseSpec(kind="perlin", octaves=4, frequency=3.0, seed=11), size=64.0, height=40.0,
                    stages=(stage,))  # fmt: skip
    noise = build_terrain(replace(recipe, stages=()), 65).heights  # cells 1 m apart: the heights are in cells
    exits = river_exits(noise, 40.0)
    assert 1 <= exits.sum() < 10
    area = build_terrain(recipe, 65).drainage_area
    assert area[exits].sum() == pytest.approx(area.size, rel=1e-4)  # everything leaves by them
    assert area[edge_mask(area.shape) & ~exits].max() < area.size / 2  # no other edge cell is an outlet of size
