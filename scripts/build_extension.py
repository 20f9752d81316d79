"""Build the Noisewright Blender extension: one installable zip per platform.

``stage_extension(dest)`` lays out the extension folder exactly as Blender installs
it: the add-on modules from ``addon/`` at the top, ``noise_core/`` beside them (the
add-on imports it relatively), and ``blender_manifest.toml``.

``build(...)`` stages the extension, fetches the numba and llvmlite wheels (CPython 3.11,
the versions pinned in ``requirements.lock``) for each platform with ``pip download``,
lists them in the staged manifest and writes one zip per platform, as
``blender --command extension build --split-platforms`` does. With a ``blender`` binary on
PATH, Blender's own validator and builder make the zips; without one they are written
with :mod:`zipfile` in the same layout: files at the archive root, wheels under
``wheels/`` stored uncompressed, and the manifest followed by the ``[build.generated]``
table that names the archive's platform and its wheels. numpy is not bundled: Blender
ships it.

Usage::

    python scripts/build_extension.py                       # all platforms into dist/
    python scripts/build_extension.py --platform linux-x64  # one platform
    python scripts/build_extension.py --wheel-cache ~/wheels --out /tmp/zips
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
import zipfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from packaging.utils import InvalidWheelFilename, parse_wheel_filename

ROOT = Path(__file__).resolve().parent.parent
IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", "*.nbi", "*.nbc")
DIST = ROOT / "dist"
WHEEL_CACHE = ROOT / "build" / "wheels"
LOCK_FILE = ROOT / "requirements.lock"
MANIFEST = "blender_manifest.toml"
WHEEL_DIR = "wheels"
BUNDLED = ("numba", "llvmlite")
PYTHON_TAG = "cp311"

# Blender platform -> the wheel platform tags pip may pick for it (pip also accepts
# older macOS versions than the one named). Blender 4.2+ needs glibc 2.28 on Linux.
PLATFORMS: dict[str, tuple[str, ...]] = {
    "linux-x64": ("manylinux_2_28_x86_64", "manylinux2014_x86_64"),
    "windows-x64": ("win_amd64",),
    "macos-arm64": ("macosx_12_0_arm64",),
    "macos-x64": ("macosx_12_0_x86_64",),
}
# numba publishes no macOS x86_64 wheels after 0.62.1 (llvmlite after 0.45.1): Intel Macs
# get that last release, which noise_core also runs on.
VERSION_OVERRIDES: dict[str, dict[str, str]] = {
    "macos-x64": {"numba": "0.62.1", "llvmlite": "0.45.1"},
}

# Blender's default build exclusions: Python caches, dot-files, zips at the top, .blend backups.
_EXCLUDED = re.compile(r"(^|/)(__pycache__|\.[^/]*)(/|$)|^[^/]*\.zip$|\.blend[1-9]$")

Log = Callable[[str], None]


class BuildError(RuntimeError):
    """A build step failed; the message says which and what to do about it."""


def stage_extension(dest: Path) -> Path:
    """Copy the add-on, ``noise_core`` and the manifest into ``dest/noisewright``; return that folder."""
    target = Path(dest) / "noisewright"
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(ROOT / "addon", target, ignore=IGNORE)
    shutil.copytree(ROOT / "noise_core", target / "noise_core", ignore=IGNORE)
    shutil.copy2(ROOT / "blender_manifest.toml", target / "blender_manifest.toml")
    return target


def locked_versions(lock_file: Path = LOCK_FILE) -> dict[str, str]:
    """The ``name==version`` pins of the bundled packages in ``requirements.lock``."""
    pins = {}
    for line in lock_file.read_text(encoding="utf-8").splitlines():
        name, sep, version = line.partition("#")[0].strip().partition("==")
        if sep and name.lower() in BUNDLED:
            pins[name.lower()] = version.strip()
    missing = [name for name in BUNDLED if name not in pins]
    if missing:
        raise BuildError(f"{lock_file}: no 'name==version' pin for {', '.join(missing)}")
    return pins


def versions_for(platform: str, pins: dict[str, str]) -> dict[str, str]:
    """The versions bundled for ``platform``: the lock file's pins unless the platform needs older ones."""
    return {**pins, **VERSION_OVERRIDES.get(platform, {})}


def wheel_platforms(filename: str) -> set[str]:
    """The Blender platforms a CPython 3.11 wheel file runs on (empty for other Pythons and malformed names)."""
    try:
        tags = parse_wheel_filename(filename)[3]
    except InvalidWheelFilename:
        return set()
    platforms = set()
    for tag in tags:
        if tag.interpreter != PYTHON_TAG:
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


def _cached_wheel(cache: Path, package: str, version: str, platform: str) -> Path | None:
    candidates = sorted(cache.glob(f"{package}-{version}-*.whl"))
    return next((wheel for wheel in candidates if platform in wheel_platforms(wheel.name)), None)


def _pip_download(requirements: Sequence[str], platform: str, cache: Path) -> None:
    if importlib.util.find_spec("pip") is None:
        raise BuildError(
            f"pip is not available in {sys.executable}: install it (python -m ensurepip) or fill "
            f"--wheel-cache with the wheels {', '.join(requirements)} for {platform}"
        )
    command = [sys.executable, "-m", "pip", "download", "--only-binary=:all:", "--no-deps"]
    command += ["--python-version", "3.11", "--implementation", "cp", "--progress-bar", "off", "--quiet"]
    command += [f"--platform={tag}" for tag in PLATFORMS[platform]]
    command += ["--dest", str(cache), *requirements]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        details = "\n".join((result.stderr or result.stdout).strip().splitlines()[-6:])
        raise BuildError(
            f"pip could not download {' '.join(requirements)} for {platform} "
            f"(wheel tags {', '.join(PLATFORMS[platform])}); check the network connection to the package "
            f"index, or put the wheels into {cache} and pass --wheel-cache.\npip said:\n{details}"
        )


def fetch_wheels(platform: str, pins: dict[str, str], cache: Path, log: Log = print) -> list[Path]:
    """The numba and llvmlite wheels for ``platform`` in ``cache``, downloading the ones not there yet."""
    if platform not in PLATFORMS:
        raise BuildError(f"platform: unknown {platform!r}; allowed: {', '.join(PLATFORMS)}")
    cache.mkdir(parents=True, exist_ok=True)
    versions = versions_for(platform, pins)
    missing = [
        f"{name}=={version}" for name, version in versions.items() if not _cached_wheel(cache, name, version, platform)
    ]
    if missing:
        log(f"downloading {' '.join(missing)} for {platform}")
        _pip_download(missing, platform, cache)
    wheels = []
    for name, version in versions.items():
        wheel = _cached_wheel(cache, name, version, platform)
        if wheel is None:
            raise BuildError(f"pip downloaded no {PYTHON_TAG} wheel of {name}=={version} for {platform} into {cache}")
        log(f"  {wheel.name} ({wheel.stat().st_size / 1e6:.1f} MB)")
        wheels.append(wheel)
    return wheels


def _toml_array(values: Sequence[str]) -> str:
    return "[\n" + "".join(f"  {json.dumps(value)},\n" for value in values) + "]"


def write_manifest_wheels(manifest: Path, platforms: Sequence[str], wheels: Sequence[str]) -> None:
    """Replace the top-level ``platforms`` and ``wheels`` arrays of ``manifest``, then check it parses back."""
    text = manifest.read_text(encoding="utf-8")
    values = {"platforms": list(platforms), "wheels": list(wheels)}
    for key, value in values.items():
        text, count = re.subn(
            rf"^{key}\s*=\s*\[[^\]]*\]", lambda _m, k=key, v=value: f"{k} = {_toml_array(v)}", text, flags=re.M
        )
        if count != 1:
            raise BuildError(f"{manifest}: {key}: expected exactly one top-level '{key} = [...]' array, found {count}")
    parsed = tomllib.loads(text)
    if any(parsed.get(key) != value for key, value in values.items()):
        raise BuildError(f"{manifest}: platforms/wheels did not read back as written")
    manifest.write_text(text, encoding="utf-8")


def _generated_table(platform: str, wheels: Sequence[str]) -> str:
    """The ``[build.generated]`` block Blender's builder appends to a split-platform manifest."""
    return (
        "\n\n# BEGIN GENERATED CONTENT.\n"
        "# This must not be included in source manifests.\n"
        "[build.generated]\n"
        f"platforms = [{json.dumps(platform)}]\n"
        f"wheels = [{', '.join(json.dumps(wheel) for wheel in wheels)}]\n"
        "# END GENERATED CONTENT.\n"
    )


def _zip_name(stage: Path, platform: str) -> str:
    manifest = tomllib.loads((stage / MANIFEST).read_text(encoding="utf-8"))
    return f"{manifest['id']}-{manifest['version']}-{platform.replace('-', '_')}.zip"


def _archive_files(stage: Path) -> Iterator[str]:
    for path in sorted(stage.rglob("*")):
        relative = path.relative_to(stage).as_posix()
        if path.is_file() and not _EXCLUDED.search(relative):
            yield relative


def zip_platform(stage: Path, platform: str, out_dir: Path) -> Path:
    """Write ``<id>-<version>-<platform>.zip`` from the staged extension, laid out as Blender's builder does."""
    manifest = tomllib.loads((stage / MANIFEST).read_text(encoding="utf-8"))
    all_wheels = {wheel.removeprefix("./"): wheel for wheel in manifest.get("wheels", [])}
    wheels = [wheel for wheel in all_wheels.values() if platform in wheel_platforms(Path(wheel).name)]
    archive = out_dir / _zip_name(stage, platform)
    partial = archive.with_name("." + archive.name)
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zip_file:
        manifest_text = (stage / MANIFEST).read_text(encoding="utf-8") + _generated_table(platform, wheels)
        zip_file.writestr(MANIFEST, manifest_text)
        for wheel in wheels:
            zip_file.write(stage / wheel.removeprefix("./"), wheel.removeprefix("./"), zipfile.ZIP_STORED)
        for relative in _archive_files(stage):
            if relative != MANIFEST and relative not in all_wheels:
                zip_file.write(stage / relative, relative)
    partial.replace(archive)
    return archive


def _run_blender(blender: str, *arguments: str) -> None:
    result = subprocess.run(
        [blender, "--command", "extension", *arguments], capture_output=True, text=True, check=False
    )
    if result.returncode != 0:
        output = (result.stdout + result.stderr).strip()
        raise BuildError(f"'{blender} --command extension {' '.join(arguments)}' failed:\n{output}")


def stage_with_wheels(dest: Path, platforms: Sequence[str], wheel_cache: Path, log: Log = print) -> Path:
    """Stage the extension into ``dest/noisewright`` with the wheels of ``platforms`` listed in its manifest."""
    pins = locked_versions()
    stage = stage_extension(dest)
    (stage / WHEEL_DIR).mkdir()
    wheel_paths = []
    for platform in platforms:
        for wheel in fetch_wheels(platform, pins, wheel_cache, log):
            shutil.copy2(wheel, stage / WHEEL_DIR / wheel.name)
            wheel_paths.append(f"./{WHEEL_DIR}/{wheel.name}")
    write_manifest_wheels(stage / MANIFEST, platforms, wheel_paths)
    return stage


def build(
    platforms: Sequence[str] = tuple(PLATFORMS),
    out_dir: Path = DIST,
    wheel_cache: Path = WHEEL_CACHE,
    builder: str = "auto",
    log: Log = print,
) -> list[Path]:
    """Build one extension zip per platform into ``out_dir``; return their paths.

    ``builder``: ``"blender"`` (Blender's ``extension build``), ``"zipfile"`` (same layout in
    Python), or ``"auto"``: Blender's when a ``blender`` binary is on PATH.
    """
    unknown = [platform for platform in platforms if platform not in PLATFORMS]
    if unknown or not platforms:
        raise BuildError(f"platform: unknown {', '.join(unknown) or '(none given)'}; allowed: {', '.join(PLATFORMS)}")
    if builder not in ("auto", "blender", "zipfile"):
        raise BuildError(f"builder: unknown {builder!r}; allowed: auto, blender, zipfile")
    blender = shutil.which("blender") if builder != "zipfile" else None
    if builder == "blender" and blender is None:
        raise BuildError("builder: 'blender' was asked for but no blender binary is on PATH")
    platforms = list(dict.fromkeys(platforms))
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="noisewright-stage-") as temp:
        stage = stage_with_wheels(Path(temp), platforms, Path(wheel_cache), log)
        if blender:
            log(f"building with {blender}")
            _run_blender(blender, "validate", str(stage))
            _run_blender(
                blender, "build", "--source-dir", str(stage), "--output-dir", str(out_dir), "--split-platforms"
            )
            archives = [out_dir / _zip_name(stage, platform) for platform in platforms]
            for archive in archives:
                _run_blender(blender, "validate", str(archive))
        else:
            archives = [zip_platform(stage, platform, out_dir) for platform in platforms]
    for archive in archives:
        log(f"wrote {archive} ({archive.stat().st_size / 1e6:.1f} MB)")
    return archives


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--platform",
        action="append",
        choices=list(PLATFORMS),
        help="build only this platform (repeat for several); default: all",
    )
    parser.add_argument("--out", type=Path, default=DIST, help=f"folder for the zips (default: {DIST})")
    parser.add_argument(
        "--wheel-cache",
        type=Path,
        default=WHEEL_CACHE,
        help=f"folder holding downloaded wheels, reused across builds (default: {WHEEL_CACHE})",
    )
    parser.add_argument(
        "--builder",
        choices=("auto", "blender", "zipfile"),
        default="auto",
        help="who writes the zips: Blender's builder, Python's zipfile, or auto (blender if on PATH)",
    )
    args = parser.parse_args(argv)
    try:
        build(args.platform or tuple(PLATFORMS), args.out, args.wheel_cache, args.builder)
    except BuildError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
