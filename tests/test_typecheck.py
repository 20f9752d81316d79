"""Static type check of the add-on against the fake-bpy-module stubs.

The extension is staged first (``scripts/build_extension.stage_extension``) so the add-on's relative
``.noise_core`` imports resolve exactly as inside Blender. ``union-attr`` is off: the stubs mark every
pointer (``context.scene``, ``obj.data``, ``self.layout``...) Optional, which Blender guarantees in the
places the add-on uses them. ``noise_core`` is type-checked as a dependency but its own findings are
not reported here.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from scripts.build_extension import stage_extension

pytest.importorskip("mypy")

MYPY_CONFIG = """\
[mypy]
python_version = 3.11
ignore_missing_imports = True
check_untyped_defs = True
warn_unused_ignores = True
disable_error_code = union-attr
cache_dir = {cache}

[mypy-noisewright.noise_core.*]
ignore_errors = True
"""


def test_addon_type_checks_against_fake_bpy(tmp_path: Path) -> None:
    assert any((Path(entry) / "bpy-stubs").is_dir() for entry in sys.path), "fake-bpy-module is not installed"
    staged = stage_extension(tmp_path)
    config = tmp_path / "mypy.ini"
    config.write_text(MYPY_CONFIG.format(cache=tmp_path / ".mypy_cache"))
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(config), staged.name],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
