"""Flatten, Tile, Mean and MaxAndArgmax (Theano's op classes) against NumPy (compiled and
perform, hypothesis), gradients, R_op, infer_shape and errors."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgraph
import jitgraph.tensor as T
from jitgraph.graph.evaluate import evaluate
from jitgraph.tensor.core.gradient import verify_grad

RNG = np.random.RandomState(17)


def _tensor(value, name="x"):
    return T.TensorType(str(value.dtype), (False,) * value.ndim)(name)


@st.composite
def array_and_axes(draw):
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    value = RNG.randint(-5, 5, size=shape).astype(draw(st.sampled_from(["float64", "int32"])))
    axes = draw(st.sampled_from([c for r in range(1, len(shape) + 1)
                                 for c in itertools.combinations(range(len(shape)), r)]))
    return value, list(axes)


@settings(max_examples=25, deadline=None)
@given(array_and_axes(), st.lists(st.integers(1, 3), min_size=0, max_size=3))
def test_match_numpy(problem, reps):
    value, axes = problem
    x = _tensor(value)
    ndim = max(value.ndim, len(reps))
    reps = [1] * (ndim - len(reps)) + reps
    outdim = value.ndim
    outs = [*T.MaxAndArgmax(axes)(x), T.Mean(axes)(x), T.Tile(ndim)(x, reps),
            T.Flatten(outdim)(x), T.Flatten()(x)]
    compiled = jitgraph.function([x], outs)(value)
    reference = evaluate(outs, {x: value})
    kept = [d for d in range(value.ndim) if d not in axes]
    moved = np.transpose(value, kept + axes).reshape([value.shape[d] for d in kept] + [-1])
    wanted = [np.max(moved, -1), np.argmax(moved, -1), np.mean(value, axis=tuple(axes)),
              np.tile(value, reps), value.reshape(value.shape[:outdim - 1] + (-1,)),
              value.ravel()]
    for got, ref, want in zip(compiled, reference, wanted):
        np.testing.assert_allclose(got, want, rtol=1e-12)
        np.testing.assert_allclose(ref, want, rtol=1e-12)
    assert compiled[1].dtype == np.int64
    assert compiled[2].dtype == (value.dtype if value.dtype.kind == "f" else np.float64)


def test_printing_types_and_shapes(infer_shape_ok):
    x, t = T.matrix("x"), T.tensor3("t")
    xv, tv = RNG.standard_normal((3, 4)), RNG.standard_normal((2, 3, 4))
    assert str(T.Flatten(2)) == "Flatten{2}" and str(T.Tile(2)) == "Tile{ndim=2}"
    assert str(T.Mean()) == "Mean" and str(T.Mean(0)) == "Mean{0}"
    assert str(T.MaxAndArgmax([1])) == "MaxAndArgmax{axis=(1,)}"
    assert T.Flatten(2)(T.TensorType("float64", (False, True, True))()).broadcastable == \
        (False, True)
    for out in (T.Flatten(2)(t), T.Tile(3)(x, [2, 1, 3]), T.Mean([0, 2])(t),
                *T.MaxAndArgmax([1])(t)):
        infer_shape_ok(out, {x: xv, t: tv})


def test_gradients_and_rop():
    verify_grad(lambda x: T.Flatten(2)(x), [RNG.standard_normal((2, 3, 2))], rng=RNG)
    verify_grad(lambda x: T.Tile(3)(x, [2, 1, 3]), [RNG.standard_normal((3, 2))], rng=RNG)
    verify_grad(lambda x: T.Mean([0, 2])(x), [RNG.standard_normal((2, 3, 2))], rng=RNG)
    verify_grad(lambda x: T.MaxAndArgmax([0, 2])(x)[0], [RNG.standard_normal((2, 3, 2))],
                rng=RNG)
    x, v = T.tensor3("x"), T.tensor3("v")
    xv, vv = RNG.standard_normal((2, 3, 2)), RNG.standard_normal((2, 3, 2))
    mx, am = T.MaxAndArgmax([0, 2])(x)
    rop = evaluate(T.Rop(mx, x, v), {x: xv, v: vv})
    moved = np.transpose(vv, (1, 0, 2)).reshape(3, -1)
    idx = np.argmax(np.transpose(xv, (1, 0, 2)).reshape(3, -1), -1)
    np.testing.assert_allclose(rop, moved[np.arange(3), idx])
    np.testing.assert_allclose(evaluate(T.Rop(T.Mean(1)(x), x, v), {x: xv, v: vv}),
                               vv.mean(1))
    w = T.vector("w")  # every entry equal to the maximum gets the gradient, as in Theano
    ties = T.grad(T.MaxAndArgmax([0])(w)[0], w)
    np.testing.assert_array_equal(evaluate(ties, {w: np.array([1.0, 3.0, 3.0])}), [0, 1, 1])


@pytest.mark.parametrize("call, error, match", [
    (lambda: T.Flatten(3)(T.matrix()), ValueError, "cannot flatten"),
    (lambda: T.Flatten(0), ValueError, "outdim"),
    (lambda: T.Tile(1)(T.matrix(), [2]), ValueError, "more dimensions"),
    (lambda: T.Tile(2)(T.matrix(), T.vector()), TypeError, "reps"),
    (lambda: T.MaxAndArgmax(None), TypeError, "list of axes"),
    (lambda: T.MaxAndArgmax([2])(T.matrix()), ValueError, "out of range"),
    (lambda: T.Mean("0"), TypeError, "axis"),
])
def test_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_run_time_errors():
    x = T.matrix("x")
    f = jitgraph.function([x], T.MaxAndArgmax([0])(x))
    with pytest.raises(ValueError, match="empty"):
        f(np.zeros((0, 2)))
    r = T.lvector("r")
    g = jitgraph.function([x, r], T.Tile(2)(x, r))
    with pytest.raises(ValueError, match="reps has 3 entries, expected 2"):
        g(np.zeros((2, 2)), [1, 1, 1])
