"""More Keras 2.3.1 programs with ``theano`` meaning jitgraph (``keras_more.py``): ConvLSTM2D,
GRU(reset_after), stateful and bidirectional RNNs, return_state, custom cells and layers,
regularizers and constraints, LocallyConnected, 3-D and channels_first convolutions, noise layers,
losses, multiple inputs/outputs, sample/class weights, metrics, callbacks, optimizer options,
generators, K.function with updates and the learning phase. Each case's losses and outputs match
what Theano 1.0.5 gave (``expected/keras_more_*.json``, recorded by ``keras_more.py --record``).
"""

from __future__ import annotations

import importlib.util
import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

HERE = pathlib.Path(__file__).resolve().parent


def keras_version() -> str | None:
    if importlib.util.find_spec("keras") is None:
        return None
    from importlib.metadata import version

    return version("keras")


pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(keras_version() != "2.3.1",
                       reason="needs keras==2.3.1 (the test extra installs it), the last Keras "
                              "with a Theano backend"),
]


@pytest.mark.parametrize("section", ["layers", "recurrent", "training"])
def test_more_keras_programs_match_theano(section):
    env = dict(os.environ, JITGRAPH_AS_THEANO="1", KERAS_BACKEND="theano")
    run = subprocess.run([sys.executable, str(HERE / "keras_more.py"), section],
                         capture_output=True, text=True, env=env, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    got = json.loads(run.stdout.strip().splitlines()[-1])[section]
    expected = json.loads((HERE / "expected" / f"keras_more_{section}.json").read_text())
    assert sorted(got) == sorted(expected)
    for case, values in expected.items():
        # float32 models: sums and batch statistics round differently from Theano's C code
        np.testing.assert_allclose(got[case], values, rtol=2e-5, atol=1e-6, err_msg=case)
