"""The fractal-sum kernel: every noise is evaluated through it (seed 004, "Fractal Noise").

For octave ``o`` the noise is sampled with hash seed ``seed + o`` at frequency
``frequency * lacunarity**o`` and weighted by ``persistence**o``; with turbulence
the octave's absolute value is used. The sum is divided by the sum of weights,
exactly as the seeds' ``GetFractalNoise``. The final scaling clamps each value to
the spec's documented range (``ranges.value_range``, rounded inward to float32):
float32 rounding of the sum and of the scale can otherwise step just outside it
(1.0000001 for Voronoi F2 with a small persistence); values inside it keep their bits.

The points are split into blocks of ``BLOCK`` processed in parallel (one
``prange``). Each block's coordinates are first copied into a small float64
buffer, one row per axis (the input's (N, d) rows, float32 or float64, are read
once; the only allocation is this buffer, once per block); while copying, the
block counts the coordinates outside the caller's range (an integer sum, which
vectorises with the copy, where a running float maximum would not). Within a block the
octave loop is outermost and the loop over points innermost, so that loop is a
straight run of arithmetic over contiguous arrays that LLVM vectorises (four
float64 lanes with AVX2), like the seeds' four-wide SIMD jobs. Families in
``sampling.BLOCKWISE`` fill the block's values per octave with their block sampler
instead (passes over the block in 32-bit lanes, eight wide: see ``sampling``). The block's sum
accumulates in ``out`` itself (float32: at most one float32 rounding per octave).

One kernel is compiled per ``(family, dim, variant, tiled)``: they are closure
constants (typed as literals), so :func:`sampling.sample` resolves to that family's
function when the kernel is typed, and the on-disk cache keeps each combination
apart. With ``tiled`` false the period is the constant 0, so LLVM removes the
lattice wrap (a division, floors, compares and selects per axis) from untiled noise.
Looking the kernel up in a dict keeps the per-call cost at Numba's fast argument
dispatch (microseconds), where passing them as ``numba.literally`` arguments re-ran
type inference on every call (about 0.1 s).

Threads: any number of threads may evaluate at once (the Blender add-on's preview computes in a worker
thread while operators run on the main thread). Numba's ``workqueue`` threading layer aborts the
process when two threads launch parallel kernels at the same time ("Concurrent access has been
detected"); ``tbb`` and ``omp`` allow it. Which layer a process gets depends on the platform, the
installed libraries and ``NUMBA_THREADING_LAYER``, and is known only after the first launch, so launches
are serialised by ``_LAUNCH_LOCK`` unless the layer is known to be ``tbb`` or ``omp``. Compiling (or
loading from the disk cache) happens before the lock: a thread that compiles a new kernel for seconds
never holds up launches of kernels already compiled.
"""

from __future__ import annotations

import threading
from contextlib import nullcontext

import numba
import numpy as np

from ._jit import jit, kernel
from .fractal_modes import FBM, HETERO_TERRAIN, HYBRID, HYBRID_STOP, MODE_CODES, MULTIFRACTAL
from .sampling import BLOCKWISE, sample, sample_block

BLOCK = 1024


@jit
def read_block(rows, dim, limit, local):
    """Copy a block's points (its (n, ``dim``) rows, flattened) into the float64 columns ``local[axis]``;
    returns how many coordinates are not below ``limit`` in magnitude (NaN counts as outside)."""
    block_outside = 0
    for axis in range(dim):
        column = local[axis]
        for i in range(column.shape[0]):
            coordinate = np.float64(rows[i * dim + axis])
            column[i] = coordinate
            block_outside += 0 if abs(coordinate) < limit else 1
    return block_outside


def _build_kernel(family, dim, variant, tiled, mode=FBM, grid=False):
    """The fractal-sum kernel of one ``(family, dim, variant, tiled, mode)`` (``fractal_modes`` codes).

    ``grid``: the points are the 2D lattice ``(points[0, c], points[1, r])``, ``c`` fastest, ``width`` columns
    (point ``i`` is ``c = i mod width``, ``r = i div width``), made in the kernel instead of read from (N, 2) rows:
    the same coordinates, so the same bits, without an (N, 2) array or its gathers. Their range is checked by
    the caller."""
    blockwise = (family, dim) in BLOCKWISE
    musgrave = mode != FBM

    @kernel
    def fractal_kernel(
        points,
        out,
        outside,
        limit,
        seed,
        frequency,
        octaves,
        lacunarity,
        persistence,
        turbulence,
        offset,
        gain,
        params,
        low,
        high,
        width,
    ):
        n = out.shape[0]
        blocks = (n + BLOCK - 1) // BLOCK
        for block in numba.prange(blocks):
            start = block * BLOCK
            stop = min(start + BLOCK, n)
            ob = out[start:stop]
            local = np.empty((dim, stop - start), dtype=np.float64)
            if grid:  # point i of the block is (column, row) stepped from the block's first: no division per point
                row = start // width
                column = start - row * width
                for i in range(stop - start):
                    local[0, i] = points[0, column]
                    local[1, i] = points[1, row]
                    column += 1
                    if column == width:
                        column = 0
                        row += 1
            else:
                outside[block] = read_block(points[start:stop].ravel(), dim, limit, local)
            xb = local[0]
            yb = local[1 if dim > 1 else 0]
            zb = local[2 if dim > 2 else 0]
            wb = local[3 if dim > 3 else 0]
            values = np.empty(stop - start if blockwise else 0, dtype=np.float64)
            total = np.empty(stop - start if musgrave else 0, dtype=np.float64)
            weight = np.empty(stop - start if musgrave else 0, dtype=np.float64)
            octave_frequency = frequency
            amplitude = 1.0
            amplitude_sum = 0.0
            for octave in range(octaves):
                period = octave_frequency if tiled else 0.0
                octave_seed = seed + octave
                if blockwise:
                    sample_block(
                        family, dim, variant, xb, yb, zb, octave_seed, octave_frequency, period, params, values
                    )
                for i in range(ob.shape[0]):
                    if blockwise:
                        value = values[i]
                    else:
                        value = sample(
                            family, dim, variant, xb[i], yb[i], zb[i], wb[i], octave_seed, octave_frequency, period,
                            params,
                        )  # fmt: skip
                    if musgrave:
                        _combine(mode, octave, value, amplitude, offset, gain, total, weight, i)
                    else:
                        value = abs(value) if turbulence else value
                        previous = ob[i] if octave > 0 else np.float32(0.0)
                        ob[i] = previous + np.float32(amplitude * value)
                amplitude_sum += amplitude
                octave_frequency *= lacunarity
                amplitude *= persistence
            if musgrave:
                for i in range(ob.shape[0]):
                    ob[i] = min(max(np.float32(total[i]), low), high)
            else:
                scale = np.float32(1.0 / amplitude_sum)
                for i in range(ob.shape[0]):
                    ob[i] = min(max(ob[i] * scale, low), high)

    return fractal_kernel


@jit
def _combine(mode, octave, value, r, offset, gain, total, weight, i):
    """Fold octave ``octave`` (value ``value``, weight ``r = persistence**octave``) into ``total[i]`` by the
    Musgrave ``mode`` (formulas in ``fractal_modes``); ``weight[i]`` carries the mode's running weight."""
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


_KERNELS = {}


def kernel_for(family, dim, variant, tiled=False, mode=FBM, grid=False):
    """The compiled fractal-sum kernel of ``(family, dim, variant, tiled, mode, grid)``, built on first use."""
    key = (int(family), int(dim), int(variant), bool(tiled), int(mode), bool(grid))
    found = _KERNELS.get(key)
    if found is None:
        found = _KERNELS[key] = _build_kernel(*key)
    return found


_LAUNCH_LOCK = threading.Lock()
THREAD_SAFE_LAYERS = frozenset({"tbb", "omp"})


def launch_guard():
    """The lock around a kernel launch, unless the threading layer is known to allow concurrent launches."""
    try:
        layer = numba.threading_layer()
    except ValueError:  # no parallel kernel has run yet: the layer is not chosen
        return _LAUNCH_LOCK
    return nullcontext() if layer in THREAD_SAFE_LAYERS else _LAUNCH_LOCK


def kernel_signature(kernel, arguments) -> tuple:
    """The Numba argument types ``kernel`` is compiled for when called with ``arguments``."""
    return tuple(kernel.typeof_pyval(argument) for argument in arguments)


def compile_state(kernel, signature) -> str:
    """``"compiled"`` (machine code in memory), ``"cached"`` (in the on-disk cache: loads in well under a
    second) or ``"uncompiled"`` (the next call compiles it: seconds) for ``kernel`` at ``signature``.

    Reads the cache's index file (Numba's ``Cache`` internals, the same from numba 0.62 to 0.68).
    """
    if signature in kernel.overloads:
        return "compiled"
    cache = kernel._cache
    index_key = getattr(cache, "_index_key", None)
    if index_key is None:  # NullCache: running uncached
        return "uncompiled"
    key = index_key(signature, kernel.targetctx.codegen())
    return "cached" if key in cache._cache_file._load_index() else "uncompiled"


def ensure_compiled(kernel, signature) -> None:
    """Compile ``kernel`` for ``signature``, or load it from the disk cache, unless it is in memory."""
    if signature not in kernel.overloads:
        kernel.compile(signature)


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


def kernel_arguments(points, out, outside, spec, params, limit, bounds, width=0) -> tuple:
    """The kernel's arguments, in order (see ``fractal_kernel``); ``bounds`` is the float32 ``(low, high)``
    every value is clamped to (``ranges.float32_range(spec)``); ``width`` the columns of a grid kernel's lattice."""
    return (points, out, outside, float(limit), *octave_arguments(spec), params, np.float32(bounds[0]),
            np.float32(bounds[1]), np.int64(width))  # fmt: skip


def launch(kernel, arguments) -> None:
    """Compile ``kernel`` for ``arguments`` (or load it from the disk cache) outside the lock, then run it under
    ``launch_guard``."""
    ensure_compiled(kernel, kernel_signature(kernel, arguments))
    with launch_guard():
        kernel(*arguments)


def fractal_sum(points, out, family, dim, variant, spec, params, limit, bounds):
    """Fill ``out`` (float32) with the fractal sum of ``spec`` at ``points``, clamped to ``bounds``.

    ``bounds`` is the float32 ``(low, high)`` of ``ranges.float32_range(spec)``.
    ``points`` is a C-contiguous (N, dim) float32 or float64 array (x, y, z columns).
    Returns how many coordinates are not below ``limit`` in magnitude (NaN counts as
    outside), found while the kernel copies the coordinates, so checking them costs no
    extra pass; the caller rejects the result when any are. Such input cannot crash or
    hang the kernel (every loop has a bounded trip count and no array is indexed by a
    coordinate); its values are merely meaningless.
    """
    blocks = (out.shape[0] + BLOCK - 1) // BLOCK
    outside = np.zeros(blocks, dtype=np.int64)
    kernel = kernel_for(family, dim, variant, spec.tiling, MODE_CODES[spec.fractal])
    launch(kernel, kernel_arguments(points, out, outside, spec, params, limit, bounds))
    return int(outside.sum())


def fractal_grid_sum(xs, ys, out, family, variant, spec, params, bounds):
    """Fill ``out`` ((len(ys), len(xs)) float32) with the 2D fractal sum of ``spec`` at ``(xs[c], ys[r])`` by the
    point kernel in grid mode: bit for bit ``fractal_sum`` of the (N, 2) lattice points, which it never builds.
    The coordinates must be within the lattice range (the caller checks them)."""
    axes = np.zeros((2, max(xs.shape[0], ys.shape[0])), dtype=np.float64)
    axes[0, : xs.shape[0]] = xs
    axes[1, : ys.shape[0]] = ys
    flat = out.reshape(-1)
    outside = np.zeros((flat.shape[0] + BLOCK - 1) // BLOCK, dtype=np.int64)
    kernel = kernel_for(family, 2, variant, spec.tiling, MODE_CODES[spec.fractal], grid=True)
    launch(kernel, kernel_arguments(axes, flat, outside, spec, params, 0.0, bounds, xs.shape[0]))
