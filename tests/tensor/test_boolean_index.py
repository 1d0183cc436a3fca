"""Boolean-mask indexing under Theano's names: x[mask] and set/inc_subtensor on it against
NumPy (compiled and perform, hypothesis), the op classes and their Theano call forms, the
abstract bases, gradients, R_op and errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgraph
import jitgraph.tensor as T
from jitgraph.graph.evaluate import evaluate
from jitgraph.tensor.core.gradient import verify_grad
from jitgraph.tensor.core.type_other import NoneConst, make_slice

RNG = np.random.RandomState(19)
INDEXES = ["mask", "rows", "cols_slice", "int_then_cols", "array_then_cols", "ellipsis_cols",
           "mask_newaxis"]


def _index(kind, m2, mrow, mcol):
    """The same index for NumPy values and for variables (m2: 2-d mask, mrow/mcol: 1-d)."""
    return {"mask": (m2,), "rows": (mrow,), "cols_slice": (slice(None), mcol),
            "int_then_cols": (1, mcol), "array_then_cols": (np.array([1]), mcol),
            "ellipsis_cols": (Ellipsis, mcol), "mask_newaxis": (m2, None)}[kind]


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(INDEXES), st.integers(0, 2 ** 12 - 1), st.booleans())
def test_read_set_inc_match_numpy(kind, bits, inc):
    value = RNG.standard_normal((3, 4))
    m2_value = np.array([(bits >> k) & 1 for k in range(12)], bool).reshape(3, 4)
    mrow_value, mcol_value = m2_value[:, 0], m2_value[0]
    x, m2, mrow, mcol = T.matrix("x"), T.bmatrix("m2") > 0, T.bvector("r") > 0, \
        T.bvector("c") > 0
    inputs = [x, m2.owner.inputs[0], mrow.owner.inputs[0], mcol.owner.inputs[0]]
    args = [value, m2_value.astype("int8"), mrow_value.astype("int8"),
            mcol_value.astype("int8")]
    index = _index(kind, m2, mrow, mcol)
    np_index = _index(kind, m2_value, mrow_value, mcol_value)
    picked = x[index]
    assert isinstance(picked.owner.op, T.AdvancedBooleanSubtensor)
    update = (T.inc_subtensor if inc else T.set_subtensor)(picked, 2.5)
    assert isinstance(update.owner.op, T.AdvancedBooleanIncSubtensor)
    compiled = jitgraph.function(inputs, [picked, update], on_unused_input="ignore")(*args)
    reference = evaluate([picked, update], dict(zip(inputs, args)))
    want_update = value.copy()
    if inc:
        want_update[np_index] += 2.5
    else:
        want_update[np_index] = 2.5
    for got in (compiled, reference):
        np.testing.assert_array_equal(got[0], value[np_index])
        np.testing.assert_array_equal(got[1], want_update)


def test_theano_call_forms():
    x, v = T.matrix("x"), T.vector("v")
    xv = RNG.standard_normal((3, 4))
    vv = np.array([1.0, -1.0, 2.0, -2.0])
    feed = {x: xv, v: vv}
    forms = {
        "op": T.AdvancedBooleanSubtensor()(x, x > 0),
        "fn": T.advanced_boolean_subtensor(x, make_slice(None, None, None), v > 0),
        "py_slice": T.advanced_boolean_subtensor(x, slice(None), v > 0),
        "none": T.advanced_boolean_subtensor(x, v[:3] > 0, NoneConst),
    }
    np.testing.assert_array_equal(evaluate(forms["op"], feed), xv[xv > 0])
    np.testing.assert_array_equal(evaluate(forms["fn"], feed), xv[:, vv > 0])
    np.testing.assert_array_equal(evaluate(forms["py_slice"], feed), xv[:, vv > 0])
    np.testing.assert_array_equal(evaluate(forms["none"], feed), xv[vv[:3] > 0, None])
    one = T.constant(1.0)
    want = xv.copy()
    want[xv > 0] += 1
    np.testing.assert_array_equal(
        evaluate(T.advanced_boolean_inc_subtensor(x, one, x > 0), feed), want)
    np.testing.assert_array_equal(
        evaluate(T.AdvancedBooleanIncSubtensor()(x, one, x > 0), feed), want)
    want[xv > 0] = 1
    np.testing.assert_array_equal(
        evaluate(T.advanced_boolean_set_subtensor(x, one, x > 0), feed), want)
    op = T.AdvancedBooleanIncSubtensor(True, True)
    assert op.inplace and op.set_instead_of_inc
    assert str(T.AdvancedBooleanIncSubtensor(set_instead_of_inc=True)) == \
        "AdvancedBooleanIncSubtensor{inplace=False,  set_instead_of_inc=True}"
    assert str(T.AdvancedBooleanSubtensor()) == "AdvancedBooleanSubtensor"


def test_integer_advanced_functions():
    x, i = T.matrix("x"), T.lvector("i")
    xv, iv = RNG.standard_normal((3, 4)), np.array([0, 0, 2])
    np.testing.assert_array_equal(evaluate(T.advanced_subtensor(x, i, i), {x: xv, i: iv}),
                                  xv[iv, iv])
    np.testing.assert_array_equal(evaluate(T.advanced_subtensor(x, i), {x: xv, i: iv}),
                                  xv[iv])
    assert isinstance(T.advanced_subtensor(x, i).owner.op, T.AdvancedSubtensor)
    want = xv.copy()
    np.add.at(want, (iv, slice(1, None)), 1.0)
    np.testing.assert_array_equal(evaluate(T.advanced_inc_subtensor(x, T.constant(1.0), i,
                                                                    slice(1, None)),
                                           {x: xv, i: iv}), want)
    want = xv.copy()
    want[iv, iv] = 5.0
    np.testing.assert_array_equal(evaluate(T.advanced_set_subtensor(x, T.constant(5.0), i, i),
                                           {x: xv, i: iv}), want)
    with pytest.raises(TypeError, match="boolean"):
        T.advanced_subtensor(x, x > 0)
    with pytest.raises(TypeError, match="boolean"):
        T.advanced_set_subtensor(x, T.constant(1.0), x > 0)


def test_bases_and_errors_classes():
    x = T.matrix("x")
    assert isinstance(x[x > 0].owner.op, T.BaseAdvancedSubtensor)
    assert isinstance(x[[0, 1], [1, 0]].owner.op, T.BaseAdvancedSubtensor)
    assert not isinstance(x[1:].owner.op, T.BaseAdvancedSubtensor)
    assert isinstance(T.set_subtensor(x[x > 0], 1.0).owner.op, T.BaseAdvancedIncSubtensor)
    assert isinstance(T.inc_subtensor(x[[0, 1], [1, 0]], 1.0).owner.op,
                      T.BaseAdvancedIncSubtensor)
    for cls in (T.AdvancedIndexingError, T.AdvancedBooleanIndexingError):
        assert issubclass(cls, TypeError)
    assert not issubclass(T.AdvancedBooleanIndexingError, T.AdvancedIndexingError)
    with pytest.raises(NotImplementedError, match="abstract"):
        T.BaseAdvancedSubtensor()(x, x > 0)


def test_check_and_reject_bool():
    for bad in (True, np.array([True, False]), [True, False], T.vector() > 0):
        with pytest.raises(TypeError, match="boolean"):
            T.check_and_reject_bool(bad)
    for fine in (1, slice(1, 2), T.lvector(), [0, 1], None):
        assert T.check_and_reject_bool(fine) is None


def test_gradients_rop_and_shape():
    mask = np.array([[True, False, True, False], [False, True, True, True],
                     [False, False, False, True]])
    m = T.constant(mask)
    verify_grad(lambda x: x[m] ** 2, [RNG.standard_normal((3, 4))], rng=RNG)
    verify_grad(lambda x, y: T.set_subtensor(x[m], y), [RNG.standard_normal((3, 4)),
                                                         RNG.standard_normal(6)], rng=RNG)
    verify_grad(lambda x, y: T.inc_subtensor(x[:, m[1]], y),
                [RNG.standard_normal((3, 4)), RNG.standard_normal((3, 3))], rng=RNG)
    x, v = T.matrix("x"), T.matrix("v")
    xv, vv = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))
    np.testing.assert_array_equal(evaluate(T.Rop(x[m], x, v), {x: xv, v: vv}), vv[mask])
    np.testing.assert_array_equal(evaluate(x[m].shape, {x: xv}), [6])
    with pytest.raises(IndexError, match="boolean index did not match"):
        jitgraph.function([x], x[T.constant(np.ones(2, bool))])(xv)
