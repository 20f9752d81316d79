"""The fractal-sum kernel: every noise is evaluated through it (seed 004, "Fractal Noise").

For octave ``o`` the noise is sampled with hash seed ``seed + o`` at frequency
``frequency * lacunarity**o`` and weighted by ``persistence**o``; with turbulence
the octave's absolute value is used. The sum is divided by the sum of weights,
exactly as the seeds' ``GetFractalNoise``.

The points are split into blocks of ``BLOCK`` processed in parallel (one
``prange``). Each block's coordinates are first copied into a small float64
buffer, one row per axis (the input's (N, d) rows, float32 or float64, are read
once; the only allocation is this buffer, once per block). Within a block the
octave loop is outermost and the loop over points innermost, so that loop is a
straight run of arithmetic over contiguous arrays that LLVM vectorises (four
float64 lanes with AVX2), like the seeds' four-wide SIMD jobs. The block's sum
accumulates in ``out`` itself (float32: at most one float32 rounding per octave).

One kernel is compiled per ``(family, dim, variant)``: they are closure constants
(typed as literals), so :func:`sampling.sample` resolves to that family's function
when the kernel is typed, and the on-disk cache keeps each combination apart.
Looking the kernel up in a dict keeps the per-call cost at Numba's fast argument
dispatch (microseconds), where passing them as ``numba.literally`` arguments re-ran
type inference on every call (about 0.1 s).
"""

from __future__ import annotations

import numba
import numpy as np

from ._jit import kernel
from .sampling import sample

BLOCK = 1024


def _build_kernel(family, dim, variant):
    """The fractal-sum kernel of one ``(family, dim, variant)``."""

    @kernel
    def fractal_kernel(points, out, seed, frequency, octaves, lacunarity, persistence, turbulence, tiling, params):
        n = out.shape[0]
        blocks = (n + BLOCK - 1) // BLOCK
        for block in numba.prange(blocks):
            start = block * BLOCK
            stop = min(start + BLOCK, n)
            ob = out[start:stop]
            rows = points[start:stop].ravel()
            local = np.empty((dim, stop - start), dtype=np.float64)
            for axis in range(dim):
                column = local[axis]
                for i in range(column.shape[0]):
                    column[i] = rows[i * dim + axis]
            xb = local[0]
            yb = local[1 if dim > 1 else 0]
            zb = local[2 if dim > 2 else 0]
            octave_frequency = frequency
            amplitude = 1.0
            amplitude_sum = 0.0
            for octave in range(octaves):
                period = octave_frequency if tiling else 0.0
                octave_seed = seed + octave
                for i in range(ob.shape[0]):
                    value = sample(
                        family, dim, variant, xb[i], yb[i], zb[i], octave_seed, octave_frequency, period, params
                    )
                    value = abs(value) if turbulence else value
                    previous = ob[i] if octave > 0 else np.float32(0.0)
                    ob[i] = previous + np.float32(amplitude * value)
                amplitude_sum += amplitude
                octave_frequency *= lacunarity
                amplitude *= persistence
            scale = np.float32(1.0 / amplitude_sum)
            for i in range(ob.shape[0]):
                ob[i] = ob[i] * scale

    return fractal_kernel


@kernel
def _block_extremes(flat, largest, nonfinite):
    """Per block of ``flat``: the largest finite ``|v|`` and the count of NaN or infinite values."""
    for block in numba.prange(largest.shape[0]):
        start = block * BLOCK
        stop = min(start + BLOCK, flat.shape[0])
        block_largest = 0.0
        block_nonfinite = 0
        for i in range(start, stop):
            magnitude = abs(flat[i])
            finite = magnitude < np.inf
            block_largest = magnitude if finite and magnitude > block_largest else block_largest
            block_nonfinite += 0 if finite else 1
        largest[block] = block_largest
        nonfinite[block] = block_nonfinite


def coordinate_extremes(points):
    """``(largest finite |coordinate|, number of NaN or infinite coordinates)`` of C-contiguous ``points``.

    One parallel pass, no temporary arrays the size of ``points``.
    """
    flat = points.reshape(-1)
    blocks = (flat.shape[0] + BLOCK - 1) // BLOCK
    largest = np.zeros(blocks, dtype=np.float64)
    nonfinite = np.zeros(blocks, dtype=np.int64)
    _block_extremes(flat, largest, nonfinite)
    return float(largest.max(initial=0.0)), int(nonfinite.sum())


_KERNELS = {}


def kernel_for(family, dim, variant):
    """The compiled fractal-sum kernel of ``(family, dim, variant)``, built on first use."""
    key = (int(family), int(dim), int(variant))
    found = _KERNELS.get(key)
    if found is None:
        found = _KERNELS[key] = _build_kernel(*key)
    return found


def fractal_sum(points, out, family, dim, variant, spec, params):
    """Fill ``out`` (float32) with the fractal sum of ``spec`` at ``points``.

    ``points`` is a C-contiguous (N, dim) float32 or float64 array (x, y, z columns).
    """
    kernel_for(family, dim, variant)(
        points,
        out,
        spec.seed,
        spec.frequency,
        spec.octaves,
        spec.lacunarity,
        spec.persistence,
        spec.turbulence,
        spec.tiling,
        params,
    )
