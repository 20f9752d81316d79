"""The ``blender`` section of ``scripts/bench.py``: the Displace operator against ``mathutils.noise`` and
Geometry Nodes, run in a process of its own with the ``bpy`` module.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
from bench_common import BENCH, FREQUENCY, GRID_OCTAVES, ROOT, TIMING, best_time

# ------------------------------------------------------------------------------------------- blender


def run_blender(grid: int, repeat: int) -> dict:
    """The Blender section in its own process (``--blender-child``); its results as JSON."""
    with tempfile.TemporaryDirectory(prefix="noisewright-bench-blender-") as user:
        env = {**os.environ, "BLENDER_USER_RESOURCES": user}
        command = [sys.executable, str(BENCH), "--blender-child", "--grid", str(grid)]
        command += ["--repeat", str(repeat), "--min-seconds", str(TIMING.min_seconds)]
        done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"the Blender benchmark failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    for line in done.stdout.splitlines():
        if line.startswith("  blender"):
            print(line, flush=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _grid_object(bpy, grid: int, name: str):
    """A ``grid`` x ``grid`` vertex plane of size 2 (coordinates in [-1, 1]), selected and active."""
    bpy.ops.object.select_all(action="DESELECT")
    bpy.ops.mesh.primitive_grid_add(x_subdivisions=grid - 1, y_subdivisions=grid - 1, size=2.0)
    obj = bpy.context.active_object
    obj.name = name
    return obj


def noise_group(bpy, name: str, noise_type: str, inputs: dict[str, float]):
    """A Geometry Nodes group ``name``: Noise Texture (3D, ``noise_type``, normalised, ``inputs`` where the node
    has them) -> Set Position Z."""
    tree = bpy.data.node_groups.new(name, "GeometryNodeTree")
    tree.interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
    tree.interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
    group_in = tree.nodes.new("NodeGroupInput")
    group_out = tree.nodes.new("NodeGroupOutput")
    noise = tree.nodes.new("ShaderNodeTexNoise")
    noise.noise_dimensions = "3D"
    noise.noise_type = noise_type
    noise.normalize = True
    for socket, value in inputs.items():
        if socket in noise.inputs:  # Hetero Terrain has no Gain, fBM neither Offset nor Gain
            noise.inputs[socket].default_value = value
    combine = tree.nodes.new("ShaderNodeCombineXYZ")
    set_position = tree.nodes.new("GeometryNodeSetPosition")
    tree.links.new(noise.outputs["Factor"], combine.inputs["Z"])
    tree.links.new(combine.outputs["Vector"], set_position.inputs["Offset"])
    tree.links.new(group_in.outputs["Geometry"], set_position.inputs["Geometry"])
    tree.links.new(set_position.outputs["Geometry"], group_out.inputs["Geometry"])
    return tree


def _geometry_nodes_group(bpy):
    """Noise Texture (3D fBM, Scale 4, Detail 4 = 5 octaves, Roughness 0.5, Lacunarity 2) -> Set Position Z."""
    inputs = {"Scale": FREQUENCY, "Detail": GRID_OCTAVES - 1, "Roughness": 0.5, "Lacunarity": 2.0}
    return noise_group(bpy, "Noise displace", "FBM", inputs)


def blender_child(grid: int, repeat: int) -> None:
    """Runs inside the subprocess: needs ``bpy``; prints one JSON line last."""
    import _blender_addon as addon  # imports bpy: only in this child process
    import bpy
    import mathutils
    import mathutils.noise

    bpy.ops.wm.read_homefile(use_empty=True)
    addon.load_addon(log=lambda message: None)
    from noise_core import NoiseSpec, evaluate

    count = grid * grid
    results: dict = {"grid": grid, "vertices": count, "blender": bpy.app.version_string}

    # Vertex positions through the "position" attribute: about 1 ms each way for 1M vertices, where
    # mesh.vertices.foreach_get/foreach_set("co") take about 30 / 85 ms (measured here).
    def positions(mesh) -> np.ndarray:
        co = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
        mesh.attributes["position"].data.foreach_get("vector", co)
        return co.reshape(-1, 3)

    def set_positions(mesh, co: np.ndarray) -> None:
        mesh.attributes["position"].data.foreach_set("vector", co.ravel())
        mesh.update()

    # mathutils.noise: one Python call per vertex (A.N.T. Landscape's way), 5 octaves of fBm.
    obj = _grid_object(bpy, grid, "mathutils")
    fractal, Vector = mathutils.noise.fractal, mathutils.Vector

    def mathutils_loop() -> None:
        co = positions(obj.data)
        heights = [
            fractal(Vector((x * FREQUENCY, y * FREQUENCY, z * FREQUENCY)), 1.0, 2.0, GRID_OCTAVES)
            for x, y, z in co.tolist()
        ]
        co[:, 2] += np.asarray(heights, dtype=np.float32) * 0.2
        set_positions(obj.data, co)

    results["mathutils_s"] = best_time(mathutils_loop, 1, min_seconds=0.0)
    print(f"  blender mathutils.noise loop: {results['mathutils_s']:.2f} s", flush=True)

    # Geometry Nodes: the modifier applied (evaluated and written into the mesh), on a fresh grid each time.
    tree = _geometry_nodes_group(bpy)
    timings = []
    for attempt in range(repeat + 1):
        obj = _grid_object(bpy, grid, f"nodes{attempt}")
        modifier = obj.modifiers.new("Noise", "NODES")
        modifier.node_group = tree
        started = time.perf_counter()
        bpy.ops.object.modifier_apply(modifier=modifier.name)
        timings.append(time.perf_counter() - started)
    results["nodes_apply_s"] = min(timings[1:])
    obj = _grid_object(bpy, grid, "nodes-live")
    obj.modifiers.new("Noise", "NODES").node_group = tree
    depsgraph = bpy.context.evaluated_depsgraph_get()

    def reevaluate() -> None:
        obj.update_tag(refresh={"DATA"})  # the modifier stack runs again
        depsgraph.update()
        positions(obj.evaluated_get(depsgraph).data)

    results["nodes_eval_s"] = best_time(reevaluate, repeat)
    print(
        f"  blender geometry nodes: apply {results['nodes_apply_s']:.3f} s, re-evaluate {results['nodes_eval_s']:.3f} s"
    )

    # noise_core: the bare pipeline, then the add-on's operator end to end.
    spec = NoiseSpec(kind="perlin", frequency=FREQUENCY, octaves=GRID_OCTAVES)
    obj = _grid_object(bpy, grid, "pipeline")
    evaluate(spec, positions(obj.data)[:1024].astype(np.float64))

    def pipeline() -> None:
        co = positions(obj.data)
        co[:, 2] += evaluate(spec, co) * 0.2
        set_positions(obj.data, co)

    results["pipeline_s"] = best_time(pipeline, repeat)
    addon.set_noise_settings({"kind": "perlin", "frequency": FREQUENCY, "octaves": GRID_OCTAVES, "dimensions": "3"})
    _grid_object(bpy, 8, "warm-up")
    addon.run_operator("noisewright.displace", direction="Z")
    _grid_object(bpy, grid, "operator")
    results["operator_s"] = best_time(lambda: addon.run_operator("noisewright.displace", direction="Z"), repeat)
    print(f"  blender noise_core: pipeline {results['pipeline_s']:.3f} s, operator {results['operator_s']:.3f} s")
    print(json.dumps(results), flush=True)
