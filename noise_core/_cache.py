"""Numba's on-disk cache, invalidated by a change to any module of this package.

Numba stamps a cached function with its own source file only. The kernels here
inline helpers from other modules (hashing, lattice, the noise families), so an
edited helper would leave a stale kernel in the cache. These locators stamp every
function of the package with one digest of all the package's modules instead, so
any edit (or an add-on update) recompiles. They only claim this package's files and
otherwise behave as Numba's own locators (``NUMBA_CACHE_DIR``, in-tree
``__pycache__``, then the user-wide cache folder).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from numba.core import caching

PACKAGE_DIR = Path(__file__).resolve().parent


def package_digest() -> bytes:
    """SHA-256 over the names and contents of every ``.py`` module of the package."""
    digest = hashlib.sha256()
    for path in sorted(PACKAGE_DIR.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.digest()


PACKAGE_DIGEST = package_digest()


class _WholePackageStamp:
    """Locator mixin: claim only this package's files and stamp them with the package digest."""

    def get_source_stamp(self) -> bytes:
        return PACKAGE_DIGEST

    @classmethod
    def from_function(cls, py_func, py_file):
        if Path(py_file).resolve().parent != PACKAGE_DIR:
            return None
        return super().from_function(py_func, py_file)


class PackageUserProvidedCacheLocator(_WholePackageStamp, caching.UserProvidedCacheLocator):
    """``NUMBA_CACHE_DIR``, when set."""


class PackageInTreeCacheLocator(_WholePackageStamp, caching.InTreeCacheLocator):
    """``__pycache__`` beside the modules, when writable."""


class PackageUserWideCacheLocator(_WholePackageStamp, caching.UserWideCacheLocator):
    """The user-wide cache folder, for read-only installs."""


LOCATORS = (PackageUserProvidedCacheLocator, PackageInTreeCacheLocator, PackageUserWideCacheLocator)


def install_locators() -> None:
    """Put the package locators first in Numba's list (once per copy of the package)."""
    classes = caching.CacheImpl._locator_classes
    for locator in reversed(LOCATORS):
        if locator not in classes:
            classes.insert(0, locator)
