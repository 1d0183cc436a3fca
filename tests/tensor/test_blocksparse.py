"""theano.tensor.nnet.blocksparse: sparse_block_dot (values and gradients) and SparseBlockOuter
against Theano 1.0.5's recorded results (data/record_blocksparse_oracle.py) and a loop in
NumPy; gradients by verify_grad; the in-place variants and shapes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import jitgraph
from jitgraph.tensor.core.gradient import grad, verify_grad
from jitgraph.tensor.nnet import blocksparse as B
from jitgraph.tensor.core.type import TensorType

DATA = np.load(Path(__file__).parent / "data" / "blocksparse_oracle.npz")


def tensor(nd, dtype="float64"):
    return TensorType(dtype, (False,) * nd).make_variable()


def recorded(prefix):
    values, k = [], 0
    while f"{prefix}_in{k}" in DATA:
        values.append(DATA[f"{prefix}_in{k}"])
        k += 1
    return values


def loop_dot(W, h, iidx, b, oidx):
    out = np.zeros(oidx.shape + (W.shape[3],))
    for n in range(h.shape[0]):
        for j in range(oidx.shape[1]):
            out[n, j] = b[oidx[n, j]] + sum(h[n, i] @ W[iidx[n, i], oidx[n, j]]
                                            for i in range(h.shape[1]))
    return out


@pytest.mark.parametrize("name", ["small", "wide", "repeat", "single"])
def test_sparse_block_dot_matches_theano(name):
    W, h, iidx, b, oidx = recorded(f"dot_{name}")
    tW, th, tb = tensor(4), tensor(h.ndim), tensor(2)
    ti, to = tensor(iidx.ndim, "int32"), tensor(oidx.ndim, "int32")
    y = B.sparse_block_dot(tW, th, ti, tb, to)
    cost = (y * jitgraph.tensor.cos(jitgraph.tensor.arange(y.size).reshape(y.shape))).sum()
    f = jitgraph.function([tW, th, ti, tb, to], [y] + grad(cost, [tW, th, tb]))
    for key, got in zip(("out", "gW", "gh", "gb"), f(W, h, iidx, b, oidx)):
        np.testing.assert_allclose(got, DATA[f"dot_{name}_{key}"], rtol=1e-12, atol=1e-12,
                                   err_msg=f"{name} {key}")
    if h.ndim == 3:
        np.testing.assert_allclose(f(W, h, iidx, b, oidx)[0], loop_dot(W, h, iidx, b, oidx),
                                   rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["small", "wide", "repeat"])
def test_sparse_block_outer_matches_theano(name):
    o, x, y, xidx, yidx = recorded(f"outer_{name}")
    to4, tx, ty, ti, tj = tensor(4), tensor(3), tensor(3), tensor(2, "int32"), tensor(2, "int32")
    f = jitgraph.function([to4, tx, ty, ti, tj], B.sparse_block_outer(to4, tx, ty, ti, tj))
    np.testing.assert_allclose(f(o, x, y, xidx, yidx), DATA[f"outer_{name}_out"], rtol=1e-12,
                               atol=1e-12)


def test_gradients_verify_grad():
    rng = np.random.default_rng(3)
    W, h, b = rng.normal(size=(5, 4, 3, 2)), rng.normal(size=(2, 3, 3)), rng.normal(size=(4, 2))
    iidx = np.array([[0, 2, 2], [4, 1, 0]], dtype="int32")
    oidx = np.array([[1, 3], [0, 0]], dtype="int32")
    verify_grad(lambda W, h, b: B.sparse_block_dot(W, h, iidx, b, oidx), [W, h, b], rng=rng)
    o, y = rng.normal(size=(5, 4, 3, 2)), rng.normal(size=(2, 2, 2))
    verify_grad(lambda o, x, y, a: B.sparse_block_outer(o, x, y, iidx, oidx, a),
                [o, h, y, np.asarray(0.7)], rng=rng)


def test_alpha_scales_outer_products():
    rng = np.random.default_rng(4)
    o, x, y = rng.normal(size=(3, 2, 2, 2)), rng.normal(size=(1, 2, 2)), rng.normal(size=(1, 1, 2))
    xidx, yidx = np.array([[2, 2]], "int32"), np.array([[1]], "int32")
    got = B.sparse_block_outer(o, x, y, xidx, yidx, np.float64(0.5)).eval()
    want = o.copy()
    want[2, 1] += 0.5 * (np.outer(x[0, 0], y[0, 0]) + np.outer(x[0, 1], y[0, 0]))
    np.testing.assert_allclose(got, want, rtol=1e-14)


def test_inplace_variants_and_rewrite():
    assert B.sparse_block_gemv_inplace.destroy_map == {0: [0]}
    assert B.sparse_block_outer_inplace.destroy_map == {0: [0]}
    assert not B.sparse_block_gemv.destroy_map
    W, h, b = tensor(4), tensor(3), tensor(2)
    i, j = tensor(2, "int32"), tensor(2, "int32")
    f = jitgraph.function([W, h, i, b, j], B.sparse_block_dot(W, h, i, b, j))
    ops = [n.op for n in f.maker.fgraph.toposort()]
    assert B.sparse_block_gemv_inplace in ops
    # an input the user passed is not overwritten
    o = tensor(3)
    g = jitgraph.function([o, W, h, i, j], B.sparse_block_gemv(o, W, h, i, j))
    assert B.sparse_block_gemv in [n.op for n in g.maker.fgraph.toposort()]
    ov = np.ones((1, 1, 2))
    g(ov, np.ones((1, 1, 2, 2)), np.ones((1, 1, 2)), [[0]], [[0]])
    assert (ov == 1).all()


def test_infer_shape(infer_shape_ok):
    rng = np.random.default_rng(5)
    o, W, h = tensor(3), tensor(4), tensor(3)
    i, j = tensor(2, "int32"), tensor(2, "int32")
    out = B.sparse_block_gemv(o, W, h, i, j)
    vals = {o: rng.normal(size=(2, 3, 4)), W: rng.normal(size=(5, 6, 2, 4)),
            h: rng.normal(size=(2, 1, 2)), i: np.zeros((2, 1), "int32"),
            j: np.ones((2, 3), "int32")}
    infer_shape_ok(out, vals)


def test_errors_name_the_input():
    with pytest.raises(TypeError, match="weights W"):
        B.sparse_block_gemv(tensor(3), tensor(3), tensor(3), tensor(2, "int32"),
                            tensor(2, "int32"))
    with pytest.raises(TypeError, match="integer dtype"):
        B.sparse_block_gemv(tensor(3), tensor(4), tensor(3), tensor(2), tensor(2, "int32"))
    with pytest.raises(TypeError, match="one dimension less"):
        B.sparse_block_dot(tensor(4), tensor(3), tensor(1, "int32"), tensor(2),
                           tensor(1, "int32"))


def test_theano_module_path():
    import importlib

    mod = importlib.import_module("jitgraph.tensor.nnet.blocksparse")
    for name in ("SparseBlockGemv", "SparseBlockOuter", "sparse_block_dot", "sparse_block_gemv",
                 "sparse_block_outer", "sparse_block_gemv_inplace", "sparse_block_outer_inplace"):
        assert hasattr(mod, name)
    import jitgraph.tensor.nnet as nnet
    assert nnet.blocksparse is mod
