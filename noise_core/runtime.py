"""The kernel runtime: compiling kernels ahead of a launch, launching them, and what is compiled already.

Every range kernel (``_jit.range_kernel``: the point launchers, the derivative kernels, the separable grids,
thermal erosion) is launched by ``launch_blocks``: compiled (or loaded from the disk cache) first, outside any
lock, then run over its blocks on Numba's threads (``threads.on_threads``). ``compile_state`` tells whether a
kernel is in memory, in the disk cache or not compiled at all, without compiling it.

Threads: any number of threads may evaluate at once (the Blender add-on's preview computes in a worker thread
while operators run on the main thread). Numba's ``workqueue`` threading layer aborts the process when two
threads launch parallel kernels at the same time ("Concurrent access has been detected"); ``tbb`` and ``omp``
allow it. Which layer a process gets depends on the platform, the installed libraries and
``NUMBA_THREADING_LAYER``, and is known only once the layer has started, so launches are serialised by
``_LAUNCH_LOCK`` unless the layer is known to be ``tbb`` or ``omp``. Compiling (or loading from the disk cache)
happens before the lock: a thread that compiles a new kernel for seconds never holds up launches of kernels
already compiled.

This module imports no other module of the package: the kernels import it.
"""

from __future__ import annotations

import threading
from contextlib import nullcontext

import numba
import numpy as np
from numba import types

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


BLOCK_RANGE = (types.int64, types.int64)
"""The types of a range kernel's first two arguments, its range of blocks (``threads``)."""


def range_signature(kernel, arguments) -> tuple:
    """The Numba argument types the range kernel ``kernel`` is compiled for when launched with ``arguments``."""
    return BLOCK_RANGE + kernel_signature(kernel, arguments)


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


READINESS = ("uncompiled", "cached", "compiled")
"""The ``compile_state`` values, least ready first."""


def least_ready(steps) -> str:
    """The ``compile_state`` of the least ready of ``steps`` (pairs of dispatcher and signature, as
    ``api.plan`` lists them); ``"compiled"`` when there are none."""
    return min((compile_state(*step) for step in steps), key=READINESS.index, default="compiled")


def prepare(steps) -> None:
    """Compile (or load from the disk cache) every one of ``steps`` (pairs of dispatcher and signature)."""
    for kernel, signature in steps:
        ensure_compiled(kernel, signature)


def ensure_compiled(kernel, signature) -> None:
    """Compile ``kernel`` for ``signature``, or load it from the disk cache, unless it is in memory."""
    if signature not in kernel.overloads:
        kernel.compile(signature)


_TYPED_FLAGS = 0x1 | 0x2 | 0x100 | 0x400
"""NumPy's C-contiguous, Fortran-contiguous, aligned and writeable flags (``ndarray.flags.num`` bits): those of an
array's flags that its Numba type depends on."""


def _argument_key(argument) -> object:
    """What decides the Numba type of a kernel argument (an array's dtype, dimensions, layout and flags; a
    scalar's Python type, and for an int whether it fits int64), cheaper to compute than the type itself."""
    if isinstance(argument, np.ndarray):
        return (argument.dtype, argument.ndim, argument.flags.num & _TYPED_FLAGS)
    if isinstance(argument, int):
        return (type(argument), -(2**63) <= argument < 2**63)
    return type(argument)


_READY: set = set()


def _make_ready(kernel, arguments, signature) -> None:
    """Compile ``kernel`` for ``signature(kernel, arguments)`` (or load it from the disk cache) unless arguments of
    the same types were seen before (working out Numba's types of all the arguments costs more than a small
    launch; were a type to differ all the same, the call would compile)."""
    key = (kernel, *map(_argument_key, arguments))
    if key not in _READY:
        ensure_compiled(kernel, signature(kernel, arguments))
        _READY.add(key)


def launch_blocks(kernel, blocks, arguments) -> None:
    """Run the range kernel ``kernel`` on ``arguments`` over ``blocks`` blocks on Numba's threads
    (``threads.on_threads``) under ``launch_guard``, compiled (or loaded from the disk cache) before, outside
    the lock."""
    _make_ready(kernel, arguments, range_signature)
    with launch_guard():
        kernel(-1, blocks, *arguments)
