"""Variety at every scale (issue 49): rock that varies over kilometres, rock texture at the cell scale, and the
knobs and basins of ground an ice sheet scoured.

**Rock variety** (``rock_field``; the river stage's ``rock_variety``, ``rock_variety_scale``). Where uplift,
stream-power incision and diffusion balance, valleys are spaced by a characteristic length that grows with the
ratio of the hillslope diffusivity to the erodibility, ``Lc ∝ (D / K)^(1 / (1 + 2m))`` (Perron, Kirchner &
Dietrich 2009, "Formation of evenly spaced ridges and valleys", Nature 460): with one ``K`` and one ``D``
everywhere the valleys come at one spacing, an even fabric. Real ranges cross rocks of different strength
(Sklar & Dietrich 2001; Forte et al. 2016), so the river stage multiplies the erodibility by ``exp(s·z)``, ``z`` a
smooth field of unit standard deviation whose features are ``rock_variety_scale`` of the map wide, and the
uplift by the same factor: the steady state depends on ``U/K`` (the channels' steepness, so the relief) and
``D/K`` (the spacing) only, so the ranges keep their height while the valley spacing varies by
``exp(-s·z / (1 + 2m))``: strong rock (``z < 0``) stands in broad massifs with long slopes and few valleys, weak
rock (``z > 0``) is finely dissected. (``K`` alone, without ``U``, made the weak rock a plain at base level and
the strong rock the only relief: docs/landscape.md.)

**Strong rock stands steeper and higher** (the river stage's ``rock_variety_slope`` ``s_S`` and
``rock_variety_uplift`` ``u``). With threshold hillslopes (``critical_slope`` ``Sc``, Roering et al. 1999) the
critical slope is ``Sc·exp(-s_S·min(z, 0))``: the slope a hillside stands at is set by the strength of its rock
(Schmidt & Montgomery 1995, "Limits to relief", Science 270), so strong rock (``z < 0``) stands in steeper faces
while weak rock keeps ``Sc``. The uplift takes the share ``u`` of the rock exponent, ``U·exp(u·s·z)`` against
``K·exp(s·z)``: below 1 ``U/K``, the channels' steepness, is ``exp((u - 1)·s·z)`` times larger in strong rock,
which stands as massifs and, where ``rock_variety_contrast`` makes the contacts short, escarpments (differential
erosion across units of contrasting strength: Forte, Yanites & Whipple 2016, ESPL 41(12); Perne et al. 2017,
ESurf 5).

**Every rock at one pace** (the river stage's ``rock_variety_pace`` ``p``). The steady state depends on ``U/K``
and ``D/K`` only, but a channel's response time grows as ``1/K`` (Whipple & Tucker 1999, JGR 104(B8)), so strong
rock keeps the surface it started from longest. ``U``, ``K`` and ``D`` all divided by ``exp(p·s·z)`` keep every
cell's ratios and let each rock reach its steady state at the pace of ``K`` (``p = 1``): local time stepping
(Jameson, Schmidt & Turkel 1981, AIAA paper 81-1259).

**Rain** (``rain_field``; the river stage's ``rain_variety`` ``v``, ``rain_variety_scale``, ``rain_height``
``r``). The drainage area is weighted by the runoff ``P = exp(v·z_P - r·(t - t̄))`` over its mean, ``z_P`` a
field like the rock's (its own seed), ``t`` the heights' 0..1 range (orographic rain, Roe, Montgomery & Hallet
2002, 2003): with an incision threshold (Tucker & Bras 1998; Tucker 2004) channels begin where ``(P·A)^m·S^n``
passes it, so wet regions are finely dissected and dry ones keep broad faces.

**Rock detail** (``rock_detail``; the river stage's ``rock_detail``, ``rock_detail_scale``). A landscape model
resolves the valleys it has cells for, and its slopes come out as smooth planes; a real DEM keeps its power down
to its cells (``P(k) ∝ k^-β``, Perron, Kirchner & Dietrich 2008, "Spectral signatures of characteristic spatial
scales and nonfractal structure in landscapes", JGR 113, F04003): rock ribs, gullies and scree. As terrain tools
add a rock texture where the slope is steep (Gaea's and World Creator's detail by slope masks),
``h += a·min(S, 1)²·n``: ``S`` the slope (height per distance, by the isotropic gradient stencil), ``a`` the
amplitude at a slope of 1 (45°), ``n`` noise of unit standard deviation. The square keeps the gentle channels
and floors nearly smooth while the steep slopes take the most. ``n`` is a fractal noise whose octave
``i`` has the wavelength ``λ·2.1^-i`` and the weight ``2.1^-i`` (amplitude ∝ wavelength, as the real spectra's
``β`` near 3-4), streaked down the slope: averaged along the straight line through each cell in its downslope
direction, ``STREAK·λ`` either way (triangular weights, bilinear samples; line integral convolution, Cabral &
Leedom 1993, "Imaging vector fields using line integral convolution", SIGGRAPH 93), so the texture runs down
the slopes as rills, gullies and rock ribs do, and rescaled to unit standard deviation over the map (divided by
no less than the weights' ``sqrt(Σw²)/Σw``). Flats (valley floors, lakes) are untouched, and channels keep
their beds: given the drainage area ``A`` (cells), the detail is times ``CHANNEL_AREA / (CHANNEL_AREA + A)``,
blurred over 5 x 5 cells (a mask along the D8 channels unblurred printed their 8-fold pattern). The streaks
follow the terrain's gradient,
the noise has no square lattice: no grid direction is preferred.

**Areal scour** (``scour``; the river stage's ``scour_depth``, ``scour_scale``). Ground an ice sheet overrode
is left as knobs of bare rock between rock basins, many holding a lake: "knock and lochan" (Linton 1963, "The
forms of glacial erosion", Transactions of the Institute of British Geographers 33; Sugden 1978, "Glacial erosion
by the Laurentide Ice Sheet", Journal of Glaciology 20(83), its zone of areal scouring; the ice follows the
fractured, weathered rock: Krabbendam & Bradwell 2014, "Quaternary evolution of glaciated gneiss terrains:
pre-glacial weathering vs. glacial erosion", Quaternary Science Reviews 95). As a texture, not an ice model:
``h -= d·w(S)·b(n)``, ``d`` the deepest basin, ``n`` simplex fBm of unit standard deviation (``SCOUR_OCTAVES``
octaves from the wavelength ``scour_scale`` down, each 2.1 times finer and weaker) and ``b(n) = t²(3 - 2t)``,
``t = clamp(n, 0, 1)`` (a smoothstep: no crease at a basin's rim or floor, which a finer map would resolve ever
sharper), so the basins are where ``n`` is high and the knobs between them keep their rock. ``w(S) = x²/(1 +
x²)·1/(1 + y²)``, ``x = S/SCOUR_FLAT`` and ``y = S/SCOUR_STEEP`` (``S`` the slope by the isotropic gradient
stencil): the flat floors (the sediment that filled the valleys since the ice left) and the steep walls (whose
form their own processes keep) are barely touched, the gentle ground between takes it all. Streams are cut like
the rest: the basins are closed depressions strung along them (a deranged drainage of lochans, as on scoured
ground), each as deep as ``d·w(S)`` at most where ``n`` passes 1 (flat-bottomed there: a lochan's floor), and
``water.water`` fills them as lakes (sparing the channels, as ``rock_detail`` does, would raise each bed above
the ground scoured beside it).

The noises are the project's 2-D simplex noise (a triangular lattice: no square symmetry for the grid harmonics
to see), each octave turned by its own angle (``TURN``) so no lattice direction is shared, evaluated at the
cells' positions in map units (``rock_field``: shares of the map's longer side) or metres (``rock_detail``,
``scour``), so a terrain built at another sample count gets the same field, sampled more or less finely; an
octave whose wavelength is under two cells fades out (``FADE``) instead of aliasing into white noise.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from .. import runtime
from .._jit import jit, kernel_table
from ..api import evaluate
from ..schema import Option
from ..spec import NoiseSpec
from ..threads import on_threads
from .flow import check_weights
from .heightfield import CELL_SIZE, check_heights
from .resample import bilinear_at, resample_bilinear

SIMPLEX_STD = 0.454
"""The standard deviation of one octave of 2-D simplex noise (2·10⁶ points, any seed: 0.4540)."""
LACUNARITY = 2.1
"""Each octave's wavelength over the next's (not 2: octaves whose lattices share lines leave straight creases)."""
TURN = 0.5
"""Octave ``i`` is turned by ``(i + 1)·TURN`` radians."""
FADE = (2.0, 4.0)
"""An octave's weight is 0 at wavelengths under ``FADE[0]`` cells, 1 over ``FADE[1]``, linear between."""
FIELD_OCTAVES = 2
DETAIL_OCTAVES = 4
STREAK = 1.5
"""The streaks of ``rock_detail`` reach this many of its longest wavelengths up and down the slope."""
STREAK_SAMPLES = 8
"""At most this many samples each way along a streak (further apart than a cell on a fine map)."""
CHANNEL_AREA = 20.0
"""With a drainage area ``A`` (cells) the detail is times ``CHANNEL_AREA / (CHANNEL_AREA + A)``: hillslopes
(a few cells) keep most of it, channels (100 cells and more) a sixth or less, big rivers none."""
ROWS_PER_CALL = 256
"""Rows of the map per call of the noise (``evaluate``): its points stay a few MB at any size."""
SCOUR_OCTAVES = 3
"""Octaves of the areal scour's noise (``scour``)."""
SCOUR_FLAT = 0.04
"""``scour``'s ``w(S)`` is half its largest at about this slope (height per distance): flats keep their fill."""
SCOUR_STEEP = 0.3
"""``scour``'s ``w(S)`` is half its largest at about this slope: steep walls keep their form."""
SCOUR_SALT = 0x5C0A
"""Added to the seed of ``scour``'s noise: it differs from the rock field's and the rock detail's."""
FIELD_SALT = 0x11F0
DETAIL_SALT = 0xD7A1
"""Added to the seed of ``rock_field`` and ``rock_detail``: their noises differ from each other's at one seed."""

ROCK_VARIETY = Option(
    "rock_variety", float, 0.0, "Rock that varies over kilometres: the erodibility and the uplift both times "
    "exp(rock_variety x z), z a smooth noise field of unit deviation, so valleys lie far apart in strong rock and "
    "close together in weak rock at the same relief (0: one rock)", minimum=0.0, maximum=3.0,
)  # fmt: skip
ROCK_VARIETY_SCALE = Option(
    "rock_variety_scale", float, 0.3, "With rock variety: the width of its regions (the noise's wavelength), a "
    "share of the terrain's size", minimum=0.01, maximum=10.0,
)  # fmt: skip
ROCK_DETAIL = Option(
    "rock_detail", float, 0.0, "Rock texture streaked down steep slopes: its amplitude at a slope of 1 (45 "
    "degrees), as the square of the slope below, none on flats (0: none)", minimum=0.0, maximum=1e6, soft_maximum=100.0,
    unit="LENGTH",
)  # fmt: skip
ROCK_DETAIL_SCALE = Option(
    "rock_detail_scale", float, 400.0, "With rock detail: the texture's longest wavelength (each finer octave "
    "2.1 times shorter; those under two cells fade out)", minimum=0.0, above=True, maximum=1e9,
    soft_maximum=5000.0, unit="LENGTH",
)  # fmt: skip
SCOUR_DEPTH = Option(
    "scour_depth", float, 0.0, "Glacial areal scour: knobs of rock between closed rock basins (lochans) on the "
    "gentle ground, not on flat floors or steep walls; the deepest basin (0: none)", minimum=0.0,
    maximum=1e6, soft_maximum=200.0, unit="LENGTH",
)  # fmt: skip
SCOUR_SCALE = Option(
    "scour_scale", float, 800.0, "With scour: the width of its basins and knobs (the noise's longest wavelength; "
    "each finer octave 2.1 times shorter)", minimum=0.0, above=True, maximum=1e9, soft_maximum=5000.0,
    unit="LENGTH",
)  # fmt: skip
ROCK_VARIETY_OCTAVES = Option(
    "rock_variety_octaves", int, FIELD_OCTAVES, "With rock variety: the octaves of its noise, each 2.1 times finer and "
    "weaker: more give the units ragged, fractal outlines", minimum=1, maximum=8,
)  # fmt: skip
ROCK_VARIETY_CONTRAST = Option(
    "rock_variety_contrast", float, 0.0, "With rock variety: sharpens its noise into units of strong and weak "
    "rock with short contacts, tanh(c x z) / tanh(c) (0: the smooth noise)", minimum=0.0, maximum=20.0,
)  # fmt: skip
ROCK_VARIETY_STRIKE = Option(
    "rock_variety_strike", float, 0.0, "With rock variety stretched: the direction its units run along (the "
    "strike), degrees anticlockwise from +x", minimum=-360.0, maximum=360.0,
)  # fmt: skip
ROCK_VARIETY_STRETCH = Option(
    "rock_variety_stretch", float, 1.0, "With rock variety: its units are this many times longer along the "
    "strike than across it, a structural grain (1: round)", minimum=1.0, maximum=20.0,
)  # fmt: skip
ROCK_VARIETY_DIFFUSION = Option(
    "rock_variety_diffusion", float, 0.0, "Rock variety in the hillslopes: the diffusivity times "
    "exp(-rock_variety_diffusion x z), so above 0 strong rock (z < 0) holds long planar slopes and valleys wide "
    "apart, below 0 it creeps more slowly and keeps sharp crests (0: one diffusivity)", minimum=-3.0, maximum=3.0,
)  # fmt: skip
ROCK_VARIETY_SLOPE = Option(
    "rock_variety_slope", float, 0.0, "Rock variety in the threshold hillslopes: with critical_slope, the critical "
    "slope times exp(-rock_variety_slope x z) in strong rock (z < 0; weak rock keeps it), so strong rock stands in "
    "steeper faces and cliff bands (0: one critical slope)", minimum=0.0, maximum=3.0,
)  # fmt: skip
ROCK_VARIETY_HEADS = Option(
    "rock_variety_heads", float, 0.0, "Rock variety in the channel heads: with channel_head_area, the channel head "
    "area times exp(-rock_variety_heads x z), so above 0 strong rock (z < 0) holds planar faces that channels "
    "begin far down, weak rock (z > 0) is finely dissected (0: one channel head area)", minimum=-5.0, maximum=5.0,
)  # fmt: skip
ROCK_VARIETY_UPLIFT = Option(
    "rock_variety_uplift", float, 1.0, "With rock variety: the share of its exponent the uplift takes, uplift times "
    "exp(rock_variety_uplift x rock_variety x z), so below 1 strong rock (z < 0) stands higher than weak rock, in "
    "massifs and escarpments (1: the relief the same in any rock; 0: an even uplift)", minimum=0.0, maximum=1.0,
)  # fmt: skip
ROCK_VARIETY_PACE = Option(
    "rock_variety_pace", float, 0.0, "With rock variety: the uplift, erodibility and diffusivity all divided by "
    "exp(rock_variety_pace x rock_variety x z), which leaves the steady state (set by their ratios) as it is but "
    "lets strong rock reach it at the pace of the rest instead of keeping the surface it started from (0: strong "
    "rock evolves more slowly; 1: every rock at one pace)", minimum=0.0, maximum=1.0,
)  # fmt: skip
RAIN_VARIETY = Option(
    "rain_variety", float, 0.0, "Rain that varies over kilometres: the runoff each cell adds to the drainage "
    "area times exp(rain_variety x z_rain) over its mean, z_rain a smooth noise field of unit deviation (its own, "
    "not the rock's), so with an incision threshold channels begin at small areas in wet regions and far down in "
    "dry ones: massifs with broad faces beside finely dissected ground (0: even rain)", minimum=0.0, maximum=3.0,
)  # fmt: skip
RAIN_VARIETY_SCALE = Option(
    "rain_variety_scale", float, 0.5, "With rain variety: the width of its wet and dry regions (the noise's "
    "wavelength), a share of the terrain's size", minimum=0.01, maximum=10.0,
)  # fmt: skip
RAIN_HEIGHT = Option(
    "rain_height", float, 0.0, "Orographic rain: the runoff times exp(-rain_height x (t - mean t)) over its "
    "mean, t the heights' 0..1 range before the rivers, so the high ground is drier and its channels begin "
    "further down (broad upper faces) while the low ground is finely dissected (0: even rain; negative: wetter "
    "high ground)", minimum=-3.0, maximum=3.0,
)  # fmt: skip
RAIN_OPTIONS = (RAIN_VARIETY, RAIN_VARIETY_SCALE, RAIN_HEIGHT)
"""The river stage's rain rows (``rain_field``): the runoff weighting the drainage area."""
RAIN_SALT = 0x5A17
"""Added to the seed of the rain field (``rain_field``): its noise differs from the rock field's at one seed."""
ROCK_FIELD_OPTIONS = (
    ROCK_VARIETY,
    ROCK_VARIETY_SCALE,
    ROCK_VARIETY_OCTAVES,
    ROCK_VARIETY_CONTRAST,
    ROCK_VARIETY_STRIKE,
    ROCK_VARIETY_STRETCH,
    ROCK_VARIETY_DIFFUSION,
    ROCK_VARIETY_SLOPE,
    ROCK_VARIETY_HEADS,
    ROCK_VARIETY_UPLIFT,
    ROCK_VARIETY_PACE,
)
"""The rows of the rock field (``rock_field``) and what it scales: the river stage's, before its floors."""
VARIETY_OPTIONS = (*ROCK_FIELD_OPTIONS, *RAIN_OPTIONS, ROCK_DETAIL, ROCK_DETAIL_SCALE, SCOUR_DEPTH, SCOUR_SCALE)
"""The river stage's rows (``recipe.RIVER_OPTIONS``)."""


def _octaves(
    shape: tuple[int, int], step: float, wavelength: float, count: int, seed: int, grain: np.ndarray | None = None
) -> np.ndarray:
    """Simplex fBm (module docstring) at cell ``(r, c)`` placed at ``(c·step, r·step)``, its first octave's
    wavelength ``wavelength`` (same unit as ``step``), of unit standard deviation when no octave fades; ``grain``
    (2 x 2) maps the positions first (the rock field's strike and stretch)."""
    rows, columns = shape
    total = np.zeros(shape)
    weights = 0.0
    for octave in range(count):
        length = wavelength * LACUNARITY**-octave
        weight = LACUNARITY**-octave
        weights += weight * weight
        fade = min(1.0, max(0.0, (length / step - FADE[0]) / (FADE[1] - FADE[0])))
        if fade == 0.0:
            continue
        angle = (octave + 1) * TURN
        cos, sin = math.cos(angle) / length, math.sin(angle) / length
        spec = NoiseSpec(kind="simplex", seed=(seed + 7919 * octave) & 0x7FFFFFFF, frequency=1.0, octaves=1)
        for first in range(0, rows, ROWS_PER_CALL):  # blocks of rows, not cells
            last = min(rows, first + ROWS_PER_CALL)
            y, x = np.mgrid[first:last, 0:columns].astype(np.float64) * step
            points = np.stack((x.reshape(-1), y.reshape(-1)), axis=1)
            transform = np.array([[cos, -sin, 0.0], [sin, cos, 0.0]])
            if grain is not None:  # turned after the grain: each octave's lattice keeps its own angle
                transform[:, :2] = transform[:, :2] @ grain
            values = evaluate(spec, points, transform=transform).astype(np.float64)
            total[first:last] += (weight * fade) * values.reshape(last - first, columns)
    total /= SIMPLEX_STD * math.sqrt(weights)
    return total


def rock_field(
    shape: tuple[int, int],
    *,
    scale: float,
    seed: int = 0,
    octaves: int = FIELD_OCTAVES,
    contrast: float = 0.0,
    strike: float = 0.0,
    stretch: float = 1.0,
) -> np.ndarray:
    """``z`` of rock variety (module docstring; float64, ``shape``): 2-D simplex fBm of ``octaves`` octaves whose
    first wavelength is ``scale`` times the map's longer side, of unit standard deviation; the erodibility is
    ``K·exp(s·z)`` (and the river stage's uplift likewise). With ``stretch`` ``a > 1`` the noise is read at
    ``(u / a, v)``, ``u`` along the ``strike`` (degrees anticlockwise from +x) and ``v`` across it: units ``a``
    times longer along the strike (anisotropic fBm). With ``contrast`` ``c > 0`` the result is
    ``tanh(c·z) / tanh(c)``: units with short contacts, ``±1`` inside them for a large ``c``. ``ValueError``/
    ``TypeError`` naming ``shape``, ``scale``, ``seed``, ``octaves``, ``contrast``, ``strike`` or ``stretch``."""
    if (
        not isinstance(shape, tuple)
        or len(shape) != 2
        or not all(isinstance(side, (int, np.integer)) and side >= 1 for side in shape)
    ):
        raise ValueError(f"shape: expected (rows, columns), two whole numbers >= 1, got {shape!r}")
    wavelength = float(replace(ROCK_VARIETY_SCALE, name="scale").check(scale))  # type: ignore[arg-type]
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
        raise TypeError(f"seed: expected a whole number, got {type(seed).__name__}")
    count = int(replace(ROCK_VARIETY_OCTAVES, name="octaves").check(octaves))  # type: ignore[arg-type]
    sharpness = float(replace(ROCK_VARIETY_CONTRAST, name="contrast").check(contrast))  # type: ignore[arg-type]
    angle = math.radians(float(replace(ROCK_VARIETY_STRIKE, name="strike").check(strike)))  # type: ignore[arg-type]
    ratio = float(replace(ROCK_VARIETY_STRETCH, name="stretch").check(stretch))  # type: ignore[arg-type]
    grain = None
    if ratio != 1.0:  # (x, y) -> (u / a, v) in the strike's frame, turned back: the noise's lattice stays put
        turn = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
        grain = turn @ np.diag([1.0 / ratio, 1.0]) @ turn.T
    step = 1.0 / max(max(shape) - 1, 1)  # map units: the longer side is 1
    z = _octaves((int(shape[0]), int(shape[1])), step, wavelength, count, int(seed) + FIELD_SALT, grain)
    if sharpness > 0.0:
        np.tanh(z * sharpness, out=z)
        z /= math.tanh(sharpness)
    return z


def rain_field(
    heights: np.ndarray, *, variety: float = 0.0, scale: float = 0.5, height: float = 0.0, seed: int = 0
) -> np.ndarray | None:
    """The runoff of the river stage (module docstring, *Rain*; float64, ``heights``' shape, mean 1), or None for
    even rain: ``exp(v·z - r·(t - t̄))`` over its mean, ``z`` ``rock_field`` of ``scale`` seeded ``seed +
    RAIN_SALT`` (``v`` the ``variety``), ``t`` the heights' 0..1 range (``r`` the ``height``). ``ValueError``/
    ``TypeError`` naming ``variety``, ``scale``, ``height`` or ``seed``."""
    v = float(replace(RAIN_VARIETY, name="variety").check(variety))  # type: ignore[arg-type]
    wavelength = float(replace(RAIN_VARIETY_SCALE, name="scale").check(scale))  # type: ignore[arg-type]
    r = float(replace(RAIN_HEIGHT, name="height").check(height))  # type: ignore[arg-type]
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
        raise TypeError(f"seed: expected a whole number, got {type(seed).__name__}")
    if v == 0.0 and r == 0.0:
        return None
    shape = (int(heights.shape[0]), int(heights.shape[1]))
    exponent = np.zeros(shape)
    if v > 0.0:
        exponent += v * rock_field(shape, scale=wavelength, seed=int(seed) + RAIN_SALT)
    if r != 0.0:
        low, span = float(heights.min()), float(np.ptp(heights))
        if span > 0.0:
            share = (heights - low) / span
            exponent -= r * (share - share.mean())
    exponent -= exponent.max()  # no overflow; the mean divides it out
    rain = np.exp(exponent)
    rain /= rain.mean()
    return rain


def rock_detail(
    heights: np.ndarray,
    *,
    cell_size: float = 1.0,
    amplitude: float,
    wavelength: float = 400.0,
    seed: int = 0,
    area: np.ndarray | None = None,
) -> np.ndarray:
    """``heights`` (float64, new array) with rock texture on their slopes, ``h + a·min(S, 1)²·n`` (module
    docstring): ``a`` the ``amplitude`` at a slope of 1, ``S`` each cell's slope by the isotropic gradient stencil
    (``(4·(h_E - h_W) + h_NE - h_NW + h_SE - h_SW) / (12·cell)``, the edge cells repeated beyond the map), ``n``
    simplex fBm, its longest wavelength ``wavelength`` (in the unit of ``cell_size``), its octaves under two cells
    faded, streaked down the slope ``streak_reach`` cells either way and rescaled to unit standard deviation;
    with ``area`` (the drainage area, in cells, a map of the heights' shape) times ``CHANNEL_AREA / (CHANNEL_AREA +
    area)`` blurred (``_blurred``), so the channels keep their beds. ``ValueError``/``TypeError`` naming the
    argument."""
    h, cell = _texture_arguments(heights, cell_size, seed)
    size = float(replace(ROCK_DETAIL, name="amplitude").check(amplitude))  # type: ignore[arg-type]
    length = float(replace(ROCK_DETAIL_SCALE, name="wavelength").check(wavelength))  # type: ignore[arg-type]
    keep = (
        np.ones((1, 1))
        if area is None
        else _blurred(CHANNEL_AREA / (CHANNEL_AREA + check_weights(area, h.shape, "area")))
    )
    if size == 0.0:
        return np.array(h)
    noise = _octaves(h.shape, cell, length, DETAIL_OCTAVES, int(seed) + DETAIL_SALT)
    kernels = _kernels()
    reach = streak_reach(length, cell)
    samples = min(reach, STREAK_SAMPLES)
    streaked = np.empty_like(h)
    runtime.launch_blocks(kernels.streaks, h.shape[0], (h, noise, reach / samples, samples, streaked))
    del noise  # at most four map-sized arrays at once besides the heights (engine sizes)
    streaked /= max(float(streaked.std()), _floor(samples))
    out = np.empty_like(h)
    runtime.launch_blocks(kernels.textured, h.shape[0], (h, streaked, keep, size, cell, out))
    return out


def scour(
    heights: np.ndarray,
    *,
    cell_size: float = 1.0,
    depth: float,
    wavelength: float = 800.0,
    seed: int = 0,
    ground: np.ndarray | None = None,
) -> np.ndarray:
    """``heights`` (float64, new array) with areal scour's knobs and rock basins (module docstring):
    ``h - d·w(S)·b(n)``, ``d`` the ``depth``, ``S`` the slope by the isotropic gradient stencil
    (edge cells repeated) of ``ground`` (None: the heights), ``n`` simplex fBm of ``SCOUR_OCTAVES`` octaves from
    ``wavelength`` (in the unit of ``cell_size``; octaves under two cells faded) of unit standard deviation, ``b``
    the smoothstep of the module docstring. ``ground`` is a grid of at least 3 x 3 spanning the map corner to
    corner, of its cells or fewer along each side (its cell: the map's longer side over its own): ``w(S)`` is
    taken on its cells and interpolated bilinearly onto the map. The river stage passes its heights before the
    rock detail on its fine grid, so the weight is the landscape's and the same at every sample count (the slopes
    of the interpolated floors and of the detail change from cell to cell on a finer map). ``ValueError``/
    ``TypeError`` naming the argument."""
    h, cell = _texture_arguments(heights, cell_size, seed)
    deepest = float(replace(SCOUR_DEPTH, name="depth").check(depth))  # type: ignore[arg-type]
    length = float(replace(SCOUR_SCALE, name="wavelength").check(wavelength))  # type: ignore[arg-type]
    slopes = h if ground is None else _ground(ground, h.shape)
    if deepest == 0.0:
        return np.array(h)
    spacing = cell * (max(h.shape) - 1) / (max(slopes.shape) - 1)  # the ground's cell
    kernels = _kernels()
    weight = np.empty_like(slopes)
    runtime.launch_blocks(kernels.scour_weight, slopes.shape[0], (slopes, spacing, weight))
    if weight.shape != h.shape:
        weight = resample_bilinear(weight, h.shape)
    noise = _octaves(h.shape, cell, length, SCOUR_OCTAVES, int(seed) + SCOUR_SALT)
    out = np.empty_like(h)
    runtime.launch_blocks(kernels.scoured, h.shape[0], (h, weight, noise, deepest, out))
    return out


def _texture_arguments(heights: object, cell_size: object, seed: object) -> tuple[np.ndarray, float]:
    """``(h, cell)`` of ``rock_detail`` and ``scour``: the checked heights as float64 (read only: no copy of a
    float64 map) and the cell size; ``ValueError``/``TypeError`` naming ``heights``, ``cell_size`` or ``seed``."""
    checked = check_heights(heights)
    cell = float(CELL_SIZE.check(cell_size))  # type: ignore[arg-type]
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
        raise TypeError(f"seed: expected a whole number, got {type(seed).__name__}")
    return (checked if checked.dtype == np.float64 else checked.astype(np.float64)), cell


def _ground(ground: object, shape: tuple[int, ...]) -> np.ndarray:
    """``scour``'s ``ground`` as a finite float64 grid of the heights' ``shape`` or a coarser one (corner to
    corner, at least 3 x 3; the fine grid of a map keeps its proportions to within a cell); errors name it."""
    if not isinstance(ground, np.ndarray):
        raise TypeError(f"ground: expected a numpy array, got {type(ground).__name__}")
    if ground.dtype.kind not in "fiu" or ground.dtype == np.bool_:
        raise TypeError(f"ground: dtype must be a real number type, got {ground.dtype}")
    rows, columns = shape
    if not (ground.ndim == 2 and 3 <= ground.shape[0] <= rows and 3 <= ground.shape[1] <= columns):
        raise ValueError(
            f"ground: must be a grid of the heights' shape {shape} or a coarser one (at least 3 x 3), got "
            f"{ground.shape}"
        )
    values = ground.astype(np.float64, copy=False)
    if not np.isfinite(values).all():
        raise ValueError("ground: must be finite (no NaN or infinity)")
    return values


def _blurred(share: np.ndarray) -> np.ndarray:
    """``share`` blurred twice by the binomial kernel ``[1 2 1; 2 4 2; 1 2 1] / 16`` (edge cells repeated): the D8
    channels the drainage area follows run at 0°, 45° and 90°, and a mask along them would print that pattern."""
    for _ in range(2):
        z = np.pad(share, 1, mode="edge")
        rows = z[:-2] + 2.0 * z[1:-1] + z[2:]
        share = (rows[:, :-2] + 2.0 * rows[:, 1:-1] + rows[:, 2:]) / 16.0
    return share


def streak_reach(wavelength: float, cell_size: float) -> int:
    """Cells the streaks of ``rock_detail`` reach either way: ``STREAK`` times the longest wavelength, at least 1
    (sampled at ``min(reach, STREAK_SAMPLES)`` points each way)."""
    return max(1, round(STREAK * wavelength / cell_size))


def _floor(samples: int) -> float:
    """``sqrt(Σw²) / Σw`` of the streaks' weights (``samples`` each way): their standard deviation over noise of
    unit standard deviation whose samples along the line were independent; rock_detail divides by no less (a tiny
    map's spread)."""
    weights = 1.0 - np.abs(np.arange(-samples, samples + 1)) / (samples + 1.0)
    return float(np.sqrt((weights**2).sum()) / weights.sum())


@jit
def _gradient(h, row, column):
    """``(gx, gy)`` at ``(row, column)`` times ``12·cell``: the isotropic stencil
    ``4·(h_E - h_W) + h_NE - h_NW + h_SE - h_SW`` and its transpose, the edge cells repeated beyond the map."""
    rows, columns = h.shape
    up, down = max(row - 1, 0), min(row + 1, rows - 1)
    left, right = max(column - 1, 0), min(column + 1, columns - 1)
    gx = 4.0 * (h[row, right] - h[row, left]) + h[up, right] - h[up, left] + h[down, right] - h[down, left]
    gy = 4.0 * (h[down, column] - h[up, column]) + h[down, left] - h[up, left] + h[down, right] - h[up, right]
    return gx, gy


def _streaks(first, last, h, noise, step, samples, out):
    """Rows ``first`` to ``last - 1`` of ``out``: ``noise`` averaged along the straight line through each cell in
    its downslope direction (the isotropic stencil's gradient), at ``samples`` points ``step`` cells apart either
    way, with the weights ``1 - |t| / (samples + 1)``, sampled bilinearly (the edge cells repeated): line integral
    convolution (Cabral & Leedom 1993). A range kernel over rows."""
    if first < 0:  # the launch
        on_threads(last)
        return
    rows, columns = h.shape
    for row in range(first, last):
        for column in range(columns):
            gx, gy = _gradient(h, row, column)
            norm = math.sqrt(gx * gx + gy * gy)
            if norm == 0.0:
                out[row, column] = noise[row, column]
                continue
            dx, dy = step * gx / norm, step * gy / norm
            total = 0.0
            weights = 0.0
            for t in range(-samples, samples + 1):
                weight = 1.0 - abs(t) / (samples + 1.0)
                x = min(max(column + t * dx, 0.0), columns - 1.0)
                y = min(max(row + t * dy, 0.0), rows - 1.0)
                total += weight * bilinear_at(noise, x, y)
                weights += weight
            out[row, column] = total / weights


def _textured(first, last, h, noise, keep, amplitude, cell, out):
    """Rows ``first`` to ``last - 1`` of ``out = h + amplitude·keep·min(S, 1)²·noise``, ``S`` the isotropic
    stencil's slope (edges repeated), ``keep`` a map or one value (1 by 1). A range kernel over rows."""
    if first < 0:  # the launch
        on_threads(last)
        return
    columns = h.shape[1]
    for row in range(first, last):
        for column in range(columns):
            gx, gy = _gradient(h, row, column)
            gx, gy = gx / (12.0 * cell), gy / (12.0 * cell)
            slope = min(math.sqrt(gx * gx + gy * gy), 1.0)
            share = keep[0, 0] if keep.size == 1 else keep[row, column]
            out[row, column] = h[row, column] + amplitude * share * slope * slope * noise[row, column]


def _scour_weight(first, last, ground, cell, out):
    """Rows ``first`` to ``last - 1`` of ``out = w(S)`` (``scour``), ``S`` the slope of ``ground``, whose cells
    are ``cell`` apart. A range kernel over rows."""
    if first < 0:  # the launch
        on_threads(last)
        return
    columns = ground.shape[1]
    for row in range(first, last):
        for column in range(columns):
            gx, gy = _gradient(ground, row, column)
            slope = math.sqrt(gx * gx + gy * gy) / (12.0 * cell)
            flat = (slope / SCOUR_FLAT) ** 2
            out[row, column] = flat / (1.0 + flat) / (1.0 + (slope / SCOUR_STEEP) ** 2)


def _scoured(first, last, h, weight, noise, depth, out):
    """Rows ``first`` to ``last - 1`` of ``out = h - depth·weight·b(noise)`` (``scour``). A range kernel over
    rows."""
    if first < 0:  # the launch
        on_threads(last)
        return
    columns = h.shape[1]
    for row in range(first, last):
        for column in range(columns):
            t = min(max(noise[row, column], 0.0), 1.0)
            basin = t * t * (3.0 - 2.0 * t)  # smoothstep: no crease at the rims or the floors
            out[row, column] = h[row, column] - depth * weight[row, column] * basin


_kernels = kernel_table(ranged=(_textured, _streaks, _scour_weight, _scoured))
"""The compiled kernels, built on first use."""
