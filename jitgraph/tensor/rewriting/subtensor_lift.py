"""Indexing before elementwise work: ``f(x, y)[idx]`` -> ``f(x[idx], y[idx])``.

The elementwise op then computes only the elements that are kept (``exp(x)[0]`` computes one
row, not the matrix), and no intermediate of the full size is allocated. Done only when that is
exact and computes nothing twice:

* the elementwise result has no other client (else the full result is computed anyway);
* every input either has the result's broadcastable pattern (no broadcasting: the index applies
  to it as to the result, out-of-range errors included) or is scalar-like (every axis
  broadcastable: its axes are dropped and it broadcasts against the indexed inputs); at least
  one input is indexed, so an out-of-range index still raises;
* the op has one output and overwrites no input.
"""

from __future__ import annotations

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.fg import FunctionGraph
from jitgraph.rewrite.context import copy_stack_trace
from jitgraph.rewrite.engine import node_rewriter
from jitgraph.rewrite.phases import register_canonicalize
from jitgraph.tensor.elementwise.elemwise import Elemwise, dimshuffle
from jitgraph.tensor.indexing.subtensor_ops import Subtensor
from jitgraph.tensor.rewriting.utils import broadcast_like, single_client

__all__ = ["local_subtensor_of_elemwise"]


def _lifted_input(inp: Variable, pattern: tuple, node: Apply) -> Variable | None:
    """``inp`` as it enters the elementwise op after indexing, or None if not exact."""
    if inp.broadcastable == pattern:
        return node.op.make_node(inp, *node.inputs[1:]).outputs[0]
    if all(inp.broadcastable):
        return dimshuffle(inp, ["x"] * node.outputs[0].ndim)
    return None


@register_canonicalize
@node_rewriter([Subtensor])
def local_subtensor_of_elemwise(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``elemwise(x, y)[idx]`` -> ``elemwise(x[idx], y[idx])`` (module doc for when)."""
    value = node.inputs[0]
    elem = value.owner
    if elem is None or not isinstance(elem.op, Elemwise) or len(elem.outputs) != 1:
        return None
    if getattr(elem.op, "destroy_map", None) or not single_client(fgraph, value):
        return None
    pattern = value.broadcastable
    lifted = [_lifted_input(inp, pattern, node) for inp in elem.inputs]
    if any(v is None for v in lifted) or not any(inp.broadcastable == pattern
                                                 for inp in elem.inputs):
        return None
    new = elem.op.make_node(*lifted).outputs[0]
    # an indexing error points at the indexing, an arithmetic one at the elementwise expression
    copy_stack_trace(node.outputs[0], [v for v, inp in zip(lifted, elem.inputs) if v is not inp])
    copy_stack_trace([node.outputs[0], value], new)
    return [broadcast_like(new, node.outputs[0], fgraph)]
