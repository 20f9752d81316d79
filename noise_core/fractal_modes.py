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
"""

from __future__ import annotations

from ._jit import jit

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
