"""Progress of long work through the window manager's progress indicator, and the first-use compile notice."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

import bpy

from .compile_status import announcing


def show_status(context: bpy.types.Context, text: str) -> None:
    """Show ``text`` in the status bar now (the operator keeps Blender busy, so force one redraw); printed in
    background mode."""
    if bpy.app.background or context.window is None:
        print(f"Noisewright: {text}", flush=True)
        return
    if context.workspace is not None:
        context.workspace.status_text_set(text)
    bpy.ops.wm.redraw_timer(type="DRAW_WIN_SWAP", iterations=1)  # needs a window: checked above


_worker = threading.local()
"""``check``: set on a job's worker thread (``on_worker``); ``stages``: set by ``staged``."""


def on_worker(check: Callable[[], None] | None) -> None:
    """Mark this thread as a job's worker (``check``: raises once the job is cancelled) or not (None): on a
    worker ``window_progress`` touches no Blender data, and its ``advance`` calls ``check()``, so nested work
    stops at its next chunk."""
    _worker.check = check


@contextmanager
def window_progress(context: bpy.types.Context, total: int) -> Iterator[Callable[[int], None]]:
    """Show progress from 0 to ``total``; yields ``advance(n)`` that moves it on by ``n``.

    Within the block an evaluation that compiles a kernel first says so in the status bar (cleared at the end).
    On a job's worker thread (``on_worker``) it shows nothing; ``advance`` checks for a cancel (and within
    ``staged`` moves the job's progress through its stage's share).
    """
    check = getattr(_worker, "check", None)
    if check is not None:
        yield _stage(total, check) or (lambda _count: check())
        return
    manager = context.window_manager
    done = 0
    announced = False

    def advance(count: int) -> None:
        nonlocal done
        done += count
        manager.progress_update(done)

    def announce(text: str) -> None:
        nonlocal announced
        announced = True
        show_status(context, text)

    manager.progress_begin(0, max(total, 1))
    try:
        with announcing(announce):
            yield advance
    finally:
        manager.progress_end()
        if announced and context.workspace is not None and not bpy.app.background:
            context.workspace.status_text_set(None)


def steps_of(advance: Callable[[int], None], steps: int | None = None) -> Callable[[int, int], None]:
    """A ``progress(done, total)`` for noise_core (``done`` monotone, of ``total``) that moves ``advance`` on as
    ``done`` grows, scaled to ``steps`` when given; it calls ``advance`` on each call (``advance(0)`` when
    nothing moved), so a job's cancel is seen there."""
    shown = 0

    def progress(done: int, total: int) -> None:
        nonlocal shown
        now = done if steps is None else steps * done // max(total, 1)
        advance(max(now - shown, 0))
        shown = max(shown, now)

    return progress


@contextmanager
def staged(advance: Callable[[int], None], steps: int, weights: Sequence[int]) -> Iterator[None]:
    """Within the block, on a job's worker (``on_worker``), the ``window_progress`` blocks opened one after
    another (the stages of some work: noise, then erosion, ...) move ``advance`` on, each through its share of
    ``steps`` (``weights``: the stages' shares, in order; stages beyond them only check for a cancel); at the
    block's end the rest of ``steps`` is advanced. Elsewhere (no worker) only that last advance is made."""
    total = max(sum(weights), 1)
    bounds = [steps * sum(weights[:k]) // total for k in range(len(weights) + 1)]
    state = {"stage": 0, "shown": 0}
    _worker.stages = (advance, bounds, state)
    try:
        yield
    finally:
        _worker.stages = None
    advance(steps - state["shown"])


def _stage(total: int, check: Callable[[], None]) -> Callable[[int], None] | None:
    """The ``advance`` of the next stage of ``staged`` for a ``window_progress`` of ``total`` (None outside
    ``staged``, or past its stages): ``check()``, then ``staged``'s ``advance`` moved on."""
    stages = getattr(_worker, "stages", None)
    if stages is None:
        return None
    advance, bounds, state = stages
    stage = state["stage"]
    state["stage"] += 1
    if stage + 1 >= len(bounds):
        return None
    low, high = bounds[stage], bounds[stage + 1]
    done = 0

    def moved(count: int) -> None:
        nonlocal done
        check()
        done += count
        now = max(low + (high - low) * min(done, total) // max(total, 1), state["shown"])
        advance(now - state["shown"])
        state["shown"] = now

    return moved
