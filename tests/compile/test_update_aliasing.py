"""No two pieces of state share a buffer after an update, and no state shares the caller's.

An update's value used to be stored as it was computed. When it was another shared variable's
array (``A <- B``), a view of one (``A <- B[::-1]``), a constant's data, the array a caller
passed, or the same value as another update, two states (or a state and the caller's array, or a
state and a constant) held one buffer, and a later in-place update of one silently changed the
other: a constant of a compiled function changed value. A borrowed output that views a
non-borrowed input was likewise returned as a view of the caller's array.

Each case runs the same calls under Theano 1.0.5 (``/work/shared/tools/theano-oracle``); the
expected values are its results. Every case failed before the fix except two guards:
swapped states keep their arrays (no needless copy) and an output viewing an update's value.
"""

from __future__ import annotations

import numpy as np
import pytest

import jitgraph.tensor as T
from jitgraph import In, Out, function, shared


def _increment(var):
    """A function adding 1 to ``var`` (computed in place into its buffer)."""
    return function([], [], updates=[(var, var + 1)])


def test_update_with_another_shared_variable():
    a, b = shared(np.zeros(3) + .5, "a"), shared(np.zeros(3) - .5, "b")
    function([], [], updates=[(a, b)])()
    _increment(b)()
    np.testing.assert_array_equal(a.get_value(), [-0.5] * 3)
    np.testing.assert_array_equal(b.get_value(), [0.5] * 3)


def test_update_with_a_view_of_another_shared_variable():
    a, b = shared(np.zeros(3), "a"), shared(np.arange(3.), "b")
    function([], [], updates=[(a, b[::-1])])()
    _increment(b)()
    np.testing.assert_array_equal(a.get_value(), [2.0, 1.0, 0.0])


def test_update_with_the_callers_array():
    a, b = shared(np.zeros(3) + .5, "a"), shared(np.zeros(3) - .5, "b")
    c = T.dvector("c")
    z = np.zeros(3)
    function([c], [], updates=[(a, b), (b, c)])(z)
    z[0] = 7.0
    np.testing.assert_array_equal(a.get_value(), [-0.5] * 3)
    np.testing.assert_array_equal(b.get_value(), [0.0] * 3)
    assert not np.may_share_memory(a.get_value(borrow=True), b.get_value(borrow=True))


def test_update_with_a_constant_leaves_the_constant_alone():
    a = shared(np.zeros(3), "a")
    set_a = function([], [], updates=[(a, T.constant(np.array([1., 2., 3.])))])
    increment = _increment(a)
    set_a()
    increment()
    set_a()
    np.testing.assert_array_equal(a.get_value(), [1.0, 2.0, 3.0])


@pytest.mark.parametrize("explicit", [False, True], ids=["generated_call", "generic_call"])
def test_two_updates_with_one_value(explicit):
    a, b = shared(np.zeros(3), "a"), shared(np.zeros(3), "b")
    x = T.dvector("x")
    f = function([x], [], updates=[(a, x * 2), (b, x * 2)])
    f(x=np.ones(3)) if explicit else f(np.ones(3))
    _increment(b)()
    np.testing.assert_array_equal(a.get_value(), [2.0] * 3)
    np.testing.assert_array_equal(b.get_value(), [3.0] * 3)


def test_swapped_states_keep_their_arrays():
    """``A <- B, B <- A`` needs no copy: each old array goes to the other state."""
    old_a, old_b = np.zeros(2) + .5, np.zeros(2) - .5
    a, b = shared(old_a, "a", borrow=True), shared(old_b, "b", borrow=True)
    function([], [], updates=[(a, b), (b, a)])()
    assert a.get_value(borrow=True) is old_b and b.get_value(borrow=True) is old_a


def test_input_update_with_the_callers_array():
    s, y = T.dvectors("s", "y")
    f = function([In(s, value=np.zeros(3), update=y), y], s + 0)
    given = np.ones(3)
    f(y=given)
    given[0] = 9.0
    np.testing.assert_array_equal(f(y=np.zeros(3)), [1.0, 1.0, 1.0])


def test_output_view_of_an_update_is_a_copy():
    a = shared(np.arange(3.), "a")
    doubled = a * 2
    out = function([], doubled[::-1], updates=[(a, doubled)])()
    out[0] = -1.0
    np.testing.assert_array_equal(a.get_value(), [0.0, 2.0, 4.0])


def test_borrowed_output_viewing_an_unborrowed_input_is_a_copy():
    a = T.dmatrix("a")
    given = np.arange(6.).reshape(2, 3)
    row = function([In(a, borrow=False)], Out(a[0, :], borrow=True))(given)
    row[1] = 100.0
    np.testing.assert_array_equal(given, [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
