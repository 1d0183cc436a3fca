"""``get_parents`` on both kinds of graph node, as Theano's: libraries walk a graph with it
(downhill's ``find_inputs_and_params`` alternates ``Variable.get_parents`` and
``Apply.get_parents`` until it reaches the shared variables and inputs)."""

import jitgraph as theano
import jitgraph.tensor as T


def test_apply_parents_are_its_inputs_and_variable_parents_its_owner():
    x = T.dmatrix("x")
    w = theano.shared(1.5, name="w")
    y = x * w
    assert y.get_parents() == [y.owner]
    assert y.owner.get_parents() == y.owner.inputs
    assert y.owner.get_parents() is not y.owner.inputs  # a copy: the caller may change it
    assert x.get_parents() == [] and w.get_parents() == []


def test_walking_the_graph_by_parents_finds_inputs_and_shared_variables():
    x, t = T.dvector("x"), T.dvector("t")
    w = theano.shared(2.0, name="w")
    loss = T.sqr(x * w - t).mean()
    queue, seen, leaves = [loss], set(), set()
    while queue:  # downhill's walk
        node = queue.pop()
        seen.add(node)
        queue.extend(p for p in node.get_parents() if p not in seen)
        if not node.get_parents() and not isinstance(node, T.Constant):
            leaves.add(node)
    assert leaves == {x, t, w}
