"""The graph-validity check run after every rewrite phase.

A phase must leave a graph that computes outputs of the same types, has no cycle, has client
lists consistent with its nodes (every input of every node is in the graph) and respects the
inplace rules. :class:`GraphSnapshot` records what is needed before the phase and
:meth:`GraphSnapshot.check` describes the first problem found after it (or returns None). The
driver then reverts the phase and reports the problem through :meth:`GraphSnapshot.report`.
"""

from __future__ import annotations

import warnings

from jitgraph.graph.basic import Apply
from jitgraph.graph.fg import FunctionGraph, InconsistencyError
from jitgraph.rewrite.context import RewriteWarning


class GraphValidityError(AssertionError):
    """A rewrite phase produced an invalid graph (raised when ``on_opt_error='raise'``)."""


def _destroy_checker(fgraph: FunctionGraph) -> object | None:
    for feature in fgraph.features:
        if getattr(feature, "checks_destroyers", False):
            return feature
    return None


def _destroyers(fgraph: FunctionGraph) -> set[Apply]:
    return {n for n in fgraph.apply_nodes if n.op.destroy_map}


class GraphSnapshot:
    """What a phase must preserve, recorded before the phase runs."""

    def __init__(self, fgraph: FunctionGraph) -> None:
        self.output_types = [o.type for o in fgraph.outputs]
        # Without a destroy handler nothing orders destroyers after readers, so a phase must not
        # add any; the ones the user wrote are left alone.
        self.unchecked_destroyers = (
            _destroyers(fgraph) if _destroy_checker(fgraph) is None else None)

    def check(self, fgraph: FunctionGraph) -> str | None:
        """The first problem with ``fgraph`` (a sentence), or None if it is valid."""
        if len(fgraph.outputs) != len(self.output_types):
            return (f"the graph has {len(fgraph.outputs)} outputs instead of "
                    f"{len(self.output_types)}")
        for i, (out, old_type) in enumerate(zip(fgraph.outputs, self.output_types)):
            if out.type != old_type:
                return f"output {i} changed type from {old_type} to {out.type}"
        try:
            nodes = set(fgraph.toposort(recompute=True))
        except ValueError as exc:  # io_toposort reports cycles as ValueError
            return str(exc)
        if nodes != fgraph.apply_nodes:
            return "the graph's node set is out of sync with its outputs"
        # One set of all client entries: a variable may have thousands of clients. (Nodes and
        # variables hash by identity.)
        recorded = {(c, i, v) for v, cl in fgraph.clients.items() for c, i in cl}
        variables = fgraph.variables
        for node in nodes:
            for i, inp in enumerate(node.inputs):
                if inp not in variables:
                    return f"input {i} ({inp}) of {node} is not in the graph"
                if (node, i, inp) not in recorded:
                    return f"the client list of {inp} misses input {i} of {node}"
        if self.unchecked_destroyers is not None:
            new = _destroyers(fgraph) - self.unchecked_destroyers
            if new:
                node = next(iter(new))
                return (f"{node} destroys an input but the graph has no DestroyHandler "
                        "(declare the rewrite with inplace=True)")
        try:
            fgraph.validate()
        except InconsistencyError as exc:
            return f"a graph feature rejects the result: {exc}"
        return None

    @staticmethod
    def report(phase: str, problem: str, on_error: str) -> None:
        """Tell the user that ``phase`` was undone because of ``problem``."""
        msg = (f"rewrite phase {phase} produced an invalid graph ({problem}); "
               "its changes were undone")
        if on_error == "raise":
            error = GraphValidityError(msg)
            error._rewrite_handled = True  # type: ignore[attr-defined]
            raise error
        if on_error != "ignore":
            warnings.warn(msg, RewriteWarning, stacklevel=3)


def check_graph(fgraph: FunctionGraph) -> None:
    """Raise :class:`GraphValidityError` if ``fgraph`` is structurally invalid (for tests/debug)."""
    problem = GraphSnapshot(fgraph).check(fgraph)
    if problem is not None:
        raise GraphValidityError(problem)
