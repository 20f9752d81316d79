"""Landscapes: ``erode_fluvial`` run coarse to fine, with a margin beyond the map's edges.

``evolve_landscape`` evolves a terrain by uplift, stream-power incision and hillslope diffusion
(``terrain.fluvial``, Braun & Willett 2013; as Cordonnier et al. 2016 generate terrains) in two stages, as
Schott et al. (2023, "Large-scale terrain authoring through interactive erosion simulation") and World Creator
do: first for ``steps`` steps on a grid ``coarse`` times coarser, where the drainage network forms and reaches its
steady state at a fraction of the cost, then, the coarse stage's change upsampled bilinearly and added to the
input (the coarse-grid correction of multigrid methods, Brandt 1977: the input keeps its detail finer than the
coarse grid), for ``refine_steps`` steps on the map's own grid, which cut the finer valleys the coarse grid
cannot hold.

**Margin.** A map whose edges are base level drains straight to them: rivers meet the four edges at right angles
and every slope near them faces one of four directions, a square symmetry no real tile has. With ``margin`` the
coarse stage evolves the map with ``margin`` times its size more on every side (the inputs reflected across the
edges), so the map is a window in a larger landscape: its rivers leave at any angle and its edges are not the
lowest ground. The refine stage then holds the map's edges at the heights the coarse stage gave them (base
level: they neither rise nor erode).

Sampling: the coarse grid's cells are ``coarse`` cells of the map apart (square), its first cell on the map's
first (beyond the last cell it reaches into the reflection); maps (uplift, erodibility, precipitation) are
sampled bilinearly, outlets at the nearest cell. ``coarse = 1`` with ``margin = 0`` and no refine steps is
``erode_fluvial`` itself, bit for bit.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace

import numpy as np

from .._jit import kernel_table
from ..schema import Option
from .flow import _edges, accumulate, d8_receivers, fill_flat, stack_order
from .fluvial import OPTIONS_BY_NAME as FLUVIAL_BY_NAME
from .fluvial import FluvialResult, erode_fluvial
from .heightfield import CELL_SIZE, check_heights, check_mask

LANDSCAPE_OPTIONS: tuple[Option, ...] = (
    Option("coarse", int, 1, "Evolve first on a grid this many times coarser, then refine on the map's own "
           "(1: the map's only)", minimum=1, maximum=64, soft_maximum=8),
    Option("margin", float, 0.0, "Share of the map's size evolved beyond each edge on the coarse grid (the "
           "inputs reflected), so rivers leave at any angle", minimum=0.0, maximum=1.0),
    Option("refine_steps", int, 0, "Steps on the map's own grid after the coarse ones", minimum=0,
           maximum=1_000_000, soft_maximum=200),
)  # fmt: skip
OPTIONS_BY_NAME = {option.name: option for option in LANDSCAPE_OPTIONS}
MAPS = ("uplift", "erodibility", "precipitation")
FILL = Option(
    "valley_fill",
    float,
    0.0,
    "Fill valley floors with sediment: a river's flood level stands "
    "valley_fill x sqrt(drainage area) above its bed (0: none)",
    minimum=0.0,
    maximum=10.0,
    soft_maximum=0.05,
)


def evolve_landscape(
    heights: np.ndarray,
    *,
    steps: int,
    dt: float,
    uplift: float | np.ndarray,
    erodibility: float | np.ndarray,
    cell_size: float = 1.0,
    coarse: int = 1,
    margin: float = 0.0,
    refine_steps: int = 0,
    precipitation: np.ndarray | None = None,
    outlets: np.ndarray | None = None,
    progress: Callable[[int, int], object] | None = None,
    **options: object,
) -> FluvialResult:
    """``heights`` evolved by ``erode_fluvial`` coarse to fine (module docstring): ``steps`` steps of ``dt`` on a
    grid ``coarse`` times coarser with ``margin`` around it, then ``refine_steps`` on the map's grid.
    ``options``: ``erode_fluvial``'s other keywords (``m``, ``n``, ``diffusion``, ``routing``, ...), for both
    stages. ``progress(done, steps + refine_steps)`` after every step. The result's ``erosion``/``deposition``
    are what each cell lost or gained besides its uplift over both stages. ``ValueError``/``TypeError`` naming
    the argument for a bad value."""
    checked = check_heights(heights)
    factor = int(OPTIONS_BY_NAME["coarse"].check(coarse))  # type: ignore[call-overload]
    share = float(OPTIONS_BY_NAME["margin"].check(margin))  # type: ignore[arg-type]
    refining = int(OPTIONS_BY_NAME["refine_steps"].check(refine_steps))  # type: ignore[call-overload]
    if factor == 1 and share == 0.0 and refining == 0:
        return erode_fluvial(checked, steps=steps, dt=dt, uplift=uplift, erodibility=erodibility,
                             cell_size=cell_size, precipitation=precipitation, outlets=outlets, progress=progress,
                             **options)  # type: ignore[arg-type]  # fmt: skip
    if options.get("boundary", "edges") != "edges":
        raise ValueError("boundary: a coarse stage, margin or refine steps need boundary='edges'")
    if progress is not None and not callable(progress):
        raise TypeError(f"progress: expected a callable (done, steps), got {type(progress).__name__}")
    cell = float(CELL_SIZE.check(cell_size))  # type: ignore[arg-type]
    shape = (int(checked.shape[0]), int(checked.shape[1]))
    before = np.asarray(checked, dtype=np.float64)
    fields = {"uplift": uplift, "erodibility": erodibility, "precipitation": precipitation}
    maps = {name: value for name, value in fields.items() if isinstance(value, np.ndarray)}
    for name, value in maps.items():  # erode_fluvial checks them fully; the sampling needs their shape
        if value.shape != shape:
            raise ValueError(f"{name}: must have the heights' shape {shape}, got {value.shape}")
    if outlets is not None:
        check_mask("outlets", outlets, shape)
    count = int(FLUVIAL_BY_NAME["steps"].check(steps))  # type: ignore[call-overload]
    total = count + refining
    rows, columns = _coarse_axes(shape, factor, share)
    sample = {name: _bilinear(np.asarray(value, dtype=np.float64), rows, columns) for name, value in maps.items()}
    coarse_outlets = None if outlets is None else _nearest(outlets, rows, columns)
    coarse_before = _bilinear(before, rows, columns)
    first = erode_fluvial(
        coarse_before, steps=steps, dt=dt, cell_size=cell * factor,
        uplift=sample.get("uplift", uplift), erodibility=sample.get("erodibility", erodibility),
        precipitation=sample.get("precipitation"), outlets=coarse_outlets,
        progress=None if progress is None else lambda done, _steps: progress(done, total), **options,
    )  # type: ignore[arg-type]  # fmt: skip
    pad = _pad(shape, factor, share)
    fine_rows = np.arange(shape[0]) / factor + pad
    fine_columns = np.arange(shape[1]) / factor + pad
    change = first.heights.astype(np.float64) - coarse_before  # the coarse-grid correction: the input keeps its
    upsampled = before + _bilinear(change, fine_rows, fine_columns)  # detail finer than the coarse grid
    second = erode_fluvial(
        upsampled, steps=refining, dt=dt, cell_size=cell, uplift=uplift, erodibility=erodibility,
        precipitation=precipitation, outlets=outlets,
        progress=None if progress is None else lambda done, _steps: progress(count + done, total), **options,
    )  # type: ignore[arg-type]  # fmt: skip
    return _combined(before, upsampled, second, uplift, float(dt), count, refining, outlets)


def fill_valleys(
    heights: np.ndarray, *, cell_size: float = 1.0, depth: float, outlets: np.ndarray | None = None
) -> np.ndarray:
    """Valley floors filled with sediment (float64, new array): every river stands ``depth · √A`` above its bed
    (``A`` its drainage area, in the heights' unit squared) as a flood level ``W``, carried upstream along the
    D8 flow of the epsilon-filled heights, ``W(c) = max(W(r), h(c) + depth·√A(c))`` (``r`` the receiver, outlets
    and edges their own height), and every cell below its receiver's level rises to it: the bottom of each valley
    becomes a flat floor, falling downstream, as wide as the level meets its walls."""
    checked = check_heights(heights)
    cell = float(CELL_SIZE.check(cell_size))  # type: ignore[arg-type]
    fill = float(replace(FILL, name="depth").check(depth))  # type: ignore[arg-type]
    shape = (int(checked.shape[0]), int(checked.shape[1]))
    base = _edges(shape)
    if outlets is not None:
        base |= check_mask("outlets", outlets, shape).reshape(-1)
    h = np.array(checked, dtype=np.float64).reshape(-1)
    fill_flat(h, shape, base, False, True)
    receivers = d8_receivers(h.reshape(shape), outlets=base)
    order = stack_order(receivers)
    area = accumulate(receivers, order, np.full(h.shape[0], cell * cell))
    _kernels().flood(h, receivers, order, area, fill)
    return h.reshape(shape)


def _pad(shape: tuple[int, int], factor: int, share: float) -> int:
    """The coarse cells of margin on each side: ``share`` of the map's longer side."""
    return math.ceil(share * (max(shape) - 1) / factor)


def _coarse_axes(shape: tuple[int, int], factor: int, share: float) -> tuple[np.ndarray, np.ndarray]:
    """The coarse grid's rows and columns in cells of the map (floats; outside ``[0, n - 1]`` in the margin):
    ``factor`` apart, from ``-pad·factor`` on, to at least the last cell plus ``pad·factor``."""
    pad = _pad(shape, factor, share)
    axes = []
    for size in shape:
        cells = math.ceil((size - 1) / factor) + 1 + 2 * pad
        axes.append((np.arange(cells) - pad) * float(factor))
    return axes[0], axes[1]


def _reflect(position: np.ndarray, size: int) -> np.ndarray:
    """``position`` (cells) folded into ``[0, size - 1]`` by reflection across the first and last cell."""
    period = 2.0 * (size - 1)
    folded = np.mod(position, period)
    return np.where(folded > size - 1, period - folded, folded)


def _bilinear(grid: np.ndarray, rows: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """``grid`` sampled bilinearly at the rows ``rows`` and columns ``columns`` (floats, in its cells),
    reflected across its edges outside it."""
    y = _reflect(rows, grid.shape[0])
    x = _reflect(columns, grid.shape[1])
    top = np.minimum(y.astype(np.int64), grid.shape[0] - 2)
    left = np.minimum(x.astype(np.int64), grid.shape[1] - 2)
    fy, fx = (y - top)[:, None], (x - left)[None, :]
    upper = grid[top][:, left] * (1.0 - fx) + grid[top][:, left + 1] * fx
    lower = grid[top + 1][:, left] * (1.0 - fx) + grid[top + 1][:, left + 1] * fx
    return upper * (1.0 - fy) + lower * fy


def _nearest(mask: np.ndarray, rows: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """The boolean ``mask`` at the cells nearest to ``rows`` and ``columns`` (reflected outside it)."""
    y = np.rint(_reflect(rows, mask.shape[0])).astype(np.int64)
    x = np.rint(_reflect(columns, mask.shape[1])).astype(np.int64)
    return mask[y][:, x]


def _combined(before, upsampled, second, uplift, dt, count, refining, outlets) -> FluvialResult:
    """``second`` (the refine stage's result) with ``erosion``/``deposition`` against the input ``before``:
    the change less the uplift of both stages (the coarse stage lifts every cell of the map; the refine stage
    all but the edges and outlets, which are its base level)."""
    rising = np.broadcast_to(np.asarray(uplift, dtype=np.float64), before.shape)
    held = np.zeros(before.shape, dtype=bool)
    held[[0, -1], :] = held[:, [0, -1]] = True
    if outlets is not None:
        held |= outlets
    lifted = rising * (dt * count) + np.where(held, 0.0, rising * (dt * refining))
    change = second.heights.astype(np.float64) - before - lifted
    erosion = np.maximum(-change, 0.0)
    deposition = np.maximum(change, 0.0)
    return FluvialResult(
        heights=second.heights,
        drainage_area=second.drainage_area,
        rivers=second.rivers,
        erosion=erosion.astype(np.float32),
        deposition=deposition.astype(np.float32),
        eroded=float(erosion.sum()),
        deposited=float(deposition.sum()),
    )


def _flood(h, receivers, order, area, fill):
    """``fill_valleys``' pass along the stack (receiver first): ``level`` holds each cell's flood level ``W``."""
    level = np.empty(h.shape[0])
    for i in range(order.shape[0]):
        cell = order[i]
        receiver = receivers[cell]
        own = h[cell] + fill * math.sqrt(area[cell])
        if receiver == cell:
            level[cell] = own
            continue
        if h[cell] < level[receiver]:
            h[cell] = level[receiver]
        level[cell] = max(level[receiver], own)


_kernels = kernel_table(serial=(_flood,))
"""The compiled kernels, built on first use."""
