"""``python -m noise_core bake``: files, formats, mapping to [0, 1], errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import noise_core as nc
from noise_core.cli import main
from noise_core.io.images import read_image
from noise_core.ranges import to_unit


@pytest.mark.parametrize(("suffix", "tolerance"), [(".png", 0.5 / 65535 + 1e-7), (".tiff", 0.0), (".exr", 0.0)])
def test_bake_writes_the_mapped_grid(tmp_path: Path, suffix: str, tolerance: float) -> None:
    out = tmp_path / f"noise{suffix}"
    assert (
        main(
            ["bake", "--kind", "perlin", "--size", "32", "--octaves", "3", "--tiling", "--seed", "9", "--out", str(out)]
        )
        == 0
    )
    expected = to_unit(
        spec := nc.NoiseSpec(kind="perlin", octaves=3, tiling=True, seed=9), nc.evaluate_grid(spec, (32, 32))
    )
    image = read_image(out)
    assert image.shape == (32, 32)
    np.testing.assert_allclose(image, expected, atol=tolerance)


def test_png_is_16_bit_grayscale(tmp_path: Path) -> None:
    import imageio.v3 as iio

    out = tmp_path / "n.png"
    main(["bake", "--kind", "value", "--width", "20", "--height", "10", "--out", str(out)])
    raw = iio.imread(out)
    assert raw.dtype == np.uint16 and raw.shape == (10, 20)
    assert len(np.unique(raw)) > 100


def test_turbulence_maps_zero_to_black(tmp_path: Path) -> None:
    out = tmp_path / "t.tiff"
    main(["bake", "--turbulence", "--octaves", "2", "--size", "16", "--out", str(out)])
    values = nc.evaluate_grid(nc.NoiseSpec(turbulence=True, octaves=2), (16, 16))
    np.testing.assert_allclose(read_image(out), values, atol=1e-7)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--frequency", "2.5", "--tiling"], "frequency: tiling needs a whole-number frequency"),
        (["--octaves", "0"], "octaves: must be between 1 and 16"),
        (["--kind", "plasma"], "invalid choice: 'plasma'"),
        (["--size", "0"], "must be between 1 and 16384"),
        (["--distance", "manhattan"], "distance: not an option of kind 'perlin'"),
        (["--kind", "hill", "--distribution", "weibull", "--beta", "0.001"], "beta: the largest Weibull value"),
        (["--kind", "hill", "--distribution", "weibull", "--alpha", "1e308"], "alpha: must be between 1e-30"),
        (["--kind", "hill", "--sizes", "1e-300"], "sizes: every size must be between"),
        (["--frequency", "1e400"], "frequency: must be a finite number"),
    ],
)
def test_bad_arguments_exit_2_with_the_field_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], arguments: list[str], message: str
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["bake", "--out", str(tmp_path / "x.png"), *arguments])
    assert exit_info.value.code == 2
    error = capsys.readouterr().err
    assert message in error and "Traceback" not in error
    assert list(tmp_path.iterdir()) == []


def test_unsupported_format_and_unwritable_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["bake", "--size", "8", "--out", str(tmp_path / "x.jpg")])
    assert "out: unsupported image format '.jpg'" in capsys.readouterr().err
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert main(["bake", "--size", "8", "--out", str(blocker / "x.png")]) == 2
    assert "out: cannot write" in capsys.readouterr().err
    assert main(["bake", "--size", "8", "--out", str(blocker / "sub" / "x.png")]) == 2
    assert "--out: cannot create the folder" in capsys.readouterr().err


@pytest.mark.parametrize("suffix", [".png", ".tiff", ".exr"])
def test_unwritable_file_in_an_existing_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str], suffix: str) -> None:
    # A folder in place of the file: every writer fails at write time, after the folder check passed.
    out = tmp_path / f"taken{suffix}"
    out.mkdir()
    assert main(["bake", "--size", "8", "--out", str(out)]) == 2
    assert f"out: cannot write '{out}'" in capsys.readouterr().err


def test_module_entry_point(tmp_path: Path) -> None:
    out = tmp_path / "m.png"
    done = subprocess.run(
        [sys.executable, "-m", "noise_core", "bake", "--size", "8", "--out", str(out)],
        capture_output=True,
        text=True,
        check=False,
        cwd=Path(__file__).resolve().parent.parent,
    )
    assert done.returncode == 0, done.stderr
    assert out.exists() and "wrote" in done.stdout


@pytest.mark.parametrize(
    ("arguments", "options"),
    [
        (
            ["--kind", "gabor", "--gabor-frequency", "3", "--anisotropy", "0.5", "--orientation", "1.2",
             "--output", "intensity"],
            {"kind": "gabor", "gabor_frequency": 3.0, "anisotropy": 0.5, "orientation": 1.2, "output": "intensity"},
        ),
        (
            ["--kind", "voronoi", "--function", "smooth_f1", "--smoothing", "0.4", "--distance", "minkowski",
             "--exponent", "3"],
            {"kind": "voronoi", "function": "smooth_f1", "smoothing": 0.4, "distance": "minkowski", "exponent": 3.0},
        ),
        (["--kind", "white", "--frequency", "8", "--tiling"], {"kind": "white", "frequency": 8.0, "tiling": True}),
    ],
)  # fmt: skip
def test_blender_texture_kinds_bake(tmp_path: Path, arguments: list[str], options: dict) -> None:
    """The Blender texture kinds and their options are flags (from the registry) and bake what the spec computes."""
    out = tmp_path / "b.tiff"
    assert main(["bake", *arguments, "--size", "24", "--out", str(out)]) == 0
    spec = nc.NoiseSpec(**options)
    np.testing.assert_allclose(read_image(out), to_unit(spec, nc.evaluate_grid(spec, (24, 24))), atol=0.0)
