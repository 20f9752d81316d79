"""The seam between the add-on and the library: the checkout's ``addon/noise_core`` link, and the stage
(``scripts/build_extension.stage_extension``) that turns it into real files for the zip."""

from __future__ import annotations

import filecmp
import os
import shutil
from pathlib import Path

import pytest
from build_extension import EXTENSION_ID, ROOT, stage_extension, staged_copy_is_current


def _files(root: Path) -> set[str]:
    return {
        path.relative_to(root).as_posix()
        for path in root.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix not in (".pyc", ".nbi", ".nbc")
    }


def test_the_checkout_links_the_addon_to_the_library() -> None:
    link = ROOT / "addon" / "noise_core"
    assert link.is_symlink(), "addon/noise_core must be a link to ../noise_core (git: mode 120000)"
    assert os.readlink(link) == "../noise_core"  # relative: the checkout can live anywhere
    assert link.resolve() == (ROOT / "noise_core").resolve()
    assert (link / "__init__.py").is_file()


def test_the_stage_holds_real_files_only(tmp_path: Path) -> None:
    staged = stage_extension(tmp_path)
    assert not [path for path in staged.rglob("*") if path.is_symlink()]
    assert _files(staged / "noise_core") == _files(ROOT / "noise_core")
    for name in _files(ROOT / "noise_core"):
        assert filecmp.cmp(staged / "noise_core" / name, ROOT / "noise_core" / name, shallow=False), name
    addon = {name for name in _files(ROOT / "addon") if not name.startswith("noise_core/")}
    assert addon <= _files(staged) and "blender_manifest.toml" in _files(staged)
    assert staged_copy_is_current(staged)
    (staged / "noise_core" / "hashing.py").write_text("# changed\n")
    assert not staged_copy_is_current(staged)


def test_a_checkout_without_links_stages_the_same(tmp_path: Path) -> None:
    """A Windows checkout without symlink support has ``addon/noise_core`` as a text file holding the link's
    target: the stage skips it and copies ``noise_core/`` as from a checkout with the link."""
    checkout = tmp_path / "checkout"
    shutil.copytree(ROOT / "addon", checkout / "addon", symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
    (checkout / "addon" / "noise_core").unlink()
    (checkout / "addon" / "noise_core").write_text("../noise_core")
    shutil.copytree(ROOT / "noise_core", checkout / "noise_core", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(ROOT / "blender_manifest.toml", checkout / "blender_manifest.toml")
    from_text = stage_extension(tmp_path / "a", checkout)
    from_link = stage_extension(tmp_path / "b")
    assert from_text.name == from_link.name == EXTENSION_ID
    assert _files(from_text) == _files(from_link)
    assert (from_text / "noise_core").is_dir() and not (from_text / "noise_core").is_symlink()


@pytest.mark.parametrize("module", ["api", "displace", "terrain", "erode", "bake", "bake_uv"])
def test_the_addon_imports_the_library_relatively(module: str) -> None:
    """The add-on reaches the library only as ``.noise_core`` (the link in the checkout, the copy in the zip)."""
    text = (ROOT / "addon" / f"{module}.py").read_text(encoding="utf-8")
    assert "import noise_core" not in text and "from noise_core" not in text
