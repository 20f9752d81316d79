"""Terrains tile by tile after one global pass (``noise_core/terrain/tiled.py``, issue 45): tiles are the map."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pytest

import noise_core as nc
from noise_core.terrain import tiled
from noise_core.tiled_bake import MARKERS, tiles

distributed = pytest.importorskip("distributed")
zarr = pytest.importorskip("zarr")

SIZE, TILE = 97, 40


@pytest.fixture(scope="module")
def plan() -> tiled.TerrainPlan:
    """A 97² terrain: rivers and droplets on a 25² model grid, thermal erosion and settling per tile."""
    spec = nc.NoiseSpec(kind="perlin", seed=7, frequency=3.0, octaves=6, fractal="fbm")
    rivers = {"steps": 20, "dt": 2000.0, "uplift": 5e-4, "erodibility": 5e-5, "diffusion": 2e-5}
    droplets = {"droplet_density": 2.0, "gullies": 8.0, "erosion": 0.3}
    thermal = {"talus_angle": 30.0, "iterations": 3}
    return tiled.plan_terrain(spec, SIZE, relief=12.0, model_size=25, rivers=rivers, droplets=droplets,
                              thermal=thermal)  # fmt: skip


def assembled(plan: tiled.TerrainPlan, halo: int | None = None) -> np.ndarray:
    out = np.empty((SIZE, SIZE))
    for _, _, (row0, col0, height, width) in tiles((SIZE, SIZE), TILE):
        out[row0 : row0 + height, col0 : col0 + width] = tiled.terrain_window(plan, (row0, col0, height, width), halo)
    return out


def test_tiles_with_their_halo_are_the_whole_map_bit_for_bit(plan: tiled.TerrainPlan) -> None:
    whole = tiled.terrain_window(plan, (0, 0, SIZE, SIZE))
    assert plan.halo == 2 * (4 + 3) and plan.change.shape == (25, 25) and np.abs(plan.change).max() > 0.1
    assert np.array_equal(assembled(plan), whole)
    assert not np.array_equal(assembled(plan, halo=0), whole)  # without the halo the tiles' edges differ


def test_no_seam_shows(plan: tiled.TerrainPlan) -> None:
    """The height steps across the tile seams are as the steps inside the tiles: at most 5 % of them (1 % by
    chance) beyond the inside's 99th percentile, none beyond its largest."""
    heights = assembled(plan)
    seams = np.arange(TILE, SIZE, TILE) - 1  # the step from the last row of a tile to the next tile's first
    down, across = np.abs(np.diff(heights, axis=0)), np.abs(np.diff(heights, axis=1))
    crossing = np.concatenate([down[seams].ravel(), across[:, seams].ravel()])
    inside = np.concatenate([np.delete(down, seams, axis=0).ravel(), np.delete(across, seams, axis=1).ravel()])
    assert np.mean(crossing > np.percentile(inside, 99)) <= 0.05
    assert crossing.max() <= inside.max()


def test_bake_is_the_map_and_resumes(plan: tiled.TerrainPlan, tmp_path: Path) -> None:
    """On Dask (threads in this process): the stored values are the map's mapped by its range; a re-run writes
    nothing, and one with a tile's marker removed writes that tile alone."""
    store = tmp_path / "terrain.zarr"
    low, high = plan.height_range
    expected = np.clip((tiled.terrain_window(plan, (0, 0, SIZE, SIZE)) - low) / (high - low), 0, 1)
    with (
        distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=":0",
                                 silence_logs=logging.ERROR) as cluster,
        distributed.Client(cluster, set_as_default=False) as client,
    ):  # fmt: skip
        first = tiled.bake_terrain(plan, store, client, tile=TILE)
        again = tiled.bake_terrain(plan, store, client, tile=TILE)
        (store / MARKERS / "1.1").unlink()
        third = tiled.bake_terrain(plan, store, client, tile=TILE)
    stored = zarr.open_array(store=str(store), mode="r")[:]
    assert np.array_equal(stored, expected.astype(np.float32))
    assert (first.written, again.written, again.skipped, third.written) == (9, 0, 9, 1)
    assert stored.min() > 0.0 and stored.max() < 1.0  # the range holds the map


def test_bad_plan_arguments_name_them() -> None:
    spec = nc.NoiseSpec(kind="perlin")
    with pytest.raises(ValueError, match=r"^size: "):
        tiled.plan_terrain(spec, 2, relief=1.0)
    with pytest.raises(ValueError, match=r"^relief: "):
        tiled.plan_terrain(spec, 65, relief=0.0)
    with pytest.raises(ValueError, match=r"^model_size: "):
        tiled.plan_terrain(spec, 65, relief=1.0, model_size=5)
    with pytest.raises(TypeError, match=r"^spec: "):
        tiled.plan_terrain("perlin", 65, relief=1.0)  # type: ignore[arg-type]
    plan = tiled.plan_terrain(spec, 65, relief=1.0, model_size=33)
    with pytest.raises(ValueError, match=r"^window: "):
        tiled.terrain_window(plan, (60, 0, 10, 10))
