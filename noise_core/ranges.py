"""The documented output range of every spec, used to map noise to [0, 1] for images.

Fractal sums are weighted averages of octaves, so they keep the range of one
octave; turbulence folds a symmetric range [-1, 1] onto [0, 1].

Simplex kinds (``simplex_value``, ``simplex``) lie in [-1, 1] in every dimension:
the value kernels peak at 1 on lattice points (seed 001, "Final maximum amplitude")
and the gradient variants are normalised by the seed's maxima (001, 2.3-2.5).

Voronoi lies in [0, 1] for every metric and function: F1, F2 and F2 - F1 are
clamped to 1 (``voronoi.py``; Chebyshev never exceeds 1, squared and Manhattan are
clamped, Worley is ``sqrt(min(d^2, 1))``), and ``cell`` is in [0, 1).

Voronoi's Blender functions (smooth F1, distance to edge, n-sphere radius) and the Minkowski metric are
clamped to [0, 1] too. White noise lies in [0, 1) (24-bit values). Gabor noise's ``value`` lies in [-1, 1],
its ``phase`` and ``intensity`` in [0, 1] (``gabor.py``: the sum over 6 sigma, clamped).

Cellular noise lies in [0, 1]: every function is clamped there, as seed 003 does.
Hill noise lies in [0, 1] for ``distribution="uniform"`` and in [-1, 1] for ``"raw"``
(the sum divided by the sum of sizes). ``"weibull"`` lies in ``[0, alpha * (20 ln 2) **
(1 / beta)]`` (``hill.py`` floors ``1 - U`` at ``2**-20``), and images map exactly that
interval to [0, 1], so no value is clipped; as the Weibull tail is long, typical values
(median ``alpha * (ln 2) ** (1 / beta)``) land in the lower part of the image's range.
``spec.py`` keeps that upper end at most 1e38, so every Weibull value is a finite float32.

The range is a promise: the fractal kernel clamps its final float32 values to
:func:`float32_range` (rounding of the weighted sum could otherwise step just past an end).
"""

from __future__ import annotations

import numpy as np

from .fractal_modes import mode_range
from .registry import KINDS
from .spec import NoiseSpec


def value_range(spec: NoiseSpec) -> tuple[float, float]:
    """``(low, high)`` that every value of ``spec`` lies within: its kind's one-octave range (the registry
    row's ``value_range``), folded onto ``[0, max |end|]`` by turbulence."""
    low, high = KINDS[spec.kind].value_range(spec)
    if spec.fractal != "fbm":
        return mode_range(spec.fractal, low, high, spec.octaves, spec.persistence, spec.offset, spec.gain)
    if spec.turbulence:
        return 0.0, max(abs(low), abs(high))
    return low, high


def float32_range(spec: NoiseSpec) -> tuple[np.float32, np.float32]:
    """``value_range(spec)`` rounded inward to float32: the kernels clamp every value to it.

    Inward, so a clamped float32 value compares within ``value_range`` also as a float64.
    """
    low, high = value_range(spec)
    low32, high32 = np.float32(low), np.float32(high)
    if low32 < low:
        low32 = np.nextafter(low32, np.float32(np.inf))
    if high32 > high:
        high32 = np.nextafter(high32, np.float32(-np.inf))
    return low32, high32


def to_unit(spec: NoiseSpec, values: np.ndarray) -> np.ndarray:
    """``values`` of ``spec`` mapped linearly from ``value_range(spec)`` to [0, 1] (float32, clipped).

    The one mapping images, displacement and terrains use: ``(v - low) * (1 / (high - low))``.
    """
    low, high = value_range(spec)
    unit = np.subtract(values, np.float32(low), dtype=np.float32)  # a new array, then in place: one allocation
    unit *= np.float32(1.0 / (high - low))
    return np.clip(unit, np.float32(0.0), np.float32(1.0), out=unit)
