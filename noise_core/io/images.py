"""Writing noise images to files through well-kept libraries.

Grey (H, W), RGB (H, W, 3) or RGBA (H, W, 4) values in [0, 1]. PNG: 16-bit (or 8-bit) integers (Pillow; 16-bit RGB
and RGBA, which Pillow cannot write, with pypng, a band of rows at a time). TIFF: 32-bit float (tifffile). OpenEXR:
32-bit float, a ``Y`` channel or ``R``, ``G``, ``B`` (and ``A``) (the OpenEXR bindings).
"""

from __future__ import annotations

import importlib
import types
import zlib
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import numpy as np

FORMATS = {
    ".png": "16-bit grayscale PNG",
    ".tif": "32-bit float TIFF",
    ".tiff": "32-bit float TIFF",
    ".exr": "32-bit float OpenEXR",
}


def checked_suffix(path: str | Path, formats: Iterable[str], what: str, argument: str) -> str:
    """The lower-case suffix of ``path`` if it is one of ``formats``; ``ValueError`` starting with ``argument``
    (the user's name for the path) naming the ``what`` format and the allowed ones otherwise."""
    suffix = Path(path).suffix.lower()
    if suffix not in formats:
        allowed = ", ".join(formats)
        raise ValueError(
            f"{argument}: unsupported {what} format {suffix or '(none)'!r} in {str(path)!r}; use one of {allowed}"
        )
    return suffix


def image_format(path: Path, argument: str = "out") -> str:
    """The file suffix of ``path`` if it is a supported image format; ``ValueError`` starting with ``argument``
    (the user's name for the path) otherwise."""
    return checked_suffix(path, FORMATS, "image", argument)


WRITERS = {
    ".png": ("PIL.Image", "pillow"),  # and pypng ("png") for 16-bit RGB
    ".tif": ("tifffile", "tifffile"),
    ".tiff": ("tifffile", "tifffile"),
    ".exr": ("OpenEXR", "openexr"),
}
"""Suffix -> (module imported to write it, the pip package providing it)."""
PNG_BITS = (8, 16)
PNG_LEVEL = 6
"""zlib level of the PNGs (Pillow's default)."""


def writer_module(suffix: str, argument: str = "out") -> types.ModuleType:
    """The module that writes ``suffix`` files; ``ModuleNotFoundError`` starting with ``argument`` (the user's name
    for the file) saying what to install otherwise.

    The writers are the optional ``images`` extra (``pip install 'noisewright[images]'``).
    """
    return _optional(*WRITERS[suffix], suffix, argument)


def _optional(module: str, package: str, suffix: str, argument: str = "out", verb: str = "writing") -> types.ModuleType:
    """The module ``module`` (of the pip package ``package``) ``verb`` ``suffix`` files needs;
    ``ModuleNotFoundError`` starting with ``argument`` and saying what to install otherwise."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as error:
        raise ModuleNotFoundError(
            f"{argument}: {verb} {suffix} files needs the optional package {package!r} (missing: {error.name}); "
            f"install the images extra: pip install 'noisewright[images]' (pillow, tifffile, openexr, pypng)",
            name=error.name,
        ) from error


READERS = {".png": ("png", "pypng"), ".tif": ("tifffile", "tifffile"), ".tiff": ("tifffile", "tifffile"),
           ".exr": ("OpenEXR", "openexr")}  # fmt: skip
"""Suffix -> (module imported to read it, the pip package providing it)."""


def write_image(
    path: Path,
    unit: np.ndarray,
    bits: int = 16,
    check: Callable[[], object] | None = None,
    png_level: int = PNG_LEVEL,
) -> None:
    """Write an (H, W) grey, (H, W, 3) RGB or (H, W, 4) RGBA array of values in [0, 1] to ``path``, the format
    chosen by its suffix; ``bits`` (8 or 16) is the PNG's integer depth (TIFF and OpenEXR are 32-bit float),
    ``png_level`` its zlib level (0-9). ``check()`` is called between bands of rows of a 16-bit RGB(A) PNG (a
    cancel it raises stops the writing there); the other writers run in one piece."""
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
        integers = integer_codes(unit, bits)
        if rgb and bits == 16:
            _write_png16_rgb(path, integers, png_level, check)
        else:
            writer.fromarray(integers).save(path, format="PNG", compress_level=png_level)
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


PNG_BAND = 64
"""Rows of a PNG encoded between two ``check`` calls."""


def _write_png16_rgb(path: Path, codes: np.ndarray, level: int, check: Callable[[], object] | None) -> None:
    """(H, W, 3) RGB or (H, W, 4) RGBA uint16 ``codes`` as a 16-bit PNG, encoded by pypng a band of rows at a
    time (samples big-endian, as PNG stores them)."""
    png = _optional("png", "pypng", "16-bit RGB .png")
    height, width, planes = codes.shape
    rows = codes.reshape(height, width * planes).astype(">u2")
    writer = png.Writer(width, height, greyscale=False, alpha=planes == 4, bitdepth=16, compression=level)

    def packed() -> Iterator[bytes]:
        for start in range(0, height, PNG_BAND):
            if check is not None:
                check()
            yield from (row.tobytes() for row in rows[start : start + PNG_BAND])

    with open(path, "wb") as file:
        writer.write_packed(file, packed())


def read_image(path: Path, argument: str = "path") -> np.ndarray:
    """Read back an image written by :func:`write_image` as float values in [0, 1] ((H, W), (H, W, 3) or
    (H, W, 4)); the float formats as they are. Errors start with ``argument``, the user's name for the path:
    ``FileNotFoundError`` for no file, ``ModuleNotFoundError`` for a missing reader, ``ValueError`` for a file
    its reader cannot decode (damaged, or not of its suffix's format)."""
    path = Path(path)
    suffix = image_format(path, argument)
    if not path.is_file():
        raise FileNotFoundError(f"{argument}: no such file {str(path)!r}")
    reader = _optional(*READERS[suffix], suffix, argument, "reading")
    damaged = (ValueError, RuntimeError, EOFError, zlib.error, *((reader.Error,) if suffix == ".png" else ()))
    try:
        return _decode(reader, path, suffix)
    except damaged as error:  # pypng's FormatError, tifffile's TiffFileError, OpenEXR's RuntimeError, ...
        raise ValueError(f"{argument}: cannot read {str(path)!r} as {FORMATS[suffix]}: {error}") from None


def _decode(reader: types.ModuleType, path: Path, suffix: str) -> np.ndarray:
    """The pixels of the image file ``path`` through ``reader`` (``READERS``' module of its ``suffix``)."""
    if suffix == ".png":
        width, height, rows, info = reader.Reader(filename=str(path)).asDirect()
        planes = info["planes"]
        values = np.vstack([np.asarray(row, dtype=np.float32) for row in rows]).reshape(height, width, planes)
        values /= float(2 ** info["bitdepth"] - 1)
        return values[..., 0] if planes == 1 else values
    if suffix in (".tif", ".tiff"):
        return reader.imread(path)
    with reader.File(str(path)) as exr:
        channels = exr.channels()
        if "Y" in channels:
            return np.asarray(channels["Y"].pixels, dtype=np.float32)
        for grouped in ("RGBA", "RGB"):
            if grouped in channels:
                return np.asarray(channels[grouped].pixels, dtype=np.float32)
        names = "RGBA" if "A" in channels else "RGB"
        return np.stack([np.asarray(channels[c].pixels, dtype=np.float32) for c in names], axis=-1)


def pack_rgba(weights: np.ndarray) -> list[np.ndarray]:
    """``weights`` (N, H, W) as ``ceil(N / 4)`` float32 images (H, W, 4): layers ``4k .. 4k + 3`` in R, G, B, A
    of image ``k``; the channels of missing layers are 0. ``ValueError`` naming ``weights`` unless it is 3-D
    with at least one layer."""
    weights = np.asarray(weights, dtype=np.float32)
    if weights.ndim != 3 or 0 in weights.shape:
        raise ValueError(f"weights: expected (layers, height, width) with at least one layer, got shape "
                         f"{weights.shape}")  # fmt: skip
    count = weights.shape[0]
    images = []
    for start in range(0, count, 4):
        image = np.zeros((*weights.shape[1:], 4), dtype=np.float32)
        for channel in range(min(4, count - start)):
            image[..., channel] = weights[start + channel]
        images.append(image)
    return images
