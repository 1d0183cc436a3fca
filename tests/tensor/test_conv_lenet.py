"""Acceptance: a LeNet-style program written as Theano's tutorials wrote theirs (conv2d +
pool_2d layers, a hidden layer, logistic regression, minibatches through ``givens``) reports
Theano 1.0.5's numbers (float64, recorded in ``data/lenet_oracle.json``)."""

from __future__ import annotations

import json
from pathlib import Path

import lenet_program
import numpy as np

import jitgraph


def test_lenet_program_matches_theano():
    expected = json.loads((Path(__file__).parent / "data" / "lenet_oracle.json").read_text())
    got = lenet_program.run(jitgraph)
    assert set(got) == set(expected)
    for key, value in expected.items():
        np.testing.assert_allclose(got[key], value, rtol=1e-6, err_msg=key)
    assert got["validation_error"][-1] < got["validation_error"][0]  # it does learn
