"""float32 sums and means accumulate in float64, as Theano 1.0.5's do.

A compiled reduction adds its terms in order; with a float32 accumulator the mean of 50,000
values near 1e4 came out 10007.42 instead of 10000.50, and the variance of the same rows 48.03
instead of 0.0835 (a silent wrong result of every float32 model's mean/var). The expected values
below were printed by Theano 1.0.5 (``theano-oracle``) for the same data.
"""

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T


def _rows() -> np.ndarray:
    return (10000 + np.random.RandomState(3).rand(3, 50000)).astype("float32")


@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE"])
def test_float32_sum_and_mean_of_large_rows_are_exact_to_float32(mode):
    x = T.fmatrix("x")
    v = _rows()
    f = jitgraph.function([x], [T.mean(x, axis=1), T.sum(x, axis=1), T.sum(x)], mode=mode)
    mean, rows, total = f(v)
    exact = v.astype("float64")
    assert mean.dtype == rows.dtype == total.dtype == np.float32
    np.testing.assert_array_equal(mean, exact.mean(1).astype("float32"))
    np.testing.assert_array_equal(rows, exact.sum(1).astype("float32"))
    assert total == np.float32(exact.sum())


def test_float32_variance_and_std_give_theanos_numbers():
    x = T.fmatrix("x")
    f = jitgraph.function([x], [T.var(x, axis=1), T.std(x, axis=1), T.var(x, keepdims=True)])
    var, std, var_all = f(_rows())
    # Theano 1.0.5, same data (float32 results)
    np.testing.assert_allclose(var, [0.0834576488, 0.083557263, 0.0840042979], rtol=1e-6)
    np.testing.assert_allclose(std, [0.2888903618, 0.2890627384, 0.2898349464], rtol=1e-6)
    np.testing.assert_allclose(var_all, [[0.0836753994]], rtol=1e-6)


def test_a_float32_accumulator_is_still_available_on_request():
    x = T.fvector("x")
    node = T.sum(x, acc_dtype="float32").owner
    assert node.op.acc_dtype_for("float32") == "float32"
    assert T.sum(x).owner.op.acc_dtype_for("float32") == "float64"
    f = jitgraph.function([x], T.sum(x, acc_dtype="float32"))
    np.testing.assert_allclose(f(np.ones(1000, "float32")), 1000)
