"""Shared start-up of the headless entry points: arguments and loading the Noisewright add-on.

The entry points run as ``blender --background --python scripts/<name>.py -- <args>`` and as
``python scripts/<name>.py <args>`` with the ``bpy`` module. They load the add-on the way a
user would: an enabled, installed ``noisewright`` extension is used as it is; otherwise the
checkout is staged (``build_extension.stage_extension``) into a local extension repository
under ``build/`` that is registered in the preferences, and the extension is enabled from
there. The staged copy is kept while the sources are unchanged, so Numba's on-disk cache next
to it survives between runs.

Entry points load this file with ``runpy.run_path`` because ``blender --python`` does not put
``scripts/`` on ``sys.path``.
"""

from __future__ import annotations

import runpy
import sys
from collections.abc import Sequence
from pathlib import Path

import addon_utils
import bpy

SCRIPTS = Path(__file__).resolve().parent
ROOT = SCRIPTS.parent
EXTENSION_ID = "noisewright"
LOCAL_REPOSITORY = ROOT / "build" / "blender_extensions"
LOCAL_REPOSITORY_NAME = "Noisewright checkout"
_CACHE_FILES = ("__pycache__", ".pyc", ".nbi", ".nbc")


class AddonError(RuntimeError):
    """The add-on could not be found, staged or enabled."""


def script_arguments(argv: Sequence[str] | None = None) -> list[str]:
    """The script's own arguments: those after ``--``, else all but the script path under plain Python.

    Inside the Blender binary without ``--`` every argument is Blender's, so there are none.
    """
    argv = list(sys.argv if argv is None else argv)
    if "--" in argv:
        return argv[argv.index("--") + 1 :]
    if argv and argv[0].endswith(".py"):
        return argv[1:]
    return []


def _enabled_extension_module() -> str | None:
    for module in bpy.context.preferences.addons.keys():
        if module.startswith("bl_ext.") and module.rpartition(".")[2] == EXTENSION_ID:
            return module
    return None


def _tree_signature(root: Path, prefix: str = "") -> dict[str, tuple[int, int]]:
    """Size and modification time of every source file under ``root`` (caches excluded)."""
    signature = {}
    for path in root.rglob("*"):
        if path.is_file() and not any(part.endswith(_CACHE_FILES) for part in path.parts):
            stat = path.stat()
            signature[prefix + path.relative_to(root).as_posix()] = (stat.st_size, stat.st_mtime_ns)
    return signature


def _checkout_signature() -> dict[str, tuple[int, int]]:
    manifest = ROOT / "blender_manifest.toml"
    return {
        **_tree_signature(ROOT / "addon"),
        **_tree_signature(ROOT / "noise_core", "noise_core/"),
        manifest.name: (manifest.stat().st_size, manifest.stat().st_mtime_ns),
    }


def _stage_checkout(log) -> None:
    """Copy the checkout's extension into the local repository unless the copy there is current."""
    staged = LOCAL_REPOSITORY / EXTENSION_ID
    if staged.is_dir() and _tree_signature(staged) == _checkout_signature():
        return
    build_extension = runpy.run_path(str(SCRIPTS / "build_extension.py"), run_name="build_extension")
    log(f"staging the checkout's extension into {staged}")
    build_extension["stage_extension"](LOCAL_REPOSITORY)


def _local_repository():
    """The preferences' extension repository for ``LOCAL_REPOSITORY``, added when missing."""
    repos = bpy.context.preferences.extensions.repos
    for repo in repos:
        if repo.use_custom_directory and Path(repo.custom_directory).resolve() == LOCAL_REPOSITORY.resolve():
            return repo
    result = bpy.ops.preferences.extension_repo_add(
        name=LOCAL_REPOSITORY_NAME,
        type="LOCAL",
        use_custom_directory=True,
        custom_directory=str(LOCAL_REPOSITORY),
    )
    if result != {"FINISHED"}:
        raise AddonError(f"could not add the local extension repository {LOCAL_REPOSITORY} ({result})")
    return repos[-1]


def _raise(error: Exception) -> None:
    raise error


def load_addon(log=print) -> str:
    """Make sure the Noisewright add-on is enabled; return its module name (``bl_ext.<repo>.noisewright``)."""
    module = _enabled_extension_module()
    if module is not None:
        log(f"using the installed extension {module}")
        return module
    LOCAL_REPOSITORY.mkdir(parents=True, exist_ok=True)
    _stage_checkout(log)
    module = f"bl_ext.{_local_repository().module}.{EXTENSION_ID}"
    if addon_utils.enable(module, default_set=True, handle_error=_raise) is None:
        raise AddonError(f"Blender did not enable {module}; see the messages above")
    log(f"enabled {module} from {LOCAL_REPOSITORY / EXTENSION_ID}")
    return module
