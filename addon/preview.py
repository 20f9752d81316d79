"""The live preview: a SIZE x SIZE grey image of the current settings in a preview collection.

Panels call ``icon_for(spec, domain)`` while drawing. When the settings differ from the image shown, a
``jobs.Worker`` computes the new image in the background (the first use of a kind compiles its kernel, which may
take seconds, so the interface never waits for it; ``status`` says so meanwhile), and a timer on the main
thread copies the finished pixels into the preview and redraws. Nothing is computed at register time.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import cast

import bpy
import bpy.utils.previews
import numpy as np

from .compile_status import needs_compile, notice_text
from .errors import UserError
from .jobs import Worker
from .mapping import Domain
from .noise_core import NoiseSpec
from .noise_core.registry import KINDS
from .pixels import noise01_image, pixel_array, to_rgba

SIZE = 128
POLL_SECONDS = 0.05


def render(spec: NoiseSpec, domain: Domain) -> np.ndarray:
    """The preview's flat RGBA float32 pixels: the bake of ``spec`` at SIZE x SIZE, grayscale."""
    return to_rgba(noise01_image(spec, domain, SIZE, SIZE))


@dataclass
class _State:
    collection: bpy.utils.previews.ImagePreviewCollection | None = None
    wanted: Hashable = None
    shown: Hashable = None
    error: str = ""
    compiling: str = ""
    worker: Worker | None = None
    computing: Hashable = None
    """The key (spec, domain) the worker computes."""


_state = _State()


def _compute(key: tuple[NoiseSpec, Domain]) -> Callable[[Callable[[int], None]], np.ndarray]:
    """The worker's work for ``key``: no bpy there, only numpy and noise_core."""
    return lambda _advance: render(*key)


def _compile_notice(key: Hashable) -> str:
    """What the preview of ``key`` (spec, domain) waits for, if its kernel compiles first (float64 points)."""
    spec, domain = cast(tuple[NoiseSpec, Domain], key)
    if domain.dimensions in KINDS[spec.kind].dims and needs_compile(
        spec, domain.dimensions, lattice=domain.plane_is_lattice()
    ):
        return notice_text(spec.kind, domain.dimensions)
    return ""


def _collect() -> None:
    worker, _state.worker = _state.worker, None
    assert worker is not None  # called once it finished
    _state.compiling = ""
    if worker.error is not None and not isinstance(worker.error, UserError):
        raise worker.error  # a bug: raised here, on the main thread
    _state.shown = _state.computing
    _state.error = "" if worker.error is None else str(worker.error)
    if worker.error is None and _state.collection is not None:
        image = _state.collection.get("noise") or _state.collection.new("noise")
        image.image_size = (SIZE, SIZE)
        pixel_array(image, "image_pixels_float").foreach_set(worker.result)
    _redraw()


def _redraw() -> None:
    for window in bpy.context.window_manager.windows:
        for area in window.screen.areas:
            if area.type in ("VIEW_3D", "IMAGE_EDITOR"):
                area.tag_redraw()


def tick() -> float | None:
    """Timer: collect a finished image, start the next one if the settings changed; None when idle."""
    if _state.worker is not None:
        if not _state.worker.finished.is_set():
            return POLL_SECONDS
        _collect()
    if _state.wanted is not None and _state.wanted != _state.shown:
        _state.compiling = _compile_notice(_state.wanted)
        _state.computing = _state.wanted
        _state.worker = Worker(_compute(cast(tuple[NoiseSpec, Domain], _state.wanted)), 1).start()
        if _state.compiling:
            _redraw()
        return POLL_SECONDS
    return None


def request(spec: NoiseSpec, domain: Domain) -> None:
    """Ask for the preview of ``spec`` on ``domain`` (computed in the background)."""
    _state.wanted = (spec, domain)
    if _state.wanted != _state.shown and not bpy.app.timers.is_registered(tick):
        bpy.app.timers.register(tick, first_interval=0.0)


def icon_for(spec: NoiseSpec, domain: Domain) -> tuple[int, str]:
    """``(icon id or 0, error message)`` of the preview; requests it when the settings changed."""
    request(spec, domain)
    image = _state.collection.get("noise") if _state.collection is not None else None
    return (image.icon_id if image is not None else 0), _state.error


def status() -> str:
    """What the preview is waiting for ("Compiling cellular noise (3D) - first use only ..."), or ``""``."""
    return _state.compiling


def wait() -> None:
    """Block until the preview is up to date (scripts and tests, which have no event loop)."""
    while tick() is not None:
        if _state.worker is not None:
            _state.worker.finished.wait()
    if bpy.app.timers.is_registered(tick):
        bpy.app.timers.unregister(tick)


def preview_pixels() -> np.ndarray | None:
    """The pixels currently shown (flat RGBA float32), or None."""
    image = _state.collection.get("noise") if _state.collection is not None else None
    if image is None:
        return None
    pixels = np.empty(SIZE * SIZE * 4, dtype=np.float32)
    pixel_array(image, "image_pixels_float").foreach_get(pixels)
    return pixels


def attach() -> None:
    _state.collection = bpy.utils.previews.new()


def detach() -> None:
    global _state
    if _state.worker is not None:
        _state.worker.finished.wait()
    if bpy.app.timers.is_registered(tick):
        bpy.app.timers.unregister(tick)
    if _state.collection is not None:
        bpy.utils.previews.remove(_state.collection)
    _state = _State()


CLASSES: tuple[type, ...] = ()
