"""A GRU language model written as the widely read "RNN tutorial" GRU code is (gru_lm.py: two
stacked GRU layers over word embeddings in a scan, RMSprop, ``theano.In`` with a default),
run unchanged with ``theano`` meaning jitgraph and compared with what Theano 1.0.5 computed
(``expected/gru_lm{,_float32}.json``, recorded by ``record_theano.py gru_lm`` with ``cxx=``)."""

from __future__ import annotations

import json
import pathlib

import pytest

from test_programs import assert_same_results, run_program

HERE = pathlib.Path(__file__).resolve().parent


@pytest.mark.parametrize("floatx, rtol", [("float64", 1e-6), ("float32", 2e-4)])
def test_gru_language_model_matches_theano(floatx, rtol):
    import jitgraph

    suffix = "" if floatx == "float64" else "_float32"
    expected = json.loads((HERE / "expected" / f"gru_lm{suffix}.json").read_text())
    with jitgraph.config.change_flags(floatX=floatx):
        results, printed = run_program("gru_lm")
    # float32: sums are rounded in other orders (Theano's Python scan, jitgraph's kernels)
    assert_same_results(results, expected, f"gru_lm {floatx}", rtol=rtol, atol=1e-6)
    assert "epoch 2 loss" in printed
