"""``_jit``: helpers and block functions are compiled without Numba's Python and C wrappers, and a call from
Python still works (through a twin compiled with them), with the bits compiled callers get."""

from __future__ import annotations

import os
import platform
import subprocess
import sys

import numba
import numpy as np
import pytest

import noise_core as nc
from noise_core import _jit, api, fractal
from noise_core.fractal_modes import octave_arguments
from noise_core.gradients import octahedron_vectors32
from noise_core.hashing import eat, hash_seed
from noise_core.ranges import float32_range


@numba.njit
def _through_compiled_code(h):
    return octahedron_vectors32(h)


def _has_wrappers(compiled) -> tuple[bool, bool]:
    """Whether ``compiled``'s library defines its Python wrapper and its C wrapper."""
    library, fndesc = compiled.library, compiled.fndesc
    return (
        library.get_pointer_to_function(fndesc.llvm_cpython_wrapper_name) != 0,
        library.get_pointer_to_function(fndesc.llvm_cfunc_wrapper_name) != 0,
    )


def test_a_helper_has_no_wrappers_and_a_python_call_gives_the_compiled_bits() -> None:
    hashes = np.array([0, 1, 0xDEADBEEF, 0xFFFFFFFF, 0x80000000], dtype=np.uint32)
    for h in hashes:
        assert _through_compiled_code(h) == octahedron_vectors32(h)
    assert isinstance(octahedron_vectors32, _jit.CompiledOnly)
    assert _has_wrappers(octahedron_vectors32.overloads[(numba.types.uint32,)]) == (False, False)
    assert octahedron_vectors32.__dict__["_python_twin"].targetoptions["fastmath"] is False  # exact: no fusing


def test_python_calls_of_hash_helpers_match_the_seed() -> None:
    """SmallXXHash.Seed(0).Eat(1) as the seed's C# computes it, through the Python twins."""
    seed = (0 + 0x165667B1) & 0xFFFFFFFF
    mixed = (seed + 1 * 0xC2B2AE3D) & 0xFFFFFFFF
    rotated = ((mixed << 17) | (mixed >> 15)) & 0xFFFFFFFF
    assert eat(hash_seed(0), 1) == (rotated * 0x27D4EB2F) & 0xFFFFFFFF


def test_a_block_function_has_no_wrappers_and_its_python_twin_gives_the_kernels_values() -> None:
    """The twin of a block function keeps its compiler (``noalias``) and gives the bits ``evaluate`` gives."""
    spec = nc.NoiseSpec(kind="perlin", seed=4, octaves=3, frequency=3.0)
    points = np.random.default_rng(8).uniform(-2.0, 2.0, (300, 2))
    expected = nc.evaluate(spec, points)
    family, variant, params = api.kernel_arguments(spec, 2)
    block = fractal.kernel_for(family, 2, variant)
    assert isinstance(block, _jit.CompiledOnly)
    assert _has_wrappers(block.overloads[fractal.BLOCK_ARGUMENTS]) == (False, False)
    low, high = float32_range(spec)
    values = np.empty(300, dtype=np.float32)
    block(np.ascontiguousarray(points.T), values, *octave_arguments(spec), params, np.float32(low),
          np.float32(high))  # fmt: skip
    np.testing.assert_array_equal(values, expected)
    assert block.__dict__["_python_twin"]._compiler.pipeline_class is _jit._KernelCompiler
    launcher = fractal.launcher_for(2)  # a kernel: called from Python, so only the C wrapper goes
    assert {_has_wrappers(compiled) for compiled in launcher.overloads.values()} == {(True, False)}


def test_points_of_any_alignment_writability_and_type_give_the_same_values() -> None:
    """Read-only and unaligned points are kernel argument types of their own (compiled when first seen): the
    same values as writable, aligned points; float32 points as their float64 copies."""
    spec = nc.NoiseSpec(kind="value", seed=2, octaves=2)
    points = np.random.default_rng(9).uniform(-3.0, 3.0, (fractal.BLOCK + 99, 3))
    expected = nc.evaluate(spec, points)
    frozen = points.copy()
    frozen.flags.writeable = False
    raw = np.zeros(points.nbytes + 1, dtype=np.uint8)
    unaligned = raw[1:].view(np.float64).reshape(points.shape)
    unaligned[:] = points
    assert not unaligned.flags.aligned
    np.testing.assert_array_equal(nc.evaluate(spec, frozen), expected)
    np.testing.assert_array_equal(nc.evaluate(spec, unaligned), expected)
    single = points.astype(np.float32)
    np.testing.assert_array_equal(nc.evaluate(spec, single), nc.evaluate(spec, single.astype(np.float64)))


@numba.njit
def _flip(value, sign):
    return _jit.flip_sign_where_negative(value, sign)


@numba.njit
def _low_word(value):
    return _jit.low_word(value)


def test_bit_intrinsics() -> None:
    # flip_sign_where_negative is value * copysign(1, sign), signed zeros included; low_word reads the low 32
    # bits of a float64's pattern as a signed int (cell_index's tests cover its use).
    f32 = np.float32
    for value in (f32(0.0), f32(-0.0), f32(0.75), f32(-3.5), f32(1e-40)):
        for sign in (f32(2.0), f32(-2.0), f32(0.0), f32(-0.0)):
            got = _flip(value, sign)
            assert np.signbit(got) == (np.signbit(value) != np.signbit(sign)), (value, sign)
            assert abs(got) == abs(value)
    assert _low_word(1.5 * 2.0**52 - 5) == -5
    assert _low_word(1.5 * 2.0**52 + 2**31) == -(2**31)
    assert _low_word(np.float64(1.0)) == 0  # 0x3FF0000000000000
    assert _low_word(np.frombuffer(np.int64(0x123456789ABCDEF0).tobytes(), np.float64)[0]) == 0x9ABCDEF0 - 2**32


WIDE_PROGRAM = """
import re, tempfile
import noise_core as nc
from noise_core import _jit, fractal, runtime
from noise_core.registry import kind_info
nc.set_cache_dir(tempfile.mkdtemp())
spec = nc.NoiseSpec(kind="perlin")
block = fractal.kernel_for(kind_info("perlin").family, 3, kind_info("perlin").variant_of(spec))
runtime.ensure_compiled(block, fractal.BLOCK_ARGUMENTS)  # compiled only: this machine may lack AVX-512
asm = block.inspect_asm(fractal.BLOCK_ARGUMENTS)
marked = _jit.FULL_WIDTH in block.inspect_llvm(fractal.BLOCK_ARGUMENTS)
print(len(re.findall(r"%zmm", asm)), len(re.findall(r"%ymm", asm)), marked)
"""
AVX512_FEATURES = "+avx512f,+avx512bw,+avx512dq,+avx512vl,+avx512cd,+avx2,+avx,+fma,+bmi,+bmi2,+f16c,+popcnt"


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="x86-64 code generation")
def test_block_functions_use_512_bit_vectors_on_intel_avx512() -> None:
    """LLVM's tuning for Intel's AVX-512 CPUs stops the vectoriser at 256 bits unless a function asks for more
    (``_jit.FULL_WIDTH``): Perlin 3D's block function, compiled for Skylake-SP, uses zmm registers."""
    env = {**os.environ, "NUMBA_CPU_NAME": "skylake-avx512", "NUMBA_CPU_FEATURES": AVX512_FEATURES}
    done = subprocess.run([sys.executable, "-c", WIDE_PROGRAM], capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    zmm, ymm, marked = done.stdout.split()
    assert marked == "True" and int(zmm) > 100, (zmm, ymm, marked)
