"""NanGuardMode, profiling and pickling on GPU graphs (issue 27), on the emulated device.
(DebugMode's GPU test is in test_gpu_run.)"""

from __future__ import annotations

import io
import pickle

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph.compile.nanguardmode import NanGuardMode

from gpu_programs import assert_close, assert_ran_on_the_device, cpu_mode, gpu_mode

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def gpu(gpu_device):
    return gpu_device


def guard_mode():
    return NanGuardMode(True, True, True, optimizer="fast_run").including("gpuarray")


def test_nanguard_checks_gpu_values_on_the_device(gpu, emulated_cuda):
    x = T.fmatrix("x")
    w = jitgraph.shared(np.full((40, 40), 0.01, "float32"), target="cuda", name="w")
    fn = jitgraph.function([x], T.log(T.dot(x, w)) * 3, mode=guard_mode())
    before = emulated_cuda.copy()
    got = fn(np.ones((40, 40), "float32"))
    used = emulated_cuda.since(before)
    assert_close(got, np.full((40, 40), np.log(0.4) * 3, "float32"))
    assert_ran_on_the_device(fn, used)
    # each node's output is checked by reductions on the device: a few scalars come back,
    # not a copy of each checked array (the product, the log, the scaled output)
    assert used.device_to_host_bytes < 2 * got.nbytes
    with pytest.raises(AssertionError, match="NaN"):
        fn(-np.ones((40, 40), "float32"))
    with pytest.raises(AssertionError, match="Inf"):
        fn(np.zeros((40, 40), "float32"))
    with pytest.raises(AssertionError, match="[Bb]ig"):
        fn(np.full((40, 40), 1e30, "float32") * np.float32(1e8))


def test_nanguard_sees_the_nodes_of_a_gpu_loop(gpu):
    h0 = T.fvector("h0")
    hs, _ = jitgraph.scan(lambda h: T.log(h), outputs_info=h0, n_steps=3)
    fn = jitgraph.function([h0], hs, mode=guard_mode())
    assert any(type(n.op).__name__ == "GpuScan" for n in fn.maker.fgraph.apply_nodes)
    assert_close(fn(np.full(3, 100, "float32")),
                 jitgraph.function([h0], hs, mode=cpu_mode())(np.full(3, 100, "float32")))
    with pytest.raises(AssertionError, match="NaN") as info:  # log(log(log(2))) < 0
        fn(np.full(3, 2, "float32"))
    assert "step 2" in str(info.value)


def test_profile_of_a_gpu_graph_and_its_loop(gpu):
    x = T.fmatrix("x")
    h0 = T.fvector("h0")
    hs, _ = jitgraph.scan(lambda xt, h: T.tanh(h + xt), sequences=x, outputs_info=h0)
    fn = jitgraph.function([x, h0], [hs, T.exp(x).sum()], mode=gpu_mode(), profile=True)
    fn(np.ones((4, 3), "float32"), np.zeros(3, "float32"))
    text = io.StringIO()
    fn.profile.summary(file=text)
    report = text.getvalue()
    assert "CUDA" in report and "GpuScan" in report
    assert "scan_fn sub profile" in report  # the loop's own profile, with its inner nodes
    sub = report.split("scan_fn sub profile", 1)[1]
    assert "GpuElemwise" in sub


def test_a_pickled_gpu_function_runs_on_the_device_again(gpu, emulated_cuda):
    x = T.fmatrix("x")
    w = jitgraph.shared(np.arange(9, dtype="float32").reshape(3, 3), target="cuda", name="w")
    h0 = T.fvector("h0")
    hs, _ = jitgraph.scan(lambda xt, h: T.tanh(T.dot(h, w) + xt), sequences=x,
                          outputs_info=h0)
    fn = jitgraph.function([x, h0], [hs, T.exp(x).sum()], mode=gpu_mode(),
                           updates=[(w, w * 0.5)])
    vals = [np.ones((4, 3), "float32") * 0.1, np.zeros(3, "float32")]
    clone = pickle.loads(pickle.dumps(fn))
    first = fn(*vals)
    before = emulated_cuda.copy()
    again = clone(*vals)  # the pickled w (its own copy), not yet halved
    assert_ran_on_the_device(clone, emulated_cuda.since(before))
    assert type(clone._program).__name__ == "GpuProgram"
    assert_close(again, first)
    # each function updates its own w on the device: both halved once now
    assert_close(clone(*vals), fn(*vals))
    assert_close(w.get_value(), np.arange(9, dtype="float32").reshape(3, 3) * 0.25)
