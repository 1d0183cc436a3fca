"""``givens``: minibatches of shared datasets, replaced expressions and shared variables, with
explicit, default and ``In(update=...)`` updates, ``no_default_updates``, pickling and copies.

Numbers in the special cases were recorded from Theano 1.0.5 running the same statements.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import jitgraph.tensor as T
from jitgraph import In, function, shared

BATCH = 2
LR = 0.1


def _dataset() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.RandomState(1234)
    return rng.randn(6, 3), (rng.rand(6) > 0.5).astype("float64")


class Model:
    """A linear regression on int32 labels read through the classic ``shared_dataset`` cast,
    trained on minibatches selected by givens."""

    def __init__(self, update_kind: str) -> None:
        data_x, data_y = _dataset()
        self.train_x = shared(data_x, name="train_x", borrow=True)
        shared_y = shared(data_y, name="train_y", borrow=True)
        self.train_y = T.cast(shared_y, "int32")
        self.x = T.dmatrix("x")
        self.y = T.ivector("y")
        self.index = T.lscalar("index")
        self.w = shared(np.zeros(3), name="w")
        self.calls = shared(np.int64(0), name="calls")
        self.calls.default_update = self.calls + 1
        err = T.dot(self.x, self.w) - self.y
        self.cost = (err ** 2).mean() + 0 * self.calls
        new_w = self.w - LR * T.grad(self.cost, self.w)
        self.updates = [(self.w, new_w)] if update_kind == "explicit" else []
        if update_kind == "default":
            self.w.default_update = new_w

    def givens(self, form: str) -> object:
        i, b = self.index, BATCH
        pairs = [(self.x, self.train_x[i * b:(i + 1) * b]),
                 (self.y, self.train_y[i * b:(i + 1) * b])]
        return dict(pairs) if form == "dict" else pairs

    def no_default(self, kind: str) -> object:
        return {"none": False, "all": True, "calls": [self.calls]}[kind]


def _reference(indices: list[int], update_kind: str, no_default: str,
               w: np.ndarray | None = None, calls: int = 0) -> tuple[list, np.ndarray, int]:
    """Costs, final weights and call counter computed with NumPy."""
    data_x, data_y = _dataset()
    data_y = data_y.astype("int32")
    w = np.zeros(3) if w is None else w.copy()
    w_updated = update_kind == "explicit" or (update_kind == "default" and no_default != "all")
    calls_updated = no_default == "none"
    costs = []
    for i in indices:
        x, y = data_x[i * BATCH:(i + 1) * BATCH], data_y[i * BATCH:(i + 1) * BATCH]
        err = x @ w - y
        costs.append((err ** 2).mean())
        if w_updated:
            w = w - LR * (2 * x.T @ err / len(y))
        if calls_updated:
            calls += 1
    return costs, w, calls


@pytest.mark.parametrize("form", ["dict", "pairs"])
@pytest.mark.parametrize("update_kind", ["explicit", "default", "none"])
@pytest.mark.parametrize("no_default", ["none", "all", "calls"])
@pytest.mark.parametrize("use", ["call", "pickle", "copy"])
def test_minibatch_givens_with_updates(form, update_kind, no_default, use):
    m = Model(update_kind)
    f = function([m.index], m.cost, updates=m.updates, givens=m.givens(form),
                 no_default_updates=m.no_default(no_default))
    first = [f(i) for i in (0, 1)]
    costs, w, calls = _reference([0, 1], update_kind, no_default)
    np.testing.assert_allclose(first, costs, rtol=1e-12)
    np.testing.assert_allclose(m.w.get_value(), w, rtol=1e-12)
    assert m.calls.get_value() == calls
    if use == "call":
        later = [f(i) for i in (2, 0)]
        w_now, calls_now = m.w.get_value(), m.calls.get_value()
    elif use == "pickle":
        restored = pickle.loads(pickle.dumps(f))
        later = [restored(i) for i in (2, 0)]
        # The restored function has its own shared variables; the original's do not move.
        np.testing.assert_allclose(m.w.get_value(), w, rtol=1e-12)
        assert m.calls.get_value() == calls
        state = {v.name: v.get_value() for v in restored.maker.shared_inputs}
        w_now, calls_now = state.get("w", w), state.get("calls", calls)
    else:
        copied = f.copy()
        later = [copied(i)[0] for i in (2, 0)]  # copies return a list, as in Theano
        w_now, calls_now = m.w.get_value(), m.calls.get_value()
    costs, w, calls = _reference([2, 0], update_kind, no_default, w, calls)
    np.testing.assert_allclose(later, costs, rtol=1e-12)
    np.testing.assert_allclose(w_now, w, rtol=1e-12)
    assert calls_now == calls


def test_logistic_sgd_training_loop():
    """The deeplearning.net pattern: shared_dataset, index -> minibatch through givens."""
    data_x, data_y = _dataset()
    train_x = shared(data_x, borrow=True)
    train_y = T.cast(shared(data_y, borrow=True), "int32")
    x, y, index = T.matrix("x", dtype="float64"), T.ivector("y"), T.lscalar()
    W = shared(np.zeros((3, 2)), name="W", borrow=True)
    b = shared(np.zeros(2), name="b", borrow=True)
    p_y = T.nnet.softmax(T.dot(x, W) + b)
    cost = -T.mean(T.log(p_y)[T.arange(y.shape[0]), y])
    g_W, g_b = T.grad(cost, [W, b])
    train = function([index], cost, updates=[(W, W - LR * g_W), (b, b - LR * g_b)],
                     givens={x: train_x[index * BATCH:(index + 1) * BATCH],
                             y: train_y[index * BATCH:(index + 1) * BATCH]})
    costs = [float(train(i)) for _ in range(2) for i in range(3)]
    # NumPy reference of the same minibatch SGD
    Wr, br, expected = np.zeros((3, 2)), np.zeros(2), []
    for _ in range(2):
        for i in range(3):
            xb, yb = data_x[i * 2:i * 2 + 2], data_y[i * 2:i * 2 + 2].astype(int)
            z = xb @ Wr + br
            p = np.exp(z - z.max(1, keepdims=True))
            p /= p.sum(1, keepdims=True)
            expected.append(-np.log(p[np.arange(2), yb]).mean())
            d = p.copy()
            d[np.arange(2), yb] -= 1
            d /= 2
            Wr, br = Wr - LR * xb.T @ d, br - LR * d.sum(0)
    np.testing.assert_allclose(costs, expected, rtol=1e-10)
    np.testing.assert_allclose(W.get_value(), Wr, rtol=1e-10)


def test_replacing_an_expression_and_a_shared_variable():
    x = T.dmatrix("x")
    index = T.lscalar("index")
    tx = shared(np.arange(12.0).reshape(6, 2), name="tx")
    e = x * 2
    f = function([index], e + 1, givens={e: tx[index:index + 1]})
    np.testing.assert_array_equal(f(1), [[3.0, 4.0]])
    w = shared(np.zeros(2), name="w")
    f = function([], w * 2, givens={w: T.constant(np.ones(2))})
    np.testing.assert_array_equal(f(), [2.0, 2.0])
    f = function([], w * 2, givens=[(w, tx[0])])
    np.testing.assert_array_equal(f(), [0.0, 2.0])
    v = T.dvector("v")
    f = function([], v.sum(), givens=[(v, np.arange(4.0))])  # a value becomes a constant
    assert f() == 6.0


def test_givens_reach_default_updates():
    # Theano 1.0.5: [0, 10, 20] and 30
    index, k = T.lscalar("index"), T.lscalar("k")
    c = shared(np.int64(0), name="c")
    c.default_update = c + k
    f = function([index], c * 1, givens={k: index * 10})
    assert [int(f(1)) for _ in range(3)] == [0, 10, 20] and c.get_value() == 30
    # a replaced shared variable inside another one's default update: [5, 105], 205, 1
    a, b = shared(1.0, name="a"), shared(5.0, name="b")
    b.default_update = b + a
    f = function([], b * 1, givens={a: T.constant(np.float64(100.0))})
    assert [float(f()) for _ in range(2)] == [5.0, 105.0]
    assert b.get_value() == 205.0 and a.get_value() == 1.0


def test_replaced_shared_variable_keeps_or_loses_its_updates():
    # A shared variable replaced everywhere is not read: its default update is dropped
    # (Theano 1.0.5: [7, 7], d stays 1) ...
    d = shared(1.0, name="d")
    d.default_update = d * 2
    f = function([], d + 0, givens={d: T.constant(np.float64(7.0))})
    assert [float(f()) for _ in range(2)] == [7.0, 7.0] and d.get_value() == 1.0
    # ... but an explicit update still assigns it, computed with the replacement ([7, 7], 8).
    e = shared(1.0, name="e")
    f = function([], e + 0, updates=[(e, e + 1)], givens={e: T.constant(np.float64(7.0))})
    assert [float(f()) for _ in range(2)] == [7.0, 7.0] and e.get_value() == 8.0


def test_no_default_updates_list_with_givens():
    # Theano 1.0.5: [0, 2], c2 = 0, c3 = 4; then with no_default_updates=True: [4, 4]
    index, k = T.lscalar("index"), T.lscalar("k")
    c2, c3 = shared(np.int64(0), name="c2"), shared(np.int64(0), name="c3")
    c2.default_update = c2 + k
    c3.default_update = c3 + k
    f = function([index], c2 + c3, givens={k: index}, no_default_updates=[c2])
    assert [int(f(2)) for _ in range(2)] == [0, 2]
    assert (c2.get_value(), c3.get_value()) == (0, 4)
    f = function([index], c2 + c3, givens={k: index}, no_default_updates=True,
                 on_unused_input="ignore")
    assert [int(f(2)) for _ in range(2)] == [4, 4]


def test_pickled_function_with_givens_continues_its_own_state():
    # Theano 1.0.5: f(0) = 0, w = 1; restored(1) = 5 and f(1) = 5, w = 6; restored(2) = 54
    index = T.lscalar("index")
    x = T.dvector("x")
    tx, w = shared(np.arange(6.0), name="tx"), shared(0.0, name="w")
    f = function([index], (x * w).sum(), updates=[(w, w + x.sum())],
                 givens={x: tx[index * 2:(index + 1) * 2]})
    assert f(0) == 0.0 and w.get_value() == 1.0
    restored = pickle.loads(pickle.dumps(f))
    assert restored(1) == 5.0 and f(1) == 5.0 and w.get_value() == 6.0
    assert restored(2) == 54.0


def test_in_update_with_givens():
    # Theano 1.0.5: 0, 1, 6 and acc = 15; pickled: 15, acc = 16; delete_updates copy: [0]
    i = T.lscalar("i")
    v, acc = T.dvector("v"), T.dscalar("acc")
    tx = shared(np.arange(6.0), name="tx")
    f = function([i, In(acc, value=0.0, update=acc + v.sum())], acc,
                 givens={v: tx[i * 2:(i + 1) * 2]})
    assert [float(f(k)) for k in range(3)] == [0.0, 1.0, 6.0] and f["acc"] == 15.0
    g = pickle.loads(pickle.dumps(f))
    assert g(0) == 15.0 and g["acc"] == 16.0 and f["acc"] == 15.0
    assert f.copy(delete_updates=True)(0) == [0.0]


# -- errors, as Theano raises them --------------------------------------------------------------

def test_replacement_of_another_type_names_both_types():
    x, index = T.dmatrix("x"), T.lscalar("index")
    with pytest.raises(TypeError, match=r"float64, matrix.*float64, vector"):
        function([index], x.sum() + index, givens={x: T.dvector()})
    y, ty = T.ivector("y"), shared(np.zeros(6), name="ty")
    with pytest.raises(TypeError, match=r"int32, vector.*float64, vector"):
        function([index], y.sum() + index, givens={y: ty[index:]})
    fv = T.fvector("fv")
    with pytest.raises(TypeError, match=r"float32.*float64"):
        function([], fv.sum(), givens={fv: ty})


def test_broadcastable_replacements():
    m, r = T.dmatrix("m"), T.row("r", dtype="float64")
    f = function([], m.sum(), givens={m: shared(np.ones((1, 3)), broadcastable=(True, False))})
    assert f() == 3.0
    with pytest.raises(TypeError, match="row"):
        function([], r.sum(), givens={r: shared(np.ones((1, 3)))})


def test_replacing_an_input_is_an_error():
    x, z = T.dmatrix("x"), T.dmatrix("z")
    for givens in ({x: z}, {x: shared(np.ones((1, 1)))}):
        with pytest.raises(RuntimeError, match="input of the function"):
            function([x, z], x * 2 + z, givens=givens, on_unused_input="ignore")


def test_malformed_givens():
    x, index = T.dvector("x"), T.lscalar("index")
    tx = shared(np.arange(6.0), name="tx")
    with pytest.raises(TypeError, match="keys must be symbolic variables"):
        function([index], x.sum() + index, givens={"x": tx})
    with pytest.raises(ValueError, match="pairs"):
        function([index], x.sum() + index, givens=[tx])
    y1, y2 = T.dscalar("y1"), T.dscalar("y2")
    with pytest.raises(ValueError, match="y2, which givens also replaces"):
        function([index], y1 + 1, givens=[(y1, y2 * 2), (y2, T.cast(index, "float64"))])
    with pytest.raises(ValueError, match="twice"):
        function([], x.sum(), givens=[(x, tx), (x, tx)])


def test_missing_replacement_names_the_variable():
    x, y, index = T.dmatrix("x"), T.dvector("y"), T.lscalar("index")
    tx = shared(np.ones((4, 2)), name="tx")
    with pytest.raises(ValueError, match="depend on y"):
        function([index], x.sum() + y.sum(), givens={x: tx[index:index + 1]})


def test_a_replacement_may_use_the_variable_it_replaces():
    # Theano 1.0.5 (test_pfunc's givens_replaces_shared_variable2): in {a: a + 10} the inner a
    # is a itself; the default update a + 3 is rewritten too. Recorded: 21, 34, a = 27.
    a = shared(1.0, "a")
    a.default_update = a + 3
    f = function([], a + 10, givens={a: a + 10})
    assert (f(), f(), a.get_value()) == (21.0, 34.0, 27.0)
    x = T.dscalar("x")
    b = shared(2.0, "b")
    g = function([x], b * x, givens={b: b * 2}, updates={b: b + 1})
    assert (g(3.0), g(3.0), b.get_value()) == (12.0, 30.0, 11.0)


def test_plain_values_take_the_replaced_variables_type():
    """``givens={x: 3}`` with ``x`` an int64 shared scalar: a constant of x's type (it used to
    be an int8 constant, refused as another type). Values as Theano 1.0.5 gives them."""
    x = shared(0)
    f = function([], x, givens={x: 3})
    assert f() == 3 and f.maker.fgraph.outputs[0].type == x.type
    y, z = T.ivectors("y", "z")
    g = function([y], z * y + 7, givens={z: np.array([4, 4, 4], dtype="int32")})
    np.testing.assert_array_equal(g([1, 1, 1]), [11, 11, 11])
    assert x.get_value() == 0


def test_rebuild_strict_false_lets_a_replacement_change_types():
    w, a, b = T.imatrix("w"), T.ivector("a"), T.ivector("b")
    f = function([w, b], a * b, givens=[(a, w)], rebuild_strict=False)
    np.testing.assert_array_equal(f(np.ones((2, 3), "int32"), np.arange(3, dtype="int32")),
                                  [[0, 1, 2], [0, 1, 2]])
    with pytest.raises(TypeError, match="int32, vector.*int32, matrix"):
        function([w, b], a * b, givens=[(a, w)])
