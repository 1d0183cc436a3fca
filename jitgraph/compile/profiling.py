"""Per-function profiles: where the compile time and the run time go.

Turn it on with the ``profile`` flag, ``function(..., profile=True)`` or
``function(..., profile=ProfileStats(message=...))``. The function then runs its nodes one by
one and times each (``profiling.time_thunks``; without it only whole calls are timed). Read it
with ``f.profile.summary()`` (returns the text) or ``f.profile.print_summary()``; every profile
created with ``atexit_print=True`` (the default) is also written at exit to
``profiling.destination`` (``stderr``, ``stdout`` or a file name) while the ``profile`` flag is
on (as Theano 1.0: ``profile=True`` alone only keeps ``f.profile``), functions never called
being skipped.

The summary has, in order: the call times (``Function.__call__``, the program, the thunks) and
the compile time (graph building, rewriting with its validation, linking/code generation, and
the backend's kernel compilation and cache use); the **Class**, **Ops** and **Apply** tables
(``% time``, cumulative ``%``, seconds, seconds per call, ``<type>``: ``Numba``, ``CUDA``,
``BLAS`` or ``Py`` for ``perform``, calls, nodes), limited by ``profiling.n_ops`` and
``profiling.n_apply`` and cut at ``profiling.output_line_width``; the ops inside each fused
kernel; the **Memory Profile** (``profile_memory``, see :mod:`.profiling_memory`); the
**Rewriter Profile** (``profile_optimizer``); a debugprint (``profiling.debugprint``); and tips.

The backend's compile statistics come from :func:`backend_counters` (process counters of the
Numba kernel compiler and the compiledir cache, compared before and after the first call, which
is when kernels compile). A backend can instead give its program a ``compile_report`` (a dict,
or a callable returning one, with ``compile_seconds``, ``compiled``, ``cache_hits``,
``cache_misses``, ``cache_load_seconds``); the profile then prints that.
"""

from __future__ import annotations

import atexit
import warnings
import copy
import io
import sys
import time
from typing import Any, Callable, Sequence

from jitgraph.compile.backend import backends
from jitgraph.compile.profiling_memory import memory_report
from jitgraph.compile.profiling_tables import (apply_table, class_name, fused_table, group_table,
                                               tips)
from jitgraph.config import config
from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.printing import debugprint
from jitgraph.rewrite.stats import RewriteStats

def _process_start() -> float | None:
    """When this process started (Linux), for "Time since the process started"."""
    try:
        with open("/proc/self/stat") as f:
            ticks = int(f.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/stat") as f:
            boot = next(int(line.split()[1]) for line in f if line.startswith("btime"))
        import os

        return boot + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration, AttributeError):
        return None


_LOADED_AT = time.time()  # jitgraph loads this module with the first profiled function
_STARTED_AT = _process_start()


def backend_counters() -> dict[str, float]:
    """Process-wide counters of the loaded backends (kernels compiled, cache hits...).

    Only modules already imported are read (:meth:`~.backend.Backend.counters`): profiling
    never loads a kernel compiler.
    """
    out: dict[str, float] = {}
    for backend in backends():
        for name, value in backend.counters().items():
            out[name] = out.get(name, 0) + value
    store = sys.modules.get("jitgraph.cache.store")
    cache = getattr(store, "STATS", None)
    if cache is not None:
        out["cache_hits"] = cache.hits
        out["cache_misses"] = cache.misses
        out["cache_load_seconds"] = cache.load_seconds
    return out


def _describe_compile(counts: dict[str, float]) -> str:
    parts = []
    if "compiled" in counts:
        parts.append(f"{int(counts['compiled'])} kernels compiled in "
                     f"{counts.get('compile_seconds', 0.0):.3e}s")
    if "cache_hits" in counts:
        parts.append(f"cache: {int(counts['cache_hits'])} hits, "
                     f"{int(counts.get('cache_misses', 0))} misses, "
                     f"{counts.get('cache_load_seconds', 0.0):.3e}s loading")
    return "; ".join(parts) if parts else "no backend compiler statistics"


class ProgramRecord:
    """The per-node measurements of one profiled program."""

    def __init__(self, program: Any, label: str, prefix: str = "", allow_gc: bool = True
                 ) -> None:
        self.program = program
        self.order: list[Apply] = list(program.order)
        self.kinds: list[str] = list(program.kinds)
        self.outputs = list(program.fgraph.outputs)
        self.fgraph = program.fgraph
        self.allow_gc = allow_gc
        self.times = [0.0] * len(self.order)
        self.calls = 0  # calls with per-node timing
        self.sizes: dict[Variable, tuple[int, bool]] = {}  # last call: nbytes, on a device
        self.shapes: dict[Variable, Any] = {}
        self.label = label
        self.prefix = prefix
        self.first_call: float | None = None
        self.first_call_compile: dict[str, float] = {}

    def __getstate__(self) -> dict:
        # the compiled program belongs to this process (its thunks do not pickle); the
        # measurements and the nodes they are about do (a loop's profile is pickled with it)
        state = dict(self.__dict__)
        state["program"] = None
        return state


class ProfileStats:
    """Call counts and times of one compiled function (or of several, when shared).

    ``message`` names it in the report (default: the function's name). With
    ``atexit_print`` it is printed at exit. ``flag_time_thunks`` overrides
    ``profiling.time_thunks``. ``gpu_checks`` (default True) warns when the nodes of a GPU
    program are timed without ``gpuarray.sync``: their times are then launch times only.
    """

    def __init__(self, maker: Any = None, message: str | None = None,
                 atexit_print: bool = True, flag_time_thunks: bool | None = None,
                 gpu_checks: bool = True) -> None:
        self.gpu_checks = bool(gpu_checks)
        self.message = message or (getattr(maker, "name", None) if maker is not None else None)
        self.atexit_print = atexit_print
        self.flag_time_thunks = (bool(config.profiling.time_thunks) if flag_time_thunks is None
                                 else bool(flag_time_thunks))
        self.ignore_first_call = bool(config.profiling.ignore_first_call)
        self.profile_memory = bool(config.profile_memory)
        self.compile_times: dict[str, float] = {}
        self.rewrite_stats: Any = None
        self.fct_callcount = 0
        self.fct_call_time = 0.0
        self.vm_call_time = 0.0
        self.ignored_calls = 0
        self.records: list[ProgramRecord] = []
        #: profiles of the inner functions of loop nodes (scan), printed after this one
        self.inner_profiles: list["ProfileStats"] = []
        self._drop_next = False
        if atexit_print:
            _register(self)

    # -- recording ------------------------------------------------------------------------
    def attach(self, maker: Any, program: Any) -> Callable[[], None]:
        """Profile ``program`` (built by ``maker``); returns what the function runs instead of
        ``program.run``."""
        if self.message is None:
            self.message = getattr(maker, "name", None)
        for key, seconds in getattr(maker, "compile_times", {}).items():
            self.compile_times[key] = self.compile_times.get(key, 0.0) + seconds
        stats = getattr(maker, "rewrite_stats", None)
        if stats is not None:
            if self.rewrite_stats is None:
                self.rewrite_stats = RewriteStats()
            self.rewrite_stats.merge(stats)
        n = len(self.records)
        allow_gc = bool(getattr(getattr(maker, "mode", None), "linker", None) is None
                        or maker.mode.linker.allow_gc)
        rec = ProgramRecord(program, self.message or "function", prefix=f"{n}:" if n else "",
                            allow_gc=allow_gc)
        self.records.append(rec)
        for node in program.order:  # loop nodes profile their inner function here
            hook = getattr(node.op, "attach_inner_profile", None)
            if hook is not None:
                hook(node, self)
        times = rec.times
        sync = _gpu_sync() if config.gpuarray.sync and "CUDA" in rec.kinds else None
        if (self.gpu_checks and self.flag_time_thunks and "CUDA" in rec.kinds
                and not config.gpuarray.sync):
            warnings.warn("profiling the nodes of a GPU program without gpuarray.sync=True: "
                          "each GPU node's time is its launch time, not its run time (set "
                          "the flag, or ProfileStats(gpu_checks=False) to silence this)",
                          stacklevel=3)
        if self.profile_memory:
            _record_sizes_after_each_node(program, rec)
        timed = self.flag_time_thunks
        plain = program.run if not self.profile_memory else program.run_nodes
        state = {"first": True}

        def run() -> None:
            if state["first"]:
                state["first"] = False
                before = backend_counters()
                t0 = time.perf_counter()
                try:
                    if self.ignore_first_call:
                        self._drop_next = True  # record_call() leaves this call out
                        plain()
                    else:
                        run_measured()
                except BaseException:
                    self._drop_next = False  # the call failed: record_call() is not reached
                    raise
                finally:
                    rec.first_call = time.perf_counter() - t0
                    after = backend_counters()
                    rec.first_call_compile = {k: after[k] - before.get(k, 0) for k in after}
                return
            run_measured()

        def run_measured() -> None:
            if timed:
                program.run_nodes(times, sync)
                rec.calls += 1
            else:
                plain()

        return run

    def add_inner_profile(self, stats: "ProfileStats") -> None:
        """Show ``stats`` (a loop's inner function) after this profile's summary."""
        if all(stats is not other for other in self.inner_profiles):
            self.inner_profiles.append(stats)

    def record_call(self, vm_time: float, call_time: float) -> None:
        """Count one call: ``vm_time`` in the program, ``call_time`` in ``__call__``."""
        if self._drop_next:  # profiling.ignore_first_call
            self._drop_next = False
            self.ignored_calls += 1
            return
        self.fct_callcount += 1
        self.vm_call_time += vm_time
        self.fct_call_time += call_time

    # -- derived numbers (Theano's names) -------------------------------------------------
    @property
    def compile_time(self) -> float:
        return sum(self.compile_times.values())

    @property
    def optimizer_time(self) -> float:
        return self.compile_times.get("rewrite", 0.0)

    @property
    def linker_time(self) -> float:
        return self.compile_times.get("link", 0.0)

    @property
    def apply_time(self) -> dict[Apply, float]:
        return {node: t for rec in self.records for node, t in zip(rec.order, rec.times)}

    @property
    def apply_callcount(self) -> dict[Apply, int]:
        return {node: rec.calls for rec in self.records for node in rec.order}

    @property
    def thunk_time(self) -> float:
        return sum(sum(rec.times) for rec in self.records)

    def _rows(self) -> list[tuple[Apply, float, int, str, str]]:
        """(node, seconds, calls, kind, id) of every profiled node."""
        return [(node, t, rec.calls, kind, f"{rec.prefix}{i}")
                for rec in self.records
                for i, (node, t, kind) in enumerate(zip(rec.order, rec.times, rec.kinds))]

    # -- the report -----------------------------------------------------------------------
    def summary(self, file: Any = None, n_ops_to_print: int | None = None,
                n_apply_to_print: int | None = None) -> str:
        """The profile as text (also written to ``file`` when given)."""
        n_ops = config.profiling.n_ops if n_ops_to_print is None else n_ops_to_print
        n_apply = config.profiling.n_apply if n_apply_to_print is None else n_apply_to_print
        width = int(config.profiling.output_line_width)
        lines = self._header()
        rows = self._rows()
        total = sum(r[1] for r in rows)
        if not any(rec.calls for rec in self.records) or total <= 0:
            lines += ["", "No execution time accumulated (hint: try config "
                      "profiling.time_thunks=1)"]
        else:
            lines += [""] + group_table("Class", rows, total, n_ops,
                                        lambda node: class_name(node.op), "Classes")
            lines += [""] + group_table("Ops", rows, total, n_ops,
                                        lambda node: str(node.op), "Ops")
            lines += [""] + apply_table(rows, total, n_apply, self.records)
            lines += fused_table(rows, total)
        if self.profile_memory:
            lines += [""] + memory_report(self.records, n_apply,
                                          int(config.profiling.min_memory_size),
                                          bool(config.profiling.min_peak_memory))
        if self.rewrite_stats is not None and config.profile_optimizer:
            buf = io.StringIO()
            self.rewrite_stats.summary(file=buf)
            lines += ["", "Rewriter Profile", "----------------"] + buf.getvalue().splitlines()
        if config.profiling.debugprint:
            for rec in self.records:
                lines += ["", f"Debugprint of {rec.label}", "---"]
                lines += debugprint(rec.fgraph, file="str").splitlines()
        lines += [""] + tips(rows, total)
        for inner in self.inner_profiles:
            lines += [""] + inner.summary(n_ops_to_print=n_ops,
                                          n_apply_to_print=n_apply).splitlines()
        text = "\n".join(line if len(line) <= width else line[:width] for line in lines) + "\n"
        if file is not None:
            file.write(text)
        return text

    def print_summary(self, file: Any = None, **kwargs: Any) -> None:
        """Print :meth:`summary` (to stdout by default)."""
        (file or sys.stdout).write(self.summary(**kwargs))

    def _header(self) -> list[str]:
        calls, call_t, vm_t = self.fct_callcount, self.fct_call_time, self.vm_call_time
        thunks = self.thunk_time
        ct = self.compile_times

        def pct(x: float) -> str:
            return f"{100 * x / call_t:.1f}%" if call_t > 0 else "n/a"

        lines = ["Function profiling", "==================",
                 f"  Message: {self.message}",
                 f"  Time in {calls} calls to Function.__call__: {call_t:.6e}s"]
        if self.ignored_calls:
            lines.append(f"  ({self.ignored_calls} first call(s) left out: "
                         "profiling.ignore_first_call)")
        if calls:
            lines += [f"  Time in Function.vm.__call__: {vm_t:.6e}s ({pct(vm_t)})",
                      f"  Time in thunks: {thunks:.6e}s ({pct(thunks)})",
                      f"  Overhead: {max(vm_t - thunks, 0.0):.3e}s in the node loop, "
                      f"{max(call_t - vm_t, 0.0):.3e}s in Function.__call__ (arguments, "
                      "outputs, updates)"]
        n_nodes = sum(len(rec.order) for rec in self.records)
        lines += [f"  Total compilation time: {self.compile_time:.6e}s",
                  f"    Number of Apply nodes: {n_nodes}",
                  f"    Graph building (inputs, updates, clone): {ct.get('graph', 0.0):.6e}s",
                  f"    jitgraph rewrite time: {ct.get('rewrite', 0.0):.6e}s"]
        if self.rewrite_stats is not None:
            lines.append(f"       jitgraph validate time: "
                         f"{self.rewrite_stats.validate_time:.6e}s")
        lines.append(f"    jitgraph Linker time (lowering, code generation, kernels compiled "
                     f"eagerly): "
                     f"{ct.get('link', 0.0):.6e}s")
        for rec in self.records:
            lines += _backend_lines(rec)
        if _STARTED_AT is not None:
            lines.append(f"  Time since the process started: {time.time() - _STARTED_AT:.3f}s")
        else:
            lines.append(f"  Time since profiling was loaded: {time.time() - _LOADED_AT:.3f}s")
        return lines


def _backend_lines(rec: ProgramRecord) -> list[str]:
    kinds = {k: rec.kinds.count(k) for k in dict.fromkeys(rec.kinds)}
    prefix = f"    [{rec.prefix.rstrip(':')}] " if rec.prefix else "    "
    lines = [prefix + "Nodes by implementation: "
             + ", ".join(f"{k} {n}" for k, n in kinds.items())]
    report = getattr(rec.program, "compile_report", None)
    if callable(report):
        report = report()
    if isinstance(report, dict):
        lines.append(prefix + "Kernel compilation (reported by the backend): "
                     + _describe_compile(report))
    elif any(k != "Py" for k in rec.kinds):
        lines.append(prefix + "Kernel compilation, whole process so far (the linker time "
                     "includes what it compiled): " + _describe_compile(backend_counters()))
    if rec.first_call is not None:
        lines.append(prefix + f"First call: {rec.first_call:.6e}s (kernel compilation "
                     f"during it: {_describe_compile(rec.first_call_compile)})")
    return lines


def _gpu_sync() -> Callable[[], None] | None:
    try:
        import cupy
    except ImportError:
        return None
    return cupy.cuda.runtime.deviceSynchronize


def _record_sizes_after_each_node(program: Any, rec: ProgramRecord) -> None:
    """Chain a post-node hook that notes the size and shape of each output (profile_memory)."""
    import numpy as np

    storage, previous = program.storage, program.post_node
    sizes, shapes = rec.sizes, rec.shapes

    def note(i: int, node: Apply, thunk: Any) -> None:
        if previous is not None:
            previous(i, node, thunk)
        for inp in node.inputs:  # graph inputs and constants: shapes only (not counted)
            if inp.owner is None:
                shapes[inp] = getattr(storage[inp][0], "shape", None)
        for out in node.outputs:
            value = storage[out][0]
            nbytes = getattr(value, "nbytes", None)
            if nbytes is not None:
                sizes[out] = (int(nbytes), not isinstance(value, np.ndarray))
                shapes[out] = getattr(value, "shape", None)

    program.post_node = note


# ---------------------------------------------------------------------------------------------
# Printing at exit

_REGISTERED: list[ProfileStats] = []
_ATEXIT_INSTALLED = False


def _register(stats: ProfileStats) -> None:
    global _ATEXIT_INSTALLED
    _REGISTERED.append(stats)
    if not _ATEXIT_INSTALLED:
        atexit.register(_print_at_exit)
        _ATEXIT_INSTALLED = True


def _print_at_exit() -> None:
    """The exit printer: as Theano 1.0, profiles are written at exit only while the ``profile``
    flag is on; ``function(..., profile=True)`` alone keeps its profile for ``f.profile``."""
    if config.profile:
        print_registered_profiles()


def merged(profiles: Sequence[ProfileStats], message: str) -> ProfileStats:
    """One profile adding up several (for the "Sum of all printed profiles" block)."""
    total = ProfileStats(message=message, atexit_print=False)
    for p in profiles:
        total.fct_callcount += p.fct_callcount
        total.fct_call_time += p.fct_call_time
        total.vm_call_time += p.vm_call_time
        total.ignored_calls += p.ignored_calls
        for key, seconds in p.compile_times.items():
            total.compile_times[key] = total.compile_times.get(key, 0.0) + seconds
        if p.rewrite_stats is not None:
            if total.rewrite_stats is None:
                total.rewrite_stats = RewriteStats()
            total.rewrite_stats.merge(p.rewrite_stats)
        total.records.extend(copy.copy(rec) for rec in p.records)
    if len(total.records) > 1:
        for k, rec in enumerate(total.records):
            rec.prefix = f"{k}:"  # ids stay unique across functions
    total.profile_memory = any(p.profile_memory for p in profiles)
    return total


def print_registered_profiles(file: Any = None) -> None:
    """Write every registered profile (the atexit printer; ``file`` overrides
    ``profiling.destination``). Profiles of functions never called are skipped."""
    shown = [p for p in _REGISTERED if p.fct_callcount or p.ignored_calls or p.compile_time > 1]
    if not shown:
        return
    shown.sort(key=lambda p: -(p.compile_time + p.fct_call_time))
    texts = [p.summary() for p in shown]
    if len(shown) > 1:
        texts.append(merged(shown, f"Sum of all({len(shown)}) printed profiles at exit")
                     .summary())
    skipped = len(_REGISTERED) - len(shown)
    if skipped:
        texts.append(f"Skipped {skipped} empty profile(s) (functions never called).\n")
    text = "\n".join(texts)
    if file is not None:
        file.write(text)
    else:
        write_to_destination(text)


_WRITTEN_FILES: set[str] = set()


def write_to_destination(text: str) -> None:
    """Write ``text`` to ``profiling.destination``: ``stderr``, ``stdout`` or a file (created
    by the first write of the process, appended to by later ones)."""
    dest = str(config.profiling.destination)
    if dest in ("stderr", "stdout"):
        getattr(sys, dest).write(text)
        return
    with open(dest, "a" if dest in _WRITTEN_FILES else "w") as out:
        out.write(text)
    _WRITTEN_FILES.add(dest)


__all__ = ["ProfileStats", "ProgramRecord", "backend_counters", "merged",
           "print_registered_profiles", "write_to_destination"]
