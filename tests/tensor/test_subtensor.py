"""Indexing against NumPy: basic and advanced ``x[...]``, set_subtensor/inc_subtensor, gradients,
infer_shape, error messages, and hypothesis-generated basic indices."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgraph.tensor as T
from jitgraph.graph.evaluate import evaluate
from jitgraph.tensor.indexing import subtensor_ops as ops
from jitgraph.tensor.core.gradient import verify_grad

RNG = np.random.default_rng(3)
A = RNG.standard_normal((4, 5, 3))
_BIG = np.zeros((8, 5, 6))
_BIG[::2, :, ::2] = A
# C order, negative strides, Fortran order, a strided view: all of shape (4, 5, 3)
LAYOUTS = [A, A[::-1], np.asfortranarray(A), _BIG[::2, :, ::-2]]


def t3(name="x"):
    return T.tensor3(name)


def check_type(out, value):
    """The symbolic type agrees with the value: same ndim, length 1 on broadcastable dims."""
    assert out.ndim == value.ndim
    for b, n in zip(out.broadcastable, value.shape):
        assert n == 1 or not b


# ---------------------------------------------------------------------------------------------
# basic indexing

BASIC = [
    (1,), (-1,), (1, 2), (-4, -5, -3), (1, 2, 0), (slice(None),), (slice(1, 3),),
    (slice(None, None, -1),), (slice(None, None, -2), slice(4, 0, -3)), (slice(-2, None),),
    (slice(None, -10),), (slice(10, None),), (slice(3, 1),), (slice(-1, -5, -1),),
    (Ellipsis, 1), (1, Ellipsis), (None,), (None, 1, None), (slice(None), None, 2),
    (Ellipsis, None), (0, Ellipsis, None, slice(None, None, -1)), (), (Ellipsis,),
    (slice(1, None, 2), -1, slice(None, None, -1)), (np.int64(2),), (slice(np.int32(1), None),),
]


@pytest.mark.parametrize("index", BASIC, ids=repr)
def test_basic_indexing_matches_numpy(index, infer_shape_ok):
    x = t3()
    out = x[index]
    for value in LAYOUTS:
        got = evaluate(out, {x: value})
        expected = value[index]
        np.testing.assert_array_equal(got, expected)
        check_type(out, expected)
    if out.owner is not None and isinstance(out.owner.op, ops.Subtensor):
        infer_shape_ok(out, {x: A})


@pytest.mark.parametrize("index", [[slice(None), slice(None, None, -1), slice(None)],
                                   [slice(None), 1], [np.int64(1), slice(None)],
                                   [Ellipsis, 0], [None, slice(1, 2)]], ids=repr)
def test_list_with_slices_indexes_like_a_tuple(index):
    # Theano 1.0 (and NumPy before 1.23) read such a list as a tuple; Keras' reverse relies on it
    x = t3()
    np.testing.assert_array_equal(evaluate(x[index], {x: A}), A[tuple(index)])


def test_list_of_ints_stays_an_integer_array_index():
    x = t3()
    np.testing.assert_array_equal(evaluate(x[[0, 1]], {x: A}), A[np.asarray([0, 1])])


def test_basic_indexing_is_a_view():
    x = t3()
    out = x[1:, ::-1]
    assert isinstance(out.owner.op, ops.Subtensor)
    assert out.owner.op.view_map == {0: [0]}
    value = A.copy()
    assert np.shares_memory(evaluate(out, {x: value}), value)
    assert x[1:3].owner.op == x[0:2].owner.op  # bounds are inputs: one op per structure
    assert x[1, :, :].owner.op == x[1].owner.op
    assert isinstance(x[...].owner.op, ops.Subtensor)  # so that set_subtensor(x[...], y) works
    assert x[:, :].owner.op == x[()].owner.op == ops.Subtensor(())


def test_symbolic_bounds(infer_shape_ok):
    x = t3()
    a, b, c = T.lscalar("a"), T.iscalar("b"), T.lscalar("c")
    out = x[a:b:c, c]
    for av, bv, cv in [(0, 3, 1), (-1, -5, -1), (3, 0, -2), (1, 10, 3), (-10, 10, -1), (4, 4, 1)]:
        givens = {x: A, a: av, b: bv, c: cv}
        np.testing.assert_array_equal(evaluate(out, givens), A[av:bv:cv, cv])
        infer_shape_ok(out, givens)
    out2 = x[:, x.shape[1] - 2:]
    np.testing.assert_array_equal(evaluate(out2, {x: A}), A[:, 3:])


def test_zero_dim_and_zero_size():
    s = T.scalar("s")
    assert s[()].type == s.type
    assert s[None].broadcastable == (True,)
    np.testing.assert_array_equal(evaluate(s[None, None], {s: 2.0}), [[2.0]])
    x = t3()
    empty = np.zeros((0, 3, 2))
    assert evaluate(x[1:, ::-1], {x: empty}).shape == (0, 3, 2)
    assert evaluate(x[:, 1], {x: empty}).shape == (0, 2)
    got = evaluate(x[0, 1, 2], {x: A})
    assert got.shape == () and got == A[0, 1, 2]


def test_broadcastable_patterns():
    r = T.row("r")
    assert r[0].broadcastable == (False,)
    assert r[:, 1].broadcastable == (True,)
    assert r[0:1].broadcastable == (True, False)
    assert r[::-1].broadcastable == (True, False)
    assert r[1:].broadcastable == (False, False)  # maybe empty
    assert r[T.lscalar("i"):].broadcastable == (False, False)
    assert T.matrix("m")[0:1].broadcastable == (False, False)


def test_index_errors():
    x = T.matrix("x")
    out = x[5]
    with pytest.raises(IndexError, match=r"index 5 is out of bounds for axis 0 with size 3.*"
                                         r"input shape \(3, 4\)"):
        evaluate(out, {x: np.zeros((3, 4))})
    with pytest.raises(IndexError, match="out of bounds"):
        evaluate(x[:, -5], {x: np.zeros((3, 4))})
    with pytest.raises(IndexError, match="too many indices"):
        x[1, 2, 3]
    with pytest.raises(IndexError, match="single ellipsis"):
        x[..., 1, ...]
    with pytest.raises(IndexError, match="out of bounds for axis 0 with size 1"):
        T.row("r")[1]
    with pytest.raises(IndexError, match="out of bounds"):
        T.constant(np.zeros((2, 2)))[:, 3]
    with pytest.raises(ValueError, match="step cannot be zero"):
        x[::0]
    with pytest.raises(TypeError, match="slice indices"):
        x[1.5:]
    with pytest.raises(TypeError, match="integer scalars"):
        x[T.scalar("f"):]
    with pytest.raises(IndexError, match="integer or boolean"):
        x[T.vector("fv")]
    with pytest.raises(IndexError):
        x[1.0]
    with pytest.raises(TypeError):
        x[True]
    n = T.lscalar("n")
    with pytest.raises(ValueError, match="step"):
        evaluate(x[::n], {x: np.zeros((3, 4)), n: 0})


# ---------------------------------------------------------------------------------------------
# advanced indexing

ADVANCED = [
    ([0, 2, 2, -1],), (np.array([3, 0]), slice(None), 1), ([[0, 1], [2, 3]],), ([],),
    (slice(None), [4, 0, 0]), (1, [0, 2], slice(None, None, -1)), ([0, 1], [1, 2], [2, 0]),
    ([0, 1], slice(1, 3), [2, 0]), ([[0], [1]], [1, 2]), (Ellipsis, [0, 2]),
    (None, [1, 0], None), ([1, 0], None, [1, 2]), (slice(1, None), [1, 2], None, [0, 1]),
    (slice(None), [1, 2], Ellipsis, [0, 1]), (0, None, [1, 1]),
    (A[:, :, 0] > 0,), (slice(None), A[0, :, 0] > 0), (A > 0.5,), (A[:, 0, 0] > 0, 1),
    (np.array([0, 1]), Ellipsis),
]


@pytest.mark.parametrize("index", ADVANCED, ids=repr)
def test_advanced_indexing_matches_numpy(index, infer_shape_ok):
    x = t3()
    out = x[index]
    for value in LAYOUTS[:2]:
        got = evaluate(out, {x: value})
        expected = value[index]
        np.testing.assert_array_equal(got, expected)
        check_type(out, expected)
    has_mask = any(isinstance(i, np.ndarray) and i.dtype == bool for i in index)
    if not has_mask:
        infer_shape_ok(out, {x: A})


def test_advanced_op_choice_and_symbolic_indices(infer_shape_ok):
    x = T.matrix("x")
    i = T.lvector("i")
    j = T.ivector("j")
    value = A[:, :, 0]
    assert isinstance(x[i].owner.op, ops.AdvancedSubtensor1)
    assert isinstance(x[i, :].owner.op, ops.AdvancedSubtensor1)
    assert isinstance(x[:, i].owner.op, ops.AdvancedSubtensor)
    assert isinstance(x[i, j].owner.op, ops.AdvancedSubtensor)
    g = {x: value, i: np.array([3, 0, 3]), j: np.array([4, -1, 0], dtype="int32")}
    for out, ref in [(x[i], value[[3, 0, 3]]), (x[i, j], value[[3, 0, 3], [4, -1, 0]]),
                     (x[:, j], value[:, [4, -1, 0]]), (x[[i, i]], value[[[3, 0, 3]] * 2])]:
        np.testing.assert_array_equal(evaluate(out, g), ref)
        check_type(out, ref)
        infer_shape_ok(out, g)
    k = T.lscalar("k")
    np.testing.assert_array_equal(evaluate(x[[k, 0]], {x: value, k: 2}), value[[2, 0]])
    mask = T.matrix("m") > 0
    np.testing.assert_array_equal(evaluate(x[mask], {x: value, mask.owner.inputs[0]: value}),
                                  value[value > 0])
    with pytest.raises(IndexError, match=r"index 9 is out of bounds.*input shape \(4, 5\)"):
        evaluate(x[i], {x: value, i: np.array([9])})
    with pytest.raises(IndexError, match="out of bounds"):
        evaluate(x[i, j], {x: value, i: np.array([0]), j: np.array([7], dtype="int32")})


def test_advanced_broadcastable_patterns():
    x = T.matrix("x")
    col = T.TensorType("int64", (False, True))("col")
    row = T.TensorType("int64", (True, False))("row")
    assert x[col, row].broadcastable == (False, False)
    assert x[col].broadcastable == (False, True, False)
    assert x[T.constant([1])].broadcastable == (True, False)
    assert x[None, T.lvector("i")].broadcastable == (True, False, False)
    assert T.row("r")[:, T.lvector("i")].broadcastable == (True, False)


# ---------------------------------------------------------------------------------------------
# set_subtensor / inc_subtensor

INC_CASES = [
    ((1,), (5, 1)), ((slice(None, None, -1), 0), (4, 1)), ((1,), (3,)), ((), (3,)), ((slice(1, None, 2),), ()),
    ((Ellipsis, -1), (1, 5)), ((0, slice(None), 1), (5,)), (([0, 2, 0],), (3, 5, 3)),
    (([1, 1, 1],), (5, 3)), ((slice(None), [0, 0, 4]), (1, 3)), (([0, 0], [1, 1]), (3,)),
    (([0, 3], slice(None), [2, 2]), (2, 5)), ((A[:, :, 0] > 0,), (3,)), ((None, 1), (1, 5, 3)),
    ((slice(3, 0, -1), None), (5, 3)), ((slice(0, 0),), ()),
]


def _numpy_inc(value, index, y, setting):
    out = value.copy()
    if setting:
        out[index] = y
    else:
        np.add.at(out, index, y)
    return out


@pytest.mark.parametrize("setting", [False, True], ids=["inc", "set"])
@pytest.mark.parametrize("index,yshape", INC_CASES, ids=repr)
def test_set_inc_subtensor_match_numpy(index, yshape, setting, infer_shape_ok):
    x = t3()
    y = T.TensorType("float64", [False] * len(yshape))("y")
    yv = RNG.standard_normal(yshape)
    fn = T.set_subtensor if setting else T.inc_subtensor
    out = fn(x[index], y)
    assert out.type == x.type
    for value in LAYOUTS[:2]:
        before = value.copy()
        got = evaluate(out, {x: value, y: yv})
        np.testing.assert_allclose(got, _numpy_inc(value, index, yv, setting), rtol=1e-12)
        np.testing.assert_array_equal(value, before)  # not inplace: the input is untouched
    infer_shape_ok(out, {x: A, y: yv})


def test_inc_subtensor_repeated_indices_accumulate():
    v = T.vector("v")
    i = T.lvector("i")
    value = np.zeros(4)
    out = T.inc_subtensor(v[i], 1.0)
    np.testing.assert_array_equal(evaluate(out, {v: value, i: [0, 0, 2, 0]}), [3, 0, 1, 0])
    out2 = T.inc_subtensor(v[i], 1.0, ignore_duplicates=True)
    np.testing.assert_array_equal(evaluate(out2, {v: value, i: [0, 0, 2]}), [1, 0, 1, 0])
    m = T.matrix("m")
    out3 = T.inc_subtensor(m[[0, 0], [1, 1]], T.constant([2.0, 5.0]))
    np.testing.assert_array_equal(evaluate(out3, {m: np.zeros((2, 2))}), [[0, 7], [0, 0]])


def test_set_inc_subtensor_types_and_errors():
    x = T.matrix("x")
    i = T.lvector("i")
    assert T.inc_subtensor(x[1], T.iscalar("n")).dtype == "float64"
    got = evaluate(T.inc_subtensor(x[0], T.constant(np.int32(2))), {x: np.zeros((2, 2))})
    np.testing.assert_array_equal(got, [[2, 2], [0, 0]])
    iv = T.imatrix("iv")
    got = evaluate(T.inc_subtensor(iv[i], 1.5), {iv: np.zeros((2, 2), "int32"), i: [1, 1]})
    assert got.dtype == np.int32
    with pytest.raises(TypeError, match="2-dimensional value"):
        T.set_subtensor(x[0], T.matrix("y"))
    with pytest.raises(TypeError, match="result of indexing"):
        T.set_subtensor(x, 1.0)
    with pytest.raises(TypeError, match="result of indexing"):
        T.inc_subtensor(x + 1, 1.0)
    out = T.set_subtensor(x[0], T.vector("y"))
    with pytest.raises(ValueError, match=r"IncSubtensor.*shape \(3,\)|SetSubtensor"):
        evaluate(out, {x: np.zeros((2, 4)), out.owner.inputs[1]: np.zeros(3)})
    with pytest.raises(IndexError, match="out of bounds"):
        evaluate(T.inc_subtensor(x[i], 1.0), {x: np.zeros((2, 2)), i: [5]})


def test_set_subtensor_through_transpose_and_reshape():
    x = T.matrix("x")
    value = A[:, :, 0].copy()
    out = T.set_subtensor(x.T[1], 0.0)  # a DimShuffle of x, then Subtensor
    with pytest.raises(TypeError):
        T.set_subtensor(x.T, 1.0)  # a transpose of a graph input is no indexing result
    # As in Theano the result is the updated tensor that was indexed, here x.T.
    expected = value.T.copy()
    expected[1] = 0.0
    np.testing.assert_array_equal(evaluate(out, {x: value}), expected)
    out2 = T.set_subtensor(x[1:, None], T.constant(np.ones((1, 1, 5))))
    expected = value.copy()
    expected[1:] = 1.0
    assert out2.type == x.type
    np.testing.assert_array_equal(evaluate(out2, {x: value}), expected)
    out3 = T.inc_subtensor(x[1:].reshape((-1,)), 1.0)
    expected = value.copy()
    expected[1:] += 1.0
    np.testing.assert_array_equal(evaluate(out3, {x: value}), expected)


def test_inplace_ops_destroy_their_input():
    x = T.matrix("x")
    out = T.inc_subtensor(x[0], 1.0, inplace=True)
    assert out.owner.op.destroy_map == {0: [0]} and out.owner.op.inplace
    value = np.zeros((2, 2))
    got = evaluate(out, {x: value})
    assert got is value and value[0].tolist() == [1, 1]
    i = T.lvector("i")
    out1 = T.set_subtensor(x[i], 2.0, inplace=True)
    assert out1.owner.op.destroy_map == {0: [0]}
    assert ops.IncSubtensor(("int",)).destroy_map == {}
    assert ops.AdvancedIncSubtensor(("array",), inplace=True).destroy_map == {0: [0]}
    assert ops.IncSubtensor(("int",)) != ops.IncSubtensor(("int",), set_instead_of_inc=True)


# ---------------------------------------------------------------------------------------------
# gradients

M = RNG.standard_normal((4, 5))


@pytest.mark.parametrize("fn", [
    lambda x: x[1], lambda x: x[::-1, 1:4:2], lambda x: x[-1, ::-2], lambda x: x[None, 2:],
    lambda x: x[[0, 2, 2]], lambda x: x[[3, 3], [1, 1]], lambda x: x[:, [4, 0, 4]],
    lambda x: x[x > 0] * 3, lambda x: x[1:, None, [0, 0]], lambda x: x[2, 3],
], ids=["int", "slices", "neg-step", "newaxis", "adv1", "adv-pairs", "adv-col", "mask",
        "mixed", "scalar"])
def test_subtensor_gradients(fn):
    verify_grad(fn, [M], rng=0)


def test_float32_gradients_keep_float32():
    m32 = M.astype("float32")
    x = T.fmatrix("x")
    y = T.fvector("y")
    for out in (x[::-1, [0, 2]], T.inc_subtensor(x[[1, 1]], y), T.set_subtensor(x[1:, 0], y[1:])):
        for g in T.grad(out.sum(), [x, y], disconnected_inputs="ignore"):
            assert g.dtype == "float32"
    verify_grad(lambda a: a[::-1, [0, 2]] * 2, [m32], rng=0)
    verify_grad(lambda a, b: T.inc_subtensor(a[[1, 1]], b), [m32, m32[0]], rng=0)


@pytest.mark.parametrize("setting", [False, True], ids=["inc", "set"])
@pytest.mark.parametrize("index,yshape", [
    ((1,), (5,)), ((slice(None, None, -2),), (1, 5)), (([0, 2, 3],), (3, 5)), (([1, 2],), ()),
    ((slice(None), [1, 3]), (4, 1)), (([0, 0], [1, 2]), (2,)), ((None, 2), (1, 5)),
], ids=repr)
def test_inc_subtensor_gradients(index, yshape, setting):
    # (Setting through repeated indices is left out: NumPy does not define which write wins.)
    fn = T.set_subtensor if setting else T.inc_subtensor
    verify_grad(lambda x, y: fn(x[index], y) * 1.5, [M, RNG.standard_normal(yshape)], rng=0)


def test_gradient_of_discrete_indices_is_disconnected():
    x = T.matrix("x")
    i = T.lscalar("i")
    out = x[i:].sum()
    gx = T.grad(out, x)
    assert evaluate(gx, {x: M, i: 2}).tolist() == [[0] * 5] * 2 + [[1] * 5] * 2
    assert T.grad(out, i, disconnected_inputs="ignore") is not None


# ---------------------------------------------------------------------------------------------
# hypothesis: random shapes and basic indices against NumPy

@st.composite
def basic_index_case(draw):
    shape = tuple(draw(st.lists(st.integers(0, 5), min_size=0, max_size=4)))
    entries = []
    dim = 0
    used_ellipsis = False
    while dim < len(shape) and draw(st.booleans()):
        kind = draw(st.sampled_from(["int", "slice", "slice", "none", "ellipsis"]))
        if kind == "int" and shape[dim] > 0:
            entries.append(draw(st.integers(-shape[dim], shape[dim] - 1)))
            dim += 1
        elif kind == "none":
            entries.append(None)
        elif kind == "ellipsis" and not used_ellipsis:
            used_ellipsis = True
            entries.append(Ellipsis)
            dim = len(shape)  # the rest is consumed by the ellipsis
        else:
            bound = st.one_of(st.none(), st.integers(-7, 7))
            step = st.one_of(st.none(), st.integers(-3, 3).filter(bool))
            entries.append(slice(draw(bound), draw(bound), draw(step)))
            dim += 1
    return shape, tuple(entries), draw(st.booleans())


@settings(max_examples=60)
@given(basic_index_case())
def test_basic_indexing_hypothesis(infer_shape_ok, case):
    shape, index, flip = case
    value = np.arange(int(np.prod(shape)), dtype="float64").reshape(shape)
    if flip and value.ndim:
        value = value[::-1]
    x = T.TensorType("float64", [False] * len(shape))("x")
    out = x[index]
    expected = value[index]
    got = evaluate(out, {x: value})
    np.testing.assert_array_equal(got, expected)
    check_type(out, expected)
    node = out.owner
    while node is not None and not isinstance(node.op, ops.Subtensor):
        node = node.inputs[0].owner
    if node is not None:
        infer_shape_ok(node.outputs[0], {x: value})
    # symbolic bounds give the same result
    sym_index, givens = [], {x: value}
    for k, e in enumerate(index):
        if isinstance(e, slice):
            parts = []
            for p in (e.start, e.stop, e.step):
                if p is None:
                    parts.append(None)
                else:
                    v = T.lscalar(f"b{k}{len(parts)}")
                    givens[v] = p
                    parts.append(v)
            sym_index.append(slice(*parts))
        else:
            sym_index.append(e)
    sym_out = x[tuple(sym_index)]
    np.testing.assert_array_equal(evaluate(sym_out, givens), expected)
    # inc_subtensor on the same index adds exactly there
    inc = T.inc_subtensor(x[index], 1.0)
    ref = value.copy()
    ref[index] += 1.0
    np.testing.assert_array_equal(evaluate(inc, {x: value}), ref)


@settings(max_examples=30)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=3), st.data())
def test_advanced_indexing_hypothesis(infer_shape_ok, shape, data):
    value = np.arange(int(np.prod(shape)), dtype="float64").reshape(shape)
    entries = []
    for n in shape:
        kind = data.draw(st.sampled_from(["int", "slice", "array", "array"]))
        if kind == "int":
            entries.append(data.draw(st.integers(-n, n - 1)))
        elif kind == "slice":
            entries.append(slice(data.draw(st.integers(-n, n)), None,
                                 data.draw(st.sampled_from([1, -1, 2]))))
        else:
            k = data.draw(st.integers(0, 3))
            entries.append(np.array(data.draw(st.lists(st.integers(-n, n - 1), min_size=k,
                                                       max_size=k)), dtype="int64"))
    if not any(isinstance(e, np.ndarray) for e in entries):
        entries[0] = np.array([0])
    lengths = {len(e) for e in entries if isinstance(e, np.ndarray)}
    if len(lengths) > 1:  # make the arrays broadcast against each other
        entries = [e[:1] if isinstance(e, np.ndarray) and len(e) else e for e in entries]
        if len({len(e) for e in entries if isinstance(e, np.ndarray)}) > 1:
            entries = [np.array([0]) if isinstance(e, np.ndarray) else e for e in entries]
    index = tuple(entries)
    x = T.TensorType("float64", [False] * len(shape))("x")
    out = x[index]
    expected = value[index]
    np.testing.assert_array_equal(evaluate(out, {x: value}), expected)
    check_type(out, expected)
    infer_shape_ok(out, {x: value})
    inc = T.inc_subtensor(x[index], 1.0)
    ref = value.copy()
    np.add.at(ref, index, 1.0)
    np.testing.assert_array_equal(evaluate(inc, {x: value}), ref)


@pytest.mark.parametrize("index", [([0.0, 0], [1, 1]), [0.0, 1.0], (T.fvector(),),
                                   np.array([0.5])])
def test_float_index_arrays_raise_numpys_and_theanos_errors(index):
    # Theano 1.0.5 raises TypeError ("index must be integers") for each; NumPy IndexError
    x = T.dmatrix()
    with pytest.raises(TypeError, match="integer"):
        x[index]
    with pytest.raises(IndexError, match="integer"):
        x[index]
