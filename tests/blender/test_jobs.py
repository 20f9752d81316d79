"""Jobs (``addon/jobs.py``): the worker's progress, cancel and failure, one job per object, and the foreground
path background mode takes (Erode)."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from .conftest import ChecksAfterCancel, scene_state

pytestmark = pytest.mark.blender


def _grid(bpy, side: int = 64):
    bpy.ops.mesh.primitive_grid_add(x_subdivisions=side, y_subdivisions=side, size=2.0)
    grid = bpy.context.active_object
    flat = np.empty(len(grid.data.vertices) * 3, dtype=np.float32)
    grid.data.vertices.foreach_get("co", flat)
    xyz = flat.reshape(-1, 3)
    xyz[:, 2] = 0.3 * np.sin(3.0 * xyz[:, 0]) * np.cos(2.0 * xyz[:, 1]) + 0.2 * xyz[:, 0]
    grid.data.vertices.foreach_set("co", xyz.ravel())
    grid.data.update()
    return grid


def test_progress_is_monotone_and_time_left_follows_the_pace(addon):
    jobs = addon.jobs
    now = [10.0]
    seen: list[int] = []

    def compute(advance):
        for count in (3, 0, -2, 5, 2):  # never backwards, never past the total
            advance(count)
            seen.append(worker.done)
        now[0] = 14.0
        return "result"

    worker = jobs.Worker(compute, total=8, clock=lambda: now[0])
    assert worker.time_left() is None and worker.status("Erode") == "Erode: 0 % (Esc to cancel)"
    worker.run()
    assert seen == [3, 3, 3, 8, 8] and worker.result == "result" and worker.error is None
    worker.done = 2  # 4 s for 2 of 8: 12 s left
    assert worker.time_left() == pytest.approx(12.0)
    assert worker.status("Erode") == "Erode: 25 %, about 12 s left (Esc to cancel)"


def test_a_cancel_stops_the_worker_at_its_next_check_between_batches(addon):
    jobs = addon.jobs
    applied = []
    batches = threading.Event()

    def compute(advance):
        while True:  # batches of 50 ms, forever
            time.sleep(0.05)
            advance(1)
            batches.set()

    watched = ChecksAfterCancel(compute, lambda: worker.cancel_requested)
    worker = jobs.Worker(watched, total=1000).start()
    assert batches.wait(60.0)
    assert worker.cancel(wait=60.0)  # it stops (the generous wait only guards against a hang)
    assert watched.checks <= 1  # at its first check after the cancel: no batch after it
    assert worker.cancelled and worker.result is None and not applied


def test_a_cancelled_or_failed_erosion_leaves_the_scene_as_it_was(bpy_empty, addon):
    bpy = bpy_empty
    grid = _grid(bpy)
    job = addon.erode.erode_job(grid, {"droplets": 4_000_000, "seed": 1}, None)
    compute, apply = job.compute, job.apply
    before = scene_state(bpy)
    watched = ChecksAfterCancel(compute, lambda: worker.cancel_requested)
    worker = addon.jobs.Worker(watched, addon.erosion_io.PROGRESS).start()
    deadline = time.monotonic() + 120.0
    while worker.done == 0 and not worker.finished.is_set() and time.monotonic() < deadline:
        time.sleep(0.01)  # past the compile, into the droplets
    assert 0 < worker.done < worker.total
    assert worker.cancel(wait=60.0)  # it stops (the generous wait only guards against a hang)
    assert watched.checks <= 1  # at the end of the batch of droplets under way
    assert worker.cancelled and worker.done < worker.total and scene_state(bpy) == before

    failing = addon.jobs.Worker(lambda advance: compute(lambda n: 1 / 0), addon.erosion_io.PROGRESS)
    failing.run()
    assert isinstance(failing.error, ZeroDivisionError) and scene_state(bpy) == before

    bpy.data.objects.remove(grid)  # the object went while the job ran: apply refuses and changes nothing
    after_removal = scene_state(bpy)
    with pytest.raises(addon.errors.UserError, match="removed"):
        apply(None)
    assert scene_state(bpy) == after_removal


def test_one_job_per_object(bpy_empty, addon):
    jobs = addon.jobs
    gate = threading.Event()
    first = jobs.Worker(lambda advance: gate.wait(5.0), 1).start()
    jobs.claim("Terrain", first)
    try:
        with pytest.raises(addon.errors.UserError, match="already running"):
            jobs.claim("Terrain", jobs.Worker(lambda advance: None, 1))
        jobs.claim("Other", jobs.Worker(lambda advance: None, 1))  # another object is free
        assert jobs.running("Terrain") is first
    finally:
        gate.set()
        first.finished.wait(5.0)
        jobs.release("Terrain", first)
        jobs.release("Other", jobs._ACTIVE.get("Other"))
    assert jobs.running("Terrain") is None


def test_background_erode_runs_in_the_foreground_with_progress_printed(bpy_empty, addon, capsys):
    bpy = bpy_empty
    grid = _grid(bpy, 40)
    assert bpy.app.background
    flat = np.empty(len(grid.data.vertices) * 3, dtype=np.float32)
    grid.data.vertices.foreach_get("co", flat)
    expected = bpy.data.objects.new("Copy", grid.data.copy())
    bpy.context.collection.objects.link(expected)
    addon.api.erode(bpy.context, expected, hydraulic={"droplets": 20_000, "seed": 3})
    bpy.context.view_layer.objects.active = grid
    capsys.readouterr()
    settings = bpy.context.scene.noisewright_erosion  # a first run starts from the scene's settings
    settings.hydraulic, settings.thermal, settings.droplets, settings.seed = True, False, 20_000, 3
    assert bpy.ops.noisewright.erode("INVOKE_DEFAULT") == {"FINISHED"}
    printed = capsys.readouterr().out
    assert "Noisewright: Erode Terrain: 100 %" in printed
    ours, theirs = (np.empty(len(grid.data.vertices) * 3, dtype=np.float32) for _ in range(2))
    grid.data.vertices.foreach_get("co", ours)
    expected.data.vertices.foreach_get("co", theirs)
    np.testing.assert_allclose(ours, theirs, atol=1e-6)  # the settings hold float32 options
    assert not np.array_equal(ours, flat)
