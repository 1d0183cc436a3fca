"""``theano.tensor.opt.Assert``: a run-time check that passes its value through (the
behaviour recorded from Theano 1.0.5 for the same program)."""

import numpy as np
import pytest

import jitgraph as theano
import jitgraph.tensor as T
from jitgraph.tensor.opt import Assert, assert_op


def checked():
    x = T.vector("x")
    return x, Assert("x too big")(x, T.all(x < 5), x.sum() > 0)


def test_passes_the_value_when_the_conditions_hold_and_raises_otherwise():
    x, a = checked()
    assert str(a.owner.op) == "Assert{msg='x too big'}"
    assert str(assert_op) == "Assert{msg='Theano Assert failed!'}"
    assert a.owner.op.view_map == {0: [0]} and a.type == x.type
    f = theano.function([x], a * 2, mode=theano.Mode(optimizer=None))
    np.testing.assert_array_equal(f(np.array([1.0, 2.0])), [2.0, 4.0])
    with pytest.raises(AssertionError, match="x too big"):
        f(np.array([1.0, 7.0]))


def test_gradient_and_shape_go_through_the_value():
    x, a = checked()
    g = theano.function([x], theano.grad(a.sum(), x))
    np.testing.assert_array_equal(g(np.array([1.0, 2.0])), [1.0, 1.0])
    np.testing.assert_array_equal(theano.function([x], a.shape)(np.array([1.0, 2.0, 3.0])), [3])


def test_a_condition_must_be_a_scalar():
    x = T.vector("x")
    with pytest.raises(TypeError, match="condition must be a 0-d tensor"):
        Assert()(x, x > 0)


def assert_nodes(f):
    return [n for n in f.maker.fgraph.toposort() if isinstance(n.op, Assert)]


def test_conditions_known_true_are_dropped_and_false_ones_kept():
    # Theano 1.0.5 keeps no Assert for assert_op(x, 1), one with 2 inputs for
    # assert_op(x, y, 1), one with 3 inputs for assert_op(x, y, 0) (which then raises)
    x, y = T.scalar(), T.scalar()
    f = theano.function([x], assert_op(x, 1))
    assert f(5.0) == 5.0 and not assert_nodes(f)
    f = theano.function([x, y], assert_op(x, y, 1))
    assert f(5.0, 1.0) == 5.0 and [len(n.inputs) for n in assert_nodes(f)] == [2]
    f = theano.function([x, y], assert_op(x, y, 0))
    assert [len(n.inputs) for n in assert_nodes(f)] == [3]
    with pytest.raises(AssertionError):
        f(1.0, 1.0)


def test_unsafe_rewrites_remove_every_assert():
    x, y = T.scalar(), T.scalar()
    for mode in [theano.compile.mode.get_default_mode().including("local_remove_all_assert"),
                 theano.Mode(optimizer="unsafe")]:
        f = theano.function([x, y], assert_op(x, y), mode=mode)
        assert f(1.0, 0.0) == 1.0 and not assert_nodes(f)
    f = theano.function([x], assert_op(x, T.eq(x, 0).any()))
    assert len(assert_nodes(f)) == 1
