"""Compiling the kernels a program will need together, on two processors when there are two.

While a graph is lowered, lowerings say which kernel entries the program will certainly call
(:func:`want`): the contiguous variant of an elementwise kernel, a convolution's im2col, ...
Once every node is lowered, :func:`compile_wanted` compiles those not yet compiled nor stored.
LLVM work is serial within a process (llvmlite takes one lock around every call), so when
there are at least :data:`MIN_PARALLEL` entries to build, the disk cache is on and the machine
has a second processor, a forked child process compiles the list from its end into the
compiledir while this process compiles it from its start, until they meet; this process loads
the child's objects from the compiledir (the same path a second process running the same
program takes, under the same per-entry locks). What the child has not stored when this
process reaches it is compiled here, so the child only ever saves time (one that has not
reported :data:`CHILD_TIMEOUT` s after this process has every entry is killed).

The child's compile records and cache counters are merged into this process's
(:data:`~.kernels.COMPILE_LOG`, :data:`jitgraph.cache.store.STATS`), so reports read as if
everything had been compiled here. ``JITGRAPH_PARALLEL_COMPILE=0`` compiles everything in this
process, as does a process running other Python threads (a lock one of them holds at the fork
would stay held in the child).
"""

from __future__ import annotations

import os
import pickle
import select
import sys
import threading
import time
import warnings
from typing import Any

from jitgraph.backend_cpu import native
from jitgraph.backend_cpu.codegen import tiering
from jitgraph.backend_cpu.codegen.kernels import COMPILE_LOG
from jitgraph.backend_cpu.runtime import blocks
from jitgraph.cache import store

#: fewest entries to build for a child process to be worth its fork
MIN_PARALLEL = 3
#: seconds to wait for the child once this process has every entry (the child then has
#: nothing left but to report: it is only late if something went wrong)
CHILD_TIMEOUT = 10.0

_state = threading.local()


def enabled() -> bool:
    return (os.environ.get("JITGRAPH_PARALLEL_COMPILE", "1") != "0" and hasattr(os, "fork")
            and sys.platform.startswith("linux") and (os.cpu_count() or 1) > 1)


def _alone() -> bool:
    """No other Python thread could hold a lock the child needs: a forked child has only the
    forking thread, and a lock another thread held at the fork stays held in the child. The
    worker threads of :mod:`.parallel` only run kernels, between programs' runs; those of
    :mod:`.tiering` hold no lock but one every fork takes first."""
    me = threading.current_thread()
    return all(t is me or t.name.startswith("jitgraph-cpu") or t.name == tiering.THREAD_NAME
               for t in threading.enumerate())


def start() -> None:
    """Begin collecting wanted entries (a stack: a nested program collects its own)."""
    stack = getattr(_state, "stack", None)
    if stack is None:
        stack = _state.stack = []
    stack.append([])


def want(module: Any, entry: str, lazy: Any = None) -> None:
    """``entry`` of ``module`` (a :class:`~.kernels.KernelModule`) will be called. ``lazy``, a
    :class:`~.kernels.LazyEntry` standing for it in a driver's namespace, is replaced there by
    the compiled entry. Outside :func:`start`/:func:`compile_wanted`, compiles it now."""
    stack = getattr(_state, "stack", None)
    if not stack:
        fn = module.get(entry)
        if lazy is not None:
            lazy.namespace[lazy.name] = fn
        return
    stack[-1].append((module, entry, lazy))


def discard() -> None:
    """Drop what :func:`start` collected (lowering failed)."""
    stack = getattr(_state, "stack", None)
    if stack:
        stack.pop()


def compile_wanted() -> None:
    """Compile (or load) every entry wanted since the matching :func:`start`."""
    stack = getattr(_state, "stack", None)
    wanted = stack.pop() if stack else []
    compile_entries([(m, e) for m, e, _ in wanted])
    for module, entry, lazy in wanted:
        if lazy is not None and lazy.namespace.get(lazy.name) is lazy:
            lazy.namespace[lazy.name] = module.get(entry)


def compile_entries(pairs: list[tuple[Any, str]]) -> None:
    """Compile or load ``(module, entry)`` pairs, a share of them in a child process."""
    todo: list[tuple[Any, str]] = []
    seen: set[tuple[Any, str]] = set()
    for module, entry in pairs:
        if (id(module), entry) not in seen and not module.is_compiled(entry):
            seen.add((id(module), entry))
            todo.append((module, entry))
    # The block functions those kernels call: work items of their own (they are only needed
    # to load a kernel, not to compile it), so the two processes share them too.
    for module, _ in list(todo):
        for block in blocks.called_by(module.source.source):
            if (block.name, "block") not in seen and not block.is_compiled("block"):
                seen.add((block.name, "block"))
                todo.append((block, "block"))
    # Light kernels first (by the size of their module's source): the child takes the heavy
    # ones from the end, so the two meet on a light one and neither waits long for the other.
    todo.sort(key=lambda pair: len(pair[0].source.source))
    to_build = [(m, e) for m, e in todo if m.stored(e) is False]
    child = None
    if len(to_build) >= MIN_PARALLEL and enabled() and _alone():
        cpus = {m.source.options.target_cpu for m, _ in to_build}
        if tiering.enabled() and any(map(tiering.eligible, (m for m, _ in to_build))):
            # Only the child runs LLVM's optimising pipelines: it warms them up itself.
            _prepare_tools(cpus, warm=False)
            if _compile_tiered(todo, to_build):
                return
        _prepare_tools(cpus)
        child = _fork(to_build)
    # This process goes forward through the list, the child backward from its end until it
    # meets an entry already stored: each takes what the other has not reached, and an
    # entry the other is compiling is waited for (the compiledir's lock) and then loaded.
    try:
        for module, entry in todo:
            module.get(entry)
    except BaseException:
        if child is not None:  # interrupted, or a kernel failed: no child left behind
            os.close(child[1])
            _kill(child[0])
        raise
    if child is not None:
        _join(*child)


def _compile_tiered(todo: list[tuple[Any, str]], to_build: list[tuple[Any, str]]) -> bool:
    """A child builds every optimised entry of ``to_build`` while this process compiles them
    at tier 0 (:mod:`.tiering`) and loads the rest of ``todo``; False if it cannot fork."""
    order = tiering.child_order(to_build)
    child = _fork(order, tiered=True)
    if child is None:
        return False
    building = {(id(m), e) for m, e in to_build}
    try:
        tiering.compile_quick(to_build)
        for module, entry in todo:
            if (id(module), entry) not in building:
                module.get(entry)
    except BaseException:
        os.close(child[1])
        _kill(child[0])
        raise
    tiering.follow(child[0], child[1], order, _merge)
    return True


def _prepare_tools(cpus: set[str], warm: bool = True) -> None:
    """Set up once, before the fork, what both processes need to compile: LLVM and its target
    machines. Done after the fork, each process paid for it (tens of milliseconds of a cold
    compile)."""
    native.prepare(cpus, warm)


def _fork(entries: list[tuple[Any, str]], tiered: bool = False) -> tuple[int, int] | None:
    """Start the child compiling ``entries`` (``tiered``: all of them, reporting each):
    (its pid, the pipe it reports through)."""
    try:
        r, w = os.pipe()
    except OSError:
        return None
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        with warnings.catch_warnings():  # a tier-up thread may run: safe, see _alone
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
    except OSError:
        os.close(r)
        os.close(w)
        return None
    if pid == 0:  # the child: compile, report, and leave without running any cleanup
        status = 1
        try:
            os.close(r)
            (_child_tiered if tiered else _child)(entries, w)
            status = 0
        finally:
            os._exit(status)
    os.close(w)
    return pid, r


def _counters() -> tuple[int, int, float]:
    """Where this process's compile records and cache counters stand (for :func:`_report`)."""
    return len(COMPILE_LOG), store.STATS.misses, store.STATS.compile_seconds


def _report(since: tuple[int, int, float]) -> tuple:
    """What this process compiled after :func:`_counters` gave ``since``: the report a child
    sends, which :func:`_merge` adds to the parent's."""
    n0, misses, seconds = since
    return COMPILE_LOG[n0:], store.STATS.misses - misses, store.STATS.compile_seconds - seconds


def _child(entries: list[tuple[Any, str]], fd: int) -> None:
    since = _counters()
    for module, entry in reversed(entries):
        if module.stored(entry):
            break  # the parent has come this far
        module.get(entry)
    with os.fdopen(fd, "wb") as out:
        out.write(pickle.dumps(_report(since)))


def _child_tiered(entries: list[tuple[Any, str]], fd: int) -> None:
    since = _counters()
    for index, (module, entry) in enumerate(entries):
        module.get(entry)
        tiering.report_built(fd, index)
    tiering.report_done(fd, _report(since))
    os.close(fd)


def _join(pid: int, fd: int) -> None:
    """Wait for the child (at most :data:`CHILD_TIMEOUT` s more) and merge its report."""
    chunks = []
    deadline = time.monotonic() + CHILD_TIMEOUT
    with os.fdopen(fd, "rb") as inp:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([inp], [], [], left)[0]:
                _kill(pid)
                return
            chunk = os.read(inp.fileno(), 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    os.waitpid(pid, 0)
    try:
        report = pickle.loads(b"".join(chunks))
    except Exception:  # noqa: BLE001 - a child that died early reports nothing
        return
    _merge(report)


def _merge(report: tuple) -> None:
    """A child's compile records and cache counters, into this process's."""
    records, misses, seconds = report
    COMPILE_LOG.extend(records)
    store.STATS.misses += misses  # compiled there, then loaded here: not hits
    store.STATS.hits = max(0, store.STATS.hits - misses)
    store.STATS.compile_seconds += seconds


def _kill(pid: int) -> None:
    import signal

    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except OSError:
        pass
