"""Child process of ``test_read_only_repository``: enable the extension from a read-only repository and use it.

Run as ``python readonly_child.py REPOSITORY`` with ``BLENDER_USER_RESOURCES`` pointing at an empty, writable
folder, as a user who may not write REPOSITORY. Prints a JSON report as its last line.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import bpy
import numpy as np

REPOSITORY_NAME = "Read-only"


def _raise(error: Exception) -> None:
    raise error


def main(repository: Path) -> dict:
    import addon_utils  # importable once bpy is

    report: dict = {"install_writable": os.access(repository / "noisewright", os.W_OK)}
    report["repo_add"] = sorted(
        bpy.ops.preferences.extension_repo_add(
            name=REPOSITORY_NAME, type="LOCAL", use_custom_directory=True, custom_directory=str(repository)
        )
    )
    repo = next(repo for repo in bpy.context.preferences.extensions.repos if repo.name == REPOSITORY_NAME)
    name = f"bl_ext.{repo.module}.noisewright"
    module = addon_utils.enable(name, default_set=True, handle_error=_raise)
    report["enabled"] = module is not None and name in bpy.context.preferences.addons
    report["cache"] = module.noise_core.cache_location()
    report["user_folder"] = bpy.utils.extension_path_user(name, path="numba_cache")

    bpy.ops.wm.read_homefile(use_empty=True)
    report["add_terrain"] = sorted(bpy.ops.noisewright.add_terrain(x_subdivisions=7, y_subdivisions=7, height=1.0))
    mesh = bpy.context.view_layer.objects.active.data
    positions = np.empty(len(mesh.vertices) * 3)
    mesh.vertices.foreach_get("co", positions)
    report["relief"] = float(np.ptp(positions[2::3]))
    report["cached_files"] = len(list(Path(report["user_folder"]).rglob("*.nbi")))
    return report


if __name__ == "__main__":
    print(json.dumps(main(Path(sys.argv[1]))))
