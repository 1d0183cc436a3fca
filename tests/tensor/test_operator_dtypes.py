"""Output dtypes of operators and common functions against Theano 1.0.5 (1107 combinations
recorded by ``operator_dtypes.py`` under the oracle). The differences listed are deliberate."""

from __future__ import annotations

import json
import pathlib

import jitgraph.tensor as T
from operator_dtypes import operator_dtypes

RECORDED = pathlib.Path(__file__).parent / "data" / "theano_operator_dtypes.json"

#: where jitgraph deliberately differs from Theano 1.0.5, and why
DIFFERENT = {
    # bool arithmetic computes in int8 (True + True is 2, not True; subtraction and negation of
    # booleans work): NumPy-style bool results would silently saturate sums of masks
    **{f"bool{op}bool": "int8" for op in ("+", "*", "//", "%", "-")},
    "boolsqr": "int8", "boolceil_intdiv": "int8", "boolneg": "bool", "boolsgn": "bool",
    # rounding an integer returns it (Theano raises TypeError)
    **{f"{d}round": d for d in ("bool", "int8", "uint8", "int16", "int32", "int64", "uint32")},
}


def test_operator_dtypes_match_theano():
    theano = json.loads(RECORDED.read_text())
    ours = operator_dtypes(T)
    assert ours.keys() == theano.keys()
    differences = {k: ours[k] for k in theano if ours[k] != theano[k]}
    assert differences == DIFFERENT
