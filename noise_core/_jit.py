"""The one place that holds the Numba decorator options.

Every per-point function is compiled with :func:`jit`; every kernel that loops over
points (in parallel) with :func:`kernel`. Both cache their machine code on disk
(``cache=True``) so a restart pays only for loading, not compiling; ``_cache``
makes that cache follow edits to any module of the package.
"""

from __future__ import annotations

import numba

from ._cache import install_locators

install_locators()

JIT_OPTIONS = {
    "cache": True,
    "nogil": True,
    # No ZeroDivisionError checks: they are branches in the inner loop that stop
    # LLVM from vectorising it. Every division here has a non-zero divisor.
    "error_model": "numpy",
    # Fused multiply-add for a * b + c (the lerps, dot products and polynomials):
    # fewer instructions, and each fused result is rounded once instead of twice.
    # No other fast-math flag: "nnan"/"ninf" would let LLVM drop the infinities
    # some kernels start their minimum searches from.
    "fastmath": {"contract"},
}


def jit(function):
    """Compile a scalar helper, marked ``alwaysinline`` for LLVM (``forceinline``).

    Without it LLVM's cost model leaves a whole noise function (a few hundred
    instructions) as a call inside the kernel's point loop, which then cannot
    vectorise; inlined, the loop body is straight-line code over SIMD lanes.
    """
    return numba.njit(forceinline=True, **JIT_OPTIONS)(function)


def kernel(function):
    """Compile a kernel that runs its ``prange`` loop over points on all cores."""
    return numba.njit(parallel=True, **JIT_OPTIONS)(function)
