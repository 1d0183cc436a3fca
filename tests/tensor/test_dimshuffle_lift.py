"""``theano.tensor.opt.local_dimshuffle_lift`` applied explicitly, as Theano users did with
``out2in(local_dimshuffle_lift)``; the expected graphs were printed by Theano 1.0.5."""

import jitgraph.tensor as T
from jitgraph.gof import FunctionGraph
from jitgraph.gof.opt import out2in
from jitgraph.tensor.opt import local_dimshuffle_lift


def lifted(inputs, outputs, clone=True):
    fg = FunctionGraph(inputs, outputs, clone=clone)
    out2in(local_dimshuffle_lift).optimize(fg)
    return str(fg)


def test_transposes_move_to_the_inputs_and_cancel():
    x, y, z = T.matrix("x"), T.matrix("y"), T.vector("z")
    e = ((x + y).T + z.dimshuffle("x", 0)).dimshuffle(1, 0)
    assert lifted([x, y, z], [e]) == ("[Elemwise{add,no_inplace}(Elemwise{add,no_inplace}(x, y), "
                                      "InplaceDimShuffle{0,x}(z))]")


def test_two_dimshuffles_that_undo_each_other_disappear():
    x, y = T.matrix("x"), T.matrix("y")
    e = (x + y).dimshuffle("x", 0, 1).dimshuffle(1, 2)
    assert lifted([x, y], [e], clone=False) == "[Elemwise{add,no_inplace}(x, y)]"


def test_an_elementwise_result_used_twice_is_not_recomputed():
    x, y = T.matrix("x"), T.matrix("y")
    s = x + y
    assert lifted([x, y], [s.T + s]) == ("[Elemwise{add,no_inplace}(InplaceDimShuffle{1,0}"
                                         "(*1 -> Elemwise{add,no_inplace}(x, y)), *1)]")


def test_transform_of_one_node_as_theano_called_it():
    x = T.tensor3("x")
    e = T.exp(x).dimshuffle(2, "x", 0, 1)
    FunctionGraph([x], [e], clone=False)
    new = local_dimshuffle_lift.transform(e.owner)[0]
    # Theano 1.0.5 (the same node, in a graph built with clone=False):
    assert str(FunctionGraph([x], [new])) == \
        "[Elemwise{exp,no_inplace}(InplaceDimShuffle{2,x,0,1}(x))]"
