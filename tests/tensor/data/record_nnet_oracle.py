"""Records Theano 1.0.5's results for batch normalization, neighbours and the other
``theano.tensor.nnet`` functions into ``nnet_oracle.npz`` (run under the oracle, never in CI):

    ../shared/tools/theano-oracle tests/tensor/data/record_nnet_oracle.py

The inputs are stored too (``{prefix}_in{k}``); the tests (``test_bn.py``,
``test_neighbours.py``, ``test_nnet_extras.py``) build the same graphs on them.
"""

import os

import numpy as np
import theano
import theano.tensor as T
import theano.tensor.nnet as N
from theano.tensor.nnet import bn, neighbours

HERE = os.path.dirname(os.path.abspath(__file__))
out = {}


def record(prefix, inputs, named, values):
    """Theano's values of ``named`` graphs, and the inputs (``{prefix}_in{k}``)."""
    names = list(named)
    fn = theano.function(inputs, [named[n] for n in names], on_unused_input="ignore")
    for name, value in zip(names, fn(*values)):
        out[f"{prefix}_{name}"] = np.asarray(value)
    for k, value in enumerate(values):
        out[f"{prefix}_in{k}"] = np.asarray(value)


def tensor(nd):
    return T.TensorType("float64", (False,) * nd)()


# -- batch normalization --------------------------------------------------------------------
rng = np.random.RandomState(10)
BN_CASES = [("per_activation", (5, 4), "per-activation", (1, 4)),
            ("spatial_reduced", (3, 2, 4, 5), "spatial", (2,)),
            ("axes02", (3, 2, 4, 5), (0, 2), (1, 2, 1, 5))]
for name, xshape, axes, pshape in BN_CASES:
    x, g, b, rm, rv = tensor(len(xshape)), tensor(len(pshape)), tensor(len(pshape)), \
        tensor(len(pshape)), tensor(len(pshape))
    vals = [rng.randn(*xshape), rng.rand(*pshape) + 0.5, rng.randn(*pshape),
            rng.randn(*pshape), rng.rand(*pshape) + 0.5]
    res = bn.batch_normalization_train(x, g, b, axes=axes, epsilon=1e-3,
                                       running_average_factor=0.2, running_mean=rm,
                                       running_var=rv)
    proj = tensor(len(xshape))
    vals.append(rng.rand(*xshape))
    # (Theano treats the mean and invstd outputs as disconnected from gradients)
    cost = (res[0] * proj).sum()
    gx, gg, gb = T.grad(cost, [x, g, b])
    test = bn.batch_normalization_test(x, g, b, rm, rv, axes=axes, epsilon=1e-3)
    tx, tg, tm, tv = T.grad((test * proj).sum(), [x, g, rm, rv])
    record(f"bn_{name}", [x, g, b, rm, rv, proj],
           dict(out=res[0], mean=res[1], invstd=res[2], rmean=res[3], rvar=res[4], gx=gx, gg=gg,
                gb=gb, test=test, tx=tx, tg=tg, tm=tm, tv=tv), vals)
x, g, b, m, s = tensor(4), T.vector(), T.vector(), T.vector(), T.vector()
vals = [rng.randn(2, 3, 2, 4), rng.rand(4), rng.randn(4), rng.randn(4), rng.rand(4) + 0.5]
for mode in ("low_mem", "high_mem"):
    o = bn.batch_normalization(x, g, b, m, s, mode=mode)
    grads = T.grad((o ** 2).sum(), [x, g, b, m, s])
    record(f"bn_plain_{mode}", [x, g, b, m, s],
           dict(out=o, **{f"g{k}": v for k, v in enumerate(grads)}), vals)

# -- neighbours -----------------------------------------------------------------------------
NEIB_CASES = [("valid_step", (1, 3), None, "valid"), ("valid_overlap", (3, 2), (1, 2), "valid"),
              ("ignore", (2, 4), None, "ignore_borders"),
              ("ignore_step", (2, 2), (3, 3), "ignore_borders"),
              ("wrap", (3, 3), None, "wrap_centered"), ("wrap_step", (3, 3), (2, 2),
                                                        "wrap_centered"),
              ("half", (3, 5), (2, 1), "half"), ("full", (2, 3), (1, 1), "full")]
x = tensor(4)
xv = rng.randn(2, 2, 5, 6)
for name, shape, step, mode in NEIB_CASES:
    o = neighbours.images2neibs(x, shape, step, mode=mode)
    record(f"neib_{name}", [x], dict(out=o), [xv])
    if step is None and mode in ("valid", "ignore_borders"):
        w = T.matrix()
        wv = np.random.RandomState(3).rand(*theano.function([x], o.shape)(xv))
        record(f"neib_{name}_g", [x, w], dict(grad=T.grad((o * w).sum(), x)), [xv, wv])
n = T.matrix()
nv = rng.randn(8, 6)
for mode in ("valid", "ignore_borders"):
    record(f"neib2img_{mode}", [n], dict(out=neighbours.neibs2images(n, (2, 3), (2, 1, 4, 6),
                                                                     mode=mode)), [nv])
record("neib2img_ignore_pad", [n], dict(out=neighbours.neibs2images(
    n, (2, 2), (1, 2, 5, 4), mode="ignore_borders")), [rng.randn(8, 4)])

# -- other nnet functions -------------------------------------------------------------------
x, b, y, v = T.matrix(), T.vector(), T.ivector(), T.vector()
xv, bv, yv = rng.randn(4, 5), rng.randn(5), np.array([1, 4, 0, 2], "int32")
nll, sm, am = N.crossentropy_softmax_argmax_1hot_with_bias(x, b, y)
proj = T.matrix()
gx, gb = T.grad(nll.sum() + (sm * proj).sum(), [x, b])
mx = N.crossentropy_softmax_max_and_argmax_1hot(x, y)
swb = N.softmax_with_bias(x, b)
sg = N.softmax_grad(x * 2, N.softmax(x))
dnll = T.vector()
dx = N.crossentropy_softmax_1hot_with_bias_dx(dnll, N.softmax(x), y)
record("xent", [x, b, y, dnll, proj],
       dict(nll=nll, sm=sm, am=am, gx=gx, gb=gb, max=mx[2], argmax=mx[3], nll1=mx[0],
            swb=swb, swb_gx=T.grad((swb * proj).sum(), x), sg=sg,
            sg_gx=T.grad((sg * proj).sum(), x), dx=dx,
            dx_gx=T.grad((dx * proj).sum(), x), dx_gd=T.grad((dx * proj).sum(), dnll)),
       [xv, bv, yv, rng.rand(4), rng.rand(4, 5)])
vv = rng.randn(7) * 2
record("act", [v], dict(selu=N.selu(v), softsign=N.softsign(v),
                        gselu=T.grad(N.selu(v).sum(), v), gsoftsign=T.grad(N.softsign(v).sum(), v),
                        sm_graph=N.softmax_graph(v)), [vv])
W1, b1, W2, b2, t = T.matrix(), T.vector(), T.tensor3(), T.matrix(), T.ivector()
hv = [rng.randn(4, 5), rng.randn(5, 3), rng.randn(3), rng.randn(3, 5, 2), rng.randn(3, 2),
      np.array([0, 5, 3, 1], "int32")]
hs = N.h_softmax(x, 4, 5, 3, 2, W1, b1, W2, b2)
ht = N.h_softmax(x, 4, 6, 3, 2, W1, b1, W2, b2, t)
record("hsoftmax", [x, W1, b1, W2, b2, t],
       dict(all=hs, target=ht, g_all=T.grad((hs ** 2).sum(), W2),
            g_target=T.grad(T.log(ht).sum(), W1)), hv)
a, p = T.ivector(), T.ivector()
cm = N.confusion_matrix(a, p)
record("confusion", [a, p], dict(mat=cm[0], order=cm[1]),
       [np.array([3, 1, 3, 7, 1], "int32"), np.array([0, 1, 3, 3, 7], "int32")])
s = T.scalar()
pr = N.prepend_scalar_to_each_row(s, x)  # (Theano's gradient with respect to s is broken)
record("prepend", [s, x], dict(scalar=pr, zero=N.prepend_0_to_each_row(x),
                               gx=T.grad((pr ** 2).sum(), x)),
       [np.asarray(2.5), xv])
# alone: in one function with prepend_0, Theano's merge takes the two constant ops for one
record("prepend1", [x], dict(one=N.prepend_1_to_each_row(x)), [xv])

# -- bilinear upsampling --------------------------------------------------------------------
from theano.tensor.nnet import abstract_conv as A  # noqa: E402

x, w = tensor(4), tensor(4)
xv = rng.randn(2, 2, 3, 4)
for name, kwargs in [("r2", dict(ratio=2)), ("r3", dict(ratio=3, use_1D_kernel=False)),
                     ("frac", dict(frac_ratio=((3, 2), (5, 3)), use_1D_kernel=False))]:
    o = A.bilinear_upsampling(x, **kwargs)
    shape = theano.function([x], o.shape)(xv)
    record(f"upsample_{name}", [x, w], dict(out=o, gx=T.grad((o * w).sum(), x)),
           [xv, rng.rand(*shape)])

np.savez_compressed(os.path.join(HERE, "nnet_oracle.npz"), **out)
print(len(out), "arrays")
