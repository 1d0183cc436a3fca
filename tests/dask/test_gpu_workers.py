"""The Dask data-parallel logistic regression with a GPU per worker (issue 27), on the emulated
CUDA device: two worker processes on ``cuda0`` and ``cuda1``, driven by a client computing on
the CPU, give the CPU's numbers and really launch kernels on each worker. Both ways of giving
the workers their GPU run (gpu_workers.py, each in a fresh interpreter, side by side):
:func:`jitgraph.dask.gpu_per_worker` on a LocalCluster, and worker processes started with their
own ``THEANO_FLAGS=device=cudaN``.

Before: the workers linked the client's CPU graph, or (rewritten for the GPU) ran it with the
CPU linker -- no kernel launched -- and a function linked in a task thread uploaded its
constants to device 0 however the worker's GPU was ``cuda1``."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
WAYS = ("gpu_per_worker", "worker_flags")


def _environment(tmp_path: pathlib.Path, **settings) -> dict:
    """The emulated device's environment (emulated_cuda.subprocess_env) with ``tests/`` itself
    off the path: Dask workers would import ``tests/sparse`` as PyData's ``sparse``. A folder
    holding only a link to the emulator stands in for it."""
    import emulated_cuda

    link = tmp_path / "emulator"
    link.mkdir()
    (link / "emulated_cuda").symlink_to(pathlib.Path(emulated_cuda.__file__).parent)
    env = dict(os.environ)
    env.update(emulated_cuda.subprocess_env(**settings))
    tests = str(emulated_cuda.TESTS)
    paths = [str(ROOT)] + [p if p != tests else str(link)
                           for p in env["PYTHONPATH"].split(os.pathsep) if p]
    env.update(PYTHONPATH=os.pathsep.join(paths), THEANO_FLAGS="floatX=float32")
    return env


def test_dask_training_with_a_gpu_per_worker_gives_the_cpus_numbers(tmp_path):
    pytest.importorskip("distributed", reason="the dask extra is not installed")
    if os.environ.get("JITGRAPH_TEST_REAL_GPU", "") not in ("", "0"):
        pytest.skip("needs two GPUs; the emulated device has them")
    if shutil.which("g++") is None:
        pytest.skip("the emulated CUDA device builds kernels with g++, which is not installed")
    env = _environment(tmp_path)
    runs = {how: subprocess.Popen(
        [sys.executable, str(HERE / "gpu_workers.py"), str(tmp_path / f"{how}.json"), how],
        cwd=str(tmp_path), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for how in WAYS}
    for how, run in runs.items():
        _, err = run.communicate(timeout=300)
        assert run.returncode == 0, f"{how} failed:\n{err[-4000:]}"
    for how in WAYS:
        report = json.loads((tmp_path / f"{how}.json").read_text())
        assert report["shipped_for"] == "cpu"  # the client compiled it for its CPU
        workers = report["workers"]
        assert sorted(w["device"] for w in workers.values()) == ["cuda0", "cuda1"], how
        for name, seen in workers.items():
            assert seen["programs"] == ["GpuProgram"], (how, name, seen)
            assert seen["launches"] > 0, f"{how}: no kernel launched on {name} ({seen})"
        if how == "gpu_per_worker":
            assert sorted(report["devices"].values()) == ["cuda0", "cuda1"]
        np.testing.assert_allclose(report["costs"], report["cpu_costs"], rtol=1e-5)
        assert report["costs"][-1] < report["costs"][0]
        for got, want in zip(report["params"], report["cpu_params"]):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_a_function_shipped_from_a_gpu_client_is_rebuilt_for_a_cpu_worker(emulated_cuda):
    """In one process: compiled (and shipped) where cuda0 computes, loaded as a worker without
    a GPU would load it -- rebuilt from its original graph for the CPU, no GPU node left."""
    import jitgraph
    import jitgraph.tensor as T
    from jitgraph.backend_gpu import device, use
    from jitgraph.backend_gpu.program import has_gpu_nodes
    from jitgraph.dask import workers

    use("cuda0", move_computation=True)
    x = T.fvector("x")
    fn = jitgraph.function([x], T.exp(x) * 3)
    assert has_gpu_nodes(fn.maker.fgraph)
    shipped = workers.ship(fn)
    assert shipped.device == "cuda0"
    device.reset_for_tests()  # now a process computing on the CPU
    try:
        loaded = workers.function_on_worker(shipped)
        assert not has_gpu_nodes(loaded.maker.fgraph)  # before: the GPU graph, run by perform
        np.testing.assert_allclose(loaded(np.ones(3, "float32")), np.full(3, 3 * np.e),
                                   rtol=1e-6)
        assert workers.worker_timings(shipped.token)[shipped.token]["device"] == "cpu"
    finally:
        workers._FUNCTIONS.pop(shipped.token, None)


def test_a_worker_whose_gpu_cannot_be_used_warns_and_computes_on_the_cpu(emulated_cuda):
    """force_device=False's rule, as in any process."""
    import emulated_cuda as emulator
    from jitgraph.backend_gpu import device
    from jitgraph.backend_gpu.device import GpuFallbackWarning
    from jitgraph.dask import devices

    saved = emulator.configure(devices=1)
    device.reset_for_tests()
    try:
        with pytest.warns(GpuFallbackWarning, match="no GPU can be used"):
            assert devices._use_here("cuda1") == "cpu"
    finally:
        emulator.configure(devices=saved.devices)
        device.reset_for_tests()


FORCED = """
from jitgraph.dask import devices
try:
    devices._use_here("cuda1")
except Exception as exc:
    print(type(exc).__name__, exc)
"""


def test_with_force_device_a_worker_whose_gpu_cannot_be_used_raises(tmp_path):
    if shutil.which("g++") is None:
        pytest.skip("the emulated CUDA device builds kernels with g++, which is not installed")
    env = _environment(tmp_path, devices=1)
    env["THEANO_FLAGS"] = "force_device=True"
    run = subprocess.run([sys.executable, "-c", FORCED], cwd=str(tmp_path), env=env,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.startswith("GpuUnavailable cuda1 was requested (force_device=True) but "
                                 "no GPU can be used"), run.stdout + run.stderr[-2000:]
