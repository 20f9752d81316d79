"""The ``fn2`` and ``fnl-native`` sections of ``scripts/bench.py``: noise_core on one thread against FastNoise2
and FastNoiseLite compiled natively (``scripts/build_peers.py`` builds them), and their report.

Run on its own it measures both sections side by side in one run and prints the table, with the CPU's vector
flags and the SIMD level FastNoise2 picked::

    .venv/bin/python scripts/bench_peers.py                      # every case, and again capped at AVX2
    .venv/bin/python scripts/bench_peers.py --cases random --no-avx2 --min-seconds 0.5
"""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from bench_common import BENCH, FREQUENCY, ROOT, TIMING, best_time, interleaved_best, random_points

# ------------------------------------------------------------------------------- native peers (fn2, fnl-native)

PEER_SECTIONS = ("fn2", "fnl-native")
PEERS_DIR = ROOT / "build" / "peers"
PEER_GRID = 1024
PEER_GRID_3D = 128
"""Side of the 3D grid cases (128^3 = 2M samples: ``evaluate_lattice`` with ``zs`` / ``fnGenUniformGrid3D``)."""
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


VECTOR_FLAGS = ("avx2", "fma")


def vector_flags(flags: set[str]) -> str:
    """The AVX2, FMA and AVX-512 flags among ``flags``, sorted (as ``grep -o 'avx512[a-z_0-9]*\\|avx2\\|fma'``)."""
    return " ".join(sorted(f for f in flags if f in VECTOR_FLAGS or f.startswith("avx512")))


def machine_vector_flags() -> str:
    try:
        return vector_flags(cpu_flags(Path("/proc/cpuinfo").read_text()))
    except OSError:
        return "unknown (no /proc/cpuinfo)"


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
            "fnGenUniformGrid3D": (
                None,
                [c_void_p, _FLOATS, *[c_float] * 3, *[c_int] * 3, *[c_float] * 3, c_int, c_void_p],
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
        """``fnGenUniformGrid2D`` at noise_core's pixel centres ((c + .5)/W, (r + .5)/H), seed 0; for a 3D ``out``
        (slices, rows, cols) ``fnGenUniformGrid3D`` at ((c + .5)/W, (r + .5)/H, (s + .5)/D)."""
        if out.ndim == 3:
            depth, height, width = out.shape
            self.lib.fnGenUniformGrid3D(
                handle, out.reshape(-1), 0.5 / width, 0.5 / height, 0.5 / depth, width, height, depth,
                1 / width, 1 / height, 1 / depth, 0, None,
            )  # fmt: skip
            return
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
    layout: str  # "points" (random points) or "grid" (PEER_GRID x PEER_GRID in 2D, PEER_GRID_3D cubed in 3D)
    octaves: int = 1
    hash: str = "smallxxhash"  # noise_core's ``hash`` option (the lattice and simplex kinds)

    @property
    def shape(self) -> tuple[int, ...]:
        """The grid's shape ((slices,) rows, cols); () for random points."""
        if self.layout != "grid":
            return ()
        return (PEER_GRID, PEER_GRID) if self.dim == 2 else (PEER_GRID_3D,) * 3

    @property
    def name(self) -> str:
        fractal = f" fBm {self.octaves} oct" if self.octaves > 1 else ""
        where = "random" if self.layout == "points" else f"grid {self.shape[-1]}{'²' if self.dim == 2 else '³'}"
        hashed = "" if self.hash == "smallxxhash" else f" {self.hash} hash"
        f1 = " F1" if self.kind in ("voronoi", "cellular") else ""
        return f"{self.kind}{f1}{fractal} {self.dim}D {where}{hashed}"

    def spec_options(self) -> dict:
        if self.kind in ("voronoi", "cellular"):
            return {"function": "f1"}
        return {} if self.hash == "smallxxhash" else {"hash": self.hash}

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
    """Random points in 2D and 3D per kind, fBm 4 octaves Perlin 2D and 3D, the random points of value, Perlin
    and simplex noise (and Perlin fBm) with ``hash="prime"``, the 2D grids, and the 3D grids of value, Perlin and
    simplex noise."""
    kinds = ("value", "perlin", "simplex", "voronoi", "cellular")
    cases = [PeerCase(kind, dim, "points") for kind in kinds for dim in (2, 3)]
    cases += [PeerCase("perlin", dim, "points", octaves=4) for dim in (2, 3)]
    cases += [PeerCase(kind, dim, "points", hash="prime") for kind in kinds[:3] for dim in (2, 3)]
    cases += [PeerCase("perlin", dim, "points", octaves=4, hash="prime") for dim in (2, 3)]
    cases += [PeerCase(kind, 2, "grid") for kind in kinds]
    cases += [PeerCase(kind, 3, "grid") for kind in ("value", "perlin", "simplex")]
    cases += [PeerCase("simplex", 3, "grid", hash="prime")]
    return cases


CASE_GROUPS = {
    "random": lambda case: case.layout == "points",
    "grid": lambda case: case.layout == "grid",
    "grid3d": lambda case: case.layout == "grid" and case.dim == 3,
    "lattice": lambda case: case.kind in ("value", "perlin", "simplex"),
    "hash": lambda case: case.layout == "points" and case.kind in ("value", "perlin", "simplex"),
    "all": lambda case: True,
}
"""``--cases`` of the script run on its own: which ``peer_cases`` it measures."""


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


PEER_CLOCK = time.thread_time
"""The peers' clock: the CPU time of the calling thread, where every side runs (FastNoise2's and FastNoiseLite's
calls, and noise_core's kernels with ``numba.set_num_threads(1)``, whose launch then runs the one part in the
calling thread: its thread time equals the process's). On a machine shared with other work, wall-clock time
counts the spells the process waits for a core (at a load of 8 on 2 cores, 4x its CPU time); CPU time does not."""


def run_peers(
    sections: list[str],
    points: dict[int, np.ndarray],
    repeat: int,
    peers_dir: Path,
    cases: list[PeerCase] | None = None,
    at_avx2: bool = True,
) -> dict:
    """noise_core on one thread against FastNoise2 (and capped at AVX2 when it picks more, unless not
    ``at_avx2``) and native FastNoiseLite, one thread each, on the same float32 points and grid; ``cases``
    (default ``peer_cases()``)."""
    import numba

    cases = peer_cases() if cases is None else cases

    manifests = {section: load_peer_manifest(peers_dir, section) for section in sections}
    fn2 = FastNoise2(manifests["fn2"]["fn2_library"]) if "fn2" in manifests else None
    fnl = FastNoiseLiteNative(manifests["fnl-native"]["fnl_library"]) if "fnl-native" in manifests else None
    result: dict = {
        "instruction_set": machine_instruction_set(),
        "vector_flags": machine_vector_flags(),
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
        for case in cases:
            row: dict = {"case": case.name, "kind": case.kind, "dim": case.dim, "layout": case.layout}
            row["octaves"], row["lattice_scale"] = case.octaves, case.lattice_scale()
            count, core = core_function(case, packed)
            out = np.empty(case.shape or count, dtype=np.float32)
            peers: list[tuple[str, object, int]] = []
            for key, limit in limits.items():
                root = fn2_tree(fn2, case, limit)
                row[f"{key}_simd"] = fn2.feature_set(root)
                peers.append((key, fn2, root))
            if fnl is not None and not (case.layout == "grid" and case.dim == 3):  # the shim has no 3D grid
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
            for key, seconds in interleaved_best(timed, repeat, PEER_CLOCK).items():
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
    if "fn2_avx2" in limits and at_avx2:
        result["core_avx2_target"] = AVX2_TARGET
        names = [case.name for case in cases]
        for row, rate in zip(rows, core_rates_at_avx2(len(points[2]), repeat, peers_dir, names), strict=True):
            row["core_avx2_mps"] = rate
            print(f"  peers {row['case']:<30} core at AVX2 {rate:7.1f} M/s", flush=True)
    result["load_after"] = load_average()
    return result


def core_function(case: PeerCase, packed: dict[int, np.ndarray]) -> tuple[int, Callable[[], object]]:
    """The number of samples of ``case`` and the noise_core call that computes them."""
    from noise_core import NoiseSpec, evaluate, evaluate_grid
    from noise_core.api import evaluate_lattice

    spec = NoiseSpec(kind=case.kind, frequency=FREQUENCY, octaves=case.octaves, **case.spec_options())
    if case.layout == "grid" and case.dim == 3:
        axis = (np.arange(PEER_GRID_3D, dtype=np.float64) + 0.5) / PEER_GRID_3D
        return axis.size**3, lambda: evaluate_lattice(spec, axis, axis, zs=axis)
    if case.layout == "grid":
        return PEER_GRID * PEER_GRID, lambda: evaluate_grid(spec, (PEER_GRID, PEER_GRID))
    return packed[case.dim].shape[0], lambda: evaluate(spec, packed[case.dim])


def core_rate(case: PeerCase, packed: dict[int, np.ndarray], repeat: int) -> float:
    """noise_core's million samples/s for ``case`` (warm: the first call compiles or loads the kernel)."""
    count, core = core_function(case, packed)
    core()
    return count / best_time(core, repeat, clock=PEER_CLOCK) / 1e6


AVX2_TARGET = "x86-64-v3"
"""LLVM CPU for noise_core "capped at AVX2": x86-64-v3 is AVX2 + FMA + BMI2 (FastSIMD's AVX2 level)."""


def features_without_avx512(features: dict[str, bool]) -> str:
    """An LLVM feature string (``+avx2,-avx512f,...``) of the host's ``features`` with every AVX-512 (and
    AVX10 / 512-bit EVEX) feature switched off, for ``NUMBA_CPU_FEATURES``."""
    off = ("avx512", "avx10", "evex512", "amx-avx512")
    return ",".join(
        ("-" if name.startswith(off) or not enabled else "+") + name for name, enabled in sorted(features.items())
    )


def core_rates_at_avx2(count: int, repeat: int, peers_dir: Path, names: list[str] | None = None) -> list[float]:
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
    command = [sys.executable, str(BENCH), "--peers-core-child", "--points", str(count)]
    command += ["--repeat", str(repeat), "--min-seconds", str(TIMING.min_seconds)]
    if names is not None:
        env["NOISEWRIGHT_PEER_CASES"] = json.dumps(names)
    done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"noise_core at {AVX2_TARGET} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def peers_core_child(count: int, repeat: int) -> None:
    """Runs in the process of ``core_rates_at_avx2``: noise_core's rate for every peer case, one JSON list."""
    import numba

    numba.set_num_threads(1)
    packed = {dim: random_points(count, dim).astype(np.float32) for dim in (2, 3)}
    wanted = os.environ.get("NOISEWRIGHT_PEER_CASES")
    names = None if wanted is None else set(json.loads(wanted))
    cases = [case for case in peer_cases() if names is None or case.name in names]
    print(json.dumps([core_rate(case, packed, repeat) for case in cases]), flush=True)


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
        f"CPU: {info['cpu']} ({info['cores']} cores), instruction set {peers['instruction_set']} (flags: "
        f"{peers.get('vector_flags', 'not recorded')}). FastNoise2 "
        f"{manifest.get('fn2_version', '?')} runs {peers.get('fn2_simd', 'n/a')}"
        + (", and capped at AVX2 with fnNewFromMetadata's maximum feature set" if "fn2_avx2" in dict(present) else "")
        + f"; FastNoiseLite built with {manifest.get('compiler', '?')} {' '.join(manifest.get('fnl_flags', []))}. "
        f"noise_core: numba.set_num_threads(1). Times: the best CPU time of the calling thread (`time.thread_time`), "
        f"interleaved rounds. Load average (1, 5, 15 min) {peers['load_before']} before, "
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


def main(argv: list[str] | None = None) -> int:
    """The fn2 (and fnl-native, when built) sections on their own: the table of ``peers_report``."""
    import argparse

    from bench_common import machine

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--points", type=int, default=2**20, help="random points per case (default 2**20)")
    parser.add_argument("--repeat", type=int, default=6, help="timed runs per case; the best counts")
    parser.add_argument("--min-seconds", type=float, default=1.0, help="least time spent timing each side")
    parser.add_argument("--cases", choices=sorted(CASE_GROUPS), default="all", help="which cases (default all)")
    parser.add_argument("--no-avx2", action="store_true", help="skip the runs capped at AVX2 (FastNoise2's too)")
    parser.add_argument("--peers-dir", type=Path, default=PEERS_DIR, help=f"the built peers (default {PEERS_DIR})")
    args = parser.parse_args(argv)
    if args.points < 1 or args.repeat < 1 or args.min_seconds < 0:
        parser.error("--points and --repeat: must be positive; --min-seconds: must not be negative")
    TIMING.min_seconds = args.min_seconds
    try:
        sections = ["fn2"] + (["fnl-native"] if load_peer_manifest(args.peers_dir, "fn2").get("fnl_library") else [])
        print(f"CPU vector flags: {machine_vector_flags()}", flush=True)
        cases = [case for case in peer_cases() if CASE_GROUPS[args.cases](case)]
        points = {dim: random_points(args.points, dim) for dim in (2, 3)}
        peers = run_peers(sections, points, args.repeat, args.peers_dir, cases, at_avx2=not args.no_avx2)
    except PeerError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"FastNoise2 SIMD level: {peers.get('fn2_simd', 'n/a')}")
    print("\n".join(peers_report(peers, machine())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
