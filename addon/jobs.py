"""Long work that never freezes Blender: jobs.

A job is a ``Job`` record of three parts, made by a feature's ``*_job`` function, which reads what it needs from
Blender (main thread): ``compute(advance)`` does the work touching no Blender data, in a worker thread, calling
``advance(n)`` as it goes (``total`` in all); ``apply(result)`` writes the result (main thread). In the UI
(``JobOperator.invoke``) the operator stays modal while the worker runs: a timer shows the progress and the time
left in the status bar, **Esc** (or ``noisewright.cancel_job``) cancels, and the result is applied at once when
the worker is done, so it lands as the operator's one undo step. A cancel is cooperative: ``advance`` raises
``Cancelled`` in the worker, between batches of the work (a batch of droplets, a band of a map, a tile), and so does the
``advance`` of any ``progress.window_progress`` nested in the work (a chunk of noise), so it stops within one;
nothing was applied, so the scene is as it was; a failure is reported the same way. One job per object at a
time: another one on it is refused with a message. In background mode (``bpy.app.background``) and when run
from a script (``execute``), the same parts run in the foreground, progress printed (background) or shown.

``apply`` may instead return *steps*, an iterator of short pieces of main-thread work (filling an image,
renaming a set of files into place) that yields how far each moved the progress: the modal operator runs about
half a tick's worth per timer tick, so the window stays live, and **Esc** closes the steps between two of them
(their ``finally`` puts back what they changed); the operator finishes, as its one undo step, when they are
done. ``Stream`` makes items in a worker thread, a few ahead of the steps that use them (the frames of a loop).

``Worker`` (the thread, the cancel flag, progress and time left) touches no Blender data, so it is tested
directly (``tests/blender/test_jobs.py``); it is the add-on's one way to run work in the background (jobs, the
full rebuilds of Auto Refresh, the preview, compiling the kernels ahead of time).
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Generator, Sequence
from contextlib import closing
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import bpy

from .compile_status import announcing, listener
from .errors import UserError
from .noise_core.io.files import Staged
from .progress import on_worker, window_progress

CANCEL_WAIT = 0.5
"""Seconds a cancel waits for the worker to stop (it checks between batches)."""
TICK = 0.1
"""Seconds between two looks at a running job (the modal timer)."""

Compute = Callable[[Callable[[int], None]], Any]
Steps = Generator[int, None, Any]
"""``apply``'s steps: each piece of main-thread work yields how far it moved the progress."""
Apply = Callable[[Any], Any]
"""``apply(result)``: a generator it returns is its steps (``Steps``); anything else it returns is not looked at."""


@dataclass(frozen=True)
class Job:
    """Long work in parts: ``compute(advance)`` (any thread, touching no Blender data; ``advance(n)`` moves the
    progress on, ``total`` in all) and ``apply(result)`` (main thread; it may return steps, ``Steps``, and what
    they return, or else what it returns, is the job's outcome)."""

    compute: Compute
    apply: Apply
    total: int

    def run(self, advance: Callable[[int], None] = lambda _count: None) -> Any:
        """The parts one after another here, the progress moving ``advance`` (nothing shown); the outcome."""
        return drain(self.apply(self.compute(advance)), advance)


def steps_of(outcome: object) -> Steps | None:
    """``apply``'s outcome as steps: itself when it is a generator, else None."""
    return outcome if isinstance(outcome, Generator) else None


class Cancelled(Exception):
    """Raised by ``Worker.advance`` in the worker once the job is cancelled."""


class Worker:
    """Runs ``compute(advance)`` once (``start``: in a daemon thread; ``run``: here) and keeps its progress
    (``done`` of ``total``, monotone), ``result`` or ``error``; ``cancel()`` makes the next ``advance`` raise
    ``Cancelled``. Readable from any thread; touches no Blender data."""

    def __init__(self, compute: Compute, total: int, clock: Callable[[], float] = time.monotonic) -> None:
        self._compute = compute
        self.total = max(int(total), 1)
        self.done = 0
        self.result: Any = None
        self.error: BaseException | None = None
        self.finished = threading.Event()
        self.applying = False
        """True while a modal job runs ``apply``'s steps (the job is not over yet)."""
        self.notice = ""
        """A first-use compile the work is waiting for (``compile_status.notice_text``), "" once it moves on."""
        self._cancel = threading.Event()
        self._clock = clock
        self.started = clock()

    def advance(self, count: int) -> None:
        """Move the progress on by ``count``; ``Cancelled`` once the job is cancelled."""
        if self._cancel.is_set():
            raise Cancelled
        self.moved(count)

    def moved(self, count: int) -> None:
        """Move the progress on by ``count`` (never back, never past ``total``), cancelled or not; a move ends
        the ``notice``."""
        if count > 0:
            self.notice = ""
        self.done = min(self.total, self.done + max(int(count), 0))

    def announce(self, text: str) -> None:
        """A compile starts (``compile_status.announcing``'s listener): ``status`` says so until the next move."""
        self.notice = text

    def run(self) -> None:
        """Run ``compute`` here, keeping its result or the exception it raised."""
        on_worker(self.check)
        try:
            with announcing(self.announce):  # a first-use compile in the work: said in the status bar
                self.result = self._compute(self.advance)
        except BaseException as error:  # kept for the main thread, which reports it (a worker has no one else)
            self.error = error
        finally:
            on_worker(None)
            self.finished.set()

    def start(self) -> Worker:
        threading.Thread(target=self.run, name="noisewright-job", daemon=True).start()
        return self

    def cancel(self, wait: float = CANCEL_WAIT) -> bool:
        """Ask the worker to stop and wait up to ``wait`` seconds; whether it has stopped."""
        self._cancel.set()
        return self.finished.wait(wait)

    def check(self) -> None:
        """``Cancelled`` once the job is cancelled: the ``advance`` of a ``window_progress`` nested in the work."""
        self.advance(0)

    @property
    def cancelled(self) -> bool:
        return isinstance(self.error, Cancelled)

    @property
    def cancel_requested(self) -> bool:
        return self._cancel.is_set()

    @property
    def busy(self) -> bool:
        """Still computing, or its steps still running."""
        return not self.finished.is_set() or self.applying

    def time_left(self) -> float | None:
        """Seconds left at the pace so far (``None`` before any progress)."""
        if self.done <= 0:
            return None
        return (self._clock() - self.started) * (self.total - self.done) / self.done

    def status(self, label: str) -> str:
        """``"<label>: 42 %, about 7 s left (Esc to cancel)"``; while a compile runs, ``"<label>: 42 %,
        Compiling ... (Esc to cancel)"``; once cancelled, while the worker finishes a step it cannot cut,
        ``"<label>: cancelling"`` (``after this: Compiling ...`` during a compile)."""
        if self.cancel_requested:  # the worker finishes what it cannot cut (a compile) first
            return f"{label}: cancelling" + (f" after this: {self.notice}" if self.notice else "")
        if self.notice:
            return f"{label}: {100 * self.done // self.total} %, {self.notice} (Esc to cancel)"
        left = self.time_left()
        eta = (
            "" if left is None else f", about {left:.0f} s left" if left < 100 else f", about {left / 60:.0f} min left"
        )
        return f"{label}: {100 * self.done // self.total} %{eta} (Esc to cancel)"


_ACTIVE: dict[str, Worker] = {}
"""The running jobs, by the name of the object they work on."""


def claim(key: str, worker: Worker) -> None:
    """Register ``worker`` as the job on ``key``; ``UserError`` when one is running there already."""
    running = _ACTIVE.get(key)
    if running is not None and running.busy:
        raise UserError(f"{key!r}: a job is already running on it (wait for it or press Esc to cancel it)")
    _ACTIVE[key] = worker


def release(key: str, worker: Worker) -> None:
    if _ACTIVE.get(key) is worker:
        del _ACTIVE[key]


def running(key: str) -> Worker | None:
    """The job running on ``key``, if any."""
    worker = _ACTIVE.get(key)
    return worker if worker is not None and worker.busy else None


class Stream:
    """``produce(index, check)`` for ``index`` in ``range(count)``, in order, in a worker thread that keeps at most
    ``ahead`` items ready; ``get`` hands them out in order on the calling thread. ``check()`` raises ``Cancelled``
    once the stream is closed (``produce`` calls it between its own chunks); ``get`` raises what ``produce``
    raised. A first-use compile in ``produce`` is handed by ``get`` to the listener of the thread that made the
    stream (``compile_status.announcing``), on that thread. Touches no Blender data."""

    def __init__(self, produce: Callable[[int, Callable[[], None]], Any], count: int, ahead: int = 2) -> None:
        self._items: queue.Queue = queue.Queue(maxsize=max(int(ahead), 1))

        def compute(advance: Callable[[int], None]) -> None:
            for index in range(count):
                item = produce(index, lambda: advance(0))
                while True:  # wait for room, cancellable
                    advance(0)
                    try:
                        self._items.put(item, timeout=TICK)
                        break
                    except queue.Full:
                        continue
                advance(1)

        self._show, self._said = listener(), ""
        self._worker = Worker(compute, count).start()

    def get(self, timeout: float | None = None) -> Any:
        """The next item, waiting up to ``timeout`` seconds for it (``None``: as long as it takes); ``None`` when
        it is not ready yet. Raises the producer's error once its items are used up."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            notice = self._worker.notice
            if notice and notice != self._said and self._show is not None:
                self._said = notice
                self._show(notice)
            try:
                return self._items.get(timeout=TICK if deadline is None else max(deadline - time.monotonic(), 0.0))
            except queue.Empty:
                if self._worker.finished.is_set() and self._items.empty():
                    if self._worker.error is not None:
                        raise self._worker.error from None
                    raise LookupError("Stream.get: every item was handed out already") from None
                if deadline is not None and time.monotonic() >= deadline:
                    return None

    def close(self, wait: float = CANCEL_WAIT) -> None:
        """Stop the producer (it stops at its next ``check``), waiting up to ``wait`` seconds for it, and drop
        the items it made."""
        self._worker.cancel(wait)


def discard_files(result: object) -> None:
    """Discard the files (``noise_core.io.files.Staged``) a job's ``compute`` left in its ``result`` (a tuple) for
    ``apply`` to put in place, when ``apply`` will not run."""
    for item in result if isinstance(result, tuple) else (result,):
        if isinstance(item, Staged):
            item.discard()


def share(advance: Callable[[int], None], total: int) -> Callable[[int, int], None]:
    """``progress(done, of)`` (a ``noise_core`` function's report) as moves of ``advance``, ``total`` in all."""
    shown = [0]

    def progress(done: int, of: int) -> None:
        now = total * done // max(of, 1)
        advance(now - shown[0])
        shown[0] = max(shown[0], now)

    return progress


def drain(outcome: object, advance: Callable[[int], None]) -> Any:
    """Run ``apply``'s steps (when its ``outcome`` is a generator) here, one after another, moving the progress on
    by what each yields; an error closes them (their ``finally`` undoes what they did). The value the steps
    return (the ``outcome`` itself when it is not steps)."""
    steps = steps_of(outcome)
    if steps is None:
        return outcome
    with closing(steps):
        while True:
            try:
                count = next(steps)
            except StopIteration as stop:
                return stop.value
            advance(count)


def run_foreground(context: bpy.types.Context, label: str, job: Job) -> Any:
    """The ``job``'s parts one after another on this thread (background mode, scripts, redo): progress printed in
    background mode (every tenth), shown in the window otherwise; ``apply`` (and its steps) only when ``compute``
    succeeded. The job's outcome."""
    if bpy.app.background:
        worker = Worker(job.compute, job.total)
        shown = [-1]

        def printed(count: int) -> None:
            worker.advance(count)
            tenth = 10 * worker.done // worker.total
            if tenth > shown[0]:
                shown[0] = tenth
                print(f"Noisewright: {worker.status(label).split(' (')[0]}", flush=True)

        with announcing(lambda text: print(f"Noisewright: {text}", flush=True)):  # a compile says so first
            return job.run(printed)
    with window_progress(context, job.total) as advance:
        return job.run(advance)


if TYPE_CHECKING:  # the mix-in is an operator to a type checker (Blender wants mix-ins plain classes)
    _Operator = bpy.types.Operator
else:
    _Operator = object


class JobOperator(_Operator):
    """Mix-in for an operator whose work runs as a job. A subclass defines ``job_key(context)`` (the object's
    name) and ``prepare(context) -> Job`` (``UserError`` for bad input); its ``bl_label`` names the job.
    ``execute`` runs it in the foreground, ``invoke`` (the UI) as a job."""

    _worker: Worker | None = None
    _key = ""
    _apply: Apply | None = None
    _steps: Steps | None = None
    _timer = None

    def job_key(self, context: bpy.types.Context) -> str:
        raise NotImplementedError

    def prepare(self, context: bpy.types.Context) -> Job:
        raise NotImplementedError

    def execute(self, context):
        try:
            key = self.job_key(context)
            if running(key) is not None:
                raise UserError(f"{key!r}: a job is already running on it (wait for it or press Esc to cancel it)")
            run_foreground(context, self.bl_label, self.prepare(context))
        except UserError as error:
            self.report({"ERROR"}, str(error))
            return {"CANCELLED"}
        return {"FINISHED"}

    def invoke(self, context, _event):
        if bpy.app.background or context.window is None:
            return self.execute(context)
        return self.start_job(context)

    def start_job(self, context):
        """The UI's way (``invoke``): the worker started, the operator modal until it is done."""
        try:
            self._key = self.job_key(context)
            job = self.prepare(context)
            self._apply = job.apply
            worker = Worker(job.compute, job.total)
            claim(self._key, worker)
        except UserError as error:
            self.report({"ERROR"}, str(error))
            return {"CANCELLED"}
        self._steps = None
        self._worker = worker.start()
        manager = context.window_manager
        manager.progress_begin(0, worker.total)
        self._timer = manager.event_timer_add(TICK, window=context.window)
        manager.modal_handler_add(self)
        return {"RUNNING_MODAL"}

    def _end(self, context, worker: Worker) -> None:
        manager = context.window_manager
        manager.event_timer_remove(self._timer)
        manager.progress_end()
        if context.workspace is not None:
            context.workspace.status_text_set(None)
        worker.applying = False
        release(self._key, worker)

    def modal(self, context, event):
        worker, apply = self._worker, self._apply
        assert worker is not None and apply is not None  # set by invoke
        asked = worker.cancel_requested
        escape = (event.type == "ESC" and event.value == "PRESS") or asked
        if escape and not worker.finished.is_set():  # the first time, wait a little for the worker; then only look
            worker.cancel(0.0 if asked else CANCEL_WAIT)
        if not worker.finished.is_set() or (self._steps is not None and event.type != "TIMER" and not escape):
            if event.type == "TIMER":
                context.window_manager.progress_update(worker.done)
                if context.workspace is not None:
                    context.workspace.status_text_set(worker.status(self.bl_label))
            return {"PASS_THROUGH"}
        if worker.cancelled or (self._steps is not None and escape):
            try:
                if self._steps is not None:
                    self._steps.close()  # its finally puts back what the steps did so far
            finally:
                self._end(context, worker)
            self.report({"WARNING"}, f"{self.bl_label}: cancelled; nothing was changed")
            return {"CANCELLED"}
        try:
            with announcing(worker.announce):  # a compile in the steps' work (a loop's frames): said too
                if self._steps is None:
                    if worker.error is not None:
                        raise worker.error
                    self._steps = steps_of(apply(worker.result))
                    worker.applying = self._steps is not None
                stepping = self._steps is not None and not self._step(worker)
            if stepping:
                context.window_manager.progress_update(worker.done)
                if context.workspace is not None:
                    context.workspace.status_text_set(worker.status(self.bl_label))
                return {"PASS_THROUGH"}
        except UserError as error:
            self._end(context, worker)
            self.report({"ERROR"}, str(error))
            return {"CANCELLED"}
        except BaseException:  # a bug: raised here, with its traceback, nothing applied
            self._end(context, worker)
            raise
        self._end(context, worker)
        return {"FINISHED"}

    def cancel(self, context):
        """Blender drops the running operator (a file loaded, the window closed): the work is cancelled, the steps
        so far undone, and the files a worker that already finished encoded are discarded (``discard_files``)."""
        worker = self._worker
        if worker is None or _ACTIVE.get(self._key) is not worker:  # not started, or ended (``_end`` released it)
            return
        worker.cancel(0.0)
        try:
            if self._steps is not None:
                self._steps.close()
            else:

                def discard(_advance: Callable[[int], None]) -> None:  # a worker past its last check returns files
                    worker.finished.wait()
                    discard_files(worker.result)

                Worker(discard, 1).start()
        finally:
            self._end(context, worker)

    def _step(self, worker: Worker) -> bool:
        """Run apply's steps for about half a tick; whether they are all done."""
        assert self._steps is not None
        began = time.monotonic()
        while True:
            count = next(self._steps, None)
            if count is None:
                return True
            worker.moved(count)
            if time.monotonic() - began >= TICK / 2:
                return False


class NOISEWRIGHT_OT_cancel_job(bpy.types.Operator):
    """Cancel a running job: the one on ``key`` (an object's name, or ``image <name>`` for an image), or on the
    active object when ``key`` is empty"""

    bl_idname = "noisewright.cancel_job"
    bl_label = "Cancel Job"
    bl_options = {"INTERNAL"}

    __annotations__ = {
        "key": bpy.props.StringProperty(  # type: ignore[func-returns-value]
            name="Job", description="The job's key (empty: the active object's job)", options={"SKIP_SAVE"}
        )
    }
    if TYPE_CHECKING:
        key: str

    @classmethod
    def poll(cls, _context):
        return bool(running_keys())

    def execute(self, context):
        key = self.key or getattr(context.active_object, "name", "")
        worker = running(key)
        if worker is None:
            self.report({"ERROR"}, f"key: no job is running on {key!r}")
            return {"CANCELLED"}
        worker.cancel()
        return {"FINISHED"}


def running_keys(prefix: str = "") -> list[str]:
    """The keys of the running jobs (those starting with ``prefix``), sorted."""
    return sorted(key for key in _ACTIVE if key.startswith(prefix) and running(key) is not None)


def draw_cancel(layout: bpy.types.UILayout, keys: Sequence[str]) -> None:
    """A Cancel button (``noisewright.cancel_job``) for each job running on one of ``keys``."""
    for key in keys:
        if running(key) is not None:
            button = layout.operator(NOISEWRIGHT_OT_cancel_job.bl_idname, text=f"Cancel ({key})", icon="CANCEL")
            button.key = key


CLASSES = (NOISEWRIGHT_OT_cancel_job,)
