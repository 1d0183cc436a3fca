"""Specialization rewrites: powers, division by constants, reductions of dimshuffles."""

from __future__ import annotations

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph.graph.basic import Constant, graph_inputs, io_toposort
from jitgraph.rewrite import rewrite_graph
from jitgraph.tensor.elementwise.elemwise import Elemwise
from jitgraph.tensor.elementwise.reduction import CAReduce
from jitgraph.tensor.elementwise.scalar_ops import Cast

RNG = np.random.default_rng(11)


# A rewrite that loops or breaks the graph warns; here that is a failure.
pytestmark = pytest.mark.filterwarnings("error::jitgraph.rewrite.RewriteWarning")

@pytest.fixture(autouse=True)
def _raise_on_rewrite_errors(flags):
    flags["on_opt_error"] = "raise"


def nodes(outputs):
    outs = outputs if isinstance(outputs, list) else [outputs]
    ins = [v for v in graph_inputs(outs) if not isinstance(v, Constant)]
    return io_toposort(ins, outs)


def names(outputs) -> list[str]:
    found = []
    for node in nodes(outputs):
        if isinstance(node.op, Elemwise):
            sop = node.op.scalar_op
            found.append("cast" if isinstance(sop, Cast) else sop.name)
        else:
            found.append(type(node.op).__name__)
    return found


def run(inputs, outputs, args, level):
    mode = jitgraph.Mode(linker="py", optimizer=level)
    return jitgraph.function(inputs, outputs, mode=mode, on_unused_input="ignore")(*args)


def check_values(inputs, outputs, args, rtol=1e-12):
    ref = run(inputs, outputs, args, None)
    got = run(inputs, outputs, args, "fast_run")
    outs = got if isinstance(outputs, list) else [got]
    refs = ref if isinstance(outputs, list) else [ref]
    for g, r in zip(outs, refs):
        assert np.asarray(g).dtype == np.asarray(r).dtype
        assert np.shape(g) == np.shape(r)
        np.testing.assert_allclose(g, r, rtol=rtol)


def spec(outputs):
    return rewrite_graph(outputs, "fast_run", exclude=["fusion", "inplace"])


# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("n, expected", [(2, ["sqr"]), (3, ["sqr", "mul"]),
                                         (4, ["sqr", "sqr"]), (-1, ["reciprocal"]),
                                         (-2, ["sqr", "reciprocal"]), (0.5, ["sqrt"]),
                                         (-0.5, ["sqrt", "reciprocal"])])
def test_pow_specialized(n, expected):
    x = T.dvector("x")
    expr = x ** n
    assert names(spec(expr)) == expected
    check_values([x], expr, [RNG.uniform(0.5, 2.0, size=4)], rtol=1e-14)


def test_pow_large_and_fractional_exponents_kept():
    x = T.dvector("x")
    assert names(spec(x ** 17)) == ["pow"]
    assert names(spec(x ** 1.5)) == ["pow"]


def test_pow_integer_dtypes_and_float32():
    i = T.ivector("i")
    expr = i ** 3
    out = spec(expr)
    assert "pow" not in names(out) and out.dtype == expr.dtype
    check_values([i], expr, [np.array([1, -2, 3], dtype="int32")])
    assert "pow" in names(spec(i ** -1))  # NumPy refuses negative powers of integers
    f = T.fvector("f")
    e32 = f ** 2
    out32 = spec(e32)
    assert out32.dtype == e32.dtype and names(out32) == ["sqr"]
    b = T.bvector("b")
    mixed = b ** np.float64(2.0)  # int8 ** float64 computes in float64: cast, then square
    out_mixed = spec(mixed)
    assert out_mixed.dtype == "float64" and names(out_mixed) == ["cast", "sqr"]
    check_values([b, f], [mixed, e32], [np.array([100, -7], dtype="int8"),
                                        np.array([1.5, -2.0], dtype="float32")])


def test_pow_broadcasting_exponent():
    r = T.drow("r")
    expr = r ** np.full((3, 1), 2.0)  # a uniform (3, 1) exponent: the result has 3 rows
    out = spec(expr)
    assert out.type == expr.type and "pow" not in names(out)
    check_values([r], expr, [np.array([[1.0, 2.0]])])


def test_div_by_constant_becomes_mul():
    x = T.dmatrix("x")
    expr = x / 4.0
    assert names(spec(expr)) == ["mul"]
    assert names(rewrite_graph(expr, "fast_compile")) == ["true_div"]  # fast_run only
    assert names(spec(x / 0.0)) == ["true_div"]
    xi = T.lvector("xi")
    # the integer constant is stored as 3.0 first (it is converted anyway), then the division
    # by it becomes a product, as Theano 1.0.5 gives i / 2 -> mul(0.5, i) under FAST_RUN
    assert names(spec(T.true_div(xi, np.int64(3)))) == ["mul"]
    check_values([x], [expr, x / 3.0], [RNG.normal(size=(2, 2))], rtol=1e-15)


def test_mul_self_is_sqr():
    x, y = T.dvectors("x", "y")
    expr = x * x * y
    assert sorted(names(spec(expr))) == ["mul", "sqr"]
    check_values([x, y], expr, [RNG.normal(size=3), RNG.normal(size=3)])


def test_sum_and_mean_of_dimshuffle():
    x = T.dmatrix("x")
    exprs = [x.T.sum(axis=0), x.T.mean(axis=1), x.dimshuffle(1, "x", 0).sum(axis=(0, 1)),
             x.dimshuffle("x", 0, 1).sum(axis=0), x.T.max(axis=0), x.T.sum()]
    for expr in exprs:
        out = spec(expr)
        reductions = [n for n in nodes(out) if isinstance(n.op, CAReduce)]
        assert "DimShuffle" not in names(out)[:1], names(out)
        assert out is x or (reductions and all(n.inputs[0] is x for n in reductions))
    assert spec(exprs[3]) is x  # summing only an inserted length-1 axis is nothing
    ints = T.bmatrix("b")
    expr = ints.dimshuffle(1, "x", 0).sum(axis=1)  # only a length-1 axis is summed
    out = spec(expr)
    assert out.dtype == "int64"
    check_values([x, ints], exprs + [expr], [RNG.normal(size=(2, 3)),
                                            np.arange(6, dtype="int8").reshape(2, 3)])


def test_sum_of_dimshuffle_dropping_broadcastable_axis():
    c = T.dcol("c")
    expr = c.dimshuffle(0).sum()
    out = spec(expr)
    assert [n for n in nodes(out) if isinstance(n.op, CAReduce)][0].inputs[0] is c
    check_values([c], expr, [np.ones((3, 1))])


def test_neg_of_mul_by_constant_and_mul_minus_one():
    x = T.dvector("x")
    expr = -(x * 2.5)
    out = spec(expr)
    assert names(out) == ["mul"]
    check_values([x], [expr, x * -1.0], [RNG.normal(size=3)])
    assert names(spec(x * -1.0)) == ["neg"]


def test_constants_are_stored_in_the_dtype_the_node_computes_in():
    # Theano 1.0.5 FAST_RUN: 5 * x -> mul(TensorConstant{(1,) of 5.0}, x); x > 0 keeps its 0
    x = T.dvector("x")
    f = jitgraph.function([x], [5 * x, T.gt(x, 0), T.maximum(x, 0)])
    printed = " ".join(str(n) for n in f.maker.fgraph.toposort())
    assert "of 5.0}" in printed and "gt" in printed and "of 0}" in printed
    assert "maximum" in printed and "of 0.0}" in printed
    out = f(np.array([-1.0, 2.0]))
    np.testing.assert_array_equal(out[0], [-5.0, 10.0])
    np.testing.assert_array_equal(out[2], [0.0, 2.0])
    fast_compile = jitgraph.function([x], 5 * x, mode="FAST_COMPILE")
    assert "of 5}" in " ".join(str(n) for n in fast_compile.maker.fgraph.toposort())


def test_constants_of_a_fused_composite_keep_their_dtypes():
    # a Composite's inner graph fixes its inputs' dtypes (int_div of int64 here): the
    # constant-upcast rewrite must leave them alone when it meets an already fused node
    x = T.lvector("x")
    fused = jitgraph.function([x], (T.switch(x > 0, x // 2, x * 3) + 1) * 1.5).maker.fgraph
    (node,) = fused.toposort()
    out = node.op(*node.inputs)
    again = rewrite_graph(out, "fast_run")
    def const_dtypes(outputs):
        return sorted(str(c.dtype) for n in nodes(outputs) for c in n.inputs
                      if isinstance(c, Constant))

    assert const_dtypes(again) == const_dtypes(out)  # the integer constants stay integers
    assert "int64" in const_dtypes(out)
    check_values(fused.inputs, [out, again], [np.array([5, -3, 0])], rtol=0)


# argmax of an order-keeping function: Theano 1.0.5 takes the argmax of the argument, so where
# the function rounds two values to one (sigmoid(40) == sigmoid(50) == 1.0) it still finds the
# larger; before, jitgraph gave the first of the tied entries
@pytest.mark.parametrize("build,value,theano", [
    (lambda m: T.argmax(T.nnet.sigmoid(m), axis=-1), [[40.0, 50.0], [-3.0, -4.0]], [1, 0]),
    (lambda m: T.argmax(T.nnet.softmax(m), axis=-1),
     [[1.0, 1.0 + 2.3e-16, 0.5], [3.0, 1.0, 2.0]], [1, 0]),
    (lambda m: T.argmax(T.tanh(T.exp(m)), axis=None), [[40.0, 50.0], [-3.0, -4.0]], 1),
    # a softmax along another axis than the argmax's changes the order: kept
    (lambda m: T.argmax(T.nnet.Softmax(1)(m), axis=0), [[1.0, 2.0], [3.0, -1.0]], [1, 0]),
])
def test_argmax_of_an_increasing_function(build, value, theano):
    m = T.dmatrix("m")
    f = jitgraph.function([m], build(m))
    np.testing.assert_array_equal(f(np.array(value)), theano)


def test_argmax_pushdown_leaves_the_argmax_alone():
    from jitgraph.tensor.elementwise.reduction import Argmax
    from jitgraph.tensor.neural.softmax_xent import softmax_with_bias

    m, b = T.dmatrix("m"), T.dvector("b")
    f = jitgraph.function([m], T.argmax(T.nnet.softmax(T.exp(T.tanh(m))), axis=-1))
    assert [type(n.op) for n in f.maker.fgraph.toposort()] == [Argmax]
    g = jitgraph.function([m, b], T.argmax(softmax_with_bias(m, b), axis=-1))
    assert not any("Softmax" in type(n.op).__name__ for n in g.maker.fgraph.toposort())
    value = np.array([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0]])
    np.testing.assert_array_equal(g(value, np.array([2.0, 0.0, -5.0])), [0, 0])


def test_sum_of_a_broadcast_constant_is_not_computed():
    from jitgraph.tensor.elementwise.reduction import Sum

    x = T.dtensor3("x")
    f = jitgraph.function([x], T.sum(abs(x - x)))  # x - x is alloc(0, *x.shape)
    assert not any(isinstance(n.op, Sum) for n in f.maker.fgraph.toposort())
    assert f(np.ones((2, 3, 4))) == 0.0
    g = jitgraph.function([x], T.sum(T.alloc(np.float32(1.5), *x.shape), axis=(0, 2)))
    assert not any(isinstance(n.op, Sum) for n in g.maker.fgraph.toposort())
    got = g(np.ones((2, 3, 4)))
    np.testing.assert_array_equal(got, [12.0, 12.0, 12.0])
    assert got.dtype == T.sum(T.alloc(np.float32(1.5), 2, 3), axis=0).dtype
