"""The numba this package needs, checked when it is imported, before anything compiles.

Blender installs the wheels of every extension into one shared folder, where the newest numba wins, and a
user may have installed another numba into Blender's Python; so noise_core runs on whatever numba it
finds from ``MIN_NUMBA`` upward. 0.62 is the minimum because numba 0.62.1 / llvmlite 0.45.1 are the last
releases with macOS x86-64 wheels (Intel Macs), and everything used here is the same from 0.62 to 0.68:
``numba.core.caching`` (locators, ``FunctionCache``, the index file), ``Dispatcher.overloads``,
``typeof_pyval`` and ``compile``, ``numba.threading_layer``, ``overload(prefer_literal=True,
jit_options=...)``. Below it, import fails with :class:`NumbaVersionError` naming the version found.
"""

from __future__ import annotations

import importlib.metadata
import os
import re

MIN_NUMBA = (0, 62)


class NumbaVersionError(ImportError):
    """The installed numba is older than ``MIN_NUMBA`` (or cannot be imported).

    Its ``name`` is ``"numba"``: Blender's ``addon_utils.enable`` (5.0.1) fails with a TypeError of its own
    on an ImportError from an extension whose ``name`` is None, hiding the message.
    """

    def __init__(self, message: str):
        super().__init__(message, name="numba")


def parse_version(version: str) -> tuple[int, int]:
    """``(major, minor)`` of a version string such as ``0.68.1``, ``0.63.0rc1`` or ``0.64.0.dev0+12.gabc``."""
    match = re.match(r"\s*v?(\d+)\.(\d+)", str(version))
    if match is None:
        raise NumbaVersionError(f"numba: cannot read the version {version!r}")
    return int(match.group(1)), int(match.group(2))


def required() -> str:
    return ".".join(map(str, MIN_NUMBA))


def check_version(version: str, location: str = "") -> None:
    """Raise :class:`NumbaVersionError` naming ``version`` (found at ``location``) if it is below ``MIN_NUMBA``."""
    if parse_version(version) < MIN_NUMBA:
        where = f" (at {location})" if location else ""
        raise NumbaVersionError(
            f"numba: version {version} is installed{where}, but noise_core needs numba {required()} or newer; "
            "in Blender another extension or a manual install may provide this older numba: update or remove it"
        )


def _metadata_version() -> str:
    try:
        return importlib.metadata.version("numba")
    except importlib.metadata.PackageNotFoundError:
        return "(version unknown)"


def check_numba() -> None:
    """Import numba and check its version (see the module docstring)."""
    try:
        import numba
    except ImportError as error:
        raise NumbaVersionError(
            f"numba: cannot import numba {_metadata_version()} ({error}); noise_core needs numba {required()} "
            "or newer with its llvmlite"
        ) from error
    check_version(numba.__version__, os.path.dirname(numba.__file__ or ""))
