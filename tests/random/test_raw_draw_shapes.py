"""Raw RandomState draws without a size: the parameters' broadcast shape is the sample's (a
given ``ndim`` is not used, as in Theano 1.0.5), and shape inference gives it without running
the draw; ``choice`` with a plain false ``p`` draws uniformly. Values recorded from Theano 1.0.5
(``/work/shared/tools/theano-oracle``) with the same seeds."""

from __future__ import annotations

import numpy as np
import pytest

import jitgraph.tensor as T
from jitgraph import In, function
from jitgraph.random.raw import choice, uniform
from jitgraph.random.raw_op import RandomFunction
from jitgraph.random.random_state import random_state_type

LOW = T.TensorType("float64", (False, True, True))
HIGH = T.TensorType("float64", (True, True, True, False))


def _draw(out, post, inputs, *values, seed=3):
    rng = post.owner.inputs[0]
    f = function(list(inputs) + [In(rng, value=np.random.RandomState(seed), update=post,
                                     mutable=True)], [out, out.shape])
    return f(*values)


def test_no_size_broadcasts_the_parameters():
    rng = random_state_type()
    low, high = LOW(), HIGH()
    post, out = uniform(rng, size=None, ndim=2, low=low, high=high)
    assert out.broadcastable == (True, False, True, False)
    value, shape = _draw(out, post, [low, high], [[[3]], [[4]], [[-5]]], [[[[5, 8]]]])
    assert shape.tolist() == [1, 3, 1, 2]
    np.testing.assert_allclose(value, [[[[4.1016, 6.5407]], [[4.2909, 6.0433]],
                                        [[3.9295, 6.6518]]]], atol=1e-4)


def test_shape_is_inferred_without_the_draw():
    rng = random_state_type()
    low, high = LOW(), HIGH()
    _, out = uniform(rng, size=None, low=low, high=high)
    f = function([rng, low, high], out.shape)
    assert not any(isinstance(n.op, RandomFunction) for n in f.maker.fgraph.apply_nodes)
    assert f(np.random.RandomState(0), np.zeros((3, 1, 1)), np.ones((1, 1, 1, 2))).tolist() \
        == [1, 3, 1, 2]


def test_no_size_and_scalar_parameters_draw_one_number():
    _, out = uniform(random_state_type(), size=None, ndim=2)
    assert out.ndim == 0


def test_parameters_that_do_not_broadcast_are_refused():
    rng = random_state_type()
    low, high = T.dvectors("low", "high")
    post, out = uniform(rng, size=None, low=low, high=high)
    with pytest.raises(ValueError, match="lengths along dimension 0 differ"):
        _draw(out, post, [low, high], np.zeros(1), np.ones(3))


def test_choice_with_a_false_p_is_uniform():
    rng = random_state_type()
    post, out = choice(rng, (2, 3), 10, 1, 0)
    value, _ = _draw(out, post, [], seed=5)
    np.testing.assert_array_equal(value, np.random.RandomState(5).choice(10, (2, 3), True, None))


def test_draws_that_add_dims_take_no_broadcast_check():
    """A multinomial's pvals carry the outcomes as an extra dim: one row per n, no size."""
    from jitgraph.random.raw import multinomial

    rng = random_state_type()
    n, pvals = T.lvector("n"), T.dmatrix("pvals")
    post, out = multinomial(rng, n=n, pvals=pvals)
    f = function([rng, n, pvals], out)
    rows = np.array([[0.1, 0.9], [0.2, 0.8], [0.3, 0.7]])
    expected = np.random.RandomState(4)
    np.testing.assert_array_equal(
        f(np.random.RandomState(4), [1, 2, 3], rows),
        [expected.multinomial(n=k, pvals=p) for k, p in zip([1, 2, 3], rows)])
