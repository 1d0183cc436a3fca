"""Tiered compilation: a program starts on quickly compiled kernels while a child process
compiles the optimised ones, and switches to each as soon as it is stored.

Most of a cold compile is LLVM's optimisation passes and instruction selection (a logistic
regression's six kernels: 0.14 of 0.24 s). When :mod:`.compile_ahead` has entries to build and
may fork, this process compiles each at **tier 0** -- LLVM's minimal pipeline and its fast
instruction selector, about a fifth of the time, for code two to four times slower -- while the
forked child compiles every optimised object into the compiledir, as it did before tiers
existed. A thread of this process reads the child's reports and points each tier-0 function at
its optimised object once stored (:func:`~jitgraph.backend_cpu.native.retarget`: one pointer
store that every reference to the function sees, a call in flight finishing in the old code).
The vecmath block functions are upgraded before the kernels calling them are (a kernel's
object binds the block's address when it is loaded).

Both tiers compile the same LLVM IR, without fast-math flags, so they compute the same bits;
entries compiled with fast-math flags (whose rounding the optimiser may change), at
optimisation level 0, with debug information, or that the direct compiler declines are built
optimised at once, as before.

The thread holds no lock except while it upgrades or merges a report, under this module's
lock, which every fork of the process takes first (:func:`os.register_at_fork`): the next
program's compile child may be forked while an earlier child still works, and a fork by the
program itself is as safe. A forked process keeps its tier-0 kernels until its next compile,
which upgrades those stored meanwhile. An exiting process waits for its children
(:func:`settle`), so the compiledir holds every optimised object when it has gone.
``JITGRAPH_TIERED=0`` turns tiers off.
"""

from __future__ import annotations

import atexit
import os
import pickle
import select
import signal
import struct
import threading
from typing import Any, Callable

from jitgraph.backend_cpu.codegen.kernels import COMPILE_LOG
from jitgraph.cache import store

#: seconds an exiting process waits for its compile child before killing it (the child has
#: then stored what it finished; the next process compiles the rest)
EXIT_TIMEOUT = 300.0
#: the message after which the child's pickled report follows
_REPORT = 0xFFFFFFFF
_INDEX = struct.Struct("<I")

_lock = threading.Lock()  # held while functions are retargeted, and across a fork
#: the name of the threads awaiting compile children (they hold no lock but ``_lock``)
THREAD_NAME = "jitgraph-tierup"


class Counters:
    """What tiering did in this process (for tests and ``bench/``)."""

    quick = 0  # entries compiled at tier 0
    upgraded = 0  # of those, pointed at their optimised object
    missed = 0  # of those, left at tier 0 (the child stored no object for them)


STATS = Counters()


def enabled() -> bool:
    return os.environ.get("JITGRAPH_TIERED", "1") != "0"


def eligible(module: Any) -> bool:
    """Whether ``module``'s entries may start at tier 0 (see the module's docstring)."""
    options = module.source.options
    return (options.opt_level > 0 and not options.fastmath and not options.debug
            and not options.boundscheck)


class _Upgrade:
    """One compile child's optimised objects, awaited by one thread."""

    def __init__(self, pid: int | None, fd: int | None, entries: list[tuple[Any, str]]) -> None:
        self.pid, self.fd, self.entries = pid, fd, entries
        self.done = [False] * len(entries)
        self.thread: threading.Thread | None = None


_active: list[_Upgrade] = []  # upgrades whose thread may still run
_orphans: list[tuple[Any, str]] = []  # tier-0 entries of a parent this process forked from


def compile_quick(entries: list[tuple[Any, str]]) -> None:
    """Compile ``entries`` at tier 0 where eligible (blocks first: kernels bind them when
    loaded), else normally."""
    for module, entry in child_order(entries):
        if eligible(module):
            module.get_quick(entry)
            STATS.quick += module.is_quick(entry)
        else:
            module.get(entry)


def child_order(entries: list[tuple[Any, str]]) -> list[tuple[Any, str]]:
    """The order the child builds ``entries``: blocks first (kernels are upgraded after the
    blocks they call), then the program's order."""
    return sorted(entries, key=lambda pair: pair[1] != "block")


def report_built(fd: int, index: int) -> None:
    """In the child: entry ``index`` of its list is stored."""
    os.write(fd, _INDEX.pack(index))


def report_done(fd: int, report: Any) -> None:
    """In the child: every entry is stored; ``report`` goes to :func:`follow`'s merge."""
    payload = _INDEX.pack(_REPORT) + pickle.dumps(report)
    while payload:
        payload = payload[os.write(fd, payload):]


def follow(pid: int, fd: int, entries: list[tuple[Any, str]],
           merge: Callable[[Any], None]) -> None:
    """Upgrade ``entries`` (in the child's order) as the child ``pid`` reports through ``fd``
    that it stored them, on a thread of this process; ``merge(report)`` its final report."""
    upgrade = _Upgrade(pid, fd, entries)
    upgrade.thread = threading.Thread(target=_run, args=(upgrade, merge), daemon=True,
                                      name=THREAD_NAME)
    _active[:] = [u for u in _active if u.thread is not None and u.thread.is_alive()]
    _active.append(upgrade)
    upgrade.thread.start()


def _run(upgrade: _Upgrade, merge: Callable[[Any], None]) -> None:
    buffer, report = b"", None  # report: None while indices arrive, then its bytes
    try:
        while True:
            select.select([upgrade.fd], [], [])
            chunk = os.read(upgrade.fd, 1 << 16)
            if not chunk:
                break
            if report is not None:
                report += chunk
                continue
            buffer += chunk
            while report is None and len(buffer) >= _INDEX.size:
                (index,) = _INDEX.unpack_from(buffer)
                buffer = buffer[_INDEX.size:]
                if index == _REPORT:
                    report, buffer = buffer, b""
                else:
                    _upgrade(upgrade, index)
    except OSError:
        pass
    finally:
        with _lock:  # a fork meanwhile must not close the number once another file reuses it
            os.close(upgrade.fd)
            upgrade.fd = None
        _reap(upgrade.pid)
    for index in range(len(upgrade.entries)):  # what another process stored, or none
        _upgrade(upgrade, index)
    if report:
        with _lock:
            try:
                merge(pickle.loads(report))
            except Exception:  # noqa: BLE001 - a child that died while reporting: no report
                pass


def _upgrade(upgrade: _Upgrade, index: int) -> None:
    if index >= len(upgrade.entries) or upgrade.done[index]:
        return
    upgrade.done[index] = True
    module, entry = upgrade.entries[index]
    was_quick = module.is_quick(entry)
    with _lock:
        try:
            ok = module.upgrade(entry)
        except Exception:  # noqa: BLE001 - a bad stored object: the tier-0 code stays, correct
            ok = False
    if was_quick:
        if ok:
            STATS.upgraded += 1
        else:
            STATS.missed += 1


def _reap(pid: int | None) -> None:
    if pid is None:
        return
    try:
        os.waitpid(pid, 0)
    except OSError:
        pass


def settle(timeout: float | None = None) -> None:
    """Wait until this process's compile children have finished and their objects are in
    place (at most ``timeout`` s each; then a child is killed and the entries it had not
    stored stay at tier 0). Also upgrades the tier-0 entries a parent process left this one."""
    while _active:
        upgrade = _active.pop(0)
        if upgrade.thread is None:
            continue
        upgrade.thread.join(timeout)
        if upgrade.thread.is_alive() and upgrade.pid is not None:
            try:
                os.kill(upgrade.pid, signal.SIGKILL)
            except OSError:
                pass
            upgrade.thread.join()
    if _orphans:
        orphans = _Upgrade(None, None, _orphans[:])
        _orphans.clear()
        for index in range(len(orphans.entries)):
            _upgrade(orphans, index)


def pending() -> int:
    """How many entries of this process run tier-0 code now."""
    return sum(module.is_quick(entry) for upgrade in list(_active)
               for (module, entry), done in zip(upgrade.entries, upgrade.done) if not done)


def _before_fork() -> None:
    _lock.acquire()


def _after_fork_in_parent() -> None:
    _lock.release()


def _after_fork_in_child() -> None:
    global _lock
    _lock = threading.Lock()
    for upgrade in _active:  # the threads and the compile children are the parent's
        if upgrade.fd is not None:  # still open (the parent's thread held no lock: see _run)
            try:
                os.close(upgrade.fd)
            except OSError:
                pass
        _orphans.extend(pair for pair, done in zip(upgrade.entries, upgrade.done) if not done)
    _active.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_before_fork, after_in_parent=_after_fork_in_parent,
                        after_in_child=_after_fork_in_child)
atexit.register(settle, EXIT_TIMEOUT)
