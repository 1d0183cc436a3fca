"""scan's forward semantics: taps, directions, several outputs, do-while loops, shared updates,
map/reduce/foldl/foldr. Expected values were recorded from Theano 1.0.5 (ORACLE_PY=1) where
the comment says so; the others are NumPy loops written here."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jitgraph
import jitgraph.tensor as T
from jitgraph.scan import Scan, foldl, foldr, map, reduce, scan, until
from jitgraph.scan.updates import OrderedUpdates

f64 = np.float64


def scan_nodes(fn):
    return [n for n in fn.maker.fgraph.toposort() if isinstance(n.op, Scan)]


def test_power_last_and_all_steps():
    k = T.iscalar("k")
    A = T.dvector("A")
    result, updates = scan(lambda p, A: p * A, outputs_info=T.ones_like(A), non_sequences=A,
                           n_steps=k)
    assert isinstance(updates, OrderedUpdates) and not updates
    power = jitgraph.function([A, k], result[-1], updates=updates)
    np.testing.assert_allclose(power(np.arange(10.), 2), np.arange(10.) ** 2)
    every = jitgraph.function([A, k], result)
    np.testing.assert_allclose(every(np.arange(3.), 3), [[0, 1, 2], [0, 1, 4], [0, 1, 8]])
    assert every(np.arange(3.), 0).shape[0] == 0


# Theano 1.0.5: sequence x = [1..8], step(*taps) = sum(v * 10**i)
@pytest.mark.parametrize("taps, expected", [
    ([-2, -1], [21, 32, 43, 54, 65, 76]),
    ([1, 2], [32, 43, 54, 65, 76, 87]),
    ([-1], [1, 2, 3, 4, 5, 6, 7]),
    ([2], [3, 4, 5, 6, 7, 8]),
    ([-3, -1], [31, 42, 53, 64, 75]),
    ([0, 2], [31, 42, 53, 64, 75, 86]),
    ([-2, 0, 1], [431, 542, 653, 764, 875]),
])
def test_sequence_taps_match_theano(taps, expected):
    x = T.dvector("x")
    out, _ = scan(lambda *a: sum(v * 10 ** i for i, v in enumerate(a)),
                  sequences=dict(input=x, taps=taps))
    np.testing.assert_allclose(jitgraph.function([x], out)(np.arange(1., 9.)), expected)


def test_go_backwards_matches_theano():
    x = T.dvector("x")
    out, _ = scan(lambda a, b: a * 10 + b, sequences=dict(input=x, taps=[-1, 0]),
                  go_backwards=True)
    np.testing.assert_allclose(jitgraph.function([x], out)(np.arange(5.)), [34, 23, 12, 1])
    out, _ = scan(lambda a: a, sequences=x, n_steps=3, go_backwards=True)
    np.testing.assert_allclose(jitgraph.function([x], out)(np.arange(1., 9.)), [8, 7, 6])
    out, _ = scan(lambda a, h: a + 2 * h, sequences=x, outputs_info=T.constant(f64(0)),
                  go_backwards=True)
    np.testing.assert_allclose(jitgraph.function([x], out)(np.arange(1., 5.)), [4, 11, 24, 49])


def test_negative_constant_n_steps_runs_backwards():
    x = T.dvector("x")
    back, _ = scan(lambda a, h: h + a, sequences=x, outputs_info=T.constant(f64(0)), n_steps=-3)
    ref, _ = scan(lambda a, h: h + a, sequences=x, outputs_info=T.constant(f64(0)), n_steps=3,
                  go_backwards=True)
    f = jitgraph.function([x], [back, ref])
    got, want = f(np.arange(5.))
    np.testing.assert_allclose(got, [4, 7, 9])
    np.testing.assert_allclose(got, want)


def test_uneven_sequences_use_the_shortest():
    x = T.dvector("x")
    out, _ = scan(lambda a, b: a + 10 * b, sequences=[x, x[:4]])
    np.testing.assert_allclose(jitgraph.function([x], out)(np.arange(1., 9.)), [11, 22, 33, 44])


def test_multiple_taps_outputs_match_theano():
    x = T.dvector("x")
    fib, _ = scan(lambda a, b: a + b, outputs_info=dict(initial=x, taps=[-2, -1]), n_steps=5)
    f = jitgraph.function([x], fib)
    np.testing.assert_allclose(f(np.array([1., 1.])), [2, 3, 5, 8, 13])
    np.testing.assert_allclose(f(np.array([0., 1., 1.])), [1, 2, 3, 5, 8])  # first entries
    out, _ = scan(lambda a, b: a + b, outputs_info=dict(initial=x, taps=[-3, -1]), n_steps=4)
    np.testing.assert_allclose(jitgraph.function([x], out)(np.array([1., 2., 3.])),
                               [4, 6, 9, 13])


def test_outputs_not_fed_back_and_several_outputs():
    x = T.dvector("x")
    (total, prod), _ = scan(lambda s, h: (h + s, h * s), sequences=x,
                            outputs_info=[T.constant(f64(1)), None])
    got = jitgraph.function([x], [total, prod])(np.arange(1., 4.))
    np.testing.assert_allclose(got[0], [2, 4, 7])  # Theano 1.0.5
    np.testing.assert_allclose(got[1], [1, 4, 12])


def test_matrix_state_with_sequence_of_matrices():
    xs = T.dtensor3("xs")
    h0 = T.dmatrix("h0")
    W = T.dmatrix("W")
    hs, _ = scan(lambda x, h, W: T.tanh(T.dot(h, W) + x), sequences=xs, outputs_info=h0,
                 non_sequences=W)
    rng = np.random.default_rng(0)
    xv, hv, wv = rng.normal(size=(4, 3, 2)), rng.normal(size=(3, 2)), rng.normal(size=(2, 2))
    want, h = [], hv
    for x in xv:
        h = np.tanh(h @ wv + x)
        want.append(h)
    np.testing.assert_allclose(jitgraph.function([xs, h0, W], hs)(xv, hv, wv), want)


def test_until_stops_after_the_true_step():
    def power_of_2(previous, limit):
        return previous * 2, until(previous * 2 > limit)

    limit = T.dscalar()
    values, _ = scan(power_of_2, outputs_info=T.constant(f64(1)), non_sequences=limit,
                     n_steps=1024)
    f = jitgraph.function([limit], values)
    np.testing.assert_allclose(f(45), [2, 4, 8, 16, 32, 64])
    np.testing.assert_allclose(f(1e9)[-1], 2. ** 30)
    # a do-while with an output not fed back
    x = T.dvector("x")
    seen, _ = scan(lambda v: (v * 2, until(v > 2)), sequences=x)
    np.testing.assert_allclose(jitgraph.function([x], seen)(np.arange(6.)), [0, 2, 4, 6])


def test_shared_variable_updates_match_theano():
    a = jitgraph.shared(1)
    values, updates = scan(lambda: {a: a + 1}, n_steps=10)
    assert values is None
    assert list(updates) == [a]
    f = jitgraph.function([], [a + 1, updates[a] + 1], updates=updates)
    assert [int(v) for v in f()] == [2, 12] and a.get_value() == 11
    assert [int(v) for v in f()] == [12, 22] and a.get_value() == 21


def test_shared_state_and_output_together():
    count = jitgraph.shared(np.float64(0.0), name="count")
    x = T.dvector("x")

    def step(v):
        return v + count, {count: count + v}

    out, updates = scan(step, sequences=x)
    f = jitgraph.function([x], out, updates=updates)
    np.testing.assert_allclose(f(np.array([1., 2., 3.])), [1, 3, 6])
    assert count.get_value() == 6


def test_map_reduce_foldl_foldr_match_theano():
    x = T.dvector("x")
    r, _ = map(lambda v: v * 2, x)
    np.testing.assert_allclose(jitgraph.function([x], r)(np.arange(3.)), [0, 2, 4])
    r, _ = reduce(lambda v, acc: acc + v, x, T.constant(f64(0)))
    assert r.ndim == 0
    assert jitgraph.function([x], r)(np.arange(4.)) == 6
    r, _ = foldl(lambda v, acc: acc * 10 + v, x, T.constant(f64(0)))
    assert jitgraph.function([x], r)(np.arange(4.)) == 123
    r, _ = foldr(lambda v, acc: acc * 10 + v, x, T.constant(f64(0)))
    assert jitgraph.function([x], r)(np.arange(4.)) == 3210


def test_return_list_and_single_output():
    x = T.dvector("x")
    outs, _ = scan(lambda h: h * 2, outputs_info=x, n_steps=3, return_list=True)
    assert isinstance(outs, list) and len(outs) == 1
    out, _ = scan(lambda h: [h * 2], outputs_info=[x], n_steps=3)
    assert isinstance(out, jitgraph.Variable)


def test_invariant_terms_are_computed_outside_the_loop():
    X = T.dmatrix("X")
    W = T.dmatrix("W")
    b = T.dvector("b")
    out, _ = scan(lambda i, h: h + T.dot(X, W)[i] + b, sequences=T.arange(X.shape[0]),
                  outputs_info=T.zeros_like(b))
    node = out.owner.inputs[0].owner
    assert isinstance(node.op, Scan)
    inner_ops = {type(n.op).__name__ for n in node.op.inner.fgraph.apply_nodes}
    assert "Dot" not in inner_ops and "Dot22" not in inner_ops
    rng = np.random.default_rng(1)
    xv, wv, bv = rng.normal(size=(3, 2)), rng.normal(size=(2, 2)), rng.normal(size=2)
    want = np.cumsum(xv @ wv + bv, axis=0)
    np.testing.assert_allclose(jitgraph.function([X, W, b], out)(xv, wv, bv), want)


@pytest.mark.parametrize("mode", ["FAST_COMPILE", "FAST_RUN"])
def test_modes_agree(mode):
    x = T.dvector("x")
    out, _ = scan(lambda v, h: T.sin(h) + v, sequences=x, outputs_info=T.constant(f64(0.5)),
                  mode=mode)
    f = jitgraph.function([x], out, mode=mode)
    want, h = [], 0.5
    for v in np.arange(5.):
        h = np.sin(h) + v
        want.append(h)
    np.testing.assert_allclose(f(np.arange(5.)), want)


def test_output_shape_without_running_the_loop():
    A = T.dvector("A")
    k = T.iscalar("k")
    result, _ = scan(lambda p: p * 2, outputs_info=A, n_steps=k)
    f = jitgraph.function([A, k], result.shape)
    assert not scan_nodes(f)
    assert tuple(f(np.ones(3), 5)) == (5, 3)


def test_scan_checkpoints_matches_scan():
    X = T.dmatrix("X")
    h0 = T.dvector("h0")
    step = lambda x, h: 0.9 * h + T.tanh(x)  # noqa: E731
    full, _ = scan(step, sequences=X, outputs_info=h0)
    from jitgraph.scan import scan_checkpoints

    saved, _ = scan_checkpoints(step, sequences=[X], outputs_info=[h0], save_every_N=3)
    f = jitgraph.function([X, h0], [full, saved, T.grad(saved[-1].sum(), X),
                                    T.grad(full[-1].sum(), X)])
    xv, hv = np.arange(14.).reshape(7, 2) / 10, np.array([0.5, 1.0])
    got_full, got_saved, g_saved, g_full = f(xv, hv)
    np.testing.assert_allclose(got_saved, got_full[[2, 5, 6]])
    np.testing.assert_allclose(g_saved, g_full)


@settings(max_examples=15)
@given(st.lists(st.integers(-3, 2), min_size=1, max_size=3, unique=True),
       st.lists(st.integers(-3, -1), min_size=1, max_size=2, unique=True),
       st.integers(6, 9), st.booleans())
def test_random_taps_against_numpy(seq_taps, out_taps, length, backwards):
    x = T.dvector("x")
    h0 = T.dvector("h0")
    n_seq = len(seq_taps)

    def step(*args):
        s, h = args[:n_seq], args[n_seq:]
        return 0.5 * sum(h) + sum((k + 1) * v for k, v in enumerate(s))

    # with the single tap -1 the initial value is the state itself, not a buffer of states
    initial = h0[0] if out_taps == [-1] else h0
    out, _ = scan(step, sequences=dict(input=x, taps=seq_taps),
                  outputs_info=dict(initial=initial, taps=out_taps), go_backwards=backwards)
    xv = np.arange(1., length + 1) ** 1.5
    n_init = -min(out_taps)
    hv = np.linspace(-1, 1, n_init)
    lo, hi = min(min(seq_taps), 0), max(max(seq_taps), 0)
    n = length - (hi - lo)
    slices = [xv[k - lo:k - lo + n] for k in seq_taps]
    if backwards:
        slices = [s[::-1] for s in slices]
    buf = list(hv)
    for t in range(n):
        h = [buf[t + n_init + tap] for tap in out_taps]
        buf.append(0.5 * sum(h) + sum((k + 1) * s[t] for k, s in enumerate(slices)))
    np.testing.assert_allclose(jitgraph.function([x, h0], out)(xv, hv), buf[n_init:])


@pytest.mark.parametrize("native", [True, False])
def test_profile_counts_calls_and_steps(native, monkeypatch):
    from jitgraph.backend_cpu.lowering import scan as lower_scan
    from jitgraph.compile.profiling_scan import ScanProfileStats

    monkeypatch.setattr(lower_scan, "NATIVE", native)
    monkeypatch.setenv("JITGRAPH_GRAPH_CACHE", "0")
    stats = ScanProfileStats(atexit_print=False, name="summing")
    x = T.dvector("x")
    out, _ = scan(lambda v, h: h + v, sequences=x, outputs_info=T.constant(f64(0)),
                  profile=stats)
    f = jitgraph.function([x], out[-1])
    f(np.arange(5.))
    f(np.arange(3.))
    assert (stats.callcount, stats.nbsteps) == (2, 8)
    text = stats.summary()
    assert "Scan Op profiling ( summing )" in text and "for a total of 8 steps" in text


def test_a_constant_single_step_applies_the_step_once_without_a_loop():
    # Theano 1.0.5 (oracle): with n_steps=1 nothing is fed back, so the state may change
    # dtype (int8 initial value, int32 step) and no Scan node is built; a sequence with taps
    # [2] gives the step its entry 2. Before, the dtype change was refused.
    seq = T.ivector("seq")
    out, updates = jitgraph.scan(lambda s, acc: acc + s, sequences=dict(input=seq, taps=[2]),
                                 outputs_info=0, n_steps=1)
    assert out.type == T.ivector().type and not updates
    f = jitgraph.function([seq], out)
    assert not [n for n in f.maker.fgraph.toposort() if type(n.op).__name__ == "Scan"]
    result = f(np.arange(20, dtype="int32"))
    assert result.dtype == np.int32 and result.tolist() == [2]
    # taps [-2, -1] read initial entries 0 and 1 (oracle: 0 + 10 * 1); the update is the step's
    c = jitgraph.shared(np.float64(1.5))
    out, updates = jitgraph.scan(lambda a, b: (a + 10 * b, {c: c * 2}),
                                 outputs_info=dict(initial=T.constant(np.arange(4.0)),
                                                   taps=[-2, -1]), n_steps=-1)
    g = jitgraph.function([], out, updates=updates)
    assert g().tolist() == [10.0] and c.get_value() == 3.0


def test_a_number_as_until_condition_stops_when_not_zero():
    # Theano 1.0.5 (oracle) accepts a float condition: the loop stops after the step where it
    # is not zero (NaN included); before, it was refused.
    v = T.dscalar("v")
    values, _ = jitgraph.scan(lambda x: ([x - 0.25], (), until(x - 0.5)), outputs_info=[v],
                              n_steps=4)
    f = jitgraph.function([v], values)
    assert f(1.0).tolist() == [0.75]
    assert f(0.75).tolist() == [0.5]
    assert f(0.5).tolist() == [0.25, 0.0]
    assert np.isnan(f(float("nan"))).tolist() == [True]


def test_a_single_step_drawing_random_numbers_keeps_the_stream_s_update():
    # The step is called with the first step's values, so the random stream's default
    # update reads them, not a placeholder of a loop that is never built (before: the
    # function's graph depended on that placeholder, a MissingInputError)
    srng = T.shared_randomstreams.RandomStreams(5)
    h0 = T.dvector("h0")
    out, updates = jitgraph.scan(lambda h: h + srng.uniform(size=h.shape), outputs_info=h0,
                                 n_steps=1)
    f = jitgraph.function([h0], out)  # the stream's default update, not `updates`
    first, second = f(np.zeros(3)), f(np.zeros(3))
    assert first.shape == (1, 3) and not np.array_equal(first, second)
