"""The GPU backend's device paths, on the emulated CUDA device (issue 27): each test failed
before its fix. Constants uploaded once survive ``Function.free()``; a function compiled for
``cuda1`` runs from a worker thread; ``force_device=True`` stops a compilation whose first GPU
use is inside the GPU rewrite; the NVRTC target follows the device's architecture; a fresh
process that initialises a GPU from code runs its graphs there; two processes sharing a
compiledir, one with a GPU and one without, each run on their own device; a function linked in
another thread, or pickled without a GPU and loaded with one, runs on the GPU."""

from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph.compile.io import Out
from jitgraph.graph.basic import Constant

from gpu_testing import REAL_GPU, device_env, run_python

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(
    REAL_GPU, reason="these tests set up the emulated device (compute capability, NVRTC)")]


@pytest.fixture
def on_gpu(emulated_cuda):
    """``on_gpu(index, **settings)``: jitgraph's GPU state forgotten, the emulated device set up
    with ``settings``, ``cuda<index>`` initialised from code."""
    import emulated_cuda as emulator
    from jitgraph.backend_gpu import device, use

    saved = emulator.settings()

    def start(index: int = 0, **settings):
        emulator.configure(**settings)
        device.reset_for_tests()
        emulator.reset()
        return use(f"cuda{index}")

    yield start
    emulator.configure(**{f: getattr(saved, f) for f in saved.__dataclass_fields__})
    device.reset_for_tests()
    emulator.reset()


def gpu_function(inputs, outputs, **kwargs):
    from jitgraph.backend_gpu.program import GpuProgram

    mode = jitgraph.Mode(linker="cvm", optimizer="fast_run").including("gpuarray")
    fn = jitgraph.function(inputs, outputs, mode=mode, **kwargs)
    assert isinstance(fn._program, GpuProgram), "the graph did not go to the GPU"
    return fn


def in_a_worker_thread(work):
    """``work()`` run in a new thread (whose current device is CUDA's default, 0); its result,
    or its exception raised here."""
    outcome = {}

    def run():
        try:
            outcome["result"] = work()
        except Exception as exc:  # noqa: BLE001 - raised in the test's thread
            outcome["error"] = exc

    worker = threading.Thread(target=run)
    worker.start()
    worker.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["result"]


def test_free_then_call_uploads_the_constants_again(on_gpu, emulated_cuda):
    from jitgraph.backend_gpu.ops import GpuFromHost

    on_gpu(0)
    x = T.fvector("x")
    fn = gpu_function([x], x * np.arange(5, dtype="float32") + 1)
    assert any(isinstance(n.op, GpuFromHost) and isinstance(n.inputs[0], Constant)
               for n in fn.maker.fgraph.apply_nodes)
    value = np.full(5, 2, "float32")
    np.testing.assert_allclose(fn(value), np.arange(5) * 2 + 1)
    fn.free()
    # before: the constant's cell stayed empty and the kernel got a NULL pointer
    np.testing.assert_allclose(fn(value), np.arange(5) * 2 + 1)
    assert emulated_cuda.kernel_launches >= 2


def test_a_function_compiled_for_cuda1_runs_from_a_worker_thread(on_gpu):
    dev = on_gpu(1)
    assert dev.index == 1
    x = T.fvector("x")
    fn = gpu_function([x], [T.exp(x) * 2, Out(x + 1, borrow=True)])

    def work():
        w = jitgraph.shared(np.ones(5, "float32"), target="cuda")
        return (fn(np.arange(5, dtype="float32")),
                w.get_value(borrow=True, return_internal_type=True).device.id)

    outs, shared_device = in_a_worker_thread(work)
    np.testing.assert_allclose(outs[0], np.exp(np.arange(5)) * 2, rtol=1e-6)
    assert outs[1].device.id == 1 and shared_device == 1


def test_a_function_linked_in_a_thread_on_another_device_runs_on_the_gpu(on_gpu):
    """A GPU program is built with the initialised GPU current: a function unpickled (linked)
    in a Dask worker's task thread, whose current device is 0, had its constants uploaded to
    device 0 and then failed on ``cuda1`` ('array device = 0 while current = 1')."""
    on_gpu(1)
    x = T.fvector("x")
    fn = in_a_worker_thread(lambda: gpu_function([x], x * np.arange(5, dtype="float32") + 1))
    np.testing.assert_allclose(fn(np.full(5, 2, "float32")), np.arange(5) * 2 + 1)


def test_a_function_pickled_without_a_gpu_is_linked_for_the_gpu_it_is_loaded_on(
        on_gpu, emulated_cuda):
    """A mode unpickled where a GPU is in use hands out the GPU-wrapped linker: the function
    pickled by a process without a GPU (its mode holding the plain CPU linker), rewritten for
    the GPU at loading, ran its ``Gpu*`` nodes by their ``perform`` (no kernel launched)."""
    import pickle

    from jitgraph.backend_gpu import device, use
    from jitgraph.backend_gpu.program import GpuProgram

    x = T.fvector("x")
    payload = pickle.dumps(jitgraph.function([x], T.exp(x) * 3))  # compiled for the CPU
    device.reset_for_tests()
    use("cuda0", move_computation=True)
    with jitgraph.config.change_flags(reoptimize_unpickled_function=True):
        loaded = pickle.loads(payload)
    assert isinstance(loaded._program, GpuProgram)
    before = emulated_cuda.kernel_launches
    np.testing.assert_allclose(loaded(np.ones(4, "float32")), np.full(4, 3 * np.e), rtol=1e-6)
    assert emulated_cuda.kernel_launches > before


def test_a_device_of_a_newer_major_than_nvrtc_knows_gets_ptx(on_gpu, emulated_cuda):
    dev = on_gpu(0, compute_capability=(13, 0), nvrtc_archs=(75, 80, 90, 100, 120, 121))
    assert dev.arch == "compute_121"  # before: sm_121, a cubin no 13.x device loads
    x = T.fvector("x")
    fn = gpu_function([x], T.exp(x) * 3)
    np.testing.assert_allclose(fn(np.ones(4, "float32")), np.full(4, 3 * np.e), rtol=1e-6)
    assert emulated_cuda.kernel_launches >= 1


def test_a_device_of_the_newest_known_major_gets_a_cubin_for_it(on_gpu):
    assert on_gpu(0, compute_capability=(9, 5), nvrtc_archs=(75, 80, 90, 100)).arch == "sm_90"


def test_a_device_older_than_nvrtc_is_reported_unusable_and_falls_back(on_gpu):
    from jitgraph.backend_gpu import device, use
    from jitgraph.backend_gpu.device import GpuFallbackWarning, GpuUnavailable

    on_gpu(0)
    import emulated_cuda as emulator

    emulator.configure(compute_capability=(7, 0), nvrtc_archs=(75, 80, 90))
    device.reset_for_tests()
    ok, why = device.status(0)
    assert not ok
    assert "cuda0 (compute capability 7.0) is older than the oldest architecture" in why
    assert "(sm_75)" in why
    with pytest.warns(GpuFallbackWarning, match="compute capability 7.0"):
        assert use("cuda0", force=False) is None
    device.reset_for_tests()
    with pytest.raises(GpuUnavailable, match="older than the oldest"):
        use("cuda0", force=True)


FORCED = """
import numpy as np, jitgraph, jitgraph.tensor as T
x = T.fvector("x")
for what, make in [("FUNCTION", lambda: jitgraph.function([x], x * 2)),
                   ("SHARED", lambda: jitgraph.shared(np.ones(3, "float32")))]:
    try:
        make()
    except Exception as exc:
        print(what, type(exc).__name__, exc)
    else:
        print(what, "made")
"""


def test_force_device_stops_a_compilation_whose_first_gpu_use_is_the_rewrite():
    res = run_python(FORCED, "device=cuda0,force_device=True", env=device_env(devices=0))
    assert res.returncode == 0, res.stderr
    lines = dict(line.split(" ", 1) for line in res.stdout.splitlines())
    # before: the rewrite engine swallowed the error and both ran on the CPU
    assert lines["FUNCTION"].startswith("GpuUnavailable device=cuda0 was requested "
                                        "(force_device=True) but no GPU can be used: "
                                        "no CUDA device is visible"), res.stdout
    assert lines["SHARED"].startswith("GpuUnavailable"), res.stdout


FRESH = """
import numpy as np, jitgraph, jitgraph.tensor as T
import emulated_cuda
from jitgraph.backend_gpu import use
use("cuda0")
x = T.fvector("x")
mode = jitgraph.Mode(linker="cvm", optimizer="fast_run").including("gpuarray")
fn = jitgraph.function([x], T.exp(x) * 2, mode=mode)
print("RESULT", fn(np.zeros(3, "float32")).tolist())
print("PROGRAM", type(fn._program).__name__, emulated_cuda.STATS.kernel_launches)
"""


def test_a_fresh_process_initialising_the_gpu_from_code_launches_kernels():
    """The linkers handed out after ``use()`` build GPU programs whoever registered them
    first (issue 27 bug 1: the GPU graph ran the ``Gpu*`` ops' ``perform`` on the host)."""
    res = run_python(FRESH, "", env=device_env())
    assert res.returncode == 0, res.stderr
    assert "RESULT [2.0, 2.0, 2.0]" in res.stdout
    program, launches = res.stdout.split("PROGRAM ")[1].split()
    assert program == "GpuProgram" and int(launches) >= 1, res.stdout


SHARED_CACHE = """
import numpy as np, jitgraph, jitgraph.tensor as T, sys
x = T.fvector("x")
w = jitgraph.shared(np.ones(4, "float32"), name="w")
fn = jitgraph.function([x], T.exp(x * w).sum(), updates=[(w, w * 2)])
print("RESULT", float(fn(np.ones(4, "float32"))))
emulated = sys.modules.get("emulated_cuda")
print("RAN", type(fn._program).__name__, emulated.STATS.kernel_launches if emulated else 0)
"""


@pytest.mark.parametrize("first", ["gpu", "cpu"])
def test_two_processes_sharing_a_compiledir_each_run_on_their_own_device(tmp_path, first):
    env = {"gpu": device_env(), "cpu": device_env(devices=0)}
    flags = "device=cuda0,floatX=float32"
    for name in env:
        env[name]["JITGRAPH_FLAGS"] = f"base_compiledir={tmp_path}"
    order = [first, "cpu" if first == "gpu" else "gpu", first]
    for which in order:
        res = run_python(SHARED_CACHE, flags, env=env[which])
        assert res.returncode == 0, res.stderr
        assert f"RESULT {4 * np.e:.4f}"[:12] in res.stdout, res.stdout
        ran, launches = res.stdout.split("RAN ")[1].split()
        if which == "gpu":
            assert ran == "GpuProgram" and int(launches) > 0, res.stdout
        else:
            assert ran != "GpuProgram" and int(launches) == 0, res.stdout
            assert "no GPU can be used" in res.stderr


def test_the_emulated_device_never_shares_kernel_cache_entries_with_a_real_cupy(on_gpu):
    from jitgraph.backend_gpu import kernels
    from jitgraph.backend_gpu.kernels import CudaSource

    on_gpu(0)
    src = CudaSource(("test-kernel", 1), "// x\n", ("k",), "test")
    assert "+jitgraph.emulated" in kernels.cache_key(src, "sm_90", ()).as_dict()["cupy"]
