"""Programs over ``extra_ops`` and ``sort`` run both under Theano 1.0.5 (by
``data/record_extra_ops_oracle.py``, which stores their results in ``data/extra_ops_oracle.npz``)
and under jitgraph (``test_extra_ops.py``, ``test_sort.py``, which compare with the record).

Each case is ``fn(T, E, S) -> (inputs, {name: output})`` with ``T`` the tensor package, ``E``
its ``extra_ops`` and ``S`` its ``sort`` module; ``VALUES[case]`` are the input values. Theano
1.0.5's CPU top-k works only for ``|kth|`` of 1 or the whole axis, so only those are recorded.
"""

from __future__ import annotations

import numpy as np

CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def _rng(seed: int) -> np.random.RandomState:
    return np.random.RandomState(seed)


X34 = _rng(0).uniform(0.5, 1.5, (3, 4))
P12 = _rng(1).uniform(-1, 1, 12)
P34 = P12.reshape(3, 4)


@case
def cumulative(T, E, S):
    x = T.matrix("x")
    outs = {}
    for axis in (None, 0, 1, -1):
        name = "n" if axis is None else str(axis).replace("-", "m")
        proj = P12 if axis is None else P34
        for fname in ("cumsum", "cumprod"):
            out = getattr(E, fname)(x, axis)
            outs[f"{fname}_{name}"] = out
            outs[f"{fname}_{name}_grad"] = T.grad((out * proj).sum(), x)
    return [x], outs


@case
def cumulative_ints(T, E, S):
    b = T.bvector("b")
    u = T.vector("u", dtype="uint8")
    return [b, u], {"cumsum_i8": E.cumsum(b), "cumprod_i8": E.cumprod(b),
                    "cumsum_u8": E.cumsum(u), "diff_i8": E.diff(b), "diff_u8": E.diff(u)}


@case
def differences(T, E, S):
    x = T.matrix("x")
    v = T.vector("v")
    outs = {"d1": E.diff(x), "d2_0": E.diff(x, 2, 0), "d3_1": E.diff(x, 3, 1),
            "d0": E.diff(x, 0), "v2": E.diff(v, 2)}
    outs["v2_grad"] = T.grad((E.diff(v, 2) * P12[:4]).sum(), v)
    outs["v1_grad"] = T.grad((E.diff(v) * P12[:5]).sum(), v)
    return [x, v], outs


@case
def bins(T, E, S):
    iv = T.ivector("iv")
    w = T.vector("w")
    srt = T.vector("srt")
    q = T.matrix("q")
    perm = T.lvector("perm")
    return [iv, w, srt, q, perm], {
        "count": E.bincount(iv), "count_min": E.bincount(iv, minlength=9),
        "count_w": E.bincount(iv, w), "count_w_grad": T.grad((E.bincount(iv, w) * P12[:6]).sum(), w),
        "ss_left": E.searchsorted(srt, q), "ss_right": E.searchsorted(srt, q, side="right"),
        "ss_sorter": E.searchsorted(srt[perm], q, sorter=T.argsort(perm)),
        "one_hot": E.to_one_hot(iv, 6), "one_hot_i": E.to_one_hot(iv, 7, dtype="int32")}


@case
def ravel(T, E, S):
    a = T.lvector("a")
    b = T.lvector("b")
    m = T.lmatrix("m")
    flat = T.lvector("flat")
    outs = {"C": E.ravel_multi_index((a, b), (3, 4)),
            "F": E.ravel_multi_index([a, b], (3, 4), order="F"),
            "clip": E.ravel_multi_index((a + 2, b - 3), (3, 4), mode="clip"),
            "wrap": E.ravel_multi_index((a + 2, b - 3), (3, 4), mode="wrap"),
            "mixed": E.ravel_multi_index((m, b), (3, 4))}
    for order in "CF":
        for k, coord in enumerate(E.unravel_index(flat, (3, 4, 2), order=order)):
            outs[f"un{order}{k}"] = coord
    return [a, b, m, flat], outs


@case
def unique(T, E, S):
    x = T.matrix("x")
    outs = {}
    for axis in (None, 0, -1):
        name = "n" if axis is None else str(axis).replace("-", "m")
        for k, out in enumerate(E.Unique(True, True, True, axis=axis)(x)):
            outs[f"all_{name}_{k}"] = out
    outs["plain"] = E.Unique()(x)
    return [x], outs


@case
def windows_and_fills(T, E, S):
    m = T.iscalar("m")
    a = T.matrix("a")
    t3 = T.tensor3("t3")
    val = T.scalar("val")
    off = T.iscalar("off")
    outs = {"bartlett": E.bartlett(m), "fill": E.fill_diagonal(a, val),
            "fill3": E.fill_diagonal(t3, val)}
    ga, gv = T.grad((E.fill_diagonal(a, val) * P12.reshape(4, 3)).sum(), [a, val])
    outs.update(fill_ga=ga, fill_gv=gv)
    outs["offset"] = E.fill_diagonal_offset(a, val, off)
    ga, gv = T.grad((E.fill_diagonal_offset(a, val, off) * P12.reshape(4, 3)).sum(), [a, val])
    outs.update(offset_ga=ga, offset_gv=gv)
    return [m, a, t3, val, off], outs


@case
def selection(T, E, S):
    c = T.vector("c")
    x = T.matrix("x")
    r = T.row("r")
    outs = {"compress_n": E.compress(c, x), "compress_0": E.compress(c[:3], x, axis=0),
            "compress_1": E.compress(c, x, axis=1),
            "compress_grad": T.grad((E.compress(c, x, axis=1) ** 2).sum(), x),
            "squeeze": E.squeeze(r), "repeat": E.repeat(x, 2, axis=1),
            "repeat_n": E.repeat(x, T.arange(1, 13) % 3),
            "repeat_grad": T.grad((E.repeat(x, 2, axis=0) ** 2).sum(), x)}
    return [c, x, r], outs


@case
def sorting(T, E, S):
    x = T.matrix("x")
    outs = {}
    for axis in (None, 0, 1, -1):
        name = "n" if axis is None else str(axis).replace("-", "m")
        proj = P12 if axis is None else P34
        outs[f"sort_{name}"] = S.sort(x, axis)
        outs[f"argsort_{name}"] = S.argsort(x, axis)
        outs[f"sort_{name}_grad"] = T.grad((S.sort(x, axis) * proj).sum(), x)
    outs["mergesort"] = S.sort(x, 0, kind="mergesort")
    return [x], outs


@case
def top(T, E, S):
    x = T.matrix("x")
    outs = {}
    for kth, axis in ((1, 0), (-1, 0), (1, -1), (-1, 1), (3, 0), (-4, 1)):
        name = f"{kth}_{axis}".replace("-", "m")
        values, positions = S.topk_and_argtopk(x, kth, axis=axis, sorted=False)
        outs[f"v{name}"] = values
        outs[f"i{name}"] = positions
        if abs(kth) == 1:  # (Theano's gradient needs argtopk's output on its CPU)
            outs[f"g{name}"] = T.grad((S.topk(x, kth, axis=axis, sorted=False) ** 2).sum(), x)
    return [x], outs


VALUES = {
    "cumulative": [X34],
    "cumulative_ints": [np.array([100, 100, 100, -7], "int8"),
                        np.array([200, 100, 3, 9], "uint8")],
    "differences": [_rng(2).uniform(-1, 1, (5, 6)), _rng(3).uniform(-1, 1, 6)],
    "bins": [np.array([1, 3, 3, 0, 5, 1], "int32"), _rng(4).uniform(0, 1, 6),
             np.array([1.0, 2.0, 2.0, 5.0, 7.5]), np.array([[0.0, 2.0, 7.5], [3.0, 9.0, 1.0]]),
             np.array([3, 0, 4, 1, 2])],
    "ravel": [np.array([0, 2, 1]), np.array([3, 1, 0]), np.array([[0, 1, 2], [2, 1, 0]]),
              np.array([0, 5, 11, 23, 17])],
    "unique": [np.array([[1.0, 2.0, 1.0], [3.0, 1.0, 3.0], [1.0, 2.0, 1.0]])],
    "windows_and_fills": [np.array(7, "int32"), _rng(5).uniform(-1, 1, (4, 3)),
                          _rng(6).uniform(-1, 1, (3, 3, 3)), np.array(2.5), np.array(-1, "int32")],
    "selection": [np.array([0.0, 1.0, 1.0, 0.0]), _rng(7).uniform(-1, 1, (3, 4)),
                  _rng(8).uniform(-1, 1, (1, 5))],
    "sorting": [_rng(9).uniform(-1, 1, (3, 4))],
    "top": [_rng(10).uniform(-1, 1, (3, 4))],
}
