"""``noisewright.add_terrain`` and ``noisewright.bake_texture``: parity, files, packing, cancelled runs."""

from __future__ import annotations

import imageio.v3 as iio
import numpy as np
import OpenEXR
import pytest

from .conftest import default_offset, scene_state

pytestmark = pytest.mark.blender


def unit(addon, spec, values):
    low, high = addon.noise_core.value_range(spec)
    return (values - low) / (high - low)


def image_pixels(image) -> np.ndarray:
    pixels = np.empty(len(image.pixels), dtype=np.float32)
    image.pixels.foreach_get(pixels)
    return pixels.reshape(image.size[1], image.size[0], 4)


def use_2d_noise(bpy, **fields):
    settings = bpy.context.scene.noisewright
    settings.dimensions = "2"
    for name, value in fields.items():
        setattr(settings, name, value)


def test_terrain_with_defaults_at_the_cursor(bpy_empty, addon):
    bpy = bpy_empty
    bpy.context.scene.cursor.location = (1.0, 2.0, 3.0)
    assert bpy.ops.noisewright.add_terrain(x_subdivisions=8, y_subdivisions=6, size=4.0) == {"FINISHED"}
    terrain = bpy.context.object
    mesh = terrain.data
    assert tuple(terrain.location) == (1.0, 2.0, 3.0) and terrain.select_get()
    assert (len(mesh.vertices), len(mesh.polygons)) == (9 * 7, 8 * 6)
    assert mesh.validate() is False  # nothing to fix
    co = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
    mesh.vertices.foreach_get("co", co)
    co = co.reshape(-1, 3)
    flat = co.astype(np.float64)
    flat[:, 2] = 0.0
    spec = addon.noise_core.NoiseSpec()
    expected = unit(addon, spec, addon.noise_core.evaluate(spec, flat + default_offset(addon))) * 0.5
    np.testing.assert_allclose(co[:, 2], expected, atol=1e-6)
    normals = np.empty(len(mesh.polygons) * 3, dtype=np.float32)
    mesh.polygons.foreach_get("normal", normals)
    assert (normals.reshape(-1, 3)[:, 2] > 0).all()


def test_terrain_radial_falloff_and_offset(bpy_empty, addon):
    bpy = bpy_empty
    result = bpy.ops.noisewright.add_terrain(
        x_subdivisions=10, y_subdivisions=10, size=2.0, height=2.0, offset=(5.0, -3.0), falloff="RADIAL"
    )
    assert result == {"FINISHED"}
    mesh = bpy.context.object.data
    co = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
    mesh.vertices.foreach_get("co", co)
    co = co.reshape(-1, 3)
    radius = np.hypot(co[:, 0], co[:, 1])
    assert np.all(co[radius >= 1.0 - 1e-6, 2] == 0.0)
    centre = np.argmin(radius)
    spec = addon.noise_core.NoiseSpec()
    at = np.array([[co[centre, 0] + 5.0, co[centre, 1] - 3.0, 0.0]]) + default_offset(addon)
    assert co[centre, 2] == pytest.approx(unit(addon, spec, addon.noise_core.evaluate(spec, at))[0] * 2.0, abs=1e-6)


def test_terrain_refuses_absurd_sizes_and_edit_mode(bpy_empty, addon):
    bpy = bpy_empty
    before = scene_state(bpy)
    with pytest.raises(RuntimeError, match="exceed the limit"):
        bpy.ops.noisewright.add_terrain(x_subdivisions=16384, y_subdivisions=16384)
    assert scene_state(bpy) == before
    bpy.ops.mesh.primitive_plane_add()
    bpy.ops.object.mode_set(mode="EDIT")
    assert not bpy.ops.noisewright.add_terrain.poll()


@pytest.mark.parametrize("use_float", [True, False])
def test_bake_equals_evaluate_grid_within_its_bit_depth(bpy_empty, addon, use_float):
    bpy = bpy_empty
    use_2d_noise(bpy, tiling=True, octaves=2)
    assert bpy.ops.noisewright.bake_texture(width=48, height=32, use_float=use_float) == {"FINISHED"}
    image = bpy.data.images["Noise"]
    assert image.is_float == use_float and tuple(image.size) == (48, 32)
    spec = addon.noise_core.NoiseSpec(tiling=True, octaves=2)
    expected = unit(addon, spec, addon.noise_core.evaluate_grid(spec, (32, 48)))
    pixels = image_pixels(image)
    tolerance = 1e-6 if use_float else 0.5 / 255 + 1e-6
    for channel in range(3):
        np.testing.assert_allclose(pixels[..., channel], expected, atol=tolerance)
    assert np.all(pixels[..., 3] == 1.0)


def test_bake_defaults_to_2d_noise_on_the_plane_and_can_slice_the_settings_3d_noise(bpy_empty, addon):
    bpy = bpy_empty
    settings = bpy.context.scene.noisewright
    assert settings.dimensions == "3"  # the settings' default: the bake still writes the 2D noise image
    assert bpy.ops.noisewright.bake_texture(image_name="Plane", width=24, height=16) == {"FINISHED"}
    spec = addon.noise_core.NoiseSpec()
    expected = unit(addon, spec, addon.noise_core.evaluate_grid(spec, (16, 24)))
    np.testing.assert_allclose(image_pixels(bpy.data.images["Plane"])[..., 0], expected, atol=1e-6)
    result = bpy.ops.noisewright.bake_texture(image_name="Slice", width=24, height=16, noise_dimensions="SETTINGS")
    assert result == {"FINISHED"}
    u, v = addon.noise_core.api.grid_coordinates((16, 24))
    points = np.stack((u, v, np.zeros_like(u)), axis=1) + default_offset(addon)  # the slice at the offset's Z
    expected = unit(addon, spec, addon.noise_core.evaluate(spec, points)).reshape(16, 24)
    np.testing.assert_allclose(image_pixels(bpy.data.images["Slice"])[..., 0], expected, atol=1e-6)
    assert addon.bake.bake_domain(settings).dimensions == 2  # what the Image Editor's preview shows


def test_bake_ramp_into_an_existing_image_and_pack(bpy_empty, addon):
    bpy = bpy_empty
    use_2d_noise(bpy)
    existing = bpy.data.images.new("Target", 8, 8, float_buffer=True)
    result = bpy.ops.noisewright.bake_texture(
        target="EXISTING",
        image_name="Target",
        width=16,
        height=16,
        color_mode="RAMP",
        color_low=(0.0, 0.5, 1.0),
        color_high=(1.0, 0.5, 0.0),
        pack=True,
    )
    assert result == {"FINISHED"}
    assert len(bpy.data.images) == 1 and tuple(existing.size) == (16, 16) and existing.packed_file is not None
    spec = addon.noise_core.NoiseSpec()
    values = unit(addon, spec, addon.noise_core.evaluate_grid(spec, (16, 16)))
    pixels = image_pixels(existing)
    np.testing.assert_allclose(pixels[..., 0], values, atol=1e-6)
    np.testing.assert_allclose(pixels[..., 1], 0.5, atol=1e-6)
    np.testing.assert_allclose(pixels[..., 2], 1.0 - values, atol=1e-6)


def test_bake_saves_png16_and_exr_that_read_back(bpy_empty, addon, tmp_path):
    bpy = bpy_empty
    use_2d_noise(bpy)
    spec = addon.noise_core.NoiseSpec()
    expected = unit(addon, spec, addon.noise_core.evaluate_grid(spec, (24, 40)))[::-1]  # files store rows top-down
    png = tmp_path / "height.png"
    assert bpy.ops.noisewright.bake_texture(width=40, height=24, save_format="PNG", filepath=str(png)) == {"FINISHED"}
    read = iio.imread(png)
    assert read.dtype == np.uint16 and read.shape == (24, 40)
    np.testing.assert_allclose(read / 65535.0, expected, atol=0.5 / 65535 + 1e-6)
    exr = tmp_path / "height"  # the extension is added
    result = bpy.ops.noisewright.bake_texture(width=40, height=24, save_format="OPEN_EXR", filepath=str(exr))
    assert result == {"FINISHED"}
    with OpenEXR.File(str(tmp_path / "height.exr")) as file:
        channels = file.channels()
        data = next(iter(channels.values())).pixels
    assert data.dtype == np.float32
    grey = data[..., 0] if data.ndim == 3 else data
    np.testing.assert_allclose(grey, expected, atol=1e-6)


@pytest.mark.parametrize(
    "arguments",
    [
        {"save_format": "PNG", "filepath": "/nonexistent-noisewright-folder/x.png"},
        {"save_format": "PNG", "filepath": ""},
        {"save_format": "PNG", "filepath": "//relative.png"},
        {"width": 65536, "height": 65536},
        {"target": "EXISTING", "image_name": "Missing"},
    ],
    ids=["missing folder", "no path", "relative path unsaved", "absurd size", "missing image"],
)
def test_bad_bake_cancels_and_changes_nothing(bpy_empty, addon, arguments):
    bpy = bpy_empty
    bpy.data.images.new("Keep", 4, 4)
    before = scene_state(bpy)
    with pytest.raises(RuntimeError, match="Error: "):
        bpy.ops.noisewright.bake_texture(**arguments)
    assert scene_state(bpy) == before


def test_preview_is_computed_on_demand_and_matches_the_bake(bpy_empty, addon):
    bpy = bpy_empty
    use_2d_noise(bpy)
    settings = bpy.context.scene.noisewright
    spec, domain = addon.mapping.to_spec(settings), addon.mapping.to_domain(settings)
    addon.preview.request(spec, domain)
    addon.preview.wait()
    pixels = addon.preview.preview_pixels().reshape(128, 128, 4)
    expected = unit(addon, spec, addon.noise_core.evaluate_grid(spec, (128, 128)))
    np.testing.assert_allclose(pixels[..., 0], expected, atol=0.5 / 255 + 1e-6)  # previews hold 8 bits
    assert not bpy.app.timers.is_registered(addon.preview.tick)


def test_each_run_starts_from_the_scene_settings(bpy_empty, addon):
    bpy = bpy_empty
    heights = []
    for seed in (3, 4):
        bpy.context.scene.noisewright.seed = seed
        assert bpy.ops.noisewright.add_terrain(x_subdivisions=5, y_subdivisions=5) == {"FINISHED"}
        mesh = bpy.context.object.data
        co = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
        mesh.vertices.foreach_get("co", co)
        co = co.reshape(-1, 3)
        spec = addon.noise_core.NoiseSpec(seed=seed)
        flat = co.astype(np.float64)
        flat[:, 2] = 0.0
        noise = addon.noise_core.evaluate(spec, flat + default_offset(addon))
        np.testing.assert_allclose(co[:, 2], unit(addon, spec, noise) * 0.5, atol=1e-6)
        heights.append(co[:, 2])
    assert not np.array_equal(*heights)
