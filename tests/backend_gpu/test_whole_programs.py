"""Whole programs under ``device=cuda0`` on the emulated device give the CPU's numbers (issue
27): the MLP, LeNet (conv2d + pool), an Elman RNN and an LSTM with scan (whole_programs.py,
trained a few steps), and the Keras example. Each runs in a fresh interpreter as a user would
run it (``THEANO_FLAGS=device=cuda0``), launches kernels, and no ``Gpu*`` op falls back to its
``perform``."""

from __future__ import annotations

import importlib.util
import json
import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

from gpu_testing import ROOT, device_env

pytestmark = pytest.mark.gpu

HERE = pathlib.Path(__file__).resolve().parent
FLOATX = "floatX=float32"


def _env(flags: str, extra: dict | None = None) -> dict:
    """The environment of a run with ``THEANO_FLAGS=flags``: this checkout, the tests' helper
    modules, then ``extra``'s path (the emulated device's stand-in cupy) first."""
    env = {k: v for k, v in os.environ.items() if k != "THEANO_FLAGS"}
    extra = dict(extra or {})
    paths = [p for p in extra.pop("PYTHONPATH", "").split(os.pathsep) if p]
    paths += [str(ROOT), str(HERE.parent), str(HERE)]
    paths += [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env.update(extra, THEANO_FLAGS=flags, PYTHONPATH=os.pathsep.join(paths))
    return env


def _start(args: list, flags: str, extra: dict | None = None) -> subprocess.Popen:
    return subprocess.Popen([sys.executable] + args, cwd=str(ROOT), env=_env(flags, extra),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _finish(proc: subprocess.Popen, what: str) -> tuple[str, str]:
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, f"{what} failed:\n{err[-3000:]}"
    return out, err


def test_mlp_lenet_elman_lstm_on_the_gpu_give_the_cpus_numbers(tmp_path):
    script = str(HERE / "whole_programs.py")
    gpu_out, cpu_out = str(tmp_path / "gpu.npz"), str(tmp_path / "cpu.npz")
    # both at once: the two interpreters share the two cores
    gpu = _start([script, gpu_out], f"device=cuda0,{FLOATX}", device_env())
    cpu = _start([script, cpu_out], f"device=cpu,{FLOATX}")
    _, gpu_err = _finish(gpu, "the GPU run")
    _finish(cpu, "the CPU run")
    assert "using GPU cuda0" in gpu_err
    report = json.loads(pathlib.Path(gpu_out.replace(".npz", ".json")).read_text())
    got, ref = np.load(gpu_out), np.load(cpu_out)
    assert sorted(got.files) == sorted(ref.files)
    for name, seen in report.items():
        assert seen["device"] == "cuda0"
        assert seen["launches"] > 0, f"{name}: no kernel launched"
        assert seen["fallbacks"] == [], f"{name}: Gpu ops running their perform"
    for key in ref.files:
        np.testing.assert_allclose(got[key], ref[key], rtol=1e-4, atol=1e-5, err_msg=key)
        if key.endswith("costs"):
            assert ref[key][-1] < ref[key][0], f"{key}: training did not lower the cost"


KERAS_RUN = """
import runpy, sys
import cupy  # noqa: F401 - (the emulated device's counters)
import whole_programs
fallbacks = whole_programs.record_fallbacks()
sys.argv = ["jitgraph.theano_compat", "examples/keras_mnist_like.py"]
try:
    runpy.run_module("jitgraph.theano_compat", run_name="__main__")
finally:
    print(f"DEVICE launches={whole_programs.launches()} fallbacks={fallbacks}", file=sys.stderr)
"""
NUMBER = re.compile(r"-?\d+\.\d+")


def test_keras_dense_model_on_the_gpu_prints_the_cpus_numbers():
    if importlib.util.find_spec("keras") is None:
        pytest.skip("needs keras==2.3.1, which the test extra installs")
    run = _start(["-c", KERAS_RUN], f"device=cuda0,{FLOATX}",
                 {**device_env(), "KERAS_BACKEND": "theano"})
    out, err = _finish(run, "Keras on the GPU")
    assert "using GPU cuda0" in err
    device = re.search(r"DEVICE launches=(\d+) fallbacks=(.*)", err)
    assert device and int(device.group(1)) > 0 and device.group(2) == "[]", err[-2000:]
    got = [line for line in out.splitlines() if line.startswith(("epoch", "final"))]
    # the CPU's numbers (Theano's: tests/examples/test_keras_example checks the CPU run)
    expected = [line for line in (ROOT / "tests/examples/expected/keras_mnist_like.txt")
                .read_text().splitlines() if line.startswith(("epoch", "final"))]
    assert [NUMBER.sub("#", g) for g in got] == [NUMBER.sub("#", e) for e in expected]
    np.testing.assert_allclose([float(v) for g in got for v in NUMBER.findall(g)],
                               [float(v) for e in expected for v in NUMBER.findall(e)],
                               rtol=1e-4, atol=1e-5)
