"""Generated Python/Numba modules kept in the compiledir.

A :class:`CachedModule` writes a kernel's generated source as ``mod.py`` in its entry (published
atomically), imports it from there, and compiles its functions with Numba's own on-disk cache
(``cache=True``): Numba writes the compiled code next to ``mod.py`` with atomic renames and checks
the source hash, the signature and the CPU target when it loads it. Each function is compiled
under the module's lock, so N processes needing the same kernel compile it once and the others
load it. A corrupt artifact is reported once, deleted and rebuilt; it never crashes the program.
"""

from __future__ import annotations

import importlib.util
import logging
import sys
import time
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

from jitgraph.cache import store
from jitgraph.cache.keys import CacheKey
from jitgraph.cache.locking import ModuleLock

log = logging.getLogger("jitgraph.cache")

SOURCE_FILE = "mod.py"


class CachedModule:
    """The on-disk home of one generated module."""

    def __init__(self, key: CacheKey, source: str, info: dict[str, Any],
                 root: Path | None = None) -> None:
        self.key = key
        self.root = root or store.compiledir()
        t0 = time.perf_counter()
        entry = store.lookup(key, self.root)
        if entry is None:
            _explain_miss(key, self.root)
            entry = store.publish(key, {SOURCE_FILE: source}, info, self.root)
        elif entry.file(SOURCE_FILE).read_text() != source:
            store.quarantine(entry, "its source differs from the generated one (hash collision "
                                    "or a tampered file)")
            entry = store.publish(key, {SOURCE_FILE: source}, info, self.root)
        entry.touch()
        self.entry = entry
        self.module = _import(entry.file(SOURCE_FILE), f"jitgraph_cached_{key.digest()[:24]}")
        store.STATS.load_seconds += time.perf_counter() - t0

    def compile(self, name: str, build: Callable[[Any], Any]) -> Any:
        """``build(function)`` (e.g. ``numba.njit(sig, cache=True)``) under this module's
        lock, recovering from unreadable cache files by rebuilding them."""
        fn = getattr(self.module, name)
        lock = ModuleLock(store.lock_dir(self.root), f"{self.entry.path.name}-{name}")
        t0 = time.perf_counter()
        with lock:
            try:
                result = build(fn)
            except Exception as exc:
                if not _drop_artifacts(self.entry.path, name):
                    raise
                warnings.warn(f"jitgraph cache: the compiled code of {name} in "
                              f"{self.entry.path} could not be loaded ({type(exc).__name__}: "
                              f"{exc}); it is rebuilt", store.CacheWarning, stacklevel=2)
                store.STATS.rebuilt += 1
                result = build(_reimport_function(self, name))
        seconds = time.perf_counter() - t0
        hit = _was_cache_hit(result)
        if hit:
            store.STATS.hits += 1
            store.STATS.load_seconds += seconds
            self.entry.record_hit()
        else:
            store.STATS.misses += 1
            store.STATS.compile_seconds += seconds
            _record_compile_time(self.entry, name, seconds)
        return result


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


def _record_compile_time(entry: store.Entry, name: str, seconds: float) -> None:
    import json

    info = entry.info()
    info.setdefault("compile_seconds", {})[name] = round(seconds, 4)
    try:
        (entry.path / store.INFO_FILE).write_text(json.dumps(info, default=str, indent=1))
    except OSError:
        pass


def _explain_miss(key: CacheKey, root: Path) -> None:
    """Log why a kernel compiled before under other settings is not reused."""
    prefix = key.folder_name().split("-")[0]
    for path in root.glob(f"{prefix}-*"):
        try:
            other = store.Entry(path).key()
        except Exception:
            continue
        parts = other.differences(key)
        reason = f"{path.name}: same kernel, different {', '.join(parts)}"
        store.STATS.reasons.append(reason)
        log.debug("cache miss for %s; %s", key.folder_name(), reason)
