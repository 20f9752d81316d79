"""Bakes as jobs (``addon/jobs.py``): Bake Noise Texture (stills, loops) and Bake Noise to UVs (UDIM tiles).

The UI's way is driven here through ``JobOperator.start_job`` and ``modal`` with a stand-in window manager and
timer/Esc events (background mode has no window); the parts are the operators' own (``bake.bake_job``,
``bake_uv.bake_uv_job``). Checked: the same bits as the foreground bake, progress monotone, Esc stopping the
worker at its next check (also while it encodes a file: the job ends without waiting for the encoder) and the
steps that put a file set in place at the Esc's tick, the scene and the folder as they were after a cancel or a
failure, one job per object, and background mode's printed progress. A cancel is checked by what the job does
after it (``conftest.ChecksAfterCancel``; an encoder it cannot cut is held until the job has ended), never by the
clock: the seconds a cancel takes are measured by scripts/bench_jobs.py."""

from __future__ import annotations

import threading
import time
from types import SimpleNamespace

import numpy as np
import pytest

from .conftest import ChecksAfterCancel, scene_state
from .test_uv_bake import udim_cube

pytestmark = pytest.mark.blender


class Manager:
    """What ``JobOperator`` asks of the window manager."""

    def __init__(self) -> None:
        self.updates: list[int] = []
        self.ended = False

    def progress_begin(self, _low, _high) -> None:
        pass

    def progress_update(self, value) -> None:
        self.updates.append(value)

    def progress_end(self) -> None:
        self.ended = True

    def event_timer_add(self, _tick, window=None) -> str:
        return "timer"

    def event_timer_remove(self, _timer) -> None:
        pass

    def modal_handler_add(self, _operator) -> None:
        pass


def _host(addon, label: str, key: str, job):
    class Host(addon.jobs.JobOperator):  # a plain class at run time: the modal logic without registering
        bl_label = label

        def __init__(self) -> None:
            self.reports: list[tuple[str, str]] = []

        def job_key(self, _context) -> str:
            return key

        def prepare(self, _context):
            return job

        def report(self, kinds, text) -> None:
            self.reports.append((next(iter(kinds)), text))

    return Host()


TIMER = SimpleNamespace(type="TIMER", value="NOTHING")
ESC = SimpleNamespace(type="ESC", value="PRESS")


def _drive(host, context, escape_when=lambda _host: False, seconds: float = 120.0):
    """Run ``host`` as the UI would: ticks until it ends, Esc once ``escape_when(host)``. Returns the result, the
    progress seen at each tick and what the Esc's tick returned (None without an Esc)."""
    assert host.start_job(context) == {"RUNNING_MODAL"}
    seen, on_escape = [], None
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        event = ESC if on_escape is None and escape_when(host) else TIMER
        result = host.modal(context, event)
        if event is ESC:
            on_escape = result
        seen.append(host._worker.done)
        if result != {"PASS_THROUGH"}:
            assert context.window_manager.ended
            return result, seen, on_escape
        time.sleep(0.005)
    raise AssertionError("the job did not end")


class HeldEncoder:
    """``image_io.write_image`` held at its start until ``release()``: an encoder that cannot be cut (as OpenEXR's)
    and is still at work when the job ends, so a job that ended waited for no encoder. ``entered``: it was
    called; ``finished``: the calls that wrote their file."""

    def __init__(self, write_image) -> None:
        self._write_image = write_image
        self.entered = threading.Event()
        self._gate = threading.Event()
        self.finished: list[bool] = []

    def __call__(self, *arguments) -> None:
        self.entered.set()
        self._gate.wait(60.0)  # only guards against a hang
        self._write_image(*arguments)
        self.finished.append(True)

    def release(self) -> None:
        self._gate.set()


def _context():
    return SimpleNamespace(window_manager=Manager(), workspace=None, window=object())


def _files(folder) -> dict:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


@pytest.fixture
def one_step_per_tick(addon, monkeypatch):
    """Steps run about half a tick's worth per timer tick: with a tiny tick, one each (Esc can fall between)."""
    monkeypatch.setattr(addon.jobs, "TICK", 1e-4)


def _loop_job(addon, path, frames=6, image="Loop"):
    spec = addon.noise_core.NoiseSpec(kind="simplex", frequency=3.0)
    return addon.bake.bake_job(spec, image=image, width=48, height=40, loop_frames=frames, save_format="PNG",
                               filepath=str(path))  # fmt: skip


def test_a_loop_bake_as_a_job_writes_the_foreground_bake_s_files(bpy_empty, addon, tmp_path, one_step_per_tick):
    bpy = bpy_empty
    (tmp_path / "job").mkdir()
    (tmp_path / "foreground").mkdir()
    foreground = _loop_job(addon, tmp_path / "foreground" / "loop.png", image="Foreground")
    expected = addon.jobs.run_foreground(bpy.context, "Bake", foreground)
    job = _loop_job(addon, tmp_path / "job" / "loop.png")
    host = _host(addon, "Bake Noise Texture", "image Loop", job)
    result, seen, _ = _drive(host, _context())
    assert result == {"FINISHED"} and host.reports == []
    assert seen == sorted(seen) and seen[-1] == job.total == 6  # one step per frame
    assert _files(tmp_path / "job") == _files(tmp_path / "foreground") and len(_files(tmp_path / "job")) == 6
    assert bpy.data.images["Loop"].source == "SEQUENCE" and expected.source == "SEQUENCE"
    assert sorted(i.name for i in bpy.data.images) == ["Foreground", "Loop"]  # no scratch image left
    assert addon.jobs.running("image Loop") is None


def test_esc_between_the_frames_of_a_loop_leaves_no_frame_and_the_scene_as_it_was(
    bpy_empty, addon, tmp_path, one_step_per_tick
):
    bpy = bpy_empty
    (tmp_path / "loop.0003.png").write_bytes(b"old frame")
    before = scene_state(bpy)
    job = _loop_job(addon, tmp_path / "loop.png", frames=8)
    host = _host(addon, "Bake Noise Texture", "image Loop", job)
    context = _context()
    refused = []

    def two_frames_saved(host) -> bool:
        if host._steps is None or host._worker.done < 2:
            return False
        assert addon.jobs.running("image Loop") is host._worker  # the Cancel button still finds it
        nothing = addon.jobs.Job(lambda advance: None, lambda result: None, 1)
        other = _host(addon, "Bake Noise Texture", "image Loop", nothing)
        refused.append((other.start_job(context), other.reports))  # one job per image at a time
        return True

    result, seen, on_escape = _drive(host, context, two_frames_saved)
    assert result == on_escape == {"CANCELLED"}  # the steps closed at the Esc's tick
    assert refused == [({"CANCELLED"}, [("ERROR", "'image Loop': a job is already running on it (wait for it or "
                                                  "press Esc to cancel it)")])]  # fmt: skip
    assert host.reports == [("WARNING", "Bake Noise Texture: cancelled; nothing was changed")]
    assert 2 <= seen[-1] < 8
    assert _files(tmp_path) == {"loop.0003.png": b"old frame"}  # no frame of the new set, no temporary file
    assert scene_state(bpy) == before  # no sequence, no scratch image, no saving scene
    assert addon.jobs.running("image Loop") is None


def test_esc_while_a_large_bake_computes_stops_it_at_its_next_chunk_and_changes_nothing(bpy_empty, addon, tmp_path):
    bpy = bpy_empty
    target = bpy.data.images.new("Target", 32, 32, float_buffer=True)
    target.pixels.foreach_set(np.linspace(0, 1, 32 * 32 * 4, dtype=np.float32))  # unsaved changes
    before = scene_state(bpy)
    spec = addon.noise_core.NoiseSpec(kind="simplex", octaves=8)
    job = addon.bake.bake_job(spec, image=target, width=4096, height=4096, save_format="PNG",
                              filepath=str(tmp_path / "big.png"))  # fmt: skip
    watched = ChecksAfterCancel(job.compute, lambda: host._worker.cancel_requested)
    host = _host(addon, "Bake Noise Texture", "image Target", addon.jobs.Job(watched, job.apply, job.total))
    result, seen, _ = _drive(host, _context(), lambda host: 0 < host._worker.done < host._worker.total)
    assert result == {"CANCELLED"} and watched.checks <= 1  # the noise stopped at its first check after the Esc
    assert host._worker.cancelled and 0 < seen[-1] < job.total
    assert seen == sorted(seen)
    assert scene_state(bpy) == before and list(tmp_path.iterdir()) == []


def test_esc_between_filling_an_existing_image_and_saving_it_puts_the_image_back(
    bpy_empty, addon, tmp_path, one_step_per_tick
):
    bpy = bpy_empty
    target = bpy.data.images.new("Target", 32, 32)
    target.pixels.foreach_set(np.linspace(0, 1, 32 * 32 * 4, dtype=np.float32))  # unsaved changes
    before = scene_state(bpy)
    job = addon.bake.bake_job(addon.noise_core.NoiseSpec(), image=target, width=64, height=48,
                              save_format="PNG", filepath=str(tmp_path / "t.png"))  # fmt: skip
    host = _host(addon, "Bake Noise Texture", "image Target", job)
    filled = []

    def after_the_fill(host) -> bool:
        if host._steps is not None:
            filled.append(tuple(target.size))
        return bool(filled)

    result, _, on_escape = _drive(host, _context(), after_the_fill)
    assert filled == [(64, 48)] and result == on_escape == {"CANCELLED"}  # the steps closed at the Esc's tick
    assert scene_state(bpy) == before and target.colorspace_settings.name == "sRGB"
    assert list(tmp_path.iterdir()) == []


def test_a_still_bake_as_a_job_equals_the_foreground_bake(bpy_empty, addon, tmp_path):
    bpy = bpy_empty
    spec = addon.noise_core.NoiseSpec(kind="perlin", octaves=4, tiling=True)
    options = {"width": 300, "height": 200, "map_type": "NORMAL", "save_format": "OPEN_EXR"}
    expected = addon.api.bake(bpy.context, spec, image="Foreground", filepath=str(tmp_path / "a.exr"), **options)
    job = addon.bake.bake_job(spec, image="Job", filepath=str(tmp_path / "b.exr"), **options)
    host = _host(addon, "Bake Noise Texture", "image Job", job)
    result, seen, _ = _drive(host, _context())
    assert result == {"FINISHED"} and seen == sorted(seen) and seen[-1] == job.total
    pixels = [np.empty(300 * 200 * 4, np.float32) for _ in range(2)]
    expected.pixels.foreach_get(pixels[0])
    bpy.data.images["Job"].pixels.foreach_get(pixels[1])
    np.testing.assert_array_equal(pixels[1], pixels[0])
    assert (tmp_path / "a.exr").read_bytes() == (tmp_path / "b.exr").read_bytes()


def _udim_job(addon, bpy, cube, path, **options):
    spec = addon.noise_core.NoiseSpec(frequency=2.0)
    return addon.bake_uv.bake_uv_job(bpy.context, cube, spec, width=64, height=48, margin=2, image="UV",
                                     save_format="PNG", filepath=str(path), **options)  # fmt: skip


def test_a_udim_bake_as_a_job_writes_the_foreground_bake_s_tiles(bpy_empty, addon, tmp_path, one_step_per_tick):
    bpy = bpy_empty
    cube = udim_cube(bpy)
    (tmp_path / "job").mkdir()
    (tmp_path / "foreground").mkdir()
    addon.jobs.run_foreground(bpy.context, "Bake", _udim_job(addon, bpy, cube, tmp_path / "foreground" / "uv.png"))
    job = _udim_job(addon, bpy, cube, tmp_path / "job" / "uv.png")
    host = _host(addon, "Bake Noise to UVs", cube.name, job)
    result, seen, _ = _drive(host, _context())
    assert result == {"FINISHED"} and seen == sorted(seen) and seen[-1] == job.total
    assert sorted(_files(tmp_path / "job")) == ["uv.1001.png", "uv.1002.png"]
    assert _files(tmp_path / "job") == _files(tmp_path / "foreground")
    tiled = [image for image in bpy.data.images if image.source == "TILED"]  # the foreground's and the job's
    assert len(tiled) == 2 and all(sorted(t.number for t in image.tiles) == [1001, 1002] for image in tiled)


def _until_no_file_left(folder, seconds: float = 10.0) -> list[str]:
    """The names in ``folder`` once an abandoned encoder has removed its temporary file (or ``seconds`` passed)."""
    deadline = time.monotonic() + seconds
    while any(p.name.startswith(".") for p in folder.iterdir()) and time.monotonic() < deadline:
        time.sleep(0.01)
    return sorted(p.name for p in folder.iterdir())


def test_esc_while_udim_tiles_are_encoded_and_a_failed_tile_leave_no_tile_and_the_scene_as_it_was(
    bpy_empty, addon, tmp_path, monkeypatch
):
    """An encoder that cannot be interrupted (as OpenEXR's) holds up neither the window nor a cancel: the job ends
    while the encoder still runs, and the encoder, left to finish, removes its temporary file."""
    bpy = bpy_empty
    cube = udim_cube(bpy)
    before = scene_state(bpy)
    encoder = HeldEncoder(addon.image_io.write_image)
    monkeypatch.setattr(addon.image_io, "write_image", encoder)
    job = _udim_job(addon, bpy, cube, tmp_path / "uv.png")
    host = _host(addon, "Bake Noise to UVs", cube.name, job)
    result, _, _ = _drive(host, _context(), lambda host: encoder.entered.is_set())
    assert result == {"CANCELLED"} and encoder.finished == []  # ended while its encoder was held
    assert host._worker.cancelled and scene_state(bpy) == before
    encoder.release()
    assert _until_no_file_left(tmp_path) == []
    monkeypatch.undo()

    (tmp_path / "uv.1002.png").mkdir()  # the second tile cannot be written
    job = _udim_job(addon, bpy, cube, tmp_path / "uv.png")
    host = _host(addon, "Bake Noise to UVs", cube.name, job)
    result, _, _ = _drive(host, _context())
    assert result == {"CANCELLED"} and host.reports[0][0] == "ERROR"
    assert host.reports[0][1].startswith("filepath: could not save")
    assert [p.name for p in tmp_path.iterdir()] == ["uv.1002.png"] and scene_state(bpy) == before


@pytest.mark.parametrize(("save_format", "color_mode"), [("PNG", "GRAYSCALE"), ("OPEN_EXR", "GRAYSCALE"),
                                                           ("PNG", "RAMP")])  # fmt: skip
def test_esc_while_a_file_is_encoded_ends_the_job_before_the_encoder_and_leaves_no_file(
    bpy_empty, addon, tmp_path, monkeypatch, save_format, color_mode
):
    """The file is encoded in the worker (Pillow, OpenEXR: neither can be interrupted; a ramp's sRGB encoding for
    PNG), here held at its start: Esc then ends the job without waiting for the encoder, which, let go, removes
    its temporary file."""
    bpy = bpy_empty
    (tmp_path / "big.png").write_bytes(b"old file")
    (tmp_path / "big.exr").write_bytes(b"old file")
    before, kept = scene_state(bpy), _files(tmp_path)
    encoder = HeldEncoder(addon.image_io.write_image)
    monkeypatch.setattr(addon.image_io, "write_image", encoder)
    options = {"width": 512, "height": 512, "save_format": save_format, "color_mode": color_mode}
    job = addon.bake.bake_job(addon.noise_core.NoiseSpec(), image="Big", filepath=str(tmp_path / "big"), **options)
    host = _host(addon, "Bake Noise Texture", "image Big", job)
    result, seen, _ = _drive(host, _context(), lambda host: encoder.entered.is_set())
    assert result == {"CANCELLED"} and host._worker.cancelled and encoder.finished == []  # ended while held
    assert seen[-1] >= 512 * 512  # the noise was done: the cancel came while encoding
    assert scene_state(bpy) == before
    encoder.release()
    assert _until_no_file_left(tmp_path) == ["big.exr", "big.png"] and _files(tmp_path) == kept


def test_a_failure_in_the_worker_is_reported_and_changes_nothing(bpy_empty, addon):
    bpy = bpy_empty
    before = scene_state(bpy)
    job = addon.bake.bake_job(addon.noise_core.NoiseSpec(), image="Failing", width=64, height=64)

    def failing(advance):
        job.compute(advance)
        raise addon.errors.UserError("noise: the worker failed")

    host = _host(addon, "Bake Noise Texture", "image Failing", addon.jobs.Job(failing, job.apply, job.total))
    result, _, _ = _drive(host, _context())
    assert result == {"CANCELLED"} and host.reports == [("ERROR", "noise: the worker failed")]
    assert scene_state(bpy) == before


def test_background_bakes_run_in_the_foreground_with_progress_printed(bpy_empty, addon, tmp_path, capsys):
    bpy = bpy_empty
    assert bpy.app.background
    capsys.readouterr()
    assert bpy.ops.noisewright.bake_texture("INVOKE_DEFAULT", image_name="Still", width=64, height=64) == {"FINISHED"}
    assert "Noisewright: Bake Noise Texture: 100 %" in capsys.readouterr().out
    assert bpy.ops.noisewright.bake_texture(
        "INVOKE_DEFAULT", image_name="Loop", width=16, height=16, loop_frames=3, save_format="PNG",
        filepath=str(tmp_path / "loop.png"),
    ) == {"FINISHED"}  # fmt: skip
    printed = capsys.readouterr().out
    assert "Noisewright: Bake Noise Texture: 33 %" in printed and "Bake Noise Texture: 100 %" in printed
    assert bpy.data.images["Loop"].source == "SEQUENCE" and len(list(tmp_path.iterdir())) == 3
    cube = udim_cube(bpy)
    bpy.context.view_layer.objects.active = cube
    assert bpy.ops.noisewright.bake_uv(
        "INVOKE_DEFAULT", image_name="UV", width=32, height=32, save_format="PNG", filepath=str(tmp_path / "uv.png")
    ) == {"FINISHED"}  # fmt: skip
    assert "Noisewright: Bake Noise to UVs: 100 %" in capsys.readouterr().out
    assert bpy.data.images["UV"].source == "TILED"


def test_the_bake_operators_are_jobs_with_one_undo_step(addon):
    for operator in (addon.bake.NOISEWRIGHT_OT_bake_texture, addon.bake_uv.NOISEWRIGHT_OT_bake_uv):
        assert issubclass(operator, addon.jobs.JobOperator) and "UNDO" in operator.bl_options


def test_a_stream_hands_out_its_items_in_order_a_few_ahead_and_stops_when_closed(addon):
    made = []

    def produce(index, check):
        check()
        made.append(index)
        return index * index

    stream = addon.jobs.Stream(produce, 100, ahead=2)
    assert [stream.get(timeout=5.0) for _ in range(3)] == [0, 1, 4]
    time.sleep(0.3)
    assert len(made) <= 3 + 2 + 1  # handed out, waiting in the queue, one made and waiting for room
    stream.close()
    time.sleep(0.3)
    stopped = len(made)
    time.sleep(0.2)
    assert len(made) == stopped < 100

    def failing(index, check):
        if index == 1:
            raise ValueError("frame 1 failed")
        return index

    stream = addon.jobs.Stream(failing, 3)
    assert stream.get(timeout=5.0) == 0
    with pytest.raises(ValueError, match="frame 1 failed"):
        stream.get(timeout=5.0)
    slow = addon.jobs.Stream(lambda index, check: time.sleep(0.5) or index, 1)
    assert slow.get(timeout=0.01) is None  # not ready yet: the caller gets the window back
    assert slow.get() == 0


def test_a_plain_apply_lands_at_once_and_a_bug_in_the_worker_is_raised(addon):
    assert addon.jobs.steps_of({"a": 1}) is None and addon.jobs.steps_of(None) is None
    applied = []

    def apply(result):
        applied.append(result)
        return {"slope": None}  # what an apply returns, unless a generator (its steps), is not looked at

    host = _host(addon, "Erode Terrain", "Plain", addon.jobs.Job(lambda advance: advance(5) or "eroded", apply, 5))
    result, seen, _ = _drive(host, _context())
    assert result == {"FINISHED"} and applied == ["eroded"] and seen[-1] == 5 and host.reports == []

    def bug(advance):
        raise ZeroDivisionError("a bug")

    host = _host(addon, "Erode Terrain", "Bug", addon.jobs.Job(bug, applied.append, 1))
    with pytest.raises(ZeroDivisionError, match="a bug"):
        _drive(host, _context())
    assert applied == ["eroded"] and addon.jobs.running("Bug") is None


class _Panel:
    """Records the operator buttons a panel's draw puts into its layout (background mode has no UI)."""

    def __init__(self) -> None:
        self.buttons: list[tuple[str, str, dict]] = []

    def operator(self, idname, text="", **_options):
        button = SimpleNamespace()
        self.buttons.append((idname, text, button.__dict__))
        return button

    def label(self, **_options):
        pass


def test_the_bake_panel_s_cancel_button_cancels_a_running_bake_keyed_by_its_image(bpy_empty, addon, tmp_path):
    bpy = bpy_empty
    target = bpy.data.images.new("Target", 32, 32)
    before = scene_state(bpy)
    job = addon.bake.bake_job(addon.noise_core.NoiseSpec(kind="simplex", octaves=8), image=target, width=4096,
                              height=4096, save_format="PNG", filepath=str(tmp_path / "big.png"))  # fmt: skip
    watched = ChecksAfterCancel(job.compute, lambda: host._worker.cancel_requested)
    host = _host(addon, "Bake Noise Texture", "image Target", addon.jobs.Job(watched, job.apply, job.total))
    panel = SimpleNamespace(layout=_Panel())
    assert not bpy.ops.noisewright.cancel_job.poll(), "no job runs: nothing to cancel"
    pressed = []

    def press_cancel(host) -> bool:
        if not 0 < host._worker.done < host._worker.total or pressed:
            return False
        addon.panels.IMAGE_PT_noisewright_bake.draw(panel, bpy.context)  # no active object: the image's job only
        cancels = [(text, button) for idname, text, button in panel.layout.buttons if idname.endswith("cancel_job")]
        assert cancels == [("Cancel (image Target)", {"key": "image Target"})]
        pressed.append(bpy.ops.noisewright.cancel_job(key="image Target"))  # as the button does
        return False  # no Esc: the next tick sees the cancel

    result, seen, on_escape = _drive(host, _context(), press_cancel)
    assert pressed == [{"FINISHED"}] and on_escape is None and watched.checks <= 1  # stopped at its next check
    assert result == {"CANCELLED"} and host._worker.cancelled and 0 < seen[-1] < job.total
    assert host.reports == [("WARNING", "Bake Noise Texture: cancelled; nothing was changed")]
    assert scene_state(bpy) == before and list(tmp_path.iterdir()) == []
    assert addon.jobs.running("image Target") is None and not bpy.ops.noisewright.cancel_job.poll()
    assert bpy.ops.noisewright.cancel_job.get_rna_type().properties["key"].is_skip_save


@pytest.mark.parametrize("when", ["worker done", "steps begun"])
def test_blender_dropping_a_running_bake_leaves_no_file_and_the_scene_as_it_was(
    bpy_empty, addon, tmp_path, one_step_per_tick, when
):
    """Blender calls ``cancel`` on a modal operator it drops (a file loaded, the window closed): the files the
    worker encoded are discarded, the steps so far undone, the job's key freed."""
    bpy = bpy_empty
    target = bpy.data.images.new("Target", 32, 32)
    before = scene_state(bpy)
    job = addon.bake.bake_job(addon.noise_core.NoiseSpec(), image=target, width=64, height=48,
                              save_format="PNG", filepath=str(tmp_path / "t.png"))  # fmt: skip
    host = _host(addon, "Bake Noise Texture", "image Target", job)
    context = _context()
    assert host.start_job(context) == {"RUNNING_MODAL"}
    assert host._worker.finished.wait(60)
    if when == "steps begun":
        assert host.modal(context, TIMER) == {"PASS_THROUGH"} and host._steps is not None  # the image filled
        assert tuple(target.size) == (64, 48)
    else:
        assert any(p.name.startswith(".t.") for p in tmp_path.iterdir())  # the file encoded, not yet in place
    host.cancel(context)
    assert _until_no_file_left(tmp_path) == [] and context.window_manager.ended
    assert scene_state(bpy) == before and addon.jobs.running("image Target") is None


def test_esc_during_a_step_the_worker_cannot_cut_keeps_the_window_live_until_it_ends(addon):
    """A first-use compile (here a step held until the test lets it go) cannot be interrupted: the first Esc waits
    ``CANCEL_WAIT`` at most for the worker, later ticks only look (they wait for nothing: the window stays live),
    the status says it is cancelling, and the job then ends cancelled with nothing applied."""
    applied = []
    uncut = threading.Event()

    def compute(advance):
        advance(1)
        uncut.wait(60.0)  # no check in here (the timeout only guards against a hang)
        advance(1)
        return "late"

    host = _host(addon, "Erode Terrain", "Uncut", addon.jobs.Job(compute, applied.append, 4))
    context = _context()
    statuses = []
    context.workspace = SimpleNamespace(status_text_set=statuses.append)
    assert host.start_job(context) == {"RUNNING_MODAL"}
    waits = []
    cancel = host._worker.cancel
    host._worker.cancel = lambda wait=addon.jobs.CANCEL_WAIT: waits.append(wait) or cancel(wait)
    while host._worker.done < 1:
        time.sleep(0.005)
    assert host.modal(context, ESC) == {"PASS_THROUGH"} and waits == [addon.jobs.CANCEL_WAIT]
    ticks = 0
    while True:
        if ticks == 5:
            uncut.set()  # the compile ends; the job's next check ends it
        result = host.modal(context, TIMER)
        ticks += 1
        if result != {"PASS_THROUGH"}:
            break
        time.sleep(0.01)
    assert result == {"CANCELLED"} and applied == [] and ticks > 5
    assert waits[1:] == [0.0] * (len(waits) - 1) and len(waits) > 5  # the ticks after the Esc only looked
    assert "Erode Terrain: cancelling" in statuses and host.reports[-1][0] == "WARNING"
    assert addon.jobs.running("Uncut") is None
