"""Blender tests run the ``bpy`` module in a throw-away user folder, never the user's own.

``BLENDER_USER_RESOURCES`` is read once, when ``bpy`` is first imported, so it is set here,
before any test module imports ``bpy``. Subprocesses started by the tests inherit it.
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

_USER_RESOURCES = tempfile.mkdtemp(prefix="noisewright-blender-user-")
os.environ["BLENDER_USER_RESOURCES"] = _USER_RESOURCES
atexit.register(shutil.rmtree, _USER_RESOURCES, ignore_errors=True)


def extension_repository(tmp_path_factory: pytest.TempPathFactory, name: str) -> Path:
    """A new local extension repository folder for a test module, named like the scripts' own
    (``build/blender_extensions``): Blender names the add-on's module by the folder (``bl_ext.blender_extensions
    .noisewright``), and noise_core its cache by the module, so every Blender process of a test run loads the
    kernels another one compiled (``NUMBA_CACHE_DIR``, set by ``scripts/run.sh test``)."""
    folder = tmp_path_factory.mktemp(name) / "blender_extensions"
    folder.mkdir()
    return folder


@pytest.fixture(scope="session")
def addon(tmp_path_factory):
    """The add-on module, enabled as the headless scripts enable it (``_blender_addon.load_addon``): the
    checkout staged by ``build_extension.stage_extension`` into a local extension repository, enabled
    the way Blender enables extensions (``bl_ext.<repo>.noisewright``). Staged once per session: Numba
    caches its kernels in the extension's user folder, or in ``NUMBA_CACHE_DIR`` when that is set (as
    ``scripts/run.sh test`` sets it)."""
    import bpy  # here, not at the top: after BLENDER_USER_RESOURCES is set

    repository = extension_repository(tmp_path_factory, "addon")
    import _blender_addon  # scripts/, on sys.path through pytest's pythonpath (pyproject.toml); imports bpy

    name = _blender_addon.load_addon(repository, log=lambda _message: None)
    assert name.startswith("bl_ext.") and name.endswith(".noisewright")
    yield sys.modules[name]
    repos = bpy.context.preferences.extensions.repos
    index = next(i for i, repo in enumerate(repos) if name == f"bl_ext.{repo.module}.noisewright")
    bpy.ops.preferences.extension_repo_remove(index=index)  # also disables the add-on


@pytest.fixture
def bpy_empty(addon):
    """``bpy`` with an empty scene (no objects, images) and the add-on enabled."""
    import bpy

    bpy.ops.wm.read_homefile(use_empty=True)
    return bpy


def default_offset(addon) -> np.ndarray:
    """The noise space's default offset (Z off the lattice) as Blender stores it (float32), in float64."""
    return np.asarray(addon.properties.DEFAULT_OFFSET, dtype=np.float32).astype(np.float64)


def scene_state(bpy) -> dict:
    """Everything a cancelled operator must leave alone: datablock counts, every mesh's vertices and
    shape keys, every image's size and pixels, selection and mode."""
    meshes = {}
    for mesh in bpy.data.meshes:
        co = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
        mesh.vertices.foreach_get("co", co)
        keys = tuple(key.name for key in mesh.shape_keys.key_blocks) if mesh.shape_keys else ()
        meshes[mesh.name] = (co.tobytes(), keys)
    images = {}
    for image in bpy.data.images:
        pixels = np.empty(len(image.pixels), dtype=np.float32)
        image.pixels.foreach_get(pixels)
        images[image.name] = (tuple(image.size), pixels.tobytes())
    counts = {
        kind: len(getattr(bpy.data, kind))
        for kind in ("objects", "meshes", "images", "node_groups", "scenes", "shape_keys", "libraries")
    }
    selected = sorted(obj.name for obj in bpy.context.selected_objects)
    return {"counts": counts, "meshes": meshes, "images": images, "selected": selected, "mode": bpy.context.mode}


class ChecksAfterCancel:
    """A job's ``compute`` whose checks for a cancel (its calls of ``advance``, which raises ``Cancelled`` once the
    cancel is asked for) are counted from the cancel on: ``checks`` is how many began after ``requested()`` said
    the cancel was asked for. A job that stops at its first check after a cancel makes one such check (none when
    the cancel came while its check was under way), however long its batches take; one that went on working past
    a cancel would make more. How soon the first check comes, in seconds, is measured by scripts/bench_jobs.py."""

    def __init__(self, compute, requested) -> None:
        self._compute = compute
        self._requested = requested
        self.checks = 0

    def __call__(self, advance):
        def check(count: int) -> None:
            if self._requested():
                self.checks += 1
            advance(count)

        return self._compute(check)
