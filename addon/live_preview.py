"""Live terrains' previews: how a terrain whose full rebuild would not fit a frame is shown while its settings
change (``preview_plan``: 1/``PREVIEW_SHARE`` of its droplets, a grid of every ``step``-th row and column over
``FRAME_VERTICES``), and building that preview on its mesh (``build_preview``). ``live`` decides when.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import bpy
import numpy as np

from . import mesh_io
from .erode_fluvial import FLOW_ATTRIBUTES
from .erosion_io import DEPOSITS, MASKS
from .terrain import write_maps
from .terrain_grid import grid, grid_positions, thinned
from .terrain_maps import recorded_maps
from .terrain_recipe import TerrainRecipe, terrain_heights

PREVIEW_SHARE = 8
"""While settings change in the UI, a terrain with erosion on is rebuilt with 1/``PREVIEW_SHARE`` of its
droplets (a preview, said in the status bar), then in full once no change came for ``SETTLE`` seconds."""
FRAME_VERTICES = 1025 * 1025
"""The largest grid rebuilt in full while its settings change (Regenerate of 1024² takes about 40 ms on an idle
2-core machine, ``docs/benchmarks.md``); a larger one is previewed on a grid of every ``step``-th row and
column, ``step`` the smallest power of two that brings it under this."""


@dataclass(frozen=True)
class Preview:
    """How a terrain is previewed while its settings change (``preview_plan``): on ``x_subdivisions`` x
    ``y_subdivisions`` faces (``step`` > 1: every ``step``-th row and column of its grid) with ``droplets``
    hydraulic droplets (None: no hydraulic erosion)."""

    step: int
    x_subdivisions: int
    y_subdivisions: int
    droplets: int | None

    def describe(self, name: str) -> str:
        """What the status bar and the panel say."""
        parts = []
        if self.step > 1:
            parts.append(f"{self.x_subdivisions} x {self.y_subdivisions} faces (1/{self.step} resolution)")
        if self.droplets is not None:
            parts.append(f"{self.droplets} droplets (1/{PREVIEW_SHARE})")
        return f"{name}: preview on {' with '.join(parts)}; the full terrain follows"


def preview_plan(x_subdivisions: int, y_subdivisions: int, droplets: int | None) -> Preview | None:
    """How to preview a terrain of ``x_subdivisions`` x ``y_subdivisions`` faces with ``droplets`` hydraulic
    droplets (None: hydraulic erosion off) while its settings change; None when the full rebuild fits a frame
    (no hydraulic erosion, at most ``FRAME_VERTICES`` vertices). A grid over ``FRAME_VERTICES`` keeps every
    ``step``-th row and column (``ceil(subdivisions / step)`` faces, the same size); droplets are scaled by the
    share of the vertices kept, then divided by ``PREVIEW_SHARE`` (at least 1)."""
    step, x_kept, y_kept = thinned(x_subdivisions, y_subdivisions, FRAME_VERTICES)
    if step == 1 and droplets is None:
        return None
    fewer = None
    if droplets is not None:
        kept = (x_kept + 1) * (y_kept + 1) / ((x_subdivisions + 1) * (y_subdivisions + 1))
        fewer = max(1, round(droplets * kept) // PREVIEW_SHARE)
    return Preview(step, x_kept, y_kept, fewer)


def in_a_job(x_subdivisions: int, y_subdivisions: int, droplets: int | None, background: bool) -> bool:
    """Whether the full rebuild of a terrain of ``x_subdivisions`` x ``y_subdivisions`` faces with ``droplets``
    hydraulic droplets (None: off) runs as a job: in the UI (not ``background``), when it would not fit a frame
    (``preview_plan`` previews it)."""
    return not background and preview_plan(x_subdivisions, y_subdivisions, droplets) is not None


def _droplet_counts(recipe: TerrainRecipe) -> list[int]:
    """The droplets of each hydraulic stage of ``recipe``: its settings' and those operators applied (``extra``)."""
    shape = recipe.shape
    cells = (shape["x_subdivisions"] + 1) * (shape["y_subdivisions"] + 1)
    stages = [recipe.hydraulic] if recipe.hydraulic is not None else []
    stages += [stage.options for stage in recipe.extra if stage.kind == "droplets"]
    return [options["droplets"] or round(options["droplet_density"] * cells) for options in stages]


def droplets(recipe: TerrainRecipe) -> int | None:
    """The hydraulic droplets of the terrain of ``recipe``, all its droplet stages' (None: none), for
    ``preview_plan``."""
    counts = _droplet_counts(recipe)
    return sum(counts) if counts else None


def _fewer(recipe: TerrainRecipe, share: float) -> TerrainRecipe:
    """``recipe`` with each hydraulic stage's droplets times ``share`` (at least 1)."""
    counts = iter(_droplet_counts(recipe))
    fewer = None if recipe.hydraulic is None else {**recipe.hydraulic, "droplets": max(1, round(next(counts) * share))}
    extra = tuple(
        replace(stage, options={**stage.options, "droplets": max(1, round(next(counts) * share))})
        if stage.kind == "droplets"
        else stage
        for stage in recipe.extra
    )
    return replace(recipe, hydraulic=fewer, extra=extra)


def build_preview(obj: bpy.types.Object, recipe: TerrainRecipe) -> Preview | None:
    """Rebuild the terrain ``obj`` of ``recipe`` (its stored one) as ``preview_plan`` says, when its full rebuild
    would not fit a frame; the ``Preview`` it made, or None (then nothing changed). A reduced grid's heights are
    spread over the mesh's own grid (``spread``: each vertex at its nearest preview vertex's height; masks left as
    they were) when it has the full grid's vertices; otherwise (its subdivisions change) the mesh gets the preview
    grid, when it keeps nothing a new grid would lose: no shape keys, vertex groups or attributes of its own.
    ``UserError`` (invalid settings) before anything changes."""
    mesh = mesh_io.mesh_of(obj)
    shape = recipe.shape
    plan = preview_plan(shape["x_subdivisions"], shape["y_subdivisions"], droplets(recipe))
    if plan is None:
        return None
    on_full_grid = len(mesh.vertices) == (shape["x_subdivisions"] + 1) * (shape["y_subdivisions"] + 1)
    if plan.step > 1 and not on_full_grid and not _regrid_loses_nothing(obj, mesh):
        return None
    total = droplets(recipe)
    fewer = recipe if total is None or plan.droplets is None else _fewer(recipe, plan.droplets / total)
    smaller = fewer.reshaped(x_subdivisions=plan.x_subdivisions, y_subdivisions=plan.y_subdivisions)
    heights, masks = terrain_heights(bpy.context, smaller)
    if plan.step > 1 and on_full_grid:  # its own grid kept: the preview's heights spread over it
        mesh_io.write_positions(mesh, spread(heights, plan, shape))
        return plan
    preview_grid = (plan.x_subdivisions, plan.y_subdivisions, shape["size"])
    if mesh_io.is_grid(mesh, plan.x_subdivisions + 1, plan.y_subdivisions + 1):  # the preview grid it has: positions
        mesh_io.write_positions(mesh, grid_positions(*preview_grid, heights, np.float32))
    elif plan.step > 1 and mesh.shape_keys is None:  # a new grid (subdivisions dragged): the preview's
        mesh.clear_geometry()
        mesh_io.build_grid(mesh, *grid(*preview_grid, heights))
    else:  # the grid changed meanwhile: the full rebuild follows
        return None
    write_maps(mesh, masks)
    mesh.update()
    return plan


def spread(heights: np.ndarray, plan: Preview, shape: dict) -> np.ndarray:
    """(N, 3) float32 positions of the full grid ``shape`` (``terrain.grid_positions``), each vertex at the height
    of the nearest vertex of the preview grid ``plan`` (its ``heights``, row-major from -y; halfway between two, the
    one further along)."""
    columns, rows = shape["x_subdivisions"] + 1, shape["y_subdivisions"] + 1
    kept = np.reshape(heights, (plan.y_subdivisions + 1, plan.x_subdivisions + 1))
    nearest = lambda count, kept, full: np.floor(np.arange(count) * (kept / full) + 0.5).astype(np.intp)  # noqa: E731 (ties up)
    across = nearest(columns, plan.x_subdivisions, shape["x_subdivisions"])
    down = nearest(rows, plan.y_subdivisions, shape["y_subdivisions"])
    spread_heights = kept.take(down, axis=0).take(across, axis=1)
    return grid_positions(shape["x_subdivisions"], shape["y_subdivisions"], shape["size"], spread_heights, np.float32)


KEPT_ATTRIBUTES = ("position", "sharp_face", "material_index")
"""Attributes a new grid keeps or rebuilds (besides UV maps and those Noisewright writes)."""


def _regrid_loses_nothing(obj: bpy.types.Object, mesh: bpy.types.Mesh) -> bool:
    """Whether giving ``mesh`` another grid loses nothing the full rebuild would not make again: no shape keys,
    no vertex groups, only attributes that are internal, UV maps, ``KEPT_ATTRIBUTES`` or written by
    Noisewright (erosion masks, flow maps, terrain maps)."""
    if mesh.shape_keys is not None or len(obj.vertex_groups):
        return False
    recorded = recorded_maps(obj).entries
    ours = {*KEPT_ATTRIBUTES, *MASKS, *DEPOSITS, *FLOW_ATTRIBUTES}
    ours |= {name for entry in recorded for name in entry["maps"]}
    ours |= {layer.name for layer in mesh.uv_layers}
    return all(a.name.startswith(".") or a.name in ours for a in mesh.attributes)
