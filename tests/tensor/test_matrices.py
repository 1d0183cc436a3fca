"""eye/Eye, tri/Tri, tril, triu, identity_like, diag, diagonal against NumPy: values and dtypes
(compiled and perform, hypothesis), infer_shape, gradients and errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgraph
import jitgraph.tensor as T
from jitgraph.graph.evaluate import evaluate
from jitgraph.tensor.core.gradient import verify_grad

RNG = np.random.RandomState(7)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 5), st.integers(0, 5), st.integers(-6, 6),
       st.sampled_from(["float64", "int32", "int8", "bool"]))
def test_eye_tri_match_numpy(n, m, k, dtype):
    sn, sm, sk = T.lscalar("n"), T.lscalar("m"), T.lscalar("k")
    outs = [T.eye(sn, sm, sk, dtype=dtype), T.tri(sn, sm, sk, dtype=dtype)]
    compiled = jitgraph.function([sn, sm, sk], outs)(n, m, k)
    reference = evaluate(outs, {sn: n, sm: m, sk: k})
    for got, ref, want in zip(compiled, reference, [np.eye(n, m, k, dtype=dtype),
                                                    np.tri(n, m, k, dtype=dtype)]):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(ref, want)


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 4), st.integers(1, 5), st.integers(-5, 5), st.integers(0, 2))
def test_tril_triu_diag_match_numpy(rows, cols, k, lead):
    value = RNG.standard_normal((2,) * lead + (rows, cols))
    x = T.TensorType("float64", (False,) * value.ndim)("x")
    outs = [T.tril(x, k), T.triu(x, k), T.diagonal(x, k, lead, lead + 1)]
    got = jitgraph.function([x], outs)(value)
    np.testing.assert_array_equal(got[0], np.tril(value, k))
    np.testing.assert_array_equal(got[1], np.triu(value, k))
    np.testing.assert_array_equal(got[2], np.diagonal(value, k, lead, lead + 1))
    for out, ref in zip(evaluate(outs, {x: value}), got):
        np.testing.assert_array_equal(out, ref)


def test_diag_identity_like_and_types(infer_shape_ok):
    v, x = T.vector("v"), T.matrix("x")
    vv, xv = np.array([1.0, 2.0, 3.0]), RNG.standard_normal((3, 5))
    for k in (-2, 0, 1):
        np.testing.assert_array_equal(evaluate(T.diag(v, k), {v: vv}), np.diag(vv, k))
        np.testing.assert_array_equal(evaluate(T.diag(x, k), {x: xv}), np.diag(xv, k))
        infer_shape_ok(T.diag(v, k), {v: vv})
        infer_shape_ok(T.diag(x, k), {x: xv})
    ident = T.identity_like(T.imatrix("i"))
    assert ident.dtype == "int32" and ident.broadcastable == (False, False)
    np.testing.assert_array_equal(evaluate(T.identity_like(x), {x: xv}), np.eye(3, 5))
    n = T.lscalar("n")
    infer_shape_ok(T.eye(n, n + 2, 1), {n: 3})
    infer_shape_ok(T.tri(n), {n: 4})
    assert T.eye(2).dtype == jitgraph.config.floatX
    assert str(T.Tri("int8")) == "Tri{dtype='int8'}"


def test_gradients():
    verify_grad(lambda x: T.tril(x, -1) * 2, [RNG.standard_normal((3, 4))], rng=RNG)
    verify_grad(lambda x: T.triu(x, 1), [RNG.standard_normal((4, 3))], rng=RNG)
    verify_grad(lambda v: T.diag(v, 2), [RNG.standard_normal(3)], rng=RNG)
    verify_grad(lambda x: T.diag(x, -1), [RNG.standard_normal((4, 3))], rng=RNG)
    verify_grad(lambda t: T.diagonal(t, 1, 2, 0), [RNG.standard_normal((3, 2, 4))], rng=RNG)
    n = T.lscalar()
    assert T.grad(T.eye(n).sum(), n, disconnected_inputs="ignore").ndim == 0


def test_rop_of_linear_builders():
    x, v = T.matrix("x"), T.matrix("v")
    xv, vv = RNG.standard_normal((3, 3)), RNG.standard_normal((3, 3))
    for build in (lambda a: T.tril(a), lambda a: T.diag(a, 1), lambda a: T.diagonal(a)):
        got = evaluate(T.Rop(build(x), x, v), {x: xv, v: vv})
        np.testing.assert_allclose(got, evaluate(build(v), {v: vv}))


@pytest.mark.parametrize("call, error, match", [
    (lambda: T.diag(T.tensor3()), ValueError, "vector or a matrix"),
    (lambda: T.tril(T.vector()), ValueError, "at least 2 dimensions"),
    (lambda: T.identity_like(T.vector()), ValueError, "must be a matrix"),
    (lambda: T.eye(T.vector()), TypeError, "n"),
    (lambda: T.eye(2.5), TypeError, "integer"),
    (lambda: T.diagonal(T.matrix(), 0, 0, 0), ValueError, "axis"),
])
def test_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_negative_size_is_reported():
    n = T.lscalar("n")
    with pytest.raises(ValueError, match="negative size"):
        jitgraph.function([n], T.eye(n))(-1)
