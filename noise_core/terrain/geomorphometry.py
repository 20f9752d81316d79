"""Geomorphometry: the statistics that tell a real landscape from noise (docs/terrain-realism.md).

``terrain_statistics(heights, cell_size=..., outlets=...)`` measures a heightmap in metres on square cells
``cell_size`` metres apart. The routing is the project's D8 (``flow``): Priority-Flood from the map's edges and
the ``outlets`` (sea), D8 receivers on the epsilon-filled surface, the stack order and the accumulation, so
every cell drains to an edge or the sea; ``A`` is a cell's drainage area in m² (itself included).

- **Concavity** θ (Flint 1974): ``S = k_s A^-θ`` on channel cells (``A >= CHANNEL_AREA``) outside depressions;
  ``S`` is the drop of the filled surface over the ``REACH`` D8 steps downstream divided by their length (a
  reach slope, so the 1-ft steps of SRTM do not make most slopes 0), paired with the length-weighted mean
  ``log A`` of the cells those steps leave; cells with ``S = 0`` (lakes, flats) are left out. Cells are binned by
  that ``log A`` (``BINS_PER_DECADE`` a decade); each bin with at least ``MIN_BIN`` cells gives ``(mean log A,
  log median S)``; ``-θ`` is the least-squares slope of those points, ``concavity_r2`` its R².
- **Hack's exponent** h (Hack 1957): ``L = c A^h`` with ``L`` the longest flow path upstream of a cell (to the
  farthest source, in metres); fitted as θ, on the same bins (``mean log L`` per bin).
- **Area exponent** β (Rodríguez-Iturbe & Rinaldo 1997): ``P(A >= a) ∝ a^-β`` over the land cells, the
  exceedance probability taken at ``BINS_PER_DECADE`` points a decade for ``a`` from ``CHANNEL_AREA / 10`` to
  ``AREA_TOP`` of the land area (below, hillslopes; above, the few largest basins and the map's size cut it off).
- **Hypsometric integral** (Strahler 1952): ``(mean - min) / (max - min)`` of the heights of a basin (all the
  cells that drain to one outlet), averaged over the ``BASINS`` largest basins holding at least ``BASIN_SHARE``
  of the land (the largest one if none does).
- **Depressions**: cells whose plain Priority-Flood filled height is above their height; ``depression_share``
  is their share of the land cells, ``depression_depth`` the largest ``filled - height`` (metres) in an
  8-connected group of them of at least ``DEPRESSION_CELLS`` cells.
- **Drainage density**: the length of the channels (the D8 step from each cell with ``A >= CHANNEL_AREA`` to its
  receiver: one or √2 cells) per land area, km/km².
- **Slope**: Horn's (1981) gradient ``(p, q)``; the median and 90th percentile of ``atan √(p² + q²)`` in degrees
  over the measured cells (land cells with a full 3x3 window of land, off the map's edge).
- **Spectral slope**: the heights less their least-squares plane, times a 2-D Hann window (against the jump at
  the map's edges), Fourier transformed; the power ``|F|²`` averaged in ``BINS_PER_DECADE`` log-spaced rings of
  the wavenumber ``k``; the least-squares slope of ``log P`` against ``log k`` for wavelengths from
  ``SPECTRAL_SHORT`` cells to the map's shorter side over ``SPECTRAL_LONG`` (Perron, Kirchner & Dietrich 2008).
- **Laplacian skewness**: the skewness ``E[(x - μ)³] / σ³`` of the 5-point Laplacian over the measured cells,
  clipped to its ``WINSOR`` and ``1 - WINSOR`` quantiles.
- **Harmonics** k = 4, 8: ``|Σ w e^{ikφ}| / Σ w`` over the measured cells, ``φ = atan2(q, p)`` the direction of the
  gradient and ``w = √(p² + q²)`` its magnitude: 0 for directions spread evenly, 1 when all line up on a
  k-fold star; D8's channels at 0°, 45°, 90° (a herringbone) raise the 8-fold one.

A statistic that cannot be measured (no channel cells, too few bins for a fit) is NaN.

``REAL_RANGES``: each statistic's range over the real tiles (tests/dems.py: five SRTM tiles and Jacksboro at
~90 m), widened to ``WIDENED`` where the literature's range is wider; ``tests/test_geomorphometry.py``
derives them again from the tiles. ``realism(stats)`` checks a terrain against them, ``passes(stats)`` applies
issue 49's rule: inside on all statistics but at most one, and ``harmonic8 <= MAX_HARMONIC8``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import asdict, dataclass, fields

import numpy as np

from .._jit import kernel_table
from ..schema import number
from .flow import SQRT2, _edges, accumulate, d8_receivers, depression_basins, fill_flat, stack_order
from .heightfield import check_heights, check_mask

CHANNEL_AREA = 1.0e6
"""Drainage area (m²) from which a cell is a channel: 1 km² (about 123 cells of 90 m)."""
REACH = 5
"""D8 steps downstream over which a channel cell's slope is taken."""
BINS_PER_DECADE = 10
"""Log-spaced bins (of area, wavenumber) per decade."""
MIN_BIN = 10
"""Cells a bin of area needs to enter the slope-area and Hack fits."""
MIN_POINTS = 3
"""Points (bins) a fit needs; fewer: NaN."""
BASINS = 10
"""How many of the largest basins the hypsometric integral is averaged over."""
BASIN_SHARE = 0.01
"""Share of the land cells a basin needs to count among the largest."""
AREA_TOP = 0.01
"""The exceedance fit of the area ends at this share of the land area."""
DEPRESSION_CELLS = 4
"""Cells a depression (8-connected) needs for its depth to count: one- and two-cell pits are data spikes."""
WINSOR = 0.001
"""The Laplacian is clipped to its 0.1 % and 99.9 % quantiles before its skewness (data spikes)."""
SPECTRAL_SHORT = 8.0
"""Shortest wavelength of the spectral fit, in cells."""
SPECTRAL_LONG = 4.0
"""Longest wavelength of the spectral fit: the map's shorter side over this."""


@dataclass(frozen=True)
class TerrainStatistics:
    """The statistics of ``terrain_statistics`` (module doc); NaN where one cannot be measured."""

    concavity: float
    concavity_r2: float
    hack_exponent: float
    area_exponent: float
    hypsometric_integral: float
    depression_share: float
    depression_depth: float
    drainage_density: float
    slope_median: float
    slope_p90: float
    spectral_slope: float
    laplacian_skewness: float
    harmonic4: float
    harmonic8: float

    def as_dict(self) -> dict[str, float]:
        """The statistics by field name, in field order."""
        return asdict(self)


STATISTICS = tuple(field.name for field in fields(TerrainStatistics))
"""The field names of ``TerrainStatistics``, in order."""


def _check_outlets(outlets: object, shape: tuple[int, int]) -> np.ndarray:
    outlets = check_mask("outlets", outlets, shape)
    if outlets.all():
        raise ValueError("outlets: every cell is an outlet; at least one land cell is needed")
    return outlets


def terrain_statistics(
    heights: np.ndarray, *, cell_size: float, outlets: np.ndarray | None = None
) -> TerrainStatistics:
    """The geomorphometric statistics (module doc) of ``heights`` (H, W) in metres on cells ``cell_size`` metres
    apart; ``outlets`` (bool (H, W), optional): sea cells, base level like the map's edges and left out of the
    land."""
    checked = np.ascontiguousarray(check_heights(heights), dtype=np.float64)
    cell = number("cell_size", cell_size)
    if not cell > 0.0:
        raise ValueError(f"cell_size: must be > 0 (metres between cells), got {cell_size!r}")
    shape = checked.shape
    sea = np.zeros(shape, dtype=bool) if outlets is None else _check_outlets(outlets, shape)
    land = ~sea
    flat_land = land.reshape(-1)
    land_cells = int(flat_land.sum())
    base = (_edges(shape).reshape(shape) | sea).astype(np.uint8).reshape(-1)
    kernels = _kernels()

    filled = checked.copy()  # plain fill: the depressions
    fill_flat(filled.reshape(-1), shape, base, False, False)
    depth = (filled - checked).reshape(-1)
    deepest = depression_basins(depth, shape, DEPRESSION_CELLS)[1]
    routed = checked.copy()  # epsilon fill: every cell drains to the edges or the sea
    fill_flat(routed.reshape(-1), shape, base, False, True)
    receivers = d8_receivers(routed, outlets=sea.reshape(-1))
    order = stack_order(receivers)
    cell_area = cell * cell
    area = accumulate(receivers, order, np.full(checked.size, cell_area))
    columns = shape[1]
    longest = np.zeros(checked.size)
    kernels.longest(receivers, order, columns, cell, longest)
    reach = np.zeros(checked.size)
    reach_area = np.zeros(checked.size)
    kernels.reach(receivers, filled.reshape(-1), np.log10(area), columns, cell, REACH, reach, reach_area)
    basin = np.empty(checked.size, dtype=np.int64)
    kernels.basins(receivers, order, basin)
    channel = flat_land & (area >= CHANNEL_AREA)
    channel_cells = np.flatnonzero(channel)
    step_cells = np.where(_diagonal(channel_cells, receivers[channel_cells], columns), SQRT2, 1.0)
    fit_cells = channel & (depth == 0.0) & (reach > 0.0)
    concavity, r2 = _slope_area(reach_area[fit_cells], reach[fit_cells])

    p, q = _horn(checked, cell)
    measured = _measured(land)
    gradient = np.hypot(p, q)[measured]
    slopes = np.degrees(np.arctan(gradient))
    directions = np.arctan2(q, p)[measured]
    return TerrainStatistics(
        concavity=concavity,
        concavity_r2=r2,
        hack_exponent=_hack(area[channel], longest[channel]),
        area_exponent=_area_exponent(area[flat_land], land_cells * cell_area),
        hypsometric_integral=_hypsometry(checked.reshape(-1), basin, flat_land, land_cells),
        depression_share=float(np.count_nonzero(depth[flat_land] > 0.0) / land_cells),
        depression_depth=float(deepest),
        drainage_density=float(step_cells.sum() * cell / 1000.0 / (land_cells * cell_area / 1.0e6)),
        slope_median=float(np.median(slopes)) if slopes.size else math.nan,
        slope_p90=float(np.percentile(slopes, 90.0)) if slopes.size else math.nan,
        spectral_slope=_spectral_slope(checked),
        laplacian_skewness=_skewness(_laplacian(checked)[measured]),
        harmonic4=_harmonic(directions, gradient, 4),
        harmonic8=_harmonic(directions, gradient, 8),
    )


def _diagonal(cells: np.ndarray, receivers: np.ndarray, columns: int) -> np.ndarray:
    """Whether each step from ``cells`` to ``receivers`` is diagonal."""
    return (cells % columns != receivers % columns) & (cells // columns != receivers // columns)


def _fit(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Least-squares slope of ``y`` on ``x`` and its R²; NaN for fewer than ``MIN_POINTS`` points."""
    if x.size < MIN_POINTS or np.ptp(x) == 0.0:
        return math.nan, math.nan
    slope, intercept = np.polyfit(x, y, 1)
    residual = y - (slope * x + intercept)
    total = float(((y - y.mean()) ** 2).sum())
    r2 = 1.0 - float((residual**2).sum()) / total if total > 0.0 else math.nan
    return float(slope), r2


def _bins(log_area: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The bin of each ``log10 A`` (``BINS_PER_DECADE`` a decade) and the bins with at least ``MIN_BIN``."""
    index = np.floor(log_area * BINS_PER_DECADE).astype(np.int64)
    index -= index.min() if index.size else 0
    counts = np.bincount(index)
    return index, np.flatnonzero(counts >= MIN_BIN)


def _slope_area(log_area: np.ndarray, slope: np.ndarray) -> tuple[float, float]:
    """θ and R² of ``log median S`` against ``mean log A`` per bin (module doc)."""
    if log_area.size == 0:
        return math.nan, math.nan
    index, full = _bins(log_area)
    xs, ys = [], []
    for b in full:  # one pass a bin (a few dozen), not a cell
        inside = index == b
        xs.append(float(log_area[inside].mean()))
        ys.append(math.log10(float(np.median(slope[inside]))))
    gradient, r2 = _fit(np.array(xs), np.array(ys))
    return -gradient, r2


def _hack(area: np.ndarray, length: np.ndarray) -> float:
    """h of ``mean log L`` against ``mean log A`` per bin."""
    if area.size == 0:
        return math.nan
    log_area = np.log10(area)
    index, full = _bins(log_area)
    counts = np.bincount(index)
    mean_a = np.bincount(index, log_area) / np.maximum(counts, 1)
    mean_l = np.bincount(index, np.log10(np.maximum(length, 1e-300))) / np.maximum(counts, 1)
    positive = np.bincount(index, length > 0.0) == counts
    keep = full[positive[full]]
    return _fit(mean_a[keep], mean_l[keep])[0]


def _area_exponent(area: np.ndarray, land_area: float) -> float:
    """β of ``P(A >= a) ∝ a^-β`` for ``a`` from ``CHANNEL_AREA / 10`` to ``AREA_TOP`` of the land area."""
    low, high = CHANNEL_AREA / 10.0, AREA_TOP * land_area
    if not high > low * 10.0 ** (MIN_POINTS / BINS_PER_DECADE):
        return math.nan
    points = 10.0 ** np.arange(math.log10(low), math.log10(high), 1.0 / BINS_PER_DECADE)
    ordered = np.sort(area)
    exceed = (ordered.size - np.searchsorted(ordered, points, side="left")) / ordered.size
    keep = exceed > 0.0
    return -_fit(np.log10(points[keep]), np.log10(exceed[keep]))[0]


def _hypsometry(heights: np.ndarray, basin: np.ndarray, land: np.ndarray, land_cells: int) -> float:
    """Mean hypsometric integral of the largest basins (module doc)."""
    labels = basin[land]
    values = heights[land]
    counts = np.bincount(labels, minlength=heights.size)
    largest = np.argsort(counts)[::-1][:BASINS]
    chosen = largest[counts[largest] >= BASIN_SHARE * land_cells]
    if chosen.size == 0:
        chosen = largest[:1]
    integrals = []
    for label in chosen:  # at most BASINS basins
        inside = values[labels == label]
        span = float(inside.max() - inside.min())
        if span > 0.0:
            integrals.append(float(inside.mean() - inside.min()) / span)
    return float(np.mean(integrals)) if integrals else math.nan


def _horn(heights: np.ndarray, cell: float) -> tuple[np.ndarray, np.ndarray]:
    """Horn's (1981) gradient ``(∂z/∂x, ∂z/∂y)`` of the interior cells (edge cells 0), x along columns, y rows."""
    p = np.zeros_like(heights)
    q = np.zeros_like(heights)
    z = heights
    p[1:-1, 1:-1] = ((z[:-2, 2:] + 2.0 * z[1:-1, 2:] + z[2:, 2:]) - (z[:-2, :-2] + 2.0 * z[1:-1, :-2] + z[2:, :-2])) / (
        8.0 * cell
    )
    q[1:-1, 1:-1] = ((z[2:, :-2] + 2.0 * z[2:, 1:-1] + z[2:, 2:]) - (z[:-2, :-2] + 2.0 * z[:-2, 1:-1] + z[:-2, 2:])) / (
        8.0 * cell
    )
    return p, q


def _laplacian(heights: np.ndarray) -> np.ndarray:
    """The 5-point Laplacian (in height units per cell²) of the interior cells (edge cells 0)."""
    z = heights
    out = np.zeros_like(z)
    out[1:-1, 1:-1] = z[:-2, 1:-1] + z[2:, 1:-1] + z[1:-1, :-2] + z[1:-1, 2:] - 4.0 * z[1:-1, 1:-1]
    return out


def _measured(land: np.ndarray) -> np.ndarray:
    """Cells off the map's edge whose 3x3 window is all land."""
    inner = np.zeros_like(land)
    window = land[1:-1, 1:-1].copy()
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            window &= land[1 + dy : land.shape[0] - 1 + dy, 1 + dx : land.shape[1] - 1 + dx]
    inner[1:-1, 1:-1] = window
    return inner


def _skewness(values: np.ndarray) -> float:
    """The moment skewness of ``values`` clipped to their ``WINSOR`` and ``1 - WINSOR`` quantiles."""
    if values.size < 3:
        return math.nan
    low, high = np.quantile(values, [WINSOR, 1.0 - WINSOR])
    centred = np.clip(values, low, high)
    centred = centred - centred.mean()
    spread = float(np.sqrt((centred**2).mean()))
    return float((centred**3).mean() / spread**3) if spread > 0.0 else math.nan


def _harmonic(directions: np.ndarray, weights: np.ndarray, k: int) -> float:
    total = float(weights.sum())
    if not total > 0.0:
        return math.nan
    return float(abs((weights * np.exp(1j * k * directions)).sum()) / total)


def _spectral_slope(heights: np.ndarray) -> float:
    """The log-log slope of the radially averaged power spectrum (module doc)."""
    rows, columns = heights.shape
    y, x = np.mgrid[0:rows, 0:columns]
    design = np.column_stack([np.ones(heights.size), x.ravel(), y.ravel()])
    coefficients = np.linalg.lstsq(design, heights.ravel(), rcond=None)[0]
    detrended = heights - (design @ coefficients).reshape(heights.shape)
    window = np.outer(np.hanning(rows), np.hanning(columns))
    power = np.abs(np.fft.rfft2(detrended * window)) ** 2
    ky = np.fft.fftfreq(rows)[:, None]
    kx = np.fft.rfftfreq(columns)[None, :]
    k = np.hypot(ky, kx)
    low, high = SPECTRAL_LONG / min(rows, columns), 1.0 / SPECTRAL_SHORT
    if not high > low:
        return math.nan
    band = (k >= low) & (k <= high)
    log_k = np.log10(k[band])
    index = np.floor((log_k - math.log10(low)) * BINS_PER_DECADE).astype(np.int64)
    counts = np.bincount(index)
    mean_k = np.bincount(index, log_k) / np.maximum(counts, 1)
    mean_p = np.bincount(index, power[band]) / np.maximum(counts, 1)
    keep = (counts > 0) & (mean_p > 0.0)
    return _fit(mean_k[keep], np.log10(mean_p[keep]))[0]


def _step(cell, receiver, columns):
    """Distance in cells from ``cell`` to its D8 ``receiver`` (1 or √2)."""
    return SQRT2 if (cell % columns != receiver % columns) and (cell // columns != receiver // columns) else 1.0


def _longest(receivers, order, columns, cell, longest):
    """The longest flow path upstream of each cell (metres), in reverse stack order: a cell passes its own plus
    the step to its receiver on when that is longer than what the receiver holds."""
    for i in range(order.shape[0] - 1, -1, -1):
        c = order[i]
        r = receivers[c]
        if r != c:
            dx = c % columns != r % columns
            dy = c // columns != r // columns
            step = cell * (SQRT2 if dx and dy else 1.0)
            if longest[c] + step > longest[r]:
                longest[r] = longest[c] + step


def _reach(receivers, heights, log_area, columns, cell, steps, slope, reach_area):
    """Each cell's drop over up to ``steps`` D8 steps downstream (stopping at an outlet) over their length
    (``slope``), and the length-weighted mean ``log_area`` of the cells the steps leave (``reach_area``)."""
    for c in range(receivers.shape[0]):
        here = c
        length = 0.0
        weighted = 0.0
        for _ in range(steps):
            r = receivers[here]
            if r == here:
                break
            dx = here % columns != r % columns
            dy = here // columns != r // columns
            step = cell * (SQRT2 if dx and dy else 1.0)
            length += step
            weighted += step * log_area[here]
            here = r
        slope[c] = (heights[c] - heights[here]) / length if length > 0.0 else 0.0
        reach_area[c] = weighted / length if length > 0.0 else log_area[c]


def _basins(receivers, order, basin):
    """The outlet each cell drains to, in stack order (receivers first)."""
    for i in range(order.shape[0]):
        c = order[i]
        r = receivers[c]
        basin[c] = c if r == c else basin[r]


_kernels = kernel_table(
    serial=(_longest, _reach, _basins),
)
"""The compiled kernels, built on first use."""


WIDENED: dict[str, tuple[float | None, float | None, str]] = {
    "concavity": (0.225, 0.575, "the interquartile range of θ over the world's rivers (Gailleton et al. 2021)"),
    "concavity_r2": (None, 1.0, "a perfect power law is a fit, not an artefact"),
    "hack_exponent": (0.5, 0.6, "Hack (1957); Rigon et al. (1996)"),
    "area_exponent": (0.41, 0.45, "β = 0.43 ± 0.02 over real basins (Rodríguez-Iturbe & Rinaldo 1997)"),
    "hypsometric_integral": (0.35, 0.6, "Strahler's (1952) mature (equilibrium) basins"),
    "depression_share": (0.0, None, "most closed depressions in DEMs are artefacts (Lindsay & Creed 2006)"),
    "depression_depth": (0.0, None, "most closed depressions in DEMs are artefacts (Lindsay & Creed 2006)"),
    "harmonic4": (0.0, None, "0: gradient directions spread evenly, no grid"),
    "harmonic8": (0.0, None, "0: gradient directions spread evenly, no grid"),
}
"""Where the literature (or the statistic's ideal) reaches beyond the real tiles: ``(low, high, why)``, ``None``
where the tiles decide."""
RANGE_DECIMALS = 3
"""``REAL_RANGES`` are rounded outward to this many decimals."""
REAL_RANGES: dict[str, tuple[float, float]] = {
    "concavity": (0.225, 0.58),
    "concavity_r2": (0.905, 1.0),
    "hack_exponent": (0.487, 0.6),
    "area_exponent": (0.41, 0.585),
    "hypsometric_integral": (0.334, 0.6),
    "depression_share": (0.0, 0.055),
    "depression_depth": (0.0, 90.526),
    "drainage_density": (0.506, 0.768),
    "slope_median": (8.946, 31.57),
    "slope_p90": (20.074, 50.479),
    "spectral_slope": (-3.936, -3.115),
    "laplacian_skewness": (-0.815, -0.06),
    "harmonic4": (0.0, 0.047),
    "harmonic8": (0.0, 0.009),
}
"""Each statistic's ``(low, high)`` over the real tiles, widened (``WIDENED``): ``derive_ranges`` of the six
tiles of tests/dems.py, stored so importing computes nothing; tests/test_geomorphometry.py derives them again."""
MAX_OUTSIDE = 1
"""How many statistics a terrain may have outside ``REAL_RANGES`` and still pass (issue 49)."""
MAX_HARMONIC8 = 0.02
"""The largest 8-fold harmonic a terrain may have and pass (issue 49): D8 herringbones measure 0.04-0.12."""


@dataclass(frozen=True)
class Check:
    """One statistic against its real range: ``passed`` when ``low <= value <= high`` (NaN fails)."""

    name: str
    value: float
    low: float
    high: float
    passed: bool


def derive_ranges(measured: Iterable[TerrainStatistics]) -> dict[str, tuple[float, float]]:
    """Each statistic's minimum and maximum over ``measured`` (NaN skipped), widened to ``WIDENED`` and rounded
    outward to ``RANGE_DECIMALS``: how ``REAL_RANGES`` was made from the real tiles."""
    rows = list(measured)
    if not rows or not all(isinstance(row, TerrainStatistics) for row in rows):
        raise TypeError("measured: expected one or more TerrainStatistics")
    scale = 10.0**RANGE_DECIMALS
    ranges = {}
    for name in STATISTICS:
        values = np.array([getattr(row, name) for row in rows], dtype=np.float64)
        values = values[np.isfinite(values)]
        if values.size == 0:
            raise ValueError(f"measured: no finite {name} to derive its range from")
        low, high = float(values.min()), float(values.max())
        wide_low, wide_high, _ = WIDENED.get(name, (None, None, ""))
        low = low if wide_low is None else min(low, wide_low)
        high = high if wide_high is None else max(high, wide_high)
        ranges[name] = (math.floor(low * scale) / scale, math.ceil(high * scale) / scale)
    return ranges


def realism(stats: TerrainStatistics) -> list[Check]:
    """Every statistic of ``stats`` against ``REAL_RANGES``, in ``STATISTICS`` order."""
    if not isinstance(stats, TerrainStatistics):
        raise TypeError(f"stats: expected TerrainStatistics (terrain_statistics), got {type(stats).__name__}")
    checks = []
    for name in STATISTICS:
        value = float(getattr(stats, name))
        low, high = REAL_RANGES[name]
        checks.append(Check(name, value, low, high, bool(low <= value <= high)))
    return checks


def passes(stats: TerrainStatistics) -> bool:
    """Issue 49's rule: at most ``MAX_OUTSIDE`` statistic outside ``REAL_RANGES`` and ``harmonic8 <=
    MAX_HARMONIC8``."""
    outside = sum(not check.passed for check in realism(stats))
    return outside <= MAX_OUTSIDE and bool(stats.harmonic8 <= MAX_HARMONIC8)
