"""Compiled functions called from many threads at once (jitgraph.compile.concurrency): each call
gets its own result, shared-variable updates are applied one call at a time, random draws are
those of a serial run.

The acceptance test is a prediction server: a ThreadPoolExecutor of 8 workers calling one
compiled MLP 10,000 times with different inputs. The stress tests compare threaded runs with
serial ones: exactly for updates (every call the same step, or sums of integers, whose order
does not matter), as sets for random draws (each call's draw is the next of one stream, the
order in which threads get them is not defined). Tests with a Python op that waits on a
barrier make two calls overlap on purpose: they fail whenever calls share the program's cells.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph import sparse
from jitgraph.compile.concurrency import give_all, take_all
from jitgraph.graph.basic import Apply
from jitgraph.graph.op import Op
from jitgraph.ifelse.op import ifelse
from jitgraph.random.mrg_streams import MRG_RandomStreams
from jitgraph.random.streams import RandomStreams

WORKERS = 8

#: these tests start threads of their own (pytest-run-parallel runs each test in one thread)
pytestmark = pytest.mark.thread_unsafe(reason="starts its own threads")

#: test modules run under pytest-run-parallel (each test run by 4 threads at once), a subset
#: that keeps the run to about 25 s on 2 cores: functions, scan, random streams, sparse
PARALLEL_MODULES = ["tests/compile/test_function.py", "tests/scan/test_scan_forward.py",
                    "tests/random/test_streams_api.py", "tests/sparse/test_sparse_types.py"]


def in_threads(fn, args_list, workers=WORKERS):
    """``[fn(*args) for args in args_list]``, the calls spread over ``workers`` threads."""
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(lambda args: fn(*args), args_list))


@pytest.fixture(scope="module")
def mlp():
    rng = np.random.default_rng(0)
    x = T.dmatrix("x")
    W1 = jitgraph.shared(rng.normal(size=(16, 32)), "W1")
    b1 = jitgraph.shared(rng.normal(size=32), "b1")
    W2 = jitgraph.shared(rng.normal(size=(32, 10)), "W2")
    b2 = jitgraph.shared(rng.normal(size=10), "b2")
    logits = T.dot(T.tanh(T.dot(x, W1) + b1), W2) + b2
    return x, (W1, b1, W2, b2), T.nnet.softmax(logits), logits


# -- (a) acceptance: a prediction server ------------------------------------------------------

def test_server_of_8_workers_returns_each_input_its_own_answer(mlp):
    # (before calls were made thread-safe, some calls raised and some returned another
    # call's class: the cell holding the logits, read by both outputs, was overwritten)
    x, _, prob, logits = mlp
    predict = jitgraph.function([x], [prob, logits.argmax(axis=1)])
    inputs = np.random.default_rng(1).normal(size=(10_000, 2, 16))
    serial = [predict(v) for v in inputs]
    threaded = in_threads(predict, [(v,) for v in inputs])
    for k, (got, want) in enumerate(zip(threaded, serial)):
        np.testing.assert_array_equal(got[0], want[0], err_msg=f"call {k}")
        np.testing.assert_array_equal(got[1], want[1], err_msg=f"call {k}")


# -- calls that overlap for sure: the contended path ------------------------------------------

class WaitForOther(Op):
    """Identity that waits until another thread is inside the same op (a Python op: the
    driver calls ``perform`` between kernels that read and write the program's cells)."""

    __props__ = ()

    def __init__(self, barrier=None):
        self.barrier = barrier

    def make_node(self, x):
        x = T.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        self.barrier.wait(timeout=20)
        output_storage[0][0] = inputs[0].copy()


@pytest.mark.parametrize("trust_input", [False, True])
@pytest.mark.parametrize("keywords", [False, True], ids=["generated_call", "generic_call"])
def test_two_overlapping_calls_each_get_their_own_result(trust_input, keywords):
    barrier = threading.Barrier(2)
    x = T.dvector("x")
    f = jitgraph.function([x], T.exp(WaitForOther(barrier)(x * 2)) + 1,
                          trust_input=trust_input)
    a, b = np.arange(3.0), -np.arange(3.0)
    call = (lambda v: f(x=v)) if keywords else f
    got = in_threads(call, [(a,), (b,)], workers=2)
    np.testing.assert_allclose(got[0], np.exp(a * 2) + 1)
    np.testing.assert_allclose(got[1], np.exp(b * 2) + 1)
    assert len(f._spares) == 1  # the second call ran on a clone


def test_a_copy_sharing_the_program_with_other_shared_variables_shares_its_gates():
    acc, other = jitgraph.shared(np.zeros(4), "acc"), jitgraph.shared(np.zeros(4), "other")
    x = T.dvector("x")
    f = jitgraph.function([x], [], updates=[(acc, acc + x)])
    g = f.copy(share_memory=True, swap={acc: other})
    assert g._program is f._program
    assert set(map(id, f._update_gates)) <= set(map(id, g._update_gates))
    ones = np.ones(4)
    in_threads(lambda k: (f if k % 2 else g)(ones * k), [(k,) for k in range(400)])
    np.testing.assert_array_equal(acc.get_value(), ones * sum(range(1, 400, 2)))
    np.testing.assert_array_equal(other.get_value(), ones * sum(range(0, 400, 2)))


def test_a_nested_call_that_would_wait_for_itself_is_refused():
    acc = jitgraph.shared(np.zeros(2), "acc")
    x = T.dvector("x")
    f = jitgraph.function([x], [], updates=[(acc, acc + x)])
    # an outer call on this thread holding acc's gate, as a generic call keeps it
    _fc_held = take_all(f._update_gates)  # noqa: F841
    try:
        with pytest.raises(RuntimeError, match="inside a call"):
            f(np.ones(2))
    finally:
        give_all(f._update_gates)


def test_a_nested_call_from_a_python_op_inside_an_update_call_is_refused():
    acc = jitgraph.shared(np.zeros(2), "acc")
    x = T.dvector("x")
    inner = jitgraph.function([x], [], updates=[(acc, acc + x)])

    class CallsInner(Op):
        __props__ = ()

        def make_node(self, v):
            v = T.as_tensor_variable(v)
            return Apply(self, [v], [v.type()])

        def perform(self, node, inputs, output_storage):
            inner(inputs[0])
            output_storage[0][0] = inputs[0].copy()

    outer = jitgraph.function([x], CallsInner()(x), updates=[(acc, acc * 2)])
    with pytest.raises(RuntimeError, match="inside a call"):
        outer(np.ones(2))
    outer.trust_input = True  # (the same through another generated call)
    with pytest.raises(RuntimeError, match="inside a call"):
        outer(np.ones(2))
    inner(np.ones(2))  # the gates were given back
    np.testing.assert_array_equal(acc.get_value(), np.ones(2))


# -- (b) stress: updates, scan, random draws, sparse ------------------------------------------

def test_training_steps_from_8_threads_equal_the_serial_ones(mlp):
    x, params, prob, _ = mlp
    y = T.ivector("y")
    i = T.dvector("i")
    count = jitgraph.shared(np.float64(0), "count")
    total = jitgraph.shared(np.zeros(3), "total")
    loss = T.nnet.categorical_crossentropy(prob, y).mean()
    grads = T.grad(loss, list(params))
    start = [p.get_value() for p in params]
    updates = [(p, p - 0.01 * g) for p, g in zip(params, grads)]
    updates += [(count, count + 1), (total, total + i)]
    step = jitgraph.function([x, y, i], loss, updates=updates)
    rng = np.random.default_rng(2)
    batch, labels = rng.normal(size=(8, 16)), rng.integers(0, 10, size=8).astype("int32")
    n = 800
    increments = rng.integers(-100, 100, size=(n, 3)).astype("float64")

    # every step the same minibatch: n steps give the same parameters in any order
    in_threads(step, [(batch, labels, inc) for inc in increments])
    threaded = [p.get_value() for p in params]
    assert count.get_value() == n
    np.testing.assert_array_equal(total.get_value(), increments.sum(axis=0))
    for p, value in zip(params, start):
        p.set_value(value)
    for inc in increments:
        step(batch, labels, inc)
    for p, got in zip(params, threaded):
        np.testing.assert_array_equal(got, p.get_value(), err_msg=p.name)
    for p, value in zip(params, start):
        p.set_value(value)


@pytest.mark.parametrize("loop", ["native", "step_by_step"])
def test_rnn_scan_from_8_threads(loop, monkeypatch):
    if loop == "step_by_step":  # every call runs the inner program once per step
        from jitgraph.backend_cpu.lowering import scan as scan_lowering

        monkeypatch.setattr(scan_lowering, "BLAS_WORK", -1)
    rng = np.random.default_rng(3)
    seq = T.dmatrix("seq")
    h0 = T.dvector("h0")
    Wx = jitgraph.shared(rng.normal(size=(4, 6)) * 0.5, "Wx")
    Wh = jitgraph.shared(rng.normal(size=(6, 6)) * 0.5, "Wh")
    hs, _ = jitgraph.scan(lambda x_t, h: T.tanh(T.dot(x_t, Wx) + T.dot(h, Wh)),
                          sequences=[seq], outputs_info=[h0])
    rnn = jitgraph.function([seq, h0], hs[-1])
    inputs = [(rng.normal(size=(int(n), 4)), rng.normal(size=6))
              for n in rng.integers(1, 30, size=400)]
    serial = [rnn(*args) for args in inputs]
    for got, want in zip(in_threads(rnn, inputs), serial):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("streams", [RandomStreams, MRG_RandomStreams])
def test_random_draws_from_8_threads_are_a_serial_runs_draws(streams):
    def draw_function():
        srng = streams(seed=1234)
        return jitgraph.function([], [srng.uniform((5,)), srng.normal((3,))])

    n = 400
    f = draw_function()
    threaded = in_threads(f, [()] * n)
    g = draw_function()
    serial = [g() for _ in range(n)]

    def keys(draws):
        return {tuple(np.concatenate(d)) for d in draws}

    # each call draws the next values of the streams, atomically: distinct draws, and the
    # same set as a serial run, whatever thread got which
    assert len(keys(threaded)) == n
    assert keys(threaded) == keys(serial)


def test_sparse_dot_from_8_threads():
    import scipy.sparse as sp

    rng = np.random.default_rng(4)
    S = sparse.csr_matrix("S")
    v = T.dmatrix("v")
    f = jitgraph.function([S, v], T.tanh(sparse.structured_dot(S, v)) * 2)
    inputs = [(sp.random(20, 12, density=0.2, format="csr", random_state=k),
               rng.normal(size=(12, 3))) for k in range(300)]
    serial = [f(*args) for args in inputs]
    for got, want in zip(in_threads(f, inputs), serial):
        np.testing.assert_array_equal(got, want)


def test_lazy_ifelse_from_8_threads():
    c = T.iscalar("c")
    x = T.dvector("x")
    f = jitgraph.function([c, x], ifelse(c, T.exp(x).sum() * x, T.sin(x) - x.max()))
    rng = np.random.default_rng(5)
    inputs = [(np.int32(k % 2), rng.normal(size=7)) for k in range(1000)]
    serial = [f(*args) for args in inputs]
    for got, want in zip(in_threads(f, inputs), serial):
        np.testing.assert_array_equal(got, want)


# -- (c) test modules run by several threads at once (pytest-run-parallel) ---------------------

def test_selected_modules_pass_with_each_test_run_by_4_threads_at_once():
    pytest.importorskip("pytest_run_parallel")
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--parallel-threads=4",
         *PARALLEL_MODULES], cwd=root, env=dict(os.environ), capture_output=True, text=True,
        timeout=600)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


def test_a_profiled_function_counts_every_call_from_8_threads():
    x = T.dvector("x")
    f = jitgraph.function([x], T.exp(x) * 2, profile=True)
    v = np.arange(5.0)
    got = in_threads(f, [(v * (k / 800),) for k in range(800)])
    for k, out in enumerate(got):
        np.testing.assert_allclose(out, np.exp(v * (k / 800)) * 2)
    assert f.profile.fct_callcount + f.profile.ignored_calls == 800
