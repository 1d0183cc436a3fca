"""Rewrites of Scan nodes (tag ``scan``, in ``fast_run``).

* ``scan_map_to_elemwise`` (position 1.6): a loop that only maps elementwise work over its
  sequences is replaced by that work on the whole sequences (:mod:`jitgraph.scan.vectorize`).
* ``scan_remove_unused`` (position 1.605): outputs nobody reads are no longer computed, unless
  another computed output reads them through its taps; inner inputs nobody reads any more (a
  sequence, a non-sequence) are dropped with their outer inputs. A Scan none of whose outputs
  is used disappears with the graph's ordinary pruning.
* ``scan_save_mem`` (position 1.61): a recurrent output read only as ``out[-j]`` (constant
  ``j``) keeps only its last ``max j`` entries: the loop then uses a ring buffer instead of
  storing every step. ``result[-1]`` of a long loop, and the gradient accumulators of
  back-propagation through time, need one entry.
* ``scan_merge`` (position 1.62): two loops over the same number of steps, neither reading the
  other, become one loop computing both (one pass over the steps, one inner program).
* ``scan_pushin_elemwise`` (position 1.63): a sequence computed elementwise over a whole
  stacked array before the loop is computed row by row inside it (:mod:`jitgraph.scan.pushin`).

Computations that do not depend on the loop are already left outside it when the loop is built
(:mod:`jitgraph.scan.construct`).
"""

from __future__ import annotations

from typing import Any

from jitgraph.graph.basic import Apply, Constant, Variable, graph_inputs
from jitgraph.graph.fg import OUTPUT, FunctionGraph
from jitgraph.rewrite.engine import GraphRewriter
from jitgraph.scan.info import ScanInfo
from jitgraph.scan.inner import InnerGraph
from jitgraph.scan.merge import merge_scans
from jitgraph.scan.op import Scan
from jitgraph.scan.pushin import MAX_PUSHES, pushin_elemwise
from jitgraph.scan.vectorize import map_to_elemwise
from jitgraph.tensor.indexing.subtensor_ops import Subtensor


# ---------------------------------------------------------------------------------------------
# Rebuilding a Scan from a selection of its parts

def rebuild(node: Apply, keep_rec: list[int], keep_nit: list[int], keep_shared: list[int],
            keep: tuple[int, ...] | None = None) -> tuple[Apply, dict[Variable, Variable]]:
    """A Scan node computing only the listed outputs (and reading only the inputs they need);
    returns it with the mapping from the kept old outputs to the new ones."""
    op: Scan = node.op
    info = op.info
    fin, fout = op.inner.clone()
    outs = ([fout[k] for k in keep_rec] + [fout[info.n_rec + i] for i in keep_nit]
            + [fout[info.shared_outputs().start + s] for s in keep_shared])
    if info.as_while:
        outs.append(fout[-1])
    used = set(graph_inputs(outs))
    seqs = [j for j in range(info.n_seqs) if fin[j] in used]
    non_seqs = [j for j in range(info.n_non_seqs) if fin[info.inner_non_seqs().start + j] in used]
    inner_in = [fin[j] for j in seqs]
    for k in keep_rec:
        inner_in += fin[info.inner_taps(k)]
    inner_in += [fin[info.inner_shared().start + s] for s in keep_shared]
    inner_in += [fin[info.inner_non_seqs().start + j] for j in non_seqs]
    old_keep = info.keep
    new_info = ScanInfo(n_seqs=len(seqs), rec_taps=tuple(info.rec_taps[k] for k in keep_rec),
                        n_nit_sot=len(keep_nit), n_shared=len(keep_shared),
                        n_non_seqs=len(non_seqs), as_while=info.as_while,
                        keep=keep if keep is not None else tuple(old_keep[k] for k in keep_rec))
    new_op = Scan(new_info, InnerGraph(inner_in, outs), mode=op.mode, name=op.name,
                  truncate_gradient=op.truncate_gradient, profile=op.profile)
    ins = node.inputs
    outer = ([ins[0]] + [ins[info.outer_seqs().start + j] for j in seqs]
             + [ins[info.outer_inits().start + k] for k in keep_rec]
             + [ins[info.outer_shared().start + s] for s in keep_shared]
             + [ins[info.outer_non_seqs().start + j] for j in non_seqs])
    new_node = new_op.make_node(*outer)
    old_outs = ([node.outputs[k] for k in keep_rec]
                + [node.outputs[info.n_rec + i] for i in keep_nit]
                + [node.outputs[info.shared_outputs().start + s] for s in keep_shared])
    return new_node, dict(zip(old_outs, new_node.outputs))


def _used(fgraph: FunctionGraph, var: Variable) -> bool:
    return bool(fgraph.clients.get(var))


# ---------------------------------------------------------------------------------------------
# scan_remove_unused

def needed_outputs(node: Apply, fgraph: FunctionGraph) -> tuple[list[int], list[int], list[int]]:
    """The recurrent, nit-sot and shared outputs that must be computed: those used outside,
    and the states the needed outputs (or the condition) read through their taps."""
    op: Scan = node.op
    info = op.info
    inner_in, inner_out = op.inner.inputs, op.inner.outputs
    state_of_input: dict[Variable, tuple[str, int]] = {}
    for k in range(info.n_rec):
        for v in inner_in[info.inner_taps(k)]:
            state_of_input[v] = ("rec", k)
    for s in range(info.n_shared):
        state_of_input[inner_in[info.inner_shared().start + s]] = ("shared", s)
    need = {("rec", k) for k in range(info.n_rec) if _used(fgraph, node.outputs[k])}
    need |= {("nit", i) for i in range(info.n_nit_sot)
             if _used(fgraph, node.outputs[info.n_rec + i])}
    need |= {("shared", s) for s in range(info.n_shared)
             if _used(fgraph, node.outputs[info.shared_outputs().start + s])}

    def out_of(item: tuple[str, int]) -> Variable:
        kind, i = item
        if kind == "rec":
            return inner_out[i]
        if kind == "nit":
            return inner_out[info.n_rec + i]
        return inner_out[info.shared_outputs().start + i]

    pending = [out_of(item) for item in need] + ([inner_out[-1]] if info.as_while else [])
    while pending:
        fresh = []
        for var in graph_inputs(pending):
            item = state_of_input.get(var)
            if item is not None and item not in need:
                need.add(item)
                fresh.append(out_of(item))
        pending = fresh
    return ([k for k in range(info.n_rec) if ("rec", k) in need],
            [i for i in range(info.n_nit_sot) if ("nit", i) in need],
            [s for s in range(info.n_shared) if ("shared", s) in need])


def remove_unused(fgraph: FunctionGraph, node: Apply) -> dict | None:
    info = node.op.info
    rec, nit, shared = needed_outputs(node, fgraph)
    if not rec and not nit and not shared:
        return None  # nothing is used: pruning removes the node with its last client
    used_inner = set(graph_inputs(node.op.inner.outputs))
    unread = any(v not in used_inner for v in node.op.inner.inputs[info.inner_seqs()]) or any(
        v not in used_inner for v in node.op.inner.inputs[info.inner_non_seqs()])
    if (len(rec), len(nit), len(shared)) == (info.n_rec, info.n_nit_sot, info.n_shared) \
            and not unread:
        return None
    _, mapping = rebuild(node, rec, nit, shared)
    return mapping


# ---------------------------------------------------------------------------------------------
# scan_save_mem

def _from_end(node: Any) -> int | None:
    """``j`` when ``node`` reads ``x[-j, ...]`` (a constant ``j > 0``), else None."""
    if node == OUTPUT or not isinstance(node.op, Subtensor) or not node.op.idx_list \
            or node.op.idx_list[0] != "int":
        return None
    index = node.inputs[1]
    if not isinstance(index, Constant) or int(index.data) >= 0:
        return None
    return -int(index.data)


def _plain_tail(node: Any) -> bool:
    """Whether ``node`` is ``x[c:]`` for a constant ``c >= 0`` (how scan drops the initial
    entries of a buffer): reading ``x[c:][-j]`` is reading ``x[-j]``."""
    if node == OUTPUT or not isinstance(node.op, Subtensor) or len(node.op.idx_list) != 1:
        return False
    entry = node.op.idx_list[0]
    if entry != ("slice", True, False, False):
        return False
    start = node.inputs[1]
    return isinstance(start, Constant) and int(start.data) >= 0


def end_readers(fgraph: FunctionGraph, var: Variable) -> list[tuple[Apply, int]] | None:
    """Every node reading ``var`` as ``var[-j]`` (directly or through ``var[c:]``), with its
    ``j``; None when ``var`` is read any other way. Empty when nothing reads it."""
    readers = []
    for client, i in fgraph.clients.get(var, []):
        if client != OUTPUT and i == 0 and _plain_tail(client):
            inner = end_readers(fgraph, client.outputs[0])
            if inner is None:
                return None
            readers += inner
            continue
        j = _from_end(client) if i == 0 else None
        if j is None:
            return None
        readers.append((client, j))
    return readers


def save_mem(fgraph: FunctionGraph, node: Apply) -> dict | None:
    """Keep only the last entries of the recurrent buffers read only from their end."""
    info = node.op.info
    keep = list(info.keep)
    shortened: dict[int, list[tuple[Apply, int]]] = {}
    for k in range(info.n_rec):
        if keep[k]:
            continue
        readers = end_readers(fgraph, node.outputs[k])
        if readers is not None:
            keep[k] = max([j for _, j in readers], default=1)
            shortened[k] = readers
    if not shortened:
        return None
    new_node, mapping = rebuild(node, list(range(info.n_rec)), list(range(info.n_nit_sot)),
                                list(range(info.n_shared)), keep=tuple(keep))
    for k, readers in shortened.items():
        del mapping[node.outputs[k]]
        for reader, _ in readers:
            inputs = [new_node.outputs[k]] + list(reader.inputs[1:])
            mapping[reader.outputs[0]] = reader.op.make_node(*inputs).outputs[0]
    return mapping


# ---------------------------------------------------------------------------------------------
# registration

def _scan_pass(name: str, transform: Any, position: float, rounds: int = 1,
               tags: tuple[str, ...] = ()) -> None:
    """Register ``transform(fgraph, node) -> replacements or None`` as a pass over the Scan
    nodes, repeated (up to ``rounds`` times) while it changes something."""
    from jitgraph.rewrite.phases import optdb

    class ScanPass(GraphRewriter):
        def apply(self, fgraph: FunctionGraph, ctx: Any) -> None:
            for _ in range(rounds):
                changed = False
                for node in fgraph.toposort():
                    if not isinstance(node.op, Scan) or node not in fgraph.apply_nodes:
                        continue
                    mapping = transform(fgraph, node)
                    if mapping:
                        ctx.apply_replacements(fgraph, list(mapping.items()), self, node)
                        changed = True
                if not changed:
                    break

    ScanPass.__doc__ = transform.__doc__
    optdb.register(name, ScanPass(name), "fast_run", "scan", *tags, position=position)


def register_all() -> None:
    # (also under Theano's name for its pushing of sequence work out of loops, which programs
    # exclude by name)
    _scan_pass("scan_map_to_elemwise", map_to_elemwise, 1.6, tags=("scanOp_pushout_seqs_ops",))
    _scan_pass("scan_remove_unused", remove_unused, 1.605)
    _scan_pass("scan_save_mem", save_mem, 1.61)
    _scan_pass("scan_merge", merge_scans, 1.62)
    _scan_pass("scan_pushin_elemwise", pushin_elemwise, 1.63, rounds=MAX_PUSHES)


register_all()
