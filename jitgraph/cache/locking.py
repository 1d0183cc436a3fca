"""Per-module compile locks in ``<compiledir>/lock_dir``.

Two mechanisms together: an OS file lock (:mod:`.oslock`), which is correct on local disks and is
released by the kernel when its holder dies, and a Theano-style owner file (pid, host, random id,
time of the last refresh) that the holder refreshes while it compiles. A waiter takes the lock
over when the owner file names a dead process on this host, or has not been refreshed for
``compile.timeout`` seconds (a stuck holder on a network filesystem). Taking over can at worst
make two processes compile the same module, which is harmless: entries are published atomically.

A waiter prints one message per wait (naming the owner), never a flood.
"""

from __future__ import annotations

import os
import random
import sys
import threading
import time
from pathlib import Path
from typing import Any

from jitgraph.cache import trust
from jitgraph.cache.oslock import file_lock
from jitgraph.config import config



def hostname() -> str:
    """This machine's network name (``os.uname`` where there is one: importing ``socket``
    for it costs milliseconds a warm start does not have)."""
    uname = getattr(os, "uname", None)
    if uname is not None:
        return uname().nodename
    import socket

    return socket.gethostname()


#: seconds between two tries of a contended OS lock within one wait: a process waiting for
#: the entry another one is compiling (the compile-ahead child, often tens of milliseconds)
#: takes it soon after it is released; each try is one system call
POLL_INTERVAL = 0.005


class LockOwner:
    """What an owner file says: who holds the lock and when it last proved to be alive."""

    def __init__(self, pid: int, host: str, ident: str, refreshed: float) -> None:
        self.pid, self.host, self.ident, self.refreshed = pid, host, ident, refreshed

    @classmethod
    def read(cls, path: Path) -> "LockOwner | None":
        try:
            pid, host, ident, refreshed = path.read_text().split("\n")[:4]
            return cls(int(pid), host, ident, float(refreshed))
        except (OSError, ValueError):
            return None

    def is_dead(self) -> bool:
        """True only when the owner is certainly gone (a process of this host that exited)."""
        if self.host != hostname():
            return False
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return True
        except PermissionError:
            return False
        return False

    def __str__(self) -> str:
        return f"process {self.pid} on {self.host}"


class ModuleLock:
    """``with ModuleLock(lock_dir, name):`` holds the compile lock of one module."""

    def __init__(self, lock_dir: Path, name: str, timeout: float | None = None,
                 wait: float | None = None, quiet: bool = False) -> None:
        self.lock_dir = Path(lock_dir)
        self.name = name
        self.timeout = float(config.compile.timeout if timeout is None else timeout)
        self.wait = float(config.compile.wait if wait is None else wait)
        self.quiet = quiet
        self.lock_path = self.lock_dir / f"{name}.lock"
        self.owner_path = self.lock_dir / f"{name}.owner"
        self._flock: Any = None
        self._ident = os.urandom(16).hex()
        self._stop = threading.Event()
        self._refresher: threading.Thread | None = None
        self.waited = 0.0
        self.took_over = False

    # -- acquiring ------------------------------------------------------------------------
    def __enter__(self) -> "ModuleLock":
        self.lock_dir.mkdir(mode=trust.folder_mode(), parents=True, exist_ok=True)
        start = time.monotonic()
        announced = False
        seen: tuple[str, float] | None = None
        seen_since = time.monotonic()
        while True:
            flock = file_lock(str(self.lock_path))
            # Randomised waits so that many waiters do not give up together.
            if flock.acquire(self.wait * (1 + random.random()), POLL_INTERVAL):
                self._flock = flock
                break
            owner = LockOwner.read(self.owner_path)
            marker = (owner.ident, owner.refreshed) if owner else ("unknown", 0.0)
            if marker != seen:
                seen, seen_since = marker, time.monotonic()
            if not announced:  # one message per wait, even if the lock changes hands
                announced = True
                self._announce(owner)
            stale = time.monotonic() - seen_since > self.timeout
            if (owner is not None and owner.is_dead()) or stale:
                self._take_over(owner)
        self.waited = time.monotonic() - start
        try:
            self._write_owner()
        except BaseException:  # a full or read-only disk: never keep a lock nobody will free
            self._flock.release()
            self._flock = None
            raise
        self._refresher = threading.Thread(target=self._refresh_loop, daemon=True,
                                           name=f"jitgraph-lock-{self.name}")
        self._refresher.start()
        return self

    def _announce(self, owner: LockOwner | None) -> None:
        if self.quiet:
            return
        who = str(owner) if owner else "an unknown process"
        print(f"jitgraph: waiting for the compile lock of {self.name} held by {who} "
              f"(if that process is gone, run `jitgraph-cache unlock` or delete "
              f"{self.lock_path})", file=sys.stderr, flush=True)

    def _take_over(self, owner: LockOwner | None) -> None:
        # Breaking the lock file makes the next acquire use a fresh file; a still-living
        # holder keeps its (now unlinked) file and may finish: at worst a module is compiled
        # twice, never published half-written.
        self.took_over = True
        if not self.quiet:
            why = "is dead" if owner is not None and owner.is_dead() else \
                f"has not refreshed the lock for {self.timeout:.0f} s"
            print(f"jitgraph: taking over the compile lock of {self.name}: "
                  f"{owner or 'its owner'} {why}", file=sys.stderr, flush=True)
        for path in (self.owner_path, self.lock_path):
            try:
                path.unlink()
            except FileNotFoundError:
                pass

    # -- holding --------------------------------------------------------------------------
    def _write_owner(self) -> None:
        tmp = self.owner_path.with_name(f"{self.owner_path.name}.{self._ident}.tmp")
        try:
            tmp.write_text(f"{os.getpid()}\n{hostname()}\n{self._ident}\n{time.time()}\n")
            os.replace(tmp, self.owner_path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise

    def _refresh_loop(self) -> None:
        interval = max(self.timeout / 2.0, 0.05)
        while not self._stop.wait(interval):
            try:
                self._write_owner()
            except OSError:
                return

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        if self._refresher is not None:
            self._refresher.join()
        owner = LockOwner.read(self.owner_path)
        if owner is not None and owner.ident == self._ident:
            try:
                self.owner_path.unlink()
            except FileNotFoundError:
                pass
        if self._flock is not None:
            self._flock.release()
            self._flock = None


def force_unlock(lock_dir: Path) -> int:
    """Remove every lock and owner file (``jitgraph-cache unlock``); returns how many."""
    removed = 0
    lock_dir = Path(lock_dir)
    if not lock_dir.is_dir():
        return 0
    for path in lock_dir.iterdir():
        if path.suffix in (".lock", ".owner") or path.name.endswith(".tmp"):
            try:
                path.unlink()
                removed += 1
            except FileNotFoundError:
                pass
    return removed
