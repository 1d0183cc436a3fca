"""Rewrites of ``ifelse`` nodes, under Theano 1.0's names (``theano.ifelse.cond_*``).

* ``cond_make_inplace`` (in-place phase, position 95, tags ``fast_run``, ``inplace``; in the
  default pipeline as in Theano): an :class:`IfElse` left eager by the lazy-branch rewrite returns
  the chosen value itself (``as_view``) instead of a copy.
* The merging rewrites, in the database ``ifelse_equilibrium`` (optdb position 0.5). As in
  Theano 1.0, where they were written but left out of the default pipeline, they run only when
  asked for: ``optimizer_including=ifelse_merge`` (or ``mode.including('ifelse_merge')``).

  - ``cond_merge_ifs_true`` / ``cond_merge_ifs_false``: a branch value that is itself an ifelse
    on the same condition is replaced by that ifelse's value for the same outcome
    (``ifelse(c, ifelse(c, a, b), d)`` -> ``ifelse(c, a, d)``).
  - ``cond_remove_identical``: outputs choosing between the same pair of values are computed
    once.
  - ``cond_merge_random_op`` (node rewrite) and :class:`CondMerge` (whole-graph pass): two
    ifelse nodes on the same condition, neither depending on the other, become one node with the
    outputs of both (named ``"a&b"``, ``?`` standing for a missing name, as Theano names them).
  - ``ifelse_lift_single_if_through_acceptable_ops``: ``op(ifelse(c, a, b))`` ->
    ``ifelse(c, op(a), op(b))`` for cheap structural ops (elementwise, dimshuffle, reshape,
    indexing, dot, ...) whose ifelse inputs all come from one ifelse node.
"""

from __future__ import annotations

from typing import Any

from jitgraph.graph.basic import Apply, Variable, is_in_ancestors
from jitgraph.graph.fg import FunctionGraph
from jitgraph.ifelse.op import IfElse
from jitgraph.rewrite.context import copy_stack_trace
from jitgraph.rewrite.db import EquilibriumDB
from jitgraph.rewrite.engine import GraphRewriter, node_rewriter
from jitgraph.rewrite.phases import optdb, register_inplace
from jitgraph.tensor.core.basic import Alloc
from jitgraph.tensor.linalg.blas import Dot
from jitgraph.tensor.elementwise.elemwise import DimShuffle, Elemwise
from jitgraph.tensor.shaping.rebroadcast import Rebroadcast
from jitgraph.tensor.shaping.shape import Reshape, Shape, SpecifyShape
from jitgraph.tensor.indexing.subtensor_ops import IncSubtensor, Subtensor

#: the tag selecting the merging rewrites (not part of any default level, as in Theano)
MERGE_TAG = "ifelse_merge"

#: op classes an ifelse is lifted through: cheap, and fine to compute in either branch
ACCEPTABLE_OPS = (Dot, Reshape, Shape, SpecifyShape, Subtensor, IncSubtensor, Rebroadcast,
                  Alloc, Elemwise, DimShuffle)


def _rebuilt(node: Apply, inputs: list[Variable], **changes: Any) -> list[Variable]:
    """``node``'s IfElse applied to ``inputs`` (with ``changes`` to its parameters)."""
    op = node.op
    params = dict(n_outs=op.n_outs, as_view=op.as_view, name=op.name)
    params.update(changes)
    new_outs = IfElse(**params).make_node(*inputs).outputs
    for old, new in zip(node.outputs, new_outs):
        copy_stack_trace(old, new)
    return list(new_outs)


@node_rewriter([IfElse])
def cond_make_inplace(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """An IfElse giving the chosen value itself (a view) rather than a copy of it."""
    if node.op.as_view:
        return None
    return _rebuilt(node, list(node.inputs), as_view=True)


def _merge_same_condition(node: Apply, branch: str) -> list[Variable] | None:
    """Replace the ``branch`` values of ``node`` that are outputs of an ifelse on the same
    condition by that ifelse's value for this branch."""
    cond, n = node.inputs[0], node.op.n_outs
    start = 1 if branch == "then" else 1 + n
    inputs, changed = list(node.inputs), False
    for pos in range(start, start + n):
        value = inputs[pos]
        inner = value.owner
        if inner is None or not isinstance(inner.op, IfElse) or inner.inputs[0] is not cond:
            continue
        k = inner.outputs.index(value)
        inner_start = 1 if branch == "then" else 1 + inner.op.n_outs
        inputs[pos] = inner.inputs[inner_start + k]
        changed = True
    return _rebuilt(node, inputs) if changed else None


@node_rewriter([IfElse])
def cond_merge_ifs_true(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``ifelse(c, ifelse(c, a, b), d)`` -> ``ifelse(c, a, d)``."""
    return _merge_same_condition(node, "then")


@node_rewriter([IfElse])
def cond_merge_ifs_false(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``ifelse(c, a, ifelse(c, b, d))`` -> ``ifelse(c, a, d)``."""
    return _merge_same_condition(node, "else")


@node_rewriter([IfElse])
def cond_remove_identical(fgraph: FunctionGraph, node: Apply) -> dict | None:
    """Outputs of one IfElse choosing between the same two values become one output."""
    n = node.op.n_outs
    pairs = [(node.inputs[1 + k], node.inputs[1 + n + k]) for k in range(n)]
    first: dict[tuple[Variable, Variable], int] = {}
    slot = [first.setdefault(pair, len(first)) for pair in pairs]
    if len(first) == n:
        return None
    unique = list(first)
    new_outs = _rebuilt(node, [node.inputs[0], *(t for t, _ in unique), *(e for _, e in unique)],
                        n_outs=len(unique))
    return {old: new_outs[slot[k]] for k, old in enumerate(node.outputs)}


def _merged_name(first: str | None, second: str | None) -> str:
    return f"{first or '?'}&{second or '?'}"


def merge_pair(a: Apply, b: Apply) -> dict[Variable, Variable]:
    """Replacements making the IfElse nodes ``a`` and ``b`` (same condition) one node."""
    na, nb = a.op.n_outs, b.op.n_outs
    then_vals = [*a.inputs[1:1 + na], *b.inputs[1:1 + nb]]
    else_vals = [*a.inputs[1 + na:], *b.inputs[1 + nb:]]
    op = IfElse(na + nb, as_view=a.op.as_view and b.op.as_view,
                name=_merged_name(a.op.name, b.op.name))
    outs = op.make_node(a.inputs[0], *then_vals, *else_vals).outputs
    olds = [*a.outputs, *b.outputs]
    for old, new in zip(olds, outs):
        copy_stack_trace(old, new)
    return dict(zip(olds, outs))


def mergeable_partner(fgraph: FunctionGraph, node: Apply) -> Apply | None:
    """Another IfElse on ``node``'s condition that neither depends on ``node`` nor feeds it."""
    cond = node.inputs[0]
    for client, _ in fgraph.clients.get(cond, []):
        if (isinstance(client, Apply) and client is not node and isinstance(client.op, IfElse)
                and client.inputs[0] is cond and client in fgraph.apply_nodes
                and not is_in_ancestors(node, client) and not is_in_ancestors(client, node)):
            return client
    return None


@node_rewriter([IfElse])
def cond_merge_random_op(fgraph: FunctionGraph, node: Apply) -> dict | None:
    """Merge ``node`` with an independent IfElse on the same condition (one test, one node)."""
    partner = mergeable_partner(fgraph, node)
    return None if partner is None else merge_pair(node, partner)


class CondMerge(GraphRewriter):
    """Whole-graph pass merging every group of independent IfElse nodes that share a
    condition into one node (see :func:`cond_merge_random_op` for one pair)."""

    def __init__(self, name: str | None = "cond_merge") -> None:
        super().__init__(name)

    def apply(self, fgraph: FunctionGraph, ctx: Any) -> None:
        changed = True
        while changed:
            changed = False
            for node in fgraph.toposort():
                if not isinstance(node.op, IfElse) or node not in fgraph.apply_nodes:
                    continue
                partner = mergeable_partner(fgraph, node)
                if partner is not None:
                    pairs = list(merge_pair(node, partner).items())
                    if ctx.apply_replacements(fgraph, pairs, self, node):
                        changed = True
                        break


def _lift_source(node: Apply) -> Apply | None:
    """The single IfElse node feeding ``node``, or None (none, or several)."""
    sources = {inp.owner for inp in node.inputs
               if inp.owner is not None and isinstance(inp.owner.op, IfElse)}
    return sources.pop() if len(sources) == 1 else None


@node_rewriter(list(ACCEPTABLE_OPS))
def ifelse_lift_single_if_through_acceptable_ops(fgraph: FunctionGraph, node: Apply
                                                 ) -> list[Variable] | None:
    """``op(ifelse(c, a, b), x)`` -> ``ifelse(c, op(a, x), op(b, x))``."""
    source = _lift_source(node)
    if source is None:
        return None
    n = source.op.n_outs

    def branch_inputs(offset: int) -> list[Variable]:
        return [source.inputs[offset + source.outputs.index(inp)] if inp.owner is source else inp
                for inp in node.inputs]

    then_node = node.op.make_node(*branch_inputs(1))
    else_node = node.op.make_node(*branch_inputs(1 + n))
    if any(t.type != e.type for t, e in zip(then_node.outputs, else_node.outputs)):
        return None
    op = IfElse(len(node.outputs), name=source.op.name)
    outs = op.make_node(source.inputs[0], *then_node.outputs, *else_node.outputs).outputs
    if any(new.type != old.type for new, old in zip(outs, node.outputs)):
        return None
    for old, new in zip(node.outputs, outs):
        copy_stack_trace(old, new)
    return list(outs)


def _register() -> None:
    register_inplace(cond_make_inplace, name="cond_make_inplace", position=95)
    merges = EquilibriumDB("ifelse_equilibrium")
    for rewriter in (ifelse_lift_single_if_through_acceptable_ops, cond_merge_ifs_true,
                     cond_merge_ifs_false, cond_remove_identical, cond_merge_random_op):
        merges.register(rewriter.name, rewriter, MERGE_TAG)
    optdb.register("ifelse_equilibrium", merges, MERGE_TAG, position=0.5)


_register()

__all__ = ["ACCEPTABLE_OPS", "CondMerge", "MERGE_TAG", "cond_make_inplace",
           "cond_merge_ifs_false", "cond_merge_ifs_true", "cond_merge_random_op",
           "cond_remove_identical", "ifelse_lift_single_if_through_acceptable_ops", "merge_pair"]
