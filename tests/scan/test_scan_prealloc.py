"""A loop run step by step has its inner program compute each step's value straight into the
entry of the output buffer that keeps it (``scan.allow_output_prealloc``, on by default), with
the same results as computing it apart and copying it there."""

from __future__ import annotations

import os

import numpy as np
import pytest

import jitgraph
import jitgraph.scan.runner as runner
import jitgraph.tensor as T
from jitgraph.backend_cpu.lowering import scan as lower_scan
from jitgraph.scan import scan

RNG = np.random.default_rng(3)


def step_by_step(inputs, outputs):
    """Compiled without native loops (and not from the graph cache)."""
    old, old_env = lower_scan.NATIVE, os.environ.get("JITGRAPH_GRAPH_CACHE")
    lower_scan.NATIVE = False
    os.environ["JITGRAPH_GRAPH_CACHE"] = "0"
    try:
        return jitgraph.function(inputs, outputs, mode=jitgraph.Mode(linker="cvm"))
    finally:
        lower_scan.NATIVE = old
        if old_env is None:
            del os.environ["JITGRAPH_GRAPH_CACHE"]
        else:
            os.environ["JITGRAPH_GRAPH_CACHE"] = old_env


class _Seen(list):
    """The inner programs the loops ran, and what each loop's program's output cells held
    at its end (``last_outputs``, one list per loop; the cells are emptied after it)."""

    def __init__(self) -> None:
        super().__init__()
        self.last_outputs: list[list] = []


@pytest.fixture
def inner_programs(monkeypatch):
    """The inner programs the loops of the calls ran."""
    seen = _Seen()
    real_dests, real_finish = runner._dest_cells, runner.finish
    monkeypatch.setattr(runner, "_dest_cells", lambda fn, n: seen.append(fn) or real_dests(fn, n))

    def finish(*args):
        seen.last_outputs.append([cell[0] for cell in seen[-1].output_cells])
        return real_finish(*args)

    monkeypatch.setattr(runner, "finish", finish)
    return seen


def _rnn():
    X, W, h0 = T.dtensor3("X"), T.dmatrix("W"), T.dmatrix("h0")
    hs, _ = scan(lambda x, h, W: T.tanh(x + T.dot(h, W)), sequences=X, outputs_info=h0,
                 non_sequences=W)
    args = RNG.normal(size=(6, 3, 4)), RNG.normal(size=(4, 4)) * 0.5, RNG.normal(size=(3, 4))
    return [X, W, h0], hs, args


def test_recurrent_values_are_computed_into_the_buffer(inner_programs):
    inputs, hs, args = _rnn()
    cost = (hs ** 2).sum()
    f = step_by_step(inputs, [hs] + T.grad(cost, inputs))
    got = f(*args)
    forward_end = inner_programs.last_outputs[0]
    # the last step's value is the last entry of the loop's output, not a copy of it
    assert np.shares_memory(forward_end[0], got[0])
    with jitgraph.config.change_flags(**{"scan.allow_output_prealloc": False}):
        want = f(*args)
    forward_end = inner_programs.last_outputs[len(inner_programs.last_outputs) // 2]
    assert not np.shares_memory(forward_end[0], want[0])
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)
    # the programs let go of the buffers, and of the last step's values, after the loop
    assert all(cell is None or cell[0] is None for fn in inner_programs
               for cell in fn.output_dests or [])
    assert all(cell[0] is None for fn in inner_programs
               for cell in fn.input_cells + fn.output_cells)


def test_outputs_not_fed_back_are_computed_into_their_buffer(inner_programs):
    A, v = T.dtensor3("A"), T.dmatrix("v")
    out, _ = scan(lambda a, v: T.exp(T.dot(a, v)), sequences=A, non_sequences=v)
    f = step_by_step([A, v], out)
    args = RNG.normal(size=(5, 3, 2)), RNG.normal(size=(2, 2))
    got = f(*args)
    assert np.shares_memory(inner_programs.last_outputs[0][0], got)
    np.testing.assert_allclose(got, np.exp(np.einsum("tij,jk->tik", *args)), rtol=1e-14)


def test_values_that_are_inputs_or_shared_between_outputs_are_copied():
    x, s0 = T.dmatrix("x"), T.dvector("s0")

    def step(a, s):
        t = T.tanh(s + a)
        return a, t, t, s * 2  # a sequence entry, one value twice, a state updated
    (seq, t1, t2, dbl), _ = scan(step, sequences=x, outputs_info=[None, None, None, s0])
    f = step_by_step([x, s0], [seq, t1, t2, dbl])
    xv, sv = RNG.normal(size=(4, 3)), RNG.normal(size=3)
    got = f(xv, sv)
    np.testing.assert_array_equal(got[0], xv)
    states = [sv]
    for _ in range(4):
        states.append(states[-1] * 2)
    np.testing.assert_allclose(got[1], np.tanh(np.array(states[:-1]) + xv))
    np.testing.assert_array_equal(got[1], got[2])
    assert not np.shares_memory(got[1], got[2])
    np.testing.assert_allclose(got[3], states[1:])


def test_taps_and_ring_buffers_read_the_right_entries():
    x, h0 = T.dtensor3("x"), T.dtensor3("h0")
    W = T.dmatrix("W")
    hs, _ = scan(lambda a, h2, h1, W: T.tanh(a + T.dot(h1, W) - 0.5 * h2), sequences=x,
                 outputs_info=dict(initial=h0, taps=[-2, -1]), non_sequences=W)
    args = RNG.normal(size=(7, 2, 3)), RNG.normal(size=(2, 2, 3)), RNG.normal(size=(3, 3))
    for outs in ([hs], [hs[-1]], [hs[-2:]]):  # whole buffer, last entry, last two (rings)
        got = step_by_step([x, h0, W], outs)(*args)[0]
        h = list(args[1])
        for a in args[0]:
            h.append(np.tanh(a + h[-1] @ args[2] - 0.5 * h[-2]))
        want = np.array(h[2:])
        np.testing.assert_allclose(got, want if outs[0] is hs else
                                   (want[-1] if outs[0].ndim == 2 else want[-2:]), rtol=1e-13)


def test_scalar_states_and_outputs(inner_programs):
    x = T.dvector("x")
    (acc, sq), _ = scan(lambda a, s: [s * 0.5 + T.exp(a), T.exp(a) * s], sequences=x,
                        outputs_info=[T.constant(np.float64(1.0)), None])
    f = step_by_step([x], [acc, sq])
    xv = RNG.normal(size=5)
    got = f(xv)
    s, want_acc, want_sq = 1.0, [], []
    for a in xv:
        want_sq.append(np.exp(a) * s)
        s = s * 0.5 + np.exp(a)
        want_acc.append(s)
    np.testing.assert_allclose(got[0], want_acc, rtol=1e-14)
    np.testing.assert_allclose(got[1], want_sq, rtol=1e-14)
