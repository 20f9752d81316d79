"""Files are written whole or not at all: ``noise_core.io.files.replacing`` and the CLI under write faults."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import noise_core as nc
from noise_core.cli import main
from noise_core.io.files import Staged, check_writable, replacing
from noise_core.io.images import read_image

ROOT = Path(__file__).resolve().parent.parent


def test_replacing_writes_a_new_file_with_default_permissions(tmp_path: Path) -> None:
    target = tmp_path / "new.png"
    with replacing(target) as temporary:
        assert temporary.parent == tmp_path and temporary.suffix == ".png" and temporary != target
        temporary.write_bytes(b"content")
        assert not target.exists()
    assert target.read_bytes() == b"content"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.png"]
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask


def test_replacing_replaces_an_existing_file_and_keeps_its_permissions(tmp_path: Path) -> None:
    target = tmp_path / "old.tif"
    target.write_bytes(b"old")
    target.chmod(0o640)
    with replacing(target) as temporary:
        temporary.write_bytes(b"new")
        assert target.read_bytes() == b"old"
    assert target.read_bytes() == b"new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["old.tif"]


@pytest.mark.parametrize("failure", [OSError("disk full"), KeyboardInterrupt(), ValueError("encoder")])
def test_replacing_keeps_the_target_and_removes_the_temporary_on_failure(
    tmp_path: Path, failure: BaseException
) -> None:
    target = tmp_path / "kept.exr"
    target.write_bytes(b"good image")
    with pytest.raises(type(failure)), replacing(target) as temporary:
        temporary.write_bytes(b"half")
        raise failure
    assert target.read_bytes() == b"good image"
    assert [p.name for p in tmp_path.iterdir()] == ["kept.exr"]


def test_replacing_rejects_an_empty_result(tmp_path: Path) -> None:
    target = tmp_path / "empty.png"
    with pytest.raises(OSError, match="nothing was written"), replacing(target):
        pass
    assert list(tmp_path.iterdir()) == []


def test_replacing_needs_an_existing_writable_folder(tmp_path: Path) -> None:
    with pytest.raises(OSError, match="does not exist"), replacing(tmp_path / "missing" / "x.png"):
        pass
    with pytest.raises(PermissionError), replacing(Path("/sys/noisewright-test.png")):
        pass


def _folder_state(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in folder.iterdir()}


@pytest.mark.parametrize("suffix", [".png", ".tif", ".exr"])
def test_cli_under_a_file_size_limit_leaves_no_partial_file(tmp_path: Path, suffix: str) -> None:
    """``ulimit -f 64`` (64 KiB): the write fails with EFBIG (Python ignores SIGXFSZ), the CLI exits 2 with
    a message naming the file, no partial file remains and an existing good image is kept byte for byte."""
    nc.evaluate_grid(nc.NoiseSpec(), (8, 8))  # the kernel is compiled and cached before the limit applies
    target = tmp_path / f"noise{suffix}"
    assert main(["bake", "--size", "16", "--out", str(target)]) == 0
    before = _folder_state(tmp_path)
    command = f'ulimit -f 64 && exec "{sys.executable}" -m noise_core bake --size 1024 --out "{target}"'
    done = subprocess.run(["bash", "-c", command], capture_output=True, text=True, check=False, cwd=ROOT)
    assert done.returncode == 2, done.stderr
    # the writer's own words: "[Errno 27] File too large", or tifffile's "1048576 requested and 16316 written"
    assert f"out: cannot write '{target}'" in done.stderr
    assert "Traceback" not in done.stderr
    assert _folder_state(tmp_path) == before
    assert read_image(target).shape == (16, 16)


def test_cli_into_an_unwritable_folder_keeps_the_existing_file(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["bake", "--size", "8", "--out", "/sys/noisewright-test.png"]) == 2
    assert "out: cannot write '/sys/noisewright-test.png'" in capsys.readouterr().err
    if os.geteuid() == 0:
        pytest.skip("root writes into folders without write permission; /sys covered the unwritable case")
    target = tmp_path / "noise.png"
    assert main(["bake", "--size", "8", "--out", str(target)]) == 0
    before = _folder_state(tmp_path)
    tmp_path.chmod(0o500)
    try:
        assert main(["bake", "--size", "8", "--seed", "3", "--out", str(target)]) == 2
        assert "Permission denied" in capsys.readouterr().err
    finally:
        tmp_path.chmod(0o700)
    assert _folder_state(tmp_path) == before


@pytest.mark.parametrize(("suffix", "module"), [(".png", "PIL"), (".tif", "tifffile"), (".exr", "OpenEXR")])
def test_cli_without_the_images_extra_says_what_to_install(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch, suffix: str, module: str
) -> None:
    for name in [name for name in sys.modules if name == module or name.startswith(module + ".")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, module, None)  # import raises ModuleNotFoundError, as when not installed
    target = tmp_path / f"x{suffix}"
    assert main(["bake", "--size", "8", "--out", str(target)]) == 2
    error = capsys.readouterr().err
    assert f"error: --out: writing {suffix} files needs the optional package" in error
    assert "pip install 'noisewright[images]'" in error and "Traceback" not in error
    assert list(tmp_path.iterdir()) == []


def test_check_writable_creates_the_folder_and_leaves_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "new" / "deeper"
    check_writable(str(folder))
    assert folder.is_dir() and list(folder.iterdir()) == []


def test_check_writable_fails_at_once_where_nothing_can_be_written() -> None:
    with pytest.raises(OSError):
        check_writable("/sys")


def test_staged_files_written_in_another_thread_land_on_commit(tmp_path: Path) -> None:
    (tmp_path / "b.png").write_bytes(b"old b")
    staged = Staged([tmp_path / "a.png", tmp_path / "b.png"], "filepath")
    writer = threading.Thread(target=lambda: [staged.write(i, lambda p, _stop, i=i: p.write_bytes(b"new %d" % i))
                                              for i in range(2)])  # fmt: skip
    writer.start()
    writer.join()
    assert (tmp_path / "b.png").read_bytes() == b"old b"  # nothing replaced before the commit
    staged.commit()
    staged.discard()
    assert _folder_state(tmp_path) == {"a.png": b"new 0", "b.png": b"new 1"}


def test_staged_files_discarded_leave_the_folder_as_it_was(tmp_path: Path) -> None:
    (tmp_path / "a.exr").write_bytes(b"old")
    staged = Staged([tmp_path / "a.exr", tmp_path / "c.exr"])
    staged.write(0, lambda p, _stop: p.write_bytes(b"new"), check=lambda: None)
    staged.discard()
    assert _folder_state(tmp_path) == {"a.exr": b"old"}
    with pytest.raises(ValueError, match=r"^filepath: two files of the set"):
        Staged([tmp_path / "x.png", tmp_path / "." / "x.png"], "filepath")
    assert _folder_state(tmp_path) == {"a.exr": b"old"}


class _Stop(Exception):
    pass


def test_a_cancel_leaves_a_writer_that_cannot_stop_and_it_removes_its_file(tmp_path: Path) -> None:
    """``check`` raising while the writer runs: the error comes at once, the writer finishes on its own and
    removes its temporary; ``discard`` meanwhile leaves that one to it."""
    release, started = threading.Event(), threading.Event()

    def slow_writer(path: Path, _stop) -> None:  # an encoder that cannot be interrupted
        started.set()
        release.wait(10)
        path.write_bytes(b"late")

    checks = iter([None, None])

    def check() -> None:
        if next(checks, "cancel") == "cancel":
            assert started.wait(10)  # the cancel comes while the writer runs
            raise _Stop

    staged = Staged([tmp_path / "slow.png"])
    with pytest.raises(_Stop):
        staged.write(0, slow_writer, check)
    assert staged.writing()
    staged.discard()
    release.set()
    for _ in range(500):
        if not staged.writing():
            break
        threading.Event().wait(0.01)
    assert not staged.writing() and _folder_state(tmp_path) == {}


def test_a_failing_writer_raises_in_the_waiting_thread(tmp_path: Path) -> None:
    staged = Staged([tmp_path / "x.png"])

    def broken(path: Path, _stop) -> None:
        path.write_bytes(b"half")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        staged.write(0, broken, check=lambda: None)
    staged.discard()
    assert _folder_state(tmp_path) == {}


def test_an_abandoned_writer_that_asks_stop_ends_early_and_a_discarded_set_takes_no_more_writes(tmp_path: Path) -> None:
    ended = threading.Event()
    bands = []

    def banded_writer(path: Path, stop) -> None:  # an encoder that looks at stop() between bands of rows
        try:
            with open(path, "wb") as file:
                for band in range(1000):
                    threading.Event().wait(0.005)
                    stop()
                    file.write(b"band")
                    bands.append(band)
        finally:
            ended.set()

    checks = iter([None, None])  # the check before the writer starts, then one poll; then a cancel

    def check() -> None:
        if next(checks, "cancel") == "cancel":
            raise _Stop

    staged = Staged([tmp_path / "a.png", tmp_path / "b.png"])
    with pytest.raises(_Stop):
        staged.write(0, banded_writer, check)
    assert ended.wait(10) and len(bands) < 1000  # stop() raised Abandoned in the writer
    for _ in range(500):
        if not staged.writing():
            break
        threading.Event().wait(0.01)
    staged.discard()
    assert _folder_state(tmp_path) == {}
    with pytest.raises(OSError, match="discarded"):
        staged.write(1, lambda p, _stop: p.write_bytes(b"late"), check=lambda: None)
    with pytest.raises(OSError, match="discarded"):
        staged.write(1, lambda p, _stop: p.write_bytes(b"late"))
    assert _folder_state(tmp_path) == {}


def test_a_set_discarded_while_its_writer_runs_is_removed_by_the_writer(tmp_path: Path) -> None:
    started, release = threading.Event(), threading.Event()
    staged = Staged([tmp_path / "x.exr"])

    def writer(path: Path, _stop) -> None:
        started.set()
        release.wait(10)
        path.write_bytes(b"written after the discard")

    thread = threading.Thread(target=lambda: staged.write(0, writer, check=lambda: None))
    thread.start()
    assert started.wait(10)
    staged.discard()  # the writer still runs: its file is left to it
    release.set()
    thread.join(10)
    assert not staged.writing() and _folder_state(tmp_path) == {}


def test_sets_neither_committed_nor_discarded_are_discarded_at_exit(tmp_path: Path) -> None:
    code = (
        "import sys; from noise_core.io.files import Staged; "
        "s = Staged([sys.argv[1] + '/left.png']); s.write(0, lambda p, stop: p.write_bytes(b'x'), lambda: None)"
    )
    subprocess.run([sys.executable, "-c", code, str(tmp_path)], check=True, cwd=ROOT, timeout=120)
    assert _folder_state(tmp_path) == {}
