"""Theano's cross-entropy rewrites onto the fused op ``CrossentropySoftmaxArgmax1HotWithBias``
(``theano.tensor.nnet``'s names), and ``softmax_simplifier``.

jitgraph's default pipeline stabilizes ``crossentropy_categorical_1hot(softmax(x), y)`` into a
``log_softmax`` read (:mod:`jitgraph.tensor.rewriting.stabilize`); these rewrites give Theano's fused-op
form instead. They are registered in optdb as the database ``xent`` (position 2.01, after
stabilize) and selected with ``optimizer_including=xent``:

* ``crossentropy_to_crossentropy_with_softmax_with_bias``:
  ``crossentropy_categorical_1hot(softmax_with_bias(x, b), y)`` ->
  ``crossentropy_softmax_argmax_1hot_with_bias(x, b, y)[0]``;
* ``crossentropy_to_crossentropy_with_softmax``: the same, and for a plain row softmax
  ``softmax(x)`` with a zero bias;
* ``graph_merge_softmax_with_crossentropy_softmax``: a ``softmax_with_bias(x, b)`` computed
  beside ``crossentropy_softmax_argmax_1hot_with_bias(x, b, y)`` is read from the latter's
  softmax output (one pass over the logits).

The two ``crossentropy_to_*`` objects are graph rewriters (``rw.rewrite(fgraph)``), as Theano's
were graph optimizers; the merge is a node rewriter.
"""

from __future__ import annotations

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.fg import FunctionGraph
from jitgraph.rewrite.context import copy_stack_trace
from jitgraph.rewrite.db import EquilibriumDB
from jitgraph.rewrite.engine import WalkingGraphRewriter, node_rewriter
from jitgraph.rewrite.phases import optdb
from jitgraph.tensor.nnet import CrossentropyCategorical1Hot, Softmax
from jitgraph.tensor.neural.softmax_xent import (CrossentropySoftmaxArgmax1HotWithBias,
                                                 SoftmaxWithBias,
                                                 crossentropy_softmax_argmax_1hot_with_bias,
                                                 softmax_op)
from jitgraph.tensor.core.basic import zeros_like
from jitgraph.tensor.elementwise.elemwise import DimShuffle
from jitgraph.tensor.rewriting.utils import is_elemwise

#: the tag (and database name) selecting these rewrites
XENT_TAG = "xent"


def _fused_xent(node: Apply, x: Variable, b: Variable) -> list[Variable]:
    y = node.inputs[1]
    nll = crossentropy_softmax_argmax_1hot_with_bias(x, b, y)[0]
    if nll.dtype != node.outputs[0].dtype:
        return None
    copy_stack_trace(node.outputs[0], nll)
    return [nll]


@node_rewriter([CrossentropyCategorical1Hot])
def local_xent_softmax_with_bias(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``crossentropy_categorical_1hot(softmax_with_bias(x, b), y)`` -> the fused op."""
    sm = node.inputs[0]
    if sm.owner is None or not isinstance(sm.owner.op, SoftmaxWithBias):
        return None
    return _fused_xent(node, *sm.owner.inputs)


def _is_row_softmax(v: Variable) -> bool:
    op = v.owner.op if v.owner is not None else None
    return type(op) is Softmax and v.ndim == 2 and op.axis in (1, -1)


@node_rewriter([CrossentropyCategorical1Hot])
def local_xent_softmax(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``crossentropy_categorical_1hot(softmax(x), y)`` -> the fused op with a zero bias."""
    sm = node.inputs[0]
    if not _is_row_softmax(sm):
        return None
    x = sm.owner.inputs[0]
    return _fused_xent(node, x, zeros_like(x[0]))


crossentropy_to_crossentropy_with_softmax_with_bias = WalkingGraphRewriter(
    local_xent_softmax_with_bias, "out_to_in",
    name="crossentropy_to_crossentropy_with_softmax_with_bias")
crossentropy_to_crossentropy_with_softmax = WalkingGraphRewriter(
    [local_xent_softmax_with_bias, local_xent_softmax], "out_to_in",
    name="crossentropy_to_crossentropy_with_softmax")


@node_rewriter([SoftmaxWithBias])
def graph_merge_softmax_with_crossentropy_softmax(fgraph: FunctionGraph, node: Apply
                                                  ) -> list[Variable] | None:
    """``softmax_with_bias(x, b)`` beside ``crossentropy_softmax_argmax_1hot_with_bias(x, b,
    y)``: read the softmax from the cross-entropy op."""
    x, b = node.inputs
    for client, _ in fgraph.clients.get(x, []):
        if (isinstance(client, Apply) and isinstance(client.op,
                                                     CrossentropySoftmaxArgmax1HotWithBias)
                and client.inputs[1] is b and client.outputs[1].type == node.outputs[0].type):
            merged = client.op.make_node(x, b, client.inputs[2]).outputs[1]
            copy_stack_trace(node.outputs[0], merged)
            return [merged]
    return None


def _is_exp(v: Variable) -> bool:
    return is_elemwise(v, "exp")


def _row_sum_of(v: Variable) -> Variable | None:
    """``e`` if ``v`` is ``sum(e, axis=1).dimshuffle(0, 'x')`` for a matrix ``e``, else None."""
    from jitgraph.tensor.elementwise.reduction import Sum

    if v.owner is None or not isinstance(v.owner.op, DimShuffle):
        return None
    if tuple(v.owner.op.new_order) != (0, "x"):
        return None
    s = v.owner.inputs[0]
    if s.owner is None or not isinstance(s.owner.op, Sum) or s.owner.op.pre_op:
        return None
    e = s.owner.inputs[0]
    if e.ndim != 2 or s.owner.op.reduced_axes(2) != (1,):
        return None
    return e


def softmax_simplifier(numerators: list[Variable], denominators: list[Variable]
                       ) -> tuple[list[Variable], list[Variable]]:
    """The factors of a product with each ``exp(x)`` in ``numerators`` whose row sum
    ``sum(exp(x), axis=1).dimshuffle(0, 'x')`` is in ``denominators`` replaced by
    ``softmax(x)`` (appended to the numerators; both factors removed), as Theano's product
    canonicalizer used it. Returns the new ``(numerators, denominators)``."""
    numerators, denominators = list(numerators), list(denominators)
    for e in list(numerators):
        if not _is_exp(e) or e.ndim != 2:
            continue
        match = next((d for d in denominators if _row_sum_of(d) is e), None)
        if match is not None:
            numerators.remove(e)
            denominators.remove(match)
            numerators.append(softmax_op(e.owner.inputs[0]))
    return numerators, denominators


def _register() -> None:
    xent = EquilibriumDB(XENT_TAG)
    xent.register("crossentropy_to_crossentropy_with_softmax", local_xent_softmax, XENT_TAG)
    xent.register("crossentropy_to_crossentropy_with_softmax_with_bias",
                  local_xent_softmax_with_bias, XENT_TAG)
    xent.register("graph_merge_softmax_with_crossentropy_softmax",
                  graph_merge_softmax_with_crossentropy_softmax, XENT_TAG)
    optdb.register("xent_fused", xent, XENT_TAG, position=2.01)


_register()

__all__ = ["crossentropy_to_crossentropy_with_softmax",
           "crossentropy_to_crossentropy_with_softmax_with_bias",
           "graph_merge_softmax_with_crossentropy_softmax", "softmax_simplifier", "XENT_TAG"]
