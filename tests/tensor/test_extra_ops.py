"""``theano.tensor.extra_ops``: results and gradients against Theano 1.0.5's record
(``extra_ops_cases.py``), the compiled running/difference kernels against ``perform`` and NumPy
(hypothesis), gradients by finite differences, shapes, errors and the module's names."""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from extra_ops_cases import CASES, VALUES
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jitgraph
import jitgraph.tensor as T
from jitgraph.gradient import Rop
from jitgraph.graph.evaluate import evaluate
from jitgraph.tensor.extras import extra_ops as E
from jitgraph.tensor.core.gradient import verify_grad

ORACLE = np.load(Path(__file__).parent / "data" / "extra_ops_oracle.npz")
_API_FILE = Path(__file__).resolve().parents[1] / "data" / "theano_api.json"
API = json.loads(_API_FILE.read_text()) if _API_FILE.exists() else None
SORT = sys.modules["jitgraph.tensor.extras.sort"]
PY = jitgraph.Mode(linker="py")
STRICT = jitgraph.Mode(linker="c")


def run_case(name: str, mode=None) -> dict:
    inputs, outputs = CASES[name](T, E, SORT)
    fn = jitgraph.function(inputs, list(outputs.values()), mode=mode, on_unused_input="ignore")
    return dict(zip(outputs, fn(*VALUES[name])))


# Theano 1.0.5's unravel_index ignores order='F' (its results equal order='C'); jitgraph
# follows NumPy's documented meaning, checked against NumPy instead.
NUMPY_NOT_THEANO = {"ravel_unF0", "ravel_unF1", "ravel_unF2"}


@pytest.mark.parametrize("name", ["cumulative", "cumulative_ints", "differences", "bins",
                                  "ravel", "unique", "windows_and_fills", "selection"])
@pytest.mark.parametrize("mode", [None, PY], ids=["compiled", "perform"])
def test_matches_theano(name, mode):
    for key, value in run_case(name, mode).items():
        if f"{name}_{key}" in NUMPY_NOT_THEANO:
            continue
        expected = ORACLE[f"{name}_{key}"]
        value = np.asarray(value)
        assert value.dtype == expected.dtype, (key, value.dtype, expected.dtype)
        assert value.shape == expected.shape, (key, value.shape, expected.shape)
        np.testing.assert_allclose(value, expected, rtol=1e-12, atol=1e-14, err_msg=key)


def test_unravel_index_order_f_is_numpys():
    got = run_case("ravel")
    coords = np.unravel_index(VALUES["ravel"][3], (3, 4, 2), order="F")
    for k, c in enumerate(coords):
        np.testing.assert_array_equal(got[f"unF{k}"], c)


def test_strict_c_linker_accepts_every_op():
    x, iv, v, a = T.matrix(), T.ivector(), T.vector(), T.lvector()
    outs = [E.cumsum(x, 0), E.cumprod(x), E.diff(x), E.bincount(iv, assert_nonneg=True),
            E.searchsorted(v, x), *E.Unique(True, True, True)(x), E.bartlett(iv[0]),
            E.fill_diagonal(x, 1.0), E.fill_diagonal_offset(x, 1.0, iv[0]), E.cpu_contiguous(x),
            E.ravel_multi_index((a, a), (3, 4)), *E.unravel_index(a, (3, 4)),
            E.to_one_hot(iv, 5), E.compress(v, x), E.repeat(x, 2, 0)]
    fn = jitgraph.function([x, iv, v, a], outs, mode=STRICT)
    xv = np.arange(12.0).reshape(3, 4)
    res = fn(xv, np.array([1, 2, 0], "int32"), np.array([0.0, 1.0, 2.0]), np.array([0, 2]))
    np.testing.assert_array_equal(res[0], np.cumsum(xv, 0))
    np.testing.assert_array_equal(res[-1], np.repeat(xv, 2, 0))


# -- compiled kernels against perform ---------------------------------------------------------

KERNEL_DTYPES = ["float64", "float32", "int8", "int64", "uint8", "bool", "complex128"]


@st.composite
def arrays_and_axis(draw):
    dtype = draw(st.sampled_from(KERNEL_DTYPES))
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=5))
    elements = {"bool": st.booleans(), "float64": st.floats(-4, 4), "float32": st.floats(-4, 4,
                width=32), "complex128": st.complex_numbers(max_magnitude=3)}.get(
        dtype, st.integers(-120, 120) if dtype.startswith("int") else st.integers(0, 250))
    value = draw(hnp.arrays(dtype, shape, elements=elements))
    axis = draw(st.sampled_from([None] + list(range(-len(shape), len(shape)))))
    return value, axis, draw(st.booleans())


def _layout(value, transposed):
    """The same values in a non-contiguous (transposed back) array, when asked."""
    return np.ascontiguousarray(value.T).T if transposed and value.ndim > 1 else value


@settings(max_examples=40, deadline=None)
@given(arrays_and_axis(), st.sampled_from(["add", "mul"]))
def test_running_kernel_matches_perform(problem, mode):
    value, axis, transposed = problem
    x = T.TensorType(str(value.dtype), (False,) * value.ndim)()
    out = E.CumOp(axis, mode)(x)
    got = jitgraph.function([x], out)(_layout(value, transposed))
    ref = evaluate(out, {x: value})
    numpy_ref = (np.cumsum if mode == "add" else np.cumprod)(value, axis=axis, dtype=value.dtype)
    assert got.dtype == ref.dtype == value.dtype and got.shape == ref.shape
    if value.dtype.kind == "c" and mode == "mul":
        # a complex product may be contracted to fused multiply-adds in the kernel: a few ulp
        np.testing.assert_allclose(got, ref, rtol=1e-13)
        np.testing.assert_allclose(got, numpy_ref, rtol=1e-13)
        return
    np.testing.assert_array_equal(got, ref)
    np.testing.assert_array_equal(got, numpy_ref)


@settings(max_examples=40, deadline=None)
@given(arrays_and_axis(), st.integers(0, 3))
def test_difference_kernel_matches_perform(problem, n):
    value, axis, transposed = problem
    axis = -1 if axis is None else axis
    x = T.TensorType(str(value.dtype), (False,) * value.ndim)()
    out = E.diff(x, n, axis)
    got = jitgraph.function([x], out)(_layout(value, transposed))
    ref = evaluate(out, {x: value})
    assert got.dtype == ref.dtype and got.shape == ref.shape
    np.testing.assert_array_equal(got, ref)
    np.testing.assert_array_equal(got, np.diff(value, n, axis))


def test_diff_n0_does_not_alias_its_input():
    x = T.vector()
    value = np.arange(3.0)
    for mode in (None, PY):
        out = jitgraph.function([x], E.diff(x, 0), mode=mode)(value)
        assert not np.shares_memory(out, value)


# -- gradients, R_op, shapes --------------------------------------------------------------

@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_cumulative_gradients(axis):
    rng = np.random.RandomState(42)
    verify_grad(lambda a: E.cumsum(a, axis), [rng.rand(3, 4)], rng=rng)
    verify_grad(lambda a: E.cumprod(a, axis), [rng.rand(3, 4) + 0.5], rng=rng)


@pytest.mark.parametrize("n,axis", [(1, 0), (2, 1), (3, -1), (5, 1), (0, 0)])
def test_diff_gradient_every_rank(n, axis):
    rng = np.random.RandomState(n)
    verify_grad(lambda a: E.diff(a, n, axis), [rng.rand(3, 4)], rng=rng)
    verify_grad(lambda a: E.diff(a, n, axis), [rng.rand(2, 3, 4)], rng=rng)


def test_other_gradients():
    rng = np.random.RandomState(3)
    labels = np.array([1, 3, 3, 0], "int32")
    verify_grad(lambda w: E.bincount(labels, w), [rng.rand(4)], rng=rng)
    verify_grad(lambda a, v: E.fill_diagonal(a, v), [rng.rand(4, 3), np.array(2.0)], rng=rng)
    verify_grad(lambda a, v: E.fill_diagonal(a, v), [rng.rand(3, 3, 3), np.array(2.0)],
                rng=rng)
    for off in (-2, 0, 1):
        verify_grad(lambda a, v, off=off: E.fill_diagonal_offset(a, v, off),
                    [rng.rand(3, 4), np.array(2.0)], rng=rng)
    verify_grad(lambda a: E.compress(np.array([1, 0, 1]), a, axis=0), [rng.rand(3, 2)],
                rng=rng)
    verify_grad(lambda a: E.cpu_contiguous(a.T), [rng.rand(3, 2)], rng=rng)


def test_gradients_of_integer_arguments_are_undefined():
    from jitgraph.tensor.core.gradient import NullTypeGradError

    a, val, off = T.matrix(), T.scalar(), T.iscalar()
    with pytest.raises(NullTypeGradError, match="offset"):
        T.grad(E.fill_diagonal_offset(a, val, off).sum(), off)


def test_rop():
    x, v = T.matrix(), T.matrix()
    xv = np.random.RandomState(0).rand(3, 4) + 0.5
    vv = np.random.RandomState(1).rand(3, 4)
    eps = 1e-6
    for build in (lambda t: E.cumsum(t, 1), lambda t: E.cumprod(t, 0), lambda t: E.cumprod(t),
                  lambda t: E.diff(t, 2, 1), lambda t: E.fill_diagonal(t, 3.0),
                  lambda t: E.fill_diagonal_offset(t, 3.0, 1), E.cpu_contiguous):
        rop = jitgraph.function([x, v], Rop(build(x), x, v))(xv, vv)
        f = jitgraph.function([x], build(x))
        np.testing.assert_allclose(rop, (f(xv + eps * vv) - f(xv - eps * vv)) / (2 * eps),
                                   rtol=1e-6, atol=1e-8)


def test_infer_shape(infer_shape_ok):
    x, v, iv, m = T.matrix("x"), T.vector("v"), T.ivector("iv"), T.iscalar("m")
    xv, vv = np.random.rand(3, 4), np.array([0.5, 1.5, 2.5])
    givens = {x: xv, v: vv, iv: np.array([0, 2, 5], "int32"), m: np.array(6, "int32")}
    outputs = [E.cumsum(x), E.cumsum(x, 0), E.cumprod(x, -1), E.diff(x), E.diff(x, 6, 1),
               E.searchsorted(v, x), E.bartlett(m), E.fill_diagonal(x, 1.0),
               E.fill_diagonal_offset(x, 1.0, m), E.cpu_contiguous(x),
               E.ravel_multi_index((iv, iv), (6, 6)), *E.unravel_index(iv, (2, 3))]
    for out in outputs:
        infer_shape_ok(out, givens)


# -- construction and errors -------------------------------------------------------------

def test_types_and_names_as_theano():
    x, r = T.matrix(), T.row()
    assert str(E.cumsum(x).owner.op) == "CumOp{None, add}"
    assert str(E.cumprod(x, -1).owner.op) == "CumOp{-1, mul}"
    assert E.cumsum(r, 0).broadcastable == (True, False)
    assert str(E.diff(x, 2, 0).owner.op) == "DiffOp{n=2, axis=0}"
    assert E.diff(r, 1, 0).broadcastable == (False, False)  # 0 rows, not 1
    assert str(E.searchsorted(T.vector(), x, side="right").owner.op) == \
        "SearchsortedOp{side='right'}"
    assert str(E.Unique(axis=1)) == ("Unique{return_index=False, return_inverse=False, "
                                     "return_counts=False, axis=1}")
    assert str(E.RepeatOp(0)) == "RepeatOp{axis=0}" and E.Repeat is E.RepeatOp
    assert str(E.unravel_index(T.lvector(), (3, 4))[0].owner.op) == \
        "UnravelIndex{ndim=2, order='C'}"
    assert E.bincount(T.bvector()).dtype == "int8"
    assert E.bincount(T.lvector(), T.fvector()).dtype == "float32"
    assert E.to_one_hot(T.ivector(), 3).dtype == jitgraph.config.floatX
    assert E.CumOp(axis=0) == E.CumOp(0, "add") != E.CumOp(0, "mul")


def test_deprecated_cumsum_op_builds_a_cumop():
    with pytest.warns(DeprecationWarning):
        op = E.CumsumOp(axis=1)
    assert op == E.CumOp(1, "add")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert E.CumprodOp() == E.CumOp(None, "mul")


@pytest.mark.parametrize("build,exc,match", [
    (lambda: E.cumsum(T.matrix(), 5), ValueError, "axis=5"),
    (lambda: E.CumOp(0, "max"), ValueError, "Unknown mode"),
    (lambda: E.diff(T.matrix(), 1, 2), ValueError, "axis=2"),
    (lambda: E.diff(T.matrix(), -1), ValueError, "non-negative"),
    (lambda: E.bincount(T.vector()), TypeError, "x must hold integers"),
    (lambda: E.bincount(T.imatrix()), TypeError, "vector"),
    # Theano 1.0.5: a wrong rank is a ValueError, a float sorter a TypeError
    (lambda: E.searchsorted(T.matrix(), T.vector()), ValueError, "sorted array"),
    (lambda: E.searchsorted(T.vector(), T.vector(), sorter=T.lmatrix()), ValueError, "sorter"),
    (lambda: E.searchsorted(T.vector(), T.vector(), side="up"), ValueError, "side"),
    (lambda: E.searchsorted(T.vector(), T.vector(), sorter=T.vector()), TypeError, "sorter"),
    (lambda: E.ravel_multi_index(T.lvector(), (3, 4)), TypeError, "tuple or a list"),
    (lambda: E.ravel_multi_index((T.vector(),), (3,)), TypeError, "integers"),
    (lambda: E.ravel_multi_index((T.lvector(),), (3,), mode="bounce"), ValueError, "mode"),
    (lambda: E.unravel_index(T.lvector(), T.lvector()), ValueError, "ndim="),
    (lambda: E.unravel_index(T.lvector(), (3, 4), order="A"), ValueError, "order"),
    (lambda: E.to_one_hot(T.vector(), 3), TypeError, "integer labels"),
    (lambda: E.Unique(axis=3)(T.matrix()), ValueError, "axis 3"),
    (lambda: E.bartlett(T.scalar()), TypeError, "integer"),
    (lambda: E.bartlett(T.ivector()), TypeError, "scalar"),
    (lambda: E.fill_diagonal(T.vector(), 1.0), TypeError, "at least 2"),
    (lambda: E.fill_diagonal(T.matrix(), T.vector()), TypeError, "scalar"),
    (lambda: E.fill_diagonal(T.imatrix(), 1.5), TypeError, "upcast"),
    (lambda: E.fill_diagonal_offset(T.tensor3(), 1.0, 0), TypeError, "matrix"),
    (lambda: E.fill_diagonal_offset(T.matrix(), 1.0, 0.5), TypeError, "offset"),
    (lambda: E.compress(T.vector(), T.matrix(), axis=2), ValueError, "axis 2"),
])
def test_errors_name_the_argument(build, exc, match):
    with pytest.raises(exc, match=match):
        build()


def test_run_time_errors():
    iv, lv, t3, v = T.ivector(), T.lvector(), T.tensor3(), T.scalar()
    with pytest.raises(AssertionError, match="negative"):
        jitgraph.function([iv], E.bincount(iv, assert_nonneg=True))(np.array([1, -1], "int32"))
    with pytest.raises(ValueError, match="coordinates"):
        jitgraph.function([lv], E.ravel_multi_index((lv, lv), (3, 4)))(np.array([0, 5]))
    with pytest.raises(ValueError, match="out of bounds"):
        jitgraph.function([lv], E.unravel_index(lv, (3, 4))[0])(np.array([12]))
    with pytest.raises(ValueError, match="dimensions equal"):
        jitgraph.function([t3, v], E.fill_diagonal(t3, v))(np.zeros((2, 3, 2)), 1.0)


# -- names ------------------------------------------------------------------------------------

@pytest.mark.skipif(API is None, reason="the Theano API fixture is not beside the checkout")
def test_every_theano_name_exists():
    missing = [n for n in API["theano.tensor.extra_ops"] if not hasattr(E, n)]
    assert not missing
    exported = set(API["theano.tensor.extra_ops"]) & set(API["theano.tensor"])
    assert all(getattr(T, n) is getattr(E, n) for n in exported)


def test_reexported_names():
    assert E.int_t is jitgraph.scalar.int32
    modes = E.EnumList("SUM", ("MAX", "max"))
    assert modes.MAX == 1 and modes.fromalias("max") == 1
    assert E.Generic is jitgraph.graph.type.GenericType
    assert isinstance(E.disconnected_type().type, E.DisconnectedType)


def test_tensor_methods_as_theano():
    # recorded from Theano 1.0.5; its ``compress`` method takes ``self`` as the condition
    x, v = T.matrix(), T.vector()
    xv, vv = np.array([[3.0, 1.0], [2.0, 5.0]]), np.array([1.0, 4.0])
    got = jitgraph.function([x, v], [x.sort(0), x.cumsum(), v.searchsorted(x),
                                     v.compress(x, axis=1), x.argsort(), x.cumprod(1)])(xv, vv)
    np.testing.assert_array_equal(got[0], [[2.0, 1.0], [3.0, 5.0]])
    np.testing.assert_array_equal(got[1], [3.0, 4.0, 6.0, 11.0])
    np.testing.assert_array_equal(got[2], [[1, 0], [1, 2]])
    np.testing.assert_array_equal(got[3], xv)
    np.testing.assert_array_equal(got[4], [[1, 0], [0, 1]])
    np.testing.assert_array_equal(got[5], [[3.0, 3.0], [2.0, 10.0]])


@pytest.mark.parametrize("axis, shape, total", [(-1, (2, 3, 8), 720.0), (-2, (2, 6, 4), 616.0),
                                                (-3, (4, 3, 4), 486.0)])
def test_repeat_op_with_a_negative_axis(axis, shape, total):
    # Theano 1.0.5 builds RepeatOp(axis=-1) itself (test_extra_ops' TestRepeatOp); recorded
    # shapes, sums with repeats 1..n and gradients of the squared sum with repeats 2
    x, r, rv = T.dtensor3("x"), T.lscalar("r"), T.lvector("rv")
    a = np.arange(24.0).reshape(2, 3, 4)
    y = E.RepeatOp(axis=axis)(x, r)
    out, shp = jitgraph.function([x, r], [y, y.shape])(a, 2)
    assert out.shape == shape and shp.tolist() == list(shape)
    np.testing.assert_array_equal(out, np.repeat(a, 2, axis=axis))
    z = E.RepeatOp(axis=axis)(x, rv).sum()
    assert jitgraph.function([x, rv], z)(a, np.arange(1, a.shape[axis] + 1)) == total
    g = jitgraph.function([x, r], jitgraph.grad((y ** 2).sum(), x))(a, 2)
    assert g.ravel()[:6].tolist() == [0.0, 4.0, 8.0, 12.0, 16.0, 20.0]
    with pytest.raises(ValueError, match="out of range"):
        E.RepeatOp(axis=-4)(x, r)


# -- repeat by one count: a broadcast, as in Theano 1.0.5 (whose values these are) -------------

@pytest.mark.parametrize("axis,values", [
    (None, [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]),
    (0, [[0, 1, 2], [0, 1, 2], [3, 4, 5], [3, 4, 5]]),
    (1, [[0, 0, 1, 1, 2, 2], [3, 3, 4, 4, 5, 5]]),
    (-1, [[0, 0, 1, 1, 2, 2], [3, 3, 4, 4, 5, 5]]),
])
def test_repeat_by_one_count_is_a_broadcast(axis, values):
    x, r = T.dmatrix("x"), T.iscalar("r")
    a = np.arange(6.0).reshape(2, 3)
    out = E.repeat(x, r, axis=axis)
    f = jitgraph.function([x, r], out)
    np.testing.assert_array_equal(f(a, 2), values)
    assert not any(isinstance(n.op, E.RepeatOp) for n in f.maker.fgraph.toposort())
    grad = jitgraph.function([x, r], T.grad((out ** 2).sum(), x))
    np.testing.assert_array_equal(grad(a, 3), [[0, 6, 12], [18, 24, 30]])
    g = jitgraph.function([x], E.repeat(x, [3], axis=axis))  # a one-entry list: the same
    assert not any(isinstance(n.op, E.RepeatOp) for n in g.maker.fgraph.toposort())


def test_repeat_keeps_a_broadcastable_axis_repeated_once():
    row = T.drow("row")
    assert E.repeat(row, 1, axis=0).broadcastable == (True, False)
    assert E.repeat(row, 2, axis=0).broadcastable == (False, False)


@pytest.mark.parametrize("make", [T.scalar, T.vector])
def test_repeat_refuses_uint64_counts(make):
    counts = make("r", dtype="uint64")  # numpy.repeat cannot cast them to int64 safely
    with pytest.raises(TypeError, match="uint64"):
        E.repeat(T.dmatrix(), counts, axis=0)


def test_unique_inverse_shape_needs_no_unique():
    x = T.dmatrix("x")
    for op in (E.Unique(return_inverse=True), E.Unique(True, True, True),
               E.Unique(return_inverse=True, axis=0)):
        inverse = op(x)[2 if op.return_index else 1]
        f = jitgraph.function([x], inverse.shape)
        assert not any(isinstance(n.op, E.Unique) for n in f.maker.fgraph.toposort())
        expected = 6 if op.axis is None else 3
        np.testing.assert_array_equal(f(np.zeros((3, 2))), [expected])
