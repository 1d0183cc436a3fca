"""Construction/assembly ops against NumPy: alloc, zeros/ones/full(_like), join/concatenate/stack,
arange, repeat, tile, make_vector; constant analysis; gradients and infer_shape."""

from __future__ import annotations

import numpy as np
import pytest

import jitgraph.tensor as T
from jitgraph.graph.evaluate import evaluate
from jitgraph.tensor.core import basic as B
from jitgraph.tensor.extras import extra_ops
from jitgraph.tensor.core.gradient import verify_grad

RNG = np.random.default_rng(7)
A34 = RNG.standard_normal((3, 4))


# ---------------------------------------------------------------------------------------------
# alloc, zeros, ones, full

ALLOCS = [
    (np.float64(2.5), (2, 3)), (np.arange(3.0), (2, 3)), (np.arange(3.0)[::-1], (4, 2, 3)),
    (np.ones((1, 3)), (5, 3)), (np.ones((2, 1)), (2, 4)), (np.float64(1.0), ()),
    (np.arange(3.0), (0, 3)), (np.float64(1.0), (1, 1)), (np.ones((4, 1)).T, (2, 1, 4)),
]


@pytest.mark.parametrize("value,shape", ALLOCS)
def test_alloc_matches_numpy(value, shape, infer_shape_ok):
    v = T.TensorType("float64", [False] * np.ndim(value))("v")
    out = T.alloc(v, *shape)
    assert out.broadcastable == tuple(s == 1 for s in shape)
    got = evaluate(out, {v: value})
    np.testing.assert_array_equal(got, np.broadcast_to(value, shape))
    assert got.flags.writeable and got.flags.owndata  # fresh memory, never a view of v
    infer_shape_ok(out, {v: value})


def test_alloc_symbolic_shapes_and_errors(infer_shape_ok):
    x = T.matrix("x")
    n = T.iscalar("n")
    out = T.alloc(np.float64(0.5), n, x.shape[1])
    value = np.zeros((2, 3))
    np.testing.assert_array_equal(evaluate(out, {x: value, n: 4}), np.full((4, 3), 0.5))
    infer_shape_ok(out, {x: value, n: 4})
    assert evaluate(T.alloc(1.0, x.shape), {x: value}).shape == (2, 3)
    assert evaluate(T.alloc(1.0, (2, 5)), {}).shape == (2, 5)
    v = T.vector("v")
    with pytest.raises(ValueError, match=r"shape \(3,\).*\(2, 4\)"):
        evaluate(T.alloc(v, 2, 4), {v: np.zeros(3)})
    with pytest.raises(TypeError, match="more than"):
        T.alloc(T.matrix("m"), 3)
    with pytest.raises(TypeError):
        T.alloc(1.0, 2.5)


def test_alloc_gradient():
    verify_grad(lambda v: T.alloc(v, 2, 3), [np.arange(3.0)], rng=0)
    verify_grad(lambda v: T.alloc(v, 4, 2, 3), [np.ones((1, 3))], rng=0)
    verify_grad(lambda v: T.alloc(v, 2, 3), [np.ones((2, 1))], rng=0)
    verify_grad(lambda v: T.alloc(v, 3, 2), [np.asarray(1.5)], rng=0)


@pytest.mark.parametrize("fn,fill", [(T.zeros, 0), (T.ones, 1)])
def test_zeros_ones(fn, fill):
    out = fn((2, 3))
    assert out.dtype == "float64"  # floatX in the test configuration
    np.testing.assert_array_equal(evaluate(out, {}), np.full((2, 3), fill))
    assert fn(4, dtype="int32").dtype == "int32"
    assert evaluate(fn(4, dtype="int32"), {}).shape == (4,)
    x = T.matrix("x")
    assert evaluate(fn(x.shape), {x: np.zeros((5, 2))}).shape == (5, 2)
    assert evaluate(fn((x.shape[0], 0)), {x: np.zeros((5, 2))}).shape == (5, 0)
    assert fn(()).ndim == 0


def test_full_and_like():
    np.testing.assert_array_equal(evaluate(T.full((2, 2), 7, dtype="int16"), {}),
                                  np.full((2, 2), 7, dtype="int16"))
    x = T.TensorType("float32", (True, False))("x")
    for fn, fill in [(T.zeros_like, 0), (T.ones_like, 1)]:
        out = fn(x)
        assert out.type == x.type
        got = evaluate(out, {x: np.zeros((1, 3), dtype="float32")})
        np.testing.assert_array_equal(got, np.full((1, 3), fill, dtype="float32"))
        assert fn(x, dtype="int8").dtype == "int8"
    assert evaluate(T.full_like(x, 3.5), {x: np.zeros((1, 2), "float32")}).tolist() == [[3.5,
                                                                                          3.5]]
    assert T.matrix("m").zeros_like().dtype == "float64"
    verify_grad(lambda a: T.zeros_like(a) + a * 2, [A34], rng=0)


# ---------------------------------------------------------------------------------------------
# join, concatenate, stack

JOINS = [
    ([(2, 3), (4, 3)], 0), ([(2, 3), (2, 1), (2, 0)], 1), ([(2, 3), (2, 5)], -1),
    ([(0, 3), (0, 3)], 1), ([(2, 3, 4), (2, 1, 4)], -2), ([(3,), (0,), (2,)], 0),
]


@pytest.mark.parametrize("shapes,axis", JOINS)
def test_join_matches_numpy(shapes, axis, infer_shape_ok):
    values = [RNG.standard_normal(s) for s in shapes]
    values[0] = values[0][::-1] if values[0].ndim else values[0]  # negative strides
    xs = [T.TensorType("float64", [False] * len(s))(f"x{i}") for i, s in enumerate(shapes)]
    givens = dict(zip(xs, values))
    expected = np.concatenate(values, axis=axis)
    for out in (T.join(axis, *xs), T.concatenate(xs, axis=axis), T.join(axis, xs)):
        np.testing.assert_array_equal(evaluate(out, givens), expected)
    infer_shape_ok(T.join(axis, *xs), givens)


def test_join_types_and_errors():
    r, m = T.row("r"), T.matrix("m")
    assert T.join(0, r, m).broadcastable == (False, False)
    assert T.join(1, r, m).broadcastable == (True, False)
    assert T.join(0, r) is r
    i = T.ivector("i")
    f = T.fvector("f")
    out = T.concatenate([i, f])
    assert out.dtype == "float64"
    got = evaluate(out, {i: np.array([1, 2], "int32"), f: np.array([0.5], "float32")})
    np.testing.assert_array_equal(got, [1, 2, 0.5])
    assert T.join(T.constant(1), m, m).owner.op.axis == 1
    with pytest.raises(TypeError, match="same number of dimensions"):
        T.join(0, m, T.vector("v"))
    with pytest.raises(TypeError, match="list or tuple"):
        T.concatenate(m, m)
    with pytest.raises(ValueError, match="out of range"):
        T.join(2, m, m)
    with pytest.raises(TypeError, match="axis"):
        T.join(T.lscalar("a"), m, m)
    out = T.join(0, m, T.matrix("m2"))
    with pytest.raises(ValueError, match=r"\(2, 3\), \(2, 4\)"):
        evaluate(out, {m: np.zeros((2, 3)), out.owner.inputs[1]: np.zeros((2, 4))})


def test_join_gradient():
    verify_grad(lambda a, b: T.join(0, a, b), [A34, RNG.standard_normal((2, 4))], rng=0)
    verify_grad(lambda a, b: T.join(-1, a, b, a), [A34, RNG.standard_normal((3, 1))], rng=0)
    verify_grad(lambda a, b: T.join(0, a, b), [np.ones((1, 4)), A34], rng=0)
    verify_grad(lambda a, b: T.join(1, a, b), [np.ones((1, 4)), np.ones((1, 2))], rng=0)


def test_stack(infer_shape_ok):
    a, b = T.vector("a"), T.vector("b")
    va, vb = np.arange(3.0), np.arange(3.0)[::-1]
    g = {a: va, b: vb}
    for axis in (0, 1, -1, -2):
        np.testing.assert_array_equal(evaluate(T.stack([a, b], axis=axis), g),
                                      np.stack([va, vb], axis=axis))
    np.testing.assert_array_equal(evaluate(T.stack([a, b], 1), g), np.stack([va, vb], 1))
    np.testing.assert_array_equal(evaluate(T.stack(a, b), g), np.stack([va, vb]))  # old form
    s = T.stack([a, b])
    assert s.broadcastable == (False, False)
    infer_shape_ok(s, g)
    assert T.stack([a]).broadcastable == (True, False)
    x, y = T.scalar("x"), T.iscalar("y")
    v = T.stack([x, y, 2])
    assert isinstance(v.owner.op, B.MakeVector) and v.dtype == "float64"
    np.testing.assert_array_equal(evaluate(v, {x: 1.5, y: 3}), [1.5, 3, 2])
    infer_shape_ok(v, {x: 1.5, y: 3})
    assert T.stack([x, x], axis=0).ndim == 1
    assert evaluate(T.as_tensor_variable([x, 1.0]), {x: 2.0}).tolist() == [2.0, 1.0]
    with pytest.raises(ValueError, match="same rank"):
        T.stack([a, T.matrix("m")])
    with pytest.raises(ValueError):
        T.stack([])
    verify_grad(lambda p, q: T.stack([p, q], axis=1), [va, vb + 1], rng=0)
    verify_grad(lambda p: T.stack([p[0], p[2] * 2, p[1]]), [va], rng=0)


def test_make_vector():
    i, j = T.lscalar("i"), T.bscalar("j")
    v = B.make_vector(i, j, 3)
    assert v.type == T.TensorType("int64", (False,))
    np.testing.assert_array_equal(evaluate(v, {i: 5, j: -2}), [5, -2, 3])
    assert B.get_vector_length(v) == 3
    with pytest.raises(TypeError, match="without loss"):
        B.MakeVector("int8")(T.scalar("f"))
    with pytest.raises(TypeError, match="scalar"):
        B.make_vector(T.vector("q"))
    assert B.make_vector().dtype == "int64"
    assert evaluate(B.make_vector(), {}).shape == (0,)


# ---------------------------------------------------------------------------------------------
# arange

ARANGES = [(5,), (2, 9), (2, 9, 3), (9, 2, -2), (5, 5), (5, 1), (0.5, 3.0), (1.0, 0.0, -0.25),
           (-3, 3, 2), (0,), (0.1, 0.35, 0.05)]


@pytest.mark.parametrize("args", ARANGES)
def test_arange_matches_numpy(args, infer_shape_ok):
    out = T.arange(*args)
    np.testing.assert_allclose(evaluate(out, {}), np.arange(*args, dtype=out.dtype))
    infer_shape_ok(out, {})


def test_arange_symbolic_and_dtypes(infer_shape_ok):
    assert T.arange(5).dtype == "int64"
    assert T.arange(T.iscalar("n")).dtype == "int64"
    assert T.arange(T.dscalar("d")).dtype == "float64"
    assert T.arange(T.fscalar("f"), 3).dtype == "float32"
    assert T.arange(3, dtype="float32").dtype == "float32"
    n, s = T.lscalar("n"), T.lscalar("s")
    out = T.arange(10, n, s)
    for nv, sv in [(2, -3), (20, 4), (10, 1), (0, 1)]:
        np.testing.assert_array_equal(evaluate(out, {n: nv, s: sv}), np.arange(10, nv, sv))
        infer_shape_ok(out, {n: nv, s: sv})
    d, e = T.dscalar("d"), T.dscalar("e")
    out = T.arange(d, e, 0.3)
    infer_shape_ok(out, {d: 0.1, e: 2.0})
    infer_shape_ok(out, {d: 2.0, e: 0.1})
    with pytest.raises(ValueError, match="step"):
        evaluate(T.arange(0, 5, s), {s: 0})
    with pytest.raises(TypeError, match="scalar"):
        T.arange(T.vector("v"))


def test_arange_gradient():
    verify_grad(lambda a, st: T.arange(a, 5.0, st) ** 2, [np.asarray(0.3), np.asarray(0.7)],
                rng=0)


# ---------------------------------------------------------------------------------------------
# repeat, tile

REPEATS = [((3, 4), 2, 0), ((3, 4), 2, 1), ((3, 4), 3, None), ((3, 4), [1, 0, 2], 0),
           ((3, 4), [1, 2, 0, 3], -1), ((3,), [2, 2, 2], None), ((0, 2), 3, 0), ((2, 3), 0, 1),
           ((), 3, None), ((3, 4), [2], 0)]


@pytest.mark.parametrize("shp,reps,axis", REPEATS)
def test_repeat_matches_numpy(shp, reps, axis, infer_shape_ok):
    value = np.arange(int(np.prod(shp)), dtype="float64").reshape(shp)
    if value.ndim == 2:
        value = value.T.copy().T[::-1]  # a non-contiguous input
    x = T.TensorType("float64", [False] * len(shp))("x")
    out = T.repeat(x, reps, axis=axis)
    np.testing.assert_array_equal(evaluate(out, {x: value}), np.repeat(value, reps, axis=axis))
    infer_shape_ok(out, {x: value})
    method = x.repeat(reps, axis)
    np.testing.assert_array_equal(evaluate(method, {x: value}), np.repeat(value, reps, axis))


def test_repeat_symbolic_and_errors(infer_shape_ok):
    x = T.matrix("x")
    r = T.lvector("r")
    out = T.repeat(x, r, axis=1)
    value = A34
    np.testing.assert_array_equal(evaluate(out, {x: value, r: [1, 2, 0, 1]}),
                                  np.repeat(value, [1, 2, 0, 1], axis=1))
    infer_shape_ok(out, {x: value, r: [1, 2, 0, 1]})
    np.testing.assert_array_equal(evaluate(out, {x: value, r: [3]}),
                                  np.repeat(value, [3], axis=1))
    infer_shape_ok(out, {x: value, r: [3]})  # a length-1 repeats vector acts as a scalar
    n = T.iscalar("n")
    infer_shape_ok(T.repeat(x, n), {x: value, n: 2})
    assert T.repeat(T.row("row"), 1, axis=0).broadcastable == (True, False)
    assert T.repeat(T.row("row"), 2, axis=0).broadcastable == (False, False)
    with pytest.raises(TypeError, match="integer"):
        T.repeat(x, T.vector("fr"))
    with pytest.raises(ValueError, match=r"shape \(3, 4\)"):
        evaluate(out, {x: value, r: [1, 2]})


def test_repeat_gradient():
    verify_grad(lambda a: T.repeat(a, 3, axis=0), [A34], rng=0)
    verify_grad(lambda a: T.repeat(a, [2, 0, 1, 3], axis=1), [A34], rng=0)
    verify_grad(lambda a: T.repeat(a, 2), [A34], rng=0)
    verify_grad(lambda a: T.repeat(a, 2, axis=0), [np.ones((1, 3))], rng=0)


TILES = [((2, 3), (2, 1)), ((2, 3), (1, 3)), ((3,), (2, 2)), ((2, 3), (2,)), ((2, 0), (3, 2)),
         ((1, 2), (1, 1)), ((), (3,))]


@pytest.mark.parametrize("shp,reps", TILES)
def test_tile_matches_numpy(shp, reps):
    value = RNG.standard_normal(shp)
    x = T.TensorType("float64", [s == 1 for s in shp])("x")
    np.testing.assert_array_equal(evaluate(T.tile(x, reps), {x: value}), np.tile(value, reps))


def test_tile_symbolic_and_gradient():
    x = T.matrix("x")
    n = T.lscalar("n")
    np.testing.assert_array_equal(evaluate(T.tile(x, (n, 2)), {x: A34, n: 3}),
                                  np.tile(A34, (3, 2)))
    assert T.tile(x, (2, 2), ndim=3).ndim == 3
    verify_grad(lambda a: T.tile(a, (2, 3)), [A34[:2, :2]], rng=0)


def test_tile_vector_of_run_time_length():
    """Keras' ``K.tile(x, K.shape(y)[:k])`` passes a symbolic vector with ``ndim=x.ndim``: it is
    padded in front with 1s at run time; without ``ndim`` its length is asked for."""
    x, v = T.tensor3("x"), T.lvector("v")
    value = RNG.standard_normal((1, 2, 3))
    tiled = T.tile(x, v, ndim=3)
    for reps in ([2], [2, 1], [1, 2, 3]):
        np.testing.assert_array_equal(evaluate(tiled, {x: value, v: reps}), np.tile(value, reps))
    with pytest.raises(AssertionError, match="more than ndim=3"):  # longer than ndim, as Theano
        evaluate(tiled, {x: value, v: [1, 1, 1, 1]})
    with pytest.raises(ValueError, match="pass ndim"):
        T.tile(x, v)
    np.testing.assert_array_equal(evaluate(T.tile(x, T.constant(2)), {x: value}),
                                  np.tile(value, 2))
    verify_grad(lambda a: T.tile(a, T.arange(T.shape(a)[0] - 1, 3), ndim=2),  # (1, 2)
                [A34[:2, :2]], rng=0)


# ---------------------------------------------------------------------------------------------
# get_scalar_constant_value, get_vector_length

def test_get_scalar_constant_value():
    gscv = B.get_scalar_constant_value
    assert gscv(3) == 3
    assert gscv(np.float32(2.5)) == 2.5
    assert gscv(T.constant(4)) == 4
    assert gscv(T.constant([2.0, 2.0])) == 2.0
    c = gscv(T.cast(T.constant(3), "float32"))
    assert c == 3 and c.dtype == np.float32
    assert gscv(T.constant(5).dimshuffle("x", "x")) == 5
    assert gscv(T.fill(T.matrix("m"), 7)) == 7
    assert gscv(T.constant(2) + T.constant(3) * 4) == 14
    assert gscv(T.alloc(1.5, 3, 4)) == 1.5
    r = T.row("r")
    assert gscv(r.shape[0]) == 1
    assert gscv(T.shape_i(r, 0)) == 1
    assert gscv(T.constant(np.zeros((5, 6))).shape[1]) == 6
    assert gscv(T.specify_shape(T.matrix("m"), (3, None)).shape[0]) == 3
    assert gscv(T.alloc(0.0, 4, T.lscalar("k")).shape[0]) == 4
    assert gscv(T.matrix("m").reshape((-1, 5)).shape[1]) == 5
    assert gscv(T.stack([T.lscalar("k"), 9])[1]) == 9
    assert gscv(T.constant([4, 5, 6])[-1]) == 6
    for bad in (T.scalar("s"), T.matrix("m").shape[0], T.constant([1, 2]), T.constant(
            np.zeros((0,))), T.stack([T.lscalar("k"), 9])[0], T.scalar("s") + 1, None):
        with pytest.raises(B.NotScalarConstantError):
            gscv(bad)
    with pytest.raises(B.NotScalarConstantError):
        gscv(T.constant(2) + 1, elemwise=False)
    with pytest.raises(B.NotScalarConstantError):
        gscv(T.cast(T.constant(3), "float32"), only_process_constants=True)
    folded = B.extract_constant(T.constant(1) + 1)  # Theano 1.0.5: array(2, dtype=int8)
    assert isinstance(folded, np.ndarray) and folded.dtype == "int8" and folded == 2
    s = T.scalar("s")
    assert B.extract_constant(s) is s


def test_get_vector_length():
    x = T.tensor3("x")
    assert B.get_vector_length(x.shape) == 3
    assert B.get_vector_length(T.constant([1, 2])) == 2
    assert B.get_vector_length(x.shape[1:]) == 2
    assert B.get_vector_length(x.shape[::-1]) == 3
    assert B.get_vector_length(T.join(0, x.shape, T.constant([1]))) == 4
    with pytest.raises(ValueError):
        B.get_vector_length(T.vector("v"))
    with pytest.raises(TypeError):
        B.get_vector_length(T.matrix("m"))


def test_ops_hash_by_parameters():
    assert B.Join(0) == B.Join(0) != B.Join(1)
    assert extra_ops.ARange("int64") == extra_ops.ARange("int64") != extra_ops.ARange("float64")
    assert extra_ops.Repeat(None) == extra_ops.Repeat(None) != extra_ops.Repeat(0)
    assert B.Alloc() == B.Alloc() and hash(B.Alloc()) == hash(B.Alloc())
    assert B.MakeVector("int64") == B.MakeVector("int64")
