"""The extension zips: Blender's builder and validator, build errors, and an offline install into stock Blenders.

Each install runs in a child process (``install_child.py``) that sees only ``bpy`` and numpy, as a
Blender build does, so numba and the image writers (Pillow, pypng, OpenEXR, tifffile) must come from the wheels in the
zip; it also keeps the installed
add-on's registration away from the other Blender tests in this process. The child is this
interpreter's Blender and every other Blender named in ``NOISEWRIGHT_OTHER_BLENDERS`` (Python
executables with a ``bpy`` module, separated by ``os.pathsep``; ``bash scripts/run.sh test`` passes
bpy 4.2 and 4.5 there). Each child installs the zip of its Blender line, uses every operator once,
and checks that Blender refuses the other line's zip.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import build_extension
import pytest
from build_extension import LINES, PLATFORMS, BuildError

pytestmark = pytest.mark.blender

ROOT = Path(__file__).resolve().parents[2]
BPY_DIR = Path(importlib.util.find_spec("bpy").submodule_search_locations[0])  # type: ignore[union-attr, index]
BLENDER_EXT = next(BPY_DIR.glob("*/scripts/addons_core/bl_pkg/cli/blender_ext.py"))
STOCK_PACKAGES = ("bpy", "numpy", "numpy.libs")
OTHER_BLENDERS = [path for path in os.environ.get("NOISEWRIGHT_OTHER_BLENDERS", "").split(os.pathsep) if path]
PURE_PYTHON = ("pypng", "tifffile")
"""Bundled projects with one ``py3-none-any`` wheel for every platform and Python."""
BUNDLED_NAMES = ["llvmlite", "numba", "openexr", "pillow", "pypng", "tifffile"]
"""The wheels' names in every zip, sorted."""


def _quiet(_message: str) -> None:
    """Build log sink: the tests check results, not messages."""


def _blender_ext(*arguments: str | Path) -> subprocess.CompletedProcess:
    """Blender's own extension command line (the one ``blender --command extension`` runs)."""
    return subprocess.run(
        [sys.executable, str(BLENDER_EXT), *map(str, arguments)], capture_output=True, text=True, check=False
    )


def _fake_wheel_name(name: str, version: str, python_tag: str, platform: str) -> str:
    if name in PURE_PYTHON:
        return f"{name}-{version}-py3-none-any.whl"
    return f"{name}-{version}-{python_tag}-{python_tag}-{PLATFORMS[platform][0]}.whl"


def _fake_wheel_cache(folder: Path) -> Path:
    """Files named like the bundled wheels of every line and platform (one universal wheel each for pypng and
    tifffile): enough for the layout, offline."""
    folder.mkdir()
    for line in LINES.values():
        for platform in line.platforms:
            for name, version in build_extension.versions_for(platform, line).items():
                (folder / _fake_wheel_name(name, version, line.python_tag, platform)).write_bytes(b"not a wheel")
    return folder


def _entries(archive: Path) -> list[str]:
    with zipfile.ZipFile(archive) as zip_file:
        return sorted(info.filename for info in zip_file.infolist())


def _manifest(archive: Path) -> dict:
    with zipfile.ZipFile(archive) as zip_file:
        return tomllib.loads(zip_file.read("blender_manifest.toml").decode())


def test_blenders_builder_writes_one_validated_zip_per_line_and_platform(tmp_path: Path) -> None:
    archives = build_extension.build(list(PLATFORMS), tmp_path, _fake_wheel_cache(tmp_path / "wheels"), log=_quiet)
    expected = [
        f"noisewright-0.1.0-blender{line}-{platform}.zip"
        for line, platforms in (("4.2-5.0", PLATFORMS), ("5.1+", ("linux_x64", "windows_x64", "macos_arm64")))
        for platform in (name.replace("-", "_") for name in platforms)
    ]
    assert [archive.name for archive in archives] == expected
    sources = {str(path.relative_to(ROOT / "addon")) for path in (ROOT / "addon").rglob("*.py")}
    for archive in archives:
        line = LINES["4.2-5.0" if "blender4.2-5.0" in archive.name else "5.1+"]
        platform = archive.name.removesuffix(".zip").rpartition("-")[2].replace("_", "-")
        manifest = _manifest(archive)
        assert manifest["blender_version_min"] == line.version_min
        assert manifest.get("blender_version_max") == line.version_max
        assert manifest["build"]["generated"]["platforms"] == [platform]
        wheels = manifest["build"]["generated"]["wheels"]
        assert sorted(Path(wheel).name.partition("-")[0] for wheel in wheels) == BUNDLED_NAMES
        for wheel in wheels:
            name = Path(wheel).name
            universal = name.startswith(PURE_PYTHON)
            assert build_extension.wheel_platforms(name, line.python_tag) == (
                set(PLATFORMS) if universal else {platform}
            )
        entries = _entries(archive)
        assert sources <= set(entries) and "noise_core/__init__.py" in entries
        bundled = [entry for entry in entries if entry.startswith("wheels/")]
        assert bundled == sorted(wheel.removeprefix("./") for wheel in wheels)
        validation = _blender_ext("validate", archive)
        assert validation.returncode == 0, validation.stdout + validation.stderr


def test_one_platform_and_line_and_the_line_without_intel_macs(tmp_path: Path) -> None:
    wheels = _fake_wheel_cache(tmp_path / "wheels")
    messages: list[str] = []
    archives = build_extension.build(["macos-x64"], tmp_path / "out", wheels, log=messages.append)
    assert [archive.name for archive in archives] == ["noisewright-0.1.0-blender4.2-5.0-macos_x64.zip"]
    assert "no blender5.1+ zip for macos-x64: Blender 5.1+ is not released for macos-x64" in messages
    with pytest.raises(BuildError, match=r"nothing to build: Blender 5\.1\+ is not built for macos-x64"):
        build_extension.build(["macos-x64"], tmp_path / "none", wheels, lines=["5.1+"], log=_quiet)


def test_a_staged_copy_is_current_until_a_source_file_differs(tmp_path: Path) -> None:
    staged = build_extension.stage_extension(tmp_path)
    assert sorted(path.name for path in staged.iterdir() if path.suffix != ".py") == [
        "assets",
        "blender_manifest.toml",
        "noise_core",
    ]
    assert build_extension.staged_copy_is_current(staged)
    cache = staged / "noise_core" / "__pycache__"
    cache.mkdir(exist_ok=True)
    (cache / "kernel.py311.nbi").write_bytes(b"numba cache")
    assert build_extension.staged_copy_is_current(staged), "cache files are not sources"
    init = staged / "__init__.py"
    init.write_text(init.read_text() + "\n")
    assert not build_extension.staged_copy_is_current(staged)
    assert not build_extension.staged_copy_is_current(tmp_path / "missing")


def test_manifest_version_follows_the_package() -> None:
    manifest = tomllib.loads((ROOT / "blender_manifest.toml").read_text())
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert manifest["id"] == "noisewright"
    assert manifest["version"] == project["version"]


@pytest.mark.parametrize(
    ("filename", "platforms"),
    [
        ("numba-0.68.1-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl", {"linux-x64"}),
        ("numba-0.68.1-cp313-cp313-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl", set()),
        ("llvmlite-0.50.0-cp311-cp311-win_amd64.whl", {"windows-x64"}),
        ("numba-0.62.1-cp311-cp311-macosx_10_15_x86_64.whl", {"macos-x64"}),
        ("pkg-1.0-cp311-cp311-macosx_11_0_universal2.whl", {"macos-arm64", "macos-x64"}),
        ("pkg-1.0-cp311-none-any.whl", set(PLATFORMS)),
        ("pypng-0.20220715.0-py3-none-any.whl", set(PLATFORMS)),
        ("pkg-1.0-py2.py3-none-any.whl", set(PLATFORMS)),
        ("pkg-1.0-py311-none-any.whl", set(PLATFORMS)),
        ("pkg-1.0-py312-none-any.whl", set()),
        ("pkg-1.0-py2-none-any.whl", set()),
        ("pkg-1.0-py3-abi3-any.whl", set()),
        ("pkg-1.0-cp38-abi3-win_amd64.whl", {"windows-x64"}),
        ("openexr-3.5.3-cp311-cp311-macosx_10_15_x86_64.whl", {"macos-x64"}),
        ("openexr-3.5.3-cp313-cp313-macosx_11_0_arm64.whl", set()),
        ("numba-0.68.1-cp312-cp312-win_amd64.whl", set()),
        ("pkg-1.0-cp311-cp311-manylinux_2_28_aarch64.whl", set()),
        ("not-a-wheel.zip", set()),
    ],
)
def test_wheel_platforms(filename: str, platforms: set[str]) -> None:
    assert build_extension.wheel_platforms(filename, "cp311") == platforms


def test_lock_pins_are_found_by_normalised_name(tmp_path: Path) -> None:
    lock = tmp_path / "spelled.lock"
    lock.write_text(
        "Numba==0.68.1\nllvmlite==0.50.0  # kernels\nOpenEXR==3.5.3\nPillow==13.0.0\nPyPNG==0.20220715.0\n"
        "tifffile==2026.3.3\nopenexr-x==1\n"
    )
    assert build_extension.locked_versions(lock) == {
        "numba": "0.68.1",
        "llvmlite": "0.50.0",
        "pillow": "13.0.0",
        "openexr": "3.5.3",
        "pypng": "0.20220715.0",
        "tifffile": "2026.3.3",
    }
    lock.write_text("numba==0.68.1\nllvmlite==0.50.0\npillow==13.0.0\npypng==0.20220715.0\ntifffile==2026.3.3\n")
    with pytest.raises(BuildError, match=r"spelled\.lock: no 'name==version' pin for openexr$"):
        build_extension.locked_versions(lock)


def test_the_cache_finds_universal_and_differently_spelled_wheels(tmp_path: Path) -> None:
    for name in (
        "pypng-0.20220715.0-py3-none-any.whl",
        "openexr-3.5.3-cp311-cp311-win_amd64.whl",
        "OpenEXR-3.5.2-cp311-cp311-macosx_10_15_x86_64.whl",  # older wheels kept the project's spelling
        "openexr-3.5.3-cp313-cp313-manylinux_2_28_x86_64.whl",
        "openexr-3.5.30-cp311-cp311-manylinux_2_28_x86_64.whl",
        "pypng-0.20220715.0.whl",  # no tags: not a wheel name
    ):
        (tmp_path / name).write_bytes(b"")

    def cached(package: str, version: str, platform: str, tag: str = "cp311") -> str | None:
        wheel = build_extension._cached_wheel(tmp_path, package, version, platform, tag)
        return None if wheel is None else wheel.name

    for platform in PLATFORMS:
        for tag in ("cp311", "cp313"):
            assert cached("pypng", "0.20220715.0", platform, tag) == "pypng-0.20220715.0-py3-none-any.whl"
    assert cached("OpenEXR", "3.5.3", "windows-x64") == "openexr-3.5.3-cp311-cp311-win_amd64.whl"
    assert cached("openexr", "3.5.2", "macos-x64") == "OpenEXR-3.5.2-cp311-cp311-macosx_10_15_x86_64.whl"
    assert cached("OpenEXR", "3.5.3", "linux-x64", "cp313") == "openexr-3.5.3-cp313-cp313-manylinux_2_28_x86_64.whl"
    assert cached("OpenEXR", "3.5.3", "linux-x64") is None  # 3.5.30 is another version, cp313 another Python
    assert cached("openexr", "3.5.3", "macos-arm64") is None


def test_a_universal_wheel_is_staged_and_listed_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """All four platforms of the 4.2-5.0 line from the cache, no download: pypng's one wheel serves them all,
    and tifffile's."""

    def no_download(*_args: object) -> None:
        raise AssertionError("every wheel is in the cache")

    monkeypatch.setattr(build_extension, "_pip_download", no_download)
    line = LINES["4.2-5.0"]
    stage = build_extension.stage_with_wheels(
        tmp_path, line, line.platforms, _fake_wheel_cache(tmp_path / "cache"), _quiet
    )
    wheels = tomllib.loads((stage / "blender_manifest.toml").read_text())["wheels"]
    names = [Path(wheel).name for wheel in wheels]
    per_platform = len(BUNDLED_NAMES) - len(PURE_PYTHON)
    assert len(names) == len(set(names)) == per_platform * len(line.platforms) + len(PURE_PYTHON)
    assert [name for name in names if name.startswith("pypng-")] == ["pypng-0.20220715.0-py3-none-any.whl"]
    assert [name for name in names if name.startswith("tifffile-")] == ["tifffile-2026.3.3-py3-none-any.whl"]
    assert sorted(path.name for path in (stage / "wheels").iterdir()) == sorted(names)
    for platform in line.platforms:
        for_platform = [name for name in names if platform in build_extension.wheel_platforms(name, "cp311")]
        assert sorted(name.partition("-")[0] for name in for_platform) == BUNDLED_NAMES


def test_unknown_platform_is_refused_with_the_allowed_ones(tmp_path: Path) -> None:
    with pytest.raises(BuildError, match=r"platform: unknown linux-riscv; allowed: linux-x64, windows-x64"):
        build_extension.build(["linux-riscv"], tmp_path, tmp_path, log=_quiet)
    with pytest.raises(BuildError, match=r"blender: unknown 3\.6; allowed: 4\.2-5\.0, 5\.1\+"):
        build_extension.build(["linux-x64"], tmp_path, tmp_path, lines=["3.6"], log=_quiet)
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "build_extension.py"), "--platform", "amiga"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert "--platform: invalid choice: 'amiga'" in result.stderr


def test_failed_download_says_what_and_how_to_fix_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.delenv("PIP_FIND_LINKS", raising=False)
    lock = tmp_path / "old.lock"
    lock.write_text("numba==0.0.1\nllvmlite==0.0.1\nOpenEXR==0.0.1\npillow==0.0.1\npypng==0.0.1\ntifffile==0.0.1\n")
    line = build_extension.BlenderLine("old", "3.11", lock, "4.2.0", None, ("windows-x64",))
    with pytest.raises(
        BuildError,
        match=r"pip could not download numba==0.0.1 llvmlite==0.0.1 openexr==0.0.1 pillow==0.0.1 pypng==0.0.1 "
        r"tifffile==0.0.1 for windows-x64 and Python 3\.11",
    ) as error:
        build_extension.fetch_wheels("windows-x64", line, tmp_path, _quiet)
    assert "--wheel-cache" in str(error.value)


@pytest.fixture(scope="session")
def linux_zips(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The real linux-x64 zips of both Blender lines, by Python version. Their wheels come from the build's
    persistent cache (``build/wheels``, ignored by git), so they are downloaded once per checkout and later
    runs work offline."""
    folder = tmp_path_factory.mktemp("extension")
    archives = build_extension.build(["linux-x64"], folder / "dist", build_extension.WHEEL_CACHE, log=_quiet)
    assert [archive.name for archive in archives] == [
        "noisewright-0.1.0-blender4.2-5.0-linux_x64.zip",
        "noisewright-0.1.0-blender5.1+-linux_x64.zip",
    ]
    return {line.python: archive for line, archive in zip(LINES.values(), archives, strict=True)}


def test_the_zips_take_their_wheels_from_the_persistent_ignored_cache(linux_zips: dict[str, Path]) -> None:
    cache = build_extension.WHEEL_CACHE
    assert cache == ROOT / "build" / "wheels"
    assert subprocess.run(["git", "check-ignore", "-q", str(cache)], cwd=ROOT, check=False).returncode == 0
    for line in LINES.values():
        for name, version in build_extension.versions_for("linux-x64", line).items():
            wheel = build_extension._cached_wheel(cache, name, version, "linux-x64", line.python_tag)
            assert wheel is not None, f"{name} {version} is not in {cache}"


def _environment(python: str) -> tuple[str, Path]:
    """The Python version (``"3.11"``) and site-packages folder of the interpreter ``python``."""
    result = subprocess.run(
        [
            python,
            "-c",
            "import sys, sysconfig; print(f'{sys.version_info[0]}.{sys.version_info[1]}');"
            "print(sysconfig.get_paths()['purelib'])",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    version, site = result.stdout.split()
    return version, Path(site)


def _stock_python_path(site: Path, folder: Path) -> Path:
    """A folder exposing only the packages a Blender build bundles that matter here (no numba)."""
    folder.mkdir()
    for name in STOCK_PACKAGES:
        if (site / name).exists():
            (folder / name).symlink_to(site / name)
    return folder


@pytest.mark.parametrize("python", [sys.executable, *OTHER_BLENDERS])
def test_stock_blender_installs_its_linux_zip_offline_and_runs_it(
    python: str, linux_zips: dict[str, Path], tmp_path: Path
) -> None:
    version, site = _environment(python)
    archive = linux_zips[version]
    (wrong,) = (other for python_version, other in linux_zips.items() if python_version != version)
    user_resources = tmp_path / "user"
    user_resources.mkdir()
    env = {
        **os.environ,
        "BLENDER_USER_RESOURCES": str(user_resources),
        "PYTHONPATH": str(_stock_python_path(site, tmp_path / "stock")),
    }
    result = subprocess.run(
        [python, "-S", str(Path(__file__).with_name("install_child.py")), str(archive), str(wrong), str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    print(f"Blender {report['blender']} (Python {version}, numpy {report['numpy']}) installed {archive.name}")

    assert report["numba_before"] is False
    # Blender reports the version mismatch ("doesn't meet the minimum supported version") and installs nothing.
    assert report["wrong_zip"]["installed"] is False, f"Blender {report['blender']} installed {wrong.name}"
    assert report["install"] == ["FINISHED"]
    assert report["enabled"] and report["registered"]
    extensions = user_resources / "extensions"
    assert Path(report["numba_file"]).is_relative_to(extensions), "numba did not come from the bundled wheel"
    line = next(line for line in LINES.values() if line.python == version)
    versions = build_extension.versions_for("linux-x64", line)
    assert report["numba_version"] == versions["numba"]
    # The image writers the jobs encode with off the main thread: imported and used from the bundled wheels.
    modules = {"PIL": "pillow", "png": "pypng", "OpenEXR": "openexr", "tifffile": "tifffile"}
    assert report["writers_before"] == dict.fromkeys(modules, False)
    for module, project in modules.items():
        assert Path(report[f"{module}_file"]).is_relative_to(extensions), f"{module} is not the bundled wheel's"
        assert report[f"{module}_version"] == versions[project]
    assert report["pil_written"] == [[0, 255], [18, 255]]
    assert report["png_written"] == [[0, 65535], [4660, 65535]]
    assert report["exr_written"] == report["tiff_written"] == [[0.0, 0.5], [-1.25, 1024.0]]

    assert report["add_terrain"] == report["displace"] == report["bake_texture"] == ["FINISHED"]
    assert report["terrain_relief"] > 0.01
    assert report["displacement"] > 0.001
    assert report["baked_bytes"] > 0

    assert report["installed_before_uninstall"]
    assert report["uninstall"] == ["FINISHED"]
    assert not report["enabled_after"] and not report["registered_after"]
    assert not report["installed_after"] and not report["numba_wheel_after"] and not report["writers_after"]
