"""Stabilization rewrites: they fire, keep values, and make values and gradients finite."""

from __future__ import annotations

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph.graph.basic import Constant, graph_inputs, io_toposort
from jitgraph.rewrite import rewrite_graph
from jitgraph.tensor.elementwise.elemwise import Elemwise
from jitgraph.tensor.nnet import (CrossentropyCategorical1Hot, CrossentropyCategorical1HotGrad,
                                  LogSoftmax)
from jitgraph.tensor.elementwise.scalar_ops import Cast

RNG = np.random.default_rng(7)


# A rewrite that loops or breaks the graph warns; here that is a failure.
pytestmark = pytest.mark.filterwarnings("error::jitgraph.rewrite.RewriteWarning")

@pytest.fixture(autouse=True)
def _raise_on_rewrite_errors(flags):
    flags["on_opt_error"] = "raise"


def names(outputs) -> list[str]:
    outs = outputs if isinstance(outputs, list) else [outputs]
    ins = [v for v in graph_inputs(outs) if not isinstance(v, Constant)]
    found = []
    for node in io_toposort(ins, outs):
        if isinstance(node.op, Elemwise):
            sop = node.op.scalar_op
            found.append("cast" if isinstance(sop, Cast) else sop.name)
        else:
            found.append(type(node.op).__name__)
    return found


def run(inputs, outputs, args, level):
    mode = jitgraph.Mode(linker="py", optimizer=level)
    return jitgraph.function(inputs, outputs, mode=mode, on_unused_input="ignore")(*args)


def check_values(inputs, outputs, args, levels=("fast_compile", "stabilize", "fast_run")):
    ref = run(inputs, outputs, args, None)
    for level in levels:
        got = run(inputs, outputs, args, level)
        outs = got if isinstance(outputs, list) else [got]
        refs = ref if isinstance(outputs, list) else [ref]
        for g, r in zip(outs, refs):
            assert np.asarray(g).dtype == np.asarray(r).dtype, level
            np.testing.assert_allclose(g, r, rtol=1e-6, atol=1e-12, err_msg=level)


def np_log_softmax(x):
    m = x.max(axis=-1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=-1, keepdims=True))


# ---------------------------------------------------------------------------------------------
# log1p, expm1

def test_log1p():
    x = T.dvector("x")
    for expr, ref in ((T.log(1 + x), np.log1p), (T.log(x + 1), np.log1p),
                      (T.log(1 - x), lambda v: np.log1p(-v))):
        out = rewrite_graph(expr, "stabilize")
        assert "log1p" in names(out) and "log" not in names(out)
        tiny = np.array([1e-20, -3e-18, 0.5])
        got = run([x], expr, [tiny], "fast_run")
        np.testing.assert_allclose(got, ref(tiny), rtol=1e-15)
        check_values([x], expr, [np.array([0.25, -0.5, 3.0 if ref is np.log1p else -3.0])])
    f32 = T.fvector("f")
    out = rewrite_graph(T.log(1 + f32), "stabilize")
    assert out.dtype == "float32"


def test_log1p_of_exp_is_softplus():
    x = T.dvector("x")
    expr = T.log1p(T.exp(x))
    out = rewrite_graph(expr, "stabilize")
    assert names(out) == ["softplus"]
    assert np.isfinite(run([x], expr, [np.array([800.0])], "fast_run")).all()


def test_expm1():
    x = T.dvector("x")
    for expr in (T.exp(x) - 1, T.exp(x) + (-1)):
        out = rewrite_graph(expr, "stabilize")
        assert "expm1" in names(out) and "exp" not in names(out)
        tiny = np.array([1e-20, 2e-17])
        np.testing.assert_allclose(run([x], expr, [tiny], "fast_run"), np.expm1(tiny),
                                   rtol=1e-15)
        check_values([x], expr, [np.array([0.3, -1.2])])


# ---------------------------------------------------------------------------------------------
# softmax

def test_log_softmax_value_and_gradient_with_large_logits():
    x = T.dmatrix("x")
    logp = T.log(T.nnet.softmax(x))
    out = rewrite_graph(logp, "fast_compile")
    assert any(isinstance(o.owner.op, LogSoftmax) for o in [out] if o.owner)
    big = np.array([[1000.0, 0.0, -1000.0], [1.0, 2.0, 3.0]])
    cost = (logp * np.array([[0.2, 0.3, 0.5], [1.0, 0.0, 0.0]])).sum()
    g = T.grad(cost, x)
    for level in ("fast_compile", "fast_run"):
        value, grad = run([x], [logp, g], [big], level)
        np.testing.assert_allclose(value, np_log_softmax(big), rtol=1e-12)
        w = np.array([[0.2, 0.3, 0.5], [1.0, 0.0, 0.0]])
        sm = np.exp(np_log_softmax(big))
        np.testing.assert_allclose(grad, w - w.sum(axis=1, keepdims=True) * sm, atol=1e-12)
    check_values([x], [logp, g], [RNG.normal(size=(2, 3))])


def test_categorical_crossentropy_one_hot_is_stable():
    x = T.dmatrix("x")
    y = T.lvector("y")
    cost = T.nnet.categorical_crossentropy(T.nnet.softmax(x), y).mean()
    g = T.grad(cost, x)
    out = rewrite_graph([cost, g], "fast_compile")
    kinds = names(out)
    assert "CrossentropyCategorical1Hot" not in kinds
    assert "CrossentropyCategorical1HotGrad" not in kinds
    big = np.array([[800.0, 0.0, -800.0], [0.5, 0.1, -0.3]])
    labels = np.array([2, 0])
    sm = np.exp(np_log_softmax(big))
    onehot = np.eye(3)[labels]
    ref_cost = -np_log_softmax(big)[np.arange(2), labels].mean()
    ref_grad = (sm - onehot) / 2
    for level in ("fast_compile", "fast_run"):
        c, gv = run([x, y], [cost, g], [big, labels], level)
        np.testing.assert_allclose(c, ref_cost, rtol=1e-12)
        np.testing.assert_allclose(gv, ref_grad, atol=1e-12)
    with np.errstate(all="ignore"):
        c_none, g_none = run([x, y], [cost, g], [big, labels], None)
    assert not np.isfinite(c_none) and not np.all(np.isfinite(g_none))  # why it matters
    check_values([x, y], [cost, g], [RNG.normal(size=(4, 3)), np.array([0, 2, 1, 1])])


def test_indexed_log_softmax_cross_entropy_is_stable():
    x = T.dmatrix("x")
    y = T.lvector("y")
    sm = T.nnet.softmax(x)
    cost = -T.log(sm[T.arange(y.shape[0]), y]).mean()
    g = T.grad(cost, x)
    out = rewrite_graph([cost, g], "fast_compile")
    assert "LogSoftmax" in names(out)
    assert names(out).count("AdvancedSubtensor") == 1  # no more division by sm[i, y]
    big = np.array([[800.0, 0.0, -800.0], [0.5, 0.1, -0.3]])
    labels = np.array([2, 0])
    ref_cost = -np_log_softmax(big)[np.arange(2), labels].mean()
    ref_grad = (np.exp(np_log_softmax(big)) - np.eye(3)[labels]) / 2
    for level in ("fast_compile", "fast_run"):
        c, gv = run([x, y], [cost, g], [big, labels], level)
        np.testing.assert_allclose(c, ref_cost, rtol=1e-12)
        np.testing.assert_allclose(gv, ref_grad, atol=1e-12)
    check_values([x, y], [cost, g], [RNG.normal(size=(3, 3)), np.array([0, 2, 2])])


def test_mlp_fast_compile_gradients_stay_finite():
    x = T.dmatrix("x")
    y = T.lvector("y")
    w = jitgraph.shared(np.array([[30.0, -30.0, 0.0], [-30.0, 30.0, 1.0]]), name="w")
    h = T.tanh(T.dot(x, w))
    w2 = jitgraph.shared(np.array([[400.0, -400.0], [-400.0, 400.0], [1.0, 1.0]]), name="w2")
    probs = T.nnet.softmax(T.dot(h, w2))
    cost = T.nnet.categorical_crossentropy(probs, y).mean()
    gw, gw2 = T.grad(cost, [w, w2])
    f = jitgraph.function([x, y], [cost, gw, gw2], mode="FAST_COMPILE")
    c, a, b = f(np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([1, 0]))
    assert np.isfinite(c) and c > 100 and np.all(np.isfinite(a)) and np.all(np.isfinite(b))


# ---------------------------------------------------------------------------------------------
# logsumexp

def test_logsumexp_value_and_gradient():
    x = T.dmatrix("x")
    lse = T.log(T.exp(x).sum(axis=1))
    out = rewrite_graph(lse, "stabilize")
    assert "Max" in names(out)
    g = T.grad(lse.sum(), x)
    big = np.array([[1000.0, 999.0, -5.0], [-np.inf, -np.inf, -np.inf]])
    val, gv = run([x], [lse, g], [big], "fast_run")
    np.testing.assert_allclose(val[0], 1000 + np.log1p(np.exp(-1.0) + np.exp(-1005.0)))
    assert val[1] == -np.inf
    sm0 = np.exp(big[0] - big[0].max())
    np.testing.assert_allclose(gv[0], sm0 / sm0.sum())
    keep = T.log(T.exp(x).sum(axis=1, keepdims=True))
    assert "Max" in names(rewrite_graph(keep, "stabilize"))
    check_values([x], [lse, keep, g], [RNG.normal(size=(2, 4))])


def test_logsumexp_over_all_axes():
    v = T.dvector("v")
    lse = T.log(T.exp(v).sum())
    g = T.grad(lse, v)
    val, gv = run([v], [lse, g], [np.array([710.0, 709.0])], "fast_run")
    assert np.isfinite(val) and np.all(np.isfinite(gv))
    np.testing.assert_allclose(gv.sum(), 1.0)
    check_values([v], [lse, g], [np.array([0.1, -0.4, 2.0])])


# ---------------------------------------------------------------------------------------------
# sigmoid cross-entropy (the sigmoid rewrites themselves are in sigmoid.py)

def test_binary_crossentropy_of_sigmoid_end_to_end():
    x = T.dvector("x")
    t = T.dvector("t")
    cost = T.nnet.binary_crossentropy(T.nnet.sigmoid(x), t).sum()
    g = T.grad(cost, x)
    xs = np.array([-800.0, -30.0, 0.0, 30.0, 800.0])
    ts = np.array([1.0, 0.0, 1.0, 1.0, 0.0])
    ref_cost = np.sum(np.logaddexp(0, xs) - ts * xs)
    ref_grad = 1 / (1 + np.exp(-xs)) - ts
    for level in ("fast_compile", "fast_run"):
        c, gv = run([x, t], [cost, g], [xs, ts], level)
        np.testing.assert_allclose(c, ref_cost, rtol=1e-12)
        np.testing.assert_allclose(gv, ref_grad, atol=1e-12)


def test_log_sigmoid_gradient_finite_far_left():
    x = T.dvector("x")
    g = T.grad(T.log(T.nnet.sigmoid(x)).sum(), x)
    gv = run([x], g, [np.array([-800.0, 0.0, 800.0])], "fast_run")
    np.testing.assert_allclose(gv, [1.0, 0.5, 0.0], atol=1e-12)


def test_divisions_cancel_through_a_sum():
    a, b, x = T.dvectors("a", "b", "x")
    d1, d2 = T.exp(x), T.exp(-x)  # both underflow or overflow for large |x|
    expr = (a / d1 - b / d2) * d1 * d2
    out = rewrite_graph(expr, "stabilize")
    assert "true_div" not in names(out)
    partial = (a / d1 - b) * d1 * d2  # one term does not cancel: left alone
    assert "true_div" in names(rewrite_graph(partial, "stabilize"))
    big = np.array([800.0, -800.0, 0.5])
    got = run([a, b, x], expr, [np.ones(3), np.ones(3), big], "fast_run")
    np.testing.assert_allclose(got, np.exp(-big) - np.exp(big))
    check_values([a, b, x], [expr, partial], [np.ones(3), np.full(3, 2.0), np.array([0.1, 2.0,
                                                                                      -1.0])])


def test_crossentropy_op_classes_exist():
    assert CrossentropyCategorical1Hot and CrossentropyCategorical1HotGrad


def test_exp_over_its_kept_sum_becomes_the_softmax_op():
    # Theano 1.0.5 gives [[1, 0, 0], ...]: the ratio exp(x) / sum(exp(x)) overflowed to NaN
    from jitgraph.tensor.neural.activations import softmax_graph
    from jitgraph.tensor.nnet import Softmax

    m = T.dmatrix("m")
    f = jitgraph.function([m], softmax_graph(m))
    assert any(isinstance(n.op, Softmax) for n in f.maker.fgraph.toposort())
    np.testing.assert_allclose(f(np.array([[1000.0, 0.0, -1.0], [1.0, 2.0, 3.0]])),
                               [[1.0, 0.0, 0.0], [0.09003057317038045, 0.2447284710547976,
                                                  0.6652409557748218]], rtol=1e-13)
