"""Ops written for Theano 1.0 ("Extending Theano": doc/extending/extending_theano.txt) run
unchanged: subclassing Op with ``__props__``, ``make_node`` or ``itypes``/``otypes``,
``perform``, ``infer_shape(node, shapes)``, ``grad``, ``R_op``; the ``as_op`` decorator.

Expected values were recorded by running the same programs under Theano 1.0.5 (the oracle).
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import jitgraph as theano
import jitgraph.tensor as T
from jitgraph.compile.ops import as_op
from jitgraph.graph.basic import Apply
from jitgraph.graph.op import Op
from jitgraph.tensor.core.gradient import verify_grad
from jitgraph.tensor.elementwise import scalar_ops

MODES = ["FAST_RUN", "FAST_COMPILE", "DebugMode"]


# --- the tutorial's ops, written exactly as Theano's documentation writes them ----------------

class DoubleOp1(theano.Op):
    __props__ = ()

    def make_node(self, x):
        x = theano.tensor.as_tensor_variable(x)
        return theano.Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        x = inputs[0]
        z = output_storage[0]
        z[0] = x * 2

    def infer_shape(self, node, i0_shapes):
        return i0_shapes

    def grad(self, inputs, output_grads):
        return [output_grads[0] * 2]

    def R_op(self, inputs, eval_points):
        if eval_points[0] is None:
            return eval_points
        return self.grad(inputs, eval_points)


class DoubleOp2(theano.Op):
    __props__ = ()
    itypes = [theano.tensor.dmatrix]
    otypes = [theano.tensor.dmatrix]

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] * 2

    def infer_shape(self, node, i0_shapes):
        return i0_shapes


class AXPBOp(theano.Op):
    __props__ = ("a", "b")

    def __init__(self, a, b):
        self.a = a
        self.b = b
        super(AXPBOp, self).__init__()

    def make_node(self, x):
        x = theano.tensor.as_tensor_variable(x)
        return theano.Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = self.a * inputs[0] + self.b

    def infer_shape(self, node, i0_shapes):
        return i0_shapes


def infer_shape_numpy_dot(node, input_shapes):
    ashp, bshp = input_shapes
    return [ashp[:-1] + bshp[-1:]]


@as_op(itypes=[T.fmatrix, T.fmatrix], otypes=[T.fmatrix], infer_shape=infer_shape_numpy_dot)
def numpy_dot(a, b):
    return np.dot(a, b)


INP = np.arange(20.0).reshape(5, 4)


@pytest.mark.parametrize("mode", MODES)
def test_tutorial_ops_run_in_every_mode(mode):
    x = T.dmatrix()
    # Theano 1.0.5: 380.0 380.0 860.0 under FAST_RUN, FAST_COMPILE and DebugMode
    assert theano.function([x], DoubleOp1()(x), mode=mode)(INP).sum() == 380.0
    assert theano.function([x], DoubleOp2()(x), mode=mode)(INP).sum() == 380.0
    assert theano.function([x], AXPBOp(4, 5)(x), mode=mode)(INP).sum() == 860.0


def test_props_give_eq_hash_str_as_theano():
    assert AXPBOp(4, 5) == AXPBOp(4, 5) and hash(AXPBOp(4, 5)) == hash(AXPBOp(4, 5))
    assert AXPBOp(4, 5) != AXPBOp(2, 3)
    assert str(AXPBOp(4, 5)) == "AXPBOp{a=4, b=5}"
    assert str(DoubleOp1()) == "DoubleOp1"
    assert AXPBOp(4, 5)._props() == (4, 5)
    assert AXPBOp(4, 5)._props_dict() == {"a": 4, "b": 5}


def test_op_without_props_compares_by_identity_and_is_not_merged():
    class NoProps(Op):
        def make_node(self, x):
            x = T.as_tensor_variable(x)
            return Apply(self, [x], [x.type()])

        def perform(self, node, inputs, out):
            out[0][0] = inputs[0] + 1

    a, b = NoProps(), NoProps()
    assert a != b and a == a and hash(a) == hash(a)  # Theano 1.0.5: False True True
    x = T.dmatrix()
    f = theano.function([x], [a(x), b(x)])
    assert sum(isinstance(n.op, NoProps) for n in f.maker.fgraph.apply_nodes) == 2
    assert [o.sum() for o in f(INP)] == [210.0, 210.0]
    g = theano.function([x], [a(x) * 2, a(x) * 3])
    assert sum(isinstance(n.op, NoProps) for n in g.maker.fgraph.apply_nodes) == 1


def test_user_op_may_set_attributes_after_init_but_jitgraph_ops_may_not():
    op = AXPBOp(1, 2)
    op.cache = {"anything": 1}  # Theano allowed it; only jitgraph's own ops are frozen
    op.a = 3
    assert op == AXPBOp(3, 2) and hash(op) == hash(AXPBOp(3, 2))
    with pytest.raises(AttributeError, match="immutable"):
        T.Elemwise(scalar_ops.op("add")).nfunc_spec = None


def check_infer_shape(inputs, outputs, values, op_class):
    """What Theano's InferShapeTester._compile_and_check checks: the op is not run to get the
    shapes, and the shapes are those of the computed outputs."""
    shapes_fn = theano.function(inputs, [o.shape for o in outputs], mode="FAST_RUN")
    assert not any(isinstance(n.op, op_class) for n in shapes_fn.maker.fgraph.apply_nodes)
    computed = theano.function(inputs, outputs)(*values)
    for shape, value in zip(shapes_fn(*values), computed):
        assert tuple(shape) == value.shape


def test_theano_style_infer_shape():
    x = T.dmatrix()
    check_infer_shape([x], [DoubleOp1()(x)], [INP], DoubleOp1)
    check_infer_shape([x], [DoubleOp2()(x)], [INP], DoubleOp2)
    node = DoubleOp1()(x).owner
    shapes = [(5, 4)]
    assert DoubleOp1().infer_shape(node, shapes) == shapes  # Theano's call form
    assert DoubleOp1().infer_shape(None, node, shapes) == shapes  # jitgraph's call form
    add_node = (x + 1).owner
    assert add_node.op.infer_shape(add_node, [(5, 4), ()]) == add_node.op.infer_shape(
        None, add_node, [(5, 4), ()])


def test_gradient_and_r_op_of_tutorial_op():
    verify_grad(DoubleOp1(), [np.random.RandomState(1).rand(5, 7, 2)], rng=np.random.RandomState(1))
    from jitgraph.gradient import Rop

    v = T.dvector("v")
    assert DoubleOp1().R_op([v], [None]) == [None]
    ev = T.dvector("ev")
    rop = Rop(DoubleOp1()(v), v, ev)
    out = theano.function([v, ev], rop, on_unused_input="ignore")(np.ones(2), np.array([1., 3.]))
    np.testing.assert_array_equal(out, [2.0, 6.0])  # Theano 1.0.5 T.Rop: [2. 6.]


def test_base_op_r_op_and_perform_errors_say_what_is_missing():
    class Bare(Op):
        __props__ = ()

        def make_node(self, x):
            return Apply(self, [x], [x.type()])

    x = T.dvector()
    with pytest.raises(NotImplementedError, match="Bare has no R_op"):
        Bare().R_op([x], [x])
    with pytest.raises(NotImplementedError, match="Bare has no perform"):
        theano.function([x], Bare()(x), mode="FAST_COMPILE")(np.ones(2))

    class COnly(Bare):
        def c_code(self, node, name, inputs, outputs, sub):
            return ""

    with pytest.raises(NotImplementedError, match="no C backend.*perform"):
        theano.function([x], COnly()(x), mode="FAST_COMPILE")(np.ones(2))


def test_itypes_are_checked_like_theano():
    with pytest.raises(TypeError, match="expected TensorType\\(float64, matrix\\)"):
        DoubleOp2()(T.fmatrix())
    with pytest.raises(ValueError, match="expects 1 inputs, got 2"):
        DoubleOp2()(T.dmatrix(), T.dmatrix())
    out = DoubleOp2()(np.ones((2, 2)))  # a value becomes a constant of the declared type
    assert out.owner.inputs[0].type == T.dmatrix().type


def test_default_output_and_return_list():
    class Two(Op):
        __props__ = ()
        default_output = 1

        def make_node(self, x):
            x = T.as_tensor_variable(x)
            return Apply(self, [x], [x.type(), x.type()])

        def perform(self, node, inputs, out):
            out[0][0] = inputs[0] + 1
            out[1][0] = inputs[0] * 3

    x = T.dmatrix()
    o = Two()(x)
    assert o.index == 1
    assert len(Two()(x, return_list=True)) == 1 and len(DoubleOp1()(x, return_list=True)) == 1
    assert theano.gof.Op is Op and theano.Op is Op
    assert theano.function([x], o)(INP).sum() == 570.0  # Theano 1.0.5: 570.0


def test_perform_gets_params_and_prepare_node_runs_first():
    class Scale(Op):
        __props__ = ("factor",)
        params_type = T.dscalar().type

        def __init__(self, factor):
            self.factor = factor

        def get_params(self, node):
            return self.factor

        def prepare_node(self, node, storage_map, compute_map, impl):
            self.prepared = getattr(self, "prepared", 0) + 1

        def make_node(self, x):
            x = T.as_tensor_variable(x)
            return Apply(self, [x], [x.type()])

        def perform(self, node, inputs, output_storage, params):
            assert isinstance(params, np.ndarray) and params.dtype == "float64"
            output_storage[0][0] = inputs[0] * params

    op = Scale(3)
    x = T.dvector()
    for mode in MODES:
        f = theano.function([x], op(x), mode=mode)
        np.testing.assert_array_equal(f(np.arange(3.0)), [0.0, 3.0, 6.0])
    assert op.prepared >= 1


def test_op_implemented_by_make_thunk_only():
    class Negate(Op):
        __props__ = ()

        def make_node(self, x):
            x = T.as_tensor_variable(x)
            return Apply(self, [x], [x.type()])

        def make_thunk(self, node, storage_map, compute_map, no_recycling, impl=None):
            inp, out = storage_map[node.inputs[0]], storage_map[node.outputs[0]]

            def thunk():
                out[0] = -inp[0]
                compute_map[node.outputs[0]][0] = True

            return thunk

    x = T.dvector()
    for mode in ["FAST_RUN", "FAST_COMPILE"]:
        np.testing.assert_array_equal(theano.function([x], Negate()(x) * 2, mode=mode)(
            np.arange(3.0)), [0.0, -2.0, -4.0])


def test_view_and_destroy_maps_are_honoured():
    class InplaceAdd1(Op):
        __props__ = ()
        destroy_map = {0: [0]}

        def make_node(self, x):
            x = T.as_tensor_variable(x)
            return Apply(self, [x], [x.type()])

        def perform(self, node, inputs, out):
            inputs[0] += 1
            out[0][0] = inputs[0]

    class FirstRow(Op):
        __props__ = ()
        view_map = {0: [0]}

        def make_node(self, x):
            x = T.as_tensor_variable(x)
            return Apply(self, [x], [T.TensorType(x.dtype, (False,))()])

        def perform(self, node, inputs, out):
            out[0][0] = inputs[0][0]

    x = T.dmatrix()
    data = np.zeros((2, 3))
    for mode in MODES:
        f = theano.function([x], [InplaceAdd1()(x * 2), FirstRow()(x)], mode=mode,
                            accept_inplace=True)
        added, row = f(data)
        assert added.sum() == 6.0 and row.sum() == 0.0
        assert data.sum() == 0.0  # the input itself was neither overwritten nor returned


def test_do_constant_folding_false_keeps_the_node():
    class NoFold(DoubleOp1):
        def do_constant_folding(self, node):
            return False

    x = T.dvector()
    f = theano.function([x], x + NoFold()(np.arange(3.0)))
    assert any(isinstance(n.op, NoFold) for n in f.maker.fgraph.apply_nodes)
    folded = theano.function([x], x + DoubleOp1()(np.arange(3.0)))
    assert not any(isinstance(n.op, DoubleOp1) for n in folded.maker.fgraph.apply_nodes)
    np.testing.assert_array_equal(f(np.ones(3)), folded(np.ones(3)))


def test_user_op_pickles():
    op = AXPBOp(4, 5)
    again = pickle.loads(pickle.dumps(op))
    assert again == op and str(again) == "AXPBOp{a=4, b=5}"
    x = T.dmatrix()
    f = pickle.loads(pickle.dumps(theano.function([x], op(x))))
    assert f(INP).sum() == 860.0


# --- as_op -----------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_as_op_example(mode):
    x, y = T.fmatrix(), T.fmatrix()
    out = numpy_dot(x, y)
    assert str(out.owner.op) == "FromFunctionOp{numpy_dot}"
    assert out.type == T.fmatrix().type
    inp1 = np.arange(20, dtype="float32").reshape(5, 4)
    inp2 = np.arange(28, dtype="float32").reshape(4, 7)
    result = theano.function([x, y], out, mode=mode)(inp1, inp2)
    assert result.dtype == np.float32 and result.sum() == 19180.0  # Theano 1.0.5: 19180.0


def test_as_op_infer_shape_and_errors():
    x, y = T.fmatrix(), T.fmatrix()
    inp1, inp2 = np.ones((5, 4), "float32"), np.ones((4, 7), "float32")
    check_infer_shape([x, y], [numpy_dot(x, y)], [inp1, inp2], type(numpy_dot))
    with pytest.raises(TypeError, match="float32, matrix"):
        numpy_dot(T.dmatrix(), T.dmatrix())
    with pytest.raises(ValueError, match="expects 2 inputs, got 1"):
        numpy_dot(x)
    with pytest.raises(TypeError, match="itypes"):
        as_op(itypes=[1], otypes=[T.fmatrix])
    assert theano.as_op is as_op and theano.compile.ops.as_op is as_op


def test_as_op_pickles_by_name_and_refuses_anonymous_functions():
    assert pickle.loads(pickle.dumps(numpy_dot)) is numpy_dot
    anonymous = as_op(itypes=[T.dvector], otypes=[T.dvector])(lambda v: v * 2)
    with pytest.raises(pickle.PicklingError, match="cannot be imported|is not this op"):
        pickle.dumps(anonymous)


def test_as_op_output_of_the_wrong_dtype_is_reported():
    bad = as_op(itypes=[T.fvector], otypes=[T.fvector])(lambda v: v.astype("float64") * 2)
    x = T.fvector()
    with pytest.raises(TypeError, match="output 0 of the function does not fit"):
        theano.function([x], bad(x), mode="FAST_COMPILE")(np.ones(2, "float32"))


def test_identity_compared_ops_have_no_graph_cache_key(jitgraph_rewrites_only):
    from jitgraph.compile import graph_cache
    from jitgraph.compile.builders import OpFromGraph
    from jitgraph.compile.mode import get_mode
    from jitgraph.graph.fg import FunctionGraph

    class Stateful(Op):  # no __props__: its state is invisible, so it compares by identity
        def __init__(self, factor):
            self.factor = factor

        def make_node(self, x):
            return Apply(self, [x], [x.type()])

        def perform(self, node, inputs, out):
            out[0][0] = inputs[0] * self.factor

    assert Stateful.compare_by_identity and OpFromGraph.compare_by_identity
    assert not AXPBOp.compare_by_identity and not T.Elemwise.compare_by_identity
    x = T.dvector()
    mode = get_mode("FAST_RUN")
    for op in (Stateful(2), OpFromGraph([x], [x * 2])):
        assert graph_cache.graph_key(FunctionGraph([x], [op(x)]), [], mode) is None
    assert graph_cache.graph_key(FunctionGraph([x], [AXPBOp(1, 2)(x)]), [], mode) is not None
    two, three = (theano.function([x], Stateful(k)(x)) for k in (2, 3))
    np.testing.assert_array_equal(three(np.ones(2)), [3.0, 3.0])
    np.testing.assert_array_equal(two(np.ones(2)), [2.0, 2.0])
