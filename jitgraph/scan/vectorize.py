"""``scan_map_to_elemwise``: a loop that only maps elementwise work over its sequences is that
work applied to the whole sequences, with no loop.

A loop with no state (nothing fed back, no shared state, no ``until``) whose every output is
an elementwise expression of one step's sequence slices and of the non-sequences, such as
``scan(lambda x_t: x_t + 2, x)``, computes the same numbers as the expression applied to the
stacked sequences (the first ``n_steps`` entries of each) and to the non-sequences given a
leading axis of length 1. An output that reads no sequence is its value repeated ``n_steps``
times. One vectorized kernel then replaces ``n_steps`` calls of the step's program, and fuses
with the elementwise work around it.
"""

from __future__ import annotations

from typing import Any

from jitgraph.graph.basic import Apply, Constant, Variable, graph_inputs, io_toposort
from jitgraph.graph.fg import FunctionGraph
from jitgraph.tensor.core.basic import alloc
from jitgraph.tensor.elementwise.elemwise import Elemwise
from jitgraph.tensor.shaping.shape import patternbroadcast, shape_padleft


def map_to_elemwise(fgraph: FunctionGraph, node: Apply) -> dict | None:
    """Replacements for the outputs of ``node`` (a Scan) when it is an elementwise map."""
    op, info = node.op, node.op.info
    if info.n_rec or info.n_shared or info.as_while or any(info.keep) or not info.n_nit_sot:
        return None
    inner_in, inner_out = list(op.inner.inputs), list(op.inner.outputs)
    if not _elementwise_only(inner_in, inner_out):
        return None
    n_steps = node.inputs[0]
    outer: dict[Variable, Variable] = {}
    for ph, seq in zip(inner_in[info.inner_seqs()], node.inputs[info.outer_seqs()]):
        outer[ph] = seq[:n_steps]
    for ph, value in zip(inner_in[info.inner_non_seqs()], node.inputs[info.outer_non_seqs()]):
        outer[ph] = shape_padleft(value)
    replacements = {}
    for out_inner, out_outer in zip(inner_out[info.nit_outputs()], node.outputs):
        value = _rebuild(out_inner, outer)
        if value.ndim == out_inner.ndim:  # a constant: no leading axis
            value = alloc(value, n_steps, *[value.shape[d] for d in range(value.ndim)])
        elif value.broadcastable[0]:  # read no sequence: one value, repeated
            value = alloc(value[0], n_steps, *[value.shape[d] for d in range(1, value.ndim)])
        value = patternbroadcast(value, out_outer.type.broadcastable)
        if value.type != out_outer.type:
            return None
        replacements[out_outer] = value
    return replacements


def _elementwise_only(inputs: list[Variable], outputs: list[Variable]) -> bool:
    """Every node between the step's inputs and its outputs is an Elemwise (nodes computing
    from constants only stay as they are)."""
    for node in io_toposort(inputs, outputs):
        if isinstance(node.op, Elemwise):
            continue
        if all(isinstance(v, Constant) for v in graph_inputs(node.inputs)):
            continue
        return False
    return True


def _rebuild(var: Variable, outer: dict[Variable, Variable]) -> Variable:
    """``var`` of the step graph written against the outer values of its inputs."""
    memo: dict[Variable, Any] = dict(outer)
    for node in io_toposort(list(outer), [var]):
        if all(i not in memo for i in node.inputs):
            continue  # computed from constants only
        new = node.op(*[memo.get(i, i) for i in node.inputs], return_list=True)
        memo.update(zip(node.outputs, new))
    return memo.get(var, var)
