"""pydotprint: the drawn graph (nodes, edges, colours as Theano's legend), files, and the errors
without pydot or without Graphviz."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import jitgraph
import jitgraph.tensor as T
from jitgraph.graph.basic import Apply
from jitgraph.graph.op import Op
from jitgraph.graph.pydotprint import _default_outfile, build_dot
from jitgraph.printing import pydotprint
from jitgraph.tensor.elementwise.elemwise import Elemwise
from jitgraph.tensor.elementwise.math import elemwise_op

pydot = pytest.importorskip("pydot")


def _attrs(item) -> dict:
    return {k: str(v).strip('"') for k, v in item.get_attributes().items()}


def _nodes(dot) -> dict[str, dict]:
    """label -> attributes of every drawn node."""
    return {_attrs(n)["label"]: _attrs(n) for n in dot.get_nodes()}


def _edges(dot) -> list[tuple[str, str, dict]]:
    """(source label, destination label, attributes) of every edge."""
    labels = {n.get_name(): _attrs(n)["label"] for n in dot.get_nodes()}
    return [(labels[e.get_source()], labels[e.get_destination()], _attrs(e))
            for e in dot.get_edges()]


class Pair(Op):
    __props__ = ()

    def make_node(self, x):
        return Apply(self, [x], [x.type(), x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = output_storage[1][0] = inputs[0]


def test_colours_follow_theanos_legend():
    x = T.dvector("x")
    w = jitgraph.shared(np.ones(2), name="w")
    add_inplace = Elemwise(elemwise_op("add").scalar_op, {0: 0})
    first, unused = Pair()(T.exp(x))
    out = add_inplace(first, w.dimshuffle(0)) + x[1:]
    dot = build_dot([out])
    nodes, edges = _nodes(dot), _edges(dot)
    assert nodes["name=x TensorType(float64, vector)"]["fillcolor"] == "green"  # input
    assert nodes["name=w TensorType(float64, vector)"]["fillcolor"] == "cyan"  # shared
    outputs = [e for e in edges if e[0] == "Elemwise{add,no_inplace}"]
    assert outputs == [("Elemwise{add,no_inplace}", "TensorType(float64, vector)", {})]
    assert "blue" in [_attrs(n).get("fillcolor") for n in dot.get_nodes()]
    assert nodes["Elemwise{exp,no_inplace}"]["fillcolor"] == "#FFAABB"  # elementwise
    assert nodes["Subtensor{int64__}"]["fillcolor"] == "#FFAAFF"  # (':' is a port in dot)
    assert "fillcolor" not in nodes["Pair"]  # (no colour for its class)
    assert all(a["shape"] == "ellipse" for k, a in nodes.items() if k.startswith("Elemwise"))
    grey = [_attrs(n) for n in dot.get_nodes() if _attrs(n).get("fillcolor") == "grey"]
    assert len(grey) == 1 and grey[0]["shape"] == "box"  # Pair's unused output
    into_inplace = [e[2] for e in edges if e[1] == "Elemwise{Add}[(0, 0)]"]
    assert [e.get("color") for e in into_inplace] == ["red", None]  # input 0 is overwritten
    viewed = [e for e in edges if e[1] == "Subtensor{int64__}" and e[2].get("label") == "0"]
    assert viewed[0][2]["color"] == "blue"  # the output is a view of this input


def test_compact_graphs_label_edges_with_types():
    x = T.dvector("x")
    out = T.exp(T.sin(x))
    compact = _edges(build_dot(out))
    assert ("Elemwise{sin,no_inplace}", "Elemwise{exp,no_inplace}",
            {"label": "TensorType(float64, vector)"}) in compact
    full = _edges(build_dot(out, compact=False))
    assert ("Elemwise{sin,no_inplace}", "TensorType(float64, vector)", {}) in full
    assert ("TensorType(float64, vector)", "Elemwise{exp,no_inplace}", {}) in full


def test_function_updates_and_labels():
    x = T.dvector("x")
    w = jitgraph.shared(np.ones(2), name="w")
    f = jitgraph.function([x], (x * w).sum(), updates=[(w, w - 0.1 * x)])
    edges = _edges(build_dot(f, var_with_name_simple=True))
    update = [e for e in edges if e[2].get("label") == "UPDATE"]
    assert len(update) == 1 and update[0][1] == "w" and update[0][2]["color"] == "blue"
    labels = set(_nodes(build_dot(f, with_ids=True)))
    assert any(label.startswith("Sum{acc_dtype=float64") and label.endswith(" id=0")
               for label in labels)
    short = set(_nodes(build_dot(f, max_label_size=12)))
    assert all(len(label) <= 12 for label in short)
    assert any(label.endswith("...") for label in short)


def test_writes_dot_source_without_graphviz(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no Graphviz 'dot' program
    x = T.dvector("x")
    target = tmp_path / "graph"
    assert pydotprint(T.exp(x), outfile=str(target), format="dot") is None
    text = (tmp_path / "graph.dot").read_text()
    assert text.startswith("digraph G {") and "Elemwise{exp,no_inplace}" in text
    assert capsys.readouterr().out == f"The output file is available at {target}.dot\n"
    pydotprint(T.exp(x), outfile=str(tmp_path / "quiet.dot"), format="dot",
               print_output_file=False)
    assert capsys.readouterr().out == ""
    assert pydotprint(T.exp(x), return_image=True, format="raw").startswith(b"digraph G {")
    with pytest.raises(RuntimeError, match="Graphviz's 'dot' program.*format='dot'"):
        pydotprint(T.exp(x), outfile=str(tmp_path / "graph.png"))


def test_without_pydot_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pydot", None)
    with pytest.raises(ImportError, match=r"pip install jitgraph\[pydot\]"):
        pydotprint(T.dvector("x") * 2, format="dot")


def test_default_outfile_and_warnings(tmp_path):
    assert _default_outfile("png") == os.path.join(
        str(jitgraph.config.compiledir), f"theano.pydotprint.{jitgraph.config.device}.png")
    with pytest.warns(UserWarning, match="no IfElse"):
        build_dot(T.dvector("x") * 2, cond_highlight="my_if")
    with pytest.raises(TypeError, match="pydotprint draws"):
        build_dot(42)


class _ToyLoop(Op):
    __props__ = ()
    name = "toy"

    def __init__(self):
        self.a = T.dvector("a_inner")
        self.out = T.exp(self.a)

    def make_node(self, a):
        return Apply(self, [a], [a.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = np.exp(inputs[0])

    def debugprint_inner(self, node):
        return [self.out], {self.a: node.inputs[0]}


def test_scan_graphs_draws_each_loop_body(tmp_path):
    x = T.dvector("x")
    pydotprint(_ToyLoop()(x) * 2, outfile=str(tmp_path / "outer.dot"), format="dot",
               scan_graphs=True, print_output_file=False)
    inner = (tmp_path / "outer_toy_0.dot").read_text()
    assert "Elemwise{exp,no_inplace}" in inner and "a_inner" in inner
