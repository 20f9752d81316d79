"""The fractal-sum kernels: every noise is evaluated through them (seed 004, "Fractal Noise").

For octave ``o`` the noise is sampled with hash seed ``seed + o`` at frequency
``frequency * lacunarity**o`` and weighted by ``persistence**o``; with turbulence
the octave's absolute value is used. The sum is divided by the sum of weights,
exactly as the seeds' ``GetFractalNoise``. The final scaling clamps each value to
the spec's documented range (``ranges.value_range``, rounded inward to float32):
float32 rounding of the sum and of the scale can otherwise step just outside it
(1.0000001 for Voronoi F2 with a small persistence); values inside it keep their bits.

The points are split into blocks of ``BLOCK`` processed in parallel (on Numba's
threads: ``threads``). Each block's coordinates are first copied into a small float64
buffer on the stack, one row per axis (the input's (N, d) rows, float32 or float64,
are read once; nothing is allocated on the heap per block); while copying, the
block counts the coordinates outside the caller's range (an integer sum, which
vectorises with the copy, where a running float maximum would not); float32 points of the kinds with
``hash="prime"`` skip the copy: their block functions split the rows in place (``ROWS32``, ``ROW_ARGUMENTS``,
the same bits; docs/benchmarks.md). Within a block the
octave loop is outermost and the loop over points innermost, so that loop is a
straight run of arithmetic over contiguous arrays that LLVM vectorises (four
float64 lanes with AVX2), like the seeds' four-wide SIMD jobs. Families in
``sampling.BLOCKWISE`` fill the block's float32 values per octave with their block sampler
instead (passes over the block in 32-bit lanes, eight wide: see ``sampling``). Each octave's values are folded in
by ``fractal_modes.fold`` and the block finished by ``fractal_modes.finished``, the fold the grid and derivative
kernels share: fBm's sum accumulates in ``out`` itself (float32: at most one float32 rounding per octave).

The work is split in two compiled functions. The launcher (``_build_launcher``, one per ``dim`` and point
type) is a range kernel run on all threads (``threads.on_threads``): it copies each block's coordinates and
calls the block function through its native entry point (``_call_block``). The block function
(``_build_block``) computes a block's fractal sum; one is compiled per ``(family, dim, variant, tiled,
mode)``: they are closure constants (typed as literals), so it holds its family's sampler
(``sampling.SAMPLERS`` or ``BLOCK_SAMPLERS``) and types and compiles only that; the on-disk cache keeps
each combination apart. With ``tiled`` false the period is the constant 0, so
LLVM removes the lattice wrap (a division, floors, compares and selects per axis) from untiled noise. The
split is for compile time: called by address, the noise code is optimised and compiled once, outside the
launchers, and float32 and float64 points share it (a launcher compiles in about 0.5 s). Looking the
functions up in dicts keeps the per-call cost at Numba's fast argument dispatch (microseconds), where passing
them as ``numba.literally`` arguments re-ran type inference on every call (about 0.1 s).

Launching, the locks around launches and what is compiled: ``runtime``.
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from ._jit import block_function, inline, named, range_kernel, scratch
from .blocks import BLOCK, block_span, read_block, read_block_affine
from .fractal_modes import FBM, MODE_CODES, amplitude_sum, finished, fold, octave_arguments, octave_settings
from .hashing import HASH_STRIDE, HASHES
from .runtime import ensure_compiled, launch_blocks
from .sampling import BLOCK_SAMPLERS, PRIME_BLOCK_SAMPLERS, PRIME_ROW_SAMPLERS, SAMPLERS
from .schema import FAMILY_LATTICE, FAMILY_SIMPLEX
from .threads import on_threads

BLOCK_ARGUMENTS = (
    types.float64[:, ::1],  # local: the block's coordinates, one row per axis
    types.float32[::1],  # out: the block's values
    types.int64,  # seed
    types.float64,  # frequency
    types.int64,  # octaves
    types.float64,  # lacunarity
    types.float64,  # persistence
    types.boolean,  # turbulence
    types.float64,  # offset
    types.float64,  # gain
    types.float64[::1],  # params
    types.float32,  # low
    types.float32,  # high
)
"""The argument types of every block function (``_build_block``), as the launcher passes them."""

ROW_ARGUMENTS = (types.float32[::1], *BLOCK_ARGUMENTS[1:])
"""The argument types of a block function that reads its block's float32 (n, dim) points, flattened, in place of
``local`` (``_build_block`` with ``rows``; the launcher's ``ROWS32``)."""


HASHED_FAMILIES = (FAMILY_LATTICE, FAMILY_SIMPLEX)
"""The families whose variant code holds a hash (``hashing.HASH_STRIDE``)."""


def reads_rows(family, dim, variant) -> bool:
    """Whether ``(family, dim, variant)`` has a block function that reads float32 points in place
    (``_build_block`` with ``rows``): lattice and simplex noise in 2D and 3D with ``hash="prime"``."""
    return family in HASHED_FAMILIES and variant >= HASH_STRIDE and (family, dim) in PRIME_ROW_SAMPLERS


def _build_block(family, dim, variant, tiled, mode=FBM, rows=False):
    """The fractal sum of one block of points for one ``(family, dim, variant, tiled, mode)``: per octave the
    block's values, folded in by ``fractal_modes.fold`` and finished by ``fractal_modes.finish``. A lattice or
    simplex variant past ``HASH_STRIDE`` is hashed by the prime hash (``hashing.HASHES``). ``rows`` (where
    ``reads_rows``): ``local`` is the block's float32 (n, dim) points, flattened (``ROW_ARGUMENTS``), which the
    sampler splits in place (``sampling.PRIME_ROW_SAMPLERS``): the same bits as from the float64 copy."""
    hashing, gradient = divmod(variant, HASH_STRIDE) if family in HASHED_FAMILIES else (0, variant)
    if rows:
        sample_block, sample = PRIME_ROW_SAMPLERS[family, dim], None
    elif hashing:  # the prime hash (``hashing.HASHES``): its block samplers, and no point sampler
        sample_block, sample = PRIME_BLOCK_SAMPLERS.get((family, dim)), None
        if sample_block is None:
            raise ValueError(f"hash: {HASHES[hashing]!r} hashes 2D and 3D points only, not {dim}D; use {HASHES[0]!r}")
    else:
        sample_block = BLOCK_SAMPLERS.get((family, dim))
        sample = SAMPLERS.get((family, dim))
    blockwise = sample_block is not None
    musgrave = mode != FBM
    room = BLOCK if musgrave else 1  # the Musgrave modes' running totals and weights; fBm sums in ``ob``

    def fractal_block(local, ob, seed, frequency, octaves, lacunarity, persistence, turbulence, offset, gain, params,
                      low, high):  # fmt: skip
        n = ob.shape[0]
        if rows:  # the flattened rows, read by the sampler as they are
            xb = yb = zb = wb = local
        else:
            xb = local[0]
            yb = local[1 if dim > 1 else 0]
            zb = local[2 if dim > 2 else 0]
            wb = local[3 if dim > 3 else 0]
        # Allocated only where used (branches on closure constants are pruned before typing).
        if blockwise:
            values = scratch(BLOCK, n, np.float32)
        total = scratch(room, n if musgrave else 0, np.float64)
        weight = scratch(room, n if musgrave else 0, np.float64)
        for octave in range(octaves):
            octave_seed, octave_frequency, period, amplitude = octave_settings(
                seed, frequency, lacunarity, persistence, tiled, octave
            )
            if blockwise:
                sample_block(gradient, dim, xb, yb, zb, octave_seed, octave_frequency, period, params, values)
                for i in range(n):
                    fold(mode, octave, values[i], amplitude, turbulence, offset, gain, ob, total, weight, i)
            else:
                for i in range(n):
                    value = sample(variant, xb[i], yb[i], zb[i], wb[i], octave_seed, octave_frequency, period, params)
                    fold(mode, octave, value, amplitude, turbulence, offset, gain, ob, total, weight, i)
        scale = np.float32(1.0 / amplitude_sum(octaves, persistence))
        for i in range(n):
            ob[i] = finished(mode, ob, total, i, scale, low, high)

    name = f"fractal_block_{family}_{dim}d_{variant}_{int(tiled)}_{mode}" + ("_rows" if rows else "")
    return block_function(named(fractal_block, name))


def _block_caller(signature_types):
    """An intrinsic ``call(address, local, ob, seed, ...)`` that calls the block function whose native entry point
    is at ``address`` (``block_address``) with the other arguments, converted to ``signature_types``
    (``BLOCK_ARGUMENTS`` or ``ROW_ARGUMENTS``); its exceptions propagate as from any compiled call."""

    def call_block(typingctx, address, local, ob, seed, frequency, octaves, lacunarity, persistence, turbulence,
                   offset, gain, params, low, high):  # fmt: skip
        arguments = (local, ob, seed, frequency, octaves, lacunarity, persistence, turbulence, offset, gain, params,
                     low, high)  # fmt: skip
        if not isinstance(address, types.Integer):
            return None
        for given, wanted in zip(arguments, signature_types, strict=True):
            if typingctx.can_convert(given, wanted) is None:
                return None

        def codegen(context, builder, signature, values):
            converted = [
                context.cast(builder, value, given, wanted)
                for value, given, wanted in zip(values[1:], signature.args[1:], signature_types, strict=True)
            ]
            function_type = context.call_conv.get_function_type(types.none, signature_types)
            function = builder.inttoptr(values[0], function_type.as_pointer())
            status, _ = context.call_conv.call_function(builder, function, types.none, signature_types, converted)
            with cgutils.if_unlikely(builder, status.is_error):
                context.call_conv.return_status_propagate(builder, status)
            return context.get_dummy_value()

        return types.none(address, *arguments), codegen

    return intrinsic(call_block)


_call_block = _block_caller(BLOCK_ARGUMENTS)
_call_rows = _block_caller(ROW_ARGUMENTS)


ROWS, TRANSFORMED, LATTICE, LATTICE_3D, ROWS32 = 0, 1, 2, 3, 4
"""How a launcher makes a block's coordinates from its ``source``: copied from (N, dim) rows, mapped from (N, k)
rows by an affine matrix (``affine``), filled in from the axes of a 2D or 3D lattice (the grid mode), or not at
all: float32 (N, dim) rows handed to a block function that reads them in place (``ROW_ARGUMENTS``)."""


@inline
def _count_outside(rows, limit):
    """How many of ``rows``' coordinates are not below ``limit`` in magnitude (NaN counts as outside), as
    ``blocks.read_block`` counts them while copying."""
    block_outside = 0
    for i in range(rows.shape[0]):
        block_outside += 0 if abs(np.float64(rows[i])) < limit else 1
    return block_outside


@inline
def _fill_lattice(axes, width, start, limit, local):
    """The coordinates ``(axes[0, c], axes[1, r])`` of lattice points ``start ..`` (``c`` fastest, ``width``
    columns) into the float64 columns ``local[0]``, ``local[1]``, a run of columns of a row at a time; returns how
    many are not below ``limit`` in magnitude (NaN counts as outside), as ``blocks.read_block`` does."""
    m = local.shape[1]
    row = start // width
    column = start - row * width
    filled = 0
    block_outside = 0
    while filled < m:  # the block's part of each row it touches, a run of columns at a time
        run = min(width - column, m - filled)
        y = axes[1, row]
        # slices from 0, so the loop indices are known to be >= 0 and the copy vectorises
        run_xs = local[0, filled : filled + run]
        run_ys = local[1, filled : filled + run]
        columns = axes[0, column : column + run]
        for i in range(run):
            run_xs[i] = columns[i]
            run_ys[i] = y
            block_outside += (0 if abs(columns[i]) < limit else 1) + (0 if abs(y) < limit else 1)
        filled += run
        column = 0
        row += 1
    return block_outside


@inline
def _fill_lattice_3d(axes, shape, start, limit, local):
    """``_fill_lattice`` of the 3D lattice ``(axes[0, c], axes[1, r], axes[2, s])`` of ``shape[0]`` columns and
    ``shape[1]`` rows per slice (``c`` fastest, then ``r``): its points ``start ..`` into ``local[0..2]``."""
    m = local.shape[1]
    width = shape[0]
    height = shape[1]
    row = start // width
    column = start - row * width
    plane = row // height
    row = row - plane * height
    filled = 0
    block_outside = 0
    while filled < m:
        run = min(width - column, m - filled)
        y = axes[1, row]
        z = axes[2, plane]
        run_xs = local[0, filled : filled + run]
        run_ys = local[1, filled : filled + run]
        run_zs = local[2, filled : filled + run]
        columns = axes[0, column : column + run]
        for i in range(run):
            run_xs[i] = columns[i]
            run_ys[i] = y
            run_zs[i] = z
            block_outside += (
                (0 if abs(columns[i]) < limit else 1) + (0 if abs(y) < limit else 1) + (0 if abs(z) < limit else 1)
            )
        filled += run
        column = 0
        row += 1
        if row == height:
            row = 0
            plane += 1
    return block_outside


def _build_launcher(dim, reading, width):
    """The range kernel that makes each block's ``dim``-dimensional coordinates, counting those beyond ``limit``,
    and calls the block function at ``block_address`` on them (one launcher serves every family, variant, tiling
    and mode). ``reading`` (``ROWS``, ``TRANSFORMED``, ``LATTICE``) says how: from the (N, dim) rows ``source``
    (``by`` None); from the (N, ``width``) rows ``source`` mapped by the (dim, ``width`` + 1) matrix ``by``
    (``blocks.read_block_affine``); or, in the grid mode, the 2D lattice ``(source[0, c], source[1, r])`` of ``by``
    columns (``_fill_lattice``): the same coordinates as its (N, 2) rows, so the block functions give the same
    bits, without an (N, 2) array or its gathers."""

    def fractal_kernel(first, last, source, by, out, outside, limit, block_address, seed, frequency, octaves,
                       lacunarity, persistence, turbulence, offset, gain, params, low, high):  # fmt: skip
        if first < 0:  # the launch: this kernel over blocks 0 .. last - 1 on Numba's threads
            on_threads(last)
            return
        for block in range(first, last):
            start, stop = block_span(block, BLOCK, out.shape[0])
            if reading == ROWS32:
                rows = source[start:stop].ravel()
                outside[block] = _count_outside(rows, limit)
                _call_rows(block_address, rows, out[start:stop], seed, frequency, octaves, lacunarity, persistence,
                           turbulence, offset, gain, params, low, high)  # fmt: skip
                continue
            local = scratch((dim, BLOCK), (dim, stop - start), np.float64)
            if reading == ROWS:
                outside[block] = read_block(source[start:stop].ravel(), dim, limit, local)
            elif reading == TRANSFORMED:
                outside[block] = read_block_affine(source[start:stop].ravel(), width, dim, by, limit, local)
            elif reading == LATTICE:
                outside[block] = _fill_lattice(source, by, start, limit, local)
            else:
                outside[block] = _fill_lattice_3d(source, by, start, limit, local)
            _call_block(block_address, local, out[start:stop], seed, frequency, octaves, lacunarity, persistence,
                        turbulence, offset, gain, params, low, high)  # fmt: skip

    name = ("fractal_kernel_{}d", "fractal_kernel_affine_{}d_from_" + str(width), "fractal_grid_kernel_{}d",
            "fractal_grid_kernel_{}d", "fractal_rows_kernel_{}d")[reading]  # fmt: skip
    return range_kernel(named(fractal_kernel, name.format(dim)))


_BLOCKS: dict = {}
_LAUNCHERS: dict = {}


def kernel_for(family, dim, variant, tiled=False, mode=FBM, rows=False):
    """The block function of ``(family, dim, variant, tiled, mode)`` (compiled for ``BLOCK_ARGUMENTS``, with
    ``rows`` for ``ROW_ARGUMENTS``: ``_build_block``), built on first use."""
    key = (int(family), int(dim), int(variant), bool(tiled), int(mode), bool(rows))
    found = _BLOCKS.get(key)
    if found is None:
        found = _BLOCKS[key] = _build_block(*key)
    return found


def launcher_for(dim, grid=False, width=None, rows=False):
    """The parallel kernel that runs block functions over ``dim``-dimensional points (``grid``: over the 2D
    lattice of the grid mode; ``width``: points of ``width`` columns mapped by a matrix, ``affine``; ``rows``:
    float32 points handed to a block function built with ``rows``), built on first use (``_build_launcher``)."""
    reading = (LATTICE if dim == 2 else LATTICE_3D) if grid else ROWS if width is None else TRANSFORMED
    reading = ROWS32 if rows else reading
    key = (int(dim), reading, 0 if width is None else int(width))
    found = _LAUNCHERS.get(key)
    if found is None:
        found = _LAUNCHERS[key] = _build_launcher(*key)
    return found


_ADDRESSES: dict = {}


def block_address(block, signature_types=BLOCK_ARGUMENTS) -> int:
    """The native entry point of ``block`` compiled for ``signature_types`` (``BLOCK_ARGUMENTS``, or
    ``ROW_ARGUMENTS`` for a block function built with ``rows``; compiled or loaded first if needed), for
    ``_call_block`` / ``_call_rows``; looked up in LLVM's symbol table once per process."""
    address = _ADDRESSES.get(block)
    if address is not None:
        return address
    ensure_compiled(block, signature_types)
    compiled = block.overloads[signature_types]
    address = compiled.library.get_pointer_to_function(compiled.fndesc.llvm_func_name)
    if not address:
        raise RuntimeError(f"no native entry point {compiled.fndesc.llvm_func_name} in {block.py_func.__qualname__}")
    _ADDRESSES[block] = address
    return address


def kernel_arguments(source, by, out, outside, address, spec, params, limit, bounds) -> tuple:
    """The launcher's arguments, in order (see ``fractal_kernel``); ``address`` is the block function's
    (``block_address``); ``bounds`` is the float32 ``(low, high)`` every value is clamped to
    (``ranges.float32_range(spec)``)."""
    return (source, by, out, outside, float(limit), address, *octave_arguments(spec), params, np.float32(bounds[0]),
            np.float32(bounds[1]))  # fmt: skip


def fractal_sum(points, out, family, dim, variant, spec, params, limit, bounds, matrix=None):
    """Fill ``out`` (float32) with the fractal sum of ``spec`` at ``points``, clamped to ``bounds``.

    ``bounds`` is the float32 ``(low, high)`` of ``ranges.float32_range(spec)``.
    ``points`` is a C-contiguous (N, dim) float32 or float64 array (x, y, z columns); with ``matrix`` (a checked
    (dim, k + 1) float64 one: ``affine``) an (N, k) one, read at ``affine.affine_points(points, matrix)``.
    Returns how many coordinates are not below ``limit`` in magnitude (NaN counts as
    outside), found while the kernel copies the coordinates, so checking them costs no
    extra pass; the caller rejects the result when any are. Such input cannot crash or
    hang the kernel (every loop has a bounded trip count and no array is indexed by a
    coordinate); its values are merely meaningless.
    """
    blocks = (out.shape[0] + BLOCK - 1) // BLOCK
    outside = np.zeros(blocks, dtype=np.int64)
    block, signature_types, launcher = point_kernels(
        family, dim, variant, spec, points.dtype, matrix is not None, points.shape[1]
    )
    address = block_address(block, signature_types)
    arguments = kernel_arguments(points, matrix, out, outside, address, spec, params, limit, bounds)
    launch_blocks(launcher, blocks, arguments)
    return int(outside.sum())


def point_kernels(family, dim, variant, spec, dtype, transformed=False, width=None):
    """``(block, argument types, launcher)`` that ``fractal_sum`` runs for ``spec`` on (N, ``dim``) points of
    ``dtype`` (``transformed``: (N, ``width``) points mapped by a matrix): the block function reads float32 points
    in place where ``reads_rows``, else from the launcher's float64 copy."""
    rows = np.dtype(dtype) == np.float32 and not transformed and reads_rows(family, dim, variant)
    block = kernel_for(family, dim, variant, spec.tiling, MODE_CODES[spec.fractal], rows)
    launcher = launcher_for(dim, width=width if transformed else None, rows=rows)
    return block, ROW_ARGUMENTS if rows else BLOCK_ARGUMENTS, launcher


def grid_arguments(axes, out, outside, address, spec, params, limit, bounds) -> tuple:
    """The grid launcher's arguments, in order (``kernel_arguments``): ``axes`` (2, K) float64 with the columns'
    x in row 0 and the rows' y in row 1, ``out`` (rows, cols) float32."""
    return kernel_arguments(axes, np.int64(out.shape[1]), out.reshape(-1), outside, address, spec, params, limit,
                            bounds)  # fmt: skip


def fractal_grid_sum(xs, ys, out, family, variant, spec, params, limit, bounds):
    """Fill ``out`` ((len(ys), len(xs)) float32) with the 2D fractal sum of ``spec`` at ``(xs[c], ys[r])`` by the
    grid launcher: bit for bit ``fractal_sum`` of the (N, 2) lattice points, which it never builds. Returns how
    many of those points' coordinates are not below ``limit`` in magnitude, as ``fractal_sum`` does."""
    axes = np.zeros((2, max(xs.shape[0], ys.shape[0])), dtype=np.float64)
    axes[0, : xs.shape[0]] = xs
    axes[1, : ys.shape[0]] = ys
    address = block_address(kernel_for(family, 2, variant, spec.tiling, MODE_CODES[spec.fractal]))
    blocks = (out.size + BLOCK - 1) // BLOCK
    outside = np.zeros(blocks, dtype=np.int64)
    arguments = grid_arguments(axes, out, outside, address, spec, params, limit, bounds)
    launch_blocks(launcher_for(2, grid=True), blocks, arguments)
    return int(outside.sum())


def fractal_grid_sum_3d(xs, ys, zs, out, family, variant, spec, params, limit, bounds):
    """``fractal_grid_sum`` on the 3D lattice ``(xs[c], ys[r], zs[s])``: fill ``out`` ((len(zs), len(ys),
    len(xs)) float32) by the 3D grid launcher, bit for bit ``fractal_sum`` of the (N, 3) lattice points (x fastest,
    z slowest), which it never builds. Returns how many of their coordinates are not below ``limit``."""
    axes = np.zeros((3, max(xs.shape[0], ys.shape[0], zs.shape[0])), dtype=np.float64)
    axes[0, : xs.shape[0]] = xs
    axes[1, : ys.shape[0]] = ys
    axes[2, : zs.shape[0]] = zs
    address = block_address(kernel_for(family, 3, variant, spec.tiling, MODE_CODES[spec.fractal]))
    blocks = (out.size + BLOCK - 1) // BLOCK
    outside = np.zeros(blocks, dtype=np.int64)
    shape = np.array([xs.shape[0], ys.shape[0]], dtype=np.int64)
    arguments = kernel_arguments(axes, shape, out.reshape(-1), outside, address, spec, params, limit, bounds)
    launch_blocks(launcher_for(3, grid=True), blocks, arguments)
    return int(outside.sum())
