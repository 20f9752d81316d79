"""Build the native benchmark peers of ``scripts/bench.py`` (``--only fn2,fnl-native``) from source.

* FastNoise2 (Auburn/FastNoise2; its SIMD layer Auburn/FastSIMD): CMake + Ninja, Release, a shared library
  with its C API (``FastNoise/FastNoise_C.h``). It compiles one object per SIMD level (SSE2, SSE4.1, AVX2,
  AVX-512) and picks the best one the CPU has at run time, so it needs no ``-march``.
* FastNoiseLite (Auburn/FastNoiseLite, ``Cpp/FastNoiseLite.h``, a single header): ``scripts/peers/fnl_shim.cpp``
  wraps it in a few C functions, compiled with ``-O3 -march=native`` (and ``-fwrapv``: its hashes rely on
  wrapping 32-bit multiplication, which GCC otherwise treats as undefined and warns about).

Sources: by default the archive ``../shared/anchors/fastnoise-sources.tar.gz`` (FastNoise2 ba93f17, FastSIMD
16450da, FastNoiseLite 4a17083), unpacked into the output folder; or ``--source DIR``, a folder holding your own
checkouts ``FastNoise2/``, ``FastSIMD/`` and ``FastNoiseLite/``. Nothing is downloaded (FastSIMD is handed to
FastNoise2's CPM as ``CPM_FastSIMD_SOURCE``).

Everything goes into ``build/peers/`` (git-ignored; ``--out`` to change): ``fn2/`` (the CMake build),
``libfnl_native.so`` and ``peers.json``, which lists the libraries for ``bench.py``. A finished build of the
same sources is reused (``--force`` rebuilds); ``peers.json`` is written last, whole.

Usage::

    .venv/bin/python scripts/build_peers.py
    .venv/bin/python scripts/build_peers.py --source ~/src --out /tmp/peers

Exit status 2 with ``error: ...`` naming what is missing (cmake, ninja, a C++ compiler, a source file) or a bad
option; 1 when a build step fails.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_ARCHIVE = ROOT.parent / "shared" / "anchors" / "fastnoise-sources.tar.gz"
DEFAULT_OUT = ROOT / "build" / "peers"
SHIM = ROOT / "scripts" / "peers" / "fnl_shim.cpp"
MANIFEST = "peers.json"
MANIFEST_VERSION = 1
FNL_LIBRARY = "libfnl_native.so"
FNL_FLAGS = ("-O3", "-march=native", "-fwrapv", "-std=c++17", "-shared", "-fPIC")

# Files each source folder must have, relative to the folder given with --source (or the archive's src/).
REQUIRED_SOURCES = {
    "FastNoise2": ("FastNoise2/CMakeLists.txt", "FastNoise2/include/FastNoise/FastNoise_C.h"),
    "FastSIMD": ("FastSIMD/CMakeLists.txt",),
    "FastNoiseLite": ("FastNoiseLite/Cpp/FastNoiseLite.h",),
}
INSTALL_HINT = "on Debian/Ubuntu: apt-get install cmake ninja-build g++"


class BuildError(Exception):
    """A build step failed (exit status 1)."""


class MissingError(Exception):
    """A tool or source is missing, or an option is bad (exit status 2); the message names it."""


def find_tools(cxx: str | None = None) -> dict[str, str]:
    """Absolute paths of cmake, ninja and the C++ compiler (``cxx``, else ``$CXX``, else ``g++``).

    ``MissingError`` naming every missing tool."""
    cxx = cxx or os.environ.get("CXX") or "g++"
    wanted = {"cmake": "cmake", "ninja": "ninja", f"C++ compiler {cxx}": cxx}
    found = {name: shutil.which(program) for name, program in wanted.items()}
    missing = [name for name, path in found.items() if not path]
    if missing:
        raise MissingError(f"missing build tool(s): {', '.join(missing)} not found on PATH; {INSTALL_HINT}")
    return {"cmake": found["cmake"], "ninja": found["ninja"], "cxx": found[f"C++ compiler {cxx}"]}


def check_sources(folder: Path) -> None:
    """``MissingError`` naming the first missing project and file under ``folder``."""
    if not folder.is_dir():
        raise MissingError(f"--source: {folder} is not a folder")
    for project, files in REQUIRED_SOURCES.items():
        for relative in files:
            if not (folder / relative).is_file():
                raise MissingError(
                    f"--source: {project} is missing: {folder / relative} not found (the folder must hold "
                    f"checkouts named {', '.join(REQUIRED_SOURCES)})"
                )


def file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def tree_stamp(folder: Path) -> int:
    """The newest modification time (ns) of any file under ``folder``, skipping ``.git``: changes when a
    checkout is edited or switched."""
    newest = 0
    for directory, subdirectories, files in os.walk(folder):
        subdirectories[:] = [d for d in subdirectories if d != ".git"]
        for name in files:
            newest = max(newest, os.stat(os.path.join(directory, name), follow_symlinks=False).st_mtime_ns)
    return newest


def unpack(archive: Path, out: Path) -> Path:
    """Unpack ``archive`` (its top folder ``src/``) into ``out/src`` whole: into a temporary folder first,
    renamed when complete. Reuses ``out/src`` when it came from an archive with the same digest."""
    digest = file_digest(archive)
    target = out / "src"
    stamp = out / "src.sha256"
    if target.is_dir() and stamp.is_file() and stamp.read_text().strip() == digest:
        return target
    temporary = out / "src.unpacking"
    shutil.rmtree(temporary, ignore_errors=True)
    temporary.mkdir(parents=True)
    try:
        with tarfile.open(archive) as tar:
            tar.extractall(temporary, filter="data")
    except (tarfile.TarError, OSError) as error:
        shutil.rmtree(temporary, ignore_errors=True)
        raise BuildError(f"unpacking {archive} failed: {error}") from error
    if not (temporary / "src").is_dir():
        shutil.rmtree(temporary, ignore_errors=True)
        raise MissingError(f"--archive: {archive} has no top folder src/")
    shutil.rmtree(target, ignore_errors=True)
    stamp.unlink(missing_ok=True)
    (temporary / "src").rename(target)
    shutil.rmtree(temporary)
    stamp.write_text(digest + "\n")
    return target


def read_manifest(out: Path) -> dict | None:
    """The manifest in ``out``, or None when there is none or it cannot be read."""
    try:
        return json.loads((out / MANIFEST).read_text())
    except (OSError, ValueError):
        return None


def is_current(manifest: dict | None, identity: dict) -> bool:
    """Whether ``manifest`` describes a finished build of ``identity`` whose libraries still exist."""
    return (
        manifest is not None
        and manifest.get("version") == MANIFEST_VERSION
        and manifest.get("identity") == identity
        and all(Path(manifest.get(key, "")).is_file() for key in ("fn2_library", "fnl_library"))
    )


def run(command: list[str], what: str) -> None:
    """Run ``command`` with its output on the terminal; ``BuildError`` naming ``what`` when it fails."""
    print("+ " + " ".join(command), flush=True)
    done = subprocess.run(command)
    if done.returncode != 0:
        raise BuildError(f"{what} failed (exit status {done.returncode}); its output is above")


def cmake_home(build: Path) -> str | None:
    """The source folder an existing CMake build folder was configured for."""
    try:
        text = (build / "CMakeCache.txt").read_text(errors="replace")
    except OSError:
        return None
    match = re.search(r"^CMAKE_HOME_DIRECTORY:INTERNAL=(.*)$", text, re.MULTILINE)
    return match.group(1) if match else None


def build_fastnoise2(tools: dict, sources: Path, out: Path, jobs: int | None) -> Path:
    """Configure (when needed) and build FastNoise2 as a shared library; the path of ``libFastNoise*.so``."""
    build = out / "fn2"
    fn2 = (sources / "FastNoise2").resolve()
    if cmake_home(build) not in (None, str(fn2)):
        shutil.rmtree(build)  # configured for other sources: CMake refuses to switch
    if not (build / "build.ninja").is_file():
        run(
            [
                tools["cmake"],
                "-S",
                str(fn2),
                "-B",
                str(build),
                "-G",
                "Ninja",
                f"-DCMAKE_MAKE_PROGRAM={tools['ninja']}",
                f"-DCMAKE_CXX_COMPILER={tools['cxx']}",
                "-DCMAKE_BUILD_TYPE=Release",
                "-DBUILD_SHARED_LIBS=ON",
                "-DCMAKE_POSITION_INDEPENDENT_CODE=ON",
                "-DFASTNOISE2_TOOLS=OFF",
                "-DFASTNOISE2_TESTS=OFF",
                "-DFASTNOISE2_UTILITY=OFF",
                f"-DCPM_FastSIMD_SOURCE={(sources / 'FastSIMD').resolve()}",
            ],
            "configuring FastNoise2 (cmake)",
        )
    run([tools["ninja"], "-C", str(build), *([f"-j{jobs}"] if jobs else [])], "building FastNoise2 (ninja)")
    libraries = sorted(p for p in build.rglob("libFastNoise*.so*") if p.is_file() and not p.is_symlink())
    if not libraries:
        raise BuildError(f"the FastNoise2 build finished but left no libFastNoise*.so under {build}")
    return libraries[0]


def build_fnl_shim(tools: dict, sources: Path, out: Path) -> Path:
    """Compile ``scripts/peers/fnl_shim.cpp`` against FastNoiseLite's header into ``out/libfnl_native.so``."""
    library = out / FNL_LIBRARY
    temporary = out / f".{FNL_LIBRARY}.building"
    header_folder = (sources / "FastNoiseLite" / "Cpp").resolve()
    run(
        [tools["cxx"], *FNL_FLAGS, "-I", str(header_folder), str(SHIM), "-o", str(temporary)],
        "compiling the FastNoiseLite shim",
    )
    os.replace(temporary, library)
    return library


def compiler_version(cxx: str) -> str:
    done = subprocess.run([cxx, "--version"], capture_output=True, text=True)
    return done.stdout.splitlines()[0].strip() if done.returncode == 0 and done.stdout else cxx


def project_version(sources: Path) -> str:
    """FastNoise2's ``project(... VERSION x)`` from its CMakeLists.txt."""
    text = (sources / "FastNoise2" / "CMakeLists.txt").read_text(errors="replace")
    match = re.search(r"project\s*\(\s*FastNoise2\s+VERSION\s+([\w.]+)", text)
    return match.group(1) if match else "unknown"


def build(
    source: Path | None, archive: Path, out: Path, force: bool = False, jobs: int | None = None, cxx: str | None = None
) -> dict:
    """Build both peers (or reuse a finished build of the same sources); the manifest written to ``out``."""
    if source is not None:
        check_sources(source)
        identity = {"source": str(source.resolve()), "tree": tree_stamp(source)}
    else:
        if not archive.is_file():
            raise MissingError(
                f"--archive: {archive} not found (the peer sources; or give --source DIR with checkouts of "
                f"{', '.join(REQUIRED_SOURCES)})"
            )
        identity = {"archive": str(archive.resolve()), "sha256": file_digest(archive)}
    identity["shim_sha256"] = file_digest(SHIM)
    identity["fnl_flags"] = list(FNL_FLAGS)
    if not force and is_current(read_manifest(out), identity):
        print(f"peers are built (reused): {out / MANIFEST}")
        return read_manifest(out) or {}
    tools = find_tools(cxx)
    out.mkdir(parents=True, exist_ok=True)
    (out / MANIFEST).unlink(missing_ok=True)  # a half-finished rebuild must not look finished
    if force:
        shutil.rmtree(out / "fn2", ignore_errors=True)
    sources = source.resolve() if source is not None else unpack(archive, out)
    check_sources(sources)
    manifest = {
        "version": MANIFEST_VERSION,
        "identity": identity,
        "fn2_library": str(build_fastnoise2(tools, sources, out, jobs)),
        "fnl_library": str(build_fnl_shim(tools, sources, out)),
        "fn2_version": project_version(sources),
        "sources": str(sources),
        "compiler": compiler_version(tools["cxx"]),
        "fnl_flags": list(FNL_FLAGS),
    }
    temporary = out / f".{MANIFEST}.writing"
    temporary.write_text(json.dumps(manifest, indent=2) + "\n")
    os.replace(temporary, out / MANIFEST)
    print(f"peers built: {out / MANIFEST}")
    return manifest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--source", type=Path, help="folder with checkouts FastNoise2/, FastSIMD/, FastNoiseLite/ (else the archive)"
    )
    parser.add_argument(
        "--archive", type=Path, default=DEFAULT_ARCHIVE, help=f"source archive (default {DEFAULT_ARCHIVE})"
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"build folder (default {DEFAULT_OUT})")
    parser.add_argument("--force", action="store_true", help="rebuild even when a finished build is there")
    parser.add_argument("--jobs", type=int, help="parallel compile jobs for ninja (default: ninja's choice)")
    parser.add_argument("--cxx", help="C++ compiler (default $CXX, else g++)")
    args = parser.parse_args(argv)
    if args.jobs is not None and args.jobs < 1:
        parser.error(f"--jobs: must be a positive integer, got {args.jobs}")
    if args.out.exists() and not args.out.is_dir():
        parser.error(f"--out: {args.out} exists and is not a folder")
    try:
        build(args.source, args.archive, args.out, force=args.force, jobs=args.jobs, cxx=args.cxx)
    except MissingError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except BuildError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
