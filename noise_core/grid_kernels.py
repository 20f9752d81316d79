"""The separable grid path: fractal value and Perlin noise on a regular 2D grid (issue 16, item 1).

On a grid every pixel of column ``c`` has the same ``x`` and every pixel of row ``r`` the same ``y``, so
per octave the lattice span of ``x`` (``lattice.span32``: cell, float32 offset and quintic weight) is computed
once per column and that of ``y`` once per row, and the hash of a corner, ``avalanche(eat(eat(h, x), y))``
(SmallXXHash, ``lattice_noise._corner_hashes_2d``), starts from the column's partial hash ``eat(h, x)``.
Each pixel then only eats its row's lattice ``y`` into its column's two partial hashes, avalanches the
four corners and blends them (``lattice_noise._blend_2d``).

The numbers are the point path's (``fractal._build_block`` over ``lattice_noise.lattice_block``), bit for
bit: the same float64 coordinates (``api.grid_coordinates``) times the same octave frequencies
(``fractal_modes.octave_settings``) through the same ``span32``, the same hashes and the same float32 blend (an
``_jit.exact`` helper, so its bits do not depend on the loop it is inlined into), and the same fold, the point
path's own: ``fractal_modes.fold`` (fBm's float32 ``sum + float32(amplitude * value)``, or a Musgrave mode's
float64 running totals per row) and ``fractal_modes.finished`` (fBm's scale ``float32(1 / sum of amplitudes)``,
the clamp to the spec's float32 range); ``tests/test_grid_path.py`` checks it.

Where an octave's lattice cells are ``RUN_LENGTH`` columns wide or wider, a row's four corner hashes are
the same for every column of a cell: they are computed once per cell (run of columns) and row, and only
the blend runs per pixel (one lerp for value noise, four dot products and three lerps for Perlin). At
higher frequencies every pixel hashes its corners from its column's partial hashes.

One kernel per ``(gradient, tiled, mode)``: closure constants, like ``fractal.kernel_for``. The grid is
computed in strips of ``STRIP`` columns: the strip's per-column tables (two partial hashes and two floats per
column and octave, and where each cell starts) are built first, then its rows run in parallel (a range kernel
over rows: ``threads.on_threads``); within a row the octave loop is outermost and the loop over columns
innermost, a straight run over contiguous tables that LLVM vectorises. Loops index slices from 0 (``run[i]``,
not ``row[start + i]``): a loop index Numba cannot prove non-negative gets a negative-index wrap per element,
which LLVM vectorises with gathers and scatters (measured 3.6-4x slower here).

The 3D lattice ``(xs[c], ys[r], zs[s])`` (``api.evaluate_lattice`` with ``zs``) runs the same way with a row per
``(slice, row)`` pair (``grid_sum_3d``): the column tables are the 2D kernel's, each row's ``y`` and ``z`` spans
are computed once per octave, and a cell's eight corner hashes (``lattice_noise._corner_hashes_of_columns_3d``)
come from its columns' partial hashes; for fBm a chunk of rows goes cell by cell, so a cell's corners and their
gradient vectors (``lattice_noise.corner_vectors_3d``) are computed once for all its rows in the chunk.

Simplex noise is not separable (its skew mixes the axes), but its 3D lattices still run row by row
(``simplex_grid_sum_3d``): each row runs the point path's block passes (``simplex.simplex_row_3d_of``: cell, corner
hashes, kernels' sum) on its columns, with the row's ``y`` and ``z`` scaled once, so no float64 copy of the
coordinates is made; the octaves are folded and finished as the point path's block function does.
"""

from __future__ import annotations

import numpy as np

from ._jit import jit, named, range_kernel, scratch
from .blocks import BLOCK
from .fractal_modes import FBM, MODE_CODES, amplitude_sum, finished, fold, octave_arguments, octave_settings
from .gradients import blend_code
from .hashing import HASH_STRIDE, eat, hash_seed, prime_seed
from .lattice import span32
from .lattice_noise import (
    _blend_2d,
    _blend_3d,
    _corner_hashes_of_columns,
    _corner_hashes_of_columns_3d,
    blend_3d_of_vectors,
    corner_vectors_3d,
    prime_column,
    prime_corner_hashes_of_columns,
    prime_corner_hashes_of_columns_3d,
)
from .registry import KINDS
from .runtime import launch_blocks, range_signature
from .schema import FAMILY_LATTICE, FAMILY_SIMPLEX
from .simplex import simplex_row_3d_of
from .threads import on_threads
from .warp import is_warped


def separable(spec) -> bool:
    """Whether ``evaluate_grid`` runs ``spec`` here: value or Perlin noise (any fractal mode, either hash), no domain
    warp."""
    return KINDS[spec.kind].family == FAMILY_LATTICE and not is_warped(spec)


SIMPLEX_ROW_COLUMNS = 48
"""The fewest columns for which a 3D lattice of simplex noise runs row by row (``simplex_grid_sum_3d``); narrower
lattices run the point kernel's grid mode, whose blocks span several rows (docs/benchmarks.md)."""


def simplex_rows(spec, columns) -> bool:
    """Whether ``evaluate_lattice`` with ``zs`` runs ``spec`` on a lattice of ``columns`` columns by
    ``simplex_grid_sum_3d``: either simplex kind (either hash, any fractal mode), no domain warp, at least
    ``SIMPLEX_ROW_COLUMNS`` columns."""
    return KINDS[spec.kind].family == FAMILY_SIMPLEX and not is_warped(spec) and columns >= SIMPLEX_ROW_COLUMNS


STRIP = 4096
"""Columns per strip: the per-column tables (16 bytes per column and octave) are built for one strip of the
grid at a time, so their memory stays bounded however wide the grid is."""
RUN_LENGTH = 8
"""An octave whose columns fall into lattice cells ``RUN_LENGTH`` columns wide or wider on average is blended
run by run (the corner hashes once per cell and row); narrower cells hash per pixel."""


def _column_tables_of(prime):
    """``_column_tables``, or with ``prime`` the same with the prime hash's partial hashes (``prime_column``)."""
    start = prime_seed if prime else hash_seed
    column = prime_column if prime else eat

    def column_tables(xs, seed, frequency, octaves, lacunarity, tiled, column_hashes, column_spans, runs,
                      run_counts):  # fmt: skip
        """Per octave and column: the partial hashes ``eat(h, x0)``, ``eat(h, x1)`` and the float32 ``gx, tx`` of
        the column's span (``span32``); the first column of each lattice cell in ``runs`` (``run_counts`` cells,
        then ``len(xs)``)."""
        cols = xs.shape[0]
        for octave in range(octaves):
            # the octave's weight is not needed here (persistence 1)
            octave_seed, octave_frequency, period, _ = octave_settings(seed, frequency, lacunarity, 1.0, tiled, octave)
            h = start(octave_seed)
            hashes = column_hashes[octave]
            spans = column_spans[octave]
            count = 0
            last = np.int64(0)
            for c in range(cols):
                x0, x1, gx, tx = span32(xs[c], octave_frequency, period)
                hashes[0, c] = column(h, x0)
                hashes[1, c] = column(h, x1)
                spans[0, c] = gx
                spans[1, c] = tx
                if c == 0 or x0 != last:
                    runs[octave, count] = c
                    count += 1
                last = x0
            runs[octave, count] = cols
            run_counts[octave] = count

    return jit(named(column_tables, "_prime_column_tables" if prime else "_column_tables"))


_column_tables = _column_tables_of(False)
"""Per octave and column: the partial hashes ``eat(h, x0)``, ``eat(h, x1)`` and the float32 ``gx, tx`` of the
column's span (``span32``); the first column of each lattice cell in ``runs`` (``run_counts`` cells, then
``len(xs)``)."""
_prime_column_tables = _column_tables_of(True)


def _build_grid_kernel(gradient, tiled, mode=FBM, prime=False):
    """The grid kernel of lattice gradient ``gradient`` (``gradients.VALUE``/``PERLIN``), tiled or not, combining
    the octaves by ``mode`` (``fractal_modes`` codes: fBm or a Musgrave mode, through ``fractal_modes.fold``);
    ``prime``: hashed by the prime hash (``hash="prime"``)."""
    musgrave = mode != FBM
    tables = _prime_column_tables if prime else _column_tables
    of_columns = prime_corner_hashes_of_columns if prime else _corner_hashes_of_columns
    gradient = blend_code(gradient, prime)

    @range_kernel
    def grid_kernel(
        first, last, xs, ys, out, strip, column_hashes, column_spans, runs, run_counts, seed, frequency, octaves,
        lacunarity, persistence, turbulence, offset, gain, low, high,
    ):  # fmt: skip
        if first < 0:  # the launch: strip by strip, its column tables, then its rows on Numba's threads
            for left in range(0, xs.shape[0], STRIP):
                strip[0] = left
                tables(
                    xs[left : left + STRIP], seed, frequency, octaves, lacunarity, tiled, column_hashes,
                    column_spans, runs, run_counts,
                )  # fmt: skip
                on_threads(last)
            return
        left = strip[0]  # the strip's first column
        cols = min(STRIP, xs.shape[0] - left)
        for r in range(first, last):
            ob = out[r][left : left + cols]
            y = ys[r]
            total = scratch(STRIP, cols if musgrave else 0, np.float64)
            weight = scratch(STRIP, cols if musgrave else 0, np.float64)
            for octave in range(octaves):
                _, octave_frequency, period, amplitude = octave_settings(
                    seed, frequency, lacunarity, persistence, tiled, octave
                )
                y0, y1, gy, ty = span32(y, octave_frequency, period)
                h0s = column_hashes[octave, 0]
                h1s = column_hashes[octave, 1]
                gxs = column_spans[octave, 0]
                txs = column_spans[octave, 1]
                count = run_counts[octave]
                if count * RUN_LENGTH <= cols:
                    for j in range(count):
                        start = runs[octave, j]
                        stop = runs[octave, j + 1]
                        h00, h01, h10, h11 = of_columns(h0s[start], h1s[start], y0, y1)
                        # slices, so the loop index is known to be >= 0: no negative-index wrap, no gathers
                        run_gx = gxs[start:stop]
                        run_tx = txs[start:stop]
                        run_ob = ob[start:stop]
                        run_total = total[start:stop] if musgrave else total
                        run_weight = weight[start:stop] if musgrave else weight
                        for i in range(run_ob.shape[0]):
                            value = _blend_2d(gradient, h00, h01, h10, h11, run_gx[i], run_tx[i], gy, ty)
                            fold(mode, octave, value, amplitude, turbulence, offset, gain, run_ob, run_total,
                                 run_weight, i)  # fmt: skip
                else:
                    for c in range(cols):
                        h00, h01, h10, h11 = of_columns(h0s[c], h1s[c], y0, y1)
                        value = _blend_2d(gradient, h00, h01, h10, h11, gxs[c], txs[c], gy, ty)
                        fold(mode, octave, value, amplitude, turbulence, offset, gain, ob, total, weight, c)
            scale = np.float32(1.0 / amplitude_sum(octaves, persistence))
            for c in range(cols):
                ob[c] = finished(mode, ob, total, c, scale, low, high)

    return grid_kernel


ROW_CHUNK = 64
"""Rows of the 3D grid kernel's fBm path taken together: their ``y`` and ``z`` spans are tabled per octave, and a
cell's corner hashes are computed once for the run of consecutive rows in the same ``y`` and ``z`` cells."""


def _build_grid_kernel_3d(gradient, tiled, mode=FBM, prime=False):
    """The 3D grid kernel of ``(gradient, tiled, mode)``: ``_build_grid_kernel``'s with a row for each
    ``(slice, row)`` pair of the (slices, rows, cols) lattice, whose ``y`` and ``z`` spans are computed once per
    row and octave; the eight corner hashes of a run of columns in one cell (``_corner_hashes_of_columns_3d``
    from the columns' partial hashes), the trilinear blend per sample (``lattice_noise._blend_3d``). For fBm the
    rows go ``ROW_CHUNK`` at a time, run (cell) by run, so a cell's corners are hashed once for all the rows of
    the chunk that share its ``y`` and ``z`` cells; a Musgrave mode, whose running totals are per row, goes row by
    row, hashing a cell's corners once per row. ``prime``: hashed by the prime hash (``hash="prime"``)."""
    musgrave = mode != FBM
    tables = _prime_column_tables if prime else _column_tables
    of_columns = prime_corner_hashes_of_columns_3d if prime else _corner_hashes_of_columns_3d
    gradient = blend_code(gradient, prime)

    @range_kernel
    def grid_kernel_3d(
        first, last, xs, ys, zs, out, strip, column_hashes, column_spans, runs, run_counts, seed, frequency, octaves,
        lacunarity, persistence, turbulence, offset, gain, low, high,
    ):  # fmt: skip
        if first < 0:  # the launch: strip by strip, its column tables, then its rows on Numba's threads
            for left in range(0, xs.shape[0], STRIP):
                strip[0] = left
                tables(
                    xs[left : left + STRIP], seed, frequency, octaves, lacunarity, tiled, column_hashes,
                    column_spans, runs, run_counts,
                )  # fmt: skip
                on_threads(last)
            return
        left = strip[0]
        cols = min(STRIP, xs.shape[0] - left)
        rows = ys.shape[0]
        scale = np.float32(1.0 / amplitude_sum(octaves, persistence))
        if not musgrave:
            for chunk in range(first, last, ROW_CHUNK):
                count_rows = min(ROW_CHUNK, last - chunk)
                cells = scratch((4, ROW_CHUNK), (4, count_rows), np.int64)  # y0, y1, z0, z1 per row
                spans = scratch((4, ROW_CHUNK), (4, count_rows), np.float32)  # gy, ty, gz, tz per row
                vectors = scratch(24, 24, np.float32)  # a cell's corner_vectors_3d
                for octave in range(octaves):
                    _, octave_frequency, period, amplitude = octave_settings(
                        seed, frequency, lacunarity, persistence, tiled, octave
                    )
                    for k in range(count_rows):
                        r = chunk + k
                        cells[0, k], cells[1, k], spans[0, k], spans[1, k] = span32(
                            ys[r % rows], octave_frequency, period
                        )
                        cells[2, k], cells[3, k], spans[2, k], spans[3, k] = span32(
                            zs[r // rows], octave_frequency, period
                        )
                    h0s = column_hashes[octave, 0]
                    h1s = column_hashes[octave, 1]
                    gxs = column_spans[octave, 0]
                    txs = column_spans[octave, 1]
                    count = run_counts[octave]
                    if count * RUN_LENGTH <= cols:
                        for j in range(count):
                            start = runs[octave, j]
                            stop = runs[octave, j + 1]
                            run_gx = gxs[start:stop]
                            run_tx = txs[start:stop]
                            for k in range(count_rows):
                                if k == 0 or cells[0, k] != cells[0, k - 1] or cells[2, k] != cells[2, k - 1]:
                                    corners = of_columns(
                                        h0s[start], h1s[start], cells[0, k], cells[1, k], cells[2, k], cells[3, k]
                                    )
                                    corner_vectors_3d(gradient, corners, vectors)
                                gy, ty, gz, tz = spans[0, k], spans[1, k], spans[2, k], spans[3, k]
                                run_ob = out[chunk + k][left + start : left + stop]
                                for i in range(run_ob.shape[0]):
                                    value = blend_3d_of_vectors(gradient, vectors, run_gx[i], run_tx[i], gy, ty, gz,
                                                                tz)  # fmt: skip
                                    fold(mode, octave, value, amplitude, turbulence, offset, gain, run_ob, run_ob,
                                         run_ob, i)  # fmt: skip
                    else:
                        for k in range(count_rows):
                            y0, y1, z0, z1 = cells[0, k], cells[1, k], cells[2, k], cells[3, k]
                            gy, ty, gz, tz = spans[0, k], spans[1, k], spans[2, k], spans[3, k]
                            ob = out[chunk + k][left : left + cols]
                            for c in range(cols):
                                corners = of_columns(h0s[c], h1s[c], y0, y1, z0, z1)
                                value = _blend_3d(gradient, corners, gxs[c], txs[c], gy, ty, gz, tz)
                                fold(mode, octave, value, amplitude, turbulence, offset, gain, ob, ob, ob, c)
                for k in range(count_rows):
                    ob = out[chunk + k][left : left + cols]
                    for c in range(cols):
                        ob[c] = finished(mode, ob, ob, c, scale, low, high)
            return
        for r in range(first, last):
            ob = out[r][left : left + cols]
            y = ys[r % rows]
            z = zs[r // rows]
            total = scratch(STRIP, cols, np.float64)
            weight = scratch(STRIP, cols, np.float64)
            for octave in range(octaves):
                _, octave_frequency, period, amplitude = octave_settings(
                    seed, frequency, lacunarity, persistence, tiled, octave
                )
                y0, y1, gy, ty = span32(y, octave_frequency, period)
                z0, z1, gz, tz = span32(z, octave_frequency, period)
                h0s = column_hashes[octave, 0]
                h1s = column_hashes[octave, 1]
                gxs = column_spans[octave, 0]
                txs = column_spans[octave, 1]
                count = run_counts[octave]
                if count * RUN_LENGTH <= cols:
                    for j in range(count):
                        start = runs[octave, j]
                        stop = runs[octave, j + 1]
                        corners = of_columns(h0s[start], h1s[start], y0, y1, z0, z1)
                        run_gx = gxs[start:stop]
                        run_tx = txs[start:stop]
                        run_ob = ob[start:stop]
                        run_total = total[start:stop]
                        run_weight = weight[start:stop]
                        for i in range(run_ob.shape[0]):
                            value = _blend_3d(gradient, corners, run_gx[i], run_tx[i], gy, ty, gz, tz)
                            fold(mode, octave, value, amplitude, turbulence, offset, gain, run_ob, run_total,
                                 run_weight, i)  # fmt: skip
                else:
                    for c in range(cols):
                        corners = of_columns(h0s[c], h1s[c], y0, y1, z0, z1)
                        value = _blend_3d(gradient, corners, gxs[c], txs[c], gy, ty, gz, tz)
                        fold(mode, octave, value, amplitude, turbulence, offset, gain, ob, total, weight, c)
            for c in range(cols):
                ob[c] = finished(mode, ob, total, c, scale, low, high)

    return grid_kernel_3d


def _build_simplex_grid_kernel_3d(gradient, mode=FBM, prime=False):
    """The 3D lattice kernel of simplex noise (``gradients.VALUE`` or ``SIMPLEX``), combining the octaves by
    ``mode``; ``prime``: hashed by the prime hash. A row per ``(slice, row)`` pair, ``BLOCK`` columns at a time:
    per octave the block function's passes (``simplex.simplex_row_3d_of``, its ``y`` and ``z`` scaled once per
    row), folded in and finished as ``fractal._build_block`` does, so the same bits as the point path."""
    musgrave = mode != FBM
    room = BLOCK if musgrave else 1  # the Musgrave modes' running totals and weights; fBm sums in ``ob``
    sample_row = simplex_row_3d_of(prime)

    def simplex_grid_kernel_3d(first, last, xs, ys, zs, out, seed, frequency, octaves, lacunarity, persistence,
                               turbulence, offset, gain, low, high):  # fmt: skip
        if first < 0:  # the launch: this kernel over rows 0 .. last - 1 on Numba's threads
            on_threads(last)
            return
        rows = ys.shape[0]
        cols = xs.shape[0]
        scale = np.float32(1.0 / amplitude_sum(octaves, persistence))
        for r in range(first, last):
            y = ys[r % rows]
            z = zs[r // rows]
            for left in range(0, cols, BLOCK):
                n = min(BLOCK, cols - left)
                run_xs = xs[left : left + n]
                ob = out[r][left : left + n]
                values = scratch(BLOCK, n, np.float32)
                total = scratch(room, n if musgrave else 0, np.float64)
                weight = scratch(room, n if musgrave else 0, np.float64)
                for octave in range(octaves):
                    octave_seed, octave_frequency, _, amplitude = octave_settings(
                        seed, frequency, lacunarity, persistence, False, octave
                    )
                    sample_row(gradient, run_xs, y, z, octave_seed, octave_frequency, values)
                    for i in range(n):
                        fold(mode, octave, values[i], amplitude, turbulence, offset, gain, ob, total, weight, i)
                for i in range(n):
                    ob[i] = finished(mode, ob, total, i, scale, low, high)

    name = f"simplex_grid_kernel_3d_{gradient}_{mode}" + ("_prime" if prime else "")
    return range_kernel(named(simplex_grid_kernel_3d, name))


_KERNELS = {}
_SIMPLEX_KERNELS = {}


def simplex_grid_kernel_for(variant, mode=FBM):
    """The compiled 3D lattice kernel of simplex noise of ``(variant, mode)`` (``_build_simplex_grid_kernel_3d``),
    built on first use; ``variant`` is the kind's variant code (the gradient, plus ``HASH_STRIDE`` for the prime
    hash)."""
    key = (int(variant), int(mode))
    found = _SIMPLEX_KERNELS.get(key)
    if found is None:
        hashing, gradient = divmod(key[0], HASH_STRIDE)
        found = _SIMPLEX_KERNELS[key] = _build_simplex_grid_kernel_3d(gradient, key[1], prime=hashing == 1)
    return found


def grid_kernel_for(variant, tiled=False, mode=FBM, dim=2):
    """The compiled grid kernel of ``(variant, tiled, mode)`` in ``dim`` (2 or 3) dimensions, built on first
    use; ``variant`` is the kind's variant code: the gradient, plus ``HASH_STRIDE`` for the prime hash."""
    key = (int(variant), bool(tiled), int(mode), int(dim))
    found = _KERNELS.get(key)
    if found is None:
        build = _build_grid_kernel if dim == 2 else _build_grid_kernel_3d
        hashing, gradient = divmod(key[0], HASH_STRIDE)
        found = _KERNELS[key] = build(gradient, key[1], key[2], prime=hashing == 1)
    return found


def grid_arguments(xs, ys, out, spec, bounds) -> tuple:
    """The grid kernel's arguments after its range, in order (see ``grid_kernel``), with the strip's tables
    allocated for ``spec``'s octaves: per octave and column of a strip, two uint32 partial hashes and two float32
    span values, the runs of columns per lattice cell (``runs[octave, j]`` the first column of the octave's
    ``j``-th cell, ``runs[octave, count] = cols``) and their counts."""
    cols = max(1, min(STRIP, xs.shape[0]))
    octaves = spec.octaves
    strip = np.zeros(1, dtype=np.int64)
    column_hashes = np.empty((octaves, 2, cols), dtype=np.uint32)
    column_spans = np.empty((octaves, 2, cols), dtype=np.float32)
    runs = np.empty((octaves, cols + 1), dtype=np.int64)
    run_counts = np.empty(octaves, dtype=np.int64)
    return (xs, ys, out, strip, column_hashes, column_spans, runs, run_counts, *octave_arguments(spec),
            np.float32(bounds[0]), np.float32(bounds[1]))  # fmt: skip


def grid_kernel_and_signature(spec) -> tuple:
    """The grid kernel ``grid_sum`` runs for ``spec`` and its argument types (float64 axes)."""
    kernel = grid_kernel_for(KINDS[spec.kind].variant_of(spec), spec.tiling, MODE_CODES[spec.fractal])
    axis = np.empty(1, dtype=np.float64)
    arguments = grid_arguments(axis, axis, np.empty((1, 1), dtype=np.float32), spec, (0.0, 0.0))
    return kernel, range_signature(kernel, arguments)


def grid_sum(xs, ys, out, spec, bounds) -> None:
    """Fill ``out`` (rows, cols) float32 with the fractal sum of ``spec`` (``separable``) at ``(xs[c], ys[r])``,
    clamped to ``bounds`` (``ranges.float32_range(spec)``); ``xs``, ``ys`` are the float64 coordinates of the
    columns and rows, each below ``2**31 / spec.highest_frequency`` in magnitude (``api`` checks them)."""
    kernel = grid_kernel_for(KINDS[spec.kind].variant_of(spec), spec.tiling, MODE_CODES[spec.fractal])
    launch_blocks(kernel, ys.shape[0], grid_arguments(xs, ys, out, spec, bounds))


def grid_sum_3d(xs, ys, zs, out, spec, bounds) -> None:
    """``grid_sum`` on the 3D lattice ``(xs[c], ys[r], zs[s])``: fill ``out`` (slices, rows, cols) float32; the
    same bits as the point path at those points (``tests/test_grid_path.py``)."""
    kernel = grid_kernel_for(KINDS[spec.kind].variant_of(spec), spec.tiling, MODE_CODES[spec.fractal], 3)
    arguments = grid_arguments(xs, ys, out.reshape(-1, out.shape[-1]), spec, bounds)
    launch_blocks(kernel, zs.shape[0] * ys.shape[0], (*arguments[:2], zs, *arguments[2:]))


def simplex_grid_sum_3d(xs, ys, zs, out, spec, bounds) -> None:
    """Fill ``out`` (slices, rows, cols) float32 with the fractal sum of ``spec`` (``simplex_rows``) at the 3D lattice
    ``(xs[c], ys[r], zs[s])``, clamped to ``bounds``: the same bits as the point path at those points
    (``tests/test_grid_path_3d.py``); the axes are float64, each below the kind's lattice limit (``api`` checks
    them)."""
    kernel = simplex_grid_kernel_for(KINDS[spec.kind].variant_of(spec), MODE_CODES[spec.fractal])
    arguments = (xs, ys, zs, out.reshape(-1, out.shape[-1]), *octave_arguments(spec), np.float32(bounds[0]),
                 np.float32(bounds[1]))  # fmt: skip
    launch_blocks(kernel, zs.shape[0] * ys.shape[0], arguments)
