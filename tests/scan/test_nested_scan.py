"""Scans inside scans, as Theano users write them (the RNN-RBM tutorial's Gibbs chain in the step
of an outer loop), against numbers recorded under Theano 1.0.5 (ORACLE_PY=1, floatX=float64)."""

from __future__ import annotations

import numpy as np

import jitgraph as theano
import jitgraph.tensor as T
from jitgraph.tensor.shared_randomstreams import RandomStreams


def test_gibbs_chain_in_each_step_of_an_outer_scan():
    rng = np.random.RandomState(1)
    W = theano.shared(rng.randn(4, 3) * 0.1, name="W")
    bv, bh = theano.shared(np.zeros(4), name="bv"), theano.shared(np.zeros(3), name="bh")
    trng = RandomStreams(42)

    def gibbs_step(v):
        mean_h = T.nnet.sigmoid(T.dot(v, W) + bh)
        h = trng.binomial(size=mean_h.shape, n=1, p=mean_h, dtype="float64")
        mean_v = T.nnet.sigmoid(T.dot(h, W.T) + bv)
        return trng.binomial(size=mean_v.shape, n=1, p=mean_v, dtype="float64")

    def outer_step(v_t, acc):
        chain, updates = theano.scan(gibbs_step, outputs_info=[v_t], n_steps=3)
        return acc + chain[-1].sum(), updates

    seq = T.dmatrix("seq")
    accs, updates = theano.scan(outer_step, sequences=[seq],
                                outputs_info=[T.constant(0.0, dtype="float64")])
    g = T.grad(theano.gradient.disconnected_grad(accs[-1]) * (W ** 2).sum(), W)
    f = theano.function([seq], [accs, g], updates=updates)
    got_accs, got_g = f((rng.rand(5, 4) > 0.5).astype("float64"))
    np.testing.assert_array_equal(got_accs, [1.0, 5.0, 7.0, 9.0, 11.0])
    np.testing.assert_allclose(got_g, [[3.57356, -1.345864, -1.161978],
                                       [-2.360531, 1.903897, -5.063385],
                                       [3.838586, -1.674655, 0.701886],
                                       [-0.548615, 3.216637, -4.53231]], atol=1e-6)


def test_gradient_through_a_scan_inside_a_scan():
    x = T.dvector("x")

    def outer(xi, total):
        inner, _ = theano.scan(lambda s, acc: acc * s + 1.0,
                               sequences=[T.arange(1, 4, dtype="float64") * xi],
                               outputs_info=[T.constant(0.0, dtype="float64")])
        return total + inner[-1]

    res, _ = theano.scan(outer, sequences=[x], outputs_info=[T.constant(0.0, dtype="float64")])
    f = theano.function([x], [res, T.grad(res[-1], x)])
    got_res, got_grad = f(np.array([0.5, 1.5, -2.0]))
    np.testing.assert_allclose(got_res, [4.0, 23.0, 42.0])
    np.testing.assert_allclose(got_grad, [9.0, 21.0, -21.0])
