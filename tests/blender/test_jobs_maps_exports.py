"""Terrain Maps, heightmap exports and Erode Height Image as jobs (``addon/jobs.py``): progress per map, tile
or batch of droplets, a cancel stops at the next one, and the scene (and the disk) is as it was after a cancel
or a failure."""

from __future__ import annotations

import json
import time
from types import SimpleNamespace

import numpy as np
import pytest

from .conftest import ChecksAfterCancel, scene_state

pytestmark = pytest.mark.blender

FEW = {"droplets": 20_000, "seed": 2}


def _grid(bpy, side: int = 48):
    """A plain grid mesh (a Noise Terrain's, its settings forgotten) of ``side`` x ``side`` faces."""
    bpy.ops.noisewright.add_terrain(x_subdivisions=side, y_subdivisions=side, size=2.0, height=0.5)
    grid = bpy.context.active_object
    grid.noisewright_terrain.is_terrain = False
    return grid


def _state(bpy) -> dict:
    """``scene_state`` with every mesh's attribute names, vertex groups and custom properties."""
    state = scene_state(bpy)
    state["attributes"] = {mesh.name: sorted(a.name for a in mesh.attributes) for mesh in bpy.data.meshes}
    state["groups"] = {obj.name: sorted(g.name for g in obj.vertex_groups) for obj in bpy.data.objects}
    state["properties"] = {obj.name: sorted(obj.keys()) for obj in bpy.data.objects}
    return state


def _cancelled_after(addon, compute, total: int, steps: int):
    """A worker running ``compute`` that is cancelled once ``steps`` progress calls came (on its own thread,
    so the stop is at the next chunk, deterministically); it is run here. Returns it and the progress seen."""
    seen: list[int] = []

    def counted(advance):
        def hook(count):
            advance(count)
            seen.append(worker.done)
            if len(seen) == steps:
                worker._cancel.set()

        return compute(hook)

    worker = addon.jobs.Worker(counted, total)
    worker.run()
    return worker, seen


def test_terrain_maps_progress_per_map_cancel_and_failure_change_nothing(bpy_empty, addon):
    bpy = bpy_empty
    grid = _grid(bpy)
    maps = ("slope", "aspect", "curvature", "relative_height", "flow", "wetness")
    job = addon.terrain_maps.terrain_maps_job(grid, maps, vertex_groups=True, radius=3)
    compute, apply, total = job.compute, job.apply, job.total
    assert total == addon.noise_core.terrain.maps.progress_total(maps)  # per map, and the routing they share
    before = _state(bpy)
    worker, seen = _cancelled_after(addon, compute, total, 2)
    assert worker.cancelled and len(seen) == 2 and _state(bpy) == before  # stopped at the next band
    assert 0 < seen[0] <= seen[1] < total

    failing = addon.jobs.Worker(lambda advance: compute(lambda n: 1 / 0), total)
    failing.run()
    assert isinstance(failing.error, ZeroDivisionError) and _state(bpy) == before

    done: list[int] = []
    finished = addon.jobs.Worker(lambda advance: compute(lambda n: (advance(n), done.append(finished.done))), total)
    finished.run()
    assert done == sorted(done) and done[-1] == total and len(done) >= len(maps)  # monotone, band by band
    written = apply(finished.result)
    other = _grid(bpy)
    expected = addon.terrain_maps.write_terrain_maps(other, maps, vertex_groups=True, radius=3)
    for name in maps:
        np.testing.assert_array_equal(written[name], expected[name])
    assert {g.name for g in grid.vertex_groups} == set(maps)
    assert json.loads(grid[addon.terrain_maps.RECORD])[0]["maps"] == list(maps)

    bpy.data.objects.remove(grid)  # the object went while the job ran: apply refuses, changes nothing
    after = _state(bpy)
    with pytest.raises(addon.errors.UserError, match="removed"):
        apply(finished.result)
    assert _state(bpy) == after


def test_a_tile_set_export_is_all_or_none_when_cancelled_or_failing(bpy_empty, addon, tmp_path):
    bpy = bpy_empty
    grid = _grid(bpy, 64)
    target = tmp_path / "tiles.r16"
    job = addon.heightmap_export.export_job(bpy.context, grid, str(target), tile=16)
    compute, total = job.compute, job.total
    assert total == addon.heightmap_export.EXPORT_STEPS
    before = _state(bpy)
    worker, seen = _cancelled_after(addon, compute, total, 4)  # the heights, then 3 of the 16 tiles
    assert worker.cancelled and len(seen) == 4 and list(tmp_path.iterdir()) == []
    assert _state(bpy) == before

    def failing(advance):
        calls = []

        def hook(count):
            calls.append(count)
            if len(calls) == 6:
                raise OSError("disk full")
            advance(count)

        return compute(hook)

    broken = addon.jobs.Worker(failing, total)
    broken.run()
    assert isinstance(broken.error, addon.errors.UserError) and "disk full" in str(broken.error)
    assert list(tmp_path.iterdir()) == []  # reported as the export's error, nothing written

    done: list[int] = []
    finished = addon.jobs.Worker(lambda advance: compute(lambda n: (advance(n), done.append(finished.done))), total)
    finished.run()
    paths, _numbers, how = finished.result
    assert done == sorted(done) and done[0] == addon.heightmap_export.HEIGHTS_SHARE and done[-1] == total
    assert len(done) == 1 + 16 + 1 and len(paths) == 16 and "65 x 65" in how
    assert len(list(tmp_path.iterdir())) == 2 * 16 + 1  # the tiles, their sidecars, the set's sidecar
    assert _state(bpy) == before  # an export changes no Blender data


def test_a_cancel_reaches_the_noise_of_a_terrain_exported_at_another_resolution(bpy_empty, addon, tmp_path):
    bpy = bpy_empty
    spec = addon.api.NoiseSpec(kind="perlin", octaves=3)
    obj = addon.api.add_terrain(bpy.context, spec, x_subdivisions=16, y_subdivisions=16, size=8.0)
    job = addon.heightmap_export.export_job(bpy.context, obj, str(tmp_path / "t.exr"), resolution=513)
    compute, total = job.compute, job.total
    chunks: list[int] = []
    worker = addon.jobs.Worker(compute, total)  # the terrain's noise runs in window_progress, which on a
    worker._cancel.set()  # worker checks for a cancel per chunk: cancelled before it starts, the first stops it
    original = worker.check

    def counting_check():
        chunks.append(1)
        original()

    worker.check = counting_check
    worker.run()
    assert worker.cancelled and chunks and worker.done == 0 and list(tmp_path.iterdir()) == []


def test_a_job_export_is_cancelled_at_its_next_tile_on_its_thread(bpy_empty, addon, tmp_path):
    bpy = bpy_empty
    grid = _grid(bpy, 64)
    job = addon.heightmap_export.export_job(bpy.context, grid, str(tmp_path / "t.png"), tile=4)
    compute, total = job.compute, job.total

    def slow(advance):  # 256 tiles, each made to take 20 ms more: the cancel lands between two
        return compute(lambda n: (time.sleep(0.02), advance(n)))

    watched = ChecksAfterCancel(slow, lambda: worker.cancel_requested)
    worker = addon.jobs.Worker(watched, total).start()
    deadline = time.monotonic() + 60.0
    while worker.done <= addon.heightmap_export.HEIGHTS_SHARE and time.monotonic() < deadline:
        time.sleep(0.01)
    assert worker.cancel(wait=60.0)  # it stops (the generous wait only guards against a hang)
    assert watched.checks <= 1 and worker.done < total  # at the tile after the cancel, not at the end
    assert worker.cancelled and list(tmp_path.iterdir()) == []


def test_erode_image_as_a_job_cancel_changes_nothing_and_apply_is_erode_image(bpy_empty, addon):
    bpy = bpy_empty
    image = addon.api.bake(bpy.context, addon.api.NoiseSpec(octaves=4), image="Height", width=48, height=40)
    job = addon.erode.erode_image_job(image, FEW, None, relief=32.0)
    compute, apply = job.compute, job.apply
    before = _state(bpy)
    worker, seen = _cancelled_after(addon, compute, addon.erosion_io.PROGRESS, 1)
    assert worker.cancelled and len(seen) == 1 and _state(bpy) == before
    done: list[int] = []
    finished = addon.jobs.Worker(
        lambda advance: compute(lambda n: (advance(n), done.append(finished.done))), addon.erosion_io.PROGRESS
    )
    finished.run()
    assert done == sorted(done) and done[-1] == addon.erosion_io.PROGRESS and len(done) > 2
    erosion, _deposition = apply(finished.result)
    ours = np.empty(48 * 40 * 4, dtype=np.float32)
    image.pixels.foreach_get(ours)
    copy = addon.api.bake(bpy.context, addon.api.NoiseSpec(octaves=4), image="Copy", width=48, height=40)
    addon.api.erode_image(bpy.context, copy, hydraulic=FEW, relief=32.0)
    theirs = np.empty(48 * 40 * 4, dtype=np.float32)
    copy.pixels.foreach_get(theirs)
    np.testing.assert_array_equal(ours, theirs)
    assert erosion.name == "Height Erosion"


def test_operators_in_background_run_in_the_foreground_with_progress_printed(bpy_empty, addon, tmp_path, capsys):
    bpy = bpy_empty
    grid = _grid(bpy, 32)
    bpy.context.view_layer.objects.active = grid
    capsys.readouterr()
    assert bpy.ops.noisewright.terrain_maps("INVOKE_DEFAULT", maps={"slope", "flow"}) == {"FINISHED"}
    assert "Noisewright: Terrain Maps: 100 %" in capsys.readouterr().out
    assert {"slope", "flow"} <= {a.name for a in grid.data.attributes}
    target = tmp_path / "h.r32"
    assert bpy.ops.noisewright.export_heightmap(filepath=str(target), file_format="R32") == {"FINISHED"}
    assert target.stat().st_size == 33 * 33 * 4
    with pytest.raises(RuntimeError, match="choose at least one way"):  # a bad option: reported, nothing run
        bpy.ops.noisewright.terrain_maps(maps={"slope"}, attributes=False)


def _ui_job(addon, label: str, key: str, job):
    """``JobOperator``'s UI way (``start_job``, then ``modal`` on timer ticks) for ``job``, a window manager
    stood in for (background mode has no window): a plain class at run time, nothing registered."""

    class Host(addon.jobs.JobOperator):
        bl_label = label

        def __init__(self) -> None:
            self.said: list[str] = []

        def job_key(self, _context) -> str:
            return key

        def prepare(self, _context):
            return job

        def report(self, _kinds, text) -> None:
            self.said.append(text)

    ignore = lambda *_args, **_keywords: None  # noqa: E731
    manager = SimpleNamespace(
        progress_begin=ignore, progress_update=ignore, progress_end=ignore, event_timer_add=ignore,
        event_timer_remove=ignore, modal_handler_add=ignore,
    )  # fmt: skip
    return Host(), SimpleNamespace(window_manager=manager, workspace=None, window=object())


def _until_done(host, context, escape_after: int | None = None):
    """Ticks until the job ends (Esc once its progress passed ``escape_after``): its result."""
    assert host.start_job(context) == {"RUNNING_MODAL"}
    escaped = False
    deadline = time.monotonic() + 120.0
    while time.monotonic() < deadline:
        escape = not escaped and escape_after is not None and host._worker.done > escape_after
        escaped = escaped or escape
        result = host.modal(context, SimpleNamespace(type="ESC" if escape else "TIMER", value="PRESS"))
        if result != {"PASS_THROUGH"}:
            return result
        time.sleep(0.005)
    raise AssertionError("the job did not end")


def test_terrain_maps_in_the_ui_way_esc_stops_at_the_next_map_or_applied_once_done(bpy_empty, addon):
    bpy = bpy_empty
    grid = _grid(bpy)
    maps = ("slope", "aspect", "curvature", "relative_height")
    job = addon.terrain_maps.terrain_maps_job(grid, maps, radius=3)
    compute, apply, total = job.compute, job.apply, job.total

    def slow(advance):  # each map made to take 50 ms more, so Esc lands between two
        return compute(lambda n: (time.sleep(0.05), advance(n)))

    before = _state(bpy)
    watched = ChecksAfterCancel(slow, lambda: host._worker.cancel_requested)
    host, context = _ui_job(addon, "Terrain Maps", grid.name, addon.jobs.Job(watched, apply, total))
    assert _until_done(host, context, escape_after=0) == {"CANCELLED"}
    assert watched.checks <= 1 and host._worker.done < total  # at its first check after the Esc
    assert _state(bpy) == before and host.said == ["Terrain Maps: cancelled; nothing was changed"]
    assert addon.jobs.running(grid.name) is None  # released

    host, context = _ui_job(addon, "Terrain Maps", grid.name, job)
    assert _until_done(host, context) == {"FINISHED"}  # applied at once: the operator's one undo step
    assert set(maps) <= {a.name for a in grid.data.attributes}


def _cancelled_in_the_work(addon, compute, total: int) -> tuple:
    """Run ``compute`` in a real worker thread, cancel it once its progress moved, and return the worker once it
    stopped, with ``compute``'s checks after the cancel (``ChecksAfterCancel``; how soon, in seconds: bench_jobs.py's
    ``terrain``)."""
    watched = ChecksAfterCancel(compute, lambda: worker.cancel_requested)
    worker = addon.jobs.Worker(watched, total).start()
    deadline = time.monotonic() + 120.0
    while worker.done == 0 and not worker.finished.is_set() and time.monotonic() < deadline:
        time.sleep(0.002)
    assert worker.cancel(wait=120.0)  # it stops (the generous wait only guards against a hang)
    return worker, watched


@pytest.mark.parametrize("maps", [("flow",), ("occlusion", "slope"), ("wetness", "relative_height")])
def test_terrain_maps_on_a_1025_grid_stop_at_their_next_check_after_a_cancel(bpy_empty, addon, maps):
    bpy = bpy_empty
    small = _grid(bpy, 32)  # the kernels compiled first, so the cancel lands in the work
    job = addon.terrain_maps.terrain_maps_job(small, maps, radius=3)
    warm, _apply, warm_total = job.compute, job.apply, job.total
    addon.jobs.Worker(warm, warm_total).run()
    grid = _grid(bpy, 1024)
    job = addon.terrain_maps.terrain_maps_job(grid, maps)
    compute, _apply, total = job.compute, job.apply, job.total
    before = _state(bpy)
    worker, watched = _cancelled_in_the_work(addon, compute, total)
    assert worker.cancelled and watched.checks <= 1  # the maps and the routing stop at their first check
    assert 0 < worker.done < total and _state(bpy) == before  # stopped in the work, nothing applied


def test_an_export_regenerating_an_eroded_terrain_moves_its_progress_and_cancels(bpy_empty, addon, tmp_path):
    bpy = bpy_empty
    spec = addon.api.NoiseSpec(kind="perlin", octaves=3)
    droplets = {"droplets": 100_000, "seed": 2}  # rounds of 4096 droplets: several batches
    obj = addon.api.add_terrain(bpy.context, spec, x_subdivisions=8, y_subdivisions=8, size=8.0, hydraulic=droplets)
    job = addon.heightmap_export.export_job(bpy.context, obj, str(tmp_path / "t.exr"), resolution=129)
    compute, total = job.compute, job.total
    share = addon.heightmap_export.HEIGHTS_SHARE
    worker, seen = _cancelled_after(addon, compute, total, 3)  # cancelled in the droplets: no file
    assert worker.cancelled and 0 < max(seen) < share and list(tmp_path.iterdir()) == []
    done: list[int] = []
    finished = addon.jobs.Worker(lambda advance: compute(lambda n: (advance(n), done.append(finished.done))), total)
    finished.run()
    assert finished.error is None and done == sorted(done) and done[-1] == total
    regenerating = [d for d in done if 0 < d < share]  # the noise, then the droplets batch by batch
    assert len(set(regenerating)) > 3, done
