"""``local_dimshuffle_lift``: a DimShuffle moved below the elementwise op it transposes.

``dimshuffle(elemwise(a, b), p)`` -> ``elemwise(dimshuffle(a, p), dimshuffle(b, p))`` when the
elementwise result has no other use, so that the DimShuffles reach the inputs, where two of them
become one and one that changes nothing disappears. Theano ran it in its canonicalize phase;
jitgraph's phases do not (they lift DimShuffles only where elementwise ops are fused), so it is
not registered in ``optdb``: it is provided for graphs rewritten with it explicitly, as Theano
users did with ``out2in(local_dimshuffle_lift)``.
"""

from __future__ import annotations

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.fg import FunctionGraph
from jitgraph.rewrite.theano_api import local_optimizer
from jitgraph.tensor.elementwise.elemwise import DimShuffle, Elemwise, dimshuffle
from jitgraph.tensor.rewriting.utils import broadcast_like, single_client


def _lift(var: Variable, order: tuple, fgraph: FunctionGraph | None) -> Variable:
    """``dimshuffle(var, order)``, pushed through single-use elementwise nodes and merged with
    the DimShuffles it meets."""
    node = var.owner
    if node is not None and isinstance(node.op, DimShuffle):
        inner = node.op.new_order
        return _lift(node.inputs[0], tuple("x" if o == "x" else inner[o] for o in order), fgraph)
    if (node is not None and isinstance(node.op, Elemwise) and len(node.outputs) == 1
            and single_client(fgraph, var) and all(i.ndim == var.ndim for i in node.inputs)):
        return node.op(*[_lift(i, order, None) for i in node.inputs])
    return dimshuffle(var, order)


@local_optimizer([DimShuffle])
def local_dimshuffle_lift(node: Apply) -> list[Variable] | None:
    """DimShuffles of single-use elementwise results move to the elementwise inputs; two in a
    row become one; one that keeps every axis in place is removed. Written as Theano's
    optimizers were (a function of the node), so ``local_dimshuffle_lift.transform(node)``
    works as in Theano; outside a graph every elementwise result counts as single-use."""
    fgraph = getattr(node, "fgraph", None)
    x = node.inputs[0]
    order = tuple(node.op.new_order)
    if order == tuple(range(x.ndim)) and x.type == node.outputs[0].type:
        return [x]
    owner = x.owner
    if owner is None or not isinstance(owner.op, (DimShuffle, Elemwise)):
        return None
    if isinstance(owner.op, Elemwise) and not single_client(fgraph, x):
        return None
    lifted = _lift(x, order, fgraph)
    return [broadcast_like(lifted, node.outputs[0], fgraph)]


__all__ = ["local_dimshuffle_lift"]
