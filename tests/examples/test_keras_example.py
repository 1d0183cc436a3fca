"""examples/keras_mnist_like.py (Keras 2.3.1 on its Theano backend) run through the runner
``python -m jitgraph.theano_compat`` prints Theano 1.0.5's numbers: the losses and accuracy in
``expected/keras_mnist_like.txt`` were printed by the same program under the real Theano."""

from __future__ import annotations

import importlib.util
import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXPECTED = pathlib.Path(__file__).resolve().parent / "expected" / "keras_mnist_like.txt"
NUMBER = re.compile(r"-?\d+\.\d+")


def test_keras_example_prints_theanos_numbers():
    if importlib.util.find_spec("keras") is None:  # (Keras 2.3.1 imports only after shims)
        pytest.skip("needs keras==2.3.1, which the test extra installs")
    env = {**os.environ, "KERAS_BACKEND": "theano"}
    run = subprocess.run([sys.executable, "-m", "jitgraph.theano_compat",
                          "examples/keras_mnist_like.py"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    got = [line for line in run.stdout.splitlines() if line.startswith(("epoch", "final",
                                                                          "backend"))]
    expected = EXPECTED.read_text().splitlines()
    assert [NUMBER.sub("#", line) for line in got] == [NUMBER.sub("#", line) for line in expected]
    got_numbers = [float(v) for line in got for v in NUMBER.findall(line)]
    expected_numbers = [float(v) for line in expected for v in NUMBER.findall(line)]
    # float32 training (Keras' floatx): the last printed digit may differ
    np.testing.assert_allclose(got_numbers, expected_numbers, rtol=1e-5)
