"""Sets of files written all or none (``files.replacing_all``): image sequences, UDIM tiles, the CLI's ``--frames``.

A failure at any point (a folder where a file goes, a rename that fails half-way through the set) leaves no
file of the new set and every existing file byte for byte as it was.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from noise_core import loops, uv_bake
from noise_core.cli import main
from noise_core.io import files


def _state(folder: Path) -> dict[str, bytes | None]:
    return {p.name: (p.read_bytes() if p.is_file() else None) for p in folder.iterdir()}


def _write_set(tmp_path: Path, count: int) -> list[Path]:
    targets = [tmp_path / f"f{i}.bin" for i in range(count)]
    with files.replacing_all(targets) as temporaries:
        for i, temporary in enumerate(temporaries):
            temporary.write_bytes(b"new %d" % i)
    return targets


@pytest.mark.parametrize("position", [0, 2, 4])
def test_a_folder_in_a_targets_place_replaces_nothing(tmp_path: Path, position: int) -> None:
    for i in range(5):
        if i != position:
            (tmp_path / f"f{i}.bin").write_bytes(b"old %d" % i)
    (tmp_path / f"f{position}.bin").mkdir()
    before = _state(tmp_path)
    with pytest.raises(IsADirectoryError, match="a folder is in the way"):
        _write_set(tmp_path, 5)
    assert _state(tmp_path) == before


@pytest.mark.parametrize("failing", [0, 1, 3, 4])
@pytest.mark.parametrize("existing", [(), (0, 1, 2, 3, 4), (1, 3)])
def test_a_rename_failing_half_way_puts_back_the_replaced_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: int, existing: tuple[int, ...]
) -> None:
    for i in existing:
        (tmp_path / f"f{i}.bin").write_bytes(b"old %d" % i)
    before = _state(tmp_path)
    real_replace = os.replace
    calls = []

    def replace(source, target):
        if Path(target).name.startswith("f"):  # renames into place (not the undo's)
            calls.append(target)
            if len(calls) == failing + 1:
                raise PermissionError("injected")
        return real_replace(source, target)

    monkeypatch.setattr(files.os, "replace", replace)
    with pytest.raises(PermissionError, match="injected"):
        _write_set(tmp_path, 5)
    assert _state(tmp_path) == before
    monkeypatch.setattr(files.os, "replace", real_replace)
    _write_set(tmp_path, 5)
    assert _state(tmp_path) == {f"f{i}.bin": b"new %d" % i for i in range(5)}


def test_two_targets_with_one_name_are_refused(tmp_path: Path) -> None:
    with (
        pytest.raises(ValueError, match=r"^tiles: two files of the set"),
        files.replacing_all([tmp_path / "a.png", tmp_path / "b.png", tmp_path / "." / "a.png"], "tiles"),
    ):
        pytest.fail("the block must not run")
    assert list(tmp_path.iterdir()) == []


def _frame(frame: int) -> np.ndarray:
    return np.full((4, 4), frame / 8, dtype=np.float32)


def test_write_sequence_with_a_folder_in_the_way_writes_no_frame(tmp_path: Path) -> None:
    (tmp_path / "n.0003.png").write_bytes(b"old")
    (tmp_path / "n.0001.png").mkdir()
    before = _state(tmp_path)
    with pytest.raises(IsADirectoryError):
        loops.write_sequence(tmp_path / "n.png", 4, _frame)
    assert _state(tmp_path) == before


def test_write_tiles_with_a_folder_in_the_way_writes_no_tile(tmp_path: Path) -> None:
    (tmp_path / "n.1001.png").write_bytes(b"old")
    (tmp_path / "n.1002.png").mkdir()
    before = _state(tmp_path)
    baked = {tile: np.zeros((4, 4), np.float32) for tile in (1001, 1002, 1003)}
    with pytest.raises(IsADirectoryError):
        uv_bake.write_tiles(tmp_path / "n.<UDIM>.png", baked)
    assert _state(tmp_path) == before


def test_cli_frames_with_a_folder_in_the_way_writes_no_frame(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    (tmp_path / "n.0002.png").write_bytes(b"old")
    (tmp_path / "n.0001.png").mkdir()
    before = _state(tmp_path)
    out = tmp_path / "n.png"
    assert main(["bake", "--out", str(out), "--size", "8", "--frames", "3", "--kind", "perlin"]) == 2
    assert "a folder is in the way" in capsys.readouterr().err
    assert _state(tmp_path) == before
