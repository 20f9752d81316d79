"""Bake Noise Texture's normal maps: both methods, conventions, files, seams, errors."""

from __future__ import annotations

import numpy as np
import pytest

from noise_core.io.images import read_image

from .conftest import scene_state

pytestmark = pytest.mark.blender


def image_rgb(image) -> np.ndarray:
    pixels = np.empty(len(image.pixels), dtype=np.float32)
    image.pixels.foreach_get(pixels)
    return pixels.reshape(image.size[1], image.size[0], 4)[..., :3]


def angles(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a = a / np.linalg.norm(a, axis=-1, keepdims=True)
    b = b / np.linalg.norm(b, axis=-1, keepdims=True)
    return np.degrees(np.arccos(np.clip((a * b).sum(axis=-1), -1.0, 1.0)))


def bake_normals(bpy, name: str, size: tuple[int, int] = (64, 48), **arguments) -> np.ndarray:
    settings = bpy.context.scene.noisewright
    settings.dimensions = "2"
    settings.tiling = True
    settings.octaves = 3
    width, height = size
    result = bpy.ops.noisewright.bake_texture(
        image_name=name, width=width, height=height, map_type="NORMAL", **arguments
    )
    assert result == {"FINISHED"}
    image = bpy.data.images[name]
    assert image.colorspace_settings.name == "Non-Color"
    return image_rgb(image) * 2.0 - 1.0


def test_both_methods_bake_the_same_normals_as_noise_core(bpy_empty, addon):
    bpy = bpy_empty
    size = (256, 192)  # 16 pixels per lattice cell of the finest octave: central differences resolve it
    analytic = bake_normals(bpy, "Analytic", size, normal_method="ANALYTIC", normal_strength=0.2)
    differences = bake_normals(bpy, "Differences", size, normal_method="DIFFERENCES", normal_strength=0.2)
    spec = addon.noise_core.NoiseSpec(tiling=True, octaves=3)
    expected = addon.noise_core.normal_maps.grid_normals(spec, (192, 256), strength=0.2, top_row_first=False)
    np.testing.assert_allclose(analytic, expected, atol=1e-5)  # Blender stores row 0 at the bottom
    assert angles(analytic, differences).mean() < 1.5
    assert angles(analytic, np.array([0.0, 0.0, 1.0])).mean() > 3.0


def test_directx_flips_green_and_the_map_is_seamless(bpy_empty, addon):
    bpy = bpy_empty
    opengl = bake_normals(bpy, "GL", normal_convention="OPENGL")
    directx = bake_normals(bpy, "DX", normal_convention="DIRECTX")
    np.testing.assert_allclose(directx[..., 1], -opengl[..., 1], atol=1e-6)
    across = max(angles(opengl[:, -1], opengl[:, 0]).max(), angles(opengl[-1], opengl[0]).max())
    inside = max(angles(opengl[:, 1:], opengl[:, :-1]).max(), angles(opengl[1:], opengl[:-1]).max())
    assert across <= inside * 1.01


def test_voronoi_uses_differences_and_the_panel_says_so(bpy_empty, addon):
    bpy = bpy_empty
    bpy.context.scene.noisewright.kind = "voronoi"
    normals = bake_normals(bpy, "Cells")
    assert np.isfinite(normals).all()
    spec = addon.noise_core.NoiseSpec(kind="voronoi")
    assert addon.api.normal_method_for(spec) == "DIFFERENCES"
    assert addon.api.normal_method_for(addon.noise_core.NoiseSpec()) == "ANALYTIC"


def test_saves_rgb_png_8_and_16_bit_and_exr(bpy_empty, addon, tmp_path):
    import imageio.v3 as iio

    bpy = bpy_empty
    for save_format, suffix, dtype in (("PNG_8", "n8.png", np.uint8), ("PNG", "n16.png", np.uint16)):
        path = tmp_path / suffix
        bake_normals(bpy, suffix, save_format=save_format, filepath=str(path))
        read = iio.imread(path) if dtype == np.uint8 else read_image(path)
        assert read.shape == (48, 64, 3) and (dtype != np.uint8 or read.dtype == np.uint8)
        expected = image_rgb(bpy.data.images[suffix])[::-1] * 2.0 - 1.0  # files store rows top-down
        scale = 255.0 if dtype == np.uint8 else 1.0
        decoded = read / scale * 2.0 - 1.0
        np.testing.assert_allclose(decoded, expected, atol=2.0 / (255 if dtype == np.uint8 else 65535) + 1e-6)
    bake_normals(bpy, "exr", save_format="OPEN_EXR", filepath=str(tmp_path / "n.exr"))
    assert (tmp_path / "n.exr").stat().st_size > 0


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"normal_method": "ANALYTIC"}, "normal_method: kind 'voronoi' has no analytic gradient"),
        ({"normal_strength": -1.0}, "normal_strength: must be between 0 and 1000"),
        ({"map_type": "BUMP"}, "map_type: 'BUMP' is not allowed"),
        ({"normal_convention": "VULKAN"}, "normal_convention: 'VULKAN' is not allowed"),
    ],
)
def test_bad_normal_bakes_change_nothing(bpy_empty, addon, arguments, message):
    bpy = bpy_empty
    bpy.context.scene.noisewright.kind = "voronoi"
    bpy.data.images.new("Keep", 4, 4)
    before = scene_state(bpy)
    spec = addon.noise_core.NoiseSpec(kind="voronoi")
    with pytest.raises(addon.api.UserError, match=message):
        addon.api.bake(bpy.context, spec, image="Keep", width=8, height=8, **{"map_type": "NORMAL", **arguments})
    assert scene_state(bpy) == before
