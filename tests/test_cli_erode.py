"""``python -m noise_core erode``: fluvial, hydraulic and thermal modes, maps in and out, errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import noise_core as nc
from noise_core.cli import main
from noise_core.io.images import read_image, write_image


@pytest.fixture
def heightmap(tmp_path: Path) -> Path:
    spec = nc.NoiseSpec(kind="perlin", octaves=4, frequency=3.0, seed=2)
    path = tmp_path / "in.exr"
    write_image(path, nc.ranges.to_unit(spec, nc.evaluate_grid(spec, (40, 48))))
    return path


def test_fluvial_writes_the_heights_and_the_flow_maps(heightmap: Path, tmp_path: Path) -> None:
    options = ["--steps", "20", "--dt", "1e4", "--uplift", "1e-3", "--erodibility", "5e-5", "--cell-size", "20"]
    out, area, rivers = tmp_path / "out.exr", tmp_path / "area.png", tmp_path / "rivers.tiff"
    arguments = ["erode", str(heightmap), "--out", str(out), "--relief", "200", *options]
    assert main([*arguments, "--area-out", str(area), "--rivers-out", str(rivers)]) == 0
    expected = nc.erode_fluvial(read_image(heightmap).astype(np.float64) * 200.0, cell_size=20.0, steps=20, dt=1e4,
                                uplift=1e-3, erodibility=5e-5)  # fmt: skip
    np.testing.assert_allclose(read_image(out), expected.heights / 200.0, rtol=1e-6)
    np.testing.assert_array_equal(read_image(rivers), expected.rivers.astype(np.float32))
    assert read_image(area).max() == 1.0


def test_maps_in_scale_the_options(heightmap: Path, tmp_path: Path) -> None:
    half = tmp_path / "half.tiff"
    write_image(half, np.full((40, 48), 0.5))
    out = tmp_path / "out.tiff"
    main(["erode", str(heightmap), "--out", str(out), "--steps", "5", "--uplift", "2e-3", "--uplift-map", str(half)])
    heights = read_image(heightmap).astype(np.float64) * 100.0
    expected = nc.erode_fluvial(heights, steps=5, dt=5000.0, uplift=np.full(heights.shape, 1e-3), erodibility=2e-5)
    np.testing.assert_allclose(read_image(out), expected.heights / 100.0, rtol=1e-6)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--mode", "hydraulic", "--steps", "3"], "steps: not an option of --mode hydraulic"),
        (["--mode", "thermal", "--area-out", "a.png"], "area-out: only used with --mode fluvial"),
        (["--n", "9"], "n: must be between 0.1 and 4"),
        (["--relief", "0"], "relief: must be > 0"),
    ],
)
def test_errors_name_the_option(heightmap: Path, tmp_path: Path, capsys, extra: list[str], message: str) -> None:
    with pytest.raises(SystemExit):
        main(["erode", str(heightmap), "--out", str(tmp_path / "o.png"), *extra])
    assert message in capsys.readouterr().err
    assert not (tmp_path / "o.png").exists()


@pytest.mark.parametrize("mode", ["hydraulic", "thermal"])
def test_other_modes_match_their_functions(heightmap: Path, tmp_path: Path, mode: str) -> None:
    out = tmp_path / "out.tiff"
    option = ["--droplets", "500"] if mode == "hydraulic" else ["--iterations", "5"]
    main(["erode", str(heightmap), "--out", str(out), "--mode", mode, *option])
    heights = read_image(heightmap).astype(np.float64) * 100.0
    run = nc.erode_hydraulic(heights, droplets=500) if mode == "hydraulic" else nc.erode_thermal(heights, iterations=5)
    np.testing.assert_allclose(read_image(out), run.heights / 100.0, rtol=1e-6)


def test_thermal_erosion_takes_an_erodibility_map(heightmap: Path, tmp_path: Path) -> None:
    rock = np.full((40, 48), 0.25)
    rock[:, 24:] = 1.0
    write_image(tmp_path / "rock.tiff", rock)
    out = tmp_path / "out.tiff"
    main(["erode", str(heightmap), "--out", str(out), "--mode", "thermal", "--iterations", "5",
          "--erodibility-map", str(tmp_path / "rock.tiff")])  # fmt: skip
    heights = read_image(heightmap).astype(np.float64) * 100.0
    run = nc.erode_thermal(heights, iterations=5, erodibility=read_image(tmp_path / "rock.tiff").astype(np.float64))
    np.testing.assert_allclose(read_image(out), run.heights / 100.0, rtol=1e-6)
    assert not np.allclose(run.heights, nc.erode_thermal(heights, iterations=5).heights)


def test_outlets_map_holds_the_sea_at_its_height(heightmap: Path, tmp_path: Path) -> None:
    sea = np.zeros((40, 48))
    sea[10:20, 10:20] = 1.0
    write_image(tmp_path / "sea.tiff", sea)
    out = tmp_path / "out.tiff"
    arguments = ["--steps", "5", "--boundary", "looped", "--outlets-map", str(tmp_path / "sea.tiff")]
    main(["erode", str(heightmap), "--out", str(out), *arguments])
    np.testing.assert_allclose(read_image(out)[10:20, 10:20], read_image(heightmap)[10:20, 10:20], rtol=1e-6)
