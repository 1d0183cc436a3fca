"""``scan_pushin_elemwise``: an elementwise computation of a whole sequence moves into the loop.

Back-propagation through time reads the incoming gradient of every step as a sequence, often
computed over the whole stacked output before the loop (``2 * hs`` for a cost ``sum(hs ** 2)``):
a pass over, and an allocation of, an array as large as the output, for a value each step reads
once. When a sequence of a Scan is an Elemwise node (seen through slices of its leading axis:
``e[1:]``, ``e[::-1]``), used by nothing else, whose inputs are either stacked the same way (same
leading length) or broadcast along the leading axis, the loop takes those inputs instead (sliced
the same way, or without their leading axis) and computes the row of the Elemwise at each step,
where the fusion of the inner graph joins it to the step's own elementwise work.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from jitgraph.graph.basic import Apply, Constant, Variable, clone_replace
from jitgraph.graph.fg import FunctionGraph
from jitgraph.scan.info import ScanInfo
from jitgraph.scan.inner import InnerGraph
from jitgraph.scan.op import Scan
from jitgraph.tensor.core.basic import constant
from jitgraph.tensor.core.type import TensorType
from jitgraph.tensor.elementwise.elemwise import Elemwise
from jitgraph.tensor.indexing.subtensor_ops import Subtensor

#: rounds of the pass (nested elementwise sequences move in one level per round)
MAX_PUSHES = 8


def pushin_elemwise(fgraph: FunctionGraph, node: Apply) -> dict | None:
    """Move the elementwise computation of one of ``node``'s sequences into its loop; returns
    the replacements of its outputs, or None when nothing moved."""
    new = _push_one(fgraph, node)
    return None if new is None else dict(zip(node.outputs, new.outputs))


def _push_one(fgraph: FunctionGraph, node: Apply) -> Apply | None:
    info = node.op.info
    for j, seq in enumerate(node.inputs[info.outer_seqs()]):
        found = _elemwise_under_slices(fgraph, seq, node)
        if found is not None:
            rebuilt = _rebuild(node, j, *found)
            if rebuilt is not None:
                return rebuilt
    return None


def _single_client(fgraph: FunctionGraph, var: Variable, node: Apply) -> bool:
    clients = fgraph.clients.get(var, []) if fgraph is not None else []
    return len(clients) == 1 and clients[0][0] is node


def _elemwise_under_slices(fgraph: FunctionGraph, seq: Variable, reader: Apply
                           ) -> tuple[Apply, list[Apply]] | None:
    """``(elemwise node, slices from it to seq, innermost first)`` when ``seq`` is an
    Elemwise output read through leading-axis slices only, each used only on that path."""
    slices: list[Apply] = []
    var, client = seq, reader
    while var.owner is not None and isinstance(var.owner.op, Subtensor):
        op = var.owner.op
        if len(op.idx_list) != 1 or not isinstance(op.idx_list[0], tuple) \
                or not _single_client(fgraph, var, client):
            return None
        slices.append(var.owner)
        client = var.owner
        var = var.owner.inputs[0]
    if var.owner is None or not isinstance(var.owner.op, Elemwise) \
            or len(var.owner.outputs) != 1 or var.owner.op.destroy_map \
            or not _single_client(fgraph, var, client):
        return None
    return var.owner, slices[::-1]


def _rebuild(node: Apply, j: int, elem: Apply, slices: list[Apply]) -> Apply | None:
    """``node`` with sequence ``j`` (the output of ``elem`` seen through ``slices``) computed
    inside the loop, or None when an input of ``elem`` is neither stacked nor broadcast."""
    op: Scan = node.op
    info = op.info
    out_ndim = elem.outputs[0].ndim
    new_seqs: list[Variable] = []  # outer
    new_non_seqs: list[Variable] = []  # outer
    row_args: list[tuple[str, Any]] = []  # per elem input: ("seq", k), ("non_seq", k), ("const", v)
    for inp in elem.inputs:
        if inp.ndim != out_ndim:
            return None
        if not inp.type.broadcastable[0]:
            outer = inp
            for view in slices:
                outer = view.op.make_node(outer, *view.inputs[1:]).outputs[0]
            row_args.append(("seq", len(new_seqs)))
            new_seqs.append(outer)
        elif isinstance(inp, Constant):
            row_args.append(("const", np.asarray(inp.data)[0]))
        else:
            row_args.append(("non_seq", len(new_non_seqs)))
            new_non_seqs.append(inp.dimshuffle(list(range(1, out_ndim))))
    fin, fout = op.inner.clone()
    seq_in = [_row_var(v) for v in new_seqs]
    non_seq_in = [v.type() for v in new_non_seqs]
    args = []
    for kind, what in row_args:
        if kind == "seq":
            args.append(seq_in[what])
        elif kind == "non_seq":
            args.append(non_seq_in[what])
        else:
            args.append(constant(what))
    row = elem.op.make_node(*args).outputs[0]
    old_row = fin[info.inner_seqs()][j]
    if row.type != old_row.type:
        return None
    outs = clone_replace(fout, {old_row: row})
    seqs_in = [v for k, v in enumerate(fin[info.inner_seqs()]) if k != j] + seq_in
    inner_in = (seqs_in + fin[info.n_seqs:info.inner_non_seqs().start]
                + fin[info.inner_non_seqs()] + non_seq_in)
    new_info = ScanInfo(n_seqs=info.n_seqs - 1 + len(seq_in), rec_taps=info.rec_taps,
                        n_nit_sot=info.n_nit_sot, n_shared=info.n_shared,
                        n_non_seqs=info.n_non_seqs + len(non_seq_in),
                        as_while=info.as_while, keep=info.keep)
    new_op = Scan(new_info, InnerGraph(inner_in, list(outs)), mode=op.mode, name=op.name,
                  truncate_gradient=op.truncate_gradient, profile=op.profile)
    ins = list(node.inputs)
    seqs = [v for k, v in enumerate(ins[info.outer_seqs()]) if k != j] + new_seqs
    outer = ([ins[0]] + seqs + ins[info.outer_inits()] + ins[info.outer_shared()]
             + ins[info.outer_non_seqs()] + new_non_seqs)
    return new_op.make_node(*outer)


def _row_var(stacked: Variable) -> Variable:
    """A fresh inner variable for one row of the sequence ``stacked``."""
    return TensorType(stacked.type.dtype, stacked.type.broadcastable[1:])()


__all__ = ["pushin_elemwise"]
