"""The ShapeFeature's index of which graph variables each symbolic shape reads: at every query
during a compile it gives what a walk of the shape's expression gives, and its work grows
linearly with a chain of layers whose shapes build on each other (a walk per stored shape grew
quadratically: conv networks spent seconds there)."""

from __future__ import annotations

import jitgraph
import jitgraph.tensor as T
from jitgraph.graph.basic import Constant, Variable
from jitgraph.tensor.rewriting import shape_leaves


def walked_leaves(dims, graph_vars, steps):
    """The definition: walk each dim's expression until the graph (counting the steps)."""
    found, seen = set(), set()
    stack = [d for d in dims if isinstance(d, Variable)]
    while stack:
        v = stack.pop()
        if id(v) in seen or isinstance(v, Constant):
            continue
        seen.add(id(v))
        steps[0] += 1
        if v in graph_vars or v.owner is None:
            found.add(v)
        else:
            stack.extend(v.owner.inputs)
    return found


def compile_chain(depth, monkeypatch):
    """Compile a chain whose every layer's shape is an expression over the previous one's,
    checking every query against the walk; (queries, walk steps, index steps)."""
    queries, walk_steps, index_steps = [0], [0], [0]
    original_leaves, original_walked = shape_leaves.LeafIndex.leaves, shape_leaves._walked

    def checked(self, dims, graph_vars):
        dims = list(dims)
        got = original_leaves(self, dims, graph_vars)
        assert got == walked_leaves(dims, graph_vars, walk_steps)
        queries[0] += 1
        return got

    def counted(var, graph_vars):
        index_steps[0] += 1
        return original_walked(var, graph_vars)

    monkeypatch.setattr(shape_leaves.LeafIndex, "leaves", checked)
    monkeypatch.setattr(shape_leaves, "_walked", counted)
    x = T.dmatrix("x")
    h = x
    for _ in range(depth):
        h = T.tanh(h[1:, :-1]) * 2 + h[:-1, 1:]
    loss = h.sum()
    jitgraph.function([x], [loss, T.grad(loss, x)], mode=jitgraph.Mode(linker="py"))
    return queries[0], walk_steps[0], index_steps[0]


def test_every_answer_is_the_walks_and_the_work_grows_linearly(monkeypatch):
    queries_10, walk_10, index_10 = compile_chain(10, monkeypatch)
    queries_40, walk_40, index_40 = compile_chain(40, monkeypatch)
    assert queries_10 > 100 and queries_40 > 4 * queries_10 * 0.9
    assert walk_40 > 10 * walk_10  # the walks: quadratic in the depth
    assert index_40 < 5 * index_10  # the index: linear
    assert index_40 < walk_40 / 5
