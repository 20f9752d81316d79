"""``_jit``: helpers and block functions are compiled without Numba's Python and C wrappers, and a call from
Python still works (through a twin compiled with them), with the bits compiled callers get."""

from __future__ import annotations

import numba
import numpy as np

from noise_core import _jit, fractal
from noise_core.gradients import octahedron_vectors32
from noise_core.hashing import eat, hash_seed


@numba.njit
def _through_compiled_code(h):
    return octahedron_vectors32(h)


def test_a_helper_has_no_python_wrapper_and_a_python_call_gives_the_compiled_bits() -> None:
    hashes = np.array([0, 1, 0xDEADBEEF, 0xFFFFFFFF, 0x80000000], dtype=np.uint32)
    for h in hashes:
        assert _through_compiled_code(h) == octahedron_vectors32(h)
    assert isinstance(octahedron_vectors32, _jit.CompiledOnly)
    compiled = octahedron_vectors32.overloads[(numba.types.uint32,)]
    assert compiled.library.get_pointer_to_function(compiled.fndesc.llvm_cpython_wrapper_name) == 0
    assert octahedron_vectors32.__dict__["_python_twin"].targetoptions["fastmath"] is False  # exact: no fusing


def test_python_calls_of_hash_helpers_match_the_seed() -> None:
    """SmallXXHash.Seed(0).Eat(1) as the seed's C# computes it, through the Python twins."""
    seed = (0 + 0x165667B1) & 0xFFFFFFFF
    mixed = (seed + 1 * 0xC2B2AE3D) & 0xFFFFFFFF
    rotated = ((mixed << 17) | (mixed >> 15)) & 0xFFFFFFFF
    assert eat(hash_seed(0), 1) == (rotated * 0x27D4EB2F) & 0xFFFFFFFF


def test_block_functions_are_compiled_only() -> None:
    block = fractal.kernel_for(0, 2, 0)
    fractal.block_address(block)
    assert isinstance(block, _jit.CompiledOnly)
    compiled = block.overloads[fractal.BLOCK_ARGUMENTS]
    assert compiled.library.get_pointer_to_function(compiled.fndesc.llvm_cpython_wrapper_name) == 0
