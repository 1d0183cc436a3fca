"""debugprint: arguments, return values and layouts not covered by the recorded Theano texts
(test_printing_oracle.py). Expected layouts follow Theano 1.0.5's output for the same calls."""

from __future__ import annotations

import io
import re
import sys

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph.compile.io import In, Out
from jitgraph.compile.profiling import ProfileStats
from jitgraph.graph.basic import Apply
from jitgraph.graph.op import Op
from jitgraph.graph.printing import char_id
from jitgraph.printing import debugprint


def test_char_ids_count_in_base_26():
    assert [char_id(n) for n in (0, 1, 25, 26, 27, 51, 52, 26 * 26)] == \
        ["A", "B", "Z", "BA", "BB", "BZ", "CA", "BAA"]


def test_file_none_prints_and_returns_none(capsys):
    x = T.dvector("x")
    assert debugprint(x * 2) is None
    assert capsys.readouterr().out == (
        "Elemwise{mul,no_inplace} [id A] ''   \n |x [id B]\n |InplaceDimShuffle{x} [id C] ''   "
        "\n   |TensorConstant{2} [id D]\n")


def test_file_object_is_returned():
    handle = io.StringIO()
    assert debugprint(T.dvector("x"), file=handle) is handle
    assert handle.getvalue() == "x [id A]\n"


def test_numbers_arrays_and_in_out_specs():
    # Theano prints plain values as they are and In/Out specifications as their variable.
    x = T.dvector("x")
    assert debugprint(3, file="str") == "3\n"
    assert debugprint(np.arange(2), file="str") == "[0 1]\n"
    assert debugprint(In(x), file="str") == "x [id A]\n"
    assert debugprint(Out(x), file="str") == "x [id A]\n"


def test_ids_by_address():
    x = T.dvector("x")
    out = x * 2
    text = debugprint(out, ids="id", file="str")
    assert re.fullmatch(r"Elemwise\{mul,no_inplace\} \[id \d+\] ''   \n \|x \[id \d+\]\n"
                        r" \|InplaceDimShuffle\{x\} \[id \d+\] ''   \n"
                        r"   \|TensorConstant\{2\} \[id \d+\]\n", text)
    assert f"[id {id(x)}]" in text


def test_bad_arguments_are_named():
    x = T.dvector("x")
    with pytest.raises(TypeError, match="depth must be an int"):
        debugprint(x, depth=1.5)
    with pytest.raises(ValueError, match="ids must be one of"):
        debugprint(x, ids="letters")
    with pytest.raises(TypeError, match="cannot print an object of type dict"):
        debugprint({"a": x})


def test_deep_graph_does_not_hit_the_recursion_limit():
    x = T.dscalar("x")
    y = x
    for _ in range(sys.getrecursionlimit() + 100):
        y = T.exp(y)
    lines = debugprint(y, file="str").splitlines()
    assert len(lines) == sys.getrecursionlimit() + 101
    assert lines[-1].endswith("|x [id " + char_id(sys.getrecursionlimit() + 100) + "]")


def test_compiled_function_storage_after_a_call():
    x = T.dvector("x")
    f = jitgraph.function([x], T.exp(x) * 2,
                          mode=jitgraph.Mode(linker="py", optimizer=None))
    with jitgraph.config.change_flags(allow_gc=False):
        g = jitgraph.function([x], T.exp(x) * 2, mode=jitgraph.Mode(linker="py", optimizer=None))
    g([0.0, 1.0])
    text = debugprint(g, print_storage=True, file="str")
    assert text.splitlines()[0].startswith("Elemwise{mul,no_inplace} [id A] ''   ")
    assert "[array([2.        , 5.43656366])]" in text.splitlines()[0]
    assert " | |x [id C] [array([0., 1.])]" in text.splitlines()  # (id B: the exp node)
    assert "[None]" not in debugprint(f, file="str")  # without print_storage: no values


def test_profiled_function_shows_times():
    x = T.dvector("x")
    f = jitgraph.function([x], T.exp(x), profile=ProfileStats(atexit_print=False))
    f(np.ones(3))
    text = debugprint(f, file="str")
    assert text.startswith("\nTiming Info\n-----------\n")
    line = [t for t in text.splitlines() if t.startswith("Elemwise{exp")][0]
    assert re.fullmatch(r"Elemwise\{exp,no_inplace\} \[id A\] ''   0 --> "
                        r"\d\.\d\de[-+]\d\ds [ \d]\d\.\d% \d\.\d\de[-+]\d\ds [ \d]\d\.\d%", line)


class _ToyLoop(Op):
    """A loop op for the test: its inner graph multiplies its two inner inputs."""

    __props__ = ()

    def __init__(self):
        self.inner_a, self.inner_b = T.dvector(), T.dvector("b_copy")
        self.inner_out = self.inner_a * self.inner_b

    def __str__(self):
        return "for{cpu,toy}"

    def make_node(self, a, b):
        return Apply(self, [a, b], [a.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] * inputs[1]

    def debugprint_inner(self, node):
        return [self.inner_out], {self.inner_a: node.inputs[0], self.inner_b: node.inputs[1]}


def test_inner_graphs_of_loop_ops_follow_the_outer_graph():
    # The layout of Theano's "Inner graphs of the scan ops" section.
    a, b = T.dvector("a"), T.dvector("b")
    out = _ToyLoop()(T.exp(a), b)[1:]
    assert debugprint(out, file="str") == (
        "Subtensor{int64::} [id A] ''   \n"
        " |for{cpu,toy} [id B] ''   \n"
        " | |Elemwise{exp,no_inplace} [id C] ''   \n"
        " | | |a [id D]\n"
        " | |b [id E]\n"
        " |TensorConstant{1} [id F]\n"
        "\n"
        "Inner graphs of the scan ops:\n"
        "\n"
        "for{cpu,toy} [id B] ''   \n"
        " >Elemwise{mul,no_inplace} [id G] ''   \n"
        " > |<TensorType(float64, vector)> [id H] -> [id C]\n"
        " > |b_copy [id I] -> [id E]\n")



def test_scan_inner_graph_section():
    # Theano 1.0.5 prints, for this loop (doc/tutorial/loop.txt's power example):
    #   for{cpu,scan_fn} [id B] ''
    #    >Elemwise{mul,no_inplace} [id U] ''
    #    > |<TensorType(float64, vector)> [id V] -> [id D]     (the initial state)
    #    > |A_copy [id W] -> [id L]                             (A, the non-sequence)
    from jitgraph.scan import scan

    k, A = T.iscalar("k"), T.dvector("A")
    result, _ = scan(fn=lambda prior, A: prior * A, outputs_info=T.ones_like(A),
                     non_sequences=A, n_steps=k)
    loop = result.owner.inputs[0].owner
    outer, inner = debugprint(result, file="str").split("\nInner graphs of the scan ops:\n\n")

    def printed_id(text: str) -> str:
        line = next(ln for ln in outer.split("\n") if ln.lstrip(" |").startswith(text))
        return re.search(r"\[id \w+\]", line).group(0)

    init_id = printed_id(f"{loop.inputs[1].owner.op} [id")
    lines = inner.split("\n")
    assert len(lines) == 5 and lines[4] == ""
    assert lines[0] == f"for{{cpu,scan_fn}} {printed_id('for{cpu,scan_fn} [id')} ''   "
    assert re.fullmatch(r" >Elemwise\{mul,no_inplace\} \[id \w+\] ''   ", lines[1])
    assert re.fullmatch(rf" > \|<TensorType\(float64, vector\)> \[id \w+\] -> "
                        rf"{re.escape(init_id)}", lines[2])
    assert re.fullmatch(rf" > \|A_copy \[id \w+\] -> {re.escape(printed_id('A [id'))}",
                        lines[3])
