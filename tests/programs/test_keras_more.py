"""More Keras 2.3.1 programs with ``theano`` meaning jitgraph (``keras_more.py``): ConvLSTM2D,
GRU(reset_after), stateful and bidirectional RNNs, return_state, custom cells and layers,
regularizers and constraints, LocallyConnected, 3-D and channels_first convolutions, noise layers,
losses, multiple inputs/outputs, sample/class weights, metrics, callbacks, optimizer options,
generators, K.function with updates and the learning phase. Each case's losses and outputs match
what Theano 1.0.5 gave (``expected/keras_more_*.json``, recorded by ``keras_more.py --record``).
"""

from __future__ import annotations

import json
import pathlib

import pytest

from keras_runner import KERAS_MARKS, assert_close, run_section

HERE = pathlib.Path(__file__).resolve().parent
pytestmark = KERAS_MARKS


@pytest.mark.parametrize("section", ["layers", "recurrent", "training"])
def test_more_keras_programs_match_theano(section):
    got = run_section("keras_more.py", section)
    expected = json.loads((HERE / "expected" / f"keras_more_{section}.json").read_text())
    assert sorted(got) == sorted(expected)
    for case, values in expected.items():
        assert_close(got[case], values, case)
