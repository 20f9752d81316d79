"""The numba version check: noise_core runs on numba from MIN_NUMBA upward and names an older one."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from noise_core import _compat
from noise_core._compat import MIN_NUMBA, NumbaVersionError, check_version, parse_version


@pytest.mark.parametrize(
    ("text", "version"),
    [
        ("0.62.1", (0, 62)),
        ("0.68.1", (0, 68)),
        ("0.63.0rc1", (0, 63)),
        ("0.64.0.dev0+12.gabcdef", (0, 64)),
        ("1.0.0", (1, 0)),
        ("0.100", (0, 100)),
    ],
)
def test_parse_version(text: str, version: tuple[int, int]) -> None:
    assert parse_version(text) == version


@pytest.mark.parametrize("version", ["0.62.0", "0.62.1", "0.65.0rc1", "0.68.1", "0.70.0.dev0", "1.2.3"])
def test_supported_versions_pass(version: str) -> None:
    check_version(version)


@pytest.mark.parametrize("version", ["0.61.2", "0.58.1", "0.9.0"])
def test_older_versions_are_named(version: str) -> None:
    with pytest.raises(NumbaVersionError, match=rf"^numba: version {version} is installed \(at /some/site\), but"):
        check_version(version, "/some/site")


def test_an_unreadable_version_is_an_error() -> None:
    with pytest.raises(NumbaVersionError, match=r"^numba: cannot read the version 'unknown'"):
        check_version("unknown")


def test_minimum_is_the_last_numba_for_intel_macs() -> None:
    assert MIN_NUMBA == (0, 62)
    assert _compat.required() == "0.62"


def test_importing_noise_core_with_an_old_numba_names_its_version(tmp_path: Path) -> None:
    fake = tmp_path / "numba"
    fake.mkdir()
    (fake / "__init__.py").write_text('__version__ = "0.61.2"\n')
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(Path(__file__).resolve().parents[1])])}
    done = subprocess.run(
        [sys.executable, "-c", "import noise_core"], capture_output=True, text=True, env=env, check=False
    )
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("noise_core._compat.NumbaVersionError: numba: version 0.61.2 is installed")
    assert str(fake) in last and "needs numba 0.62 or newer" in last
