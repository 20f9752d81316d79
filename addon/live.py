"""Live terrains: a Noise Terrain rebuilds itself when one of its settings changes.

Every property of a terrain's settings (``TerrainSettings``: grid, ``noise``, ``erosion``) gets an update
callback (``make_live``, before the classes are registered). A change to a terrain whose *Auto Refresh* is on
(``TerrainSettings.auto_refresh``, on by default) runs ``terrain.regenerate_terrain``, the function Regenerate
runs, so the mesh is bit for bit what Regenerate builds:

* in the UI, the object is marked and one ``bpy.app.timers`` callback is scheduled for the burst of changes (a
  dragged slider sends many): it rebuilds each marked terrain once, when Blender is next idle. A terrain whose
  full rebuild would not fit a frame (``live_preview.preview_plan``: hydraulic erosion on, or a grid of more
  than ``FRAME_VERTICES`` vertices) is previewed instead, with 1/``PREVIEW_SHARE`` of its droplets and/or on a
  grid of every ``step``-th row and column (said in the status bar and the panel). Once no change came for
  ``SETTLE`` seconds (the release) the previews are rebuilt in full, as jobs (``in_a_job``: the heights made
  on a worker thread, ``terrain.regenerate_job``, written on the main thread by the ``_watch`` timer; the
  preview stays meanwhile, a new change cancels the job and starts over, Esc cancels it and leaves the
  preview); the rebuilds since the last undo step are pushed as one undo step of their own (a timer runs
  outside any operator, so nothing else would);
* in background mode (``bpy.app.background``: scripts, no window), at once and in full, before the
  assignment returns.

Settings of the scene and of operators (the same property groups, owned by something other than a terrain)
change nothing. A terrain with a job running (``jobs``: erosion, terrain maps, an export) is left alone. A
setting that makes the terrain invalid (a bad option) is reported on the console and the mesh stays as it was.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial
from typing import Any

import bpy

from . import jobs
from .erode_fluvial import FluvialSettings
from .errors import UserError
from .live_preview import Preview, build_preview, droplets, in_a_job
from .properties import ErosionSettings, NoiseSettings
from .terrain import BEFORE_REGENERATE, regenerate_job, regenerate_terrain
from .terrain_settings import TerrainSettings, is_held, is_terrain, recall

SETTLE = 0.4
"""Seconds without a change after which the previews are rebuilt in full (the release of a dragged slider)."""
_PENDING: set[str] = set()
"""Names of the terrains to rebuild at the next timer callback (UI)."""
_PREVIEWED: dict[str, float] = {}
"""Terrains shown as a preview, with the time of their last change: rebuilt in full when they settle."""
_UNSAVED: dict[str, float] = {}
"""Terrains rebuilt in full since the last undo step, with the time of their last change: a timer runs outside
any operator, so ``_settle`` pushes their undo step once they settle (not one per redraw of a dragged slider)."""
_SAID: dict[str, str] = {}
"""What each previewed terrain's panel says (``previewing``)."""
_REBUILDS: dict[str, tuple[jobs.Worker, jobs.Job]] = {}
"""The full rebuilds running as jobs (``start_rebuild``), by terrain: the worker computing the job, and the job."""
_KEPT: set[str] = set()
"""Terrains whose full rebuild was cancelled (Esc): the preview stays, the panel says so, until the next change."""


def in_background() -> bool:
    """Whether Blender runs without a window (changes rebuild at once)."""
    return bool(bpy.app.background)


def _live(obj: bpy.types.Object) -> bool:
    """Whether a change rebuilds ``obj``: a Noise Terrain with Auto Refresh on, not in Edit Mode, no job on it."""
    if not is_terrain(obj) or not obj.noisewright_terrain.auto_refresh or obj.mode == "EDIT":  # type: ignore[attr-defined]
        return False
    return jobs.running(obj.name) is None


def _failed(name: str, error: BaseException) -> None:
    """Why the terrain ``name`` was not rebuilt (invalid settings: the mesh stays), on the console."""
    print(f"Noisewright: Auto Refresh of {name!r}: {error}", flush=True)


def refresh_now(obj: bpy.types.Object) -> bool:
    """Rebuild the live terrain ``obj`` now, unless Auto Refresh is off, it is in Edit Mode or has a job
    running; whether it was rebuilt. A ``UserError`` (invalid settings) is printed; the mesh then stays."""
    if not _live(obj):
        return False
    try:
        regenerate_terrain(bpy.context, obj)
    except UserError as error:
        _failed(obj.name, error)
        return False
    return True


def rebuild(obj: bpy.types.Object) -> str:
    """Rebuild the live terrain ``obj`` in full: as a job when ``in_a_job`` says so (``start_rebuild``:
    ``"started"``), else now (``refresh_now``: ``"rebuilt"``); ``""`` when nothing was done."""
    if not _live(obj):
        return ""
    try:
        recipe = recall(obj)
    except UserError as error:
        _failed(obj.name, error)
        return ""
    shape = recipe.shape
    if in_a_job(shape["x_subdivisions"], shape["y_subdivisions"], droplets(recipe), in_background()):
        return "started" if start_rebuild(obj) else ""
    return "rebuilt" if refresh_now(obj) else ""


def preview_now(obj: bpy.types.Object) -> Preview | None:
    """Rebuild the live terrain ``obj`` as a preview (``live_preview.build_preview``) when its full rebuild would
    not fit a frame; the ``Preview`` it made, or None (then nothing changed: not live, or invalid settings,
    printed)."""
    if not _live(obj):
        return None
    try:
        return build_preview(obj, recall(obj))
    except UserError as error:
        _failed(obj.name, error)
        return None


def _say(text: str | None) -> None:
    """``text`` in the status bar (None clears it); the panels redrawn (they show ``previewing``)."""
    for window in bpy.context.window_manager.windows:
        window.workspace.status_text_set(text)
        for area in window.screen.areas:
            area.tag_redraw()


def previewing(name: str) -> str:
    """What the panel says of the terrain ``name`` while it shows a preview ("" when it does not)."""
    return _SAID.get(name, "") if name in _PREVIEWED or name in _REBUILDS or name in _KEPT else ""


def start_rebuild(obj: bpy.types.Object) -> bool:
    """Start the full rebuild of the live terrain ``obj`` as a job: ``terrain.regenerate_job``'s heights made on a
    worker thread, written on the main thread by the ``_watch`` timer (then one undo step); whether it started
    (not when ``refresh_now`` would not rebuild, or its settings are invalid: printed). The job is ``obj``'s
    (``jobs.running``: no other job starts on it meanwhile); ``cancel`` or a new change stops it."""
    if not _live(obj):
        return False
    try:
        job = regenerate_job(bpy.context, obj)
    except UserError as error:
        _failed(obj.name, error)
        return False
    worker = jobs.Worker(job.compute, job.total)
    jobs.claim(obj.name, worker)
    _REBUILDS[obj.name] = (worker, job)
    worker.start()
    if not bpy.app.timers.is_registered(_watch):
        bpy.app.timers.register(_watch, first_interval=jobs.TICK)
    _watch_escape()
    return True


def cancel(name: str | None = None, wait: float = 0.0) -> None:
    """Stop the full rebuild running as a job on the terrain ``name`` (None: all of them), as Esc does; the
    worker is given ``wait`` seconds to stop. Nothing is written: the preview stays (``_watch`` says so)."""
    for key, (worker, _job) in list(_REBUILDS.items()):
        if name is None or key == name:
            worker.cancel(wait)


def forget(name: str) -> None:
    """Forget the job rebuilding ``name`` (a new change starts over, Regenerate builds it now): cancelled, its
    result never written; a kept preview no longer said."""
    entry = _REBUILDS.pop(name, None)
    if entry is not None:
        entry[0].cancel(0.0)
        jobs.release(name, entry[0])
    _KEPT.discard(name)


def _raise(error: BaseException) -> None:
    raise error


def _watch() -> float | None:
    """The timer callback while full rebuilds run as jobs: each one done is written (``apply``, main thread) and
    the rebuilds pushed as one undo step; a cancelled one leaves the preview (said in the panel); invalid
    settings are printed, as ``refresh_now`` does; a bug is raised (a timer of its own, so this one goes on)."""
    rebuilt = []
    for name, (worker, job) in sorted(_REBUILDS.items()):
        if not worker.finished.is_set():
            continue
        del _REBUILDS[name]
        jobs.release(name, worker)
        if worker.cancelled:
            _KEPT.add(name)
            _SAID[name] = f"{name}: the full rebuild was cancelled; the preview stays (Regenerate builds it)"
        elif worker.error is not None and not isinstance(worker.error, UserError):
            bpy.app.timers.register(partial(_raise, worker.error))  # a bug: its traceback, from a timer of its own
        elif worker.error is not None:
            _failed(name, worker.error)
        else:
            try:
                job.apply(worker.result)
            except UserError as error:
                _failed(name, error)
            else:
                _SAID.pop(name, None)
                rebuilt.append(name)
    if rebuilt and bpy.ops.ed.undo_push.poll():  # type: ignore[call-arg]  # (the stubs want a context)
        bpy.ops.ed.undo_push(message=f"Auto Refresh {', '.join(rebuilt)}")
    if _REBUILDS:
        name, (worker, _job) = min(_REBUILDS.items())
        _say(worker.status(f"Auto Refresh: building {name} in full"))  # percent and time left
    elif not _PREVIEWED:
        _say(None)
    return jobs.TICK if _REBUILDS else None


def wait(timeout: float = 600.0) -> None:
    """Wait for the full rebuilds running as jobs and write them (``_watch``), for tests and scripts; ``TimeoutError``
    after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    for worker, _job in list(_REBUILDS.values()):
        if not worker.finished.wait(max(deadline - time.monotonic(), 0.0)):
            raise TimeoutError(f"Auto Refresh: a full rebuild still runs after {timeout} s")
    if bpy.app.timers.is_registered(_watch):
        bpy.app.timers.unregister(_watch)
    _watch()


_ESCAPE: list[bpy.types.Operator] = []
"""The ``NOISEWRIGHT_OT_live_escape`` running (at most one)."""


def _watch_escape() -> None:
    """Start ``NOISEWRIGHT_OT_live_escape`` (Esc cancels the rebuilds) in the first window, unless it runs."""
    windows = bpy.context.window_manager.windows
    if _ESCAPE or bpy.app.background or not len(windows):  # (not in_background: tests drive the UI path with it)
        return
    with bpy.context.temp_override(window=windows[0]):
        bpy.ops.noisewright.live_escape("INVOKE_DEFAULT")  # type: ignore[attr-defined]


class NOISEWRIGHT_OT_live_escape(bpy.types.Operator):
    """Esc cancels the full rebuilds Auto Refresh runs as jobs (the previews stay)"""

    bl_idname = "noisewright.live_escape"
    bl_label = "Auto Refresh"
    bl_options = {"INTERNAL"}

    def invoke(self, context, _event):
        _ESCAPE.append(self)
        context.window_manager.modal_handler_add(self)
        return {"RUNNING_MODAL"}

    def modal(self, _context, event):
        if not _REBUILDS:
            _ESCAPE.clear()
            return {"CANCELLED"}  # nothing to undo: it changed nothing
        if event.type == "ESC" and event.value == "PRESS":
            cancel()
        return {"PASS_THROUGH"}  # every event goes on as if this were not here

    def cancel(self, _context):
        _ESCAPE.clear()  # Blender ended it (a file loaded, the window closed)


def _flush() -> None:
    """The timer callback: rebuild each terrain changed since the last one, once (a preview when its full
    rebuild would not fit a frame: the full one follows when it settles)."""
    names = sorted(_PENDING)
    _PENDING.clear()
    now = time.monotonic()
    for name in names:
        obj = bpy.data.objects.get(name)
        if obj is None:
            continue
        plan = preview_now(obj)
        if plan is not None:
            _PREVIEWED[name] = now
            _SAID[name] = plan.describe(name)
            _say(_SAID[name])
        else:
            _PREVIEWED.pop(name, None)
            if rebuild(obj) == "rebuilt":
                _UNSAVED[name] = now
    if (_PREVIEWED or _UNSAVED) and not bpy.app.timers.is_registered(_settle):
        bpy.app.timers.register(_settle, first_interval=SETTLE)


def _settle() -> float | None:
    """The timer callback once changes stop: the previews with no change for ``SETTLE`` seconds rebuilt in full
    (``rebuild``: in the UI as jobs, the preview shown meanwhile), and the rebuilds since the last undo step
    pushed as one."""
    now = time.monotonic()
    rebuilt = []
    for name, changed_at in sorted(_PREVIEWED.items()):
        if now - changed_at >= SETTLE and name not in _PENDING:
            del _PREVIEWED[name]
            obj = bpy.data.objects.get(name)
            how = "" if obj is None else rebuild(obj)
            if how != "started":
                _SAID.pop(name, None)
            if how == "rebuilt":
                rebuilt.append(name)
    for name, changed_at in sorted(_UNSAVED.items()):
        if now - changed_at >= SETTLE and name not in _PENDING:
            del _UNSAVED[name]
            rebuilt.append(name)
    if rebuilt and bpy.ops.ed.undo_push.poll():  # type: ignore[call-arg]  # (the stubs want a context)
        bpy.ops.ed.undo_push(message=f"Auto Refresh {', '.join(sorted(set(rebuilt)))}")
    if not _PREVIEWED and not _REBUILDS:
        _say(None)
    return SETTLE if _PREVIEWED or _UNSAVED else None


def changed(settings: Any, _context: Any = None) -> None:
    """The update callback of every terrain setting: ``settings`` is the changed property group."""
    owner = getattr(settings, "id_data", None)
    if not isinstance(owner, bpy.types.Object) or owner.type != "MESH":
        return
    terrain = owner.noisewright_terrain  # type: ignore[attr-defined]
    if not terrain.is_terrain or not terrain.auto_refresh or is_held(owner):
        return  # not live, or its settings are being written as a whole (``terrain_settings.held``)
    if in_background():
        refresh_now(owner)
        return
    forget(owner.name)  # a full rebuild running as a job: cancelled, started over once this change settles
    _PENDING.add(owner.name)
    if not bpy.app.timers.is_registered(_flush):
        bpy.app.timers.register(_flush, first_interval=0.0)


def _chained(update: Callable | None) -> Callable:
    if update is None:
        return changed

    def both(settings: Any, context: Any) -> None:
        update(settings, context)
        changed(settings, context)

    return both


def make_live(cls: type, skip: tuple[str, ...] = ()) -> None:
    """Give every property in ``cls.__annotations__`` (but ``skip`` and pointers) the update callback
    ``changed``, after any it has (once per class); call before ``cls`` is registered."""
    if cls.__dict__.get("_live", False):
        return
    cls._live = True  # type: ignore[attr-defined]
    for name, prop in list(cls.__annotations__.items()):
        function = getattr(prop, "function", None)
        if name in skip or function is None or function is bpy.props.PointerProperty:
            continue
        cls.__annotations__[name] = function(**{**prop.keywords, "update": _chained(prop.keywords.get("update"))})


def pending() -> set[str]:
    """The terrains waiting for the timer (for tests)."""
    return set(_PENDING)


def flush(settle: bool = False, finish: bool = True) -> None:
    """Run the waiting rebuilds now (for tests and scripts that drive the UI path); ``settle``: then the full
    rebuilds of the previews, as if no change came for ``SETTLE`` seconds; ``finish``: then wait for the full
    rebuilds running as jobs and write them (``wait``)."""
    if bpy.app.timers.is_registered(_flush):
        bpy.app.timers.unregister(_flush)
    _flush()
    if settle:
        if bpy.app.timers.is_registered(_settle):
            bpy.app.timers.unregister(_settle)
        for waiting in (_PREVIEWED, _UNSAVED):
            for name in waiting:
                waiting[name] = -SETTLE
        _settle()
    if finish:
        wait()


@bpy.app.handlers.persistent
def _loading(*_arguments: Any) -> None:
    """Before another file loads: the rebuilds running as jobs cancelled, and what waits forgotten (its terrains
    are the old file's)."""
    for name in list(_REBUILDS):
        forget(name)
    for waiting in (_PENDING, _PREVIEWED, _UNSAVED, _SAID, _KEPT):
        waiting.clear()


def detach() -> None:
    """The add-on is disabled: the rebuilds running as jobs cancelled (``_loading``), its handler removed."""
    _loading()
    if _loading in bpy.app.handlers.load_pre:
        bpy.app.handlers.load_pre.remove(_loading)
    if forget in BEFORE_REGENERATE:
        BEFORE_REGENERATE.remove(forget)


def attach_callbacks() -> None:
    """``make_live`` on the terrain's property groups (before registration); ``_loading`` before a file loads;
    ``forget`` before Regenerate."""
    if forget not in BEFORE_REGENERATE:
        BEFORE_REGENERATE.append(forget)
    if _loading not in bpy.app.handlers.load_pre:
        bpy.app.handlers.load_pre.append(_loading)

    make_live(TerrainSettings, skip=("is_terrain", "applied_stages", "unreplayable"))
    make_live(NoiseSettings)
    make_live(ErosionSettings)
    make_live(FluvialSettings)


CLASSES = (NOISEWRIGHT_OT_live_escape,)
