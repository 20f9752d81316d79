"""Files written whole or not at all.

Every file the project writes goes through :func:`replacing` (one file) or :func:`replacing_all` (a set of
files: an image sequence, UDIM tiles): the content is written to a temporary file in the target's own folder
(same file system, so the final rename is atomic), flushed to disk, and renamed over the target only when
writing succeeded. On any failure (a full disk, a file-size limit, an encoder error, an interrupt) the
temporary files are removed and existing targets are left exactly as they were.

A set is all or none: every target is checked before any is replaced (a folder in a target's place, two
targets with one name), each existing target is kept under a hidden backup name (a hard link, so the target
never goes missing) while the set is renamed into place, and when a rename fails the targets already replaced
get their old files back (new ones are removed). The backups are removed once the whole set is in place.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import os
import tempfile
import threading
import uuid
import weakref
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path


@contextlib.contextmanager
def replacing(target: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path beside ``target`` to write to; on success it replaces ``target``.

    The temporary name keeps the target's suffix (``.name.XXXX.png``), so writers that choose
    the format by extension still see it. ``OSError`` if the folder does not exist or is not
    writable.
    """
    with replacing_all([target]) as (temporary,):
        yield temporary


@contextlib.contextmanager
def replacing_all(targets: Iterable[str | os.PathLike[str]], argument: str = "out") -> Iterator[list[Path]]:
    """Yield one temporary path beside each of ``targets`` (in order) to write to; when the block ends without
    an error they replace the targets, all or none (see the module's docstring).

    ``ValueError`` naming ``argument`` when two targets are the same file; ``OSError`` when a folder does not
    exist or is not writable, a target is a folder, a temporary file is empty, or a rename fails (then every
    target is as it was before).
    """
    staged = Staged(targets, argument)
    try:
        yield staged.temporaries
        staged.commit()
    finally:
        staged.discard()


class ArgumentFileError(OSError):
    """A file the user named could not be read or written; the message starts with the user's argument that named
    it (``splat-out: ...``), so a command line prints it as it is."""


class Abandoned(Exception):
    """Raised by a staged writer's ``stop()`` once its write was abandoned (``Staged.write``)."""


class Staged:
    """``replacing_all`` in two parts, for work split between threads: the temporaries are made here and written
    (``write``, in any thread), then ``commit`` puts them in place, all or none, or ``discard`` removes them.

    ``write(index, writer, check)`` runs ``writer(temporary, stop)`` in a thread of its own while this thread
    calls ``check()`` every ``POLL`` seconds: when ``check`` raises (a cancel), the write is abandoned and the
    error raised here at once, so a writer that cannot be interrupted (an encoder in a library) never holds up a
    cancel; the writer may call ``stop()``, which raises ``Abandoned`` from then on, and it removes its temporary
    itself when it ends. The writer thread is not a daemon: a program that exits waits for it (an encoder, a
    second or so), and ``atexit`` then removes the temporaries of every set neither committed nor discarded.
    Once discarded, a set takes no more writes. ``ValueError`` and ``OSError`` as ``replacing_all``'s.
    """

    POLL = 0.02

    def __init__(self, targets: Iterable[str | os.PathLike[str]], argument: str = "out") -> None:
        self.targets = [Path(target) for target in targets]
        self.argument = argument
        """The user's argument the files come from, for messages."""
        seen: dict[str, Path] = {}
        for path in self.targets:
            key = os.path.normcase(os.path.abspath(path))
            if key in seen:
                raise ValueError(f"{argument}: two files of the set would both be written to {str(path)!r}")
            seen[key] = path
        self.temporaries: list[Path] = []
        self._running: set[Path] = set()
        """Temporaries whose writer threads run: they remove their files themselves when abandoned or discarded."""
        self._synced: set[Path] = set()
        self._discarded = False
        self._lock = threading.Lock()
        try:
            for path in self.targets:
                self.temporaries.append(_temporary_beside(path))
        except BaseException:
            self.discard()
            raise
        _OPEN.add(self)

    def write(
        self,
        index: int,
        writer: Callable[[Path, Callable[[], None]], object],
        check: Callable[[], object] | None = None,
    ) -> None:
        """``writer(temporary, stop)`` for the ``index``-th file, then the file flushed to disk (see the class):
        here when ``check`` is None. ``OSError`` once the set was discarded."""
        temporary = self.temporaries[index]
        if check is None:
            self._refuse_if_discarded()
            writer(temporary, _never)
            _flush(temporary)
            self._synced.add(temporary)
            return
        check()
        self._refuse_if_discarded()
        done, abandoned = threading.Event(), threading.Event()
        failure: list[BaseException] = []

        def stop() -> None:
            if abandoned.is_set() or self._discarded:
                raise Abandoned

        def run() -> None:
            try:
                writer(temporary, stop)
                _flush(temporary)
            except BaseException as error:  # handed to the waiting thread, which raises it
                failure.append(error)
            finally:
                with self._lock:  # the file goes before anyone hears that the writer ended
                    try:
                        if abandoned.is_set() or self._discarded:
                            temporary.unlink(missing_ok=True)
                    finally:
                        self._running.discard(temporary)
                        done.set()

        with self._lock:
            self._running.add(temporary)
        threading.Thread(target=run, name="noise_core-write").start()
        try:
            while not done.wait(self.POLL):
                check()
        except BaseException:
            abandoned.set()  # the writer, if it still runs, removes its file when it ends
            raise
        if failure:
            raise failure[0]
        self._synced.add(temporary)

    def _refuse_if_discarded(self) -> None:
        if self._discarded:
            raise OSError(f"{self.argument}: the files were discarded; nothing more is written")

    def commit(self) -> None:
        """Replace the targets by the written temporaries, all or none (``OSError`` as ``replacing_all``'s)."""
        for path, temporary in zip(self.targets, self.temporaries, strict=True):
            _check_ready(path, temporary, flushed=temporary in self._synced)
        _rename_all(self.targets, self.temporaries)
        _OPEN.discard(self)

    def discard(self) -> None:
        """Remove the temporaries still on disk and take no more writes; those whose writers still run are removed
        by the writers when they end. ``OSError`` naming every temporary that could not be removed (after trying
        them all)."""
        with self._lock:
            self._discarded = True
            left = [temporary for temporary in self.temporaries if temporary not in self._running]
        _OPEN.discard(self)
        failed = []
        for temporary in left:
            try:
                temporary.unlink(missing_ok=True)
            except OSError as error:
                failed.append(f"{str(temporary)!r}: {error.strerror or error}")
        if failed:
            raise OSError(f"{self.argument}: could not remove the temporary files " + "; ".join(failed))

    def writing(self) -> bool:
        """Whether a writer still runs (an abandoned one: its temporary not yet removed)."""
        with self._lock:
            return bool(self._running)


_OPEN: weakref.WeakSet[Staged] = weakref.WeakSet()
"""Sets neither committed nor discarded: ``atexit`` discards them."""


def _discard_open() -> None:
    for staged in list(_OPEN):
        staged.discard()


atexit.register(_discard_open)


def _never() -> None:
    """``stop`` of a write that cannot be abandoned."""


def _flush(temporary: Path) -> None:
    """Flush ``temporary`` to disk (before it may be renamed over its target)."""
    with open(temporary, "rb+") as written:
        os.fsync(written.fileno())


def _temporary_beside(target: Path) -> Path:
    folder = target.parent
    if not folder.is_dir():
        raise OSError(f"folder {str(folder)!r} does not exist")
    handle, name = tempfile.mkstemp(prefix=f".{target.stem}.", suffix=target.suffix, dir=folder)
    os.close(handle)
    return Path(name)


def _check_ready(target: Path, temporary: Path, flushed: bool = False) -> None:
    """``OSError`` unless ``temporary`` holds content that can replace ``target``; flush it (unless ``flushed``
    already) and give it the target's permission bits (the umask's for a new file)."""
    if not temporary.is_file() or temporary.stat().st_size == 0:
        raise OSError(f"nothing was written for {str(target)!r}")
    if target.is_dir():
        raise IsADirectoryError(errno.EISDIR, "a folder is in the way; a file cannot replace it", str(target))
    if not flushed:
        _flush(temporary)
    if target.exists():
        os.chmod(temporary, target.stat().st_mode & 0o7777)  # keep the target's permission bits
    else:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)


def _backup(target: Path) -> Path | None:
    """A hidden second name for an existing ``target`` (None if there is none): a hard link where the file
    system has them, else the file moved aside."""
    if not (target.exists() or target.is_symlink()):
        return None
    backup = target.with_name(f".{target.name}.{uuid.uuid4().hex[:12]}.old")
    try:
        os.link(target, backup, follow_symlinks=False)
    except (OSError, NotImplementedError):
        os.replace(target, backup)
    return backup


def _rename_all(targets: list[Path], temporaries: list[Path]) -> None:
    """Rename each temporary over its target; on a failure put back what was replaced, then re-raise."""
    done: list[tuple[Path, Path | None]] = []
    try:
        for target, temporary in zip(targets, temporaries, strict=True):
            done.append((target, _backup(target)))
            os.replace(temporary, target)
    except BaseException as error:
        for target, backup in reversed(done):
            try:
                if backup is None:
                    target.unlink(missing_ok=True)
                else:
                    os.replace(backup, target)
                    backup.unlink(missing_ok=True)  # rename does nothing when both names are links of one file
            except OSError as undo_error:  # the backup stays on disk; the first error is the one raised
                error.add_note(f"could not put back {str(target)!r} (its old file is kept as {str(backup)!r}): "
                               f"{undo_error}")  # fmt: skip
        raise
    for _, backup in done:
        if backup is not None:
            backup.unlink(missing_ok=True)


def check_writable(folder: str) -> None:
    """Create ``folder`` if needed and write and remove a uniquely named file in it; ``OSError`` if that fails.

    Numba's own check (``tempfile.TemporaryFile``) retries for ever on Windows in a folder the user may not
    write (numba#8755, cpython#66305); a single exclusive ``open`` fails at once.
    """
    os.makedirs(folder, exist_ok=True)
    probe = os.path.join(folder, f".noise_core-write-test-{uuid.uuid4().hex}")
    os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    os.remove(probe)
