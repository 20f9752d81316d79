"""The extension zips: Blender's layout and validator, build errors, and an offline install into a stock Blender.

The install runs in a child process (``install_child.py``) that sees only ``bpy`` and numpy, as a
Blender build does, so numba must come from the wheels inside the zip; it also keeps the installed
add-on's registration away from the other Blender tests in this process.
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

import pytest

from scripts import build_extension
from scripts.build_extension import PLATFORMS, BuildError

pytestmark = pytest.mark.blender

ROOT = Path(__file__).resolve().parents[2]
BPY_DIR = Path(importlib.util.find_spec("bpy").submodule_search_locations[0])  # type: ignore[union-attr, index]
BLENDER_EXT = next(BPY_DIR.glob("*/scripts/addons_core/bl_pkg/cli/blender_ext.py"))
STOCK_PACKAGES = ("bpy", "numpy", "numpy.libs")


def _quiet(_message: str) -> None:
    """Build log sink: the tests check results, not messages."""


def _blender_ext(*arguments: str | Path) -> subprocess.CompletedProcess:
    """Blender's own extension command line (the one ``blender --command extension`` runs)."""
    return subprocess.run(
        [sys.executable, str(BLENDER_EXT), *map(str, arguments)], capture_output=True, text=True, check=False
    )


def _fake_wheel_cache(folder: Path) -> Path:
    """Empty files named like the numba/llvmlite wheels of every platform: enough for layout checks, offline."""
    folder.mkdir()
    pins = build_extension.locked_versions()
    for platform, tags in PLATFORMS.items():
        for name, version in build_extension.versions_for(platform, pins).items():
            (folder / f"{name}-{version}-cp311-cp311-{tags[0]}.whl").write_bytes(b"not a real wheel")
    return folder


def _entries(archive: Path) -> dict[str, int]:
    with zipfile.ZipFile(archive) as zip_file:
        return {info.filename: info.compress_type for info in zip_file.infolist()}


def _manifest(archive: Path) -> str:
    with zipfile.ZipFile(archive) as zip_file:
        return zip_file.read("blender_manifest.toml").decode()


@pytest.fixture
def blender_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A ``blender`` on PATH whose ``--command extension`` is Blender's extension CLI from the bpy module."""
    folder = tmp_path / "bin"
    folder.mkdir()
    script = folder / "blender"
    script.write_text(
        '#!/bin/sh\n[ "$1" = --command ] && [ "$2" = extension ] || exit 9\nshift 2\n'
        f'exec "{sys.executable}" "{BLENDER_EXT}" "$@"\n'
    )
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")


def test_zipfile_build_equals_blenders_split_platform_build(tmp_path: Path, blender_on_path: None) -> None:
    wheels = _fake_wheel_cache(tmp_path / "wheels")
    ours = build_extension.build(list(PLATFORMS), tmp_path / "ours", wheels, builder="zipfile", log=_quiet)
    blenders = build_extension.build(list(PLATFORMS), tmp_path / "blender", wheels, builder="blender", log=_quiet)
    assert (
        [archive.name for archive in ours]
        == [archive.name for archive in blenders]
        == [f"noisewright-0.1.0-{platform.replace('-', '_')}.zip" for platform in PLATFORMS]
    )
    for platform, archive, reference in zip(PLATFORMS, ours, blenders, strict=True):
        assert _entries(archive) == _entries(reference)
        assert _manifest(archive) == _manifest(reference)
        wheel_names = tomllib.loads(_manifest(archive))["build"]["generated"]["wheels"]
        assert len(wheel_names) == 2
        assert all(build_extension.wheel_platforms(Path(name).name) == {platform} for name in wheel_names)
        validation = _blender_ext("validate", archive)
        assert validation.returncode == 0, validation.stdout + validation.stderr


def test_manifest_version_follows_the_package() -> None:
    manifest = tomllib.loads((ROOT / "blender_manifest.toml").read_text())
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert manifest["id"] == "noisewright"
    assert manifest["version"] == project["version"]


@pytest.mark.parametrize(
    ("filename", "platforms"),
    [
        ("numba-0.68.1-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl", {"linux-x64"}),
        ("llvmlite-0.50.0-cp311-cp311-win_amd64.whl", {"windows-x64"}),
        ("numba-0.62.1-cp311-cp311-macosx_10_15_x86_64.whl", {"macos-x64"}),
        ("pkg-1.0-cp311-cp311-macosx_11_0_universal2.whl", {"macos-arm64", "macos-x64"}),
        ("pkg-1.0-cp311-none-any.whl", set(PLATFORMS)),
        ("numba-0.68.1-cp312-cp312-win_amd64.whl", set()),
        ("pkg-1.0-cp311-cp311-manylinux_2_28_aarch64.whl", set()),
        ("not-a-wheel.zip", set()),
    ],
)
def test_wheel_platforms(filename: str, platforms: set[str]) -> None:
    assert build_extension.wheel_platforms(filename) == platforms


def test_unknown_platform_is_refused_with_the_allowed_ones(tmp_path: Path) -> None:
    with pytest.raises(BuildError, match=r"platform: unknown linux-riscv; allowed: linux-x64, windows-x64"):
        build_extension.build(["linux-riscv"], tmp_path, tmp_path, log=_quiet)
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
    pins = {"numba": "0.0.1", "llvmlite": "0.0.1"}
    with pytest.raises(
        BuildError, match=r"pip could not download numba==0.0.1 llvmlite==0.0.1 for windows-x64"
    ) as error:
        build_extension.fetch_wheels("windows-x64", pins, tmp_path, _quiet)
    assert "--wheel-cache" in str(error.value)


@pytest.fixture(scope="session")
def linux_zip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real linux-x64 zip. Its wheels come from the build's persistent cache (``build/wheels``, ignored by
    git), so they are downloaded once per checkout and later runs work offline."""
    folder = tmp_path_factory.mktemp("extension")
    (archive,) = build_extension.build(["linux-x64"], folder / "dist", build_extension.WHEEL_CACHE, log=_quiet)
    return archive


def test_the_zip_takes_its_wheels_from_the_persistent_ignored_cache(linux_zip: Path) -> None:
    cache = build_extension.WHEEL_CACHE
    assert cache == ROOT / "build" / "wheels"
    assert subprocess.run(["git", "check-ignore", "-q", str(cache)], cwd=ROOT, check=False).returncode == 0
    for name, version in build_extension.versions_for("linux-x64", build_extension.locked_versions()).items():
        assert list(cache.glob(f"{name}-{version}-*.whl")), f"{name} {version} is not in {cache}"


def _stock_python_path(folder: Path) -> Path:
    """A folder exposing only the packages a Blender build bundles that matter here (no numba)."""
    folder.mkdir()
    site = BPY_DIR.parent
    for name in STOCK_PACKAGES:
        if (site / name).exists():
            (folder / name).symlink_to(site / name)
    return folder


def test_stock_blender_installs_the_linux_zip_offline_and_runs_it(linux_zip: Path, tmp_path: Path) -> None:
    assert linux_zip.name == "noisewright-0.1.0-linux_x64.zip"
    validation = _blender_ext("validate", linux_zip)
    assert validation.returncode == 0, validation.stdout + validation.stderr
    user_resources = tmp_path / "user"
    user_resources.mkdir()
    env = {
        **os.environ,
        "BLENDER_USER_RESOURCES": str(user_resources),
        "PYTHONPATH": str(_stock_python_path(tmp_path / "stock")),
    }
    result = subprocess.run(
        [sys.executable, "-S", str(Path(__file__).with_name("install_child.py")), str(linux_zip), str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])

    assert report["numba_before"] is False
    assert report["install"] == ["FINISHED"]
    assert report["enabled"] and report["registered"]
    extensions = user_resources / "extensions"
    assert Path(report["numba_file"]).is_relative_to(extensions), "numba did not come from the bundled wheel"
    assert report["numba_version"] == build_extension.locked_versions()["numba"]

    assert report["add_terrain"] == report["displace"] == report["bake_texture"] == ["FINISHED"]
    assert report["terrain_relief"] > 0.01
    assert report["displacement"] > 0.001
    assert report["baked_bytes"] > 0

    assert report["installed_before_uninstall"]
    assert report["uninstall"] == ["FINISHED"]
    assert not report["enabled_after"] and not report["registered_after"]
    assert not report["installed_after"] and not report["numba_wheel_after"]
