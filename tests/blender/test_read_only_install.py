"""The extension works from a repository the user cannot write (a system repository, a shared install):
Numba's cache goes to the extension's user folder instead of the install folder.

The repository is made read-only with file modes. Root ignores them, so as root the child process runs as
``nobody`` (``setpriv``; the work folder is then outside pytest's private temporary folder), or, where
``nobody`` cannot run this Python, as root with a warning.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
from build_extension import stage_extension

pytestmark = pytest.mark.blender

NOBODY = 65534


def _set_modes(root: Path, directories: int, files: int) -> None:
    for folder, names, filenames in os.walk(root):
        for filename in filenames:
            os.chmod(os.path.join(folder, filename), files)
        os.chmod(folder, directories)
        for name in names:
            os.chmod(os.path.join(folder, name), directories)


@pytest.fixture
def work() -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="noisewright-read-only-"))
    folder.chmod(0o755)
    yield folder
    _set_modes(folder, 0o755, 0o644)
    shutil.rmtree(folder)


def _as_a_user_who_cannot_write(command: list[str], env: dict) -> tuple[list[str], bool]:
    """``command`` run by a user the file modes apply to, and whether that is so.

    As root: as ``nobody`` through ``setpriv``, if ``nobody`` can run this Python with ``bpy`` (a checkout
    under a private home folder cannot be read by ``nobody``); otherwise as root, with a warning.
    """
    if os.geteuid() != 0:
        return command, True
    setpriv = shutil.which("setpriv")
    if setpriv is not None:
        as_nobody = [setpriv, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
        probe = subprocess.run(
            [*as_nobody, sys.executable, "-c", "import bpy, numba"], capture_output=True, env=env, check=False
        )
        if probe.returncode == 0:
            return [*as_nobody, *command], True
    warnings.warn(
        "read-only repository test: running as root (which ignores file modes) because nobody cannot run "
        f"{sys.executable} with bpy or setpriv is missing; only where the cache goes is checked",
        stacklevel=2,
    )
    return command, False


def _numba_files(folder: Path) -> list[Path]:
    return [path for path in folder.rglob("*") if path.suffix in (".nbi", ".nbc")]


def test_read_only_repository(work: Path) -> None:
    repository = work / "repository"
    repository.mkdir()
    stage_extension(repository)
    _set_modes(repository, 0o555, 0o444)
    user, home = work / "user", work / "home"
    for folder in (user, home):
        folder.mkdir()
        folder.chmod(0o777)
    env = {key: value for key, value in os.environ.items() if key not in ("NUMBA_CACHE_DIR", "PYTHONDONTWRITEBYTECODE")}
    env.update(BLENDER_USER_RESOURCES=str(user), HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"))
    command = [sys.executable, str(Path(__file__).with_name("readonly_child.py")), str(repository)]
    command, enforced = _as_a_user_who_cannot_write(command, env)
    result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600, check=False)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])

    assert report["install_writable"] is not enforced
    assert report["repo_add"] == ["FINISHED"] and report["enabled"]
    assert report["add_terrain"] == ["FINISHED"] and report["relief"] > 0.01
    assert report["cache"] is not None and Path(report["cache"]).parent == Path(report["user_folder"])
    assert Path(report["user_folder"]).is_relative_to(user)
    assert report["cached_files"] > 0
    assert not _numba_files(repository), "cache files in the install folder"
    assert not _numba_files(home), "cache files in the user-wide cache folder"
    assert "CacheWarning" not in result.stderr
