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
  Cellular Distance) and fBm of 4 octaves of 3D Perlin noise. Frequencies give both sides the same lattice
  cells per sample (``PeerCase.lattice_scale``). The report states the CPU's instruction set (from
  ``/proc/cpuinfo``), the SIMD level FastNoise2 runs and the load average.
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

Then the issue's targets as PASS/FAIL lines with the measured ratios. Timings, not the test suite:
nothing here asserts.
"""

from __future__ import annotations

import argparse
import ctypes
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
EXTRA_SECTIONS = ("asm", "scale", "fn2", "fnl-native", "terrain", "textures")
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


PEER_ROUNDS = 3
"""Rounds of ``interleaved_best``: each times every side of a comparison once more, in turn."""


def interleaved_best(functions: dict[str, Callable[[], object]], repeat: int) -> dict[str, float]:
    """The shortest timing of each of ``functions``, timed in ``PEER_ROUNDS`` rounds that take them in turn
    (each round a ``best_time`` with a ``PEER_ROUNDS``-th of the minimum time): on a machine whose speed drifts
    with its neighbours' load, both sides of a ratio then see the same spells of load."""
    best = dict.fromkeys(functions, float("inf"))
    for _ in range(PEER_ROUNDS):
        for key, function in functions.items():
            seconds = best_time(function, max(1, repeat // PEER_ROUNDS), TIMING.min_seconds / PEER_ROUNDS)
            best[key] = min(best[key], seconds)
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


# ------------------------------------------------------------------------------- native peers (fn2, fnl-native)

PEER_SECTIONS = ("fn2", "fnl-native")
PEERS_DIR = ROOT / "build" / "peers"
PEER_GRID = 1024
BUILD_PEERS_HINT = ".venv/bin/python scripts/build_peers.py"

# FastSIMD::FeatureSet (FastSIMD/Utility/FeatureEnums.h at 16450da): one bit per FeatureFlag, in this order, and
# each level is the previous one plus its own flags.
FEATURE_FLAGS = (
    "Scalar",
    "x86",
    "SSE",
    "SSE2",
    "SSE3",
    "SSSE3",
    "SSE41",
    "SSE42",
    "AVX",
    "AVX2",
    "AVX512_F",
    "AVX512_VL",
    "AVX512_DQ",
    "AVX512_BW",
    "ARM",
    "NEON",
    "AARCH64",
    "WASM",
)


def _flags(*names: str) -> int:
    return sum(1 << FEATURE_FLAGS.index(name) for name in names)


def _feature_sets() -> dict[str, int]:
    """FastSIMD's named levels: x86 ones cumulative (SSE2 = x86 | SSE | SSE2, ...), as FeatureEnums.h."""
    levels = {"SCALAR": _flags("Scalar")}
    level = _flags("x86")
    for name, added in (
        ("SSE", ("SSE",)),
        ("SSE2", ("SSE2",)),
        ("SSE3", ("SSE3",)),
        ("SSSE3", ("SSSE3",)),
        ("SSE41", ("SSE41",)),
        ("SSE42", ("SSE42",)),
        ("AVX", ("AVX",)),
        ("AVX2", ("AVX2",)),
        ("AVX512", ("AVX512_F", "AVX512_VL", "AVX512_DQ", "AVX512_BW")),
    ):
        level |= _flags(*added)
        levels[name] = level
    levels["NEON"] = _flags("ARM", "NEON")
    levels["AARCH64"] = levels["NEON"] | _flags("AARCH64")
    return levels


FEATURE_SETS = _feature_sets()
NO_SIMD_LIMIT = 0xFFFFFFFF


def feature_set_name(value: int) -> str:
    """The FastSIMD level name of ``fnGetActiveFeatureSet``'s value (``AVX512``, ``AVX2``, ...)."""
    for name, bits in FEATURE_SETS.items():
        if bits == value:
            return name
    return f"unknown ({value:#x})"


def cpu_flags(cpuinfo: str) -> set[str]:
    """The ``flags`` of the first processor in ``/proc/cpuinfo`` text (empty when there is none)."""
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "flags":
            return set(value.split())
    return set()


def instruction_set(flags: set[str]) -> str:
    """The widest x86 vector instruction set in ``flags``, as the report states it."""
    if {"avx512f", "avx512vl", "avx512dq", "avx512bw"} <= flags:
        extra = sorted(f for f in flags if f.startswith("avx512") and f not in ("avx512f", "avx512vl"))
        return "AVX-512 (avx512f, avx512vl, " + ", ".join(extra) + ")"
    if "avx2" in flags:
        return "AVX2" + (" + FMA" if "fma" in flags else "")
    if "avx" in flags:
        return "AVX"
    if "sse4_2" in flags:
        return "SSE4.2"
    return "SSE2" if "sse2" in flags else "unknown"


def machine_instruction_set() -> str:
    try:
        return instruction_set(cpu_flags(Path("/proc/cpuinfo").read_text()))
    except OSError:
        return "unknown (no /proc/cpuinfo)"


class PeerError(Exception):
    """A native peer is not built or cannot be loaded; the message starts with the section's name."""


def load_peer_manifest(peers_dir: Path, section: str) -> dict:
    """``peers.json`` written by ``scripts/build_peers.py``, with the library ``section`` needs present."""
    manifest_path = peers_dir / "peers.json"
    try:
        manifest = json.loads(manifest_path.read_text())
    except FileNotFoundError:
        raise PeerError(
            f"{section}: the native peers are not built ({manifest_path} is missing); build them with "
            f"{BUILD_PEERS_HINT}"
        ) from None
    except (OSError, ValueError) as error:
        raise PeerError(f"{section}: cannot read {manifest_path}: {error}; rebuild with {BUILD_PEERS_HINT}") from None
    key = {"fn2": "fn2_library", "fnl-native": "fnl_library"}[section]
    library = manifest.get(key)
    if not library or not Path(library).is_file():
        raise PeerError(
            f"{section}: {manifest_path} names no existing {key} ({library!r}); rebuild with {BUILD_PEERS_HINT}"
        )
    return manifest


def _library(path: str, section: str) -> ctypes.CDLL:
    try:
        return ctypes.CDLL(path)
    except OSError as error:
        raise PeerError(f"{section}: cannot load {path}: {error}; rebuild with {BUILD_PEERS_HINT}") from None


_FLOATS = np.ctypeslib.ndpointer(dtype=np.float32, flags="C_CONTIGUOUS")


class FastNoise2:
    """FastNoise2 through its C API (``FastNoise/FastNoise_C.h``): node trees built from metadata by name."""

    def __init__(self, path: str):
        lib = self.lib = _library(path, "fn2")
        c_int, c_uint, c_float, c_char_p, c_void_p, c_bool = (
            ctypes.c_int,
            ctypes.c_uint,
            ctypes.c_float,
            ctypes.c_char_p,
            ctypes.c_void_p,
            ctypes.c_bool,
        )
        signatures = {
            "fnGetMetadataCount": (c_int, []),
            "fnGetMetadataName": (c_char_p, [c_int]),
            "fnNewFromMetadata": (c_void_p, [c_int, c_uint]),
            "fnDeleteNodeRef": (None, [c_void_p]),
            "fnGetActiveFeatureSet": (c_uint, [c_void_p]),
            "fnGetMetadataVariableCount": (c_int, [c_int]),
            "fnGetMetadataVariableName": (c_char_p, [c_int, c_int]),
            "fnGetMetadataVariableType": (c_int, [c_int, c_int]),
            "fnGetMetadataEnumCount": (c_int, [c_int, c_int]),
            "fnGetMetadataEnumName": (c_char_p, [c_int, c_int, c_int]),
            "fnSetVariableFloat": (c_bool, [c_void_p, c_int, c_float]),
            "fnSetVariableIntEnum": (c_bool, [c_void_p, c_int, c_int]),
            "fnGetMetadataHybridCount": (c_int, [c_int]),
            "fnGetMetadataHybridName": (c_char_p, [c_int, c_int]),
            "fnSetHybridFloat": (c_bool, [c_void_p, c_int, c_float]),
            "fnGetMetadataNodeLookupCount": (c_int, [c_int]),
            "fnGetMetadataNodeLookupName": (c_char_p, [c_int, c_int]),
            "fnSetNodeLookup": (c_bool, [c_void_p, c_int, c_void_p]),
            "fnGenPositionArray2D": (
                None,
                [c_void_p, _FLOATS, c_int, _FLOATS, _FLOATS, c_float, c_float, c_int, c_void_p],
            ),
            "fnGenPositionArray3D": (
                None,
                [c_void_p, _FLOATS, c_int, _FLOATS, _FLOATS, _FLOATS, c_float, c_float, c_float, c_int, c_void_p],
            ),
            "fnGenUniformGrid2D": (
                None,
                [c_void_p, _FLOATS, c_float, c_float, c_int, c_int, c_float, c_float, c_int, c_void_p],
            ),
        }
        for name, (restype, argtypes) in signatures.items():
            function = getattr(lib, name)
            function.restype, function.argtypes = restype, argtypes
        self.ids = {lib.fnGetMetadataName(i).decode(): i for i in range(lib.fnGetMetadataCount())}

    def _index(self, node_id: int, count: str, name_of: str, wanted: str) -> int:
        names = [getattr(self.lib, name_of)(node_id, i).decode() for i in range(getattr(self.lib, count)(node_id))]
        if wanted not in names:
            raise PeerError(f"fn2: FastNoise2 node {node_id} has no input {wanted!r} (it has {names})")
        return names.index(wanted)

    def node(
        self,
        name: str,
        max_feature_set: int = NO_SIMD_LIMIT,
        variables: dict | None = None,
        hybrids: dict | None = None,
        sources: dict | None = None,
    ) -> int:
        """A new node handle (free it with ``delete``): ``variables`` by name (floats, ints, or enum option
        names), ``hybrids`` by name (constant floats), ``sources`` by name (node handles)."""
        if name not in self.ids:
            raise PeerError(f"fn2: this FastNoise2 has no node {name!r}")
        node_id = self.ids[name]
        handle = self.lib.fnNewFromMetadata(node_id, max_feature_set)
        ok = True
        for variable, value in (variables or {}).items():
            index = self._index(node_id, "fnGetMetadataVariableCount", "fnGetMetadataVariableName", variable)
            if isinstance(value, str):
                options = [
                    self.lib.fnGetMetadataEnumName(node_id, index, i).decode()
                    for i in range(self.lib.fnGetMetadataEnumCount(node_id, index))
                ]
                if value not in options:
                    raise PeerError(f"fn2: {name}.{variable} has no option {value!r} (it has {options})")
                ok &= self.lib.fnSetVariableIntEnum(handle, index, options.index(value))
            elif isinstance(value, int):
                ok &= self.lib.fnSetVariableIntEnum(handle, index, value)
            else:
                ok &= self.lib.fnSetVariableFloat(handle, index, float(value))
        for hybrid, value in (hybrids or {}).items():
            index = self._index(node_id, "fnGetMetadataHybridCount", "fnGetMetadataHybridName", hybrid)
            ok &= self.lib.fnSetHybridFloat(handle, index, float(value))
        for source, child in (sources or {}).items():
            index = self._index(node_id, "fnGetMetadataNodeLookupCount", "fnGetMetadataNodeLookupName", source)
            ok &= self.lib.fnSetNodeLookup(handle, index, child)
        if not ok:
            self.delete(handle)
            raise PeerError(f"fn2: FastNoise2 refused a setting of {name}: {variables}, {hybrids}")
        return handle

    def delete(self, handle: int) -> None:
        self.lib.fnDeleteNodeRef(handle)

    def feature_set(self, handle: int) -> str:
        return feature_set_name(self.lib.fnGetActiveFeatureSet(handle))

    def positions(self, handle: int, columns: list[np.ndarray], out: np.ndarray) -> None:
        """``fnGenPositionArray2D/3D`` at the float32 coordinate ``columns``, seed 0, into ``out``."""
        if len(columns) == 2:
            self.lib.fnGenPositionArray2D(handle, out, out.size, *columns, 0.0, 0.0, 0, None)
        else:
            self.lib.fnGenPositionArray3D(handle, out, out.size, *columns, 0.0, 0.0, 0.0, 0, None)

    def grid(self, handle: int, out: np.ndarray) -> None:
        """``fnGenUniformGrid2D`` at noise_core's pixel centres ((c + .5)/W, (r + .5)/H), seed 0."""
        height, width = out.shape
        self.lib.fnGenUniformGrid2D(
            handle, out.reshape(-1), 0.5 / width, 0.5 / height, width, height, 1 / width, 1 / height, 0, None
        )


class FastNoiseLiteNative:
    """FastNoiseLite compiled natively (``scripts/peers/fnl_shim.cpp``) through ctypes."""

    def __init__(self, path: str):
        lib = self.lib = _library(path, "fnl-native")
        lib.fnl_new.restype = ctypes.c_void_p
        lib.fnl_new.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_float, ctypes.c_int, ctypes.c_int]
        lib.fnl_delete.restype, lib.fnl_delete.argtypes = None, [ctypes.c_void_p]
        lib.fnl_gen_2d.restype = None
        lib.fnl_gen_2d.argtypes = [ctypes.c_void_p, ctypes.c_int, _FLOATS, _FLOATS, _FLOATS]
        lib.fnl_gen_3d.restype = None
        lib.fnl_gen_3d.argtypes = [ctypes.c_void_p, ctypes.c_int, _FLOATS, _FLOATS, _FLOATS, _FLOATS]
        lib.fnl_grid_2d.restype = None
        lib.fnl_grid_2d.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int] + [ctypes.c_float] * 4 + [_FLOATS]

    def new(self, noise: str, cellular_return: str | None, frequency: float, octaves: int) -> int:
        handle = self.lib.fnl_new(
            noise.encode(), cellular_return.encode() if cellular_return else None, frequency, octaves, 0
        )
        if not handle:
            raise PeerError(f"fnl-native: the shim does not know noise {noise!r} / return {cellular_return!r}")
        return handle

    def delete(self, handle: int) -> None:
        self.lib.fnl_delete(handle)

    def positions(self, handle: int, columns: list[np.ndarray], out: np.ndarray) -> None:
        if len(columns) == 2:
            self.lib.fnl_gen_2d(handle, out.size, *columns, out)
        else:
            self.lib.fnl_gen_3d(handle, out.size, *columns, out)

    def grid(self, handle: int, out: np.ndarray) -> None:
        height, width = out.shape
        self.lib.fnl_grid_2d(handle, width, height, 0.5 / width, 0.5 / height, 1 / width, 1 / height, out.reshape(-1))


@dataclass(frozen=True)
class PeerCase:
    """One side-by-side measurement: noise_core ``kind`` (``function`` f1 for Voronoi/cellular) and its peers."""

    kind: str
    dim: int
    layout: str  # "points" (random points) or "grid" (PEER_GRID x PEER_GRID, 2D)
    octaves: int = 1

    @property
    def name(self) -> str:
        fractal = f" fBm {self.octaves} oct" if self.octaves > 1 else ""
        where = "random" if self.layout == "points" else f"grid {PEER_GRID}²"
        return f"{self.kind}{' F1' if self.kind in ('voronoi', 'cellular') else ''}{fractal} {self.dim}D {where}"

    def spec_options(self) -> dict:
        return {"function": "f1"} if self.kind in ("voronoi", "cellular") else {}

    def lattice_scale(self) -> float:
        """Peer frequency / noise_core frequency that gives both the same lattice cells per unit: noise_core's
        simplex scales its input by 1/sqrt(3) (2D) and 0.6 (3D) before the same skew FastNoise2's Simplex uses;
        every other kind is on the unit lattice times frequency on both sides."""
        if self.kind != "simplex":
            return 1.0
        from noise_core import simplex

        return float(simplex.SCALE_2D if self.dim == 2 else simplex.SCALE_3D)

    def fn2_node(self) -> tuple[str, dict]:
        """FastNoise2 node name and variables (besides Feature Scale)."""
        if self.kind in ("voronoi", "cellular"):
            return "CellularDistance", {"Distance Function": "Euclidean", "Return Type": "Index0"}
        return {"value": "Value", "perlin": "Perlin", "simplex": "Simplex"}[self.kind], {}

    def fnl_noise(self) -> tuple[str, str | None]:
        """FastNoiseLite noise type and cellular return type."""
        if self.kind in ("voronoi", "cellular"):
            return "Cellular", "Distance"
        return {"value": "Value", "perlin": "Perlin", "simplex": "OpenSimplex2"}[self.kind], None


def peer_cases() -> list[PeerCase]:
    """Random points in 2D and 3D per kind, fBm 4 octaves Perlin 3D, and the 2D grids."""
    kinds = ("value", "perlin", "simplex", "voronoi", "cellular")
    cases = [PeerCase(kind, dim, "points") for kind in kinds for dim in (2, 3)]
    cases.append(PeerCase("perlin", 3, "points", octaves=4))
    cases += [PeerCase(kind, 2, "grid") for kind in kinds]
    return cases


def load_average() -> str:
    try:
        return " ".join(f"{value:.2f}" for value in os.getloadavg())
    except OSError:
        return "unknown"


def fn2_tree(fn2: FastNoise2, case: PeerCase, max_feature_set: int) -> int:
    """The root node for ``case``: Feature Scale ``1 / (frequency x lattice scale)`` (FastNoise2 multiplies
    positions by its reciprocal, ``ScalableGenerator::mFrequency``); for octaves > 1 a FractalFBm (lacunarity 2,
    gain 0.5, as noise_core's persistence) over it."""
    name, variables = case.fn2_node()
    scale = {"Feature Scale": 1.0 / (FREQUENCY * case.lattice_scale())}
    source = fn2.node(name, max_feature_set, {**scale, **variables})
    if case.octaves == 1:
        return source
    try:
        return fn2.node(
            "FractalFBm",
            max_feature_set,
            {"Octaves": case.octaves, "Lacunarity": 2.0},
            {"Gain": 0.5, "Weighted Strength": 0.0},
            {"Source": source},
        )
    finally:
        fn2.delete(source)  # the fractal holds its own reference


def run_peers(sections: list[str], points: dict[int, np.ndarray], repeat: int, peers_dir: Path) -> dict:
    """noise_core on one thread against FastNoise2 (and capped at AVX2 when it picks more) and native
    FastNoiseLite, one thread each, on the same float32 points and grid."""
    import numba

    manifests = {section: load_peer_manifest(peers_dir, section) for section in sections}
    fn2 = FastNoise2(manifests["fn2"]["fn2_library"]) if "fn2" in manifests else None
    fnl = FastNoiseLiteNative(manifests["fnl-native"]["fnl_library"]) if "fnl-native" in manifests else None
    result: dict = {
        "instruction_set": machine_instruction_set(),
        "load_before": load_average(),
        "grid": PEER_GRID,
        "manifest": next(iter(manifests.values())),
        "rows": [],
    }
    rows = result["rows"]
    packed = {dim: np.ascontiguousarray(points[dim], dtype=np.float32) for dim in (2, 3)}
    columns = {dim: [np.ascontiguousarray(packed[dim][:, axis]) for axis in range(dim)] for dim in (2, 3)}
    limits = {}
    if fn2 is not None:
        probe = fn2.node("Perlin")
        top = fn2.lib.fnGetActiveFeatureSet(probe)
        fn2.delete(probe)
        result["fn2_simd"] = feature_set_name(top)
        limits["fn2"] = NO_SIMD_LIMIT
        if top > FEATURE_SETS["AVX2"] and top & 1 << FEATURE_FLAGS.index("x86"):
            limits["fn2_avx2"] = FEATURE_SETS["AVX2"]
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        for case in peer_cases():
            row: dict = {"case": case.name, "kind": case.kind, "dim": case.dim, "layout": case.layout}
            row["octaves"], row["lattice_scale"] = case.octaves, case.lattice_scale()
            count, core = core_function(case, packed)
            out = np.empty((PEER_GRID, PEER_GRID) if case.layout == "grid" else count, dtype=np.float32)
            peers: list[tuple[str, object, int]] = []
            for key, limit in limits.items():
                root = fn2_tree(fn2, case, limit)
                row[f"{key}_simd"] = fn2.feature_set(root)
                peers.append((key, fn2, root))
            if fnl is not None:
                noise, ret = case.fnl_noise()
                handle = fnl.new(noise, ret, FREQUENCY * case.lattice_scale(), case.octaves)
                peers.append(("fnl_native", fnl, handle))
            timed: dict[str, Callable[[], object]] = {"core": core}
            for key, peer, handle in peers:

                def call(peer=peer, handle=handle, dim=case.dim, layout=case.layout, out=out):
                    if layout == "grid":
                        peer.grid(handle, out)
                    else:
                        peer.positions(handle, columns[dim], out)

                timed[key] = call
            for function in timed.values():
                function()  # warm: the first noise_core call compiles or loads the kernel
            for key, seconds in interleaved_best(timed, repeat).items():
                row[f"{key}_mps"] = count / seconds / 1e6
            for key, peer, handle in peers:
                timed[key]()
                row[f"{key}_std"] = float(np.std(out))
                peer.delete(handle)
            rows.append(row)
            measured = "  ".join(
                f"{key} {row[key + '_mps']:7.1f}" for key in ("core", *limits, "fnl_native") if key + "_mps" in row
            )
            print(f"  peers {case.name:<30} {measured} M/s", flush=True)
    finally:
        numba.set_num_threads(threads)
    if "fn2_avx2" in limits:
        result["core_avx2_target"] = AVX2_TARGET
        for row, rate in zip(rows, core_rates_at_avx2(len(points[2]), repeat, peers_dir), strict=True):
            row["core_avx2_mps"] = rate
            print(f"  peers {row['case']:<30} core at AVX2 {rate:7.1f} M/s", flush=True)
    result["load_after"] = load_average()
    return result


def core_function(case: PeerCase, packed: dict[int, np.ndarray]) -> tuple[int, Callable[[], object]]:
    """The number of samples of ``case`` and the noise_core call that computes them."""
    from noise_core import NoiseSpec, evaluate, evaluate_grid

    spec = NoiseSpec(kind=case.kind, frequency=FREQUENCY, octaves=case.octaves, **case.spec_options())
    if case.layout == "grid":
        return PEER_GRID * PEER_GRID, lambda: evaluate_grid(spec, (PEER_GRID, PEER_GRID))
    return packed[case.dim].shape[0], lambda: evaluate(spec, packed[case.dim])


def core_rate(case: PeerCase, packed: dict[int, np.ndarray], repeat: int) -> float:
    """noise_core's million samples/s for ``case`` (warm: the first call compiles or loads the kernel)."""
    count, core = core_function(case, packed)
    core()
    return count / best_time(core, repeat) / 1e6


AVX2_TARGET = "x86-64-v3"
"""LLVM CPU for noise_core "capped at AVX2": x86-64-v3 is AVX2 + FMA + BMI2 (FastSIMD's AVX2 level)."""


def features_without_avx512(features: dict[str, bool]) -> str:
    """An LLVM feature string (``+avx2,-avx512f,...``) of the host's ``features`` with every AVX-512 (and
    AVX10 / 512-bit EVEX) feature switched off, for ``NUMBA_CPU_FEATURES``."""
    off = ("avx512", "avx10", "evex512", "amx-avx512")
    return ",".join(
        ("-" if name.startswith(off) or not enabled else "+") + name for name, enabled in sorted(features.items())
    )


def core_rates_at_avx2(count: int, repeat: int, peers_dir: Path) -> list[float]:
    """The noise_core column again, in a new process whose kernels LLVM compiles for ``AVX2_TARGET`` without
    AVX-512 (``NUMBA_CPU_NAME``/``NUMBA_CPU_FEATURES``; Numba would otherwise take every host feature), with
    its own Numba cache under ``peers_dir`` (the first run compiles every kind once)."""
    import llvmlite.binding as llvm

    env = {
        **os.environ,
        "NUMBA_CPU_NAME": AVX2_TARGET,
        "NUMBA_CPU_FEATURES": features_without_avx512(dict(llvm.get_host_cpu_features())),
        "NUMBA_CACHE_DIR": str(peers_dir / f"numba-cache-{AVX2_TARGET}"),
        "NUMBA_NUM_THREADS": "1",
        "PYTHONPATH": str(ROOT),
    }
    command = [sys.executable, str(Path(__file__).resolve()), "--peers-core-child", "--points", str(count)]
    command += ["--repeat", str(repeat), "--min-seconds", str(TIMING.min_seconds)]
    done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"noise_core at {AVX2_TARGET} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def peers_core_child(count: int, repeat: int) -> None:
    """Runs in the process of ``core_rates_at_avx2``: noise_core's rate for every peer case, one JSON list."""
    import numba

    numba.set_num_threads(1)
    packed = {dim: random_points(count, dim).astype(np.float32) for dim in (2, 3)}
    print(json.dumps([core_rate(case, packed, repeat) for case in peer_cases()]), flush=True)


PEER_COLUMNS = (
    ("fn2", "FastNoise2"),
    ("fn2_avx2", "FastNoise2 capped at AVX2"),
    ("fnl_native", "FastNoiseLite -O3 -march=native"),
)


def peers_report(peers: dict, info: dict) -> list[str]:
    """The "noise_core vs FastNoise2, per core" tables (million samples/s, one thread each)."""
    rows = peers["rows"]
    present = [(key, title) for key, title in PEER_COLUMNS if any(f"{key}_mps" in row for row in rows)]
    at_avx2 = any("core_avx2_mps" in row for row in rows)
    manifest = peers.get("manifest", {})
    out = [
        "",
        "### noise_core vs FastNoise2, per core (million samples/s, one thread each)",
        "",
        f"CPU: {info['cpu']} ({info['cores']} cores), instruction set {peers['instruction_set']}. FastNoise2 "
        f"{manifest.get('fn2_version', '?')} runs {peers.get('fn2_simd', 'n/a')}"
        + (", and capped at AVX2 with fnNewFromMetadata's maximum feature set" if "fn2_avx2" in dict(present) else "")
        + f"; FastNoiseLite built with {manifest.get('compiler', '?')} {' '.join(manifest.get('fnl_flags', []))}. "
        f"noise_core: numba.set_num_threads(1). Load average (1, 5, 15 min) {peers['load_before']} before, "
        f"{peers['load_after']} after.",
        "",
        "| case | noise_core | "
        + " | ".join(f"{title} | ratio" for _, title in present)
        + (f" | noise_core at AVX2 ({peers.get('core_avx2_target')}) | ratio to FastNoise2 at AVX2" if at_avx2 else "")
        + " |",
        "|---|---|" + "---|---|" * (len(present) + at_avx2),
    ]
    for row in rows:
        cells = [row["case"], f"{row['core_mps']:.1f}"]
        for key, _ in present:
            peer = row.get(f"{key}_mps")
            cells += [f"{peer:.1f}", f"{row['core_mps'] / peer:.2f}"] if peer else ["n/a", ""]
        if at_avx2:
            ours, peer = row.get("core_avx2_mps"), row.get("fn2_avx2_mps")
            cells += [f"{ours:.1f}" if ours else "n/a", f"{ours / peer:.2f}" if ours and peer else ""]
        out.append("| " + " | ".join(cells) + " |")
    return out


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
        double = sum(bool(re.fullmatch(r"v\w+pd", op)) for op in ops)
        single = sum(bool(re.fullmatch(r"v\w+ps", op)) for op in ops)
        scalar = sum(bool(re.fullmatch(r"v(?!p)\w+s[sd]", op)) for op in ops)
        ymm = sum("ymm" in " ".join(line) for line in lines)
        zmm = sum("zmm" in " ".join(line) for line in lines)
        gathers = sum("gather" in op for op in ops)
        rows.append(dict(kind=name, dim=dim, packed=packed, double=double, single=single, scalar=scalar, ymm=ymm,
                         zmm=zmm, gathers=gathers, instructions=len(ops)))
import llvmlite.binding as llvm
print(json.dumps({"cpu": llvm.get_host_cpu_name(), "rows": rows}))
"""


def run_asm() -> list[dict]:
    """Machine-code statistics of each kind's default kernel (see the module docstring)."""
    with tempfile.TemporaryDirectory(prefix="noisewright-bench-asm-") as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": str(ROOT)}
        done = subprocess.run(
            [sys.executable, "-c", ASM_PROGRAM], env=env, cwd=ROOT, capture_output=True, text=True, check=True
        )
    found = json.loads(done.stdout.strip().splitlines()[-1])
    for row in found["rows"]:
        print(
            f"  asm {row['kind']:<14} {row['dim']}D packed {row['packed']:5d} scalar {row['scalar']:5d} "
            f"zmm {row['zmm']:5d} gathers {row['gathers']:3d}",
            flush=True,
        )
    return found


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
        out += _terrain_section()["terrain_report"](results["terrain"])
    if "textures" in results:
        out += _helper_section("bench_textures")["textures_report"](results["textures"])
    if "scale" in results:
        out += scale_report(results["scale"])
    lines = target_lines(results)
    if lines:
        out += ["", "### Targets", "", "```", *lines, "```"]
    return "\n".join(out)


def _terrain_section() -> dict:
    """``scripts/bench_terrain.py`` (the ``terrain`` section), loaded as the scripts load their helpers."""
    return _helper_section("bench_terrain")


def _helper_section(name: str) -> dict:
    """``scripts/<name>.py``, a section's module, loaded as the scripts load their helpers."""
    import runpy

    return runpy.run_path(str(Path(__file__).with_name(f"{name}.py")), run_name=name)


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
        _terrain_section()["terrain_child"](args.grid, args.repeat, best_time)
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
        results["terrain"] = _terrain_section()["run_terrain"](
            points[2], best_time, args.repeat, args.grid, args.min_seconds, _fnl_library(args.peers_dir)
        )
    if "textures" in sections:
        print("textures: derivatives, normal maps ...", flush=True)
        results["textures"] = _helper_section("bench_textures")["run_textures"](points, best_time, args.repeat)
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
