"""shared() of a value no tensor constructor takes holds it as a Generic shared variable, as
Theano 1.0.5 does (outputs printed by the oracle for the same calls)."""

from __future__ import annotations

import pytest

import jitgraph
import jitgraph.tensor as T


@pytest.mark.parametrize("value", [[1, 2, 3], {"a": 1}, "text", None, (1, 2), object])
def test_any_python_object_is_a_generic_shared_variable(value):
    s = jitgraph.shared(value, name="g")
    # Theano 1.0.5: SharedVariable Generic <value>
    assert type(s).__name__ == "SharedVariable" and str(s.type) == "Generic"
    assert s.get_value() == value


def test_generic_value_is_copied_and_updated():
    s = jitgraph.shared([1, 2, 3])
    s.get_value().append(4)
    assert s.get_value() == [1, 2, 3]
    s.set_value([5])
    x = T.dscalar()
    f = jitgraph.function([x], x * 2, updates=[(s, s)])
    assert f(1.0) == 2.0 and s.get_value() == [5]


def test_unknown_options_are_refused():
    with pytest.raises(TypeError, match="broadcastable"):
        jitgraph.shared([1, 2], broadcastable=(False,))
