"""theano_lstm 0.0.15 (its README's LSTM language model, its own Ops, gradient clipping, shared
parameter buffers), run with ``theano`` meaning jitgraph, computes what it computed on Theano
1.0.5: ``expected/theano_lstm.json``, recorded by ``theano_lstm_programs.py --record`` under the
oracle (see :mod:`library_harness`).

The library is not a jitgraph dependency: the test runs where it is installed
(``pip install --no-deps theano-lstm``) and is skipped elsewhere.
"""

import pytest

from library_harness import check, installed

NEEDED = ['theano_lstm']

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not all(installed(m) for m in NEEDED),
                       reason="needs " + ", ".join(NEEDED) + " (pip install --no-deps "
                              "theano-lstm): a library written for Theano 1.0, not a jitgraph "
                              "dependency"),
]


def test_theano_lstm_programs_match_theano():
    check("theano_lstm_programs.py", "theano_lstm")
