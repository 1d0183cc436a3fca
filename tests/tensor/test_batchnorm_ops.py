"""Theano's abstract batch-normalization ops (``theano.tensor.nnet.bn.AbstractBatchNorm*``):
values recorded from Theano 1.0.5 (theano-oracle, float64, printed to 10 digits), the expanding
rewrites, and gradients (verify_grad)."""

from __future__ import annotations

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph.tensor.core.gradient import verify_grad
from jitgraph.tensor.nnet import bn

rng = np.random.RandomState(0)
X, G, B, RM, RV = rng.randn(5, 3), rng.randn(1, 3), rng.randn(1, 3), rng.randn(1, 3), rng.rand(1, 3)
DY = rng.randn(5, 3)

THEANO_TRAIN = [
    [[0.5794274855, -1.0129536517, -2.702958395], [0.8151930511, 2.0438783805, -2.229417262],
     [0.17697735, -2.1618469575, -2.4410223467], [-0.0897639416, -1.5464795839, -2.8180830391],
     [0.0835045632, -1.5930768839, -2.5734680363]],
    [[1.225334038, 0.4764153156, 0.3592755984]],
    [[1.4817813523, 1.3942775887, 1.180038892]],
    [[0.7107901397, 0.8256341105, -0.6320209585]],
    [[0.4674528749, 0.5758781349, 0.1066654567]],
]
THEANO_INFERENCE = [[0.86161471, -1.77406732, -5.12179828], [1.09717097, 1.13359606, -2.20203459],
                    [0.45952185, -2.86689642, -3.5067509], [0.19301737, -2.28155802, -5.83163472],
                    [0.36613205, -2.32588144, -4.32338559]]
THEANO_TRAIN_GRAD = [
    [[0.3535693812, 3.9817726596, 0.0116840608], [-0.3997579624, -0.7211520683, -0.0821159058],
     [0.6914940917, -0.6808424855, 0.1654894759], [-0.3034199802, -1.6071709481, -0.0320504899],
     [-0.3418855304, -0.9726071577, -0.0630071409]],
    [[1.4870713977, -0.8693126444, -0.9565582573]],
    [[2.5511207088, -1.9743290862, 3.7727461846]],
]

x, dy = T.dmatrices("x", "dy")
g, b, rm, rv = T.drows("g", "b", "rm", "rv")
train = bn.AbstractBatchNormTrain(axes=(0,))
inference = bn.AbstractBatchNormInference(axes=(0,))
train_grad = bn.AbstractBatchNormTrainGrad(axes=(0,))

MODES = ["FAST_RUN", "FAST_COMPILE", "DebugMode", jitgraph.Mode(optimizer=None)]


def check(got, expected, atol=1e-9):
    for a, e in zip(got, expected):
        np.testing.assert_allclose(a, e, rtol=0, atol=atol)


def test_signatures_and_types():
    outs = train(x, g, b, 1e-4, 0.1, rm, rv)
    assert str(train) == "AbstractBatchNormTrain{axes=(0,)}"  # as Theano prints it
    assert [o.type for o in outs] == [T.dmatrix, g.type, g.type, rm.type, rv.type]
    assert [i.type for i in outs[0].owner.inputs[3:5]] == [T.dscalar, T.dscalar]
    assert len(train(x, g, b)) == 3
    assert train_grad(x, dy, g, outs[1], outs[2])[1].type == g.type
    with pytest.raises(ValueError, match="both"):
        train(x, g, b, 1e-4, 0.1, rm)
    with pytest.raises(TypeError, match="dimensions"):
        train(x, T.dvector(), b)


@pytest.mark.parametrize("mode", MODES, ids=str)
def test_values_match_theano(mode):
    f = jitgraph.function([x, g, b, rm, rv], train(x, g, b, 1e-4, 0.1, rm, rv), mode=mode)
    check(f(X, G, B, RM, RV), THEANO_TRAIN)
    fi = jitgraph.function([x, g, b, rm, rv], inference(x, g, b, rm, rv), mode=mode)
    check([fi(X, G, B, RM, RV)], [THEANO_INFERENCE], atol=1e-8)
    outs = train(x, g, b)
    fg = jitgraph.function([x, dy, g, b], train_grad(x, dy, g, outs[1], outs[2]), mode=mode)
    check(fg(X, DY, G, B), THEANO_TRAIN_GRAD)


def test_rewrites_expand_the_ops():
    outs = train(x, g, b, 1e-4, 0.1, rm, rv)
    f = jitgraph.function([x, g, b, rm, rv], outs + [inference(x, g, b, rm, rv)])
    kinds = {type(n.op).__name__ for n in f.maker.fgraph.toposort()}
    assert not kinds & {"AbstractBatchNormTrain", "AbstractBatchNormInference"}, kinds
    kept = jitgraph.function([x, g, b, rm, rv], outs, mode=jitgraph.Mode(optimizer=None))
    assert any(isinstance(n.op, bn.AbstractBatchNormTrain)
               for n in kept.maker.fgraph.toposort())
    assert {"local_abstract_batch_norm_train", "local_abstract_batch_norm_inference",
            "local_abstract_batch_norm_train_grad"} <= set(bn.bn_groupopt)


def test_gradient_goes_through_train_grad():
    out = train(x, g, b)[0]
    gx = jitgraph.grad((out * dy).sum(), x)
    ops = {type(n.op).__name__ for n in jitgraph.graph.basic.io_toposort([x, g, b, dy], [gx])}
    assert "AbstractBatchNormTrainGrad" in ops
    f = jitgraph.function([x, dy, g, b], jitgraph.grad((out * dy).sum(), [x, g, b]))
    check(f(X, DY, G, B), THEANO_TRAIN_GRAD)  # the same gradients as the op's


def test_verify_grad():
    verify_grad(lambda x, g, b: (train(x, g, b)[0] ** 2).sum(0) + train(x, g, b)[1].sum(0)
                + train(x, g, b)[2].sum(0), [X, G, B], rng=rng)
    verify_grad(lambda x, g, b, m, v: train(x, g, b, 1e-4, 0.1, m, v)[4], [X, G, B, RM, RV],
                rng=rng)
    verify_grad(lambda x, g, b, m, v: inference(x, g, b, m, v), [X, G, B, RM, RV + 0.5],
                rng=rng)
    # an input computed from another one (the statistics from x) is differentiated on its own
    verify_grad(lambda x, dy, g: sum(o.sum(0) for o in train_grad(
        x, dy, g, x.mean(0, keepdims=True), 1 / x.std(0, keepdims=True))), [X, DY, G], rng=rng)


def test_spatial_axes_in_float32():
    x4 = T.ftensor4("x4")
    p = T.TensorType("float32", (True, False, True, True))("p")
    op = bn.AbstractBatchNormTrain(axes=(0, 2, 3))
    xv = rng.randn(2, 3, 4, 5).astype("float32")
    pv = np.ones((1, 3, 1, 1), "float32")
    out, mean, invstd = jitgraph.function([x4, p], op(x4, p, p * 0))(xv, pv)
    assert out.dtype == np.float32
    np.testing.assert_allclose(mean, xv.mean(axis=(0, 2, 3), keepdims=True), rtol=1e-5)
    np.testing.assert_allclose(out, (xv - mean) * invstd, rtol=1e-4, atol=1e-5)
