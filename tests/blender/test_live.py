"""Live terrains (``addon/live.py``): a setting of a Noise Terrain rebuilds it, at once in background mode and
once per burst of changes in the UI, bit for bit as Regenerate does."""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.blender


def _positions(obj) -> np.ndarray:
    flat = np.empty(len(obj.data.vertices) * 3, dtype=np.float32)
    obj.data.vertices.foreach_get("co", flat)
    return flat


def _terrain(bpy, addon):
    spec = addon.api.NoiseSpec(kind="perlin", octaves=3, seed=4)
    return addon.api.add_terrain(bpy.context, spec, x_subdivisions=20, y_subdivisions=20, size=3.0)


def test_a_setting_assigned_in_background_rebuilds_before_it_returns_as_regenerate_does(bpy_empty, addon):
    bpy = bpy_empty
    obj = _terrain(bpy, addon)
    settings = obj.noisewright_terrain
    assert bpy.app.background and settings.auto_refresh  # on by default
    before = _positions(obj)
    settings.noise.seed = 9  # a noise setting
    after_seed = _positions(obj)
    assert not np.array_equal(after_seed, before)
    addon.api.regenerate_terrain(bpy.context, obj)
    np.testing.assert_array_equal(_positions(obj), after_seed)  # bit-identical to Regenerate
    settings.height = 2.0  # a grid setting
    assert np.abs(_positions(obj)[2::3]).max() > np.abs(after_seed[2::3]).max()
    settings.x_subdivisions = 10  # a new grid
    assert len(obj.data.vertices) == 11 * 21
    settings.y_subdivisions = 10  # square cells again: erosion needs them
    settings.erosion.hydraulic, settings.erosion.droplets = True, 2000  # erosion settings
    eroded = _positions(obj)
    addon.api.regenerate_terrain(bpy.context, obj)
    np.testing.assert_array_equal(_positions(obj), eroded)


def test_auto_refresh_off_and_other_owners_change_nothing(bpy_empty, addon):
    bpy = bpy_empty
    obj = _terrain(bpy, addon)
    before = _positions(obj)
    bpy.context.scene.noisewright.seed = 11  # the scene's noise settings: the same property group
    bpy.context.scene.noisewright_erosion.droplets = 5
    np.testing.assert_array_equal(_positions(obj), before)
    obj.noisewright_terrain.auto_refresh = False
    obj.noisewright_terrain.noise.seed = 12
    np.testing.assert_array_equal(_positions(obj), before)
    obj.noisewright_terrain.auto_refresh = True  # turning it on rebuilds
    assert not np.array_equal(_positions(obj), before)


def test_a_bad_setting_leaves_the_mesh_and_says_why(bpy_empty, addon, capsys):
    bpy = bpy_empty
    obj = _terrain(bpy, addon)
    before = _positions(obj)
    capsys.readouterr()
    obj.noisewright_terrain.size = float("inf")
    assert f"Auto Refresh of {obj.name!r}" in capsys.readouterr().out
    np.testing.assert_array_equal(_positions(obj), before)


def test_in_the_ui_a_burst_of_changes_is_one_rebuild_at_the_timer(bpy_empty, addon, monkeypatch):
    bpy = bpy_empty
    live = addon.live
    obj = _terrain(bpy, addon)
    other = _terrain(bpy, addon)
    rebuilt: list[str] = []
    refresh_now = live.refresh_now
    monkeypatch.setattr(live, "in_background", lambda: False)
    monkeypatch.setattr(live, "refresh_now", lambda o: rebuilt.append(o.name) or refresh_now(o))
    before = _positions(obj)
    for seed in range(20, 40):  # a dragged slider
        obj.noisewright_terrain.noise.seed = seed
    other.noisewright_terrain.height = 1.5
    assert live.pending() == {obj.name, other.name}
    assert bpy.app.timers.is_registered(live._flush)  # one timer for the burst
    np.testing.assert_array_equal(_positions(obj), before)  # nothing yet
    live.flush()
    assert sorted(rebuilt) == sorted([obj.name, other.name]) and live.pending() == set()
    after = _positions(obj)
    addon.api.regenerate_terrain(bpy.context, obj)
    np.testing.assert_array_equal(_positions(obj), after)
    assert not np.array_equal(after, before)


def _eroded(bpy, addon, monkeypatch):
    """An eroded terrain (its full rebuild a job in the UI), in the UI's path, with its preview shown."""
    live = addon.live
    obj = _terrain(bpy, addon)
    erosion = obj.noisewright_terrain.erosion
    erosion.hydraulic, erosion.droplets = True, 4000  # background: rebuilt at once, in full
    monkeypatch.setattr(live, "in_background", lambda: False)
    obj.noisewright_terrain.noise.seed = 30
    live.flush()
    assert set(live._PREVIEWED) == {obj.name}
    return obj


def test_in_the_ui_an_eroded_terrain_previews_with_fewer_droplets_then_builds_in_full(bpy_empty, addon, monkeypatch):
    bpy = bpy_empty
    live = addon.live
    obj = _eroded(bpy, addon, monkeypatch)
    preview = _positions(obj)
    assert bpy.app.timers.is_registered(live._settle)
    live.flush(settle=True)
    full = _positions(obj)
    assert not np.array_equal(preview, full) and live._PREVIEWED == {}
    addon.api.regenerate_terrain(bpy.context, obj)
    np.testing.assert_array_equal(_positions(obj), full)  # the full build is Regenerate's
    settings = obj.noisewright_terrain
    recipe = addon.terrain_settings.recall(obj)
    fewer = {**recipe.hydraulic, "droplets": 4000 // addon.live_preview.PREVIEW_SHARE}
    expected = addon.terrain_recipe.terrain_geometry(bpy.context, replace(recipe, hydraulic=fewer))[0]
    np.testing.assert_array_equal(preview, expected[:, :].astype(np.float32).ravel())
    assert settings.auto_refresh


def test_the_preview_plan_reduces_huge_grids_and_droplets_only(addon):
    preview = addon.live_preview
    plan, Preview, share = preview.preview_plan, preview.Preview, preview.PREVIEW_SHARE
    assert preview.FRAME_VERTICES == 1025 * 1025
    assert plan(128, 128, None) is None and plan(1024, 1024, None) is None  # a full rebuild fits a frame
    assert plan(4096, 2, None) is None  # many subdivisions, few vertices
    assert plan(1025, 1024, None) == Preview(2, 513, 512, None)  # one column too many: every 2nd kept
    assert plan(4096, 4096, None) == Preview(4, 1024, 1024, None)
    assert plan(16384, 1000, None) == Preview(4, 4096, 250, None)  # 4097 x 251 vertices fit
    assert plan(20, 16, 4000) == Preview(1, 20, 16, 4000 // share)  # erosion: fewer droplets on the full grid
    assert plan(4096, 4096, 8_000_000) == Preview(4, 1024, 1024, round(8_000_000 * 1025**2 / 4097**2) // share)
    assert plan(8, 8, 3) == Preview(1, 8, 8, 1)  # at least one droplet
    text = plan(4096, 4096, 80_000).describe("Terrain")
    assert text.startswith("Terrain: preview on 1024 x 1024 faces (1/4 resolution) with ") and "1/8)" in text


@settings(max_examples=200, deadline=None)
@given(x=st.integers(1, 16384), y=st.integers(1, 16384), droplets=st.none() | st.integers(1, 10**7))
def test_a_preview_is_the_smallest_power_of_two_step_within_the_budget(addon, x, y, droplets):
    vertices = (x + 1) * (y + 1)
    assume(vertices <= addon.terrain_grid.MAX_VERTICES)
    plan = addon.live_preview.preview_plan(x, y, droplets)
    if plan is None:
        assert droplets is None and vertices <= addon.live_preview.FRAME_VERTICES
        return
    assert plan.step & (plan.step - 1) == 0  # a power of two
    assert (plan.x_subdivisions + 1) * (plan.y_subdivisions + 1) <= addon.live_preview.FRAME_VERTICES
    assert plan.x_subdivisions == -(-x // plan.step) and plan.y_subdivisions == -(-y // plan.step)
    if plan.step > 1:  # the next smaller step would not fit
        half = plan.step // 2
        assert (-(-x // half) + 1) * (-(-y // half) + 1) > addon.live_preview.FRAME_VERTICES
    assert (plan.droplets is None) == (droplets is None) and (droplets is None or 1 <= plan.droplets <= droplets)


def test_in_the_ui_a_huge_grid_previews_at_a_reduced_resolution_then_builds_in_full(bpy_empty, addon, monkeypatch):
    bpy = bpy_empty
    live = addon.live
    monkeypatch.setattr(addon.live_preview, "FRAME_VERTICES", 17 * 17)  # a 32 x 30 grid is "huge" here
    spec = addon.api.NoiseSpec(kind="perlin", octaves=3, seed=4)
    obj = addon.api.add_terrain(bpy.context, spec, x_subdivisions=32, y_subdivisions=30, size=3.0)
    settings = obj.noisewright_terrain
    settings.noise.seed = 5  # background: in full, at once, as Regenerate
    assert len(obj.data.vertices) == 33 * 31 and live.previewing(obj.name) == ""
    monkeypatch.setattr(live, "in_background", lambda: False)
    grid_before = _positions(obj).reshape(-1, 3)[:, :2].copy()
    settings.noise.seed = 6
    live.flush()  # while the value changes: every 2nd row and column, spread over the mesh's own grid
    assert "16 x 15 faces (1/2 resolution)" in live.previewing(obj.name)
    preview = _positions(obj).reshape(-1, 3)
    np.testing.assert_array_equal(preview[:, :2], grid_before)  # the same grid, its vertices kept
    small = addon.terrain_settings.recall(obj).reshaped(x_subdivisions=16, y_subdivisions=15)
    coarse = addon.terrain_recipe.terrain_geometry(bpy.context, small)[0][:, 2].reshape(16, 17)
    heights = preview[:, 2].reshape(31, 33)
    np.testing.assert_array_equal(heights[::2, ::2], coarse.astype(np.float32))  # the vertices both grids have
    np.testing.assert_array_equal(heights[1::2], heights[2::2])  # the others: their nearest's (halfway: the next)
    np.testing.assert_array_equal(heights[:, 1::2], heights[:, 2::2])
    live.flush(settle=True)  # the release
    assert live.previewing(obj.name) == ""
    full = _positions(obj)
    addon.api.regenerate_terrain(bpy.context, obj)
    np.testing.assert_array_equal(_positions(obj), full)  # the full build is Regenerate's

    settings.x_subdivisions = 34  # a new grid while dragging: the mesh gets the preview grid for a moment
    live.flush()
    assert len(obj.data.vertices) == 18 * 16 and "17 x 15 faces" in live.previewing(obj.name)
    assert np.ptp(_positions(obj).reshape(-1, 3)[:, :2], axis=0) == pytest.approx((3.0, 3.0))  # the same size
    live.flush(settle=True)
    assert len(obj.data.vertices) == 35 * 31
    full = _positions(obj)
    addon.api.regenerate_terrain(bpy.context, obj)
    np.testing.assert_array_equal(_positions(obj), full)

    obj.vertex_groups.new(name="Mine")
    settings.noise.seed = 8  # its own grid kept: previewed, the group kept
    live.flush()
    assert live.previewing(obj.name) and "Mine" in obj.vertex_groups
    settings.x_subdivisions = 32  # a preview grid would lose the group: rebuilt in full (as Regenerate)
    live.flush()
    assert len(obj.data.vertices) == 33 * 31 and live.previewing(obj.name) == ""


def test_a_timer_rebuild_is_its_own_undo_step(bpy_empty, addon, monkeypatch):
    bpy = bpy_empty
    live = addon.live
    obj = _terrain(bpy, addon)
    name = obj.name
    bpy.ops.ed.undo_push(message="Terrain added")
    before = _positions(obj)
    monkeypatch.setattr(live, "in_background", lambda: False)
    obj.noisewright_terrain.noise.seed = 31  # from Python: no undo step of its own
    live.flush()  # the timer rebuilds; once the changes settle it pushes the undo step
    live.flush(settle=True)
    rebuilt = _positions(bpy.data.objects[name])
    assert not np.array_equal(rebuilt, before)
    assert bpy.ops.ed.undo() == {"FINISHED"}  # back to before the rebuild, the terrain still there
    obj = bpy.data.objects[name]
    np.testing.assert_array_equal(_positions(obj), before)
    assert obj.noisewright_terrain.noise.seed == 4
    assert bpy.ops.ed.redo() == {"FINISHED"}
    np.testing.assert_array_equal(_positions(bpy.data.objects[name]), rebuilt)


def test_the_full_rebuild_runs_as_a_job_in_the_ui_when_it_would_not_fit_a_frame(addon):
    live = addon.live
    assert not live.in_a_job(128, 128, None, background=False)  # fits a frame: rebuilt at once
    assert not live.in_a_job(1024, 1024, None, background=False)
    assert live.in_a_job(1025, 1024, None, background=False)  # one column too many
    assert live.in_a_job(20, 16, 4000, background=False)  # erosion
    assert not live.in_a_job(4096, 4096, 8_000_000, background=True)  # background mode: always synchronous


@settings(max_examples=100, deadline=None)
@given(x=st.integers(1, 16384), y=st.integers(1, 16384), droplets=st.none() | st.integers(1, 10**7))
def test_a_job_exactly_when_a_preview_is_shown(addon, x, y, droplets):
    live = addon.live
    planned = addon.live_preview.preview_plan(x, y, droplets)
    assert live.in_a_job(x, y, droplets, background=False) == (planned is not None)
    assert not live.in_a_job(x, y, droplets, background=True)


class _Gate:
    """``terrain.terrain_heights`` held on a job's worker thread until ``open`` (the main thread's runs as it is)."""

    def __init__(self, addon, monkeypatch):
        import threading

        self.opened, self.entered = threading.Event(), threading.Event()
        heights = addon.terrain.terrain_heights

        def held(*arguments):
            if threading.current_thread() is not threading.main_thread():
                self.entered.set()
                assert self.opened.wait(60.0)
            return heights(*arguments)

        monkeypatch.setattr(addon.terrain, "terrain_heights", held)

    def open(self):
        self.opened.set()


@contextmanager
def _job_held(addon, monkeypatch, name):
    """The full rebuild of the previewed terrain ``name`` started as a job (the release) and held on its worker
    thread within the block (``_Gate``); yields its worker."""
    gate = _Gate(addon, monkeypatch)
    try:
        addon.live.flush(settle=True, finish=False)
        worker = addon.live._REBUILDS[name][0]
        assert gate.entered.wait(60.0)
        yield worker
    finally:
        gate.open()


def test_a_job_driven_rebuild_leaves_the_preview_meanwhile_then_equals_regenerate(bpy_empty, addon, monkeypatch):
    bpy = bpy_empty
    live, jobs = addon.live, addon.jobs
    obj = _eroded(bpy, addon, monkeypatch)
    name = obj.name
    bpy.ops.ed.undo_push(message="Previewed")
    preview = _positions(obj)
    with _job_held(addon, monkeypatch, name) as worker:  # the release: the job starts, the preview stays
        assert jobs.running(name) is worker and set(live._REBUILDS) == {name}
        assert bpy.app.timers.is_registered(live._watch)
        assert "the full terrain follows" in live.previewing(name)
        np.testing.assert_array_equal(_positions(obj), preview)
    live.wait()  # the worker's heights written on the main thread
    assert jobs.running(name) is None and live._REBUILDS == {} and live.previewing(name) == ""
    full = _positions(bpy.data.objects[name])
    assert not np.array_equal(full, preview)
    addon.api.regenerate_terrain(bpy.context, bpy.data.objects[name])
    np.testing.assert_array_equal(_positions(bpy.data.objects[name]), full)  # bit for bit Regenerate's
    assert bpy.ops.ed.undo() == {"FINISHED"}  # one undo step: back to the preview
    np.testing.assert_array_equal(_positions(bpy.data.objects[name]), preview)


def test_a_change_while_the_job_runs_cancels_it_and_starts_over(bpy_empty, addon, monkeypatch):
    bpy = bpy_empty
    live = addon.live
    obj = _eroded(bpy, addon, monkeypatch)
    name = obj.name
    with _job_held(addon, monkeypatch, name) as first:
        obj.noisewright_terrain.noise.seed = 41  # a change while it runs: cancelled, its result never written
        assert name not in live._REBUILDS and addon.jobs.running(name) is None and live.pending() == {name}
    assert first.finished.wait(60.0) and first.cancelled
    live.flush()  # the change previewed
    assert set(live._PREVIEWED) == {name} and live._REBUILDS == {}
    live.flush(settle=True)  # released: a new job, waited for
    full = _positions(obj)
    addon.api.regenerate_terrain(bpy.context, obj)
    np.testing.assert_array_equal(_positions(obj), full)
    assert obj.noisewright_terrain.noise.seed == 41


def test_esc_cancels_the_job_and_the_preview_stays(bpy_empty, addon, monkeypatch):
    bpy = bpy_empty
    live = addon.live
    obj = _eroded(bpy, addon, monkeypatch)
    name = obj.name
    preview = _positions(obj)
    with _job_held(addon, monkeypatch, name):
        live.cancel(name)  # what Esc (NOISEWRIGHT_OT_live_escape) does
    live.wait()
    np.testing.assert_array_equal(_positions(obj), preview)  # nothing written: the preview stays
    assert addon.jobs.running(name) is None and live._REBUILDS == {}
    assert "cancelled; the preview stays" in live.previewing(name)
    assert bpy.ops.noisewright.regenerate_terrain() == {"FINISHED"}  # Regenerate builds it: the notice goes
    assert live.previewing(name) == "" and not np.array_equal(_positions(obj), preview)
    obj.noisewright_terrain.noise.seed = 42  # the next change: previewed again, then built in full
    live.flush()
    assert "the full terrain follows" in live.previewing(name)
    live.flush(settle=True)
    assert live.previewing(name) == ""
    full = _positions(obj)
    addon.api.regenerate_terrain(bpy.context, obj)
    np.testing.assert_array_equal(_positions(obj), full)


def test_another_file_loaded_cancels_the_job_and_forgets_the_terrains(bpy_empty, addon, monkeypatch):
    bpy = bpy_empty
    live = addon.live
    name = _eroded(bpy, addon, monkeypatch).name
    with _job_held(addon, monkeypatch, name) as worker:
        bpy.ops.wm.read_homefile(use_empty=True)
        assert live._REBUILDS == {} and addon.jobs.running(name) is None and live.previewing(name) == ""
    assert worker.finished.wait(60.0) and worker.cancelled
    live.wait()  # nothing left to write
    assert name not in bpy.data.objects


def test_the_job_s_progress_is_monotone_reaches_the_total_and_the_status_bar_shows_percent(
    bpy_empty, addon, monkeypatch
):
    import threading

    bpy = bpy_empty
    live, jobs = addon.live, addon.jobs
    obj = _eroded(bpy, addon, monkeypatch)
    name = obj.name
    seen, said = [], []
    moved = jobs.Worker.moved

    def recorded(worker, count):
        moved(worker, count)
        if threading.current_thread() is not threading.main_thread():
            seen.append(worker.done)

    monkeypatch.setattr(jobs.Worker, "moved", recorded)
    monkeypatch.setattr(live, "_say", said.append)
    with _job_held(addon, monkeypatch, name) as worker:
        assert worker.total == addon.terrain.REBUILD_STEPS
        live._watch()  # a tick while it runs
        assert said[-1] == f"Auto Refresh: building {name} in full: 0 % (Esc to cancel)"
    live.wait()
    assert worker.finished.is_set() and worker.error is None
    assert seen == sorted(seen) and seen[-1] == worker.total  # monotone, to the total
    noise_share = worker.total * 1 // (1 + addon.terrain_recipe.EROSION_WEIGHT)  # noise 1 part, the droplets 4
    assert noise_share in seen and len(set(seen)) >= 3, "the noise, then the erosion, each moved it on"


def test_the_job_computes_the_recorded_terrain_maps_on_its_worker_and_writes_regenerate_s(
    bpy_empty, addon, monkeypatch
):
    import threading

    bpy = bpy_empty
    live, terrain_maps = addon.live, addon.terrain_maps
    obj = _terrain(bpy, addon)
    terrain_maps.write_terrain_maps(obj, ("slope", "flow"), vertex_groups=True, radius=2)
    terrain_maps.write_terrain_maps(obj, ("curvature",), images=True, attributes=False)
    obj.noisewright_terrain.erosion.hydraulic, obj.noisewright_terrain.erosion.droplets = True, 4000
    monkeypatch.setattr(live, "in_background", lambda: False)
    obj.noisewright_terrain.noise.seed = 30
    live.flush()
    threads = []
    compute_maps = terrain_maps.compute_maps

    def recorded(*arguments, **options):
        threads.append(threading.current_thread() is threading.main_thread())
        return compute_maps(*arguments, **options)

    monkeypatch.setattr(terrain_maps, "compute_maps", recorded)
    live.flush(settle=True)  # the release: the job, waited for and written
    assert threads == [False, False], "both recorded entries computed on the worker"
    mesh = obj.data
    job = {name: np.array([a.value for a in mesh.attributes[name].data]) for name in ("slope", "flow")}
    everyone = range(len(mesh.vertices))
    groups = {g.name: [g.weight(i) for i in everyone] for g in obj.vertex_groups}
    image = np.array(bpy.data.images[f"{obj.name} curvature"].pixels[:])
    record = obj["noisewright_terrain_maps"]
    threads.clear()
    terrain_maps.rewrite_terrain_maps(obj)  # of the mesh as written, on the main thread: the same maps
    for name, values in job.items():
        np.testing.assert_array_equal([a.value for a in mesh.attributes[name].data], values)
    assert {g.name: [g.weight(i) for i in everyone] for g in obj.vertex_groups} == groups
    assert sorted(groups) == ["flow", "slope"]
    np.testing.assert_array_equal(bpy.data.images[f"{obj.name} curvature"].pixels[:], image)
    assert obj["noisewright_terrain_maps"] == record and threads == [True, True]


def test_a_preset_or_a_snapshot_is_written_as_a_whole_and_built_once(bpy_empty, addon, monkeypatch, tmp_path):
    """Applying a recipe or a ``.py`` preset writes many settings: none of them rebuilds the terrain on its own
    (``terrain_settings.held``); the preset builds it once. A single setting afterwards rebuilds it at once."""
    bpy = bpy_empty
    obj = _terrain(bpy, addon)
    builds: list[str] = []

    def counted(build):
        def counting(context, target, *arguments, **keywords):
            builds.append(target.name)
            return build(context, target, *arguments, **keywords)

        return counting

    monkeypatch.setattr(addon.live, "regenerate_terrain", counted(addon.live.regenerate_terrain))
    monkeypatch.setattr(addon.terrain_presets, "regenerate_terrain", counted(addon.terrain_presets.regenerate_terrain))
    addon.terrain_presets.apply_preset(bpy.context, obj, addon.terrain_presets.SHIPPED / "stylised_dunes.json")
    assert builds == [obj.name]
    script = tmp_path / "three.py"
    script.write_text("terrain.noise.octaves = 5\nterrain.noise.seed = 3\nterrain.height = 0.5\n")
    builds.clear()
    addon.terrain_presets.apply_preset(bpy.context, obj, script)
    assert builds == [obj.name]
    assert obj.noisewright_terrain.noise.seed == 3
    builds.clear()
    obj.noisewright_terrain.noise.seed = 8
    assert builds == [obj.name]
