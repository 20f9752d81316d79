"""Normal maps (``noise_core.normal_maps`` and ``python -m noise_core bake --map normal``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import noise_core as nc
from noise_core import normal_maps
from noise_core.cli import main
from noise_core.io.images import read_image

SPEC = nc.NoiseSpec(kind="perlin", octaves=3, frequency=4.0, tiling=True)


def angles(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Angle in degrees between the unit vectors of ``a`` and ``b`` (..., 3)."""
    a = a / np.linalg.norm(a, axis=-1, keepdims=True)
    b = b / np.linalg.norm(b, axis=-1, keepdims=True)
    return np.degrees(np.arccos(np.clip((a * b).sum(axis=-1), -1.0, 1.0)))


def decode(colours: np.ndarray) -> np.ndarray:
    return colours.astype(np.float64) * 2.0 - 1.0


@pytest.mark.parametrize("kind", ["value", "perlin", "simplex"])
def test_analytic_and_differences_agree(kind: str) -> None:
    spec = nc.NoiseSpec(kind=kind, octaves=2, frequency=3.0)
    analytic = normal_maps.grid_normals(spec, (128, 128), strength=0.2, method="analytic")
    differences = normal_maps.grid_normals(spec, (128, 128), strength=0.2, method="differences")
    assert np.abs(np.linalg.norm(analytic, axis=-1) - 1.0).max() < 1e-6
    difference = angles(analytic, differences)
    assert difference.mean() < 0.5 and difference.max() < 5.0
    assert angles(analytic, np.array([0.0, 0.0, 1.0])).mean() > 3.0  # not flat: the comparison means something


def test_slopes_point_downhill_and_rows_follow_the_file_layout() -> None:
    """Height rising along +x tilts the normal towards -x; with row 0 at the top, +v is up the rows."""
    spec = nc.NoiseSpec(kind="perlin", frequency=2.0)
    height = nc.ranges.to_unit(spec, nc.evaluate_grid(spec, (64, 64))).astype(np.float64)
    normals = normal_maps.grid_normals(spec, (64, 64), strength=0.5)
    dx = np.gradient(height, axis=1)  # per column, to the right
    dy_up = -np.gradient(height, axis=0)  # files: row 0 on top, so up the image is -row
    inner = (slice(2, -2), slice(2, -2))
    assert np.corrcoef(-dx[inner].ravel(), normals[..., 0][inner].ravel())[0, 1] > 0.95
    assert np.corrcoef(-dy_up[inner].ravel(), normals[..., 1][inner].ravel())[0, 1] > 0.95
    bottom_first = normal_maps.grid_normals(spec, (64, 64), strength=0.5, top_row_first=False)
    np.testing.assert_allclose(bottom_first[..., 1], -normals[..., 1], atol=1e-6)


def test_directx_flips_green_and_strength_zero_is_flat() -> None:
    opengl = normal_maps.grid_normals(SPEC, (32, 32), strength=0.3)
    directx = normal_maps.grid_normals(SPEC, (32, 32), strength=0.3, convention="directx")
    np.testing.assert_array_equal(directx[..., 0], opengl[..., 0])
    np.testing.assert_array_equal(directx[..., 1], -opengl[..., 1])
    flat = normal_maps.grid_normals(SPEC, (8, 8), strength=0.0)
    np.testing.assert_array_equal(flat.reshape(-1, 3), np.tile([0.0, 0.0, 1.0], (64, 1)))


@pytest.mark.parametrize("method", ["analytic", "differences"])
def test_tiling_noise_gives_a_seamless_map(method: str) -> None:
    """The step across the wrap (last column to first, last row to first) is like any other step."""
    normals = normal_maps.grid_normals(SPEC, (96, 96), strength=0.3, method=method)
    across = max(angles(normals[:, -1], normals[:, 0]).max(), angles(normals[-1], normals[0]).max())
    inside = max(angles(normals[:, 1:], normals[:, :-1]).max(), angles(normals[1:], normals[:-1]).max())
    assert across <= inside * 1.01


def test_kinds_without_a_gradient_use_differences() -> None:
    spec = nc.NoiseSpec(kind="voronoi", frequency=3.0)
    assert normal_maps.normal_method(spec) == "differences"
    assert normal_maps.normal_method(SPEC) == "analytic"
    normals = normal_maps.grid_normals(spec, (32, 32), strength=0.2)
    assert np.isfinite(normals).all()
    with pytest.raises(ValueError, match=r"^method: kind 'voronoi' has no analytic gradient"):
        normal_maps.grid_normals(spec, (8, 8), method="analytic")


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"strength": -1.0}, r"^strength: must be between 0 and 1000"),
        ({"strength": float("nan")}, r"^strength: must be between"),
        ({"convention": "vulkan"}, r"^convention: 'vulkan' is not allowed"),
        ({"method": "magic"}, r"^method: 'magic' is not allowed"),
    ],
)
def test_bad_arguments_are_named(arguments: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        normal_maps.grid_normals(SPEC, (4, 4), **arguments)


@pytest.mark.parametrize(("suffix", "bits", "tolerance"), [(".png", 8, 0.5 / 255), (".png", 16, 0.5 / 65535),
                                                           (".exr", 16, 1e-7)])  # fmt: skip
def test_cli_writes_the_encoded_normals(tmp_path: Path, suffix: str, bits: int, tolerance: float) -> None:
    out = tmp_path / f"normal{suffix}"
    arguments = ["bake", "--map", "normal", "--size", "48", "--octaves", "3", "--tiling", "--png-bits", str(bits)]
    assert main([*arguments, "--normal-strength", "0.2", "--out", str(out)]) == 0
    expected = normal_maps.encode(normal_maps.grid_normals(SPEC, (48, 48), strength=0.2))
    image = read_image(out)
    assert image.shape == (48, 48, 3)
    np.testing.assert_allclose(image, expected, atol=tolerance + 1e-7)


def test_cli_both_methods_and_conventions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = {}
    for method in ("analytic", "differences"):
        for convention in ("opengl", "directx"):
            out = tmp_path / f"{method}-{convention}.exr"
            arguments = ["--normal-method", method, "--normal-convention", convention, "--out", str(out)]
            assert main(["bake", "--map", "normal", "--size", "64", "--tiling", *arguments]) == 0
            files[method, convention] = decode(read_image(out))
    printed = capsys.readouterr().out
    assert "normal map from analytic derivatives" in printed and "from central differences" in printed
    assert angles(files["analytic", "opengl"], files["differences", "opengl"]).mean() < 0.5
    np.testing.assert_allclose(files["analytic", "directx"][..., 1], -files["analytic", "opengl"][..., 1], atol=1e-6)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--map", "normal", "--kind", "cellular", "--normal-method", "analytic"], "method: kind 'cellular'"),
        (["--map", "normal", "--normal-strength", "-2"], "strength: must be between 0 and 1000"),
        (["--png-bits", "12"], "--png-bits: invalid choice: 12 (choose from 8, 16)"),
    ],
)
def test_cli_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str], arguments: list, message: str) -> None:
    out = tmp_path / "x.png"
    with pytest.raises(SystemExit) as exit_info:
        main(["bake", "--size", "8", "--out", str(out), *arguments])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


def test_cli_tiled_normal_map_is_refused_before_anything_starts(tmp_path: Path, capsys) -> None:
    with pytest.raises(SystemExit):
        main(["bake", "--map", "normal", "--size", "64", "--out", str(tmp_path / "tiles.zarr")])
    assert "map: tiled bakes" in capsys.readouterr().err
    assert not (tmp_path / "tiles.zarr").exists()
