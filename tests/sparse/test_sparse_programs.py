"""Theano programs using theano.sparse, run under jitgraph and compared with what Theano 1.0.5
printed (recorded with the theano-oracle into expected/*.json): the tutorial page ``sparse``,
a sparse logistic regression (with ``theano.sparse_grad``), a sparse autoencoder, and a tour
of most sparse functions and a few of their gradients (values, formats and dtypes)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import runpy
import sys

import numpy as np
import pytest

pytest.importorskip("scipy")

import jitgraph
import jitgraph.sparse
import jitgraph.tensor

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture
def as_theano(monkeypatch):
    """``import theano`` (and theano.tensor / theano.sparse) gives jitgraph."""
    monkeypatch.setitem(sys.modules, "theano", jitgraph)
    monkeypatch.setitem(sys.modules, "theano.tensor", jitgraph.tensor)
    monkeypatch.setitem(sys.modules, "theano.sparse", jitgraph.sparse)


def _expected(name: str) -> dict:
    with open(os.path.join(HERE, "expected", f"{name}.json")) as f:
        return json.load(f)


def _run(name: str) -> dict:
    return runpy.run_path(os.path.join(HERE, "programs", f"{name}.py"), run_name="sparse_test")


def test_tutorial_prints_what_theano_printed(as_theano):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        runpy.run_path(os.path.join(HERE, "programs", "tutorial.py"), run_name="__main__")
    assert out.getvalue() == _expected("tutorial")["stdout"]


def _close(got, want, path="result"):
    if isinstance(want, dict):
        assert sorted(got) == sorted(want), path
        for k in want:
            _close(got[k], want[k], f"{path}.{k}")
    elif isinstance(want, list):
        assert len(got) == len(want), path
        for k, (g, w) in enumerate(zip(got, want)):
            _close(g, w, f"{path}[{k}]")
    elif isinstance(want, str):
        assert got == want, path
    else:
        np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-9, err_msg=path)


@pytest.mark.parametrize("name", ["logreg", "autoencoder", "ops_tour"])
def test_program_matches_theano(as_theano, name):
    results = _run(name)["main"]()
    _close(json.loads(json.dumps(results)), _expected(name)["results"])
