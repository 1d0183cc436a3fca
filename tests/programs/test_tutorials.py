"""The deeplearning.net Deep Learning Tutorials beyond logistic regression, the MLP and the
autoencoders (``test_programs.py``): the LSTM sentiment classifier (``lstm_imdb.py``), the
Elman RNN for slot filling (``rnnslu.py``), the RNN-RBM (``rnnrbm.py``), the RBM
(``rbm.py``), the Deep Belief Network (``dbn.py``) and LeNet (``convolutional_mlp.py``), run
unchanged with ``theano`` meaning jitgraph and compared with what Theano 1.0.5 computed for
the same files (``expected/<name>.json``, recorded by ``record_theano.py`` under the oracle;
``<name>_float32.json`` under floatX=float32, as the LSTM and LeNet tutorials were run).

Tested elsewhere: another LeNet in tests/tensor/test_conv_lenet.py, the SdA and HMC
tutorials (and another RBM) in tests/random/random_scan_programs.py, dA and cA in
autoencoders.py."""

from __future__ import annotations

import json
import pathlib

import pytest

from test_programs import assert_same_results, run_program

HERE = pathlib.Path(__file__).resolve().parent


# the LSTM compiles about twenty functions with scan gradients: ~15 s on an empty compiledir
@pytest.mark.parametrize("name", [pytest.param("lstm_imdb", marks=pytest.mark.slow), "rnnslu",
                                  "rnnrbm", "rbm", "dbn", "convolutional_mlp", "dA", "SdA",
                                  "hmc"])
def test_tutorial_matches_theano(name):
    expected = json.loads((HERE / "expected" / f"{name}.json").read_text())
    results, printed = run_program(name)
    assert_same_results(results, expected, name)
    assert printed.strip(), "the program reports its progress"


@pytest.mark.parametrize("name", [pytest.param("lstm_imdb", marks=pytest.mark.slow),
                                  "convolutional_mlp", "rnnslu", "rnnrbm", "rbm", "dbn", "dA",
                                  "SdA", "hmc"])
def test_tutorial_under_floatx_float32_matches_theano(name):
    """With THEANO_FLAGS=floatX=float32, as the tutorials were run for the GPU (the LSTM's and
    LeNet's READMEs say so): float32 parameters, data, draws and costs."""
    import jitgraph

    expected = json.loads((HERE / "expected" / f"{name}_float32.json").read_text())
    with jitgraph.config.change_flags(floatX="float32"):
        results, _ = run_program(name)
    # float32: the libraries round sums in different orders
    assert_same_results(results, expected, f"{name} float32", rtol=2e-4, atol=1e-5)
