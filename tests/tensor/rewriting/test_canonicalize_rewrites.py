"""Canonicalization rewrites: each fires (graph inspection) and keeps values (vs optimizer=None)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import jitgraph
import jitgraph.tensor as T
from jitgraph.graph.basic import Constant, graph_inputs, io_toposort
from jitgraph.rewrite import rewrite_graph
from jitgraph.tensor.elementwise.elemwise import Elemwise
from jitgraph.tensor.elementwise.scalar_ops import Cast

RNG = np.random.default_rng(42)


# A rewrite that loops or breaks the graph warns; here that is a failure.
pytestmark = pytest.mark.filterwarnings("error::jitgraph.rewrite.RewriteWarning")

@pytest.fixture(autouse=True)
def _raise_on_rewrite_errors(flags):
    flags["on_opt_error"] = "raise"  # a crashing rewrite must fail the test, not warn


def names(outputs) -> list[str]:
    """Op names of the graph (the scalar op name for elementwise nodes), in topological order."""
    outs = outputs if isinstance(outputs, list) else [outputs]
    ins = [v for v in graph_inputs(outs) if not isinstance(v, Constant)]
    result = []
    for node in io_toposort(ins, outs):
        op = node.op
        if isinstance(op, Elemwise):
            sop = op.scalar_op
            result.append("cast" if isinstance(sop, Cast) else sop.name)
        else:
            result.append(type(op).__name__)
    return result


def canon(outputs):
    return rewrite_graph(outputs, include=["canonicalize"])


def values(inputs, outputs, args, level):
    mode = jitgraph.Mode(linker="py", optimizer=level)
    return jitgraph.function(inputs, outputs, mode=mode, on_unused_input="ignore")(*args)


def same_values(inputs, outputs, args, levels=("fast_compile", "fast_run")):
    ref = values(inputs, outputs, args, None)
    for level in levels:
        got = values(inputs, outputs, args, level)
        for r, g in zip(ref if isinstance(outputs, list) else [ref],
                        got if isinstance(outputs, list) else [got]):
            assert np.asarray(g).dtype == np.asarray(r).dtype, level
            assert np.shape(g) == np.shape(r), level
            np.testing.assert_allclose(g, r, rtol=1e-6, atol=1e-12, err_msg=level)


def rand(*shape, dtype="float64"):
    return RNG.normal(size=shape).astype(dtype)


# ---------------------------------------------------------------------------------------------

def test_mul_one_add_zero_sub_zero():
    x = T.dmatrix("x")
    for expr in (x * 1, 1 * x, x + 0, 0 + x, x - 0, (x + 0) * 1):
        out = canon(expr)
        assert out is x or names(out) == [], names(out)
        same_values([x], expr, [rand(2, 3)])


def test_identity_removal_keeps_dtype_and_broadcasting():
    xi = T.bvector("xi")  # int8 + an int64 zero is int64: the rewrite must cast
    out = canon(xi + np.int64(0))
    assert out.dtype == "int64" and names(out) == ["cast"]
    same_values([xi], xi + np.int64(0), [np.array([1, -3], dtype="int8")])
    r = T.drow("r")
    zeros = T.zeros((3, 4))
    expr = r + zeros  # the zeros give the shape: it must survive as an alloc/fill
    out = canon(expr)
    assert out.type == expr.type
    same_values([r], expr, [rand(1, 4)])


def test_sub_self_and_neg_neg_and_div_self():
    x = T.fvector("x")
    out = canon(x - x)
    assert "sub" not in names(out) and out.dtype == "float32"
    same_values([x], x - x, [rand(5, dtype="float32")])
    out = canon(-(-x))
    assert out is x
    out = canon(x / x)
    assert "true_div" not in names(out) and out.dtype == "float32"
    same_values([x], [x / x, -(-x)], [rand(5, dtype="float32") + 3])


def test_flatten_and_collect_constants():
    x, y, z = T.dvectors("x", "y", "z")
    expr = ((x + 2) + (y + 3)) + (z + 4)
    out = canon(expr)
    assert names(out).count("add") == 1
    node = out.owner
    assert len(node.inputs) == 4
    consts = [i for i in node.inputs if isinstance(i, Constant)]
    assert len(consts) == 1 and float(consts[0].data.ravel()[0]) == 9.0
    expr2 = (x * 2) * (y * 3) * 0.5
    out2 = canon(expr2)
    assert names(out2) == ["mul"] and len(out2.owner.inputs) == 3
    same_values([x, y, z], [expr, expr2], [rand(3), rand(3), rand(3)])


def test_constants_combined_in_output_dtype():
    # int8 literals folded in int8 would overflow (100 + 100); the node computes in float64.
    x = T.dvector("x")
    expr = (x + np.int8(100)) + np.int8(100)
    out = canon(expr)
    c = [i for i in out.owner.inputs if isinstance(i, Constant)][0]
    assert float(c.data.ravel()[0]) == 200.0
    same_values([x], expr, [rand(3)])


def test_neg_forms():
    x, y = T.dvectors("x", "y")
    out = canon(x + (-y))
    assert names(out) == ["sub"] and out.owner.inputs[0] is x and out.owner.inputs[1] is y
    out = canon(x - (-y))
    assert names(out) == ["add"]
    out = canon(-(x * 3))
    assert names(out) == ["mul"]
    c = [i for i in out.owner.inputs if isinstance(i, Constant)][0]
    assert float(c.data.ravel()[0]) == -3.0
    out = canon(x * -1)
    assert names(out) == ["neg"]
    out = canon((-x) * (-y))
    assert "neg" not in names(out)
    out = canon(0 - x)
    assert names(out) == ["neg"]
    same_values([x, y], [x + (-y), x - (-y), -(x * 3), x * -1, (-x) * (-y), 0 - x, -(x - y)],
                [rand(4), rand(4)])


def test_integer_mul_zero_but_not_float():
    i = T.lvector("i")
    out = canon(i * 0)
    assert "mul" not in names(out)
    same_values([i], i * 0, [np.array([3, -2, 7])])
    x = T.dvector("x")
    out = canon(x * 0)  # inf * 0 is NaN: kept for floats
    assert "mul" in names(out)
    f = jitgraph.function([x], x * 0, mode=jitgraph.Mode(linker="py", optimizer="fast_run"))
    assert np.isnan(f(np.array([np.inf]))[0])


def test_dimshuffle_merge_and_identity():
    x = T.dmatrix("x")
    expr = x.dimshuffle(1, 0).dimshuffle(1, 0)
    assert canon(expr) is x
    expr2 = x.dimshuffle("x", 1, 0).dimshuffle(2, 0, 1)
    out = canon(expr2)
    assert names(out) == ["DimShuffle"] and out.owner.op.new_order == (0, "x", 1)
    s = T.dscalar("s")
    expr3 = s.dimshuffle("x").dimshuffle("x", 0).dimshuffle()  # back to a scalar
    assert canon(expr3) is s
    same_values([x, s], [expr, expr2, expr3], [rand(2, 3), 1.5])


def test_cast_same_dtype_and_lossless_chain():
    x = T.ivector("x")
    same = T.Elemwise(Cast("int32"))(x)
    assert canon(same) is x
    chain = T.cast(T.cast(x, "int64"), "float64")
    out = canon(chain)
    assert names(out) == ["cast"] and out.owner.inputs[0] is x
    lossy = T.cast(T.cast(T.dvector("d"), "int8"), "float64")
    assert names(canon(lossy)) == ["cast", "cast"]
    same_values([x], [same, chain], [np.array([1, 2, -3], dtype="int32")])


def test_useless_reshape_and_subtensor():
    x = T.dmatrix("x")
    expr = x.reshape(x.shape)
    assert canon(expr) is x
    expr2 = x.reshape((x.shape[0], x.shape[1]))
    assert canon(expr2) is x
    expr3 = x[:]
    assert canon(expr3) is x
    expr4 = x[0:x.shape[0], ::1]
    assert canon(expr4) is x
    expr5 = x.reshape((6,)).reshape((3, 2))  # a chain of reshapes is one reshape
    out5 = canon(expr5)
    assert names(out5) == ["Reshape"] and out5.owner.inputs[0] is x
    kept = x[1:]
    assert "Subtensor" in names(canon(kept))
    same_values([x], [expr, expr2, expr3, expr4, expr5, kept], [rand(2, 3)])


def test_constant_elemwise_of_dimshuffled_constants_folds():
    x = T.dvector("x")
    c = T.constant(2.0).dimshuffle("x") * T.constant(3.0).dimshuffle("x")
    expr = x + c
    out = canon(expr)
    assert names(out) == ["add"]
    assert any(isinstance(i, Constant) and float(i.data.ravel()[0]) == 6.0
               for i in out.owner.inputs)
    same_values([x], expr, [rand(3)])


def test_fill_sinks_and_disappears():
    x = T.dvector("x")
    cost = (x ** 2).sum()
    g = T.grad(cost, x)  # second(x**2, 1) * 2 * x**1
    out = canon(g)
    assert "second" not in names(out) and "pow" not in names(out)
    same_values([x], g, [rand(4)])
    z = T.zeros_like(x) + 3.0  # the fill must stay: it gives the shape
    out = canon(z)
    assert out.type == z.type
    same_values([x], z, [rand(4)])


def test_pow_one_and_zero():
    x = T.dvector("x")
    assert canon(x ** 1) is x
    out = canon(x ** 0)
    assert "pow" not in names(out)
    same_values([x], [x ** 1, x ** 0], [np.array([np.nan, 2.0, 0.0])])


def test_float32_graph_stays_float32():
    x = T.fmatrix("x")
    expr = ((x * np.float32(2)) * np.float32(0.5) + np.float32(0)) - (-x)
    out = canon(expr)
    assert out.dtype == "float32"
    same_values([x], expr, [rand(2, 2, dtype="float32")])


# ---------------------------------------------------------------------------------------------
# Random elementwise/reduction graphs: every level agrees with optimizer=None.

LEVELS = ("fast_compile", "o2", "fast_run", "stabilize", "unsafe")


def _build(draw_ops, x, y):
    """A graph from a list of (op, arg) draws over a matrix x and a row y."""
    e = x
    for op, k in draw_ops:
        if op == "add":
            e = e + (y if k % 2 else k)
        elif op == "sub":
            e = (e - y) if k % 2 else (k - e)
        elif op == "mul":
            e = e * (y if k % 2 else (k - 1.5))
        elif op == "neg":
            e = -e
        elif op == "exp":
            e = T.exp(T.tanh(e))  # bounded, so nothing overflows
        elif op == "log":
            e = T.log(T.sqr(e) + 1)
        elif op == "sqr":
            e = T.sqr(T.tanh(e))
        elif op == "pow":
            e = T.tanh(e) ** k
        elif op == "dimshuffle":
            e = e.dimshuffle(1, 0).dimshuffle(1, 0) if k % 2 else e.dimshuffle("x", 0, 1)[0]
        elif op == "sum":
            e = e.sum(axis=k % 2, keepdims=True) + e * 0.5
        elif op == "self":
            e = (e - e) + (e * 1) + e / (T.sqr(e) + 1)
    return e


@given(st.lists(st.tuples(st.sampled_from(["add", "sub", "mul", "neg", "exp", "log", "sqr",
                                            "pow", "dimshuffle", "sum", "self"]),
                          st.integers(0, 4)), min_size=1, max_size=6),
       st.sampled_from(["float64", "float32"]))
def test_random_graphs_every_level_matches_none(draw_ops, dtype):
    x = T.TensorType(dtype, (False, False))("x")
    y = T.TensorType(dtype, (True, False))("y")
    out = _build(draw_ops, x, y)
    xv = RNG.uniform(-1.5, 1.5, size=(3, 4)).astype(dtype)
    yv = RNG.uniform(-1.5, 1.5, size=(1, 4)).astype(dtype)
    ref = values([x, y], out, [xv, yv], None)
    assume(np.all(np.isfinite(ref)))
    tol = 1e-4 if dtype == "float32" else 1e-9
    for level in LEVELS:
        got = values([x, y], out, [xv, yv], level)
        assert got.dtype == ref.dtype and got.shape == ref.shape, level
        np.testing.assert_allclose(got, ref, rtol=tol, atol=tol, err_msg=level)


def test_integer_identities_of_shape_graphs():
    x = T.dmatrix("x")
    n = x.shape[0]
    c = T.bscalar("c")
    exprs = [T.switch(c, n, n), n // 1, T.maximum(n, 0), T.maximum(0, n)]
    for expr in exprs:
        out = canon(expr)
        assert names(out) == ["Shape_i"], names(out)
    assert names(canon(T.maximum(T.lscalar("m"), 0))) == ["maximum"]  # may be negative
    assert "int_div" in names(canon(T.dvector("d") // 1))  # floor for floats
    same_values([x, c], exprs, [np.ones((3, 2)), 1])


def test_reductions_folding_one_element_are_removed():
    """Theano 1.0.5 compiles ``mean(x, axis=[])`` (Keras 1 averages every loss so) to ``x``,
    ``sum(-x, axis=[])`` to ``neg(x)``, a sum over a broadcastable axis to ``x`` (oracle)."""
    x = T.fvector("x")
    m = T.fmatrix("m")
    b = T.bmatrix("b")
    assert "Sum" not in names(canon(T.mean(x, axis=[])))  # (its division by 1 goes later)
    assert names(canon(T.sum(-x, axis=[]))) == ["neg"]
    assert names(canon(T.sum(x, axis=[], acc_dtype="float64"))) == []
    assert names(canon(T.sum(m.dimshuffle(0, "x", 1), axis=1))) == []
    assert names(canon(T.max(m.dimshuffle("x", 0, 1), axis=0))) == []
    # the dtype the reduction gives: any/all test for non-zero, an int8 sum is int64
    assert names(canon(T.any(b.dimshuffle(0, "x", 1), axis=1))) == ["cast"]
    assert names(canon(T.sum(b.dimshuffle("x", 0, 1), axis=0))) == ["cast"]
    # an axis that is not broadcastable still reduces
    assert "Sum" in names(canon(T.sum(m.dimshuffle(0, "x", 1), axis=(1, 2))))
    xv = np.array([1.5, -2.25, 3.0], dtype="float32")
    mv = RNG.normal(size=(2, 3)).astype("float32")
    bv = np.array([[0, 2], [-1, 0]], dtype="int8")
    outs = [T.mean(x, axis=[]), T.sum(-x, axis=[]), T.prod(x * 2, axis=[]),
            T.sum(m.dimshuffle(0, "x", 1), axis=1), T.min(m.dimshuffle("x", 0, 1), axis=0),
            T.any(b.dimshuffle(0, "x", 1), axis=1), T.all(b.dimshuffle(0, "x", 1), axis=1),
            T.sum(b.dimshuffle("x", 0, 1), axis=0)]
    same_values([x, m, b], outs, [xv, mv, bv])
    np.testing.assert_array_equal(values([x], T.sum(-x, axis=[]), [xv], "fast_run"), -xv)


def test_the_useless_reduce_rewrite_answers_to_theanos_name():
    """``mode.excluding('local_cut_useless_reduce')`` keeps the reduction, as in Theano (its
    test_elemwise excludes it to look at the Sum node of ``sum(x, axis=[])``)."""
    x = T.imatrix("x")
    mode = jitgraph.compile.get_default_mode().excluding("local_cut_useless_reduce")
    f = jitgraph.function([x], T.sum(x, axis=[]), mode=mode)
    assert any(type(n.op).__name__ == "Sum" for n in f.maker.fgraph.toposort())
    np.testing.assert_array_equal(f(np.array([[1, 2]], dtype="int32")), [[1, 2]])


def test_rewrites_of_one_scalar_op_are_not_called_on_others(monkeypatch):
    # local_div_self (x / x) is narrowed to true_div nodes by elemwise_of: canonicalizing a
    # graph of adds and muls never calls it (each such call used to cost a dispatch and a
    # name test: 60,000 calls in specialize alone at 48 blocks of bench_large_graph).
    from jitgraph.tensor.rewriting import canonicalize as canonicalize_module
    from jitgraph.tensor.rewriting.utils import elemwise_of

    rewrite = canonicalize_module.local_div_self
    seen = []
    original = rewrite.fn
    monkeypatch.setattr(rewrite, "fn", lambda fg, node: seen.append(node) or original(fg, node))
    x, y = T.vectors("x", "y")
    canon([(x * y + x) * (y + 2.0)])
    assert seen == []
    canon([(x * y) / (x * y) + y])
    assert len(seen) == 1
    assert elemwise_of("cast")(T.cast(x, "float32").owner.op)
    assert not elemwise_of("add")(T.cast(x, "float32").owner.op)
    assert not elemwise_of("add")((x - y).owner.op)
    assert not elemwise_of("add")(T.dot(x, y).owner.op)
