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
corrupt artifact is reported once, deleted and rebuilt; it never crashes the program.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import time
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

from jitgraph.cache import metadata, store
from jitgraph.cache.keys import CacheKey
from jitgraph.cache.locking import ModuleLock
from jitgraph.cache.metadata import EntryInfo, UnknownFormat
from jitgraph.config.paths import write_atomic

SOURCE_FILE = "mod.py"


def _log() -> Any:
    import logging  # ~3 ms: only when there is something to report

    return logging.getLogger("jitgraph.cache")


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
        t0 = time.perf_counter()
        entry = store.lookup(key, self.root)
        if entry is None:
            _explain_miss(key, self.root)
            entry = store.publish(key, {SOURCE_FILE: source}, info, self.root)
            _note_published(self.root, entry)
        elif _stored_source(entry) != source:
            store.quarantine(entry, f"its {SOURCE_FILE} is missing, unreadable or differs from "
                                    "the generated source (hash collision or a tampered file)")
            entry = store.publish(key, {SOURCE_FILE: source}, info, self.root)
        entry.touch()
        self.entry = entry
        self._module: ModuleType | None = None
        store.STATS.load_seconds += time.perf_counter() - t0

    @property
    def module(self) -> ModuleType:
        """``mod.py``, imported the first time it is needed (only to compile)."""
        if self._module is None:
            self._module = _import(self.entry.file(SOURCE_FILE),
                                   f"jitgraph_cached_{self.key.digest()[:24]}")
        return self._module

    @module.setter
    def module(self, value: ModuleType) -> None:
        self._module = value

    def lock(self, name: str) -> ModuleLock:
        """The lock under which ``name`` is compiled (one compile across processes)."""
        return ModuleLock(store.lock_dir(self.root), f"{self.entry.path.name}-{name}")

    def read_native(self, name: str) -> tuple[dict[str, Any], bytes | None] | None:
        """The stored description and object of ``name``, or None if there is none yet.

        A description without an object records that ``name`` has no native object. Anything
        unreadable is reported once and deleted (the caller rebuilds it); the caller checks the
        object against its description (``NativeObject.from_meta``) and calls
        :meth:`drop_native` when they disagree."""
        meta_path = self.entry.file(f"native-{name}.json")
        try:
            data = meta_path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            self.drop_native(name, exc)
            return None
        try:
            info = metadata.parse(data, metadata.FUNCTION)
            if info.kind == metadata.NUMBA_KERNEL:
                return dict(info.details), None
            code = self.entry.file(f"native-{name}.o").read_bytes()
        except (OSError, UnknownFormat) as exc:
            self.drop_native(name, exc)
            return None
        return dict(info.details), code

    def write_native(self, name: str, meta: dict[str, Any], code: bytes | None) -> None:
        """Publish ``name``'s object (if any) and then its description (``meta``: the object's,
        or ``{"native": False, "why": ...}``), each atomically."""
        try:
            if code is not None:
                write_atomic(self.entry.file(f"native-{name}.o"), code)
            info = metadata.native_function(name, meta)
            if name in self._compile_seconds:
                info = info.with_compile_time(name, self._compile_seconds[name])
            write_atomic(self.entry.file(f"native-{name}.json"), info.to_json())
        except OSError as exc:
            _log().warning("jitgraph cache: cannot store the native object of %s in %s: %s",
                           name, self.entry.path, exc)

    def drop_native(self, name: str, exc: BaseException) -> None:
        """Report the unusable native object of ``name`` once and delete it."""
        warnings.warn(f"jitgraph cache: the native object of {name} in {self.entry.path} is "
                      f"unreadable ({type(exc).__name__}: {exc}); it is rebuilt",
                      store.CacheWarning, stacklevel=3)
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
        self.record(name, _was_cache_hit(result), time.perf_counter() - t0)
        return result


def _stored_source(entry: store.Entry) -> str | None:
    try:
        return entry.file(SOURCE_FILE).read_text()
    except (OSError, UnicodeDecodeError):
        return None


def _import(path: Path, name: str) -> ModuleType:
    module = sys.modules.get(name)
    if module is not None and getattr(module, "__file__", None) == str(path):
        return module
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import the cached module {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # Numba's cache locates functions through their module
    spec.loader.exec_module(module)
    return module


def _reimport_function(cached: CachedModule, name: str) -> Any:
    # A fresh function object: Numba remembers the failed cache on the old dispatcher.
    sys.modules.pop(cached.module.__name__, None)
    cached.module = _import(cached.entry.file(SOURCE_FILE), cached.module.__name__)
    return getattr(cached.module, name)


def _drop_artifacts(entry_dir: Path, name: str) -> bool:
    """Delete the Numba cache files of ``name``; True if there were any."""
    cache_dir = entry_dir / "__pycache__"
    removed = False
    if cache_dir.is_dir():
        for path in cache_dir.iterdir():
            if f".{name}-" in path.name and path.suffix in (".nbi", ".nbc"):
                path.unlink(missing_ok=True)
                removed = True
    return removed


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
    try:
        write_atomic(entry.file(store.INFO_FILE), info.with_compile_time(name, seconds).to_json())
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
