"""Theano's submodule names (``theano.tensor.signal.pool``, ``theano.sandbox.rng_mrg``,
``theano.tensor.nnet.bn``, ...) work: the re-exports are jitgraph's objects of the same concept,
and each new name is used once. Expected values recorded from Theano 1.0.5 (theano-oracle).
The rewrites and ops behind some names have their own tests: tests/ifelse/test_ifelse_rewrites.py,
tests/tensor/test_batchnorm_ops.py, tests/random/test_mrg_steps.py,
tests/rewrite/test_crossentropy_rewrites.py.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import jitgraph as theano
import jitgraph.scalar as S
import jitgraph.tensor as T
from jitgraph.graph.enum_type import EnumList, EnumType
from jitgraph.graph.fg import FunctionGraph
from jitgraph.rewrite import WalkingGraphRewriter

#: (module, name) -> the jitgraph object Theano's module re-exported there
REEXPORTS = {
    ("jitgraph.tensor.signal.pool", "Apply"): "jitgraph.graph.basic.Apply",
    ("jitgraph.tensor.signal.pool", "Variable"): "jitgraph.graph.basic.Variable",
    ("jitgraph.tensor.signal.pool", "DisconnectedType"): "jitgraph.gradient.DisconnectedType",
    ("jitgraph.tensor.signal.pool", "OpenMPOp"): "jitgraph.OpenMPOp",
    ("jitgraph.tensor.signal.pool", "ParamsType"): "jitgraph.gof.ParamsType",
    ("jitgraph.tensor.signal.pool", "bool_t"): "jitgraph.scalar.bool",
    ("jitgraph.tensor.nnet.neighbours", "Op"): "jitgraph.Op",
    ("jitgraph.tensor.nnet.neighbours", "grad_not_implemented"):
        "jitgraph.gradient.grad_not_implemented",
    ("jitgraph.tensor.nnet.neighbours", "grad_undefined"): "jitgraph.gradient.grad_undefined",
    ("jitgraph.tensor.shared_randomstreams", "shared"): "jitgraph.shared",
    ("jitgraph.tensor.shared_randomstreams", "SharedVariable"): "jitgraph.compile.SharedVariable",
    ("jitgraph.tensor.shared_randomstreams", "shared_constructor"):
        "jitgraph.compile.shared_constructor",
    ("jitgraph.tensor.raw_random", "optdb"): "jitgraph.compile.optdb",
    ("jitgraph.sandbox.rng_mrg", "config"): "jitgraph.config",
    ("jitgraph.sandbox.rng_mrg", "function"): "jitgraph.function",
    ("jitgraph.sandbox.rng_mrg", "shared"): "jitgraph.shared",
    ("jitgraph.sandbox.rng_mrg", "TensorType"): "jitgraph.tensor.TensorType",
    ("jitgraph.sandbox.rng_mrg", "as_tensor_variable"): "jitgraph.tensor.as_tensor_variable",
    ("jitgraph.sandbox.rng_mrg", "cast"): "jitgraph.tensor.cast",
    ("jitgraph.sandbox.rng_mrg", "get_vector_length"): "jitgraph.tensor.get_vector_length",
    ("jitgraph.sandbox.rng_mrg", "int_t"): "jitgraph.scalar.int32",
    ("jitgraph.sandbox.rng_mrg", "optdb"): "jitgraph.compile.optdb",
    ("jitgraph.sandbox.rng_mrg", "mrg_uniform_base"): "jitgraph.sandbox.rng_mrg.mrg_uniform",
    ("jitgraph.tensor.nnet.bn", "TensorType"): "jitgraph.tensor.TensorType",
    ("jitgraph.tensor.nnet.bn", "Composite"): "jitgraph.scalar.Composite",
    ("jitgraph.tensor.nnet.bn", "add"): "jitgraph.scalar.add",
    ("jitgraph.tensor.nnet.bn", "true_div"): "jitgraph.scalar.true_div",
    ("jitgraph.tensor.nnet.bn", "copy_stack_trace"): "jitgraph.rewrite.copy_stack_trace",
    ("jitgraph.ifelse", "optdb"): "jitgraph.compile.optdb",
    ("jitgraph.ifelse", "clone"): "jitgraph.clone",
    ("jitgraph.ifelse", "TensorType"): "jitgraph.tensor.TensorType",
    ("jitgraph.tensor.nnet", "abstract_conv2d"): "jitgraph.tensor.nnet.abstract_conv.conv2d",
    ("jitgraph.tensor.nnet", "scalar_sigmoid"): "jitgraph.scalar.sigmoid",
}


def _resolve(dotted: str):
    module, _, attr = dotted.rpartition(".")
    return getattr(importlib.import_module(module), attr)


@pytest.mark.parametrize("where", sorted(REEXPORTS), ids=lambda w: f"{w[0]}.{w[1]}")
def test_reexport_is_jitgraphs_object(where):
    module, name = where
    assert getattr(importlib.import_module(module), name) is _resolve(REEXPORTS[where])


# -- EnumList / PoolingMode_t -------------------------------------------------------------------

def test_pooling_modes_as_theano_numbers_them():
    from jitgraph.tensor.signal.pool import PoolingMode_t as P

    assert repr(P) == ("EnumList<int>(POOLING_AVERAGE_COUNT_EXCLUDE_PADDING(average_exc_pad):3, "
                       "POOLING_AVERAGE_COUNT_INCLUDE_PADDING(average_inc_pad):2, "
                       "POOLING_MAX(max):0, POOLING_SUM(sum):1)")
    assert (P.POOLING_MAX, P.POOLING_AVERAGE_COUNT_EXCLUDE_PADDING) == (0, 3)
    assert P.fromalias("average_exc_pad") == 3 and P.has_alias("max") and len(P) == 4
    assert P.get_aliases() == ("average_exc_pad", "average_inc_pad", "max", "sum")
    assert list(P) == ["POOLING_MAX", "POOLING_SUM", "POOLING_AVERAGE_COUNT_INCLUDE_PADDING",
                       "POOLING_AVERAGE_COUNT_EXCLUDE_PADDING"]
    assert P.filter(1) == 1 and P["POOLING_SUM"] == 1
    with pytest.raises(TypeError, match="not a value"):
        P.filter(7)


def test_enum_types():
    e = EnumList("A", "B", ("C", "c"))
    assert repr(e) == "EnumList<int>(A:0, B:1, C(c):2)"
    assert (e.A, e.B, e.C, e.fromalias("c")) == (0, 1, 2, 2)
    assert e == EnumList("A", "B", ("C", "c")) and e != EnumList("A", "B", "C")
    assert hash(e) == hash(EnumList("A", "B", ("C", "c")))
    t = EnumType(ONE=1, TWO=(2, "two"), ctype="size_t")
    assert repr(t) == "EnumType<size_t>(ONE:1, TWO(two):2)" and t.fromalias("two") == 2
    with pytest.raises(AttributeError):
        e.D  # noqa: B018
    with pytest.raises(TypeError, match="distinct"):
        EnumList("A", "A")


# -- theano.clone ---------------------------------------------------------------------------

def test_clone_as_theano():
    x, y = T.dvector("x"), T.dvector("y")
    z = x * 2
    c = theano.clone(z)
    assert c is not z and c.owner.inputs[0] is x  # Theano: False True
    assert theano.clone(z, share_inputs=False).owner.inputs[0] is not x
    assert theano.clone(z, {x: y}).owner.inputs[0] is y
    with pytest.raises(TypeError):  # Theano: Cannot convert Type ... matrix ... into ... vector
        theano.clone(z, {x: T.dmatrix()})
    assert theano.clone(z, {x: T.fvector()}, strict=False).type == T.fvector  # Theano: float32
    np.testing.assert_allclose(theano.clone(z, {x: y}).eval({y: np.array([1.0, 2.0])}),
                               [2.0, 4.0])


# -- Theano-style local optimizers --------------------------------------------------------------

def test_local_optimizer_gets_the_node_and_its_graph():
    from jitgraph.sandbox.rng_mrg import local_optimizer
    from jitgraph.tensor.elemwise import Elemwise

    seen = []

    @local_optimizer([Elemwise])
    def exp_to_expm1_plus_1(node):
        seen.append(getattr(node, "fgraph", None))  # as in Theano: set while in a graph
        if node.op.scalar_op == S.exp:
            return [T.expm1(node.inputs[0]) + 1]
        return False

    x = T.dvector("x")
    fg = FunctionGraph([x], [T.exp(x)], clone=True)
    WalkingGraphRewriter(exp_to_expm1_plus_1).rewrite(fg)
    assert seen[0] is fg and not hasattr(fg.outputs[0].owner, "fgraph")
    assert "expm1" in str(theano.printing.debugprint(fg.outputs[0], file="str"))
    assert exp_to_expm1_plus_1(T.exp(x).owner)[0].owner is not None  # callable on a node


def test_register_specialize_device_runs_in_specialize():
    from jitgraph.rewrite.phases import optdb
    from jitgraph.tensor.nnet.bn import local_optimizer, register_specialize_device

    @local_optimizer([T.Elemwise])
    def ns_test_log_exp(node):
        inner = node.inputs[0].owner if node.inputs else None
        if node.op.scalar_op == S.log and inner is not None and getattr(
                inner.op, "scalar_op", None) == S.exp:
            return [inner.inputs[0]]
        return None

    register_specialize_device(ns_test_log_exp, name="ns_test_log_exp")
    try:
        x = T.dvector("x")
        f = theano.function([x], T.log(T.exp(x)) * 3, mode=theano.Mode(
            optimizer="fast_run").excluding("canonicalize", "stabilize"))
        ops = [str(n.op) for n in f.maker.fgraph.toposort()]
        assert not any("exp" in o or "log" in o for o in ops), ops
        np.testing.assert_allclose(f(np.array([1.0, 2.0])), [3.0, 6.0])
        assert "specialize_device" in optdb["specialize"].tags_of("ns_test_log_exp")
    finally:
        optdb["specialize"].unregister("ns_test_log_exp")


# -- raw_random / shared_randomstreams ----------------------------------------------------------

def test_raw_random_helpers_draw_as_theano():
    from jitgraph.tensor import raw_random as RR

    r = np.random.RandomState(3)
    # Theano 1.0.5, same RandomState sequence: [2., 18.], [3, 1, 2, 4], then
    # permutation_helper(r, 4, (2,)) after a fresh RandomState(3): [[3, 1, 0, 2], [1, 2, 0, 3]]
    assert RR.random_integers_helper(r, np.array([0, 10]), np.array([5, 20]), (2,)).tolist() \
        == [2, 18]
    assert RR.choice_helper(r, np.array(5), np.array(True),
                            np.array([0.1, 0.2, 0.3, 0.2, 0.2]), (4,)).tolist() == [3, 1, 2, 4]
    r = np.random.RandomState(3)
    assert RR.permutation_helper(r, np.array(4), (2,)).tolist() == [[3, 1, 0, 2], [1, 2, 0, 3]]
    counts = RR.multinomial_helper(np.random.RandomState(0), np.array([3, 5]),
                                   np.array([[0.5, 0.5], [0.2, 0.8]]), (2,))
    assert counts.shape == (2, 2) and counts.sum(axis=1).tolist() == [3, 5]
    assert RR.random_make_inplace.name == "random_make_inplace"
    assert "random_make_inplace" in RR.optdb


def test_randomstate_constructor_makes_a_shared_random_state():
    from jitgraph.tensor.shared_randomstreams import randomstate_constructor, shared

    v = randomstate_constructor(np.random.RandomState(0), name="r")
    assert v.name == "r" and v.get_value().randint(100) == 44  # Theano: 44
    assert randomstate_constructor(np.zeros(2)) is None  # not a RandomState: next constructor
    assert type(shared(np.random.RandomState(0))) is type(v)


# -- nnet names ---------------------------------------------------------------------------------

def test_scalar_sigmoid_and_sigmoid_inplace():
    from jitgraph.tensor.elemwise import Elemwise
    from jitgraph.tensor.nnet import scalar_sigmoid, sigmoid_inplace

    x = T.dmatrix("x")
    v = np.array([[-1.0, 0.0, 2.0]])
    expected = 1 / (1 + np.exp(-v))
    np.testing.assert_allclose(theano.function([x], Elemwise(scalar_sigmoid)(x))(v), expected)
    assert sigmoid_inplace.destroy_map == {0: [0]} and str(sigmoid_inplace) == "sigmoid_inplace"
    with pytest.raises(TypeError, match="accept_inplace"):  # Theano: Graph must not contain
        theano.function([x], sigmoid_inplace(x * 2))  # inplace operations
    f = theano.function([x], sigmoid_inplace(x * 2), accept_inplace=True)
    np.testing.assert_allclose(f(v / 2), expected)
    # x * 1 -> x would make the op overwrite the input: rejected once (the rollback used to
    # queue the node again, and canonicalize retried it forever)
    for mode in ("FAST_COMPILE", "FAST_RUN"):
        g = theano.function([x], sigmoid_inplace(x * 1), accept_inplace=True, mode=mode)
        np.testing.assert_allclose(g(v.copy()), expected)


def test_abstract_conv2d_convolves():
    from jitgraph.tensor.nnet import abstract_conv2d

    img, kern = T.dtensor4("img"), T.dtensor4("kern")
    iv = np.arange(16.0).reshape(1, 1, 4, 4)
    kv = np.array([[[[1.0, 0.0], [0.0, -1.0]]]])
    out = theano.function([img, kern], abstract_conv2d(img, kern))(iv, kv)
    # filters flipped (a true convolution): out[i, j] = x[i+1, j+1] - x[i, j] = 5
    np.testing.assert_allclose(out, np.full((1, 1, 3, 3), 5.0))


def test_neighbours_gradient_markers_raise_in_grad():
    from jitgraph.tensor.nnet.neighbours import grad_not_implemented, grad_undefined

    x = T.dvector("x")
    for marker in (grad_not_implemented, grad_undefined):
        null = marker(T.exp(x).owner.op, 0, x)
        assert null.type != x.type  # a NullType variable: grad refuses to use it
    from jitgraph.tensor.nnet.neighbours import EnumList as NeighbourEnum

    assert NeighbourEnum is EnumList


# -- nnet.bn names ------------------------------------------------------------------------------

def test_bn_composite_and_scalar_names():
    from jitgraph.tensor.elemwise import Elemwise
    from jitgraph.tensor.nnet import bn

    x, m, s, g, b = T.dvectors("x", "m", "s", "g", "b")
    f = theano.function([x, m, s, g, b], Elemwise(bn.BNComposite("float64"))(x, m, s, g, b))
    # Theano 1.0.5: [1.75, 0.125]
    np.testing.assert_allclose(f([1.0, 2.0], [0.5, 0.5], [2.0, 4.0], [3.0, 3.0], [1.0, -1.0]),
                               [1.75, 0.125])
    assert bn.BNComposite("float32").nin == 5
    a, c = S.float32("a"), S.float64("c")
    assert [v.dtype for v in bn.as_common_dtype(T.fvector(), T.dvector())] == ["float64"] * 2
    assert [v.dtype for v in bn.as_common_dtype(a, c)] == ["float64"] * 2
    assert bn.true_div(bn.sub(c, c), bn.add(c, bn.mul(c, c))).dtype == "float64"


def test_rng_mrg_scalar_types_and_params():
    from jitgraph.sandbox import rng_mrg as R

    assert (R.bool_t.dtype, R.int_t.dtype) == ("bool", "int32")
    with pytest.raises(Exception, match="C-code"):
        R.ParamsType(x=T.dscalar)
    assert isinstance(R.Variable, type) and isinstance(R.Apply, type) and issubclass(R.Op, object)
