"""Heightmaps for game engines: raw R16/R32 files and 16-bit PNG, EXR and TIFF, each with a JSON sidecar, and
seam-free tile sets.

A heightmap holds values ``v`` in [0, 1] on an (H, W) grid, row-major, the first row first (the PNG bake's row
order: row ``r`` is the noise at ``v = (r + .5) / H``); ``height_range = (low, high)`` says which heights 0 and
1 stand for (``normalize`` maps heights ``h`` to ``(h - low) / (high - low)``):

- ``.r16`` / ``.raw``: headerless uint16 little-endian, code ``round(v * 65535)`` (``images.integer_codes``,
  the codes of the 16-bit PNG bake);
- ``.r32``: headerless float32 little-endian ``v``;
- ``.png`` (16-bit), ``.exr``, ``.tif``/``.tiff`` (32-bit float) through ``images.write_image``.

The sidecar ``NAME.ext.json`` records the width, height, sample type, row order, height range and unit, the
noise settings and, for an engine preset (``engines.py``), the numbers for its import dialog. A file and its
sidecar, or a whole tile set, are written all or none (``files.replacing_all``).

Tiles of side N with overlap 1 hold N + 1 samples: tile (x, y) is rows ``y N .. y N + N`` and columns
``x N .. x N + N`` of the whole, so neighbours share their edge samples exactly and together they are the
whole grid (overlap 0: plain N x N pieces).

Splat weights (``splat.splat_weights``: N layers over the same grid) can go with the heights: beside each file
(each tile) ``NAME_splat0.png``, ``NAME_splat1.png``, ... (``splat_files``), RGBA 8- or 16-bit PNG with layers
``4k .. 4k + 3`` in image ``k`` (``images.pack_rgba``), cut from the same windows, so tiles share their edge
weights exactly and together are the whole splat image; written in the same all-or-none set as the heights.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..schema import Option, integer, number
from .engines import ENGINES, Engine
from .engines import engine as find_engine
from .files import replacing_all
from .images import FORMATS as IMAGE_FORMATS
from .images import PNG_BITS, checked_suffix, integer_codes, pack_rgba, read_image, write_image, writer_module

RAW_TYPES = {".r16": "<u2", ".raw": "<u2", ".r32": "<f4"}
"""Raw suffix -> numpy type of its samples (little-endian)."""
FORMATS = {
    ".r16": "16-bit raw (uint16 little-endian)",
    ".raw": "16-bit raw (uint16 little-endian, as .r16)",
    ".r32": "32-bit float raw (float32 little-endian)",
    **IMAGE_FORMATS,
}
"""Suffix -> what its files hold: every heightmap format read and written (``.tif`` and ``.tiff`` both TIFF)."""
ROW_ORDER = "row-major; the first row is the grid's row 0 (the top row of the PNG bake), columns left to right"
SIDECAR_VERSION = 1
MAX_TILES = 4096

FORMAT_SUFFIXES = {"R16": ".r16", "RAW": ".raw", "R32": ".r32", "PNG": ".png", "EXR": ".exr", "TIFF": ".tif"}
"""Each format by name (an interface's choice) and the suffix it writes."""
_FORMAT_LABELS = {"R16": "16-bit raw", "RAW": "16-bit raw", "R32": "32-bit float raw", "PNG": "16-bit",
                  "EXR": "32-bit float", "TIFF": "32-bit float"}  # fmt: skip


def _format_text(name: str) -> tuple[str, str]:
    """The label and description of the format ``name``: what it holds, and the engines that import it."""
    suffix = FORMAT_SUFFIXES[name]
    takers = ", ".join(engine.title for engine in ENGINES.values() if suffix in engine.formats)
    label = "OpenEXR" if name == "EXR" else name
    return f"{label} ({_FORMAT_LABELS[name]})", f"{suffix}: {FORMATS[suffix]}" + (f"; {takers}" if takers else "")


def suffix_patterns(suffixes: Iterable[str] = FORMATS) -> str:
    """``"*.r16;*.raw;..."``: a file browser's filter for ``suffixes`` (every heightmap format's by default)."""
    return ";".join(f"*{suffix}" for suffix in suffixes)


def listed(suffixes: Iterable[str] = FORMATS) -> str:
    """``".r16, .raw, ..."``: ``suffixes`` (every heightmap format's by default), for a sentence."""
    return ", ".join(suffixes)


FILE_FORMAT = Option("file_format", str, "R16", "File format (the file name's extension follows it)", title="Format",
                     choices=tuple(FORMAT_SUFFIXES), choice_text=tuple(map(_format_text, FORMAT_SUFFIXES)))  # fmt: skip
"""The format an export writes (the add-on's; the command line takes it from ``--out``'s suffix)."""
ENGINE = Option("engine", str, "none", "Game engine whose sizes and formats the heightmap must fit; its import "
                "numbers go in the sidecar", choices=("none", *ENGINES),
                choice_text=(("None", "Any size; no engine numbers"),
                             *((engine.title, f"Check the size for {engine.title} and give its import numbers")
                               for engine in ENGINES.values())))  # fmt: skip
CELL_SIZE = Option("cell_size", float, 1.0, "Metres between samples, for the engine's import numbers", minimum=0.0,
                   above=True)  # fmt: skip
OVERLAP = Option("overlap", int, 1, "Samples neighbouring tiles share: tiles of N + 1 samples (the engine's, else 1)",
                 minimum=0, maximum=1)  # fmt: skip
SPLAT = Option("splat", str, "", "JSON file of splat layers (docs/terrain-maps.md): their weights go beside each file "
               "(each tile) as NAME_splat0.png, ... (RGBA, 4 layers each; empty: none)", title="Splat Layers",
               subtype="FILE_PATH", addon_name="splat_rules")  # fmt: skip
SPLAT_BITS = Option("splat_bits", str, "8", "Depth of the splat PNGs", choices=tuple(map(str, PNG_BITS)),
                    choice_text=tuple((f"{bits}-bit", f"{bits} bits per channel") for bits in PNG_BITS),
                    title="Splat Depth")  # fmt: skip
"""The options of a heightmap export, one row each for the command line and the add-on (``write_heightmap``'s
and ``write_tiles``' arguments; the splat weights' JSON layers are ``terrain.splat``'s)."""


def heightmap_format(path: str | Path, argument: str = "out") -> str:
    """The suffix of ``path`` if it is a heightmap format; ``ValueError`` starting with ``argument`` (the user's
    name for the path) otherwise."""
    return checked_suffix(path, FORMATS, "heightmap", argument)


def sidecar_path(path: str | Path) -> Path:
    """Where the sidecar of ``path`` goes: ``NAME.ext.json`` beside it."""
    path = Path(path)
    return path.with_name(path.name + ".json")


def normalize(heights: np.ndarray, height_range: tuple[float, float] | None = None) -> tuple[np.ndarray, tuple]:
    """``((heights - low) / (high - low)`` clipped to [0, 1] as float32, ``(low, high))``; ``height_range``
    defaults to the heights' minimum and maximum (flat heights: ``(h, h + 1)``, all 0)."""
    heights = np.asarray(heights, dtype=np.float64)
    if heights.size == 0 or not np.all(np.isfinite(heights)):
        raise ValueError("heights: must be a non-empty array of finite numbers")
    if height_range is None:
        low, high = float(heights.min()), float(heights.max())
        if high == low:
            high = low + 1.0
        if not math.isfinite(high - low):
            raise ValueError(f"heights: they span {low:g} .. {high:g}, a range beyond float64; scale them down")
    else:
        low, high = _range(height_range)
    unit = np.clip((heights - low) / (high - low), 0.0, 1.0).astype(np.float32)
    return unit, (low, high)


def _range(height_range: object) -> tuple[float, float]:
    if not isinstance(height_range, (tuple, list)) or len(height_range) != 2:
        raise TypeError(f"height_range: expected (low, high), got {height_range!r}")
    low, high = number("height_range", height_range[0]), number("height_range", height_range[1])
    if not high > low:
        raise ValueError(f"height_range: high must be above low, got ({low:g}, {high:g})")
    if not math.isfinite(high - low):
        raise ValueError(f"height_range: high - low must be a finite number, got ({low:g}, {high:g})")
    return low, high


def _check_values(values: object) -> np.ndarray:
    array = np.asarray(values)
    if array.ndim != 2 or 0 in array.shape:
        raise ValueError(f"values: expected a non-empty (height, width) array, got shape {array.shape}")
    if not np.issubdtype(array.dtype, np.floating):
        raise TypeError(f"values: expected floats in [0, 1], got {array.dtype}")
    array = array.astype(np.float32, copy=False)
    if not np.all(np.isfinite(array)) or array.min() < 0.0 or array.max() > 1.0:
        raise ValueError(
            f"values: must lie in [0, 1] (map heights with normalize first), got {np.nanmin(array):g} .. "
            f"{np.nanmax(array):g}"
        )
    return array


def encode(values: np.ndarray, suffix: str) -> bytes:
    """The bytes of a raw ``suffix`` file (``.r16``, ``.raw``, ``.r32``) of (H, W) values in [0, 1]."""
    if RAW_TYPES[suffix] == "<u2":
        return integer_codes(values, 16).astype("<u2").tobytes()
    return np.asarray(values, dtype="<f4").tobytes()


def decode(data: bytes, suffix: str, shape: tuple[int, int]) -> np.ndarray:
    """(H, W) float32 values in [0, 1] of the raw ``suffix`` file ``data`` (``codes / 65535`` for 16-bit)."""
    samples = np.frombuffer(data, dtype=RAW_TYPES[suffix]).reshape(shape)
    if RAW_TYPES[suffix] == "<u2":
        return samples.astype(np.float32) / np.float32(65535.0)
    return samples.astype(np.float32)


@dataclass(frozen=True)
class Heightmap:
    """A heightmap read back: ``values`` (H, W) float32 in [0, 1] and what its sidecar says."""

    values: np.ndarray
    height_range: tuple[float, float] | None
    unit: str
    sidecar: dict = field(default_factory=dict)

    @property
    def cell_size(self) -> tuple[float, float] | None:
        """``(dy, dx)`` between rows and between columns as the sidecar records them (``cell_size: {x, y}``,
        checked when read), None without."""
        spacing = self.sidecar.get("cell_size")
        return None if spacing is None else (float(spacing["y"]), float(spacing["x"]))

    @property
    def heights(self) -> np.ndarray:
        """The heights ``low + v (high - low)`` (float64; the values themselves without a height range)."""
        if self.height_range is None:
            return self.values.astype(np.float64)
        low, high = self.height_range
        return low + self.values.astype(np.float64) * (high - low)


def describe(
    shape: tuple[int, int],
    suffix: str,
    height_range: tuple[float, float],
    unit: str,
    settings: dict | None,
    row_order: str,
    import_settings: dict | None = None,
) -> dict:
    """The sidecar of a ``shape`` heightmap in ``suffix`` format (JSON-ready)."""
    samples = {"<u2": "uint16 little-endian, round(v * 65535)", "<f4": "float32 little-endian v"}
    sample = samples[RAW_TYPES[suffix]] if suffix in RAW_TYPES else FORMATS[suffix]
    record = {
        "noisewright_heightmap": SIDECAR_VERSION,
        "format": suffix[1:],
        "width": int(shape[1]),
        "height": int(shape[0]),
        "samples": sample,
        "row_order": row_order,
        "height_range": [float(height_range[0]), float(height_range[1])],
        "height_unit": unit,
        "settings": settings or {},
    }
    if import_settings:
        record["import"] = import_settings
    return json.loads(json.dumps(record))


def _write_file(path: Path, values: np.ndarray, suffix: str) -> None:
    if suffix in RAW_TYPES:
        path.write_bytes(encode(values, suffix))
    else:
        write_image(path, values, 16)


@dataclass(frozen=True)
class HeightmapOptions:
    """The keyword arguments of ``write_heightmap`` and ``write_tiles``: ``height_range`` is what 0 and 1 stand for
    in ``unit``; ``settings`` (JSON-ready, e.g. the noise spec) goes into the sidecar. With ``engine``
    (``engines.ENGINE_NAMES``) the size and format must suit it and the sidecar gets its import numbers, for heights
    in metres ``cell_size`` apart (one number, or ``(dy, dx)``: between rows and between columns; None: 1 m, not
    recorded); the sidecar records a given one as ``cell_size: {x, y}``. ``row_order`` describes the rows in the
    sidecar. ``splat``: weights (N, H, W) in [0, 1] written beside each file as ``splat_files(path, N)`` (RGBA PNG
    of ``splat_bits`` 8 or 16), in the same set."""

    height_range: tuple[float, float] = (0.0, 1.0)
    unit: str = ""
    settings: dict | None = None
    engine: str | Engine | None = None
    cell_size: float | tuple[float, float] | None = None
    row_order: str = ROW_ORDER
    splat: np.ndarray | None = None
    splat_bits: int = 8


@dataclass(frozen=True)
class _Checked:
    """A heightmap set's arguments, checked: its path, suffix, values, engine, height range, ``(dy, dx)`` cells and
    splat weights (None: none), and the options they come from."""

    path: Path
    suffix: str
    array: np.ndarray
    preset: Engine | None
    low_high: tuple[float, float]
    cell: tuple[float, float]
    weights: np.ndarray | None
    options: HeightmapOptions

    def record(self, shape: tuple[int, int], numbers: dict | None = None) -> dict:
        """The sidecar of a ``shape`` file of the set (``describe``, the engine's ``numbers``), with the cell size
        when one was given."""
        options = self.options
        record = describe(shape, self.suffix, self.low_high, options.unit, options.settings, options.row_order, numbers)
        return {**record, **_spacing_record(self.cell, options.cell_size)}


def _prepare(path: str | Path, values: object, options: HeightmapOptions) -> _Checked:
    path = Path(path)
    suffix = heightmap_format(path)
    array = _check_values(values)
    preset = find_engine(options.engine) if isinstance(options.engine, str) else options.engine
    if preset is not None:
        preset.check_format(suffix)
    if suffix not in RAW_TYPES:
        writer_module(suffix)
    low_high = _range(options.height_range)
    cell = _cell(1.0 if options.cell_size is None else options.cell_size)
    weights = _check_splat(options.splat, _shape(array), options.splat_bits)
    return _Checked(path, suffix, array, preset, low_high, cell, weights, options)


def splat_files(path: str | Path, layers: int) -> list[Path]:
    """The splat images beside the heightmap (or tile) ``path`` = ``NAME.ext`` for ``layers`` layers:
    ``NAME_splat0.png``, ``NAME_splat1.png``, ..., one per 4 layers."""
    path = Path(path)
    return [path.with_name(f"{path.stem}_splat{index}.png") for index in range(-(-layers // 4))]


def _check_splat(splat: object, shape: tuple[int, int], bits: object) -> np.ndarray | None:
    """``splat`` (None, or weights (N, H, W) in [0, 1] of the heights' ``shape``) as float32; ``ValueError`` or
    ``TypeError`` naming ``splat`` or ``splat_bits`` otherwise."""
    if splat is None:
        return None
    array = np.asarray(splat)
    if array.ndim != 3 or array.shape[0] < 1 or array.shape[1:] != shape:
        raise ValueError(f"splat: expected weights (layers, {shape[0]}, {shape[1]}) over the heights, got shape "
                         f"{array.shape}")  # fmt: skip
    if not np.issubdtype(array.dtype, np.floating):
        raise TypeError(f"splat: expected float weights in [0, 1], got {array.dtype}")
    array = array.astype(np.float32, copy=False)
    if not np.all(np.isfinite(array)) or array.min() < 0.0 or array.max() > 1.0:
        raise ValueError(f"splat: weights must lie in [0, 1], got {np.nanmin(array):g} .. {np.nanmax(array):g}")
    if bits not in PNG_BITS:
        raise ValueError(f"splat_bits: must be 8 or 16, got {bits!r}")
    writer_module(".png", "splat")
    return array


def _splat_record(splat: np.ndarray, bits: int) -> dict:
    return {"layers": int(splat.shape[0]), "bits": int(bits), "channels": "RGBA: layers 4k .. 4k + 3 in _splat{k}"}


def _write_splat(temporaries: list[Path], weights: np.ndarray, bits: int) -> None:

    for temporary, image in zip(temporaries, pack_rgba(weights), strict=True):
        write_image(temporary, image, bits)


def write_heightmap(
    path: str | Path,
    values: np.ndarray,
    *,
    beside: tuple[list[Path], Callable[[list[Path]], None]] | None = None,
    **options: Any,
) -> Path:
    """Write (H, W) ``values`` in [0, 1] to ``path`` (format by suffix, ``FORMATS``) and its sidecar, all or none.

    ``options``: ``HeightmapOptions`` (``height_range``, ``unit``, ``settings``, ``engine``, ``cell_size``,
    ``row_order``, ``splat``, ``splat_bits``). ``beside``: more files for the same set, ``(targets, write)`` with
    ``write(temporaries)`` writing one temporary per target (``water_maps.water_files``: the water level and flow
    map). Returns ``path``.
    """
    c = _prepare(path, values, HeightmapOptions(**options))
    numbers = None
    if c.preset is not None:
        c.preset.check_size(c.array.shape[1], c.array.shape[0])
        numbers = c.preset.import_settings(c.array.shape[1], c.array.shape[0], c.low_high, c.cell, c.suffix)
    record = c.record(_shape(c.array), numbers)
    splats = [] if c.weights is None else splat_files(c.path, c.weights.shape[0])
    if c.weights is not None:
        record["splat"] = {**_splat_record(c.weights, c.options.splat_bits), "files": [path.name for path in splats]}
    others, write_others = ([], None) if beside is None else beside
    with replacing_all([c.path, sidecar_path(c.path), *splats, *others]) as temporaries:
        _write_file(temporaries[0], c.array, c.suffix)
        temporaries[1].write_text(json.dumps(record, indent=1), encoding="utf-8")
        if c.weights is not None:
            _write_splat(temporaries[2 : 2 + len(splats)], c.weights, c.options.splat_bits)
        if write_others is not None:
            write_others(temporaries[2 + len(splats) :])
    return c.path


def _shape(array: np.ndarray) -> tuple[int, int]:
    return int(array.shape[0]), int(array.shape[1])


def _cell(cell_size: object) -> tuple[float, float]:
    """``(dy, dx)`` of ``cell_size``: one number (square cells) or ``(dy, dx)``, the distances between rows and
    between columns, each checked by the ``CELL_SIZE`` row."""
    if isinstance(cell_size, (tuple, list)):
        if len(cell_size) != 2:
            raise TypeError(f"cell_size: expected a number or (dy, dx), got {len(cell_size)} values")
        return float(CELL_SIZE.check(cell_size[0])), float(CELL_SIZE.check(cell_size[1]))  # type: ignore[arg-type]
    step = float(CELL_SIZE.check(cell_size))  # type: ignore[arg-type]
    return step, step


def _spacing_record(cell: tuple[float, float], given: object) -> dict:
    """The sidecar's ``cell_size`` when one was ``given``: the distances between columns (x) and between rows (y),
    in metres (the engines' unit); nothing otherwise."""
    return {} if given is None else {"cell_size": {"x": float(cell[1]), "y": float(cell[0])}}


def tile_windows(shape: tuple[int, int], tile: int, overlap: int = 1) -> list[tuple[int, int, tuple]]:
    """``(x, y, (row0, col0, rows, cols))`` of the tiles of side ``tile`` + ``overlap`` of an (H, W) grid, row by
    row; ``ValueError`` unless ``H - overlap`` and ``W - overlap`` are whole multiples of ``tile``."""
    tile = integer("tile", tile)
    overlap = integer("overlap", overlap)
    if overlap not in (0, 1):
        raise ValueError(f"overlap: must be 0 or 1 (samples neighbouring tiles share), got {overlap}")
    if tile < 1:
        raise ValueError(f"tile: must be >= 1, got {tile}")
    height, width = shape
    for name, side in (("width", width), ("height", height)):
        if side - overlap < tile or (side - overlap) % tile:
            raise ValueError(
                f"tile: the {name} {side} - overlap {overlap} = {side - overlap} is not a whole multiple of {tile}; "
                f"for {tile}-sample tiles use a {name} of k x {tile} + {overlap}"
            )
    across, down = (width - overlap) // tile, (height - overlap) // tile
    if across * down > MAX_TILES:
        raise ValueError(f"tile: {across * down} tiles exceed the limit of {MAX_TILES}; use larger tiles")
    side = tile + overlap
    return [(x, y, (y * tile, x * tile, side, side)) for y in range(down) for x in range(across)]


def tile_path(path: str | Path, x: int, y: int, across: int, down: int, engine: Engine | None = None) -> Path:
    """The file of tile (``x``, ``y``) of a set written to ``path``: ``NAME_x{x}_y{y}.ext``, or the engine's
    naming (Unity ``NAME_{x}_{z}`` with z counted from the last row)."""
    path = Path(path)
    stem = engine.tile_stem(path.stem, x, y, across, down) if engine else f"{path.stem}_x{x}_y{y}"
    return path.with_name(stem + path.suffix)


def check_tiles(
    shape: tuple[int, int], tile: int, overlap: int | None = None, engine: str | Engine | None = None
) -> tuple[list[tuple[int, int, tuple]], int]:
    """``(tile_windows(shape, tile, overlap), overlap)`` after checking the tiles suit ``engine``; ``overlap``
    defaults to the engine's (1 without one). ``ValueError`` naming ``tile`` or ``overlap`` otherwise."""
    preset = find_engine(engine) if isinstance(engine, str) else engine
    overlap = (preset.tile_overlap if preset else 1) if overlap is None else overlap
    windows = tile_windows(shape, tile, overlap)
    if preset is not None:
        if overlap != preset.tile_overlap:
            raise ValueError(f"overlap: {preset.title} tiles overlap by {preset.tile_overlap}, got {overlap}")
        preset.check_tile(tile)
    return windows, overlap


def write_tiles(
    path: str | Path,
    values: np.ndarray,
    tile: int,
    overlap: int | None = None,
    *,
    progress: Callable[[int, int], None] | None = None,
    **options: Any,
) -> list[Path]:
    """Cut (H, W) ``values`` into tiles (``tile_windows``) and write each with its sidecar, plus the set's
    sidecar ``NAME.ext.json`` listing them; all files or none. ``options``: ``HeightmapOptions``, as
    ``write_heightmap``'s. ``overlap`` defaults to the engine's (1 without one); every tile shares the one
    ``height_range``, so heights match across seams. ``splat``: weights (N, H, W) in [0, 1] cut from the same
    windows and written beside each tile as ``splat_files(tile, N)``, in the same set. ``progress(done, total)`` is
    called after each tile; an exception it raises stops the set, and no file is written. Returns the tile paths,
    row by row."""
    c = _prepare(path, values, HeightmapOptions(**options))
    windows, overlap = check_tiles(_shape(c.array), tile, overlap, c.preset)
    across, down = windows[-1][0] + 1, windows[-1][1] + 1
    tiles: list[Path] = []
    targets: list[Path] = []
    records: list[dict] = []
    listing = []
    for x, y, (row0, col0, rows, cols) in windows:
        target = tile_path(c.path, x, y, across, down, c.preset)
        numbers = None
        if c.preset is not None and not c.preset.tile_sizes:  # an engine's tiles of regions: no numbers each
            numbers = c.preset.import_settings(cols, rows, c.low_high, c.cell, c.suffix)
        records.append(c.record((rows, cols), numbers))
        splats = [] if c.weights is None else splat_files(target, c.weights.shape[0])
        tiles.append(target)
        targets += [target, sidecar_path(target), *splats]
        entry: dict[str, Any] = {"file": target.name, "x": x, "y": y, "row": row0, "column": col0}
        listing.append({**entry, "splat": [name.name for name in splats]} if splats else entry)
    whole = c.record(_shape(c.array))
    whole["tiles"] = {"tile": tile, "overlap": overlap, "across": across, "down": down, "files": listing}
    if c.weights is not None:
        whole["splat"] = _splat_record(c.weights, c.options.splat_bits)
    if c.preset is not None:
        whole["tiles"]["engine"] = c.preset.title
    per_tile = len(targets) // len(windows)
    bits = c.options.splat_bits
    with replacing_all([*targets, sidecar_path(c.path)]) as temporaries:
        for (_, _, (row0, col0, rows, cols)), record, index in zip(
            windows, records, range(0, len(targets), per_tile), strict=True
        ):
            window = (slice(row0, row0 + rows), slice(col0, col0 + cols))
            _write_file(temporaries[index], c.array[window], c.suffix)
            temporaries[index + 1].write_text(json.dumps(record, indent=1), encoding="utf-8")
            if c.weights is not None:
                _write_splat(temporaries[index + 2 : index + per_tile], c.weights[(slice(None), *window)], bits)
            if progress is not None:
                progress(index // per_tile + 1, len(windows))
        temporaries[-1].write_text(json.dumps(whole, indent=1), encoding="utf-8")
    return tiles


def _read_sidecar(path: Path) -> dict:
    sidecar = sidecar_path(path)
    if not sidecar.is_file():
        return {}
    try:
        size = sidecar.stat().st_size
        if size > MAX_SIDECAR_BYTES:
            raise ValueError(f"{size} bytes, more than a sidecar holds ({MAX_SIDECAR_BYTES})")
        record = json.loads(sidecar.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as error:  # RecursionError: JSON nested too deep
        raise ValueError(f"path: cannot read the sidecar {str(sidecar)!r}: {error}") from None
    if not isinstance(record, dict):
        raise ValueError(f"path: the sidecar {str(sidecar)!r} is not a JSON object")
    return record


def _raw_shape(path: Path, suffix: str, shape: object, record: dict) -> tuple[int, int]:
    itemsize = np.dtype(RAW_TYPES[suffix]).itemsize
    size = path.stat().st_size
    if size % itemsize:
        raise ValueError(f"path: {str(path)!r} has {size} bytes, not a whole number of {itemsize}-byte samples")
    samples = size // itemsize
    if shape is None and "width" in record and "height" in record:
        shape = (record["height"], record["width"])
        what, name = "the sidecar's height and width", "path"  # the user gave the path, not the shape
    else:
        what, name = "shape", "shape"
    if shape is None:
        side = math.isqrt(samples)
        if side * side != samples:
            raise ValueError(
                f"shape: {str(path)!r} holds {samples} samples, not a square; give shape=(height, width) "
                f"(its sidecar {sidecar_path(path).name} is missing)"
            )
        return side, side
    if not isinstance(shape, (tuple, list)) or len(shape) != 2:
        raise TypeError(f"shape: expected (height, width), got {shape!r}")
    rows, cols = integer("shape", shape[0]), integer("shape", shape[1])
    if rows < 1 or cols < 1 or rows * cols != samples:
        raise ValueError(
            f"{name}: {what} ({rows}, {cols}) needs {rows * cols * itemsize} bytes, but {str(path)!r} has {size} "
            f"({samples} samples)"
        )
    return rows, cols


def _grey(values: np.ndarray, path: Path) -> np.ndarray:
    if values.ndim == 3:
        channels = values[..., :3]
        if not np.array_equal(channels, np.broadcast_to(channels[..., :1], channels.shape)):
            raise ValueError(f"path: {str(path)!r} is a colour image; a heightmap has one grey channel")
        values = channels[..., 0]
    if values.ndim != 2:
        raise ValueError(f"path: {str(path)!r} is not a 2D image (shape {values.shape})")
    return values


def _read_values(path: Path, suffix: str, shape: object, record: dict) -> tuple[np.ndarray, tuple | None]:
    """The [0, 1] values of one file and, for a TIFF of heights outside [0, 1] (a GeoTIFF DEM), its range."""
    if suffix in RAW_TYPES:
        rows_cols = _raw_shape(path, suffix, shape, record)
        return decode(path.read_bytes(), suffix, rows_cols), None
    if suffix in (".tif", ".tiff"):
        stored = _grey(np.asarray(read_image(path)), path)  # tifffile's samples as stored
        whole = np.issubdtype(stored.dtype, np.integer)
        if whole and stored.dtype.itemsize <= 2 and np.issubdtype(stored.dtype, np.unsignedinteger):
            return stored.astype(np.float32) / np.float32(np.iinfo(stored.dtype).max), None
        heights = stored.astype(np.float64)
        if not np.all(np.isfinite(heights)):
            raise ValueError(f"path: {str(path)!r} has samples that are not finite numbers (no-data?)")
        if whole or heights.min() < 0.0 or heights.max() > 1.0:
            return normalize(heights)
        return stored.astype(np.float32), None
    values = _grey(np.asarray(read_image(path), dtype=np.float32), path)
    return values, None


def sidecar_spacings(sidecar: dict, shape: tuple[int, int]) -> tuple[float, float] | None:
    """``(dy, dx)``, the metres between rows and between columns of a ``shape`` heightmap that its ``sidecar``
    gives: its ``cell_size`` (``{x, y}``), else the engine import numbers (Terrain3D's vertex spacing, Unity's
    terrain size over its quads, Unreal's X and Y scale in cm); None without them. ``SidecarError`` (``path:``)
    naming the field when they are not numbers > 0 (a damaged sidecar)."""
    rows, columns = shape
    numbers = sidecar.get("import", {})
    try:
        if "cell_size" in sidecar:
            pair = (sidecar["cell_size"]["y"], sidecar["cell_size"]["x"])
            field = "cell_size"
        elif not isinstance(numbers, dict):
            return None
        elif "vertex_spacing" in numbers:
            pair, field = (numbers["vertex_spacing"],) * 2, "import.vertex_spacing"
        elif "Terrain Size" in numbers and rows > 1 and columns > 1:
            size = numbers["Terrain Size"]
            pair, field = (float(size[2]) / (rows - 1), float(size[0]) / (columns - 1)), "import.Terrain Size"
        elif "Scale (cm)" in numbers:
            scale = numbers["Scale (cm)"]
            pair, field = (float(scale[1]) / 100.0, float(scale[0]) / 100.0), "import.Scale (cm)"
        else:
            return None
        spacing = (float(pair[0]), float(pair[1]))
    except (TypeError, ValueError, IndexError, KeyError) as error:
        raise SidecarError(f"path: the sidecar is damaged: its spacing cannot be read ({error!r})") from None
    if not all(0.0 < value < math.inf for value in spacing):
        raise SidecarError(f"path: the sidecar is damaged: {field} gives a spacing of {spacing[1]:g} x "
                           f"{spacing[0]:g}; it must be > 0")  # fmt: skip
    return spacing


def sidecar_spacing(sidecar: dict, columns: int, rows: int | None = None) -> float | None:
    """The one spacing in metres of the samples of a heightmap ``columns`` wide (and ``rows`` high) that its
    ``sidecar`` gives (``sidecar_spacings``), None without one; ``ValueError`` starting with ``path:`` when its
    cells are not square."""
    spacing = sidecar_spacings(sidecar, (columns if rows is None else rows, columns))
    if spacing is None:
        return None
    if spacing[0] != spacing[1]:
        raise ValueError(f"path: its sidecar gives cells {spacing[1]:g} between columns by {spacing[0]:g} between "
                         "rows, not square")  # fmt: skip
    return spacing[1]


def read_heightmap(path: str | Path, shape: tuple[int, int] | None = None) -> Heightmap:
    """Read a heightmap written by ``write_heightmap`` or ``write_tiles`` (or by another tool) back.

    Raw files take their (height, width) from ``shape``, else from their sidecar, else a square of their
    sample count. PNG codes become ``code / 65535`` (``/ 255`` for 8-bit), EXR/TIFF floats stay as they are; a
    TIFF of heights outside [0, 1] (a GeoTIFF DEM, read with ``tifffile``) is mapped to [0, 1] with its minimum
    and maximum as the height range. ``path`` may name a tile set by its set sidecar (``NAME.ext`` need not
    exist): the tiles are read and put back together (overlapping samples from the later tile). Sidecars are
    untrusted: every field used is checked (``SidecarError``, a ``ValueError`` starting with ``path:`` that names
    the sidecar and the field) before anything is allocated, a set's size within ``MAX_SAMPLES``.
    """
    path = Path(path)
    suffix = heightmap_format(path, "path")
    record = _read_sidecar(path)
    if "tiles" in record and not path.exists():
        return _read_tiles(path, suffix, record)
    if not path.is_file():
        raise FileNotFoundError(f"path: no file {str(path)!r}")
    return _read_one(path, suffix, shape, record)


def _read_one(path: Path, suffix: str, shape: object, record: dict) -> Heightmap:
    """One file ``path`` (not a set) with its checked sidecar ``record``."""
    sidecar = _Sidecar(path, record)
    if "width" in record or "height" in record:
        sidecar.size()
    if "cell_size" in record:
        sidecar.spacing()
    values, found_range = _read_values(path, suffix, shape, record)
    if not np.isfinite(values).all():  # a float file's NaN or infinity (no-data): refused by every reader alike
        raise ValueError(f"path: {str(path)!r} has samples that are not finite numbers (no-data?)")
    if found_range is None and "height_range" in record:
        found_range = sidecar.height_range()
    return Heightmap(np.ascontiguousarray(values, dtype=np.float32), found_range, sidecar.unit(), record)


MAX_SIDECAR_BYTES = 1 << 24
"""Largest sidecar read (16 MiB; a set of ``MAX_TILES`` tiles with their splat files needs about 1 MiB)."""
MAX_SAMPLES = 1 << 28
"""Largest heightmap a sidecar may claim, in samples (16384 x 16384, 1 GiB of float32): a tile set's size is
checked against it before its grid is allocated."""
SET_KEYS = frozenset({"tile", "overlap", "across", "down", "files"})
"""The keys of a tile set's ``tiles`` record (``write_tiles``), besides the optional ``engine``."""
TILE_KEYS = frozenset({"file", "x", "y", "row", "column"})
"""The keys of each tile's entry in ``tiles.files``, besides the optional ``splat`` (its splat files)."""


class SidecarError(ValueError):
    """A sidecar that cannot be what ``write_heightmap``/``write_tiles`` wrote: the message starts with ``path:``
    and names the sidecar and its field."""


class _Sidecar:
    """Checked reads of the fields of the sidecar ``record`` of ``path`` (untrusted: hand-edited, damaged)."""

    def __init__(self, path: Path, record: dict) -> None:
        self.path, self.record, self.name = path, record, sidecar_path(path).name

    def fail(self, field: str, problem: str) -> SidecarError:
        return SidecarError(f"path: the sidecar {self.name!r} is damaged: {field} {problem}")

    def keys(self, where: str, found: object, required: frozenset, optional: frozenset = frozenset()) -> dict:
        """``found`` if it is a JSON object with every ``required`` key and no others than ``optional``."""
        if not isinstance(found, dict):
            raise self.fail(where, f"must be a JSON object, got {type(found).__name__}")
        missing = sorted(required - set(found))
        if missing:
            raise self.fail(where, f"has no {', '.join(map(repr, missing))}")
        extra = sorted(set(found) - required - optional)
        if extra:
            raise self.fail(where, f"has unknown keys {', '.join(map(repr, extra))} (allowed: "
                            f"{', '.join(sorted(required | optional))})")  # fmt: skip
        return found

    def whole(self, where: str, value: object, low: int, high: int) -> int:
        """``value`` if it is a whole number in ``[low, high]``."""
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(where, f"must be a whole number, got {value!r}")
        if not low <= value <= high:
            raise self.fail(where, f"must be between {low} and {high}, got {value}")
        return value

    def size(self) -> tuple[int, int]:
        """``(height, width)``: whole numbers >= 1, at most ``MAX_SAMPLES`` samples together."""
        self.keys("the record", self.record, frozenset({"width", "height"}), frozenset(self.record))
        height = self.whole("height", self.record["height"], 1, MAX_SAMPLES)
        width = self.whole("width", self.record["width"], 1, MAX_SAMPLES)
        if height * width > MAX_SAMPLES:
            raise self.fail("width x height", f"= {width} x {height} exceeds the limit of {MAX_SAMPLES} samples")
        return height, width

    def height_range(self) -> tuple[float, float]:
        value = self.record.get("height_range")
        if not isinstance(value, list) or len(value) != 2:
            raise self.fail("height_range", f"must be [low, high], got {value!r}")
        try:
            return _range(tuple(value))
        except (TypeError, ValueError) as error:
            raise self.fail("height_range", str(error).removeprefix("height_range: ")) from None

    def spacing(self) -> None:
        """Check ``cell_size``: ``{"x": dx, "y": dy}``, both finite and > 0."""
        spacing = self.keys("cell_size", self.record["cell_size"], frozenset({"x", "y"}))
        for axis in ("x", "y"):
            value = spacing[axis]
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 < value < math.inf:
                raise self.fail(f"cell_size.{axis}", f"must be a number > 0, got {value!r}")

    def unit(self) -> str:
        unit = self.record.get("height_unit", "")
        if not isinstance(unit, str):
            raise self.fail("height_unit", f"must be a string, got {unit!r}")
        return unit


def _read_tiles(path: Path, suffix: str, record: dict) -> Heightmap:
    """The tile set whose set sidecar is ``record``: every field checked before the grid is allocated (its size,
    the tiles' names, places and sizes), each tile read as one file (never as a set again)."""
    sidecar = _Sidecar(path, record)
    rows, columns = sidecar.size()
    if "cell_size" in record:
        sidecar.spacing()
    low_high = sidecar.height_range()
    unit = sidecar.unit()
    if record.get("format", suffix[1:]) != suffix[1:]:
        raise sidecar.fail("format", f"is {record['format']!r}, but the set is named {path.name!r}")
    tiles = sidecar.keys("tiles", record["tiles"], SET_KEYS, frozenset({"engine"}))
    overlap = sidecar.whole("tiles.overlap", tiles["overlap"], 0, 1)
    side = sidecar.whole("tiles.tile", tiles["tile"], 1, max(rows, columns)) + overlap
    files = tiles["files"]
    if not isinstance(files, list) or not 1 <= len(files) <= MAX_TILES:
        raise sidecar.fail("tiles.files", f"must list 1 to {MAX_TILES} tiles, got {_describe(files)}")
    if len(files) * min(side, rows) * min(side, columns) < rows * columns:
        raise sidecar.fail("tiles.files", f"lists {len(files)} tiles of {side} x {side} samples, too few to cover "
                           f"its {columns} x {rows} grid")  # fmt: skip
    entries = []
    for index, entry in enumerate(files):
        where = f"tiles.files[{index}]"
        entry = sidecar.keys(where, entry, TILE_KEYS, frozenset({"splat"}))
        name = entry["file"]
        if not isinstance(name, str) or Path(name).name != name or name in ("", ".", "..") or "\\" in name:
            raise sidecar.fail(f"{where}.file", f"must be a file name beside the sidecar, got {name!r}")
        if Path(name).suffix.lower() != suffix:
            raise sidecar.fail(f"{where}.file", f"{name!r} is not a {suffix} file as the set is")
        row = sidecar.whole(f"{where}.row", entry["row"], 0, rows - 1)
        column = sidecar.whole(f"{where}.column", entry["column"], 0, columns - 1)
        if not path.with_name(name).is_file():
            raise FileNotFoundError(f"path: the tile {name!r} listed in {sidecar.name!r} is missing")
        entries.append((name, row, column))
    names = [name for name, _, _ in entries]
    if len(set(names)) != len(names):
        twice = next(name for name in names if names.count(name) > 1)
        raise sidecar.fail("tiles.files", f"lists {twice!r} twice")
    values = np.empty((rows, columns), dtype=np.float32)
    covered = np.zeros(values.shape, dtype=bool)
    for name, row, column in entries:
        tile = path.with_name(name)
        piece = _read_one(tile, suffix, None, _read_sidecar(tile)).values
        if piece.shape != (min(side, rows), min(side, columns)):
            raise ValueError(f"path: the tile {name!r} is {piece.shape[1]}x{piece.shape[0]} samples; the set's tiles "
                             f"are {side}x{side}")  # fmt: skip
        if row + piece.shape[0] > rows or column + piece.shape[1] > columns:
            raise ValueError(f"path: tile {name!r} does not fit the set's {columns}x{rows}")
        values[row : row + piece.shape[0], column : column + piece.shape[1]] = piece
        covered[row : row + piece.shape[0], column : column + piece.shape[1]] = True
    if not covered.all():
        raise ValueError(f"path: the tiles listed in {sidecar.name} do not cover the whole grid")
    return Heightmap(values, low_high, unit, record)


def _describe(value: object) -> str:
    return f"{len(value)}" if isinstance(value, list) else f"{type(value).__name__} {value!r}"[:80]
