"""``theano.scalar.basic.InRange(openlow, openhi)``: whether a value lies between two bounds."""

from __future__ import annotations

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph.scalar import InRange
from jitgraph.scalar.basic import InRange as InRangeFromBasic

POINTS = [0, 1, 2, 5, 6]


# Recorded from Theano 1.0.5 in mode FAST_COMPILE. (Its FAST_RUN answered the open range's
# values for every choice of bounds: its InRange ops compare equal whatever their bounds, so
# its graph merging mixes them up; jitgraph's four ops are distinct.)
@pytest.mark.parametrize("openlow, openhi, expected", [
    (True, True, [False, False, True, False, False]),
    (False, False, [False, True, True, True, False]),
    (True, False, [False, False, True, True, False]),
    (False, True, [False, True, True, False, False]),
])
def test_values(openlow, openhi, expected):
    x, lo, hi = T.fscalar("x"), T.fscalar("lo"), T.fscalar("hi")
    f = jitgraph.function([x, lo, hi], InRange(openlow, openhi)(x, lo, hi))
    assert [bool(f(v, 1, 5)) for v in POINTS] == expected


@pytest.mark.parametrize("bounds", [(True, True), (False, False)])
def test_gradient_is_zero_for_every_input(bounds):
    # Theano 1.0.5: float32 zeros for x, low and high, even at a bound; float64 (floatX) for
    # an integer input
    x, lo, hi = T.fscalar("x"), T.fscalar("lo"), T.fscalar("hi")
    grads = jitgraph.grad(InRange(*bounds)(x, lo, hi), [x, lo, hi])
    assert [g.dtype for g in grads] == ["float32"] * 3
    f = jitgraph.function([x, lo, hi], grads)
    for point in (0, 1, 2, 5, 6):
        assert [float(g) for g in f(point, 1, 5)] == [0.0, 0.0, 0.0]
    i = T.iscalar("i")
    assert jitgraph.grad(InRange(*bounds)(i, lo, hi), i).dtype == "float64"


def test_ops_are_instances_and_reachable_from_scalar_basic():
    assert InRangeFromBasic is InRange
    assert isinstance(InRange(True, False), InRange)
    assert InRange(True, True) == InRange(True, True)
    assert InRange(True, True) != InRange(False, False)
    assert not isinstance(jitgraph.scalar.add, InRange)
