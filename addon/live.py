"""Live terrains: a Noise Terrain rebuilds itself when one of its settings changes.

Every property of a terrain's settings (``TerrainSettings``: grid, ``noise``, ``erosion``) gets an update
callback (``make_live``, before the classes are registered). A change to a terrain whose *Auto Refresh* is on
(``TerrainSettings.auto_refresh``, on by default) runs ``terrain.regenerate_terrain``, the function Regenerate
runs, so the mesh is bit for bit what Regenerate builds:

* in the UI, the object is marked and one ``bpy.app.timers`` callback is scheduled for the burst of changes (a
  dragged slider sends many): it rebuilds each marked terrain once, when Blender is next idle. A terrain whose
  full rebuild would not fit a frame (``preview_plan``: hydraulic erosion on, or a grid of more than
  ``FRAME_VERTICES`` vertices) is previewed instead, with 1/``PREVIEW_SHARE`` of its droplets and/or on a
  grid of every ``step``-th row and column (said in the status bar and the panel). Once no change came for
  ``SETTLE`` seconds (the release) the previews are rebuilt in full and the rebuilds pushed as one undo step
  of their own (a timer runs outside any operator, so nothing else would);
* in background mode (``bpy.app.background``: scripts, no window), at once and in full, before the
  assignment returns.

Settings of the scene and of operators (the same property groups, owned by something other than a terrain)
change nothing. A terrain with a job running (``jobs``: erosion, terrain maps, an export) is left alone. A
setting that makes the terrain invalid (a bad option) is reported on the console and the mesh stays as it was.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import bpy
import numpy as np

from . import jobs, mesh_io
from .erode_fluvial import FLOW_ATTRIBUTES
from .erosion_io import MASKS
from .errors import UserError

PREVIEW_SHARE = 8
"""While settings change in the UI, a terrain with erosion on is rebuilt with 1/``PREVIEW_SHARE`` of its
droplets (a preview, said in the status bar), then in full once no change came for ``SETTLE`` seconds."""
SETTLE = 0.4
FRAME_VERTICES = 1025 * 1025
"""The largest grid rebuilt in full while its settings change (Regenerate of 1024² takes about 40 ms on an idle
2-core machine, ``docs/benchmarks.md``); a larger one is previewed on a grid of every ``step``-th row and
column, ``step`` the smallest power of two that brings it under this."""


@dataclass(frozen=True)
class Preview:
    """How a terrain is previewed while its settings change (``preview_plan``): on ``x_subdivisions`` x
    ``y_subdivisions`` faces (``step`` > 1: every ``step``-th row and column of its grid) with ``droplets``
    hydraulic droplets (None: no hydraulic erosion)."""

    step: int
    x_subdivisions: int
    y_subdivisions: int
    droplets: int | None

    def describe(self, name: str) -> str:
        """What the status bar and the panel say."""
        parts = []
        if self.step > 1:
            parts.append(f"{self.x_subdivisions} x {self.y_subdivisions} faces (1/{self.step} resolution)")
        if self.droplets is not None:
            parts.append(f"{self.droplets} droplets (1/{PREVIEW_SHARE})")
        return f"{name}: preview on {' with '.join(parts)}; the full terrain follows"


def preview_plan(x_subdivisions: int, y_subdivisions: int, droplets: int | None) -> Preview | None:
    """How to preview a terrain of ``x_subdivisions`` x ``y_subdivisions`` faces with ``droplets`` hydraulic
    droplets (None: hydraulic erosion off) while its settings change; None when the full rebuild fits a frame
    (no hydraulic erosion, at most ``FRAME_VERTICES`` vertices). A grid over ``FRAME_VERTICES`` keeps every
    ``step``-th row and column (``ceil(subdivisions / step)`` faces, the same size); droplets are scaled by the
    share of the vertices kept, then divided by ``PREVIEW_SHARE`` (at least 1)."""
    step = 1
    while (-(-x_subdivisions // step) + 1) * (-(-y_subdivisions // step) + 1) > FRAME_VERTICES:
        step *= 2
    if step == 1 and droplets is None:
        return None
    x_kept, y_kept = -(-x_subdivisions // step), -(-y_subdivisions // step)
    fewer = None
    if droplets is not None:
        kept = (x_kept + 1) * (y_kept + 1) / ((x_subdivisions + 1) * (y_subdivisions + 1))
        fewer = max(1, round(droplets * kept) // PREVIEW_SHARE)
    return Preview(step, x_kept, y_kept, fewer)


_PENDING: set[str] = set()
"""Names of the terrains to rebuild at the next timer callback (UI)."""
_PREVIEWED: dict[str, float] = {}
"""Terrains shown as a preview, with the time of their last change: rebuilt in full when they settle."""
_UNSAVED: dict[str, float] = {}
"""Terrains rebuilt in full since the last undo step, with the time of their last change: a timer runs outside
any operator, so ``_settle`` pushes their undo step once they settle (not one per redraw of a dragged slider)."""
_SAID: dict[str, str] = {}
"""What each previewed terrain's panel says (``previewing``)."""


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


def preview_now(obj: bpy.types.Object) -> Preview | None:
    """Rebuild the live terrain ``obj`` as ``preview_plan`` says, when its full rebuild would not fit a frame;
    the ``Preview`` it made, or None (then nothing changed). A reduced grid's heights are spread over the mesh's
    own grid (``spread``: each vertex at its nearest preview vertex's height; masks left as they were) when it
    has the full grid's vertices; otherwise (its subdivisions change) the mesh gets the preview grid, when it
    keeps nothing a new grid would lose: no shape keys, vertex groups or attributes of its own."""
    from .terrain import grid, grid_positions, is_terrain, recall, terrain_heights, write_maps

    if not is_terrain(obj) or not obj.noisewright_terrain.auto_refresh or obj.mode == "EDIT":  # type: ignore[attr-defined]
        return None
    if jobs.running(obj.name) is not None:
        return None
    mesh = mesh_io.mesh_of(obj)
    try:
        spec, domain, shape, hydraulic, thermal, fluvial = recall(obj)
        cells = (shape["x_subdivisions"] + 1) * (shape["y_subdivisions"] + 1)
        droplets = None if hydraulic is None else hydraulic["droplets"] or round(hydraulic["droplet_density"] * cells)
        plan = preview_plan(shape["x_subdivisions"], shape["y_subdivisions"], droplets)
        if plan is None:
            return None
        on_full_grid = len(mesh.vertices) == cells
        if plan.step > 1 and not on_full_grid and not _regrid_loses_nothing(obj, mesh):
            return None
        fewer = None if hydraulic is None else {**hydraulic, "droplets": plan.droplets}
        smaller = {**shape, "x_subdivisions": plan.x_subdivisions, "y_subdivisions": plan.y_subdivisions}
        heights, masks = terrain_heights(bpy.context, spec, domain, smaller, fewer, thermal, fluvial)
    except UserError as error:
        print(f"Noisewright: Auto Refresh of {obj.name!r}: {error}", flush=True)
        return None
    if plan.step > 1 and on_full_grid:  # its own grid kept: the preview's heights spread over it
        mesh_io.write_positions(mesh, spread(heights, plan, shape))
        return plan
    preview_grid = (plan.x_subdivisions, plan.y_subdivisions, shape["size"])
    if mesh_io.is_grid(mesh, plan.x_subdivisions + 1, plan.y_subdivisions + 1):  # the preview grid it has: positions
        mesh_io.write_positions(mesh, grid_positions(*preview_grid, heights, np.float32))
    elif plan.step > 1 and mesh.shape_keys is None:  # a new grid (subdivisions dragged): the preview's
        mesh.clear_geometry()
        mesh_io.build_grid(mesh, *grid(*preview_grid, heights))
    else:  # the grid changed meanwhile: the full rebuild follows
        return None
    write_maps(mesh, masks)
    mesh.update()
    return plan


def spread(heights: np.ndarray, plan: Preview, shape: dict) -> np.ndarray:
    """(N, 3) float32 positions of the full grid ``shape`` (``terrain.grid_positions``), each vertex at the height
    of the nearest vertex of the preview grid ``plan`` (its ``heights``, row-major from -y; halfway between two, the
    one further along)."""
    from .terrain import grid_positions

    columns, rows = shape["x_subdivisions"] + 1, shape["y_subdivisions"] + 1
    kept = np.reshape(heights, (plan.y_subdivisions + 1, plan.x_subdivisions + 1))
    nearest = lambda count, kept, full: np.floor(np.arange(count) * (kept / full) + 0.5).astype(np.intp)  # noqa: E731 (ties up)
    across = nearest(columns, plan.x_subdivisions, shape["x_subdivisions"])
    down = nearest(rows, plan.y_subdivisions, shape["y_subdivisions"])
    spread_heights = kept.take(down, axis=0).take(across, axis=1)
    return grid_positions(shape["x_subdivisions"], shape["y_subdivisions"], shape["size"], spread_heights, np.float32)


KEPT_ATTRIBUTES = ("position", "sharp_face", "material_index")
"""Attributes a new grid keeps or rebuilds (besides UV maps and those Noisewright writes)."""


def _regrid_loses_nothing(obj: bpy.types.Object, mesh: bpy.types.Mesh) -> bool:
    """Whether giving ``mesh`` another grid loses nothing the full rebuild would not make again: no shape keys,
    no vertex groups, only attributes that are internal, UV maps, ``KEPT_ATTRIBUTES`` or written by
    Noisewright (erosion masks, flow maps, terrain maps)."""
    from .terrain_maps import _recorded

    if mesh.shape_keys is not None or len(obj.vertex_groups):
        return False
    ours = {*KEPT_ATTRIBUTES, *MASKS, *FLOW_ATTRIBUTES, *(name for entry in _recorded(obj) for name in entry["maps"])}
    ours |= {layer.name for layer in mesh.uv_layers}
    return all(a.name.startswith(".") or a.name in ours for a in mesh.attributes)


def _say(text: str | None) -> None:
    """``text`` in the status bar (None clears it); the panels redrawn (they show ``previewing``)."""
    for window in bpy.context.window_manager.windows:
        window.workspace.status_text_set(text)
        for area in window.screen.areas:
            area.tag_redraw()


def previewing(name: str) -> str:
    """What the panel says of the terrain ``name`` while it shows a preview ("" when it does not)."""
    return _SAID.get(name, "") if name in _PREVIEWED else ""


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
            if refresh_now(obj):
                _UNSAVED[name] = now
    if (_PREVIEWED or _UNSAVED) and not bpy.app.timers.is_registered(_settle):
        bpy.app.timers.register(_settle, first_interval=SETTLE)


def _settle() -> float | None:
    """The timer callback once changes stop: the previews with no change for ``SETTLE`` seconds rebuilt in full,
    and the rebuilds since the last undo step pushed as one."""
    now = time.monotonic()
    rebuilt = []
    for name, changed_at in sorted(_PREVIEWED.items()):
        if now - changed_at >= SETTLE and name not in _PENDING:
            del _PREVIEWED[name]
            _SAID.pop(name, None)
            obj = bpy.data.objects.get(name)
            if obj is not None and refresh_now(obj):
                rebuilt.append(name)
    for name, changed_at in sorted(_UNSAVED.items()):
        if now - changed_at >= SETTLE and name not in _PENDING:
            del _UNSAVED[name]
            rebuilt.append(name)
    if rebuilt and bpy.ops.ed.undo_push.poll():  # type: ignore[call-arg]  # (the stubs want a context)
        bpy.ops.ed.undo_push(message=f"Auto Refresh {', '.join(sorted(set(rebuilt)))}")
    if not _PREVIEWED:
        _say(None)
    return SETTLE if _PREVIEWED or _UNSAVED else None


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
        for waiting in (_PREVIEWED, _UNSAVED):
            for name in waiting:
                waiting[name] = -SETTLE
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
