"""Noise grids of any size on Dask: every chunk is one window of the global grid.

``grid(spec, (H, W), chunks)`` is a lazy ``dask.array`` whose chunk ``[r0:r1, c0:c1]`` is
``evaluate_grid(spec, (H, W), window=(r0, c0, r1 - r0, c1 - c0))``: pixel ``[r, c]`` is the noise at
``((c + .5)/W, (r + .5)/H)`` whatever the chunking, so any computation on it (a slice, a reduction, ``to_zarr``)
sees exactly the pixels one ``evaluate_grid(spec, (H, W))`` would return. A chunk is computed in strips of
about ``STRIP_SAMPLES`` pixels (windows again, so still the same bits), which bounds a task's scratch memory to a
few times its chunk.

Dask, Dask's distributed scheduler and Zarr are the optional ``scale`` extra
(``pip install 'noisewright[scale]'``); ``import noise_core`` never imports them and :func:`require` names the
extra when one is missing.
"""

from __future__ import annotations

import importlib
import types

import numpy as np

from .api import check_shape, evaluate_grid
from .spec import NoiseSpec

SCALE_EXTRA = "pip install 'noisewright[scale]'"
SCALE_PACKAGES = {"dask": "dask", "distributed": "distributed", "zarr": "zarr", "tqdm": "tqdm"}
"""Top-level module -> the pip package of the ``scale`` extra that provides it."""
DEFAULT_CHUNK = 4096
STRIP_SAMPLES = 1 << 20


def require(module: str) -> types.ModuleType:
    """Import ``module`` of the ``scale`` extra; ``ModuleNotFoundError`` naming the extra to install otherwise."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as error:
        package = SCALE_PACKAGES.get((error.name or module).split(".")[0], error.name)
        raise ModuleNotFoundError(
            f"scale: tiled and distributed bakes need the optional package {package!r} (missing: {error.name}); "
            f"install the scale extra: {SCALE_EXTRA} (dask, distributed, zarr, tqdm)",
            name=error.name,
        ) from error


def compute_window(
    spec: NoiseSpec, shape: tuple[int, int], window: tuple[int, int, int, int], threads: int | None = None
) -> np.ndarray:
    """``evaluate_grid(spec, shape, window=window)``, computed in row strips of about ``STRIP_SAMPLES`` pixels.

    ``threads``: Numba threads for this call (``numba.set_num_threads``, which is per calling thread); ``None``
    keeps the process's setting. Dask runs one task per worker thread, so a bake gives each task one thread.
    """
    row0, col0, height, width = window
    if threads is not None:
        import numba

        numba.set_num_threads(max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS)))
    out = np.empty((height, width), dtype=np.float32)
    strip = max(1, STRIP_SAMPLES // width)
    for start in range(0, height, strip):
        rows = min(strip, height - start)
        out[start : start + rows] = evaluate_grid(spec, shape, window=(row0 + start, col0, rows, width))
    return out


def _chunk(spec: NoiseSpec, shape: tuple[int, int], threads: int | None, block_info: dict | None = None) -> np.ndarray:
    """One chunk of :func:`grid`: the window at Dask's ``array-location`` of the block."""
    (row0, row1), (col0, col1) = block_info[None]["array-location"]  # type: ignore[index]
    return compute_window(spec, shape, (row0, col0, row1 - row0, col1 - col0), threads)


def grid(spec: NoiseSpec, shape: tuple[int, int], chunks: object = DEFAULT_CHUNK, threads: int | None = None):
    """A lazy ``dask.array`` (float32) of ``evaluate_grid(spec, shape)``, one window per chunk.

    ``chunks`` is anything ``dask.array`` accepts (an int, a ``(rows, cols)`` pair, explicit chunk tuples, "auto");
    ``threads`` is passed to :func:`compute_window` for each chunk. The grid may exceed ``evaluate_grid``'s sample
    limit, which then applies to each chunk.
    """
    da = require("dask.array")
    from dask.base import tokenize

    if not isinstance(spec, NoiseSpec):
        raise TypeError(f"spec: expected a NoiseSpec, got {type(spec).__name__}")
    shape = check_shape(shape, limit=False)  # no sample limit: it applies to each chunk's windows
    evaluate_grid(spec, shape, window=(0, 0, 1, 1))  # the spec's checks (a 2D kind), with evaluate_grid's own errors
    normalized = da.core.normalize_chunks(chunks, shape, dtype=np.float32)
    return da.map_blocks(
        _chunk,
        spec,
        shape,
        threads,
        name=f"noise-grid-{tokenize(spec, shape, normalized, threads)}",
        chunks=normalized,
        dtype=np.float32,
        meta=np.empty((0, 0), dtype=np.float32),
    )
