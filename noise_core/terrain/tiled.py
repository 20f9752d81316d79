"""Terrains beyond one machine: one global pass on a model grid, then the map tile by tile on Dask (issue 45).

A terrain of ``size``² samples is built in two passes, after the tile gates of terrain tools (Gaea's TileGate):

1. **Global**, once (``plan_terrain``): the noise on the model grid (``multiscale.model_shape`` of
   ``model_size``: the vertices of the same unit square, every ``s``-th of the map's when the sizes nest, as
   1009 in 4033 and 16129), carved by the rivers (``fluvial.erode_fluvial``, its relief
   kept) and the droplets (``erosion.erode_hydraulic`` on that grid): what needs the whole map (drainage,
   rivers, lakes, the droplets' paths). Its change, a small array, is all a tile needs of it.
2. **Per tile** (``terrain_window``): the noise on the tile and a halo (``evaluate_lattice`` of its vertices:
   each value depends on its own coordinates only, so bit for bit the map's), plus the global change
   interpolated there (``multiscale.add_change``, the map's samples), then
   what is local, on the map's own cells: the settling of one-cell pits after the droplets
   (``erosion.SETTLE_PASSES`` passes) and thermal erosion. Each pass of these changes a cell from the cells
   within 2 of it and nothing else, so with a halo of ``2·(passes + iterations)`` cells (``halo``) the tile's
   interior is the whole map's bits: there are no seams to see (tested: tiles against the map at once).

``bake_terrain`` runs the tiles on a ``dask.distributed`` client through ``tiled_bake.bake``: a Zarr store or a
tile set, resumable (finished tiles are kept; a re-run with the same settings writes only the missing ones).
Values are stored as ``(height - low) / (high - low)``, the plan's ``height_range`` (the global pass's range
widened by ``MARGIN`` of it on either side, clipped), as the bakes store noise.
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Callable

import numpy as np

from ..api import evaluate_lattice
from ..ranges import to_unit
from ..spec import NoiseSpec
from ..tiled_bake import DEFAULT_TILE, BakeResult, bake
from . import erosion, fluvial, multiscale
from .heightfield import CELL_SIZE

MARGIN = 0.25
"""The stored range is the global pass's, widened by this share of it on either side (the map's own detail and
thermal erosion reach a little beyond the model grid's heights)."""


@dataclasses.dataclass(frozen=True)
class TerrainPlan:
    """A terrain of ``size``² cells ``cell_size`` apart: ``relief`` times its noise ``spec`` mapped to [0, 1]
    (``ranges.to_unit``) at the vertices ``(c, r) / (size - 1)`` of the unit square, plus the global ``change``
    on the model grid (float64, the heights' unit), with pits settled (``settle``) and ``thermal`` erosion
    (``erosion.THERMAL_OPTIONS`` by name, or None) on the map's own cells; ``height_range``: what the stored 0
    and 1 stand for."""

    spec: NoiseSpec
    size: int
    relief: float
    cell_size: float
    change: np.ndarray
    settle: bool
    thermal: dict | None
    height_range: tuple[float, float]

    @property
    def halo(self) -> int:
        """Cells around a tile that make its interior the whole map's bits: 2 per pass of the local stages."""
        passes = erosion.SETTLE_PASSES if self.settle else 0
        return 2 * (passes + (self.thermal["iterations"] if self.thermal else 0))

    def settings(self) -> dict:
        """The plan as JSON types, with a digest of the global change (stored with a bake, compared on resume)."""
        import hashlib

        digest = hashlib.sha256(np.ascontiguousarray(self.change).tobytes()).hexdigest()
        return {"kind": "terrain", "spec": dataclasses.asdict(self.spec), "size": self.size, "relief": self.relief,
                "cell_size": self.cell_size, "change": [list(self.change.shape), digest], "settle": self.settle,
                "thermal": self.thermal, "height_range": list(self.height_range)}  # fmt: skip

    def compute(self, shape: tuple[int, int], window: tuple[int, int, int, int]) -> np.ndarray:
        """The stored values of ``window`` (``tiled_bake.bake``'s tile source): ``terrain_window`` mapped by
        ``height_range`` to [0, 1], float32."""
        low, high = self.height_range
        return np.clip((terrain_window(self, window) - low) / (high - low), 0.0, 1.0).astype(np.float32)


def plan_terrain(
    spec: NoiseSpec,
    size: int,
    *,
    relief: float,
    cell_size: float = 1.0,
    model_size: int = 1009,
    rivers: dict | None = None,
    droplets: dict | None = None,
    thermal: dict | None = None,
) -> TerrainPlan:
    """The global pass of a terrain of ``size``² cells: ``relief`` times the noise of ``spec`` on the model grid
    (``model_size``), carved by ``rivers`` (``erode_fluvial``'s keyword arguments but ``model_size`` and
    ``fine_steps``; the relief kept) and ``droplets`` (``erode_hydraulic``'s options), each None when off;
    ``thermal`` (``erode_thermal``'s options) runs per tile. ``ValueError``/``TypeError`` naming a bad argument."""
    if not isinstance(spec, NoiseSpec):
        raise TypeError(f"spec: expected a NoiseSpec, got {type(spec).__name__}")
    if isinstance(size, bool) or not isinstance(size, int) or not 3 <= size <= 1 << 20:
        raise ValueError(f"size: must be a whole number from 3 to {1 << 20}, got {size!r}")
    if not (isinstance(relief, (int, float)) and math.isfinite(relief) and relief > 0):
        raise ValueError(f"relief: must be a finite number > 0, got {relief!r}")
    cell = float(CELL_SIZE.check(cell_size))  # type: ignore[arg-type]
    coarse = multiscale.model_shape((size, size), model_size) or (size, size)
    s = multiscale.cells_per_model_cell((size, size), coarse)
    axis = np.arange(coarse[0]) / (coarse[0] - 1)  # the model grid's vertices of the unit square
    start = to_unit(spec, evaluate_lattice(spec, axis, axis)).astype(np.float64) * relief
    heights = start
    if rivers is not None:
        carved = fluvial.erode_fluvial(heights, cell_size=cell * s, **rivers).heights.astype(np.float64)
        span = float(np.ptp(carved))
        heights = heights.min() + (carved - carved.min()) * (float(np.ptp(heights)) / span if span > 0 else 0.0)
    if droplets is not None:
        heights = erosion.erode_hydraulic(heights, cell_size=cell * s, **droplets).heights.astype(np.float64)
    if thermal is not None:
        thermal = {**erosion._options(erosion.THERMAL_OPTIONS, thermal)}
        del thermal["cell_size"]
    low, high = float(heights.min()), float(heights.max())
    widen = MARGIN * max(high - low, relief * 1e-6)
    return TerrainPlan(spec, size, float(relief), cell, heights - start, droplets is not None, thermal,
                       (low - widen, high + widen))  # fmt: skip


def terrain_window(plan: TerrainPlan, window: tuple[int, int, int, int], halo: int | None = None) -> np.ndarray:
    """Heights (float64, the heights' unit) of the ``window`` ``(row0, col0, height, width)`` of ``plan``'s map,
    computed on it and ``halo`` cells around (``plan.halo`` when None; cut to the map): the map's own bits when
    the halo is at least ``plan.halo``."""
    size = plan.size
    row0, col0, height, width = window
    if not (row0 >= 0 and col0 >= 0 and height >= 1 and width >= 1 and row0 + height <= size and col0 + width <= size):
        raise ValueError(f"window: must lie within the {size} x {size} map, got {window!r}")
    margin = plan.halo if halo is None else halo
    top, left = max(0, row0 - margin), max(0, col0 - margin)
    bottom, right = min(size, row0 + height + margin), min(size, col0 + width + margin)
    noise = evaluate_lattice(plan.spec, np.arange(left, right) / (size - 1), np.arange(top, bottom) / (size - 1))
    cells = np.ascontiguousarray(to_unit(plan.spec, noise).astype(np.float64) * (plan.relief / plan.cell_size))
    multiscale.add_change(cells, plan.change / plan.cell_size, (size, size), (top, left))
    if plan.settle:
        erosion._kernels().settle(cells, np.empty_like(cells), erosion.SETTLE_PASSES)
    if plan.thermal is not None and plan.thermal["iterations"]:
        talus = np.full(1, math.tan(math.radians(plan.thermal["talus_angle"])))
        cells = erosion._thermal_bands(cells, talus, plan.thermal["iterations"], plan.thermal["rate"])
    inner = cells[row0 - top : row0 - top + height, col0 - left : col0 - left + width]
    return inner * plan.cell_size


def bake_terrain(
    plan: TerrainPlan,
    out: str | os.PathLike[str],
    client,
    *,
    tile: int = DEFAULT_TILE,
    bits: int | None = None,
    progress: bool = False,
    on_tile: Callable[[int, int, bool], None] | None = None,
) -> BakeResult:
    """Write ``plan``'s map into ``out`` (a ``.zarr`` store or a ``{row}``/``{col}`` tile set, as
    ``tiled_bake.bake``) tile by tile on the ``dask.distributed`` ``client``, each tile with its halo; resumable.
    A stored value ``v`` is the height ``low + v·(high - low)``, ``(low, high) = plan.height_range``."""
    if not isinstance(plan, TerrainPlan):
        raise TypeError(f"plan: expected a TerrainPlan (plan_terrain), got {type(plan).__name__}")
    return bake(plan, (plan.size, plan.size), out, client, tile=tile, bits=bits, progress=progress, on_tile=on_tile)
