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
  (``...sd``/``...ss``) arithmetic instructions, packed double (``...pd``) against single (``...ps``), how
  many use the 256-bit ymm and 512-bit zmm registers, the gathers, and the CPU LLVM compiled for.
* ``fn2`` and ``fnl-native`` (only when asked for; build them first with ``scripts/build_peers.py``, which
  puts them into ``build/peers/``, or point ``--peers-dir`` at its ``--out``): noise_core on ONE thread
  (``numba.set_num_threads(1)``) against FastNoise2 (C API through ctypes; its best SIMD level, and again
  capped at AVX2 when it picks AVX-512, and then noise_core too: a new process whose kernels LLVM compiles
  for x86-64-v3 without AVX-512) and FastNoiseLite compiled with ``-O3 -march=native``, one thread
  each, on the same ``--points`` float32 points (2D and 3D; x, y, z arrays for the peers, an (N, d) array for
  noise_core) and a 1024 x 1024 grid of pixel centres (``evaluate_grid`` / ``fnGenUniformGrid2D``): value,
  Perlin, simplex (FastNoise2 ``Simplex``: Perlin's simplex lattice with the same skew as ours; FastNoiseLite
  ``OpenSimplex2``), Voronoi and cellular F1 (FastNoise2 ``CellularDistance`` Euclidean Index0, FastNoiseLite
  Cellular Distance) and fBm of 4 octaves of 2D and 3D Perlin noise; and a 128^3 grid of value, Perlin and
  simplex noise (``evaluate_lattice`` with ``zs`` / ``fnGenUniformGrid3D``; FastNoiseLite has none). Frequencies
  give both sides the same lattice cells per sample (``PeerCase.lattice_scale``). Each side's time is the best
  CPU time of the calling thread in interleaved rounds (``bench_peers.PEER_CLOCK``). The report states the CPU's
  instruction set and vector flags (from ``/proc/cpuinfo``), the SIMD level FastNoise2 runs and the load average.
  ``scripts/bench_peers.py`` runs these sections alone.
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

* ``terrain`` (only when asked for): erosion, domain warp against FastNoiseLite's (when the native peers are
  built) and the fractal modes against Geometry Nodes (``scripts/bench_terrain.py`` says what each measures).

* ``textures`` (only when asked for): analytic derivatives against the value alone, one thread, and normal-map
  bakes by both methods (``scripts/bench_textures.py``).

* ``operators`` (only when asked for): every operator path (displace beside Geometry Nodes, add/regenerate
  terrain, bake, UV bake, erode), kernel time against the rest, in a ``bpy`` process
  (``scripts/bench_operators.py``, which also runs on its own).

Then the issue's targets as PASS/FAIL lines with the measured ratios. Timings, not the test suite:
nothing here asserts.

Each section lives in a module beside this one, imported as a sibling (a script's folder is ``sys.path[0]``):
``bench_noise`` (core, fnl), ``bench_peers`` (fn2, fnl-native), ``bench_startup`` (startup, asm), ``bench_blender``,
``bench_scale``, ``bench_terrain``, ``bench_textures``; ``bench_common`` holds the timing loops they share.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import bench_terrain
import bench_textures
from bench_blender import blender_child, run_blender
from bench_common import GRID_OCTAVES, MIN_SECONDS, ROOT, TIMING, WARM_STARTS, best_time, machine, random_points
from bench_noise import comparisons, run_core, run_fnl
from bench_peers import (
    PEER_SECTIONS,
    PEERS_DIR,
    PeerError,
    load_peer_manifest,
    peers_core_child,
    peers_report,
    run_peers,
)
from bench_scale import run_scale, scale_report
from bench_startup import run_asm, run_startup

SECTIONS = ("core", "fnl", "blender", "startup")
EXTRA_SECTIONS = ("asm", "scale", "fn2", "fnl-native", "terrain", "textures", "operators")
TARGET_FNL_RATIO = 2.0
TARGET_MATHUTILS_RATIO = 20.0
TARGET_WARM_START = 1.0
TARGET_COLD_COMPILE = 10.0


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


def run_operators(repeat: int, quick: bool) -> str:
    """``scripts/bench_operators.py`` in its own process; its table (Markdown)."""
    command = [sys.executable, str(Path(__file__).with_name("bench_operators.py")), "--repeat", str(repeat)]
    done = subprocess.run(command + (["--quick"] if quick else []), cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"the operator benchmark failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    text = "| path |" + done.stdout.split("\n\n| path |", 1)[1].rstrip()
    print(text, flush=True)
    return text


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
    if "peers" in results:
        out += peers_report(results["peers"], info)
    if "asm" in results:
        out += [
            "",
            f"### Kernel machine code (default spec of each kind; LLVM target {results['asm']['cpu']})",
            "",
            "| kind | dim | packed SIMD instructions | of them double / single | scalar FP instructions | using ymm "
            "| using zmm | gathers | all instructions |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for row in results["asm"]["rows"]:
            out.append(
                f"| {row['kind']} | {row['dim']}D | {row['packed']} | {row['double']} / {row['single']} | "
                f"{row['scalar']} | {row['ymm']} | {row['zmm']} | {row['gathers']} | {row['instructions']} |"
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
    if "terrain" in results:
        out += bench_terrain.terrain_report(results["terrain"])
    if "operators" in results:
        out += ["", "### Operator paths (scripts/bench_operators.py)", "", results["operators"]]
    if "textures" in results:
        out += bench_textures.textures_report(results["textures"])
    if "scale" in results:
        out += scale_report(results["scale"])
    lines = target_lines(results)
    if lines:
        out += ["", "### Targets", "", "```", *lines, "```"]
    return "\n".join(out)


def _fnl_library(peers_dir: Path) -> str | None:
    """The native FastNoiseLite library ``scripts/build_peers.py`` built, or None when it is not built."""
    try:
        return load_peer_manifest(peers_dir, "fnl-native")["fnl_library"]
    except PeerError:
        return None


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
    parser.add_argument(
        "--peers-dir",
        type=Path,
        default=PEERS_DIR,
        help=f"where scripts/build_peers.py built the fn2 and fnl-native peers (default {PEERS_DIR})",
    )
    parser.add_argument("--json", type=Path, help="also write the raw results to this file")
    parser.add_argument("--markdown", type=Path, help="also write the report (Markdown tables) to this file")
    parser.add_argument("--blender-child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--peers-core-child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--terrain-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.quick:
        args.points, args.repeat, args.grid, args.min_seconds = 2**16, 2, 200, 0.0
    TIMING.min_seconds = args.min_seconds
    if args.blender_child:
        blender_child(args.grid, args.repeat)
        return 0
    if args.peers_core_child:
        peers_core_child(args.points, args.repeat)
        return 0
    if args.terrain_child:
        bench_terrain.terrain_child(args.grid, args.repeat, best_time)
        return 0
    sections = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = sorted(set(sections) - set(SECTIONS + EXTRA_SECTIONS))
    if unknown:
        choices = ", ".join(SECTIONS + EXTRA_SECTIONS)
        parser.error(f"--only: unknown section(s) {', '.join(unknown)}; choose from {choices}")
    if args.points < 1:
        parser.error(f"--points: must be a positive integer, got {args.points}")
    if args.repeat < 1:
        parser.error(f"--repeat: must be a positive integer, got {args.repeat}")
    peer_sections = [s for s in PEER_SECTIONS if s in sections]
    for section in peer_sections:  # before any measurement: a missing build fails at once
        try:
            load_peer_manifest(args.peers_dir, section)
        except PeerError as error:
            parser.error(str(error))

    results: dict = {
        "machine": machine(),
        "points": args.points,
        "repeat": args.repeat,
        "min_seconds": args.min_seconds,
    }
    points = {dim: random_points(args.points, dim) for dim in (1, 2, 3, 4)}
    if "core" in sections:
        print("noise_core ...", flush=True)
        results["core"] = run_core(points, args.repeat)
    if "fnl" in sections:
        print("FastNoiseLite ...", flush=True)
        results["fnl"], results["fnl_threads_speedup"] = run_fnl(points, args.repeat)
    if "core" in results and "fnl" in results:
        results["comparisons"] = comparisons(results["core"], results["fnl"])
    if peer_sections:
        print(f"native peers ({', '.join(peer_sections)}), one thread each ...", flush=True)
        results["peers"] = run_peers(peer_sections, points, args.repeat, args.peers_dir)
    if "asm" in sections:
        print("kernel machine code ...", flush=True)
        results["asm"] = run_asm()
    if "startup" in sections:
        print("start-up ...", flush=True)
        results["startup"] = run_startup()
    if "scale" in sections:
        print("tiled bakes on Dask ...", flush=True)
        results["scale"] = run_scale(args.scale_grid, args.scale_tile, args.scale_bake, args.repeat)
    if "terrain" in sections:
        print("terrain: erosion, domain warp, fractal modes against Geometry Nodes ...", flush=True)
        results["terrain"] = bench_terrain.run_terrain(
            points[2], best_time, args.repeat, args.grid, args.min_seconds, _fnl_library(args.peers_dir)
        )
    if "operators" in sections:
        print("operator paths, kernel time against the rest ...", flush=True)
        results["operators"] = run_operators(args.repeat, args.quick)
    if "textures" in sections:
        print("textures: derivatives, normal maps ...", flush=True)
        results["textures"] = bench_textures.run_textures(points, best_time, args.repeat)
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
