"""The lazy-ifelse rewrite's search for the nodes only one branch needs: the same nodes (and
the same branch graphs, inputs in the same order) as a walk over every ancestor, for work that
does not grow with the graph in front of the IfElse (a Keras network has one IfElse per batch
normalisation layer: the walk over every ancestor made its compile quadratic in its depth)."""

from __future__ import annotations

import jitgraph.tensor as T
from jitgraph.graph.basic import io_toposort
from jitgraph.graph.fg import OUTPUT, FunctionGraph
from jitgraph.ifelse import IfElse, ifelse
from jitgraph.ifelse import lazy


def reference_branch_nodes(fgraph, node, positions):
    """The definition, by brute force: consumers before producers over every ancestor."""
    values = [node.inputs[p] for p in positions]
    candidates = [n for n in io_toposort(fgraph.inputs, values) if n in fgraph.apply_nodes]
    inside = set()

    def used_inside(client, i):
        if client == OUTPUT:
            return False
        if client is node:
            return i in positions
        return client in inside

    for cand in reversed(candidates):
        if all(used_inside(client, i) for out in cand.outputs
               for client, i in fgraph.clients.get(out, [])):
            inside.add(cand)
    return inside


def reference_free_inputs(values, inside):
    free = {}
    for n in io_toposort([], values):
        if n in inside:
            for inp in n.inputs:
                if not isinstance(inp, T.Constant) and (inp.owner is None
                                                        or inp.owner not in inside):
                    free.setdefault(inp)
    for v in values:
        if not isinstance(v, T.Constant) and (v.owner is None or v.owner not in inside):
            free.setdefault(v)
    return list(free)


def graph_with_sharing():
    """Two IfElses whose branches share nodes with each other, with the condition, with a
    graph output and with themselves (an input read twice, a node with two outputs)."""
    a, b = T.dscalars("a", "b")
    x, y = T.dvectors("x", "y")
    shared_work = T.exp(x) * 2
    only_then = T.log(shared_work + 1) + T.sqrt(T.abs(y)) * T.sqrt(T.abs(y))
    only_else = (y * y).sum() + T.tanh(x).sum()
    cond = T.lt(a, shared_work.sum())
    first = ifelse(cond, [only_then.sum(), T.cos(y).sum()], [only_else, b])
    also_out = T.sin(x)  # read by the second ifelse and by an output
    second = ifelse(T.gt(first[0], b), (also_out * 3).sum(), (also_out + shared_work).sum())
    outputs = [first[0] + first[1], second, also_out]
    return FunctionGraph([a, b, x, y], outputs, clone=True)


def ifelse_nodes(fgraph):
    return [n for n in fgraph.toposort() if isinstance(n.op, IfElse)]


def test_branch_nodes_and_branch_graphs_match_the_definition():
    fgraph = graph_with_sharing()
    nodes = ifelse_nodes(fgraph)
    assert len(nodes) == 2
    seen_nonempty = 0
    for node in nodes:
        n = node.op.n_outs
        for positions in (range(1, 1 + n), range(1 + n, 1 + 2 * n)):
            got = lazy.branch_only_nodes(fgraph, node, positions)
            expected = reference_branch_nodes(fgraph, node, positions)
            assert got == expected
            seen_nonempty += bool(got)
            values = [node.inputs[p] for p in positions]
            graph, inputs = lazy._branch_graph(values, got)
            assert inputs == reference_free_inputs(values, got)
            assert len(graph.inputs) == len(inputs)
    assert seen_nonempty >= 3


def long_chain_then_ifelse(length):
    a = T.dscalar("a")
    x = T.dvector("x")
    h = x
    for k in range(length):
        h = T.tanh(h) + k
    then = T.exp(h).sum() * 2  # three nodes only the then branch needs
    z = ifelse(T.lt(a, 0), then, h.sum())
    return FunctionGraph([a, x], [z], clone=True)


class CountingClients(dict):
    """``fgraph.clients`` counting the lookups made through ``get``."""

    lookups = 0

    def get(self, key, default=None):
        CountingClients.lookups += 1
        return super().get(key, default)


def work_for(length, monkeypatch):
    fgraph = long_chain_then_ifelse(length)
    (node,) = ifelse_nodes(fgraph)
    fgraph.clients = CountingClients(fgraph.clients)
    CountingClients.lookups = 0
    visited = []

    def counted_toposort(inputs, outputs):
        order = io_toposort(inputs, outputs)
        visited.append(len(order))
        return order

    monkeypatch.setattr(lazy, "io_toposort", counted_toposort)
    inside = lazy.branch_only_nodes(fgraph, node, range(1, 2))
    lazy._branch_graph([node.inputs[1]], inside)
    return len(inside), CountingClients.lookups, visited


def test_the_work_does_not_grow_with_the_graph_before_the_ifelse(monkeypatch):
    short = work_for(10, monkeypatch)
    long = work_for(400, monkeypatch)
    assert short == long
    n_inside, lookups, visited = long
    assert n_inside == 3
    assert lookups <= 2 * n_inside + 2
    assert visited == [n_inside]  # the branch graph's walk meets the branch's nodes only
