"""Which graph variables a symbolic shape refers to, remembered across queries.

The :class:`~jitgraph.tensor.rewriting.shape.ShapeFeature` records, for every stored shape, the
variables of the FunctionGraph (or ownerless ones) its dims are computed from, walking each dim's
expression until it meets the graph. Those expressions live mostly outside the graph and build on
each other: in a deep network the shape of layer k is an expression over the shape of layer
k - 1, so walking each one anew cost O(depth) per stored shape, O(nodes x depth) per compile.
:class:`LeafIndex` remembers the answer for every out-of-graph variable it walked through. An
answer stays right until the graph takes in one of those variables (a rewrite imported part of a
shape expression: the walk would now stop there) or drops one of the variables a walk stopped at
(the walk would now go on through it); the feature reports both, and the index then forgets
everything.
"""

from __future__ import annotations

from collections.abc import Iterable

from jitgraph.graph.basic import Apply, Constant, Variable


class LeafIndex:
    """``leaves(var)``: the graph (or ownerless) variables an expression reads, stopping at the
    graph; remembered for the out-of-graph variables met on the way."""

    def __init__(self) -> None:
        self._memo: dict[Variable, frozenset[Variable]] = {}  # out-of-graph var -> its leaves
        self._stops: set[Variable] = set()  # graph variables some remembered walk stopped at

    def clear(self) -> None:
        self._memo.clear()
        self._stops.clear()

    def imported(self, node: Apply) -> None:
        """``node`` joined the graph: forget if a remembered walk went through its outputs."""
        if self._memo and any(out in self._memo for out in node.outputs):
            self.clear()

    def pruned(self, node: Apply) -> None:
        """``node`` left the graph: forget if a remembered walk stopped at its outputs."""
        if self._stops and any(out in self._stops for out in node.outputs):
            self.clear()

    def leaves(self, dims: Iterable[Variable], graph_vars: set[Variable]) -> set[Variable]:
        """The variables of ``graph_vars`` (or ownerless ones) that ``dims`` are computed from,
        constants left out."""
        found: set[Variable] = set()
        for dim in dims:
            if not isinstance(dim, Variable) or isinstance(dim, Constant):
                continue
            if dim in graph_vars or dim.owner is None:
                found.add(dim)
            else:
                found |= self._leaves_of(dim, graph_vars)
        return found

    def _leaves_of(self, var: Variable, graph_vars: set[Variable]) -> frozenset[Variable]:
        memo = self._memo
        hit = memo.get(var)
        if hit is not None:
            return hit
        stack = [var]
        while stack:  # post-order over the out-of-graph variables not yet remembered
            v = stack[-1]
            if v in memo:
                stack.pop()
                continue
            inputs = v.owner.inputs
            pending = [i for i in inputs if i not in memo and _walked(i, graph_vars)]
            if pending:
                stack.extend(pending)
                continue
            stack.pop()
            acc: set[Variable] = set()
            for inp in inputs:
                if isinstance(inp, Constant):
                    continue
                if inp in graph_vars or inp.owner is None:
                    acc.add(inp)
                    self._stops.add(inp)
                else:
                    acc |= memo[inp]
            memo[v] = frozenset(acc)
        return memo[var]


def _walked(var: Variable, graph_vars: set[Variable]) -> bool:
    """Whether a walk goes on through ``var`` (an out-of-graph variable with an owner)."""
    return not isinstance(var, Constant) and var.owner is not None and var not in graph_vars
