"""The block: how many points the kernels process together.

The point kernels split their points into blocks of at most ``BLOCK`` (``fractal``); each block's coordinates
and values, and the block samplers' per-block buffers, fit on the stack (``_jit.scratch``, sized by ``BLOCK``)
and in the L2 cache.
"""

import numpy as np

from ._jit import exact, jit

BLOCK = 2048


@jit
def block_span(block, size, n):
    """``(start, stop)``: the items ``start .. stop - 1`` of block ``block`` of ``size`` items among ``n``
    (the last block may be shorter)."""
    start = block * size
    return start, min(start + size, n)


@jit
def read_block(rows, dim, limit, local):
    """Copy a block's points (its (n, ``dim``) rows, flattened) into the float64 columns ``local[axis]``;
    returns how many coordinates are not below ``limit`` in magnitude (NaN counts as outside). Row by row,
    all of a row's coordinates together: LLVM reads the rows with wide loads and shuffles them apart (axis by
    axis it read each coordinate with a gather)."""
    block_outside = 0
    for i in range(local.shape[1]):
        for axis in range(dim):
            coordinate = np.float64(rows[i * dim + axis])
            local[axis, i] = coordinate
            block_outside += 0 if abs(coordinate) < limit else 1
    return block_outside


@exact
def _coordinate(rows, first, width, matrix, axis):
    """``q[axis]`` of the point whose ``width`` coordinates start at ``rows[first]`` (``affine``'s docstring): no
    fast-math flags, so the sums stay in order and no product is fused with them, wherever this is inlined."""
    total = matrix[axis, 0] * np.float64(rows[first])
    for i in range(1, width):
        total = total + matrix[axis, i] * np.float64(rows[first + i])
    return total + matrix[axis, width]


@jit
def read_block_affine(rows, width, dim, matrix, limit, local):
    """``read_block`` of the points mapped by ``matrix`` (``affine``): the block's (n, ``width``) rows, flattened,
    mapped by ``matrix`` into the float64 columns ``local[axis]``; returns how many transformed coordinates are not
    below ``limit`` in magnitude (NaN counts as outside)."""
    block_outside = 0
    for i in range(local.shape[1]):
        for axis in range(dim):
            coordinate = _coordinate(rows, i * width, width, matrix, axis)
            local[axis, i] = coordinate
            block_outside += 0 if abs(coordinate) < limit else 1
    return block_outside
