"""Blender images a bake fills: their size and file options (``WIDTH``, ``HEIGHT``, ``USE_FLOAT``,
``SAVE_FORMAT``, ``FILEPATH``, shared by ``bake`` and ``bake_uv``) and checks, filling them, their files written whole
or not at all off the main thread, resizing, and undoing a failed bake.

A bake's file is encoded in the job's worker (``noise_core.io.images``: Pillow or pypng for PNG, the OpenEXR bindings
for OpenEXR) into a temporary file beside the target (``noise_core.io.files.Staged``), and renamed into place on the
main thread when the image is filled, so the window never waits for an encoder and a cancel never waits for one
either. The file holds what Blender's own writer would write for the image (``file_pixels``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import bpy
import numpy as np

from .errors import UserError
from .noise_core.io.files import Staged, check_writable
from .noise_core.io.images import write_image
from .noise_core.schema import Option
from .pixels import linear_to_srgb, pixel_array, srgb_to_linear, to_rgba

EXTENSIONS = {"PNG": ".png", "PNG_8": ".png", "OPEN_EXR": ".exr"}
OTHER_SUFFIXES = (".png", ".exr", ".tif", ".tiff", ".jpg", ".jpeg", ".bmp", ".tga", ".webp", ".r16", ".raw", ".r32")
"""Image and heightmap extensions: a file path ending in one the Save format does not write is refused, not given
the format's extension after it (a path with no extension, or another, gets the format's added)."""
PNG_BITS = {"PNG": 16, "PNG_8": 8}
"""Our save formats -> the PNG's integer depth (OpenEXR is 32-bit float, ZIP)."""
PNG_LEVEL = 1
"""zlib level of the PNGs: that of Blender's own default (Compression 15 %)."""
MAX_PIXELS = 1 << 26
"""Largest image (8192 x 8192; 1 GiB of float RGBA inside Blender): bigger bakes are refused."""
WIDTH = Option("width", int, 1024, "Width in pixels", minimum=1, allowed="a whole number >= 1", soft_maximum=8192)
HEIGHT = replace(WIDTH, name="height", description="Height in pixels")
USE_FLOAT = Option(
    "use_float", bool, True, "A new image stores 32-bit floats (else 8 bits per channel)", title="32-bit Float"
)
SAVE_FORMAT = Option(
    "save_format",
    str,
    "NONE",
    "Also write the image to File Path",
    title="Save",
    choices=("NONE", "PNG", "PNG_8", "OPEN_EXR"),
    choice_text=(
        ("Don't Save", "Keep the image in Blender only"),
        ("PNG 16-bit", "16-bit PNG (grey or RGB)"),
        ("PNG 8-bit", "8-bit PNG (grey or RGB)"),
        ("OpenEXR", "32-bit float OpenEXR, ZIP compressed"),
    ),
)
FILEPATH = Option(
    "filepath", str, "", "Where to save (the extension is added if missing)", title="File Path", subtype="FILE_PATH"
)


def file_pixels(
    colours: np.ndarray, width: int, height: int, *, float_image: bool, data: bool, file_format: str
) -> np.ndarray:
    """The (height, width) grey or (height, width, 3) colour values in 0..1 Blender's image writer puts in a
    ``file_format`` file of an image holding ``colours`` (``pixels.image_colours``: (N,) grey, (N, 3) colours),
    top row first.

    An 8-bit image holds ``round(255 v) / 255``. Non-colour ``data`` is written as it is. Colours: a float image
    holds scene-linear values, written as they are to OpenEXR and sRGB-encoded (the Standard view) to PNG; an
    8-bit image holds sRGB, written as it is to PNG and linearised to OpenEXR.
    """
    values = np.asarray(colours, dtype=np.float32).reshape((height, width, *colours.shape[1:]))[::-1]
    if not float_image:
        values = np.floor(np.clip(values, 0.0, 1.0) * 255.0 + 0.5) / 255.0
    if data:
        return np.ascontiguousarray(values, dtype=np.float32)
    if file_format == "OPEN_EXR":
        converted = values if float_image else srgb_to_linear(values)
    else:
        converted = linear_to_srgb(values) if float_image else values
    return np.ascontiguousarray(converted, dtype=np.float32)


def stage(paths: Sequence[str], argument: str = "filepath") -> Staged:
    """Temporary files beside ``paths`` to write in a worker (``write_file``) and ``commit`` on the main thread, all
    or none; ``UserError`` naming ``argument`` (the user's, where the paths come from) when they cannot be made."""
    try:
        return Staged(paths, argument)
    except ValueError as error:
        raise UserError(str(error)) from None
    except OSError as error:
        raise UserError(f"{argument}: cannot write {str(paths[0])!r} ({error})") from None


def write_file(
    staged: Staged,
    index: int,
    pixels: Callable[[], np.ndarray],
    file_format: str,
    check: Callable[[], object] | None = None,
) -> None:
    """Encode ``pixels()`` (``file_pixels``) into the ``index``-th file of ``staged``: both in a thread of the
    write's own (``noise_core.io.files.Staged.write``) while this thread asks ``check()`` (any thread; a cancel it
    raises returns at once and the writer, abandoned, removes its file); here when ``check`` is None.
    ``UserError`` naming the staged files' argument when the file cannot be written."""
    bits = PNG_BITS.get(file_format, 16)

    def writer(path: Path, stop: Callable[[], None]) -> None:
        write_image(path, pixels(), bits, stop, PNG_LEVEL)

    try:
        staged.write(index, writer, check)
    except OSError as error:
        raise UserError(f"{staged.argument}: could not save {str(staged.targets[index])!r}: {error}") from None


def write_files(
    paths: Sequence[str],
    pixels: Sequence[Callable[[], np.ndarray]],
    file_format: str,
    advance: Callable[[int], None],
    argument: str = "filepath",
    share: int = 1,
) -> Staged:
    """``stage`` ``paths`` and encode ``pixels[i]()`` into the ``i``-th (``write_file``; a cancel raised by
    ``advance(0)`` returns at once), ``advance(share)`` after each; on any failure or cancel the files are
    discarded before the error goes on. Returns them staged, for ``commit`` on the main thread."""
    staged = stage(paths, argument)
    try:
        for index, made in enumerate(pixels):
            write_file(staged, index, made, file_format, lambda: advance(0))
            advance(share)
    except BaseException:
        staged.discard()
        raise
    return staged


def commit(staged: Staged) -> None:
    """Put the written files of ``staged`` in place, all or none (main thread); ``UserError`` naming their argument."""
    try:
        staged.commit()
    except OSError as error:
        raise UserError(f"{staged.argument}: could not save {str(staged.targets[0])!r}: {error}") from None


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


def check_image(image: object) -> bpy.types.Image | None:
    """An existing image to bake into (None for a new one, named by a string)."""
    if isinstance(image, str):
        if not image.strip():
            raise UserError("image: give the new image a name")
        return None
    if not isinstance(image, bpy.types.Image):
        raise UserError(f"image: expected an image or the name of a new one, got {type(image).__name__}")
    if not image.is_editable:
        raise UserError(f"image: {image.name!r} is linked library data and cannot be changed")
    if 0 in tuple(image.size):
        raise UserError(f"image: {image.name!r} has no pixels (its file could not be loaded)")
    if image.source not in ("GENERATED", "FILE"):
        raise UserError(f"image: {image.name!r} is a {image.source.lower()} image; bake into a still image")
    return image


def save_path(save_format: str, filepath: str) -> str:
    """The absolute file path to save to ("" for no file), checked to be writable."""
    if save_format == "NONE":
        return ""
    if not filepath.strip():
        raise UserError("filepath: give a file path to save the image to")
    if filepath.startswith("//") and not bpy.data.filepath:
        raise UserError("filepath: a path relative to the .blend (//) needs the .blend saved first")
    suffix = os.path.splitext(filepath)[1].lower()
    wanted = EXTENSIONS[save_format]
    if suffix in OTHER_SUFFIXES and suffix != wanted:
        name = os.path.basename(filepath)
        raise UserError(f"filepath: {name!r} ends in {suffix}, but the Save format writes {wanted}; name it "
                        f"{os.path.splitext(name)[0]}{wanted} or choose the format of {suffix}")  # fmt: skip
    path = saved_path(filepath, save_format)
    directory = os.path.dirname(path) or os.curdir
    if not os.path.isdir(directory):
        raise UserError(f"filepath: the folder {directory!r} does not exist")
    if os.path.isdir(path) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise UserError(f"filepath: cannot write {path!r}")
    try:  # what the save does first: a new file in the folder (os.access cannot tell for root)
        check_writable(directory)
    except OSError as error:
        raise UserError(f"filepath: cannot write into the folder {directory!r} ({error.strerror})") from None
    return path


def fill_image(image: bpy.types.Image, values: np.ndarray, width: int, height: int, ramp: tuple | None) -> None:
    """``values`` (grey 0..1, or (N, 3) data colours) into ``image``; non-colour data unless ``ramp``."""
    fill_rgba(image, to_rgba(values, ramp, encode_srgb=not image.is_float), width, height, ramp is None)


def fill_rgba(image: bpy.types.Image, rgba: np.ndarray, width: int, height: int, data: bool) -> None:
    """Flat RGBA ``rgba`` (``pixels.to_rgba``'s, made for ``image.is_float``) into ``image``, resized to
    ``width`` x ``height``; colour space non-colour when ``data``, else scene linear (float) or sRGB (8 bits)."""
    # The colour space first: changing it reloads a file image's buffer, which would undo the resize.
    if data:
        image.colorspace_settings.name = "Non-Color"
    else:
        image.colorspace_settings.name = "Linear Rec.709" if image.is_float else "sRGB"
    resize(image, width, height)
    if tuple(image.size) != (width, height):
        raise UserError(
            f"image: {image.name!r} could not be resized to {width}x{height} (it is {image.size[0]}x{image.size[1]})"
        )
    pixel_array(image).foreach_set(rgba)
    image.update()


def check_pixels(width: int, height: int) -> None:
    """``UserError`` when ``width x height`` exceeds ``MAX_PIXELS``."""
    if width * height > MAX_PIXELS:
        raise UserError(f"width, height: {width}x{height} exceeds the limit of {MAX_PIXELS} pixels")
