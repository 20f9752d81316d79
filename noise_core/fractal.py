"""The fractal-sum kernel: every noise is evaluated through it (seed 004, "Fractal Noise").

For octave ``o`` the noise is sampled with hash seed ``seed + o`` at frequency
``frequency * lacunarity**o`` and weighted by ``persistence**o``; with turbulence
the octave's absolute value is used. The sum is divided by the sum of weights,
exactly as the seeds' ``GetFractalNoise``.

The points are split into blocks processed in parallel (``prange``). Within a
block the octave loop is outermost and the loop over points innermost, so that
loop is a straight run of arithmetic over contiguous arrays that LLVM can
vectorise, like the seeds' four-wide SIMD jobs.
"""

from __future__ import annotations

import numba
import numpy as np

from ._jit import kernel
from .sampling import sample

BLOCK = 1024


@kernel
def _fractal_kernel(
    x, y, z, out, family, dim, variant, seed, frequency, octaves, lacunarity, persistence, turbulence, tiling, params
):
    numba.literally(family)
    numba.literally(dim)
    numba.literally(variant)
    n = out.shape[0]
    blocks = (n + BLOCK - 1) // BLOCK
    for block in numba.prange(blocks):
        start = block * BLOCK
        stop = min(start + BLOCK, n)
        acc = np.zeros(stop - start, dtype=np.float64)
        octave_frequency = frequency
        amplitude = 1.0
        amplitude_sum = 0.0
        for octave in range(octaves):
            period = octave_frequency if tiling else 0.0
            octave_seed = seed + octave
            for i in range(start, stop):
                value = sample(
                    family, dim, variant, x[i], y[i], z[i], octave_seed, octave_frequency, period, params
                )
                value = abs(value) if turbulence else value
                acc[i - start] += amplitude * value
            amplitude_sum += amplitude
            octave_frequency *= lacunarity
            amplitude *= persistence
        scale = 1.0 / amplitude_sum
        for i in range(start, stop):
            out[i] = acc[i - start] * scale


def fractal_sum(columns, out, family, dim, variant, spec, params):
    """Fill ``out`` (float32) with the fractal sum of ``spec`` at the points ``columns``.

    ``columns`` are ``dim`` contiguous float64 arrays of equal length (x, y, z).
    """
    x = columns[0]
    y = columns[1] if dim > 1 else x
    z = columns[2] if dim > 2 else x
    _fractal_kernel(
        x,
        y,
        z,
        out,
        family,
        dim,
        variant,
        spec.seed,
        spec.frequency,
        spec.octaves,
        spec.lacunarity,
        spec.persistence,
        spec.turbulence,
        spec.tiling,
        params,
    )
