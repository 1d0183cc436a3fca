"""``theano.tensor.slinalg``: values and gradients against Theano 1.0.5's recorded ones
(``data/linalg_oracle.npz``), against SciPy/NumPy, ``verify_grad``, shapes, errors, and the
message when SciPy is missing."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
import scipy.linalg
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgraph
import jitgraph.tensor as T
import jitgraph.tensor.linalg.slinalg as sl

HERE = os.path.dirname(os.path.abspath(__file__))
REC = np.load(os.path.join(HERE, "data", "linalg_oracle.npz"))
PY = jitgraph.Mode(linker="py", optimizer="None")
COMPILED = jitgraph.Mode(linker="cvm", optimizer="fast_run")
MODES = pytest.mark.parametrize("mode", [PY, COMPILED], ids=["py", "compiled"])
A, S, B, bv, C33, C32, c3 = (REC[k] for k in ("A", "S", "B", "bv", "C33", "C32", "c3"))
STRUCTURES = {"general": A, "symmetric": S, "lower_triangular": np.tril(A),
              "upper_triangular": np.triu(A)}


def check_recorded(mode, name, inputs, values, out, cost=None):
    np.testing.assert_allclose(jitgraph.function(inputs, out, mode=mode)(*values), REC[name],
                               rtol=1e-7, atol=1e-12)
    if cost is not None:
        grads = jitgraph.function(inputs, T.grad(cost, inputs), mode=mode)(*values)
        for k, g in enumerate(grads):
            np.testing.assert_allclose(g, REC[f"{name}_g{k}"], rtol=1e-6, atol=1e-10)


@MODES
def test_cholesky_matches_theano(mode):
    m = T.dmatrix("m")
    low, up = sl.cholesky(m), sl.Cholesky(lower=False)(m)
    check_recorded(mode, "chol", [m], [S], low, (low * C33).sum())
    check_recorded(mode, "cholU", [m], [S], up, (up * C33).sum())


@MODES
@pytest.mark.parametrize("structure", list(STRUCTURES))
def test_solve_matches_theano(mode, structure):
    m, m2, v = T.dmatrix("m"), T.dmatrix("m2"), T.dvector("v")
    op = sl.Solve(A_structure=structure)
    a = STRUCTURES[structure]
    check_recorded(mode, f"solve_{structure}", [m, m2], [a, B], op(m, m2),
                   (op(m, m2) * C32).sum())
    check_recorded(mode, f"solvev_{structure}", [m, v], [a, bv], op(m, v), (op(m, v) * c3).sum())


@MODES
def test_eigvalsh_expm_kron_match_theano(mode):
    m, m2 = T.dmatrix("m"), T.dmatrix("m2")
    w = sl.eigvalsh(m, m2)
    check_recorded(mode, "eigvalsh", [m, m2], [S, S + 2 * np.eye(3)], w, (w * c3).sum())
    e = sl.expm(m)
    check_recorded(mode, "expm", [m], [A * 0.3], e, (e * C33).sum())
    check_recorded(mode, "kron", [m, m2], [A, B], sl.kron(m, m2))


def test_triangular_structure_names_the_triangle():
    # Theano 1.0.5: Solve('lower_triangular', lower=False) still reads the lower triangle.
    m = T.dmatrix("m")
    a = np.array([[2.0, 1.0], [1.0, 3.0]])
    got = jitgraph.function([m], sl.Solve("lower_triangular", lower=False)(m, m))(a)
    np.testing.assert_allclose(got, [[1.0, 0.5], [0.0, 0.83333333333]], rtol=1e-10)


def test_scipy_names_and_helpers():
    m, v = T.dmatrix("m"), T.dvector("v")
    low = np.linalg.cholesky(S)
    for lower in (True, False):
        tri = low if lower else low.T
        got = jitgraph.function([m, v], sl.solve_triangular(m, v, lower=lower))(tri, bv)
        np.testing.assert_allclose(got, scipy.linalg.solve_triangular(tri, bv, lower=lower))
        got = jitgraph.function([m, v], sl.cho_solve((m, lower), v))(tri, bv)
        np.testing.assert_allclose(got, scipy.linalg.cho_solve((tri, lower), bv))
    w = jitgraph.function([m], sl.Eigvalsh()(m, None))(S)
    np.testing.assert_allclose(w, np.linalg.eigvalsh(S))
    nan = jitgraph.function([m], sl.Cholesky(on_error="nan")(m))(-np.eye(2))
    assert np.isnan(nan).all()
    with pytest.raises(np.linalg.LinAlgError):
        jitgraph.function([m], sl.cholesky(m))(-np.eye(2))


@pytest.mark.parametrize("shapes", [((2, 3), (4, 5)), ((3,), (2, 2)), ((2, 2), (3,)),
                                    ((2, 3, 2), (2, 2)), ((3,), (4,)), ((1, 2), (3, 1, 2))])
def test_kron_matches_numpy(shapes):
    rng = np.random.RandomState(0)
    x, y = (rng.rand(*s) for s in shapes)
    a, b = (T.TensorType("float64", (False,) * len(s))() for s in shapes)
    np.testing.assert_allclose(jitgraph.function([a, b], sl.kron(a, b))(x, y), np.kron(x, y))
    T.verify_grad(sl.kron, [x, y], rng=np.random.RandomState(1))


def _spd(a):
    return T.dot(a, a.T) + 3 * np.eye(3)


@pytest.mark.parametrize("name", ["cholesky", "cholesky_upper", "expm", "eigvalsh",
                                  "eigvalsh_b", "eigvalsh_none", "cho_solve"])
def test_verify_grad(name):
    rng = np.random.RandomState(5)
    fns = {
        "cholesky": lambda a: sl.cholesky(_spd(a)),
        "cholesky_upper": lambda a: sl.Cholesky(lower=False)(_spd(a)),
        "expm": lambda a: sl.expm(a * 0.5),
        "eigvalsh": lambda a: sl.eigvalsh(a + a.T, S + 2 * np.eye(3)),
        "eigvalsh_b": lambda a: sl.eigvalsh(S, _spd(a)),
        "eigvalsh_none": lambda a: sl.Eigvalsh(lower=False)(a + a.T, None),
        "cho_solve": lambda a: sl.cho_solve((sl.cholesky(_spd(a)), True), bv),
    }
    T.verify_grad(fns[name], [rng.rand(3, 3)], rng=rng)


@pytest.mark.parametrize("structure", list(STRUCTURES))
def test_solve_verify_grad(structure):
    op = sl.Solve(A_structure=structure)
    prepare = {"general": lambda a: a, "symmetric": lambda a: a + a.T,
               "lower_triangular": lambda a: a, "upper_triangular": lambda a: a}[structure]
    T.verify_grad(lambda a, b: op(prepare(a) + 3 * np.eye(3), b), [A, B],
                  rng=np.random.RandomState(6))


@settings(max_examples=10, deadline=None)
@given(n=st.integers(1, 4), k=st.integers(1, 3), seed=st.integers(0, 2 ** 16))
def test_compiled_matches_perform_and_scipy(n, k, seed):
    rng = np.random.RandomState(seed)
    a = rng.rand(n, n)
    spd, b = a.dot(a.T) + n * np.eye(n), rng.rand(n, k)
    m, m2 = T.dmatrix("m"), T.dmatrix("m2")
    outs = [sl.cholesky(m), sl.solve(m, m2), sl.solve_lower_triangular(m, m2), sl.expm(m * 0.1),
            sl.Eigvalsh()(m, None)]
    compiled = jitgraph.function([m, m2], outs, mode=COMPILED)(spd, b)
    reference = jitgraph.function([m, m2], outs, mode=PY)(spd, b)
    for got, ref in zip(compiled, reference):
        np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-14)
    refs = [scipy.linalg.cholesky(spd, lower=True), scipy.linalg.solve(spd, b),
            scipy.linalg.solve_triangular(spd, b, lower=True), scipy.linalg.expm(spd * 0.1),
            scipy.linalg.eigvalsh(spd)]
    for got, ref in zip(compiled, refs):
        np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-12)


def test_infer_shape(infer_shape_ok):
    m, m2, v = T.dmatrix("m"), T.dmatrix("m2"), T.dvector("v")
    givens = {m: S, m2: B, v: bv}
    for out in (sl.cholesky(m), sl.solve(m, m2), sl.solve(m, v), sl.expm(m),
                sl.eigvalsh(m, m + 5 * np.eye(3))):
        infer_shape_ok(out, givens)
    for cost in (sl.cholesky(m).sum(), sl.expm(m).sum(),
                 sl.eigvalsh(m, m + 5 * np.eye(3)).sum()):
        infer_shape_ok(T.grad(cost, m), givens)


def test_dtypes_and_props():
    f, i = T.fmatrix("f"), T.imatrix("i")
    assert sl.cholesky(f).dtype == "float32" and sl.solve(i, T.ivector()).dtype == "float64"
    assert sl.solve(f, T.fvector()).dtype == "float32" and sl.expm(f).dtype == "float32"
    assert str(sl.cholesky) == "Cholesky{lower=True, destructive=False, on_error='raise'}"
    assert str(sl.solve_lower_triangular) == ("Solve{A_structure='lower_triangular', "
                                              "lower=True, overwrite_A=False, overwrite_b=False}")
    assert str(sl.EigvalshGrad()) == "EigvalshGrad{lower=True}" and str(sl.ExpmGrad()) == \
        "ExpmGrad"
    assert T.slinalg is sl


def test_errors_name_the_argument():
    v, m = T.dvector("v"), T.dmatrix("m")
    with pytest.raises(TypeError, match="A must be a matrix"):
        sl.solve(v, v)
    with pytest.raises(TypeError, match="b must be a vector or a matrix"):
        sl.solve(m, T.dtensor3())
    with pytest.raises(ValueError, match="invalid A_structure 'foo'"):
        sl.Solve("foo")
    with pytest.raises(ValueError, match="on_error must be 'raise' or 'nan'"):
        sl.Cholesky(on_error="foo")
    with pytest.raises(TypeError, match="x must be a matrix"):
        sl.cholesky(v)
    with pytest.raises(TypeError, match="at least 1 dimension"):
        sl.kron(T.dscalar(), T.dscalar())


def test_building_without_scipy_says_which_extra(monkeypatch):
    for name in [n for n in sys.modules if n == "scipy" or n.startswith("scipy.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "scipy", None)  # makes "import scipy" raise ImportError
    with pytest.raises(ImportError, match=r"jitgraph\[scipy\]"):
        sl.Solve()(T.dmatrix(), T.dvector())
    with pytest.raises(ImportError, match=r"jitgraph\[scipy\]"):
        sl.cholesky(T.dmatrix())
    sl.kron(T.dmatrix(), T.dmatrix())  # a graph of elementwise ops: no SciPy needed


def test_importing_jitgraph_does_not_import_scipy():
    code = ("import sys, jitgraph, jitgraph.tensor.linalg.slinalg, jitgraph.tensor.linalg.nlinalg, "
            "jitgraph.tensor.linalg.fft; print('scipy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False,
                         timeout=120)
    assert out.stdout.strip() == "False", out.stderr


def test_runtime_shape_errors_are_named():
    m, m2, v = T.dmatrix("m"), T.dmatrix("m2"), T.dvector("v")
    with pytest.raises(np.linalg.LinAlgError, match="Cholesky.*x must be a square matrix"):
        jitgraph.function([m], sl.cholesky(m))(np.ones((2, 3)))
    with pytest.raises(np.linalg.LinAlgError, match="A must be a square matrix"):
        jitgraph.function([m, v], sl.solve(m, v))(np.ones((2, 3)), np.ones(2))
    with pytest.raises(ValueError, match="b must have as many rows as A"):
        jitgraph.function([m, v], sl.solve(m, v))(np.eye(2), np.ones(3))
    with pytest.raises(ValueError, match="b must have the shape of a"):
        jitgraph.function([m, m2], sl.eigvalsh(m, m2))(np.eye(2), np.eye(3))


# solve's dtype is SciPy's (and Theano 1.0.5's): the common dtype with float32. Before, float16
# inputs failed in NumPy and small integers gave float64.
@pytest.mark.parametrize("a,b,theano", [
    ("uint8", "uint8", "float32"), ("int8", "float16", "float32"), ("float16", "float16",
                                                                    "float32"),
    ("float16", "int32", "float64"), ("int64", "float32", "float64"), ("float32", "uint8",
                                                                       "float32"),
    ("float32", "float32", "float32"), ("uint64", "int8", "float64"), ("float64", "float16",
                                                                       "float64"),
])
def test_solve_dtype_is_scipys(a, b, theano):
    A, B = T.matrix("A", dtype=a), T.matrix("B", dtype=b)
    x = sl.solve(A, B)
    assert x.dtype == theano
    got = jitgraph.function([A, B], x)(np.eye(2).astype(a), np.ones((2, 1)).astype(b))
    assert got.dtype == theano
    np.testing.assert_array_equal(got, np.ones((2, 1)))


def test_cholesky_grad_of_a_failed_factorisation_is_nan():
    # Theano 1.0.5: all NaN; before, the gradient raised SciPy's "must not contain infs or NaNs"
    m = T.dmatrix("m")
    g = jitgraph.grad(sl.Cholesky(lower=True, on_error="nan")(m).sum(), m)
    got = jitgraph.function([m], g)(np.array([[1, 0.2], [0.2, -2]]))
    assert np.isnan(got).all()
    raising = jitgraph.grad(sl.Cholesky(lower=True, on_error="raise")(m).sum(), m)
    with pytest.raises(scipy.linalg.LinAlgError):
        jitgraph.function([m], raising)(np.array([[1, 0.2], [0.2, -2]]))
