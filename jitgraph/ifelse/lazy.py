"""Lazy ifelse: the computations only one branch needs run only when that branch is taken.

The rewrite ``ifelse_lazy_branches`` looks, for each :class:`~jitgraph.ifelse.op.IfElse` node,
for the nodes whose results are used by nothing but one branch's values (directly or through
other such nodes). It moves them into an inner graph per branch and replaces the node by a
:class:`LazyIfElse` whose inputs are the condition and the variables the branch graphs read
from outside. At run time ``LazyIfElse`` evaluates the condition's branch only, by the branch's
inner graph compiled once (:class:`~jitgraph.scan.inner.InnerFunction`): the linker needs no
knowledge of laziness, and nodes shared with the rest of the graph (or with the other branch)
are computed as before.

The rewrite runs in ``fast_run`` and ``fast_compile`` before the in-place passes (position
49.4), and not at all when the ``vm.lazy`` flag is False, which asks for eager evaluation.
"""

from __future__ import annotations

from typing import Any, Sequence

from jitgraph.config import config
from jitgraph.graph.basic import Apply, Constant, Variable, clone_replace, io_toposort
from jitgraph.graph.fg import FunctionGraph
from jitgraph.graph.op import Op
from jitgraph.ifelse.op import IfElse, truthy
from jitgraph.rewrite.engine import GraphRewriter
from jitgraph.scan.inner import InnerGraph


class LazyIfElse(Op):
    """Runs one of two inner graphs: ``then_graph`` on the first ``n_then`` inputs after the
    condition when the condition is true, else ``else_graph`` on the rest."""

    __props__ = ("then_graph", "else_graph", "name", "mode")

    def __init__(self, then_graph: InnerGraph, else_graph: InnerGraph, name: str | None = None,
                 mode: Any = None) -> None:
        if len(then_graph.outputs) != len(else_graph.outputs):
            raise ValueError("both branches of an ifelse must give the same number of values")
        self.then_graph = then_graph
        self.else_graph = else_graph
        self.name = name
        self.mode = mode

    def __str__(self) -> str:
        return f"if{{{self.name + ',' if self.name else ''}lazy}}"

    __repr__ = __str__

    @property
    def n_then(self) -> int:
        return len(self.then_graph.inputs)

    def make_node(self, cond: Variable, *inputs: Variable) -> Apply:
        expected = [v.type for v in self.then_graph.inputs + self.else_graph.inputs]
        if len(inputs) != len(expected):
            raise ValueError(f"{self} takes {len(expected)} branch inputs, got {len(inputs)}")
        for k, (var, vtype) in enumerate(zip(inputs, expected)):
            if var.type != vtype:
                raise TypeError(f"input {k + 1} of {self} has type {var.type}, expected {vtype}")
        outs = [v.type() for v in self.then_graph.outputs]
        return Apply(self, [cond, *inputs], outs)

    def do_constant_folding(self, node: Apply) -> bool:
        return False

    #: Mode.rewrite records on this op's nodes the mode compiling the outer graph: the
    #: branches are compiled by it (DebugMode, NanGuardMode, MonitorMode see their nodes)
    compiles_inner_graph = True

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        n_then = self.n_then
        if truthy(inputs[0]):
            graph, args = self.then_graph, inputs[1:1 + n_then]
        else:
            graph, args = self.else_graph, inputs[1 + n_then:]
        mode = self.mode if self.mode is not None else getattr(node.tag, "compile_mode", None)
        shared = graph.compiled(mode)
        # the branch program is the op's: copies of a function (and threads) share it
        fn = shared.borrow()
        try:
            for cell, value in zip(fn.input_cells, args):
                cell[0] = value
            fn.run()
            seen: set[int] = set()
            for cell, out_cell, aliases in zip(output_storage, fn.output_cells,
                                               fn.output_aliases):
                value = out_cell[0]
                if aliases or id(value) in seen:
                    value = value.copy()
                seen.add(id(value))
                cell[0] = value
        finally:
            shared.give_back(fn)


def branch_only_nodes(fgraph: FunctionGraph, node: Apply, positions: range) -> set[Apply]:
    """The nodes whose outputs are used only by inputs ``positions`` of ``node``, directly or
    through other such nodes.

    Work is proportional to those nodes and the edges around them, not to the graph: a node
    joins once every use of its outputs is accounted for (by ``node`` at ``positions`` or by a
    node that joined), and only then are its own inputs' owners looked at. (Walking all the
    ancestors of the branch values for every IfElse made a model with one per layer, a Keras
    network with batch normalisation, quadratic in its depth.)
    """
    unaccounted: dict[Apply, int] = {}  # node met -> uses of its outputs not yet accounted for
    exclusive: set[Apply] = set()
    ready = [node.inputs[p] for p in positions]
    while ready:
        var = ready.pop()
        owner = var.owner
        if owner is None or owner not in fgraph.apply_nodes:
            continue
        left = unaccounted.get(owner)
        if left is None:
            left = sum(len(fgraph.clients.get(out, ())) for out in owner.outputs)
        left -= 1
        unaccounted[owner] = left
        if left == 0:
            exclusive.add(owner)
            ready.extend(owner.inputs)
    return exclusive


def _branch_graph(values: list[Variable], inside: set[Apply]) -> tuple[InnerGraph, list]:
    """The inner graph computing ``values`` from what the nodes ``inside`` read from outside."""
    free: dict[Variable, None] = {}
    # Nothing outside reads a node inside, so no node inside lies beyond a variable computed
    # outside: the walk stops there (the order of the nodes inside is that of a walk through
    # every ancestor, which cost O(graph) per IfElse).
    outside = {inp for n in inside for inp in n.inputs
               if inp.owner is None or inp.owner not in inside}
    outside.update(v for v in values if v.owner is None or v.owner not in inside)
    for n in io_toposort(outside, values):
        for inp in n.inputs:
            if not isinstance(inp, Constant) and (inp.owner is None or inp.owner not in inside):
                free.setdefault(inp)
    for v in values:
        if not isinstance(v, Constant) and (v.owner is None or v.owner not in inside):
            free.setdefault(v)
    inputs = list(free)
    # the branch graph reads fresh variables, never the outer ones themselves: a shared
    # variable among them would otherwise become an explicit input of the branch's program
    placeholders = [var.type.make_variable(var.name) for var in inputs]
    inner_values = clone_replace(values, dict(zip(inputs, placeholders)))
    return InnerGraph(placeholders, inner_values), inputs


def make_lazy(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``node`` (an IfElse) as a LazyIfElse, or None when neither branch has work to skip."""
    n = node.op.n_outs
    then_pos, else_pos = range(1, 1 + n), range(1 + n, 1 + 2 * n)
    then_nodes = branch_only_nodes(fgraph, node, then_pos)
    else_nodes = branch_only_nodes(fgraph, node, else_pos)
    if not then_nodes and not else_nodes:
        return None
    then_graph, then_in = _branch_graph([node.inputs[p] for p in then_pos], then_nodes)
    else_graph, else_in = _branch_graph([node.inputs[p] for p in else_pos], else_nodes)
    op = LazyIfElse(then_graph, else_graph, name=node.op.name)
    new = op.make_node(node.inputs[0], *then_in, *else_in)
    return list(new.outputs)


def _register() -> None:
    from jitgraph.rewrite.phases import optdb

    class LazyBranches(GraphRewriter):
        """Turns every IfElse node into a LazyIfElse (see the module docstring)."""

        def apply(self, fgraph: FunctionGraph, ctx: Any) -> None:
            if config.vm.lazy is False:
                return
            for node in fgraph.toposort():
                if not isinstance(node.op, IfElse) or node not in fgraph.apply_nodes:
                    continue
                new = make_lazy(fgraph, node)
                if new is not None:
                    ctx.apply_replacements(fgraph, list(zip(node.outputs, new)), self, node)

    optdb.register("ifelse_lazy_branches", LazyBranches("ifelse_lazy_branches"), "fast_run",
                   "fast_compile", "ifelse", position=49.4)


_register()
