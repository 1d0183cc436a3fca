"""Jacobians through ``set_subtensor``/``inc_subtensor`` computed in a scan step, and the native
loop's ``IncSubtensor``.

The native loop read an ``IncSubtensor``'s index entries from its inputs starting at the value
``y`` instead of after it: with a constant ``y`` a constant slice bound was read from ``y``
(``set_subtensor(g[:2], 0.)`` set ``g[:0]``, nothing). The Jacobian of
``set_subtensor(x[:2], 0.)`` written as a scan of ``grad(y[i], x)`` (and ``jacobian``, which
builds that scan) then had identity rows where Theano has zeros: a silent wrong gradient.
Expected values were recorded by running the same programs under Theano 1.0.5
(``/work/shared/tools/theano-oracle``, ``ORACLE_PY=1``).
"""

from __future__ import annotations

import numpy as np
import pytest

import jitgraph as theano
import jitgraph.tensor as T
from jitgraph.gradient import jacobian
from jitgraph.scan import Scan

X = np.arange(5.0)
_ = 0.0
# Theano 1.0.5's Jacobians d y / d x at x = arange(5.)
JACOBIANS = {
    "set_subtensor": (lambda x: T.set_subtensor(x[:2], 0.0),
                      [[_, _, _, _, _], [_, _, _, _, _], [_, _, 1, _, _], [_, _, _, 1, _],
                       [_, _, _, _, 1]]),
    "inc_subtensor": (lambda x: T.inc_subtensor(x[:2], x[3:5] * 2.0),
                      [[1, _, _, 2, _], [_, 1, _, _, 2], [_, _, 1, _, _], [_, _, _, 1, _],
                       [_, _, _, _, 1]]),
    "advanced_set_subtensor": (lambda x: T.set_subtensor(x[[0, 2]], 0.0),
                               [[_, _, _, _, _], [_, 1, _, _, _], [_, _, _, _, _],
                                [_, _, _, 1, _], [_, _, _, _, 1]]),
    "set_subtensor_of_squares": (lambda x: T.set_subtensor(x[1:3], x[1:3] ** 2),
                                 [[1, _, _, _, _], [_, 2, _, _, _], [_, _, 4, _, _],
                                  [_, _, _, 1, _], [_, _, _, _, 1]]),
}


def _scan_jacobian(y, x):
    rows, _ = theano.scan(lambda i, y, x: T.grad(y[i], x), sequences=T.arange(y.shape[0]),
                          non_sequences=[y, x])
    return rows


@pytest.mark.parametrize("name", sorted(JACOBIANS))
def test_jacobian_through_subtensor_updates(name):
    make, expected = JACOBIANS[name]
    x = T.dvector("x")
    y = make(x)
    by_scan, by_jacobian = theano.function([x], [_scan_jacobian(y, x), jacobian(y, x)])(X)
    np.testing.assert_array_equal(by_scan, expected)
    np.testing.assert_array_equal(by_jacobian, expected)


def _native_loop_count(fn):
    prog = fn._program
    return sum(1 for node, lw in zip(prog.order, prog.lowered)
               if isinstance(node.op, Scan) and lw.kind == "Numba")


# steps with a constant value written into a slice with constant bounds (Theano 1.0.5's results
# at x = arange(4.))
STEPS = {
    "inc_int_then_set_slice": (lambda i, z: T.set_subtensor(T.inc_subtensor(z[i], 1.0)[:2], 0.0),
                               [[0, 0, 2, 3], [0, 0, 2, 3], [0, 0, 3, 3], [0, 0, 2, 4]]),
    "set_slice_const": (lambda i, z: T.set_subtensor(z[1:3], 5.0) * i,
                        [[0, 0, 0, 0], [0, 5, 5, 3], [0, 10, 10, 6], [0, 15, 15, 9]]),
    "inc_slice_const": (lambda i, z: T.inc_subtensor(z[1:3], 2.0) + i,
                        [[0, 3, 4, 3], [1, 4, 5, 4], [2, 5, 6, 5], [3, 6, 7, 6]]),
    "inc_negative_slice_const": (lambda i, z: T.inc_subtensor(z[-2:], 1.5) * i,
                                 [[0, 0, 0, 0], [0, 1, 3.5, 4.5], [0, 2, 7, 9],
                                  [0, 3, 10.5, 13.5]]),
}


@pytest.mark.parametrize("name", sorted(STEPS))
def test_native_loop_writes_constants_into_constant_slices(name):
    step, expected = STEPS[name]
    x = T.dvector("x")
    rows, _ = theano.scan(step, sequences=T.arange(x.shape[0]), non_sequences=[x])
    f = theano.function([x], rows)
    assert _native_loop_count(f) == 1
    np.testing.assert_array_equal(f(np.arange(4.0)), expected)


def test_native_loop_increments_a_row_slice_of_a_matrix():
    M = T.dmatrix("M")
    rows, _ = theano.scan(lambda i, Z: T.inc_subtensor(Z[i, 1:3], 4.0),
                          sequences=T.arange(M.shape[0]), non_sequences=[M])
    f = theano.function([M], rows)
    assert _native_loop_count(f) == 1  # the path that read the index from the wrong inputs
    np.testing.assert_array_equal(
        f(np.arange(12.0).reshape(3, 4)),
        [[[0, 5, 6, 3], [4, 5, 6, 7], [8, 9, 10, 11]],
         [[0, 1, 2, 3], [4, 9, 10, 7], [8, 9, 10, 11]],
         [[0, 1, 2, 3], [4, 5, 6, 7], [8, 13, 14, 11]]])
