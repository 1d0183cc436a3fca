"""MRG random streams on the GPU: with computations on the GPU (``device=cuda``, here
``use(move_computation=True)``) a draw's state matrix is a device array that the draw's kernel
updates in place: no transfer of the state per call (it used to go up and down every call), and
the numbers are the CPU's for the same seed."""

from __future__ import annotations

import numpy as np
import pytest

import jitgraph
from jitgraph.random.mrg_streams import MRG_RandomStreams

from gpu_programs import assert_ran_on_the_device, cpu_mode

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def computing_gpu(emulated_cuda):
    """cuda0 taking every computation (what ``device=cuda0`` does)."""
    from jitgraph.backend_gpu import device, use

    device.reset_for_tests()
    yield use("cuda0", move_computation=True)
    device.reset_for_tests()


def draws(target=None):
    srng = MRG_RandomStreams(seed=1234)
    kw = {} if target is None else {"target": target}
    return srng, [srng.uniform((6, 5), dtype="float32", **kw),
                  srng.normal((7,), dtype="float32", **kw),
                  srng.uniform((3,), dtype="float64", **kw)]


def test_the_state_stays_on_the_device_and_the_draws_are_the_cpus(computing_gpu,
                                                                    emulated_cuda):
    import cupy

    srng, outs = draws()
    fn = jitgraph.function([], outs)
    ref = jitgraph.function([], draws(target="cpu")[1], mode=cpu_mode())
    for call in range(3):
        before = emulated_cuda.copy()
        got = fn()
        used = emulated_cuda.since(before)
        assert_ran_on_the_device(fn, used)
        assert used.launches["mrg31k3p_uniform_float32"] == 2
        assert used.launches["mrg31k3p_uniform_float64"] == 1
        # the samples come back; the states neither go up nor come down
        assert used.host_to_device_bytes == 0
        assert used.device_to_host_bytes == sum(g.nbytes for g in got)
        for g, r in zip(got, ref()):
            assert g.dtype == r.dtype
            np.testing.assert_allclose(g, r, rtol=2e-6 if g.dtype == np.float32 else 1e-12,
                                       err_msg=f"call {call}")
    states = [state for state, _, _, _ in srng.updates()]
    assert len(states) == 3
    for state in states:
        assert isinstance(state.get_value(borrow=True, return_internal_type=True), cupy.ndarray)


def test_a_cpu_target_keeps_the_state_on_the_host(computing_gpu):
    srng = MRG_RandomStreams(seed=5)
    u = srng.uniform((4,), target="cpu")
    assert type(u.rstate.get_value(borrow=True, return_internal_type=True)) is np.ndarray
