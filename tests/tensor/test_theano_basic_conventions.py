"""What Theano 1.0.5's ``tensor/tests/test_basic.py`` checks beyond values: which inputs are
refused, what constant analysis sees through, Theano's calling conventions. Values and errors
recorded under Theano 1.0.5 (tools/theano-oracle)."""

from __future__ import annotations

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph.compile.linker import PerformLinker
from jitgraph.graph.basic import Apply
from jitgraph.graph.fg import FunctionGraph, MissingInputError
from jitgraph.graph.op import Op
from jitgraph.scalar.bridge import ScalarFromTensor
from jitgraph.scalar_expr.errors import ComplexError
from jitgraph.tensor.core import basic as B
from jitgraph.tensor.core.assertion import Assert


# -- values jitgraph used to change without a word ------------------------------------------

@pytest.mark.parametrize("value", [2 ** 64, 2 ** 64 + 1, -2 ** 63 - 1])
def test_a_python_int_no_integer_dtype_holds_is_refused(value):
    # Theano 1.0.5: OverflowError. (jitgraph made 2**64 + 1 the float64 2**64.)
    with pytest.raises(OverflowError, match="fits no integer dtype"):
        T.constant(value)
    with pytest.raises(OverflowError):
        T.dvector() + value


def test_the_widest_python_ints_keep_an_integer_dtype():
    assert T.constant(2 ** 63).dtype == "uint64"  # Theano 1.0.5
    assert T.constant(2 ** 64 - 1).data == 2 ** 64 - 1
    assert T.constant(-2 ** 63).dtype == "int64"


# -- Theano's calling conventions ------------------------------------------------------------

def test_a_python_bool_is_not_a_tensor():
    # Theano 1.0.5 refuses it everywhere (often it is `x == y` on variables, which Python
    # answers by identity); numpy's bools are tensors
    for build in (lambda: T.as_tensor_variable(True), lambda: T.eq(T.vector(), False),
                  lambda: T.switch(True, T.vector(), T.vector())):
        with pytest.raises(TypeError, match="Python bool"):
            build()
    assert T.as_tensor_variable(np.bool_(True)).dtype == "bool"
    assert T.as_tensor_variable([True, False]).dtype == "bool"
