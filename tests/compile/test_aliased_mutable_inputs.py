"""The same array (or views of one buffer) passed to several inputs of a function that may
overwrite one of them (``In(..., mutable=True)``): each input sharing memory with an earlier one
gets a copy when either may be overwritten, as Theano 1.0.5 does at call time, so an in-place
op never overwrites a buffer another input still reads.

Before the fix ``dot(x*2, m1) + dot(y*3, m2)`` with ``x is y`` returned 8 where Theano returns
5: ``x*2`` was computed in place into the buffer ``y*3`` then read. Expected values (results and
what is left in the caller's arrays) were recorded from Theano 1.0.5 running the same calls
(``/work/shared/tools/theano-oracle``).
"""

from __future__ import annotations

import numpy as np
import pytest

import jitgraph.tensor as T
from jitgraph import In, function

x, y = T.dvectors("x", "y")
m1, m2 = T.dmatrices("m1", "m2")
OUT = T.dot(x * 2, m1) + T.dot(y * 3, m2)

# (which of x, y, m1, m2 are mutable, the arguments from v = ones(5) and m = identity(5),
#  v[:2] after the call: Theano 1.0.5's; the result is [5.0] * 5 in every case)
CASES = {
    "all_mutable_x_is_y_m1_is_m2": ((True,) * 4, lambda v, m: (v, v, m, m), [2.0, 2.0]),
    "x_y_mutable_x_is_y": ((True, True, False, False), lambda v, m: (v, v, m, m.copy()),
                           [2.0, 2.0]),
    # only the first of the aliased pair is mutable: it is overwritten, y reads a copy
    "only_x_mutable_x_is_y": ((True, False, False, False), lambda v, m: (v, v, m, m.copy()),
                              [2.0, 2.0]),
    "only_m1_mutable_m1_is_m2": ((False, False, True, False), lambda v, m: (v, v.copy(), m, m),
                                [1.0, 1.0]),
    "all_mutable_distinct": ((True,) * 4, lambda v, m: (v, v.copy(), m, m.copy()), [2.0, 2.0]),
    "y_is_view_of_x": ((True,) * 4, lambda v, m: (v, v[::1], m, m.copy()), [2.0, 2.0]),
    "m2_is_transposed_view_of_m1": ((True,) * 4, lambda v, m: (v, v.copy(), m, m.T),
                                    [2.0, 2.0]),
    "m1_mutable_m2_transposed_view": ((False, False, True, False),
                                      lambda v, m: (v, v.copy(), m, m.T), [1.0, 1.0]),
}


@pytest.mark.parametrize("keywords", [False, True], ids=["generated_call", "generic_call"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_aliased_inputs_of_dot_program(name, keywords):
    mutable, make_args, v_after = CASES[name]
    f = function([In(var, mutable=mut) for var, mut in zip([x, y, m1, m2], mutable)], OUT)
    v, m = np.ones(5), np.identity(5)
    args = make_args(v, m)
    result = f(**dict(zip(["x", "y", "m1", "m2"], args))) if keywords else f(*args)
    np.testing.assert_array_equal(result, [5.0] * 5)
    np.testing.assert_array_equal(v[:2], v_after)
    np.testing.assert_array_equal(np.diag(m), np.ones(5))


def test_aliased_elementwise_inputs():
    a, b = T.dvectors("a", "b")
    outputs = [(a + 1) * 2, b * 3 + a]
    both = function([In(a, mutable=True), In(b, mutable=True)], outputs)
    v = np.arange(3.0)
    assert [r.tolist() for r in both(v, v)] == [[2.0, 4.0, 6.0], [0.0, 4.0, 8.0]]
    assert v.tolist() == [2.0, 4.0, 6.0]
    one = function([In(a, mutable=True), b], outputs)
    v = np.arange(3.0)
    assert [r.tolist() for r in one(v, v)] == [[2.0, 4.0, 6.0], [0.0, 4.0, 8.0]]
    assert v.tolist() == [2.0, 4.0, 6.0]
    v = np.arange(6.0)  # overlapping slices of one buffer
    assert [r.tolist() for r in both(v[:3], v[1:4])] == [[2.0, 4.0, 6.0], [3.0, 7.0, 11.0]]
    assert v.tolist() == [2.0, 4.0, 6.0, 3.0, 4.0, 5.0]


def test_only_functions_with_a_mutable_input_check_aliasing():
    a = T.dvector("a")
    plain = function([a], a * 2)
    assert "_fc_unalias" not in plain._call.__globals__  # the ordinary call path is unchanged
    mutable = function([In(a, mutable=True)], a * 2)
    assert "_fc_unalias" in mutable._call.__globals__
    mutable.trust_input = True  # trusted inputs are stored as they are, as in Theano
    assert "_fc_unalias" not in mutable._call.__globals__
