"""The block: how many points the kernels process together.

The point kernels split their points into blocks of at most ``BLOCK`` (``fractal``); each block's coordinates
and values, and the block samplers' per-block buffers, fit on the stack (``_jit.scratch``, sized by ``BLOCK``)
and in the L2 cache.
"""

import numpy as np

from ._jit import jit

BLOCK = 2048


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
