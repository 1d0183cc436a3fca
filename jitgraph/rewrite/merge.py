"""Merge (common-subexpression elimination): one variable per distinct value.

Constants with equal signatures (type and value) are replaced by one of them, then nodes applying
equal ops to the same inputs are merged, visiting the graph in topological order so that merged
inputs make their clients mergeable in the same pass; passes repeat until nothing merges.

Nodes that destroy an input are never merged (each overwrites its own copy); any other merge the
graph's features refuse (e.g. one that would force an impossible in-place order) is skipped.
Ops are assumed deterministic: equal ops on equal inputs give equal outputs.
"""

from __future__ import annotations

from typing import Any

from jitgraph.graph.basic import Apply, Constant
from jitgraph.graph.fg import FunctionGraph
from jitgraph.rewrite.context import RewriteContext
from jitgraph.rewrite.engine import GraphRewriter


class MergeGraphRewriter(GraphRewriter):
    """Merges equal constants and equal nodes until a fixed point."""

    def __init__(self, name: str = "merge") -> None:
        super().__init__(name)

    def apply(self, fgraph: FunctionGraph, ctx: RewriteContext) -> None:
        self.merge_constants(fgraph, ctx)
        while True:
            merged, refused = self._merge_pass(fgraph, ctx)
            # A pass whose every merge was made leaves nothing to merge: a node's inputs are
            # final when the pass reaches it (they come earlier in the order), so two equal
            # nodes left would have met in the pass. Only a refused merge (a feature said no)
            # may succeed once other merges are made.
            if not merged or not refused:
                return

    def merge_constants(self, fgraph: FunctionGraph, ctx: RewriteContext) -> int:
        """Replace duplicate constants by the first one seen; returns the number merged."""
        canonical: dict[Any, Constant] = {}
        merged = 0
        for const in _constants_in_order(fgraph):
            try:
                key = const.signature()
                first = canonical.setdefault(key, const)
            except TypeError:  # an unhashable signature: this constant cannot be merged
                continue
            if first is not const and ctx.apply_replacements(fgraph, [(const, first)], self):
                merged += 1
        return merged

    def merge_nodes(self, fgraph: FunctionGraph, ctx: RewriteContext) -> int:
        """One topological pass merging equal nodes; returns the number merged."""
        return self._merge_pass(fgraph, ctx)[0]

    def _merge_pass(self, fgraph: FunctionGraph, ctx: RewriteContext) -> tuple[int, int]:
        """One topological pass merging equal nodes: (merges made, merges refused)."""
        seen: dict[tuple, Apply] = {}
        merged = refused = 0
        for node in fgraph.toposort():
            if node not in fgraph.apply_nodes or node.op.destroy_map:
                continue
            key = (node.op, tuple(node.inputs))  # variables hash by identity
            try:
                other = seen.setdefault(key, node)
            except TypeError:  # an unhashable op
                continue
            if other is node:
                continue
            if other not in fgraph.apply_nodes:
                seen[key] = node
                continue
            pairs = list(zip(node.outputs, other.outputs))
            if ctx.apply_replacements(fgraph, pairs, self, node):
                merged += 1
            else:
                refused += 1
        return merged, refused


def _constants_in_order(fgraph: FunctionGraph) -> list[Constant]:
    # Graph order, not set order: which duplicate survives must not depend on memory addresses.
    found: dict[int, Constant] = {}
    for node in fgraph.toposort():
        for inp in node.inputs:
            if isinstance(inp, Constant):
                found.setdefault(id(inp), inp)
    for out in fgraph.outputs:
        if isinstance(out, Constant):
            found.setdefault(id(out), out)
    return list(found.values())
