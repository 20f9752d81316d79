"""A bake's file is encoded off Blender's main thread (``image_io.file_pixels`` + ``noise_core.io.images``) and holds
what Blender's own image writer would write for the image: checked here against Blender's writer itself, for
every save format, float and 8-bit images, grey data, colour ramps and normal maps."""

from __future__ import annotations

import numpy as np
import pytest

from noise_core.io.images import read_image

pytestmark = pytest.mark.blender

WIDTH, HEIGHT = 37, 23
RAMP = ((0.1, 0.2, 0.05), (0.9, 0.7, 0.3))
BLENDER_FORMATS = {"PNG": ("PNG", "16"), "PNG_8": ("PNG", "8"), "OPEN_EXR": ("OPEN_EXR", "32")}


def _blender_writes(bpy, image, path: str, file_format: str, grayscale: bool) -> None:
    """Blender's own writer, as the bakes used it: a scene's output settings, the Standard view transform."""
    scene = bpy.data.scenes.new(".writer")
    try:
        scene.view_settings.view_transform = "Standard"
        scene.view_settings.look = "None"
        settings = scene.render.image_settings
        settings.file_format, settings.color_depth = BLENDER_FORMATS[file_format]
        settings.color_mode = "BW" if grayscale else "RGB"
        if file_format == "OPEN_EXR":
            settings.exr_codec = "ZIP"
        image.save_render(path, scene=scene)
    finally:
        bpy.data.scenes.remove(scene)


def _as_read(path, grayscale: bool) -> np.ndarray:
    values = read_image(path)
    if grayscale and values.ndim == 3:  # Blender writes grey OpenEXR as R = G = B
        values = values[..., 0]
    return values


@pytest.mark.parametrize("file_format", ["PNG", "PNG_8", "OPEN_EXR"])
@pytest.mark.parametrize("float_image", [True, False])
@pytest.mark.parametrize("kind", ["grey", "ramp", "normal"])
def test_our_files_hold_what_blenders_writer_writes(bpy_empty, addon, tmp_path, file_format, float_image, kind):
    bpy = bpy_empty
    rng = np.random.default_rng(7)
    values = rng.random(WIDTH * HEIGHT, dtype=np.float32)
    if kind == "normal":
        values = rng.random((WIDTH * HEIGHT, 3), dtype=np.float32)
    ramp = RAMP if kind == "ramp" else None
    grayscale = kind == "grey"
    image = bpy.data.images.new("written", WIDTH, HEIGHT, float_buffer=float_image)
    addon.image_io.fill_image(image, values, WIDTH, HEIGHT, ramp)
    suffix = addon.image_io.EXTENSIONS[file_format]
    _blender_writes(bpy, image, str(tmp_path / f"blender{suffix}"), file_format, grayscale)

    colours = addon.pixels.image_colours(values, ramp, encode_srgb=not float_image)
    pixels = addon.image_io.file_pixels(colours, WIDTH, HEIGHT, float_image=float_image, data=ramp is None,
                                        file_format=file_format)  # fmt: skip
    staged = addon.image_io.stage([str(tmp_path / f"ours{suffix}")])
    addon.image_io.write_file(staged, 0, lambda: pixels, file_format)
    addon.image_io.commit(staged)

    blender, ours = (_as_read(tmp_path / f"{who}{suffix}", grayscale) for who in ("blender", "ours"))
    assert ours.shape == blender.shape == ((HEIGHT, WIDTH) if grayscale else (HEIGHT, WIDTH, 3))
    if file_format == "OPEN_EXR":  # float: equal, but for the colour transforms (OpenColorIO's, ours exact)
        np.testing.assert_allclose(ours, blender, atol=2e-5 if kind == "ramp" else 0)
    else:  # integer codes: equal; a float image's colours within one code (Blender's float path)
        top = 65535 if file_format == "PNG" else 255
        codes = np.abs(np.round(ours * top) - np.round(blender * top))
        assert codes.max() <= (0 if grayscale or not float_image else 1)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([f"blender{suffix}", f"ours{suffix}"])
