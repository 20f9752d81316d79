"""Bakes and terrain work as jobs (issue 33): what the UI's way costs and how fast it lets go; prints one JSON object.

    python scripts/bench_jobs.py                # still 4096², loop 24 x 512², UDIM 2 x 2048², terrain jobs
    python scripts/bench_jobs.py --side 2048
    python scripts/bench_jobs.py --only terrain

For each bake the parts of the operator's job (``bake.bake_job``, ``bake_uv.bake_uv_job``) run as the modal
operator runs them, without a window: ``compute`` in a ``jobs.Worker`` thread, then ``apply``'s steps one at a
time on this thread. Reported: the foreground bake's wall time (``api.bake``/``api.bake_uv``), the job's, the
longest piece of main-thread work while the job ran (what the window waits for at worst), and how long a cancel
took to stop the work (the worker mid-way, or the steps mid-way; for the still also while its 16-bit PNG or
OpenEXR file is encoded). The loop also times the frames made and written one after the other (no
``jobs.Stream`` making frames ahead). ``terrain``: how long a cancel takes to stop the terrain jobs' work in
their worker once it is under way (the tests check that it stops at its next check, not how soon): erosion of
4M droplets, a heightmap exported as 256 tiles, and the terrain maps of a 1025² grid.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from importlib.util import module_from_spec, spec_from_file_location
from pathlib import Path

import bpy

if "_blender_addon" not in sys.modules:  # by its path: ``blender --python`` leaves scripts/ off sys.path (docs/cli.md)
    _spec = spec_from_file_location("_blender_addon", Path(__file__).resolve().with_name("_blender_addon.py"))
    _spec.loader.exec_module(_module := module_from_spec(_spec))
    sys.modules["_blender_addon"] = _module
_blender_addon = sys.modules["_blender_addon"]


def _seconds(run) -> float:
    began = time.perf_counter()
    run()
    return round(time.perf_counter() - began, 3)


def as_job(addon, job, cancel_at: float | None = None, cancel_when=None) -> dict:
    """``job``'s parts as the modal operator runs them; with ``cancel_at`` (a fraction of the progress) cancelled
    there (in the worker, or between the steps), with ``cancel_when`` once it says so (in the worker)."""
    worker = addon.jobs.Worker(job.compute, job.total)
    began = time.perf_counter()
    worker.start()
    while not worker.finished.is_set():
        if (cancel_at is not None and worker.done >= cancel_at * worker.total) or (cancel_when and cancel_when()):
            asked = time.perf_counter()
            worker.cancel(wait=5.0)
            return {"cancel_ms": round((time.perf_counter() - asked) * 1e3, 1), "where": "worker"}
        time.sleep(0.005)
    if worker.error is not None:
        raise worker.error
    longest = 0.0
    step = time.perf_counter()
    steps = job.apply(worker.result)
    longest = time.perf_counter() - step
    for count in steps or ():
        worker.moved(count)
        longest = max(longest, time.perf_counter() - step)
        if cancel_at is not None and worker.done >= cancel_at * worker.total:
            asked = time.perf_counter()
            steps.close()
            return {"cancel_ms": round((time.perf_counter() - asked) * 1e3, 1), "where": "steps"}
        step = time.perf_counter()
    longest = max(longest, time.perf_counter() - step)
    return {"job_s": round(time.perf_counter() - began, 3), "longest_main_thread_ms": round(longest * 1e3, 1)}


def still(addon, side: int, folder: Path) -> dict:
    spec = addon.api.NoiseSpec(kind="perlin", octaves=6)
    options = {"width": side, "height": side, "save_format": "PNG"}
    result = {"pixels": side * side}
    target = str(folder / "f.png")
    result["foreground_s"] = _seconds(lambda: addon.api.bake(bpy.context, spec, image="F", filepath=target, **options))
    result.update(as_job(addon, addon.bake.bake_job(spec, image="J", filepath=str(folder / "j.png"), **options)))
    job = addon.bake.bake_job(spec, image="C", filepath=str(folder / "c.png"), **options)
    result["cancel"] = as_job(addon, job, cancel_at=0.5)
    for save_format, mode in (("PNG", "GRAYSCALE"), ("OPEN_EXR", "GRAYSCALE"), ("PNG", "RAMP")):
        encoded = {**options, "save_format": save_format, "color_mode": mode}  # cancelled once the noise is done
        job = addon.bake.bake_job(spec, image="E", filepath=str(folder / "e"), **encoded)
        encoding = lambda: any(path.name.startswith(".e.") for path in folder.iterdir())  # noqa: E731
        result[f"cancel_while_encoding_{save_format}_{mode}"] = as_job(addon, job, cancel_when=encoding)
        _until_encoders_end(folder)
    return result


def _until_encoders_end(folder: Path) -> None:
    """Wait until the encoders a cancel abandoned have removed their temporary files (they run on)."""
    while any(path.name.startswith(".") for path in folder.iterdir()):
        time.sleep(0.01)


def loop(addon, side: int, frames: int, folder: Path) -> dict:
    spec = addon.api.NoiseSpec(kind="simplex", octaves=4)
    options = {"width": side, "height": side, "loop_frames": frames, "save_format": "PNG"}
    result = {"frames": frames, "pixels": side * side}
    target = str(folder / "f.png")
    result["foreground_s"] = _seconds(lambda: addon.api.bake(bpy.context, spec, image="F", filepath=target, **options))
    domain = addon.api.Domain(dimensions=2)

    def one_after_another() -> None:
        paths = [str(folder / f"s.{frame + 1:04d}.png") for frame in range(frames)]
        staged = addon.image_io.stage(paths)
        for frame in range(frames):
            values = addon.pixels.noise01_image(spec, domain, side, side, loop=(frame, frames, 0.25))
            written = addon.image_io.file_pixels(values, side, side, float_image=True, data=True, file_format="PNG")
            addon.image_io.write_file(staged, frame, lambda written=written: written, "PNG")
        addon.image_io.commit(staged)

    result["one_after_another_s"] = _seconds(one_after_another)
    result.update(as_job(addon, addon.bake.bake_job(spec, image="J", filepath=str(folder / "j.png"), **options)))
    job = addon.bake.bake_job(spec, image="C", filepath=str(folder / "c.png"), **options)
    result["cancel"] = as_job(addon, job, cancel_at=0.5)
    return result


def udim(addon, side: int, folder: Path) -> dict:
    bpy.ops.mesh.primitive_cube_add()
    cube = bpy.context.active_object
    uv = cube.data.uv_layers.active.uv
    for polygon in list(cube.data.polygons)[:3]:  # three faces one tile right: tiles 1001 and 1002
        for corner in polygon.loop_indices:
            uv[corner].vector = (uv[corner].vector[0] + 1.0, uv[corner].vector[1])
    spec = addon.api.NoiseSpec(kind="perlin", octaves=6)
    options = {"width": side, "height": side, "margin": 16, "save_format": "PNG"}
    result = {"tiles": 2, "pixels": side * side}
    result["foreground_s"] = _seconds(lambda: addon.api.bake_uv(bpy.context, cube, spec, image="F",
                                                                filepath=str(folder / "f.png"), **options))  # fmt: skip
    result.update(as_job(addon, addon.bake_uv.bake_uv_job(bpy.context, cube, spec, image="J",
                                                          filepath=str(folder / "j.png"), **options)))  # fmt: skip
    job = addon.bake_uv.bake_uv_job(bpy.context, cube, spec, image="C", filepath=str(folder / "c.png"), **options)
    result["cancel"] = as_job(addon, job, cancel_at=0.3)
    return result


def _cancel_ms(addon, compute, total: int) -> dict:
    """``compute`` in a ``jobs.Worker`` thread, cancelled once its progress moved: the milliseconds from the cancel
    to the worker's end and the progress it stopped at."""
    worker = addon.jobs.Worker(compute, total).start()
    while worker.done == 0 and not worker.finished.is_set():
        time.sleep(0.002)
    asked = time.perf_counter()
    worker.cancel(wait=60.0)
    return {"cancel_ms": round((time.perf_counter() - asked) * 1e3, 1), "done": worker.done, "total": worker.total}


def _grid(side: int):
    """A plain grid mesh of ``side`` x ``side`` faces with a Noise Terrain's heights (its settings forgotten)."""
    bpy.ops.noisewright.add_terrain(x_subdivisions=side, y_subdivisions=side, size=2.0, height=0.5)
    grid = bpy.context.active_object
    grid.noisewright_terrain.is_terrain = False
    return grid


def terrain(addon, folder: Path) -> dict:
    """The cancels of the terrain jobs, each once its work is under way (its kernels compiled before)."""
    small = _grid(64)
    result = {}
    compute, _apply = addon.erode.erode_parts(small, {"droplets": 4_000_000, "seed": 1}, None)
    result["erosion_4M_droplets"] = _cancel_ms(addon, compute, addon.erosion_io.PROGRESS)
    compute, total = addon.heightmap_io.export_parts(bpy.context, small, str(folder / "t.png"), tile=4)
    result["export_256_tiles"] = _cancel_ms(addon, compute, total)
    big = _grid(1024)
    for maps in (("flow",), ("occlusion", "slope"), ("wetness", "relative_height")):
        warm, _apply, warm_total = addon.terrain_maps.terrain_maps_parts(small, maps, radius=3)
        addon.jobs.Worker(warm, warm_total).run()
        compute, _apply, total = addon.terrain_maps.terrain_maps_parts(big, maps)
        result[f"maps_{'+'.join(maps)}_1025"] = _cancel_ms(addon, compute, total)
    return result


SECTIONS = ("still", "loop", "udim", "terrain")


def main(argv: list[str]) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--side", type=int, default=4096, help="the still bake's side in pixels (default 4096)")
    parser.add_argument("--only", choices=SECTIONS, nargs="+", default=SECTIONS, help="the sections to run (all)")
    args = parser.parse_args(argv)
    addon = sys.modules[_blender_addon.load_addon(log=lambda _message: None)]
    bpy.ops.wm.read_homefile(use_empty=True)
    result = {"load": os.getloadavg()[0], "blender": bpy.app.version_string}
    with tempfile.TemporaryDirectory() as folder:
        addon.api.bake(bpy.context, addon.api.NoiseSpec(kind="perlin", octaves=6), image="warm", width=64, height=64)
        sections = {
            "still": lambda: still(addon, args.side, Path(folder)),
            "loop": lambda: loop(addon, 512, 24, Path(folder)),
            "udim": lambda: udim(addon, 2048, Path(folder)),
            "terrain": lambda: terrain(addon, Path(folder)),
        }
        for name in args.only:
            result[name] = sections[name]()
    print(json.dumps(result, indent=1))
    return result


if __name__ == "__main__":
    main(sys.argv[sys.argv.index("--") + 1 :] if "--" in sys.argv else sys.argv[1:])
