"""Output dtypes of operators and common functions against Theano 1.0.5 (1107 combinations
recorded by ``operator_dtypes.py`` under the oracle, with floatX float64 and float32). The
differences listed are deliberate."""

from __future__ import annotations

import json
import pathlib

import pytest

import jitgraph
import jitgraph.tensor as T
from operator_dtypes import operator_dtypes

DATA = pathlib.Path(__file__).parent / "data"
RECORDED = {"float64": DATA / "theano_operator_dtypes.json",
            "float32": DATA / "theano_operator_dtypes_float32.json"}

#: where jitgraph deliberately differs from Theano 1.0.5, and why
DIFFERENT = {
    # rounding an integer returns it (Theano raises TypeError)
    **{f"{d}round": d for d in ("bool", "int8", "uint8", "int16", "int32", "int64", "uint32")},
}


@pytest.mark.parametrize("floatx", sorted(RECORDED))
def test_operator_dtypes_match_theano(floatx):
    theano = json.loads(RECORDED[floatx].read_text())
    with jitgraph.config.change_flags(floatX=floatx):
        ours = operator_dtypes(T)
    assert ours.keys() == theano.keys()
    differences = {k: ours[k] for k in theano if ours[k] != theano[k]}
    assert differences == DIFFERENT
