"""Numba's on-disk cache for this package: where it lives, and a stamp that follows edits to any module.

Numba stamps a cached function with its own source file only. The kernels here inline helpers from
other modules (hashing, lattice, the noise families), so an edited helper would leave a stale kernel in
the cache. Every function of the package is stamped with one digest of all the package's modules
instead, so any edit (or an add-on update) recompiles.

Where: the folder given to :func:`set_cache_dir` (the Blender add-on passes its extension user folder,
because the install folder is cleared on upgrade and read-only in system repositories), else Numba's own
order (``NUMBA_CACHE_DIR``, ``__pycache__`` beside the modules, the user-wide cache folder). The folder
is chosen for this package only: the process-wide ``NUMBA_CACHE_DIR`` stays untouched (other Blender
extensions share Numba in the same process). When no candidate can be written the functions run uncached
(compiled in every session) and one :class:`CacheWarning` says so; Numba alone would raise at compile
time ("cannot cache function ...: no locator available").

Numba attaches a cache to a function when it is decorated, before anyone could choose a folder, so the
package's functions are decorated without one and registered here (:func:`track`); their caches are
attached when the first kernel is built (:func:`activate`) or a folder is chosen (:func:`set_cache_dir`).
The caches are Numba's own ``FunctionCache`` with this package's locators (``numba.core.caching``
internals, the same from numba 0.62 to 0.68).
"""

from __future__ import annotations

import functools
import hashlib
import os
import threading
import warnings
from pathlib import Path

from numba.core import caching
from numba.core.dispatcher import Dispatcher
from numba.core.serialize import dumps

from .io.files import check_writable

PACKAGE_DIR = Path(__file__).resolve().parent


def package_digest() -> bytes:
    """SHA-256 over the paths (relative to the package) and contents of every ``.py`` module of the package and
    its subpackages."""
    digest = hashlib.sha256()
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        digest.update(path.relative_to(PACKAGE_DIR).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.digest()


PACKAGE_DIGEST = package_digest()


class CacheWarning(RuntimeWarning):
    """No folder for Numba's cache can be written: noise kernels compile again in every session."""


class _Settings:
    """The chosen folder (``None``: Numba's order) and whether the caches are attached yet."""

    directory: str | None = None
    active = False
    warned = False


_settings = _Settings()
_lock = threading.RLock()
_dispatchers: list = []
_writable: set[str] = set()
"""Folders found writable since the place was last chosen (one write test per folder, not per function)."""


@functools.cache
def _in_package(py_file: str) -> bool:
    return Path(py_file).resolve().is_relative_to(PACKAGE_DIR)


PACKAGE_NAME = __name__.rpartition(".")[0]
"""The package's import name: ``noise_core``, or ``bl_ext.<repository>.noisewright.noise_core`` in the add-on."""


class _WholePackageStamp:
    """Locator mixin: claim only this package's files, stamp them with the package digest, name their folder by
    the package's import name, test writing without ``tempfile``."""

    def get_source_stamp(self) -> bytes:
        return PACKAGE_DIGEST

    @classmethod
    def get_suitable_cache_subpath(cls, py_file: str) -> str:
        """The package's import name and the module's folder inside the package, instead of Numba's hash of the
        file's absolute path: copies of the package imported under the same name (an add-on staged or installed
        again elsewhere, a copied checkout) share one cache. Each file's name carries its module's name, and the
        package digest tells copies with other contents apart."""
        inside = Path(py_file).resolve().parent.relative_to(PACKAGE_DIR)
        return os.path.join(PACKAGE_NAME, *inside.parts)

    def ensure_cache_path(self) -> None:
        folder = self.get_cache_path()  # type: ignore[attr-defined]
        os.makedirs(folder, exist_ok=True)
        if folder not in _writable:
            check_writable(folder)
            _writable.add(folder)

    @classmethod
    def from_function(cls, py_func, py_file):
        if not _in_package(py_file):
            return None
        return super().from_function(py_func, py_file)  # type: ignore[misc]


class PackageChosenCacheLocator(_WholePackageStamp, caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
    """The folder given to :func:`set_cache_dir` (a subfolder named like Numba's for ``NUMBA_CACHE_DIR``)."""

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = os.path.join(str(_settings.directory), self.get_suitable_cache_subpath(py_file))

    def get_cache_path(self) -> str:
        return self._cache_path


class PackageUserProvidedCacheLocator(_WholePackageStamp, caching.UserProvidedCacheLocator):
    """``NUMBA_CACHE_DIR``, when set."""


class PackageInTreeCacheLocator(_WholePackageStamp, caching.InTreeCacheLocator):
    """``__pycache__`` beside the modules, when writable."""


class PackageUserWideCacheLocator(_WholePackageStamp, caching.UserWideCacheLocator):
    """The user-wide cache folder, for read-only installs."""


CHOSEN_LOCATORS = (PackageChosenCacheLocator,)
DEFAULT_LOCATORS = (PackageUserProvidedCacheLocator, PackageInTreeCacheLocator, PackageUserWideCacheLocator)


def locators() -> tuple[type, ...]:
    """The locators tried in order: only the chosen folder when there is one, else Numba's order."""
    return CHOSEN_LOCATORS if _settings.directory is not None else DEFAULT_LOCATORS


class _PackageCacheImpl(caching.CompileResultCacheImpl):
    @property
    def _locator_classes(self):  # read by CacheImpl.__init__
        return list(locators())


def _stable(value):
    """``value``, or for a compiled function its module and qualified name (see ``PackageFunctionCache``)."""
    if isinstance(value, Dispatcher):
        return ("compiled function", value.py_func.__module__, value.py_func.__qualname__)
    return value


class _KeyNamedCacheFile(caching.IndexDataCacheFile):
    """Numba's index and data files, each data file named by a digest of the package stamp and its index key
    instead of the first number the index does not use yet. Processes that share a folder (pytest's workers,
    Blender and the scripts it starts) and compile different signatures of one function at once would otherwise
    both write ``.1.nbc``, leaving an index entry that points at the other signature's machine code. The data
    file is written before the index entry that names it."""

    def save(self, key, data) -> None:
        name = (
            f"{self._index_name[: -len('.nbi')]}.{hashlib.sha256(self._source_stamp + dumps(key)).hexdigest()[:24]}.nbc"
        )
        self._save_data(name, data)
        overloads = self._load_index()
        if overloads.get(key) != name:
            overloads[key] = name
            self._save_index(overloads)


class PackageFunctionCache(caching.FunctionCache):
    """Numba's function cache, placed by this package's locators, its data files named by key."""

    _impl_class = _PackageCacheImpl

    def __init__(self, py_func) -> None:
        super().__init__(py_func)
        self._cache_file = _KeyNamedCacheFile(
            cache_path=self._cache_path,
            filename_base=self._impl.filename_base,
            source_stamp=self._impl.locator.get_source_stamp(),
        )

    def _index_key(self, sig, codegen):
        """Numba's key (signature, target, hashes of the bytecode and of the closure's contents), with the
        compiled functions in the closure (``fractal._build_block``'s samplers) named by module and qualified
        name: Numba pickles a compiled function with an id new in every process, so the key would never match
        in the next session. Their code is covered by the package stamp."""
        closure = self._py_func.__closure__
        contents = b"" if closure is None else dumps(tuple(_stable(cell.cell_contents) for cell in closure))
        return (
            sig,
            codegen.magic_tuple(),
            (hashlib.sha256(self._py_func.__code__.co_code).hexdigest(), hashlib.sha256(contents).hexdigest()),
        )


def _locate(py_func):
    """The first locator that claims ``py_func`` and can write its folder, or None."""
    for locator in locators():
        found = locator.from_function(py_func, str(Path(py_func.__code__.co_filename)))
        if found is not None:
            return found
    return None


def _attach(dispatcher) -> None:
    """Give ``dispatcher`` a cache in the current place, or none (with the one warning) if nowhere is writable."""
    if _locate(dispatcher.py_func) is not None:
        dispatcher._cache = PackageFunctionCache(dispatcher.py_func)
        return
    dispatcher._cache = caching.NullCache()
    if not _settings.warned:
        _settings.warned = True
        where = _settings.directory or "NUMBA_CACHE_DIR, __pycache__ and the user cache folder"
        warnings.warn(
            f"noise_core: cannot write Numba's cache ({where}); noise kernels run uncached and compile "
            "again in every session",
            CacheWarning,
            stacklevel=2,
        )


def track(dispatcher):
    """Register a function decorated without a cache; it gets one once the caches are active. Returns it."""
    with _lock:
        _dispatchers.append(dispatcher)
        if _settings.active:
            _attach(dispatcher)
    return dispatcher


def activate() -> None:
    """Attach the caches (in the chosen folder or Numba's order) if not done yet; before the first kernel."""
    with _lock:
        if not _settings.active:
            _settings.active = True
            for dispatcher in _dispatchers:
                _attach(dispatcher)


def set_cache_dir(directory: str | os.PathLike[str] | None) -> str | None:
    """Cache this package's compiled kernels in ``directory`` (created if needed); ``None``: Numba's order.

    Call it before the first kernel is compiled or loaded, so nothing is written elsewhere; later calls
    apply to kernels compiled after them. Returns the folder the caches use (a subfolder of ``directory``),
    or None if it cannot be written: kernels then run uncached, with one :class:`CacheWarning`.
    """
    if directory is not None and not isinstance(directory, (str, os.PathLike)):
        raise TypeError(f"directory: expected a path or None, got {type(directory).__name__}")
    with _lock:
        _settings.directory = None if directory is None else os.path.abspath(os.fspath(directory))
        _writable.clear()
        _settings.active = True
        _settings.warned = False
        for dispatcher in _dispatchers:
            _attach(dispatcher)
        return cache_location()


def cache_location() -> str | None:
    """The folder this package's kernels are cached in, or None when they run uncached."""
    activate()
    with _lock:
        for dispatcher in _dispatchers:
            if isinstance(dispatcher._cache, PackageFunctionCache):
                return dispatcher._cache.cache_path
    return None
