"""Keras 2.3.1 on its Theano backend, with ``theano`` meaning jitgraph: dense, convolutional and
recurrent models train and predict what they did under Theano 1.0.5 (``expected/keras_*.json``,
recorded by ``keras_models.py --record`` under the oracle). Keras is the test extra's
``keras==2.3.1``; each section runs in a fresh process, since Keras binds its backend at import.
"""

from __future__ import annotations

import json
import pathlib

import pytest

from keras_runner import KERAS_MARKS, assert_close, run_section

HERE = pathlib.Path(__file__).resolve().parent
pytestmark = KERAS_MARKS


@pytest.mark.parametrize("section", ["dense", "cnn", "rnn", "backend"])
def test_keras_models_match_theano(section):
    got = run_section("keras_models.py", section)
    expected = json.loads((HERE / "expected" / f"keras_{section}.json").read_text())
    assert sorted(got) == sorted(expected)
    for model, values in expected.items():
        if section == "backend":  # [shape, dtype, first values] of a backend function
            assert got[model][:2] == values[:2], model
            got[model], values = got[model][2], values[2]
        assert_close(got[model], values, model)
