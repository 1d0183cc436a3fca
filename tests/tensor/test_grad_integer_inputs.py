"""``grad`` with respect to an integer variable: the derivative of the continuous-valued ops that
use it, as in Theano 1.0.5 (its ``tests/test_gradient.py::test_grad_int``), not zeros.

Before the fix every gradient rule answered "none" for an integer *input*, so such a gradient
was constant zeros and ``function([X, W, b], g)`` raised UnusedInputError (W and b unused).
Theano's rules ask the op's *output* dtype instead. Expected values were recorded by running
the same programs under Theano 1.0.5 (``/work/shared/tools/theano-oracle``).
"""

from __future__ import annotations

import numpy as np
import pytest

import jitgraph as theano
import jitgraph.tensor as T

XV = np.array([1, 2, 3], "int32")
YV = np.array([0.5, 1.5, 2.5])


def test_grad_of_integer_matrix_through_dot_and_sigmoid():
    W, b, X = T.dmatrix("W"), T.dvector("b"), T.imatrix("X")
    g = theano.grad(T.nnet.sigmoid(T.dot(X, W) + b).sum(), X)
    assert g.dtype == "float64"
    f = theano.function([X, W, b], g)  # W and b are used: no UnusedInputError
    got = f(np.array([[1, -2, 3], [0, 2, -1]], "int32"),
            np.array([[0.5, -0.25], [0.125, 0.75], [-0.5, 0.3]]), np.array([0.1, -0.2]))
    np.testing.assert_allclose(got, [[0.04332018001115991, 0.16685234644089664,
                                      -0.03371880761496874],
                                     [0.055733427369542066, 0.17368055260108953,
                                      -0.04590283070746798]], rtol=1e-12)


def test_integer_gradient_equals_float_gradient():
    # test_grad_int's property: the same program with a float64 X gives the same gradient
    W, b = T.dmatrix("W"), T.dvector("b")
    rng = np.random.RandomState([2012, 9, 5])
    Xv = (rng.randn(5, 3) * 3).astype("int32")
    Wv, bv = rng.randn(3, 4), rng.randn(4)

    def gradient_of(X):
        g = theano.grad(T.nnet.sigmoid(T.dot(X, W) + b).sum(), X)
        return theano.function([X, W, b], g)

    np.testing.assert_allclose(gradient_of(T.imatrix("X"))(Xv, Wv, bv),
                               gradient_of(T.dmatrix("X"))(Xv.astype("float64"), Wv, bv),
                               rtol=1e-12)


# (cost of an int32 vector x and a float64 vector y, Theano 1.0.5's gradient with respect to x)
CASES = {
    "mul": (lambda x, y: (x * y).sum(), [0.5, 1.5, 2.5]),
    "cast": (lambda x, y: T.cast(x, "float64").sum() * 3, [3.0, 3.0, 3.0]),
    "exp": (lambda x, y: T.exp(x).sum(), [2.718281828459045, 7.38905609893065,
                                          20.085536923187668]),
    "true_div": (lambda x, y: (x / y).sum(), [2.0, 0.666667, 0.4]),
    "sqrt": (lambda x, y: T.sqrt(x).sum(), [0.5, 0.353553, 0.288675]),
    "switch": (lambda x, y: T.switch(T.gt(y, 1), x, y).sum(), [0.0, 1.0, 1.0]),
    "clip": (lambda x, y: (T.clip(x, 1.5, 2.5) * y).sum(), [0.0, 1.5, 0.0]),
    "maximum": (lambda x, y: T.maximum(x, y).sum(), [1.0, 1.0, 1.0]),
    "pow_exponent": (lambda x, y: (y ** x).sum(), [-0.346574, 0.912296, 14.317043]),
    "sum_float64": (lambda x, y: T.sum(x, dtype="float64"), [1.0, 1.0, 1.0]),
    "concatenate": (lambda x, y: (T.concatenate([x, y]) * 2.0).sum(), [2.0, 2.0, 2.0]),
    "dot": (lambda x, y: T.dot(x, y), [0.5, 1.5, 2.5]),
    # an integer-valued op output has no gradient: x ** 2, -x, mean (an integer sum), x[1:]
    "int_pow": (lambda x, y: (x ** 2).sum(), [0.0, 0.0, 0.0]),
    "int_neg": (lambda x, y: (-x * y).sum(), [0.0, 0.0, 0.0]),
    "int_mean": (lambda x, y: T.mean(x), [0.0, 0.0, 0.0]),
    "subtensor": (lambda x, y: (x[1:] * y[1:]).sum(), [0.0, 0.0, 0.0]),
    "dimshuffle": (lambda x, y: (x.dimshuffle("x", 0) * y).sum(), [0.0, 0.0, 0.0]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_with_respect_to_integer_vector(name):
    cost, expected = CASES[name]
    x, y = T.ivector("x"), T.dvector("y")
    g = theano.grad(cost(x, y), x)
    assert g.dtype == "float64"
    got = theano.function([x, y], g, on_unused_input="ignore")(XV, YV)
    np.testing.assert_allclose(got, expected, atol=1e-6)


# Ops whose gradient rule Theano applies whatever the dtype: an integer output of Reshape,
# CumOp, Sort, Max and AdvancedSubtensor1 passes the gradient it receives on to the integer
# input (before, jitgraph stopped every gradient at an integer output: silent zeros).
# (cost of an int32 vector x and a float64 vector y, Theano 1.0.5's gradient with respect to x)
THROUGH_INTEGER_OUTPUTS = {
    "reshape": (lambda x, y: (x.reshape((3, 1)) * y).sum(), [4.5, 4.5, 4.5]),
    "cumsum": (lambda x, y: (T.extra_ops.cumsum(x) * y).sum(), [4.5, 4.0, 2.5]),
    "cumprod": (lambda x, y: (T.extra_ops.cumprod(x) * y).sum(), [18.5, 9.0, 5.0]),
    "sort": (lambda x, y: (T.sort(x) * y).sum(), [0.5, 1.5, 2.5]),
    "max": (lambda x, y: T.max(x) * 1.5, [0.0, 0.0, 1.5]),
    "advanced_subtensor1": (lambda x, y: (x[[0, 2]] * y[:2]).sum(), [0.5, 0.0, 1.5]),
    # and where Theano's rules stop it: DimShuffle, Repeat, Join, integer Sum
    "flatten_of_dimshuffle": (lambda x, y: (x.dimshuffle(0, "x").flatten() * y).sum(),
                              [0.0, 0.0, 0.0]),
    "repeat": (lambda x, y: (T.extra_ops.repeat(x, 2) * T.concatenate([y, y])).sum(),
               [0.0, 0.0, 0.0]),
    "stack": (lambda x, y: (T.stack([x, x]) * y).sum(), [0.0, 0.0, 0.0]),
    "sum_int": (lambda x, y: T.sum(x) * 1.5, [0.0, 0.0, 0.0]),
}


@pytest.mark.parametrize("name", sorted(THROUGH_INTEGER_OUTPUTS))
def test_gradient_through_integer_outputs(name):
    cost, expected = THROUGH_INTEGER_OUTPUTS[name]
    x, y = T.ivector("x"), T.dvector("y")
    g = theano.grad(cost(x, y), x)
    assert g.dtype == "float64"
    got = theano.function([x, y], g, on_unused_input="ignore")(XV, YV)
    np.testing.assert_allclose(got, expected, atol=1e-6)


MV = np.array([[3, 1], [2, 5]], "int32")
YM = np.array([[0.5, 1.5], [2.5, -1.0]])
# the same for an int32 matrix along an axis (Theano 1.0.5's values; min of integers is
# -max(-x) there, and the negation passes nothing)
MATRIX_CASES = {
    "reshape": (lambda x, y: (x.reshape((4,)) * y.reshape((4,))).sum(),
                [[0.5, 1.5], [2.5, -1.0]]),
    "flatten": (lambda x, y: (x.flatten() * y.flatten()).sum(), [[0.5, 1.5], [2.5, -1.0]]),
    "cumsum_axis0": (lambda x, y: (T.extra_ops.cumsum(x, axis=0) * y).sum(),
                     [[3.0, 0.5], [2.5, -1.0]]),
    "cumprod_axis1": (lambda x, y: (T.extra_ops.cumprod(x, axis=1) * y).sum(),
                      [[2.0, 4.5], [-2.5, -2.0]]),
    "max_axis0": (lambda x, y: (T.max(x, axis=0) * y[0]).sum(), [[0.5, 0.0], [0.0, 1.5]]),
    "min_axis0": (lambda x, y: (T.min(x, axis=0) * y[0]).sum(), [[0.0, 0.0], [0.0, 0.0]]),
    "sort_axis0": (lambda x, y: (T.sort(x, axis=0) * y).sum(), [[2.5, 1.5], [0.5, -1.0]]),
    "rows": (lambda x, y: (x[[1, 1, 0]] * T.concatenate([y, y[:1]])).sum(),
             [[0.5, 1.5], [3.0, 0.5]]),
    "transpose": (lambda x, y: (x.T * y).sum(), [[0.0, 0.0], [0.0, 0.0]]),
    "max_and_argmax": (lambda x, y: (T.max_and_argmax(x, axis=0)[0] * y[0]).sum(),
                       [[0.5, 0.0], [0.0, 1.5]]),
}


@pytest.mark.parametrize("name", sorted(MATRIX_CASES))
def test_gradient_through_integer_matrix_ops(name):
    cost, expected = MATRIX_CASES[name]
    x, y = T.imatrix("x"), T.dmatrix("y")
    g = theano.grad(cost(x, y), x)
    assert g.dtype == "float64"
    got = theano.function([x, y], g, on_unused_input="ignore")(MV, YM)
    np.testing.assert_allclose(got, expected, atol=1e-6)


def test_an_undefined_gradient_of_an_integer_cost_is_not_dropped():
    # Theano 1.0.5: known_grads={cost: NullType()} for an integer cost raises NullTypeGradError
    from jitgraph.gradient import NullTypeGradError
    from jitgraph.graph.gradient_types import NullType

    x, y = T.iscalar(), T.iscalar()
    cost = x + y
    with pytest.raises(NullTypeGradError):
        theano.grad(cost, [x, y], known_grads={cost: NullType()()})
