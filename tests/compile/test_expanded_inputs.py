"""``f.maker.expanded_inputs``: Theano's list of a function's explicit inputs followed by its
shared variables, whose containers a caller may write (Theano's scan tests reset a random
stream that way before each numeric-gradient evaluation)."""

import numpy as np

import jitgraph
import jitgraph.tensor as T
from jitgraph.tensor.shared_randomstreams import RandomStreams


def test_explicit_inputs_then_shared_containers():
    x = T.dvector("x")
    w = jitgraph.shared(np.array([1.0, 2.0]), name="w")
    f = jitgraph.function([x], (x * w).sum())
    expanded = f.maker.expanded_inputs
    assert [i.variable for i in expanded] == [x, w]
    assert expanded[0].value is None and not expanded[0].shared
    assert expanded[1].shared and expanded[1].value is w.container
    np.testing.assert_allclose(f([1.0, 1.0]), 3.0)
    expanded[1].value.data = np.array([10.0, 20.0])  # written through the container...
    np.testing.assert_allclose(f([1.0, 1.0]), 30.0)  # ...is what the next call reads
    np.testing.assert_allclose(w.get_value(), [10.0, 20.0])


def test_a_reset_random_stream_repeats_its_draws():
    srng = RandomStreams(seed=3)
    draw = srng.uniform((3,))
    f = jitgraph.function([], draw)
    state = [i for i in f.maker.expanded_inputs
             if i.value is not None and isinstance(i.value.data, np.random.RandomState)]
    assert len(state) == 1
    state[0].value.data = np.random.RandomState(123)
    first = f()
    state[0].value.data = np.random.RandomState(123)
    np.testing.assert_array_equal(f(), first)
