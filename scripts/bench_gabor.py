"""Gabor noise against Blender's Gabor Texture node (issue 34): ``python scripts/bench_gabor.py [--grid 1000]``.

* Geometry Nodes: a ``--grid``² vertex plane (1M vertices by default, coordinates in [-1, 1]) whose modifier is
  Gabor Texture (Scale 4, Frequency 2, Anisotropy 1 or 0) -> Combine XYZ (Z) -> Set Position Offset; the time of
  re-evaluating the modifier (depsgraph update and reading the positions), and of the same tree with the texture
  node replaced by a constant (what Set Position and the update cost without it), best of ``--repeat``.
* noise_core: the same positions read from the mesh's ``position`` attribute, ``evaluate`` of ``kind="gabor"``
  (frequency 4, gabor_frequency 2, the same anisotropy), the heights added to Z and written back; best of
  ``--repeat``, timed in turn with the node so both see the same load.
* First use: a fresh process with an empty kernel cache evaluates 2D and 3D Gabor noise once; the seconds from
  after ``import noise_core`` to the first values (compiling the kernels), target < 5 s.

Both run on all cores (Blender's threads, Numba's threads). Prints one JSON line last.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from bench_blender import _grid_object

ROOT = Path(__file__).resolve().parent.parent
SCALE = 4.0
FREQUENCY = 2.0
FIRST_USE = r"""
import json, sys, time
import numpy as np
import noise_core as nc
dim = int(sys.argv[1])
started = time.perf_counter()
nc.evaluate(nc.NoiseSpec(kind="gabor"), np.zeros((4, dim)))
print(json.dumps(time.perf_counter() - started))
"""


def first_use_seconds(dim: int) -> float:
    """Seconds of the first 2D or 3D Gabor evaluation in a fresh process with an empty kernel cache."""
    with tempfile.TemporaryDirectory(prefix="noisewright-bench-gabor-") as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": str(ROOT)}
        done = subprocess.run(
            [sys.executable, "-c", FIRST_USE, str(dim)], env=env, cwd=ROOT, capture_output=True, text=True, check=True
        )
    return float(done.stdout.strip().splitlines()[-1])


def _tree(bpy, dim: int, anisotropy: float | None):
    """Gabor Texture (or, for ``anisotropy`` None, a constant 0.5) -> Combine XYZ Z -> Set Position Offset."""
    tree = bpy.data.node_groups.new(f"gabor {dim} {anisotropy}", "GeometryNodeTree")
    tree.interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
    tree.interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
    group_in = tree.nodes.new("NodeGroupInput")
    group_out = tree.nodes.new("NodeGroupOutput")
    combine = tree.nodes.new("ShaderNodeCombineXYZ")
    set_position = tree.nodes.new("GeometryNodeSetPosition")
    if anisotropy is None:
        combine.inputs["Z"].default_value = 0.5
    else:
        gabor = tree.nodes.new("ShaderNodeTexGabor")
        gabor.gabor_type = f"{dim}D"
        gabor.inputs["Scale"].default_value = SCALE
        gabor.inputs["Frequency"].default_value = FREQUENCY
        gabor.inputs["Anisotropy"].default_value = anisotropy
        tree.links.new(gabor.outputs["Value"], combine.inputs["Z"])
    tree.links.new(combine.outputs["Vector"], set_position.inputs["Offset"])
    tree.links.new(group_in.outputs["Geometry"], set_position.inputs["Geometry"])
    tree.links.new(set_position.outputs["Geometry"], group_out.inputs["Geometry"])
    return tree


def _positions(mesh) -> np.ndarray:
    co = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
    mesh.attributes["position"].data.foreach_get("vector", co)
    return co.reshape(-1, 3)


def _timed(function, *arguments) -> float:
    started = time.perf_counter()
    function(*arguments)
    return time.perf_counter() - started


def _reevaluate(depsgraph, obj) -> None:
    """Run the object's modifier stack again and read the evaluated positions."""
    obj.update_tag(refresh={"DATA"})
    depsgraph.update()
    _positions(obj.evaluated_get(depsgraph).data)


def _pipeline(nc, spec, dim: int, mesh) -> None:
    """noise_core on the mesh: positions -> ``evaluate`` -> Z offset -> positions."""
    co = _positions(mesh)
    co[:, 2] += nc.evaluate(spec, co[:, :dim])
    mesh.attributes["position"].data.foreach_set("vector", co.ravel())
    mesh.update()


def _case(bpy, nc, grid: int, dim: int, anisotropy: float, repeat: int) -> dict:
    """Best times of the node tree, the constant tree, our pipeline and our bare ``evaluate``, taken in turn."""
    depsgraph = bpy.context.evaluated_depsgraph_get()
    nodes = {}
    for key, value in (("gabor", anisotropy), ("constant", None)):
        obj = _grid_object(bpy, grid, f"{key} {dim} {anisotropy}")
        obj.modifiers.new("Gabor", "NODES").node_group = _tree(bpy, dim, value)
        nodes[key] = obj
    spec = nc.NoiseSpec(kind="gabor", frequency=SCALE, gabor_frequency=FREQUENCY, anisotropy=anisotropy)
    ours = _grid_object(bpy, grid, f"ours {dim} {anisotropy}")
    points = _positions(ours.data)[:, :dim].copy()
    nc.evaluate(spec, points[:4])
    best = dict.fromkeys(("nodes", "nodes_constant", "ours", "ours_evaluate"), np.inf)
    for _ in range(repeat):
        best["nodes"] = min(best["nodes"], _timed(_reevaluate, depsgraph, nodes["gabor"]))
        best["ours"] = min(best["ours"], _timed(_pipeline, nc, spec, dim, ours.data))
        best["nodes_constant"] = min(best["nodes_constant"], _timed(_reevaluate, depsgraph, nodes["constant"]))
        best["ours_evaluate"] = min(best["ours_evaluate"], _timed(nc.evaluate, spec, points))
    row = {"dim": dim, "anisotropy": anisotropy, **{k: round(v, 4) for k, v in best.items()}}
    row["ratio"] = round(best["nodes"] / best["ours"], 2)
    return row


def run(grid: int, repeat: int) -> dict:
    import bpy

    import noise_core as nc

    bpy.ops.wm.read_homefile(use_empty=True)
    results: dict = {"vertices": grid * grid, "blender": bpy.app.version_string, "rows": []}
    for dim in (2, 3):
        for anisotropy in (1.0, 0.0):
            row = _case(bpy, nc, grid, dim, anisotropy, repeat)
            results["rows"].append(row)
            print(f"  gabor {dim}D anisotropy {anisotropy}: {row}", flush=True)
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--grid", type=int, default=1000, help="vertices per side (default 1000: 1M vertices)")
    parser.add_argument("--repeat", type=int, default=5, help="timings per side, best kept (default 5)")
    args = parser.parse_args(argv)
    first_use = {f"{dim}d_s": round(first_use_seconds(dim), 2) for dim in (2, 3)}
    print(f"  gabor first use (empty cache): {first_use}", flush=True)
    results = run(args.grid, args.repeat)
    results["first_use"] = first_use
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
