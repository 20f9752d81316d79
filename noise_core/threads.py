"""Running a kernel's blocks on Numba's threads, without ``prange``.

Every kernel that loops over blocks of points is a *range kernel* (``_jit.range_kernel``): a serial loop over
the blocks ``first .. last - 1``, its first two arguments. Launched with ``first = -1`` and ``last = blocks``,
it calls :func:`on_threads` first, which runs the kernel itself over all the blocks on the threads of Numba's
threading layer (``workqueue``, ``omp`` or ``tbb``, the same threads ``prange`` loops run on): the blocks are
split into one contiguous range per thread, sizes differing by at most one, as ``prange``'s static schedule
splits a loop, and each thread calls the kernel with its range. Each block's values depend only on its own
points, so the bits do not depend on the number of threads. With one thread (``NUMBA_NUM_THREADS=1`` or
``numba.set_num_threads(1)``) or one block, the calling thread runs all the blocks itself and no thread is
woken.

Why not ``prange``: Numba compiles a parallel kernel in three more modules (the loop body as a function of its
own and two wrappers around it) after passes of its own over the kernel: about 1.2 s at the first use of each
kernel and point type, where a range kernel compiles in about 0.4 s (docs/benchmarks.md, "A parallel launch
without prange"). The threads are the same, so the speed is too. Why not a pool of Python threads (as before):
those sleep between calls, and waking them costs more per call than Numba's spinning workers.

How: ``on_threads`` is an intrinsic. It hands Numba's ``parallel_for`` (the threading layer's entry point, which
``prange`` loops call too) a small task function built beside the kernel, which calls the kernel back with
each thread's range and the kernel's own other arguments, as the kernel received them. An exception raised in
any range is raised by the launch, after every thread is done. Numba's ``workqueue`` layer aborts the process
when two threads launch at the same time, so launches are serialised unless the layer allows concurrency
(``runtime.launch_guard``). This uses Numba internals (the ``numba_parallel_for`` and ``get_num_threads``
symbols of the threading layer, its task signature, the CPU calling convention), the same from numba 0.62 to
0.68.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numba
from llvmlite import ir
from numba import types
from numba.core import callconv, cgutils
from numba.extending import intrinsic

_BYTE_POINTER = ir.IntType(8).as_pointer()
_INTP = ir.IntType(64)
_INT32 = ir.IntType(32)
_TASK_TYPE = ir.FunctionType(ir.VoidType(), [_BYTE_POINTER.as_pointer(), _INTP.as_pointer(), _INTP.as_pointer(),
                                             _BYTE_POINTER])  # fmt: skip
"""The threading layer's task: ``task(args, dimensions, steps, data)``; each thread's call gets ``args[0]``
advanced by ``steps[0]`` times its first index and ``dimensions[0]`` set to its count."""
_PARALLEL_FOR_TYPE = ir.FunctionType(ir.VoidType(), [_BYTE_POINTER] * 5 + [_INTP] * 3)
"""``parallel_for(task, args, dimensions, steps, data, inner dimensions, array count, threads)``."""
_TRAILER = ("failed", "code", "exception", "blocks", "parts")
"""The fields of the task's record after the kernel's arguments: whether a range failed (claimed by the first
that does), its status code and exception record, the number of blocks and of parts they are split into."""


def _field(builder, record, arguments: int, name: str):
    """A pointer to the field ``name`` (``_TRAILER``) of a task record holding ``arguments`` arguments."""
    return cgutils.gep_inbounds(builder, record, 0, arguments + _TRAILER.index(name))


def start_threads() -> None:
    """Start Numba's threading layer (once per process): it registers the symbols ``on_threads`` calls, so it
    must run before a range kernel is compiled or loaded from the disk cache."""
    numba.get_num_threads()


@contextmanager
def leaving_one_core() -> Iterator[None]:
    """Within the block, range kernels launched from the calling thread run on one thread fewer of Numba's (at
    least one; ``numba.set_num_threads`` is per calling thread), so a serial kernel running meanwhile on a thread
    of its own has a core to itself instead of sharing one with them. The bits do not depend on the count."""
    threads = numba.get_num_threads()
    numba.set_num_threads(max(1, threads - 1))
    try:
        yield
    finally:
        numba.set_num_threads(threads)


def _check_range_kernel(function) -> None:
    """``function`` (LLVM) must be a Numba function whose first two arguments are int64 (``first``, ``last``)."""
    arguments = function.args
    if len(arguments) < 4 or arguments[2].type != _INTP or arguments[3].type != _INTP:
        raise TypeError(f"on_threads: {function.name} is not a range kernel (first, last, ...)")


def _task(function, data_type):
    """The task function of the range kernel ``function``: for the parts ``part .. part + count - 1`` of the
    blocks (``args[0]`` is ``part``, ``dimensions[0]`` is ``count``), calls it with their blocks ``(first, last,
    *arguments)``, the arguments read from ``data``; the first failing call claims ``data``'s error slot with its
    status."""
    task = cgutils.get_or_insert_function(function.module, _TASK_TYPE, f"{function.name}.on_threads")
    if not task.is_declaration:
        return task
    task.linkage = "internal"
    builder = ir.IRBuilder(task.append_basic_block())
    args, dimensions, _, data = task.args
    part = builder.ptrtoint(builder.load(args), _INTP)
    record = builder.bitcast(data, data_type.as_pointer())
    count = len(data_type.elements) - len(_TRAILER)
    blocks = builder.load(_field(builder, record, count, "blocks"))
    parts = builder.load(_field(builder, record, count, "parts"))
    first = builder.sdiv(builder.mul(part, blocks), parts)
    last = builder.sdiv(builder.mul(builder.add(part, builder.load(dimensions)), blocks), parts)
    arguments = [builder.load(cgutils.gep_inbounds(builder, record, 0, i)) for i in range(count)]
    result = cgutils.alloca_once(builder, function.args[0].type.pointee)
    exception = cgutils.alloca_once(builder, function.args[1].type.pointee)
    code = builder.call(function, [result, exception, first, last, *arguments])
    failed = builder.and_(
        builder.icmp_signed("!=", code, callconv.RETCODE_OK), builder.icmp_signed("!=", code, callconv.RETCODE_NONE)
    )
    with builder.if_then(failed, likely=False):
        slot = _field(builder, record, count, "failed")
        claimed = builder.extract_value(
            builder.cmpxchg(slot, ir.Constant(_INT32, 0), ir.Constant(_INT32, 1), "monotonic", "monotonic"), 1
        )
        with builder.if_then(claimed):
            builder.store(code, _field(builder, record, count, "code"))
            builder.store(builder.load(exception), _field(builder, record, count, "exception"))
    builder.ret_void()
    return task


@intrinsic
def on_threads(typingctx, blocks):
    """Run the range kernel this is called in over blocks ``0 .. blocks - 1`` on Numba's threads (module doc).

    Call it only at the top of a range kernel, with the kernel's ``last`` when its ``first`` is negative, then
    return: ``if first < 0: on_threads(last); return``."""
    if not isinstance(blocks, types.Integer):
        return None
    start_threads()  # the symbols it calls must be registered before the function is linked

    def codegen(context, builder, signature, values):
        function = builder.function
        _check_range_kernel(function)
        passed = function.args[4:]
        error_code = function.function_type.return_type
        trailer = [_INT32, error_code, function.args[1].type.pointee, _INTP, _INTP]  # the types of _TRAILER
        data_type = ir.LiteralStructType([value.type for value in passed] + trailer)
        data = cgutils.alloca_once(builder, data_type)
        for i, value in enumerate(passed):
            builder.store(value, cgutils.gep_inbounds(builder, data, 0, i))
        builder.store(ir.Constant(_INT32, 0), _field(builder, data, len(passed), "failed"))
        task = _task(function, data_type)

        # The blocks in one contiguous part per thread (prange's static schedule): a call per part, not per
        # block (the omp layer calls the task once per index).
        blocks = context.cast(builder, values[0], signature.args[0], types.int64)
        get_num_threads = cgutils.get_or_insert_function(builder.module, ir.FunctionType(_INTP, []), "get_num_threads")
        threads = builder.call(get_num_threads, [])
        parts = builder.select(builder.icmp_signed("<", blocks, threads), blocks, threads)
        parts = builder.select(builder.icmp_signed("<", parts, ir.Constant(_INTP, 1)), ir.Constant(_INTP, 1), parts)
        builder.store(blocks, _field(builder, data, len(passed), "blocks"))
        builder.store(parts, _field(builder, data, len(passed), "parts"))
        args = cgutils.alloca_once_value(builder, ir.Constant(_BYTE_POINTER, None))  # index 0: a null "array"
        dimensions = cgutils.alloca_once_value(builder, parts)
        steps = cgutils.alloca_once_value(builder, ir.Constant(_INTP, 1))  # so each call's args[0] is its part
        task_arguments = [builder.bitcast(x, _BYTE_POINTER) for x in (args, dimensions, steps, data)]
        alone = builder.icmp_signed("<=", parts, ir.Constant(_INTP, 1))
        with builder.if_else(alone) as (here, spread):
            with here:
                builder.call(task, [builder.bitcast(args, _BYTE_POINTER.as_pointer()), dimensions, steps,
                                    task_arguments[3]])  # fmt: skip
            with spread:
                parallel_for = cgutils.get_or_insert_function(builder.module, _PARALLEL_FOR_TYPE, "numba_parallel_for")
                builder.call(parallel_for, [builder.bitcast(task, _BYTE_POINTER), *task_arguments,
                                            ir.Constant(_INTP, 0), ir.Constant(_INTP, 1), threads])  # fmt: skip
        failed = builder.load(_field(builder, data, len(passed), "failed"))
        with builder.if_then(builder.icmp_signed("!=", failed, ir.Constant(_INT32, 0)), likely=False):
            code = builder.load(_field(builder, data, len(passed), "code"))
            exception = builder.load(_field(builder, data, len(passed), "exception"))
            status = callconv.Status(code, None, None, None, None, None, None, exception)
            context.call_conv.return_status_propagate(builder, status)
        return context.get_dummy_value()

    return types.none(blocks), codegen
