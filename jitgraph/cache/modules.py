"""Generated Python/Numba modules kept in the compiledir.

A :class:`CachedModule` writes a kernel's generated source as ``mod.py`` in its entry (published
atomically), with its ``info.json`` (:mod:`jitgraph.cache.metadata`: what it is, and each
function's compile time). Each compiled function is stored beside it as a **native object**
(``native-<name>.o`` with its ``native-<name>.json``, in the same schema: checksum, entry
symbol, imported symbols; see :mod:`jitgraph.backend_cpu.native`), written to a temporary file
and renamed into place. A
new process loads those objects without importing ``mod.py`` or Numba. A function that has no
native object (its description says why) is compiled with Numba's own on-disk cache
(``cache=True``) instead: Numba writes its files next to ``mod.py`` and checks the source hash,
the signature and the CPU target when it loads them. Each function is compiled under the
module's lock, so N processes needing the same kernel compile it once and the others load it. A
corrupt artifact is reported once, deleted and rebuilt; it never crashes the program. Nothing is
loaded that another user could have written (:mod:`jitgraph.cache.trust`); ``mod.py`` is checked
against the generated source, and the generated source, not the file, is what runs.

:func:`open_module` gives None when the compiledir cannot be written (the caller compiles in
memory; :func:`jitgraph.cache.store.cannot_write` reports it once).
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import stat
import sys
import time
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

from jitgraph.cache import metadata, store, trust
from jitgraph.cache.keys import CacheKey
from jitgraph.cache.locking import ModuleLock
from jitgraph.cache.metadata import EntryInfo, UnknownFormat
from jitgraph.config.paths import write_atomic

SOURCE_FILE = "mod.py"


def _log() -> Any:
    import logging  # ~3 ms: only when there is something to report

    return logging.getLogger("jitgraph.cache")


def open_module(key: CacheKey, source: str, info: EntryInfo | dict[str, Any],
                root: Path | None = None) -> "CachedModule | None":
    """The :class:`CachedModule` of ``key``, or None when its entry is not there and cannot be
    written (reported once: the caller compiles in memory)."""
    try:
        return CachedModule(key, source, info, root)
    except OSError as exc:
        store.cannot_write(exc, root or store.compiledir())
        return None


class CachedModule:
    """The on-disk home of one generated module."""

    def __init__(self, key: CacheKey, source: str, info: EntryInfo | dict[str, Any],
                 root: Path | None = None) -> None:
        """``info``: what the module is (:func:`jitgraph.cache.metadata.cpu_kernel`; a plain
        dict is read as a schema-1 ``info.json``)."""
        self.key = key
        self.root = root or store.compiledir()
        if not isinstance(info, EntryInfo):
            info = metadata.read(dict(info), metadata.ENTRY)
        self.info = info
        self._compile_seconds: dict[str, float] = {}  # of this process, for write_native
        self.source = source
        t0 = time.perf_counter()
        entry = store.lookup(key, self.root)
        if entry is not None and not _has_source(entry, source):
            entry = None
        if entry is None:
            if not store.writable():
                raise PermissionError(f"the compiledir {self.root} cannot be written")
            _explain_miss(key, self.root)
            entry = store.publish(key, {SOURCE_FILE: source}, info, self.root)
            _note_published(self.root, entry)
        entry.touch()
        self.entry = entry
        self._module: ModuleType | None = None
        store.STATS.load_seconds += time.perf_counter() - t0

    @property
    def module(self) -> ModuleType:
        """``mod.py``, imported the first time it is needed (only to compile)."""
        if self._module is None:
            self._module = _import(self.entry.file(SOURCE_FILE),
                                   f"jitgraph_cached_{self.key.digest()[:24]}", self.source)
        return self._module

    @module.setter
    def module(self, value: ModuleType) -> None:
        self._module = value

    @property
    def writable(self) -> bool:
        """Whether what is compiled now is stored (False once the compiledir failed a write)."""
        return store.writable()

    def lock(self, name: str) -> contextlib.AbstractContextManager[Any]:
        """The lock under which ``name`` is compiled (one compile across processes); none when
        the compiledir cannot be written (nothing compiled is then stored)."""
        if not store.writable():
            return contextlib.nullcontext()
        return _BestEffortLock(ModuleLock(store.lock_dir(self.root),
                                          f"{self.entry.path.name}-{name}"))

    def read_native(self, name: str) -> tuple[dict[str, Any], bytes | None] | None:
        """The stored description and object of ``name``, or None if there is none yet.

        A description without an object records that ``name`` has no native object. Anything
        unreadable is reported once and deleted (the caller rebuilds it); the caller checks the
        object against its description (``NativeObject.from_meta``) and calls
        :meth:`drop_native` when they disagree."""
        try:
            data = self.entry.read(f"native-{name}.json")
        except FileNotFoundError:
            return None
        except OSError as exc:
            self.drop_native(name, exc)
            return None
        try:
            info = metadata.parse(data, metadata.FUNCTION)
            if info.kind == metadata.NUMBA_KERNEL:
                return dict(info.details), None
            code = self.entry.read(f"native-{name}.o")
        except (OSError, UnknownFormat) as exc:
            self.drop_native(name, exc)
            return None
        return dict(info.details), code

    def write_native(self, name: str, meta: dict[str, Any], code: bytes | None) -> None:
        """Publish ``name``'s object (if any) and then its description (``meta``: the object's,
        or ``{"native": False, "why": ...}``), each atomically."""
        if not store.writable():
            return
        mode = trust.file_mode()
        try:
            if code is not None:
                write_atomic(self.entry.file(f"native-{name}.o"), code, mode)
            info = metadata.native_function(name, meta)
            if name in self._compile_seconds:
                info = info.with_compile_time(name, self._compile_seconds[name])
            write_atomic(self.entry.file(f"native-{name}.json"), info.to_json(), mode)
        except OSError as exc:
            store.cannot_write(exc, self.entry.path)

    def drop_native(self, name: str, exc: BaseException) -> None:
        """Report the unusable native object of ``name`` once and delete it."""
        why = str(exc) if isinstance(exc, trust.UntrustedFile) else \
            f"it is unreadable ({type(exc).__name__}: {exc})"
        warnings.warn(f"jitgraph cache: the native object of {name} in {self.entry.path} "
                      f"cannot be used: {why}; it is rebuilt", store.CacheWarning, stacklevel=3)
        store.STATS.rebuilt += 1
        for suffix in (".json", ".o"):
            self.entry.file(f"native-{name}{suffix}").unlink(missing_ok=True)

    def record(self, name: str, hit: bool, seconds: float) -> None:
        """Count a load (hit) or a compile (miss) of ``name``."""
        if hit:
            store.STATS.hits += 1
            store.STATS.load_seconds += seconds
            self.entry.record_hit()
        else:
            store.STATS.misses += 1
            store.STATS.compile_seconds += seconds
            self._compile_seconds[name] = seconds
            _record_compile_time(self.entry, name, seconds, self.info)

    def compile(self, name: str, build: Callable[[Any], Any]) -> Any:
        """``build(function)`` (e.g. ``numba.njit(sig, cache=True)``) under this module's
        lock, recovering from unreadable cache files by rebuilding them."""
        with self.lock(name):
            return self.compile_locked(name, build)

    def compile_locked(self, name: str, build: Callable[[Any], Any]) -> Any:
        """:meth:`compile` for a caller already holding ``self.lock(name)`` (the lock is not
        re-entrant: taking it again in the same process would wait for itself)."""
        fn = getattr(self.module, name)
        _refuse_untrusted_artifacts(self.entry.path, name)
        t0 = time.perf_counter()
        try:
            result = build(fn)
        except Exception as exc:
            if not _drop_artifacts(self.entry.path, name):
                raise
            warnings.warn(f"jitgraph cache: the compiled code of {name} in "
                          f"{self.entry.path} could not be loaded ({type(exc).__name__}: "
                          f"{exc}); it is rebuilt", store.CacheWarning, stacklevel=3)
            store.STATS.rebuilt += 1
            result = build(_reimport_function(self, name))
        _seal_artifacts(self.entry.path, name)
        self.record(name, _was_cache_hit(result), time.perf_counter() - t0)
        return result


class _BestEffortLock:
    """A :class:`ModuleLock` that, when the compiledir cannot be written (the lock file cannot
    be made), reports it once and lets the compile go on unlocked (nothing is then stored)."""

    def __init__(self, lock: ModuleLock) -> None:
        self._lock = lock
        self._held = False

    def __enter__(self) -> "_BestEffortLock":
        try:
            self._lock.__enter__()
            self._held = True
        except OSError as exc:
            store.cannot_write(exc, self._lock.lock_dir)
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._held:
            self._held = False
            self._lock.__exit__(*exc)


def _has_source(entry: store.Entry, source: str) -> bool:
    """Whether ``entry`` holds ``source`` as its ``mod.py``; one that does not (or that another
    user could have written) is reported once and moved aside."""
    try:
        if entry.read(SOURCE_FILE).decode("utf-8") == source:
            return True
        why = "differs from the generated source (hash collision or a tampered file)"
    except trust.UntrustedFile as exc:
        store.refuse(entry, str(exc))
        return False
    except (OSError, UnicodeDecodeError):
        why = "is missing or unreadable"
    store.quarantine(entry, f"its {SOURCE_FILE} {why}")
    return False


def _import(path: Path, name: str, source: str) -> ModuleType:
    """The module ``name`` run from ``source`` (what ``path`` holds: checked on load), with
    ``path`` as its file for Numba's cache, which locates functions through it."""
    module = sys.modules.get(name)
    if module is not None and getattr(module, "__file__", None) == str(path):
        return module
    module = ModuleType(name)
    module.__file__ = str(path)
    sys.modules[name] = module
    try:
        exec(compile(source, str(path), "exec"), module.__dict__)  # noqa: S102 - our own code
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def _reimport_function(cached: CachedModule, name: str) -> Any:
    # A fresh function object: Numba remembers the failed cache on the old dispatcher.
    sys.modules.pop(cached.module.__name__, None)
    cached.module = _import(cached.entry.file(SOURCE_FILE), cached.module.__name__,
                            cached.source)
    return getattr(cached.module, name)


def _artifacts(entry_dir: Path, name: str) -> list[Path]:
    """The Numba cache files of ``name`` (Numba loads them itself, by path)."""
    cache_dir = entry_dir / "__pycache__"
    try:
        return [path for path in cache_dir.iterdir()
                if f".{name}-" in path.name and path.suffix in (".nbi", ".nbc")]
    except OSError:
        return []


def _refuse_untrusted_artifacts(entry_dir: Path, name: str) -> None:
    """Delete, with a warning, Numba cache files of ``name`` that another user could have
    written (or a ``__pycache__`` that is a link), before Numba loads them."""
    cache_dir = entry_dir / "__pycache__"
    try:
        trust.check_folder(cache_dir)
    except FileNotFoundError:
        return
    except trust.UntrustedFile as exc:
        warnings.warn(f"jitgraph cache: {exc}. It is removed and rebuilt.", store.CacheWarning,
                      stacklevel=4)
        if cache_dir.is_symlink():
            cache_dir.unlink(missing_ok=True)
        else:
            shutil.rmtree(cache_dir, ignore_errors=True)
        return
    for path in _artifacts(entry_dir, name):
        try:
            trust.check_file(path)
        except trust.UntrustedFile as exc:
            warnings.warn(f"jitgraph cache: {exc}. It is deleted and rebuilt.",
                          store.CacheWarning, stacklevel=4)
            path.unlink(missing_ok=True)
        except OSError:
            pass


def _seal_artifacts(entry_dir: Path, name: str) -> None:
    """Give the files Numba wrote for ``name`` the mode of new files (Numba follows the
    umask, which may let the group write them)."""
    allowed = trust.file_mode() | stat.S_IRUSR | stat.S_IWUSR
    cache_dir = entry_dir / "__pycache__"
    try:  # the folder too: Numba makes it with the umask
        mode = stat.S_IMODE(cache_dir.lstat().st_mode)
        if mode & ~trust.folder_mode() & 0o022:
            cache_dir.chmod(mode & (trust.folder_mode() | stat.S_IRWXU))
    except OSError:
        pass
    for path in _artifacts(entry_dir, name):
        try:
            mode = stat.S_IMODE(path.lstat().st_mode)
            if mode & ~allowed & 0o022:
                path.chmod(mode & allowed)
        except OSError:
            pass


def _drop_artifacts(entry_dir: Path, name: str) -> bool:
    """Delete the Numba cache files of ``name``; True if there were any."""
    found = _artifacts(entry_dir, name)
    for path in found:
        path.unlink(missing_ok=True)
    return bool(found)


def _was_cache_hit(compiled: Any) -> bool:
    """Whether Numba loaded ``compiled`` from its cache (a dispatcher counts hits per
    signature in ``stats``; a cfunc has a plain ``cache_hits`` count)."""
    stats = getattr(compiled, "stats", None)
    if stats is not None:
        return bool(sum(getattr(stats, "cache_hits", {}).values()))
    return bool(getattr(compiled, "cache_hits", 0))


def _record_compile_time(entry: store.Entry, name: str, seconds: float,
                         published: EntryInfo) -> None:
    """Add ``name``'s compile time to ``info.json`` (rewritten atomically: a reader never sees
    half a file). An unreadable one is replaced by what was published; one of a newer
    schema is left alone."""
    try:
        info = entry.read_info()
    except UnknownFormat as exc:
        if exc.newer:
            return
        info = published
    except OSError:
        info = published
    if not store.writable():
        return
    try:
        write_atomic(entry.file(store.INFO_FILE), info.with_compile_time(name, seconds).to_json(),
                     trust.file_mode())
    except OSError:
        pass


#: compiledir -> (its mtime when listed, entry folder names by kernel digest): a miss looks up
#: the entries of its kernel here instead of listing the whole compiledir (which made every
#: miss O(entries): milliseconds each in a compiledir of thousands of kernels)
_FOLDERS: dict[Path, tuple[int, dict[str, list[str]]]] = {}


def _kernel_folders(root: Path, prefix: str) -> list[str]:
    """The entry folders of ``root`` named ``<prefix>-...``, listed again only when the
    compiledir changed other than by this process's own publishing."""
    try:
        mtime = os.stat(root).st_mtime_ns
    except OSError:
        return []
    known = _FOLDERS.get(root)
    if known is None or known[0] != mtime:
        by_prefix: dict[str, list[str]] = {}
        with os.scandir(root) as it:
            for item in it:
                head, sep, _ = item.name.partition("-")
                if sep:
                    by_prefix.setdefault(head, []).append(item.name)
        known = _FOLDERS[root] = (mtime, by_prefix)
    return list(known[1].get(prefix, ()))


def _note_published(root: Path, entry: store.Entry) -> None:
    """Add an entry this process published to the listing (racing publishers elsewhere only
    go unexplained until the compiledir is listed again)."""
    known = _FOLDERS.get(root)
    if known is None:
        return
    head, _, _ = entry.path.name.partition("-")
    names = known[1].setdefault(head, [])
    if entry.path.name not in names:
        names.append(entry.path.name)
    try:
        _FOLDERS[root] = (os.stat(root).st_mtime_ns, known[1])
    except OSError:
        _FOLDERS.pop(root, None)


def _explain_miss(key: CacheKey, root: Path) -> None:
    """Log why a kernel compiled before under other settings is not reused."""
    prefix = key.folder_name().split("-")[0]
    for name in _kernel_folders(root, prefix):
        path = root / name
        try:
            other = store.Entry(path).key()
        except Exception:
            continue
        parts = other.differences(key)
        reason = f"{path.name}: same kernel, different {', '.join(parts)}"
        store.STATS.reasons.append(reason)
        _log().debug("cache miss for %s; %s", key.folder_name(), reason)
