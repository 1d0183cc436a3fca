"""``ProdWithoutZeros`` (``theano.tensor.elemwise.ProdWithoutZeros``): the product of the non-zero
entries along the axes. Expected values recorded from Theano 1.0.5 (``cxx=``)."""

from __future__ import annotations

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph.gradient import NullTypeGradError
from jitgraph.tensor.elementwise.prod_without_zeros import ProdWithoutZeros
from jitgraph.tensor.elementwise.reduction import Prod

SOME_ZEROS = np.array([[1, 2, 3], [0, 5, 6], [0, 0, 9]], dtype="float64")
MIXED = np.array([[0.0, -2, 0], [0, 0, 0]])

# (axis, input) -> Theano 1.0.5's output
RECORDED = [
    (None, SOME_ZEROS, 1620.0), (0, SOME_ZEROS, [1, 10, 162]), (1, SOME_ZEROS, [6, 30, 9]),
    (None, np.zeros((3, 3)), 0.0), (0, np.zeros((3, 3)), [0, 0, 0]),
    (1, np.zeros((3, 3)), [0, 0, 0]),
    # an empty axis gives 0, not the 1 of an empty product
    (None, np.zeros((0, 3)), 0.0), (0, np.zeros((0, 3)), [0, 0, 0]),
    (1, np.zeros((0, 3)), np.zeros(0)),
    (None, MIXED, -2.0), (0, MIXED, [0, -2, 0]), (1, MIXED, [-2, 0]),
]


@pytest.mark.parametrize("axis, value, expected", RECORDED)
def test_values_as_theano(axis, value, expected):
    x = T.dmatrix()
    f = jitgraph.function([x], ProdWithoutZeros(axis=axis)(x))
    out = f(value)
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out, expected)


def test_integer_input_dtypes_and_values():
    i = T.imatrix()
    p = ProdWithoutZeros(axis=1)(i)
    assert p.dtype == "int64"  # as Prod: int32 -> int64
    f = jitgraph.function([i], p)
    np.testing.assert_array_equal(f(np.array([[0, 3, 0], [0, 0, 0]], "int32")), [3, 0])
    assert ProdWithoutZeros()(T.bmatrix()).dtype == "int64"
    with pytest.raises(TypeError):  # an accumulator narrower than the input is refused
        ProdWithoutZeros(axis=0, acc_dtype="int8")(i)


def test_a_fused_elementwise_input_keeps_zeros_out():
    # after fusion the reduction may take x * 2 as a pre-op; zeros of the product still skip
    x = T.dmatrix()
    f = jitgraph.function([x], ProdWithoutZeros(axis=1)(x * 2))
    np.testing.assert_array_equal(f(SOME_ZEROS), [48, 120, 18])


def test_is_its_own_op():
    assert ProdWithoutZeros(axis=0) == ProdWithoutZeros(axis=0)
    assert ProdWithoutZeros(axis=0) != Prod(axis=0)
    assert str(ProdWithoutZeros()(T.dmatrix()).owner.op.scalar_op) == "mul_without_zeros"


def test_gradient_is_not_implemented_as_in_theano():
    x = T.dmatrix()
    with pytest.raises(NullTypeGradError, match="no_zeros_in_input=True"):
        jitgraph.grad(T.sum(ProdWithoutZeros(axis=0)(x)), x)
