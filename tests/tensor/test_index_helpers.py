"""Theano's indexing helpers: get_canonical_form_slice against Python's slices (ints and
symbolic values), as_index_variable, make_constant, get_idx_list,
adv_index_broadcastable_pattern, check_advanced_indexing_dimensions, ceil_intdiv."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgraph
import jitgraph.tensor as T
from jitgraph.graph.evaluate import evaluate
from jitgraph.tensor.core.type_other import NoneConst, SliceType

bounds = st.one_of(st.none(), st.integers(-8, 8))


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 6), bounds, bounds, st.sampled_from([None, 1, 2, 3, -1, -2, -3]))
def test_canonical_slice_selects_the_same_entries(length, start, stop, step):
    entries = np.arange(length)
    sl = slice(start, stop, step)
    n, s = T.lscalar("n"), T.lscalar("s")
    symbolic_step = s if step is not None else None
    step_feed = {} if step is None else {s: step}
    for theslice, size, feed in ((sl, length, {}), (sl, n, {n: length}),
                                 (slice(start, stop, symbolic_step), n,
                                  {n: length, **step_feed})):
        canonical, direction = T.get_canonical_form_slice(theslice, size)
        parts = [canonical.start, canonical.stop, canonical.step, direction]
        symbolic = [p for p in parts if isinstance(p, jitgraph.Variable)]
        computed = iter(evaluate(symbolic, feed) if symbolic else [])
        values = [int(next(computed)) if isinstance(p, jitgraph.Variable) else p
                  for p in parts]
        assert values[2] > 0
        picked = entries[values[0]:values[1]:values[2]][::values[3]]
        np.testing.assert_array_equal(picked, entries[sl])


def test_canonical_int_index_and_errors():
    assert T.get_canonical_form_slice(-3, 10) == (7, 1)
    n = T.lscalar("n")
    index, direction = T.get_canonical_form_slice(-3, n)
    assert direction == 1 and evaluate(index, {n: 10}) == 7
    with pytest.raises(ValueError, match="zero"):
        T.get_canonical_form_slice(slice(0, 3, 0), 5)
    with pytest.raises(TypeError, match="integer"):
        T.get_canonical_form_slice(1.5, 10)


def test_index_variables_and_constants():
    assert T.as_index_variable(None) is NoneConst
    assert isinstance(T.as_index_variable(slice(1, 2)).type, SliceType)
    iv = T.lvector()
    assert T.as_index_variable(iv) is iv
    assert T.as_index_variable(T.vector() > 0).dtype == "bool"
    with pytest.raises(TypeError, match="integers"):
        T.as_index_variable(T.vector())
    made = T.make_constant([1, slice(2, None, 1), "x"])
    assert made[0].data == 1 and made[0].dtype == "int64"
    assert made[1].start.data == 2 and made[1].stop is None and made[2] == "x"


def test_get_idx_list():
    x, n = T.matrix("x"), T.lscalar("n")
    sub = x[1:n, 2]
    idx = T.get_idx_list(sub.owner.inputs, sub.owner.op.idx_list)
    assert isinstance(idx[0], slice) and idx[0].stop is n and idx[0].step is None
    assert int(idx[1].data) == 2
    assert T.get_idx_list(sub.owner.inputs, sub.owner.op.idx_list, get_count=True) == 3
    adv = x[T.lvector("i"), ..., None]
    assert T.get_idx_list(adv.owner.inputs, adv.owner.op.idx_list)[1:] == (Ellipsis, None)
    with pytest.raises(ValueError, match="needs 3 index inputs"):
        T.get_idx_list([x], sub.owner.op.idx_list)


def test_adv_index_broadcastable_pattern():
    x = T.matrix()
    assert T.adv_index_broadcastable_pattern(x, [T.lvector(), slice(None)]) == (False, False)
    assert T.adv_index_broadcastable_pattern(x, (slice(None), T.lcol())) == (False, False, True)
    # a row indexed by (vector, newaxis): (len(vector), 1, n)
    assert T.adv_index_broadcastable_pattern(T.row(), (T.lvector(), None)) == (False, True,
                                                                                False)


def test_check_advanced_indexing_dimensions():
    value = np.zeros((3, 4))
    assert T.check_advanced_indexing_dimensions(value, [np.ones(3, bool), 1]) is None
    with pytest.raises(IndexError, match="axis 0: the axis has length 3 but the boolean index "
                                         "has length 2"):
        T.check_advanced_indexing_dimensions(value, [np.ones(2, bool)])
    with pytest.raises(IndexError, match="axis 1"):
        T.check_advanced_indexing_dimensions(value, [None, slice(None), np.ones(3, bool)])
    # symbolic: only what is known when the graph is built is checked
    assert T.check_advanced_indexing_dimensions(T.matrix(), [T.lvector() > 0]) is None
    with pytest.raises(IndexError):
        T.check_advanced_indexing_dimensions(T.row(), [T.constant(np.ones(2, bool))])


def test_ceil_intdiv():
    n, d = T.lvector("n"), T.lvector("d")
    a = np.repeat(np.arange(-20, 21), 14)
    b = np.tile(np.array([-7, -6, -5, -4, -3, -2, -1, 1, 2, 3, 4, 5, 6, 7]), 41)
    np.testing.assert_array_equal(jitgraph.function([n, d], T.ceil_intdiv(n, d))(a, b),
                                  -((-a) // b))
    assert T.ceil_intdiv(T.ivector(), 2).dtype == "int32"  # the upcast of the operands
