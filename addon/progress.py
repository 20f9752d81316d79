"""Progress of long work through the window manager's progress indicator."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import bpy


@contextmanager
def window_progress(context: bpy.types.Context, total: int) -> Iterator[Callable[[int], None]]:
    """Show progress from 0 to ``total``; yields ``advance(n)`` that moves it on by ``n``."""
    manager = context.window_manager
    done = 0

    def advance(count: int) -> None:
        nonlocal done
        done += count
        manager.progress_update(done)

    manager.progress_begin(0, max(total, 1))
    try:
        yield advance
    finally:
        manager.progress_end()
