"""How octaves combine: fBm and Musgrave's multifractal modes, as Blender's Noise Texture node combines them.

``n_o`` is octave ``o`` exactly as fBm uses it (the kind at ``frequency * lacunarity**o`` hashed with
``seed + o``) and ``r = persistence``. The formulas are those of Blender's ``noise.cc`` (4.1+, Musgrave's
"Texturing and Modeling", with Blender's detail = octaves - 1 and roughness = persistence):

* ``fbm``: ``sum_o r^o n_o / sum_o r^o`` (the seeds' ``GetFractalNoise``; ``turbulence`` sums ``|n_o|``);
* ``multifractal``: ``prod_o (1 + r^o n_o)``;
* ``hetero_terrain``: ``v = offset + n_0``, then ``v += (n_o + offset) r^o v``;
* ``hybrid``: ``w = 1, v = 0``; while ``w > 0.001``: ``w = min(w, 1)``, ``s = (n_o + offset) r^o``,
  ``v += w s``, ``w *= gain s``;
* ``ridged``: ``s = (offset - |n_0|)^2``, ``v = s``, ``w = 1``; then ``w = clamp(s gain, 0, 1)``,
  ``s = (offset - |n_o|)^2 w``, ``v += s r^o``.

Only fBm is normalised; the others keep Blender's scale. ``value_range`` bounds each mode by interval
arithmetic over the octave range ``[lo, hi]`` of the kind (``mode_range``), so every output lies inside it.

The fold is written here once for every fractal kernel (the point blocks of ``fractal``, the rows of
``grid_kernels``, the value-and-gradient blocks of ``derivatives``), which differ only in how they sample an
octave: ``octave_settings`` gives octave ``o``'s seed, frequency, lattice period and weight, ``fold`` adds its
value at one point into the running sum (fBm) or total (``combine``), ``finished`` normalises and clamps it.
"""

from __future__ import annotations

import numpy as np
from numba.extending import overload

from ._jit import JIT_OPTIONS, jit

FBM, MULTIFRACTAL, HETERO_TERRAIN, HYBRID, RIDGED = range(5)
MODE_CODES = {
    "fbm": FBM,
    "multifractal": MULTIFRACTAL,
    "hetero_terrain": HETERO_TERRAIN,
    "hybrid": HYBRID,
    "ridged": RIDGED,
}
USES_OFFSET = ("hetero_terrain", "hybrid", "ridged")
USES_GAIN = ("hybrid", "ridged")
HYBRID_STOP = 0.001
"""Hybrid stops adding octaves once its weight falls to this (Blender's ``weight > 0.001``)."""


def octave_arguments(spec) -> tuple:
    """``spec``'s octave settings as every fractal kernel takes them (the point, derivative and grid kernels):
    ``seed, frequency, octaves, lacunarity, persistence, turbulence, offset, gain``."""
    return (
        spec.seed,
        spec.frequency,
        spec.octaves,
        spec.lacunarity,
        spec.persistence,
        spec.turbulence,
        spec.offset,
        spec.gain,
    )


@jit
def combine(mode, octave, value, r, offset, gain, total, weight, i):
    """Fold octave ``octave`` (value ``value``, weight ``r = persistence**octave``) into ``total[i]`` by the
    Musgrave ``mode`` (the formulas above); ``weight[i]`` carries the mode's running weight."""
    if mode == MULTIFRACTAL:
        total[i] = 1.0 + r * value if octave == 0 else total[i] * (1.0 + r * value)
    elif mode == HETERO_TERRAIN:
        total[i] = offset + value if octave == 0 else total[i] + (value + offset) * r * total[i]
    elif mode == HYBRID:
        if octave == 0:
            total[i] = 0.0
            weight[i] = 1.0
        if weight[i] > HYBRID_STOP:
            w = min(weight[i], 1.0)
            signal = (value + offset) * r
            total[i] += w * signal
            weight[i] = w * gain * signal
    else:  # RIDGED: weight[i] holds the previous octave's signal
        ridge = offset - abs(value)
        if octave == 0:
            signal = ridge * ridge
            total[i] = signal
        else:
            signal = ridge * ridge * min(max(weight[i] * gain, 0.0), 1.0)
            total[i] += signal * r
        weight[i] = signal


@jit
def octave_settings(seed, frequency, lacunarity, persistence, tiled, octave):
    """Octave ``octave``'s ``(seed + o, f_o, period, r^o)``: ``f_o = frequency * lacunarity**o`` and ``r^o =
    persistence**o`` by repeated float64 multiplication from octave 0 (the seeds' ``GetFractalNoise``), the lattice
    period ``f_o`` when ``tiled``, else 0 (LLVM drops the wrap where ``tiled`` is a constant)."""
    octave_frequency = frequency
    amplitude = 1.0
    for _ in range(octave):
        octave_frequency *= lacunarity
        amplitude *= persistence
    return seed + octave, octave_frequency, octave_frequency if tiled else 0.0, amplitude


@jit
def amplitude_sum(octaves, persistence):
    """fBm's normaliser ``sum_o r^o`` over ``octaves`` octaves, summed in octave order."""
    total = 0.0
    amplitude = 1.0
    for _ in range(octaves):
        total += amplitude
        amplitude *= persistence
    return total


def fold(mode, octave, value, amplitude, turbulence, offset, gain, sums, total, weight, i):
    """Fold octave ``octave``'s ``value`` (weight ``amplitude = r^o``) in at point ``i``: fBm adds
    ``float32(amplitude * value)`` (``|value|`` with ``turbulence``) to the float32 ``sums[i]``, a Musgrave ``mode``
    folds into the float64 ``total[i]``, ``weight[i]`` by ``combine``. ``mode`` must be a compile-time constant
    (a kernel's closure constant); callable from compiled code only."""
    raise NotImplementedError("fold is compiled into the kernels; call noise_core.evaluate")


def _fold_fbm(mode, octave, value, amplitude, turbulence, offset, gain, sums, total, weight, i):
    value = abs(value) if turbulence else value
    # the first octave, 0 + float32(1 * value), is 0 + value for float32 values: the bits the grid kernel's
    # and the block samplers' own first-octave loops gave
    previous = sums[i] if octave > 0 else np.float32(0.0)
    sums[i] = previous + np.float32(amplitude * value)


def _fold_musgrave(mode, octave, value, amplitude, turbulence, offset, gain, sums, total, weight, i):
    combine(mode, octave, value, amplitude, offset, gain, total, weight, i)


@overload(fold, prefer_literal=True, jit_options={**JIT_OPTIONS, "forceinline": True})
def _fold(mode, octave, value, amplitude, turbulence, offset, gain, sums, total, weight, i):
    """``fold`` for a literal ``mode``: only that mode's code is typed and compiled into the kernel, as a branch
    on a closure constant in the kernel itself would be, rather than a branch left for LLVM to remove after
    inlining."""
    code = getattr(mode, "literal_value", None)
    if code is None:
        return None
    return _fold_fbm if code == FBM else _fold_musgrave


@jit
def finished(mode, sums, total, i, scale, low, high):
    """Point ``i``'s folded value as float32, clamped to ``[low, high]``: fBm's ``sums[i]`` times ``scale`` (the
    float32 ``1 / amplitude_sum``), a Musgrave mode's ``float32(total[i])``."""
    if mode != FBM:
        return min(max(np.float32(total[i]), low), high)
    return min(max(sums[i] * scale, low), high)


def _product(a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float]:
    corners = (a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1])
    return min(corners), max(corners)


def _square_of_distance(offset: float, low: float, high: float) -> tuple[float, float]:
    """Range of ``(offset - t)^2`` for ``t`` in ``[low, high]``."""
    ends = ((offset - low) ** 2, (offset - high) ** 2)
    return (0.0 if low <= offset <= high else min(ends)), max(ends)


def mode_range(
    mode: str, low: float, high: float, octaves: int, persistence: float, offset: float, gain: float
) -> tuple[float, float]:
    """Bounds of ``mode``'s output when every octave lies in ``[low, high]`` (``fbm``: ``[low, high]``)."""
    weights = [persistence**o for o in range(octaves)]
    if mode == "fbm":
        return low, high
    if mode == "multifractal":
        result = (1.0, 1.0)
        for r in weights:
            result = _product(result, (1.0 + r * low, 1.0 + r * high))
        return result
    if mode == "hetero_terrain":
        result = (offset + low, offset + high)
        for r in weights[1:]:
            result = _product(result, (1.0 + r * (low + offset), 1.0 + r * (high + offset)))
        return result
    if mode == "hybrid":  # octave 0 has weight 1; later weights lie in (0.001, 1] or the octave is skipped
        first = (low + offset, high + offset)
        rest_low = sum(min(0.0, r * (low + offset)) for r in weights[1:])
        rest_high = sum(max(0.0, r * (high + offset)) for r in weights[1:])
        return first[0] + rest_low, first[1] + rest_high
    if mode == "ridged":  # every term is >= 0; later ones are at most (offset - |n|)^2 r^o (weight <= 1)
        magnitude = (0.0 if low <= 0.0 <= high else min(abs(low), abs(high)), max(abs(low), abs(high)))
        square = _square_of_distance(offset, *magnitude)
        return square[0], square[1] * sum(weights)
    raise ValueError(f"fractal: unknown mode {mode!r}")
