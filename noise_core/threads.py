"""Running a range kernel's blocks on several threads at once.

A range kernel (``_jit.range_kernel``: the derivative kernels, ``derivatives._build_kernel``) is a serial loop
over a range of blocks, its first two arguments the first block and the block after the last. :func:`run_blocks`
splits a call's blocks into one contiguous range per thread, as ``prange``'s static schedule does, runs the
first range on the calling thread and the others on a pool of worker threads shared by all callers
(``concurrent.futures``), and returns when every range is done. The kernels release the GIL (``nogil``), so the
ranges run at once; each block's values depend only on its own points, so the bits do not depend on the number
of threads.

The number of threads is Numba's ``get_num_threads()`` in the calling thread (``NUMBA_NUM_THREADS``, or
``numba.set_num_threads`` called in that thread), at most one per block. Any number of Python threads may run
range kernels at once: each is a plain call, where Numba's ``workqueue`` threading layer aborts the process
when two threads launch ``prange`` kernels together. Why not ``prange`` for these kernels: Numba compiles a
parallel kernel's loop body again as a function of its own, with two wrappers, each optimising everything
inlined into it (the whole noise, for a derivative kernel). Why not for every kernel: a worker thread sleeps
between calls, and waking it costs more per call than Numba's spin-waiting threads, which matters for cheap
noise (docs/benchmarks.md, "Derivative kernels on a thread pool").
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor, wait

import numba


class _Pool:
    """The worker threads, started on the first call that uses more than one thread."""

    executor: ThreadPoolExecutor | None = None
    lock = threading.Lock()


def _executor() -> ThreadPoolExecutor:
    """The shared pool: one worker per Numba thread but the caller's own."""
    with _Pool.lock:
        if _Pool.executor is None:
            workers = max(1, numba.config.NUMBA_NUM_THREADS - 1)
            _Pool.executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="noise_core")
        return _Pool.executor


def block_ranges(blocks: int, threads: int) -> list[tuple[int, int]]:
    """``blocks`` split into ``threads`` contiguous ``(first, last)`` ranges (``last`` exclusive) whose sizes
    differ by at most one."""
    return [(blocks * t // threads, blocks * (t + 1) // threads) for t in range(threads)]


def run_blocks(kernel, blocks: int, arguments: tuple) -> None:
    """``kernel(first, last, *arguments)`` over the ranges of ``blocks`` blocks, one per thread (module doc).

    Returns when every range is done, also when one raises (its exception is raised then, the caller's own
    range's first), so no thread still writes into the caller's arrays."""
    threads = min(numba.get_num_threads(), blocks)
    if threads <= 1:
        kernel(0, blocks, *arguments)
        return
    ranges = block_ranges(blocks, threads)
    executor = _executor()
    others = [executor.submit(kernel, first, last, *arguments) for first, last in ranges[1:]]
    try:
        kernel(*ranges[0], *arguments)
    finally:
        wait(others)
    for other in others:
        other.result()
