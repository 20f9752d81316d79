"""Domain warp (``noise_core/warp.py``): a plain transcription, amplitude 0, continuity, tiling, errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import noise_core as nc
from noise_core.cli import main as cli_main
from noise_core.io.images import read_image
from noise_core.ranges import to_unit, value_range

POINTS = {dim: np.random.default_rng(70 + dim).uniform(-2.0, 2.0, size=(500, dim)) for dim in (1, 2, 3)}
WARPS = ("independent", "progressive")


def transcription(spec: nc.NoiseSpec, points: np.ndarray) -> np.ndarray:
    """The warp of the README, step by step: component ``a`` hashed ``seed + 1000 (a + 1)``, octave ``o``
    weighted ``r^o / sum r^j``; independent reads every octave at ``p``, progressive at the moved point."""
    dim = points.shape[1]
    weights = [spec.persistence**o for o in range(spec.warp_octaves)]
    moved = points.astype(np.float64)
    for o in range(spec.warp_octaves):
        read = points if spec.warp == "independent" else moved.copy()
        for a in range(dim):
            octave = nc.NoiseSpec(
                kind=spec.warp_kind,
                seed=spec.seed + 1000 * (a + 1) + o,
                frequency=spec.warp_frequency * spec.lacunarity**o,
                tiling=spec.tiling,
            )
            moved[:, a] += spec.warp_amplitude * weights[o] / sum(weights) * nc.evaluate(octave, read)
    plain = {name: getattr(spec, name) for name in ("kind", "seed", "frequency", "octaves", "tiling")}
    return nc.evaluate(nc.NoiseSpec(**plain), moved)


@pytest.mark.parametrize("warp", WARPS)
@pytest.mark.parametrize("dim", [1, 2, 3])
def test_matches_the_transcription(warp: str, dim: int) -> None:
    spec = nc.NoiseSpec(
        kind="perlin", seed=5, octaves=2, warp=warp, warp_kind="simplex", warp_amplitude=0.3, warp_octaves=3
    )
    got = nc.evaluate(spec, POINTS[dim])
    # independent sums the warp octaves in the kernel (float32 per octave): positions differ by ~1e-7
    np.testing.assert_allclose(got, transcription(spec, POINTS[dim]), atol=2e-5)


@pytest.mark.parametrize("warp", WARPS)
def test_amplitude_zero_is_bit_identical(warp: str) -> None:
    plain = nc.NoiseSpec(kind="voronoi", octaves=3)
    warped = nc.NoiseSpec(kind="voronoi", octaves=3, warp=warp, warp_amplitude=0.0, warp_octaves=4)
    assert np.array_equal(nc.evaluate(warped, POINTS[3]), nc.evaluate(plain, POINTS[3]))
    assert np.array_equal(nc.evaluate_grid(warped, (33, 47)), nc.evaluate_grid(plain, (33, 47)))


def test_warp_moves_the_noise_and_one_octave_modes_agree() -> None:
    plain = nc.evaluate(nc.NoiseSpec(), POINTS[2])
    independent = nc.evaluate(nc.NoiseSpec(warp="independent", warp_amplitude=0.2), POINTS[2])
    progressive = nc.evaluate(nc.NoiseSpec(warp="progressive", warp_amplitude=0.2), POINTS[2])
    assert np.abs(independent - plain).max() > 0.1
    np.testing.assert_array_equal(independent, progressive)


@pytest.mark.parametrize("warp", WARPS)
def test_continuous(warp: str) -> None:
    """Along a line sampled every 1e-6 no step jumps: the warped noise is continuous like its parts."""
    spec = nc.NoiseSpec(octaves=3, warp=warp, warp_amplitude=0.5, warp_octaves=3, warp_kind="value")
    t = np.arange(200_000) * 1e-6
    line = np.column_stack([0.3 + t, 0.7 - 0.5 * t, 0.1 + 0.25 * t])
    steps = np.abs(np.diff(nc.evaluate(spec, line)))
    assert steps.max() < 1e-3


@pytest.mark.parametrize("warp", WARPS)
@pytest.mark.parametrize(("kind", "dim"), [("perlin", 2), ("value", 3), ("voronoi", 2), ("cellular", 3)])
def test_tiles_with_the_noise(warp: str, kind: str, dim: int) -> None:
    spec = nc.NoiseSpec(
        kind=kind, octaves=2, tiling=True, frequency=3.0, warp=warp, warp_amplitude=0.3, warp_frequency=2.0,
        warp_octaves=2,
    )  # fmt: skip
    points = np.random.default_rng(1).uniform(0.0, 1.0, size=(400, dim))
    base = nc.evaluate(spec, points)
    for shift in (1.0, -2.0, 3.0):
        np.testing.assert_allclose(nc.evaluate(spec, points + shift), base, atol=1e-5)
    grid = nc.evaluate_grid(spec, (64, 64)) if dim == 2 else None
    if grid is not None:  # seamless image: the wrap-around step is like any other step
        assert np.abs(grid[:, 0] - grid[:, -1]).max() < 4 * np.abs(np.diff(grid, axis=1)).max()


def test_values_stay_in_range_and_input_is_untouched() -> None:
    spec = nc.NoiseSpec(kind="simplex", octaves=4, warp="progressive", warp_amplitude=3.0, warp_octaves=4)
    points = POINTS[3].astype(np.float32)
    before = points.copy()
    values = nc.evaluate(spec, points)
    low, high = value_range(spec)
    assert low <= values.min() and values.max() <= high
    assert np.array_equal(points, before)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"warp_amplitude": 0.5}, "warp_amplitude: only used with warp 'independent' or 'progressive'"),
        ({"warp_octaves": 3}, "warp_octaves: only used with warp"),
        ({"warp": "spiral"}, "warp: 'spiral' is not allowed; choose one of 'none', 'independent', 'progressive'"),
        ({"warp": "independent", "warp_kind": "voronoi"}, "warp_kind: 'voronoi' is not allowed"),
        ({"warp": "independent", "warp_amplitude": -0.1}, "warp_amplitude: must be between 0 and 1000"),
        ({"warp": "independent", "warp_frequency": 0.0}, "warp_frequency: must be > 0"),
        ({"warp": "independent", "warp_octaves": 17}, "warp_octaves: must be between 1 and 16"),
        ({"warp": "independent", "tiling": True, "warp_kind": "simplex"}, "warp_kind: 'simplex' cannot tile"),
        ({"warp": "independent", "tiling": True, "warp_frequency": 1.5}, "warp_frequency: tiling needs a whole"),
        ({"warp": "independent", "warp_frequency": 2.0**31}, "warp_frequency: the warp's highest octave"),
    ],
)
def test_bad_warp_settings_name_the_field(options: dict, message: str) -> None:
    with pytest.raises((ValueError, TypeError), match="^" + message.replace("(", r"\(").replace(")", r"\)")):
        nc.NoiseSpec(**options)


def test_far_warped_points_are_refused_naming_the_warp() -> None:
    """The points are in range; the warp moves them out, so the error names warp_amplitude (issue 29)."""
    spec = nc.NoiseSpec(frequency=1000.0, warp="progressive", warp_amplitude=1000.0, warp_frequency=1.0)
    with pytest.raises(ValueError, match=r"^warp_amplitude: the warp \(amplitude 1000\) moves the points"):
        nc.evaluate(spec, np.full((4, 2), 2.0**31 / 1000.0 - 100.0))


def test_cli_bakes_a_warped_image(tmp_path: Path) -> None:
    out = tmp_path / "warped.tiff"
    options = ["--warp", "progressive", "--warp-amplitude", "0.3", "--warp-octaves", "2"]
    assert cli_main(["bake", "--size", "32", *options, "--out", str(out)]) == 0
    spec = nc.NoiseSpec(warp="progressive", warp_amplitude=0.3, warp_octaves=2)
    np.testing.assert_array_equal(read_image(out), to_unit(spec, nc.evaluate_grid(spec, (32, 32))))


def test_cli_refuses_warp_options_without_a_warp(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli_main(["bake", "--size", "8", "--warp-octaves", "2", "--out", "unused.png"])
    assert exit_info.value.code == 2
    assert "--warp-octaves: only used with warp" in capsys.readouterr().err
