"""The ``terrain`` section of ``scripts/bench.py`` (issue 13): erosion, domain warp, fractal modes.

* Erosion: ``erode_hydraulic`` on a 1024² heightmap (ridged Perlin, 200 cells of relief) with 500,000
  droplets (target <= 3 s on the machine), and 50 iterations of ``erode_thermal``; each after a warm-up call
  that compiles.
* Domain warp: 2D Perlin fBm (3 octaves) warped progressively by 3 octaves of simplex noise (amplitude 0.1)
  on the run's random points, on all cores and on one thread (``numba.set_num_threads(1)``), with the unwarped
  noise for its cost; against FastNoiseLite's ``DomainWarp`` (``DomainWarpProgressive``, OpenSimplex2, 3
  octaves) then ``GetNoise`` (Perlin fBm, 3 octaves), compiled with ``-O3 -march=native`` by
  ``scripts/build_peers.py`` (shown when built; one thread) (target >= 2x).
* Fractal modes against Geometry Nodes (in a Blender subprocess, ``bench.py --terrain-child``): the Noise
  Texture node's Ridged Multifractal, Hybrid Multifractal and Hetero Terrain (3D, Detail 4, Roughness 0.5,
  Lacunarity 2, Offset 1, Gain 2) -> Set Position Z, the modifier applied, on a fresh ``--grid``² grid each time;
  against the same mode through noise_core (position attribute -> ``evaluate`` -> position attribute)
  (target >= 5x).

Imported by ``bench.py``, which passes its timing function.
"""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from bench_blender import noise_group

ROOT = Path(__file__).resolve().parent.parent
EROSION_GRID = 1024
EROSION_DROPLETS = 500_000
EROSION_RELIEF = 200.0
THERMAL_ITERATIONS = 50
WARP = {"warp": "progressive", "warp_kind": "simplex", "warp_amplitude": 0.1, "warp_octaves": 3}
WARP_OCTAVES = 3
FREQUENCY = 4.0
MODES = {"ridged": "RIDGED_MULTIFRACTAL", "hybrid": "HYBRID_MULTIFRACTAL", "hetero_terrain": "HETERO_TERRAIN"}
MODE_OPTIONS = {"ridged": {"offset": 1.0, "gain": 2.0}, "hybrid": {"offset": 1.0, "gain": 2.0},
                "hetero_terrain": {"offset": 1.0}}  # fmt: skip
MODE_OCTAVES = 5
TARGET_EROSION_S = 3.0
TARGET_WARP_RATIO = 2.0
TARGET_MODES_RATIO = 5.0

BestTime = Callable[..., float]


def run_erosion(best_time: BestTime, repeat: int) -> dict:
    """Hydraulic (500,000 droplets) and thermal (50 iterations) erosion of a 1024² heightmap, in seconds."""
    import noise_core as nc

    spec = nc.NoiseSpec(kind="perlin", octaves=8, frequency=2.0, fractal="ridged", offset=1.0, gain=2.0)
    heights = nc.ranges.to_unit(spec, nc.evaluate_grid(spec, (EROSION_GRID, EROSION_GRID))) * EROSION_RELIEF
    nc.erode_hydraulic(heights[:64, :64], droplets=100)
    nc.erode_thermal(heights[:64, :64], iterations=2)
    hydraulic = best_time(lambda: nc.erode_hydraulic(heights, droplets=EROSION_DROPLETS), min(repeat, 3), 0.0)
    thermal = best_time(lambda: nc.erode_thermal(heights, iterations=THERMAL_ITERATIONS), min(repeat, 3), 0.0)
    return {"grid": EROSION_GRID, "droplets": EROSION_DROPLETS, "hydraulic_s": hydraulic, "thermal_s": thermal}


def _fnl_warp(library: str, points: np.ndarray, best_time: BestTime, repeat: int) -> float:
    """Seconds of FastNoiseLite's warp + noise over ``points`` (one thread)."""
    lib = ctypes.CDLL(library)
    floats = np.ctypeslib.ndpointer(dtype=np.float32, flags="C_CONTIGUOUS")
    lib.fnl_new.restype = ctypes.c_void_p
    lib.fnl_new.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_float, ctypes.c_int, ctypes.c_int]
    lib.fnl_new_warp.restype = ctypes.c_void_p
    lib.fnl_new_warp.argtypes = [ctypes.c_char_p, ctypes.c_float, ctypes.c_float, ctypes.c_int, ctypes.c_int]
    lib.fnl_new_warp.argtypes.append(ctypes.c_int)
    lib.fnl_delete.restype, lib.fnl_delete.argtypes = None, [ctypes.c_void_p]
    lib.fnl_warp_gen_2d.restype = None
    lib.fnl_warp_gen_2d.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, floats, floats, floats]
    noise = lib.fnl_new(b"Perlin", None, FREQUENCY, WARP_OCTAVES, 0)
    warp = lib.fnl_new_warp(b"OpenSimplex2", WARP["warp_amplitude"], FREQUENCY / 2, WARP["warp_octaves"], 1, 0)
    x, y = (np.ascontiguousarray(points[:, axis], dtype=np.float32) for axis in (0, 1))
    out = np.empty(points.shape[0], dtype=np.float32)
    try:
        return best_time(lambda: lib.fnl_warp_gen_2d(warp, noise, out.size, x, y, out), repeat)
    finally:
        lib.fnl_delete(noise)
        lib.fnl_delete(warp)


def run_warp(points: np.ndarray, best_time: BestTime, repeat: int, fnl_library: str | None) -> dict:
    """Domain-warped Perlin in million samples/s: ours on all cores and one thread, unwarped, FastNoiseLite."""
    import numba

    import noise_core as nc

    warped = nc.NoiseSpec(kind="perlin", octaves=WARP_OCTAVES, frequency=FREQUENCY, warp_frequency=2.0, **WARP)
    plain = nc.NoiseSpec(kind="perlin", octaves=WARP_OCTAVES, frequency=FREQUENCY)
    points = np.ascontiguousarray(points[:, :2], dtype=np.float32)
    for spec in (warped, plain):
        nc.evaluate(spec, points[:1024])
    count = points.shape[0] / 1e6
    result = {
        "points": points.shape[0],
        "warped_mps": count / best_time(lambda: nc.evaluate(warped, points), repeat),
        "plain_mps": count / best_time(lambda: nc.evaluate(plain, points), repeat),
    }
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        result["warped_1t_mps"] = count / best_time(lambda: nc.evaluate(warped, points), repeat)
    finally:
        numba.set_num_threads(threads)
    if fnl_library is not None:
        result["fnl_mps"] = count / _fnl_warp(fnl_library, points, best_time, repeat)
    return result


def run_modes(grid: int, repeat: int, min_seconds: float) -> dict:
    """The fractal modes against Geometry Nodes, in a Blender subprocess (``bench.py --terrain-child``)."""
    with tempfile.TemporaryDirectory(prefix="noisewright-bench-terrain-") as user:
        env = {**os.environ, "BLENDER_USER_RESOURCES": user}
        command = [sys.executable, str(ROOT / "scripts" / "bench.py"), "--terrain-child", "--grid", str(grid)]
        command += ["--repeat", str(repeat), "--min-seconds", str(min_seconds)]
        done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"the terrain benchmark failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _mode_group(bpy, noise_type: str):
    """Noise Texture (3D, ``noise_type``, Scale 4, Detail 4, Roughness 0.5, Lacunarity 2, Offset 1, Gain 2) ->
    Set Position Z."""
    inputs = {"Scale": FREQUENCY, "Detail": MODE_OCTAVES - 1, "Roughness": 0.5, "Lacunarity": 2.0, "Offset": 1.0,
              "Gain": 2.0}  # fmt: skip
    return noise_group(bpy, f"Noise {noise_type}", noise_type, inputs)


def terrain_child(grid: int, repeat: int, best_time: BestTime) -> None:
    """Runs inside the subprocess: needs ``bpy``; prints one JSON line last."""
    import bpy

    import noise_core as nc

    def grid_object(name: str):
        bpy.ops.object.select_all(action="DESELECT")
        bpy.ops.mesh.primitive_grid_add(x_subdivisions=grid - 1, y_subdivisions=grid - 1, size=2.0)
        obj = bpy.context.active_object
        obj.name = name
        return obj

    def positions(mesh) -> np.ndarray:
        co = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
        mesh.attributes["position"].data.foreach_get("vector", co)
        return co.reshape(-1, 3)

    bpy.ops.wm.read_homefile(use_empty=True)
    results: dict = {"grid": grid, "vertices": grid * grid, "blender": bpy.app.version_string, "modes": {}}
    for mode, noise_type in MODES.items():
        tree = _mode_group(bpy, noise_type)
        timings = []
        for attempt in range(repeat + 1):
            obj = grid_object(f"{mode}{attempt}")
            obj.modifiers.new("Noise", "NODES").node_group = tree
            started = time.perf_counter()
            bpy.ops.object.modifier_apply(modifier="Noise")
            timings.append(time.perf_counter() - started)
            bpy.data.objects.remove(obj)
        spec = nc.NoiseSpec(kind="perlin", frequency=FREQUENCY, octaves=MODE_OCTAVES, fractal=mode,
                            **MODE_OPTIONS[mode])  # fmt: skip
        obj = grid_object(f"{mode}-noise_core")
        nc.evaluate(spec, positions(obj.data)[:1024])

        def pipeline(obj=obj, spec=spec) -> None:
            co = positions(obj.data)
            co[:, 2] += nc.evaluate(spec, co)
            obj.data.attributes["position"].data.foreach_set("vector", co.ravel())
            obj.data.update()

        results["modes"][mode] = {"nodes_apply_s": min(timings[1:]), "noise_core_s": best_time(pipeline, repeat)}
        print(f"  {mode}: {results['modes'][mode]}", flush=True)
    print(json.dumps(results), flush=True)


def run_terrain(points: np.ndarray, best_time: BestTime, repeat: int, grid: int, min_seconds: float,
                fnl_library: str | None) -> dict:  # fmt: skip
    """Every measurement of the section."""
    return {
        "erosion": run_erosion(best_time, repeat),
        "warp": run_warp(points, best_time, repeat, fnl_library),
        "modes": run_modes(grid, repeat, min_seconds),
    }


def terrain_report(result: dict) -> list[str]:
    """The ``terrain`` section as Markdown, with the issue's targets."""
    erosion, warp, modes = result["erosion"], result["warp"], result["modes"]
    lines = [
        "",
        "### Terrain (issue 13)",
        "",
        f"Erosion of a {erosion['grid']}² heightmap: hydraulic, {erosion['droplets']:,} droplets "
        f"{erosion['hydraulic_s']:.2f} s (target <= {TARGET_EROSION_S:g} s: "
        f"{'PASS' if erosion['hydraulic_s'] <= TARGET_EROSION_S else 'FAIL'}); thermal, {THERMAL_ITERATIONS} "
        f"iterations {erosion['thermal_s']:.2f} s.",
        "",
        f"Domain-warped Perlin (fBm {WARP_OCTAVES}, progressive warp of {WARP['warp_octaves']} simplex octaves), "
        f"{warp['points']:,} 2D points, million samples/s: noise_core {warp['warped_mps']:.1f} on all cores, "
        f"{warp['warped_1t_mps']:.1f} on one thread (unwarped: {warp['plain_mps']:.1f} on all cores).",
    ]
    if "fnl_mps" in warp:
        ratio = warp["warped_1t_mps"] / warp["fnl_mps"]
        lines[-1] += (
            f" FastNoiseLite (native, one thread) {warp['fnl_mps']:.1f}: {ratio:.2f}x per core, "
            f"{warp['warped_mps'] / warp['fnl_mps']:.2f}x with all cores (target >= {TARGET_WARP_RATIO:g}x: "
            f"{'PASS' if warp['warped_mps'] / warp['fnl_mps'] >= TARGET_WARP_RATIO else 'FAIL'})."
        )
    else:
        lines[-1] += " FastNoiseLite native: not built (scripts/build_peers.py)."
    lines += [
        "",
        f"Fractal modes on a {modes['vertices']:,}-vertex grid (Blender {modes['blender']}), seconds:",
        "",
        "| mode | Geometry Nodes, applied | noise_core | speed-up | target >= 5x |",
        "|---|---|---|---|---|",
    ]
    for mode, row in modes["modes"].items():
        speedup = row["nodes_apply_s"] / row["noise_core_s"]
        verdict = "PASS" if speedup >= TARGET_MODES_RATIO else "FAIL"
        nodes, ours = row["nodes_apply_s"], row["noise_core_s"]
        lines.append(f"| {mode} | {nodes:.3f} | {ours:.3f} | {speedup:.1f}x | {verdict} |")
    return lines
