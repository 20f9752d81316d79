"""Writing noise images to files through well-kept libraries.

Grey (H, W), RGB (H, W, 3) or RGBA (H, W, 4) values in [0, 1]. PNG: 16-bit (or 8-bit) integers (imageio with
Pillow; 16-bit RGB and RGBA, which Pillow cannot write, with pypng). TIFF: 32-bit float (tifffile). OpenEXR:
32-bit float, a ``Y`` channel or ``R``, ``G``, ``B`` (and ``A``) (the OpenEXR bindings).
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
    ".png": ("imageio.v3", "imageio"),  # and pypng ("png") for 16-bit RGB
    ".tif": ("tifffile", "tifffile"),
    ".tiff": ("tifffile", "tifffile"),
    ".exr": ("OpenEXR", "openexr"),
}
"""Suffix -> (module imported to write it, the pip package providing it)."""
PNG_BITS = (8, 16)


def writer_module(suffix: str) -> types.ModuleType:
    """The module that writes ``suffix`` files; ``ModuleNotFoundError`` saying what to install otherwise.

    The writers are the optional ``images`` extra (``pip install 'noisewright[images]'``).
    """
    return _optional(*WRITERS[suffix], suffix)


def _optional(module: str, package: str, suffix: str) -> types.ModuleType:
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as error:
        raise ModuleNotFoundError(
            f"out: writing {suffix} files needs the optional package {package!r} (missing: {error.name}); "
            f"install the images extra: pip install 'noisewright[images]' (imageio, tifffile, openexr, pypng)",
            name=error.name,
        ) from error


def write_image(path: Path, unit: np.ndarray, bits: int = 16) -> None:
    """Write an (H, W) grey, (H, W, 3) RGB or (H, W, 4) RGBA array of values in [0, 1] to ``path``, the format
    chosen by its suffix; ``bits`` (8 or 16) is the PNG's integer depth (TIFF and OpenEXR are 32-bit float)."""
    path = Path(path)
    suffix = image_format(path)
    if bits not in PNG_BITS:
        raise ValueError(f"bits: PNG depth must be 8 or 16, got {bits!r}")
    if not path.parent.is_dir():
        raise OSError(f"folder {str(path.parent)!r} does not exist")
    writer = writer_module(suffix)
    rgb = unit.ndim == 3
    alpha = rgb and unit.shape[2] == 4
    if suffix == ".png":
        # Encoded in memory, then written by us: when imageio writes a file itself and the write fails,
        # its plugin retries the flush when collected and prints a second, ignored traceback.
        integers = integer_codes(unit, bits)
        if rgb and bits == 16:
            path.write_bytes(_png16_rgb(integers, alpha))
        else:
            path.write_bytes(writer.imwrite("<bytes>", integers, extension=".png"))
    elif suffix in (".tif", ".tiff"):
        extra = {"extrasamples": ("unassalpha",)} if alpha else {}
        writer.imwrite(path, unit.astype(np.float32), photometric="rgb" if rgb else "minisblack", **extra)
    else:
        header = {"compression": writer.ZIP_COMPRESSION, "type": writer.scanlineimage}
        channels = {name: unit[..., k] for k, name in enumerate("RGBA"[: unit.shape[2]])} if rgb else {"Y": unit}
        with writer.File(header, {k: np.ascontiguousarray(v, dtype=np.float32) for k, v in channels.items()}) as exr:
            try:
                exr.write(str(path))
            except RuntimeError as error:
                raise OSError(str(error)) from error


def integer_codes(unit: np.ndarray, bits: int = 16) -> np.ndarray:
    """The integer codes a PNG of depth ``bits`` (8 or 16) stores for values in [0, 1]: ``round(v * (2**bits - 1))``
    of ``v`` clipped to [0, 1] (uint16 or uint8); ``heightmaps`` writes the same codes to ``.r16`` files."""
    top = 65535.0 if bits == 16 else 255.0
    return np.round(np.clip(unit, 0.0, 1.0) * top).astype(np.uint16 if bits == 16 else np.uint8)


def _png16_rgb(integers: np.ndarray, alpha: bool = False) -> bytes:
    """A 16-bit RGB (or RGBA) PNG of (H, W, 3 or 4) uint16, encoded by pypng."""
    import io

    png = _optional("png", "pypng", "16-bit RGB .png")
    height, width, planes = integers.shape
    encoded = io.BytesIO()
    writer = png.Writer(width, height, greyscale=False, alpha=alpha, bitdepth=16)
    writer.write(encoded, integers.reshape(height, width * planes))
    return encoded.getvalue()


def read_image(path: Path) -> np.ndarray:
    """Read back an image written by :func:`write_image` as float values in [0, 1] ((H, W), (H, W, 3) or
    (H, W, 4)); the float formats as they are."""
    path = Path(path)
    suffix = image_format(path)
    if suffix == ".png":
        png = _optional("png", "pypng", ".png")
        width, height, rows, info = png.Reader(filename=str(path)).asDirect()
        planes = info["planes"]
        values = np.vstack([np.asarray(row, dtype=np.float32) for row in rows]).reshape(height, width, planes)
        values /= float(2 ** info["bitdepth"] - 1)
        return values[..., 0] if planes == 1 else values
    if suffix in (".tif", ".tiff"):
        import tifffile

        return tifffile.imread(path)
    import OpenEXR

    with OpenEXR.File(str(path)) as exr:
        channels = exr.channels()
        if "Y" in channels:
            return np.asarray(channels["Y"].pixels, dtype=np.float32)
        for grouped in ("RGBA", "RGB"):
            if grouped in channels:
                return np.asarray(channels[grouped].pixels, dtype=np.float32)
        names = "RGBA" if "A" in channels else "RGB"
        return np.stack([np.asarray(channels[c].pixels, dtype=np.float32) for c in names], axis=-1)
