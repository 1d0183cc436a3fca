"""In-place ``C = alpha A B + beta C`` through the BLAS NumPy links (backend_cpu.cblas)."""

from __future__ import annotations

import numpy as np
import pytest

import jitgraph.tensor as T
from jitgraph.backend_cpu.runtime import cblas
from jitgraph.graph.fg import FunctionGraph
from jitgraph.tensor.linalg import blas

RNG = np.random.default_rng(3)
available = cblas._function("d") is not None


@pytest.mark.skipif(not available, reason="NumPy's bundled OpenBLAS was not found")
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape", [(5, 3, 4), (64, 8, 48), (1, 7, 1)])
@pytest.mark.parametrize("trans_a", [False, True])
@pytest.mark.parametrize("trans_b", [False, True])
def test_gemm_in_place_matches_numpy(dtype, shape, trans_a, trans_b):
    m, k, n = shape
    a = RNG.normal(size=(k, m) if trans_a else (m, k)).astype(dtype)
    b = RNG.normal(size=(n, k) if trans_b else (k, n)).astype(dtype)
    a, b = (a.T if trans_a else a), (b.T if trans_b else b)
    c = RNG.normal(size=(m, n)).astype(dtype)
    want = 0.5 * c + 1.5 * (a @ b)
    assert cblas.gemm(1.5, a, b, 0.5, c)
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(c, want, rtol=tol, atol=tol)


def test_cases_blas_is_not_asked_to_do_leave_the_output_alone():
    a = RNG.normal(size=(4, 4))
    c = np.zeros((4, 4))
    assert not cblas.gemm(1.0, a[::-1], a, 1.0, c)  # negative strides
    assert not cblas.gemm(1.0, a, a, 1.0, a)  # the output is an input
    assert not cblas.gemm(1.0, a[:, ::2], a[::2], 1.0, c[:, :2].copy())  # strided columns
    assert not cblas.gemm(1.0, a.astype("int64"), a.astype("int64"), 1.0, c.astype("int64"))
    assert not cblas.gemm(1.0, np.ones((4, 0)), np.ones((0, 4)), 1.0, c)  # empty product
    assert not cblas.gemm(1.0, a, a, 1.0, np.zeros((4, 8))[:, ::2])  # non-unit output stride
    np.testing.assert_array_equal(c, 0)


@pytest.mark.parametrize("with_blas", [True, False])
def test_gemm_inplace_op_with_and_without_cblas(monkeypatch, with_blas):
    from jitgraph.backend_cpu.runtime.driver import build_program

    if not with_blas:
        monkeypatch.setitem(cblas._FUNCTIONS, "d", None)
    z, x, y, a = T.dmatrix("z"), T.dmatrix("x"), T.dmatrix("y"), T.dscalar("a")
    out = blas.Gemm(True)(z, a, x.T, y, 1.0)  # the BPTT accumulation: z += a * x.T @ y
    Z, X, Y = RNG.normal(size=(6, 5)), RNG.normal(size=(3, 6)), RNG.normal(size=(3, 5))
    want = Z + 2.0 * X.T @ Y
    prog = build_program(FunctionGraph([z, a, x, y], [out], clone=False), allow_gc=True)
    for cell, value in zip(prog.input_cells, [Z, np.array(2.0), X, Y]):
        cell[0] = value
    prog.run()
    assert prog.output_cells[0][0] is Z
    np.testing.assert_allclose(Z, want, rtol=1e-12)


def test_library_paths_are_numpys_bundled_openblas_files(tmp_path, monkeypatch):
    """Found without glob (a warm compile must not import it): every non-hidden file of
    ``numpy.libs`` naming openblas, sorted; a missing folder is skipped."""
    libs = tmp_path / "numpy.libs"
    libs.mkdir()
    for name in ("libscipy_openblas64_-b.so", "libgfortran.so", ".openblas-hidden.so",
                 "libopenblas-a.so"):
        (libs / name).write_bytes(b"")
    (tmp_path / "numpy").mkdir()
    monkeypatch.setattr(np, "__file__", str(tmp_path / "numpy" / "__init__.py"))
    assert cblas._library_paths() == [str(libs / "libopenblas-a.so"),
                                      str(libs / "libscipy_openblas64_-b.so")]
