"""pprint / pp: the printer API beyond the recorded Theano texts (test_printing_oracle.py)."""

from __future__ import annotations

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph.graph.basic import Apply
from jitgraph.graph.fg import FunctionGraph
from jitgraph.graph.op import Op
from jitgraph.printing import (FunctionPrinter, IgnorePrinter, OperatorPrinter, PatternPrinter,
                               PPrinter, PrinterState, default_printer, leaf_printer, pp,
                               pprint)
from jitgraph.tensor.elementwise.elemwise import Elemwise
from jitgraph.tensor.elementwise.math import elemwise_op


class Twice(Op):
    __props__ = ()

    def make_node(self, x):
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] * 2


def test_pp_is_pprint_and_returns_text():
    x = T.dscalar("x")
    assert pp is pprint
    assert pp(x ** 2) == "(x ** TensorConstant{2})"
    assert pp(T.dvector()) == "<TensorType(float64, vector)>"


def test_a_users_op_gets_a_notation_and_keeps_it():
    v = T.dvector("v")
    printer = pprint.clone()
    printer.assign(Twice, FunctionPrinter("twice"))
    assert printer(Twice()(v) + 1) == "(twice(v) + TensorConstant{1})"
    assert pp(Twice()(v)) == "Twice(v)"  # the shared printer is untouched
    printer.assign(Twice(), PatternPrinter(("2*%(0)s", -1000)))  # an instance wins
    assert printer(Twice()(v)) == "2*v"


def test_assignments_to_the_shared_printer_survive_the_tensor_rules():
    # The tensor notations load on first use; an earlier assignment must not be overwritten.
    v = T.dvector("v")
    saved = dict(pprint.printers_dict), list(pprint.printers)
    try:
        pprint.assign(Elemwise, FunctionPrinter("ew"))
        assert pp(v + v) == "ew(v, v)"
    finally:
        pprint.printers_dict, pprint.printers = saved
    assert pp(v + v) == "(v + v)"


def test_conditions_are_tried_latest_first():
    v = T.dvector("v")
    printer = PPrinter()
    printer.assign(lambda pstate, r: True, default_printer)
    printer.assign(lambda pstate, r: r.name == "v", PatternPrinter("never used"))
    printer.assign(lambda pstate, r: r.owner is None, leaf_printer)
    assert printer(T.exp(v)) == "Elemwise{exp,no_inplace}(v)"
    assert PPrinter()(v) is None  # no printer applies


def test_operator_printer_associativity_and_errors():
    v = T.dvector("v")
    state = PrinterState(pprinter=pp)
    OperatorPrinter("^", 1, "right").process(v ** v, state)
    assert state.precedence is None  # restored after each input
    with pytest.raises(ValueError, match="assoc must be one of"):
        OperatorPrinter("+", 0, "sideways")
    with pytest.raises(TypeError, match="not the result of an operation"):
        FunctionPrinter("f").process(v, PrinterState(pprinter=pp))
    with pytest.raises(TypeError, match="not the result of an operation"):
        IgnorePrinter().process(v, PrinterState(pprinter=pp))
    with pytest.raises(TypeError, match="condition must be an Op"):
        PPrinter().assign("add", default_printer)


def test_printer_state_and_memo():
    v = T.dvector("v")
    state = PrinterState({"a": 1}, b=2)
    assert (state.a, state.b, state.memo) == (1, 2, {})
    assert PrinterState(state).a == 1
    shared = T.exp(v)
    state = PrinterState(pprinter=pp)
    assert pp(shared + shared, state) == "(exp(v) + exp(v))"
    assert state.memo[shared] == "exp(v)"
    with pytest.raises(TypeError, match="not enough arguments"):
        pp()


def test_inplace_and_fused_ops():
    v = T.dvector("v")
    add_inplace = Elemwise(elemwise_op("add").scalar_op, {0: 0})
    exp_inplace = Elemwise(elemwise_op("exp").scalar_op, {0: 0})
    neg_inplace = Elemwise(elemwise_op("neg").scalar_op, {0: 0})
    assert pp(add_inplace(v, v)) == "(v += v)"  # Theano: (x += x), exp=(x), (-=x)
    assert pp(exp_inplace(v)) == "exp=(v)"
    assert pp(neg_inplace(v)) == "(-=v)"
    f = jitgraph.function([v], T.exp(v) * 2 + v)
    (out,) = f.maker.fgraph.outputs
    assert pp(out).startswith("Elemwise{Composite{")  # a fused op prints as itself


def test_pp_of_a_function_or_graph_prints_each_output():
    x = T.dscalar("x")
    f = jitgraph.function([x], [x * 2, x + 1], mode="FAST_COMPILE")
    assert pp(f) == "(x * TensorConstant{2})\n(x + TensorConstant{1})"
    assert pp(FunctionGraph([x], [T.exp(x)])) == "exp(x)"


def test_process_graph_lists_named_steps_updates_and_outputs():
    v = T.dvector("v")
    w = jitgraph.shared(np.zeros(3), name="w")
    y = v * 2
    y.name = "y"
    assert pprint.process_graph([v], [y + 1, y]) == (
        "out[0] = (y + TensorConstant{1})\ny = (v * TensorConstant{2})")
    assert pprint.process_graph([v], y + 1) == (
        "y = (v * TensorConstant{2})\nreturn (y + TensorConstant{1})")
    assert pprint([v], [y + 1], {w: w + y}) == (
        "y = (v * TensorConstant{2})\nw <- (w + y)\nreturn (y + TensorConstant{1})")
    assert pprint.process_graph([v], [y], display_inputs=True).split("\n")[0] == "inputs: v"
