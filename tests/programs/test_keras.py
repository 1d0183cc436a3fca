"""Keras 2.3.1 on its Theano backend, with ``theano`` meaning jitgraph: dense, convolutional and
recurrent models train and predict what they did under Theano 1.0.5 (``expected/keras_*.json``,
recorded by ``keras_models.py --record`` under the oracle). Keras is the test extra's
``keras==2.3.1``; each section runs in a fresh process, since Keras binds its backend at import.
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


@pytest.mark.parametrize("section", ["dense", "cnn", "rnn", "backend"])
def test_keras_models_match_theano(section):
    env = dict(os.environ, JITGRAPH_AS_THEANO="1", KERAS_BACKEND="theano")
    run = subprocess.run([sys.executable, str(HERE / "keras_models.py"), section],
                         capture_output=True, text=True, env=env, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    got = json.loads(run.stdout.strip().splitlines()[-1])[section]
    expected = json.loads((HERE / "expected" / f"keras_{section}.json").read_text())
    assert sorted(got) == sorted(expected)
    for model, values in expected.items():
        if section == "backend":  # [shape, dtype, first values] of a backend function
            assert got[model][:2] == values[:2], model
            got[model], values = got[model][2], values[2]
        # float32 models: sums and batch statistics round differently from Theano's C code
        np.testing.assert_allclose(got[model], values, rtol=2e-5, atol=1e-6, err_msg=model)
