"""The one place that holds the Numba decorator options.

Every per-point function is compiled with :func:`jit`; every kernel that loops over points with
:func:`range_kernel` (a range of blocks, run on Numba's threads by ``threads.on_threads``), or
:func:`serial_kernel` where the order of the work decides its result. All cache their machine code on disk so a
restart pays only for loading, not compiling: they are decorated without Numba's ``cache=True`` and registered
with ``_cache``, which attaches the caches when the first kernel is built, in the folder the caller chose
(``set_cache_dir``), and makes them follow edits to any module of the package.
"""

from __future__ import annotations

import functools
import math
from types import SimpleNamespace

import llvmlite.binding as llvm
import numba
from llvmlite import ir
from numba import types
from numba.core import cgutils, lowering
from numba.core.compiler import Compiler, DefaultPassBuilder
from numba.core.compiler_machinery import register_pass
from numba.core.registry import CPUDispatcher
from numba.core.typed_passes import NativeLowering
from numba.extending import intrinsic

from . import _cache, threads

# LLVM fully unrolls a loop with a constant trip count only when the unrolled body
# stays under this many instructions (300 by default at -O3). Noise that visits the
# 3x3 or 3x3x3 neighbouring cells (Voronoi) then keeps those loops, so its point loop
# is not the innermost loop and does not vectorise; unrolled, it does (about 4x
# faster in 2D, 3x in 3D, measured). This is an LLVM-wide option of the process:
# it only changes how far loops are unrolled, never results.
UNROLL_THRESHOLD = 4000
llvm.set_option("noise_core", f"-unroll-threshold={UNROLL_THRESHOLD}")

JIT_OPTIONS = {
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


WITHOUT_WRAPPERS = {"no_cpython_wrapper": True, "no_cfunc_wrapper": True}
"""Numba builds two wrappers around every compiled function, one that unboxes Python arguments and one for
calls by address, each compiled to machine code; a helper only ever called from compiled code needs neither,
and without them it compiles in about half the time (docs/benchmarks.md)."""


class CompiledOnly(CPUDispatcher):
    """A dispatcher compiled ``WITHOUT_WRAPPERS``, for compiled callers. Numba would call its missing Python
    wrapper from Python (a crash), so a call from Python goes to a twin compiled from the same function with
    the same options, compiler and locals, and the wrappers (built on the first such call, not cached; tests
    call helpers so). Without the C wrapper it cannot be a first-class function value in compiled code either
    (``f = a if c else b``); nothing here uses helpers so."""

    def __call__(self, *args, **kwargs):
        twin = self.__dict__.get("_python_twin")
        if twin is None:
            options = {k: v for k, v in self.targetoptions.items() if k not in WITHOUT_WRAPPERS and k != "nopython"}
            twin = numba.njit(pipeline_class=self._compiler.pipeline_class, locals=self.locals, **options)
            twin = self.__dict__["_python_twin"] = twin(self.py_func)
        return twin(*args, **kwargs)


def _compiled_only(dispatcher):
    """``dispatcher`` (compiled ``WITHOUT_WRAPPERS``) as a ``CompiledOnly``, cached (``_cache``)."""
    dispatcher.__class__ = CompiledOnly
    return _cache.track(dispatcher)


def _helper(options, function):
    """``function`` compiled with ``options`` and ``forceinline``, ``WITHOUT_WRAPPERS``."""
    return _compiled_only(numba.njit(forceinline=True, **options, **WITHOUT_WRAPPERS)(function))


def jit(function):
    """Compile a scalar helper, marked ``alwaysinline`` for LLVM (``forceinline``).

    Without it LLVM's cost model leaves a whole noise function (a few hundred
    instructions) as a call inside the kernel's point loop, which then cannot
    vectorise; inlined, the loop body is straight-line code over SIMD lanes.
    """
    return _helper(JIT_OPTIONS, function)


EXACT_OPTIONS = {**JIT_OPTIONS, "fastmath": False}
"""``JIT_OPTIONS`` without any fast-math flag. Set explicitly, ``fastmath=False`` is not inherited from the
callers (Numba gives a helper its caller's flags only where the helper sets none)."""


def exact(function):
    """Compile a float32 helper (``jit``, inlined by LLVM) whose bits must not depend on where it is inlined.

    With ``contract`` LLVM decides per caller which products to fuse with the additions after them (in
    ``a*b + c*d`` either product), so the same helper inlined into a vectorised block pass and into a point
    function could differ in the last bit. Without fast-math flags nothing is fused but what the helper
    fuses itself with ``fmuladd``: the same operations in every caller, and on every CPU with FMA.
    """
    return _helper(EXACT_OPTIONS, function)


@intrinsic
def fmuladd(typingctx, a, b, c):
    """``a * b + c``, fused into one rounding where the CPU has FMA (LLVM's ``llvm.fmuladd``), for ``exact``
    helpers; the three arguments must have the same float type."""
    if not (isinstance(a, types.Float) and a == b == c):
        return None

    def codegen(context, builder, signature, arguments):
        value_type = arguments[0].type
        function_type = ir.FunctionType(value_type, [value_type] * 3)
        function = builder.module.declare_intrinsic("llvm.fmuladd", [value_type], function_type)
        return builder.call(function, arguments)

    return a(a, b, c), codegen


@intrinsic
def fused_multiply_add(typingctx, a, b, c):
    """``a * b + c`` rounded once, always (LLVM's ``llvm.fma``; ``fmuladd`` may also round twice): for exact
    arithmetic that needs the fused rounding, e.g. ``fused_multiply_add(x, f, -cell)`` is ``x * f - cell`` rounded
    once. The three arguments must have the same float type."""
    if not (isinstance(a, types.Float) and a == b == c):
        return None

    def codegen(context, builder, signature, arguments):
        value_type = arguments[0].type
        function_type = ir.FunctionType(value_type, [value_type] * 3)
        function = builder.module.declare_intrinsic("llvm.fma", [value_type], function_type)
        return builder.call(function, arguments)

    return a(a, b, c), codegen


@intrinsic
def flip_sign_where_negative(typingctx, value, sign):
    """``value`` with its sign bit flipped where ``sign``'s is set (``value * copysign(1, sign)``, exact): two bit
    operations on float32 (an intrinsic, so it compiles no helper of its own)."""
    if not (value == sign == types.float32):
        return None

    def codegen(context, builder, signature, arguments):
        word = ir.IntType(32)
        bits = builder.bitcast(arguments[0], word)
        sign_bit = builder.and_(builder.bitcast(arguments[1], word), ir.Constant(word, 0x80000000))
        return builder.bitcast(builder.xor(bits, sign_bit), ir.FloatType())

    return types.float32(value, sign), codegen


@intrinsic
def flip_sign_where_top_bit(typingctx, value, word):
    """float32 ``value`` with its sign bit flipped where bit 31 of the integer ``word`` (its low 32 bits) is set:
    ``flip_sign_where_top_bit(x, h << 31)`` negates ``x`` by bit 0 of ``h`` without a compare or a select."""
    if not (value == types.float32 and isinstance(word, types.Integer)):
        return None

    def codegen(context, builder, signature, arguments):
        i32 = ir.IntType(32)
        low = arguments[1]
        if low.type.width > 32:
            low = builder.trunc(low, i32)
        elif low.type.width < 32:
            low = builder.zext(low, i32)
        sign_bit = builder.and_(low, ir.Constant(i32, 0x80000000))
        return builder.bitcast(builder.xor(builder.bitcast(arguments[0], i32), sign_bit), ir.FloatType())

    return types.float32(value, word), codegen


@intrinsic
def low_word(typingctx, value):
    """The low 32 bits of a float64's bit pattern as a sign-extended int64 (an intrinsic, as
    ``flip_sign_where_negative``)."""
    if value != types.float64:
        return None

    def codegen(context, builder, signature, arguments):
        word = builder.trunc(builder.bitcast(arguments[0], ir.IntType(64)), ir.IntType(32))
        return builder.sext(word, ir.IntType(64))

    return types.int64(value), codegen


@intrinsic
def prefetch(typingctx, array, index):
    """Ask the CPU to bring element ``index`` of the 1-D C-contiguous ``array`` into its caches (LLVM's
    ``llvm.prefetch``, for reading, all cache levels); ``index`` may lie off the array: a prefetch never faults,
    never changes a result, and is a hint the CPU may drop. For loops whose next accesses are known a step
    ahead but land far apart in memory (a priority queue's next cell)."""
    if not (isinstance(array, types.Array) and array.ndim == 1 and array.layout == "C"):
        return None
    if not isinstance(index, types.Integer):
        return None

    def codegen(context, builder, signature, arguments):
        data = context.make_array(signature.args[0])(context, builder, arguments[0]).data
        offset = context.cast(builder, arguments[1], signature.args[1], types.intp)
        byte = ir.IntType(8).as_pointer()
        address = builder.bitcast(builder.gep(data, [offset]), byte)
        word = ir.IntType(32)
        function_type = ir.FunctionType(ir.VoidType(), [byte, word, word, word])
        function = builder.module.declare_intrinsic("llvm.prefetch", [byte], function_type)
        builder.call(function, [address, ir.Constant(word, 0), ir.Constant(word, 3), ir.Constant(word, 1)])
        return context.get_dummy_value()

    return types.none(array, index), codegen


@intrinsic(prefer_literal=True)
def scratch(typingctx, room, shape, dtype):
    """An uninitialised C-contiguous array of ``shape`` (an int or a tuple of ints) and ``dtype`` (a NumPy scalar
    type) in the stack frame of the compiled function it ends up in, for a kernel's per-block buffers. ``room``
    is the largest shape it may have, as constants known when compiling (an int or a tuple of ints, global
    constants or literals, its product at least that of ``shape``): ``scratch((3, BLOCK), (3, n), np.int32)``.

    Where ``np.empty`` compiles Numba's allocation overloads for every dtype and dimension it is used with (about
    0.05 s each at a first use: docs/benchmarks.md) and allocates on the heap at every call, this compiles to
    nothing but a stack slot. The array must not outlive the call (never returned or stored)."""
    sizes = room.types if isinstance(room, types.BaseTuple) else (room,)
    extents = shape.types if isinstance(shape, types.BaseTuple) else (shape,)
    if not (
        all(isinstance(size, types.IntegerLiteral) for size in sizes)
        and isinstance(dtype, types.NumberClass)
        and all(isinstance(extent, types.Integer) for extent in extents)
    ):
        return None
    capacity = math.prod(size.literal_value for size in sizes)
    array_type = types.Array(dtype.instance_type, len(extents), "C")

    def codegen(context, builder, signature, arguments):
        element = context.get_data_type(array_type.dtype)
        with builder.goto_entry_block():
            slot = builder.alloca(ir.ArrayType(element, capacity))
            slot.align = 64
        data = builder.bitcast(slot, element.as_pointer())
        intp = context.get_value_type(types.intp)
        given = cgutils.unpack_tuple(builder, arguments[1]) if isinstance(shape, types.BaseTuple) else [arguments[1]]
        lengths = [context.cast(builder, x, extent, types.intp) for x, extent in zip(given, extents, strict=True)]
        itemsize = ir.Constant(intp, context.get_abi_sizeof(element))
        strides = [itemsize]
        for length in reversed(lengths[1:]):
            strides.insert(0, builder.mul(strides[0], length))
        array = context.make_array(array_type)(context, builder)
        context.populate_array(array, data=data, shape=lengths, strides=strides, itemsize=itemsize, meminfo=None)
        return array._getvalue()

    return array_type(room, shape, dtype), codegen


def named(function, name):
    """``function`` with the qualified name ``name``: Numba names the machine code after it (with a counter that
    restarts in every process), and ``fractal.block_address`` and the launchers' calls look code up by that name among
    everything compiled or loaded from the disk cache in the process, so it must differ between kernels."""
    function.__qualname__ = function.__name__ = name
    return function


def inline(function):
    """Compile a block-level helper that Numba inlines into its caller before typing (``inline="always"``).

    A ``jit`` helper is compiled (optimised and turned into machine code) on its own, then once more inside
    every caller it is linked into; inlined by Numba, a large block helper is compiled only inside its caller.
    """
    return _cache.track(numba.njit(inline="always", **JIT_OPTIONS)(function))


def _kernel(function, **options):
    """``function`` compiled as a kernel with ``options``: called from Python, so without the wrapper for calls
    by address. Kernels are built on first use, so building one attaches the on-disk caches of every function."""
    _cache.activate()
    return _cache.track(numba.njit(no_cfunc_wrapper=True, **options, **JIT_OPTIONS)(function))


def serial_kernel(function):
    """Compile a kernel that runs on one thread: for work whose result depends on its order (a droplet of
    hydraulic erosion changes the terrain the next one flows over), so its bits never depend on threads."""
    return _kernel(function)


def range_kernel(function):
    """Compile a kernel that runs a range of blocks: its first two arguments are the first block and the block
    after the last; launched with first -1 and last the number of blocks, it runs them all on Numba's threads
    (``threads.on_threads``). Its array arguments must not overlap (they are ``noalias``, as Numba marks a
    ``prange`` body's: see ``_KernelCompiler``)."""
    threads.start_threads()
    return _kernel(function, pipeline_class=_KernelCompiler)


FULL_WIDTH = '"prefer-vector-width"="512"'
"""The LLVM function attribute that lets the vectoriser use 512-bit vectors where the CPU has them. LLVM's
tuning for Intel's AVX-512 CPUs (Skylake-SP to Sapphire Rapids) otherwise stops at 256 bits (to spare the
clock speed 512-bit instructions cost on the first of them); AMD's Zen 4 and 5 use 512 bits either way, and
CPUs without AVX-512 are not affected (docs/benchmarks.md)."""


class _FullWidthLower(lowering.Lower):
    """Numba's lowering of a function, marked ``FULL_WIDTH``."""

    def post_lower(self):
        super().post_lower()
        # llvmlite checks the names of LLVM's keyword attributes only; a "key"="value" attribute is added as is
        set.add(self.function.attributes, FULL_WIDTH)


@register_pass(mutates_CFG=True, analysis_only=False)
class _FullWidthLowering(NativeLowering):
    """Numba's lowering pass with ``_FullWidthLower``."""

    _name = "noise_core_full_width_lowering"

    @property
    def lowering_class(self):
        return _FullWidthLower


class _KernelCompiler(Compiler):
    """Numba's compiler for kernels and block functions: its ``noalias`` flag marks the array arguments' data
    ``noalias`` for LLVM, as Numba marks those of a ``prange`` body, so loops that write one array and read
    another need no overlap checks; its lowering marks the functions ``FULL_WIDTH``."""

    def __init__(self, typingctx, targetctx, library, args, return_type, flags, locals):
        flags.noalias = True
        super().__init__(typingctx, targetctx, library, args, return_type, flags, locals)

    def define_pipelines(self):
        pipeline = DefaultPassBuilder.define_nopython_pipeline(self.state)
        pipeline.passes = [
            (_FullWidthLowering if step is NativeLowering else step, description)
            for step, description in pipeline.passes
        ]
        pipeline.finalize()
        return [pipeline]


def block_function(function):
    """Compile a function that a kernel calls through its native entry point (``fractal._call_block``), not
    inlined: its machine code is built once, outside the launchers (one per dimension and point type), each of
    which would otherwise optimise and compile an inlined copy again.

    Its array arguments must not overlap (they are ``noalias``: see ``_KernelCompiler``).
    """
    _cache.activate()
    return _compiled_only(numba.njit(pipeline_class=_KernelCompiler, **JIT_OPTIONS, **WITHOUT_WRAPPERS)(function))


class LazySerialKernel:
    """``serial_kernel(function)``, built when first called (building a kernel attaches the disk caches, which
    must wait until the caller has chosen their folder, so module-level kernels cannot be built at import)."""

    def __init__(self, function) -> None:
        self._function = function
        self._kernel = None

    @property
    def dispatcher(self):
        """The kernel's dispatcher (built now if need be; building compiles nothing)."""
        if self._kernel is None:
            self._kernel = serial_kernel(self._function)
        return self._kernel

    def __call__(self, *arguments):
        return self.dispatcher(*arguments)


def kernel_table(serial: tuple | dict = (), ranged: tuple | dict = ()):
    """A cached function that compiles ``serial`` (``serial_kernel``) and ``ranged`` (``range_kernel``) functions on
    its first call and returns them as attributes: named by the dict's keys, or for a tuple as the functions
    without their leading ``_`` and trailing ``_kernel`` (``_fill`` -> ``fill``, ``_edt_rows_kernel`` ->
    ``edt_rows``). A module's kernels are built on first use, so importing never compiles nor fixes the cache
    folder."""

    def named(functions: tuple | dict) -> dict:
        if isinstance(functions, dict):
            return functions
        names = (function.__name__.lstrip("_") for function in functions)
        return {n[: -len("_kernel")] if n.endswith("_kernel") else n: f for n, f in zip(names, functions, strict=True)}

    @functools.cache
    def kernels() -> SimpleNamespace:
        built = {name: serial_kernel(function) for name, function in named(serial).items()}
        built |= {name: range_kernel(function) for name, function in named(ranged).items()}
        return SimpleNamespace(**built)

    return kernels
