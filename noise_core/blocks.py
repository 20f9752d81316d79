"""The block: how many points the kernels process together.

The point kernels split their points into blocks of at most ``BLOCK`` (``fractal``); each block's coordinates
and values, and the block samplers' per-block buffers, fit on the stack (``_jit.scratch``, sized by ``BLOCK``)
and in the L2 cache.
"""

BLOCK = 2048
