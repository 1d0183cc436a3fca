"""``theano.gof.compilelock``: the lock on the compile folder, so that processes sharing it do
not build the same module at once. It is a :class:`jitgraph.cache.locking.ModuleLock` named
``"global"`` in the compiledir's lock folder; ``get_lock`` nests (``release_lock`` frees it when
the last holder releases it)."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any, Iterator

from jitgraph.cache import store
from jitgraph.cache.locking import ModuleLock, hostname
from jitgraph.cache.locking import force_unlock as _force_unlock

_held: list[ModuleLock] = []
_depth = 0
_use_lock = True


def _lock_dir(lock_dir: Any = None) -> Path:
    if lock_dir is not None:
        return Path(lock_dir)

    return store.lock_dir()


def set_lock_status(use_lock: bool) -> None:
    """Whether ``get_lock`` takes the lock at all (off for a compiledir private to one
    process)."""
    global _use_lock
    _use_lock = bool(use_lock)


def get_lock(lock_dir: Any = None, **kw: Any) -> None:
    """Take the global compile lock (waiting for another process to release it), or count one
    more holder when this process has it."""
    global _depth
    if not _use_lock:
        return
    if _depth == 0:
        lock = ModuleLock(_lock_dir(lock_dir), "global", timeout=kw.get("timeout"))
        lock.__enter__()
        _held.append(lock)
    _depth += 1


def release_lock() -> None:
    """Release one hold on the lock; the lock is freed when no hold is left."""
    global _depth
    if _depth == 0:
        return
    _depth -= 1
    if _depth == 0 and _held:
        _held.pop().__exit__(None, None, None)


@contextlib.contextmanager
def lock_ctx(lock_dir: Any = None, keep_lock: bool = False, **kw: Any) -> Iterator[None]:
    """``with lock_ctx():`` holds the lock for the block (and after it with ``keep_lock``)."""
    get_lock(lock_dir=lock_dir, **kw)
    try:
        yield
    finally:
        if not keep_lock:
            release_lock()


def force_unlock(lock_dir: Any = None) -> int:
    """Remove every lock of the compile folder (after a crash); returns how many."""
    return _force_unlock(_lock_dir(lock_dir))


__all__ = ["get_lock", "release_lock", "lock_ctx", "set_lock_status", "force_unlock",
           "hostname"]
