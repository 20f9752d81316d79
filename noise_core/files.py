"""Files written whole or not at all.

Every file the project writes goes through :func:`replacing`: the content is written to a
temporary file in the target's own folder (same file system, so the final rename is atomic),
flushed to disk, and renamed over the target only when writing succeeded. On any failure
(a full disk, a file-size limit, an encoder error, an interrupt) the temporary file is
removed and an existing target is left exactly as it was.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def replacing(target: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path beside ``target`` to write to; on success it replaces ``target``.

    The temporary name keeps the target's suffix (``.name.XXXX.png``), so writers that choose
    the format by extension still see it. ``OSError`` if the folder does not exist or is not
    writable.
    """
    target = Path(target)
    folder = target.parent
    if not folder.is_dir():
        raise OSError(f"folder {str(folder)!r} does not exist")
    handle, name = tempfile.mkstemp(prefix=f".{target.stem}.", suffix=target.suffix, dir=folder)
    os.close(handle)
    temporary = Path(name)
    try:
        yield temporary
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
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def check_writable(folder: str) -> None:
    """Create ``folder`` if needed and write and remove a uniquely named file in it; ``OSError`` if that fails.

    Numba's own check (``tempfile.TemporaryFile``) retries for ever on Windows in a folder the user may not
    write (numba#8755, cpython#66305); a single exclusive ``open`` fails at once.
    """
    os.makedirs(folder, exist_ok=True)
    probe = os.path.join(folder, f".noise_core-write-test-{uuid.uuid4().hex}")
    os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    os.remove(probe)
