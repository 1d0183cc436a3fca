"""The per-run settings of a rewrite, and the one path through which every replacement goes.

A :class:`RewriteContext` snapshots the flags at the start of a run (``on_opt_error``,
``optimizer_verbose``, ``profile_optimizer``, ``check_stack_trace``, ``optdb.max_use_ratio``) and
owns the :class:`~jitgraph.rewrite.stats.RewriteStats`. Node rewriters and graph rewriters such as
merge hand their replacements to :meth:`RewriteContext.apply_replacements`, which checks types and
stack traces, applies all replacements or none, prints them when verbose and counts them.
"""

from __future__ import annotations

import logging
import time
import warnings
from collections.abc import Iterable
from typing import Any

from jitgraph.graph.basic import Apply, TraceFrame, Variable
from jitgraph.graph.fg import FunctionGraph
from jitgraph.rewrite import _flags
from jitgraph.rewrite.features import check_replacement_types, replace_validate
from jitgraph.rewrite.stats import RewriteStats

_logger = logging.getLogger("jitgraph.rewrite")


class RewriteWarning(UserWarning):
    """A rewrite failed and was skipped, looped, or broke a graph invariant."""


class StackTraceError(AssertionError):
    """``check_stack_trace='raise'`` and a rewrite produced a variable without ``tag.trace``."""


class StopCompilation(Exception):
    """Raised inside a rewrite when the compilation must stop whatever ``on_opt_error`` says:
    the environment failed, not the rewrite (a GPU required by ``force_device=True`` cannot be
    used). Subclasses name the reason."""


def rewriter_name(rewriter: Any) -> str:
    """The name used in messages, statistics and database queries."""
    return (getattr(rewriter, "name", None) or getattr(rewriter, "__name__", None)
            or type(rewriter).__name__)


def _describe(var: Variable) -> str:
    return str(var.owner) if var.owner is not None else str(var)


class RewriteContext:
    """Flags and statistics shared by every rewriter of one run."""

    def __init__(self, stats: RewriteStats | None = None) -> None:
        self.stats = stats if stats is not None else RewriteStats()
        self.on_error = str(_flags.flag("on_opt_error"))
        self.verbose = bool(_flags.flag("optimizer_verbose"))
        self.profile = bool(_flags.flag("profile_optimizer"))
        self.check_trace = str(_flags.flag("check_stack_trace"))
        self.max_use_ratio = float(_flags.flag("optdb.max_use_ratio"))
        #: replacements accepted so far in this run (drivers compare it to detect progress)
        self.n_applied = 0

    # -- errors ---------------------------------------------------------------------------
    def handle_error(self, rewriter: Any, node: Apply | None, exc: BaseException) -> None:
        """Deal with a rewrite that raised, following ``on_opt_error``.

        Must be called from the ``except`` block that caught ``exc``: under ``raise`` it re-raises
        ``exc`` with a note naming the rewrite; otherwise the rewrite is skipped (after a warning,
        a debugger session or silently).
        """
        if getattr(exc, "_rewrite_handled", False) or isinstance(exc, StopCompilation):
            raise exc  # re-raised by a nested phase, or not the rewrite's failure
        name = rewriter_name(rewriter)
        self.stats.record(name).failed += 1
        where = f" on node {node}" if node is not None else ""
        msg = f"rewrite {name} failed{where}: {type(exc).__name__}: {exc}"
        if self.on_error == "raise":
            exc._rewrite_handled = True  # type: ignore[attr-defined]
            exc.rewrite_name = name  # type: ignore[attr-defined]  (for DebugMode's report)
            if hasattr(exc, "add_note"):
                exc.add_note(f"(raised inside rewrite {name}{where}; "
                             "set on_opt_error='warn' to skip failing rewrites)")
            raise exc
        if self.on_error == "ignore":
            _logger.debug(msg, exc_info=exc)
            return
        if self.on_error == "pdb":
            import pdb

            print(msg)
            pdb.post_mortem(exc.__traceback__)
            return
        _logger.debug(msg, exc_info=exc)
        warnings.warn(f"{msg}\nThe rewrite was skipped and the graph is unchanged by it (set "
                      "on_opt_error='raise' to stop here and see the traceback).",
                      RewriteWarning, stacklevel=2)

    # -- replacements ---------------------------------------------------------------------
    def _fix_trace(self, rewriter: Any, old: Variable, new: Variable) -> None:
        if hasattr(new.tag, "trace"):
            return
        name = rewriter_name(rewriter)
        if self.check_trace == "raise":
            raise StackTraceError(
                f"rewrite {name} replaced {old} by {new}, which has no stack trace (tag.trace); "
                "copy the trace of the replaced variable (jitgraph.rewrite.copy_stack_trace)")
        trace = getattr(old.tag, "trace", None)
        if trace is None and self.check_trace != "off":
            # A recognisable fake frame says which rewrite made the variable.
            trace = [TraceFrame(f"<rewrite {name}>", 0, name, lookup_line=False)]
        if trace is not None:
            new.tag.trace = list(trace)
        if self.check_trace == "log":
            _logger.info("rewrite %s did not give %s a stack trace", name, new)
        elif self.check_trace == "warn":
            warnings.warn(f"rewrite {name} did not give {new} a stack trace; copy the trace of "
                          f"{old} (jitgraph.rewrite.copy_stack_trace)", RewriteWarning,
                          stacklevel=3)

    def apply_replacements(self, fgraph: FunctionGraph,
                           pairs: Iterable[tuple[Variable, Variable]], rewriter: Any,
                           node: Apply | None = None) -> bool:
        """Replace each ``old`` by ``new`` on behalf of ``rewriter``: all of them, or none.

        Returns True if the graph changed. A type change raises ``TypeError`` (callers route it
        through :meth:`handle_error`); a graph the features reject (``InconsistencyError``) is
        rolled back and counted as rejected.
        """
        checked = check_replacement_types(pairs)
        checked = [(o, n) for o, n in checked if o in fgraph.variables]
        if not checked:
            return False
        for old, new in checked:
            # Variables already in the graph (x * 1 -> x) keep their own provenance.
            if new not in fgraph.variables:
                self._fix_trace(rewriter, old, new)
        name = rewriter_name(rewriter)
        t0 = time.perf_counter()
        ok = replace_validate(fgraph, checked, reason=rewriter)
        self.stats.validate_time += time.perf_counter() - t0
        record = self.stats.record(name)
        if not ok:
            record.rejected += 1
            _logger.debug("rewrite %s on %s rejected by a graph feature", name, node)
            return False
        record.applied += 1
        self.n_applied += 1
        if self.verbose:
            for old, new in checked:
                print(f"rewriting: {name}: {_describe(old)} -> {_describe(new)}")
        return True


def copy_stack_trace(from_var: Variable | Iterable[Variable], to_var: Variable | Iterable[Variable]
                     ) -> None:
    """Give ``to_var`` (one or several variables) the stack traces of ``from_var`` (concatenated).

    Rewrites call this on the variables they build so that runtime errors point at the user code
    that created the replaced expression.
    """
    sources = [from_var] if isinstance(from_var, Variable) else list(from_var)
    targets = [to_var] if isinstance(to_var, Variable) else list(to_var)
    trace: list = []
    for src in sources:
        trace.extend(getattr(src.tag, "trace", []) or [])
    for dst in targets:
        dst.tag.trace = list(trace)


def shape_error(node: Apply, exc: BaseException) -> None:
    """Report that ``node.op.infer_shape`` failed, following ``config.on_shape_error``.

    For the shape-inference feature: under ``warn`` it warns and returns (the caller then falls
    back to computing the shape at run time); under ``raise`` it re-raises ``exc`` with a note.
    Must be called from the ``except`` block that caught ``exc``.
    """
    msg = f"infer_shape of {node.op} failed on {node}: {type(exc).__name__}: {exc}"
    if _flags.flag("on_shape_error") == "raise":
        if hasattr(exc, "add_note"):
            exc.add_note(f"({msg}; set on_shape_error='warn' to fall back to runtime shapes)")
        raise exc
    warnings.warn(f"{msg}; the shape will be computed at run time instead", RewriteWarning,
                  stacklevel=2)
