"""DebugMode's record of the rewrites a graph went through.

:class:`ReplacementTracker` (a FunctionGraph feature) keeps every replacement a rewrite made,
with the graph around it then (:class:`Replacement`); at each call DebugMode evaluates both
sides (:func:`evaluate_replacement`) and reports a difference as ``BadOptimization``.
:func:`graph_signature` describes a rewritten graph independently of variable ids, so that
rewriting identical copies (:func:`copy_for_rewrite`) can be compared for ``StochasticOrder``
(:func:`stochastic_message` says where they differ).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from jitgraph.compile.debugmode_values import copy_value, evaluate
from jitgraph.graph.basic import Apply, Constant, Variable
from jitgraph.graph.fg import Feature, FunctionGraph
from jitgraph.graph.printing import debugprint
from jitgraph.rewrite.destroyhandler import DestroyHandler, get_destroy_handler


@dataclass
class Replacement:
    """One replacement, with the graph around it as it was when the rewrite made it.

    ``old_inputs`` are the inputs of ``old``'s node then, ``new_nodes`` the nodes the rewrite
    built (with their inputs then, in topological order); both sides read the ``frontier``
    variables, which existed before. Checking the replacement evaluates the frontier once and
    both sides from it, so later rewrites of the surrounding graph cannot blur the comparison.
    """

    old: Variable
    new: Variable
    reason: Any
    old_inputs: tuple[Variable, ...]
    new_nodes: list[tuple[Apply, tuple[Variable, ...]]]
    frontier: list[Variable]


class ReplacementTracker(Feature):
    """Records every replacement made in a graph (rollbacks excluded) as :class:`Replacement`."""

    def __init__(self) -> None:
        self.replacements: list[Replacement] = []
        self._seen: set[tuple[int, int]] = set()
        self._fresh: set[Apply] = set()  # nodes imported since the last replacement

    def on_import(self, fgraph: FunctionGraph, node: Apply, reason: Any) -> None:
        self._fresh.add(node)

    def on_change_input(self, fgraph: FunctionGraph, node: Any, i: int, old: Variable,
                        new: Variable, reason: Any) -> None:
        fresh, self._fresh = self._fresh, set()
        # History undoing a refused change is not a claim of equality; a replaced input
        # (not a computed variable) has nothing to compare.
        if reason == "revert" or old.owner is None or isinstance(old, Constant):
            return
        key = (id(old), id(new))
        if key in self._seen:
            return
        self._seen.add(key)
        new_nodes: list[tuple[Apply, tuple[Variable, ...]]] = []
        frontier: dict[Variable, None] = dict.fromkeys(old.owner.inputs)
        done: set[Apply] = set()
        stack: list[tuple[Variable, bool]] = [(new, False)]
        while stack:  # post-order walk of the freshly built part of ``new``
            var, expanded = stack.pop()
            owner = var.owner
            if owner is None or owner not in fresh:
                frontier.setdefault(var)
                continue
            if owner in done:
                continue
            if expanded:
                done.add(owner)
                new_nodes.append((owner, tuple(owner.inputs)))
                continue
            stack.append((var, True))
            stack.extend((inp, False) for inp in reversed(owner.inputs))
        self.replacements.append(Replacement(old, new, reason, tuple(old.owner.inputs),
                                             new_nodes, list(frontier)))


def copy_for_rewrite(fgraph: FunctionGraph) -> FunctionGraph:
    """A copy of ``fgraph`` to rewrite again, with the same in-place permissions."""
    copy, equiv = fgraph.clone_get_equiv()
    handler = get_destroy_handler(fgraph)
    if handler is not None:
        copy.attach_feature(DestroyHandler(
            mutable=[equiv[v] for v in handler.mutable if v in equiv],
            protected=[equiv[v] for v in handler.protected if v in equiv]))
    return copy


def graph_signature(fgraph: FunctionGraph) -> list[str]:
    """One line per node (op and where its inputs come from), independent of variable ids."""
    names: dict[Variable, str] = {v: f"in{k}" for k, v in enumerate(fgraph.inputs)}

    def ref(var: Variable) -> str:
        if var in names:
            return names[var]
        if isinstance(var, Constant):
            return f"{var}#{hash(var.signature()) & 0xFFFFFF:06x}"
        return f"?{var}"

    lines = []
    for n, node in enumerate(fgraph.toposort()):
        lines.append(f"{n}: {node.op}({', '.join(ref(i) for i in node.inputs)})")
        for k, out in enumerate(node.outputs):
            names[out] = f"n{n}.{k}"
    lines.append("outputs: " + ", ".join(ref(o) for o in fgraph.outputs))
    return lines


def stochastic_message(fgraph: FunctionGraph, other: FunctionGraph, ref: list[str],
                       sig: list[str], run: int, patience: int) -> str:
    """The report of two rewrites of identical graphs that differ (their signatures)."""
    first = next((k for k, (a, b) in enumerate(zip(ref, sig)) if a != b), min(len(ref), len(sig)))
    line_a = ref[first] if first < len(ref) else "(no more nodes)"
    line_b = sig[first] if first < len(sig) else "(no more nodes)"

    return (f"StochasticOrder: rewriting identical copies of the graph gave different results "
            f"(run 1 and run {run} of DebugMode.patience={patience}); some rewrite depends on "
            f"something other than the graph (set/dict order, ids, global state).\n"
            f"  first difference at line {first}:\n    run 1:   {line_a}\n"
            f"    run {run}: {line_b}\n"
            f"  run 1 graph:\n{debugprint(fgraph, file='str')}"
            f"  run {run} graph:\n{debugprint(other, file='str')}")


def evaluate_replacement(rep: Replacement, memo: dict) -> tuple[Any, Any]:
    """Both sides of a replacement, from the same values of its frontier variables."""
    local = {var: evaluate(var, memo) for var in rep.frontier}
    node = rep.old.owner
    cells: list[list[Any]] = [[None] for _ in node.outputs]
    node.op.perform(node, [copy_value(local[v]) for v in rep.old_inputs], cells)
    old_val = cells[rep.old.index][0]
    for new_node, inputs in rep.new_nodes:
        cells = [[None] for _ in new_node.outputs]
        new_node.op.perform(new_node, [copy_value(local[v]) for v in inputs], cells)
        for out, cell in zip(new_node.outputs, cells):
            local[out] = cell[0]
    return old_val, local[rep.new]


__all__ = ["Replacement", "ReplacementTracker", "copy_for_rewrite", "graph_signature",
           "stochastic_message", "evaluate_replacement"]
