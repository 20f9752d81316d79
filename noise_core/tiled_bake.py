"""Bakes of any size, tile by tile on a ``dask.distributed`` cluster: a Zarr store or a tile set, and an overview.

``python -m noise_core bake ... --out world.zarr`` (or ``--out 'tiles/{row}_{col}.png'``) lands here
(:func:`bake_from_args`). The (H, W) grid is cut into ``tile`` x ``tile`` windows; each tile is one task that
computes its window (:func:`noise_core.scale.compute_window`, bit for bit that part of ``evaluate_grid``), maps it
from the kind's range to [0, 1] (``ranges.to_unit``, as the single-image bake), writes it and returns only a small
block of the overview. So memory is bounded by the tiles in flight (a few times a tile per worker thread), never
by the image. Workers write the output themselves: on a multi-machine cluster it must be on a file system every
worker mounts at the same path.

Outputs, and how a re-run knows which tiles are finished (resume):

- **Zarr** (``.zarr``): one array, chunks = tiles, float32 values in [0, 1] or uint16 codes ``round(v * 65535)``
  (``bits=16``, the PNG encoding). Zarr writes a chunk as one file but not atomically, so a tile counts as finished
  only when its marker ``<store>/.noisewright-done/<row>.<col>`` exists, created after the chunk was written; an
  unfinished tile's chunk is deleted and written again.
- **Tile set** (a pattern with ``{row}`` and ``{col}``, tile indices; ``.png`` 16-bit, ``.exr``/``.tif`` float32):
  each file is written whole or not at all (``files.replacing``), so a tile is finished when its file exists.

The bake's settings (spec, size, tile, encoding, range) are stored with the output (the Zarr array's
``noisewright`` attribute; ``.noisewright-bake.json`` in the tile set's folder): a re-run with the same settings
resumes, different settings are an error instead of a mixed output. A failed tile (full disk, unwritable folder)
stops the bake with an error saying how many tiles are finished; they are kept.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import string
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

import numpy as np

from ._version import __version__
from .io.files import ArgumentFileError, check_writable, replacing
from .io.images import FORMATS, image_format, read_image, write_image, writer_module
from .ranges import to_unit, value_range
from .scale import DEFAULT_CHUNK, compute_window, require
from .spec import NoiseSpec

MAX_SIDE = 1 << 20
"""Largest width or height of a tiled bake (1,048,576 pixels)."""
MAX_TILE = 16384
"""Largest tile side: one tile is one ``evaluate_grid`` window (at most 2**28 samples)."""
DEFAULT_TILE = DEFAULT_CHUNK
DEFAULT_OVERVIEW_SIZE = 1024
MARKERS = ".noisewright-done"
MANIFEST = ".noisewright-bake.json"
TILE_FIELDS = {"row", "col"}


class BakeError(RuntimeError):
    """A tile failed for a reason other than writing it (say its workers kept dying); finished tiles are kept."""


def _differences(found: object, wanted: dict) -> str:
    """Which settings of a stored manifest differ from this bake's, as ``name: stored -> now``."""
    if not isinstance(found, dict):
        return "no noise_core settings stored"
    flat = {}
    for source, settings in (("stored", found), ("now", wanted)):
        for key, value in settings.items():
            items = value.items() if isinstance(value, dict) else [(None, value)]
            for field, item in items:
                flat.setdefault(key if field is None else f"{key}.{field}", {})[source] = item
    changed = [
        f"{name}: {v.get('stored')!r} -> {v.get('now')!r}"
        for name, v in flat.items()
        if len(set(map(repr, v.values()))) > 1 or len(v) == 1
    ]
    return ", ".join(changed)


def _encode(unit: np.ndarray, bits: int) -> np.ndarray:
    """What is stored: float32 values in [0, 1], or the 16-bit codes ``round(v * 65535)`` (as PNG files)."""
    return np.round(unit * 65535.0).astype(np.uint16) if bits == 16 else unit


def _decode(stored: np.ndarray) -> np.ndarray:
    """The [0, 1] values of stored data (``images.read_image``'s conversion for 16-bit codes)."""
    return stored.astype(np.float32) / 65535.0 if stored.dtype == np.uint16 else stored


@dataclasses.dataclass(frozen=True)
class ZarrOutput:
    """A Zarr array (format 3), one chunk per tile; finished tiles have a marker file."""

    path: str
    bits: int

    @property
    def description(self) -> str:
        return f"Zarr {'uint16' if self.bits == 16 else 'float32'}"

    def _marker(self, row: int, col: int) -> Path:
        return Path(self.path) / MARKERS / f"{row}.{col}"

    def prepare(self, shape: tuple[int, int], tile: int, manifest: dict, create: bool = True) -> None:
        """Check an existing store holds this bake; create it (``create``) or check its folder is writable."""
        zarr = require("zarr")
        store = Path(self.path)
        if store.exists():
            try:
                array = zarr.open_array(store=self.path, mode="r")
            except Exception as error:  # zarr raises several types for "not an array here"
                raise ValueError(
                    f"out: {self.path!r} exists and is not a Zarr array ({error}); remove it or choose another --out"
                ) from None
            found = array.attrs.get("noisewright")
            if found != manifest:
                raise ValueError(
                    f"out: {self.path!r} holds a bake with other settings ({_differences(found, manifest)}); "
                    "remove it or choose another --out to bake these"
                )
        else:
            if not store.parent.is_dir():
                raise OSError(f"folder {str(store.parent)!r} does not exist")
            check_writable(str(store.parent))
            if not create:
                return
            zarr.create_array(
                store=self.path,
                shape=shape,
                chunks=(tile, tile),
                dtype=np.uint16 if self.bits == 16 else np.float32,
                fill_value=0,
                attributes={"noisewright": manifest},
                zarr_format=3,
            )
        (store / MARKERS).mkdir(exist_ok=True)
        check_writable(str(store / MARKERS))

    def is_done(self, row: int, col: int) -> bool:
        return self._marker(row, col).is_file()

    def write(self, row: int, col: int, window: tuple[int, int, int, int], unit: np.ndarray) -> np.ndarray:
        zarr = require("zarr")
        array = zarr.open_array(store=self.path, mode="r+")
        # A chunk left by an interrupted write may be cut short: remove it, so an edge chunk (which zarr
        # updates by reading it first) is written from scratch.
        (Path(self.path) / array.metadata.encode_chunk_key((row, col))).unlink(missing_ok=True)
        stored = _encode(unit, self.bits)
        row0, col0, height, width = window
        array[row0 : row0 + height, col0 : col0 + width] = stored
        self._marker(row, col).touch()
        return stored

    def read(self, row: int, col: int, window: tuple[int, int, int, int]) -> np.ndarray:
        zarr = require("zarr")
        row0, col0, height, width = window
        return zarr.open_array(store=self.path, mode="r")[row0 : row0 + height, col0 : col0 + width]


@dataclasses.dataclass(frozen=True)
class TileSetOutput:
    """One image file per tile, named by ``pattern`` with ``{row}`` and ``{col}`` (tile indices)."""

    pattern: str

    @property
    def description(self) -> str:
        return FORMATS[image_format(Path(self.pattern))] + " tiles"

    @property
    def bits(self) -> int:
        return 16 if image_format(Path(self.pattern)) == ".png" else 32

    @property
    def root(self) -> Path:
        """The folder of the pattern before its first placeholder (it holds the manifest)."""
        prefix = self.pattern[: self.pattern.index("{")]
        return Path(prefix) if prefix.endswith(("/", os.sep)) else Path(prefix).parent

    def tile_path(self, row: int, col: int) -> Path:
        return Path(self.pattern.format(row=row, col=col))

    def prepare(self, shape: tuple[int, int], tile: int, manifest: dict, create: bool = True) -> None:
        """Check every tile has its own file name, the folder is writable and any earlier tiles are of this bake;
        write the manifest (``create``)."""
        self.check_names(shape, tile)
        root = self.root
        if not root.is_dir():
            raise OSError(f"folder {str(root)!r} does not exist")
        check_writable(str(root))
        manifest_path = root / MANIFEST
        if manifest_path.is_file():
            found = json.loads(manifest_path.read_text(encoding="utf-8"))
            if found != manifest:
                raise ValueError(
                    f"out: {str(root)!r} holds tiles of a bake with other settings ({_differences(found, manifest)}; "
                    f"see {manifest_path}); "
                    "remove them or choose another --out to bake these"
                )
            return
        if not create:
            return
        with replacing(manifest_path) as temporary:
            temporary.write_text(json.dumps(manifest, indent=1), encoding="utf-8")

    def check_names(self, shape: tuple[int, int], tile: int) -> None:
        """``ValueError`` naming ``out`` when two tiles of the grid get one file name (``{row}{col}.png``: tiles
        (1, 11) and (11, 1) are both ``111.png``) or a tile would be written over the manifest."""
        seen = {os.path.normcase(self.root / MANIFEST): None}
        for row, col, _ in tiles(shape, tile):
            name = os.path.normcase(self.tile_path(row, col))
            other = seen.setdefault(name, (row, col))
            if other != (row, col):
                what = "the bake's manifest" if other is None else f"tile {other}"
                raise ValueError(
                    f"out: the tile pattern {self.pattern!r} names tile {(row, col)} and {what} alike "
                    f"({str(self.tile_path(row, col))!r}); separate the indices, as in '{{row}}_{{col}}.png'"
                )

    def is_done(self, row: int, col: int) -> bool:
        return self.tile_path(row, col).is_file()

    def write(self, row: int, col: int, window: tuple[int, int, int, int], unit: np.ndarray) -> np.ndarray:
        path = self.tile_path(row, col)
        path.parent.mkdir(parents=True, exist_ok=True)
        with replacing(path) as temporary:
            write_image(temporary, unit)
        return _encode(unit, self.bits)

    def read(self, row: int, col: int, window: tuple[int, int, int, int]) -> np.ndarray:
        values = read_image(self.tile_path(row, col), "out")
        return _encode(values, 32) if self.bits == 32 else np.round(values * 65535.0).astype(np.uint16)


Output = ZarrOutput | TileSetOutput


def is_tiled(out: str | os.PathLike[str]) -> bool:
    """Whether ``out`` names a tiled output: a ``.zarr`` store or a tile pattern with ``{row}`` and ``{col}``."""
    text = str(out)
    return text.rstrip("/" + os.sep).lower().endswith(".zarr") or "{" in text


def make_output(out: str | os.PathLike[str], bits: int | None) -> Output:
    """The output ``out`` names (``ValueError`` starting with ``out:`` or ``bits:`` for a bad one)."""
    text = str(out)
    if text.rstrip("/" + os.sep).lower().endswith(".zarr"):
        if bits not in (None, 16, 32):
            raise ValueError(f"bits: must be 16 or 32, got {bits!r}")
        return ZarrOutput(os.path.abspath(text.rstrip("/" + os.sep)), 32 if bits is None else bits)
    for pattern in (text, os.path.abspath(text)):  # the absolute one: a '..' after a placeholder removes it
        try:
            fields = {name for _, name, _, _ in string.Formatter().parse(pattern) if name is not None}
        except ValueError as error:
            raise ValueError(f"out: bad tile pattern {text!r}: {error}") from None
        if fields != TILE_FIELDS:
            raise ValueError(
                f"out: a tile pattern needs exactly the placeholders {{row}} and {{col}} (tile indices) in the "
                f"path of its files, got {text!r}"
            )
    output = TileSetOutput(os.path.abspath(text))
    suffix = image_format(Path(text))
    writer_module(suffix)
    if bits is not None and bits != output.bits:
        raise ValueError(f"bits: {suffix} tiles are {output.bits}-bit; --bits applies to .zarr outputs")
    return output


def tiles(shape: tuple[int, int], tile: int) -> list[tuple[int, int, tuple[int, int, int, int]]]:
    """``(row, col, window)`` of every tile of an (H, W) grid, row by row; edge tiles are cut to the grid."""
    height, width = shape
    return [
        (row, col, (row * tile, col * tile, min(tile, height - row * tile), min(tile, width - col * tile)))
        for row in range(math.ceil(height / tile))
        for col in range(math.ceil(width / tile))
    ]


def _overview_block(
    values: np.ndarray, window: tuple[int, int, int, int], factor: int
) -> tuple[int, int, np.ndarray, np.ndarray]:
    """Sums and counts of ``values`` (a tile at ``window``) over the ``factor`` x ``factor`` overview pixels.

    Returns the overview row and column of the first block, the sums (float64) and the pixel counts.
    """
    row0, col0, height, width = window
    row_starts = np.unique(np.r_[0, np.arange((-row0) % factor, height, factor)])
    col_starts = np.unique(np.r_[0, np.arange((-col0) % factor, width, factor)])
    sums = np.add.reduceat(np.add.reduceat(values, row_starts, axis=0, dtype=np.float64), col_starts, axis=1)
    counts = np.outer(np.diff(np.r_[row_starts, height]), np.diff(np.r_[col_starts, width]))
    return row0 // factor, col0 // factor, sums, counts


def bake_tile(
    spec: NoiseSpec,
    shape: tuple[int, int],
    output: Output,
    row: int,
    col: int,
    window: tuple[int, int, int, int],
    overview_factor: int,
    finished: bool,
) -> tuple[int, int, bool, tuple | None]:
    """One task: compute, map and write tile ``(row, col)`` (or, if ``finished``, read it back for the overview).

    Returns ``(row, col, written, overview block or None)``. Runs on a worker with one Numba thread: Dask runs
    one task per worker thread.
    """
    if finished:
        stored = output.read(row, col, window)
    elif not isinstance(spec, NoiseSpec):  # a tile source (``TileSource``): a terrain's plan
        import numba

        numba.set_num_threads(1)
        stored = output.write(row, col, window, spec.compute(shape, window))
    else:
        unit = to_unit(spec, compute_window(spec, shape, window, threads=1))
        stored = output.write(row, col, window, unit)
    block = _overview_block(_decode(stored), window, overview_factor) if overview_factor else None
    return row, col, not finished, block


@dataclasses.dataclass
class BakeResult:
    """What a bake did: tiles written now, tiles found finished, the overview written (if any), seconds."""

    written: int
    skipped: int
    overview: Path | None
    seconds: float


def manifest(spec: NoiseSpec, shape: tuple[int, int], tile: int, output: Output) -> dict:
    """The settings stored with the output, compared on resume (JSON types)."""
    if not isinstance(spec, NoiseSpec):  # a tile source: its own settings
        settings = {"noise_core": __version__, "source": spec.settings(), "shape": list(shape), "tile": tile,
                    "encoding": output.description}  # fmt: skip
        return json.loads(json.dumps(settings))
    low, high = value_range(spec)
    settings = {
        "noise_core": __version__,
        "spec": dataclasses.asdict(spec),
        "shape": list(shape),
        "tile": tile,
        "encoding": output.description,
        "range": [low, high],
        "pixel": "[r, c] = noise at ((c + .5)/W, (r + .5)/H), mapped from range to [0, 1]",
    }
    return json.loads(json.dumps(settings))


class TileSource(Protocol):
    """What ``bake`` takes besides a ``NoiseSpec``: the values (float32 in [0, 1]) of a window of an (H, W) map,
    computed on a worker (``compute``), and its settings as JSON types (``settings``), stored and compared on
    resume (``noise_core.terrain.tiled.TerrainPlan``)."""

    def compute(self, shape: tuple[int, int], window: tuple[int, int, int, int]) -> np.ndarray: ...

    def settings(self) -> dict: ...


def bake(
    spec: NoiseSpec | TileSource,
    shape: tuple[int, int],
    out: str | os.PathLike[str],
    client,
    *,
    tile: int = DEFAULT_TILE,
    bits: int | None = None,
    overview: str | os.PathLike[str] | None = None,
    overview_size: int = DEFAULT_OVERVIEW_SIZE,
    progress: bool = True,
    on_tile: Callable[[int, int, bool], None] | None = None,
) -> BakeResult:
    """Bake ``spec`` (or a ``TileSource``) on an (H, W) grid into ``out`` tile by tile on the ``dask.distributed``
    ``client``.

    Finished tiles of an earlier run with the same settings are skipped. ``on_tile(done, total, written)`` is
    called in this process after each tile. A tile that cannot be written raises ``OSError`` (finished tiles are
    kept); a tile that fails otherwise raises :class:`BakeError`.
    """
    distributed = require("distributed")
    tqdm = require("tqdm").tqdm
    started = time.perf_counter()
    if not isinstance(tile, int) or isinstance(tile, bool) or not 1 <= tile <= MAX_TILE:
        raise ValueError(f"tile: must be a whole number between 1 and {MAX_TILE}, got {tile!r}")
    height, width = shape
    if not (1 <= height <= MAX_SIDE and 1 <= width <= MAX_SIDE):
        raise ValueError(f"shape: height and width must be between 1 and {MAX_SIDE}, got {shape!r}")
    output = make_output(out, bits)
    overview_path = None if overview is None else Path(overview)
    if overview_path is not None:
        writer_module(image_format(overview_path, "overview"), "overview")
        if not overview_path.parent.is_dir():
            raise ArgumentFileError(f"overview: folder {str(overview_path.parent)!r} does not exist")
        if not 1 <= overview_size <= MAX_TILE:
            raise ValueError(f"overview-size: must be between 1 and {MAX_TILE}, got {overview_size!r}")
    factor = 0 if overview_path is None else max(1, math.ceil(max(shape) / overview_size))
    output.prepare(shape, tile, manifest(spec, shape, tile, output))
    if overview_path is not None and isinstance(output, TileSetOutput):
        clash = os.path.normcase(os.path.abspath(overview_path))
        if any(os.path.normcase(output.tile_path(row, col)) == clash for row, col, _ in tiles(shape, tile)):
            raise ValueError(f"overview: {str(overview_path)!r} is the file of one of the tiles; name it apart")

    jobs = tiles(shape, tile)
    finished = {(row, col) for row, col, _ in jobs if output.is_done(row, col)}
    submit = [job for job in jobs if factor or (job[0], job[1]) not in finished]
    run = uuid.uuid4().hex[:12]
    futures = [
        client.submit(
            bake_tile,
            spec,
            shape,
            output,
            row,
            col,
            window,
            factor,
            (row, col) in finished,
            key=f"noise-tile-{run}-{row}-{col}",
            pure=False,
        )
        for row, col, window in submit
    ]
    if factor:
        sums = np.zeros((math.ceil(height / factor), math.ceil(width / factor)), dtype=np.float64)
        counts = np.zeros(sums.shape, dtype=np.int64)
    written = 0
    done = len(jobs) - len(submit)
    bar = tqdm(total=len(jobs), initial=done, unit="tile", desc=f"baking {out}", disable=None if progress else True)
    try:
        for future in distributed.as_completed(futures, loop=client.loop):
            row, col = (int(part) for part in str(future.key).rsplit("-", 2)[1:])
            try:
                _, _, wrote, block = future.result()
            except OSError as error:
                raise OSError(
                    f"tile ({row}, {col}) failed: {error}; {len(finished) + written} of {len(jobs)} tiles are "
                    "finished and kept: run the same command again to resume"
                ) from error
            except Exception as error:
                raise BakeError(
                    f"tile ({row}, {col}) failed: {type(error).__name__}: {error}; {len(finished) + written} of "
                    f"{len(jobs)} tiles are finished and kept: run the same command again to resume"
                ) from error
            future.release()
            written += wrote
            done += 1
            if block is not None:
                orow, ocol, block_sums, block_counts = block
                sums[orow : orow + block_sums.shape[0], ocol : ocol + block_sums.shape[1]] += block_sums
                counts[orow : orow + block_sums.shape[0], ocol : ocol + block_sums.shape[1]] += block_counts
            bar.update(1)
            if on_tile is not None:
                on_tile(done, len(jobs), wrote)
    finally:
        bar.close()
        client.cancel(futures)
    if overview_path is not None:
        with replacing(overview_path) as temporary:
            write_image(temporary, (sums / counts).astype(np.float32))
    return BakeResult(written, len(finished), overview_path, time.perf_counter() - started)


def _cores() -> int:
    """The cores this process may run on (its CPU affinity where the OS has one)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _worker_version() -> str:
    """The noise_core version a worker imports (checked before a bake on an existing cluster)."""

    return __version__


class _Connection:
    """A ``dask.distributed`` client: to ``scheduler`` if given, else to a new LocalCluster of ``workers`` processes."""

    def __init__(self, scheduler: str | None, workers: int | None, timeout: float) -> None:
        self.scheduler, self.workers, self.timeout = scheduler, workers, timeout
        self.cluster = self.client = None

    def __enter__(self):
        distributed = require("distributed")
        import logging

        if self.scheduler is None:
            self.cluster = distributed.LocalCluster(
                n_workers=self.workers or _cores(),
                threads_per_worker=1,
                processes=True,
                dashboard_address=":0",
                silence_logs=logging.CRITICAL,  # a failed tile is reported once, by bake()
            )
            self.client = distributed.Client(self.cluster, set_as_default=False)
            return self.client
        try:
            self.client = distributed.Client(self.scheduler, timeout=self.timeout, set_as_default=False)
            self.client.wait_for_workers(1, timeout=self.timeout)
            versions = set(self.client.run(_worker_version).values())
        except (OSError, ValueError, TypeError, TimeoutError) as error:
            self.__exit__(None, None, None)
            raise ValueError(
                f"scheduler: cannot use the cluster at {self.scheduler!r} (waited {self.timeout:g} s for it and a "
                f"worker): {type(error).__name__}: {error}"
            ) from None
        except Exception as error:
            self.__exit__(None, None, None)
            raise ValueError(
                f"scheduler: the workers at {self.scheduler!r} cannot run noise_core ({type(error).__name__}: "
                f"{error}); install the same noisewright on every worker: pip install 'noisewright[scale]'"
            ) from None

        if versions != {__version__}:
            self.__exit__(None, None, None)
            raise ValueError(f"scheduler: the workers run noise_core {sorted(versions)}, this is {__version__}")
        return self.client

    def __exit__(self, *exc_info: object) -> None:
        if self.client is not None:
            self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive whole number, got {value}")
    return value


OPTIONS = ("tile", "bits", "overview", "overview_size", "scheduler", "workers", "connect_timeout")


def add_options(parser: argparse.ArgumentParser) -> None:
    """The options of tiled bakes (``--out`` a ``.zarr`` store or a ``{row}``/``{col}`` tile pattern)."""
    group = parser.add_argument_group(
        "tiled bakes (--out NAME.zarr, or a tile pattern such as 'tiles/{row}_{col}.png'; needs the scale extra: "
        "pip install 'noisewright[scale]')"
    )
    group.add_argument("--tile", type=_positive, help=f"tile (Zarr chunk) side in pixels (default {DEFAULT_TILE})")
    group.add_argument("--bits", type=int, choices=(16, 32), help="Zarr values: 32 float32 (default) or 16 uint16")
    group.add_argument("--overview", type=Path, help="also write a downsampled preview image (.png, .tif, .exr)")
    group.add_argument(
        "--overview-size", type=_positive, help=f"longest side of the overview (default {DEFAULT_OVERVIEW_SIZE})"
    )
    group.add_argument(
        "--scheduler",
        help="address of a running dask.distributed scheduler (tcp://host:8786); default: a LocalCluster of this "
        "machine's cores",
    )
    group.add_argument("--workers", type=_positive, help="LocalCluster worker processes (default: the CPU count)")
    group.add_argument(
        "--connect-timeout", type=float, help="seconds to wait for --scheduler and a worker (default 10)"
    )


def check_untiled(args: argparse.Namespace) -> None:
    """``ValueError`` if a tiled-bake option is given for a single-image ``--out``."""
    for name in OPTIONS:
        if getattr(args, name, None) is not None:
            option = "--" + name.replace("_", "-")
            raise ValueError(
                f"{name.replace('_', '-')}: {option} needs a tiled output (--out NAME.zarr or a tile pattern "
                "such as 'tiles/{row}_{col}.png')"
            )


def bake_from_args(spec: NoiseSpec, shape: tuple[int, int], args: argparse.Namespace) -> Path:
    """The CLI's tiled bake: connect (or start a LocalCluster), bake, print a summary; returns ``args.out``."""
    tile = DEFAULT_TILE if args.tile is None else args.tile
    if tile > MAX_TILE:
        raise ValueError(f"tile: must be between 1 and {MAX_TILE}, got {tile}")
    # Bad --out or --bits, an unwritable folder or an output of other settings fail before a cluster starts.
    output = make_output(args.out, args.bits)
    output.prepare(shape, tile, manifest(spec, shape, tile, output), create=False)
    if args.workers is not None and args.scheduler is not None:
        raise ValueError("workers: --workers sizes the LocalCluster; it cannot be combined with --scheduler")
    timeout = 10.0 if args.connect_timeout is None else args.connect_timeout
    if not timeout > 0:
        raise ValueError(f"connect-timeout: must be a positive number of seconds, got {timeout!r}")
    if args.scheduler is None:
        from .api import precompile

        precompile(spec, 2)  # once here, so the worker processes load the kernel from the disk cache
    with _Connection(args.scheduler, args.workers, timeout) as client:
        result = bake(
            spec,
            shape,
            args.out,
            client,
            tile=tile,
            bits=args.bits,
            overview=args.overview,
            overview_size=DEFAULT_OVERVIEW_SIZE if args.overview_size is None else args.overview_size,
        )
    total = result.written + result.skipped
    overview = f"; overview {result.overview}" if result.overview else ""
    print(
        f"wrote {args.out} ({shape[1]}x{shape[0]}, kind {spec.kind}, {total} tiles: {result.written} written, "
        f"{result.skipped} already finished{overview}; {result.seconds:.2f} s)"
    )
    return Path(args.out)
