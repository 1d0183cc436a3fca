"""Batch normalization (``theano.tensor.nnet.bn``) against Theano 1.0.5's recorded results:
outputs, statistics, running averages, gradients; verify_grad; argument errors."""

from __future__ import annotations

import numpy as np
import pytest
from nnet_oracle import check, inputs

import jitgraph
from jitgraph.tensor.neural import batchnorm as bn
from jitgraph.tensor.core.gradient import grad, verify_grad
from jitgraph.tensor.core.type import TensorType

BN_CASES = [("per_activation", "per-activation"), ("spatial_reduced", "spatial"),
            ("axes02", (0, 2))]


def tensor(nd):
    return TensorType("float64", (False,) * nd).make_variable()


@pytest.mark.parametrize("name,axes", BN_CASES)
def test_train_and_test_match_theano(name, axes):
    values = inputs(f"bn_{name}")
    x, g, b, rm, rv, proj = (tensor(v.ndim) for v in values)
    res = bn.batch_normalization_train(x, g, b, axes=axes, epsilon=1e-3,
                                       running_average_factor=0.2, running_mean=rm,
                                       running_var=rv)
    cost = (res[0] * proj).sum()
    gx, gg, gb = grad(cost, [x, g, b])
    test = bn.batch_normalization_test(x, g, b, rm, rv, axes=axes, epsilon=1e-3)
    tx, tg, tm, tv = grad((test * proj).sum(), [x, g, rm, rv])
    named = dict(out=res[0], mean=res[1], invstd=res[2], rmean=res[3], rvar=res[4], gx=gx,
                 gg=gg, gb=gb, test=test, tx=tx, tg=tg, tm=tm, tv=tv)
    fn = jitgraph.function([x, g, b, rm, rv, proj], list(named.values()))
    check(f"bn_{name}", dict(zip(named, fn(*values))), rtol=1e-9)


@pytest.mark.parametrize("mode", ["low_mem", "high_mem"])
def test_batch_normalization_matches_theano(mode):
    values = inputs(f"bn_plain_{mode}")
    x = tensor(4)
    g, b, m, s = (tensor(1) for _ in range(4))
    o = bn.batch_normalization(x, g, b, m, s, mode=mode)
    grads = grad((o ** 2).sum(), [x, g, b, m, s])
    fn = jitgraph.function([x, g, b, m, s], [o, *grads])
    got = fn(*values)
    check(f"bn_plain_{mode}", {"out": got[0], **{f"g{k}": v for k, v in enumerate(got[1:])}})


def test_verify_grad_and_running_average_updates():
    rng = np.random.default_rng(0)
    xv, gv, bv = rng.normal(size=(4, 3, 2)), rng.uniform(0.5, 1.5, 3), rng.normal(size=3)
    verify_grad(lambda a, g_, b_: bn.batch_normalization_train(a, g_, b_, axes=(0, 2))[0],
                [xv, gv, bv], rng=rng)
    # unlike Theano's, the returned mean and invstd have gradients (Theano: disconnected)
    verify_grad(lambda a: bn.batch_normalization_train(a, gv, bv, axes=(0, 2))[1], [xv],
                rng=rng)
    verify_grad(lambda a: bn.batch_normalization_train(a, gv, bv, axes=(0, 2))[2], [xv],
                rng=rng)
    verify_grad(lambda a, g_: bn.batch_normalization_test(a, g_, g_ * 0.1, g_, g_ + 1.0,
                                                          axes=(0, 2)), [xv, gv], rng=rng)
    # a training loop as users write it: the running averages as shared updates
    x = tensor(3)
    gamma, beta = jitgraph.shared(gv), jitgraph.shared(bv)
    rmean, rvar = jitgraph.shared(np.zeros(3)), jitgraph.shared(np.ones(3))
    out, _, _, new_mean, new_var = bn.batch_normalization_train(
        x, gamma, beta, axes=(0, 2), running_average_factor=0.5, running_mean=rmean,
        running_var=rvar)
    step = jitgraph.function([x], out.sum(), updates=[(rmean, new_mean), (rvar, new_var)])
    step(xv)
    step(xv)
    np.testing.assert_allclose(rmean.get_value(), 0.75 * xv.mean(axis=(0, 2)))
    np.testing.assert_allclose(rvar.get_value(), 0.25 + 0.75 * xv.var(axis=(0, 2), ddof=1))


def test_errors():
    x = tensor(4)
    with pytest.raises(ValueError, match="invalid axes"):
        bn.batch_normalization_train(x, tensor(4), tensor(4), axes="foo")
    with pytest.raises(ValueError, match="dimensions"):
        bn.batch_normalization_train(x, tensor(1), tensor(1), axes="per-activation")
    with pytest.raises(ValueError, match="both running_mean and running_var"):
        bn.batch_normalization_train(x, tensor(4), tensor(4), running_mean=tensor(4))
    with pytest.raises(ValueError, match="mode"):
        bn.batch_normalization(x, 1, 0, 0, 1, mode="medium")
