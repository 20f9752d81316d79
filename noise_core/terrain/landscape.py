"""Landscapes: ``erode_fluvial`` run coarse to fine, with a margin beyond the map's edges, and valley floors.

``evolve_landscape`` evolves a terrain by uplift, stream-power incision and hillslope diffusion
(``terrain.fluvial``, Braun & Willett 2013; as Cordonnier et al. 2016 generate terrains) as Schott et al. (2023,
"Large-scale terrain authoring through interactive erosion simulation") and World Creator do: first on a model
grid of ``model_size`` cells, where the drainage network forms and reaches its steady state at a fraction of the
cost, then, the model grid's change upsampled bilinearly and added to the input (the coarse-grid correction of
multigrid methods, Brandt 1977: the input keeps its detail finer than the model grid), ``fine_steps`` steps on
the fine grid, which cut the finer valleys the model grid cannot hold. It is ``erode_fluvial`` with its
coarse-to-fine options (``multiscale``: ``fine_size``, ``model_size``, ``margin``, ``fine_steps``, declared once
there): one mechanism for the rivers of a landscape, of a recipe and of the Erode Rivers operator.

**Margin.** A map whose edges are base level drains straight to them: rivers meet the four edges at right angles
and every slope near them faces one of four directions, a square symmetry no real tile has. With ``margin`` the
model grid holds the map with ``margin`` times its size more on every side (the inputs reflected across the
edges), so the map is a window in a larger landscape: its rivers leave at any angle and its edges are not the
lowest ground. The fine steps then hold the map's edges at the heights the model grid gave them (base level: they
neither rise nor erode).

**Fine grid.** With ``fine_size`` the whole evolution runs on the map sampled to a grid of ``fine_size`` cells
and only its change is interpolated onto the map, so a map built at any size gets the same rivers, at the cost
of that grid and one pass over the map (a preview and an engine-size build agree; docs/scale.md).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace

import numpy as np

from .._jit import kernel_table
from ..schema import Option
from .flow import _edges, accumulate, d8_receivers, fill_flat, stack_order
from .fluvial import FluvialResult, erode_fluvial
from .heightfield import CELL_SIZE, check_heights, check_mask

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
    model_size: int = 0,
    margin: float = 0.0,
    fine_steps: int = 0,
    fine_size: int = 0,
    precipitation: np.ndarray | None = None,
    outlets: np.ndarray | None = None,
    progress: Callable[[int, int], object] | None = None,
    **options: object,
) -> FluvialResult:
    """``heights`` evolved by ``erode_fluvial`` coarse to fine (module docstring): on the grid of ``fine_size``
    cells (0: the map's), the first ``steps - fine_steps`` steps of ``dt`` on the model grid of ``model_size``
    cells with ``margin`` around it, the last ``fine_steps`` on the fine grid. ``options``: ``erode_fluvial``'s
    other keywords (``m``, ``n``, ``diffusion``, ``routing``, ...). ``progress(done, steps)`` after every step.
    The result's ``erosion``/``deposition`` are what each cell lost or gained besides its uplift.
    ``ValueError``/``TypeError`` naming the argument for a bad value."""
    return erode_fluvial(heights, steps=steps, dt=dt, uplift=uplift, erodibility=erodibility, cell_size=cell_size,
                         model_size=model_size, margin=margin, fine_steps=fine_steps, fine_size=fine_size,
                         precipitation=precipitation, outlets=outlets, progress=progress,
                         **options)  # type: ignore[arg-type]  # fmt: skip


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
