"""Hydraulic and thermal erosion of heightmaps.

**Hydraulic** (``erode_hydraulic``): the droplet model of Hans Theobald Beyer, "Implementation of a method
for hydraulic erosion" (2015), as Sebastian Lague ported it. A droplet starts at a random point with
``initial_water`` and ``initial_speed``; each step it reads the bilinear height ``h`` and gradient ``g`` at
its position, turns ``d = d·inertia - g·(1 - inertia)`` (normalised) and moves one cell. With the height
change ``Δh`` its capacity is ``c = max(-Δh, min_slope)·speed·water·capacity``; it deposits
``min(Δh, sediment)`` going uphill or ``(sediment - c)·deposition`` when over capacity (bilinearly on the
four corners of the cell it left), and otherwise erodes ``min((c - sediment)·erosion, -Δh)`` through a disc
of ``radius`` cells around that cell (weights ``radius - distance``, normalised). Then
``speed = sqrt(max(0, speed² - Δh·gravity))`` and ``water *= 1 - evaporation``. Two fixes to the port: speed
grows going downhill (``- Δh``, as in Beyer; the port adds ``Δh``), and no cell of the disc is taken below
the height the droplet flows down to, ``h + Δh`` (the port only keeps cells above 0, which assumes
non-negative maps and lets cells sink below their neighbours: with many droplets, runaway pits). Nothing
vanishes: a droplet that leaves the map carries its sediment off the edge, one that stops (no slope, or
lifetime over) drops it where it is.

Heights and ``cell_size`` share one unit: the model runs on heights in cells (``heights / cell_size``), so
slopes are true slopes and a terrain erodes the same at any resolution of the same shape. Droplets run one
after another on one thread (each changes the terrain the next one flows over), so the result depends only
on the seed, never on the thread count. Start points are ``SmallXXHash(seed)`` of the droplet's index.

**Thermal** (``erode_thermal``): material slides off slopes steeper than the talus angle. Each iteration,
every cell whose drop ``h - h_n`` to a neighbour ``n`` (8 neighbours, distance 1 or √2 cells) exceeds
``tan(talus_angle)·distance`` moves ``rate·(largest excess)/2`` to those neighbours, split by excess; all
moves are computed from the same state and then applied (in parallel, with the same bits on any thread
count). The map's edges are closed: no material leaves.

Both return an ``ErosionResult``: the new heights (float32; the input is not changed), the masks
``erosion = max(0, before - after)`` and ``deposition = max(0, after - before)`` per cell, and their totals,
with ``carried_off`` (what droplets took over the edges): ``eroded - deposited = carried_off`` up to float
rounding. The work runs in float64 and is rounded to float32 once at the end.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import numpy as np

from ._jit import jit, range_kernel, serial_kernel
from .fractal import launch_blocks
from .hashing import avalanche, eat, hash_seed
from .schema import Option
from .threads import on_threads

MAX_CELLS = 1 << 28
HYDRAULIC_OPTIONS: tuple[Option, ...] = (
    Option("droplets", int, 200_000, "Number of droplets", minimum=0, maximum=100_000_000, soft_maximum=2_000_000),
    Option("seed", int, 0, "Start points: SmallXXHash(seed) of the droplet index", minimum=-(2**31),
           maximum=2**31 - 1),
    Option("lifetime", int, 30, "Steps a droplet takes at most", minimum=1, maximum=1000, soft_maximum=100),
    Option("inertia", float, 0.05, "How much a droplet keeps its direction (0: follows the slope)", minimum=0.0,
           maximum=1.0),
    Option("capacity", float, 4.0, "Sediment a droplet can carry per unit of slope, speed and water", minimum=0.0,
           maximum=1000.0, soft_maximum=20.0),
    Option("min_slope", float, 0.01, "Slope used for the capacity on flatter ground", minimum=0.0, maximum=10.0,
           soft_maximum=0.1),
    Option("deposition", float, 0.3, "Fraction of the excess sediment dropped per step", minimum=0.0, maximum=1.0),
    Option("erosion", float, 0.3, "Fraction of the free capacity taken from the ground per step", minimum=0.0,
           maximum=1.0),
    Option("evaporation", float, 0.01, "Fraction of the water lost per step", minimum=0.0, maximum=1.0),
    Option("gravity", float, 4.0, "Acceleration along the slope", minimum=0.0, maximum=1000.0, soft_maximum=20.0),
    Option("radius", int, 3, "Radius in cells of the disc a droplet erodes", minimum=1, maximum=8),
    Option("initial_water", float, 1.0, "Water of a new droplet", minimum=0.0, above=True, maximum=1000.0,
           ui_minimum=1e-3, soft_maximum=10.0),
    Option("initial_speed", float, 1.0, "Speed of a new droplet", minimum=0.0, maximum=1000.0, soft_maximum=10.0),
)  # fmt: skip
THERMAL_OPTIONS: tuple[Option, ...] = (
    Option("talus_angle", float, 35.0, "Steepest stable slope, in degrees", minimum=0.0, maximum=89.0),
    Option("iterations", int, 50, "Relaxation steps", minimum=0, maximum=100_000, soft_maximum=500),
    Option("rate", float, 0.5, "Fraction of the excess moved per step", minimum=0.0, maximum=1.0),
)
CELL_SIZE = Option("cell_size", float, 1.0, "Distance between cells, in the heights' unit", minimum=0.0,
                   above=True, maximum=1e30)  # fmt: skip


@dataclass(frozen=True)
class ErosionResult:
    """Eroded ``heights`` (float32, new array), per-cell ``erosion`` and ``deposition`` masks (float32, >= 0) and
    totals: ``eroded`` = sum of erosion, ``deposited`` = sum of deposition, ``carried_off`` = sediment that left
    over the edges (0 for thermal erosion)."""

    heights: np.ndarray
    erosion: np.ndarray
    deposition: np.ndarray
    eroded: float
    deposited: float
    carried_off: float


def _check_heights(heights: object) -> np.ndarray:
    if not isinstance(heights, np.ndarray):
        raise TypeError(f"heights: expected a 2-D numpy array, got {type(heights).__name__}")
    if heights.dtype.kind not in "fiu" or heights.dtype == np.bool_:
        raise TypeError(f"heights: dtype must be a real number type, got {heights.dtype}")
    if heights.ndim != 2 or min(heights.shape) < 3:
        raise ValueError(f"heights: must be a 2-D array of at least 3x3 cells, got shape {heights.shape}")
    if heights.size > MAX_CELLS:
        raise ValueError(f"heights: {heights.shape[0]}x{heights.shape[1]} exceeds the limit of {MAX_CELLS} cells")
    if not np.isfinite(heights).all():
        raise ValueError("heights: must be finite (no NaN or infinity)")
    return heights


def _options(options: tuple[Option, ...], values: dict) -> dict:
    unknown = sorted(set(values) - {option.name for option in options} - {"cell_size"})
    if unknown:
        allowed = ", ".join(option.name for option in (*options, CELL_SIZE))
        raise TypeError(f"{unknown[0]}: not an erosion option; allowed: {allowed}")
    checked = {option.name: option.check(values.get(option.name, option.default)) for option in options}
    checked["cell_size"] = CELL_SIZE.check(values.get("cell_size", CELL_SIZE.default))
    return checked


def _result(before: np.ndarray, after: np.ndarray, scale: float, carried_off: float) -> ErosionResult:
    """The result of eroding ``before`` (float64, in cells) to ``after``; ``scale`` = cell size."""
    change = (after - before) * scale
    heights = ((before + (after - before)) * scale).astype(np.float32)
    erosion = np.maximum(-change, 0.0)
    deposition = np.maximum(change, 0.0)
    return ErosionResult(
        heights=heights,
        erosion=erosion.astype(np.float32),
        deposition=deposition.astype(np.float32),
        eroded=float(erosion.sum()),
        deposited=float(deposition.sum()),
        carried_off=float(carried_off * scale),
    )


def erode_hydraulic(heights: np.ndarray, **options: object) -> ErosionResult:
    """Hydraulic (droplet) erosion of ``heights`` (a 2-D array, rows along y); options in ``HYDRAULIC_OPTIONS``
    and ``cell_size``. ``ValueError``/``TypeError`` naming the option for a bad value."""
    values = _options(HYDRAULIC_OPTIONS, options)
    cells = np.asarray(_check_heights(heights), dtype=np.float64) / values["cell_size"]
    before = cells.copy()
    kernels = _kernels()
    carried = kernels.hydraulic(
        cells,
        values["droplets"],
        values["seed"],
        values["lifetime"],
        values["inertia"],
        values["capacity"],
        values["min_slope"],
        values["deposition"],
        values["erosion"],
        values["evaporation"],
        values["gravity"],
        *_brush(values["radius"]),
        values["initial_water"],
        values["initial_speed"],
    )
    return _result(before, cells, values["cell_size"], carried)


def erode_thermal(heights: np.ndarray, **options: object) -> ErosionResult:
    """Thermal erosion of ``heights`` (a 2-D array); options in ``THERMAL_OPTIONS`` and ``cell_size``.
    ``ValueError``/``TypeError`` naming the option for a bad value."""
    values = _options(THERMAL_OPTIONS, options)
    cells = np.asarray(_check_heights(heights), dtype=np.float64) / values["cell_size"]
    before = cells.copy()
    if values["iterations"]:
        flows = np.zeros((*cells.shape, 8), dtype=np.float64)
        phase = np.zeros(1, dtype=np.int64)
        talus = math.tan(math.radians(values["talus_angle"]))
        arguments = (cells, flows, phase, talus, values["iterations"], values["rate"])
        launch_blocks(_kernels().thermal, cells.shape[0], arguments)
    return _result(before, cells, values["cell_size"], 0.0)


@jit
def _unit(h):
    """A ``uint32`` hash as a float in [0, 1)."""
    return np.float64(h) * (1.0 / 4294967296.0)


@jit
def _sample(cells, x, y):
    """Bilinear height and gradient ``(h, gx, gy)`` at ``(x, y)`` inside the map (``x`` < columns - 1)."""
    ix, iy = int(x), int(y)
    u, v = x - ix, y - iy
    h00, h10 = cells[iy, ix], cells[iy, ix + 1]
    h01, h11 = cells[iy + 1, ix], cells[iy + 1, ix + 1]
    gx = (h10 - h00) * (1.0 - v) + (h11 - h01) * v
    gy = (h01 - h00) * (1.0 - u) + (h11 - h10) * u
    h = h00 * (1 - u) * (1 - v) + h10 * u * (1 - v) + h01 * (1 - u) * v + h11 * u * v
    return h, gx, gy


@jit
def _deposit(cells, x, y, amount):
    """Add ``amount`` at ``(x, y)``, split bilinearly over the cell's four corners."""
    ix, iy = int(x), int(y)
    u, v = x - ix, y - iy
    cells[iy, ix] += amount * (1.0 - u) * (1.0 - v)
    cells[iy, ix + 1] += amount * u * (1.0 - v)
    cells[iy + 1, ix] += amount * (1.0 - u) * v
    cells[iy + 1, ix + 1] += amount * u * v


def _brush(radius: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(dy, dx, weight)`` of the cells within ``radius`` of a cell, weights ``radius - distance`` > 0 (float64)."""
    dy, dx = np.mgrid[-radius : radius + 1, -radius : radius + 1]
    weight = np.maximum(0.0, radius - np.sqrt(dx * dx + dy * dy))
    keep = weight > 0.0
    return dy[keep].astype(np.int64), dx[keep].astype(np.int64), weight[keep]


@jit
def _erode_disc(cells, ix, iy, brush_dy, brush_dx, brush_w, amount, floor):
    """Take ``amount`` from the brush's cells around ``(ix, iy)``, by weight over the cells inside the map,
    none below ``floor``; returns what was taken (at most ``amount``)."""
    rows, columns = cells.shape
    total = 0.0
    for k in range(brush_w.shape[0]):
        x, y = ix + brush_dx[k], iy + brush_dy[k]
        if 0 <= x < columns and 0 <= y < rows:
            total += brush_w[k]
    taken = 0.0
    scale = amount / total
    for k in range(brush_w.shape[0]):
        x, y = ix + brush_dx[k], iy + brush_dy[k]
        if 0 <= x < columns and 0 <= y < rows:
            part = min(scale * brush_w[k], max(0.0, cells[y, x] - floor))
            cells[y, x] -= part
            taken += part
    return taken


def _hydraulic(
    cells, droplets, seed, lifetime, inertia, capacity, min_slope, deposition, erosion, evaporation, gravity,
    brush_dy, brush_dx, brush_w, initial_water, initial_speed,
):  # fmt: skip
    """Run ``droplets`` droplets over ``cells`` (float64, in place); returns the sediment carried off the map."""
    rows, columns = cells.shape
    base = hash_seed(seed)
    carried_off = 0.0
    for droplet in range(droplets):
        state = eat(base, droplet)
        x = _unit(avalanche(state)) * (columns - 1)
        y = _unit(avalanche(eat(state, -1))) * (rows - 1)
        dx = dy = 0.0
        speed, water, sediment = initial_speed, initial_water, 0.0
        for _ in range(lifetime):
            h, gx, gy = _sample(cells, x, y)
            dx = dx * inertia - gx * (1.0 - inertia)
            dy = dy * inertia - gy * (1.0 - inertia)
            length = math.sqrt(dx * dx + dy * dy)
            if length == 0.0:  # flat: the droplet stops here
                break
            dx /= length
            dy /= length
            nx, ny = x + dx, y + dy
            if not (0.0 <= nx < columns - 1 and 0.0 <= ny < rows - 1):  # off the map, with its sediment
                carried_off += sediment
                sediment = 0.0
                break
            delta = _sample(cells, nx, ny)[0] - h
            carry = max(-delta, min_slope) * speed * water * capacity
            if delta > 0.0 or sediment > carry:
                amount = min(delta, sediment) if delta > 0.0 else (sediment - carry) * deposition
                _deposit(cells, x, y, amount)
                sediment -= amount
            else:
                amount = min((carry - sediment) * erosion, -delta)
                sediment += _erode_disc(cells, int(x), int(y), brush_dy, brush_dx, brush_w, amount, h + delta)
            speed = math.sqrt(max(0.0, speed * speed - delta * gravity))
            water *= 1.0 - evaporation
            x, y = nx, ny
        if sediment != 0.0:
            _deposit(cells, x, y, sediment)
    return carried_off


NEIGHBOURS = np.array([(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)], dtype=np.int64)
"""``(dy, dx)`` of the 8 neighbours; neighbour ``k`` and ``7 - k`` are opposite."""


def _thermal(first, last, cells, flows, phase, talus, iterations, rate):
    """``iterations`` talus relaxation steps over ``cells`` (float64, in place), closed edges: a range kernel
    over rows. Launched (``first < 0``), it runs each step's two passes over all rows on Numba's threads, telling
    them which by ``phase[0]``: the flows out of every cell (``flows``: rows x columns x 8, all from the same
    heights), then each cell's change (its inflows minus its outflows)."""
    if first < 0:  # the launch
        for _ in range(iterations):
            phase[0] = 0
            on_threads(last)
            phase[0] = 1
            on_threads(last)
        return
    rows, columns = cells.shape
    if phase[0] == 0:
        for row in range(first, last):
            for column in range(columns):
                h = cells[row, column]
                total = 0.0
                largest = 0.0
                for k in range(8):
                    y, x = row + NEIGHBOURS[k, 0], column + NEIGHBOURS[k, 1]
                    flows[row, column, k] = 0.0
                    if 0 <= y < rows and 0 <= x < columns:
                        distance = math.sqrt(np.float64(NEIGHBOURS[k, 0] ** 2 + NEIGHBOURS[k, 1] ** 2))
                        excess = h - cells[y, x] - talus * distance
                        if excess > 0.0:
                            flows[row, column, k] = excess
                            total += excess
                            largest = max(largest, excess)
                if total > 0.0:
                    moved = rate * largest * 0.5
                    for k in range(8):
                        flows[row, column, k] *= moved / total
    else:
        for row in range(first, last):
            for column in range(columns):
                change = 0.0
                for k in range(8):
                    change -= flows[row, column, k]
                    y, x = row + NEIGHBOURS[k, 0], column + NEIGHBOURS[k, 1]
                    if 0 <= y < rows and 0 <= x < columns:
                        change += flows[y, x, 7 - k]
                cells[row, column] += change


@dataclass(frozen=True)
class _Kernels:
    hydraulic: object
    thermal: object


@cache
def _kernels() -> _Kernels:
    """The compiled kernels, built on first use (so importing never compiles nor fixes the cache folder)."""
    return _Kernels(hydraulic=serial_kernel(_hydraulic), thermal=range_kernel(_thermal))
