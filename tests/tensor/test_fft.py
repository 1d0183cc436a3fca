"""``theano.tensor.fft``: rfft/irfft values and gradients against Theano 1.0.5's recorded ones
(``data/linalg_oracle.npz``), against ``numpy.fft`` for n-d inputs, ``verify_grad``, compiled
against ``perform``, and errors."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgraph
import jitgraph.tensor as T
from jitgraph.tensor.linalg import fft

HERE = os.path.dirname(os.path.abspath(__file__))
REC = np.load(os.path.join(HERE, "data", "linalg_oracle.npz"))
PY = jitgraph.Mode(linker="py", optimizer="None")
COMPILED = jitgraph.Mode(linker="cvm", optimizer="fast_run")
NORMS = [None, "ortho", "no_norm"]


def check_recorded(mode, name, x, value, out, weights):
    np.testing.assert_allclose(jitgraph.function([x], out, mode=mode)(value), REC[name],
                               rtol=1e-9, atol=1e-12)
    grad = jitgraph.function([x], T.grad((out * weights).sum(), x), mode=mode)(value)
    np.testing.assert_allclose(grad, REC[f"{name}_g0"], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("mode", [PY, COMPILED], ids=["py", "compiled"])
@pytest.mark.parametrize("norm", NORMS)
def test_values_and_gradients_match_theano(mode, norm):
    m, t3 = T.dmatrix("m"), T.dtensor3("t3")
    check_recorded(mode, f"rfft_{norm}", m, REC["X"], fft.rfft(m, norm=norm),
                   REC[f"rfft_W_{norm}"])
    check_recorded(mode, f"rfft_odd_{norm}", m, REC["Xo"], fft.rfft(m, norm=norm),
                   REC[f"rfft_Wo_{norm}"])
    check_recorded(mode, f"irfft_{norm}", t3, REC["Z"], fft.irfft(t3, norm=norm), REC["Wi"])
    check_recorded(mode, f"irfft_odd_{norm}", t3, REC["Zo"],
                   fft.irfft(t3, norm=norm, is_odd=True), REC["Wio"])


def _pairs(z):
    return np.stack([z.real, z.imag], axis=-1)


@settings(max_examples=10, deadline=None)
@given(shape=st.lists(st.integers(1, 5), min_size=2, max_size=4), seed=st.integers(0, 2 ** 16))
def test_nd_transforms_match_numpy(shape, seed):
    x = np.random.RandomState(seed).rand(*shape)
    axes = tuple(range(1, x.ndim))
    t = T.TensorType("float64", (False,) * x.ndim)("t")
    f = fft.rfft(t, norm="ortho")
    outs = [fft.rfft(t), f, fft.irfft(f, norm="ortho", is_odd=shape[-1] % 2 == 1)]
    compiled = jitgraph.function([t], outs, mode=COMPILED)(x)
    reference = jitgraph.function([t], outs, mode=PY)(x)
    for got, ref in zip(compiled, reference):
        np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(compiled[0], _pairs(np.fft.rfftn(x, axes=axes)), atol=1e-10)
    np.testing.assert_allclose(compiled[1], _pairs(np.fft.rfftn(x, axes=axes, norm="ortho")),
                               atol=1e-10)
    np.testing.assert_allclose(compiled[2], x, atol=1e-10)  # the round trip


@pytest.mark.parametrize("shape", [(2, 6), (2, 5), (1, 3, 4), (2, 3, 5)])
@pytest.mark.parametrize("norm", NORMS)
def test_verify_grad(shape, norm):
    rng = np.random.RandomState(7)
    x = rng.rand(*shape)
    T.verify_grad(lambda a: fft.rfft(a, norm=norm), [x], rng=rng)
    spectrum = rng.rand(*shape[:-1], shape[-1] // 2 + 1, 2)
    odd = shape[-1] % 2 == 1
    T.verify_grad(lambda a: fft.irfft(a, norm=norm, is_odd=odd), [spectrum], rng=rng)


def test_ops_and_dtypes():
    m, f32, i = T.dmatrix("m"), T.fmatrix("f"), T.imatrix("i")
    assert fft.rfft(f32).dtype == "float32" and fft.rfft(i).dtype == "float64"
    out = fft.rfft_op(m, np.array([8]))
    assert out.ndim == 3 and str(out.owner.op) == "RFFTOp" and str(fft.irfft_op) == "IRFFTOp"
    value = np.ones((1, 4))
    np.testing.assert_allclose(jitgraph.function([m], fft.rfft(m))(value),
                               [[[4.0, 0.0], [0.0, 0.0], [0.0, 0.0]]])
    t3 = T.dtensor3("t")
    np.testing.assert_allclose(jitgraph.function([t3], fft.irfft(t3))(np.ones((1, 3, 2))),
                               [[1.0, -0.5, 0.0, 0.5]])
    assert T.fft is fft
    assert all(hasattr(fft, n) for n in ("DisconnectedType", "IRFFTOp", "RFFTOp", "irfft",
                                         "irfft_op", "rfft", "rfft_op"))


def test_errors():
    with pytest.raises(TypeError, match="2 or more dimensions"):
        fft.rfft(T.dvector("v"))
    with pytest.raises(TypeError, match="3 or more dimensions"):
        fft.irfft(T.dmatrix("m"))
    with pytest.raises(ValueError, match="invalid value 'foo' for norm"):
        fft.rfft(T.dmatrix(), norm="foo")
    with pytest.raises(ValueError, match="is_odd must be True or False"):
        fft.irfft(T.dtensor3(), is_odd=3)
    with pytest.raises(TypeError, match="must be real"):
        fft.rfft(T.zmatrix("z"))
    with pytest.raises(TypeError, match="s must be an integer vector"):
        fft.rfft_op(T.dmatrix(), T.dvector())
