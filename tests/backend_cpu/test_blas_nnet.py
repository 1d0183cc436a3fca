"""BLAS ops through NumPy, Softmax/LogSoftmax and the one-hot cross-entropy kernels."""

from __future__ import annotations

import numpy as np
import pytest

import jitgraph.tensor as T
from jitgraph.graph.fg import FunctionGraph
from jitgraph.tensor import nnet
from jitgraph.tensor.linalg import blas

from cpu_testing import assert_same, compile_fn, reference, with_layout

RNG = np.random.default_rng(0)
X, Y, Z = RNG.standard_normal((5, 7)), RNG.standard_normal((7, 4)), RNG.standard_normal((5, 4))
U, V = RNG.standard_normal(5), RNG.standard_normal(7)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_dot_variants(dtype):
    x, y = T.matrix("x", dtype=dtype), T.matrix("y", dtype=dtype)
    u, v = T.vector("u", dtype=dtype), T.vector("v", dtype=dtype)
    outs = [T.dot(x, y), T.dot(x, v), T.dot(u, x), T.dot(v, v), blas.dot22(x, y)]
    vals = [a.astype(dtype) for a in (X, Y, U, V)]
    fn = compile_fn([x, y, u, v], outs)
    ref = reference(outs, dict(zip([x, y, u, v], vals)))
    for layout in ("C", "F", "negative"):
        got = fn(*[with_layout(a, layout) for a in vals])
        for g, r in zip(got, ref):
            assert_same(g, r, layout, rtol=1e-5 if dtype == "float32" else 1e-12)


def test_dot_shape_error_is_the_reference_error():
    x, y = T.dmatrices("x", "y")
    fn = compile_fn([x, y], T.dot(x, y))
    with pytest.raises(ValueError, match="not aligned"):
        fn(X, X)


@pytest.mark.parametrize("inplace", [False, True])
@pytest.mark.parametrize("beta", [0.0, 1.0, 0.5])
def test_gemm_gemv_ger(inplace, beta):
    from jitgraph.backend_cpu.runtime.driver import build_program

    z, x, y, a = T.dmatrix("z"), T.dmatrix("x"), T.dmatrix("y"), T.dscalar("a")
    yv, u, v = T.dvector("yv"), T.dvector("u"), T.dvector("v")
    for out, ins, vals in [
            (blas.Gemm(inplace)(z, a, x, y, beta), [z, a, x, y], [Z, np.array(1.5), X, Y]),
            (blas.Gemv(inplace)(yv, a, x, v, beta), [yv, a, x, v], [U, np.array(2.0), X, V]),
            (blas.Ger(inplace)(x, a, u, v), [x, a, u, v], [X, np.array(-0.5), U, V])]:
        vals = [np.array(v, copy=True) for v in vals]
        if beta == 0.0 and not isinstance(out.owner.op, blas.Ger):
            vals[0][...] = np.nan  # BLAS semantics: beta == 0 ignores the old values
        expected = reference(out, dict(zip(ins, [np.array(v, copy=True) for v in vals])))
        prog = build_program(FunctionGraph(ins, [out], clone=False), allow_gc=True)
        for cell, value in zip(prog.input_cells, vals):
            cell[0] = value
        prog.run()
        got = prog.output_cells[0][0]
        assert_same(got, expected, str(out.owner.op))
        assert (got is vals[0]) == inplace


def test_gemv_transposed_matrix_view():
    y, a, x, v = T.dvector("y"), T.dscalar("a"), T.dmatrix("x"), T.dvector("v")
    out = blas.gemv(y, a, x.T, v, 1.0)
    fn = compile_fn([y, a, x, v], out)
    args = [V, np.array(0.5), X, U]
    assert_same(fn(*args), reference(out, dict(zip([y, a, x, v], args))))


@pytest.mark.parametrize("dtype", ["float64", "float32", "int32"])
def test_softmax_family(dtype):
    x = T.matrix("x", dtype=dtype)
    outs = [nnet.softmax(x), nnet.log_softmax(x), nnet.softmax(x, axis=0), nnet.softmax(x, None)]
    if dtype == "int32":
        value = RNG.integers(-5, 5, (4, 6)).astype(dtype)
    else:
        value = (RNG.standard_normal((4, 6)) * 30).astype(dtype)
        value[1, 2] = np.inf
        value[2, :] = -np.inf
        value[3, 0] = np.nan
    fn = compile_fn([x], outs)
    ref = reference(outs, {x: value})
    for layout in ("C", "negative"):
        for k, (g, r) in enumerate(zip(fn(with_layout(value, layout)), ref)):
            assert_same(g, r, f"output {k} {layout}", rtol=1e-5 if dtype != "float64" else 1e-12)
    empty = np.zeros((3, 0), dtype=dtype)
    assert fn(empty)[0].shape == (3, 0)


def test_crossentropy_one_hot_and_gradient():
    p = T.dmatrix("p")
    y = T.lvector("y")
    g = T.dvector("g")
    out = nnet.crossentropy_categorical_1hot(p, y)
    grad = nnet.crossentropy_categorical_1hot_grad(g, p, y)
    fn = compile_fn([p, y, g], [out, grad])
    pv = RNG.random((4, 3)) + 0.1
    yv = np.array([0, 2, 1, 2])
    gv = RNG.standard_normal(4)
    for got, ref in zip(fn(pv, yv, gv), reference([out, grad], {p: pv, y: yv, g: gv})):
        assert_same(got, ref)
    with pytest.raises(ValueError, match="labels must lie"):
        fn(pv, np.array([0, 3, 1, 2]), gv)
