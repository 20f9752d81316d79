"""Files written whole or not at all.

Every file the project writes goes through :func:`replacing`: the content is written to a
temporary file in the target's own folder (same file system, so the final rename is atomic),
flushed to disk, and renamed over the target only when writing succeeded. On any failure
(a full disk, a file-size limit, an encoder error, an interrupt) the temporary file is
removed and an existing target is left exactly as it was. A set of files that belong together
(tiles, an image and its sidecar) goes through :func:`replacing_all`: all are renamed or none.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import uuid
from collections.abc import Iterator, Sequence
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
def replacing_all(targets: Sequence[str | os.PathLike[str]]) -> Iterator[list[Path]]:
    """Yield one temporary path per target (as :func:`replacing`); they replace the targets only when the
    block ends without error and every one was written, so a set of files (tiles, an image and its sidecar)
    is written all or none: on a failure no temporary file remains and every existing target is kept.

    Every file is checked (non-empty) and flushed to disk before the first rename; the renames themselves
    (``os.replace`` in one folder each) then run one after the other. ``ValueError`` for a target named twice.
    """
    paths = [Path(target) for target in targets]
    if len({path.resolve() for path in paths}) != len(paths):
        raise ValueError("targets: the same file is named twice")
    temporaries: list[Path] = []
    try:
        for target in paths:
            if not target.parent.is_dir():
                raise OSError(f"folder {str(target.parent)!r} does not exist")
            handle, name = tempfile.mkstemp(prefix=f".{target.stem}.", suffix=target.suffix, dir=target.parent)
            os.close(handle)
            temporaries.append(Path(name))
        yield list(temporaries)
        for temporary, target in zip(temporaries, paths, strict=True):
            _finish(temporary, target)
        for temporary, target in zip(temporaries, paths, strict=True):
            os.replace(temporary, target)
    except BaseException:
        for temporary in temporaries:
            temporary.unlink(missing_ok=True)
        raise


def _finish(temporary: Path, target: Path) -> None:
    """Check ``temporary`` was written, flush it to disk and give it ``target``'s permission bits (or the
    umask's for a new file)."""
    if not temporary.is_file() or temporary.stat().st_size == 0:
        raise OSError(f"nothing was written for {str(target)!r}")
    with open(temporary, "rb+") as written:
        os.fsync(written.fileno())
    if target.exists():
        os.chmod(temporary, target.stat().st_mode & 0o7777)  # keep the target's permission bits
    else:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)


def check_writable(folder: str) -> None:
    """Create ``folder`` if needed and write and remove a uniquely named file in it; ``OSError`` if that fails.

    Numba's own check (``tempfile.TemporaryFile``) retries for ever on Windows in a folder the user may not
    write (numba#8755, cpython#66305); a single exclusive ``open`` fails at once.
    """
    os.makedirs(folder, exist_ok=True)
    probe = os.path.join(folder, f".noise_core-write-test-{uuid.uuid4().hex}")
    os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    os.remove(probe)
