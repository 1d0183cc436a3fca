"""The operating-system file lock under :class:`~jitgraph.cache.locking.ModuleLock`.

On POSIX systems it is ``flock(2)`` on a file of the lock directory, taken here directly: the
``filelock`` package does the same but importing it costs 20-50 ms (it imports ``decimal``,
``secrets``, ...), a tenth of a cold compile of a small function. Elsewhere (Windows) the lock is
``filelock``'s. The kernel releases an ``flock`` when its holder dies; a lock file deleted while
held (a waiter taking over a stuck lock) is noticed by the next taker, which then locks the new
file instead of the deleted one.
"""

from __future__ import annotations

import errno
import os
import time
from typing import Any

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]


class PosixFileLock:
    """An exclusive ``flock`` on ``path`` (created if missing), one open file per instance:
    two instances conflict even within one process, as two processes do."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._fd: int | None = None

    def acquire(self, timeout: float, poll_interval: float) -> bool:
        """Take the lock within ``timeout`` seconds, trying every ``poll_interval``; False if
        it stayed held."""
        deadline = time.monotonic() + timeout
        while True:
            fd = self._try_lock()
            if fd is not None:
                self._fd = fd
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(poll_interval)

    def _try_lock(self) -> int | None:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            if exc.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                return None
            raise
        # Deleted (or replaced) between our open and our lock: it guards nothing any more.
        try:
            current = os.stat(self.path)
        except FileNotFoundError:
            current = None
        mine = os.fstat(fd)
        if current is None or (current.st_ino, current.st_dev) != (mine.st_ino, mine.st_dev):
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)
            return None
        return fd

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)


class _PortableFileLock:
    """``filelock``'s lock behind the same two methods (imported on first use)."""

    def __init__(self, path: str) -> None:
        from filelock import FileLock

        self._lock: Any = FileLock(path, is_singleton=False)

    def acquire(self, timeout: float, poll_interval: float) -> bool:
        from filelock import Timeout

        try:
            self._lock.acquire(timeout=timeout, poll_interval=poll_interval)
        except Timeout:
            return False
        return True

    def release(self) -> None:
        self._lock.release()


def file_lock(path: str) -> PosixFileLock | _PortableFileLock:
    """A not yet taken exclusive lock on the file ``path``."""
    return PosixFileLock(path) if fcntl is not None else _PortableFileLock(path)
