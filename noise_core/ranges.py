"""The documented output range of every spec, used to map noise to [0, 1] for images.

Fractal sums are weighted averages of octaves, so they keep the range of one
octave; turbulence folds a symmetric range [-1, 1] onto [0, 1].

Cellular noise lies in [0, 1]: every function is clamped there, as seed 003 does.
"""

from __future__ import annotations

from .spec import NoiseSpec


def value_range(spec: NoiseSpec) -> tuple[float, float]:
    """``(low, high)`` that every value of ``spec`` lies within."""
    low, high = -1.0, 1.0
    if spec.kind == "cellular":
        low, high = 0.0, 1.0
    if spec.turbulence:
        return 0.0, max(abs(low), abs(high))
    return low, high
