"""Enabling the extension where an older numba than noise_core needs wins Blender's shared site-packages fails
with a message naming that numba's version (a child process: the fake numba must shadow the real one)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from build_extension import stage_extension

pytestmark = pytest.mark.blender

CHILD = """
import sys
import bpy
import addon_utils

bpy.ops.preferences.extension_repo_add(
    name="Old numba", type="LOCAL", use_custom_directory=True, custom_directory=sys.argv[1]
)
repo = next(repo for repo in bpy.context.preferences.extensions.repos if repo.name == "Old numba")
errors = []
module = addon_utils.enable(f"bl_ext.{repo.module}.noisewright", default_set=True, handle_error=errors.append)
print("ENABLED" if module is not None else "NOT ENABLED")
print("ERROR", type(errors[0]).__name__, errors[0])
"""


def test_enabling_with_an_old_numba_names_its_version(tmp_path: Path) -> None:
    repository = tmp_path / "repository"
    repository.mkdir()
    stage_extension(repository)
    fake = tmp_path / "site" / "numba"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text('__version__ = "0.61.2"\n')
    user = tmp_path / "user"
    user.mkdir()
    env = {**os.environ, "PYTHONPATH": str(fake.parent), "BLENDER_USER_RESOURCES": str(user)}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(repository)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    lines = done.stdout.strip().splitlines()
    assert "NOT ENABLED" in lines
    error = next(line for line in lines if line.startswith("ERROR "))
    assert error.startswith("ERROR NumbaVersionError numba: version 0.61.2 is installed")
    assert str(fake) in error and "needs numba 0.62 or newer" in error
