"""Erosion of meshes and images: finding a mesh's grid, running ``noise_core.terrain.erosion``, writing the masks.

A mesh can be eroded when its vertices are a regular grid in local X/Y: ``columns x rows`` vertices on
evenly spaced X and Y values (Add > Mesh > Grid, Noise Terrain, a plane subdivided evenly), in any vertex
order. Heights are the local Z. The masks go into float point attributes ``erosion`` and ``deposition``
(what each vertex lost or gained, in the mesh's units), for materials (an Attribute node) and Geometry Nodes,
and the depth of the loose material each stage left, ``sediment`` (the droplets', the rivers') and ``talus``
(thermal erosion's), stacked in the order the stages ran (``noise_core.terrain.layers.deposits``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import bpy
import numpy as np

from . import mesh_io
from .compile_status import before_erosion
from .errors import UserError
from .noise_core.terrain.erosion import ErosionResult, erode_hydraulic, erode_thermal, hydraulic_kinds
from .noise_core.terrain.layers import deposits, rock
from .noise_core.terrain.recipe import Stage

MASKS = ("erosion", "deposition")
"""The mask attributes (and image name suffixes) erosion writes."""
DEPOSITS = ("sediment", "talus")
"""The depth attributes of the loose material erosion leaves (``noise_core.terrain.layers.LAYER_NAMES``')."""
PROGRESS = 100
"""The progress ``erode_heights`` reports in all: hydraulic erosion batch by batch, then thermal erosion."""
THERMAL_PROGRESS = 10


SQUARE_TOLERANCE = 1e-3
"""Cells whose X and Y spacings differ by at most this fraction count as square (the spacings' own evenness
tolerance in ``grid_layout``)."""


@dataclass(frozen=True)
class GridLayout:
    """A grid mesh's shape: ``order[r * columns + c]`` is the vertex at column ``c`` (X) and row ``r`` (Y);
    ``x_spacing``/``y_spacing`` the mean distances between its columns and between its rows; ``cell_size`` their
    geometric mean (area-preserving: the cell size of a square grid)."""

    rows: int
    columns: int
    order: np.ndarray
    cell_size: float
    x_spacing: float
    y_spacing: float

    @property
    def square(self) -> bool:
        """Whether the cells are square (``SQUARE_TOLERANCE``)."""
        return abs(self.x_spacing - self.y_spacing) <= SQUARE_TOLERANCE * max(self.x_spacing, self.y_spacing)

    @property
    def spacing(self) -> float | tuple[float, float]:
        """The cell size ``noise_core``'s terrain maps take: ``cell_size`` for square cells, else ``(dy, dx)`` =
        ``(y_spacing, x_spacing)`` (rows along Y)."""
        return self.cell_size if self.square else (self.y_spacing, self.x_spacing)

    def square_cell(self, name: str, what: str) -> float:
        """``cell_size`` when the cells are square; ``UserError`` naming the object ``name`` and both spacings
        otherwise (``what``, with its verb, e.g. "erosion needs", says what needs square cells)."""
        if not self.square:
            raise UserError(
                f"{name!r}: its grid cells are {self.x_spacing:.6g} along X by {self.y_spacing:.6g} along Y, not "
                f"square; {what} square cells (give the grid as many subdivisions per unit of length along X "
                "as along Y)"
            )
        return self.cell_size


def _axis_levels(values: np.ndarray, tolerance: float) -> tuple[np.ndarray, np.ndarray]:
    """``(levels, index)``: the distinct values of ``values`` (within ``tolerance``) and each value's level."""
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    starts = np.concatenate(([True], np.diff(ordered) > tolerance))
    level_of_sorted = np.cumsum(starts) - 1
    index = np.empty(values.shape[0], dtype=np.int64)
    index[order] = level_of_sorted
    levels = ordered[starts]
    return levels, index


def _row_major_levels(xy: np.ndarray, tolerance: float) -> tuple[np.ndarray, np.ndarray] | None:
    """``(x levels, y levels)`` as ``_axis_levels`` finds them when the vertices ``xy`` are a grid in row order
    (rows of one Y, from the lowest, each with its X from the lowest: a Noise Terrain's, Add > Mesh > Grid's), in a
    few passes without sorting; None otherwise. Each column's X values then lie within ``tolerance`` of each other
    and more than ``tolerance`` below the next column's (so do the rows' Y values), which makes the columns and rows
    exactly ``_axis_levels``' clusters, and their lowest values its levels."""
    x, y = xy[:, 0], xy[:, 1]
    columns = int(np.argmax(np.abs(y - y[0]) > tolerance))  # the second row's first vertex; 0 when there is none
    if columns == 0 or x.shape[0] % columns:
        return None
    x, y = x.reshape(-1, columns), y.reshape(-1, columns)
    x_low, x_high, y_low, y_high = x.min(axis=0), x.max(axis=0), y.min(axis=1), y.max(axis=1)
    clusters = all((high - low <= tolerance).all() for low, high in ((x_low, x_high), (y_low, y_high)))
    apart = all((low[1:] - high[:-1] > tolerance).all() for low, high in ((x_low, x_high), (y_low, y_high)))
    return (x_low, y_low) if clusters and apart else None  # NaN compares False: not a grid here


def grid_layout(name: str, positions: np.ndarray) -> GridLayout:
    """The grid of ``positions`` (N, 3) in X/Y; ``UserError`` naming ``name`` when they are not one."""
    not_grid = (
        f"{name!r}: not a regular grid mesh (its vertices must lie on evenly spaced X and Y values, at least "
        f"3 x 3, as Add > Mesh > Grid or Noise Terrain make)"
    )
    if positions.shape[0] < 9:
        raise UserError(not_grid)
    xy = positions[:, :2].astype(np.float64)
    extent = max(float(np.ptp(xy[:, 0])), float(np.ptp(xy[:, 1])))  # per column: numpy reduces (N, 2) slowly
    tolerance = max(extent, 1e-12) * 1e-5
    in_rows = _row_major_levels(xy, tolerance)
    if in_rows is not None:  # vertex r * columns + c is at column c and row r: the order is the vertices'
        x_levels, y_levels = in_rows
        columns, rows = x_levels.shape[0], y_levels.shape[0]
        order = np.arange(positions.shape[0], dtype=np.int64)
    else:
        x_levels, column = _axis_levels(xy[:, 0], tolerance)
        y_levels, row = _axis_levels(xy[:, 1], tolerance)
        columns, rows = x_levels.shape[0], y_levels.shape[0]
        if columns * rows != positions.shape[0]:
            raise UserError(not_grid)
        cell = row * columns + column
        if np.bincount(cell, minlength=rows * columns).max() != 1:
            raise UserError(not_grid)
        order = np.empty(rows * columns, dtype=np.int64)
        order[cell] = np.arange(positions.shape[0])
    if columns < 3 or rows < 3:
        raise UserError(not_grid)
    spacings = [np.diff(levels) for levels in (x_levels, y_levels)]
    if any(np.ptp(spacing) > 1e-3 * spacing.mean() for spacing in spacings):
        raise UserError(f"{name!r}: the grid's rows or columns are not evenly spaced")
    x_spacing, y_spacing = float(spacings[0].mean()), float(spacings[1].mean())
    cell_size = float(np.sqrt(x_spacing * y_spacing))
    return GridLayout(rows, columns, order, cell_size, x_spacing, y_spacing)


def erode_heights(
    heights: np.ndarray,
    cell_size: float,
    hydraulic: dict[str, Any] | None,
    thermal: dict[str, Any] | None,
    advance: Callable[[int], None] = lambda _steps: None,
    strata: float = 0.0,
) -> ErosionResult:
    """``heights`` (2-D) eroded by hydraulic then thermal erosion (each when its options are given), masks and
    totals over both; ``UserError`` with ``noise_core``'s message (it names the option) for bad options.
    ``advance(n)`` moves the progress on, ``PROGRESS`` in all (per batch of droplets); a first use that
    compiles is announced first (``compile_status.before_erosion``). ``strata`` > 0: each erodes over the rock
    strata of the heights it starts from (``layers.rock``), as a recipe's stages replay it."""
    if hydraulic is None and thermal is None:
        raise UserError("hydraulic, thermal: turn on at least one kind of erosion")
    before = np.asarray(heights, dtype=np.float32)
    current, carried_off = before, 0.0
    stages: list[ErosionResult] = []
    shown = 0
    hydraulic_share = PROGRESS if thermal is None else PROGRESS - THERMAL_PROGRESS

    def progress(done: int, total: int) -> None:
        nonlocal shown
        now = hydraulic_share * done // max(total, 1)
        advance(now - shown)
        shown = now

    try:
        if hydraulic is not None:
            before_erosion(hydraulic_kinds(before.shape, cell_size=cell_size, **hydraulic))
            result = erode_hydraulic(
                current, progress, cell_size=cell_size, **hydraulic, **rock(current, cell_size, strata)
            )
            current, carried_off = result.heights, result.carried_off
            stages.append(result)
        if thermal is not None:
            before_erosion(("thermal",))
            stages.append(erode_thermal(current, cell_size=cell_size, **thermal, **rock(current, cell_size, strata)))
            current = stages[-1].heights
    except (TypeError, ValueError) as error:
        raise UserError(str(error)) from None
    advance(PROGRESS - shown)
    change = current.astype(np.float64) - before
    erosion, deposition = np.maximum(-change, 0.0), np.maximum(change, 0.0)
    sediment, talus = deposits(stages)
    return ErosionResult(
        heights=current,
        erosion=erosion.astype(np.float32),
        deposition=deposition.astype(np.float32),
        eroded=float(erosion.sum()),
        deposited=float(deposition.sum()),
        carried_off=carried_off,
        kind="stages",
        sediment=sediment,
        talus=talus,
    )


def write_masks(
    mesh: bpy.types.Mesh,
    erosion: np.ndarray | None,
    deposition: np.ndarray | None,
    sediment: np.ndarray | None = None,
    talus: np.ndarray | None = None,
) -> None:
    """Store the per-vertex masks and the depths of sediment and talus (``DEPOSITS``) as float point attributes;
    ``None`` removes one (a terrain without erosion; masks written without depths leave no stale depths)."""
    write_maps(mesh, dict(zip((*MASKS, *DEPOSITS), (erosion, deposition, sediment, talus), strict=True)))


def write_maps(mesh: bpy.types.Mesh, maps: dict[str, np.ndarray | None]) -> None:
    """Store each per-vertex map of ``maps`` as the float point attribute of its name; ``None`` removes it."""
    for name, values in maps.items():
        if values is not None:
            mesh_io.write_point_floats(mesh, name, values)
        elif (attribute := mesh.attributes.get(name)) is not None:
            mesh.attributes.remove(attribute)


def _terrain(obj: bpy.types.Object) -> Any:
    """The terrain settings of ``obj`` when it is a Noise Terrain, else None."""
    settings = getattr(obj, "noisewright_terrain", None)
    return settings if settings is not None and settings.is_terrain else None


def record_stage(obj: bpy.types.Object, stage: Stage) -> None:
    """Remember on ``obj``, when it is a Noise Terrain, that ``stage`` was applied to its mesh: it becomes a stage
    of its recipe (``terrain_settings.applied_stages``), run after the settings' stages by every later rebuild
    (Regenerate, an export at another resolution, a saved recipe)."""
    terrain = _terrain(obj)
    if terrain is not None:
        records = json.loads(terrain.applied_stages or "[]")
        terrain.applied_stages = json.dumps([*records, {"stage": stage.kind, **stage.options}])


def mark_unreplayable(obj: bpy.types.Object, what: str) -> None:
    """Remember on ``obj``, when it is a Noise Terrain, that ``what`` changed its mesh in a way its recipe cannot
    replay: an export at another resolution then refuses, naming it."""
    terrain = _terrain(obj)
    if terrain is not None:
        terrain.unreplayable = what
