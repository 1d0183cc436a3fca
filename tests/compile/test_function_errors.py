"""The exception classes Theano 1.0 raises for common mistakes, which programs catch by class:
a missing input, a duplicated input, a shared value of another dtype."""

from __future__ import annotations

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph.compile import UnusedInputError
from jitgraph.gof import MissingInputError


def test_missing_input_is_theanos_class():
    x, y = T.matrix("x"), T.vector("y")
    with pytest.raises(MissingInputError, match="depend on y"):
        jitgraph.function([x], x + y)
    with pytest.raises(jitgraph.gof.fg.MissingInputError):
        (x + 1).eval()
    assert issubclass(MissingInputError, ValueError)  # what jitgraph raised before


def test_duplicated_input_is_an_unused_input_error():
    x = T.matrix("x")
    with pytest.raises(UnusedInputError, match="used twice"):
        jitgraph.function([x, x], x)


# (variable dtype, new value dtype, kept dtype or None when Theano 1.0.5 raises TypeError)
SET_VALUE = [("float64", "int64", "float64"), ("float64", "float32", "float64"),
             ("float32", "float64", None), ("float32", "int8", "float32"),
             ("int32", "int64", None), ("int64", "int32", "int64")]


@pytest.mark.parametrize("dtype, new, kept", SET_VALUE)
def test_set_value_upcasts_as_theano(dtype, new, kept):
    shared = jitgraph.shared(np.zeros(3, dtype))
    value = np.arange(3).astype(new)
    if kept is None:
        with pytest.raises(TypeError, match="without loss"):
            shared.set_value(value)
        return
    shared.set_value(value)
    assert shared.get_value().dtype == kept
    np.testing.assert_array_equal(shared.get_value(), [0, 1, 2])


@pytest.mark.parametrize("make_null", ["grad_undefined", "grad_not_implemented"])
def test_function_of_an_undefined_gradient_is_a_type_error(make_null):
    # Theano 1.0.5 refuses to compile an undefined gradient with a TypeError
    from jitgraph import gradient

    a = T.vector()
    b = getattr(gradient, make_null)(T.add, 0, a)
    with pytest.raises(TypeError, match="undefined gradient"):
        jitgraph.function([a], b, on_unused_input="ignore")
