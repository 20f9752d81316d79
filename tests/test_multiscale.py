"""Coarse to fine (``noise_core/terrain/multiscale.py``) and the stages' ``model_size`` (issue 45)."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import noise_core as nc
from noise_core.api import evaluate_lattice
from noise_core.terrain import erosion, fluvial, multiscale
from noise_core.terrain.resample import resample_bilinear


def terrain(size: int, relief: float = 0.15) -> tuple[np.ndarray, float]:
    """One terrain (1 unit wide, ``relief`` high) at ``size``² cells, and its cell size."""
    spec = nc.NoiseSpec(kind="perlin", octaves=6, frequency=3.0, seed=3)
    return nc.ranges.to_unit(spec, nc.evaluate_grid(spec, (size, size))).astype(np.float64) * relief, 1 / (size - 1)


def test_model_shape_samples_the_longer_side_to_the_model_size() -> None:
    assert multiscale.model_shape((4033, 4033), 1009) == (1009, 1009)
    assert multiscale.model_shape((513, 257), 129) == (129, 65)
    assert multiscale.model_shape((513, 513), 0) is None
    assert multiscale.model_shape((513, 513), 513) is None
    assert multiscale.model_shape((513, 513), 4097) is None
    with pytest.raises(ValueError, match=r"^model_size: must be 0, or a whole number from 16"):
        multiscale.model_shape((513, 513), 5)
    with pytest.raises(ValueError, match=r"^model_size: 16 samples the 1025 x 5 map"):
        multiscale.model_shape((1025, 5), 16)


@settings(max_examples=40, deadline=None)
@given(
    rows=st.integers(3, 60), columns=st.integers(3, 60), small_rows=st.integers(2, 12), small_columns=st.integers(2, 12)
)
def test_add_change_is_the_bilinear_resampling(rows: int, columns: int, small_rows: int, small_columns: int) -> None:
    rng = np.random.default_rng(rows * 100 + columns)
    cells, change = rng.normal(size=(rows, columns)), rng.normal(size=(small_rows, small_columns))
    expected = cells + resample_bilinear(change, (rows, columns))
    added = multiscale.add_change(cells, change)
    np.testing.assert_allclose(cells, expected, rtol=0, atol=1e-12)
    assert added == pytest.approx(float(resample_bilinear(change, (rows, columns)).sum()), abs=1e-9)


@settings(max_examples=30, deadline=None)
@given(size=st.integers(17, 90), model=st.integers(16, 40), a=st.floats(-2, 2), b=st.floats(-2, 2))
def test_a_plane_made_on_the_model_grid_lands_exactly_on_the_map(size: int, model: int, a: float, b: float) -> None:
    """A stage that tilts its grid by a plane (in the map's units) tilts the map by the same plane: bilinear
    interpolation is exact on planes, so the coarse change lands without error and the map's detail stays."""
    heights = np.random.default_rng(size).normal(size=(size, size))
    coarse = multiscale.model_shape(heights.shape, model)
    seen = []

    def tilt(small: np.ndarray, s: float) -> np.ndarray:
        seen.append(s)
        rows, columns = np.indices(small.shape) * s
        return small + a * rows + b * columns

    result = multiscale.coarse_to_fine(heights, tilt, coarse)
    rows, columns = np.indices(heights.shape)
    if coarse is None:
        assert seen == [1.0]
    else:
        assert seen == [pytest.approx((size - 1) / (coarse[0] - 1))]
    np.testing.assert_allclose(result, heights + a * rows + b * columns, atol=1e-9)


def test_droplets_on_a_model_grid_as_large_as_the_map_keep_their_bits() -> None:
    heights, cell = terrain(65)
    plain = erosion.erode_hydraulic(heights, cell_size=cell, droplets=3000)
    same = erosion.erode_hydraulic(heights, cell_size=cell, droplets=3000, model_size=65)
    assert np.array_equal(plain.heights, same.heights)


def test_droplets_on_a_model_grid_erode_as_the_map_of_that_size_would() -> None:
    """The droplets of a 257² map on a 129² model grid do what they do on the map built at 129²: the change
    interpolated onto the map, downsampled back, is the 129² map's change but for the settling of the map's pits."""
    fine, fine_cell = terrain(257)
    small, small_cell = terrain(129)
    model = erosion.erode_hydraulic(fine, cell_size=fine_cell, model_size=129, droplets=20_000)
    own = erosion.erode_hydraulic(small, cell_size=small_cell, droplets=5_000)
    change = resample_bilinear(model.heights - fine, small.shape)
    assert np.corrcoef(change.ravel(), (own.heights - small).ravel())[0, 1] > 0.9
    assert model.eroded - model.deposited == pytest.approx(model.carried_off, rel=1e-5, abs=1e-9)


def test_rivers_on_a_model_grid_carve_the_map_of_that_size_and_refine_on_its_own_cells() -> None:
    """Stream power on a 65² model grid of a 129² map, its last step on the map: the rivers downsampled are the
    65² map's, and every cell of the result drains (the refining step routes and fills the map's own cells)."""
    options = {"steps": 20, "dt": 2000.0, "uplift": 5e-4, "erodibility": 5e-5, "diffusion": 2e-5}
    fine, fine_cell = terrain(129, 0.3)
    small, small_cell = terrain(65, 0.3)
    scale = 64  # heights in cells of the 65² map, as the terrain's rivers take them
    coarse = fluvial.erode_fluvial(fine * scale, cell_size=fine_cell * scale, model_size=65, fine_steps=1, **options)
    own = fluvial.erode_fluvial(small * scale, cell_size=small_cell * scale, **options)
    down = resample_bilinear(coarse.heights, small.shape)
    assert np.corrcoef(down.ravel(), own.heights.ravel())[0, 1] > 0.98
    uplift = options["uplift"] * options["dt"] * options["steps"]
    inner = np.zeros(fine.shape, bool)
    inner[1:-1, 1:-1] = True
    lost = np.where(inner, fine * scale + uplift, fine * scale) - coarse.heights
    np.testing.assert_allclose(coarse.erosion - coarse.deposition, lost, atol=1e-3)
    assert coarse.drainage_area.shape == fine.shape and coarse.drainage_area.max() > 100 * (fine_cell * scale) ** 2


def test_rivers_on_a_model_grid_report_every_step() -> None:
    heights, cell = terrain(65)
    seen: list[tuple[int, int]] = []
    fluvial.erode_fluvial(heights, steps=5, dt=1.0, uplift=0.0, erodibility=1e-3, cell_size=cell, model_size=33,
                          fine_steps=2, progress=lambda done, total: seen.append((done, total)))  # fmt: skip
    assert seen == [(done, 5) for done in range(1, 6)]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"model_size": 33, "boundary": "looped"}, r"^model_size: needs boundary 'edges'"),
        ({"model_size": 33, "fine_steps": 6}, r"^fine_steps: must be at most steps \(5\)"),
        ({"model_size": 7}, r"^model_size: must be 0, or a whole number"),
        ({"model_size": -1}, r"^model_size: "),
        ({"fine_size": 33, "boundary": "looped"}, r"^fine_size: needs boundary 'edges'"),
        ({"fine_size": 8}, r"^fine_size: must be 0, or a whole number from 16"),
        ({"margin": 0.2, "fine_steps": 6}, r"^fine_steps: must be at most steps \(5\)"),
        ({"margin": 0.2, "boundary": "looped"}, r"^margin: needs boundary 'edges'"),
        ({"margin": -0.1}, r"^margin: must be between 0 and 1"),
    ],
)
def test_bad_model_options_name_the_option(options: dict, message: str) -> None:
    heights, _ = terrain(65)
    with pytest.raises(ValueError, match=message):
        fluvial.erode_fluvial(heights, steps=5, dt=1.0, uplift=0.0, erodibility=1e-3, **options)


@pytest.mark.parametrize("iterations", [1, 3])
def test_thermal_in_bands_of_rows_keeps_its_bits(monkeypatch: pytest.MonkeyPatch, iterations: int) -> None:
    """Thermal erosion of a map too large for its flows runs in bands of rows with a halo of 2 rows per step:
    the same bits as at once (here bands of 13 rows, or twice the halo, of a 61 x 29 map)."""
    heights, cell = terrain(61, 0.6)
    heights = np.ascontiguousarray(heights[:, :29])
    whole = erosion.erode_thermal(heights, cell_size=cell, iterations=iterations, talus_angle=20.0)
    monkeypatch.setattr(erosion, "THERMAL_BAND", 13 * 29)
    banded = erosion.erode_thermal(heights, cell_size=cell, iterations=iterations, talus_angle=20.0)
    assert np.array_equal(whole.heights, banded.heights) and whole.eroded > 0


PARITY_RIVERS = {"steps": 100, "dt": 2000.0, "uplift": 5e-4, "erodibility": 5e-5, "diffusion": 2e-5,
                 "model_size": 65, "fine_steps": 2}  # fmt: skip
PARITY_DROPLETS = {"droplet_density": 1.0, "lifetime": 60, "erosion": 0.3, "gullies": 8.0, "model_size": 129}


def natural(size: int) -> tuple[np.ndarray, np.ndarray]:
    """``scripts/bench_engine_sizes.py``'s preset at an eighth of its sizes (the rivers on 65², the droplets on
    129²): noise at the vertices of a unit square, rivers keeping the relief, droplets with gullies, thermal;
    heights in cells of the 129² map, and the change the stages made."""
    spec = nc.NoiseSpec(kind="perlin", seed=7, frequency=3.0, octaves=6, fractal="fbm")
    cell = 128 / (size - 1)
    axis = np.arange(size) / (size - 1)  # corner to corner: the 65² and 129² grids are samples of the 513²
    noise = nc.ranges.to_unit(spec, evaluate_lattice(spec, axis, axis)).astype(np.float64) * 0.35 * 64
    carved = fluvial.erode_fluvial(noise, cell_size=cell, **PARITY_RIVERS).heights.astype(np.float64)
    carved = noise.min() + (carved - carved.min()) * (np.ptp(noise) / np.ptp(carved))
    eroded = erosion.erode_hydraulic(carved, cell_size=cell, **PARITY_DROPLETS).heights
    heights = erosion.erode_thermal(eroded, cell_size=cell, talus_angle=45.0, iterations=10).heights
    return heights.astype(np.float64), heights - noise


def smooth3(values: np.ndarray) -> np.ndarray:
    padded = np.pad(values, 1, mode="edge")
    rows, columns = values.shape
    return sum(padded[dy : dy + rows, dx : dx + columns] for dy in range(3) for dx in range(3)) / 9.0


def _assert_parity(preview: tuple[np.ndarray, np.ndarray], full: tuple[np.ndarray, np.ndarray]) -> None:
    """Issue 45's parity of a preview and a full build, each (heights, change): the full build downsampled to the
    preview's cells has heights correlating >= 0.98 with it and a change map correlating >= 0.9 after 3 x 3
    smoothing; and the change is not the noise's alone (the stages moved a tenth of the relief somewhere)."""
    (heights, change), (full_heights, full_change) = preview, full
    down = resample_bilinear(full_heights, heights.shape)
    down_change = resample_bilinear(full_change, heights.shape)
    assert np.corrcoef(heights.ravel(), down.ravel())[0, 1] >= 0.98
    assert np.corrcoef(smooth3(change).ravel(), smooth3(down_change).ravel())[0, 1] >= 0.9
    assert np.abs(change).max() > 0.1 * np.ptp(heights)


def test_a_preview_matches_the_full_build_downsampled() -> None:
    """Preview parity (issue 45, at a eighth of 1009² and 4033²): the terrain built at 129² and at 513², the
    latter downsampled to 129², have heights correlating >= 0.98 and erosion change maps >= 0.9 after 3 x 3
    smoothing; and the change is not the noise's alone (the stages moved a tenth of the relief somewhere). The
    model grids nest (65² and 129² are every 8th and 4th vertex of 513²), so the rivers, which amplify small
    differences of their input into other networks, start from the same heights."""
    _assert_parity(natural(129), natural(513))


def test_rivers_on_a_model_grid_take_their_maps_there() -> None:
    """Uplift, erodibility and rain maps and an outlet map are sampled to the model grid: a sea along the left
    edge and rain on the right half only give the same rivers on the model grid as the map of that size."""
    heights, _ = terrain(129, 0.3)
    small, _ = terrain(65, 0.3)
    sea, small_sea = np.zeros(heights.shape, bool), np.zeros(small.shape, bool)
    sea[:, :9], small_sea[:, :5] = True, True
    rain, small_rain = np.zeros(heights.shape), np.zeros(small.shape)
    rain[:, 64:], small_rain[:, 32:] = 1.0, 1.0
    options = {"steps": 10, "dt": 2000.0, "uplift": 5e-4, "erodibility": 5e-5}
    coarse = fluvial.erode_fluvial(heights * 64, cell_size=0.5, model_size=65, fine_steps=0, outlets=sea,
                                   precipitation=rain, **options)  # fmt: skip
    own = fluvial.erode_fluvial(small * 64, cell_size=1.0, outlets=small_sea, precipitation=small_rain, **options)
    down = resample_bilinear(coarse.heights, small.shape)
    assert np.corrcoef(down.ravel(), own.heights.ravel())[0, 1] > 0.98
    assert np.all(coarse.heights[sea] == (heights * 64)[sea].astype(np.float32))  # the sea stays at base level


def recipe_preview(samples: int):
    """River Valleys (58 km) with a short river stage on a 129² fine grid and a 33² model grid with a margin,
    built at ``samples``²: its heights and the change the rivers made (metres)."""
    from dataclasses import replace

    from noise_core.terrain import recipe as recipes

    preset = recipes.read_preset("river_valleys")
    options = {**preset.stages[0].options, "steps": 60, "fine_steps": 10, "fine_size": 129, "model_size": 33}
    built = recipes.build_terrain(replace(preset, stages=(recipes.Stage.of("rivers", options),)), samples)
    return built.heights, built.deposition - built.erosion


def test_a_recipe_preview_matches_the_full_build_downsampled() -> None:
    """Preview parity of the recipe's river stage (issue 45): its numbers are in cells of the fine grid
    (``fine_size``), so the terrain built at 129² and at 513² downsampled to 129² agree: heights correlating
    >= 0.98 and change maps >= 0.9 after 3 x 3 smoothing, and the rivers moved a tenth of the relief somewhere."""
    _assert_parity(recipe_preview(129), recipe_preview(513))


def test_build_terrain_refuses_more_than_an_engine_size() -> None:
    """8129² (Unreal's largest landscape) is the limit: one more row is refused before any work, naming samples."""
    from noise_core.terrain import recipe as recipes

    assert recipes.MAX_CELLS == 8129 * 8129
    with pytest.raises(ValueError, match=r"^samples: 8129 x 8130 samples exceed the limit of 66080641 \(8129 x 8129"):
        recipes.build_terrain(recipes.recipe(), 8129, 8130)


def test_a_model_grid_with_a_margin_reaches_past_the_map_and_reflects_it() -> None:
    """``margin_axes``: every 2nd cell from ``-pad·2`` to at least the last cell plus ``pad·2`` (pad = ceil(0.5 ·
    6 / 2) = 2); ``sample_reflected`` reads the map's own values at its cells and their mirror images beyond."""
    rows, columns, pad = multiscale.margin_axes((7, 5), 2.0, 0.5)
    assert pad == 2
    np.testing.assert_array_equal(rows, np.arange(-4, 11, 2.0))
    np.testing.assert_array_equal(columns, np.arange(-4, 9, 2.0))
    grid = np.arange(35, dtype=np.float64).reshape(7, 5) ** 1.5
    sampled = multiscale.sample_reflected(grid, rows, columns)
    np.testing.assert_array_equal(sampled[pad : pad + 4, pad : pad + 3], grid[::2, ::2])
    np.testing.assert_array_equal(sampled[0], sampled[4])  # row -4 mirrors row 4; column 8 mirrors column 0
    np.testing.assert_array_equal(sampled[:, -1], sampled[:, 2])


def test_rivers_on_a_fine_grid_check_its_diffusion_there() -> None:
    """With ``fine_size`` the steps run on the fine grid: random routing's limit on ``diffusion·dt/cell²`` (38.4)
    holds for its cells (here 1 wide: 3), not for the map's (0.25 wide: 48), which is refused without it."""
    heights, _ = terrain(65, 0.3)
    options = {"steps": 2, "dt": 1.0, "uplift": 0.0, "erodibility": 1e-3, "diffusion": 3.0, "routing": "random"}
    result = fluvial.erode_fluvial(heights, cell_size=0.25, fine_size=17, **options)
    assert result.heights.shape == heights.shape and np.isfinite(result.heights).all()
    with pytest.raises(ValueError, match=r"^diffusion: with routing='random'"):
        fluvial.erode_fluvial(heights, cell_size=0.25, **options)


def test_rivers_on_a_fine_grid_hold_no_checked_copy_of_the_callers_maps() -> None:
    """On the fine-grid path ``erode_fluvial`` samples the caller's maps, so it holds none of the copies its
    checks made while the fine grid runs (engine sizes: four such maps were 1.5 GB at 8129², docs/benchmarks.md):
    with five maps its traced peak stays under 10.5 float64 maps of the heights' size (9.3 here; 12.4 when the
    copies were held)."""
    size = 300
    heights = np.random.default_rng(1).random((size, size)) * 10.0
    maps = {"uplift": 1e-3, "erodibility": 1e-4, "diffusion": 1e-3, "critical_slope": 0.8, "channel_head_area": 5.0}
    options = {name: np.full((size, size), value) for name, value in maps.items()}
    fluvial.erode_fluvial(heights, steps=2, dt=100.0, fine_size=41, **options)  # compiled before it is measured
    tracemalloc.start()
    try:
        fluvial.erode_fluvial(heights, steps=2, dt=100.0, fine_size=41, **options)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 10.5 * heights.nbytes, f"{peak / heights.nbytes:.2f} maps"


def test_a_rivers_stage_with_the_former_options_says_what_they_became() -> None:
    from noise_core.terrain import recipe as recipes

    with pytest.raises(ValueError, match=r"^stage\.coarse: not an option of stage 'rivers'; it became model_size"):
        recipes.Stage.of("rivers", {"coarse": 2})
    with pytest.raises(ValueError, match=r"^stage\.refine_steps: not an option of stage 'rivers'; it became fine_"):
        recipes.Stage.of("rivers", {"refine_steps": 40})


def test_detail_steps_run_on_the_map_or_every_kth_cell_of_it() -> None:
    assert multiscale.detail_shape((4033, 4033), (648, 648)) == (1009, 1009)  # every 4th cell: a 1009² build's
    assert multiscale.detail_shape((8129, 8129), (648, 648)) == (1162, 1162)  # every 7th
    assert multiscale.detail_shape((1009, 1009), (648, 648)) is None  # the map's own cells
    assert multiscale.detail_shape((129, 65), (33, 17)) == (65, 33)


DETAIL = {"steps": 20, "dt": 2000.0, "uplift": 5e-4, "erodibility": 5e-5, "diffusion": 2e-5, "routing": "random",
          "routing_seed": 1, "fine_size": 33}  # fmt: skip


@pytest.mark.parametrize("size", [49, 129])  # detail steps on the map's own cells (48 <= 64), and on every 2nd
def test_detail_steps_cut_the_channels_the_fine_grid_cannot_hold(size: int) -> None:
    """A map finer than its fine grid (33²) gets one more step of uplift and incision, in 2 substeps: its
    Laplacian (the channels' curvature at the finest scales) grows, the coarse shape stays, and what was taken and
    left is the map's change besides the uplift of all 21 steps (edges at base level)."""
    heights, cell = terrain(size, 0.3)
    heights, cell = heights * 32, cell * 32  # in cells of the fine grid
    plain = fluvial.erode_fluvial(heights, cell_size=cell, **DETAIL)
    detail = fluvial.erode_fluvial(heights, cell_size=cell, detail_steps=2, **DETAIL)

    def curvature(values: np.ndarray) -> float:
        v = values.astype(np.float64)
        return float(np.abs(v[1:-1, :-2] + v[1:-1, 2:] + v[:-2, 1:-1] + v[2:, 1:-1] - 4 * v[1:-1, 1:-1]).mean())

    assert curvature(detail.heights) > 1.1 * curvature(plain.heights)
    assert np.corrcoef(detail.heights.ravel(), plain.heights.ravel())[0, 1] > 0.99
    uplift = DETAIL["uplift"] * DETAIL["dt"] * (DETAIL["steps"] + 1)
    inner = np.zeros(heights.shape, bool)
    inner[1:-1, 1:-1] = True
    lost = np.where(inner, heights + uplift, heights) - detail.heights
    np.testing.assert_allclose(detail.erosion - detail.deposition, lost, atol=1e-3)


def test_detail_steps_do_nothing_without_a_finer_map() -> None:
    heights, cell = terrain(33, 0.3)
    options = {**DETAIL, "fine_size": 0}
    plain = fluvial.erode_fluvial(heights * 32, cell_size=cell * 32, **options)
    same = fluvial.erode_fluvial(heights * 32, cell_size=cell * 32, detail_steps=3, **options)
    assert np.array_equal(plain.heights, same.heights) and np.array_equal(plain.erosion, same.erosion)


def test_detail_steps_run_under_sharp_crests() -> None:
    """The detail substeps have no diffusion, so neither the crests' channel diffusion (a share of it): a stage with
    ``critical_slope`` and ``channel_diffusion`` (Alpine Ridges') builds above its fine grid."""
    heights, cell = terrain(49, 0.3)
    options = {**DETAIL, "critical_slope": 0.8, "channel_diffusion": 0.5}
    result = fluvial.erode_fluvial(heights * 32, cell_size=cell * 32, detail_steps=2, **options)
    assert np.isfinite(result.heights).all() and result.heights.shape == heights.shape


@settings(max_examples=30, deadline=None)
@given(
    rows=st.integers(2, 40), columns=st.integers(2, 40), small_rows=st.integers(2, 12), small_columns=st.integers(2, 12)
)
def test_add_change_spline_is_the_mirrored_cubic_b_spline(rows: int, columns: int, small_rows: int,
                                                          small_columns: int) -> None:  # fmt: skip
    """The change interpolated by the cubic B-spline through its samples, mirrored at the edges, at the positions
    of ``add_change`` (corner to corner): scipy's ``map_coordinates`` (order 3, mode 'mirror') to rounding."""
    ndimage = pytest.importorskip("scipy.ndimage")
    rng = np.random.default_rng(rows * 1000 + columns * 10 + small_rows)
    cells, change = rng.normal(size=(rows, columns)), rng.normal(size=(small_rows, small_columns))
    y = np.arange(rows) * ((small_rows - 1) / (rows - 1))
    x = np.arange(columns) * ((small_columns - 1) / (columns - 1))
    expected = ndimage.map_coordinates(change, np.meshgrid(y, x, indexing="ij"), order=3, mode="mirror")
    before = cells.copy()
    added = multiscale.add_change_spline(cells, change)
    np.testing.assert_allclose(cells - before, expected, rtol=0, atol=1e-12)
    assert added == pytest.approx(float(expected.sum()), abs=1e-9)


def test_add_change_spline_passes_through_the_samples_without_creases() -> None:
    """Where the map's cells fall on the coarse grid's (every 8th of 8·(n - 1) + 1) they get the samples; across a
    coarse grid line the bilinear interpolant's slope jumps (a crease along the line), the spline's does not."""
    change = np.zeros((9, 9))
    change[4, 4] = 1.0
    spline, linear = np.zeros((65, 65)), np.zeros((65, 65))
    multiscale.add_change_spline(spline, change)
    multiscale.add_change(linear, change)
    np.testing.assert_allclose(spline[::8, ::8], change, rtol=0, atol=1e-12)

    def kink(values: np.ndarray) -> float:  # the curvature at the coarse lines beyond that around them
        second = values[:, 2:] - 2 * values[:, 1:-1] + values[:, :-2]  # centred on columns 1 .. 63
        at, around = second[:, 7:-1:8], (second[:, 6:-2:8] + second[:, 8::8]) / 2  # lines 8, 16, .., 56
        return float(np.abs(at - around).max())

    assert kink(linear) > 0.2  # 1/8 up, then 1/8 down at the peak: a jump of 2/8 in one cell
    assert kink(spline) < 0.01


def test_fine_interpolation_spline_changes_only_the_maps_above_the_fine_grid() -> None:
    """``fine_interpolation='spline'``: a map finer than its fine grid gets the fine grid's change by the cubic
    B-spline (the same rivers: heights correlating with the bilinear build's); a map no finer is unchanged."""
    heights, cell = terrain(65, 0.3)
    options = {**DETAIL, "steps": 12}
    linear = fluvial.erode_fluvial(heights * 32, cell_size=cell * 32, **options)
    spline = fluvial.erode_fluvial(heights * 32, cell_size=cell * 32, fine_interpolation="spline", **options)
    assert not np.array_equal(linear.heights, spline.heights)
    assert np.corrcoef(linear.heights.ravel(), spline.heights.ravel())[0, 1] > 0.99
    small, small_cell = terrain(33, 0.3)
    same = {**options, "fine_size": 0}
    a = fluvial.erode_fluvial(small * 32, cell_size=small_cell * 32, **same)
    b = fluvial.erode_fluvial(small * 32, cell_size=small_cell * 32, fine_interpolation="spline", **same)
    assert np.array_equal(a.heights, b.heights)
    with pytest.raises(ValueError, match=r"^fine_interpolation: "):
        fluvial.erode_fluvial(heights, cell_size=cell, fine_interpolation="cubic", **options)


def test_band_limited_keeps_what_every_direction_resolves_and_drops_the_grids_corners() -> None:
    """The mirrored grid's spectrum cut to ``|k| <= 1/2``: a constant, a cosine along an axis (one of the mirrored
    extension's frequencies, up to the axes' Nyquist (-1)^i) pass unchanged; the diagonal checkerboard
    (-1)^(i + j), at ``|k| = √2/2``, the grid's own, is removed; a sum loses exactly that part."""
    rows, columns = np.indices((17, 13))
    wave = np.cos(2 * np.pi * 3 * rows / 32) + 2.0  # 3 cycles over the 2·(17 - 1) mirrored rows
    nyquist = (-1.0) ** columns
    checker = (-1.0) ** (rows + columns)
    for kept in (np.full((17, 13), 4.5), wave, nyquist):
        np.testing.assert_allclose(multiscale.band_limited(kept), kept, rtol=0, atol=1e-12)
    np.testing.assert_allclose(multiscale.band_limited(checker), 0.0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(multiscale.band_limited(wave + 0.3 * checker), wave, rtol=0, atol=1e-12)


def _pit_depth(heights: np.ndarray) -> np.ndarray:
    """How far each cell lies below the plain Priority-Flood fill of ``heights`` (the map's edges at base level)."""
    from noise_core.terrain.flow import _edges, fill_flat

    values = np.array(heights, dtype=np.float64)
    filled = values.copy()
    fill_flat(filled.reshape(-1), values.shape, _edges(values.shape).reshape(-1).astype(np.uint8), False, False)
    return filled - values


def test_keep_drainage_lifts_a_dammed_channel_to_the_graded_line_and_leaves_the_rest() -> None:
    """A channel falling one unit a row towards the first row between walls 1000 high (every interior cell drains
    straight down it), a dam of 10 across row 5 (a rock texture's rib): with share 1/2 rows 6 to 24 rise to
    exactly ``15 + (y - 5)/2`` (the dam's top, then half the channel's fall a row), the dam and the rows from 25
    on, where the channel is higher, keep their bits, and no cell lies in a pit; share 0 changes nothing."""
    rows, columns = np.indices((40, 9)).astype(np.float64)
    reference = rows + np.where((columns == 0) | (columns == 8), 1000.0, 0.0)
    heights = reference + np.where(rows == 5, 10.0, 0.0)
    assert _pit_depth(heights)[6:15, 1:-1].min() > 0.0  # dammed
    kept = multiscale.keep_drainage(reference, heights, 0.5)
    inner = slice(1, -1)
    expected = heights.copy()
    expected[6:25, inner] = 15.0 + 0.5 * (rows[6:25, inner] - 5.0)
    np.testing.assert_array_equal(kept[:, inner], expected[:, inner])
    assert np.array_equal(kept[25:], heights[25:]) and np.array_equal(kept[:6], heights[:6])
    assert not _pit_depth(kept).any()
    assert np.array_equal(multiscale.keep_drainage(reference, heights, 0.0), heights)


@settings(max_examples=40, deadline=None)
@given(
    st.integers(3, 24),
    st.integers(3, 24),
    st.floats(0.0, 1.0),
    st.integers(0, 2**32 - 1),
    st.floats(0.0, 100.0),
    st.integers(1, 8),
)
def test_keep_drainage_never_lowers_and_leaves_no_pit_and_no_flat(
    rows: int, columns: int, share: float, seed: int, texture: float, levels: int
) -> None:
    """On any reference (random heights rounded to a few levels, so with pits and flats of equal cells) and any
    texture on it: nothing is lowered; with share > 0 every inner cell has a lower neighbour (no pit, no flat),
    and a second pass changes nothing; without ``lakes`` no cell whose path down the reference reaches the edge
    is in a pit; with share 0 nothing changes."""
    generator = np.random.default_rng(seed)
    reference = np.round(generator.normal(size=(rows, columns)) * levels) * 10.0 / levels
    heights = reference + generator.normal(size=reference.shape) * texture
    kept = multiscale.keep_drainage(reference, heights, share)
    assert np.all(kept >= heights)
    if share == 0.0:
        assert np.array_equal(kept, heights)
        return
    assert not _pit_depth(kept).any()
    own = multiscale.keep_drainage(reference, heights, share, lakes=False)  # the reference's pits stay
    assert np.all(own >= heights)
    from noise_core.terrain.flow import d8_receivers

    receivers = d8_receivers(reference)
    end = np.arange(receivers.size)
    for _ in range(receivers.size):
        end = receivers[end]  # where each cell's path down the reference ends
    edge = np.zeros(reference.shape, dtype=bool)
    edge[[0, -1], :] = edge[:, [0, -1]] = True
    drains = edge.reshape(-1)[end].reshape(reference.shape)
    assert not _pit_depth(own)[drains].any()  # a cell whose path reaches the edge keeps a path down
    padded = np.pad(kept, 1, mode="constant", constant_values=np.inf)
    lowest = np.min([padded[1 + dy : rows + 1 + dy, 1 + dx : columns + 1 + dx] for dy in (-1, 0, 1)
                     for dx in (-1, 0, 1) if dy or dx], axis=0)  # fmt: skip
    assert np.all(lowest[1:-1, 1:-1] < kept[1:-1, 1:-1])
    assert np.array_equal(multiscale.keep_drainage(reference, kept, share), kept)


def test_keep_drainage_drains_a_closed_lake_of_the_reference_across_its_flat() -> None:
    """A reference with a closed pit (a bowl 2 deep in a plane falling towards the first row): the lake is
    levelled at its spill height and every lake cell of the result drains, by ``nextafter`` steps across it
    (no pit); outside the bowl's reach ``heights`` keep their bits. Without ``lakes`` the bowl stays."""
    rows, columns = np.indices((30, 30)).astype(np.float64)
    reference = rows.copy()
    bowl = (np.abs(rows - 15) <= 2) & (np.abs(columns - 15) <= 2)
    reference[bowl] = 11.0
    assert _pit_depth(reference).max() == 1.0  # 11 against the spill at row 12
    kept = multiscale.keep_drainage(reference, reference, 0.5)
    assert not _pit_depth(kept).any()
    assert np.all(kept[bowl] >= 12.0) and np.all(kept[bowl] < 12.0 + 1e-9)
    assert np.array_equal(kept[:13], reference[:13]) and np.array_equal(kept[18:], reference[18:])
    assert np.array_equal(multiscale.keep_drainage(reference, reference, 0.5, lakes=False), reference)  # kept


@pytest.mark.parametrize(
    ("arguments", "error", "message"),
    [
        ((np.zeros((5, 5)), np.zeros((5, 5)), 1.5), ValueError, r"^share: "),
        ((np.zeros((5, 5)), np.zeros((5, 5)), -0.1), ValueError, r"^share: "),
        ((np.zeros((5, 4)), np.zeros((5, 5)), 0.5), ValueError, r"^reference: must have the heights' shape"),
        ((None, np.zeros((5, 5)), 0.5), TypeError, r"^reference: "),
        ((np.full((5, 5), np.nan), np.zeros((5, 5)), 0.5), ValueError, r"^reference: must be finite"),
        ((np.zeros((5, 5)), np.zeros(5), 0.5), ValueError, r"^heights: "),
        ((np.zeros((5, 5)), np.zeros((5, 5)), 0.5, 1), TypeError, r"^lakes: "),
    ],
)
def test_keep_drainage_errors_name_the_argument(arguments: tuple, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        multiscale.keep_drainage(*arguments)


def test_keep_drainage_in_the_recipe_closes_no_pit_the_map_had_not_and_is_off_at_the_fine_grid() -> None:
    """The rivers stage's ``keep_drainage`` with ``drain_lakes`` (River Valleys' short stage, a sixteenth of its
    size and relief, on a 65² fine grid, built at 257²: 14 m cells as at 4033², with the slopes of the full
    preset): the rock detail on the map's own cells closes pits the map before it had not; with ``keep_drainage``
    0.5 no cell is in a pit, and most cells keep the textured bits. Built at the fine grid's own size it changes
    no bit; out of range, the error names it."""
    from dataclasses import replace

    from noise_core.terrain import recipe as recipes

    seen = {}
    textured, drained = recipes.rock_detail, multiscale.keep_drainage

    def texture(metres, **options):
        seen["before"] = np.array(metres)
        seen["textured"] = textured(metres, **options)
        return seen["textured"]

    def keep(reference, heights, share, lakes):
        seen["kept"] = drained(reference, heights, share, lakes)
        return seen["kept"]

    preset = recipes.read_preset("river_valleys")
    preset = replace(preset, size=preset.size / 16, height=preset.height / 16)
    options = {**preset.stages[0].options, "steps": 60, "fine_steps": 10, "fine_size": 65, "model_size": 33}
    options["floor_interpolation"] = "bilinear"  # the floors the test was written for (the preset now: spline)

    def build(samples: int, share: float) -> np.ndarray:
        stage = recipes.Stage.of("rivers", {**options, "keep_drainage": share, "drain_lakes": True})
        return recipes.build_terrain(replace(preset, stages=(stage,)), samples).heights

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(recipes, "rock_detail", texture)
        patch.setattr(multiscale, "keep_drainage", keep)
        built = build(257, 0.5)
    before, plain, kept = seen["before"], seen["textured"], seen["kept"]
    assert np.count_nonzero(_pit_depth(plain) > 0.0) > np.count_nonzero(_pit_depth(before) > 0.0)
    assert not _pit_depth(built).any()
    assert np.mean(kept == plain) > 0.9
    assert np.array_equal(build(65, 0.5), build(65, 0.0))
    with pytest.raises(ValueError, match=r"keep_drainage: "):
        build(65, 1.5)


def test_floor_interpolation_spline_leaves_no_creases_on_the_fine_grids_lines() -> None:
    """The rivers stage's ``floor_interpolation`` (River Valleys' short stage with its trunk floors, a sixteenth of
    its size and of its relief before its landslides, on a 65² fine grid, built at 257², every 4th column on a line
    of the fine grid; no rock detail, no landslides, no channel heads): bilinear, the floors' change creases the
    map along the fine grid's lines (the mean |second difference| across x there over twice that between them); by
    the spline, as the rivers' change, not (within 20 %), the same terrain otherwise (r > 0.999). At the fine
    grid's own size it changes no bit; a bad value is refused naming it."""
    from dataclasses import replace

    from noise_core.terrain import recipe as recipes

    preset = recipes.read_preset("river_valleys")
    # a sixteenth of River Valleys' size and of its relief before its landslides (11,000 m), without them and
    # with its hillslopes before its channel heads (one D, no heads): the trunk floors' creases stand out of the
    # hillslopes' bend there
    preset = replace(preset, size=preset.size / 16, height=11000.0 / 16)
    options = {
        **preset.stages[0].options,
        "steps": 60,
        "fine_steps": 10,
        "fine_size": 65,
        "model_size": 33,
        "landslide_return_time": 0.0,
        "diffusion": 2e-5,
        "channel_head_area": 0.0,
    }

    def build(samples: int, how: str) -> np.ndarray:
        stage = recipes.Stage.of("rivers", {**options, "floor_interpolation": how, "rock_detail": 0.0})
        return recipes.build_terrain(replace(preset, stages=(stage,)), samples).heights.astype(np.float64)

    def creases(heights: np.ndarray) -> float:
        bend = np.abs(heights[:, 2:] - 2.0 * heights[:, 1:-1] + heights[:, :-2])
        on_line = np.arange(1, heights.shape[1] - 1) % 4 == 0
        return float(bend[:, on_line].mean() / bend[:, ~on_line].mean())

    linear, spline = build(257, "bilinear"), build(257, "spline")
    assert creases(linear) > 2.0
    assert creases(spline) < 1.2
    assert np.corrcoef(linear.ravel(), spline.ravel())[0, 1] > 0.999
    assert np.array_equal(build(65, "spline"), build(65, "bilinear"))
    with pytest.raises(ValueError, match=r"floor_interpolation: "):
        build(65, "cubic")
