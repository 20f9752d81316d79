"""Hill noise: a sum of sine waves whose amplitude is proportional to their size (seed 002).

In d dimensions, with sizes ``s_i`` (i < N), phase offsets ``o_ic`` and orthonormal
axes ``n_ic`` (c < d)::

    H(p) = sum_i (s_i / d) * sum_c sin(n_ic . t / s_i + o_ic)

which is the seed's ``size*sin(x/size + offset)`` in 1D, its ``size/2*(sin(u/size+..) +
sin(v/size+..))`` in 2D and ``size/3*(cos(..) + cos(..) + cos(..))`` in 3D (the cosine
is kept as a sine with ``pi/2`` added to the offset).

Construction, following the seed:

* sizes: explicit, or ``s_i = ((i + 0.5) / (N + 1)) ** (-ln(smoothness))``;
* offsets: ``o_k = 2 pi * avalanche(eat(hash_seed(seed), k)) / 2**32`` for ``k = d*i + c``
  (the seed's ``offsets[d*i + c]``, from the project's SmallXXHash instead of a global
  RNG; the seed's 2D ``2*range(len(sizes))`` is a slip for ``range(2*len(sizes))``);
* 2D axes: ``r_i = 2 pi * frac(i * phi)``, ``u = x cos r - y sin r``,
  ``v = -x sin r - y cos r`` (``phi`` the golden ratio), exactly the seed's;
* 3D axes: the seed's golden-ratio polar frames. Its ``resolution`` is undefined in
  the seed (a slip) and is ``N`` here, which makes ``j`` a permutation of 0..N-1 (the
  j-th size drives frame i, as in the seed). ``phi_i = 2 pi frac(i phi)``,
  ``theta_j = acos(2 frac(j phi) - 1)``, ``n1 = (sin phi cos theta, sin phi sin theta,
  cos phi)``, ``n2 = d n1 / d phi``, ``n3 = n1 x n2 = (-sin theta, cos theta, 0)``.
  Every frame is orthonormal, so the axes' second moments are isotropic
  (``sum_c n_c n_c^T = I``); the third axis is always horizontal, which is the seed's
  construction and kept as the default.

Coordinates: ``t = 2 pi * max(s) * frequency * p``, so the largest sine repeats once per
``1 / frequency`` (like a lattice cell of the other kinds) and smaller sines ``s_max /
s_i`` times as often. The output is the seed's ``evaluate(t)``.

Normalisation (the seed's sigma is a slip: it uses undefined ``amplitudes``, its
``sqrt(sum (a/2)^2)`` is right only in 2D, and the code then divides by ``2 sigma`` or
``3 sigma`` again). Derivation: over a wide domain the phases of distinct wave vectors
are equidistributed and pairwise uncorrelated (Weyl), so each ``sin`` has mean 0 and
variance 1/2 and the terms add in variance::

    Var H = sum_i (s_i/d)^2 * d * 1/2 = sum_i s_i^2 / (2 d),   sigma_d = sqrt(sum s_i^2 / (2 d))

i.e. ``sigma_1 = sqrt(sum s^2 / 2)``, ``sigma_2 = sqrt(sum s^2 / 4)``, ``sigma_3 = sqrt(sum
s^2 / 6)``. By the central limit theorem ``z = H / sigma_d`` is close to N(0, 1) and
the seed's approximate normal CDF ``U = 1/2 + sign(z)/2 sqrt(1 - exp(-2 z^2 / pi))``
makes it nearly uniform on [0, 1]: with the defaults the Kolmogorov-Smirnov distance
to U(0, 1) over a wide domain is about 0.03 in 1D, 0.012 in 2D and 0.009 in 3D. (Equal
sizes on parallel axes, e.g. 1D with ``smoothness = 1``, are one wave, not independent
ones: that noise is periodic.) Hill noise never repeats exactly but is quasi-periodic:
the largest sine carries a large share of the variance (about half with the defaults),
so the autocorrelation comes back to about 0.9 where the large sines nearly realign;
a larger ``sines`` count or a smaller ``smoothness`` lowers that.

``distribution``: ``"uniform"`` returns ``U``; ``"raw"`` returns ``H / sum s_i`` in
[-1, 1]; ``"weibull"`` the inverse transform ``alpha * (-ln(1 - U)) ** (1 / beta)`` of
the seed's ``WeibullHillNoise``, with ``1 - U`` computed without cancellation and
floored at ``2**-20`` (a share of about 1e-6 of samples) so the range is bounded:
``[0, alpha * (20 ln 2) ** (1 / beta)]``.

Octaves: the sines are hill noise's own octaves, and a fractal sum of nearly uniform
values is no longer uniform, so ``octaves`` must be 1 (``spec.py`` rejects more); the
detail is shaped with ``sines``, ``smoothness`` or ``sizes``. For the same reason the
offsets are drawn from ``spec.seed`` when the parameters are packed.

The sines are evaluated by :func:`fast_sin` (fdlibm's polynomials, no library call),
about twice as fast per sample as ``np.sin`` here (see its docstring for accuracy).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from ._jit import LazySerialKernel, jit
from .hashing import avalanche, eat, hash_seed
from .schema import FAMILY_HILL, Kind, Option, Requires, numbers_tuple

if TYPE_CHECKING:
    from .spec import NoiseSpec

GOLDEN_RATIO = (math.sqrt(5.0) + 1.0) / 2.0

UNIFORM = 0
RAW = 1
WEIBULL = 2
DISTRIBUTION_CODES = {"uniform": UNIFORM, "raw": RAW, "weibull": WEIBULL}

WEIBULL_TAIL_FLOOR = 2.0**-20
"""Smallest ``1 - U`` fed to the Weibull inverse transform."""

MAX_SINES = 256
SMOOTHNESS_MIN = 1e-3
SMOOTHNESS_MAX = 1e3
MAX_SIZE_RATIO = 1e12
SIZE_MIN = 1e-100
SIZE_MAX = 1e100
"""Explicit sizes stay where their squares, sums and ``2 pi max(sizes)`` are finite, normal float64 numbers."""
WEIBULL_ALPHA_MIN = 1e-30
WEIBULL_ALPHA_MAX = 1e30
WEIBULL_MAX_VALUE = 1e38
"""Largest allowed Weibull value ``alpha * (20 ln 2) ** (1 / beta)``: below float32's 3.4e38, so all are finite."""

# Parameter layout: a header, then one record per wave (d*N of them):
# d direction components (already divided by the size and times 2 pi max(s)), offset, amplitude.
_DISTRIBUTION, _ALPHA, _INV_BETA, _INV_SIGMA, _INV_SIZE_SUM, _WAVES = range(6)
_HEADER = 6


def hill_sizes(spec: NoiseSpec) -> np.ndarray:
    """The sine sizes: ``spec.sizes`` or the seed's ``((i + 0.5) / (N + 1)) ** (-ln(smoothness))``."""
    if spec.sizes is not None:
        return np.array(spec.sizes, dtype=np.float64)
    i = np.arange(spec.sines, dtype=np.float64)
    return ((i + 0.5) / (spec.sines + 1)) ** (-math.log(spec.smoothness))


def sigma(sizes: np.ndarray, dim: int) -> float:
    """Standard deviation of the d-dimensional sum: ``sqrt(sum s^2 / (2 d))`` (module docstring)."""
    return math.sqrt(float(np.sum(sizes * sizes)) / (2.0 * dim))


def weibull_upper(alpha: float, beta: float) -> float:
    """Largest Weibull output: ``alpha * (-ln(2**-20)) ** (1 / beta)``."""
    return alpha * (-math.log(WEIBULL_TAIL_FLOOR)) ** (1.0 / beta)


@LazySerialKernel
def _fill_phase_offsets(seed, out):
    """``out[k] = 2 pi * avalanche(eat(hash_seed(seed), k)) / 2**32``."""
    start = hash_seed(seed)
    for k in range(out.shape[0]):
        out[k] = np.float64(avalanche(eat(start, k))) * (2.0 * np.pi / 2.0**32)


def phase_offsets(seed: int, count: int) -> np.ndarray:
    """``count`` phase offsets in [0, 2 pi) drawn from SmallXXHash of ``seed``."""
    out = np.empty(count, dtype=np.float64)
    _fill_phase_offsets(seed, out)
    return out


def golden_permutation(count: int) -> np.ndarray:
    """The seed's 3D index shuffle ``j`` (its ``resolution`` read as ``count``): a permutation of 0..count-1."""
    fib_num = math.floor(math.log((count - 1) * math.sqrt(5.0) + 0.5) / math.log(GOLDEN_RATIO))
    dec = math.floor(0.5 + GOLDEN_RATIO**fib_num / math.sqrt(5.0))
    inc = math.floor(0.5 + dec / GOLDEN_RATIO)
    order = np.empty(count, dtype=np.int64)
    j = 0
    for i in range(count):
        if j >= dec:
            j -= dec
        else:
            j += inc
            if j >= count:
                j -= dec
        order[i] = j
    return order


def _fractional_golden(count: int) -> np.ndarray:
    return np.arange(count, dtype=np.float64) * GOLDEN_RATIO % 1.0


def axes(dim: int, count: int) -> tuple[np.ndarray, np.ndarray]:
    """``(axes, order)``: unit axes of shape (count, dim, dim) (axis c of wave i) and the size index per wave."""
    if dim == 1:
        return np.ones((count, 1, 1)), np.arange(count)
    angle = _fractional_golden(count) * 2.0 * math.pi
    if dim == 2:
        cos, sin = np.cos(angle), np.sin(angle)
        u = np.stack([cos, -sin], axis=1)
        v = np.stack([-sin, -cos], axis=1)
        return np.stack([u, v], axis=1), np.arange(count)
    order = golden_permutation(count)
    theta = np.arccos(-1.0 + 2.0 * _fractional_golden(count)[order])
    n1 = np.stack([np.sin(angle) * np.cos(theta), np.sin(angle) * np.sin(theta), np.cos(angle)], axis=1)
    n2 = np.stack([np.cos(angle) * np.cos(theta), np.cos(angle) * np.sin(theta), -np.sin(angle)], axis=1)
    return np.stack([n1, n2, np.cross(n1, n2)], axis=1), order


def _pack(spec: NoiseSpec, dim: int) -> np.ndarray:
    """The parameters of ``spec`` in ``dim`` dimensions: a header, then one record per wave.

    Hill noise has a single octave (its sines are its octaves), so the offsets are drawn from
    ``spec.seed``.
    """
    sizes = hill_sizes(spec)
    count = sizes.shape[0]
    frame, order = axes(dim, count)
    wave_sizes = sizes[order]
    offsets = phase_offsets(spec.seed, dim * count).reshape(count, dim)
    if dim == 3:
        offsets = offsets + 0.5 * math.pi
    scale = 2.0 * math.pi * float(sizes.max())
    directions = frame * (scale / wave_sizes)[:, None, None]
    amplitudes = np.broadcast_to((wave_sizes / dim)[:, None, None], (count, dim, 1))
    records = np.concatenate([directions, offsets[:, :, None], amplitudes], axis=2)
    header = [
        DISTRIBUTION_CODES[spec.distribution],
        spec.alpha,
        1.0 / spec.beta,
        1.0 / sigma(sizes, dim),
        1.0 / float(sizes.sum()),
        dim * count,
    ]
    return np.concatenate([np.array(header, dtype=np.float64), records.reshape(-1)])


def _sizes(name: str, value: object) -> tuple[float, ...] | None:
    """Hill ``sizes``: None, or 1..MAX_SINES positive floats in [SIZE_MIN, SIZE_MAX], spread <= MAX_SIZE_RATIO."""
    if value is None:
        return None
    sizes = numbers_tuple(name, value)
    if not 1 <= len(sizes) <= MAX_SINES:
        raise ValueError(f"{name}: must hold between 1 and {MAX_SINES} sizes, got {len(sizes)}")
    if min(sizes) <= 0.0:
        raise ValueError(f"{name}: every size must be > 0, got {sizes!r}")
    if not SIZE_MIN <= min(sizes) <= max(sizes) <= SIZE_MAX:
        raise ValueError(f"{name}: every size must be between {SIZE_MIN:g} and {SIZE_MAX:g}, got {sizes!r}")
    if max(sizes) > MAX_SIZE_RATIO * min(sizes):
        raise ValueError(f"{name}: the largest size may be at most {MAX_SIZE_RATIO:g} times the smallest")
    return sizes


def _check(spec: NoiseSpec) -> None:
    """One octave (the sines are the octaves); Weibull values stay finite float32 numbers."""
    if spec.octaves != 1:
        raise ValueError(
            f"octaves: hill noise carries its own octaves (its sines), so octaves must be 1, got {spec.octaves}; "
            "shape the detail with sines, smoothness or sizes"
        )
    if spec.distribution == "weibull":
        _check_weibull(spec.alpha, spec.beta)


def _check_weibull(alpha: float, beta: float) -> None:
    """Every Weibull value ``alpha * w ** (1 / beta)``, ``w <= 20 ln 2``, is at most WEIBULL_MAX_VALUE."""
    # log10 of the largest value alpha * (20 ln 2) ** (1 / beta), computed without overflow
    log10_upper = math.log10(alpha) + math.log10(20.0 * math.log(2.0)) / beta
    if log10_upper > math.log10(WEIBULL_MAX_VALUE):
        smallest = math.log10(20.0 * math.log(2.0)) / (math.log10(WEIBULL_MAX_VALUE) - math.log10(alpha))
        digits = 3 - math.floor(math.log10(smallest))  # four significant digits, rounded up
        largest = f"1e{log10_upper:.0f}" if math.isfinite(log10_upper) else "beyond float64"
        raise ValueError(
            f"beta: the largest Weibull value alpha * (20 ln 2)**(1/beta) would be {largest}, above "
            f"{WEIBULL_MAX_VALUE:g} (float32); with alpha={alpha:g} beta must be at least "
            f"{math.ceil(smallest * 10**digits) / 10**digits:g}, got {beta!r}"
        )


def _value_range(spec: NoiseSpec) -> tuple[float, float]:
    """[0, 1] (uniform), [-1, 1] (raw), [0, alpha (20 ln 2)^(1/beta)] (weibull)."""
    if spec.distribution == "weibull":
        return 0.0, weibull_upper(spec.alpha, spec.beta)
    return (-1.0, 1.0) if spec.distribution == "raw" else (0.0, 1.0)


_UNUSED_WITH_SIZES = Requires("sizes", None, "unused when sizes are given explicitly")
_WEIBULL_ONLY = Requires("distribution", "weibull", "only used with distribution='weibull'")

KIND = Kind(
    "hill",
    FAMILY_HILL,
    0,
    (1, 2, 3),
    (
        Option(
            "smoothness",
            float,
            2.0,
            "How fast sine sizes shrink (larger = smoother); unused with explicit sizes",
            minimum=SMOOTHNESS_MIN,
            maximum=SMOOTHNESS_MAX,
            soft_minimum=0.1,
            soft_maximum=8.0,
            requires=_UNUSED_WITH_SIZES,
        ),
        Option(
            "sines",
            int,
            12,
            "Number of sines summed; unused with explicit sizes",
            minimum=1,
            maximum=MAX_SINES,
            soft_maximum=64,
            requires=_UNUSED_WITH_SIZES,
        ),
        Option(
            "sizes",
            tuple,
            None,
            "Explicit sine sizes (e.g. 1, 0.5, 0.25); none: from smoothness and sines",
            allowed=f"None or 1..{MAX_SINES} sizes in [{SIZE_MIN:g}, {SIZE_MAX:g}], spread <= {MAX_SIZE_RATIO:g}",
            convert=_sizes,
        ),
        Option(
            "distribution",
            str,
            "uniform",
            "Distribution of the sine amplitudes",
            choices=tuple(DISTRIBUTION_CODES),
        ),
        Option(
            "alpha",
            float,
            1.0,
            "Weibull scale",
            minimum=WEIBULL_ALPHA_MIN,
            maximum=WEIBULL_ALPHA_MAX,
            ui_minimum=1e-3,
            soft_maximum=10.0,
            requires=_WEIBULL_ONLY,
        ),
        Option(
            "beta",
            float,
            1.0,
            "Weibull shape",
            minimum=0.0,
            above=True,
            ui_minimum=1e-3,
            soft_maximum=10.0,
            requires=_WEIBULL_ONLY,
        ),
    ),
    False,
    "Hill noise: a sum of sines with size-proportional amplitude, nearly uniform on 0..1.",
    _value_range,
    pack=_pack,
    check=_check,
)
"""Hill noise (seed 002): one octave; ``distribution`` sets the range (see ``_value_range``)."""


# fdlibm's __kernel_sin / __kernel_cos minimax coefficients on [-pi/4, pi/4] and its
# three-part pi/2 (Sun Microsystems, "Permission to use, copy, modify, and distribute
# this software is freely granted, provided that this notice is preserved").
_SIN = (
    -1.66666666666666324348e-01,
    8.33333333332248946124e-03,
    -1.98412698298579493134e-04,
    2.75573137070700676789e-06,
    -2.50507602534068634195e-08,
    1.58969099521155010221e-10,
)
_COS = (
    4.16666666666666019037e-02,
    -1.38888888888741095749e-03,
    2.48015872894767294178e-05,
    -2.75573143513906633035e-07,
    2.08757232129817482790e-09,
    -1.13596475577881948265e-11,
)
_INV_PIO2 = 6.36619772367581382433e-01
_PIO2_1 = 1.57079632673412561417e00
_PIO2_2 = 6.07710050630396597660e-11
_PIO2_3 = 2.02226624871116645580e-21
REDUCTION_LIMIT = 2.0**48
"""Largest ``|x|`` :func:`fast_sin` reduces itself; beyond, ``n = round(x 2/pi)`` loses integer bits."""


@jit
def fast_sin(x):
    """``sin(x)`` without a library call below ``REDUCTION_LIMIT``: about five times faster than libm here.

    Cody-Waite reduction ``r = x - n pi/2`` with a three-part ``pi/2``, then fdlibm's
    sine or cosine polynomial by the quadrant ``n mod 4`` (taken in floating point).
    Absolute error below 1e-15 for ``|x| < 2**48`` (measured against libm with fused
    multiply-adds; without them about ``ulp(x)`` beyond ``2**20``, the uncertainty ``x``
    already carries). From about ``2**54`` on, ``n`` is no longer the nearest integer
    to ``x 2/pi``, ``r`` leaves the polynomials' interval and they return garbage
    (1e27 was seen), so larger arguments, which hill noise reaches with a wide spread of
    sizes (a ratio up to 5e18 from ``smoothness``), go to libm's ``sin`` with its exact
    (Payne-Hanek) reduction. That branch is taken only by the tiny sines whose phase is
    finer than float64 resolves; it keeps every result in [-1, 1].
    """
    if abs(x) >= REDUCTION_LIMIT:
        return np.sin(x)
    n = np.round(x * _INV_PIO2)
    r = ((x - n * _PIO2_1) - n * _PIO2_2) - n * _PIO2_3
    z = r * r
    s1, s2, s3, s4, s5, s6 = _SIN
    c1, c2, c3, c4, c5, c6 = _COS
    sine = r + r * z * (s1 + z * (s2 + z * (s3 + z * (s4 + z * (s5 + z * s6)))))
    cosine = 1.0 - 0.5 * z + z * z * (c1 + z * (c2 + z * (c3 + z * (c4 + z * (c5 + z * c6)))))
    quadrant = n - 4.0 * np.floor(n * 0.25)
    upper = np.floor(quadrant * 0.5)
    odd = quadrant - 2.0 * upper
    return (sine + odd * (cosine - sine)) * (1.0 - 2.0 * upper)


@jit
def _distribute(total, params):
    """Map the raw sum to the chosen distribution (module docstring)."""
    distribution = params[_DISTRIBUTION]
    if distribution == RAW:
        return total * params[_INV_SIZE_SUM]
    z = total * params[_INV_SIGMA]
    e = np.exp(-2.0 / np.pi * z * z)
    root = np.sqrt(1.0 - e)
    if distribution == UNIFORM:
        return 0.5 + np.copysign(0.5 * root, z)
    tail = 0.5 * e / (1.0 + root) if z >= 0.0 else 0.5 + 0.5 * root
    tail = max(tail, WEIBULL_TAIL_FLOOR)
    return params[_ALPHA] * max(-np.log(tail), 0.0) ** params[_INV_BETA]


@jit
def hill(dim, x, y, z, frequency, params):
    """Hill noise at ``(x[, y[, z]])`` in ``dim`` (a compile-time literal) dimensions."""
    block = params
    px = x * frequency
    py = y * frequency
    pz = z * frequency
    stride = dim + 2
    total = 0.0
    for wave in range(np.int64(block[_WAVES])):
        base = _HEADER + wave * stride
        phase = block[base] * px
        if dim >= 2:
            phase += block[base + 1] * py
        if dim == 3:
            phase += block[base + 2] * pz
        total += block[base + dim + 1] * fast_sin(phase + block[base + dim])
    return _distribute(total, block)
