"""Shape ops against NumPy: shape, reshape/flatten, specify_shape, broadcastable patterns, padding
and squeezing; their gradients and infer_shape."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgraph.tensor as T
from jitgraph.graph.evaluate import evaluate
from jitgraph.tensor.core.basic import get_vector_length
from jitgraph.tensor.core.gradient import DisconnectedInputError, grad, verify_grad

# jitgraph.tensor.shaping.shape is the function shape(); the module has to be looked up by name.
S = importlib.import_module("jitgraph.tensor.shaping.shape")
RNG = np.random.default_rng(42)
A34 = RNG.standard_normal((3, 4))
LAYOUTS = {"c": A34, "reversed": A34[::-1], "transposed": A34.T.copy().T,
           "strided": np.asfortranarray(A34)[:, ::-1]}


def tensor_like(value, name="x"):
    return T.TensorType(value.dtype.name, [False] * value.ndim)(name)


# ---------------------------------------------------------------------------------------------
# shape, shape_i

@pytest.mark.parametrize("shp", [(), (0,), (3,), (2, 0, 5), (1, 4)])
def test_shape_values_and_type(shp, infer_shape_ok):
    value = np.zeros(shp)
    x = tensor_like(value)
    out = T.shape(x)
    assert out.type == T.TensorType("int64", (False,))
    got = evaluate(out, {x: value})
    assert got.dtype == np.int64 and tuple(got) == shp
    assert get_vector_length(out) == len(shp)
    infer_shape_ok(out, {x: value})
    for i in range(len(shp)):
        si = S.shape_i(x, i)
        assert si.type == T.TensorType("int64", ())
        infer_shape_ok(si, {x: value})
        assert evaluate(si, {x: value}) == shp[i]
        assert evaluate(S.shape_i(x, i - len(shp)), {x: value}) == shp[i]
        assert evaluate(x.shape[i], {x: value}) == shp[i]


def test_shape_is_not_differentiable():
    x = T.matrix("x")
    cost = T.cast(x.shape[0], "float64") * 2.0
    with pytest.raises(DisconnectedInputError):
        grad(cost, x)


def test_iterating_over_a_shape():
    x = T.tensor3("x")
    dims = list(x.shape)
    assert len(dims) == 3
    out = T.alloc(0.0, *x.shape)
    assert evaluate(out, {x: np.ones((2, 3, 4))}).shape == (2, 3, 4)


# ---------------------------------------------------------------------------------------------
# reshape

RESHAPES = [
    ((3, 4), (12,)), ((3, 4), (2, 6)), ((3, 4), (-1,)), ((3, 4), (2, -1)), ((3, 4), (-1, 3, 2)),
    ((3, 4), (1, 12)), ((3, 4), (4, 1, 3)), ((12,), (3, 4)), ((), (1,)), ((1,), ()),
    ((1, 1), ()), ((0, 3), (-1, 3)), ((0, 3), (3, 0)), ((2, 0), (0,)), ((2, 3, 4), (6, -1)),
]


@pytest.mark.parametrize("src,dst", RESHAPES)
def test_reshape_matches_numpy(src, dst, infer_shape_ok):
    value = np.arange(int(np.prod(src)), dtype="float64").reshape(src)
    x = tensor_like(value)
    out = x.reshape(dst)
    assert out.ndim == len(dst)
    assert out.broadcastable == tuple(d == 1 for d in dst)
    np.testing.assert_array_equal(evaluate(out, {x: value}), value.reshape(dst))
    infer_shape_ok(out, {x: value})


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_reshape_non_contiguous_inputs(layout):
    value = LAYOUTS[layout]
    x = T.matrix("x")
    for dst in [(12,), (4, 3), (2, -1, 2)]:
        np.testing.assert_array_equal(evaluate(x.reshape(dst), {x: value}), value.reshape(dst))


def test_reshape_symbolic_shapes(infer_shape_ok):
    x = T.matrix("x")
    n = T.lscalar("n")
    value = np.arange(12.0).reshape(3, 4)
    out = x.reshape((n, -1))
    assert out.broadcastable == (False, False)
    assert np.array_equal(evaluate(out, {x: value, n: 6}), value.reshape(6, -1))
    infer_shape_ok(out, {x: value, n: 6})
    out2 = x.reshape((x.shape[1], x.shape[0]))
    np.testing.assert_array_equal(evaluate(out2, {x: value}), value.reshape(4, 3))
    # a symbolic int vector as the shape; -1 inside it is resolved at run time
    v = T.lvector("v")
    out3 = T.reshape(x, v, ndim=3)
    got = evaluate(out3, {x: value, v: np.array([2, -1, 3])})
    np.testing.assert_array_equal(got, value.reshape(2, -1, 3))
    infer_shape_ok(out3, {x: value, v: np.array([2, -1, 3])})
    infer_shape_ok(out3, {x: value, v: np.array([2, 2, 3])})
    # ints of other dtypes
    m = T.iscalar("m")
    np.testing.assert_array_equal(evaluate(x.reshape((m, 6)), {x: value, m: 2}),
                                  value.reshape(2, 6))


def test_reshape_accepts_theano_call_forms():
    x = T.matrix("x")
    value = np.arange(6.0).reshape(2, 3)
    assert evaluate(x.reshape(6), {x: value}).shape == (6,)
    assert evaluate(x.reshape(3, 2), {x: value}).shape == (3, 2)
    assert evaluate(x.reshape([3, 2]), {x: value}).shape == (3, 2)
    assert evaluate(T.reshape(x, (1, 6)), {x: value}).shape == (1, 6)


def test_reshape_errors():
    x = T.matrix("x")
    with pytest.raises(ValueError, match="one unknown dimension"):
        x.reshape((-1, -1))
    with pytest.raises(ValueError, match="negative dimension"):
        x.reshape((-2, 3))
    v = T.lvector("v")
    with pytest.raises(ValueError, match="ndim="):
        T.reshape(x, v)
    with pytest.raises(TypeError, match="shape"):
        T.reshape(x, T.vector("fv"), ndim=1)
    out = x.reshape((5, 2))
    with pytest.raises(ValueError, match=r"shape \(3, 4\).*\(5, 2\)"):
        evaluate(out, {x: np.zeros((3, 4))})


def test_reshape_gradient():
    verify_grad(lambda x: x.reshape((2, 6)) * np.arange(12.0).reshape(2, 6), [A34], rng=0)
    verify_grad(lambda x: x.reshape((-1,)), [A34], rng=0)
    verify_grad(lambda x: x.reshape((1, 12)), [A34], rng=0)
    # a broadcastable input keeps its pattern in the gradient
    verify_grad(lambda x: x.reshape((4,)), [np.ones((1, 4))], rng=0)
    verify_grad(lambda x: x.reshape(()), [np.ones((1, 1))], rng=0)


@settings(max_examples=40)
@given(st.lists(st.integers(0, 4), min_size=0, max_size=4), st.randoms(use_true_random=False))
def test_reshape_hypothesis(infer_shape_ok, shape, rnd):
    size = int(np.prod(shape))
    # a random target shape of the same size: split the prime factors at random
    factors = []
    rest = size
    for p in (2, 3, 5, 7):
        while rest and rest % p == 0:
            factors.append(p)
            rest //= p
    ndim = rnd.randint(1, 4)
    dims = [1] * ndim
    for f in factors:
        dims[rnd.randrange(ndim)] *= f
    if size == 0:
        dims[rnd.randrange(ndim)] = 0
    if rnd.random() < 0.5 and size:
        dims[rnd.randrange(ndim)] = -1
    value = np.arange(size, dtype="float64").reshape(shape)
    if value.ndim:
        value = value[::-1]  # negative strides
    x = tensor_like(value)
    out = x.reshape(tuple(dims))
    np.testing.assert_array_equal(evaluate(out, {x: value}), value.reshape(dims))
    infer_shape_ok(out, {x: value})


# ---------------------------------------------------------------------------------------------
# flatten

@pytest.mark.parametrize("shp", [(2, 3, 4), (2, 0, 3), (1, 1, 5)])
@pytest.mark.parametrize("ndim", [1, 2, 3])
def test_flatten_matches_numpy(shp, ndim, infer_shape_ok):
    value = np.arange(int(np.prod(shp)), dtype="float64").reshape(shp)
    x = T.tensor3("x")
    out = T.flatten(x, ndim)
    expected = value.reshape(shp[:ndim - 1] + (-1,)) if value.size else value.reshape(
        shp[:ndim - 1] + (int(np.prod(shp[ndim - 1:])),))
    np.testing.assert_array_equal(evaluate(out, {x: value}), expected)
    infer_shape_ok(out, {x: value})
    np.testing.assert_array_equal(evaluate(T.flatten(x, outdim=ndim), {x: value}), expected)


def test_flatten_types_and_errors():
    assert T.flatten(T.TensorType("float64", (True, False, True))("x"), 2).broadcastable == (
        True, False)
    assert T.flatten(T.TensorType("float64", (False, True, True))("x"), 2).broadcastable == (
        False, True)
    assert T.flatten(T.scalar("s")).broadcastable == (True,)
    assert T.matrix("m").flatten().ndim == 1
    with pytest.raises(ValueError, match="flatten"):
        T.flatten(T.matrix("m"), 3)
    with pytest.raises(ValueError, match="flatten"):
        T.flatten(T.matrix("m"), 0)


def test_flatten_gradient():
    verify_grad(lambda x: T.flatten(x), [RNG.standard_normal((2, 3, 2))], rng=0)
    verify_grad(lambda x: T.flatten(x, 2), [RNG.standard_normal((2, 3, 2))], rng=0)


# ---------------------------------------------------------------------------------------------
# specify_shape, unbroadcast, patternbroadcast, addbroadcast

def test_specify_shape(infer_shape_ok):
    x = T.matrix("x")
    n = T.lscalar("n")
    out = S.specify_shape(x, (3, n))
    value = np.zeros((3, 4))
    assert evaluate(out, {x: value, n: 4}) is value  # a view: no copy
    infer_shape_ok(out, {x: value, n: 4})
    with pytest.raises(AssertionError, match="dimension 1 .* length 4, expected 5"):
        evaluate(out, {x: value, n: 5})
    with pytest.raises(ValueError):  # also a ValueError, as shape errors are elsewhere
        evaluate(out, {x: value, n: 5})
    assert S.specify_shape(x, (1, None)).broadcastable == (True, False)
    assert S.specify_shape(x, (None, None)) is x
    vec_spec = S.specify_shape(x, T.as_tensor_variable([3, 4]))
    assert evaluate(vec_spec, {x: value}) is value
    with pytest.raises(ValueError, match="2-d"):
        S.specify_shape(x, (3,))
    with pytest.raises(S.SpecifyShapeError):
        S.specify_shape(T.row("r"), (2, None))


def test_unbroadcast_and_patternbroadcast(infer_shape_ok):
    r = T.row("r")
    u = S.unbroadcast(r, 0)
    assert u.broadcastable == (False, False)
    assert S.unbroadcast(r, 1) is r
    assert S.unbroadcast(r, -2).broadcastable == (False, False)
    value = np.ones((1, 3))
    assert evaluate(u, {r: value}) is value
    infer_shape_ok(u, {r: value})
    x = T.matrix("x")
    assert S.patternbroadcast(x, (False, False)) is x
    p = S.patternbroadcast(x, (True, False))
    assert p.broadcastable == (True, False)
    assert evaluate(p, {x: value}).shape == (1, 3)
    with pytest.raises(AssertionError):
        evaluate(p, {x: np.ones((2, 3))})
    q = S.patternbroadcast(r, (False, True))
    assert q.broadcastable == (False, True)
    with pytest.raises(AssertionError):
        evaluate(q, {r: value})
    assert evaluate(S.patternbroadcast(r, (False, True)), {r: np.ones((1, 1))}).shape == (1, 1)
    a = S.addbroadcast(x, 0, -1)
    assert a.broadcastable == (True, True)
    assert evaluate(a, {x: np.ones((1, 1))}).shape == (1, 1)
    with pytest.raises(ValueError):  # a shorter pattern is the leading dims' (Theano's)
        S.patternbroadcast(x, (True, False, True))


def test_broadcast_pattern_gradients():
    verify_grad(lambda x: S.unbroadcast(x, 0) * np.arange(1.0, 4.0), [np.ones((1, 3))], rng=0)
    verify_grad(lambda x: S.addbroadcast(x, 0) + np.ones((2, 3)), [np.ones((1, 3))], rng=0)
    verify_grad(lambda x: S.specify_shape(x, (1, 3)) + np.ones((4, 3)), [np.ones((1, 3))],
                rng=0)


# ---------------------------------------------------------------------------------------------
# padding and squeezing

def test_shape_pad_functions():
    x = T.matrix("x")
    value = A34
    assert S.shape_padleft(x).broadcastable == (True, False, False)
    assert S.shape_padleft(x, 2).broadcastable == (True, True, False, False)
    assert S.shape_padright(x).broadcastable == (False, False, True)
    for axis in range(-3, 3):
        out = S.shape_padaxis(x, axis)
        np.testing.assert_array_equal(evaluate(out, {x: value}), np.expand_dims(value, axis))
    with pytest.raises(IndexError):
        S.shape_padaxis(x, 3)
    with pytest.raises(IndexError):
        S.shape_padaxis(x, -4)
    assert evaluate(S.shape_padright(x, 2), {x: value}).shape == (3, 4, 1, 1)


def test_squeeze(infer_shape_ok):
    t = T.TensorType("float64", (True, False, True))("t")
    value = np.arange(3.0).reshape(1, 3, 1)
    assert t.squeeze().broadcastable == (False,)
    np.testing.assert_array_equal(evaluate(t.squeeze(), {t: value}), value.squeeze())
    np.testing.assert_array_equal(evaluate(S.squeeze(t, -1), {t: value}), value.squeeze(-1))
    x = T.tensor3("x")
    out = S.squeeze(x, (0, 2))
    np.testing.assert_array_equal(evaluate(out, {x: value}), value.squeeze((0, 2)))
    with pytest.raises(AssertionError):
        evaluate(out, {x: np.zeros((2, 3, 1))})
    assert S.squeeze(x) is x
    with pytest.raises(ValueError):
        S.squeeze(x, 3)
    verify_grad(lambda v: S.squeeze(v, 0) * 2, [value], rng=0)


def test_ops_are_hashable_and_views():
    assert S.Reshape(2) == S.Reshape(2) and hash(S.Reshape(2)) == hash(S.Reshape(2))
    assert S.Reshape(2) != S.Reshape(3)
    assert S.Shape_i(1) == S.Shape_i(1) != S.Shape_i(0)
    assert S.Unbroadcast([1, 0]) == S.Unbroadcast((0, 1))
    assert S.SpecifyShape((True, False)) == S.SpecifyShape([1, 0])
    for op in (S.Reshape(1), S.SpecifyShape((True,)), S.Unbroadcast((0,))):
        assert op.view_map == {0: [0]}
    with pytest.raises(AttributeError):
        S.Reshape(1).ndim = 2


def test_reshape_method_takes_the_shape_by_name():
    # Theano's TensorVariable.reshape(shape, ndim=None): m.reshape(shape=(2, 4, 9), ndim=3)
    m = T.dmatrix()
    out = m.reshape(shape=(2, 4, 9), ndim=3)
    assert evaluate(out, {m: np.arange(72.0).reshape(8, 9)}).shape == (2, 4, 9)
    with pytest.raises(TypeError, match="shape=..."):
        m.reshape(2, shape=3)


def test_shape_arithmetic_asks_for_constants_once_per_step(monkeypatch):
    # dims._binop folds Python ints; with a symbolic operand the result cannot fold either,
    # so only the operands are asked about, not the result again (16 steps of a chain, as
    # slice lengths and convolution shapes build: 252 -> 121 walks of the expression).
    import jitgraph.tensor.core.basic as basic
    from jitgraph.tensor.shaping import dims

    asked = []
    real = basic.get_scalar_constant_value
    monkeypatch.setattr(basic, "get_scalar_constant_value",
                        lambda *a, **k: asked.append(1) or real(*a, **k))
    n = T.lscalar("n")
    d, expected = n, 5
    for k in range(1, 9):
        d = dims._add(dims._mul(d, 2), k)
        expected = expected * 2 + k
    assert len(asked) <= 8 * 16
    assert dims._add(d, 0) is d and dims._mul(3, 4) == 12
    assert d.dtype == "int64" and int(evaluate(d, {n: np.int64(5)})) == expected
