"""The device flags without a usable GPU: ``device=cuda0`` falls back to the CPU with one clear
warning, ``force_device=True`` fails with the reason, ``device=cpu`` never imports CuPy.

The fallback tests hide every GPU (``CUDA_VISIBLE_DEVICES=''``), so they mean the same on a
machine that has one.
"""

from __future__ import annotations

import pytest

from jitgraph.backend_gpu import device

from gpu_testing import run_python

LOGREG = """
import pathlib, sys, warnings
warnings.simplefilter("always")
src = pathlib.Path("examples/logistic_regression.py").read_text()
src = src.replace("training_steps = 10000", "training_steps = 3")
ns = {"__name__": "__main__"}
exec(compile(src, "logistic_regression.py", "exec"), ns)
print("W_TYPE", type(ns["w"]).__name__, type(ns["w"].get_value()).__name__)
print("CUPY_IMPORTED", "cupy" in sys.modules)
"""
NO_GPU = {"CUDA_VISIBLE_DEVICES": ""}


@pytest.mark.parametrize("dev", ["cuda0", "gpu", "cuda"])
def test_gpu_requested_without_one_runs_on_the_cpu_with_one_warning(dev):
    res = run_python(LOGREG, f"device={dev}", env=NO_GPU)
    assert res.returncode == 0, res.stderr
    assert "Used the cpu" in res.stdout
    assert "W_TYPE TensorSharedVariable ndarray" in res.stdout
    warned = [line for line in res.stderr.splitlines() if "no GPU can be used" in line]
    assert len(warned) == 1, res.stderr
    assert f"device={dev} was requested but no GPU can be used:" in warned[0]
    assert warned[0].startswith("logistic_regression.py:")  # the user's line
    assert "Running on the CPU" in warned[0] and "force_device=True" in warned[0]
    # the one reason: CuPy missing, no driver, no device or no NVRTC
    assert any(r in warned[0] for r in ("CuPy is not installed", "CuPy cannot be imported",
                                        "no usable CUDA driver", "no CUDA device",
                                        "NVRTC cannot be loaded")), warned[0]


def test_force_device_fails_with_the_reason():
    res = run_python(LOGREG, "device=cuda0,force_device=True", env=NO_GPU)
    assert res.returncode != 0
    assert "Used the" not in res.stdout
    last = res.stderr.strip().splitlines()[-1]
    assert last.startswith("jitgraph.backend_gpu.device.GpuUnavailable: device=cuda0 was "
                           "requested (force_device=True) but no GPU can be used: "), res.stderr


def test_device_cpu_never_imports_cupy():
    res = run_python(LOGREG, "device=cpu")
    assert res.returncode == 0, res.stderr
    assert "Used the cpu" in res.stdout and "CUPY_IMPORTED False" in res.stdout
    assert "GPU" not in res.stderr


def test_cupy_cache_dir_goes_into_the_compiledir():
    code = ("import os, jitgraph\n"
            "from jitgraph.backend_gpu.device import status\n"
            "status()\n"
            "print('CACHE', os.environ.get('CUPY_CACHE_DIR'))\n"
            "print('COMPILEDIR', jitgraph.config.compiledir)\n")
    pytest.importorskip("cupy")
    res = run_python(code, "device=cuda0", env={"CUPY_CACHE_DIR": None})
    lines = dict(line.split(" ", 1) for line in res.stdout.splitlines() if " " in line)
    assert res.returncode == 0, res.stderr
    assert lines["CACHE"] == lines["COMPILEDIR"] + "/cupy"
    mine = run_python(code, "device=cuda0", env={"CUPY_CACHE_DIR": "/tmp/users-own"})
    assert "CACHE /tmp/users-own" in mine.stdout  # a user's own setting wins


def test_status_gives_one_reason_and_never_raises():
    ok, why = device.status(99)
    if not ok:
        assert why and "\n" not in why
    else:
        assert "does not exist" in why or "device" in why


@pytest.mark.parametrize("value, total, expected", [
    (-1, 1000, None), (0, 1000, 0), (0.5, 1000, 500), (1.0, 1000, 950), (0.99, 1000, 950),
    (2, 2**40, 2 * 2**20), (5000, 1000 * 2**20, 950 * 2**20),
])
def test_preallocation_sizes(value, total, expected):
    assert device.preallocation_bytes(value, total) == expected


def test_lib_cnmem_is_used_when_preallocate_is_zero():
    code = ("from jitgraph.backend_gpu.device import pool_setting, requested\n"
            "print(pool_setting(), requested())\n")
    res = run_python(code, "lib.cnmem=0.3")
    assert res.stdout.split() == ["0.3", "(None,", "None,", "False)"], res.stderr
    res = run_python(code, "lib.cnmem=0.3,gpuarray.preallocate=0.5,init_gpu_device=cuda1")
    assert res.stdout.strip() == "0.5 ('init_gpu_device=cuda1', 1, False)", res.stderr


def test_nothing_is_initialised_with_device_cpu():
    device.reset_for_tests()
    try:
        assert device.init() is None and device.active() is None
        assert device.computation_device() is None
    finally:
        device.reset_for_tests()
