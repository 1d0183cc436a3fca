"""R-ops of every differentiable tensor op, checked against finite differences.

For each case ``f(inputs)``: ``Rop(f, inputs, v)`` must equal the directional derivative
``(f(x + eps v) - f(x - eps v)) / (2 eps)``, and ``Lop`` must be its transpose
(``<u, J v> == <J^T u, v>``).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import jitgraph as theano
import jitgraph.tensor as T
from jitgraph.gradient import Lop, Rop, disconnected_grad
from jitgraph.graph.evaluate import evaluate
from jitgraph.tensor import nnet
from jitgraph.tensor.linalg import blas
from jitgraph.tensor.elementwise.reduction import CAReduce
from jitgraph.tensor.elementwise.scalar_ops import op as scalar_op

RNG = np.random.default_rng(42)


def _arr(*shape: int, low: float = -1.0, high: float = 1.0) -> np.ndarray:
    return RNG.uniform(low, high, size=shape)


def _pos(*shape: int) -> np.ndarray:
    return _arr(*shape, low=0.5, high=2.0)


A23, B34, V3, V2, S = _arr(2, 3), _arr(3, 4), _arr(3), _arr(2), np.asarray(0.7)
LABELS = T.constant(np.array([2, 0], dtype="int64"))

# name -> (function of the inputs, input values)
CASES = {
    # elementwise (every scalar op through its gradient rule)
    "exp": (lambda x: T.exp(x), [A23]),
    "log": (lambda x: T.log(x), [_pos(2, 3)]),
    "sqrt_sqr": (lambda x: T.sqrt(x) + T.sqr(x), [_pos(4)]),
    "trig": (lambda x: T.sin(x) * T.cos(x) + T.tan(x), [A23]),
    "hyperbolic": (lambda x: T.tanh(x) + T.sinh(x) - T.cosh(x), [A23]),
    "inverse_trig": (lambda x: T.arcsin(x * 0.5) + T.arctan(x) + T.arccos(x * 0.5), [A23]),
    "sigmoid_softplus": (lambda x: T.nnet.sigmoid(x) * T.nnet.softplus(x), [A23]),
    "erf_log1p_expm1": (lambda x: T.erf(x) + T.log1p(x * x) + T.expm1(x), [A23]),
    "pow": (lambda x, y: x ** y, [_pos(2, 3), _arr(2, 3)]),
    "true_div": (lambda x, y: x / y, [A23, _pos(2, 3)]),
    "max_min_switch": (lambda x, y: T.maximum(x, y) + T.minimum(x, y) * T.switch(x > 0, x, y),
                       [A23, _arr(2, 3)]),
    "clip_abs": (lambda x: T.clip(x, -0.5, 0.5) + abs(x), [A23]),
    "arctan2": (lambda x, y: T.arctan2(x, y), [A23, _pos(2, 3)]),
    "broadcast_add_mul": (lambda x, r: x * r + r, [A23, _arr(1, 3)]),
    "scalar_times_matrix": (lambda s, x: s * x - x / 3, [S, A23]),
    "nary_mul": (lambda x, y, z: x * y * z, [V3, _arr(3), _arr(3)]),
    "cast_float32": (lambda x: T.cast(x, "float32") * 2, [A23]),
    "floor_is_flat": (lambda x: T.floor(x) * x, [A23]),
    # dimshuffle and shapes
    "transpose": (lambda x: x.T * 2, [A23]),
    "dimshuffle_x": (lambda x: x.dimshuffle("x", 1, 0, "x"), [A23]),
    "reshape_flatten": (lambda x: x.reshape((3, 2)).flatten() ** 2, [A23]),
    "specify_shape": (lambda x: T.specify_shape(x, (2, 3)) ** 2, [A23]),
    "patternbroadcast": (lambda r: T.unbroadcast(r, 0) * 3, [_arr(1, 3)]),
    "join_stack": (lambda x, y: T.concatenate([x, y * 2], axis=0) + 0, [A23, _arr(1, 3)]),
    "stack": (lambda x, y: T.stack([x, y], axis=1), [V3, _arr(3)]),
    "make_vector": (lambda s, t: T.stack([s, t * s, s ** 2]), [S, np.asarray(1.3)]),
    "alloc": (lambda s, r: T.alloc(s, 2, 3) * T.alloc(r, 2, 3), [S, _arr(3)]),
    "tile_repeat": (lambda x: T.tile(x, (2, 1)) * T.repeat(x, 2, axis=0), [A23]),
    "repeat_vector": (lambda x: T.repeat(x, [1, 3, 2]) ** 2, [V3]),
    "arange": (lambda a, b: T.arange(a, 5.0, b) ** 2, [np.asarray(0.3), np.asarray(0.7)]),
    # reductions
    "sum_axis": (lambda x: T.sum(x, axis=1) + T.sum(x), [A23]),
    "mean_var_std": (lambda x: T.mean(x, axis=0) + T.var(x, axis=0) + T.std(x), [A23]),
    "max_min": (lambda x: T.max(x, axis=1) + T.min(x, axis=0).sum(), [A23]),
    "prod": (lambda x: T.prod(x, axis=0), [_pos(2, 3)]),
    "prod_with_zero": (lambda x: T.prod(x), [np.array([1.5, 0.0, -2.0])]),
    "sum_keepdims": (lambda x: x / T.sum(x, axis=1, keepdims=True), [_pos(2, 3)]),
    "fused_reduction": (lambda x, y: CAReduce(scalar_op("add"), (1,), scalar_op("mul"))(x, y),
                        [A23, _arr(2, 3)]),
    # linear algebra
    "dot_mm": (lambda a, b: T.dot(a, b), [A23, B34]),
    "dot_mv_vm_vv": (lambda a, v, w: T.dot(a, v) * T.dot(w, a).sum() + T.dot(v, v),
                     [A23, V3, V2]),
    "dot22": (lambda a, b: blas.dot22(a, b), [A23, B34]),
    "gemv": (lambda y, a, x, s: blas.gemv(y, s, a, x, 0.5), [V2, A23, V3, S]),
    "gemm": (lambda z, a, b, s: blas.gemm(z, s, a, b, 1.5), [_arr(2, 4), A23, B34, S]),
    "ger": (lambda a, x, y, s: blas.ger(a, s, x, y), [A23, V2, V3, S]),
    "batched_dot": (lambda a, b: T.batched_dot(a, b), [_arr(2, 3, 4), _arr(2, 4, 2)]),
    "matmul": (lambda a, b: T.matmul(a, b), [_arr(2, 2, 3), B34]),
    "tensordot": (lambda a, b: T.tensordot(a, b, axes=[[1], [0]]), [A23, B34]),
    # indexing
    "subtensor": (lambda x: x[1:, ::2] * x[0, 1], [_arr(3, 4)]),
    "set_inc_subtensor": (lambda x, y: T.inc_subtensor(T.set_subtensor(x[0], y)[1:, 1], y[:2]),
                          [_arr(3, 3), V3]),
    "advanced_subtensor1": (lambda x: x[[0, 2, 2]] ** 2, [_arr(3, 2)]),
    "advanced_inc_set1": (lambda x, y: T.advanced_inc_subtensor1(x, y, [0, 2, 0])
                          + T.advanced_set_subtensor1(x, y, [1, 0, 2]), [_arr(3, 2), _arr(3, 2)]),
    "advanced_subtensor": (lambda x: x[[0, 1], [2, 0]] * x[:, [1, 1]].sum(), [A23]),
    "advanced_inc_subtensor": (lambda x, y: T.inc_subtensor(x[[0, 1], [2, 0]], y), [A23, V2]),
    # nnet
    "softmax": (lambda x: nnet.softmax(x), [A23]),
    "log_softmax": (lambda x: nnet.log_softmax(x, axis=0), [A23]),
    "crossentropy_1hot": (lambda x: nnet.crossentropy_categorical_1hot(nnet.softmax(x), LABELS),
                          [A23]),
    "crossentropy_1hot_grad": (lambda x: T.grad(
        nnet.crossentropy_categorical_1hot(nnet.softmax(x), LABELS).sum(), x), [A23]),
    "relu_elu": (lambda x: nnet.relu(x, 0.1) + nnet.elu(x), [A23]),
}


def _points(values: list) -> list[np.ndarray]:
    return [np.asarray(_arr(*np.shape(v))) for v in values]


def _build(fn, values: list):
    inputs = [T.TensorType("float64", [s == 1 for s in np.shape(v)])(f"in{k}")
              for k, v in enumerate(values)]
    return inputs, fn(*inputs)


def _numeric_jvp(inputs, out, values, points):
    eps = 1e-6 if out.dtype == "float64" else 1e-2  # float32 results: a coarser step

    def at(step):
        return np.asarray(evaluate(out, {i: v + step * p for i, v, p in
                                         zip(inputs, values, points)}), dtype="float64")
    return (at(eps) - at(-eps)) / (2 * eps)


@pytest.mark.parametrize("name", sorted(CASES))
def test_rop_matches_finite_differences(name):
    fn, values = CASES[name]
    inputs, out = _build(fn, values)
    evs = [T.TensorType("float64", i.broadcastable)(f"v{k}") for k, i in enumerate(inputs)]
    points = _points(values)
    jv = Rop(out, inputs, evs)
    got = evaluate(jv, dict(zip(inputs + evs, values + points)))
    tol = 1e-5 if out.dtype == "float64" else 1e-3
    np.testing.assert_allclose(got, _numeric_jvp(inputs, out, values, points), rtol=tol,
                               atol=tol)
    # Lop is the transpose: <u, J v> == <J^T u, v>
    u_var = T.TensorType(out.dtype, out.broadcastable)("u")
    u = _arr(*np.shape(got))
    vj = Lop(out, inputs, u_var, disconnected_inputs="ignore")
    vj_values = evaluate(vj, dict(zip(inputs + [u_var], values + [u])))
    lhs = float(np.sum(u * got))
    rhs = sum(float(np.sum(g * p)) for g, p in zip(vj_values, points))
    assert lhs == pytest.approx(rhs, rel=tol / 10, abs=1e-9)


@pytest.mark.parametrize("mode", ["FAST_COMPILE", "FAST_RUN"])
@pytest.mark.parametrize("name", ["dot_mm", "softmax", "subtensor", "mean_var_std",
                                  "pow", "gemv"])
def test_compiled_rop(name, mode):
    fn, values = CASES[name]
    inputs, out = _build(fn, values)
    evs = [T.TensorType("float64", i.broadcastable)(f"v{k}") for k, i in enumerate(inputs)]
    points = _points(values)
    f = theano.function(inputs + evs, Rop(out, inputs, evs), mode=mode)
    np.testing.assert_allclose(f(*values, *points), _numeric_jvp(inputs, out, values, points),
                               rtol=1e-5, atol=1e-6)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["crossentropy_1hot", "advanced_inc_set1", "batched_dot"])
def test_rop_under_debugmode(name):
    fn, values = CASES[name]
    inputs, out = _build(fn, values)
    evs = [T.TensorType("float64", i.broadcastable)(f"v{k}") for k, i in enumerate(inputs)]
    points = _points(values)
    f = theano.function(inputs + evs, Rop(out, inputs, evs), mode="DebugMode")
    np.testing.assert_allclose(f(*values, *points), _numeric_jvp(inputs, out, values, points),
                               rtol=1e-5, atol=1e-6)


_UNARY = ["exp", "tanh", "sigmoid", "softplus", "sin", "arctan", "sqr", "neg", "abs"]


@given(shape=st.lists(st.integers(1, 3), min_size=0, max_size=3),
       names=st.lists(st.sampled_from(_UNARY), min_size=1, max_size=3),
       axis=st.sampled_from([None, 0, -1]))
def test_rop_of_random_elementwise_reductions(shape, names, axis):
    x = T.TensorType("float64", [s == 1 for s in shape])("x")
    out = x
    for name in names:
        out = getattr(T, name)(out) if hasattr(T, name) else getattr(T.nnet, name)(out)
    if shape:
        out = T.sum(out * x, axis=axis)
    value = _arr(*shape)
    point = _arr(*shape)
    v = x.type("v")
    got = evaluate(Rop(out, x, v), {x: value, v: point})
    np.testing.assert_allclose(got, _numeric_jvp([x], out, [value], [point]), rtol=1e-5,
                               atol=1e-6)


def test_rop_through_disconnected_grad_drops_that_path():
    x, v = T.dvector("x"), T.dvector("v")
    jv = Rop(disconnected_grad(x) * x, x, v)
    xv, vv = np.array([1.5, -2.5, 3.0]), np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(evaluate(jv, {x: xv, v: vv}), xv * vv)  # Theano: [0.75 2.5 6.]


@pytest.mark.parametrize("make", [T.round, T.floor, T.ceil, T.trunc, T.sgn, T.iround,
                                  lambda m: T.round(m, "half_away_from_zero")])
def test_rop_of_piecewise_constant_functions_is_zero(make):
    # Theano 1.0.5: zeros (the partial derivative is zero), not a disconnected output
    mx, mv = T.dmatrix("mx"), T.dmatrix("mv")
    r = T.Rop(make(mx), mx, mv)
    assert r.dtype == "float64"
    got = theano.function([mx, mv], r, on_unused_input="ignore")(
        np.array([[1.2, 2], [3, -4]]), np.ones((2, 2)))
    np.testing.assert_array_equal(got, np.zeros((2, 2)))
