"""The lock files of the tested environments agree with each other and with ``pyproject.toml``."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

ROOT = Path(__file__).resolve().parent.parent
LOCKS = {"3.11": ROOT / "requirements.lock", "3.13": ROOT / "requirements-py313.lock"}
BLENDER_LOCKS = sorted((ROOT / "tests" / "blender").glob("requirements-bpy*.lock"))
PER_BLENDER = {"bpy", "numpy", "attrs", "cattrs"}
"""What differs between the two main locks: the Blender, the numpy it needs, and bpy 5.2's own dependencies."""
ONLY_PY311 = {"richdem-fork"}
"""Test-only peers without a Python 3.13 wheel: pinned for 3.11 only, their tests skip where they are missing."""


def _pins(lock: Path) -> dict[str, str]:
    pins = {}
    for line in lock.read_text(encoding="utf-8").splitlines():
        name, sep, version = line.partition("#")[0].strip().partition("==")
        if sep:
            pins[name.strip().lower().replace("_", "-")] = version.strip()
    return pins


def test_both_main_locks_pin_the_same_tools_and_numba() -> None:
    py311, py313 = (_pins(lock) for lock in LOCKS.values())
    assert set(py311) - PER_BLENDER - ONLY_PY311 == set(py313) - PER_BLENDER
    differing = {name for name in py311.keys() & py313.keys() if py311[name] != py313[name]}
    assert differing <= PER_BLENDER, differing
    assert py311["numba"] == py313["numba"]
    assert py311["hypothesis"] == py313["hypothesis"] == "6.170.15"


@pytest.mark.parametrize("python", sorted(LOCKS))
def test_pyproject_allows_every_tested_environment(python: str) -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert python in SpecifierSet(project["requires-python"])
    pins = _pins(LOCKS[python])
    for dependency in map(Requirement, project["dependencies"]):
        assert pins[dependency.name] in dependency.specifier, f"{LOCKS[python].name}: {dependency}"


def test_blender_only_locks_hold_just_bpy_and_the_numpy_it_ships() -> None:
    names = [lock.name for lock in BLENDER_LOCKS]
    assert names == ["requirements-bpy4.2.lock", "requirements-bpy4.5.lock", "requirements-bpy5.1.lock"]
    numpy_lines = {"4.2": "1.26.", "4.5": "1.26.", "5.1": "2.3."}
    for lock in BLENDER_LOCKS:
        pins = _pins(lock)
        assert set(pins) == {"bpy", "numpy"}
        assert pins["bpy"].startswith(lock.stem.removeprefix("requirements-bpy") + ".")
        assert pins["numpy"].startswith(numpy_lines[lock.stem.removeprefix("requirements-bpy")])
