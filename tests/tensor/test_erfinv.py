"""``T.erfinv``: the first row added to the scalar-op table in one place (its expression calls
``special_math.erfinv``). Values against SciPy, the compiled kernels against the NumPy
reference, the gradient, dtypes and names against Theano 1.0.5's."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import jitgraph
import jitgraph.scalar as S
import jitgraph.tensor as T

scipy_special = pytest.importorskip("scipy.special")

#: recorded with Theano 1.0.5: f = function([x], [erfinv(x) * 2, grad(sum(erfinv(x)), x)])
THEANO_X = np.array([-0.5, 0.0, 0.3, 0.99])
THEANO_DOUBLED = np.array([-0.95387255, 0.0, 0.54492543, 3.64277274])
THEANO_GRAD = np.array([1.11258482, 0.88622693, 0.95452036, 24.45087647])


def _inputs(dtype: str) -> np.ndarray:
    tails = 1.0 - np.logspace(-15, -1, 30)
    x = np.concatenate([np.linspace(-1, 1, 101), tails, -tails, np.logspace(-300, -1, 20),
                        [np.nan, 1.5, -1.5, np.inf, -0.0]])
    return x.astype(dtype)


@pytest.mark.parametrize("dtype, ulps", [("float64", 4), ("float32", 1)])
def test_compiled_erfinv_matches_scipy(dtype, ulps):
    x = T.vector("x", dtype=dtype)
    f = jitgraph.function([x], T.erfinv(x))
    values = _inputs(dtype)
    got = f(values)
    with np.errstate(all="ignore"):
        expected = scipy_special.erfinv(values.astype(np.float64)).astype(dtype)
    assert got.dtype == dtype
    np.testing.assert_allclose(got, expected, rtol=ulps * np.finfo(dtype).eps, atol=0,
                               equal_nan=True)


def test_values_gradient_and_printing_match_theano():
    x = T.dvector("x")
    y = T.erfinv(x)
    assert str(y.owner.op) == "Elemwise{erfinv,no_inplace}"
    f = jitgraph.function([x], [y * 2, T.grad(T.sum(y), x)])
    out, grad = f(THEANO_X)
    np.testing.assert_allclose(out, THEANO_DOUBLED, rtol=1e-8)
    np.testing.assert_allclose(grad, THEANO_GRAD, rtol=1e-8)
    assert T.erfinv(T.ivector()).dtype == "float64" and T.erfinv(T.bvector()).dtype == "float32"
    assert isinstance(S.erfinv, S.Erfinv) and S.erfinv is y.owner.op.scalar_op


def test_gradient_is_verified_numerically():
    rng = np.random.default_rng(3)
    T.verify_grad(T.erfinv, [rng.uniform(-0.9, 0.9, size=(3, 4))], rng=rng)


@settings(max_examples=15, deadline=None)
@given(arrays(st.sampled_from(["float32", "float64"]), st.integers(1, 12),
              elements=st.floats(-1.0, 1.0, width=32)))
def test_compiled_kernel_matches_the_numpy_reference(values):
    x = T.vector("x", dtype=values.dtype.name)
    fused = jitgraph.function([x], T.erfinv(x) * 3 - x)
    reference = jitgraph.function([x], T.erfinv(x) * 3 - x, mode=jitgraph.Mode("py", "None"))
    np.testing.assert_array_equal(fused(values), reference(values))
