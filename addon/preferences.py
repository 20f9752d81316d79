"""The add-on preferences: where compiled noise kernels are cached, and compiling them all ahead of time.

Numba's on-disk cache goes to the extension's user folder (``bpy.utils.extension_path_user``,
``.../extensions/.user/<repository>/noisewright/numba_cache``), or ``NUMBA_CACHE_DIR`` when that is set: the
install folder is replaced on every update and is read-only in system repositories. ``use_user_cache`` points
``noise_core`` there at register time, before anything compiles; if the folder cannot be written, kernels run
uncached (one warning in the console) and the preferences say so.

*Compile All Noise Kinds* (``noisewright.precompile``) compiles every kind and dimension
(``compile_status.KERNELS``) in the background (``Precompile``: a ``jobs.Worker``) while Blender stays usable;
the preferences show its
progress and a Cancel button (``noisewright.precompile_cancel``, or Esc), which stops it after the kernel
being compiled. Run from a script (``execute``), the operator compiles in the foreground until done.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence

import bpy
from bpy.props import EnumProperty

from . import compile_status
from .compile_status import KERNELS, Kernel
from .jobs import Cancelled, Worker
from .noise_core import cache_location, precompile, set_cache_dir
from .noise_core.registry import KINDS

CACHE_SUBFOLDER = "numba_cache"
TIMER_SECONDS = 0.2
READY_REFRESH_SECONDS = 2.0
KIND_ITEMS = [("ALL", "All Kinds", "Every kind")] + [
    (name, compile_status.kind_label(name).title(), f"Only {compile_status.kind_label(name)} noise") for name in KINDS
]


def cache_folder() -> str | None:
    """The extension's user folder for the cache, or None when the add-on is not loaded as an extension."""
    try:
        return bpy.utils.extension_path_user(__package__, path=CACHE_SUBFOLDER)
    except ValueError:  # a legacy add-on (not bl_ext.<repository>.noisewright): Numba's own places
        return None


def use_user_cache() -> str | None:
    """Cache compiled kernels in the extension's user folder, or in ``NUMBA_CACHE_DIR`` when it is set (Numba's
    own setting for every cache of the process: a studio's shared folder, a test run's); returns where they go
    (None: uncached)."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return set_cache_dir(None)
    folder = cache_folder()
    return set_cache_dir(folder) if folder is not None else cache_location()


class Precompile:
    """Compile ``kernels`` one after another on a ``jobs.Worker``; ``cancel`` stops it after the current kernel.

    ``compile_kernel(kernel)`` does the work (``noise_core.precompile`` by default). Read ``done``, ``current``,
    ``finished``, ``cancelled``, ``error`` from any thread.
    """

    def __init__(self, kernels: Sequence[Kernel] = KERNELS, compile_kernel: Callable[[Kernel], object] | None = None):
        self.kernels = tuple(kernels)
        self.compile_kernel = compile_kernel or (
            lambda kernel: precompile(kernel.spec, kernel.dim, kernel.dtype, transform_width=kernel.transform_width)
        )
        self.current: Kernel | None = None
        self.seconds = 0.0
        self.worker = Worker(self._compile, len(self.kernels))

    def _compile(self, advance: Callable[[int], None]) -> None:
        start = time.perf_counter()
        try:
            for kernel in self.kernels:
                advance(0)  # ``Cancelled`` once cancelled: between kernels
                self.current = kernel
                self.compile_kernel(kernel)
                self.current = None
                self.worker.moved(1)  # counted even when a cancel came meanwhile
        finally:
            self.current = None
            self.seconds = time.perf_counter() - start

    @property
    def total(self) -> int:
        return self.worker.total

    @property
    def done(self) -> int:
        return self.worker.done

    @property
    def finished(self) -> bool:
        return self.worker.finished.is_set()

    @property
    def cancelled(self) -> bool:
        return self.worker.cancel_requested

    @property
    def error(self) -> BaseException | None:
        """What the compile raised (None when it finished or was cancelled)."""
        return None if isinstance(self.worker.error, Cancelled) else self.worker.error

    def start(self) -> Precompile:
        self.worker.start()
        return self

    def cancel(self) -> None:
        self.worker.cancel(0.0)

    def join(self, timeout: float | None = None) -> None:
        self.worker.finished.wait(timeout)

    def progress_text(self) -> str:
        if self.current is not None:
            return f"Compiling {self.current.label} ({self.done + 1} of {self.total})"
        return f"{self.done} of {self.total} kernels ready"


class _Jobs:
    job: Precompile | None = None
    ready: tuple[float, int] | None = None  # (when counted, how many KERNELS are ready)


_jobs = _Jobs()


def running_job() -> Precompile | None:
    """The precompile job in progress, if any."""
    job = _jobs.job
    return job if job is not None and not job.finished else None


def start_job(kernels: tuple[Kernel, ...] = KERNELS, compile_kernel=None) -> Precompile:
    """Start compiling ``kernels`` in the background (one job at a time)."""
    if running_job() is not None:
        raise RuntimeError("a precompile job is already running")
    _jobs.job = Precompile(kernels, compile_kernel).start()
    _jobs.ready = None
    return _jobs.job


def cancel_job() -> None:
    """Ask a running precompile job to stop after its current kernel (the add-on is being disabled)."""
    job = running_job()
    if job is not None:
        job.cancel()


def ready_count() -> int:
    """How many of ``KERNELS`` are compiled or cached (counted at most every READY_REFRESH_SECONDS)."""
    now = time.monotonic()
    if _jobs.ready is None or now - _jobs.ready[0] > READY_REFRESH_SECONDS:
        _jobs.ready = (now, compile_status.ready_count())
    return _jobs.ready[1]


def _kernels_of(kind: str) -> tuple[Kernel, ...]:
    return KERNELS if kind == "ALL" else tuple(kernel for kernel in KERNELS if kernel.spec.kind == kind)


def _redraw_preferences(context: bpy.types.Context) -> None:
    for window in context.window_manager.windows:
        for area in window.screen.areas:
            if area.type == "PREFERENCES":
                area.tag_redraw()


class NOISEWRIGHT_OT_precompile(bpy.types.Operator):
    """Compile the noise kernels of every kind and dimension now, in the background, so that their first use
    does not pause Blender"""

    bl_idname = "noisewright.precompile"
    bl_label = "Compile All Noise Kinds"

    kind: EnumProperty(  # type: ignore[valid-type]
        name="Kind",
        description="Which noise kinds to compile",
        items=KIND_ITEMS,
        default="ALL",
    )

    _timer = None

    @classmethod
    def poll(cls, context):
        if running_job() is not None:
            cls.poll_message_set("Noise kernels are being compiled")
            return False
        return True

    def execute(self, context):
        job = start_job(_kernels_of(self.kind))
        job.join()
        return self._finish(job)

    def invoke(self, context, event):
        if context.window is None:
            return self.execute(context)
        start_job(_kernels_of(self.kind))
        manager = context.window_manager
        self._timer = manager.event_timer_add(TIMER_SECONDS, window=context.window)
        manager.modal_handler_add(self)
        return {"RUNNING_MODAL"}

    def modal(self, context, event):
        job = _jobs.job
        if job is None:
            return {"CANCELLED"}
        if event.type == "ESC" and event.value == "PRESS":
            job.cancel()
            return {"RUNNING_MODAL"}
        if event.type == "TIMER":
            _redraw_preferences(context)
            if job.finished:
                context.window_manager.event_timer_remove(self._timer)
                return self._finish(job)
        return {"PASS_THROUGH"}

    def _finish(self, job: Precompile):
        _jobs.ready = None
        if job.error is not None:
            self.report({"ERROR"}, f"Compiling noise kernels failed after {job.done} of {job.total}: {job.error}")
            return {"CANCELLED"}
        if job.cancelled and job.done < job.total:
            self.report({"WARNING"}, f"Cancelled: {job.done} of {job.total} noise kernels compiled")
            return {"CANCELLED"}
        self.report({"INFO"}, f"{job.total} noise kernels ready ({job.seconds:.0f} s)")
        return {"FINISHED"}


class NOISEWRIGHT_OT_precompile_cancel(bpy.types.Operator):
    """Stop compiling noise kernels (after the one being compiled)"""

    bl_idname = "noisewright.precompile_cancel"
    bl_label = "Cancel"

    @classmethod
    def poll(cls, context):
        return running_job() is not None

    def execute(self, context):
        job = running_job()
        if job is not None:
            job.cancel()
        return {"FINISHED"}


class NoisewrightPreferences(bpy.types.AddonPreferences):
    bl_idname = __package__

    def draw(self, context):
        layout = self.layout
        column = layout.column()
        location = cache_location()
        if location is None:
            column.label(text="Compiled noise kernels cannot be cached: no writable folder", icon="ERROR")
            column.label(text="Every noise kind compiles again (seconds) in each Blender session")
        else:
            column.label(text="Compiled noise kernels are cached in:")
            column.label(text=location, icon="FILE_FOLDER")
        column.separator()
        column.label(text="Each noise kind compiles on first use (seconds; cellular 15-20 s), then loads from")
        column.label(text="the cache. Compile them all now, in the background, to avoid those pauses:")
        job = running_job()
        row = layout.row()
        if job is not None:
            row.progress(factor=job.done / max(job.total, 1), type="BAR", text=job.progress_text())
            row.operator(NOISEWRIGHT_OT_precompile_cancel.bl_idname, icon="CANCEL")
        else:
            row.operator(NOISEWRIGHT_OT_precompile.bl_idname, icon="PLAY")
            row.label(text=f"{ready_count()} of {len(KERNELS)} kernels ready")


CLASSES = (NOISEWRIGHT_OT_precompile, NOISEWRIGHT_OT_precompile_cancel, NoisewrightPreferences)
