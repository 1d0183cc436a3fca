"""Most theano.sparse functions applied to small matrices, with a few gradients: the values
Theano 1.0.5 computes (recorded) against jitgraph's."""
import json

import numpy as np
import scipy.sparse as sp
import theano
import theano.tensor as T
from theano import sparse as S


def value(v):
    if hasattr(v, 'toarray'):
        return {"format": v.format, "dtype": str(v.dtype), "dense": v.toarray().tolist()}
    v = np.asarray(v)
    return {"dtype": str(v.dtype), "dense": v.tolist()}


def main():
    a = sp.csc_matrix(np.array([[0, 1.5, 0], [2, 0, 0], [0, 3, -1]]))
    b = sp.csc_matrix(np.array([[0, 1., 0], [0, 0, 5], [0, 2, -1]]))
    dv = np.array([[0, 1., 1], [2, 0, 0], [0, 2, 0.5]])
    vec = np.array([0.5, -1., 2.])
    x, y = S.csc_matrix('x'), S.csc_matrix('y')
    r = S.csr_matrix('r')
    d, v = T.dmatrix('d'), T.dvector('v')
    exprs = {
        "eq_ss": S.eq(x, y), "lt_ss": S.lt(x, y), "ge_ss": S.ge(x, y), "neq_sd": S.neq(x, d),
        "gt_sd": S.gt(x, d), "le_ds": S.le(d, x), "lt_ds": S.lt(d, x),
        "add_ss": x + y, "sub_ss": x - y, "mul_ss": x * y, "add_sd": x + d, "mul_sd": x * d,
        "mul_scalar": x * 2.5, "mul_s_v": S.mul_s_v(x, v), "add_s_v": S.structured_add_s_v(x, v),
        "neg": -x, "transpose": x.T, "sp_sum": S.sp_sum(x), "sp_sum0": S.sp_sum(x, 0),
        "sp_sum1": S.sp_sum(x, 1), "diag": S.diag(x), "square_diagonal": S.square_diagonal(v),
        "col_scale": S.col_scale(x, v), "row_scale": S.row_scale(x, v),
        "ones_like": S.sp_ones_like(x), "zeros_like": S.sp_zeros_like(x),
        "csm_data": S.csm_data(x), "csm_indices": S.csm_indices(x), "csm_indptr": S.csm_indptr(x),
        "csm_shape": S.csm_shape(x), "fcast": S.fcast(x), "icast": S.icast(x),
        "structured_sigmoid": S.structured_sigmoid(x), "structured_exp": S.structured_exp(x),
        "structured_pow": S.structured_pow(x, 2), "structured_min": S.structured_minimum(x, 1),
        "structured_max": S.structured_maximum(x, 1), "sqrt_abs": S.sqrt(S.structured_pow(x, 2)),
        "sin": S.sin(x), "tanh": S.tanh(x), "floor": S.floor(x), "ceil": S.ceil(x),
        "sgn": S.sgn(x), "trunc": S.trunc(x), "rint": S.rint(x), "expm1": S.expm1(x),
        "deg2rad": S.deg2rad(x), "rad2deg": S.rad2deg(x), "sqr": S.sqr(x),
        "structured_dot": S.structured_dot(x, d), "dot_sd": S.dot(x, d), "dot_ds": S.dot(d, x),
        "dot_sv": S.dot(x, v), "dot_ss": S.dot(x, y), "true_dot_ss": S.true_dot(x, y),
        "true_dot_sd": S.true_dot(x, d), "true_dot_ds": S.true_dot(d, x),
        "sampling_dot": S.sampling_dot(d, d, x), "usmm": S.usmm(T.constant(0.5).dimshuffle('x', 'x'), x, d, T.ones_like(d)),
        "hstack": S.hstack([x, y]), "vstack": S.vstack([x, y], format='csr'),
        "get_item_list": S.get_item_list(x, [2, 0]), "slice": x[1:3, 0:2],
        "slice_step": x[::2], "scalar": x[2, 1], "two_lists": x[[2, 0], [1, 0]],
        "csr_from_dense": S.csr_from_dense(d), "dense_from_sparse": S.dense_from_sparse(x),
        "remove0": S.remove0(S.mul(x, d)), "clean": S.clean(x + y),
        "construct": S.construct_sparse_from_list(d, d[:2] * 2, [2, 0]),
        "from_csr": S.dot(r, d),
        "grad_mul_sd": T.grad(S.sp_sum(x * d), d),
        "grad_sp_sum_structured": T.grad(T.sum(S.sp_sum(x, 0, sparse_grad=True) * v), x),
        "grad_sp_sum_full": T.grad(T.sum(S.sp_sum(x, 1) * v), x),
        "grad_true_dot": T.grad(S.sp_sum(S.true_dot(x, d)), x),
        "grad_hstack": T.grad(S.sp_sum(S.hstack([x, y]) * 2), y),
        "grad_structured_sigmoid": T.grad(S.sp_sum(S.structured_sigmoid(x)), x),
        "grad_dense_from_sparse": T.grad(T.sum(S.dense_from_sparse(x) ** 2), x),
        "grad_sampling_dot": T.grad(S.sp_sum(S.sampling_dot(d, d, x)), d),
    }
    names = sorted(exprs)
    f = theano.function([x, y, r, d, v], [exprs[n] for n in names], on_unused_input='ignore')
    outs = f(a, b, a.tocsr(), dv, vec)
    return {n: value(o) for n, o in zip(names, outs)}


if __name__ == '__main__':
    print(json.dumps(main(), indent=0, sort_keys=True))
