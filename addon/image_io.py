"""Blender images: writing files whole or not at all, resizing, and undoing a failed bake.

Files are written by Blender itself (PNG 16-bit, OpenEXR 32-bit float, ZIP) through a temporary scene's
output settings, with the Standard view transform, so grayscale values land in the file unchanged.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import bpy
import numpy as np

from .errors import UserError
from .noise_core.files import replacing_all
from .pixels import pixel_array, to_rgba

EXTENSIONS = {"PNG": ".png", "PNG_8": ".png", "OPEN_EXR": ".exr"}
DEPTHS = {"PNG": "16", "PNG_8": "8", "OPEN_EXR": "32"}
BLENDER_FORMATS = {"PNG": "PNG", "PNG_8": "PNG", "OPEN_EXR": "OPEN_EXR"}
"""Our save formats -> Blender's file formats (``PNG_8`` is an 8-bit PNG)."""
PNG_END = b"\x00\x00\x00\x00IEND\xaeB`\x82"
"""The last 12 bytes of every complete PNG file: the empty IEND chunk and its CRC."""


def check_written(path: str, file_format: str) -> None:
    """``OSError`` unless ``path`` holds a complete file: Blender's PNG writer reports no error when the
    file is cut short (a full disk, a file-size limit), so a PNG must end with its IEND chunk. Blender's
    OpenEXR writer raises on such errors itself (and reading a cut EXR back can crash Blender)."""
    size = os.path.getsize(path)
    if size == 0:
        raise OSError(f"{path!r}: nothing was written")
    if file_format == "PNG":
        with open(path, "rb") as written:
            written.seek(max(size - len(PNG_END), 0))
            if written.read() != PNG_END:
                raise OSError(f"{path!r}: the PNG was cut short (disk full or file-size limit?)")


def save_image(image: bpy.types.Image, path: str, file_format: str, grayscale: bool) -> None:
    """Write ``image`` to ``path`` with Blender's image writer: PNG 16-bit (``PNG_8``: 8-bit) or OpenEXR
    32-bit float.

    Written whole or not at all (``noise_core.files.replacing_all``): into a temporary file beside ``path``,
    checked (``check_written``), then renamed over it; on failure an existing file at ``path`` is kept
    and ``RuntimeError`` (Blender's writer) or ``OSError`` is raised.
    """
    save_images([(image, path)], file_format, grayscale)


def save_images(pairs: list[tuple[bpy.types.Image, str]], file_format: str, grayscale: bool) -> None:
    """``save_image`` for several ``(image, path)`` pairs, all or none (``noise_core.files.replacing_all``: on any
    failure no file of the new set is left and existing files are kept)."""
    save_frames([path for _, path in pairs], lambda index: pairs[index][0], file_format, grayscale)


def save_frames(
    paths: list[str],
    image_of: Callable[[int], bpy.types.Image],
    file_format: str,
    grayscale: bool,
    advance: Callable[[int], None] | None = None,
) -> None:
    """Write ``image_of(i)`` to ``paths[i]`` for each ``i`` in turn, all or none (as ``save_images``); ``image_of``
    may fill one image again for each file (an image sequence), and ``advance(1)`` follows each file."""
    for count in save_steps(paths, image_of, file_format, grayscale):
        if advance is not None:
            advance(count)


def save_steps(
    paths: list[str], image_of: Callable[[int], bpy.types.Image | None], file_format: str, grayscale: bool
) -> Iterator[int]:
    """``save_frames`` one file at a time, for a job's steps (``jobs``): yields 1 after each file and 0 while
    ``image_of(i)`` says its image is not ready yet (``None``; asked again). The files replace their targets
    only after the last one is written: closed before the end, it leaves no file of the set."""
    scene = bpy.data.scenes.new(".noisewright_save")
    try:
        scene.view_settings.view_transform = "Standard"
        scene.view_settings.look = "None"
        settings = scene.render.image_settings
        settings.file_format = BLENDER_FORMATS[file_format]  # type: ignore[assignment]
        settings.color_mode = "BW" if grayscale else "RGB"
        settings.color_depth = DEPTHS[file_format]  # type: ignore[assignment]
        if file_format == "OPEN_EXR":
            settings.exr_codec = "ZIP"
        with replacing_all(paths, "filepath") as temporaries:
            for index, temporary in enumerate(temporaries):
                image = image_of(index)
                while image is None:
                    yield 0
                    image = image_of(index)
                image.save_render(str(temporary), scene=scene)
                check_written(str(temporary), BLENDER_FORMATS[file_format])
                yield 1
    finally:
        bpy.data.scenes.remove(scene)


def saved_path(filepath: str, file_format: str) -> str:
    """The absolute path a bake saves ``filepath`` to (``//`` resolved, the format's extension added)."""
    return bpy.path.ensure_ext(bpy.path.abspath(filepath), EXTENSIONS[file_format])


def resize(image: bpy.types.Image, width: int, height: int) -> None:
    """Give ``image`` a ``width`` x ``height`` buffer (generated images are regenerated at that size)."""
    if tuple(image.size) == (width, height):
        return
    if image.source == "GENERATED":
        image.generated_width = width
        image.generated_height = height
    else:
        image.scale(width, height)


@dataclass(frozen=True)
class Snapshot:
    """What a bake changes in an existing image, to put it back if the bake fails."""

    size: tuple[int, int]
    generated_size: tuple[int, int]
    colorspace: str
    pixels: np.ndarray | None
    """Only for images with unsaved changes (``is_dirty``); clean ones are reloaded from their source."""


def snapshot(image: bpy.types.Image | None) -> Snapshot | None:
    if image is None:
        return None
    pixels = None
    if image.is_dirty:
        pixels = np.empty(len(pixel_array(image)), dtype=np.float32)
        pixel_array(image).foreach_get(pixels)
    generated = (image.generated_width, image.generated_height)
    return Snapshot((image.size[0], image.size[1]), generated, image.colorspace_settings.name, pixels)


def restore(image: bpy.types.Image, snapshot: Snapshot | None) -> None:
    """Undo a failed bake: remove a new image; put an existing one back, clean (``is_dirty`` False) if it was.

    A clean image equals its file or generated pattern, so reloading restores it and keeps it clean;
    an image with unsaved changes gets its pixels back (and stays dirty, as it was).
    """
    if snapshot is None:
        bpy.data.images.remove(image)
        return
    image.colorspace_settings.name = snapshot.colorspace
    if image.source == "GENERATED":
        image.generated_width, image.generated_height = snapshot.generated_size
    if snapshot.pixels is None:
        image.reload()
        return
    resize(image, *snapshot.size)
    pixel_array(image).foreach_set(snapshot.pixels)
    image.update()


def height_pixels(image: bpy.types.Image) -> tuple[np.ndarray, np.ndarray]:
    """``(pixels, heights)`` of a height image: its pixels as (width·height, channels) float32 and its red
    channel as (height, width) float64; ``UserError`` when it has no pixels of at least 3 x 3."""
    if not isinstance(image, bpy.types.Image):
        raise UserError(f"image: expected an image, got {type(image).__name__}")
    width, height = (int(v) for v in image.size)
    if width < 3 or height < 3 or not image.has_data:
        raise UserError(f"image: {image.name!r} has no pixels of at least 3 x 3 to erode")
    flat = np.empty(width * height * image.channels, dtype=np.float32)
    pixel_array(image).foreach_get(flat)
    pixels = flat.reshape(height * width, image.channels)
    return pixels, pixels[:, 0].reshape(height, width).astype(np.float64)


def data_image(name: str, values: np.ndarray) -> bpy.types.Image:
    """The float data image ``name`` holding the (height, width) ``values`` as grey, made or replaced (an image
    of that name with another size or without float pixels is replaced)."""
    height, width = values.shape
    image = bpy.data.images.get(name)
    if image is not None and (tuple(image.size) != (width, height) or not image.is_float):
        bpy.data.images.remove(image)
        image = None
    if image is None:
        image = bpy.data.images.new(name, width, height, alpha=False, float_buffer=True, is_data=True)
    pixel_array(image).foreach_set(to_rgba(np.asarray(values, dtype=np.float32).ravel()).ravel())
    image.update()
    return image
