"""Pooling against Theano 1.0.5's recorded results (values, gradients, the gradient of the
max-pooling gradient, R-operators) and against a direct loop reference (hypothesis)."""

from __future__ import annotations

import itertools
import warnings
from pathlib import Path

import numpy as np
import pytest
from conv_cases import POOL3D_CASES, POOL_CASES, pool_input, projection
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import jitgraph
from jitgraph.graph.evaluate import evaluate
from jitgraph.tensor.convolution import pool as P
from jitgraph.tensor.core.gradient import grad, verify_grad
from jitgraph.tensor.core.type import TensorType

ORACLE = np.load(Path(__file__).parent / "data" / "conv_oracle.npz")
ALL_CASES = POOL_CASES + POOL3D_CASES


def tensor(nd: int, name: str | None = None, dtype: str = "float64"):
    return TensorType(dtype, (False,) * nd).make_variable(name)


@pytest.mark.parametrize("seed", range(len(ALL_CASES)), ids=[c[0] for c in ALL_CASES])
def test_pool_matches_theano(seed):
    name, shape, ws, ib, stride, pad, mode = ALL_CASES[seed]
    xv = pool_input(shape, seed)
    x, p, ex = tensor(len(shape), "x"), tensor(len(shape), "p"), tensor(len(shape), "ex")
    fn = P.pool_3d if len(ws) == 3 else P.pool_2d
    o = fn(x, ws, ignore_border=ib, stride=stride, pad=pad, mode=mode)
    pv = projection(ORACLE[f"pool_{name}_out"].shape, seed)
    gx = grad((o * p).sum(), x)
    ggp = grad((gx * projection(shape, seed + 7)).sum(), p)
    (rop,) = o.owner.op.R_op(o.owner.inputs, [ex, None, None, None])
    exv = np.random.RandomState(seed + 500).uniform(-1, 1, shape)
    outputs = {"out": o, "gx": gx, "ggp": ggp, "rop": rop}
    compiled = jitgraph.function([x, p, ex], list(outputs.values()), on_unused_input="ignore")
    results = [compiled(xv, pv, exv), evaluate(list(outputs.values()), {x: xv, p: pv, ex: exv})]
    for values in results:
        for key, value in zip(outputs, values):
            if f"pool_{name}_{key}" not in ORACLE:
                continue  # Theano 1.0 has no average_exc_pad gradient with padding
            np.testing.assert_allclose(value, ORACLE[f"pool_{name}_{key}"], rtol=1e-12,
                                       err_msg=f"{name} {key}")


def test_max_pool_2d_same_size_matches_theano():
    x = tensor(4)
    got = jitgraph.function([x], P.max_pool_2d_same_size(x, (2, 2)))(pool_input((2, 2, 5, 6),
                                                                                77))
    np.testing.assert_allclose(got, ORACLE["same_size_out"])


def test_exc_pad_gradient_with_padding():
    """Theano 1.0 refuses this gradient; here it is checked against finite differences."""
    rng = np.random.default_rng(0)
    verify_grad(lambda a: P.pool_2d(a, (3, 2), True, (2, 1), (1, 1), "average_exc_pad"),
                [rng.uniform(size=(1, 2, 5, 6))], rng=rng)


# ---------------------------------------------------------------------------------------------
# Loop reference

def loop_pool(x, ws, stride, pad, ignore_border, mode):
    nd = len(ws)
    lead, size = x.shape[:-nd], x.shape[-nd:]
    outs = [P.ref.out_size_1axis(i, w, s, p, ignore_border)
            for i, w, s, p in zip(size, ws, stride, pad)]
    out = np.zeros(lead + tuple(outs))
    for o in itertools.product(*(range(n) for n in outs)):
        lo = [k * s - p for k, s, p in zip(o, stride, pad)]
        hi = [min(a + w, i + p) for a, w, i, p in zip(lo, ws, size, pad)]
        real = tuple(slice(max(a, 0), min(b, i)) for a, b, i in zip(lo, hi, size))
        window = x[(Ellipsis, *real)].reshape(lead + (-1,))
        if mode == "max":
            value = window.max(axis=-1)
        else:
            value = window.sum(axis=-1)
            if mode == "average_inc_pad":
                value = value / np.prod([b - max(a, -p) for a, b, p in zip(lo, hi, pad)])
            elif mode == "average_exc_pad":
                value = value / window.shape[-1]
        out[(Ellipsis, *o)] = value
    return out


@st.composite
def pool_problem(draw):
    nd = draw(st.sampled_from([1, 2, 2, 3]))
    ws = [draw(st.integers(1, 3)) for _ in range(nd)]
    stride = [draw(st.integers(1, 3)) for _ in range(nd)]
    ignore_border = draw(st.booleans())
    pad = [draw(st.integers(0, w - 1)) if ignore_border else 0 for w in ws]
    size = [draw(st.integers(1, 7)) for _ in range(nd)]
    lead = [draw(st.integers(1, 2)) for _ in range(draw(st.integers(0, 2)))]
    mode = draw(st.sampled_from(P.ref.MODES))
    return tuple(lead + size), ws, stride, pad, ignore_border, mode


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pool_problem(), st.sampled_from(["float64", "float32"]), st.integers(0, 2**16))
def test_pool_matches_loops(problem, dtype, seed):
    shape, ws, stride, pad, ignore_border, mode = problem
    nd = len(ws)
    xv = (np.round(np.random.default_rng(seed).uniform(-2, 2, shape) * 2) / 2).astype(dtype)
    x = tensor(len(shape), "x", dtype)
    o = P.Pool(ignore_border, mode, nd)(x, ws, stride, pad)
    expected = loop_pool(xv.astype("float64"), ws, stride, pad, ignore_border, mode)
    got = jitgraph.function([x], o)(xv)
    assert got.dtype == dtype and got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)
    if got.size == 0:
        return
    # gradients are adjoints: <pool(x), g> == <x, grad> for the linear modes; for max, the
    # gradient is g at the maxima
    g = tensor(len(shape), "g", dtype)
    gv = np.random.default_rng(seed + 1).uniform(0.5, 1.5, expected.shape).astype(dtype)
    gx = grad((o * g).sum(), x)
    gxv = jitgraph.function([x, g], gx)(xv, gv)
    np.testing.assert_allclose(gxv, evaluate(gx, {x: xv, g: gv}), rtol=1e-5, atol=1e-6)
    if mode != "max":
        np.testing.assert_allclose((gxv.astype("float64") * xv).sum(), (expected * gv).sum(),
                                   rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------------------------------------
# Gradients, shapes, errors

@pytest.mark.parametrize("mode", P.ref.MODES)
@pytest.mark.parametrize("ignore_border,stride,pad", [(True, (2, 1), (1, 0)),
                                                       (False, (2, 3), (0, 0))])
def test_verify_grad(mode, ignore_border, stride, pad):
    rng = np.random.default_rng(1)
    # distinct values: the max is differentiable there
    xv = rng.permutation(40).reshape(1, 2, 4, 5) / 10.0
    verify_grad(lambda a: P.Pool(ignore_border, mode)(a, (2, 3), stride, pad), [xv], rng=rng)


def test_second_order_max_pool_gradient():
    rng = np.random.default_rng(2)
    xv = rng.permutation(36).reshape(1, 1, 6, 6) / 10.0
    x = tensor(4)
    o = P.pool_2d(x, (2, 2), ignore_border=True)
    gz = rng.uniform(size=(1, 1, 3, 3))
    # MaxPoolGrad and DownsampleFactorMaxGradGrad are linear in their last array input
    verify_grad(lambda g: P.MaxPoolGrad(True)(xv, evaluate(o, {x: xv}), g, (2, 2)), [gz],
                rng=rng)
    verify_grad(lambda gg: P.DownsampleFactorMaxGradGrad(True)(xv, evaluate(o, {x: xv}), gg,
                                                               (2, 2)), [xv * 0.5 + 1],
                rng=rng)
    ggx = grad(grad(o.sum() ** 2, x).sum(), x)
    assert evaluate(ggx, {x: xv}).shape == xv.shape


def test_infer_shape(infer_shape_ok):
    x, gz = tensor(4), tensor(4)
    xv = np.random.default_rng(0).uniform(size=(2, 3, 7, 5))
    for ib, stride, pad in [(True, (2, 2), (1, 0)), (False, (1, 3), (0, 0)),
                            (False, (2, 2), (0, 0))]:
        o = P.Pool(ib)(x, (3, 2), stride, pad)
        gzv = evaluate(o, {x: xv})
        infer_shape_ok(o, {x: xv})
        infer_shape_ok(P.MaxPoolGrad(ib)(x, o, gz, (3, 2), stride, pad), {x: xv, gz: gzv})
        infer_shape_ok(P.AveragePoolGrad(ib)(x, gz, (3, 2), stride, pad), {x: xv, gz: gzv})
        infer_shape_ok(P.DownsampleFactorMaxGradGrad(ib)(x, o, x, (3, 2), stride, pad),
                       {x: xv})
        assert P.Pool.out_shape(xv.shape, (3, 2), ib, stride, pad) == list(gzv.shape)
    ws = TensorType("int64", (False,)).make_variable("ws")
    o = P.Pool(True)(x, ws)
    infer_shape_ok(o, {x: xv, ws: np.array([2, 3])})
    assert evaluate(o, {x: xv, ws: np.array([2, 3])}).shape == (2, 3, 3, 1)


def test_pool_2d_arguments_and_errors():
    x = tensor(4)
    with pytest.warns(UserWarning, match="ignore_border"):
        P.pool_2d(x, (2, 2))
    with pytest.warns(UserWarning, match="'ds' is deprecated"):
        o = P.pool_2d(x, ds=(2, 2), ignore_border=True)
    assert o.owner.op == P.Pool(True, "max", 2)
    with pytest.raises(NotImplementedError, match="ignore_border=True"):
        P.pool_2d(x, (2, 2), ignore_border=False, pad=(1, 1))
    with pytest.raises(NotImplementedError, match="smaller than the window"):
        P.pool_2d(x, (2, 2), ignore_border=True, pad=(2, 0))
    with pytest.raises(ValueError, match="mode"):
        P.pool_2d(x, (2, 2), ignore_border=True, mode="median")
    with pytest.raises(NotImplementedError, match="2 or more dimensions"):
        P.pool_2d(tensor(1), (2, 2), ignore_border=True)
    with pytest.raises(ValueError, match="2 entries"):
        P.pool_2d(x, (2, 2, 2), ignore_border=True)
    m = tensor(2)
    assert evaluate(P.pool_2d(m, (2, 2), ignore_border=True),
                    {m: np.arange(16.0).reshape(4, 4)}).tolist() == [[5, 7], [13, 15]]
    i = TensorType("int32", (False,) * 4).make_variable()
    avg = P.pool_2d(i, (2, 2), ignore_border=True, mode="average_inc_pad")
    assert avg.dtype == "int32"
    assert evaluate(avg, {i: np.array([[[[1, 2], [2, 2]]]], "int32")}).item() == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        P.pool_3d(tensor(5), (2, 2, 2), ignore_border=True)
