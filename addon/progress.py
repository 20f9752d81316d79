"""Progress of long work through the window manager's progress indicator, and the first-use compile notice."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
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
"""``check``: set on a job's worker thread (``on_worker``)."""


def on_worker(check: Callable[[], None] | None) -> None:
    """Mark this thread as a job's worker (``check``: raises once the job is cancelled) or not (None): on a
    worker ``window_progress`` touches no Blender data, and its ``advance`` calls ``check()``, so nested work
    stops at its next chunk."""
    _worker.check = check


@contextmanager
def window_progress(context: bpy.types.Context, total: int) -> Iterator[Callable[[int], None]]:
    """Show progress from 0 to ``total``; yields ``advance(n)`` that moves it on by ``n``.

    Within the block an evaluation that compiles a kernel first says so in the status bar (cleared at the end).
    On a job's worker thread (``on_worker``) it shows nothing; ``advance`` only checks for a cancel.
    """
    check = getattr(_worker, "check", None)
    if check is not None:
        yield lambda _count: check()
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
