"""Keras 1.2.2 on its Theano backend, with ``theano`` meaning jitgraph (``keras1_programs.py``):
dense models with every Keras 1 optimizer, ``BatchNormalization`` modes 0 and 2, the Sequential
``Merge``, Theano- and TensorFlow-ordered convolutions (atrous, deconvolution, locally connected,
1-D and 3-D), recurrent layers in each ``consume_less`` mode with dropout, masking, stateful and
bidirectional layers, functional models with ``merge`` modes and several outputs, and backend
functions (``K.function``, ``K.gradients``, ``K.rnn``, pooling, convolutions, CTC). Each case's
losses and outputs match what Theano 1.0.5 gave (``expected/keras1_<section>.json``).

Keras 1.2.2 cannot share an environment with the test extra's Keras 2.3.1: it is installed
(``pip install --no-deps --target``) into the test cache the first time and put first on the
script's ``PYTHONPATH``; without a network the tests are skipped.
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import pytest

from keras_runner import assert_close, run_section

HERE = pathlib.Path(__file__).resolve().parent
TARGET = HERE.parent.parent / ".jitgraph-test-cache" / "keras-1.2.2"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="session")
def keras1_path() -> str:
    """A directory holding Keras 1.2.2 (installed there on first use)."""
    if not (TARGET / "keras" / "backend" / "theano_backend.py").exists():
        TARGET.parent.mkdir(parents=True, exist_ok=True)
        staging = tempfile.mkdtemp(dir=TARGET.parent, prefix="keras-1.2.2-")
        run = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q",
                              "--disable-pip-version-check", "--target", staging,
                              "keras==1.2.2"], capture_output=True, text=True, timeout=300)
        if run.returncode != 0:
            shutil.rmtree(staging, ignore_errors=True)
            pytest.skip("could not install keras==1.2.2 (pip install --no-deps --target "
                        f"{TARGET} keras==1.2.2): {run.stderr.strip()[-300:]}")
        try:  # another test process may have installed it meanwhile
            os.rename(staging, TARGET)
        except OSError:
            shutil.rmtree(staging, ignore_errors=True)
    return str(TARGET)


@pytest.mark.parametrize("section", ["dense", "dense64", "cnn", "rnn", "functional", "backend"])
def test_keras1_programs_match_theano(section, keras1_path):
    path = os.pathsep.join(filter(None, [keras1_path, os.environ.get("PYTHONPATH")]))
    got = run_section("keras1_programs.py", section, {"PYTHONPATH": path})
    expected = json.loads((HERE / "expected" / f"keras1_{section}.json").read_text())
    assert sorted(got) == sorted(expected)
    for case, values in expected.items():
        if section == "backend":  # [shape, dtype, first values] of a backend function
            assert got[case][:2] == values[:2], case
            got[case], values = got[case][2], values[2]
        if section == "dense64":  # float64 models: only the order of sums differs
            np.testing.assert_allclose(got[case], values, rtol=1e-9, atol=1e-12, err_msg=case)
        else:
            assert_close(got[case], values, case)
