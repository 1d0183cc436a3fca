"""The Numba path: kernels the direct compiler leaves to Numba (or all of them, with
``JITGRAPH_DIRECT=0``) compute the same results, and a kernel outside the direct compiler's
subset is compiled by Numba without the user noticing."""

from __future__ import annotations

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph.backend_cpu.codegen import kernels
from jitgraph.backend_cpu.native import direct


@pytest.fixture
def numba_only(monkeypatch):
    """Every kernel compiled by Numba, in memory (nothing loaded from the compiledir)."""
    monkeypatch.setenv("JITGRAPH_DIRECT", "0")
    monkeypatch.setattr(kernels, "DISK_CACHE", False)
    kernels.clear_memo()
    start = len(kernels.COMPILE_LOG)
    yield lambda: kernels.COMPILE_LOG[start:]
    kernels.clear_memo()


def _training_step():
    x, y = T.dmatrix("x"), T.dvector("y")
    w = jitgraph.shared(np.linspace(-0.5, 0.5, 6), name="w")
    p = T.nnet.sigmoid(T.dot(x, w))
    xent = -y * T.log(p) - (1 - y) * T.log(1 - p)
    cost = xent.mean() + 0.01 * (w ** 2).sum()
    gw = T.grad(cost, w)
    f = jitgraph.function([x, y], [cost, T.argmax(x, axis=1), T.nnet.softmax(x)],
                          updates=[(w, w - 0.1 * gw)])
    return f, w


def _reference(x, y, w):
    p = 1 / (1 + np.exp(-(x @ w)))
    cost = np.mean(-y * np.log(p) - (1 - y) * np.log(1 - p)) + 0.01 * np.sum(w ** 2)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return cost, x.argmax(axis=1), e / e.sum(axis=1, keepdims=True)


@pytest.mark.slow
def test_numba_compiled_kernels_match_numpy(numba_only):
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(9, 6)), (rng.random(9) > 0.5).astype("float64")
    f, w = _training_step()
    expected = _reference(x, y, w.get_value())
    cost, arg, soft = f(x[:, ::-1][:, ::-1], y)  # a strided view: the 'A' entries too
    np.testing.assert_allclose(cost, expected[0], rtol=1e-12)
    np.testing.assert_array_equal(arg, expected[1])
    np.testing.assert_allclose(soft, expected[2], rtol=1e-12)
    compiled = numba_only()
    assert compiled and not any(r.description.startswith("direct") for r in compiled)


def test_construct_outside_the_subset_goes_to_numba(monkeypatch):
    """Float floor division is not translated: the kernel is Numba's, the result is right."""
    monkeypatch.setattr(kernels, "DISK_CACHE", False)
    kernels.clear_memo()
    start = len(kernels.COMPILE_LOG)
    x, y = T.dvectors("x", "y")
    f = jitgraph.function([x, y], x // y)
    a, b = np.array([7.5, -7.5, 1.0, 0.5]), np.array([2.0, 2.0, -0.3, 0.0])
    with np.errstate(divide="ignore", invalid="ignore"):
        np.testing.assert_array_equal(f(a, b), a // b)
    assert any("FloorDiv on floats" in why for _, why in direct.FALLBACKS)
    compiled = kernels.COMPILE_LOG[start:]
    assert compiled and not compiled[0].description.startswith("direct")
    kernels.clear_memo()
