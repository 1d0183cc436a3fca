"""In-place rewrites: elementwise ops, inc/set_subtensor and BLAS ops that overwrite an input.

They run after fusion, once ``add_destroy_handler`` (position 49.5) has made sure a
:class:`~jitgraph.rewrite.destroyhandler.DestroyHandler` guards the graph. All carry the tags
``fast_run`` and ``inplace`` (so ``optimizer_excluding=inplace`` and the level ``o3`` skip them):

============================  ========  =====================================================
name                          position  what
============================  ========  =====================================================
``inplace_incsubtensor``      60        IncSubtensor, AdvancedIncSubtensor1 and
                                        AdvancedIncSubtensor write into ``x``
``inplace_blas``              70        Gemv, Gemm and Ger write into ``y`` / ``Z`` / ``A``
``inplace_elemwise``          75        Elemwise (fused composites included) write each output
                                        into an input of the same type
============================  ========  =====================================================

Safety is the DestroyHandler's decision, not the rewrites': it rejects (and the engine rolls
back) any replacement that would overwrite a constant, a graph input the user did not pass with
``In(mutable=True)``, a shared variable that is not updated, a value still returned as an output,
or a value other nodes read unless they can all run first. The elementwise pass therefore tries
the candidate inputs of each output in order and keeps the first one the handler accepts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from jitgraph.graph.basic import Apply, Constant, Variable
from jitgraph.graph.fg import OUTPUT, FunctionGraph
from jitgraph.rewrite.context import RewriteContext, copy_stack_trace
from jitgraph.rewrite.destroyhandler import (
    DestroyHandler,
    ensure_destroy_handler,
    get_destroy_handler,
)
from jitgraph.rewrite.engine import GraphRewriter, node_rewriter
from jitgraph.rewrite.phases import register_inplace
from jitgraph.tensor.linalg.blas import Gemm, Gemv, Ger
from jitgraph.tensor.elementwise.elemwise import Elemwise
from jitgraph.tensor.indexing.subtensor_ops import (AdvancedIncSubtensor, AdvancedIncSubtensor1,
                                                    IncSubtensor)


def _destroyable(node: Apply, i: int, handler: DestroyHandler | None) -> bool:
    """A cheap necessary condition for ``node`` overwriting its input ``i`` (the full check is
    validating the graph)."""
    var = node.inputs[i]
    if isinstance(var, Constant):
        return False
    return handler is None or handler.can_destroy(var, node)


def elemwise_candidates(node: Apply, out_idx: int, taken: set[int]) -> list[int]:
    """The inputs output ``out_idx`` of the Elemwise ``node`` could overwrite, in order.

    An input qualifies when it has the output's exact type (same dtype, same broadcastable
    pattern, hence the same shape at run time), is not a constant, is not already overwritten
    by another output, and is not passed twice (overwriting one would change the other).
    """
    out = node.outputs[out_idx]
    found = []
    for i, inp in enumerate(node.inputs):
        if i in taken or isinstance(inp, Constant) or inp.type != out.type:
            continue
        if sum(1 for other in node.inputs if other is inp) > 1:
            continue
        found.append(i)
    return found


class InplaceElemwise(GraphRewriter):
    """Makes Elemwise nodes write their outputs into inputs when the DestroyHandler agrees."""

    def __init__(self, name: str = "inplace_elemwise") -> None:
        super().__init__(name)

    def add_requirements(self, fgraph: FunctionGraph) -> None:
        ensure_destroy_handler(fgraph)

    def apply(self, fgraph: FunctionGraph, ctx: RewriteContext) -> None:
        handler = get_destroy_handler(fgraph)
        for node in fgraph.toposort():
            if node in fgraph.apply_nodes and isinstance(node.op, Elemwise):
                self.make_inplace(fgraph, node, ctx, handler)

    def make_inplace(self, fgraph: FunctionGraph, node: Apply, ctx: RewriteContext,
                     handler: DestroyHandler | None) -> Apply:
        """Give each output of ``node`` the first acceptable input; returns the final node.

        Each try replaces every output of the node, so a node with many outputs costs the
        square of its outputs: 0-d results of a node with several outputs (a fused node
        computing hundreds of slice bounds, from Keras 1's LocallyConnected2D, spent minutes
        here) are left out of place, where overwriting saves nothing, unless they update a
        shared variable. Single-output nodes are made in place as Theano does (its printed
        graphs show ``Elemwise{Add}[(0, 0)]`` on scalars)."""
        updated = _updated_outputs(fgraph) if len(node.outputs) > 1 else set()
        for out_idx in range(len(node.outputs)):
            pattern = dict(node.op.inplace_pattern)
            if out_idx in pattern:
                continue
            out = node.outputs[out_idx]
            if len(node.outputs) > 1 and out.ndim == 0 and out not in updated:
                continue
            candidates = elemwise_candidates(node, out_idx, set(pattern.values()))
            for i in _updated_first(fgraph, node.outputs[out_idx], node, candidates, handler):
                if not _destroyable(node, i, handler):
                    continue
                new_op = Elemwise(node.op.scalar_op, {**pattern, out_idx: i})
                new_node = new_op.make_node(*node.inputs)
                pairs = list(zip(node.outputs, new_node.outputs))
                for old, new in pairs:
                    copy_stack_trace(old, new)
                if ctx.apply_replacements(fgraph, pairs, self, node):
                    node = new_node
                    break
        return node


def _updated_outputs(fgraph: FunctionGraph) -> set[Variable]:
    """The graph outputs that are new values of updated shared variables."""
    updates = getattr(fgraph, "update_mapping", None) or {}
    return {fgraph.outputs[o] for o in updates}


def _updated_first(fgraph: FunctionGraph, out: Variable, node: Apply, candidates: list[int],
                   handler: DestroyHandler | None) -> list[int]:
    """``candidates`` with, when ``out`` is the new value of an updated shared variable, that
    variable first, then inputs that are views or in-place results of it, as Theano orders
    them: the update then overwrites the variable's own buffer (libraries such as theano_lstm
    share that buffer between processes with ``set_value(borrow=True)``) instead of a
    temporary, leaving the variable to be replaced by a new array at every call."""
    updates = getattr(fgraph, "update_mapping", None)
    if not updates:
        return candidates
    # (the graph outputs that are ``out`` are its OUTPUT clients: not a scan of every update)
    updated = {fgraph.inputs[updates[o]] for client, o in fgraph.clients.get(out, ())
               if client == OUTPUT and o in updates}
    if not updated:
        return candidates

    def rank(i: int) -> int:
        var = node.inputs[i]
        if var in updated:
            return 0
        if handler is not None and updated.intersection(handler.roots(var)):
            return 1
        return 2

    return sorted(candidates, key=rank)


def _with_inplace(op: Any) -> Any:
    """The same op with ``inplace=True`` (every such op takes its props as keywords)."""
    params = {p: getattr(op, p) for p in op.__props__}
    params["inplace"] = True
    return type(op)(**params)


def _inplace_first_input(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    if node.op.inplace or not _destroyable(node, 0, get_destroy_handler(fgraph)):
        return None
    new_out = _with_inplace(node.op).make_node(*node.inputs).outputs[0]
    copy_stack_trace(node.outputs[0], new_out)
    return [new_out]


@node_rewriter([IncSubtensor, AdvancedIncSubtensor1, AdvancedIncSubtensor], inplace=True)
def inplace_incsubtensor(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``inc_subtensor(x, y)`` / ``set_subtensor`` writing into ``x``."""
    return _inplace_first_input(fgraph, node)


@node_rewriter([Gemv, Gemm, Ger], inplace=True)
def inplace_blas(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """Gemv/Gemm writing into ``y``/``Z`` and Ger into ``A``."""
    return _inplace_first_input(fgraph, node)


def inplace_ops(fgraph: FunctionGraph) -> Sequence[Apply]:
    """The nodes of ``fgraph`` that overwrite an input (for tests and diagnostics)."""
    return [n for n in fgraph.toposort() if n.op.destroy_map]


register_inplace(inplace_incsubtensor, name="inplace_incsubtensor", position=60)
register_inplace(inplace_blas, name="inplace_blas", position=70)
register_inplace(InplaceElemwise(), "inplace_elemwise_optimizer", name="inplace_elemwise",
                 position=75)  # (the tag: Theano's name of the pass, in exclusions)

__all__ = ["InplaceElemwise", "elemwise_candidates", "inplace_blas", "inplace_incsubtensor",
           "inplace_ops"]
