"""Static type check of the add-on, in the checkout, against the fake-bpy-module stubs.

The add-on's relative ``.noise_core`` imports resolve through the checkout's ``addon/noise_core`` link
(``scripts/build_extension.py``), exactly as inside Blender, where ``noise_core`` is staged beside the
add-on: no staging here. A missing ``addon.noise_core`` is an error (not an unknown module silently
typed ``Any``). ``union-attr`` is off: the stubs mark every pointer (``context.scene``, ``obj.data``,
``self.layout``...) Optional, which Blender guarantees in the places the add-on uses them.
``noise_core`` is type-checked as a dependency but its own findings are not reported here.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MYPY_CONFIG = """\
[mypy]
python_version = 3.11
ignore_missing_imports = True
check_untyped_defs = True
warn_unused_ignores = True
disable_error_code = union-attr
cache_dir = {cache}

[mypy-addon.noise_core]
ignore_missing_imports = False

[mypy-addon.noise_core.*]
ignore_missing_imports = False
ignore_errors = True
"""


@pytest.mark.skipif(
    sys.version_info[:2] != (3, 11),
    reason="the check of the Python 3.11 run, repeated: mypy checks as Python 3.11 (python_version) with the same "
    "mypy and fake-bpy-module in both lock files",
)
def test_addon_type_checks_against_fake_bpy(tmp_path: Path) -> None:
    assert any((Path(entry) / "bpy-stubs").is_dir() for entry in sys.path), "fake-bpy-module is not installed"
    config = tmp_path / "mypy.ini"
    config.write_text(MYPY_CONFIG.format(cache=tmp_path / ".mypy_cache"))
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(config), "-p", "addon"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
