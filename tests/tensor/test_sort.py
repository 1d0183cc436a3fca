"""``theano.tensor.sort``: sort/argsort/top-k against Theano 1.0.5's record
(``extra_ops_cases.py``), compiled against NumPy under hypothesis, gradients, errors, and the
module path (``T.sort`` is the function, as in Theano)."""

from __future__ import annotations

import sys
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
from jitgraph.tensor.extras import extra_ops as E
from jitgraph.tensor.core.gradient import NullTypeGradError, verify_grad

S = sys.modules["jitgraph.tensor.extras.sort"]
ORACLE = np.load(Path(__file__).parent / "data" / "extra_ops_oracle.npz")
PY = jitgraph.Mode(linker="py")


def run_case(name: str, mode=None) -> dict:
    inputs, outputs = CASES[name](T, E, S)
    fn = jitgraph.function(inputs, list(outputs.values()), mode=mode, on_unused_input="ignore")
    return dict(zip(outputs, fn(*VALUES[name])))


@pytest.mark.parametrize("mode", [None, PY, jitgraph.Mode(linker="c")],
                         ids=["compiled", "perform", "strict-c"])
def test_sorting_matches_theano(mode):
    for key, value in run_case("sorting", mode).items():
        expected = ORACLE[f"sorting_{key}"]
        assert value.dtype == expected.dtype and value.shape == expected.shape, key
        np.testing.assert_allclose(value, expected, rtol=1e-12, err_msg=key)


@pytest.mark.parametrize("mode", [None, PY], ids=["compiled", "perform"])
def test_top_k_matches_theano(mode):
    # sorted=False leaves the order free: values compared sorted, positions as sets
    got = run_case("top", mode)
    for key, value in got.items():
        expected = ORACLE[f"top_{key}"]
        assert value.dtype == expected.dtype and value.shape == expected.shape, key
        if key[0] == "g":
            np.testing.assert_allclose(value, expected, rtol=1e-12, err_msg=key)
            continue
        axis = int(key.split("_")[1].replace("m", "-"))
        np.testing.assert_allclose(np.sort(value, axis), np.sort(expected, axis), err_msg=key)


# -- against NumPy ----------------------------------------------------------------------------

@st.composite
def arrays_axis(draw, dtypes=("float64", "float32", "int32", "uint8", "int64")):
    dtype = draw(st.sampled_from(dtypes))
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=6))
    if dtype.startswith("float"):
        elements = st.floats(-8, 8, width=32 if dtype == "float32" else 64)
    else:
        elements = st.integers(0, 9)  # small range: many ties
    value = draw(hnp.arrays(dtype, shape, elements=elements))
    return value, draw(st.integers(-value.ndim, value.ndim - 1))


@settings(max_examples=30, deadline=None)
@given(arrays_axis(), st.sampled_from(["quicksort", "mergesort", "heapsort", "stable"]))
def test_sort_matches_numpy(problem, kind):
    value, axis = problem
    x = T.TensorType(str(value.dtype), (False,) * value.ndim)()
    got = jitgraph.function([x], [S.sort(x, axis, kind), S.argsort(x, axis, "stable"),
                                  S.sort(x, None)])(value)
    np.testing.assert_array_equal(got[0], np.sort(value, axis, kind))
    np.testing.assert_array_equal(got[1], np.argsort(value, axis, kind="stable"))
    np.testing.assert_array_equal(got[2], np.sort(value, None))


@settings(max_examples=30, deadline=None)
@given(arrays_axis(), st.data())
def test_topk_matches_numpy(problem, data):
    value, axis = problem
    n = value.shape[axis]
    kth = data.draw(st.integers(1, n)) * data.draw(st.sampled_from([1, -1]))
    x = T.TensorType(str(value.dtype), (False,) * value.ndim)()
    k = T.iscalar()
    ordered = S.topk_and_argtopk(x, k, axis=axis, sorted=True, idx_dtype="int32")
    free = S.topk(x, k, axis=axis, sorted=False)
    for mode in (None, PY):
        values, positions, unordered = jitgraph.function([x, k], [*ordered, free],
                                                         mode=mode)(value, kth)
        ascending = np.sort(value, axis)
        if kth > 0:
            expected = np.flip(np.take(ascending, np.arange(n - kth, n), axis), axis)
        else:
            expected = np.take(ascending, np.arange(-kth), axis)
        np.testing.assert_array_equal(values, expected)
        assert positions.dtype == np.int32
        np.testing.assert_array_equal(np.take_along_axis(value, positions, axis), values)
        np.testing.assert_array_equal(np.sort(unordered, axis), np.sort(expected, axis))


# -- gradients --------------------------------------------------------------------------------

@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_sort_gradient(axis):
    rng = np.random.RandomState(5)
    verify_grad(lambda a: S.sort(a, axis), [rng.rand(3, 4)], rng=rng)


@pytest.mark.parametrize("kth,axis,ordered", [(2, 1, True), (-2, 0, False), (1, -1, True),
                                              (3, 0, False)])
def test_topk_gradient(kth, axis, ordered):
    rng = np.random.RandomState(6)
    verify_grad(lambda a: S.topk(a, kth, axis=axis, sorted=ordered), [rng.rand(3, 4)],
                rng=rng)


def test_positions_have_zero_gradient_and_integer_arguments_none():
    x, k, ax = T.matrix(), T.iscalar(), T.iscalar()
    xv = np.random.rand(2, 3)
    g = jitgraph.function([x], T.grad(S.argsort(x).sum(), x))(xv)
    np.testing.assert_array_equal(g, np.zeros_like(xv))
    values, positions = S.topk_and_argtopk(x, 2)
    g = jitgraph.function([x], T.grad(values.sum() + positions.sum(), x))(xv)
    np.testing.assert_array_equal(g.sum(axis=1), [2.0, 2.0])
    with pytest.raises(NullTypeGradError, match="kth"):
        T.grad(S.topk(x, k).sum(), k)
    with pytest.raises(NullTypeGradError, match="axis"):
        T.grad(S.sort(x, ax).sum(), ax)


def test_sort_rop():
    v, e = T.vector(), T.vector()
    vv, ev = np.array([3.0, 1.0, 2.0]), np.array([0.1, 0.2, 0.3])
    got = jitgraph.function([v, e], Rop(S.sort(v), v, e))(vv, ev)
    np.testing.assert_allclose(got, ev[np.argsort(vv)])


def test_symbolic_axis():
    x, ax = T.matrix(), T.iscalar()
    xv = np.random.rand(3, 4)
    got = jitgraph.function([x, ax], [S.sort(x, ax), S.argsort(x, ax)])(xv, -2)
    np.testing.assert_array_equal(got[0], np.sort(xv, 0))
    np.testing.assert_array_equal(got[1], np.argsort(xv, 0))


def test_infer_shape(infer_shape_ok):
    x, k = T.matrix("x"), T.iscalar("k")
    givens = {x: np.random.rand(3, 4), k: np.array(-2, "int32")}
    for out in (S.sort(x), S.sort(x, None), S.argsort(x, 0), S.topk(x, k, axis=0),
                S.argtopk(x, k, axis=1)):
        infer_shape_ok(out, givens)


# -- construction, errors, names --------------------------------------------------------------

def test_types_and_names_as_theano():
    x, r = T.matrix(), T.row()
    assert str(S.sort(x).owner.op) == "SortOp{quicksort, None}"
    assert str(S.argsort(x, kind="mergesort").owner.op) == "ArgSortOp{mergesort, None}"
    assert S.sort(x, None).type == T.vector().type
    assert S.sort(r).broadcastable == (True, False) and S.argsort(x).dtype == "int64"
    values, positions = S.topk_and_argtopk(x, 2, sorted=False, idx_dtype="int32")
    assert str(values.owner.op) == "TopKOp{axis=-1, sorted=False}"
    assert values.owner is positions.owner and positions.dtype == "int32"
    assert S.topk(r, 1, axis=0).broadcastable == (True, False)
    assert S.topk(x, 1, axis=None).ndim == 1


@pytest.mark.parametrize("build,exc,match", [
    (lambda: S.sort(T.matrix(), kind="bogo"), ValueError, "kind"),
    (lambda: S.sort(T.matrix(), order="f0"), ValueError, "order"),
    (lambda: S.sort(T.scalar()), ValueError, "scalar"),
    (lambda: S.sort(T.matrix(), 1.5), TypeError, "axis must be an integer"),
    (lambda: S.topk(T.scalar(), 1), ValueError, "scalar"),
    (lambda: S.topk(T.vector(), 1, axis=2), IndexError, "axis"),
    (lambda: S.topk(T.vector(), T.scalar()), TypeError, "kth"),
    (lambda: S.argtopk(T.vector(), 1, idx_dtype="float32"), TypeError, "idx_dtype"),
])
def test_errors_name_the_argument(build, exc, match):
    with pytest.raises(exc, match=match):
        build()


def test_run_time_errors():
    x, k = T.matrix(), T.iscalar()
    fn = jitgraph.function([x, k], S.topk(x, k))
    with pytest.raises(ValueError, match="zero"):
        fn(np.ones((2, 3)), 0)
    with pytest.raises(ValueError, match="larger than"):
        fn(np.ones((2, 3)), 4)
    with pytest.raises(ValueError, match="out of bounds"):
        jitgraph.function([x], S.sort(x, 5), mode=PY)(np.ones((2, 3)))


def test_module_path_as_theano():
    module = sys.modules["jitgraph.tensor.extras.sort"]
    assert T.sort is module.sort and callable(T.sort)
    for name in ("argsort", "topk", "argtopk", "topk_and_argtopk"):
        assert getattr(T, name) is getattr(module, name)
    for name in ("SortOp", "ArgSortOp", "TopKOp", "arange", "grad_undefined", "mul",
                 "set_subtensor"):
        assert hasattr(module, name)
    from jitgraph.tensor.extras.sort import TopKOp  # noqa: F401


def test_gradient_with_a_symbolic_axis_says_why_it_is_missing():
    x, ax = T.matrix(), T.iscalar()
    with pytest.raises(NullTypeGradError, match="axis known"):
        T.grad(S.sort(x, ax).sum(), x)


def test_topk_rop():
    x, e, k = T.matrix(), T.matrix(), T.iscalar()
    xv = np.random.RandomState(2).rand(3, 4)
    ev = np.random.RandomState(3).rand(3, 4)
    values, positions = S.topk_and_argtopk(x, k, axis=0)
    got = jitgraph.function([x, e, k], Rop(values, x, e))(xv, ev, -2)
    np.testing.assert_allclose(got, np.take_along_axis(ev, np.argsort(xv, 0)[:2], 0))
    zero = jitgraph.function([x, e, k], Rop(positions, x, e), on_unused_input="ignore")
    assert not zero(xv, ev, 2).any()


def test_float_axis_as_theano_takes_it():
    # Theano 1.0.5 sorts along a float axis with an integral value (1.0) as along that integer
    m = T.dmatrix("m")
    v = np.array([[3.0, 1, 2], [0, 5, -1]])
    assert jitgraph.function([m], T.sort(m, axis=1.0))(v).tolist() == \
        [[1.0, 2.0, 3.0], [-1.0, 0.0, 5.0]]
    assert jitgraph.function([m], T.sort(m, 0.0))(v).tolist() == [[0.0, 1.0, -1.0], [3.0, 5.0, 2.0]]
    assert jitgraph.function([m], T.argsort(m, 1.0))(v).tolist() == [[1, 2, 0], [2, 0, 1]]
    with pytest.raises(TypeError, match="integer scalar"):
        T.sort(m, 1.5)  # Theano refuses it when the sort runs
    # a float variable (T.scalar()) as the axis: its value is checked when the sort runs
    axis = T.dscalar("axis")
    by_axis = jitgraph.function([m, axis], [T.sort(m, axis), T.argsort(m, axis, "mergesort")])
    for a in (0, 1):
        values, positions = by_axis(v, a)
        assert values.tolist() == np.sort(v, a).tolist()
        assert positions.tolist() == np.argsort(v, a, kind="mergesort").tolist()
    with pytest.raises(ValueError, match="whole number"):
        by_axis(v, 0.5)


def test_an_empty_order_is_no_order():
    """Theano's tests build SortOp("mergesort", []): no fields to sort by, as order=None."""
    assert S.SortOp("mergesort", []) == S.SortOp("mergesort")
    assert S.SortOp("mergesort", []) != S.SortOp("quicksort", [])
    assert hash(S.ArgSortOp("quicksort", ())) == hash(S.ArgSortOp("quicksort"))


def test_topk_computes_only_the_output_the_graph_uses():
    # Theano's local_useless_topk: topk(x, k) alone compiles to a TopKOp with one output
    from jitgraph.tensor.extras.sort import TopKOp, argtopk, topk, topk_and_argtopk

    x = T.dvector("x")
    xv = np.array([3.0, 1, 4, 1, 5])
    for y, expected in [(topk(x, 2), [5.0, 4.0]), (argtopk(x, -2), [1, 3])]:
        f = jitgraph.function([x], y)
        nodes = [n for n in f.maker.fgraph.apply_nodes if isinstance(n.op, TopKOp)]
        assert [len(n.outputs) for n in nodes] == [1]
        assert sorted(f(xv).tolist()) == sorted(expected)
    values, positions = topk_and_argtopk(x, 2)
    f = jitgraph.function([x], [values, positions])
    assert [len(n.outputs) for n in f.maker.fgraph.apply_nodes if isinstance(n.op, TopKOp)] == [2]
