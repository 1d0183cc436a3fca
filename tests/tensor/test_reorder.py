"""swapaxes, roll, take, choose/Choose, permute_row_elements/PermuteRowElements and
inverse_permutation against NumPy (compiled and perform, hypothesis), gradients, R_op,
infer_shape and errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgraph
import jitgraph.tensor as T
from jitgraph.graph.evaluate import evaluate
from jitgraph.tensor.core.gradient import verify_grad

RNG = np.random.RandomState(11)


def _tensor(value, name="x"):
    return T.TensorType(str(value.dtype), (False,) * value.ndim)(name)


@st.composite
def array_axis_shift(draw):
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    axis = draw(st.sampled_from([None, *range(-len(shape), len(shape))]))
    return RNG.standard_normal(shape), axis, draw(st.integers(-9, 9))


@settings(max_examples=25, deadline=None)
@given(array_axis_shift(), st.sampled_from(["raise", "wrap", "clip"]))
def test_roll_take_swapaxes_match_numpy(problem, mode):
    value, axis, shift = problem
    x, s = _tensor(value), T.lscalar("s")
    ax = 0 if axis is None else axis
    length = value.size if axis is None else value.shape[ax]
    idx = RNG.randint(-length, length, size=(2, 3)) if mode == "raise" else \
        RNG.randint(-9, 9, size=(2, 3))
    outs = [T.roll(x, s, axis), T.take(x, idx, axis=axis, mode=mode),
            T.swapaxes(x, ax, -1)]
    compiled = jitgraph.function([x, s], outs)(value, shift)
    reference = evaluate(outs, {x: value, s: shift})
    wanted = [np.roll(value, shift, axis), np.take(value, idx, axis=axis, mode=mode),
              np.swapaxes(value, ax, -1)]
    for got, ref, want in zip(compiled, reference, wanted):
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(ref, want)


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 4), st.integers(1, 4), st.integers(1, 3),
       st.sampled_from(["raise", "wrap", "clip"]), st.booleans())
def test_choose_matches_numpy(rows, cols, n_choices, mode, listed):
    a_value = RNG.randint(-1 if mode != "raise" else 0, n_choices + (mode != "raise"),
                          size=(rows, cols))
    choices = RNG.standard_normal((n_choices, rows, cols))
    a = T.lmatrix("a")
    if listed:
        cs = [T.matrix(f"c{k}") for k in range(n_choices)]
        out = T.choose(a, cs, mode=mode)
        args = [a_value, *choices]
    else:
        cs = [T.tensor3("c")]
        out = T.choose(a, cs[0], mode=mode)
        args = [a_value, choices]
    got = jitgraph.function([a, *cs], out)(*args)
    want = np.choose(a_value, choices, mode=mode)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(evaluate(out, dict(zip([a, *cs], args))), want)


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 5), st.integers(0, 3), st.integers(0, 3), st.booleans())
def test_permute_row_elements_matches_numpy(n, x_lead, y_lead, inverse):
    x_value = RNG.standard_normal((3,) * x_lead + (n,))
    perms = np.argsort(RNG.standard_normal((3,) * y_lead + (n,)), axis=-1)
    x, y = _tensor(x_value), _tensor(perms, "y")
    out = T.permute_row_elements(x, y, int(inverse))
    got = jitgraph.function([x, y], out)(x_value, perms)
    lead = np.broadcast_shapes(x_value.shape[:-1], perms.shape[:-1])
    xs = np.broadcast_to(x_value, lead + (n,))
    ys = np.broadcast_to(perms, lead + (n,))
    if inverse:
        want = np.empty(xs.shape)
        np.put_along_axis(want, ys, xs, axis=-1)
    else:
        want = np.take_along_axis(xs, ys, axis=-1)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(evaluate(out, {x: x_value, y: perms}), want)
    inv = jitgraph.function([y], T.inverse_permutation(y))(perms)
    np.testing.assert_array_equal(np.take_along_axis(perms, inv, axis=-1),
                                  np.broadcast_to(np.arange(n), perms.shape))


def test_gradients_and_rop():
    perms = np.array([[2, 0, 1, 3], [1, 3, 0, 2], [3, 2, 1, 0]])
    for inverse in (0, 1):
        verify_grad(lambda x: T.permute_row_elements(x, T.constant(perms), inverse),
                    [RNG.standard_normal((3, 4))], rng=RNG)
    # x broadcast against the rows of y
    verify_grad(lambda v: T.permute_row_elements(v, T.constant(perms), 1),
                [RNG.standard_normal(4)], rng=RNG)
    verify_grad(lambda x: T.roll(x, 2, axis=1), [RNG.standard_normal((2, 3))], rng=RNG)
    verify_grad(lambda x: T.take(x, [2, 0, 2], axis=0), [RNG.standard_normal((3, 2))],
                rng=RNG)
    x, v = T.matrix("x"), T.matrix("v")
    xv, vv = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))
    rop = T.Rop(T.permute_row_elements(x, T.constant(perms)), x, v)
    np.testing.assert_array_equal(evaluate(rop, {x: xv, v: vv}),
                                  np.take_along_axis(vv, perms, axis=-1))
    c = T.Rop(T.choose(T.constant(np.array([0, 1, 1])), [x[0, :3], x[1, :3]]), x, v)
    np.testing.assert_array_equal(evaluate(c, {x: xv, v: vv}), [vv[0, 0], vv[1, 1], vv[1, 2]])


def test_infer_shape(infer_shape_ok):
    x, y, a = T.matrix("x"), T.lvector("y"), T.lvector("a")
    c = T.tensor3("c")
    xv = RNG.standard_normal((3, 4))
    infer_shape_ok(T.permute_row_elements(x, y), {x: xv, y: np.array([3, 1, 0, 2])})
    infer_shape_ok(T.choose(a, c), {a: np.array([0, 1, 0]), c: RNG.standard_normal((2, 4, 3))})
    r = T.row("r")
    infer_shape_ok(T.choose(a, [x[0, :3], r]), {a: np.array([0, 1, 0]), x: xv,
                                               r: np.zeros((1, 3))})
    infer_shape_ok(T.roll(x, 5, axis=1), {x: xv})


@pytest.mark.parametrize("call, error, match", [
    (lambda: T.take(T.matrix(), T.vector()), TypeError, "indices must be integers"),
    (lambda: T.take(T.matrix(), [0], axis=2), ValueError, "out of range"),
    (lambda: T.take(T.matrix(), [0], mode="bounce"), ValueError, "mode"),
    (lambda: T.roll(T.matrix(), 1.5), TypeError, "shift"),
    (lambda: T.swapaxes(T.matrix(), 0, 3), ValueError, "out of range"),
    (lambda: T.choose(T.lvector(), T.vector(), out=T.vector()), ValueError, "out"),
    (lambda: T.Choose("bounce"), ValueError, "mode"),
    (lambda: T.choose(T.vector(), [T.vector()]), TypeError, "integers"),
    (lambda: T.permute_row_elements(T.matrix(), T.vector()), TypeError, "integers"),
    (lambda: T.permute_row_elements(T.matrix(), T.lvector(), T.vector()), TypeError,
     "inverse"),
])
def test_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_run_time_errors():
    x, y = T.matrix("x"), T.lvector("y")
    f = jitgraph.function([x, y], T.permute_row_elements(x, y))
    with pytest.raises(ValueError, match="length 3"):
        f(np.zeros((2, 4)), [0, 1, 2])
    with pytest.raises(ValueError, match="permutations"):
        f(np.zeros((2, 3)), [0, 0, 1])
    g = jitgraph.function([y, x], T.choose(y, x))
    with pytest.raises(ValueError, match="Choose"):
        g([0, 5], np.zeros((2, 2)))
    with pytest.raises(NotImplementedError, match="no gradient"):
        T.grad(T.choose(y, x).sum(), x)
