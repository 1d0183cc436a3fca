"""dot specialized into Dot22 / Gemv / Gemm / Ger, and the logistic regression's BLAS ops."""

from __future__ import annotations

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph.graph.basic import Constant, graph_inputs, io_toposort
from jitgraph.rewrite import rewrite_graph

RNG = np.random.default_rng(5)
BLAS = ("Gemv", "CGemv", "Gemm", "CGemm")


# A rewrite that loops or breaks the graph warns; here that is a failure.
pytestmark = pytest.mark.filterwarnings("error::jitgraph.rewrite.RewriteWarning")

@pytest.fixture(autouse=True)
def _raise_on_rewrite_errors(flags):
    flags["on_opt_error"] = "raise"


def op_names(outputs) -> list[str]:
    outs = outputs if isinstance(outputs, list) else [outputs]
    ins = [v for v in graph_inputs(outs) if not isinstance(v, Constant)]
    return [type(n.op).__name__ for n in io_toposort(ins, outs)]


def blas_nodes(outputs):
    outs = outputs if isinstance(outputs, list) else [outputs]
    ins = [v for v in graph_inputs(outs) if not isinstance(v, Constant)]
    return [n for n in io_toposort(ins, outs)
            if type(n.op).__name__ in ("Gemv", "Gemm", "Ger", "Dot22", "Dot")]


def run(inputs, outputs, args, level, updates=None):
    mode = jitgraph.Mode(linker="py", optimizer=level)
    return jitgraph.function(inputs, outputs, mode=mode, updates=updates,
                             on_unused_input="ignore")(*args)


def check_values(inputs, outputs, args, rtol=1e-12, levels=("fast_run", "o3", "unsafe")):
    ref = run(inputs, outputs, args, None)
    for level in levels:
        got = run(inputs, outputs, args, level)
        outs = got if isinstance(outputs, list) else [got]
        refs = ref if isinstance(outputs, list) else [ref]
        for g, r in zip(outs, refs):
            assert np.asarray(g).dtype == np.asarray(r).dtype, level
            np.testing.assert_allclose(g, r, rtol=rtol, atol=1e-12, err_msg=level)


def blas(outputs):
    return rewrite_graph(outputs, "fast_run", exclude=["inplace", "fusion"])


def mat(*shape, dtype="float64"):
    return RNG.normal(size=shape).astype(dtype)


# ---------------------------------------------------------------------------------------------

def test_matrix_matrix_is_dot22_and_fast_compile_keeps_dot():
    a, b = T.dmatrices("a", "b")
    expr = T.dot(a, b)
    assert op_names(blas(expr)) == ["Dot22"]
    assert op_names(rewrite_graph(expr, "fast_compile")) == ["Dot"]
    check_values([a, b], expr, [mat(2, 3), mat(3, 4)])


def test_matrix_vector_and_vector_matrix_are_gemv():
    A = T.dmatrix("A")
    x, v = T.dvectors("x", "v")
    mv = T.dot(A, x)
    vm = T.dot(v, A)
    names = op_names(blas([mv, vm]))
    assert names.count("Gemv") == 2 and "Dot" not in names
    for node in blas_nodes(blas(mv)):
        beta = node.inputs[4]
        assert float(beta.data) == 0.0  # y is never read
    check_values([A, x, v], [mv, vm], [mat(3, 4), mat(4), mat(3)])


def test_inner_product_stays_dot():
    x, y = T.dvectors("x", "y")
    assert op_names(blas(T.dot(x, y))) == ["Dot"]


def test_scaled_sums_become_gemv_with_coefficients():
    A = T.dmatrix("A")
    x, y = T.dvectors("x", "y")
    expr = 2.0 * T.dot(A, x) - 0.5 * y
    out = blas(expr)
    (node,) = blas_nodes(out)
    assert type(node.op).__name__ == "Gemv" and node.inputs[0] is y
    assert float(node.inputs[1].data) == 2.0 and float(node.inputs[4].data) == -0.5
    assert op_names(out) == ["Gemv"]
    check_values([A, x, y], expr, [mat(3, 2), mat(2), mat(3)])


def test_update_with_weight_decay_collects_equal_terms():
    X = T.dmatrix("X")
    g = T.dvector("g")
    w = T.dvector("w")
    new_w = w - 0.01 * (T.dot(X.T, g) + 0.02 * w)
    out = blas(new_w)
    assert op_names(out) == ["DimShuffle", "Gemv"]
    node = blas_nodes(out)[0]
    assert node.inputs[0] is w
    np.testing.assert_allclose(float(node.inputs[1].data), -0.01)
    np.testing.assert_allclose(float(node.inputs[4].data), 1 - 0.01 * 0.02)
    check_values([X, g, w], new_w, [mat(5, 3), mat(5), mat(3)])


def test_symbolic_learning_rate():
    X = T.dmatrix("X")
    g, w = T.dvectors("g", "w")
    lr = T.dscalar("lr")
    expr = w - lr * T.dot(X.T, g)
    out = blas(expr)
    assert "Gemv" in op_names(out)
    check_values([X, g, w, lr], expr, [mat(4, 3), mat(4), mat(3), 0.1])


def test_gemm():
    a, b, c = T.dmatrices("a", "b", "c")
    expr = c * 0.5 + T.dot(a, b) * 3.0
    out = blas(expr)
    assert op_names(out) == ["Gemm"]
    node = blas_nodes(out)[0]
    assert node.inputs[0] is c and float(node.inputs[1].data) == 3.0
    neg = -T.dot(a, b)  # no matrix to add to: the zero-filled one is not read
    assert "Gemm" in op_names(blas(neg))
    check_values([a, b, c], [expr, neg, c - T.dot(a.T, b.T).T], [mat(3, 3), mat(3, 3),
                                                                  mat(3, 3)])


def test_ger_for_outer_product_update():
    A = T.dmatrix("A")
    x, y = T.dvectors("x", "y")
    expr = A + 0.1 * T.outer(x, y)
    out = blas(expr)
    assert "Ger" in op_names(out) and "Dot22" not in op_names(out)
    scaled = 2.0 * A - T.outer(x, y)  # beta != 1: Gemm does it
    assert "Gemm" in op_names(blas(scaled))
    check_values([A, x, y], [expr, scaled], [mat(3, 2), mat(3), mat(2)])


def test_float32_and_mixed_dtypes():
    A = T.fmatrix("A")
    x = T.fvector("x")
    d = T.dvector("d")
    e32 = T.dot(A, x) * np.float32(2)
    out = blas(e32)
    assert out.dtype == "float32" and "Gemv" in op_names(out)
    mixed = T.dot(A, d)  # float32 . float64 is float64: A is cast
    out_m = blas(mixed)
    assert out_m.dtype == "float64" and "Gemv" in op_names(out_m)
    check_values([A, x, d], [e32, mixed], [mat(3, 2, dtype="float32"),
                                           mat(2, dtype="float32"), mat(2)], rtol=1e-5)


def test_integer_dot_is_left_alone():
    a, b = T.lmatrix("a"), T.lvector("b")
    assert op_names(blas(T.dot(a, b))) == ["Dot"]


def test_broadcastable_operands_keep_types():
    r = T.drow("r")  # (1, n)
    m = T.dmatrix("m")
    v = T.dvector("v")
    expr = T.dot(r, m)
    out = blas(expr)
    assert out.type == expr.type
    expr2 = T.dot(r, v)  # a (1,) result
    assert blas(expr2).type == expr2.type
    # The (1, 3) product is broadcast against m: it cannot be m's Gemm.
    expr3 = T.dot(r, m) * 2.0 + m
    out3 = blas(expr3)
    assert out3.type == expr3.type
    assert not [n for n in blas_nodes(out3) if n.inputs[0] is m]
    expr4 = T.dot(r, v) + v  # a (1,) product broadcast to v's length
    check_values([r, m, v], [expr, expr2, expr3, expr4], [mat(1, 3), mat(3, 3), mat(3)])


# ---------------------------------------------------------------------------------------------
# The seed's logistic regression (examples/logistic_regression.py, built the same way)

def logistic_regression(mode):
    rng = np.random.RandomState(0)
    N, feats = 40, 7
    D = (rng.randn(N, feats), rng.randint(size=N, low=0, high=2).astype("float64"))
    x = T.matrix("x")
    y = T.vector("y")
    w = jitgraph.shared(rng.randn(feats), name="w")
    b = jitgraph.shared(np.asarray(0.0), name="b")
    p_1 = 1 / (1 + T.exp(-T.dot(x, w) - b))
    prediction = p_1 > 0.5
    xent = -y * T.log(p_1) - (1 - y) * T.log(1 - p_1)
    cost = xent.mean() + 0.01 * (w ** 2).sum()
    gw, gb = T.grad(cost, [w, b])
    train = jitgraph.function([x, y], [prediction, xent],
                              updates=[(w, w - 0.01 * gw), (b, b - 0.01 * gb)],
                              name="train", mode=mode)
    return train, D, w, b


def test_logistic_regression_uses_blas_and_matches_reference():
    with jitgraph.config.change_flags(floatX="float64"):
        train, D, w, b = logistic_regression(None)  # the default mode: FAST_RUN
        names = [type(n.op).__name__ for n in train.maker.fgraph.toposort()]
        assert any(n in BLAS for n in names), names
        assert "Dot" not in names
        ref, D2, w2, b2 = logistic_regression(jitgraph.Mode(linker="py", optimizer=None))
        for _ in range(3):
            p, e = train(*D)
            p2, e2 = ref(*D2)
            np.testing.assert_array_equal(p, p2)
            np.testing.assert_allclose(e, e2, rtol=1e-12)
        np.testing.assert_allclose(w.get_value(), w2.get_value(), rtol=1e-12)
        np.testing.assert_allclose(b.get_value(), b2.get_value(), rtol=1e-12)
