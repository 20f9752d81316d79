"""Hardening (issue 29): for allowed input a finite answer or an error naming the user's argument; never a silently
wrong result. One section per class of fault."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import noise_core as nc
from noise_core import normal_maps
from noise_core.cli import main

POINTS = np.random.default_rng(29).random((400, 2))

# --- analytic derivatives that overflow float32 ------------------------------------------------------------------

STEEP_RIDGES = {"fractal": "ridged", "offset": 1.0, "gain": 2.0, "persistence": 100.0, "octaves": 16,
                "lacunarity": 4.0, "frequency": 1.0}  # fmt: skip
STRONG_WARP = {"warp": "progressive", "warp_amplitude": 1000.0, "warp_octaves": 16}


@pytest.mark.parametrize(("options", "field"), [(STEEP_RIDGES, "persistence"), (STRONG_WARP, "warp_amplitude")])
def test_derivatives_beyond_float32_are_refused_naming_the_field(options: dict, field: str) -> None:
    spec = nc.NoiseSpec(**options)
    assert np.isfinite(nc.evaluate(spec, POINTS)).all()  # the values themselves are fine
    with pytest.raises(ValueError, match=rf"^{field}: .*gradient.* beyond float32"):
        nc.evaluate(spec, POINTS, derivatives=True)


def test_cli_refuses_a_normal_map_whose_gradient_overflows(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    pytest.importorskip("imageio")
    out = tmp_path / "n.png"
    steep = "--fractal ridged --offset 1 --gain 2 --persistence 100 --octaves 16 --lacunarity 4 --frequency 1"
    arguments = ["bake", "--out", str(out), "--size", "16", "--map", "normal", *steep.split()]
    with pytest.raises(SystemExit) as exit_info:
        main(arguments)
    assert exit_info.value.code == 2 and "persistence: " in capsys.readouterr().err
    assert not out.exists()


def test_huge_but_finite_slopes_give_unit_normals() -> None:
    """Slopes whose squares overflow float64 still normalise (scaled by the largest component first)."""
    spec = nc.NoiseSpec(frequency=1.0)
    normals = normal_maps.surface_normals(spec, POINTS, (1e200, 0.0), (0.0, 1e200), (0.01, 0.01), strength=1000.0)
    assert np.isfinite(normals).all()
    np.testing.assert_allclose(np.linalg.norm(normals, axis=1), 1.0, rtol=1e-6)


# --- surface_normals arguments ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (((1.0, 0.0), (0.0, 1.0), (0.0, 0.0)), r"^pixel: the texel size .* must be > 0"),
        (((1.0, 0.0), (0.0, 1.0), (0.01, -0.01)), r"^pixel: the texel size .* must be > 0"),
        (((1.0, 0.0, 0.0), (0.0, 1.0), (0.01, 0.01)), r"^du: expected 2 numbers"),
        (((1.0, 0.0), (1.0,), (0.01, 0.01)), r"^dv: expected 2 numbers"),
        (((1.0, np.nan), (0.0, 1.0), (0.01, 0.01)), r"^du: must be finite"),
    ],
)
@pytest.mark.parametrize("method", ["analytic", "differences"])
def test_surface_normals_check_du_dv_and_the_pixel_size(arguments: tuple, message: str, method: str) -> None:
    with pytest.raises(ValueError, match=message):
        normal_maps.surface_normals(nc.NoiseSpec(), POINTS, *arguments, method=method)
