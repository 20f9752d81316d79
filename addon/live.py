"""Live terrains: a Noise Terrain rebuilds itself when one of its settings changes.

Every property of a terrain's settings (``TerrainSettings``: grid, ``noise``, ``erosion``) gets an update
callback (``make_live``, before the classes are registered). A change to a terrain whose *Auto Refresh* is on
(``TerrainSettings.auto_refresh``, on by default) runs ``terrain.regenerate_terrain``, the function Regenerate
runs, so the mesh is bit for bit what Regenerate builds:

* in the UI, the object is marked and one ``bpy.app.timers`` callback is scheduled for the burst of changes (a
  dragged slider sends many): it rebuilds each marked terrain once, when Blender is next idle; a terrain with
  hydraulic erosion on is first previewed with 1/``PREVIEW_SHARE`` of its droplets (said in the status bar) and
  rebuilt in full once no change came for ``SETTLE`` seconds;
* in background mode (``bpy.app.background``: scripts, no window), at once, before the assignment returns.

Settings of the scene and of operators (the same property groups, owned by something other than a terrain)
change nothing. A terrain with an erosion job running (``jobs``) is left alone. A setting that makes the
terrain invalid (a bad option) is reported on the console and the mesh stays as it was.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import bpy
import numpy as np

from . import jobs, mesh_io
from .errors import UserError

PREVIEW_SHARE = 8
"""While settings change in the UI, a terrain with erosion on is rebuilt with 1/``PREVIEW_SHARE`` of its
droplets (a preview, said in the status bar), then in full once no change came for ``SETTLE`` seconds."""
SETTLE = 0.4

_PENDING: set[str] = set()
"""Names of the terrains to rebuild at the next timer callback (UI)."""
_PREVIEWED: dict[str, float] = {}
"""Terrains shown as a preview, with the time of their last change: rebuilt in full when they settle."""


def in_background() -> bool:
    """Whether Blender runs without a window (changes rebuild at once)."""
    return bool(bpy.app.background)


def refresh_now(obj: bpy.types.Object) -> bool:
    """Rebuild the live terrain ``obj`` now, unless Auto Refresh is off, it is in Edit Mode or has a job
    running; whether it was rebuilt. A ``UserError`` (invalid settings) is printed; the mesh then stays."""
    from .terrain import is_terrain, regenerate_terrain

    if not is_terrain(obj) or not obj.noisewright_terrain.auto_refresh or obj.mode == "EDIT":  # type: ignore[attr-defined]
        return False
    if jobs.running(obj.name) is not None:
        return False
    try:
        regenerate_terrain(bpy.context, obj)
    except UserError as error:
        print(f"Noisewright: Auto Refresh of {obj.name!r}: {error}", flush=True)
        return False
    return True


def preview_now(obj: bpy.types.Object) -> bool:
    """Rebuild the live terrain ``obj`` with 1/``PREVIEW_SHARE`` of its droplets, when its hydraulic erosion is
    on and its grid is unchanged; whether it did (otherwise nothing changed)."""
    from .terrain import grid_positions, is_terrain, recall, terrain_heights, write_maps

    if not is_terrain(obj) or not obj.noisewright_terrain.auto_refresh or obj.mode == "EDIT":  # type: ignore[attr-defined]
        return False
    if jobs.running(obj.name) is not None:
        return False
    try:
        spec, domain, shape, hydraulic, thermal, fluvial = recall(obj)
        if hydraulic is None:
            return False
        cells = (shape["x_subdivisions"] + 1) * (shape["y_subdivisions"] + 1)
        droplets = hydraulic["droplets"] or round(hydraulic["droplet_density"] * cells)
        fewer = {**hydraulic, "droplets": max(1, droplets // PREVIEW_SHARE)}
        heights, masks = terrain_heights(bpy.context, spec, domain, shape, fewer, thermal, fluvial)
    except UserError as error:
        print(f"Noisewright: Auto Refresh of {obj.name!r}: {error}", flush=True)
        return False
    mesh = mesh_io.mesh_of(obj)
    if len(mesh.vertices) != heights.shape[0]:
        return False
    grid = (shape["x_subdivisions"], shape["y_subdivisions"], shape["size"])
    mesh_io.write_positions(mesh, grid_positions(*grid, heights, np.float32))
    write_maps(mesh, masks)
    mesh.update()
    return True


def _say(text: str | None) -> None:
    for window in bpy.context.window_manager.windows:
        window.workspace.status_text_set(text)


def _flush() -> None:
    """The timer callback: rebuild each terrain changed since the last one, once (a preview when it has
    erosion: the full one follows when it settles)."""
    names = sorted(_PENDING)
    _PENDING.clear()
    for name in names:
        obj = bpy.data.objects.get(name)
        if obj is None:
            continue
        if preview_now(obj):
            _PREVIEWED[name] = time.monotonic()
            _say(f"{name}: preview with 1/{PREVIEW_SHARE} of the droplets; the full terrain follows")
        else:
            _PREVIEWED.pop(name, None)
            refresh_now(obj)
    if _PREVIEWED and not bpy.app.timers.is_registered(_settle):
        bpy.app.timers.register(_settle, first_interval=SETTLE)


def _settle() -> float | None:
    """The timer callback after previews: the terrains with no change for ``SETTLE`` seconds rebuilt in full."""
    now = time.monotonic()
    for name, changed_at in sorted(_PREVIEWED.items()):
        if now - changed_at >= SETTLE and name not in _PENDING:
            del _PREVIEWED[name]
            obj = bpy.data.objects.get(name)
            if obj is not None:
                refresh_now(obj)
    if not _PREVIEWED:
        _say(None)
        return None
    return SETTLE


def changed(settings: Any, _context: Any = None) -> None:
    """The update callback of every terrain setting: ``settings`` is the changed property group."""
    owner = getattr(settings, "id_data", None)
    if not isinstance(owner, bpy.types.Object) or owner.type != "MESH":
        return
    terrain = owner.noisewright_terrain  # type: ignore[attr-defined]
    if not terrain.is_terrain or not terrain.auto_refresh:
        return
    if in_background():
        refresh_now(owner)
        return
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


def flush(settle: bool = False) -> None:
    """Run the waiting rebuilds now (for tests and scripts that drive the UI path); ``settle``: then the full
    rebuilds of the previews, as if no change came for ``SETTLE`` seconds."""
    if bpy.app.timers.is_registered(_flush):
        bpy.app.timers.unregister(_flush)
    _flush()
    if settle:
        if bpy.app.timers.is_registered(_settle):
            bpy.app.timers.unregister(_settle)
        for name in _PREVIEWED:
            _PREVIEWED[name] = -SETTLE
        _settle()


def attach_callbacks() -> None:
    """``make_live`` on the terrain's property groups (before registration)."""
    from .erode_fluvial import FluvialSettings
    from .properties import ErosionSettings, NoiseSettings
    from .terrain import TerrainSettings

    make_live(TerrainSettings, skip=("is_terrain",))
    make_live(NoiseSettings)
    make_live(ErosionSettings)
    make_live(FluvialSettings)
