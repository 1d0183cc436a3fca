"""The compiled sparse loops (rewrites to the csr/csc array ops + generated kernels) equal
scipy.sparse under hypothesis: random shapes and densities, unsorted indices, explicitly
stored zeros, both formats, float32 and float64."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sp = pytest.importorskip("scipy.sparse")

import jitgraph
import jitgraph.tensor as T
from jitgraph import sparse as S
from jitgraph.sparse import csx_ops


def random_compressed(fmt, n, m, density, seed, dtype):
    """A csr/csc matrix built from its arrays: indices in random (unsorted) order, and some
    stored values exactly zero."""
    rng = np.random.RandomState(seed)
    n_outer, n_inner = (n, m) if fmt == "csr" else (m, n)
    indices, indptr = [], [0]
    for _ in range(n_outer):
        k = rng.binomial(n_inner, density)
        indices.extend(rng.permutation(n_inner)[:k].tolist())
        indptr.append(len(indices))
    data = rng.randn(len(indices)).astype(dtype)
    data[rng.uniform(size=data.size) < 0.2] = 0
    cls = sp.csr_matrix if fmt == "csr" else sp.csc_matrix
    return cls((data, np.asarray(indices, dtype=np.int32), np.asarray(indptr, dtype=np.int32)),
               shape=(n, m))


cases = st.tuples(st.sampled_from(["csr", "csc"]), st.sampled_from(["float32", "float64"]),
                  st.integers(1, 9), st.integers(1, 9), st.integers(1, 5),
                  st.floats(0.0, 1.0), st.integers(0, 2**31 - 1))


def tol(dtype):
    return {"rtol": 1e-4, "atol": 1e-4} if dtype == "float32" else {"rtol": 1e-10, "atol": 1e-10}


@functools.cache
def compiled(fmt, dtype):
    """One compiled function per format and dtype, with every kernel in it."""
    x = S.matrix(fmt, "x", dtype)
    B, D = T.matrix("B", dtype=dtype), T.matrix("D", dtype=dtype)
    v, u = T.vector("v", dtype=dtype), T.vector("u", dtype=dtype)
    G = T.matrix("G", dtype=dtype)
    outputs = [S.structured_dot(x, B), S.dot(x, v), S.dot(G, x), S.mul(x, D),
               S.mul_s_v(x, u), S.structured_add_s_v(x, u), S.add(x, D),
               S.sampling_dot(D, T.matrix("E", dtype=dtype), x)]
    inputs = [x, B, D, v, u, G, outputs[7].owner.inputs[1]]
    return jitgraph.function(inputs, outputs, mode="FAST_RUN")


@settings(max_examples=30)
@given(cases)
def test_compiled_kernels_equal_scipy(case):
    fmt, dtype, n, m, k, density, seed = case
    A = random_compressed(fmt, n, m, density, seed, dtype)
    rng = np.random.RandomState(seed % 1000)
    B = rng.randn(m, k).astype(dtype)
    D = rng.randn(n, m).astype(dtype)
    E = rng.randn(m, m).astype(dtype)
    v, u = rng.randn(m).astype(dtype), rng.randn(m).astype(dtype)
    G = rng.randn(k, n).astype(dtype)
    f = compiled(fmt, dtype)
    prod, matvec, left, mul_d, mul_v, add_v, add_d, sampled = f(A, B, D, v, u, G, E)
    dense_a = A.toarray().astype("float64")
    t = tol(dtype)
    np.testing.assert_allclose(prod, dense_a @ B, **t)
    np.testing.assert_allclose(matvec, dense_a @ v, **t)
    np.testing.assert_allclose(left, G @ dense_a, **t)
    np.testing.assert_allclose(mul_d.toarray(), A.multiply(D).toarray(), **t)
    assert mul_d.format == fmt and mul_d.nnz == A.nnz  # structure kept, zeros stay stored
    np.testing.assert_allclose(mul_v.toarray(), A.multiply(u[None, :]).toarray(), **t)
    columns = A.indices if fmt == "csr" else np.repeat(np.arange(m), np.diff(A.indptr))
    expected_add_v = A.copy()
    expected_add_v.data = A.data + u[columns]
    np.testing.assert_allclose(add_v.toarray(), expected_add_v.toarray(), **t)
    np.testing.assert_allclose(add_d, dense_a + D, **t)
    np.testing.assert_allclose(sampled.toarray(), A.multiply(D @ E.T).toarray(), **t)


@settings(max_examples=15)
@given(cases)
def test_structured_dot_gradient_kernel(case):
    fmt, dtype, n, m, k, density, seed = case
    A = random_compressed(fmt, n, m, density, seed, dtype)
    rng = np.random.RandomState(seed % 997)
    B, G = rng.randn(m, k).astype(dtype), rng.randn(n, k).astype(dtype)
    f = grad_function(fmt, dtype)
    got = f(A, B, G)
    rows, cols = (np.repeat(np.arange(n), np.diff(A.indptr)), A.indices) if fmt == "csr" \
        else (A.indices, np.repeat(np.arange(m), np.diff(A.indptr)))
    want = np.einsum("ij,ij->i", G[rows].astype("float64"), B[cols].astype("float64"))
    np.testing.assert_allclose(got.data, want, **tol(dtype))
    assert got.format == fmt


@functools.cache
def grad_function(fmt, dtype):
    x = S.matrix(fmt, "x", dtype)
    B, G = T.matrix("B", dtype=dtype), T.matrix("G", dtype=dtype)
    gx = jitgraph.grad(None, x, known_grads={S.structured_dot(x, B): G})
    return jitgraph.function([x, B, G], gx, mode="FAST_RUN")


def test_rewrites_use_the_array_kernels():
    x = S.csr_matrix("x", dtype="float64")
    B, D = T.dmatrix("B"), T.dmatrix("D")
    f = jitgraph.function([x, B, D], [S.structured_dot(x, B), S.mul(x, D)], mode="FAST_RUN")
    ops = {type(n.op) for n in f.maker.fgraph.apply_nodes}
    assert csx_ops.StructuredDotCSx in ops and csx_ops.MulSDCSx in ops
    assert S.StructuredDot not in ops and S.MulSD not in ops
    g = jitgraph.function([x, B], S.structured_dot(x, B), mode="FAST_COMPILE")
    assert S.StructuredDot in {type(n.op) for n in g.maker.fgraph.apply_nodes}


def test_structured_elementwise_chain_runs_on_the_data_array():
    x = S.csc_matrix("x", dtype="float64")
    y = S.structured_exp(S.structured_add(S.structured_sigmoid(x), 1.0))
    f = jitgraph.function([x], y, mode="FAST_RUN")
    csm_nodes = [n for n in f.maker.fgraph.apply_nodes if isinstance(n.op, S.CSM)]
    assert len(csm_nodes) == 1  # the CSMProperties(CSM(...)) pairs in between are gone
    A = random_compressed("csc", 6, 5, 0.5, 3, "float64")
    want = A.copy()
    want.data = np.exp(1 / (1 + np.exp(-A.data)) + 1)
    np.testing.assert_allclose(f(A).toarray(), want.toarray())


def test_transposed_operand_uses_the_same_arrays():
    x = S.csr_matrix("x", dtype="float64")
    g = T.dmatrix("g")
    f = jitgraph.function([x, g], S.structured_dot(x.T, g), mode="FAST_RUN")
    assert not any(isinstance(n.op, S.Transpose) for n in f.maker.fgraph.apply_nodes)
    A = random_compressed("csr", 5, 4, 0.5, 1, "float64")
    G = np.random.RandomState(0).randn(5, 3)
    np.testing.assert_allclose(f(A, G), A.T.toarray() @ G)


def test_inferred_shapes_match_the_values():
    x = S.csc_matrix("x", dtype="float64")
    d, v = T.dmatrix("d"), T.dvector("v")
    outs = [S.structured_dot(x, d.T), S.dot(x, v), S.dot(d, x.T), S.sp_sum(x, 0),
            S.sp_sum(x, 1), S.diag(x[:, :4]), S.add(x, d), S.dense_from_sparse(x),
            S.get_item_2lists(x, [0, 2, 1], [1, 1, 0]), S.usmm(T.constant(2.0), x, d.T, d.dot(d.T))]
    A = random_compressed("csc", 4, 6, 0.6, 2, "float64")
    dv = np.random.RandomState(1).randn(4, 6)
    vv = np.arange(6.0)
    f = jitgraph.function([x, d, v], [o.shape for o in outs], mode="FAST_RUN")
    values = jitgraph.function([x, d, v], outs, mode="FAST_COMPILE")(A, dv, vv)
    for shape, value, out in zip(f(A, dv, vv), values, outs):
        assert tuple(shape) == value.shape, out
    # the shapes come from infer_shape: no sparse product is computed for them
    assert not any(isinstance(n.op, (csx_ops.StructuredDotCSx, S.Usmm))
                   for n in f.maker.fgraph.apply_nodes)


def test_debug_mode_runs_sparse_graphs():
    x = S.csr_matrix("x", dtype="float64")
    d = T.dmatrix("d")
    f = jitgraph.function([x, d], [S.structured_dot(x, d), S.mul(x, d.T[:, :4])],
                          mode="DebugMode")
    A = random_compressed("csr", 3, 4, 0.7, 5, "float64")
    D = np.random.RandomState(2).randn(4, 3)
    prod, mul = f(A, D)
    np.testing.assert_allclose(prod, A.toarray() @ D)
    np.testing.assert_allclose(mul.toarray(), A.multiply(D.T[:, :4]).toarray())


def test_theano_opt_names():
    from jitgraph.sparse import opt

    x, b = S.csr_matrix("x", dtype="float64"), T.dmatrix("b")
    data, indices, indptr, _ = S.csm_properties(x)
    f = jitgraph.function([x, b], [opt.sd_csr(data, indices, indptr, b),
                                   opt.mul_s_d_csr(data, indices, indptr, b.T)])
    A = random_compressed("csr", 2, 3, 0.8, 4, "float64")
    B = np.arange(6.0).reshape(3, 2)
    prod, scaled = f(A, B)
    np.testing.assert_allclose(prod, A.toarray() @ B)
    rows, cols = np.repeat(np.arange(2), np.diff(A.indptr)), A.indices
    np.testing.assert_allclose(scaled, A.data * B.T[rows, cols])
    with pytest.raises(NotImplementedError, match="no C backend.*sparse.usmm"):
        opt.UsmmCscDense()
