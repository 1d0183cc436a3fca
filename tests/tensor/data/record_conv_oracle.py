"""Records Theano 1.0.5's results for the cases of ``conv_cases.py`` into
``conv_oracle.npz`` (run under the oracle, never in CI):

    ../shared/tools/theano-oracle tests/tensor/data/record_conv_oracle.py
"""

import os
import sys

import numpy as np
import theano
import theano.tensor as T
from theano.tensor.nnet import abstract_conv as A
from theano.tensor.signal import pool as P

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from conv_cases import (CONV_CASES, POOL3D_CASES, POOL_CASES, conv_inputs,  # noqa: E402
                        pool_input, projection)

out = {}


def tensor(nd, name):
    return T.TensorType("float64", (False,) * nd)(name)


def record(prefix, inputs, outputs, values):
    f = theano.function(inputs, outputs, on_unused_input="ignore")
    for k, v in zip(outputs_names(outputs, prefix), f(*values)):
        out[k] = np.asarray(v)


def outputs_names(outputs, prefix):
    return [f"{prefix}_{n}" for n in outputs.names]


class Named(list):
    def __init__(self, pairs):
        super().__init__(v for _, v in pairs)
        self.names = [n for n, _ in pairs]


for seed, (name, ishp, kshp, bm, sub, flip, dil, groups, unshared) in enumerate(CONV_CASES):
    xv, wv = conv_inputs(CONV_CASES[seed], seed)
    x, w = tensor(len(ishp), "x"), tensor(len(kshp), "w")
    if len(ishp) == 4:
        o = A.conv2d(x, w, border_mode=bm, subsample=sub, filter_flip=flip,
                     filter_dilation=dil, num_groups=groups, unshared=unshared)
    else:
        o = A.conv3d(x, w, border_mode=bm, subsample=sub, filter_flip=flip,
                     filter_dilation=dil, num_groups=groups)
    oshape = theano.function([x, w], o.shape)(xv, wv)
    p = tensor(len(ishp), "p")
    pv = projection(tuple(oshape), seed)
    gx, gw = T.grad((o * p).sum(), [x, w])
    second = (gx ** 2).sum() + (gw ** 2).sum()
    ggx, ggw, ggp = T.grad(second, [x, w, p])
    ex, ew = tensor(len(ishp), "ex"), tensor(len(kshp), "ew")
    rng = np.random.RandomState(seed + 500)
    exv, ewv = rng.uniform(-1, 1, xv.shape), rng.uniform(-1, 1, wv.shape)
    record(f"conv_{name}", [x, w, p, ex, ew],
           Named([("out", o), ("gx", gx), ("gw", gw), ("ggx", ggx), ("ggw", ggw),
                  ("ggp", ggp)]), [xv, wv, pv, exv, ewv])
    try:  # Theano has no R_op for grouped or unshared convolutions
        record(f"conv_{name}", [x, w, ex, ew], Named([("rop", T.Rop(o, [x, w], [ex, ew]))]),
               [xv, wv, exv, ewv])
    except NotImplementedError as exc:
        print("skipped", name, "rop:", exc)

for seed, case in enumerate(POOL_CASES + POOL3D_CASES):
    name, shape, ws, ib, stride, pad, mode = case
    xv = pool_input(shape, seed)
    x = tensor(len(shape), "x")
    fn = P.pool_3d if len(ws) == 3 else P.pool_2d
    o = fn(x, ws, ignore_border=ib, stride=stride, pad=pad, mode=mode)
    oshape = theano.function([x], o.shape)(xv)
    p = tensor(len(shape), "p")
    pv = projection(tuple(oshape), seed)
    gx = T.grad((o * p).sum(), x)
    q = projection(shape, seed + 7)
    ggp = T.grad((gx * q).sum(), p)
    ex = tensor(len(shape), "ex")
    exv = np.random.RandomState(seed + 500).uniform(-1, 1, shape)
    pairs = [("out", o), ("gx", gx), ("ggp", ggp), ("rop", T.Rop(o, x, ex))]
    for key, var in pairs:
        try:
            record(f"pool_{name}", [x, p, ex], Named([(key, var)]), [xv, pv, exv])
        except Exception as exc:  # Theano lacks e.g. the exc_pad gradient with padding
            print("skipped", name, key, type(exc).__name__, str(exc).splitlines()[0])

# max_pool_2d_same_size
xv = pool_input((2, 2, 5, 6), 77)
x = tensor(4, "x")
record("same_size", [x], Named([("out", P.max_pool_2d_same_size(x, (2, 2)))]), [xv])

# conv2d_transpose, separable and causal convolutions, the legacy interfaces
rng = np.random.RandomState(99)
tv, kv = rng.uniform(-1, 1, (2, 4, 5, 5)), rng.uniform(-1, 1, (4, 3, 3, 3))
t, k = tensor(4, "t"), tensor(4, "k")
record("transpose", [t, k], Named([("out", T.nnet.conv2d_transpose(
    t, k, (2, 3, 9, 10), border_mode=1, input_dilation=(2, 2)))]), [tv, kv])
iv = rng.uniform(-1, 1, (2, 2, 7, 6))
dv, pv = rng.uniform(-1, 1, (4, 1, 3, 2)), rng.uniform(-1, 1, (5, 4, 1, 1))
i, d, pw = tensor(4, "i"), tensor(4, "d"), tensor(4, "pw")
record("separable", [i, d, pw], Named([("out", A.separable_conv2d(
    i, d, pw, 2, border_mode="half", subsample=(2, 1)))]), [iv, dv, pv])
sv, fv = rng.uniform(-1, 1, (2, 2, 9)), rng.uniform(-1, 1, (3, 2, 3))
s, f = tensor(3, "s"), tensor(3, "f")
record("causal", [s, f], Named([("out", A.causal_conv1d(s, f, (3, 2, 3), filter_dilation=2))]),
       [sv, fv])
lx, lw = rng.uniform(-1, 1, (2, 3, 6, 7)), rng.uniform(-1, 1, (4, 3, 3, 2))
x, w = tensor(4, "x"), tensor(4, "w")
lo = T.nnet.conv.conv2d(x, w, image_shape=(2, 3, 6, 7), filter_shape=(4, 3, 3, 2),
                        border_mode="full", subsample=(2, 1))
lg = T.grad((lo ** 2).sum(), [x, w])
record("legacy", [x, w], Named([("out", lo), ("gx", lg[0]), ("gw", lg[1])]), [lx, lw])
import theano.tensor.signal.conv as SC  # noqa: E402
a3, b3 = rng.uniform(-1, 1, (2, 5, 6)), rng.uniform(-1, 1, (4, 2, 3))
a, b = tensor(3, "a"), tensor(3, "b")
record("signal", [a, b], Named([("out", SC.conv2d(a, b, border_mode="full"))]), [a3, b3])

np.savez_compressed(os.path.join(HERE, "conv_oracle.npz"), **out)
print(len(out), "arrays")
