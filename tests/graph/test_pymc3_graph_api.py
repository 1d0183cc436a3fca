"""Graph API that PyMC3 3.x uses: ``from theano import theano`` (Theano's package is its own
attribute), ``theano.gof.graph.stack_search`` (its model graph walk), and ``theano.clone`` with
replacements of the same types keeping the outputs' test values (PyMC3 differentiates a cloned
cost while ``compute_test_value='raise'``). Behaviour as Theano 1.0.5's."""

from collections import deque

import numpy as np
import pytest

import jitgraph as theano
import jitgraph.tensor as tt
from jitgraph.gof.graph import stack_search


def test_the_package_is_its_own_attribute():
    from jitgraph import theano as inner

    assert inner is theano


def _parents(var):
    return [] if var.owner is None else list(var.owner.inputs)


def test_stack_search_walks_breadth_or_depth_first_once_per_variable():
    a, b = tt.dscalars("a", "b")
    c = a * b
    d = c + a
    e = d - c
    assert [str(v) for v in stack_search(deque([e]), _parents, "bfs")][:3] == \
        [str(e), str(d), str(c)]
    dfs = stack_search(deque([e]), _parents, "dfs")
    assert dfs[:2] == [e, c] and len(dfs) == len({id(v) for v in dfs}) == 5
    order, inverse = stack_search(deque([e]), _parents, "bfs", build_inv=True)
    assert set(order) == set(dfs) and inverse[c] == [e, d] and inverse[a] == [d, c]
    with pytest.raises(ValueError, match="'bfs' or 'dfs'"):
        stack_search(deque([e]), _parents, "random")


def test_a_cloned_cost_keeps_its_test_value_and_can_be_differentiated():
    mu, sd = tt.dscalars("mu", "sd")
    mu.tag.test_value, sd.tag.test_value = 0.0, 0.0
    with theano.config.change_flags(compute_test_value="raise"):
        cost = -((1.5 - mu) ** 2).sum() * tt.exp(-sd)
        cost.name = "__logp"
        joined = tt.dvector("joined")
        joined.tag.test_value = np.zeros(2)
        replace = {mu: joined[0:1].reshape(()), sd: joined[1:2].reshape(())}
        cloned = theano.clone(cost, replace=replace)
        assert hasattr(cloned.tag, "test_value")  # Theano's copy keeps it (computed before)
        grad = tt.grad(cloned, joined)
    f = theano.function([joined], [cloned, grad])
    value, gradient = f(np.array([0.5, 0.0]))
    np.testing.assert_allclose(value, -1.0)
    np.testing.assert_allclose(gradient, [2.0, 1.0])


def test_gof_graph_inputs_and_ancestors_are_in_theano_s_order():
    """Depth first from the last variable given (PyMC3's one-step-per-variable samplers take
    ``inputs(model.vars)`` in this order; printed by Theano 1.0.5 for the same graphs)."""
    from jitgraph.gof.graph import ancestors, inputs

    a, b, c = tt.dscalars("a", "b", "c")
    w = theano.shared(1.0, name="w")
    x = a * w + b
    y = c - a

    def names(vs):
        return [str(v) for v in vs]

    assert names(inputs([a, b, c])) == ["c", "b", "a"]
    assert names(inputs([x, y])) == ["c", "a", "w", "b"]
    assert names(inputs([y, x])) == ["a", "w", "b", "c"]
    assert names(inputs([x * 2 + y])) == ["a", "w", "b", "TensorConstant{2}", "c"]
    assert names(ancestors([x, y])) == [
        "Elemwise{sub,no_inplace}.0", "c", "a", "Elemwise{add,no_inplace}.0",
        "Elemwise{mul,no_inplace}.0", "w", "b"]
    assert names(inputs([x, y], blockers=[x])) == ["c", "a"]


def test_gof_graph_ops_lists_the_nodes_between():
    # Theano 1.0.5: ops([y], [(x * y).sum()]) is a set of the mul and Sum nodes
    from jitgraph.gof.graph import ops

    x, y = tt.dvector("x"), tt.dvector("y")
    z = (x * y).sum()
    nodes = ops([y], [z])
    assert isinstance(nodes, set)
    assert sorted(str(n.op) for n in nodes) == ["Elemwise{mul,no_inplace}",
                                                "Sum{acc_dtype=float64}"]
    assert ops([z], [z]) == set()
