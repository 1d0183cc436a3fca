"""``theano.tensor.xlogx``: x·log(x) and x·log(y), 0 where x is 0, against NumPy (compiled and
with ``perform``), their dtypes, gradients and printing (Theano 1.0.5's, recorded)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jitgraph
import jitgraph.tensor as T
from jitgraph.tensor.elementwise.xlogx import scalar_xlogx, scalar_xlogy0, xlogx, xlogy0

PY = jitgraph.Mode(linker="py", optimizer="None")
COMPILED = jitgraph.Mode(linker="cvm", optimizer="fast_run")


def ref_xlogx(x):
    with np.errstate(all="ignore"):
        return np.where(x == 0, 0, x * np.log(x)).astype(x.dtype)


def ref_xlogy0(x, y):
    with np.errstate(all="ignore"):
        return np.where(x == 0, 0, x * np.log(y)).astype(np.result_type(x, y))


# Theano 1.0.5 on these points (same as the NumPy formula): 0 at x = 0 whatever y is.
V = np.array([0.0, 1e-300, 1e-5, 0.5, 1.0, 2.0, 1e300, np.inf, -1.0, np.nan])
W = np.array([0.0, 0.0, 1e-5, 0.3, 0.0, 2.0, 1e300, 1.0, 2.0, 3.0])
THEANO_XLOGX = [0.0, -6.90775528e-298, -1.15129255e-004, -3.46573590e-001, 0.0,
                1.38629436e+000, 6.90775528e+302, np.inf, np.nan, np.nan]
THEANO_XLOGY0 = [0.0, -np.inf, -1.15129255e-004, -6.01986402e-001, -np.inf, 1.38629436e+000,
                 6.90775528e+302, np.nan, -6.93147181e-001, np.nan]
# gradients of sum(xlogx(x)) + sum(xlogy0(x, y)) with respect to x and y
THEANO_GX = [-np.inf, -np.inf, -2.20258509e+01, -8.97119985e-01, -np.inf, 2.38629436e+00,
             1.38255106e+03, np.inf, np.nan, np.nan]
THEANO_GY = [np.nan, np.inf, 1.0, 1.66666667, np.inf, 1.0, 1.0, np.inf, -0.5, np.nan]


@pytest.mark.parametrize("mode", [PY, COMPILED], ids=["py", "compiled"])
def test_values_and_gradients_match_theano(mode):
    x, y = T.dvectors("x", "y")
    f = jitgraph.function([x, y], [xlogx(x), xlogy0(x, y)], mode=mode)
    a, b = f(V, W)
    np.testing.assert_allclose(a, THEANO_XLOGX, rtol=1e-8, equal_nan=True)
    np.testing.assert_allclose(b, THEANO_XLOGY0, rtol=1e-8, equal_nan=True)
    cost = T.sum(xlogx(x)) + T.sum(xlogy0(x, y))
    g = jitgraph.function([x, y], T.grad(cost, [x, y]), mode=mode)
    gx, gy = g(V, W)
    np.testing.assert_allclose(gx, THEANO_GX, rtol=1e-8, equal_nan=True)
    np.testing.assert_allclose(gy, THEANO_GY, rtol=1e-8, equal_nan=True)


def test_compiled_kernel_is_used():
    x, y = T.dvectors("x", "y")
    f = jitgraph.function([x, y], xlogx(x) + xlogy0(x, y), mode=COMPILED)
    assert "Numba" in f._program.kinds


special = st.one_of(st.sampled_from([0.0, -0.0, 5e-324, 1e-300, 1e-30, 1.0, 1e30, 1e300,
                                     np.inf]),
                    st.floats(min_value=0, max_value=1e300))


def _in_dtype(value: float, dtype: str) -> float:
    with np.errstate(over="ignore"):  # huge values become inf in float32: still a case
        return float(np.asarray(value, dtype=dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@given(data=st.data())
def test_random_values_match_numpy(dtype, data):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=2, max_side=5))
    elements = special.map(lambda v: _in_dtype(v, dtype))
    a = data.draw(hnp.arrays(dtype, shape, elements=elements))
    b = data.draw(hnp.arrays(dtype, shape, elements=elements))
    x = T.TensorType(dtype, (False,) * a.ndim)("x")
    y = T.TensorType(dtype, (False,) * a.ndim)("y")
    f = jitgraph.function([x, y], [xlogx(x), xlogy0(x, y)], mode=COMPILED)
    got_a, got_b = f(a, b)
    assert got_a.dtype == got_b.dtype == dtype
    tol = 2e-6 if dtype == "float32" else 1e-13
    np.testing.assert_allclose(got_a, ref_xlogx(a), rtol=tol, atol=0, equal_nan=True)
    np.testing.assert_allclose(got_b, ref_xlogy0(a, b), rtol=tol, atol=0, equal_nan=True)


# Theano 1.0.5: output dtype of xlogx(x), xlogy0(x, fvector), xlogy0(x, dvector)
DTYPES = {"float32": ("float32", "float32", "float64"), "int32": ("float64",) * 3,
          "int8": ("float32", "float32", "float64"), "int64": ("float64",) * 3,
          "bool": ("float32", "float32", "float64"), "uint8": ("float32", "float32", "float64")}


@pytest.mark.parametrize("dtype", sorted(DTYPES))
def test_output_dtypes(dtype):
    v = T.vector(dtype=dtype)
    got = (xlogx(v).dtype, xlogy0(v, T.fvector()).dtype, xlogy0(v, T.dvector()).dtype)
    assert got == DTYPES[dtype]


def test_integer_inputs():
    out = jitgraph.function([], xlogx(T.constant(np.array([0, 1, 2], "int32"))))()
    np.testing.assert_allclose(out, [0.0, 0.0, 2 * np.log(2)])  # Theano: [0, 0, 1.386]


def test_verify_grad():
    rng = np.random.default_rng(3)
    T.verify_grad(xlogx, [rng.uniform(0.1, 3, (3, 4))], rng=0)
    T.verify_grad(xlogy0, [rng.uniform(0.1, 3, (3, 4)), rng.uniform(0.1, 3, (3, 4))], rng=0)


def test_names_and_printing():
    # Theano: xlogx.0, op xlogx, scalar op scalar_xlogx; xlogy0.0; pp prints xlogx(x)
    x, y = T.dvectors("x", "y")
    assert str(xlogx(x)) == "xlogx.0" and str(xlogy0(x, y)) == "xlogy0.0"
    assert xlogx(x).owner.op.scalar_op is scalar_xlogx
    assert (scalar_xlogx.nin, scalar_xlogy0.nin) == (1, 2)
    assert T.xlogx.XlogX is type(scalar_xlogx) and T.xlogx.XlogY0 is type(scalar_xlogy0)
    # the scalar ops on values (Theano: 0.0 1.386.. 0.0 2.197..)
    assert scalar_xlogx.impl(0.0) == 0.0 and scalar_xlogy0.impl(0.0, 0.0) == 0.0
    np.testing.assert_allclose([scalar_xlogx.impl(2.0), scalar_xlogy0.impl(2.0, 3.0)],
                               [1.3862943611198906, 2.197224577336219])


def test_pickles_by_name():
    import pickle

    x = T.dvector("x")
    f = jitgraph.function([x], xlogx(x), mode=COMPILED)
    g = pickle.loads(pickle.dumps(f))
    np.testing.assert_allclose(g(np.array([0.0, 2.0])), [0.0, 2 * np.log(2.0)])
