"""Split/split, stacklists, horizontal_stack, vertical_stack, join_, mgrid/ogrid, AllocEmpty
and tensor_copy against NumPy (compiled and perform, hypothesis), gradients, R_op, shapes,
errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgraph
import jitgraph.tensor as T
from jitgraph.graph.evaluate import evaluate
from jitgraph.tensor.core.gradient import verify_grad

RNG = np.random.RandomState(13)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=4), st.integers(0, 2),
       st.booleans())
def test_split_matches_numpy(lengths, axis, symbolic_axis):
    shape = [2, 3, 2]
    shape[axis] = sum(lengths)
    value = RNG.standard_normal(shape)
    x, s = T.tensor3("x"), T.lvector("s")
    ax = T.lscalar("ax")
    parts = T.split(x, s, len(lengths), axis=ax if symbolic_axis else axis)
    inputs = [x, s] + ([ax] if symbolic_axis else [])
    args = [value, lengths] + ([axis] if symbolic_axis else [])
    compiled = jitgraph.function(inputs, parts)(*args)
    reference = evaluate(parts, dict(zip(inputs, args)))
    wanted = np.split(value, np.cumsum(lengths)[:-1], axis=axis)
    for got, ref, want in zip(compiled, reference, wanted):
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(ref, want)


def test_split_gradient_rop_and_shapes(infer_shape_ok):
    verify_grad(lambda x: T.split(x, [1, 2], 2, axis=1)[1] * 2, [RNG.standard_normal((2, 3))],
                rng=RNG)
    verify_grad(lambda x: T.split(x, [2, 1], 2)[0], [RNG.standard_normal((3, 2))], rng=RNG)
    x, v, ax = T.matrix("x"), T.matrix("v"), T.lscalar("ax")
    xv, vv = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))
    parts = T.split(x, [3, 1], 2, axis=1)
    for k, part in enumerate(parts):
        infer_shape_ok(part, {x: xv})
        np.testing.assert_array_equal(evaluate(T.Rop(part, x, v), {x: xv, v: vv}),
                                      np.split(vv, [3], axis=1)[k])
    symbolic = T.split(x, [1, 2], 2, axis=ax)
    infer_shape_ok(symbolic[1], {x: xv, ax: 0})
    with pytest.raises(NotImplementedError, match="axis known"):
        T.grad(symbolic[0].sum(), x)


def test_split_errors():
    x, s = T.matrix("x"), T.lvector("s")
    f = jitgraph.function([x, s], T.split(x, s, 2, axis=1))
    with pytest.raises(ValueError, match="sum to 3, but axis 1 has length 4"):
        f(np.zeros((2, 4)), [1, 2])
    with pytest.raises(ValueError, match="got 3 split lengths, expected 2"):
        f(np.zeros((2, 4)), [1, 2, 1])
    with pytest.raises(ValueError, match="negative"):
        f(np.zeros((2, 4)), [5, -1])
    with pytest.raises(TypeError, match="int vector"):
        T.split(x, T.vector(), 2)
    with pytest.raises(ValueError, match="out of range"):
        T.split(x, s, 2, axis=2)
    with pytest.raises(ValueError, match="positive"):
        T.Split(0)


def test_stacking():
    x, y = T.matrix("x"), T.matrix("y")
    xv, yv = RNG.standard_normal((2, 3)), RNG.standard_normal((2, 3))
    got = jitgraph.function([x, y], [T.horizontal_stack(x, y), T.vertical_stack(x, y, x),
                                     T.stacklists([[x, y], [y, x]]), T.join_(1, x)])(xv, yv)
    np.testing.assert_array_equal(got[0], np.hstack([xv, yv]))
    np.testing.assert_array_equal(got[1], np.vstack([xv, yv, xv]))
    np.testing.assert_array_equal(got[2], np.array([[xv, yv], [yv, xv]]))
    np.testing.assert_array_equal(got[3], xv)
    assert isinstance(T.join_(0, x).owner.op, T.Join)
    with pytest.raises(TypeError, match="argument 1 must be a matrix"):
        T.horizontal_stack(x, T.vector())
    with pytest.raises(TypeError, match="matrix"):
        T.vertical_stack(T.vector())


@settings(max_examples=15, deadline=None)
@given(st.lists(st.tuples(st.integers(-3, 3), st.integers(0, 6), st.sampled_from([1, 2, 3])),
                min_size=1, max_size=3))
def test_grids_match_numpy(bounds):
    # (NumPy's mgrid fails on a stop below the start; jitgraph's gives an empty grid)
    slices = tuple(slice(a, a + n, c) for a, n, c in bounds)
    for grid, reference in ((T.mgrid, np.mgrid), (T.ogrid, np.ogrid)):
        got = [g.eval() for g in grid[slices]]
        want = reference[slices]
        want = list(want)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)


def test_symbolic_and_float_grids():
    n = T.lscalar("n")
    rows, cols = T.mgrid[0:n, 0:3]
    got = jitgraph.function([n], [rows, cols])(2)
    for g, w in zip(got, np.mgrid[0:2, 0:3]):
        np.testing.assert_array_equal(g, w)
    floats = [g.eval() for g in T.mgrid[0:1:0.25, 0:2]]
    assert [f.dtype for f in floats] == ["float64", "float64"]
    with pytest.raises(NotImplementedError, match="complex"):
        T.mgrid[0:1:5j]
    with pytest.raises(TypeError, match="slice"):
        T.ogrid[3]


def test_alloc_empty_and_tensor_copy(infer_shape_ok):
    n = T.lscalar("n")
    out = T.AllocEmpty("int16")(n, 3)
    value = jitgraph.function([n], out)(4)
    assert value.shape == (4, 3) and value.dtype == np.int16
    assert T.AllocEmpty("float32")(1, n).broadcastable == (True, False)
    assert not out.owner.op.do_constant_folding(out.owner)
    infer_shape_ok(out, {n: 2})
    with pytest.raises(ValueError, match="negative"):
        jitgraph.function([n], out)(-2)
    with pytest.raises(TypeError, match="shape"):
        T.AllocEmpty("float64")(T.vector())
    x = T.matrix("x")
    xv = RNG.standard_normal((2, 2))
    copied = jitgraph.function([x], T.tensor_copy(x))(xv)
    np.testing.assert_array_equal(copied, xv)
    np.testing.assert_array_equal(evaluate(T.grad(T.tensor_copy(x).sum(), x), {x: xv}),
                                  np.ones((2, 2)))
