"""The ``textures`` section of ``scripts/bench.py`` (issue 14): derivatives and normal maps.

* Analytic derivatives: ``evaluate(spec, points, derivatives=True)`` against ``evaluate(spec, points)`` on the
  run's random float32 points, one thread (``numba.set_num_threads(1)``), for value, Perlin and simplex in 2D
  and 3D with 1 and 4 octaves, million samples/s; target: value + gradient <= 2x the value alone.
* 4D and loops: the derivative rows include 4D; one 1024² frame of a seamless loop (``loops.loop_grid``: 4D
  noise) of the tiled Perlin fBm against the still 2D image, all cores, seconds.
* Normal maps: ``normal_maps.grid_normals`` of a 1024² tiled Perlin fBm (4 octaves) from the analytic gradient
  and from central differences (four more evaluations per pixel), on all cores, seconds.
* UV bake against Cycles (in a Blender subprocess, ``bench_textures.py --cycles-child``): a UV sphere (64 x 32
  segments) baked at 1024² with a 16-pixel margin, 3D Perlin fBm (4 octaves, frequency 4) in object space:
  ``noise_core.uv_bake.bake_uv`` (triangles read through ``foreach_get``) against Cycles' Bake (Emit, 1 sample,
  CPU) of the Noise Texture node (Scale 4, Detail 3) on object coordinates, seconds.

Imported by ``bench.py``, which passes its timing function.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

BestTime = Callable[..., float]
KINDS = ("value", "perlin", "simplex")
OCTAVES = (1, 4)
TARGET_RATIO = 2.0
NORMAL_SIZE = 1024
UV_SIZE = 1024
UV_MARGIN = 16


def run_textures(points: dict, best_time: BestTime, repeat: int) -> dict:
    """Derivative cost per kind, dimension and octaves (one thread), and normal-map bake times."""
    import numba

    import noise_core as nc
    from noise_core import loops, normal_maps

    threads = numba.get_num_threads()
    cases = []
    numba.set_num_threads(1)
    try:
        for kind in KINDS:
            for dim in (2, 3, 4):
                at = points[dim].astype(np.float32)
                for octaves in OCTAVES:
                    spec = nc.NoiseSpec(kind=kind, octaves=octaves)
                    nc.evaluate(spec, at[:64])
                    nc.evaluate(spec, at[:64], derivatives=True)
                    value_s = best_time(lambda spec=spec, at=at: nc.evaluate(spec, at), repeat)
                    both_s = best_time(lambda spec=spec, at=at: nc.evaluate(spec, at, derivatives=True), repeat)
                    count = at.shape[0]
                    cases.append({"kind": kind, "dim": dim, "octaves": octaves, "points": count,
                                  "value_mps": count / value_s / 1e6, "both_mps": count / both_s / 1e6})  # fmt: skip
    finally:
        numba.set_num_threads(threads)
    spec = nc.NoiseSpec(kind="perlin", octaves=4, tiling=True)
    shape = (NORMAL_SIZE, NORMAL_SIZE)
    normals = {}
    for method in ("analytic", "differences"):
        normal_maps.grid_normals(spec, (8, 8), method=method)
        normals[method] = best_time(lambda method=method: normal_maps.grid_normals(spec, shape, method=method), repeat)
    height_s = best_time(lambda: nc.evaluate_grid(spec, shape), repeat)
    loops.loop_grid(spec, (8, 8), 0, 48)
    loop_s = best_time(lambda: loops.loop_grid(spec, shape, 5, 48), repeat)
    return {"derivatives": cases, "normals_s": normals, "height_s": height_s, "loop_s": loop_s, "threads": threads,
            "uv": run_uv_against_cycles(repeat)}  # fmt: skip


def run_uv_against_cycles(repeat: int) -> dict:
    """The UV bake against Cycles' bake, in a Blender subprocess (this file with ``--cycles-child``)."""
    with tempfile.TemporaryDirectory(prefix="noisewright-bench-uv-") as user:
        env = {**os.environ, "BLENDER_USER_RESOURCES": user}
        command = [sys.executable, str(Path(__file__).resolve()), "--cycles-child", str(repeat)]
        done = subprocess.run(command, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"the UV bake benchmark failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _triangles(bpy, obj) -> tuple[np.ndarray, np.ndarray]:
    mesh = obj.data
    mesh.calc_loop_triangles()
    count = len(mesh.loop_triangles)
    loops = np.empty(count * 3, dtype=np.int32)
    mesh.loop_triangles.foreach_get("loops", loops)
    uvs = np.empty(len(mesh.loops) * 2, dtype=np.float32)
    mesh.uv_layers.active.uv.foreach_get("vector", uvs)
    corners = np.empty(len(mesh.loops), dtype=np.int32)
    mesh.loops.foreach_get("vertex_index", corners)
    positions = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
    mesh.attributes["position"].data.foreach_get("vector", positions)
    triangle_uvs = uvs.reshape(-1, 2)[loops].reshape(count, 3, 2).astype(np.float64)
    return triangle_uvs, positions.reshape(-1, 3)[corners[loops]].reshape(count, 3, 3).astype(np.float64)


def cycles_child(repeat: int) -> None:
    """Runs inside the subprocess: needs ``bpy``; prints one JSON line last."""
    import bpy

    import noise_core as nc
    from noise_core import uv_bake

    bpy.ops.wm.read_homefile(use_empty=True)
    bpy.ops.mesh.primitive_uv_sphere_add(segments=64, ring_count=32)
    sphere = bpy.context.active_object
    spec = nc.NoiseSpec(kind="perlin", octaves=4, frequency=4.0)

    def ours() -> None:
        uvs, positions = _triangles(bpy, sphere)
        uv_bake.bake_uv(spec, uvs, positions, (UV_SIZE, UV_SIZE), UV_MARGIN)

    ours()  # compiles
    ours_s = min(_timed(ours) for _ in range(repeat))
    scene = bpy.context.scene
    scene.render.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = 1
    image = bpy.data.images.new("Bake", UV_SIZE, UV_SIZE, float_buffer=True)
    material = bpy.data.materials.new("Noise")
    material.use_nodes = True
    tree = material.node_tree
    tree.nodes.remove(tree.nodes["Principled BSDF"])
    coordinates = tree.nodes.new("ShaderNodeTexCoord")
    noise = tree.nodes.new("ShaderNodeTexNoise")
    noise.inputs["Scale"].default_value = 4.0
    noise.inputs["Detail"].default_value = 3.0
    emission = tree.nodes.new("ShaderNodeEmission")
    tree.links.new(coordinates.outputs["Object"], noise.inputs["Vector"])
    tree.links.new(noise.outputs["Fac"], emission.inputs["Color"])
    tree.links.new(emission.outputs["Emission"], tree.nodes["Material Output"].inputs["Surface"])
    target = tree.nodes.new("ShaderNodeTexImage")
    target.image = image
    tree.nodes.active = target
    sphere.data.materials.append(material)
    sphere.select_set(True)
    bpy.context.view_layer.objects.active = sphere

    def cycles() -> None:
        bpy.ops.object.bake(type="EMIT", margin=UV_MARGIN)

    cycles()  # loads kernels, builds the BVH once
    cycles_s = min(_timed(cycles) for _ in range(repeat))
    print(json.dumps({"size": UV_SIZE, "triangles": len(sphere.data.loop_triangles), "ours_s": ours_s,
                      "cycles_s": cycles_s, "blender": bpy.app.version_string}))  # fmt: skip


def _timed(function: Callable[[], object]) -> float:
    started = time.perf_counter()
    function()
    return time.perf_counter() - started


def textures_report(result: dict) -> list[str]:
    """The ``textures`` section as Markdown, with the issue's target."""
    lines = [
        "",
        "### Derivatives and normal maps (issue 14)",
        "",
        "One thread, random float32 points, million samples/s:",
        "",
        f"| kind | dim | octaves | value | value + gradient | cost (target <= {TARGET_RATIO:g}x) |",
        "|---|---|---|---|---|---|",
    ]
    for case in result["derivatives"]:
        ratio = case["value_mps"] / case["both_mps"]
        verdict = "PASS" if ratio <= TARGET_RATIO else "FAIL"
        lines.append(
            f"| {case['kind']} | {case['dim']}D | {case['octaves']} | {case['value_mps']:.0f} | "
            f"{case['both_mps']:.0f} | {ratio:.2f}x {verdict} |"
        )
    normals = result["normals_s"]
    lines += [
        "",
        f"Normal map of a {NORMAL_SIZE}² tiled Perlin fBm (4 octaves), {result['threads']} threads: analytic "
        f"{normals['analytic']:.3f} s, central differences {normals['differences']:.3f} s (the height image alone: "
        f"{result['height_s']:.3f} s). One frame of its seamless loop (4D noise, `loops.loop_grid`): "
        f"{result['loop_s']:.3f} s.",
    ]
    uv = result["uv"]
    lines += [
        "",
        f"UV bake of a UV sphere ({uv['triangles']} triangles) at {uv['size']}², margin {UV_MARGIN}: noise_core "
        f"{uv['ours_s']:.3f} s, Cycles' Emit bake of the Noise Texture node (1 sample, CPU, Blender {uv['blender']}) "
        f"{uv['cycles_s']:.3f} s: {uv['cycles_s'] / uv['ours_s']:.1f}x.",
    ]
    return lines


if __name__ == "__main__" and sys.argv[1:2] == ["--cycles-child"]:
    cycles_child(int(sys.argv[2]))
