"""Programs over theano.tensor's shape and indexing names, shared by the tests and by the script
that records Theano 1.0.5's results for them (``data/record_shape_index_oracle.py``, run under
the oracle). Each case takes the tensor module ``T`` and ``function`` and returns a list of
results: arrays, or strings (types and op names) compared as text.

NumPy only at import (the oracle's environment has no jitgraph).
"""

from __future__ import annotations

import numpy as np

A34 = np.arange(12.0).reshape(3, 4) - 5.0
B234 = np.random.RandomState(3).standard_normal((2, 3, 4))
V3 = np.array([1.0, -2.0, 3.0])


def _typ(v):
    return f"{v.type} {tuple(bool(b) for b in v.broadcastable)}"


def case_eye_tri(T, function):
    n = T.lscalar("n")
    e = T.eye(n, n + 1, 1, dtype="int32")
    f = function([n], [e, T.tri(n, 3, -1), T.eye(n), T.tri(n, dtype="int8")])
    return [*f(3), _typ(e), _typ(T.tri(n, dtype="int8")), str(T.eye(3).owner.op)]


def case_tril_triu(T, function):
    x = T.matrix("x")
    f = function([x], [T.tril(x), T.tril(x, -1), T.triu(x, 1), T.triu(x, -2),
                       T.identity_like(x)])
    return f(A34)


def case_diag(T, function):
    x, v, t = T.matrix("x"), T.vector("v"), T.tensor3("t")
    f = function([x, v, t], [T.diag(v), T.diag(v, -1), T.diag(x), T.diag(x, 2),
                             T.diagonal(x, -1), T.diagonal(t, 1, 0, 2), T.diagonal(t, 0, 2, 1)])
    return [*f(A34, V3, B234), _typ(T.diag(v)), str(T.diag(x, 1).owner.op)]


def case_diag_grad(T, function):
    x, v = T.matrix("x"), T.vector("v")
    # (Theano 1.0 differentiates ExtractDiag only for matrices and offset 0)
    cost = (T.diagonal(x) * T.arange(3)).sum() + (T.diag(v, 1) ** 2).sum() + \
        (T.diag(x) ** 2).sum()
    f = function([x, v], T.grad(cost, [x, v]))
    return f(A34[:, :3], V3)


def case_nonzero(T, function):
    x, t = T.matrix("x"), T.tensor3("t")
    outs = [*T.nonzero(x), T.nonzero(x, return_matrix=True), T.flatnonzero(x),
            T.nonzero_values(x), T.nonzero(t, return_matrix=True), T.nonzero_values(t)]
    f = function([x, t], outs)
    return [*f(A34, np.where(B234 > 0.5, B234, 0.0)), _typ(T.nonzero(x)[0])]


def case_split(T, function):
    x, s = T.matrix("x"), T.lvector("s")
    parts = T.split(x, s, 3, axis=1)
    g = T.grad((parts[0] ** 2).sum() + (parts[2] * 3).sum(), x)
    f = function([x, s], parts + [g])
    return [*f(A34, [1, 0, 3]), str(parts[0].owner.op)]


def case_stacking(T, function):
    a, b, c, d = T.scalars("a", "b", "c", "d")
    x = T.matrix("x")
    f = function([a, b, c, d, x], [T.stacklists([[a, b], [c, d]]), T.horizontal_stack(x, x),
                                   T.vertical_stack(x, 2 * x), T.stack([x, x], axis=1)])
    return f(1, 2, 3, 4, A34)


def case_reorder(T, function):
    x, t = T.matrix("x"), T.tensor3("t")
    n = T.lscalar("n")
    iv = T.lvector("iv")
    outs = [T.swapaxes(t, 0, 2), T.swapaxes(t, -1, 1), T.roll(x, 1), T.roll(x, -1, axis=1),
            T.roll(x, n, axis=0), T.roll(t, n), T.take(x, iv[:2], axis=1),
            T.take(x, iv, axis=0, mode="wrap"), T.take(x, iv, axis=0, mode="clip"),
            T.take(x, [[0, 1], [2, 11]]), T.take(t, n - 3, axis=2)]
    f = function([x, t, n, iv], outs)
    return f(A34, B234, 5, [3, -1, 7])


def case_choose(T, function):
    a, c = T.lvector("a"), T.matrix("c")
    v, w = T.vector("v"), T.vector("w")
    f = function([a, c, v, w], [T.choose(a, c, mode="clip"), T.choose(a, c, mode="wrap"),
                                T.choose(a, [v, w], mode="clip")])
    return [*f([0, 5, -1], A34[:, :3], V3, V3 * 10), str(T.choose(a, c).owner.op)]


def case_permute(T, function):
    x, v = T.matrix("x"), T.vector("v")
    p, pm = T.lvector("p"), T.lmatrix("pm")
    y = T.permute_row_elements(x, p)
    z = T.permute_row_elements(x, pm, inverse=1)
    g = T.grad((y * T.arange(4)).sum() + (z ** 2).sum(), x)
    f = function([x, p, pm], [y, z, g, T.inverse_permutation(p), T.inverse_permutation(pm)])
    vs = T.permute_row_elements(v, pm)  # one vector permuted by each row of pm
    gv = function([v, pm], [vs, T.grad((vs * T.arange(3)).sum(), v)])
    perms = [[2, 0, 1, 3], [0, 1, 2, 3], [3, 2, 1, 0]]
    return [*f(A34, [2, 0, 3, 1], perms), *gv(V3, [[2, 0, 1], [1, 2, 0]])]


def case_statistics(T, function):
    x, y = T.matrix("x"), T.matrix("y")
    f = function([x, y], [T.ptp(x), T.ptp(x, axis=0), T.ptp(x, 1), T.cov(x), T.cov(x, y),
                          T.cov(x, rowvar=False, bias=True), T.cov(x, ddof=0)])
    return f(A34 * A34, A34 + 1)


def case_grids(T, function):
    outs = T.mgrid[0:3, 1:8:3] + T.ogrid[0:2, 0:3] + T.mgrid[0:1:0.25, 0:2]
    return [o.eval() for o in outs] + [_typ(o) for o in outs]


def case_op_classes(T, function):
    x, t = T.matrix("x"), T.tensor3("t")
    fl = T.Flatten(2)(t)
    ti = T.Tile(3)(x, [2, 1, 2])
    mm = T.MaxAndArgmax([0, 2])(t)
    f = function([x, t], [fl, T.Flatten()(x), ti, T.Mean()(x), T.Mean(1)(t), *mm,
                          *T.MaxAndArgmax([1])(x), T.grad(mm[0].sum(), t),
                          T.grad(T.Flatten(1)(t)[3], t)])
    return [*f(A34, B234), str(fl.owner.op), str(ti.owner.op), str(T.Mean(0)(x).owner.op),
            str(mm[0].owner.op), _typ(ti), _typ(mm[1])]


def case_boolean_index(T, function):
    x, v = T.matrix("x"), T.vector("v")
    iv = T.lvector("iv")
    m = x > 0
    vm = v > 0
    outs = [x[m], x[:, vm], x[iv, vm], x[1, vm], x[vm[:3]], x[m, None],
            T.set_subtensor(x[m], 0.0), T.inc_subtensor(x[m], 1.0),
            T.set_subtensor(x[:, vm], T.ones_like(x[:, vm]) * 7), T.inc_subtensor(x[iv, vm], 2.0)]
    f = function([x, v, iv], outs)
    return [*f(A34, np.array([1.0, -1.0, 2.0, -2.0]), [0, 2]), str(x[m].owner.op),
            str(T.set_subtensor(x[m], 0.0).owner.op), _typ(x[m]), _typ(x[:, vm])]


def case_boolean_grad(T, function):
    x, v, w = T.matrix("x"), T.vector("v"), T.matrix("w")
    mask = w > 0
    # (Theano 1.0 cannot differentiate set_subtensor(x[mask], v) with respect to v)
    cost = (x[mask] ** 2).sum() + (T.inc_subtensor(x[mask], v) * T.arange(4)).sum() + \
        (T.inc_subtensor(x[mask], 3 * x[mask]) ** 2).sum()
    f = function([x, v, w], T.grad(cost, [x, v]))
    return f(A34, np.arange(7.0), A34 + 0.5)


def case_misc(T, function):
    n = T.lscalar("n")
    x = T.matrix("x")
    f = function([n, x], [T.ceil_intdiv(n, 3), T.ceil_intdiv(-n, 3), T.tensor_copy(x),
                          T.join_(0, x, x)])
    return f(7, A34)


CASES = [case_eye_tri, case_tril_triu, case_diag, case_diag_grad, case_nonzero, case_split,
         case_stacking, case_reorder, case_choose, case_permute, case_statistics, case_grids,
         case_op_classes, case_boolean_index, case_boolean_grad, case_misc]
