"""Nonzero, nonzero, flatnonzero, nonzero_values against NumPy (compiled and perform,
hypothesis), shapes known only at run time, no gradient, errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jitgraph
import jitgraph.tensor as T
from jitgraph.graph.evaluate import evaluate


@settings(max_examples=25, deadline=None)
@given(hnp.arrays("int8", hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=4),
                  elements=st.integers(-1, 1)), st.sampled_from(["float64", "int8", "bool"]))
def test_match_numpy(value, dtype):
    value = value.astype(dtype)
    x = T.TensorType(str(value.dtype), (False,) * value.ndim)("x")
    outs = [T.nonzero(x, return_matrix=True), T.flatnonzero(x), T.nonzero_values(x),
            *T.nonzero(x)]
    compiled = jitgraph.function([x], outs)(value)
    reference = evaluate(outs, {x: value})
    wanted = [np.array(np.nonzero(value), dtype="int64").reshape(value.ndim, -1),
              np.flatnonzero(value), value[value != 0], *np.nonzero(value)]
    for got, ref, want in zip(compiled, reference, wanted):
        assert got.dtype == np.asarray(want).dtype
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(ref, want)


def test_types_shape_and_gradient(infer_shape_ok):
    x = T.matrix("x")
    value = np.array([[0.0, 1.0, 0.0], [2.0, 0.0, 3.0]])
    nz = T.Nonzero()(x)
    assert nz.type == T.TensorType("int64", (False, False))
    infer_shape_ok(nz, {x: value})
    assert evaluate(T.nonzero_values(x).shape, {x: value}).tolist() == [3]
    cost = T.nonzero_values(x).sum()
    np.testing.assert_array_equal(evaluate(T.grad(cost, x), {x: value}),
                                  (value != 0).astype(float))
    with pytest.raises(Exception):
        T.grad(T.cast(nz, "float64").sum(), x)


@pytest.mark.parametrize("fn", [lambda s: T.Nonzero()(s), T.nonzero, T.flatnonzero,
                                T.nonzero_values])
def test_scalars_are_refused(fn):
    with pytest.raises(ValueError, match="scalar"):
        fn(T.scalar("s"))
