"""ptp and cov against NumPy (hypothesis over shapes), their gradients and errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgraph
import jitgraph.tensor as T
from jitgraph.tensor.core.gradient import verify_grad

RNG = np.random.RandomState(5)


@settings(max_examples=20, deadline=None)
@given(st.integers(2, 4), st.integers(2, 5), st.booleans(), st.booleans(),
       st.sampled_from([None, 0, 2]))
def test_cov_ptp_match_numpy(rows, cols, rowvar, bias, ddof):
    value, other = RNG.standard_normal((rows, cols)), RNG.standard_normal((rows, cols))
    x, y = T.matrix("x"), T.matrix("y")
    outs = [T.cov(x, rowvar=rowvar, bias=bias, ddof=ddof),
            T.cov(x, y, rowvar=rowvar, bias=bias, ddof=ddof), T.ptp(x), T.ptp(x, axis=1),
            T.ptp(x, axis=0)]
    got = jitgraph.function([x, y], outs)(value, other)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = [np.cov(value, rowvar=rowvar, bias=bias, ddof=ddof),
                np.cov(value, other, rowvar=rowvar, bias=bias, ddof=ddof), np.ptp(value),
                np.ptp(value, axis=1), np.ptp(value, axis=0)]
    for g, w in zip(got, want):
        assert np.shape(g) == np.shape(w)
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


def test_one_variable_of_a_matrix_stays_a_matrix():
    # As in Theano, only axes known to be broadcastable are squeezed: one row of a matrix
    # gives a 1 x 1 covariance (NumPy gives a 0-d array).
    x = T.matrix("x")
    value = RNG.standard_normal((1, 4))
    got = jitgraph.function([x], T.cov(x))(value)
    assert got.shape == (1, 1)
    np.testing.assert_allclose(got[0, 0], np.cov(value))


def test_vectors_and_integers():
    v = T.lvector("v")
    got = jitgraph.function([v], T.cov(v))(np.array([1, 2, 4]))
    assert got.dtype == np.float64 and got.shape == ()
    np.testing.assert_allclose(got, np.cov([1, 2, 4]))


def test_gradients():
    verify_grad(lambda x: T.cov(x), [RNG.standard_normal((3, 5))], rng=RNG)
    verify_grad(lambda x, y: T.cov(x, y, rowvar=False), [RNG.standard_normal((4, 2)),
                                                          RNG.standard_normal((4, 3))], rng=RNG)
    verify_grad(lambda x: T.ptp(x, axis=1), [RNG.standard_normal((3, 4))], rng=RNG)


def test_errors():
    with pytest.raises(NotImplementedError, match="fweights"):
        T.cov(T.matrix(), fweights=T.vector())
    with pytest.raises(ValueError, match="vector or a matrix"):
        T.cov(T.tensor3())


def test_var_and_std_corrected_match_theano():
    x = T.dmatrix("x")
    v = np.array([[1.0, 2.0, 4.0, 8.0], [0.5, -1.5, 3.0, 2.0],
                  [1e8 + 1, 1e8 + 2, 1e8 + 4, 1e8 + 8]])
    outs = [T.var(x, axis=1, corrected=True), T.var(x, axis=1, ddof=1, corrected=True),
            x.std(axis=0, corrected=True, keepdims=True), x.var(corrected=True)]
    got = jitgraph.function([x], outs)(v)
    theano_1_0_5 = [[7.1875, 2.875, 7.1875], [9.583333333333334, 3.8333333333333335,
                                              9.583333333333334],
                    [[47140452.196954295, 47140452.9040611, 47140452.31480543,
                      47140453.4933168]], 2222222283333340.8]
    for g, want in zip(got, theano_1_0_5):
        np.testing.assert_allclose(g, want, rtol=1e-12)
    assert got[2].shape == (1, 4)
