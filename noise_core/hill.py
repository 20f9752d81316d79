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

from ._jit import jit
from .hashing import avalanche, eat, hash_seed

if TYPE_CHECKING:
    from .spec import NoiseSpec

GOLDEN_RATIO = (math.sqrt(5.0) + 1.0) / 2.0

UNIFORM = 0
RAW = 1
WEIBULL = 2
DISTRIBUTION_CODES = {"uniform": UNIFORM, "raw": RAW, "weibull": WEIBULL}

WEIBULL_TAIL_FLOOR = 2.0**-20
"""Smallest ``1 - U`` fed to the Weibull inverse transform."""

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


@jit
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


def _pack_block(spec: NoiseSpec, dim: int) -> np.ndarray:
    """The parameters of ``spec`` in ``dim`` dimensions: a header, then one record per wave."""
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


def pack_hill(spec: NoiseSpec) -> tuple[int, np.ndarray]:
    """Variant 0; params = the start of the 1D, 2D and 3D blocks, then the three blocks.

    The kernel learns the dimension only when it runs, so all three are packed (a few
    kilobytes at most). Hill noise has a single octave (its sines are its octaves), so
    the offsets are drawn from ``spec.seed``.
    """
    blocks = [_pack_block(spec, dim) for dim in (1, 2, 3)]
    starts = np.cumsum([3] + [block.shape[0] for block in blocks[:-1]], dtype=np.float64)
    return 0, np.concatenate([starts, *blocks])


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
    block = params[np.int64(params[dim - 1]) :]
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
