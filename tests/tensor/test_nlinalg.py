"""``theano.tensor.nlinalg``: values and gradients against Theano 1.0.5's recorded ones
(``data/linalg_oracle.npz``, made by ``data/record_linalg_oracle.py``), decompositions against
NumPy, compiled against ``perform``, ``verify_grad``, shapes, dtypes and errors."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgraph
import jitgraph.tensor as T
import jitgraph.tensor.linalg.nlinalg as nl
from jitgraph.tensor.shaping.diag_ops import AllocDiag, DiagonalScatter, ExtractDiag

HERE = os.path.dirname(os.path.abspath(__file__))
REC = np.load(os.path.join(HERE, "data", "linalg_oracle.npz"))
PY = jitgraph.Mode(linker="py", optimizer="None")
COMPILED = jitgraph.Mode(linker="cvm", optimizer="fast_run")
MODES = pytest.mark.parametrize("mode", [PY, COMPILED], ids=["py", "compiled"])
A, S, R, C33, C23, c3 = (REC[k] for k in ("A", "S", "R", "C33", "C23", "c3"))


def check_recorded(mode, name, inputs, values, out, cost=None):
    np.testing.assert_allclose(jitgraph.function(inputs, out, mode=mode)(*values), REC[name],
                               rtol=1e-7, atol=1e-12)
    if cost is not None:
        grads = jitgraph.function(inputs, T.grad(cost, inputs), mode=mode)(*values)
        for k, g in enumerate(grads):
            np.testing.assert_allclose(g, REC[f"{name}_g{k}"], rtol=1e-6, atol=1e-10)


@MODES
def test_inverse_pinv_det_trace_match_theano(mode):
    m = T.dmatrix("m")
    check_recorded(mode, "inv", [m], [A], nl.matrix_inverse(m),
                   (nl.matrix_inverse(m) * C33).sum())
    check_recorded(mode, "pinv", [m], [R], nl.pinv(m), (nl.pinv(m) * C23).sum())
    check_recorded(mode, "det", [m], [A], nl.det(m), nl.det(m))
    check_recorded(mode, "trace", [m], [A], nl.trace(m), nl.trace(m))


@MODES
def test_eigh_and_its_gradient_match_theano(mode):
    # Theano's EighGrad is right only for symmetric inputs (for others it disagrees with finite
    # differences, which ours matches: see test_eigh_gradient_reads_one_triangle).
    m = T.dmatrix("m")
    w, v = nl.eigh(m)
    check_recorded(mode, "eigh_w", [m], [S], w, (w * c3).sum() + (v * C33).sum())


def test_eigh_gradient_reads_one_triangle():
    for uplo in ("L", "U"):
        def cost(a, uplo=uplo):
            w, v = nl.Eigh(uplo)(a)
            return (w * c3).sum() + (v * C33).sum()

        T.verify_grad(cost, [A], rng=np.random.RandomState(1))


@MODES
def test_products_and_norms_match_theano(mode):
    m, m2, v = T.dmatrix("m"), T.dmatrix("m2"), T.dvector("v")
    check_recorded(mode, "mpow3", [m], [A], nl.matrix_power(m, 3))
    check_recorded(mode, "mdot", [m, m2], [A, REC["B"]], nl.matrix_dot(m, m2, m2.T))
    for key in (k for k in REC.files if k.startswith("norm_")):
        kind, order = key.split("_")[1:]
        order = None if order == "None" else int(order) if order.lstrip("-").isdigit() else order
        x, value = (m, A) if kind == "m" else (v, REC["bv"] - 0.5)
        got = jitgraph.function([x], nl.norm(x, order), mode=mode)(value)
        np.testing.assert_allclose(got, REC[key], rtol=1e-12, err_msg=key)


def test_inverse_rop_matches_theano():
    m, ev = T.dmatrix("m"), T.dmatrix("ev")
    rop = jitgraph.function([m, ev], T.Rop(nl.matrix_inverse(m), m, ev))(A, C33)
    theano = [[-0.009766490740267452, -0.05372931299245001, -0.010857270673383459],
              [-0.03577768259251819, -0.0394555994791523, 0.007996249583001868],
              [-0.04107037835101478, 0.008944423231042827, 0.0034262553137534013]]
    np.testing.assert_allclose(rop, theano, rtol=1e-10)


@pytest.mark.parametrize("build", [nl.det, nl.pinv], ids=["det", "pinv"])
def test_rop_matches_finite_differences(build):
    point = R if build is nl.pinv else A
    m, ev = T.dmatrix("m"), T.dmatrix("ev")
    direction = np.random.RandomState(3).rand(*point.shape)
    rop = jitgraph.function([m, ev], T.Rop(build(m), m, ev))(point, direction)
    f = jitgraph.function([m], build(m))
    eps = 1e-6
    numeric = (f(point + eps * direction) - f(point - eps * direction)) / (2 * eps)
    np.testing.assert_allclose(rop, numeric, rtol=1e-5, atol=1e-8)


def test_decompositions_match_numpy():
    m = T.dmatrix("m")
    rect = np.random.RandomState(0).rand(4, 3)
    for full in (True, False):
        u, s, v = jitgraph.function([m], nl.svd(m, full))(rect)
        for got, ref in zip((u, s, v), np.linalg.svd(rect, full)):
            np.testing.assert_allclose(got, ref, atol=1e-12)
    np.testing.assert_allclose(jitgraph.function([m], nl.svd(m, compute_uv=False))(rect),
                               np.linalg.svd(rect, compute_uv=False))
    for mode in ("reduced", "complete", "raw"):
        for got, ref in zip(jitgraph.function([m], nl.qr(m, mode))(rect),
                            np.linalg.qr(rect, mode)):
            np.testing.assert_allclose(got, ref, atol=1e-12)
    np.testing.assert_allclose(jitgraph.function([m], nl.qr(m, "r"))(rect),
                               np.linalg.qr(rect, "r"))
    w, v = jitgraph.function([m], nl.eig(m))(S)
    ref_w, ref_v = np.linalg.eig(S)
    np.testing.assert_allclose(w, ref_w)
    np.testing.assert_allclose(v, ref_v)


def test_lstsq_tensorinv_tensorsolve_match_numpy():
    rng = np.random.RandomState(2)
    x, y, rc = T.dmatrix("x"), T.dvector("y"), T.dscalar("rc")
    a, b = rng.rand(5, 3), rng.rand(5)
    got = jitgraph.function([x, y, rc], nl.lstsq()(x, y, rc))(a, b, -1.0)
    for g, ref in zip(got, np.linalg.lstsq(a, b, rcond=-1)):
        np.testing.assert_allclose(g, ref)
    assert got[2].dtype == np.int64
    t = rng.rand(4, 2, 2) + np.eye(4).reshape(4, 2, 2)
    t3 = T.dtensor3("t")
    inv_t = nl.tensorinv(t3, ind=1)
    np.testing.assert_allclose(jitgraph.function([t3], inv_t)(t), np.linalg.tensorinv(t, 1))
    mat = rng.rand(6, 6) + 6 * np.eye(6)
    a6, b6 = mat.reshape(6, 2, 3), rng.rand(6)
    sol = jitgraph.function([t3, y], nl.tensorsolve(t3, y))(a6, b6)
    np.testing.assert_allclose(sol, np.linalg.tensorsolve(a6, b6))


def test_matrix_power_edge_cases():
    m = T.dmatrix("m")
    for n in (0, 1, 2, 5, -2):
        got = jitgraph.function([m], nl.matrix_power(m, n))(A)
        np.testing.assert_allclose(got, np.linalg.matrix_power(A, n), rtol=1e-10)
    with pytest.raises(TypeError, match="n must be a Python int"):
        nl.matrix_power(m, T.iscalar())


def test_diagonals():
    m, v = T.dmatrix("m"), T.dvector("v")
    assert nl.ExtractDiag is T.ExtractDiag and nl.AllocDiag is not T.AllocDiag
    assert nl.extract_diag == ExtractDiag() and str(nl.alloc_diag) == "AllocDiag"
    f = jitgraph.function([m, v], [nl.diag(m), nl.diag(v), nl.extract_diag(m),
                                   nl.alloc_diag(v)])
    rect, vec = np.arange(6.0).reshape(2, 3), np.array([1.0, 2.0, 3.0])
    for got, ref in zip(f(rect, vec), (np.diag(rect), np.diag(vec), np.diag(rect),
                                       np.diag(vec))):
        np.testing.assert_array_equal(got, ref)
    with pytest.raises(TypeError, match="vector or a matrix"):
        nl.diag(T.dtensor3())
    with pytest.raises(TypeError, match="vectors only"):
        nl.alloc_diag(m)
    with pytest.raises(ValueError, match="2 or more dimensions"):
        nl.extract_diag(v)


def test_basic_alloc_diag_matches_theano():
    # Theano 1.0.5's T.AllocDiag(offset, axis1, axis2) of arange(6).reshape(2, 3) (its
    # AllocDiag(-1, 2, 0) placed values as if the axes were sorted, while its gradient did not:
    # ours is numpy.diagonal's inverse for every order, consistent with the gradient).
    x = np.arange(6.0).reshape(2, 3)
    m = T.dmatrix("m")
    got = jitgraph.function([m], AllocDiag(0, 1, 2)(m))(x)
    np.testing.assert_array_equal(got, [[[0, 0, 0], [0, 1, 0], [0, 0, 2]],
                                        [[3, 0, 0], [0, 4, 0], [0, 0, 5]]])
    for op in (AllocDiag(0, 0, 1), AllocDiag(1, 0, 2), AllocDiag(-1, 2, 0)):
        out = jitgraph.function([m], op(m))(x)
        np.testing.assert_array_equal(np.diagonal(out, op.offset, op.axis1, op.axis2), x)


DIAG_OPS = [ExtractDiag(0, 0, 1), ExtractDiag(1, 0, 2), ExtractDiag(-1, 2, 1),
            ExtractDiag(2, 1, 0)]


@pytest.mark.parametrize("op", DIAG_OPS, ids=str)
def test_extract_diag_values_gradients_and_shapes(op, infer_shape_ok):
    x = np.random.RandomState(0).rand(3, 4, 5)
    t3 = T.dtensor3("t")
    got = jitgraph.function([t3], op(t3), mode=COMPILED)(x)
    np.testing.assert_array_equal(got, np.diagonal(x, op.offset, op.axis1, op.axis2))
    T.verify_grad(op, [x], rng=np.random.RandomState(0))
    T.verify_grad(lambda g: DiagonalScatter(op.offset, op.axis1, op.axis2)(x, g),
                  [np.random.RandomState(1).rand(*got.shape)], rng=np.random.RandomState(0))
    infer_shape_ok(op(t3), {t3: x})
    out_shape = AllocDiag(op.offset, op.axis1, op.axis2)(T.dmatrix("d"))
    infer_shape_ok(out_shape, {out_shape.owner.inputs[0]: np.ones((2, 3))})


def test_view_extract_diag_shares_memory():
    m = T.dmatrix("m")
    assert ExtractDiag(view=True).view_map == {0: [0]} and ExtractDiag().view_map == {}
    x = np.arange(9.0).reshape(3, 3)
    out = jitgraph.function([m], ExtractDiag(view=True)(m), mode=PY)(x)
    np.testing.assert_array_equal(out, [0, 4, 8])


@pytest.mark.parametrize("fn", [nl.matrix_inverse, nl.det, nl.pinv,
                                lambda a: nl.eigh(a + a.T)[0].sum() + nl.eigh(a + a.T)[1][0],
                                lambda a: nl.alloc_diag(a[0]), nl.trace],
                         ids=["inv", "det", "pinv", "eigh", "alloc_diag", "trace"])
def test_verify_grad(fn):
    point = A if fn is not nl.pinv else R
    T.verify_grad(fn, [point], rng=np.random.RandomState(4))


@settings(max_examples=15, deadline=None)
@given(n=st.integers(1, 4), seed=st.integers(0, 2 ** 16))
def test_compiled_matches_perform(n, seed):
    a = np.random.RandomState(seed).rand(n, n) + n * np.eye(n)
    m = T.dmatrix("m")
    outs = [nl.matrix_inverse(m), nl.det(m), nl.pinv(m[:, :max(1, n - 1)]), nl.eigh(m + m.T)[0]]
    compiled = jitgraph.function([m], outs, mode=COMPILED)(a)
    reference = jitgraph.function([m], outs, mode=PY)(a)
    for got, ref in zip(compiled, reference):
        np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(compiled[0], np.linalg.inv(a), rtol=1e-10)
    np.testing.assert_allclose(compiled[1], np.linalg.det(a), rtol=1e-10)


def test_infer_shape(infer_shape_ok):
    m = T.dmatrix("m")
    rect = np.random.RandomState(0).rand(4, 3)
    outs = [nl.matrix_inverse(m[:3]), nl.pinv(m), nl.det(m[:3]), *nl.eig(m[:3]),
            *nl.eigh(m[:3]), *nl.svd(m), *nl.svd(m, 0), nl.svd(m, compute_uv=0),
            *nl.qr(m), *nl.qr(m, "complete"), *nl.qr(m, "raw"), nl.qr(m, "r"),
            nl.tensorinv(m[:3], 1), nl.alloc_diag(m[0])]
    for out in outs:
        infer_shape_ok(out, {m: rect})


def test_dtypes():
    for dtype, out in (("float32", "float32"), ("float64", "float64"), ("int32", "float64"),
                       ("complex128", "complex128")):
        x = T.matrix("x", dtype=dtype)
        assert nl.matrix_inverse(x).dtype == out and nl.det(x).dtype == out
        w, v = nl.eigh(x)
        assert v.dtype == out and w.dtype == ("float64" if out == "complex128" else out)
    x = T.fmatrix("x")
    value = (np.eye(2) * 2).astype("float32")
    assert jitgraph.function([x], nl.matrix_inverse(x))(value).dtype == np.float32
    i = T.imatrix("i")
    np.testing.assert_allclose(jitgraph.function([i], nl.matrix_inverse(i))(
        np.array([[2, 0], [0, 4]], dtype="int32")), [[0.5, 0], [0, 0.25]])


def test_errors_name_the_argument():
    v = T.dvector("v")
    with pytest.raises(TypeError, match=r"MatrixInverse: x must be a matrix"):
        nl.matrix_inverse(v)
    with pytest.raises(TypeError, match=r"x must be a matrix"):
        nl.svd(v)
    with pytest.raises(ValueError, match="unrecognized mode 'foo'"):
        nl.qr(T.dmatrix(), "foo")
    with pytest.raises(ValueError, match="unsupported order 2"):
        nl.norm(T.dmatrix(), 2)
    with pytest.raises(NotImplementedError, match="vector or a matrix"):
        nl.norm(T.dtensor3(), None)
    with pytest.raises(ValueError, match="UPLO must be 'L' or 'U'"):
        nl.Eigh("X")
    m = T.dmatrix("m")
    rotation = np.array([[0.0, -1.0], [1.0, 0.0]])  # eigenvalues +-i
    with pytest.raises(ValueError, match="complex"):
        jitgraph.function([m], nl.eig(m)[0])(rotation)


# theano.tensor.nlinalg's public names in Theano 1.0.5 (shared/fixtures/theano_api.json)
THEANO_NAMES = ["AllocDiag", "Apply", "Det", "DisconnectedType", "Eig", "Eigh", "EighGrad",
                "ExtractDiag", "MatrixInverse", "MatrixPinv", "Op", "QRFull", "QRIncomplete",
                "SVD", "TensorInv", "TensorSolve", "alloc_diag", "as_tensor_variable", "det",
                "diag", "eig", "eigh", "extract_diag", "lstsq", "matrix_dot", "matrix_inverse",
                "matrix_power", "norm", "pinv", "qr", "svd", "tensorinv", "tensorsolve", "trace"]


def test_namespace():
    assert [n for n in THEANO_NAMES if not hasattr(nl, n)] == []
    assert T.nlinalg is nl
    assert str(nl.SVD(1, 1)) == "SVD{full_matrices=1, compute_uv=1}"
    assert str(nl.Eigh()) == "Eigh{UPLO='L'}"
    assert str(nl.qr(T.dmatrix())[0].owner.op) == "QRFull{mode='reduced'}"
    assert str(nl.qr(T.dmatrix(), "r").owner.op) == "QRIncomplete{mode='r'}"


@pytest.mark.parametrize("build", [nl.matrix_inverse, nl.det, lambda a: nl.eig(a)[0],
                                   lambda a: nl.eigh(a)[0]], ids=["inv", "det", "eig", "eigh"])
def test_non_square_input_is_named(build):
    m = T.dmatrix("m")
    with pytest.raises(np.linalg.LinAlgError, match="x must be a square matrix, got shape"):
        jitgraph.function([m], build(m), mode=COMPILED)(np.ones((2, 3)))
