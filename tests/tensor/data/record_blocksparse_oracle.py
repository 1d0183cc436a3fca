"""Record Theano 1.0.5's sparse_block_dot / SparseBlockOuter results (and the gradients of the
product) into blocksparse_oracle.npz; run with the Theano oracle's Python."""

import sys

import numpy as np
import theano
import theano.tensor as T
from theano.tensor.nnet.blocksparse import sparse_block_dot, sparse_block_outer

out = {}
rng = np.random.RandomState(42)
# (name, iBlocks, oBlocks, iSize, oSize, batch, iWin, oWin); batch None: h is one example
CASES = [("small", 4, 3, 2, 3, 2, 2, 2), ("wide", 6, 5, 3, 4, 3, 3, 2),
         ("repeat", 3, 2, 2, 2, 2, 3, 3), ("single", 5, 4, 3, 2, None, 2, 3)]
for name, ib, ob, isz, osz, batch, iwin, owin in CASES:
    lead = () if batch is None else (batch,)
    W = rng.randn(ib, ob, isz, osz)
    h = rng.randn(*lead, iwin, isz)
    b = rng.randn(ob, osz)
    iidx = rng.randint(0, ib, size=lead + (iwin,)).astype("int32")
    oidx = rng.randint(0, ob, size=lead + (owin,)).astype("int32")
    if name == "repeat":  # blocks named twice in one example
        iidx[0] = [1, 1, 0]
        oidx[0] = [0, 0, 1]
    tW, tb = T.dtensor4(), T.dmatrix()
    th = T.dtensor3() if batch is not None else T.dmatrix()
    ti = T.imatrix() if batch is not None else T.ivector()
    to = T.imatrix() if batch is not None else T.ivector()
    y = sparse_block_dot(tW, th, ti, tb, to)
    cost = (y * T.cos(T.arange(y.size).reshape(y.shape))).sum()
    f = theano.function([tW, th, ti, tb, to], [y] + T.grad(cost, [tW, th, tb]))
    res = f(W, h, iidx, b, oidx)
    for k, v in enumerate([W, h, iidx, b, oidx]):
        out[f"dot_{name}_in{k}"] = v
    for key, v in zip(("out", "gW", "gh", "gb"), res):
        out[f"dot_{name}_{key}"] = v
    if batch is not None:
        o = rng.randn(ib, ob, isz, osz)
        yv = rng.randn(batch, owin, osz)
        to4, tx, ty = T.dtensor4(), T.dtensor3(), T.dtensor3()
        g = theano.function([to4, tx, ty, ti, to], sparse_block_outer(to4, tx, ty, ti, to))
        for k, v in enumerate([o, h, yv, iidx, oidx]):
            out[f"outer_{name}_in{k}"] = v
        out[f"outer_{name}_out"] = g(o, h, yv, iidx, oidx)
np.savez_compressed(sys.argv[1], **out)
