"""``scan`` on the GPU (issue 27 bug 10): the loop's state and outputs stay on the device (the
emulated device's transfer counters show no host round trip per step), gradients through it,
``until``; each compared with the CPU backend."""

from __future__ import annotations

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T

from gpu_programs import assert_close, assert_ran_on_the_device, cpu_mode, gpu_mode

pytestmark = pytest.mark.gpu

N_IN = 3


@pytest.fixture(scope="module")
def gpu(gpu_device):
    return gpu_device


def elman():
    x = T.fmatrix("x")
    h0 = T.fvector("h0")
    w = T.fmatrix("w")

    def step(xt, h):
        return T.tanh(T.dot(h, w) + xt)

    hs, _ = jitgraph.scan(step, sequences=x, outputs_info=h0)
    return [x, h0, w], hs


def values(n_steps: int):
    rng = np.random.default_rng(0)
    return [rng.standard_normal((n_steps, N_IN)).astype("float32"),
            rng.standard_normal(N_IN).astype("float32"),
            (rng.standard_normal((N_IN, N_IN)) * 0.5).astype("float32")]


def nbytes(vals):
    return sum(np.asarray(v).nbytes for v in vals)


def run_counted(stats, fn, vals):
    before = stats.copy()
    out = fn(*vals)
    return out, stats.since(before)


def test_the_loop_runs_on_the_device_and_its_state_never_comes_back(gpu, emulated_cuda):
    inputs, hs = elman()
    fn = jitgraph.function(inputs, hs, mode=gpu_mode())
    assert any(type(n.op).__name__ == "GpuScan" for n in fn.maker.fgraph.apply_nodes)
    ref = jitgraph.function(inputs, hs, mode=cpu_mode())
    for n_steps in (4, 12):
        vals = values(n_steps)
        got, used = run_counted(emulated_cuda, fn, vals)
        assert_close(got, ref(*vals), f"{n_steps} steps")
        assert_ran_on_the_device(fn, used)
        # the inputs go up once, the outputs come down once: nothing per step
        assert used.host_to_device_bytes == nbytes(vals)
        assert used.device_to_host_bytes == np.asarray(got).nbytes
        assert used.blas_calls >= n_steps  # the step's product ran on the device


def test_gradients_through_the_loop(gpu, emulated_cuda):
    (x, h0, w), hs = elman()
    cost = (hs ** 2).sum()
    grads = jitgraph.grad(cost, [w, h0, x])
    fn = jitgraph.function([x, h0, w], [cost] + grads, mode=gpu_mode())
    ref = jitgraph.function([x, h0, w], [cost] + grads, mode=cpu_mode())
    vals = values(6)
    got, used = run_counted(emulated_cuda, fn, vals)
    assert_close(got, ref(*vals), "cost and gradients")
    assert_ran_on_the_device(fn, used)
    scans = [n for n in fn.maker.fgraph.apply_nodes if type(n.op).__name__ == "GpuScan"]
    assert len(scans) == 2  # forward and backward loops, both on the device
    outs = sum(np.asarray(g).nbytes for g in got)
    assert used.device_to_host_bytes == outs


def test_until_stops_the_loop_reading_one_scalar_per_step(gpu, emulated_cuda):
    a = T.fvector("a")
    limit = T.fscalar("limit")

    def step(v):
        nxt = v * 2
        return nxt, jitgraph.scan_module.until(T.sum(nxt) > limit)

    vs, _ = jitgraph.scan(step, outputs_info=a, n_steps=50)
    fn = jitgraph.function([a, limit], vs, mode=gpu_mode())
    ref = jitgraph.function([a, limit], vs, mode=cpu_mode())
    vals = [np.ones(4, "float32"), np.float32(100)]
    got, used = run_counted(emulated_cuda, fn, vals)
    expected = ref(*vals)
    assert expected.shape == (5, 4)  # stopped after 5 of 50 steps
    assert_close(got, expected, "until")
    assert_ran_on_the_device(fn, used)
    # the outputs and one condition (a bool) per step: the state itself never came back
    assert used.device_to_host_bytes == np.asarray(got).nbytes + len(expected)


def dropout_rnn(target):
    from jitgraph.random.mrg_streams import MRG_RandomStreams

    srng = MRG_RandomStreams(seed=3)
    x, h0 = T.fmatrix("x"), T.fvector("h0")

    def step(xt, h):
        keep = srng.uniform((N_IN,), dtype="float32", target=target) > 0.3
        return T.tanh(h + xt) * keep

    hs, updates = jitgraph.scan(step, sequences=x, outputs_info=h0)
    return [x, h0], hs, updates


def test_a_loop_drawing_from_a_device_random_state(gpu, emulated_cuda):
    """The draw's state is a device shared variable the loop updates on the device (the loop
    stayed a CPU Scan, which failed, while only host-typed values were taken for the GPU)."""
    inputs, hs, updates = dropout_rnn("cuda")
    fn = jitgraph.function(inputs, hs, updates=updates, mode=gpu_mode())
    assert any(type(n.op).__name__ == "GpuScan" for n in fn.maker.fgraph.apply_nodes)
    cpu_inputs, cpu_hs, cpu_updates = dropout_rnn("cpu")
    ref = jitgraph.function(cpu_inputs, cpu_hs, updates=cpu_updates, mode=cpu_mode())
    vals = values(6)[:2]
    for call in range(2):  # the second call draws from the updated state
        got, used = run_counted(emulated_cuda, fn, vals)
        assert_close(got, ref(*vals), f"call {call}")
        assert_ran_on_the_device(fn, used)
        assert used.device_to_host_bytes == np.asarray(got).nbytes
        assert used.launches["mrg31k3p_uniform_float32"] == 6


def numpy_dropout_rnn():
    from jitgraph.tensor.shared_randomstreams import RandomStreams

    srng = RandomStreams(seed=3)
    x, h0 = T.fmatrix("x"), T.fvector("h0")

    def step(xt, h):
        return T.tanh(h + xt) * T.cast(srng.uniform((N_IN,)) > 0.3, "float32")

    hs, updates = jitgraph.scan(step, sequences=x, outputs_info=h0)
    return [x, h0], hs, updates


def test_a_loop_left_on_the_host_runs_its_gpu_inner_program(gpu):
    """A loop with a NumPy random state stays a CPU Scan; its inner graph still goes to the GPU
    and its device results are read back each step (it wrote device arrays into NumPy
    buffers before)."""
    inputs, hs, updates = numpy_dropout_rnn()
    fn = jitgraph.function(inputs, hs, updates=updates, mode=gpu_mode())
    assert "Scan" in {type(n.op).__name__ for n in fn.maker.fgraph.apply_nodes}
    cpu_inputs, cpu_hs, cpu_updates = numpy_dropout_rnn()
    ref = jitgraph.function(cpu_inputs, cpu_hs, updates=cpu_updates, mode=cpu_mode())
    vals = values(5)[:2]
    for call in range(2):
        assert_close(fn(*vals), ref(*vals), f"call {call}")
