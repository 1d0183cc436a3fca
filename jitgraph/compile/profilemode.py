"""ProfileMode: Theano 0.x's profiling mode, kept for old scripts.

::

    profmode = jitgraph.ProfileMode()            # or ProfileMode(optimizer=..., linker=...)
    f = jitgraph.function([x], y, mode=profmode)
    ...                                          # call f
    profmode.print_summary()

Every function compiled with the mode is profiled (as with ``profile=True``); the mode keeps
their :class:`~jitgraph.compile.profiling.ProfileStats` in ``profile_stats`` and prints them
together in the old layout (Apply-wise, Op-wise and single Op-wise summaries, ``*`` marking
compiled implementations). ``mode='ProfileMode'`` (or ``PROFILE_MODE``) gathers every function
compiled by name into one process-wide collection, printed at exit to ``profiling.destination``.
``ProfileMode.n_apply_to_print``, ``n_ops_to_print``, ``min_memory_size`` and ``profile_memory``
configure it. New code should use ``profile=True`` and ``f.profile.summary()``.
"""

from __future__ import annotations

import atexit
import sys
import time
from typing import Any

from jitgraph.compile.mode import Mode
from jitgraph.compile.profiling import ProfileStats, _STARTED_AT, merged, write_to_destination
from jitgraph.compile.profiling_memory import memory_report
from jitgraph.compile.profiling_tables import tips
from jitgraph.config import config

_IMPORTED_AT = time.time()


class ProfileMode(Mode):
    """A :class:`Mode` (default linker and optimizer from the flags) that profiles every
    function compiled with it; see :meth:`print_summary`."""

    def __init__(self, linker: Any = None, optimizer: Any = "default") -> None:
        super().__init__(linker, optimizer, name="ProfileMode")
        self.profile_stats: list[ProfileStats] = []

    def make_profile(self, maker: Any) -> ProfileStats:
        """The profile of a function compiled with this mode (called by ``Function``)."""
        stats = ProfileStats(maker, atexit_print=False)
        stats.profile_memory = bool(config.ProfileMode.profile_memory or config.profile_memory)
        self.profile_stats.append(stats)
        return stats

    def _clone(self, **changes: Any) -> "ProfileMode":
        new = super()._clone(**changes)
        new.profile_stats = self.profile_stats  # including(...) still reports here
        return new

    # -- the report -----------------------------------------------------------------------
    def summary(self, n_apply_to_print: int | None = None, n_ops_to_print: int | None = None
                ) -> str:
        """The old ``print_summary`` text."""
        n_apply = n_apply_to_print or config.ProfileMode.n_apply_to_print
        n_ops = n_ops_to_print or config.ProfileMode.n_ops_to_print
        called = [s for s in self.profile_stats if s.fct_callcount]
        lines = ["ProfileMode.print_summary()", "---------------------------", ""]
        total = merged(called, "ProfileMode") if called else None
        compile_t = sum(s.compile_time for s in self.profile_stats)
        rewrite_t = sum(s.optimizer_time for s in self.profile_stats)
        link_t = sum(s.linker_time for s in self.profile_stats)

        lines += [f"Time since import {time.time() - (_STARTED_AT or _IMPORTED_AT):.3f}s",
                  f"jitgraph compile time: {compile_t:.3f}s ({rewrite_t:.3f}s in the rewriter, "
                  f"{link_t:.3f}s in the linker)"]
        if total is None:
            lines.append("No function compiled with this ProfileMode was called.")
            return "\n".join(lines) + "\n"
        local = total.thunk_time
        call_t = total.fct_call_time
        lines += [f"jitgraph fct call {call_t:.3f}s ({local:.3f}s in thunks (Op time), "
                  f"{max(call_t - local, 0.0):.3f}s function overhead)",
                  f"local_time {local:.6g} (Time spent running thunks)", "",
                  "jitgraph fct summary:",
                  "<% total fct time> <total time> <time per call> <nb call> <fct name>"]
        for s in sorted(called, key=lambda s: -s.fct_call_time):
            lines.append(f"   {100 * s.fct_call_time / call_t if call_t else 0:5.1f}%   "
                         f"{s.fct_call_time:.3f}s   {s.fct_call_time / s.fct_callcount:.2e}s   "
                         f"{s.fct_callcount:6d}  {s.message}")
        lines.append("")
        rows = total._rows()
        if local <= 0:
            lines.append("No execution time accumulated (hint: try config "
                         "profiling.time_thunks=1)")
        else:
            lines += _apply_wise(rows, local, n_apply)
            lines += _op_wise(rows, local, n_ops, lambda node: str(node.op), "Op-wise summary",
                              "Op name", "Ops")
            lines += _op_wise(rows, local, n_ops, lambda node: type(node.op).__name__,
                              "Single Op-wise summary", "Op class", "Op classes")
            lines.append("(*) Op is running a compiled implementation (Numba, CUDA or BLAS)")
        if total.profile_memory:
            lines += [""] + memory_report(total.records, n_apply,
                                          int(config.ProfileMode.min_memory_size), False)

        lines += [""] + tips(rows, local)
        return "\n".join(lines) + "\n"

    def print_summary(self, file: Any = None, n_apply_to_print: int | None = None,
                      n_ops_to_print: int | None = None) -> None:
        """Print the profile of every function compiled with this mode (stdout by default)."""
        (file or sys.stdout).write(self.summary(n_apply_to_print, n_ops_to_print))


def _mark(kinds: list[str]) -> str:
    return "*" if any(k != "Py" for k in kinds) else " "


def _apply_wise(rows: list, local: float, limit: int) -> list[str]:
    ordered = sorted(rows, key=lambda r: -r[1])
    lines = ["Apply-wise summary: <fraction of local_time spent at this position> "
             "(<Apply position>, <Apply Op name>)"]
    for node, seconds, _calls, kind, ident in ordered[:limit]:
        lines.append(f"        {seconds / local:.3f}   {ident:<6s}  {_mark([kind])} {node.op}")
    rest = ordered[limit:]
    lines.append(f"   ... (remaining {len(rest)} Apply instances account for "
                 f"{sum(r[1] for r in rest) / local:.2f} of the runtime)")
    return lines


def _op_wise(rows: list, local: float, limit: int, key: Any, title: str, name: str,
             plural: str) -> list[str]:
    groups: dict[str, list] = {}
    for row in rows:
        groups.setdefault(key(row[0]), []).append(row)
    stats = sorted(((sum(r[1] for r in g), [r[3] for r in g], n) for n, g in groups.items()),
                   key=lambda s: (-s[0], s[2]))
    lines = [f"{title}: <fraction of local_time spent on this kind of Op> <{name}>"]
    for seconds, kinds, label in stats[:limit]:
        lines.append(f"        {seconds / local:.3f}   {_mark(kinds)} {label}")
    rest = stats[limit:]
    lines.append(f"   ... (remaining {len(rest)} {plural} account for "
                 f"{sum(s[0] for s in rest) / local:.2f} of the runtime)")
    return lines


# ---------------------------------------------------------------------------------------------
# mode='ProfileMode': one collection for every function compiled by name

_NAMED_STATS: list[ProfileStats] = []
_ATEXIT_INSTALLED = False


def named_profile_mode() -> ProfileMode:
    """The mode ``mode='ProfileMode'`` gives: a new ProfileMode (current flags) whose profiles
    go to one process-wide collection, printed at exit."""
    global _ATEXIT_INSTALLED
    mode = ProfileMode()
    mode.profile_stats = _NAMED_STATS
    if not _ATEXIT_INSTALLED:
        atexit.register(_print_named_at_exit)
        _ATEXIT_INSTALLED = True
    return mode


def _print_named_at_exit() -> None:
    if not any(s.fct_callcount for s in _NAMED_STATS):
        return
    mode = ProfileMode.__new__(ProfileMode)
    mode.profile_stats = _NAMED_STATS
    write_to_destination(mode.summary())


__all__ = ["ProfileMode", "named_profile_mode"]
