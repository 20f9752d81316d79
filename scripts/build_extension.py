"""Stage the Noisewright Blender extension, and build its installable zips with Blender's own builder.

``stage_extension(dest)`` is the one place that lays out the extension folder exactly as Blender
installs it: the add-on modules from ``addon/`` at the top, ``noise_core/`` beside them (the add-on
imports it relatively) and ``blender_manifest.toml``. The build, the tests and the headless scripts
all stage through it. In the checkout ``addon/noise_core`` is a relative link to ``../noise_core``, so
editors, type checkers and import-graph tools follow the add-on's ``.noise_core`` imports without
staging; the stage skips that link and copies the real ``noise_core/`` (so the zip holds plain files,
also from a Windows checkout where Git writes the link as a small text file).

``build(...)`` makes one zip per Blender line and platform. Blender picks an extension's Python from
its wheels' file names, and Blender 4.2.0 keeps only one wheel per package name, so each zip carries
the wheels of exactly one Python: numba and llvmlite (the kernels), and Pillow, pypng, OpenEXR and tifffile
(the image writers of ``noise_core.io.images``: the add-on encodes baked PNG and OpenEXR files in a job's worker
thread, off Blender's main thread, and writes and reads TIFF heightmaps; Blender ships none of them):

=====================  ========  ===============================  ==========================================
Blender line           Python    manifest                         zips
=====================  ========  ===============================  ==========================================
``blender4.2-5.0``     3.11      ``blender_version_max = 5.1.0``  linux_x64, windows_x64, macos_arm64, macos_x64
``blender5.1+``        3.13      ``blender_version_min = 5.1.0``  linux_x64, windows_x64, macos_arm64
=====================  ========  ===============================  ==========================================

Blender 5 has no Intel macOS build (4.5 LTS is the last), so there is no ``blender5.1+`` macos_x64 zip.
For each line the extension is staged, the wheels (versions pinned in the line's lock file; Intel Macs
get numba 0.62.1 / llvmlite 0.45.1, the last macOS x86-64 wheels; Pillow 13.0.0 and OpenEXR 3.5.3 have wheels
for every platform and Python above, pypng and tifffile one pure-Python ``py3-none-any`` wheel each that every
zip holds) are fetched with ``pip download`` into a persistent cache, listed in the staged manifest with the
line's platforms and Blender versions, and ``blender_ext.py build --split-platforms`` (Blender's extension
command line, shipped in the ``bpy`` module; or ``blender --command extension`` on PATH) writes
``<id>-<version>-blender<line>-<platform>.zip``; each zip is then checked with ``blender_ext.py validate``.
numpy is not bundled: Blender ships it.

Usage::

    python scripts/build_extension.py                                # all 7 zips into dist/
    python scripts/build_extension.py --platform linux-x64            # both lines, one platform
    python scripts/build_extension.py --blender 5.1+ --out /tmp/zips --wheel-cache ~/wheels
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import json
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXTENSION_ID = "noisewright"
MANIFEST = "blender_manifest.toml"
CACHE_FILES = ("__pycache__", ".pyc", ".nbi", ".nbc")
IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", "*.nbi", "*.nbc")
DIST = ROOT / "dist"
WHEEL_CACHE = ROOT / "build" / "wheels"
WHEEL_DIR = "wheels"
BUNDLED = ("numba", "llvmlite", "pillow", "pypng", "openexr", "tifffile")
"""The bundled projects, by their PEP 503 normalised names (the locks spell OpenEXR's ``OpenEXR``)."""

# Blender platform -> the wheel platform tags pip may pick for it (pip also accepts
# older macOS versions than the one named). Blender 4.2+ needs glibc 2.28 on Linux.
PLATFORMS: dict[str, tuple[str, ...]] = {
    "linux-x64": ("manylinux_2_28_x86_64", "manylinux2014_x86_64"),
    "windows-x64": ("win_amd64",),
    "macos-arm64": ("macosx_12_0_arm64",),
    "macos-x64": ("macosx_12_0_x86_64",),
}
# numba publishes no macOS x86_64 wheels after 0.62.1 (llvmlite after 0.45.1): Intel Macs
# get that last release, which noise_core also runs on (Python <= 3.13, numpy <= 2.3).
VERSION_OVERRIDES: dict[str, dict[str, str]] = {
    "macos-x64": {"numba": "0.62.1", "llvmlite": "0.45.1"},
}

Log = Callable[[str], None]


class BuildError(RuntimeError):
    """A build step failed; the message says which and what to do about it."""


@dataclass(frozen=True)
class BlenderLine:
    """Blender versions sharing one embedded Python, and so one set of bundled wheels."""

    name: str
    python: str
    lock_file: Path
    version_min: str
    version_max: str | None
    platforms: tuple[str, ...]

    @property
    def python_tag(self) -> str:
        return "cp" + self.python.replace(".", "")

    @property
    def label(self) -> str:
        return f"blender{self.name}"


LINES: dict[str, BlenderLine] = {
    line.name: line
    for line in (
        BlenderLine("4.2-5.0", "3.11", ROOT / "requirements.lock", "4.2.0", "5.1.0", tuple(PLATFORMS)),
        BlenderLine(
            "5.1+", "3.13", ROOT / "requirements-py313.lock", "5.1.0", None, ("linux-x64", "windows-x64", "macos-arm64")
        ),
    )
}
"""Blender 4.2 LTS, 4.5 LTS and 5.0 embed Python 3.11 and numpy 1.26; 5.1 and 5.2 LTS embed 3.13 and numpy 2.3.
``version_max`` is exclusive, so the two lines do not overlap."""


# --- staging -------------------------------------------------------------------------------------


LIBRARY_LINK = "noise_core"
"""``addon/noise_core``: the checkout's link to ``noise_core/``, which the stage replaces by a copy."""


def stage_extension(dest: Path, root: Path = ROOT) -> Path:
    """Copy the add-on, ``noise_core`` and the manifest of the checkout ``root`` into ``dest/noisewright``;
    return that folder. Every file is a real file: ``addon/noise_core`` (a link, or the text file a Windows
    checkout without links has) is skipped and ``noise_core/`` copied in its place."""
    target = Path(dest) / EXTENSION_ID
    if target.exists():
        shutil.rmtree(target)
    addon = Path(root) / "addon"

    def ignore(directory: str, names: list[str]) -> set[str]:
        return IGNORE(directory, names) | ({LIBRARY_LINK} if Path(directory) == addon else set())

    shutil.copytree(addon, target, ignore=ignore)
    shutil.copytree(Path(root) / "noise_core", target / "noise_core", ignore=IGNORE)
    shutil.copy2(Path(root) / MANIFEST, target / MANIFEST)
    return target


def _tree_signature(root: Path, prefix: str = "", skip: str = "") -> dict[str, tuple[int, int]]:
    """Size and modification time of every source file under ``root`` (caches and the top-level ``skip``
    excluded)."""
    signature = {}
    for path in root.rglob("*"):
        if path.relative_to(root).parts[0] == skip:
            continue
        if path.is_file() and not any(part.endswith(CACHE_FILES) for part in path.parts):
            stat = path.stat()
            signature[prefix + path.relative_to(root).as_posix()] = (stat.st_size, stat.st_mtime_ns)
    return signature


def staged_copy_is_current(staged: Path) -> bool:
    """Whether ``staged`` (a ``stage_extension`` result) still matches the checkout, file for file."""
    if not staged.is_dir():
        return False
    manifest = ROOT / MANIFEST
    checkout = {
        **_tree_signature(ROOT / "addon", skip=LIBRARY_LINK),
        **_tree_signature(ROOT / "noise_core", "noise_core/"),
        MANIFEST: (manifest.stat().st_size, manifest.stat().st_mtime_ns),
    }
    return _tree_signature(staged) == checkout


# --- wheels --------------------------------------------------------------------------------------


def locked_versions(lock_file: Path) -> dict[str, str]:
    """The ``name==version`` pins of the bundled packages in ``lock_file``, by PEP 503 normalised name."""
    from packaging.utils import canonicalize_name  # only the build needs packaging

    pins = {}
    for line in lock_file.read_text(encoding="utf-8").splitlines():
        name, sep, version = line.partition("#")[0].strip().partition("==")
        if sep and canonicalize_name(name) in BUNDLED:
            pins[canonicalize_name(name)] = version.strip()
    missing = [name for name in BUNDLED if name not in pins]
    if missing:
        raise BuildError(f"{lock_file}: no 'name==version' pin for {', '.join(missing)}")
    return pins


def versions_for(platform: str, line: BlenderLine) -> dict[str, str]:
    """The versions bundled for ``platform`` in ``line``: the lock file's pins unless the platform needs older ones."""
    return {**locked_versions(line.lock_file), **VERSION_OVERRIDES.get(platform, {})}


@functools.cache
def _interpreter_abis(python_tag: str) -> frozenset[tuple[str, str]]:
    """The (interpreter, ABI) tag pairs pip installs on CPython ``python_tag`` (``cp311``): ``cp311-cp311``,
    ``cp311-none``, the stable ABI (``cp38-abi3``) and pure Python (``py3-none``, ``py311-none``)."""
    from packaging.tags import compatible_tags, cpython_tags  # only the build needs packaging

    version = (int(python_tag[2]), int(python_tag[3:]))
    tags = [*cpython_tags(version, [python_tag], ["any"]), *compatible_tags(version, python_tag, ["any"])]
    return frozenset((tag.interpreter, tag.abi) for tag in tags)


def wheel_platforms(filename: str, python_tag: str) -> set[str]:
    """The Blender platforms a wheel file runs on with CPython ``python_tag`` (``cp311``): those of its
    platform tags whose Python and ABI tags suit that CPython, every platform for ``any``; empty for other
    Pythons and malformed names."""
    from packaging.utils import InvalidWheelFilename, parse_wheel_filename  # only the build needs packaging

    try:
        tags = parse_wheel_filename(filename)[3]
    except InvalidWheelFilename:
        return set()
    platforms: set[str] = set()
    for tag in tags:
        if (tag.interpreter, tag.abi) not in _interpreter_abis(python_tag):
            continue
        if tag.platform == "any":
            platforms.update(PLATFORMS)
        elif tag.platform.startswith(("manylinux", "musllinux")) and tag.platform.endswith("_x86_64"):
            platforms.add("linux-x64")
        elif tag.platform == "win_amd64":
            platforms.add("windows-x64")
        elif tag.platform.startswith("macosx_"):
            if tag.platform.endswith(("_arm64", "_universal2")):
                platforms.add("macos-arm64")
            if tag.platform.endswith(("_x86_64", "_universal2")):
                platforms.add("macos-x64")
    return platforms


def _cached_wheel(cache: Path, package: str, version: str, platform: str, python_tag: str) -> Path | None:
    """A wheel of ``package`` ``version`` in ``cache`` for ``platform`` and ``python_tag``, names compared as
    pip compares them (``OpenEXR`` finds ``openexr-3.5.3-...whl``, a universal wheel suits every platform)."""
    from packaging.utils import InvalidWheelFilename, canonicalize_name, parse_wheel_filename
    from packaging.version import Version

    for wheel in sorted(cache.glob("*.whl")):
        try:
            name, wheel_version = parse_wheel_filename(wheel.name)[:2]
        except InvalidWheelFilename:
            continue
        if (
            name == canonicalize_name(package)
            and wheel_version == Version(version)
            and platform in wheel_platforms(wheel.name, python_tag)
        ):
            return wheel
    return None


def _pip_download(requirements: Sequence[str], platform: str, python: str, cache: Path) -> None:
    if importlib.util.find_spec("pip") is None:
        raise BuildError(
            f"pip is not available in {sys.executable}: install it (python -m ensurepip) or fill "
            f"--wheel-cache with the wheels {', '.join(requirements)} for {platform}"
        )
    command = [sys.executable, "-m", "pip", "download", "--only-binary=:all:", "--no-deps"]
    command += ["--python-version", python, "--implementation", "cp", "--progress-bar", "off", "--quiet"]
    command += [f"--platform={tag}" for tag in PLATFORMS[platform]]
    command += ["--dest", str(cache), *requirements]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        details = "\n".join((result.stderr or result.stdout).strip().splitlines()[-6:])
        raise BuildError(
            f"pip could not download {' '.join(requirements)} for {platform} and Python {python} "
            f"(wheel tags {', '.join(PLATFORMS[platform])}); check the network connection to the package "
            f"index, or put the wheels into {cache} and pass --wheel-cache.\npip said:\n{details}"
        )


def fetch_wheels(platform: str, line: BlenderLine, cache: Path, log: Log = print) -> list[Path]:
    """The bundled wheels of ``line``'s Python for ``platform`` in ``cache``, downloading missing ones."""
    if platform not in PLATFORMS:
        raise BuildError(f"platform: unknown {platform!r}; allowed: {', '.join(PLATFORMS)}")
    cache.mkdir(parents=True, exist_ok=True)
    versions = versions_for(platform, line)

    def cached(name: str, version: str) -> Path | None:
        return _cached_wheel(cache, name, version, platform, line.python_tag)

    missing = [f"{name}=={version}" for name, version in versions.items() if not cached(name, version)]
    if missing:
        log(f"downloading {' '.join(missing)} for {platform}, Python {line.python}")
        _pip_download(missing, platform, line.python, cache)
    wheels = []
    for name, version in versions.items():
        wheel = cached(name, version)
        if wheel is None:
            raise BuildError(
                f"pip downloaded no {line.python_tag} wheel of {name}=={version} for {platform} into {cache}"
            )
        log(f"  {wheel.name} ({wheel.stat().st_size / 1e6:.1f} MB)")
        wheels.append(wheel)
    return wheels


# --- manifest and builder ------------------------------------------------------------------------


def _toml_value(value: str | Sequence[str]) -> str:
    if isinstance(value, str):
        return json.dumps(value)
    return "[\n" + "".join(f"  {json.dumps(item)},\n" for item in value) + "]"


def write_manifest(manifest: Path, values: dict[str, str | list[str]]) -> None:
    """Set top-level keys of ``manifest``: replace each key's existing string or array, or add it after
    ``blender_version_min``; then check that the file parses back to these values."""
    text = manifest.read_text(encoding="utf-8")
    for key, value in values.items():
        line = f"{key} = {_toml_value(value)}"
        text, count = re.subn(rf'^{key}\s*=\s*(\[[^\]]*\]|"[^"\n]*")', lambda _m, line=line: line, text, flags=re.M)
        if count == 0:
            text, count = re.subn(r'^blender_version_min\s*=\s*"[^"\n]*"$', rf"\g<0>\n{line}", text, flags=re.M)
        if count != 1:
            raise BuildError(f"{manifest}: {key}: expected one top-level '{key} = ...' or 'blender_version_min = ...'")
    if any(tomllib.loads(text).get(key) != value for key, value in values.items()):
        raise BuildError(f"{manifest}: {', '.join(values)} did not read back as written")
    manifest.write_text(text, encoding="utf-8")


def blender_extension_command() -> list[str]:
    """Blender's extension command line: ``blender_ext.py`` from the installed ``bpy`` module (not imported),
    else ``blender --command extension`` from PATH."""
    spec = importlib.util.find_spec("bpy")
    if spec is not None and spec.submodule_search_locations:
        package = Path(next(iter(spec.submodule_search_locations)))
        found = sorted(package.glob("*/scripts/addons_core/bl_pkg/cli/blender_ext.py"))
        if found:
            return [sys.executable, str(found[-1])]
    blender = shutil.which("blender")
    if blender is not None:
        return [blender, "--command", "extension"]
    raise BuildError(
        f"no Blender extension builder: {sys.executable} has no bpy module (pip install -r requirements.lock) "
        "and no blender (4.2 or newer) is on PATH"
    )


def _run_builder(command: Sequence[str], *arguments: str | Path) -> None:
    full = [*command, *map(str, arguments)]
    result = subprocess.run(full, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        output = (result.stdout + result.stderr).strip()
        raise BuildError(f"'{' '.join(full)}' failed:\n{output}")


def stage_with_wheels(
    dest: Path, line: BlenderLine, platforms: Sequence[str], wheel_cache: Path, log: Log = print
) -> Path:
    """Stage the extension into ``dest/noisewright`` with ``line``'s wheels for ``platforms`` and its Blender
    version range in the manifest."""
    stage = stage_extension(dest)
    (stage / WHEEL_DIR).mkdir()
    wheels = {wheel.name: wheel for platform in platforms for wheel in fetch_wheels(platform, line, wheel_cache, log)}
    for wheel in wheels.values():  # a universal wheel once: Blender's builder puts it into every platform's zip
        shutil.copy2(wheel, stage / WHEEL_DIR / wheel.name)
    wheel_paths = [f"./{WHEEL_DIR}/{name}" for name in wheels]
    values: dict[str, str | list[str]] = {
        "blender_version_min": line.version_min,
        "platforms": list(platforms),
        "wheels": wheel_paths,
    }
    if line.version_max is not None:
        values["blender_version_max"] = line.version_max
    write_manifest(stage / MANIFEST, values)
    return stage


def _zip_stem(line: BlenderLine) -> str:
    manifest = tomllib.loads((ROOT / MANIFEST).read_text(encoding="utf-8"))
    return f"{manifest['id']}-{manifest['version']}-{line.label}"


def zip_path(out_dir: Path, line: BlenderLine, platform: str) -> Path:
    """Where ``build`` writes the zip of ``line`` for ``platform``: Blender's builder appends the platform to
    ``--output-filepath``."""
    return Path(out_dir) / f"{_zip_stem(line)}-{platform.replace('-', '_')}.zip"


def build(
    platforms: Sequence[str] = tuple(PLATFORMS),
    out_dir: Path = DIST,
    wheel_cache: Path = WHEEL_CACHE,
    lines: Sequence[str] = tuple(LINES),
    log: Log = print,
) -> list[Path]:
    """Build the zips of ``lines`` (names in ``LINES``) for ``platforms`` into ``out_dir``; return their paths.

    A platform a line does not support (Blender 5.1+ on Intel Macs) is left out with a log line; a
    request that leaves nothing to build is an error.
    """
    unknown = [platform for platform in platforms if platform not in PLATFORMS]
    if unknown or not platforms:
        raise BuildError(f"platform: unknown {', '.join(unknown) or '(none given)'}; allowed: {', '.join(PLATFORMS)}")
    unknown = [name for name in lines if name not in LINES]
    if unknown or not lines:
        raise BuildError(f"blender: unknown {', '.join(unknown) or '(none given)'}; allowed: {', '.join(LINES)}")
    command = blender_extension_command()
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    archives: list[Path] = []
    for line in (LINES[name] for name in dict.fromkeys(lines)):
        selected = [platform for platform in dict.fromkeys(platforms) if platform in line.platforms]
        for platform in dict.fromkeys(platforms):
            if platform not in line.platforms:
                log(f"no {line.label} zip for {platform}: Blender {line.name} is not released for {platform}")
        if not selected:
            continue
        with tempfile.TemporaryDirectory(prefix="noisewright-stage-") as temp:
            stage = stage_with_wheels(Path(temp), line, selected, Path(wheel_cache), log)
            output = out_dir / f"{_zip_stem(line)}.zip"
            _run_builder(command, "build", "--source-dir", stage, "--output-filepath", output, "--split-platforms")
        for platform in selected:
            archive = zip_path(out_dir, line, platform)
            _run_builder(command, "validate", archive)
            log(f"wrote {archive} ({archive.stat().st_size / 1e6:.1f} MB)")
            archives.append(archive)
    if not archives:
        raise BuildError(f"nothing to build: Blender {', '.join(lines)} is not built for {', '.join(platforms)}")
    return archives


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--platform",
        action="append",
        choices=list(PLATFORMS),
        help="build only this platform (repeat for several); default: all",
    )
    parser.add_argument(
        "--blender",
        action="append",
        choices=list(LINES),
        help="build only the zips for these Blender versions (repeat for several); default: all",
    )
    parser.add_argument("--out", type=Path, default=DIST, help=f"folder for the zips (default: {DIST})")
    parser.add_argument(
        "--wheel-cache",
        type=Path,
        default=WHEEL_CACHE,
        help=f"folder holding downloaded wheels, reused across builds (default: {WHEEL_CACHE})",
    )
    args = parser.parse_args(argv)
    try:
        build(args.platform or tuple(PLATFORMS), args.out, args.wheel_cache, args.blender or tuple(LINES))
    except BuildError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
