"""The native benchmark peers' plumbing: ``scripts/build_peers.py`` (missing tools and sources, reuse of a
finished build, failing steps) with stand-in tools, never a real compiler, and the non-timing parts of
``scripts/bench_peers.py``, the ``fn2``/``fnl-native`` sections of ``bench.py`` (FastSIMD level names, CPU flags,
the peers' manifest, frequency matching, the report). Nothing here compiles FastNoise2 or times anything."""

from __future__ import annotations

import io
import json
import math
import os
import stat
import subprocess
import sys
import tarfile
from pathlib import Path

import bench
import bench_peers
import build_peers
import pytest

# ------------------------------------------------------------------------------------------ helpers


def make_sources(folder: Path, skip: str | None = None) -> Path:
    """A folder with the files build_peers checks for, optionally without one project."""
    for project, files in build_peers.REQUIRED_SOURCES.items():
        if project == skip:
            continue
        for relative in files:
            path = folder / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("project(FastNoise2 VERSION 9.8.7)\n" if relative.endswith("CMakeLists.txt") else "")
    return folder


FAKE_TOOL = """#!{python}
import sys
from pathlib import Path

args = sys.argv[1:]
name = Path(sys.argv[0]).name
with open({log!r}, "a") as log:
    log.write(name + " " + " ".join(args) + "\\n")
if {fail!r} == name:
    sys.exit(3)
if name == "cmake":
    build = Path(args[args.index("-B") + 1])
    source = args[args.index("-S") + 1]
    build.mkdir(parents=True, exist_ok=True)
    (build / "build.ninja").write_text("")
    (build / "CMakeCache.txt").write_text("CMAKE_HOME_DIRECTORY:INTERNAL=" + source + "\\n")
elif name == "ninja":
    library = Path(args[args.index("-C") + 1]) / "Release" / "lib" / "libFastNoise.so"
    library.parent.mkdir(parents=True, exist_ok=True)
    library.write_bytes(b"not a library")
elif "--version" in args:
    print("fake-g++ 1.0")
else:
    Path(args[args.index("-o") + 1]).write_bytes(b"not a library")
"""


def fake_tools(folder: Path, log: Path, names=("cmake", "ninja", "g++"), fail: str | None = None) -> Path:
    """Stand-ins for cmake, ninja and g++ in ``folder`` that log their calls and make the files a build
    would (``fail``: that tool exits with status 3)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        path = folder / name
        path.write_text(FAKE_TOOL.format(python=sys.executable, log=str(log), fail=fail))
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return folder


@pytest.fixture
def only_path(monkeypatch: pytest.MonkeyPatch):
    """Set PATH to exactly the given folder (and forget $CXX)."""
    monkeypatch.delenv("CXX", raising=False)

    def set_path(folder: Path) -> None:
        monkeypatch.setenv("PATH", str(folder))

    return set_path


def run_main(capsys: pytest.CaptureFixture, argv: list[str]) -> tuple[int, str]:
    status = build_peers.main(argv)
    captured = capsys.readouterr()
    return status, captured.err


# ------------------------------------------------------------------------------------- build_peers.py


def test_missing_tools_are_named(tmp_path: Path, capsys: pytest.CaptureFixture, only_path) -> None:
    sources = make_sources(tmp_path / "src")
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    only_path(empty)
    status, err = run_main(capsys, ["--source", str(sources), "--out", str(tmp_path / "out")])
    assert status == 2
    assert err.startswith("error: missing build tool(s): cmake, ninja, C++ compiler g++ not found on PATH")
    assert "apt-get install cmake ninja-build g++" in err
    assert not (tmp_path / "out" / build_peers.MANIFEST).exists()


def test_only_the_missing_tool_is_named(tmp_path: Path, capsys: pytest.CaptureFixture, only_path) -> None:
    sources = make_sources(tmp_path / "src")
    only_path(fake_tools(tmp_path / "bin", tmp_path / "log", names=("cmake", "g++")))
    status, err = run_main(capsys, ["--source", str(sources), "--out", str(tmp_path / "out")])
    assert status == 2
    assert "missing build tool(s): ninja not found" in err
    assert "cmake" not in err.split("not found")[0]


def test_compiler_from_cxx_option(tmp_path: Path, capsys: pytest.CaptureFixture, only_path) -> None:
    sources = make_sources(tmp_path / "src")
    only_path(fake_tools(tmp_path / "bin", tmp_path / "log"))
    status, err = run_main(capsys, ["--source", str(sources), "--out", str(tmp_path / "out"), "--cxx", "clang++-99"])
    assert status == 2
    assert "missing build tool(s): C++ compiler clang++-99 not found" in err


def test_source_errors(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    status, err = run_main(capsys, ["--source", str(tmp_path / "nowhere"), "--out", str(tmp_path / "out")])
    assert (status, err.strip()) == (2, f"error: --source: {tmp_path / 'nowhere'} is not a folder")
    sources = make_sources(tmp_path / "src", skip="FastSIMD")
    status, err = run_main(capsys, ["--source", str(sources), "--out", str(tmp_path / "out")])
    assert status == 2
    assert err.startswith(f"error: --source: FastSIMD is missing: {sources / 'FastSIMD/CMakeLists.txt'} not found")


def test_archive_errors(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    status, err = run_main(capsys, ["--archive", str(tmp_path / "none.tar.gz"), "--out", str(tmp_path / "out")])
    assert status == 2
    assert err.startswith(f"error: --archive: {tmp_path / 'none.tar.gz'} not found")


@pytest.mark.parametrize(
    ("argv", "message"),
    [(["--jobs", "0"], "--jobs: must be a positive integer, got 0"), (["--jobs", "x"], "--jobs: invalid int value")],
)
def test_bad_options(capsys: pytest.CaptureFixture, argv: list[str], message: str) -> None:
    with pytest.raises(SystemExit) as stopped:
        build_peers.main(argv)
    assert stopped.value.code == 2
    assert message in capsys.readouterr().err


def test_out_must_be_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    (tmp_path / "file").write_text("")
    with pytest.raises(SystemExit) as stopped:
        build_peers.main(["--out", str(tmp_path / "file")])
    assert stopped.value.code == 2
    assert f"--out: {tmp_path / 'file'} exists and is not a folder" in capsys.readouterr().err


def test_build_then_reuse(tmp_path: Path, capsys: pytest.CaptureFixture, only_path) -> None:
    """A build with stand-in tools writes the manifest last; a second run with the same sources reuses it
    without running any tool (not even finding one)."""
    sources = make_sources(tmp_path / "src")
    log = tmp_path / "log"
    only_path(fake_tools(tmp_path / "bin", log))
    out = tmp_path / "out"
    status, err = run_main(capsys, ["--source", str(sources), "--out", str(out), "--jobs", "3"])
    assert (status, err) == (0, "")
    manifest = json.loads((out / build_peers.MANIFEST).read_text())
    assert manifest["fn2_library"] == str(out / "fn2" / "Release" / "lib" / "libFastNoise.so")
    assert manifest["fnl_library"] == str(out / build_peers.FNL_LIBRARY)
    assert (manifest["fn2_version"], manifest["compiler"]) == ("9.8.7", "fake-g++ 1.0")
    calls = log.read_text().splitlines()
    assert [call.split()[0] for call in calls] == ["cmake", "ninja", "g++", "g++"]
    assert "-DCMAKE_BUILD_TYPE=Release" in calls[0] and "-DBUILD_SHARED_LIBS=ON" in calls[0]
    assert f"-DCPM_FastSIMD_SOURCE={(sources / 'FastSIMD').resolve()}" in calls[0]
    assert calls[1].endswith("-j3")
    assert "-O3 -march=native" in calls[2] and str(build_peers.SHIM) in calls[2]

    empty = tmp_path / "empty-bin"
    empty.mkdir()
    only_path(empty)
    status, err = run_main(capsys, ["--source", str(sources), "--out", str(out)])
    assert (status, err) == (0, "")
    assert len(log.read_text().splitlines()) == 4

    # Edited sources are built again (ninja is incremental; CMake is configured once per build folder).
    only_path(tmp_path / "bin")
    header = sources / "FastNoiseLite/Cpp/FastNoiseLite.h"
    header.write_text("// edited\n")
    os.utime(header, ns=(header.stat().st_mtime_ns + 10**9,) * 2)
    assert run_main(capsys, ["--source", str(sources), "--out", str(out)]) == (0, "")
    assert [call.split()[0] for call in log.read_text().splitlines()[4:]] == ["ninja", "g++", "g++"]


def test_failing_step_leaves_no_manifest(tmp_path: Path, capsys: pytest.CaptureFixture, only_path) -> None:
    sources = make_sources(tmp_path / "src")
    only_path(fake_tools(tmp_path / "bin", tmp_path / "log", fail="ninja"))
    status, err = run_main(capsys, ["--source", str(sources), "--out", str(tmp_path / "out")])
    assert status == 1
    assert err.strip() == "error: building FastNoise2 (ninja) failed (exit status 3); its output is above"
    assert not (tmp_path / "out" / build_peers.MANIFEST).exists()


def archive_of(path: Path, sources: Path, top: str = "src") -> Path:
    with tarfile.open(path, "w:gz") as tar:
        tar.add(sources, arcname=top)
    return path


def test_archive_is_unpacked_once(tmp_path: Path, capsys: pytest.CaptureFixture, only_path) -> None:
    archive = archive_of(tmp_path / "peers.tar.gz", make_sources(tmp_path / "src"))
    only_path(fake_tools(tmp_path / "bin", tmp_path / "log"))
    out = tmp_path / "out"
    assert run_main(capsys, ["--archive", str(archive), "--out", str(out)]) == (0, "")
    unpacked = out / "src" / "FastNoiseLite/Cpp/FastNoiseLite.h"
    assert unpacked.is_file()
    assert (out / "src.sha256").read_text().strip() == build_peers.file_digest(archive)
    assert json.loads((out / build_peers.MANIFEST).read_text())["identity"]["sha256"] == build_peers.file_digest(
        archive
    )
    assert build_peers.unpack(archive, out) == out / "src"  # same digest: kept as it is
    assert not (out / "src.unpacking").exists()


def test_archive_without_src_folder(tmp_path: Path) -> None:
    archive = archive_of(tmp_path / "bad.tar.gz", make_sources(tmp_path / "src"), top="other")
    with pytest.raises(build_peers.MissingError, match=r"^--archive: .* has no top folder src/"):
        build_peers.unpack(archive, tmp_path / "out")
    assert not (tmp_path / "out" / "src").exists()


def test_cmake_home_is_read_from_the_cache(tmp_path: Path) -> None:
    assert build_peers.cmake_home(tmp_path) is None
    (tmp_path / "CMakeCache.txt").write_text("X:BOOL=ON\nCMAKE_HOME_DIRECTORY:INTERNAL=/src/FastNoise2\n")
    assert build_peers.cmake_home(tmp_path) == "/src/FastNoise2"


def test_script_runs_standalone(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(build_peers.__file__), "--source", str(tmp_path / "none")],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2
    assert "error: --source:" in done.stderr


# ---------------------------------------------------------------------------------------------- bench.py


def test_feature_set_values_match_fastsimd() -> None:
    """FastSIMD::FeatureSet values, worked out by hand from FeatureEnums.h's flag bits."""
    assert bench_peers.FEATURE_SETS["SCALAR"] == 0b1
    assert bench_peers.FEATURE_SETS["SSE2"] == 0b1110
    assert bench_peers.FEATURE_SETS["SSE41"] == 0b1111110
    assert bench_peers.FEATURE_SETS["AVX2"] == 0b1111111110
    assert bench_peers.FEATURE_SETS["AVX512"] == 0b11111111111110
    assert bench_peers.feature_set_name(16382) == "AVX512"
    assert bench_peers.feature_set_name(1022) == "AVX2"
    assert bench_peers.feature_set_name(12345) == "unknown (0x3039)"


CPUINFO = """processor\t: 0
vendor_id\t: AuthenticAMD
model name\t: AMD EPYC
flags\t\t: fpu sse sse2 ssse3 fma sse4_1 sse4_2 avx avx2 {extra}
bugs\t\t: sysret_ss_attrs

processor\t: 1
flags\t\t: fpu
"""


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        (
            "avx512f avx512dq avx512bw avx512vl avx512_vnni",
            "AVX-512 (avx512f, avx512vl, avx512_vnni, avx512bw, avx512dq)",
        ),
        ("avx512f", "AVX2 + FMA"),  # AVX-512 without VL/DQ/BW is not FastSIMD's AVX512 level
        ("", "AVX2 + FMA"),
    ],
)
def test_instruction_set_from_cpuinfo(extra: str, expected: str) -> None:
    flags = bench_peers.cpu_flags(CPUINFO.format(extra=extra))
    assert "avx2" in flags and "fpu" in flags
    assert bench_peers.instruction_set(flags) == expected


def test_instruction_set_without_flags() -> None:
    assert bench_peers.cpu_flags("processor: 0\n") == set()
    assert bench_peers.instruction_set(set()) == "unknown"
    assert bench_peers.instruction_set({"sse2", "sse4_2"}) == "SSE4.2"


def test_peer_manifest_errors(tmp_path: Path) -> None:
    with pytest.raises(bench_peers.PeerError, match=r"^fn2: the native peers are not built .*scripts/build_peers\.py"):
        bench_peers.load_peer_manifest(tmp_path, "fn2")
    (tmp_path / "peers.json").write_text("{not json")
    with pytest.raises(bench_peers.PeerError, match=r"^fnl-native: cannot read .*peers\.json"):
        bench_peers.load_peer_manifest(tmp_path, "fnl-native")
    library = tmp_path / "libFastNoise.so"
    library.write_bytes(b"")
    (tmp_path / "peers.json").write_text(json.dumps({"fn2_library": str(library)}))
    assert bench_peers.load_peer_manifest(tmp_path, "fn2")["fn2_library"] == str(library)
    with pytest.raises(bench_peers.PeerError, match=r"^fnl-native: .* names no existing fnl_library \(None\)"):
        bench_peers.load_peer_manifest(tmp_path, "fnl-native")


def test_unloadable_library_is_a_peer_error(tmp_path: Path) -> None:
    library = tmp_path / "libFastNoise.so"
    library.write_bytes(b"not a library")
    with pytest.raises(bench_peers.PeerError, match=r"^fn2: cannot load .*libFastNoise\.so"):
        bench_peers.FastNoise2(str(library))


def test_bench_refuses_missing_peers_before_measuring(tmp_path: Path) -> None:
    """Exit status 2 naming the section and the build script, within argument checking (no kernel runs)."""
    stderr = io.StringIO()
    with pytest.raises(SystemExit) as stopped, _redirect_stderr(stderr):
        bench.main(["--only", "core,fnl-native", "--peers-dir", str(tmp_path)])
    assert stopped.value.code == 2
    assert "error: fnl-native: the native peers are not built" in stderr.getvalue()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--only", "fn3"],
            "--only: unknown section(s) fn3; choose from core, fnl, blender, startup, asm, scale, fn2, fnl-native",
        ),
        (["--points", "0"], "--points: must be a positive integer, got 0"),
        (["--repeat", "-1"], "--repeat: must be a positive integer, got -1"),
    ],
)
def test_bench_bad_options(argv: list[str], message: str) -> None:
    stderr = io.StringIO()
    with pytest.raises(SystemExit) as stopped, _redirect_stderr(stderr):
        bench.main(argv)
    assert stopped.value.code == 2
    assert message in stderr.getvalue()


def _redirect_stderr(stream: io.StringIO):
    import contextlib

    return contextlib.redirect_stderr(stream)


def test_peer_cases_match_lattices() -> None:
    cases = {case.name: case for case in bench_peers.peer_cases()}
    kinds = ("value", "perlin", "simplex", "voronoi", "cellular")
    assert {(c.kind, c.dim) for c in cases.values() if c.layout == "points" and c.octaves == 1} == {
        (kind, dim) for kind in kinds for dim in (2, 3)
    }
    assert {c.kind for c in cases.values() if c.layout == "grid"} == set(kinds)
    fbm = cases["perlin fBm 4 oct 3D random"]
    assert (fbm.octaves, fbm.fn2_node(), fbm.fnl_noise()) == (4, ("Perlin", {}), ("Perlin", None))
    assert cases["simplex 2D random"].lattice_scale() == pytest.approx(1 / math.sqrt(3), rel=1e-15)
    assert cases["simplex 3D random"].lattice_scale() == 0.6
    assert cases["simplex 3D random"].fn2_node() == ("Simplex", {})
    voronoi = cases["voronoi F1 2D grid 1024²"]
    assert voronoi.spec_options() == {"function": "f1"}
    assert voronoi.lattice_scale() == 1.0
    assert voronoi.fn2_node() == ("CellularDistance", {"Distance Function": "Euclidean", "Return Type": "Index0"})
    assert voronoi.fnl_noise() == ("Cellular", "Distance")
    prime = [case for case in cases.values() if case.hash == "prime"]  # issue 48: the same points, hash="prime"
    assert {(c.kind, c.dim, c.octaves) for c in prime} == {
        *((kind, dim, 1) for kind in kinds[:3] for dim in (2, 3)),
        ("perlin", 2, 4),
        ("perlin", 3, 4),
    }
    assert cases["value 2D random prime hash"].spec_options() == {"hash": "prime"}
    assert cases["value 2D random"].spec_options() == {}
    assert {c.name for c in cases.values() if bench_peers.CASE_GROUPS["hash"](c)} == {
        c.name for c in cases.values() if c.layout == "points" and c.kind in kinds[:3]
    }


def test_peers_report() -> None:
    peers = {
        "instruction_set": "AVX-512 (avx512f, avx512vl)",
        "fn2_simd": "AVX512",
        "load_before": "3.10 2.00 1.00",
        "load_after": "3.50 2.10 1.10",
        "manifest": {"fn2_version": "1.1.1", "compiler": "g++ 12", "fnl_flags": ["-O3", "-march=native"]},
        "rows": [
            {"case": "perlin 2D random", "core_mps": 150.0, "fn2_mps": 600.0, "fn2_avx2_mps": 300.0},
            {"case": "value 2D grid 1024²", "core_mps": 50.0, "fn2_mps": 1000.0},
        ],
    }
    lines = bench_peers.peers_report(peers, {"cpu": "AMD EPYC", "cores": 2})
    text = "\n".join(lines)
    assert "### noise_core vs FastNoise2, per core (million samples/s, one thread each)" in text
    assert "instruction set AVX-512 (avx512f, avx512vl)" in text and "runs AVX512, and capped at AVX2" in text
    assert "3.10 2.00 1.00 before, 3.50 2.10 1.10 after" in text
    assert "| case | noise_core | FastNoise2 | ratio | FastNoise2 capped at AVX2 | ratio |" in lines
    assert "| perlin 2D random | 150.0 | 600.0 | 0.25 | 300.0 | 0.50 |" in lines
    assert "| value 2D grid 1024² | 50.0 | 1000.0 | 0.05 | n/a |  |" in lines
    assert "FastNoiseLite -O3" not in lines[-3]


def test_report_includes_peers_section() -> None:
    results = {
        "machine": {"cpu": "AMD EPYC", "cores": 2, "numba": "0", "numba_threads": 2, "numpy": "1", "python": "3"},
        "points": 16,
        "repeat": 1,
        "min_seconds": 0.0,
        "peers": {
            "instruction_set": "AVX2 + FMA",
            "load_before": "0.00 0.00 0.00",
            "load_after": "0.00 0.00 0.00",
            "rows": [{"case": "value 2D random", "core_mps": 1.0, "fnl_native_mps": 2.0}],
        },
    }
    text = bench.report(results)
    assert "| case | noise_core | FastNoiseLite -O3 -march=native | ratio |" in text
    assert "| value 2D random | 1.0 | 2.0 | 0.50 |" in text


def test_asm_report() -> None:
    results = {
        "machine": {"cpu": "AMD EPYC", "cores": 2, "numba": "0", "numba_threads": 2, "numpy": "1", "python": "3"},
        "points": 16,
        "repeat": 1,
        "min_seconds": 0.0,
        "asm": {
            "cpu": "znver4",
            "rows": [
                {
                    "kind": "perlin",
                    "dim": 3,
                    "packed": 900,
                    "double": 376,
                    "single": 165,
                    "scalar": 529,
                    "ymm": 138,
                    "zmm": 588,
                    "gathers": 15,
                    "instructions": 4727,
                }
            ],
        },
    }
    text = bench.report(results)
    assert "### Kernel machine code (default spec of each kind; LLVM target znver4)" in text
    assert "| perlin | 3D | 900 | 376 / 165 | 529 | 138 | 588 | 15 | 4727 |" in text


def test_features_without_avx512() -> None:
    features = {"avx2": True, "fma": True, "avx512f": True, "avx512vl": True, "evex512": True, "sse4a": False}
    assert bench_peers.features_without_avx512(features) == "+avx2,-avx512f,-avx512vl,-evex512,+fma,-sse4a"


def test_peers_report_with_noise_core_at_avx2() -> None:
    peers = {
        "instruction_set": "AVX-512",
        "fn2_simd": "AVX512",
        "core_avx2_target": "x86-64-v3",
        "load_before": "1.00 1.00 1.00",
        "load_after": "1.00 1.00 1.00",
        "rows": [
            {"case": "perlin 3D random", "core_mps": 90.0, "fn2_mps": 450.0, "fn2_avx2_mps": 250.0}
            | {"core_avx2_mps": 75.0}
        ],
    }
    lines = bench_peers.peers_report(peers, {"cpu": "AMD EPYC", "cores": 2})
    assert lines[-3].endswith("| noise_core at AVX2 (x86-64-v3) | ratio to FastNoise2 at AVX2 |")
    assert lines[-2] == "|---|---|---|---|---|---|---|---|"
    assert lines[-1] == "| perlin 3D random | 90.0 | 450.0 | 0.20 | 250.0 | 0.36 | 75.0 | 0.30 |"


def built_peers() -> dict | None:
    """The manifest of a peer build in build/peers, when someone ran scripts/build_peers.py here."""
    try:
        return bench_peers.load_peer_manifest(bench_peers.PEERS_DIR, "fn2") | bench_peers.load_peer_manifest(
            bench_peers.PEERS_DIR, "fnl-native"
        )
    except bench_peers.PeerError:
        return None


@pytest.mark.skipif(built_peers() is None, reason="the native peers are not built (scripts/build_peers.py)")
@pytest.mark.parametrize("kind", ["perlin", "simplex"])
def test_built_peers_share_our_lattice(kind: str) -> None:
    """With the bench's frequencies, FastNoise2, native FastNoiseLite and noise_core are all zero at the
    vertices of noise_core's lattice (Perlin: every gradient's dot product vanishes there; 2D simplex: the
    vertex's own kernel has offset 0 and the other kernels' radius does not reach it), which holds only if
    the lattices coincide. Runs only where the peers were built; CI never builds them."""
    import numpy as np

    from noise_core import NoiseSpec, evaluate

    manifest = built_peers()
    fn2 = bench_peers.FastNoise2(manifest["fn2_library"])
    fnl = bench_peers.FastNoiseLiteNative(manifest["fnl_library"])
    case = bench_peers.PeerCase(kind, 2, "points")
    i, j = np.meshgrid(np.arange(-20, 21), np.arange(-20, 21))
    i, j = i.ravel().astype(np.float64), j.ravel().astype(np.float64)
    if kind == "simplex":  # un-skew the integer points of the skewed lattice: x = i - (i + j)(3 - sqrt(3))/6
        unskew = (i + j) * (3 - np.sqrt(3)) / 6
        i, j = i - unskew, j - unskew
    frequency = bench_peers.FREQUENCY * case.lattice_scale()
    columns = [np.ascontiguousarray(c / frequency, dtype=np.float32) for c in (i, j)]
    ours = evaluate(NoiseSpec(kind=kind, frequency=bench_peers.FREQUENCY), np.column_stack(columns))
    out = np.empty(len(i), dtype=np.float32)
    root = bench_peers.fn2_tree(fn2, case, bench_peers.NO_SIMD_LIMIT)
    assert fn2.feature_set(root) in bench_peers.FEATURE_SETS
    fn2.positions(root, columns, out)
    fn2.delete(root)
    native = np.empty(len(i), dtype=np.float32)
    handle = fnl.new(*case.fnl_noise(), frequency, 1)
    fnl.positions(handle, columns, native)
    fnl.delete(handle)
    # float32 positions up to ~30 cells out: the skewed vertices are hit to ~1e-6 cells
    assert np.abs(ours).max() < 1e-4
    assert np.abs(out).max() < 1e-4
    if kind == "perlin":  # FastNoiseLite's OpenSimplex2 kernels reach past the neighbouring vertices
        assert np.abs(native).max() < 1e-4
    # ... and not everywhere: half a cell away the noise is not zero.
    fn2.positions(
        root := bench_peers.fn2_tree(fn2, case, bench_peers.NO_SIMD_LIMIT), [c + 0.5 / frequency for c in columns], out
    )
    fn2.delete(root)
    assert np.abs(out).max() > 0.05


def test_3d_grid_cases_and_vector_flags() -> None:
    cases = {case.name: case for case in bench_peers.peer_cases()}
    grids = [case for case in cases.values() if case.layout == "grid" and case.dim == 3]
    assert [(case.kind, case.hash) for case in grids] == [
        ("value", "smallxxhash"), ("perlin", "smallxxhash"), ("simplex", "smallxxhash"), ("simplex", "prime")
    ]  # fmt: skip
    assert grids[3].name == "simplex 3D grid 128³ prime hash" and grids[3].spec_options() == {"hash": "prime"}
    assert grids[0].name == "value 3D grid 128³" and grids[0].shape == (128, 128, 128)
    assert cases["perlin 2D grid 1024²"].shape == (1024, 1024) and cases["perlin 2D random"].shape == ()
    assert cases["perlin fBm 4 oct 2D random"].octaves == 4
    assert {name for name, keep in bench_peers.CASE_GROUPS.items() if keep(grids[1])} == {
        "grid", "grid3d", "lattice", "all"
    }  # fmt: skip
    flags = bench_peers.cpu_flags(CPUINFO.format(extra="avx512f avx512vl avx512_vnni"))
    assert bench_peers.vector_flags(flags) == "avx2 avx512_vnni avx512f avx512vl fma"


@pytest.mark.skipif(built_peers() is None, reason="the native peers are not built (scripts/build_peers.py)")
def test_built_fn2_3d_grid_is_x_fastest_like_ours() -> None:
    """FastNoise2's ``fnGenUniformGrid3D`` as ``FastNoise2.grid`` calls it gives its values at noise_core's 3D
    lattice ``evaluate_lattice(..., zs=...)`` in the same order: (slices, rows, cols), x fastest."""
    import numpy as np

    fn2 = bench_peers.FastNoise2(built_peers()["fn2_library"])
    root = bench_peers.fn2_tree(fn2, bench_peers.PeerCase("perlin", 3, "grid"), bench_peers.NO_SIMD_LIMIT)
    grid = np.empty((3, 4, 5), dtype=np.float32)
    fn2.grid(root, grid)
    z, y, x = np.meshgrid(*[(np.arange(n) + 0.5) / n for n in grid.shape], indexing="ij")
    columns = [np.ascontiguousarray(axis.ravel(), dtype=np.float32) for axis in (x, y, z)]
    points = np.empty(grid.size, dtype=np.float32)
    fn2.positions(root, columns, points)
    fn2.delete(root)
    np.testing.assert_allclose(grid.ravel(), points, atol=1e-6)
    assert np.abs(points).max() > 0.05
