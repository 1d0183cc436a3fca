"""``theano.tensor.nnet.conv3d2d.conv3d`` against numbers recorded under Theano 1.0.5 (values,
every border mode, gradients), and its errors."""

from __future__ import annotations

import numpy as np
import pytest

import jitgraph as theano
import jitgraph.tensor as T

FIVE_D = T.TensorType("float64", (False,) * 5)

#: Theano 1.0.5: shape, sum, sum of squares and the first four values of the output
THEANO = {
    "valid": ((2, 4, 4, 4, 6), 119.46651961742862, 25953.529038363093,
              [8.898165028583035, -4.239679597056968, 3.4910040896858465, -3.3988757004861294]),
    "full": ((2, 6, 4, 8, 8), 138.8709110445236, 56418.11061475835,
             [5.340339336885388, -7.501390658974992, 5.093957578893687, -2.7939630139418]),
    "half": ((2, 6, 4, 6, 8), 117.4375983543274, 50558.091003729474,
             [4.734272745615055, -0.5419289569763038, 5.4649217447823855, 2.2992265000518812]),
}


def _data():
    rng = np.random.RandomState(0)
    return rng.randn(2, 5, 3, 6, 7), rng.randn(4, 2, 3, 3, 2)


@pytest.mark.parametrize("border_mode", sorted(THEANO))
def test_values_match_theano(border_mode):
    from jitgraph.tensor.nnet import conv3d2d

    s, f = _data()
    S, F = FIVE_D(), FIVE_D()
    got = theano.function([S, F], conv3d2d.conv3d(S, F, border_mode=border_mode))(s, f)
    shape, total, squares, first = THEANO[border_mode]
    assert got.shape == shape
    np.testing.assert_allclose([got.sum(), (got ** 2).sum()], [total, squares], rtol=1e-12)
    np.testing.assert_allclose(got.ravel()[:4], first, rtol=1e-12)


def test_gradients_match_theano_and_finite_differences():
    from jitgraph.tensor.nnet import conv3d2d

    s, f = _data()
    S, F = FIVE_D(), FIVE_D()
    out = conv3d2d.conv3d(S, F, signals_shape=s.shape, filters_shape=f.shape)
    gs, gf = theano.function([S, F], T.grad((out ** 2).sum(), [S, F]))(s, f)
    np.testing.assert_allclose([(gs ** 2).sum(), (gf ** 2).sum()],
                               [6777903.191464527, 23293375.718085233], rtol=1e-12)
    rng = np.random.RandomState(1)
    T.verify_grad(lambda a, b: conv3d2d.conv3d(a, b, border_mode="half"),
                  [rng.randn(1, 3, 2, 4, 3), rng.randn(2, 2, 2, 3, 2)], rng=rng)


def test_bad_arguments_are_named():
    from jitgraph.tensor.nnet import conv3d2d

    with pytest.raises(ValueError, match="border_mode"):
        conv3d2d.conv3d(FIVE_D(), FIVE_D(), border_mode="same")
    with pytest.raises(TypeError, match="signals must be a 5-d tensor"):
        conv3d2d.conv3d(T.tensor4(), FIVE_D())
    with pytest.raises(ValueError, match="5 entries"):
        conv3d2d.conv3d(FIVE_D(), FIVE_D(), signals_shape=(1, 2, 3))
    assert T.nnet.conv3d2d is conv3d2d
