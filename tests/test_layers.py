"""Material layers (noise_core.terrain.layers) on analytic cases, and the eroders' erodibility."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from noise_core.terrain import layers
from noise_core.terrain.erosion import ErosionResult, erode_hydraulic, erode_thermal

CALM = {"wind": 0.0, "melt": 0.0, "snow_line": -1.0}
"""Snow everywhere, no wind, no melt: only the sliding acts."""


def ridge(slope: float, size: int = 41) -> np.ndarray:
    """A roof: two planes of ``slope`` (rise per cell) meeting along the middle column, falling towards -x and +x."""
    x = np.arange(size, dtype=np.float64)
    return np.tile(100.0 - slope * np.abs(x - size // 2), (size, 1))


def test_snow_slides_off_faces_steeper_than_the_repose_angle_onto_their_feet():
    z = ridge(math.tan(math.radians(60.0)))
    cover = layers.snow(z, **CALM, repose_angle=38.0, repose_blend=10.0)
    assert (cover[2:-2, 2:19] == 0.0).all() and (cover[2:-2, 22:-2] == 0.0).all()
    assert (cover[:, 0] == 1.0).all() and (cover[:, -1] == 1.0).all()  # the feet hold what slid


def test_snow_stays_on_gentle_slopes_and_melts_on_the_side_facing_the_sun():
    beta = math.radians(20.0)
    z = ridge(math.tan(beta))
    elevation = 30.0
    cover = layers.snow(z, snow_line=-1.0, wind=0.0, melt=0.6, sun_azimuth=90.0, sun_elevation=elevation)
    zenith = math.radians(90.0 - elevation)
    incidence = math.cos(zenith) * math.cos(beta) + math.sin(zenith) * math.sin(beta)  # facing the sun: +x side
    excess = (incidence - math.cos(zenith)) / (1.0 - math.cos(zenith))
    np.testing.assert_allclose(cover[1:-1, 22:-1], 1.0 - 0.6 * excess, rtol=1e-5)
    assert (cover[1:-1, 1:19] == 1.0).all()  # facing away: no melt


def test_wind_scours_the_windward_face_by_its_upwind_slope():
    beta = math.radians(20.0)
    z = ridge(math.tan(beta))
    cover = layers.snow(z, snow_line=-1.0, melt=0.0, wind=0.5, wind_azimuth=270.0, wind_distance=8)
    # the windward face (-x side, the wind comes from -x): every upwind point lies lower, Sx = -beta
    np.testing.assert_allclose(cover[1:-1, 9:19], 1.0 - 0.5 * 20.0 / 30.0, rtol=1e-5)
    assert (cover[1:-1, 22:-1] == 1.0).all()  # the lee keeps (and gains) its snow


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_snowslide_keeps_the_snow(seed):
    rng = np.random.default_rng(seed)
    z = rng.random((9, 9)) * 10.0
    snow = rng.random(81)
    keep = rng.random(81)
    order = np.argsort(-z.reshape(-1), kind="stable")
    slid = snow.copy()
    layers._kernels().slide(z, order, keep, slid)
    assert math.isclose(slid.sum(), snow.sum(), rel_tol=1e-12)
    assert (slid >= 0.0).all()


def test_moisture_decays_with_distance_and_height_from_the_river():
    size, s = 41, 0.5
    x = np.arange(size, dtype=np.float64)
    z = np.tile(s * np.abs(x - 20), (size, 1))
    wet = np.zeros(z.shape, bool)
    wet[:, 20] = True
    found = layers.moisture(z, level=z.copy(), wet=wet, moisture_distance=4.0, moisture_height=0.1, wetness_weight=0.0)
    k = np.abs(x - 20)
    expected = np.exp(-k / 4.0) * np.exp(-s * k / (0.1 * s * 20))
    np.testing.assert_allclose(found, np.tile(expected, (size, 1)), rtol=1e-6, atol=1e-7)


def test_strata_bands_lie_at_their_heights():
    z = np.tile(np.arange(41, dtype=np.float64)[:, None], (1, 7))  # height = row, relative height row / 40
    hard, band = layers.strata(z, strata_spacing=0.25, strata_hard_share=0.5, strata_variation=0.0, strata_tilt=0.0,
                               strata_warp=0.0)  # fmt: skip
    rows = np.arange(41)
    np.testing.assert_array_equal(band[:, 3], rows // 10)
    np.testing.assert_array_equal(hard[:, 3], (rows % 10 >= 5).astype(np.float32))


def test_tilted_strata_rise_towards_their_azimuth():
    z = np.tile(np.arange(41, dtype=np.float64)[:, None], (1, 41))
    tilted = dict(strata_spacing=0.25, strata_variation=0.0, strata_tilt=10.0, strata_azimuth=90.0, strata_warp=0.0)
    _, band = layers.strata(z, **tilted)
    assert band[:, 0].max() > band[:, -1].max()  # a band's top lies higher towards +x, so fewer bands there


def test_a_stratified_slope_erodes_into_benches_with_steeper_hard_bands():
    z = np.tile(np.arange(64, dtype=np.float64), (8, 1))  # slope 1 (45 degrees) along +x
    hard, _ = layers.strata(z, strata_spacing=0.25, strata_hard_share=0.5, strata_variation=0.0, strata_tilt=0.0,
                            strata_warp=0.0)  # fmt: skip
    factor = layers.erodibility(hard, 0.7)
    eroded = erode_thermal(z, talus_angle=30.0, iterations=200, rate=0.5, erodibility=factor).heights
    steps = np.diff(eroded[4].astype(np.float64))[3:-3]
    row = hard[4] > 0.5
    both_hard, both_soft = (row[:-1] & row[1:])[3:-3], (~row[:-1] & ~row[1:])[3:-3]
    assert steps[both_hard].mean() > 0.95 and steps[both_soft].mean() < 0.8
    plain = np.diff(erode_thermal(z, talus_angle=30.0, iterations=200, rate=0.5).heights[4].astype(np.float64))[3:-3]
    assert abs(plain[both_hard].mean() - plain[both_soft].mean()) < 0.1


def test_an_erodibility_of_one_keeps_the_eroders_bits():
    rng = np.random.default_rng(3)
    z = rng.random((33, 33)) * 20.0
    ones = np.ones(z.shape)
    thermal = erode_thermal(z, iterations=5).heights
    assert np.array_equal(thermal, erode_thermal(z, iterations=5, erodibility=ones).heights)
    a = erode_hydraulic(z, droplets=300, seed=1).heights
    assert np.array_equal(a, erode_hydraulic(z, droplets=300, seed=1, erodibility=ones).heights)
    softer = erode_hydraulic(z, droplets=300, seed=1, erodibility=ones * 0.2)
    assert softer.eroded < erode_hydraulic(z, droplets=300, seed=1).eroded


def result(kind: str, erosion: list[float], deposition: list[float]) -> ErosionResult:
    e, d = np.array([erosion], np.float32), np.array([deposition], np.float32)
    return ErosionResult(np.zeros_like(e), e, d, float(e.sum()), float(d.sum()), 0.0, kind)


def test_deposits_stack_the_stages_in_order():
    talus_first = result("thermal", [0.0, 0.0, 3.0], [2.0, 1.0, 0.0])
    then_water = result("hydraulic", [1.0, 0.0, 0.0], [0.0, 0.5, 0.0])
    sediment, talus = layers.deposits([talus_first, then_water])
    np.testing.assert_array_equal(talus, [[1.0, 1.0, 0.0]])
    np.testing.assert_array_equal(sediment, [[0.0, 0.5, 0.0]])
    sediment, talus = layers.deposits([then_water, result("thermal", [0.25, 0.0, 0.0], [0.0, 0.0, 0.0])])
    np.testing.assert_array_equal(sediment, [[0.0, 0.5, 0.0]])


def test_the_eroders_carry_their_deposits_as_sediment_or_talus():
    z = np.zeros((9, 9))
    z[4, 4] = 10.0
    thermal = erode_thermal(z, iterations=1, rate=1.0, talus_angle=10.0)
    assert np.array_equal(thermal.talus, thermal.deposition) and not thermal.sediment.any()
    sediment, talus = layers.deposits([thermal])
    assert not sediment.any()
    np.testing.assert_array_equal(talus, thermal.deposition)
    assert math.isclose(float(talus.sum()), thermal.eroded, rel_tol=1e-6)  # closed edges: all of it lies as talus
    moved = (10.0 - math.tan(math.radians(10.0)) * 1.0) / 2.0  # rate x the largest excess / 2, split by excess
    assert math.isclose(thermal.eroded, moved, rel_tol=1e-5)


def test_compute_layers_names_every_layer():
    rng = np.random.default_rng(0)
    z = rng.random((17, 17)) * 5.0
    wet = np.zeros(z.shape, bool)
    wet[8, :] = True
    found = layers.compute_layers(z, level=z.copy(), wet=wet, wind_distance=4)
    assert tuple(found) == layers.LAYER_NAMES
    assert all(v.shape == z.shape and v.dtype == np.float32 for v in found.values())
    assert found["snow"].min() >= 0.0 and found["snow"].max() <= 1.0
    assert found["moisture"].min() >= 0.0 and found["moisture"].max() <= 1.0
    assert not found["sediment"].any()


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(layers.LAYER_OPTIONS), st.sampled_from([-1e9, 1e9, math.nan, "x", None]))
def test_bad_layer_options_name_themselves(option, value):
    z = np.zeros((5, 5))
    with pytest.raises((TypeError, ValueError), match=rf"^{option.name}"):
        layers.compute_layers(z, ["snow"], **{option.name: value})


@settings(max_examples=30, deadline=None)
@given(st.sampled_from([0.0, -1.0, math.nan, math.inf, 101.0]), st.booleans())
def test_bad_erodibility_names_itself(value, thermal):
    z = np.zeros((5, 5))
    bad = np.full(z.shape, value)
    with pytest.raises(ValueError, match=r"^erodibility"):
        (erode_thermal if thermal else erode_hydraulic)(z, erodibility=bad)
    with pytest.raises(ValueError, match=r"^erodibility"):
        erode_thermal(z, erodibility=np.ones((4, 5)))


def test_bad_layer_arguments_name_themselves():
    z = np.zeros((5, 5))
    with pytest.raises(ValueError, match=r"^names"):
        layers.compute_layers(z, ["rock"])
    with pytest.raises(TypeError, match=r"^wet"):
        layers.moisture(z, level=z)
    with pytest.raises(TypeError, match=r"^results"):
        layers.deposits([])
    with pytest.raises(ValueError, match=r"^hardness"):
        layers.erodibility(np.full((3, 3), 2.0))


def test_the_layers_command_writes_each_layer(tmp_path):
    from noise_core.cli.main import main
    from noise_core.io.images import read_image

    z = np.tile(np.arange(17, dtype=np.float32)[:, None], (1, 17))
    np.save(tmp_path / "h.npy", z)
    out = str(tmp_path / "t_{layer}.exr")
    assert main(["layers", str(tmp_path / "h.npy"), "--layers", "strata,strata_band,erodibility", "--out", out,
                 "--strata-warp", "0", "--strata-tilt", "0", "--strata-spacing", "0.25"]) == 0  # fmt: skip
    band = read_image(tmp_path / "t_strata_band.exr", "band")
    hard, expected = layers.strata(z, strata_warp=0.0, strata_tilt=0.0, strata_spacing=0.25)
    np.testing.assert_array_equal(np.asarray(band).reshape(z.shape), expected)
    np.testing.assert_array_equal(np.asarray(read_image(tmp_path / "t_strata.exr", "hard")).reshape(z.shape), hard)
    rock = np.asarray(read_image(tmp_path / "t_erodibility.exr", "rock")).reshape(z.shape)
    np.testing.assert_allclose(rock, 1.0 - 0.8 * hard, rtol=1e-6)
    with pytest.raises(SystemExit):
        main(["layers", str(tmp_path / "h.npy"), "--out", out, "--melt", "2"])


@pytest.mark.once_per_run
def test_splat_channels_paint_the_material_layers():
    from noise_core.terrain.splat import MATERIAL_SPLAT, material_splat, splat_weights

    z = ridge(math.tan(math.radians(20.0)), size=17)
    snowy = [{"name": "ground"}, {"name": "snow", "bands": [{"map": "snow", "low": 0.5}]}]
    weights = splat_weights(z, snowy, snow_line=-1.0, wind=0.0, melt=0.0)
    np.testing.assert_array_equal(weights[1], 1.0)
    weights = splat_weights(z, MATERIAL_SPLAT, wind_distance=4)
    np.testing.assert_allclose(weights.sum(axis=0), 1.0, rtol=1e-6)
    with pytest.raises(ValueError, match=r"^maps: the bands use 'sediment'"):
        splat_weights(z, material_splat(sediment=0.1))
    sediment = np.zeros(z.shape, np.float32)
    sediment[:, 0] = 1.0
    weights = splat_weights(z, material_splat(sediment=0.1), maps={"sediment": sediment}, snow_line=2.0)
    assert (weights[2][:, 0] == 1.0).all() and not weights[2][:, 3:].any()


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["hydraulic", "thermal", "fluvial"]), st.integers(0, 2**31 - 1)),
                min_size=1, max_size=4))  # fmt: skip
def test_deposits_are_never_negative_nor_more_than_was_laid(stages):
    from noise_core.terrain.fluvial import FluvialResult

    results, laid = [], np.zeros((1, 5))
    for kind, seed in stages:
        rng = np.random.default_rng(seed)
        e, d = (rng.random((1, 5)).astype(np.float32) * rng.integers(0, 2, (1, 5)) for _ in range(2))
        laid += d
        if kind == "fluvial":
            results.append(FluvialResult(np.zeros_like(e), e, e > 0, e, d, float(e.sum()), float(d.sum())))
        else:
            results.append(ErosionResult(np.zeros_like(e), e, d, float(e.sum()), float(d.sum()), 0.0, kind))
    sediment, talus = layers.deposits(results)
    assert sediment.min() >= 0.0 and talus.min() >= 0.0
    assert ((sediment + talus) <= laid + 1e-6).all()
    if stages[-1][0] == "fluvial":
        assert (sediment >= results[-1].deposition - 1e-7).all()


def test_the_engine_export_paints_a_snow_channel(tmp_path):
    import json

    import imageio.v3 as iio

    from noise_core.cli.main import main

    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps([{"name": "grass"}, {"name": "snow", "bands": [{"map": "snow", "low": 0.5}]}]))
    common = ["--size", "33", "--kind", "perlin", "--height-range", "0", "300", "--cell-size", "4"]
    assert main(["bake", "--out", str(tmp_path / "t.r16"), "--splat", str(rules), *common]) == 0
    codes = iio.imread(tmp_path / "t_splat0.png")
    assert codes[..., 1].max() == 255 and codes[..., 1].min() == 0  # snow on the heights, none below the snow line
    assert (np.abs(codes[..., :2].astype(int).sum(axis=2) - 255) <= 1).all()


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**31 - 1), st.floats(0.01, 1000.0), st.floats(0.1, 100.0))
def test_layers_of_any_terrain_lie_in_their_ranges(seed, relief, cell):
    z = np.random.default_rng(seed).random((9, 11)) * relief
    wet = np.zeros(z.shape, bool)
    wet[4, 2:5] = True
    found = layers.compute_layers(z, ["snow", "moisture", "strata"], cell, level=z.copy(), wet=wet, wind_distance=3)
    for name in ("snow", "moisture", "strata"):
        assert np.isfinite(found[name]).all() and found[name].min() >= 0.0 and found[name].max() <= 1.0, name
