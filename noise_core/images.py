"""Writing noise images to files through well-kept libraries.

PNG: 16-bit grayscale (imageio with Pillow). TIFF: 32-bit float (tifffile).
OpenEXR: 32-bit float, one ``Y`` channel (the OpenEXR bindings). Values are
first mapped from the spec's documented range (``ranges.value_range``) to [0, 1].
"""

from __future__ import annotations

import importlib
import types
from pathlib import Path

import numpy as np

FORMATS = {
    ".png": "16-bit grayscale PNG",
    ".tif": "32-bit float TIFF",
    ".tiff": "32-bit float TIFF",
    ".exr": "32-bit float OpenEXR",
}


def image_format(path: Path) -> str:
    """The file suffix of ``path`` if it is a supported image format; ``ValueError`` otherwise."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        allowed = ", ".join(FORMATS)
        raise ValueError(f"out: unsupported image format {suffix or '(none)'!r} in {str(path)!r}; use one of {allowed}")
    return suffix


WRITERS = {
    ".png": ("imageio.v3", "imageio"),
    ".tif": ("tifffile", "tifffile"),
    ".tiff": ("tifffile", "tifffile"),
    ".exr": ("OpenEXR", "openexr"),
}
"""Suffix -> (module imported to write it, the pip package providing it)."""


def writer_module(suffix: str) -> types.ModuleType:
    """The module that writes ``suffix`` files; ``ModuleNotFoundError`` saying what to install otherwise.

    The writers are the optional ``images`` extra (``pip install 'noisewright[images]'``).
    """
    module, package = WRITERS[suffix]
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as error:
        raise ModuleNotFoundError(
            f"out: writing {suffix} files needs the optional package {package!r} (missing: {error.name}); "
            f"install the images extra: pip install 'noisewright[images]' (imageio, tifffile, openexr)",
            name=error.name,
        ) from error


def write_image(path: Path, unit: np.ndarray) -> None:
    """Write an (H, W) array of values in [0, 1] to ``path``, the format chosen by its suffix."""
    path = Path(path)
    suffix = image_format(path)
    if not path.parent.is_dir():
        raise OSError(f"folder {str(path.parent)!r} does not exist")
    writer = writer_module(suffix)
    if suffix == ".png":
        # Encoded in memory, then written by us: when imageio writes a file itself and the write fails,
        # its plugin retries the flush when collected and prints a second, ignored traceback.
        encoded = writer.imwrite("<bytes>", np.round(unit * 65535.0).astype(np.uint16), extension=".png")
        path.write_bytes(encoded)
    elif suffix in (".tif", ".tiff"):
        writer.imwrite(path, unit.astype(np.float32))
    else:
        header = {"compression": writer.ZIP_COMPRESSION, "type": writer.scanlineimage}
        with writer.File(header, {"Y": unit.astype(np.float32)}) as exr:
            try:
                exr.write(str(path))
            except RuntimeError as error:
                raise OSError(str(error)) from error


def read_image(path: Path) -> np.ndarray:
    """Read back an image written by :func:`write_image` as float values in [0, 1]."""
    path = Path(path)
    suffix = image_format(path)
    if suffix == ".png":
        import imageio.v3 as iio

        return iio.imread(path).astype(np.float32) / 65535.0
    if suffix in (".tif", ".tiff"):
        import tifffile

        return tifffile.imread(path)
    import OpenEXR

    with OpenEXR.File(str(path)) as exr:
        return np.asarray(exr.channels()["Y"].pixels, dtype=np.float32)
