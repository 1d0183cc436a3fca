"""Sparse behaviours found by running Theano 1.0.5's own ``sparse/tests/test_basic.py`` against
jitgraph; the expected values were recorded with the Theano oracle."""

from __future__ import annotations

import numpy as np
import pytest

sp = pytest.importorskip("scipy.sparse")

import jitgraph
from jitgraph import sparse as S


def test_constant_keeps_its_value_when_the_matrix_changes_later():
    # Theano 1.0.5: the constant holds a copy; changing the matrix afterwards changes nothing
    m = sp.csr_matrix(np.array([[1., 0., 2.], [0., 3., 0.]]))
    c = S.as_sparse_variable(m)
    assert c.data is not m
    m.data[:] = 7.0
    f = jitgraph.function([], S.dense_from_sparse(c))
    assert f().tolist() == [[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]]


def test_theano_dtype_groups_and_matrix_classes():
    from jitgraph.sparse.basic import _mtypes
    assert _mtypes == [sp.csc_matrix, sp.csr_matrix]
    assert set(S.discrete_dtypes) == {"int8", "int16", "int32", "int64",
                                      "uint8", "uint16", "uint32", "uint64"}
    assert set(S.float_dtypes) == {"float32", "float64"}
    assert set(S.complex_dtypes) == {"complex64", "complex128"}
    assert tuple(S.sparse_formats) == ("csc", "csr")


def test_shape_of_a_computed_matrix_does_not_compute_it():
    # Theano 1.0.5: function([x, y], (x + y).shape) reads Shape_i of x; no AddSS is left
    x, y = S.csr_matrix("x"), S.csr_matrix("y")
    for out, op_class in [((x + y).shape, S.AddSS), ((-x).shape, S.Neg),
                          (S.transpose(S.mul(x, y)).shape, S.MulSS)]:
        f = jitgraph.function([x, y], out, on_unused_input="ignore")
        assert not any(isinstance(n.op, op_class) for n in f.maker.fgraph.toposort())
        a = sp.csr_matrix(np.arange(12.).reshape(3, 4))
        got = f(a, a)
        assert got.dtype == "int64"
        assert got.tolist() == ([4, 3] if op_class is S.MulSS else [3, 4])



def test_may_share_memory_through_the_stored_arrays():
    # Theano 1.0.5: [True, False, True, True, False, True, False]
    a, b = sp.csc_matrix(sp.eye(5, 3)), sp.csc_matrix(sp.eye(4, 3))
    pairs = [(a, a), (a, b), (a, a.data), (a.indptr, a), (a, np.array(a.shape)),
             (a.transpose(), a), (b.data, a)]
    assert [S.SparseType.may_share_memory(p, q) for p, q in pairs] == \
        [True, False, True, True, False, True, False]


def test_size_counts_stored_entries_and_bsr_graphs_compile():
    # size is scipy's y.size (an explicit zero counts);
    # Theano 1.0.5: the bsr product [[1, 0], [8, 9]]
    x = S.csr_matrix("x")
    f = jitgraph.function([x], x.size)
    y = sp.lil_matrix((5, 7))
    y[0, 0] = 1
    y = y.tocsr()
    sizes = [int(f(sp.csr_matrix((5, 7)))), int(f(y))]
    y.data[:] = 0
    sizes.append(int(f(y)))
    assert sizes == [0, 1, 1]
    a, b = S.SparseType("bsr", "float64")(), S.SparseType("bsr", "float64")()
    g = jitgraph.function([a, b], jitgraph.dot(a, b))
    m = sp.bsr_matrix(np.array([[1., 0], [2, 3]]))
    assert g(m, m).toarray().tolist() == [[1.0, 0.0], [8.0, 9.0]]


def test_c_only_op_names_are_classes_that_match_no_node():
    from jitgraph.sparse import opt

    x, y = S.csr_matrix("x"), S.csr_matrix("y")
    node = (x + y).owner
    assert not isinstance(node.op, (opt.AddSD_ccode, opt.UsmmCscDense, opt.SamplingDotCSR))
    with pytest.raises(NotImplementedError, match="no C backend.*AddSDCSx"):
        opt.AddSD_ccode()


def test_verify_grad_E_grad_is_the_error_a_wrong_gradient_raises():
    import jitgraph.tensor as T
    from jitgraph.graph.basic import Apply
    from jitgraph.graph.op import Op

    class WrongGradient(Op):
        __props__ = ()

        def make_node(self, x):
            x = S.as_sparse_variable(x)
            return Apply(self, [x], [S.csr_matrix(dtype=x.dtype)])

        def perform(self, node, inputs, outputs):
            outputs[0][0] = inputs[0] * 2

        def grad(self, inputs, grads):
            return [grads[0]]  # the true gradient is 2 * grads[0]

    assert T.verify_grad.E_grad is jitgraph.gradient.verify_grad.E_grad
    with pytest.raises(T.verify_grad.E_grad):
        S.verify_grad_sparse(WrongGradient(), [sp.csr_matrix(np.eye(3))], structured=True)


def test_sparse_grad_of_a_non_matrix_is_a_type_error():
    # Theano 1.0.5 raises TypeError for the gradient of sparse_grad(t[v]) when t is not 2-d
    import jitgraph.tensor as T

    for ndim in (1, 3):
        t = T.TensorType("float64", (False,) * ndim)()
        sub = jitgraph.sparse_grad(t[T.ivector()])
        with pytest.raises(TypeError, match="only for matrices"):
            jitgraph.grad(sub.sum(), t)


def test_remove0_works_in_place_on_a_mutable_input_only():
    # Theano 1.0.5: ['Remove0{inplace}'] / 2 [[1, 0, 0], [0, 0, 2]] 2 /
    #               ['Remove0{}', 'SpSum{axis=None}'] / 2 3.0 3
    def matrix():
        return sp.csr_matrix((np.array([1., 0., 2.]), np.array([0, 1, 2]), np.array([0, 2, 3])),
                             shape=(2, 3))

    x = S.csr_matrix("x")
    f = jitgraph.function([jitgraph.In(x, borrow=True, mutable=True)], S.Remove0()(x))
    assert [str(n.op) for n in f.maker.fgraph.toposort()] == ["Remove0{inplace}"]
    m = matrix()
    r = f(m)
    assert (r.nnz, r.toarray().tolist(), m.nnz) == (2, [[1, 0, 0], [0, 0, 2]], 2)
    g = jitgraph.function([x], [S.Remove0()(x), S.sp_sum(x)])
    assert sorted(str(n.op) for n in g.maker.fgraph.toposort()) == ["Remove0{}",
                                                                    "SpSum{axis=None}"]
    m = matrix()
    a, b = g(m)
    assert (a.nnz, float(b), m.nnz) == (2, 3.0, 3)


def test_product_with_a_column_keeps_it_broadcastable():
    # Theano 1.0.5: dot(csr, v[:, None]) is (False, True); dot(v[None, :], csr) is (True, False)
    import jitgraph.tensor as T

    x, v = S.csr_matrix("x"), T.dvector("v")
    col, row = jitgraph.dot(x, v[:, None]), jitgraph.dot(v[None, :], x)
    assert col.broadcastable == (False, True) and row.broadcastable == (True, False)
    a = sp.csr_matrix(np.array([[1., 0., 2.], [0., 3., 0.]]))
    for mode in ("FAST_RUN", "FAST_COMPILE"):
        f = jitgraph.function([x, v], [col, col + 1.0], mode=mode)
        c, c1 = f(a, [1.0, 2.0, 3.0])
        assert c.tolist() == [[7.0], [6.0]] and c1.tolist() == [[8.0], [7.0]]
        g = jitgraph.function([x, v], row, mode=mode)
        assert g(a, [1.0, 2.0]).tolist() == [[1.0, 6.0, 2.0]]


def test_theano_rewrite_names_turn_the_specialized_kernels_off():
    # Theano 1.0.5 with mode.excluding('local_mul_s_d'): ['MulSD'], [[3, 0], [0, 12]]
    import jitgraph.tensor as T
    from jitgraph.compile.mode import get_default_mode

    x, y = S.csr_matrix("x"), T.dmatrix("y")
    f = jitgraph.function([x, y], x * y, mode=get_default_mode().excluding("local_mul_s_d"))
    assert [type(n.op).__name__ for n in f.maker.fgraph.toposort()] == ["MulSD"]
    a = sp.csr_matrix(np.array([[1., 0.], [0., 2.]]))
    assert f(a, np.array([[3., 4.], [5., 6.]])).toarray().tolist() == [[3.0, 0.0], [0.0, 12.0]]
