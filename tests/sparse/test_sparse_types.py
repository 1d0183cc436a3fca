"""Sparse types, variables, shared variables, the optional SciPy dependency, and the errors a
user sees for a bad value (dense for sparse, the wrong format or dtype, mismatched shapes)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

sp = pytest.importorskip("scipy.sparse")

import jitgraph
import jitgraph.tensor as T
from jitgraph import sparse as S

API = os.path.join(os.path.dirname(__file__), "..", "data", "theano_api.json")


def test_type_and_variable_text_as_theano():
    x = S.csc_matrix("x")
    assert str(x.type) == "Sparse[float64, csc]" == repr(x.type)
    assert str(S.csr_fmatrix().type) == "Sparse[float32, csr]"
    assert str(S.csc_matrix()) == "SparseVariable{csc,float64}"
    assert x.ndim == 2 and x.format == "csc" and x.dtype == "float64"
    assert not hasattr(x, "broadcastable")
    assert S.SparseType("csr", "float32") == S.csr_fmatrix().type
    assert hash(S.SparseType("csr", "int64")) == hash(S.SparseType("csr", "int64"))
    assert str(S.transpose(x).owner.op) == "SparseTranspose"
    assert str(S.dense_from_sparse(x).owner.op) == "DenseFromSparse{structured_grad=True}"
    assert str(S.csm_properties(x)[0].owner.op) == "CSMProperties"
    assert str(S.CSC) == "CSM{format='csc'}"
    assert str(S.sp_sum(x).owner.op) == "SpSum{axis=None}"
    assert str(S.hstack([x, x]).owner.op) == "HStack(csc,float64)"
    assert str(S.usmm) == "Usmm{no_inplace}" and str(S.fcast) == "Cast(float32)"


def test_unknown_format_and_dtype():
    with pytest.raises(NotImplementedError, match="format"):
        S.SparseType("coo", "float64")
    with pytest.raises(NotImplementedError, match="all_dtypes"):
        S.SparseType("csr", "float16")


def test_filter_names_what_was_expected():
    t = S.SparseType("csc", "float64")
    good = sp.csc_matrix(np.eye(3))
    assert t.filter(good) is good
    with pytest.raises(TypeError, match=r"expected a scipy.sparse.csc_matrix of dtype float64.*"
                                        r"numpy.ndarray of shape \(3, 3\)"):
        t.filter(np.eye(3))
    with pytest.raises(TypeError, match=r"got a sparse csr matrix; convert it with "
                                        r"value.tocsc\(\)"):
        t.filter(sp.csr_matrix(np.eye(3)))
    with pytest.raises(TypeError, match="of dtype float32"):
        t.filter(sp.csc_matrix(np.eye(3, dtype="float32")))


def test_bad_function_arguments_name_the_input():
    x = S.csc_matrix("x")
    f = jitgraph.function([x], S.sp_sum(x))
    assert f(sp.csc_matrix(np.eye(3))) == 3.0
    for bad, why in [(np.eye(3), "numpy.ndarray"), (sp.csr_matrix(np.eye(3)), "csr"),
                     ([[1.0]], "list")]:
        with pytest.raises(TypeError) as info:
            f(bad)
        text = str(info.value)
        assert "x" in text and "csc_matrix" in text and why in text


def test_mismatched_shapes_name_both_inputs():
    x, y = S.csr_matrix("x"), S.csr_matrix("y")
    d = T.dmatrix("d")
    cases = [(jitgraph.function([x, y], S.add(x, y)), (3, 3), (3, 4), "sparse addition"),
             (jitgraph.function([x, y], S.mul(x, y)), (2, 3), (3, 2), "elementwise product")]
    for f, s1, s2, what in cases:
        with pytest.raises(ValueError, match=f"{what}.*x.*{s1}.*y.*{s2}".replace("(", r"\(")
                           .replace(")", r"\)")):
            f(sp.csr_matrix(np.ones(s1)), sp.csr_matrix(np.ones(s2)))
    g = jitgraph.function([x, d], S.structured_dot(x, d), mode="FAST_COMPILE")
    with pytest.raises(ValueError, match=r"input 0 \(x\) has shape \(2, 3\).*input 1 \(d\)"):
        g(sp.csr_matrix(np.ones((2, 3))), np.ones((4, 2)))
    h = jitgraph.function([x, d], S.structured_dot(x, d), mode="FAST_RUN")
    with pytest.raises(ValueError, match="index is outside"):
        h(sp.csr_matrix(np.ones((2, 3))), np.ones((2, 2)))


def test_dense_where_sparse_expected_at_build_time():
    with pytest.raises(TypeError, match="argument 0 must be a sparse matrix.*csc_from_dense"):
        S.dense_from_sparse(T.dmatrix("m"))
    with pytest.raises(TypeError, match="at least one sparse operand"):
        S.dot(T.dmatrix(), T.dmatrix())
    with pytest.raises(TypeError, match="structured_add"):
        S.add(S.csr_matrix(), T.dscalar())


def test_shared_sparse_matrix():
    value = sp.csr_matrix(np.array([[0, 2.0], [1, 0]]))
    W = jitgraph.shared(value, name="W")
    assert type(W).__name__ == "SparseSharedVariable" and str(W.type) == "Sparse[float64, csr]"
    assert S.SparseTensorSharedVariable is type(W)
    value[0, 1] = 5.0  # copied unless borrow
    assert W.get_value()[0, 1] == 2.0
    f = jitgraph.function([], S.sp_sum(W), updates=[(W, S.mul(W, 2.0))])
    assert f() == 3.0 and f() == 6.0
    with pytest.raises(TypeError, match="csr_matrix"):
        W.set_value(np.eye(2))
    C = S.shared(value, format="csc")
    assert C.type.format == "csc"


def test_operators():
    x = S.csr_matrix("x")
    d = T.dmatrix("d")
    a = sp.csr_matrix(np.array([[0, 1.0], [2, 0]]))
    dv = np.array([[1.0, 2], [3, 4]])
    f = jitgraph.function([x, d], [x + d, d + x, x - d, d - x, (x * d).toarray(), d * x,
                                   (-x).toarray(), x.T.toarray(), x * 3, jitgraph.dot(x, d)])
    r = f(a, dv)
    ad = a.toarray()
    for got, want in zip(r, [ad + dv, dv + ad, ad - dv, dv - ad, ad * dv, ad * dv, -ad, ad.T,
                             ad * 3, ad @ dv]):
        np.testing.assert_allclose(got.toarray() if hasattr(got, "toarray") else got, want)
    assert S.SparseType == type((d * x).type) and (x.T).format == "csc"


def test_every_theano_name_exists():
    if not os.path.exists(API):
        pytest.skip("theano_api.json fixture not found")
    with open(API) as f:
        names = json.load(f)["theano.sparse"]
    assert [n for n in names if not hasattr(S, n)] == []


def test_import_jitgraph_does_not_import_scipy():
    code = ("import sys, jitgraph, jitgraph.sparse; "
            "assert 'scipy' not in sys.modules, [m for m in sys.modules if 'scipy' in m]")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_without_scipy_building_names_the_extra(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_scipy(name, *args, **kwargs):
        if name == "scipy" or name.startswith("scipy."):
            raise ImportError("No module named 'scipy'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_scipy)
    with pytest.raises(ImportError, match=r"pip install jitgraph\[sparse\]"):
        S.csr_matrix("x")
    with pytest.raises(ImportError, match=r"jitgraph\[sparse\]"):
        S.SparseType("csc", "float64")
