"""Benchmarks of noise_core against the tools users would pick instead (issue 6).

Run from the checkout after the README set-up::

    .venv/bin/python scripts/bench.py            # everything (a few minutes)
    .venv/bin/python scripts/bench.py --quick    # small sizes, a smoke test of every section
    .venv/bin/python scripts/bench.py --only core,fnl --points 1048576 --repeat 7

Sections (``--only``, comma separated):

* ``core``: ``noise_core.evaluate`` for every kind of ``noise_core.registry.KINDS`` in each of its
  dimensions, 1 and 4 octaves, on ``--points`` uniform random points in [-8, 8)^d, warm (compiled
  before timing), best of ``--repeat`` runs and of at least ``--min-seconds`` of runs, on Numba's
  default thread count. Kinds with a ``function`` option are measured for F1 and F2 - F1.
* ``fnl``: FastNoiseLite (the ``pyfastnoiselite`` wrapper, ``gen_from_coords``) on the same points:
  Value, Perlin, OpenSimplex2 and Cellular (Euclidean; F1 = ``Distance``, F2 - F1 =
  ``Distance2Sub``), 2D and 3D, 1 octave (no fractal) and 4 octaves (FBm, lacunarity 2, gain 0.5).
  The wrapper has no ``num_threads`` and holds the GIL (the ``fnl-threads`` line checks that two
  Python threads are no faster), so it runs on one core; ratios are given against it as measured
  and against an ideal ``cores x`` FastNoiseLite.
* ``blender``: in a separate process with the ``bpy`` module (so its import cannot disturb the
  Numba timings), on a ``--grid`` x ``--grid`` vertex grid, 3D Perlin-type noise with 5 octaves:
  the ``mathutils.noise.fractal`` per-vertex loop (as the A.N.T. Landscape add-on does it), a
  Geometry Nodes modifier (Noise Texture -> Set Position; Detail 4 = 5 octaves, because Blender's
  ``noise_fbm`` loops ``for i <= int(detail)``), applied, and the ``noisewright.displace`` operator
  end to end (read vertices, noise, write back), plus the bare pipeline (position attribute ->
  ``evaluate`` -> position attribute). The mathutils loop and the pipeline read and write vertex
  positions through the ``position`` attribute, Blender's fastest path.
* ``asm`` (only when asked for): whether each kernel's point loop is vectorised, from its
  machine code (compiled afresh in a subprocess with an empty Numba cache, since Numba cannot
  show the code of cached kernels): packed (``...pd``/``...ps``, ``vp...``) against scalar
  (``...sd``/``...ss``) arithmetic instructions and how many use the 256-bit ymm registers.
* ``startup``: the default spec's (``NoiseSpec()``, 2D points) first call in a new process with an
  empty ``NUMBA_CACHE_DIR`` (compilation) and again in another new process with that cache (a
  restart: loading).

* ``scale`` (only when asked for; needs the ``scale`` extra): tiled bakes on Dask (issue 15). Efficiency: the
  same grid of side ``--scale-grid`` (Perlin, 4 octaves) as one ``evaluate_grid`` call on all cores against the lazy
  ``noise_core.scale.grid`` in ``--scale-tile`` chunks on a ``dask.distributed`` LocalCluster of one single-threaded
  worker process per core (the same thread count), best of ``--repeat``; efficiency = single-process time /
  cluster time. Memory: ``python -m noise_core bake --size --scale-bake --bits 16 --out <tmp>.zarr`` (the CLI's
  defaults: LocalCluster, tiles of 4096) in a subprocess, its wall time and the peak of the summed resident
  memory of it and its worker processes, sampled every 0.05 s.

Then the issue's targets as PASS/FAIL lines with the measured ratios. Timings, not the test suite:
nothing here asserts.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent

SECTIONS = ("core", "fnl", "blender", "startup")
EXTRA_SECTIONS = ("asm", "scale")
OCTAVES = (1, 4)
FREQUENCY = 4.0
EXTENT = 8.0
FUNCTION_VARIANTS = ("f1", "f2_minus_f1")
GRID_OCTAVES = 5
TARGET_FNL_RATIO = 2.0
TARGET_MATHUTILS_RATIO = 20.0
TARGET_WARM_START = 1.0
TARGET_COLD_COMPILE = 10.0

# noise_core kind -> the FastNoiseLite noise it is compared with, and the target ratio.
FNL_PEERS = {
    "value": "Value",
    "perlin": "Perlin",
    "simplex": "OpenSimplex2",
    "voronoi": "Cellular",
    "cellular": "Cellular",
}


MIN_SECONDS = 1.0
"""By default ``best_time`` keeps timing until this much time is spent (``--min-seconds``): a burst
of load on a shared machine then spoils some of the runs of a short measurement, not all of them."""

MAX_RUNS = 200
WARM_STARTS = 3


@dataclass
class Timing:
    """Settings of ``best_time`` for this run (``main`` sets them from the command line)."""

    min_seconds: float = MIN_SECONDS


TIMING = Timing()


def best_time(function: Callable[[], object], repeat: int, min_seconds: float | None = None) -> float:
    """The shortest wall-clock timing of ``function()`` in seconds, over at least ``repeat`` runs and,
    up to ``MAX_RUNS`` runs, at least ``min_seconds`` (default ``TIMING.min_seconds``) of them."""
    min_seconds = TIMING.min_seconds if min_seconds is None else min_seconds
    best = float("inf")
    spent = 0.0
    runs = 0
    while runs < repeat or (spent < min_seconds and runs < MAX_RUNS):
        started = time.perf_counter()
        function()
        elapsed = time.perf_counter() - started
        best = min(best, elapsed)
        spent += elapsed
        runs += 1
    return best


def machine() -> dict:
    """CPU model, core count and the versions that matter."""
    import numba

    model = platform.processor() or platform.machine()
    try:
        for line in subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout.splitlines():
            if line.startswith("Model name:"):
                model = line.split(":", 1)[1].strip()
    except (OSError, subprocess.CalledProcessError):
        pass
    return {
        "cpu": model,
        "cores": os.cpu_count(),
        "numba_threads": numba.get_num_threads(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "numba": numba.__version__,
    }


def random_points(count: int, dim: int, seed: int = 6) -> np.ndarray:
    """(count, dim) points uniform in [-EXTENT, EXTENT), representable in float32 (FastNoiseLite's input)."""
    rng = np.random.default_rng(seed + dim)
    return rng.uniform(-EXTENT, EXTENT, size=(count, dim)).astype(np.float32).astype(np.float64)


# ---------------------------------------------------------------------------------------------- core


def core_cases() -> list[tuple[str, int, int, dict]]:
    """``(kind, dim, octaves, options)`` for every kind and dimension in KINDS, 1 and 4 octaves."""
    from noise_core.registry import KINDS

    cases = []
    for name, info in KINDS.items():
        variants = [{"function": f} for f in FUNCTION_VARIANTS] if info.option("function") else [{}]
        for dim in info.dims:
            for octaves in OCTAVES:
                cases.extend((name, dim, octaves, options) for options in variants)
    return cases


def label(kind: str, options: dict) -> str:
    return kind + "".join(f" {value}" for value in options.values())


def run_core(points: dict[int, np.ndarray], repeat: int) -> list[dict]:
    from noise_core import NoiseSpec, evaluate

    rows = []
    for kind, dim, octaves, options in core_cases():
        row = {"kind": kind, "options": options, "label": label(kind, options), "dim": dim, "octaves": octaves}
        try:
            spec = NoiseSpec(kind=kind, frequency=FREQUENCY, octaves=octaves, **options)
        except ValueError as error:
            rows.append({**row, "skipped": str(error)})
            continue
        started = time.perf_counter()
        evaluate(spec, points[dim][:1024])
        compile_seconds = time.perf_counter() - started
        seconds = best_time(lambda spec=spec, dim=dim: evaluate(spec, points[dim]), repeat)
        rows.append({**row, "mps": points[dim].shape[0] / seconds / 1e6, "compile_s": compile_seconds})
        print(f"  core {row['label']:<22} {dim}D {octaves} oct  {rows[-1]['mps']:8.1f} M/s", flush=True)
    return rows


# ----------------------------------------------------------------------------------------------- fnl


def fnl_cases() -> list[tuple[str, str | None, int, int]]:
    """``(noise, cellular return, dim, octaves)``."""
    cases = []
    for noise in ("Value", "Perlin", "OpenSimplex2", "Cellular"):
        returns = ("Distance", "Distance2Sub") if noise == "Cellular" else (None,)
        for dim in (2, 3):
            for octaves in OCTAVES:
                cases.extend((noise, ret, dim, octaves) for ret in returns)
    return cases


def fastnoiselite(noise: str, cellular_return: str | None, octaves: int):
    """A configured ``FastNoiseLite``: frequency as noise_core's, FBm for several octaves, Euclidean cells."""
    from pyfastnoiselite.pyfastnoiselite import (
        CellularDistanceFunction,
        CellularReturnType,
        FastNoiseLite,
        FractalType,
        NoiseType,
    )

    fnl = FastNoiseLite(seed=0)
    fnl.noise_type = getattr(NoiseType, f"NoiseType_{noise}")
    fnl.frequency = FREQUENCY
    if octaves > 1:
        fnl.fractal_type = FractalType.FractalType_FBm
        fnl.fractal_octaves = octaves
        fnl.fractal_lacunarity = 2.0
        fnl.fractal_gain = 0.5
    else:
        fnl.fractal_type = FractalType.FractalType_None
    if cellular_return is not None:
        fnl.cellular_distance_function = CellularDistanceFunction.CellularDistanceFunction_Euclidean
        fnl.cellular_return_type = getattr(CellularReturnType, f"CellularReturnType_{cellular_return}")
        fnl.cellular_jitter = 1.0
    return fnl


def fnl_threads_speedup(coordinates: np.ndarray, repeat: int) -> float:
    """Time of one thread over all points / time of two threads on halves: ~1 when the GIL is held."""
    halves = [np.ascontiguousarray(part) for part in np.array_split(coordinates, 2, axis=1)]
    generators = [fastnoiselite("Perlin", None, 1) for _ in halves]

    def two_threads() -> None:
        threads = [
            threading.Thread(target=g.gen_from_coords, args=(h,)) for g, h in zip(generators, halves, strict=True)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    one = best_time(lambda: generators[0].gen_from_coords(coordinates), repeat)
    return one / best_time(two_threads, repeat)


def run_fnl(points: dict[int, np.ndarray], repeat: int) -> tuple[list[dict], float]:
    coordinates = {dim: np.ascontiguousarray(points[dim].T, dtype=np.float32) for dim in (2, 3)}
    rows = []
    for noise, ret, dim, octaves in fnl_cases():
        fnl = fastnoiselite(noise, ret, octaves)
        fnl.gen_from_coords(coordinates[dim][:, :1024])
        seconds = best_time(lambda fnl=fnl, dim=dim: fnl.gen_from_coords(coordinates[dim]), repeat)
        rows.append(
            {"noise": noise, "return": ret, "dim": dim, "octaves": octaves, "mps": points[dim].shape[0] / seconds / 1e6}
        )
        name = noise + (f" {ret}" if ret else "")
        print(f"  fnl  {name:<22} {dim}D {octaves} oct  {rows[-1]['mps']:8.1f} M/s", flush=True)
    speedup = fnl_threads_speedup(coordinates[2], repeat)
    print(f"  fnl  two Python threads / one: {speedup:.2f}x", flush=True)
    return rows, speedup


# ------------------------------------------------------------------------------------------- startup

STARTUP_PROGRAM = """
import json, time
started = time.perf_counter()
import numpy as np
import noise_core
imported = time.perf_counter()
noise_core.evaluate(noise_core.NoiseSpec(), np.random.default_rng(0).random((4096, 2)))
done = time.perf_counter()
print(json.dumps({"import_s": imported - started, "first_call_s": done - imported}))
"""


ASM_PROGRAM = r"""
import json, re
import numpy as np
from noise_core import NoiseSpec, evaluate
from noise_core.fractal import kernel_for
from noise_core.registry import KINDS, kernel_arguments
rows = []
for name, info in KINDS.items():
    for dim in info.dims:
        spec = NoiseSpec(kind=name)
        evaluate(spec, np.random.default_rng(0).random((64, dim)))
        family, variant, _ = kernel_arguments(spec, dim)
        asm = "\n".join(kernel_for(family, dim, variant).inspect_asm().values())
        lines = [line.split() for line in asm.splitlines() if line.startswith("\t") and not line.startswith("\t.")]
        ops = [line[0] for line in lines if line]
        packed = sum(bool(re.fullmatch(r"v\w+p[sd]|vp\w+", op)) for op in ops)
        scalar = sum(bool(re.fullmatch(r"v(?!p)\w+s[sd]", op)) for op in ops)
        ymm = sum("ymm" in " ".join(line) for line in lines)
        rows.append(dict(kind=name, dim=dim, packed=packed, scalar=scalar, ymm=ymm, instructions=len(ops)))
print(json.dumps(rows))
"""


def run_asm() -> list[dict]:
    """Machine-code statistics of each kind's default kernel (see the module docstring)."""
    with tempfile.TemporaryDirectory(prefix="noisewright-bench-asm-") as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": str(ROOT)}
        done = subprocess.run(
            [sys.executable, "-c", ASM_PROGRAM], env=env, cwd=ROOT, capture_output=True, text=True, check=True
        )
    rows = json.loads(done.stdout.strip().splitlines()[-1])
    for row in rows:
        print(f"  asm {row['kind']:<14} {row['dim']}D packed {row['packed']:5d} scalar {row['scalar']:5d}", flush=True)
    return rows


def run_startup() -> dict:
    """First call of ``NoiseSpec()`` in a new process: empty Numba cache, then the filled one (the
    best of ``WARM_STARTS`` new processes, the shortest import + first call)."""
    results: dict = {}
    with tempfile.TemporaryDirectory(prefix="noisewright-bench-cache-") as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": str(ROOT)}
        for name, runs in (("cold", 1), ("warm", WARM_STARTS)):
            for _ in range(runs):
                done = subprocess.run(
                    [sys.executable, "-c", STARTUP_PROGRAM],
                    env=env,
                    cwd=ROOT,
                    capture_output=True,
                    text=True,
                    check=True,
                )
                run = json.loads(done.stdout.strip().splitlines()[-1])
                best = results.get(name)
                if best is None or run["import_s"] + run["first_call_s"] < best["import_s"] + best["first_call_s"]:
                    results[name] = run
            print(f"  startup {name}: {results[name]}", flush=True)
    return results


# ------------------------------------------------------------------------------------------- blender


def run_blender(grid: int, repeat: int) -> dict:
    """The Blender section in its own process (``--blender-child``); its results as JSON."""
    with tempfile.TemporaryDirectory(prefix="noisewright-bench-blender-") as user:
        env = {**os.environ, "BLENDER_USER_RESOURCES": user}
        command = [sys.executable, str(Path(__file__).resolve()), "--blender-child", "--grid", str(grid)]
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


def _geometry_nodes_group(bpy):
    """Noise Texture (3D fBM, Scale 4, Detail 4 = 5 octaves, Roughness 0.5, Lacunarity 2) -> Set Position Z."""
    tree = bpy.data.node_groups.new("Noise displace", "GeometryNodeTree")
    tree.interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
    tree.interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
    group_in = tree.nodes.new("NodeGroupInput")
    group_out = tree.nodes.new("NodeGroupOutput")
    noise = tree.nodes.new("ShaderNodeTexNoise")
    noise.noise_dimensions = "3D"
    noise.noise_type = "FBM"
    noise.normalize = True
    noise.inputs["Scale"].default_value = FREQUENCY
    noise.inputs["Detail"].default_value = GRID_OCTAVES - 1
    noise.inputs["Roughness"].default_value = 0.5
    noise.inputs["Lacunarity"].default_value = 2.0
    combine = tree.nodes.new("ShaderNodeCombineXYZ")
    set_position = tree.nodes.new("GeometryNodeSetPosition")
    tree.links.new(noise.outputs["Factor"], combine.inputs["Z"])
    tree.links.new(combine.outputs["Vector"], set_position.inputs["Offset"])
    tree.links.new(group_in.outputs["Geometry"], set_position.inputs["Geometry"])
    tree.links.new(set_position.outputs["Geometry"], group_out.inputs["Geometry"])
    return tree


def blender_child(grid: int, repeat: int) -> None:
    """Runs inside the subprocess: needs ``bpy``; prints one JSON line last."""
    import runpy

    import bpy
    import mathutils
    import mathutils.noise

    addon = runpy.run_path(str(ROOT / "scripts" / "_blender_addon.py"), run_name="_blender_addon")
    bpy.ops.wm.read_homefile(use_empty=True)
    addon["load_addon"](log=lambda message: None)
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
    addon["set_noise_settings"]({"kind": "perlin", "frequency": FREQUENCY, "octaves": GRID_OCTAVES, "dimensions": "3"})
    _grid_object(bpy, 8, "warm-up")
    addon["run_operator"]("noisewright.displace", direction="Z")
    _grid_object(bpy, grid, "operator")
    results["operator_s"] = best_time(lambda: addon["run_operator"]("noisewright.displace", direction="Z"), repeat)
    print(f"  blender noise_core: pipeline {results['pipeline_s']:.3f} s, operator {results['operator_s']:.3f} s")
    print(json.dumps(results), flush=True)


# ------------------------------------------------------------------------------------------- targets


def _cpu_seconds() -> float:
    """CPU seconds (user + system) this process has used: run on each worker by ``client.run``."""
    import psutil

    times = psutil.Process().cpu_times()
    return times.user + times.system


def _corner(block: np.ndarray) -> np.ndarray:
    """A chunk's first pixel: computing it computes the whole chunk, gathering it moves no image data."""
    return block[:1, :1]


def run_scale(size: int, tile: int, bake_size: int, repeat: int) -> dict:
    """Efficiency of the LocalCluster against one process at equal threads, and a big 16-bit bake's peak memory."""
    import logging

    import distributed
    import numba
    import psutil

    import noise_core as nc
    from noise_core import scale

    spec = nc.NoiseSpec(kind="perlin", octaves=4)
    cores = numba.get_num_threads()
    nc.precompile(spec, 2)
    lazy = scale.grid(spec, (size, size), chunks=tile, threads=1)
    corners = lazy.map_blocks(_corner, chunks=(1, 1), dtype=np.float32)
    single = strips = cluster_time = float("inf")
    single_cpu = cluster_cpu = float("inf")
    with (
        distributed.LocalCluster(
            n_workers=cores, threads_per_worker=1, dashboard_address=":0", silence_logs=logging.ERROR
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        client.compute(corners).result()  # workers load the kernel
        for _ in range(repeat):  # interleaved, so both see the same background load
            started, cpu = time.perf_counter(), time.process_time()
            nc.evaluate_grid(spec, (size, size))
            single = min(single, time.perf_counter() - started)
            single_cpu = min(single_cpu, time.process_time() - cpu)
            started = time.perf_counter()
            scale.compute_window(spec, (size, size), (0, 0, size, size))
            strips = min(strips, time.perf_counter() - started)
            before = sum(client.run(_cpu_seconds).values())
            started, cpu = time.perf_counter(), time.process_time()
            client.compute(corners).result()
            cluster_time = min(cluster_time, time.perf_counter() - started)
            used = sum(client.run(_cpu_seconds).values()) - before + time.process_time() - cpu
            cluster_cpu = min(cluster_cpu, used)
    out = {
        "size": size,
        "tile": tile,
        "threads": cores,
        "single_s": single,
        "cluster_s": cluster_time,
        "single_cpu_s": single_cpu,
        "cluster_cpu_s": cluster_cpu,
        "single_mps": size * size / single / 1e6,
        "strips_s": strips,
        "strips_mps": size * size / strips / 1e6,
        "cluster_mps": size * size / cluster_time / 1e6,
        "efficiency": single / cluster_time,
        "cpu_efficiency": single_cpu / cluster_cpu,
    }
    with tempfile.TemporaryDirectory(dir=ROOT / "build" if (ROOT / "build").is_dir() else None) as folder:
        command = [sys.executable, "-m", "noise_core", "bake", "--kind", "perlin", "--octaves", "4"]
        command += ["--size", str(bake_size), "--bits", "16", "--out", str(Path(folder) / "world.zarr")]
        started = time.perf_counter()
        child = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        parent = psutil.Process(child.pid)
        peak = 0
        while child.poll() is None:
            total = 0
            try:
                for process in [parent, *parent.children(recursive=True)]:
                    total += process.memory_info().rss
            except psutil.Error:  # a process ended while sampled
                pass
            peak = max(peak, total)
            time.sleep(0.05)
        elapsed = time.perf_counter() - started
        stored = sum(path.stat().st_size for path in Path(folder).rglob("*") if path.is_file())
        out.update(
            bake_size=bake_size,
            bake_status=child.returncode,
            bake_output=child.stdout.read().strip() if child.stdout else "",
            bake_s=elapsed,
            bake_mps=bake_size * bake_size / elapsed / 1e6,
            bake_peak_gb=peak / 1e9,
            bake_store_gb=stored / 1e9,
        )
    return out


def comparisons(core: list[dict], fnl: list[dict]) -> list[dict]:
    """Each noise_core row with a FastNoiseLite peer (same dim and octaves), and the ratio."""
    peers = {(r["noise"], r["return"], r["dim"], r["octaves"]): r["mps"] for r in fnl}
    rows = []
    for row in core:
        noise = FNL_PEERS.get(row["kind"])
        if noise is None or "mps" not in row:
            continue
        ret = None
        if noise == "Cellular":
            function = row["options"].get("function")
            ret = {"f1": "Distance", "f2_minus_f1": "Distance2Sub"}.get(function)
            if ret is None:
                continue
        peer = peers.get((noise, ret, row["dim"], row["octaves"]))
        if peer is not None:
            name = noise + (f" {ret}" if ret else "")
            rows.append({**row, "peer": name, "peer_mps": peer, "ratio": row["mps"] / peer})
    return rows


def target_lines(results: dict) -> list[str]:
    lines = []

    def verdict(ok: bool) -> str:
        return "PASS" if ok else "FAIL"

    for row in results.get("comparisons", []):
        lines.append(
            f"{verdict(row['ratio'] >= TARGET_FNL_RATIO)}  {row['label']} {row['dim']}D {row['octaves']} oct "
            f"vs FastNoiseLite {row['peer']}: {row['ratio']:.2f}x (target >= {TARGET_FNL_RATIO:g}x)"
        )
    blender = results.get("blender")
    if blender:
        ours = blender["operator_s"]
        lines.append(
            f"{verdict(ours < blender['nodes_apply_s'])}  Displace operator vs Geometry Nodes (applied), "
            f"{blender['vertices']} vertices, {GRID_OCTAVES} octaves: {blender['nodes_apply_s'] / ours:.2f}x "
            f"({ours:.3f} s vs {blender['nodes_apply_s']:.3f} s; target > 1x)"
        )
        lines.append(
            f"{verdict(blender['mathutils_s'] / ours >= TARGET_MATHUTILS_RATIO)}  Displace operator vs "
            f"mathutils.noise loop: {blender['mathutils_s'] / ours:.1f}x ({ours:.3f} s vs "
            f"{blender['mathutils_s']:.2f} s; target >= {TARGET_MATHUTILS_RATIO:g}x)"
        )
        pipeline = blender["pipeline_s"]
        lines.append(
            f"info  noise_core pipeline (position attribute -> evaluate -> position attribute) vs mathutils.noise "
            f"loop: {blender['mathutils_s'] / pipeline:.1f}x, "
            f"vs Geometry Nodes: {blender['nodes_apply_s'] / pipeline:.1f}x"
        )
    startup = results.get("startup")
    if startup:
        warm = startup["warm"]["import_s"] + startup["warm"]["first_call_s"]
        cold = startup["cold"]["first_call_s"]
        lines.append(
            f"{verdict(warm < TARGET_WARM_START)}  warm start (import + first call, cache hit): {warm:.2f} s "
            f"(target < {TARGET_WARM_START:g} s)"
        )
        lines.append(
            f"{verdict(cold < TARGET_COLD_COMPILE)}  cold compile (first call, empty cache): {cold:.2f} s "
            f"(target < {TARGET_COLD_COMPILE:g} s)"
        )
    return lines


# -------------------------------------------------------------------------------------------- report


def scale_report(result: dict) -> list[str]:
    """The ``scale`` section as Markdown."""
    return [
        "",
        "### Tiled bakes on Dask (issue 15)",
        "",
        f"{result['size']}² Perlin, 4 octaves, {result['threads']} threads either way:",
        "",
        "| | seconds | million samples/s |",
        "|---|---|---|",
        f"| one process, `evaluate_grid` | {result['single_s']:.2f} | {result['single_mps']:.0f} |",
        f"| one process, `scale.compute_window` (strips of 2^20 pixels) | {result['strips_s']:.2f} | "
        f"{result['strips_mps']:.0f} |",
        f"| LocalCluster, {result['threads']} workers x 1 thread, chunks of {result['tile']} | "
        f"{result['cluster_s']:.2f} | {result['cluster_mps']:.0f} |",
        "",
        f"Efficiency {result['efficiency']:.0%} of wall time (target >= 85 %; best of interleaved runs); CPU time "
        f"{result['single_cpu_s']:.2f} s vs {result['cluster_cpu_s']:.2f} s (client + workers), "
        f"{result['cpu_efficiency']:.0%}: what Dask adds, whatever else the machine runs. "
        f"`bake --size {result['bake_size']} --bits 16 --out world.zarr` (exit {result['bake_status']}): "
        f"{result['bake_s']:.1f} s ({result['bake_mps']:.0f} million pixels/s), peak resident memory of the "
        f"client and its workers {result['bake_peak_gb']:.2f} GB (target <= 2 GB), store "
        f"{result['bake_store_gb']:.2f} GB.",
    ]


def report(results: dict) -> str:
    """The results as Markdown tables."""
    out = []
    info = results["machine"]
    out.append(
        f"Machine: {info['cpu']}, {info['cores']} cores; Numba {info['numba']} on {info['numba_threads']} "
        f"threads, numpy {info['numpy']}, Python {info['python']}. {results['points']} points, best of at "
        f"least {results['repeat']} runs and {results['min_seconds']:g} s of runs; warm start: best of "
        f"{WARM_STARTS} processes."
    )
    if "core" in results:
        out += [
            "",
            "### noise_core (million samples/s)",
            "",
            "| kind | dim | 1 octave | 4 octaves |",
            "|---|---|---|---|",
        ]
        table: dict = {}
        for row in results["core"]:
            cell = f"{row['mps']:.1f}" if "mps" in row else "n/a"
            table.setdefault((row["label"], row["dim"]), {})[row["octaves"]] = cell
        for (name, dim), cells in table.items():
            out.append(f"| {name} | {dim}D | {cells.get(1, '')} | {cells.get(4, '')} |")
    if "comparisons" in results:
        cores = info["cores"]
        speedup = results.get("fnl_threads_speedup")
        out += [
            "",
            "### noise_core vs FastNoiseLite (million samples/s)",
            "",
            f"FastNoiseLite runs single-threaded: pyfastnoiselite has no num_threads and holds the GIL "
            f"(two Python threads on halves of the points: {speedup:.2f}x of one).",
            "",
            "| noise_core | FastNoiseLite | dim | octaves | noise_core | FNL (1 thread) | ratio "
            f"| ratio vs {cores}x FNL |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for row in results["comparisons"]:
            out.append(
                f"| {row['label']} | {row['peer']} | {row['dim']}D | {row['octaves']} | {row['mps']:.1f} | "
                f"{row['peer_mps']:.1f} | {row['ratio']:.2f}x | {row['ratio'] / cores:.2f}x |"
            )
    blender = results.get("blender")
    if blender:
        ours = blender["operator_s"]
        methods = (
            ("mathutils.noise.fractal per-vertex loop", blender["mathutils_s"]),
            ("Geometry Nodes Noise Texture -> Set Position, modifier applied", blender["nodes_apply_s"]),
            ("Geometry Nodes, re-evaluation only (depsgraph update, read back)", blender["nodes_eval_s"]),
            ("noisewright.displace operator, end to end", ours),
            ("position attribute -> noise_core.evaluate -> position attribute", blender["pipeline_s"]),
        )
        out += [
            "",
            f"### {blender['vertices']:,}-vertex grid, 3D Perlin-type noise, {GRID_OCTAVES} octaves "
            f"(Blender {blender['blender']})",
            "",
            "| method | seconds | time / Displace operator's |",
            "|---|---|---|",
            *(f"| {name} | {seconds:.3f} | {seconds / ours:.2f} |" for name, seconds in methods),
        ]
    if "asm" in results:
        out += [
            "",
            "### Kernel machine code (default spec of each kind)",
            "",
            "| kind | dim | packed SIMD instructions | scalar FP instructions | using ymm | all instructions |",
            "|---|---|---|---|---|---|",
        ]
        for row in results["asm"]:
            out.append(
                f"| {row['kind']} | {row['dim']}D | {row['packed']} | {row['scalar']} | {row['ymm']} | "
                f"{row['instructions']} |"
            )
    startup = results.get("startup")
    if startup:
        out += [
            "",
            "### Start-up of the default spec (NoiseSpec(), 2D points), new process each",
            "",
            "| case | import noise_core (s) | first evaluate (s) |",
            "|---|---|---|",
        ]
        for name, text in (("cold", "empty Numba cache (compiles)"), ("warm", "after a restart (cache hit)")):
            out.append(f"| {text} | {startup[name]['import_s']:.2f} | {startup[name]['first_call_s']:.2f} |")
    if "scale" in results:
        out += scale_report(results["scale"])
    lines = target_lines(results)
    if lines:
        out += ["", "### Targets", "", "```", *lines, "```"]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--points", type=int, default=2**20, help="random points per measurement (default 2**20)")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per measurement; the best counts")
    parser.add_argument("--grid", type=int, default=1000, help="vertices per side of the Blender grid")
    parser.add_argument(
        "--min-seconds",
        type=float,
        default=MIN_SECONDS,
        help=f"keep repeating a measurement until this many seconds are spent (default {MIN_SECONDS})",
    )
    parser.add_argument("--quick", action="store_true", help="2**16 points, 2 repeats, a 200x200 grid, no minimum time")
    parser.add_argument(
        "--only",
        default=",".join(SECTIONS),
        help=f"sections to run, of {', '.join(SECTIONS + EXTRA_SECTIONS)} (default: all but asm)",
    )
    parser.add_argument("--scale-grid", type=int, default=8192, help="grid side of the scale efficiency runs")
    parser.add_argument("--scale-tile", type=int, default=2048, help="chunk side of the scale efficiency runs")
    parser.add_argument("--scale-bake", type=int, default=32768, help="side of the scale section's 16-bit bake")
    parser.add_argument("--json", type=Path, help="also write the raw results to this file")
    parser.add_argument("--markdown", type=Path, help="also write the report (Markdown tables) to this file")
    parser.add_argument("--blender-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.quick:
        args.points, args.repeat, args.grid, args.min_seconds = 2**16, 2, 200, 0.0
    TIMING.min_seconds = args.min_seconds
    if args.blender_child:
        blender_child(args.grid, args.repeat)
        return 0
    sections = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = sorted(set(sections) - set(SECTIONS + EXTRA_SECTIONS))
    if unknown:
        choices = ", ".join(SECTIONS + EXTRA_SECTIONS)
        parser.error(f"--only: unknown section(s) {', '.join(unknown)}; choose from {choices}")

    results: dict = {
        "machine": machine(),
        "points": args.points,
        "repeat": args.repeat,
        "min_seconds": args.min_seconds,
    }
    points = {dim: random_points(args.points, dim) for dim in (1, 2, 3)}
    if "core" in sections:
        print("noise_core ...", flush=True)
        results["core"] = run_core(points, args.repeat)
    if "fnl" in sections:
        print("FastNoiseLite ...", flush=True)
        results["fnl"], results["fnl_threads_speedup"] = run_fnl(points, args.repeat)
    if "core" in results and "fnl" in results:
        results["comparisons"] = comparisons(results["core"], results["fnl"])
    if "asm" in sections:
        print("kernel machine code ...", flush=True)
        results["asm"] = run_asm()
    if "startup" in sections:
        print("start-up ...", flush=True)
        results["startup"] = run_startup()
    if "scale" in sections:
        print("tiled bakes on Dask ...", flush=True)
        results["scale"] = run_scale(args.scale_grid, args.scale_tile, args.scale_bake, args.repeat)
    if "blender" in sections:
        print("Blender ...", flush=True)
        results["blender"] = run_blender(args.grid, args.repeat)
    print()
    text = report(results)
    print(text)
    if args.markdown:
        args.markdown.write_text(text + "\n")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
