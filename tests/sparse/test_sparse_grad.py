"""verify_grad_sparse for every differentiable sparse op (structured gradients checked on the
stored values, full gradients on every element), on the NumPy reference and compiled."""

from __future__ import annotations

import numpy as np
import pytest

sp = pytest.importorskip("scipy.sparse")

import jitgraph
import jitgraph.tensor as T
from jitgraph import sparse as S

RNG = np.random.RandomState(42)


def sprand(n, m, fmt="csr", density=0.4, positive=False, seed=None):
    rng = np.random.RandomState(seed) if seed is not None else RNG
    dense = rng.uniform(0.5, 2.0, size=(n, m)) if positive else rng.randn(n, m)
    dense[rng.uniform(size=(n, m)) > density] = 0
    dense[0, 0] = dense[0, 0] or 1.3  # never an empty matrix
    return getattr(sp, f"{fmt}_matrix")(dense)


def dense(*shape):
    return RNG.randn(*shape)


def _indices(*values):
    return np.asarray(values, dtype="int32")


CSR = lambda *a, **k: sprand(*a, fmt="csr", **k)
CSC = lambda *a, **k: sprand(*a, fmt="csc", **k)

# (id, function of variables, point, structured)
CASES = [
    ("csm_data", S.csm_data, [CSR(4, 3)], True),
    ("CSM", lambda d: S.CSR(d, _indices(0, 2, 1), _indices(0, 1, 2, 3), _indices(3, 3)),
     [dense(3)], False),
    ("dense_from_sparse", S.dense_from_sparse, [CSC(3, 4)], True),
    ("dense_from_sparse_full", S.DenseFromSparse(structured=False), [CSC(3, 4)], False),
    ("csr_from_dense", S.csr_from_dense, [dense(3, 4)], False),
    ("transpose", S.transpose, [CSR(3, 5)], False),
    ("neg", S.neg, [CSC(4, 4)], False),
    ("cast", lambda x: S.cast(x, "float64"), [CSR(3, 3).astype("float32")], False),
    ("ensure_sorted_indices", S.ensure_sorted_indices, [CSR(3, 4)], False),
    ("remove0", S.remove0, [CSC(3, 4)], True),
    ("add_s_s", S.add, [CSR(3, 4), CSR(3, 4, seed=3)], False),
    ("add_s_s_data", S.add_s_s_data, [CSR(3, 4, seed=4), CSR(3, 4, seed=4) * 1.5], True),
    ("add_s_d", S.add, [CSC(3, 4), dense(3, 4)], True),
    ("structured_add_s_v", S.structured_add_s_v, [CSR(3, 4), dense(4)], True),
    ("mul_s_s", S.mul, [CSR(4, 3), CSR(4, 3, seed=5)], False),
    ("mul_s_d", S.mul, [CSC(4, 3), dense(4, 3)], True),
    ("mul_s_scalar", lambda x, a: S.mul_s_d(x, a), [CSR(4, 3), np.asarray(1.7)], True),
    ("mul_s_v", S.mul_s_v, [CSR(3, 4), dense(4)], True),
    ("sub", S.sub, [CSR(3, 4), CSR(3, 4, seed=8)], False),
    ("sp_sum", S.sp_sum, [CSR(3, 4)], False),
    ("sp_sum_0", lambda x: S.sp_sum(x, axis=0), [CSC(3, 4)], False),
    ("sp_sum_1_structured", lambda x: S.sp_sum(x, axis=1, sparse_grad=True), [CSR(3, 4)], True),
    ("diag", S.diag, [CSC(4, 4)], False),
    ("square_diagonal", S.square_diagonal, [dense(4)], False),
    ("col_scale", S.col_scale, [CSC(3, 4), dense(4)], True),
    ("row_scale", S.row_scale, [CSR(3, 4), dense(3)], True),
    ("structured_dot", S.structured_dot, [CSC(4, 3), dense(3, 2)], True),
    ("structured_dot_csr", S.structured_dot, [CSR(4, 3), dense(3, 2)], True),
    ("structured_dot_dense_left", S.structured_dot, [dense(2, 4), CSR(4, 3)], True),
    ("dot", S.dot, [CSR(4, 3), dense(3, 2)], False),
    ("dot_dense_left", S.dot, [dense(2, 4), CSC(4, 3)], False),
    ("dot_vector", S.dot, [CSR(4, 3), dense(3)], False),
    ("dot_sparse_sparse", S.dot, [CSR(4, 3), CSC(3, 2)], False),
    ("true_dot", S.true_dot, [CSR(4, 3), CSR(3, 2, seed=9)], False),
    ("true_dot_dense", S.true_dot, [CSC(4, 3), dense(3, 2)], False),
    ("sampling_dot", lambda x, y: S.sampling_dot(x, y, S.as_sparse_variable(CSR(3, 4, seed=2))),
     [dense(3, 2), dense(4, 2)], False),
    ("get_item_list", lambda x: S.get_item_list(x, [2, 0]), [CSR(3, 4)], True),
    ("get_item_2lists", lambda x: S.get_item_2lists(x, [2, 0, 1], [1, 0, 3]), [CSR(3, 4)],
     False),
    ("hstack", lambda a, b: S.hstack([a, b]), [CSC(3, 2), CSR(3, 4)], False),
    ("vstack", lambda a, b: S.vstack([a, b], format="csr"), [CSC(2, 3), CSR(4, 3)], False),
    ("construct_sparse_from_list",
     lambda v: S.construct_sparse_from_list(T.zeros((5, 3)), v, _indices(4, 1, 4)),
     [dense(3, 3)], False),
    ("structured_sigmoid", S.structured_sigmoid, [CSR(3, 4)], True),
    ("structured_exp", S.structured_exp, [CSC(3, 4)], True),
    ("structured_log", S.structured_log, [CSR(3, 4, positive=True)], True),
    ("structured_pow", lambda x: S.structured_pow(x, 3), [CSR(3, 4)], True),
    ("structured_minimum", lambda x: S.structured_minimum(x, 0.2), [CSR(3, 4)], True),
    ("structured_maximum", lambda x: S.structured_maximum(x, 0.2), [CSR(3, 4)], True),
    ("structured_add", lambda x: S.structured_add(x, 2.5), [CSC(3, 4)], True),
    ("sqrt", S.sqrt, [CSR(3, 4, positive=True)], True),
    ("log1p", S.log1p, [CSR(3, 4, positive=True)], True),
    ("tanh", S.tanh, [CSC(3, 4)], True),
    ("sin", S.sin, [CSR(3, 4)], True),
    ("arctan", S.arctan, [CSR(3, 4)], True),
    ("expm1", S.expm1, [CSR(3, 4)], True),
    ("sqr", S.sqr, [CSC(3, 4)], True),
    ("deg2rad", S.deg2rad, [CSC(3, 4)], True),
]


@pytest.mark.parametrize("fn, pt, structured", [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_verify_grad_sparse(fn, pt, structured):
    S.verify_grad_sparse(fn, pt, structured=structured, rng=np.random.RandomState(0))


COMPILED = ["structured_dot", "structured_dot_csr", "dot", "dot_dense_left", "mul_s_d",
            "mul_s_v", "structured_add_s_v", "add_s_d", "sampling_dot", "structured_sigmoid"]


@pytest.mark.parametrize("name", COMPILED)
def test_verify_grad_sparse_compiled(name):
    _, fn, pt, structured = next(c for c in CASES if c[0] == name)
    S.verify_grad_sparse(fn, pt, structured=structured, rng=np.random.RandomState(1),
                         mode="FAST_RUN")


def test_verify_grad_sparse_catches_a_wrong_gradient():
    from jitgraph.tensor.core.grad_check import GradientError

    class WrongNeg(S.Neg):
        def grad(self, inputs, gout):
            return [gout[0]]  # the sign is missing

    with pytest.raises(GradientError):
        S.verify_grad_sparse(WrongNeg(), [sprand(3, 3)], rng=np.random.RandomState(0))


def test_structured_gradients_stay_sparse():
    x = S.csc_matrix("x", dtype="float64")
    W = T.dmatrix("W")
    gx = jitgraph.grad(T.sum(S.structured_dot(x, W)), x)
    assert isinstance(gx.type, S.SparseType) and gx.type.format == "csc"
    gd = jitgraph.grad(T.sum(S.dot(x, W)), x)  # Theano's dot: a dense gradient
    assert not isinstance(gd.type, S.SparseType)
    gm = jitgraph.grad(T.sum(S.dense_from_sparse(S.mul(x, W))), [x, W])
    assert isinstance(gm[0].type, S.SparseType) and gm[1].ndim == 2


def test_sparse_grad_equals_the_dense_gradient():
    m, idx = T.dmatrix("m"), T.ivector("idx")
    cost = (T.tanh(jitgraph.sparse.sparse_grad(m[idx])) ** 2).sum()
    g_sparse = jitgraph.grad(cost, m)
    g_dense = jitgraph.grad((T.tanh(m[idx]) ** 2).sum(), m)
    assert isinstance(g_sparse.type, S.SparseType)
    f = jitgraph.function([m, idx], [g_sparse, g_dense])
    got, want = f(dense(5, 3), _indices(4, 0, 4, 2))
    np.testing.assert_allclose(got.toarray(), want)
