"""The other ``theano.tensor.nnet`` names against Theano 1.0.5's recorded results: the
softmax-cross-entropy ops and their gradients, selu, softsign, softmax_graph, h_softmax,
confusion_matrix, prepend_*; verify_grad; and the module paths users import."""

from __future__ import annotations

import numpy as np
from nnet_oracle import check, inputs

import jitgraph
import jitgraph.tensor as T
from jitgraph.tensor.neural import activations as A
from jitgraph.tensor.neural import prepend as Pp
from jitgraph.tensor.neural import softmax_xent as S
from jitgraph.tensor.neural.confusion import confusion_matrix
from jitgraph.tensor.core.gradient import grad, verify_grad
from jitgraph.tensor.neural.hierarchical_softmax import h_softmax
from jitgraph.tensor.nnet import softmax


def test_softmax_crossentropy_family_matches_theano():
    x, b, y, dnll, proj = T.matrix(), T.vector(), T.ivector(), T.vector(), T.matrix()
    nll, sm, am = S.crossentropy_softmax_argmax_1hot_with_bias(x, b, y)
    gx, gb = grad(nll.sum() + (sm * proj).sum(), [x, b])
    mx = S.crossentropy_softmax_max_and_argmax_1hot(x, y)
    swb = S.softmax_with_bias(x, b)
    sg = S.softmax_grad(x * 2, softmax(x))
    dx = S.crossentropy_softmax_1hot_with_bias_dx(dnll, softmax(x), y)
    named = dict(nll=nll, sm=sm, am=am, gx=gx, gb=gb, max=mx[2], argmax=mx[3], nll1=mx[0],
                 swb=swb, swb_gx=grad((swb * proj).sum(), x), sg=sg,
                 sg_gx=grad((sg * proj).sum(), x), dx=dx, dx_gx=grad((dx * proj).sum(), x),
                 dx_gd=grad((dx * proj).sum(), dnll))
    fn = jitgraph.function([x, b, y, dnll, proj], list(named.values()))
    got = dict(zip(named, fn(*inputs("xent"))))
    assert got["am"].dtype == np.int32 and got["argmax"].dtype == np.int64
    check("xent", got)
    n1, s1 = S.crossentropy_softmax_1hot(x, y)
    xv, _, yv = inputs("xent")[:3]
    np.testing.assert_allclose(jitgraph.function([x, y], n1)(xv, yv),
                               -np.log(jitgraph.function([x], softmax(x))(xv)[range(4), yv]))


def test_verify_grad_of_the_ops():
    rng = np.random.default_rng(0)
    xv, bv, yv = rng.normal(size=(3, 4)), rng.normal(size=4), np.array([0, 3, 1])
    verify_grad(lambda a, c: S.crossentropy_softmax_argmax_1hot_with_bias(a, c, yv)[0],
                [xv, bv], rng=rng)
    verify_grad(lambda a, c: S.crossentropy_softmax_argmax_1hot_with_bias(a, c, yv)[1],
                [xv, bv], rng=rng)
    sm = np.exp(xv) / np.exp(xv).sum(axis=1, keepdims=True)
    verify_grad(lambda d, s: S.softmax_grad(d, s), [xv, sm], rng=rng)
    verify_grad(lambda d, s: S.crossentropy_softmax_1hot_with_bias_dx(d, s, yv),
                [rng.uniform(size=3), sm], rng=rng)
    verify_grad(lambda v, m: Pp.prepend_scalar_to_each_row(v, m), [np.asarray(1.5), xv],
                rng=rng)
    verify_grad(A.selu, [xv], rng=rng)
    verify_grad(A.softsign, [xv], rng=rng)


def test_activations_hsoftmax_confusion_prepend_match_theano():
    v = T.vector()
    named = dict(selu=A.selu(v), softsign=A.softsign(v), gselu=grad(A.selu(v).sum(), v),
                 gsoftsign=grad(A.softsign(v).sum(), v), sm_graph=A.softmax_graph(v))
    check("act", dict(zip(named, jitgraph.function([v], list(named.values()))(
        *inputs("act")))))
    x, W1, b1, W2, b2, t = T.matrix(), T.matrix(), T.vector(), T.tensor3(), T.matrix(), \
        T.ivector()
    hs = h_softmax(x, 4, 5, 3, 2, W1, b1, W2, b2)
    ht = h_softmax(x, 4, 6, 3, 2, W1, b1, W2, b2, t)
    named = dict(all=hs, target=ht, g_all=grad((hs ** 2).sum(), W2),
                 g_target=grad(T.log(ht).sum(), W1))
    fn = jitgraph.function([x, W1, b1, W2, b2, t], list(named.values()))
    check("hsoftmax", dict(zip(named, fn(*inputs("hsoftmax")))))
    a, p = T.ivector(), T.ivector()
    mat, order = jitgraph.function([a, p], confusion_matrix(a, p))(*inputs("confusion"))
    check("confusion", {"mat": mat, "order": order}, rtol=0, atol=0)
    s = T.scalar()
    pr = Pp.prepend_scalar_to_each_row(s, x)
    named = dict(scalar=pr, zero=Pp.prepend_0_to_each_row(x), gx=grad((pr ** 2).sum(), x))
    check("prepend", dict(zip(named, jitgraph.function([s, x], list(named.values()))(
        *inputs("prepend")))))
    check("prepend1", {"one": jitgraph.function([x], Pp.prepend_1_to_each_row(x))(
        *inputs("prepend1"))})


def test_theano_module_paths():
    """What Theano programs import finds the names (``import jitgraph as theano``)."""
    import importlib

    nnet = importlib.import_module("jitgraph.tensor.nnet")
    for name in ("conv2d", "conv3d", "conv2d_transpose", "separable_conv2d", "relu", "elu",
                 "selu", "softsign", "h_softmax", "confusion_matrix", "batch_normalization",
                 "softmax_with_bias", "crossentropy_softmax_1hot_with_bias",
                 "crossentropy_softmax_argmax_1hot_with_bias", "softmax_grad", "SoftmaxGrad",
                 "prepend_0_to_each_row", "softmax_op", "logsoftmax_op", "ConvOp"):
        assert callable(getattr(nnet, name)), name
    for module, names in [("jitgraph.tensor.nnet.abstract_conv", ("conv2d", "AbstractConv2d")),
                          ("jitgraph.tensor.nnet.conv", ("conv2d", "ConvOp")),
                          ("jitgraph.tensor.nnet.bn", ("batch_normalization_train",)),
                          ("jitgraph.tensor.nnet.neighbours", ("images2neibs",)),
                          ("jitgraph.tensor.nnet.corr", ("CorrMM",)),
                          ("jitgraph.tensor.signal.pool", ("pool_2d", "Pool")),
                          ("jitgraph.tensor.signal.conv", ("conv2d",))]:
        mod = importlib.import_module(module)
        for name in names:
            assert hasattr(mod, name), (module, name)


def test_bilinear_upsampling_matches_theano():
    from jitgraph.tensor.convolution import upsampling as U

    for name, kwargs in [("r2", dict(ratio=2)), ("r3", dict(ratio=3, use_1D_kernel=False)),
                         ("frac", dict(frac_ratio=((3, 2), (5, 3)), use_1D_kernel=False))]:
        x, w = T.tensor4(), T.tensor4()
        o = U.bilinear_upsampling(x, **kwargs)
        fn = jitgraph.function([x, w], [o, grad((o * w).sum(), x)])
        got = fn(*inputs(f"upsample_{name}"))
        check(f"upsample_{name}", {"out": got[0], "gx": got[1]})
    rng = np.random.default_rng(0)
    verify_grad(lambda a: U.bilinear_upsampling(a, 3), [rng.normal(size=(1, 1, 2, 3))], rng=rng)
    assert np.allclose(U.bilinear_kernel_2D(2).data, [[.25, .5, .25], [.5, 1, .5], [.25, .5, .25]])
    import pytest

    with pytest.raises(ValueError, match="use_1D_kernel"):
        U.bilinear_upsampling(T.tensor4(), frac_ratio=(3, 2))


def test_bilinear_kernels_of_a_symbolic_ratio():
    # Theano 1.0.5, ratio 3: [1, 2, 3, 2, 1]; normalized [1/3, 2/3, 1, 2/3, 1/3]; the 2-d
    # kernel is their outer product
    import pytest

    from jitgraph.tensor.nnet.abstract_conv import bilinear_kernel_1D, bilinear_kernel_2D

    r = T.iscalar()
    f = jitgraph.function([r], [bilinear_kernel_1D(r, normalize=False), bilinear_kernel_1D(r),
                                bilinear_kernel_2D(r)])
    raw, normalized, square = f(3)
    assert raw.tolist() == [1.0, 2.0, 3.0, 2.0, 1.0]
    np.testing.assert_allclose(normalized, np.array([1, 2, 3, 2, 1]) / 3.0)
    np.testing.assert_allclose(square, np.outer(normalized, normalized))
    with pytest.raises(TypeError, match="integer scalar"):
        bilinear_kernel_1D(T.dscalar())
