"""Printed text compared with what Theano 1.0.5 printed for the same programs.

The programs are in ``printing_cases.py``; Theano's output was recorded by
``data/record_printing_oracle.py`` into ``data/printing_oracle.json``. Where jitgraph builds a
different graph than Theano (not a printing difference), the recorded line is replaced by the
one expected from jitgraph's graph, with the reason, in :data:`GRAPH_DIFFERENCES`.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from printing_cases import CASES

import jitgraph
import jitgraph.printing
import jitgraph.tensor as T
from jitgraph.graph.basic import Apply
from jitgraph.graph.fg import FunctionGraph
from jitgraph.graph.op import Op

RECORDED = json.loads((Path(__file__).parent / "data" / "printing_oracle.json").read_text())

#: case -> {Theano's line: jitgraph's line}, each for a reason that is not about printing
GRAPH_DIFFERENCES = {
    "pp_expressions": {
        # Theano converts a symbolic index with a ScalarFromTensor node; jitgraph indexes with
        # the tensor itself
        "x[i] => x[ScalarFromTensor(i)]": "x[i] => x[i]",
        # Theano's index inputs are scalar constants (Constant{1}); jitgraph's are tensors
        "T.inc_subtensor(v[1:], 1.0) => IncSubtensor{Inc;int64::}(v, TensorConstant{1.0}, "
        "Constant{1})":
        "T.inc_subtensor(v[1:], 1.0) => IncSubtensor{Inc;int64::}(v, TensorConstant{1.0}, "
        "TensorConstant{1})",
    },
}


def _library() -> SimpleNamespace:
    return SimpleNamespace(theano=jitgraph, T=T, printing=jitgraph.printing, Op=Op,
                           Apply=Apply, FunctionGraph=FunctionGraph)


def _expected(name: str) -> str:
    lines = RECORDED["cases"][name].split("\n")
    replace = GRAPH_DIFFERENCES.get(name, {})
    return "\n".join(replace.get(line, line) for line in lines)


def test_recorded_with_theano_1_0_5():
    assert RECORDED["theano"] == "1.0.5"
    assert set(RECORDED["cases"]) == set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_prints_as_theano(name):
    assert CASES[name](_library()) == _expected(name)


def test_tutorial_texts():
    """Spot checks of the recorded texts against Theano's documentation pages."""
    cases = RECORDED["cases"]
    assert cases["pp_tutorial_gradient"].split("\n") == [
        "((fill((x ** TensorConstant{2}), TensorConstant{1.0}) * TensorConstant{2}) * "
        "(x ** (TensorConstant{2} - TensorConstant{1})))",
        "(TensorConstant{2.0} * x)"]
    assert cases["dp_function_tutorial"] == (
        "Elemwise{mul,no_inplace} [id A] ''   0\n |TensorConstant{2.0} [id B]\n |x [id C]\n")
    assert cases["pp_tutorial_prediction"] == (
        "gt((TensorConstant{1} / (TensorConstant{1} + exp(((-(x \\dot w)) - b)))), "
        "TensorConstant{0.5})")
    assert "this is a very important value __str__ = [1. 2. 3.]" in cases["print_op_output"]
