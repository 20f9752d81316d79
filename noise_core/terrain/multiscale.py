"""Coarse to fine: a stage of a terrain run on the grid its features need, its change added back to the map.

A stage whose features are wider than the map's cells (the droplets' brush, the rivers' drainage network) runs on
the map sampled ``s`` times coarser (``model_shape``: a grid whose longer side is ``model_size`` cells, bilinear,
corner to corner, ``resample.resample_bilinear``); the change it makes there is interpolated bilinearly onto the
map and added to its heights (``add_change``), which keep their finer detail; then the stage refines on the map's
own cells only what that grid resolves (the rivers' last steps, the droplets' settling, thermal erosion). This is
the coarse-grid correction of multigrid methods (Brandt 1977, "Multi-level adaptive solutions to boundary-value
problems"; Briggs, Henson & McCormick 2000, "A Multigrid Tutorial", ch. 3) applied to a stage's change, and the
multi-scale erosion of Schott, Galin, Guérin, Peytavie & Paris 2024 ("Terrain amplification using multi-scale
erosion", ACM Transactions on Graphics 43(4)): each process at the scale of its landforms, a coarse terrain
eroded first and amplified by erosion at finer scales (the stream-power erosion on a coarse grid is Schott et
al. 2023's, "Large-scale terrain authoring through interactive erosion simulation", ACM TOG 42(5)).
The cost of a stage is then that of its model grid plus a pass over the map, and a map built at a larger size,
downsampled, matches the same map built at the model grid's size (tested in ``tests/test_multiscale.py``).
What the map gets on its own cells above the fine grid (the rivers' rock detail) keeps the drainage of the map
before it (``keep_drainage``: lifted along that map's flow, so it closes no pit).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace

import numpy as np

from .. import runtime
from .._jit import jit, kernel_table
from ..schema import Option
from ..threads import on_threads
from .flow import _edges, d8_receivers, fill_flat, stack_order
from .heightfield import check_heights
from .resample import bilinear_axis, resample_bilinear

MIN_MODEL = 16
"""The shortest side of a model grid, in cells."""
MAX_MODEL = 16385
MODEL_ALLOWED = f"0, or a whole number from {MIN_MODEL} to {MAX_MODEL}"


MODEL_SIZE = Option("model_size", int, 0, "Longer side of the grid the stage runs on, in cells (0: the map's own "
                    "cells; the droplets': chosen by their brush); its change is interpolated onto the map",
                    minimum=0, maximum=MAX_MODEL, allowed=MODEL_ALLOWED, soft_maximum=4097)  # fmt: skip
"""The ``model_size`` row of the droplets (``erosion.HYDRAULIC_OPTIONS``) and the rivers
(``fluvial.FLUVIAL_OPTIONS``)."""
FINE_SIZE = Option("fine_size", int, 0, "Longer side of the grid the whole stage runs on, in cells (0: the map's "
                   "own cells); its change is interpolated onto the map", minimum=0, maximum=MAX_MODEL,
                   allowed=MODEL_ALLOWED, soft_maximum=4097)  # fmt: skip
FINE_STEPS = Option("fine_steps", int, 0, "The last of the steps, run on the fine grid (the map's own cells, or "
                    "fine_size's) after those on the model grid", minimum=0, maximum=1_000_000,
                    soft_maximum=50)  # fmt: skip
DETAIL_STEPS = Option("detail_steps", int, 0, "With fine_size, on a map finer than the fine grid: one more step of "
                      "uplift and incision (no diffusion) in this many substeps, on the map's own cells (every "
                      "k-th of them if the map has over twice the fine grid's cells), cutting the channels the fine "
                      "grid cannot hold (0: none)", minimum=0, maximum=1000, soft_maximum=20)  # fmt: skip
"""The rivers' refinement above the fine grid (``fluvial.FLUVIAL_OPTIONS``; ``detail_shape``)."""
INTERPOLATIONS = ("bilinear", "spline")
FINE_INTERPOLATION = Option("fine_interpolation", str, "bilinear", "With fine_size, on a map finer than the fine "
                            "grid: how the fine grid's change is interpolated onto the map, bilinear, or spline: cut "
                            "to the frequencies the fine grid resolves in every direction, then the cubic B-spline "
                            "through it (no creases along the fine grid's lines)", choices=INTERPOLATIONS)  # fmt: skip
"""How the rivers' fine grid's change reaches the map (``add_change``, or ``band_limited`` then
``add_change_spline``)."""
MARGIN = Option("margin", float, 0.0, "Share of the map's size evolved beyond each edge on the model grid (the "
                "inputs reflected), so rivers leave at any angle", minimum=0.0, maximum=1.0)  # fmt: skip
"""The rivers' coarse to fine (``fluvial.FLUVIAL_OPTIONS``, the recipe's river stage): the grid the whole stage
runs on (``fine_size``), the steps on it after those on the model grid (``fine_steps``) and the model grid's
margin beyond the map's edges (``margin``)."""


FLOOR_INTERPOLATION = Option("floor_interpolation", str, "bilinear", "With fine_size and valley floors (valley_floor, "
                             "glacier_depth, trunk_fill or valley_fill), on a map finer than the fine grid: how the "
                             "floors' change, made on the fine grid, is interpolated onto the map, bilinear, or spline "
                             "as fine_interpolation's (no crosshatch along the fine grid's lines on the floors)",
                             choices=INTERPOLATIONS)  # fmt: skip
"""How the rivers stage's valley floors reach the map (the recipe's rivers stage)."""
KEEP_DRAINAGE = Option("keep_drainage", float, 0.0, "With fine_size, on a map finer than the fine grid: each cell "
                       "keeps at least this share of its drop to its receiver on the map before the rock detail, so "
                       "the rock detail closes no pit on the map's cells (0: off)", minimum=0.0,
                       maximum=1.0)  # fmt: skip
DRAIN_LAKES = Option("drain_lakes", bool, False, "With keep_drainage: the map's own pits before the rock detail (the "
                     "interpolated change's beads) are filled too, as level lakes, so no pit is left at all; off: "
                     "only the rock detail's new pits are")  # fmt: skip
"""The rivers stage's drainage above the fine grid (``keep_drainage``, ``drain_lakes``; the recipe's rivers
stage)."""


def model_shape(shape: tuple[int, ...], model_size: int, name: str = "model_size") -> tuple[int, int] | None:
    """The grid a stage with ``model_size`` runs on for a map of ``shape``: ``None`` (the map itself) for 0 or a
    size at least the map's longer side, else the map sampled ``s = (longer - 1) / (model_size - 1)`` times
    coarser along both axes, corner to corner. ``ValueError`` naming ``name`` for a size from 1 to
    ``MIN_MODEL - 1``, or one that leaves the shorter side under 3 cells."""
    if model_size == 0 or model_size >= max(shape):
        return None
    if model_size < MIN_MODEL:
        raise ValueError(f"{name}: must be {MODEL_ALLOWED}, got {model_size}")
    s = (max(shape) - 1) / (model_size - 1)
    coarse = (round((shape[0] - 1) / s) + 1, round((shape[1] - 1) / s) + 1)
    if min(coarse) < 3:
        raise ValueError(
            f"{name}: {model_size} samples the {shape[0]} x {shape[1]} map to {coarse[0]} x {coarse[1]} cells, under "
            "3 on its shorter side; take a larger model_size"
        )
    return coarse


def detail_shape(shape: tuple[int, ...], fine: tuple[int, ...]) -> tuple[int, int] | None:
    """The grid the detail steps run on for a map of ``shape`` above its fine grid ``fine``: ``None`` (the map's
    own cells) when the map's longer side has at most twice the fine grid's cells, else the map sampled every
    ``k``-th cell, corner to corner, ``k`` the smallest whole number that leaves at most that many (4033² over
    a 648² fine grid: every 4th, 1009², the vertices of a 1009² build)."""
    limit = 2 * (max(fine) - 1)
    longer = max(shape) - 1
    if longer <= limit:
        return None
    k = math.ceil(longer / limit)
    return (round((shape[0] - 1) / k) + 1, round((shape[1] - 1) / k) + 1)


def cells_per_model_cell(shape: tuple[int, ...], coarse: tuple[int, ...]) -> float:
    """``s``: the map's cells (of ``shape``) per cell of the model grid ``coarse`` (along the longer side)."""
    return (max(shape) - 1) / (max(coarse) - 1)


def add_change(
    cells: np.ndarray, change: np.ndarray, shape: tuple[int, int] | None = None, origin: tuple[int, int] = (0, 0)
) -> float:
    """Add to ``cells`` (float64, 2-D, C-contiguous, in place) the ``change`` of a coarser grid (2-D, at least
    2 x 2) interpolated bilinearly, corner to corner (``resample_bilinear``'s samples, without the full-size
    array); returns the sum added. ``cells`` may be the window at ``origin`` (row, column) of a map of ``shape``
    (None: ``cells`` is the map): it gets that map's samples there, bit for bit."""
    if cells.dtype != np.float64 or cells.ndim != 2 or not cells.flags.c_contiguous:
        raise AssertionError("add_change: cells must be a C-contiguous 2-D float64 array")
    change = np.ascontiguousarray(change, dtype=np.float64)
    rows, columns = cells.shape if shape is None else shape
    top, fy = (part[origin[0] : origin[0] + cells.shape[0]] for part in bilinear_axis(rows, change.shape[0]))
    left, fx = (part[origin[1] : origin[1] + cells.shape[1]] for part in bilinear_axis(columns, change.shape[1]))
    sums = np.empty(cells.shape[0])
    runtime.launch_blocks(_kernels().add_change, cells.shape[0], (cells, change, top, fy, left, fx, sums))
    return float(sums.sum())


SPLINE_POLE = math.sqrt(3.0) - 2.0
"""The pole of the cubic B-spline's interpolation filter (Unser 1999)."""


def add_change_spline(cells: np.ndarray, change: np.ndarray) -> float:
    """Add to ``cells`` (float64, 2-D, C-contiguous, in place) the ``change`` of a coarser grid (2-D, at least
    2 x 2) interpolated by the cubic B-spline through its samples, corner to corner (the positions of
    ``add_change``); returns the sum added. The spline's coefficients are the samples filtered by the recursive
    filter of Unser, Aldroubi & Eden (1991, "Fast B-spline transforms for continuous image representation and
    interpolation", IEEE PAMI 13(3)), with the grid mirrored at its edges (Unser 1999, "Splines: a perfect
    fit for signal and image processing", IEEE Signal Processing Magazine 16(6)); a cell then gets
    ``sum c[i + a, j + b] w_a(v) w_b(u)``, ``w`` the cubic B-spline's four weights. Its slope is continuous
    across the coarse grid's lines, where the bilinear interpolant's creases follow them."""
    if cells.dtype != np.float64 or cells.ndim != 2 or not cells.flags.c_contiguous:
        raise AssertionError("add_change_spline: cells must be a C-contiguous 2-D float64 array")
    coefficients = spline_coefficients(change)
    top, fy = bilinear_axis(cells.shape[0], coefficients.shape[0])
    left, fx = bilinear_axis(cells.shape[1], coefficients.shape[1])
    sums = np.empty(cells.shape[0])
    runtime.launch_blocks(_kernels().add_spline, cells.shape[0], (cells, coefficients, top, fy, left, fx, sums))
    return float(sums.sum())


def band_limited(samples: np.ndarray) -> np.ndarray:
    """``samples`` (2-D, at least 2 x 2) with their spectrum cut to the disc of the grid's Nyquist frequency,
    ``|k| <= 1/2`` cycle per cell (float64, new array): the grid's square spectrum reaches ``√2`` times further
    along its diagonals than along its axes, and what lies in those corners is the grid's own (a field resolved
    alike in every direction has none). The mirrored (even) extension's discrete Fourier transform, zero beyond
    the disc, transformed back (the ideal low-pass filter, Oppenheim & Schafer 2010, "Discrete-Time Signal
    Processing", ch. 7, in two dimensions)."""
    values = np.asarray(samples, dtype=np.float64)
    rows, columns = values.shape
    mirrored = np.concatenate([values, values[-2:0:-1]], axis=0)
    mirrored = np.concatenate([mirrored, mirrored[:, -2:0:-1]], axis=1)
    spectrum = np.fft.rfft2(mirrored)
    ky = np.fft.fftfreq(mirrored.shape[0])[:, None]
    kx = np.fft.rfftfreq(mirrored.shape[1])[None, :]
    spectrum[np.hypot(ky, kx) > 0.5] = 0.0
    return np.ascontiguousarray(np.fft.irfft2(spectrum, s=mirrored.shape)[:rows, :columns])


def spline_coefficients(samples: np.ndarray) -> np.ndarray:
    """The cubic B-spline coefficients (float64, new array) whose spline passes through the 2-D ``samples`` at
    their cells, mirrored at the edges (``add_change_spline``)."""
    rows = np.array(samples, dtype=np.float64, order="C")
    kernels = _kernels()
    runtime.launch_blocks(kernels.spline_lines, rows.shape[0], (rows, SPLINE_POLE))
    columns = np.ascontiguousarray(rows.T)
    runtime.launch_blocks(kernels.spline_lines, columns.shape[0], (columns, SPLINE_POLE))
    return np.ascontiguousarray(columns.T)


def coarse_to_fine(
    heights: np.ndarray, run: Callable[[np.ndarray, float], np.ndarray], coarse: tuple[int, int] | None
) -> np.ndarray:
    """``heights`` (2-D) changed by the stage ``run`` on the grid ``coarse`` (``model_shape``; ``None``: on
    ``heights`` itself): ``run(small, s)`` gets ``heights`` sampled to ``coarse`` (float64) and ``s``, the map's
    cells per cell of that grid, and returns the heights it makes there; their change is added to ``heights``
    (``add_change``). Returns a new float64 array."""
    values = np.array(heights, dtype=np.float64, order="C")
    if coarse is None:
        return np.asarray(run(values, 1.0), dtype=np.float64)
    small = resample_bilinear(values, coarse)
    after = np.asarray(run(small.copy(), cells_per_model_cell(values.shape, coarse)), dtype=np.float64)
    if after.shape != small.shape:
        raise AssertionError(f"coarse_to_fine: the stage returned {after.shape}, not the model grid {small.shape}")
    add_change(values, after - small)
    return values


def margin_axes(shape: tuple[int, int], spacing: float, share: float) -> tuple[np.ndarray, np.ndarray, int]:
    """A model grid with a margin: its rows and columns in cells of the map of ``shape`` (floats; outside
    ``[0, n - 1]`` in the margin), ``spacing`` apart from the map's first cell on, to at least its last, and
    ``pad`` cells more beyond each edge, ``pad = ceil(share · (longer - 1) / spacing)``; returns
    ``(rows, columns, pad)``."""
    pad = math.ceil(share * (max(shape) - 1) / spacing - 1e-9)
    axes = []
    for size in shape:
        cells = math.ceil((size - 1) / spacing - 1e-9) + 1 + 2 * pad
        axes.append((np.arange(cells) - pad) * spacing)
    return axes[0], axes[1], pad


def reflect(position: np.ndarray, size: int) -> np.ndarray:
    """``position`` (cells) folded into ``[0, size - 1]`` by reflection across the first and last cell."""
    period = 2.0 * (size - 1)
    folded = np.mod(position, period)
    return np.where(folded > size - 1, period - folded, folded)


def sample_reflected(grid: np.ndarray, rows: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """``grid`` sampled bilinearly at the rows ``rows`` and columns ``columns`` (floats, in its cells),
    reflected across its edges outside it."""
    y = reflect(rows, grid.shape[0])
    x = reflect(columns, grid.shape[1])
    top = np.minimum(y.astype(np.int64), grid.shape[0] - 2)
    left = np.minimum(x.astype(np.int64), grid.shape[1] - 2)
    fy, fx = (y - top)[:, None], (x - left)[None, :]
    upper = grid[top][:, left] * (1.0 - fx) + grid[top][:, left + 1] * fx
    lower = grid[top + 1][:, left] * (1.0 - fx) + grid[top + 1][:, left + 1] * fx
    return upper * (1.0 - fy) + lower * fy


def nearest_reflected(mask: np.ndarray, rows: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """The boolean ``mask`` at the cells nearest to ``rows`` and ``columns`` (reflected outside it)."""
    y = np.rint(reflect(rows, mask.shape[0])).astype(np.int64)
    x = np.rint(reflect(columns, mask.shape[1])).astype(np.int64)
    return mask[y][:, x]


def keep_drainage(reference: np.ndarray, heights: np.ndarray, share: float, lakes: bool = True) -> np.ndarray:
    """``heights`` (2-D, the shape of ``reference``; float64, new array) lifted where they would not keep
    ``share`` (0 to 1) of ``reference``'s descent. With ``lakes`` ``reference`` is first Priority-Flood filled
    (its pits level lakes, ``flow.fill_flat``); each cell's receiver ``r`` is its D8 steepest drop on it, or on
    a lake or other flat the next cell towards the flat's way out (breadth first from the cells of the flat that
    drain); the map's edges, and without ``lakes`` the bottoms of ``reference``'s pits, keep their height. Then,
    in the stack order of those receivers (Braun & Willett 2013), ``F_c = max(h_c, F_r + share·(ref_c -
    ref_r))``, at least one ``nextafter`` step above ``F_r``. So every cell keeps a path down ``F`` that falls
    by at least ``share`` of each drop of the (filled) reference, to the map's edge (with ``lakes``: no closed
    pit at all) or to the bottom of a pit ``reference`` has (without: no pit ``reference`` has not, no flat
    trench where it falls), and where ``heights`` already fall that much along the paths they keep their bits.
    Hutchinson's (1989, "A new procedure for gridding elevation and stream line data with automatic removal of
    spurious pits", Journal of Hydrology 106) drainage enforcement, by filling along the reference's flow
    rather than carving (Soille 2004, "Optimal removal of spurious pits in grid digital elevation models", Water
    Resources Research 40(12)).
    ``ValueError``/``TypeError`` naming the argument."""
    values = np.array(check_heights(heights), dtype=np.float64, order="C")
    if not isinstance(reference, np.ndarray) or reference.dtype.kind not in "fiu":
        raise TypeError(f"reference: expected a numpy array of real numbers, got {type(reference).__name__}")
    if reference.shape != values.shape:
        raise ValueError(f"reference: must have the heights' shape {values.shape}, got {reference.shape}")
    filled = np.array(reference, dtype=np.float64, order="C")
    if not np.isfinite(filled).all():
        raise ValueError("reference: must be finite (no NaN or infinity)")
    share = float(replace(KEEP_DRAINAGE, name="share").check(share))  # type: ignore[arg-type]
    if share == 0.0:
        return values
    if not isinstance(lakes, bool):
        raise TypeError(f"lakes: expected True or False, got {lakes!r}")
    rows, columns = values.shape
    if lakes:
        fill_flat(filled.reshape(-1), values.shape, _edges(values.shape), False, False)
    receivers = d8_receivers(filled)
    kernels = _kernels()
    queue = np.empty(receivers.shape[0], dtype=np.int64)
    kernels.drain_flats(filled.reshape(-1), rows, columns, receivers, queue)
    del queue  # engine sizes: freed before the stack order's own arrays
    kernels.lift(filled.reshape(-1), values.reshape(-1), receivers, stack_order(receivers), share)
    return values


def _drain_flats(flat, rows, columns, receivers, queue):
    """Give every inner cell without a receiver (``receivers[c] == c``; on a filled map, a cell of a flat) the
    neighbour of the same height it is reached from, breadth first from the cells of its flat that have a
    receiver. A serial kernel."""
    tail = 0
    for c in range(flat.shape[0]):
        y, x = c // columns, c % columns
        if receivers[c] != c or y == 0 or x == 0 or y == rows - 1 or x == columns - 1:
            continue
        for dy in range(-1, 2):
            for dx in range(-1, 2):
                n = (y + dy) * columns + x + dx
                drains = receivers[n] != n or _edge(n, rows, columns)
                if receivers[c] == c and n != c and flat[n] == flat[c] and drains:
                    receivers[c] = n
        if receivers[c] != c:
            queue[tail] = c
            tail += 1
    head = 0
    while head < tail:
        c = queue[head]
        head += 1
        y, x = c // columns, c % columns
        for dy in range(-1, 2):
            for dx in range(-1, 2):
                yy, xx = y + dy, x + dx
                if yy <= 0 or xx <= 0 or yy >= rows - 1 or xx >= columns - 1:
                    continue
                n = yy * columns + xx
                if receivers[n] == n and flat[n] == flat[c]:
                    receivers[n] = c
                    queue[tail] = n
                    tail += 1


@jit
def _edge(cell, rows, columns):
    """Whether ``cell`` (a flat index) lies on the map's edge."""
    y, x = cell // columns, cell % columns
    return y == 0 or x == 0 or y == rows - 1 or x == columns - 1


def _lift(reference, heights, receivers, order, share):
    """``heights`` (flat, in place) lifted along ``order`` (receivers first): each cell to at least its
    receiver's new height plus ``share`` of ``reference``'s drop to it, and a ``nextafter`` step. A serial
    kernel."""
    for c in order:
        r = receivers[c]
        if r == c:
            continue
        floor = heights[r] + share * (reference[c] - reference[r])
        floor = max(floor, np.nextafter(heights[r], np.inf))
        if heights[c] < floor:
            heights[c] = floor


def _add_change(first, last, cells, change, top, fy, left, fx, sums):
    """Add to rows ``first`` to ``last - 1`` of ``cells`` the coarse ``change`` bilinearly interpolated, as
    ``resample_bilinear`` does (``top``, ``fy``, ``left``, ``fx``: ``bilinear_axis`` of the rows and columns);
    ``sums[y]`` gets what row ``y`` gained. A range kernel over rows."""
    if first < 0:  # the launch
        on_threads(last)
        return
    for y in range(first, last):
        t, v = top[y], fy[y]
        total = 0.0
        for x in range(cells.shape[1]):
            u = fx[x]
            upper = change[t, left[x]] * (1.0 - u) + change[t, left[x] + 1] * u
            lower = change[t + 1, left[x]] * (1.0 - u) + change[t + 1, left[x] + 1] * u
            part = upper * (1.0 - v) + lower * v
            cells[y, x] += part
            total += part
        sums[y] = total


@jit
def _mirror(index, size):
    """``index`` folded into ``0 .. size - 1`` by the whole-sample mirror (period ``2 size - 2``)."""
    period = 2 * size - 2
    index = index % period
    return period - index if index > size - 1 else index


def _spline_lines(first, last, lines, pole):
    """Rows ``first`` to ``last - 1`` of ``lines`` replaced, in place, by their cubic B-spline coefficients:
    the gain ``(1 - z)(1 - 1/z)`` = 6, then the causal filter ``c(k) = f(k) + z c(k - 1)`` started from the
    mirrored signal's exact sum and the anticausal ``c(k) = z (c(k + 1) - c(k))`` (Unser 1999). A range kernel
    over rows."""
    if first < 0:  # the launch
        on_threads(last)
        return
    size = lines.shape[1]
    gain = (1.0 - pole) * (1.0 - 1.0 / pole)
    for y in range(first, last):
        line = lines[y]
        for k in range(size):
            line[k] *= gain
        if size == 1:
            continue
        period = 2 * size - 2
        total, power = 0.0, 1.0
        for k in range(period):  # the mirrored signal, one period: its causal sum from the first sample
            total += power * line[_mirror(k, size)]
            power *= pole
            if power == 0.0:
                break
        line[0] = total / (1.0 - pole**period)
        for k in range(1, size):
            line[k] += pole * line[k - 1]
        line[size - 1] = pole / (pole * pole - 1.0) * (line[size - 1] + pole * line[size - 2])
        for k in range(size - 2, -1, -1):
            line[k] = pole * (line[k + 1] - line[k])


def _add_spline(first, last, cells, coefficients, top, fy, left, fx, sums):
    """Add to rows ``first`` to ``last - 1`` of ``cells`` the cubic B-spline of ``coefficients`` (mirrored
    beyond the edges) at ``add_change``'s positions (``top``/``left`` the cell below, ``fy``/``fx`` the
    fraction); ``sums[y]`` gets what row ``y`` gained. A range kernel over rows."""
    if first < 0:  # the launch
        on_threads(last)
        return
    rows, columns = coefficients.shape
    line = np.empty(columns)
    wy = np.empty(4)
    wx = np.empty(4)
    for y in range(first, last):
        _spline_weights(fy[y], wy)
        for j in range(columns):
            value = 0.0
            for a in range(4):
                value += wy[a] * coefficients[_mirror(top[y] - 1 + a, rows), j]
            line[j] = value
        total = 0.0
        for x in range(cells.shape[1]):
            _spline_weights(fx[x], wx)
            part = 0.0
            for b in range(4):
                part += wx[b] * line[_mirror(left[x] - 1 + b, columns)]
            cells[y, x] += part
            total += part
        sums[y] = total


@jit
def _spline_weights(t, out):
    """The cubic B-spline's weights of the samples at ``-1, 0, 1, 2`` for a point ``t`` (0..1) past sample 0."""
    s = 1.0 - t
    out[0] = s * s * s / 6.0
    out[1] = (4.0 - 6.0 * t * t + 3.0 * t * t * t) / 6.0
    out[2] = (1.0 + 3.0 * t + 3.0 * t * t - 3.0 * t * t * t) / 6.0
    out[3] = t * t * t / 6.0


_kernels = kernel_table(serial=(_drain_flats, _lift), ranged=(_add_change, _add_spline, _spline_lines))
"""The compiled kernel, built on first use."""
