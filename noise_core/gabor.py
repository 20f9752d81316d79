"""Gabor noise in 2D and 3D: sparse Gabor convolution (Lagae et al. 2009) in the fast, normalised form of
Tavernier et al. 2019, as Blender's Gabor Texture node (4.3) computes it, with the phasor outputs of Tricard et
al. 2019.

The noise is a sum of Gabor kernels placed at random in the lattice cells (``frequency`` cells per unit)::

    G(p) = sum over the 3^d cells around p, impulses k < 8:  w_k g(|p - c_k|^2) exp(2 pi i F (p - c_k) . o_k)

* ``g(s) = exp(-pi s) (1 + cos(pi s)) / 2`` for ``s < 1``, else 0: the unit-width Gaussian (Lagae's ``a = 1``,
  ``K = 1``) windowed by a Hann window so it reaches 0 smoothly at one cell (Blender's choice, against the
  paper's plain truncation);
* eight impulses per cell (Tavernier's stratified sampling, Blender's ``IMPULSES_COUNT``) with Bernoulli
  weights ``w_k = +-1``;
* ``F`` = ``gabor_frequency`` cycles per lattice cell, so the spectrum peaks at ``frequency * gabor_frequency``
  cycles per unit of input;
* ``o_k`` the kernel's unit direction: the ``orientation`` angle ``theta`` (radians) in 2D, turned by
  ``(r - 1/2) pi (1 - anisotropy)``; in 3D ``orientation_3d`` normalised, whose inclination and azimuth are
  turned by ``r pi (1 - anisotropy)`` each (Blender's ``compute_3d_orientation``); ``r`` uniform per impulse.

Outputs (``output``), from the phasor ``G = Re + i Im`` (Tricard's phasor noise): ``value`` = ``Im / (6 sigma)``
(the sine part, zero-mean, Tavernier section 3.3), clamped to [-1, 1]; ``phase`` = ``(atan2(Im, Re) + pi) /
(2 pi)`` in [0, 1]; ``intensity`` = ``|G| / (6 sigma)`` clamped to [0, 1]. ``sigma`` is Blender's: the
standard deviation of the sum for ``F -> infinity`` without the window, ``sqrt(8 * 1/2 * 1/4) = 1`` in 2D and
``sqrt(8 * 1/2 * 1/(4 sqrt 2))`` in 3D (Lagae eq. 9 with the Bernoulli weights' second moment 1/2); values
beyond 6 sigma are rare (the sum is near-normal) and are clamped.

Randomness: SmallXXHash (seed 004) per cell, as the other kinds: the cell's accumulator ``a = eat(...
eat(hash_seed(seed), x), y[, z])`` (cells wrapped modulo the octave's frequency with ``tiling``, so the noise
tiles), then per impulse ``h1 = avalanche(eat(a, k))`` (centre: 10 bits per axis, ``(bits + 1/2) / 1024``;
weight: bit 31) and ``h2 = avalanche(eat(a, k + 8))`` (orientation: 16 bits per angle).

Where ours differs from Blender's node: the hash (Blender hashes the cell's float coordinates and ``3k..3k+2``);
the window ``g`` is a degree-9 polynomial times ``(1 - s)^2`` (within 1.3e-7 of the formula, exactly 0 with a
zero slope at ``s = 1``) and the kernel's cosine and sine are polynomials after an exact reduction in turns
(within about 2e-7), all float32, so the per-point loop vectorises (no library calls); ``value`` is signed
(Blender's value is ours / 2 + 1/2) and clamped, as are all outputs (Blender's are not); Blender floors the
frequency at 0.001, ours must be > 0; octaves, fractal modes and tiling are ours.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from ._jit import inline, jit, scratch
from .blocks import BLOCK
from .hashing import avalanche, eat, hash_seed
from .lattice import split_block, validate_single_step
from .schema import FAMILY_GABOR, Kind, Option, numbers_tuple

if TYPE_CHECKING:
    from .spec import NoiseSpec

IMPULSES = 8
OUTPUT_CODES = {"value": 0, "phase": 1, "intensity": 2}
VALUE, PHASE, INTENSITY = 0, 1, 2
SIGMA_2D = math.sqrt(IMPULSES * 0.5 * 0.25)
SIGMA_3D = math.sqrt(IMPULSES * 0.5 / (4.0 * math.sqrt(2.0)))
DEFAULT_ORIENTATION = 0.7853981852531433
"""pi/4 (Blender's default) rounded to float32, as Blender's properties store it."""
MAX_GABOR_FREQUENCY = 1000.0


def _direction(name: str, value: object) -> tuple[float, float, float] | None:
    """``orientation_3d``: None (Blender's default direction), or three numbers not all 0."""
    if value is None:
        return None
    vector = numbers_tuple(name, value)
    if len(vector) != 3:
        raise ValueError(f"{name}: expected three numbers (x, y, z), got {len(vector)}")
    if math.hypot(*vector) == 0.0 or not math.isfinite(math.hypot(*vector)):
        raise ValueError(f"{name}: the direction must have a finite, non-zero length, got {vector!r}")
    return vector  # type: ignore[return-value]


def _range(spec: NoiseSpec) -> tuple[float, float]:
    """[-1, 1] for the value, [0, 1] for the phase and the intensity."""
    return (-1.0, 1.0) if spec.output == "value" else (0.0, 1.0)


def _pack(spec: NoiseSpec, dim: int) -> np.ndarray:
    """``[F, isotropy, output, 1 / (6 sigma), first angle (turns), second angle (turns), o_x, o_y, o_z, impulses]``:
    in 2D the orientation angle and its direction, in 3D the inclination and azimuth of the unit direction."""
    if dim == 2:
        theta = spec.orientation
        angles = (theta / (2.0 * math.pi), 0.0)
        direction = (math.cos(theta), math.sin(theta), 0.0)
        sigma = SIGMA_2D
    else:
        x, y, z = spec.orientation_3d or (1.0, 1.0, 0.0)
        length = math.hypot(x, y, z)
        x, y, z = x / length, y / length, z / length
        inclination = math.acos(max(-1.0, min(1.0, z)))
        planar = math.hypot(x, y)
        azimuth = math.copysign(math.acos(max(-1.0, min(1.0, x / planar))), y) if planar > 0.0 else 0.0
        angles = (inclination / (2.0 * math.pi), azimuth / (2.0 * math.pi))
        direction = (x, y, z)
        sigma = SIGMA_3D
    isotropy = 1.0 - spec.anisotropy
    values = [spec.gabor_frequency, isotropy, OUTPUT_CODES[spec.output], 1.0 / (6.0 * sigma), *angles, *direction,
              IMPULSES]  # fmt: skip
    return np.array(values, dtype=np.float64)


KIND = Kind(
    "gabor",
    FAMILY_GABOR,
    0,
    (2, 3),
    (
        Option(
            "gabor_frequency",
            float,
            2.0,
            "Frequency of the Gabor kernels' bands, in cycles per lattice cell (Blender's Frequency)",
            minimum=0.0,
            maximum=MAX_GABOR_FREQUENCY,
            above=True,
            ui_minimum=0.001,
            soft_minimum=0.25,
            soft_maximum=16.0,
            title="Frequency",
        ),
        Option(
            "anisotropy",
            float,
            1.0,
            "How much the bands follow the orientation: 0 every direction, 1 only the orientation",
            minimum=0.0,
            maximum=1.0,
        ),
        Option(
            "orientation",
            float,
            DEFAULT_ORIENTATION,
            "Direction of the bands' waves in 2D, an angle in radians from the x axis (Blender's 2D Orientation)",
            minimum=-1000.0,
            maximum=1000.0,
            soft_minimum=-math.pi,
            soft_maximum=math.pi,
            subtype="ANGLE",
        ),
        Option(
            "orientation_3d",
            tuple,
            None,
            "Direction of the bands' waves in 3D, x y z, normalised; none: (1, 1, 0)/sqrt 2 (Blender's default)",
            allowed="None or three numbers (x, y, z), not all 0, normalised",
            convert=_direction,
        ),
        Option(
            "output",
            str,
            "value",
            "Which output of the phasor: value (signed), phase or intensity (Blender's three sockets)",
            choices=tuple(OUTPUT_CODES),
        ),
    ),
    True,
    "Gabor noise: random Gabor kernels per lattice cell, as Blender's Gabor Texture (value -1..1; phase, "
    "intensity 0..1).",
    _range,
    pack=_pack,
)
"""Gabor noise; ``orientation`` is read in 2D, ``orientation_3d`` in 3D."""

_ZERO = np.float32(0.0)
_HALF = np.float32(0.5)
_ONE = np.float32(1.0)
_QUARTER = np.float32(0.25)
_FOUR = np.float32(4.0)
_TWO_PI = np.float32(2.0 * math.pi)
_CENTRE_STEP = np.float32(1.0 / 1024.0)
_ANGLE_STEP = np.float32(1.0 / 65536.0)
# sin and cos on [-pi/4, pi/4] (Cephes' sinf/cosf minimax polynomials)
_S1, _S2, _S3 = np.float32(-1.6666654611e-1), np.float32(8.3321608736e-3), np.float32(-1.9515295891e-4)
_C1, _C2, _C3 = np.float32(4.166664568298827e-2), np.float32(-1.388731625493765e-3), np.float32(2.443315711809948e-5)
# g(s) / (1 - s)^2 on [0, 1]: a Chebyshev fit of degree 9 (monomial coefficients, constant first)
_W0, _W1, _W2, _W3, _W4 = (np.float32(c) for c in (1.0, -1.1415921449661255, -0.8157939910888672,
                                                   2.0939481258392334, -1.0845539569854736))  # fmt: skip
_W5, _W6, _W7, _W8, _W9 = (np.float32(c) for c in (-0.43954890966415405, 0.8877333402633667,
                                                   -0.5365325808525085, 0.16504918038845062,
                                                   -0.02208288572728634))  # fmt: skip


@jit
def sincos_turns(t):
    """``(cos 2 pi t, sin 2 pi t)`` of a float32 ``t`` in turns: ``q`` the nearest quarter turn, ``r = t - q/4``
    (exact) in [-1/8, 1/8] turn, the polynomials at ``2 pi r``, rotated by ``q`` quarter turns."""
    q = np.floor(t * _FOUR + _HALF)
    x = (t - q * _QUARTER) * _TWO_PI
    x2 = x * x
    sine = x + x * x2 * (_S1 + x2 * (_S2 + x2 * _S3))
    cosine = _ONE - _HALF * x2 + x2 * x2 * (_C1 + x2 * (_C2 + x2 * _C3))
    quadrant = np.int32(q)
    odd = (quadrant & 1) != 0
    sign = np.float32(1 - (quadrant & 2))  # -1 in quadrants 2 and 3
    cos_q = -sine if odd else cosine
    sin_q = cosine if odd else sine
    return cos_q * sign, sin_q * sign


@jit
def window(s):
    """``exp(-pi s) (1 + cos(pi s)) / 2`` for float32 ``s`` in [0, 1): the polynomial times ``(1 - s)^2``."""
    p = _W9
    p = p * s + _W8
    p = p * s + _W7
    p = p * s + _W6
    p = p * s + _W5
    p = p * s + _W4
    p = p * s + _W3
    p = p * s + _W2
    p = p * s + _W1
    p = p * s + _W0
    rest = _ONE - s
    return p * rest * rest


@jit
def _impulse(dim, accumulator, k, px, py, pz, frequency, isotropy, a0, b0, ox, oy, oz):
    """Impulse ``k`` of the cell with accumulator ``accumulator`` seen from ``(px, py, pz)`` (the sample's offset
    in that cell): ``(w g cos, w g sin)`` of its kernel's phasor, 0 outside its unit radius."""
    h1 = avalanche(eat(accumulator, k))
    h2 = avalanche(eat(accumulator, k + IMPULSES))
    dx = px - (np.float32(np.int32(h1 & 1023)) + _HALF) * _CENTRE_STEP
    dy = py - (np.float32(np.int32((h1 >> 10) & 1023)) + _HALF) * _CENTRE_STEP
    dz = pz - (np.float32(np.int32((h1 >> 20) & 1023)) + _HALF) * _CENTRE_STEP if dim == 3 else _ZERO
    s = dx * dx + dy * dy + dz * dz
    inside = s < _ONE
    weight = window(min(s, _ONE)) * np.float32(1 - 2 * np.int32(h1 >> 31))
    weight = weight if inside else _ZERO
    r1 = np.float32(np.int32(h2 & 65535)) * _ANGLE_STEP
    r2 = np.float32(np.int32(h2 >> 16)) * _ANGLE_STEP
    if dim == 2:
        c, sn = sincos_turns(a0 + (r1 - _HALF) * _HALF * isotropy)
        wx, wy, wz = c, sn, _ZERO
    else:
        ci, si = sincos_turns(a0 + r1 * _HALF * isotropy)
        ca, sa = sincos_turns(b0 + r2 * _HALF * isotropy)
        wx, wy, wz = si * ca, si * sa, ci
    turned = isotropy > _ZERO
    wx = wx if turned else ox
    wy = wy if turned else oy
    wz = wz if turned else oz
    c, sn = sincos_turns(frequency * (dx * wx + dy * wy + dz * wz))
    return weight * c, weight * sn


@inline
def gabor_block(variant, dim, xs, ys, zs, seed, frequency, period, params, values):
    """Gabor noise of a block (2D or 3D): for each of the 3^d neighbour cells and each impulse, one loop over the
    samples adds that impulse's kernel (straight-line float32, which vectorises; one loop, so it compiles
    quickly); the block samplers' arguments (``sampling.BLOCK_SAMPLERS``; ``params`` from ``_pack``)."""
    n = values.shape[0]
    kernel_frequency = np.float32(params[0])
    isotropy = np.float32(params[1])
    output = int(params[2])
    scale = np.float32(params[3])
    a0 = np.float32(params[4])
    b0 = np.float32(params[5])
    ox = np.float32(params[6])
    oy = np.float32(params[7])
    oz = np.float32(params[8])
    cells = scratch((3, BLOCK), (3, n), np.int32)
    offsets = scratch((3, BLOCK), (3, n), np.float32)
    real = scratch(BLOCK, n, np.float32)
    imaginary = scratch(BLOCK, n, np.float32)
    split_block(dim, xs, ys, zs, frequency, period, cells, offsets)
    for i in range(n):
        real[i] = _ZERO
        imaginary[i] = _ZERO
    h = hash_seed(seed)
    cells_around = 27 if dim == 3 else 9
    impulses = int(params[9])  # IMPULSES, read at run time: LLVM then keeps this loop rolled (compile time)
    for job in range(cells_around * impulses):
        k = job % impulses
        cell = job // impulses
        u = cell % 3 - 1
        v = (cell // 3) % 3 - 1
        w = cell // 9 - 1
        for i in range(n):
            a = eat(h, validate_single_step(np.int64(cells[0, i]) + u, period))
            a = eat(a, validate_single_step(np.int64(cells[1, i]) + v, period))
            if dim == 3:
                a = eat(a, validate_single_step(np.int64(cells[2, i]) + w, period))
            px = offsets[0, i] - np.float32(u)
            py = offsets[1, i] - np.float32(v)
            pz = offsets[2, i] - np.float32(w) if dim == 3 else _ZERO
            c, sn = _impulse(dim, a, k, px, py, pz, kernel_frequency, isotropy, a0, b0, ox, oy, oz)
            real[i] += c
            imaginary[i] += sn
    for i in range(n):
        re = real[i]
        im = imaginary[i]
        if output == VALUE:
            result = min(max(im * scale, -_ONE), _ONE)
        elif output == PHASE:
            result = min(max((np.arctan2(im, re) + np.float32(math.pi)) / _TWO_PI, _ZERO), _ONE)
        else:
            result = min(np.sqrt(re * re + im * im) * scale, _ONE)
        values[i] = result
