"""The ndarray-like methods Theano 1.0's tensor variables have (``x.exp()``, ``x.nonzero()``,
``x.trace()``, ``math.floor(x)``, ...) give what the functions of the same name give."""

from __future__ import annotations

import math

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T

VALUE = np.array([[1.5, -2.0, 0.25], [0.0, 3.0, -0.5], [2.5, 0.75, 1.0]])
UNIT = np.array([[0.5, -0.25, 0.1], [0.0, 0.9, -0.5], [0.3, 0.75, -0.8]])
ELEMENTWISE = ["arccos", "arcsin", "arctan", "arctanh", "ceil", "cos", "cosh", "deg2rad", "exp",
               "exp2", "expm1", "floor", "rad2deg", "sin", "sinh", "tan", "tanh", "trunc",
               "arcsinh"]
POSITIVE = ["log", "log10", "log1p", "log2", "sqrt", "arccosh"]


def run(out, x, value):
    return jitgraph.function([x], out)(value)


@pytest.mark.parametrize("name", ELEMENTWISE + POSITIVE)
def test_elementwise_methods(name):
    x = T.matrix()
    value = np.abs(VALUE) + 1.0 if name in POSITIVE else UNIT
    ufunc = {"arccosh": np.arccosh}.get(name, getattr(np, name))
    np.testing.assert_allclose(run(getattr(x, name)(), x, value), ufunc(value), rtol=1e-12)


def test_array_methods():
    x = T.matrix()
    cases = [
        (x.nonzero()[1], np.nonzero(VALUE)[1]), (x.nonzero(return_matrix=True), np.array(np.nonzero(VALUE))),
        (x.nonzero_values(), VALUE[VALUE != 0]), (x.ptp(axis=0), np.ptp(VALUE, axis=0)),
        (x.ptp(), np.ptp(VALUE)), (x.swapaxes(0, 1), VALUE.swapaxes(0, 1)),
        (x.take([2, 0], axis=1), VALUE.take([2, 0], axis=1)), (x.take([4, 1]), VALUE.take([4, 1])),
        (x.diagonal(), VALUE.diagonal()), (x.diagonal(1), VALUE.diagonal(1)),
        (x.trace(), np.trace(VALUE)), (x.round(), np.round(VALUE)),
        (x.round("half_away_from_zero"), np.sign(VALUE) * np.floor(np.abs(VALUE) + 0.5)),
        (x.conj(), VALUE), (x.conjugate(), VALUE), (x.real, VALUE), (x.imag, 0 * VALUE),
        (math.floor(x), np.floor(VALUE)), (math.ceil(x), np.ceil(VALUE)),
        (math.trunc(x), np.trunc(VALUE)),
    ]
    for out, expected in cases:
        np.testing.assert_allclose(run(out, x, VALUE), expected, err_msg=str(out))


def test_choose_and_complex_parts():
    i = T.lvector()
    choices = T.constant(np.array([[1.0, 2.0], [10.0, 20.0]]))
    np.testing.assert_array_equal(run(i.choose(choices), i, np.array([1, 0])), [10.0, 2.0])
    z = T.zvector()
    value = np.array([1 + 2j, -3 - 0.5j])
    np.testing.assert_array_equal(run(z.real, z, value), value.real)
    np.testing.assert_array_equal(run(z.imag, z, value), value.imag)
    np.testing.assert_array_equal(run(z.conj(), z, value), value.conj())
    assert z.real.dtype == "float64"


def test_get_scalar_constant_value():
    assert T.constant(3.0).get_scalar_constant_value() == 3.0
    with pytest.raises(T.NotScalarConstantError):
        T.scalar().get_scalar_constant_value()


def test_truth_value_is_theanos():
    # Theano 1.0.5: every tensor variable is true (the RBM tutorial's ``if not input:``), but
    # the result of <, <=, >, >= raises, so that ``a < b < c`` is not silently ``b < c``.
    import jitgraph
    import jitgraph.tensor as T

    x = T.matrix("x")
    shared = jitgraph.shared(np.zeros(3))
    for var in (x, shared, x + 1, T.eq(x, 1), T.lt(x, 0), x.shape[0], T.constant(0),
                (x > 0) & (x < 1), T.invert(x > 0)):
        assert bool(var) is True
        assert not (not var)
    for var in (x > 0, x <= x, 0 < x, shared < 1, T.iscalar() >= 2):
        with pytest.raises(TypeError, match="comparison operator"):
            bool(var)
    with pytest.raises(TypeError):
        x < x < x
    # scalar and sparse variables are always true in Theano, comparisons included
    import jitgraph.scalar as S
    import jitgraph.sparse as sparse

    a, m = S.float64("a"), sparse.csr_matrix("m")
    assert all(bool(v) for v in (a, a < 1, a >= S.float64("b"), m, m + m, m > m))
