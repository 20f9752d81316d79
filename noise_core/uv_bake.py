"""Bakes of 3D noise through a mesh's UV layout: rasterised triangles, a dilated margin, UDIM tiles.

Each triangle's UV corners are mapped to the pixels of its UDIM tile (tile ``1001 + U + 10 V`` holds
``u`` in ``[U, U + 1)``, ``v`` in ``[V, V + 1)``; pixel ``(r, c)`` is centred at
``(U + (c + .5) / W, V + (r + .5) / H)``, row 0 at the bottom as Blender stores images). A pixel centre inside
the triangle (barycentric weights all >= 0) gets the barycentric blend of the corners' 3D positions, and
the noise is evaluated there, so texels on both sides of a UV seam sample the same 3D space. Where UVs
overlap, the triangle that comes first in the mesh's order keeps the pixel (deterministic). The margin
grows the baked texels ``margin`` pixels past island borders, one ring per pass: an empty pixel with baked
8-neighbours takes their mean (Blender's bake margin does the same job), so filtering and mip-maps do not
pull in the background.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np

from ._jit import LazySerialKernel
from .api import check_reach, evaluate, plan
from .io.files import replacing_all
from .io.images import write_image
from .ranges import to_unit
from .registry import kind_info
from .runtime import kernel_signature
from .spec import NoiseSpec

FIRST_TILE = 1001
MAX_TILE = 1100
"""UDIM tiles 1001..1100: ten per row, ten rows (u in 0..10, v in 0..10)."""
MAX_MARGIN = 256
RASTER_STEPS, NOISE_STEPS, MARGIN_STEPS = 10, 80, 10
TILE_STEPS = RASTER_STEPS + NOISE_STEPS + MARGIN_STEPS
"""``bake_uv``'s progress per tile: rasterising, the noise (in blocks of ``POINT_BLOCK`` points), the margin."""
POINT_BLOCK = 1 << 18


def tile_origin(tile: int) -> tuple[int, int]:
    """The ``(U, V)`` corner of UDIM ``tile`` in UV space (1001 -> (0, 0), 1002 -> (1, 0), 1011 -> (0, 1))."""
    if isinstance(tile, bool) or not isinstance(tile, (int, np.integer)) or not FIRST_TILE <= tile <= MAX_TILE:
        raise ValueError(f"tiles: UDIM tiles are whole numbers from {FIRST_TILE} to {MAX_TILE}, got {tile!r}")
    index = int(tile) - FIRST_TILE
    return index % 10, index // 10


def tiles_of(uvs: np.ndarray) -> list[int]:
    """The UDIM tiles the triangles ``uvs`` (T, 3, 2) reach, sorted; a triangle's tiles are those of its
    UV bounding box (corners exactly on a tile's upper edge count for the tile below)."""
    if uvs.shape[0] == 0:
        return []
    low = np.floor(uvs.min(axis=1)).astype(np.int64)
    high = np.ceil(uvs.max(axis=1)).astype(np.int64) - 1
    high = np.maximum(high, low)
    found = set()
    for (u0, v0), (u1, v1) in zip(low.tolist(), high.tolist(), strict=True):
        for u in range(max(u0, 0), min(u1, 9) + 1):
            for v in range(max(v0, 0), min(v1, 9) + 1):
                found.add(FIRST_TILE + u + 10 * v)
    return sorted(found)


@LazySerialKernel
def _rasterize(uvs, positions, u0, v0, width, height, points, owner):
    """Fill ``points`` (H, W, 3) and ``owner`` (H, W; -1 = empty) with each covered pixel's blended
    position and triangle index, triangles in order, the first keeping a pixel."""
    for t in range(uvs.shape[0]):
        ax = (uvs[t, 0, 0] - u0) * width - 0.5
        ay = (uvs[t, 0, 1] - v0) * height - 0.5
        bx = (uvs[t, 1, 0] - u0) * width - 0.5
        by = (uvs[t, 1, 1] - v0) * height - 0.5
        cx = (uvs[t, 2, 0] - u0) * width - 0.5
        cy = (uvs[t, 2, 1] - v0) * height - 0.5
        area = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
        if area == 0.0:
            continue
        column0 = max(int(np.ceil(min(ax, bx, cx))), 0)
        column1 = min(int(np.floor(max(ax, bx, cx))), width - 1)
        row0 = max(int(np.ceil(min(ay, by, cy))), 0)
        row1 = min(int(np.floor(max(ay, by, cy))), height - 1)
        for r in range(row0, row1 + 1):
            for c in range(column0, column1 + 1):
                if owner[r, c] >= 0:
                    continue
                wa = ((bx - c) * (cy - r) - (by - r) * (cx - c)) / area
                wb = ((cx - c) * (ay - r) - (cy - r) * (ax - c)) / area
                wc = 1.0 - wa - wb
                if wa < -1e-9 or wb < -1e-9 or wc < -1e-9:
                    continue
                owner[r, c] = t
                for axis in range(3):
                    points[r, c, axis] = (
                        wa * positions[t, 0, axis] + wb * positions[t, 1, axis] + wc * positions[t, 2, axis]
                    )


@LazySerialKernel
def _dilate(values, filled, margin):
    """Grow ``values`` (H, W) from the ``filled`` pixels by ``margin`` rings: each pass, an empty pixel with
    filled 8-neighbours takes their mean (read from the previous pass). Whether the last pass run grew."""
    height, width = values.shape
    grew = False
    for _ in range(margin):
        before = filled.copy()
        previous = values.copy()
        grew = False
        for r in range(height):
            for c in range(width):
                if before[r, c]:
                    continue
                total = 0.0
                count = 0
                for dr in range(-1, 2):
                    for dc in range(-1, 2):
                        rr = r + dr
                        cc = c + dc
                        if 0 <= rr < height and 0 <= cc < width and before[rr, cc]:
                            total += previous[rr, cc]
                            count += 1
                if count > 0:
                    values[r, c] = total / count
                    filled[r, c] = True
                    grew = True
        if not grew:
            break
    return grew


def _check_triangles(uvs: object, positions: object) -> tuple[np.ndarray, np.ndarray]:
    if not isinstance(uvs, np.ndarray) or uvs.ndim != 3 or uvs.shape[1:] != (3, 2):
        raise ValueError(f"uvs: expected an array of shape (T, 3, 2), got {getattr(uvs, 'shape', type(uvs))}")
    if not isinstance(positions, np.ndarray) or positions.shape != (uvs.shape[0], 3, 3):
        raise ValueError(
            f"positions: expected an array of shape ({uvs.shape[0]}, 3, 3) matching uvs, "
            f"got {getattr(positions, 'shape', type(positions))}"
        )
    uvs = np.ascontiguousarray(uvs, dtype=np.float64)
    positions = np.ascontiguousarray(positions, dtype=np.float64)
    if not (np.isfinite(uvs).all() and np.isfinite(positions).all()):
        raise ValueError("uvs, positions: must be finite (no NaN or infinity)")
    return uvs, positions


def rasterize(
    uvs: np.ndarray, positions: np.ndarray, size: tuple[int, int], tile: int = FIRST_TILE
) -> tuple[np.ndarray, np.ndarray]:
    """``(points (H, W, 3) float64, owner (H, W) int64)`` of UDIM ``tile`` at ``size = (width, height)``: each
    covered pixel's 3D position and triangle index (-1 where no triangle covers it)."""
    uvs, positions = _check_triangles(uvs, positions)
    width, height = _check_size(size)
    u0, v0 = tile_origin(tile)
    points = np.zeros((height, width, 3), dtype=np.float64)
    owner = np.full((height, width), -1, dtype=np.int64)
    _rasterize(uvs, positions, float(u0), float(v0), width, height, points, owner)
    return points, owner


def _check_size(size: object) -> tuple[int, int]:
    if (
        not isinstance(size, tuple)
        or len(size) != 2
        or not all(isinstance(s, (int, np.integer)) and not isinstance(s, bool) and 1 <= s <= 16384 for s in size)
    ):
        raise ValueError(f"size: expected (width, height), whole numbers from 1 to 16384, got {size!r}")
    return int(size[0]), int(size[1])


def dilate(
    values: np.ndarray, filled: np.ndarray, margin: int, progress: Callable[[int], None] | None = None
) -> np.ndarray:
    """``values`` (H, W) grown ``margin`` pixels past the ``filled`` ones (a new float32 array). With
    ``progress``, the passes run one at a time (the same bits) and ``progress(passes_done)`` follows each."""
    if isinstance(margin, bool) or not isinstance(margin, (int, np.integer)) or not 0 <= margin <= MAX_MARGIN:
        raise ValueError(f"margin: must be a whole number of pixels from 0 to {MAX_MARGIN}, got {margin!r}")
    grown = np.ascontiguousarray(values, dtype=np.float32).copy()
    mask = np.ascontiguousarray(filled, dtype=np.bool_).copy()
    if progress is None:
        _dilate(grown, mask, int(margin))
        return grown
    for done in range(1, int(margin) + 1):
        grew = _dilate(grown, mask, 1)
        progress(done if grew else int(margin))
        if not grew:  # nothing left to grow into
            break
    return grown


def bake_plan(spec: NoiseSpec) -> tuple:
    """The compiled functions ``bake_uv(spec, ...)`` runs, with their argument types (as ``api.plan`` lists them):
    the rasteriser, the noise's kernels on 3D float64 points and the margin's dilation."""
    uvs = np.zeros((1, 3, 2))
    points, owner = np.zeros((1, 1, 3)), np.zeros((1, 1), dtype=np.int64)
    rasteriser = _rasterize.dispatcher
    dilation = _dilate.dispatcher
    return (
        (rasteriser, kernel_signature(rasteriser, (uvs, np.zeros((1, 3, 3)), 0.0, 0.0, 1, 1, points, owner))),
        *plan(spec, 3, np.float64),
        (dilation, kernel_signature(dilation, (np.zeros((1, 1), np.float32), np.zeros((1, 1), np.bool_), 1))),
    )


def bake_uv(
    spec: NoiseSpec,
    uvs: np.ndarray,
    positions: np.ndarray,
    size: tuple[int, int] = (1024, 1024),
    margin: int = 16,
    tiles: Iterable[int] | None = None,
    warn: Callable[[str], None] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> dict[int, np.ndarray]:
    """3D noise of ``spec`` at the surface, through the UV layout: ``{tile: (H, W) float32 in 0..1}`` (the
    noise mapped as height images are, ``ranges.to_unit``) for each UDIM tile (default: every tile the
    triangles reach). ``uvs`` (T, 3, 2) and ``positions`` (T, 3, 3) are each triangle's corners; pixels no
    triangle covers, beyond the ``margin``, are 0. Triangles reaching outside the UDIM tiles (u or v beyond 0..10)
    cannot be baked whole: ``warn(message)`` names them (default: a ``UserWarning``).

    ``progress(done, total)`` (``TILE_STEPS`` per tile) follows the rasterising, each block of ``POINT_BLOCK``
    points of noise and each pass of the margin; an exception it raises (a cancel) stops the bake there."""
    uvs, positions = _check_triangles(uvs, positions)
    if 3 not in kind_info(spec.kind).dims:
        raise ValueError(f"spec: kind {spec.kind!r} has no 3D noise to sample the surface with")
    check_reach(spec, "positions", float(np.abs(positions).max(initial=0.0)), "coordinates")
    width, height = _check_size(size)
    chosen = tiles_of(uvs) if tiles is None else _check_tiles(tiles)
    if not chosen:
        raise ValueError("uvs: no triangle lies in a UDIM tile (u and v from 0 to 10)")
    outside = outside_triangles(uvs)
    if outside.size:
        (warn or _warn)(outside_message("uvs: triangles", outside.tolist(), uvs.shape[0]))
    total = TILE_STEPS * len(chosen)
    report = progress or (lambda _done, _total: None)
    baked = {}
    for number, tile in enumerate(chosen):
        start = number * TILE_STEPS
        points, owner = rasterize(uvs, positions, (width, height), tile)
        report(start + RASTER_STEPS, total)
        filled = owner >= 0
        values = np.zeros((height, width), dtype=np.float32)
        covered = np.compress(filled.ravel(), points.reshape(-1, 3), axis=0)  # points[filled], 2-4x faster
        noise = np.empty(covered.shape[0], dtype=np.float32)
        for first in range(0, covered.shape[0], POINT_BLOCK):  # each point's value depends on it alone
            last = min(first + POINT_BLOCK, covered.shape[0])
            noise[first:last] = evaluate(spec, covered[first:last])
            report(start + RASTER_STEPS + NOISE_STEPS * last // covered.shape[0], total)
        values[filled] = to_unit(spec, noise)
        margin_start = start + RASTER_STEPS + NOISE_STEPS
        baked[tile] = dilate(
            values, filled, margin, lambda done, at=margin_start: report(at + MARGIN_STEPS * done // margin, total)
        )
        report(start + TILE_STEPS, total)
    return baked


def _check_tiles(tiles: object) -> list[int]:
    """``tiles`` (an iterable of UDIM tile numbers) sorted without repeats; ``TypeError``/``ValueError`` naming
    ``tiles`` for anything else (a string, non-whole numbers, tiles outside 1001..1100, none at all)."""
    if isinstance(tiles, (str, bytes)) or not isinstance(tiles, Iterable):
        raise TypeError(f"tiles: expected UDIM tile numbers (whole numbers from {FIRST_TILE} to {MAX_TILE}), "
                        f"got {tiles!r}")  # fmt: skip
    chosen = list(tiles)
    for tile in chosen:
        tile_origin(tile)
    if not chosen:
        raise ValueError(f"tiles: no tile given; list the UDIM tiles to bake ({FIRST_TILE} to {MAX_TILE}) or leave "
                         "tiles unset to bake every tile the triangles reach")  # fmt: skip
    return sorted({int(tile) for tile in chosen})


def outside_triangles(uvs: np.ndarray) -> np.ndarray:
    """Indices of the triangles of ``uvs`` (T, 3, 2) that reach outside the UDIM tiles (a corner with u or v below
    0 or above 10): the parts outside cannot be baked."""
    return np.flatnonzero(((uvs < 0.0) | (uvs > 10.0)).any(axis=(1, 2)))


def outside_message(what: str, indices: list[int], total: int) -> str:
    """The report of ``outside_triangles``: ``what`` (e.g. ``"uvs: triangles"``) and the first few indices."""
    shown = ", ".join(map(str, indices[:10])) + (", ..." if len(indices) > 10 else "")
    return (
        f"{what} {shown} ({len(indices)} of {total}) reach outside the UDIM tiles {FIRST_TILE}-{MAX_TILE} "
        "(u and v from 0 to 10); the parts outside are not baked"
    )


def _warn(message: str) -> None:
    warnings.warn(message, UserWarning, stacklevel=3)


def tile_path(pattern: str | Path, tile: int) -> Path:
    """``pattern`` with ``<UDIM>`` replaced by the tile number (``name.<UDIM>.png`` -> ``name.1001.png``)."""
    text = str(pattern)
    if "<UDIM>" not in text:
        raise ValueError(f"out: the file pattern must contain <UDIM> (as in name.<UDIM>.png), got {text!r}")
    return Path(text.replace("<UDIM>", str(tile)))


def write_tiles(pattern: str | Path, baked: dict[int, np.ndarray], bits: int = 16) -> list[Path]:
    """Write each tile to ``tile_path(pattern, tile)`` (rows top-down, as files store them); all or none
    (``files.replacing_all``: on any failure no tile of the new set is left and existing files are kept)."""
    paths = [tile_path(pattern, tile) for tile in baked]
    with replacing_all(paths) as temporaries:
        for temporary, values in zip(temporaries, baked.values(), strict=True):
            write_image(temporary, values[::-1], bits)
    return paths
