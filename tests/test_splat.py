"""Splat weights (noise_core.terrain.splat) and the ``maps`` command: rules, sums to 1, RGBA packing, files, errors."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import noise_core as nc
from noise_core.cli import main
from noise_core.io.images import read_image, write_image
from noise_core.terrain import splat


def ramp_heights() -> np.ndarray:
    """A valley (0 to 40 along x, a V in y): slopes, heights and curvatures of every kind."""
    y, x = np.mgrid[0:24, 0:32].astype(np.float64)
    return 1.25 * x + 0.9 * np.abs(y - 12) ** 1.5


bands = st.builds(
    lambda name, low, width, blend: {"map": name, "low": low, "high": low + width, "blend": blend},
    st.sampled_from(["height", "slope", "curvature", "relative_height", "aspect"]),
    st.floats(-10, 60),
    st.floats(0.5, 200),
    st.floats(0, 20),
)
layers = st.lists(
    st.fixed_dictionaries(
        {"name": st.just("layer"), "bands": st.lists(bands, max_size=3)},
        optional={"strength": st.floats(0, 1), "breakup": st.floats(0, 1)},
    ),
    min_size=1,
    max_size=6,
).map(lambda items: [{"name": "base"}, *items])


@given(layers=layers, seed=st.integers(0, 1000))
def test_weights_sum_to_one_in_every_cell(layers, seed: int) -> None:
    weights = nc.splat_weights(ramp_heights(), layers, seed=seed, radius=3)
    assert weights.shape == (len(layers), 24, 32) and weights.dtype == np.float32
    assert weights.min() >= 0.0 and weights.max() <= 1.0
    np.testing.assert_allclose(weights.sum(axis=0), 1.0, atol=1e-6)


def test_hard_bands_place_each_layer_where_its_rules_hold() -> None:
    heights = ramp_heights()
    layers = [
        nc.SplatLayer("grass"),
        nc.SplatLayer("sand", (nc.Band("height", high=10.0),)),
        nc.SplatLayer("rock", (nc.Band("slope", low=50.0),)),
    ]
    weights = nc.splat_weights(heights, layers)
    steep = nc.slope(heights) >= 50.0
    low = heights < 10.0
    np.testing.assert_array_equal(weights[2], steep)  # rock covers sand and grass
    np.testing.assert_array_equal(weights[1], low & ~steep)
    np.testing.assert_array_equal(weights[0], ~low & ~steep)


def test_soft_edges_are_a_smoothstep_blend_wide() -> None:
    heights = np.tile(np.linspace(0.0, 10.0, 101), (3, 1))
    weights = nc.splat_weights(
        heights, [{"name": "a"}, {"name": "b", "bands": [{"map": "height", "low": 5, "blend": 2}]}]
    )
    b = weights[1, 1]
    x = np.clip((heights[1] - 5.0) / 2.0 + 0.5, 0, 1)
    np.testing.assert_allclose(b, x * x * (3 - 2 * x), atol=1e-6)  # float32 weights
    assert b[40] == 0.0 and b[60] == 1.0 and b[50] == pytest.approx(0.5)


def test_strength_and_breakup() -> None:
    heights = ramp_heights()
    half = nc.splat_weights(heights, [{"name": "a"}, {"name": "b", "strength": 0.25}])
    np.testing.assert_allclose(half[1], 0.25)
    broken = nc.splat_weights(heights, [{"name": "a"}, {"name": "b", "strength": 0.5, "breakup": 0.5}], seed=3)
    assert 0.0 <= broken[1].min() < 0.45 and 0.55 < broken[1].max() <= 1.0
    again = nc.splat_weights(heights, [{"name": "a"}, {"name": "b", "strength": 0.5, "breakup": 0.5}], seed=3)
    np.testing.assert_array_equal(broken, again)


def test_erosion_masks_are_taken_from_maps() -> None:
    heights = ramp_heights()
    deposition = np.zeros(heights.shape)
    deposition[5:9, 5:9] = 1.0
    layers = [{"name": "ground"}, {"name": "sediment", "bands": [{"map": "deposition", "low": 0.5}]}]
    weights = nc.splat_weights(heights, layers, maps={"deposition": deposition})
    np.testing.assert_array_equal(weights[1], deposition)
    with pytest.raises(ValueError, match="maps: the bands use 'deposition'; pass it in maps"):
        nc.splat_weights(heights, layers)


@pytest.mark.parametrize(
    ("layers", "message"),
    [
        ("rock", "layers: expected a list of layers"),
        ([], "layers: must hold 1 to 64 layers"),
        ([{"name": "a", "bands": [{"map": "slope"}]}], "layers[0].bands: the first layer is the base"),
        ([{"name": "a"}, {"name": "b", "bands": [{"map": "slant"}]}], "layers[1].bands[0].map: 'slant' is not"),
        ([{"name": "a"}, {"name": "b", "bands": [{"low": 1}]}], "layers[1].bands[0].map: missing"),
        ([{"name": "a"}, {"name": "b", "bands": [{"map": "slope", "low": 5, "high": 2}]}], "layers[1].bands[0].high"),
        ([{"name": "a"}, {"name": "b", "bands": [{"map": "slope", "blend": -1}]}], "layers[1].bands[0].blend: must"),
        ([{"name": "a"}, {"name": "b", "strength": 2}], "layers[1].strength: must be between 0 and 1"),
        ([{"name": "a"}, {"name": "b", "colour": 2}], "layers[1].colour: not a layer field"),
        ([{"name": ""}], "layers[0].name: expected a non-empty string"),
    ],
)
def test_bad_layers_name_the_field(layers, message: str) -> None:
    """Every field of a layer is checked, with its place in the list in the message."""
    with pytest.raises((ValueError, TypeError)) as error:
        nc.splat_weights(ramp_heights(), layers)
    assert str(error.value).startswith(message)


def test_bad_heights_are_refused_before_anything_is_computed() -> None:
    with pytest.raises(TypeError, match="heights: expected a 2-D numpy array"):
        nc.splat_weights("terrain", [{"name": "base"}])
    with pytest.raises(ValueError, match="heights: must be finite"):
        nc.splat_weights(np.full((4, 4), np.inf), [{"name": "base"}])


def test_pack_rgba_puts_four_layers_in_each_image() -> None:
    weights = np.random.default_rng(1).random((6, 3, 5)).astype(np.float32)
    images = splat.pack_rgba(weights)
    assert len(images) == 2 and images[0].shape == (3, 5, 4)
    np.testing.assert_array_equal(images[0][..., 2], weights[2])
    np.testing.assert_array_equal(images[1][..., 1], weights[5])
    assert (images[1][..., 2:] == 0).all()


@pytest.mark.parametrize(("suffix", "bits", "tolerance"), [(".png", 8, 0.5 / 255), (".png", 16, 0.5 / 65535),
                                                            (".exr", 16, 0.0), (".tif", 8, 0.0)])  # fmt: skip
def test_write_splat_round_trip(tmp_path: Path, suffix: str, bits: int, tolerance: float) -> None:
    weights = nc.splat_weights(ramp_heights(), [{"name": "a"}, *[{"name": "b", "strength": 0.2}] * 4])
    paths = nc.write_splat(tmp_path / f"splat{suffix}", weights, bits)
    assert [p.name for p in paths] == [f"splat_0{suffix}", f"splat_1{suffix}"]
    for image, path in zip(splat.pack_rgba(weights), paths, strict=True):
        np.testing.assert_allclose(read_image(path), image, atol=tolerance + 1e-7)


def test_write_splat_writes_nothing_when_one_image_fails(tmp_path: Path, monkeypatch) -> None:
    weights = np.full((8, 3, 3), 1 / 8, dtype=np.float32)
    (tmp_path / "s_0.png").write_bytes(b"old")
    calls = []

    def failing(path, unit, bits=16):
        calls.append(path)
        if len(calls) == 2:
            raise OSError("disk full")
        write_image(path, unit, bits)

    monkeypatch.setattr(splat, "write_image", failing)
    with pytest.raises(OSError, match="disk full"):
        nc.write_splat(tmp_path / "s.png", weights)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s_0.png"]
    assert (tmp_path / "s_0.png").read_bytes() == b"old"


def test_cli_writes_maps_and_splats(tmp_path: Path, capsys) -> None:
    heights = ramp_heights().astype(np.float32)  # as the EXR stores them
    source = tmp_path / "h.exr"
    write_image(source, heights)
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps([{"name": "grass"}, {"name": "rock", "bands": [{"map": "slope", "low": 50}]}]))
    out = tmp_path / "t_{map}.exr"
    code = main(["maps", str(source), "--maps", "slope,aspect,relative_height", "--out", str(out), "--cell-size", "2",
                 "--radius", "3", "--splat", str(rules), "--splat-out", str(tmp_path / "splat.png")])  # fmt: skip
    assert code == 0
    np.testing.assert_allclose(read_image(tmp_path / "t_slope.exr"), nc.slope(heights, 2.0), atol=1e-5)
    np.testing.assert_allclose(read_image(tmp_path / "t_relative_height.exr"), nc.relative_height(heights, 3))
    expected = nc.splat_weights(heights, [{"name": "grass"}, {"name": "rock", "bands": [{"map": "slope", "low": 50}]}],
                                cell_size=2.0)  # fmt: skip
    np.testing.assert_allclose(read_image(tmp_path / "splat_0.png")[..., 1], expected[1], atol=0.5 / 255 + 1e-7)
    assert "wrote 4 files" in capsys.readouterr().out


def test_cli_png_maps_are_mapped_to_unit(tmp_path: Path) -> None:
    heights = ramp_heights()
    source = tmp_path / "h.npy"
    np.save(source, heights)
    assert main(["maps", str(source), "--maps", "slope,curvature", "--out", str(tmp_path / "m_{map}.png")]) == 0
    np.testing.assert_allclose(read_image(tmp_path / "m_slope.png"), nc.slope(heights) / 90, atol=1e-4)
    curvature = read_image(tmp_path / "m_curvature.png")
    assert curvature.min() >= 0.0 and math.isclose(float(np.abs(curvature - 0.5).max()), 0.5, abs_tol=1e-4)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--maps", "slope"], "out: give an output path with {map} in it"),
        (["--maps", "slope,slant", "--out", "x_{map}.exr"], "'slant' is not a map"),
        ([], "maps: nothing to do"),
        (["--maps", "slope", "--out", "x_{map}.jpg"], "out: unsupported image format '.jpg'"),
    ],
)
def test_cli_errors(tmp_path: Path, capsys, arguments: list[str], message: str) -> None:
    source = tmp_path / "h.npy"
    np.save(source, ramp_heights())
    with pytest.raises(SystemExit) as exit_:
        main(["maps", str(source), *arguments])
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err


def test_cli_writes_all_files_or_none(tmp_path: Path) -> None:
    source = tmp_path / "h.npy"
    np.save(source, ramp_heights())
    (tmp_path / "m_slope.exr").mkdir()  # one target cannot be written
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps([{"name": "a"}, {"name": "b", "strength": 0.5}]))
    code = main(["maps", str(source), "--maps", "aspect,slope", "--out", str(tmp_path / "m_{map}.exr"), "--splat",
                 str(rules), "--splat-out", str(tmp_path / "s.png")])  # fmt: skip
    assert code == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.npy", "m_slope.exr", "rules.json"]


def test_cli_flow_maps_with_either_routing(tmp_path: Path) -> None:
    heights = ramp_heights()
    source = tmp_path / "h.npy"
    np.save(source, heights)
    for method in ("d8", "mfd"):
        out = tmp_path / f"{method}_{{map}}.tif"
        assert main(["maps", str(source), "--maps", "flow,wetness", "--flow-method", method, "--out", str(out)]) == 0
        area = nc.flow_accumulation(nc.fill_depressions(heights, epsilon=True), method=method)
        np.testing.assert_allclose(read_image(tmp_path / f"{method}_flow.tif"), np.log10(area), rtol=1e-6)
        wetness = nc.wetness_index(heights, accumulation=area)
        np.testing.assert_allclose(read_image(tmp_path / f"{method}_wetness.tif"), wetness, rtol=1e-6)


def test_splat_does_not_depend_on_the_thread_count() -> None:
    import numba

    layers = [{"name": "a"}, {"name": "b", "bands": [{"map": "slope", "low": 40, "blend": 15}], "breakup": 0.4}]
    before = nc.splat_weights(ramp_heights(), layers, seed=5)
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        np.testing.assert_array_equal(nc.splat_weights(ramp_heights(), layers, seed=5), before)
    finally:
        numba.set_num_threads(threads)
