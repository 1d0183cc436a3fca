"""Dot products and the BLAS-shaped ops against NumPy: values, dtypes, layouts, inplace, grads."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from jitgraph.graph.evaluate import evaluate
from jitgraph.tensor.linalg import blas as B
from jitgraph.tensor.linalg import dot_functions as D
from jitgraph.tensor.core.gradient import verify_grad
from jitgraph.tensor.core.type import TensorType

RNG = np.random.default_rng(0)


def var_for(value: np.ndarray, name: str | None = None, bcast: bool = True):
    """A variable fitting ``value`` (length-1 dims broadcastable unless ``bcast`` is False)."""
    pattern = [bcast and s == 1 for s in value.shape]
    return TensorType(value.dtype.name, pattern).make_variable(name)


def rand(*shape, dtype="float64", seed=None):
    rng = RNG if seed is None else np.random.default_rng(seed)
    if dtype.startswith("int"):
        return rng.integers(-3, 4, shape).astype(dtype)
    return rng.normal(size=shape).astype(dtype)


def layouts(value):
    yield value
    if value.ndim:
        yield value[::-1]
    if value.ndim == 2:
        yield np.ascontiguousarray(value.T).T  # Fortran order
        yield value[:, ::-1]


def run(out, **givens):
    return evaluate(out, givens)


DOT_SHAPES = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)), ((1, 3), (3, 1)),
              ((0, 3), (3, 2)), ((2, 0), (0, 4)), ((3,), (3, 0))]


@pytest.mark.parametrize("sa,sb", DOT_SHAPES)
@pytest.mark.parametrize("dtypes", [("float64", "float64"), ("float32", "float32"),
                                    ("int32", "int32"), ("float32", "float64"),
                                    ("int8", "float32")])
def test_dot_matches_numpy(sa, sb, dtypes):
    for a in layouts(rand(*sa, dtype=dtypes[0], seed=1)):
        for b in layouts(rand(*sb, dtype=dtypes[1], seed=2)):
            x, y = var_for(a), var_for(b)
            out = D.dot(x, y)
            assert isinstance(out.owner.op, B.Dot)
            got = evaluate(out, {x: a, y: b})
            expected = np.dot(a, b)
            assert got.dtype.name == out.dtype and got.shape == expected.shape
            np.testing.assert_allclose(got, expected, rtol=1e-5 if "float32" in dtypes else 1e-12)


@pytest.mark.parametrize("sa,sb", [((2, 3, 4), (4,)), ((2, 3, 4), (5, 4, 6)), ((4,), (2, 4, 3)),
                                   ((2, 3), (4, 3, 5)), ((2, 1, 3), (3, 2))])
def test_dot_nd_follows_numpy(sa, sb):
    a, b = rand(*sa, seed=3), rand(*sb, seed=4)
    x, y = var_for(a), var_for(b)
    out = D.dot(x, y)
    got = evaluate(out, {x: a, y: b})
    np.testing.assert_allclose(got, np.dot(a, b), rtol=1e-12)
    assert out.ndim == got.ndim


def test_dot_with_scalars_and_literals():
    a = rand(2, 3)
    x = var_for(a)
    s = TensorType("float64", ()).make_variable()
    np.testing.assert_allclose(evaluate(D.dot(s, x), {s: np.array(2.0), x: a}), 2 * a)
    np.testing.assert_allclose(evaluate(D.dot(x, np.ones(3)), {x: a}), a.sum(1))
    np.testing.assert_allclose(evaluate(D.dot([1.0, 2.0], x), {x: a}), np.dot([1.0, 2.0], a))


def test_dot_errors_name_op_and_shapes():
    x, y = var_for(rand(2, 3)), var_for(rand(4,))
    with pytest.raises(ValueError, match=r"dot.*\(2, 3\) and \(4,\) are not aligned"):
        evaluate(D.dot(x, y), {x: rand(2, 3), y: rand(4)})
    with pytest.raises(TypeError, match="Dot22"):
        B.dot22(y, y)
    with pytest.raises(ValueError, match="matmul"):
        D.matmul(TensorType("float64", ()).make_variable(), x)


@pytest.mark.parametrize("sa,sb", DOT_SHAPES[:5])
def test_dot_gradients(sa, sb):
    verify_grad(D.dot, [rand(*sa, seed=5), rand(*sb, seed=6)], rng=0)


def test_dot22():
    a, b = rand(2, 3), rand(3, 4)
    x, y = var_for(a), var_for(b)
    out = B.dot22(x, y)
    assert type(out.owner.op).__name__ == "Dot22" and not isinstance(out.owner.op, B.Dot)
    np.testing.assert_allclose(evaluate(out, {x: a, y: b}), a @ b)
    verify_grad(B.dot22, [a, b], rng=0)
    assert out.owner.op.infer_shape(None, out.owner, [a.shape, b.shape]) == [(2, 4)]


# ---------------------------------------------------------------------------------------------
# Gemv, Gemm, Ger

def test_class_names_the_rewrites_target():
    assert [c.__name__ for c in (B.Gemv, B.Gemm, B.Dot22, B.Ger)] == ["Gemv", "Gemm", "Dot22",
                                                                     "Ger"]
    assert B.gemv_inplace.destroy_map == {0: [0]} and B.gemv_no_inplace.destroy_map == {}
    assert B.gemm_inplace.destroy_map == {0: [0]} and B.ger_destructive.destroy_map == {0: [0]}
    assert B.Gemv(True) == B.gemv_inplace != B.gemv_no_inplace
    assert hash(B.Gemm(False)) == hash(B.gemm_no_inplace)
    assert B.ger_destructive.destructive and str(B.ger) == "Ger{no_inplace}"


BLAS_CASES = {
    "gemv": (B.Gemv, lambda y, al, A, x, be: be * y + al * A @ x,
             lambda dt: [rand(3, dtype=dt), 0.5, rand(3, 4, dtype=dt), rand(4, dtype=dt), 2.0]),
    "gemm": (B.Gemm, lambda Z, al, X, Y, be: be * Z + al * X @ Y,
             lambda dt: [rand(3, 2, dtype=dt), 0.5, rand(3, 4, dtype=dt), rand(4, 2, dtype=dt),
                         2.0]),
    "ger": (B.Ger, lambda A, al, x, y: A + al * np.outer(x, y),
            lambda dt: [rand(3, 4, dtype=dt), 0.5, rand(3, dtype=dt), rand(4, dtype=dt)]),
}


@pytest.mark.parametrize("name", sorted(BLAS_CASES))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("inplace", [False, True])
def test_blas_ops_values(name, dtype, inplace):
    cls, ref, make = BLAS_CASES[name]
    values = make(dtype)
    arrays = [v for v in values if isinstance(v, np.ndarray)]
    variables = [var_for(a, bcast=False) for a in arrays]
    it = iter(variables)
    args = [next(it) if isinstance(v, np.ndarray) else v for v in values]
    out = cls(inplace)(*args)
    assert out.type == variables[0].type
    target = values[0]
    if target.ndim == 2:
        target = np.asfortranarray(target)[::1]  # the destroyed input may have any layout
    expected = ref(*[target] + values[1:])
    before = target.copy()
    got = evaluate(out, dict(zip(variables, [target] + arrays[1:])))
    assert got.dtype.name == dtype
    np.testing.assert_allclose(got, expected, rtol=1e-5 if dtype == "float32" else 1e-12)
    if inplace:
        assert got is target
    else:
        np.testing.assert_array_equal(target, before)
        assert not np.shares_memory(got, target)
    shapes = [np.shape(v) for v in values]
    assert out.owner.op.infer_shape(None, out.owner, shapes) == [got.shape]


def test_inplace_gemv_into_a_strided_view():
    base = np.zeros(8)
    y = base[::-2]
    A, x = rand(4, 3), rand(3)
    vy, vA, vx = var_for(y), var_for(A), var_for(x)
    got = evaluate(B.gemv(vy, 1.0, vA, vx, 0.0, inplace=True), {vy: y, vA: A, vx: x})
    assert got is y
    np.testing.assert_allclose(base[::-2], A @ x)
    np.testing.assert_array_equal(base[-2::-2], 0)


def test_beta_zero_ignores_the_destroyed_input():
    y = np.full(3, np.nan)
    Z = np.full((3, 2), np.nan)
    A, x, Y = rand(3, 4), rand(4), rand(4, 2)
    vy, vZ, vA, vx, vY = map(var_for, (y, Z, A, x, Y))
    np.testing.assert_allclose(evaluate(B.gemv(vy, 2.0, vA, vx, 0.0), {vy: y, vA: A, vx: x}),
                               2 * A @ x)
    np.testing.assert_allclose(evaluate(B.gemm(vZ, 2.0, vA, vY, 0.0), {vZ: Z, vA: A, vY: Y}),
                               2 * A @ Y)


def test_blas_type_and_shape_errors():
    A, x, y = rand(3, 4), rand(4), rand(3)
    vA, vx, vy = var_for(A), var_for(x), var_for(y)
    with pytest.raises(TypeError, match="Gemv.*A must be a 2-d float64"):
        B.gemv(vy, 1.0, vx, vx, 1.0)
    with pytest.raises(TypeError, match=r"Gemm\{no_inplace\} works on"):
        i = TensorType("int32", (False, False)).make_variable()
        B.gemm(i, 1, i, i, 1)
    with pytest.raises(TypeError, match="alpha must be a 0-d float64"):
        B.gemv(vy, TensorType("float32", ()).make_variable(), vA, vx, 1.0)
    with pytest.raises(ValueError, match=r"Gemv.*A \(3, 4\), x \(5,\)"):
        evaluate(B.gemv(vy, 1.0, vA, vx, 1.0), {vy: y, vA: A, vx: rand(5)})
    with pytest.raises(ValueError, match="Ger.*shapes do not match"):
        evaluate(B.ger(vA, 1.0, vy, vx), {vA: A, vy: y, vx: rand(5)})


@pytest.mark.parametrize("name", sorted(BLAS_CASES))
def test_blas_ops_gradients(name):
    cls, _, make = BLAS_CASES[name]
    pt = [np.asarray(v, dtype="float64") for v in make("float64")]
    verify_grad(lambda *args: cls(False)(*args), pt, rng=0)


# ---------------------------------------------------------------------------------------------
# outer, tensordot, matmul, batched_dot

def test_outer():
    a, b = rand(3), rand(4)
    x, y = var_for(a), var_for(b)
    np.testing.assert_allclose(evaluate(D.outer(x, y), {x: a, y: b}), np.outer(a, b))
    verify_grad(D.outer, [a, b], rng=0)


TENSORDOT_CASES = [((2, 3, 4), (3, 4, 5), 2), ((2, 3, 4), (4, 5), 1), ((2, 3), (4, 5), 0),
                   ((2, 3, 4), (4, 3, 2), [[1, 2], [1, 0]]), ((3, 4), (4, 3), [[0, 1], [1, 0]]),
                   ((2, 3, 4), (2, 3, 4), 3), ((3, 4), (3, 5), [[0], [0]]),
                   ((3, 4), (4, 3), [[-1], [0]]), ((1, 3, 2), (2, 3, 1), [[1, 2], [1, 0]])]


@pytest.mark.parametrize("sa,sb,axes", TENSORDOT_CASES)
def test_tensordot_matches_numpy(sa, sb, axes):
    a, b = rand(*sa, seed=7), rand(*sb, seed=8)
    for va in layouts(a):
        x, y = var_for(va), var_for(b)
        out = D.tensordot(x, y, axes)
        expected = np.tensordot(va, b, axes)
        got = evaluate(out, {x: va, y: b})
        assert out.ndim == expected.ndim and got.shape == expected.shape
        np.testing.assert_allclose(got, expected, rtol=1e-12)
        assert out.broadcastable == tuple(s == 1 for s in expected.shape)


@pytest.mark.parametrize("sa,sb,axes", [TENSORDOT_CASES[i] for i in (0, 2, 3, 6)])
def test_tensordot_gradients(sa, sb, axes):
    verify_grad(lambda u, v: D.tensordot(u, v, axes), [rand(*sa, seed=9), rand(*sb, seed=10)],
                rng=0)


def test_tensordot_errors():
    x, y = var_for(rand(2, 3)), var_for(rand(3, 4))
    with pytest.raises(ValueError, match="tensordot"):
        D.tensordot(x, y, 3)
    with pytest.raises(ValueError, match="tensordot"):
        D.tensordot(x, y, [[0, 1], [0]])


MATMUL_CASES = [((3,), (3,)), ((2, 3), (3, 4)), ((2, 3, 4), (4,)), ((4,), (2, 4, 3)),
                ((2, 3, 4), (2, 4, 5)), ((1, 3, 4), (5, 4, 2)), ((6, 2, 3, 4), (4, 2)),
                ((5, 1, 2, 3), (4, 3, 2)), ((2, 0, 3), (2, 3, 4))]


@pytest.mark.parametrize("sa,sb", MATMUL_CASES)
def test_matmul_matches_numpy(sa, sb):
    a, b = rand(*sa, seed=11), rand(*sb, seed=12)
    for va in layouts(a):
        x, y = var_for(va), var_for(b)
        out = D.matmul(x, y)
        expected = np.matmul(va, b)
        got = evaluate(out, {x: va, y: b})
        assert got.shape == expected.shape and out.ndim == expected.ndim
        np.testing.assert_allclose(got, expected, rtol=1e-12)
        if len(sa) > 2 or len(sb) > 2:
            node = next(n for n in [out.owner, out.owner.inputs[0].owner]
                        if isinstance(n.op, B.BatchedDot))
            (shp,) = node.op.infer_shape(None, node, [np.shape(evaluate(i, {x: va, y: b}))
                                                      for i in node.inputs])
            assert tuple(shp) == np.shape(evaluate(node.outputs[0], {x: va, y: b}))


@pytest.mark.parametrize("sa,sb", [MATMUL_CASES[i] for i in (2, 3, 4, 5, 6, 7)])
def test_matmul_gradients(sa, sb):
    verify_grad(D.matmul, [rand(*sa, seed=13), rand(*sb, seed=14)], rng=0)


def test_matmul_batch_mismatch_is_an_error():
    x = TensorType("float64", (False, False, False)).make_variable()
    y = TensorType("float64", (False, False, False)).make_variable()
    with pytest.raises(ValueError, match="BatchedDot: batch dimension mismatch"):
        evaluate(D.matmul(x, y), {x: rand(1, 2, 3), y: rand(4, 3, 2)})  # 1 not declared


BATCHED_CASES = [((3, 4), (3, 4)), ((3, 2, 4), (3, 4, 5)), ((3, 4), (3, 4, 5)),
                 ((3, 2, 4), (3, 4)), ((3,), (3, 4)), ((3, 4), (3,)), ((3, 2, 2, 4), (3, 4, 5)),
                 ((3, 2, 4), (3, 2, 4, 5))]


def batched_reference(a, b):
    if a.ndim == 1:
        return a.reshape((-1,) + (1,) * (b.ndim - 1)) * b
    if b.ndim == 1:
        return a * b.reshape((-1,) + (1,) * (a.ndim - 1))
    axis_b = max(1, b.ndim - 2) - 1
    return np.stack([np.tensordot(a[i], b[i], [[a.ndim - 2], [axis_b]])
                     for i in range(a.shape[0])])


@pytest.mark.parametrize("sa,sb", BATCHED_CASES)
def test_batched_dot(sa, sb):
    a, b = rand(*sa, seed=15), rand(*sb, seed=16)
    x, y = var_for(a), var_for(b)
    out = B.batched_dot(x, y)
    got = evaluate(out, {x: a, y: b})
    expected = batched_reference(a, b)
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    verify_grad(B.batched_dot, [a, b], rng=0)


@st.composite
def matmul_shapes(draw):
    n, k, m = (draw(st.integers(1, 3)) for _ in range(3))
    batch = draw(st.lists(st.integers(1, 3), max_size=2))
    ba = [draw(st.sampled_from([d, 1])) for d in batch]
    bb = [draw(st.sampled_from([d, 1])) for d in batch]
    ba = ba[draw(st.integers(0, len(ba))):]
    return tuple(ba) + (n, k), tuple(bb) + (k, m)


@given(matmul_shapes(), st.integers(0, 100))
def test_hypothesis_matmul_broadcasting(shapes, seed):
    sa, sb = shapes
    a, b = rand(*sa, seed=seed), rand(*sb, seed=seed + 1)
    x, y = var_for(a), var_for(b)
    np.testing.assert_allclose(evaluate(D.matmul(x, y), {x: a, y: b}), np.matmul(a, b),
                               rtol=1e-12)
