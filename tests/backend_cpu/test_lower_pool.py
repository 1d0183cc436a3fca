"""The generated pooling kernels against the ops' ``perform``: every mode, borders, padding,
1-3 pooled axes, leading axes, layouts, threads, float32/float64."""

from __future__ import annotations

import numpy as np
import pytest

import jitgraph
from jitgraph.tensor.convolution import pool as P
from jitgraph.tensor.core.type import TensorType

from cpu_testing import assert_same, compile_fn, reference, with_layout

CASES = [  # (shape, ws, stride, pad, ignore_border)
    ((2, 3, 7, 6), (2, 2), (2, 2), (0, 0), True),
    ((2, 3, 7, 5), (3, 2), (2, 1), (1, 1), True),
    ((3, 7, 8), (3, 3), (2, 3), (0, 0), False),
    ((2, 9), (4,), (3,), (0,), False),
    ((1, 2, 5, 4, 6), (2, 3, 2), (1, 2, 2), (1, 0, 1), True),
    ((0, 3, 4, 4), (2, 2), (2, 2), (0, 0), True),
    ((2, 1, 1, 5), (2, 2), (1, 1), (0, 0), True),  # no windows fit: empty output
    ((2, 2, 9, 8), (2, 2), (3, 3), (0, 0), True),  # constant, disjoint windows with gaps
    ((2, 1, 5, 4, 7), (2, 2, 2), (2, 2, 3), (0, 0, 0), True),
]


def tensor(nd, dtype):
    return TensorType(dtype, (False,) * nd).make_variable()


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", CASES)
def test_pool_kernels_match_perform(case, dtype):
    shape, ws, stride, pad, ib = case
    nd = len(ws)
    rng = np.random.default_rng(len(shape))
    xv = (np.round(rng.uniform(-2, 2, shape) * 2) / 2).astype(dtype)  # ties
    x, gz, gg = tensor(len(shape), dtype), tensor(len(shape), dtype), tensor(len(shape), dtype)
    outs, givens = [], {x: xv, gg: rng.uniform(-1, 1, shape).astype(dtype)}
    for mode in P.ref.MODES:
        o = P.Pool(ib, mode, nd)(x, ws, stride, pad)
        outs.append(o)
    pooled_shape = reference(outs[0], {x: xv}).shape
    givens[gz] = rng.uniform(-1, 1, pooled_shape).astype(dtype)
    mx = outs[0]
    outs += [P.MaxPoolGrad(ib, nd)(x, mx, gz, ws, stride, pad),
             P.DownsampleFactorMaxGradGrad(ib, ndim=nd)(x, mx, gg, ws, stride, pad)]
    outs += [P.AveragePoolGrad(ib, mode, nd)(x, gz, ws, stride, pad)
             for mode in P.ref.MODES[1:]]
    expected = reference(outs, givens)
    for openmp in (False, True):
        with jitgraph.config.change_flags(openmp=openmp, openmp_elemwise_minsize=0):
            fn = compile_fn([x, gz, gg], outs, linker="c")
        for layout in ("C", "negative", "strided"):
            got = fn(*(with_layout(givens[v], layout) for v in (x, gz, gg)))
            for k, (g, e) in enumerate(zip(got, expected)):
                assert_same(g, e, f"output {k} ({outs[k].owner.op}) {layout} omp={openmp}",
                            rtol=1e-5 if dtype == "float32" else 1e-12,
                            atol=1e-6 if dtype == "float32" else 1e-12)


def test_symbolic_window_and_errors():
    x = tensor(4, "float64")
    ws = TensorType("int64", (False,)).make_variable()
    fn = compile_fn([x, ws], P.Pool(True)(x, ws), linker="c")
    xv = np.random.default_rng(0).uniform(size=(1, 2, 6, 6))
    assert_same(fn(xv, np.array([2, 3])), reference(P.Pool(True)(x, ws),
                                                    {x: xv, ws: np.array([2, 3])}))
    with pytest.raises(ValueError, match="window size"):
        fn(xv, np.array([0, 2]))
    with pytest.raises(ValueError, match="2 entries|needs at least"):
        fn(xv, np.array([2, 2, 2]))
