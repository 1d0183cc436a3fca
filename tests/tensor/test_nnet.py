"""T.nnet: activations, softmax, cross-entropies against NumPy, their gradients and shapes."""

from __future__ import annotations

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T

from jitgraph.graph.evaluate import evaluate
from jitgraph.tensor import nnet as N
from jitgraph.tensor.core.gradient import grad, verify_grad
from jitgraph.tensor.core.type import TensorType


def var_for(value: np.ndarray, name: str | None = None):
    return TensorType(value.dtype.name, [False] * value.ndim).make_variable(name)


def rand(*shape, low=-2.0, high=2.0, dtype="float64", seed=0):
    return np.random.default_rng(seed).uniform(low, high, shape).astype(dtype)


def np_softmax(a, axis):
    e = np.exp(a - np.max(a, axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def layouts(value):
    yield value
    yield value[::-1]
    if value.ndim == 2:
        yield value.T


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("axis", [-1, 0, 1, None])
def test_softmax_and_log_softmax_match_numpy(dtype, axis):
    for a in layouts(rand(3, 4, dtype=dtype, seed=1) * 300):  # large values: must not overflow
        x = var_for(a)
        sm, lsm = N.softmax(x, axis=axis), N.log_softmax(x, axis=axis)
        assert sm.dtype == lsm.dtype == dtype
        got, got_log = evaluate([sm, lsm], {x: a})
        ref = np_softmax(a.astype("float64"), axis)
        shifted = a.astype("float64") - a.max(axis=axis, keepdims=True)
        ref_log = shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))
        tol = 1e-5 if dtype == "float32" else 1e-12
        np.testing.assert_allclose(got, ref, rtol=tol, atol=1e-7)
        np.testing.assert_allclose(got_log, ref_log, rtol=tol, atol=1e-4)
        assert np.all(np.isfinite(got_log))


@pytest.mark.parametrize("fn", [N.softmax, N.log_softmax, N.logsoftmax])
def test_vector_without_axis_is_a_row_as_in_theano(fn):
    # Theano 1.0.5: softmax(vector) is a (1, n) matrix (with a deprecation warning), so
    # programs index softmax(v)[0] or softmax(v)[0, k]
    v = TensorType("float64", (False,)).make_variable()
    with pytest.warns(UserWarning, match="1-row matrix"):
        out = fn(v)
    assert out.ndim == 2 and out.broadcastable == (True, False)
    expected = np_softmax(np.array([[1.0, 2.0, 3.0]]), -1)
    if fn is not N.softmax:
        expected = np.log(expected)
    np.testing.assert_allclose(evaluate(out, {v: np.array([1.0, 2.0, 3.0])}), expected)
    assert fn(v, axis=-1).ndim == 1 and fn(v, axis=0).ndim == 1


def test_softmax_other_inputs():
    i = TensorType("int32", (False, False)).make_variable()
    assert N.softmax(i).dtype == "float64"
    np.testing.assert_allclose(evaluate(N.softmax(i), {i: np.array([[1, 2], [3, 3]])}),
                               np_softmax(np.array([[1.0, 2.0], [3.0, 3.0]]), -1))
    v = TensorType("float64", (False,)).make_variable()
    np.testing.assert_allclose(evaluate(N.softmax(v, axis=-1), {v: np.array([0.0, 1.0])}),
                               np_softmax(np.array([0.0, 1.0]), -1))
    assert evaluate(N.softmax(v, axis=0), {v: np.zeros(0)}).shape == (0,)
    h = TensorType("float16", (False,)).make_variable()
    assert evaluate(N.softmax(h, -1), {h: np.array([1, 2], "float16")}).dtype == np.float16
    with pytest.raises(ValueError, match="softmax: axis 2"):
        N.softmax(v, axis=2)
    assert N.Softmax(1) == N.Softmax(1) != N.LogSoftmax(1)
    assert N.softmax(i, axis=-1).owner.op == N.softmax(i, axis=1).owner.op


@pytest.mark.parametrize("axis", [-1, 0, None])
def test_softmax_gradients(axis):
    a = rand(3, 4, seed=2)
    verify_grad(lambda v: N.softmax(v, axis=axis), [a], rng=0)
    verify_grad(lambda v: N.log_softmax(v, axis=axis), [a], rng=1)
    verify_grad(lambda v: N.softmax(v, axis=axis), [rand(2, 3, 2, seed=3)], rng=2)


def test_softmax_infer_shape():
    a = rand(3, 4)
    x = var_for(a)
    for fn in (N.softmax, N.log_softmax):
        out = fn(x)
        assert out.owner.op.infer_shape(None, out.owner, [a.shape]) == [(3, 4)]


def test_activations():
    a = np.array([[-2.0, -0.5, 0.0, 0.5, 3.0]])
    x = var_for(a)
    np.testing.assert_allclose(evaluate(N.relu(x), {x: a}), np.maximum(a, 0))
    np.testing.assert_allclose(evaluate(N.relu(x, 0.1), {x: a}), np.where(a > 0, a, 0.1 * a))
    alpha = TensorType("float64", ()).make_variable()
    np.testing.assert_allclose(evaluate(N.relu(x, alpha), {x: a, alpha: np.array(0.2)}),
                               np.where(a > 0, a, 0.2 * a))
    np.testing.assert_allclose(evaluate(N.elu(x), {x: a}), np.where(a > 0, a, np.expm1(a)))
    np.testing.assert_allclose(evaluate(N.hard_sigmoid(x), {x: a}),
                               np.clip(0.2 * a + 0.5, 0, 1))
    np.testing.assert_allclose(evaluate(N.sigmoid(x), {x: a}), 1 / (1 + np.exp(-a)))
    np.testing.assert_allclose(evaluate(N.ultra_fast_sigmoid(x), {x: a}), 1 / (1 + np.exp(-a)))
    np.testing.assert_allclose(evaluate(N.softplus(x), {x: a}), np.log1p(np.exp(a)))
    f = TensorType("float32", (False,)).make_variable()
    for fn in (N.relu, N.elu, N.hard_sigmoid, N.sigmoid, N.softplus):
        assert fn(f).dtype == "float32", fn
    # relu's gradient is Theano's: 0.5 at exactly 0
    np.testing.assert_allclose(evaluate(grad(N.relu(x).sum(), x), {x: a}),
                               [[0, 0, 0.5, 1, 1]])


@pytest.mark.parametrize("fn", [N.relu, lambda v: N.relu(v, 0.3), N.elu, N.hard_sigmoid])
def test_activation_gradients(fn):
    a = np.array([[-1.7, -0.4, 0.3, 1.1], [2.2, -2.9, 0.6, -0.8]])  # away from the kinks
    verify_grad(fn, [a], rng=0)


def test_binary_crossentropy():
    p, t = rand(3, 4, low=0.05, high=0.95, seed=4), rand(3, 4, low=0, high=1, seed=5)
    x, y = var_for(p), var_for(t)
    expected = -(t * np.log(p) + (1 - t) * np.log(1 - p))
    np.testing.assert_allclose(evaluate(N.binary_crossentropy(x, y), {x: p, y: t}), expected)
    verify_grad(N.binary_crossentropy, [p, t], rng=0)
    f32 = TensorType("float32", (False,)).make_variable()
    assert N.binary_crossentropy(f32, f32).dtype == "float32"


def test_sigmoid_binary_crossentropy_is_stable():
    z = np.array([-800.0, -40.0, -1.0, 0.0, 2.0, 40.0, 800.0])
    t = np.array([1.0, 0.0, 0.3, 1.0, 0.0, 0.0, 1.0])
    x, y = var_for(z), var_for(t)
    out = N.sigmoid_binary_crossentropy(x, y)
    got = evaluate(out, {x: z, y: t})
    expected = np.logaddexp(0, z) - t * z
    np.testing.assert_allclose(got, expected)
    g = evaluate(grad(out.sum(), x), {x: z, y: t})
    assert np.all(np.isfinite(g))
    np.testing.assert_allclose(g, 1 / (1 + np.exp(-np.clip(z, -700, 700))) - t, atol=1e-12)
    mid = np.array([-1.5, 0.2, 2.5])
    verify_grad(N.sigmoid_binary_crossentropy, [mid, np.array([0.0, 0.6, 1.0])], rng=0)


def test_categorical_crossentropy_with_distributions():
    p = rand(3, 4, low=0.05, high=1, seed=6)
    p /= p.sum(1, keepdims=True)
    onehot = np.eye(4)[[1, 3, 0]]
    x, y = var_for(p), var_for(onehot)
    out = N.categorical_crossentropy(x, y)
    np.testing.assert_allclose(evaluate(out, {x: p, y: onehot}),
                               -np.log(p[[0, 1, 2], [1, 3, 0]]))
    verify_grad(lambda v: N.categorical_crossentropy(v, onehot), [p], rng=0)
    with pytest.raises(TypeError, match="rank mismatch"):
        N.categorical_crossentropy(x, TensorType("float64", ()).make_variable())


@pytest.mark.parametrize("label_dtype", ["int32", "int64", "uint8"])
def test_categorical_crossentropy_with_labels(label_dtype):
    p = rand(3, 4, low=0.05, high=1, seed=7)
    labels = np.array([1, 3, 0], dtype=label_dtype)
    for value in layouts(p):
        x, y = var_for(value), var_for(labels)
        out = N.categorical_crossentropy(x, y)
        assert isinstance(out.owner.op, N.CrossentropyCategorical1Hot)
        n = value.shape[0]
        lab = labels if n == 3 else np.array([1, 2, 0, 2], dtype=label_dtype)
        np.testing.assert_allclose(evaluate(out, {x: value, y: lab}),
                                   -np.log(value[np.arange(n), lab]))
        assert out.owner.op.infer_shape(None, out.owner, [value.shape, lab.shape]) == [(n,)]
    verify_grad(lambda v: N.categorical_crossentropy(v, labels), [p], rng=0)
    g = grad(N.categorical_crossentropy(x, y).sum(), x)
    assert g.owner.op.infer_shape(None, g.owner, [(4,), (4, 3), (4,)]) == [(4, 3)]


def test_crossentropy_1hot_errors():
    x = TensorType("float64", (False, False)).make_variable()
    y = TensorType("int64", (False,)).make_variable()
    out = N.crossentropy_categorical_1hot(x, y)
    with pytest.raises(ValueError, match=r"labels must lie in \[0, 4\)"):
        evaluate(out, {x: rand(2, 4), y: np.array([0, 4])})
    with pytest.raises(ValueError, match="3 rows of coding_dist"):
        evaluate(out, {x: rand(3, 4), y: np.array([0, 1])})
    with pytest.raises(TypeError, match="integer vector"):
        N.crossentropy_categorical_1hot(x, TensorType("float64", (False,)).make_variable())


def test_mlp_softmax_crossentropy_gradient_is_finite():
    """softmax + categorical cross-entropy on logits large enough to underflow exp."""
    logits = np.array([[900.0, -900.0, 0.0], [0.0, 1.0, 2.0]])
    x = var_for(logits)
    labels = np.array([0, 2])
    cost = N.categorical_crossentropy(N.softmax(x), labels).mean()
    g = evaluate(grad(cost, x), {x: logits})
    assert np.all(np.isfinite(g))
    expected = (np_softmax(logits, -1) - np.eye(3)[labels]) / 2
    np.testing.assert_allclose(g, expected, atol=1e-12)


def test_the_softmax_ops_of_the_last_axis_make_a_vector_a_row():
    # Theano 1.0.5: softmax_op(vector) is a 1-row matrix, and so are the cross-entropy's inputs
    from jitgraph.tensor.neural.softmax_xent import logsoftmax_op, softmax_op

    v = T.dvector("v")
    for op in (softmax_op, logsoftmax_op):
        assert op(v).broadcastable == (True, False)
    assert N.Softmax(0)(v).broadcastable == (False,)  # softmax(v, axis=-1) keeps a vector
    nll = N.crossentropy_categorical_1hot(softmax_op(v), T.lvector("y"))
    assert nll.broadcastable == (False,)
    f = jitgraph.function([v], softmax_op(v))
    np.testing.assert_allclose(f(np.array([1.0, 2.0, 3.0])),
                               [[0.09003057, 0.24472847, 0.66524096]], rtol=1e-7)


@pytest.mark.parametrize("make,order_dtype", [(T.dvector, "float64"), (T.ivector, "int32"),
                                              (T.bvector, "int8")])
def test_confusion_matrix_takes_labels_of_any_real_dtype(make, order_dtype):
    from jitgraph.tensor.neural.confusion import confusion_matrix

    actual, pred = make("a"), make("p")
    f = jitgraph.function([actual, pred], confusion_matrix(actual, pred))
    labels = np.array([2, 0, 2, 2, 0, 1.5]).astype(order_dtype)
    mat, order = f(labels, np.array([0, 0, 2, 2, 0, 2]).astype(order_dtype))
    np.testing.assert_array_equal(mat, [[2, 0, 0], [0, 0, 1], [1, 0, 2]])  # Theano 1.0.5
    assert order.dtype == order_dtype
    expected_order = [0, 1.5, 2] if order_dtype == "float64" else [0, 1, 2]
    np.testing.assert_array_equal(order, expected_order)
    with pytest.raises(ValueError, match="vector of labels"):
        confusion_matrix(T.dmatrix(), T.dvector())
