"""``theano.gof.graph.general_toposort`` and ``theano.gof.utils.give_variables_names`` /
``unique``: the orders and names printed by Theano 1.0.5 for the same graphs."""

import jitgraph.tensor as T
from jitgraph.gof.graph import Apply, Variable, general_toposort
from jitgraph.gof.op import Op
from jitgraph.gof.type import Type
from jitgraph.gof.utils import give_variables_names, unique


class Anything(Type):
    def filter(self, data, strict=False, allow_downcast=None):
        return data

    def __eq__(self, other):
        return isinstance(other, Anything)

    def __hash__(self):
        return 1


class Join(Op):
    def make_node(self, *args):
        return Apply(self, list(args), [Anything()()])


def leaf(name):
    return Variable(Anything(), None, None, name=name)


def depends_on(item):
    if isinstance(item, Apply):
        return item.inputs
    return [item.owner] if item.owner else []


def test_general_toposort_follows_theanos_order():
    r1, r2, r3, r5 = leaf("r1"), leaf("r2"), leaf("r3"), leaf("r5")
    n0 = Join().make_node(r1, r2)
    n1 = Join().make_node(n0.outputs[0], r5)
    n2 = Join().make_node(n0.outputs[0], n1.outputs[0], r3, r1)
    n3 = Join().make_node(r2, n2.outputs[0])
    n4 = Join().make_node(r5, r5, n3.outputs[0])  # a variable used twice by one node
    names = {id(v): v.name for v in (r1, r2, r3, r5)}
    for i, n in enumerate([n0, n1, n2, n3, n4]):
        names[id(n)], names[id(n.outputs[0])] = f"N{i}", f"out{i}"

    def order(outputs):
        return [names[id(x)] for x in general_toposort(outputs, depends_on)]

    assert order(n1.outputs) == ["r5", "r2", "r1", "N0", "out0", "N1", "out1"]
    assert order(n3.outputs + n1.outputs) == ["r5", "r2", "r1", "r3", "N0", "out0", "N1",
                                              "out1", "N2", "out2", "N3", "out3"]
    assert order([n2.outputs[0], n0.outputs[0]]) == ["r2", "r1", "r3", "r5", "N0", "out0",
                                                     "N1", "out1", "N2", "out2"]
    assert order(n4.outputs) == ["r1", "r3", "r5", "r2", "N0", "out0", "N1", "out1", "N2",
                                 "out2", "N3", "out3", "N4", "out4"]


def test_give_variables_names_renames_the_unnamed_and_the_clashing():
    x = T.matrix("x")
    y = x + 1
    z = T.dot(x, y)
    w = T.exp(x)
    w.name = "x"
    v = T.exp(z)
    v.name = "v"
    variables = (x, y, z, w, v)
    give_variables_names(variables)
    assert [a.name for a in variables] == ["x_0", "_1", "_2", "x_3", "v"]
    give_variables_names(variables)  # already unique: unchanged
    assert [a.name for a in variables] == ["x_0", "_1", "_2", "x_3", "v"]
    assert unique([1, 2, 3]) and not unique([1, 2, 1])
