"""First use inside Blender: the cache in the extension's user folder, the compile notices of operators and
the preview, and compiling every kind ahead of time from the preferences (with Cancel).

Each test uses a kernel no other Blender test compiles (a Voronoi distance metric with tiling, say), so
"not compiled yet" holds at its start: the test session's user folder, and so the cache, is new.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.blender


def _numba_files(folder: Path) -> list[Path]:
    return [path for path in folder.rglob("*") if path.suffix in (".nbi", ".nbc")]


def test_kernels_are_cached_in_the_extensions_user_folder(bpy_empty, addon):
    """In the user folder, or under ``NUMBA_CACHE_DIR`` when the environment sets it (``scripts/run.sh test`` does,
    so that every process of a test run shares one cache; test_read_only_install checks the user folder then)."""
    bpy = bpy_empty
    user_folder = Path(bpy.utils.extension_path_user(addon.__name__, path="numba_cache"))
    location = Path(addon.noise_core.cache_location())
    chosen = os.environ.get("NUMBA_CACHE_DIR")
    if chosen:
        assert location.relative_to(chosen).parts[0] == f"{addon.__name__}.noise_core"
    else:
        assert location.parent == user_folder
    assert bpy.ops.noisewright.add_terrain(x_subdivisions=4, y_subdivisions=4) == {"FINISHED"}
    assert _numba_files(location), "nothing was cached in the user folder"
    assert not _numba_files(Path(addon.__file__).parent), "cache files were written into the install folder"
    preferences = bpy.context.preferences.addons[addon.__name__].preferences
    assert isinstance(preferences, addon.preferences.NoisewrightPreferences)


def test_compile_state_says_whether_a_kernel_would_compile(bpy_empty, addon):
    status = addon.compile_status
    spec = addon.noise_core.NoiseSpec(kind="voronoi", distance="chebyshev", tiling=True)
    assert status.needs_compile(spec, 1)
    assert addon.noise_core.compile_state(spec, 1) == "uncompiled"
    assert addon.noise_core.precompile(spec, 1) == "uncompiled"
    assert not status.needs_compile(spec, 1)
    assert addon.noise_core.compile_state(spec, 1) == "compiled"
    assert status.needs_compile(spec, 1, np.float32), "float32 points run another kernel"
    same_kernel = addon.noise_core.NoiseSpec(kind="voronoi", distance="chebyshev", tiling=True, seed=5, octaves=3)
    assert not status.needs_compile(same_kernel, 1)


def test_the_preview_says_it_is_compiling_while_it_waits(bpy_empty, addon):
    preview = addon.preview
    spec = addon.noise_core.NoiseSpec(kind="voronoi", distance="manhattan", tiling=True)
    domain = addon.mapping.Domain(dimensions=2)
    assert addon.compile_status.needs_compile(spec, 2)
    assert preview.status() == ""
    preview.request(spec, domain)
    assert preview.tick() is not None  # the worker started
    assert preview.status() == "Compiling voronoi noise (2D) - first use only, this takes a few seconds"
    preview.wait()
    assert preview.status() == ""
    assert preview.preview_pixels() is not None
    preview.request(addon.noise_core.NoiseSpec(kind="voronoi", distance="manhattan", tiling=True, seed=9), domain)
    preview.tick()
    assert preview.status() == "", "the kernel is compiled now: nothing to announce"
    preview.wait()


def test_an_operator_that_compiles_says_so_first(bpy_empty, addon, capfd):
    bpy = bpy_empty
    settings = bpy.context.scene.noisewright
    settings.kind = "voronoi"
    settings.distance = "squared"
    settings.tiling = True
    assert addon.compile_status.needs_compile(addon.mapping.to_spec(settings), 2)
    capfd.readouterr()
    assert bpy.ops.noisewright.bake_texture(width=8, height=8) == {"FINISHED"}
    assert "Noisewright: Compiling voronoi noise (2D) - first use only" in capfd.readouterr().out
    assert bpy.ops.noisewright.bake_texture(width=8, height=8, image_name="Again") == {"FINISHED"}
    assert "Compiling" not in capfd.readouterr().out


def test_normal_maps_and_uv_bakes_that_compile_say_so_first(bpy_empty, addon, capfd):
    """They run kernels of their own (derivatives; the UV rasteriser and 3D noise), listed by their plans."""
    bpy = bpy_empty
    settings = bpy.context.scene.noisewright
    settings.kind = "simplex"
    settings.fractal = "hybrid"
    settings.dimensions = "2"
    capfd.readouterr()
    assert bpy.ops.noisewright.bake_texture(width=8, height=8, map_type="NORMAL", normal_method="ANALYTIC") == {
        "FINISHED"
    }
    assert "Noisewright: Compiling simplex noise (2D) - first use only" in capfd.readouterr().out
    assert bpy.ops.noisewright.bake_texture(width=8, height=8, map_type="NORMAL", image_name="Again") == {"FINISHED"}
    assert "Compiling" not in capfd.readouterr().out
    settings.kind = "voronoi"
    settings.distance = "chebyshev"
    settings.fractal = "ridged"
    bpy.ops.mesh.primitive_cube_add()
    assert bpy.ops.noisewright.bake_uv(width=8, height=8, image_name="UV") == {"FINISHED"}
    assert "Noisewright: Compiling voronoi noise (3D) - first use only" in capfd.readouterr().out
    assert bpy.ops.noisewright.bake_uv(width=8, height=8, image_name="UV again") == {"FINISHED"}
    assert "Compiling" not in capfd.readouterr().out


def test_precompile_operator_compiles_every_kernel_of_a_kind(bpy_empty, addon):
    bpy = bpy_empty
    status = addon.compile_status
    kernels = [kernel for kernel in status.KERNELS if kernel.spec.kind == "hill"]
    assert [(kernel.dim, np.dtype(kernel.dtype).name, kernel.transform_width) for kernel in kernels] == [
        (1, "float64", None),
        (1, "float32", 3),
        (1, "float64", 3),
        (2, "float64", None),
        (2, "float32", 3),
        (2, "float64", 3),
        (3, "float64", None),
        (3, "float32", 3),
        (3, "float64", 3),
        (3, "float32", None),
    ]
    assert bpy.ops.noisewright.precompile(kind="hill") == {"FINISHED"}
    assert status.ready_count(kernels) == len(kernels)
    job = addon.preferences._jobs.job
    assert (job.done, job.total, job.finished, job.error) == (10, 10, True, None)


def test_precompile_can_be_cancelled_between_kernels(bpy_empty, addon):
    bpy = bpy_empty
    preferences = addon.preferences
    started, release = threading.Event(), threading.Event()
    compiled = []

    def slow_compile(kernel):
        started.set()
        assert release.wait(60), "the test did not release the first kernel"
        compiled.append(kernel)

    kernels = addon.compile_status.KERNELS[:3]
    job = preferences.start_job(kernels, slow_compile)
    assert started.wait(60)
    assert preferences.running_job() is job
    assert job.progress_text() == f"Compiling {kernels[0].label} (1 of 3)"
    assert not bpy.ops.noisewright.precompile.poll(), "one job at a time"
    assert bpy.ops.noisewright.precompile_cancel() == {"FINISHED"}
    release.set()
    job.join(60)
    assert (job.finished, job.cancelled, job.done, compiled) == (True, True, 1, [kernels[0]])
    assert preferences.running_job() is None
    assert not bpy.ops.noisewright.precompile_cancel.poll()


def test_a_failing_compile_is_handed_over(bpy_empty, addon):
    def broken(_kernel):
        raise MemoryError("out of memory while compiling")

    job = addon.preferences.start_job(addon.compile_status.KERNELS[:2], broken)
    job.join(60)
    assert isinstance(job.error, MemoryError) and job.done == 0 and job.finished


class _Layout:
    """Records what a draw function puts into a layout (headless Blender has no UI to draw into)."""

    def __init__(self, drawn: list):
        self.drawn = drawn

    def column(self, **_options):
        return self

    row = column

    def separator(self, **_options):
        pass

    def label(self, text="", **_options):
        self.drawn.append(("label", text))

    def operator(self, idname, **_options):
        self.drawn.append(("operator", idname))

    def progress(self, factor=0.0, text="", **_options):
        self.drawn.append(("progress", round(factor, 3), text))


def _draw_preferences(addon) -> list:
    drawn: list = []
    owner = type("Preferences", (), {"layout": _Layout(drawn)})()
    addon.preferences.NoisewrightPreferences.draw(owner, None)
    return drawn


def test_preferences_show_the_cache_folder_the_button_and_a_running_jobs_progress(bpy_empty, addon):
    preferences = addon.preferences
    idle = _draw_preferences(addon)
    assert ("label", addon.noise_core.cache_location()) in idle
    assert ("operator", "noisewright.precompile") in idle
    total = len(addon.compile_status.KERNELS)
    assert any(kind == "label" and text.endswith(f" of {total} kernels ready") for kind, text, *_ in idle)

    started, release = threading.Event(), threading.Event()

    def slow_compile(_kernel):
        started.set()
        release.wait(60)

    kernels = addon.compile_status.KERNELS[:4]
    job = preferences.start_job(kernels, slow_compile)
    try:
        assert started.wait(60)
        running = _draw_preferences(addon)
        assert ("operator", "noisewright.precompile_cancel") in running
        assert ("operator", "noisewright.precompile") not in running
        (progress,) = [item for item in running if item[0] == "progress"]
        assert progress[1] == 0.0 and progress[2] == f"Compiling {kernels[0].label} (1 of 4)"
    finally:
        job.cancel()
        release.set()
        job.join(60)


def test_disabling_the_add_on_cancels_a_running_precompile_job(bpy_empty, addon):
    started, release = threading.Event(), threading.Event()

    def slow_compile(_kernel):
        started.set()
        release.wait(60)

    job = addon.preferences.start_job(addon.compile_status.KERNELS[:3], slow_compile)
    assert started.wait(60)
    try:
        addon.unregister()
        assert job.cancelled
    finally:
        release.set()
        job.join(60)
        addon.register()
    assert job.done == 1


class _Workspace:
    """Records the status bar's texts (a stand-in: background mode has no window)."""

    def __init__(self) -> None:
        self.texts: list[str | None] = []

    def status_text_set(self, text) -> None:
        self.texts.append(text)


def _job_in_the_ui(addon, job, key):
    """``job`` run as the UI runs it (``JobOperator.start_job`` and ``modal`` with timer events: the worker thread
    and the steps); the status bar's texts."""
    from types import SimpleNamespace

    from .test_jobs_bake import _context, _drive, _host

    host = _host(addon, "Bake Noise Texture", key, job)
    context = _context()
    context.workspace = _Workspace()
    result, _seen, _on_escape = _drive(host, context)
    assert result == {"FINISHED"} and host.reports == []
    assert isinstance(context, SimpleNamespace)
    return [text for text in context.workspace.texts if text]


def test_a_bake_run_as_a_job_says_in_the_status_bar_that_it_compiles(bpy_empty, addon):
    spec = addon.noise_core.NoiseSpec(kind="white", fractal="multifractal", octaves=2)
    assert addon.compile_status.needs_compile(spec, 2, lattice=True)
    job = addon.bake.bake_job(spec, image="White", width=16, height=16)
    texts = _job_in_the_ui(addon, job, "image White")
    notice = "Compiling white noise (2D) - first use only"
    assert any(text.startswith(f"Bake Noise Texture: 0 %, {notice}") for text in texts), texts
    again = addon.bake.bake_job(spec, image="White again", width=16, height=16)
    assert not any("Compiling" in text for text in _job_in_the_ui(addon, again, "image White again"))


def test_a_loop_s_frames_say_that_they_compile_in_the_ui_and_in_background(bpy_empty, addon, tmp_path, capfd):
    """The frames are made by a ``jobs.Stream`` (a thread of its own), its notice handed to the job's status bar,
    or printed in background mode, by the thread that made the stream."""
    bpy = bpy_empty
    made = []
    for kind, fractal in (("simplex_value", "hetero_terrain"), ("perlin", "multifractal")):
        spec = addon.noise_core.NoiseSpec(kind=kind, fractal=fractal, octaves=2, frequency=3.0)
        assert addon.compile_status.needs_compile(spec, 4), "a loop reads 4D noise"
        made.append(addon.bake.bake_job(spec, image=kind, width=8, height=8, loop_frames=3, save_format="PNG",
                                        filepath=str(tmp_path / f"{kind}.png")))  # fmt: skip
    texts = _job_in_the_ui(addon, made[0], "image simplex_value")
    assert any(", Compiling simplex value noise (4D) - first use only" in text for text in texts), texts
    capfd.readouterr()
    addon.jobs.run_foreground(bpy.context, "Bake Noise Texture", made[1])
    assert "Noisewright: Compiling perlin noise (4D) - first use only" in capfd.readouterr().out


def test_a_worker_s_notice_lasts_until_its_progress_moves(addon):
    jobs = addon.jobs
    said, go = threading.Event(), threading.Event()

    def compute(advance):
        addon.compile_status.listener()("Compiling something - first use only")
        said.set()
        assert go.wait(60)
        advance(1)
        return "done"

    worker = jobs.Worker(compute, 4).start()
    assert said.wait(60)
    assert worker.status("Job") == "Job: 0 %, Compiling something - first use only (Esc to cancel)"
    go.set()
    assert worker.finished.wait(60) and worker.result == "done"
    assert worker.notice == "" and worker.status("Job").startswith("Job: 25 %")
