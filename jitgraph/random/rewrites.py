"""Rewrites of the random ops, registered when :mod:`jitgraph.random` is first used.

* ``random_make_inplace`` / ``mrg_random_make_inplace`` (in-place phase, tags ``fast_run``,
  ``inplace``): a draw advances its generator state in the input buffer rather than in a copy,
  when the DestroyHandler agrees (the state is a shared variable the function updates and
  nothing else reads the old value).
"""

from __future__ import annotations

from typing import Any

from jitgraph.graph.basic import Apply, Constant, Variable
from jitgraph.graph.fg import FunctionGraph
from jitgraph.random.mrg_op import MRGUniform
from jitgraph.random.raw_op import RandomFunction
from jitgraph.rewrite.context import copy_stack_trace
from jitgraph.rewrite.destroyhandler import get_destroy_handler
from jitgraph.rewrite.engine import node_rewriter
from jitgraph.rewrite.phases import register_inplace


def _inplace_state(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """Both outputs of the draw ``node`` from its in-place variant, if the state may be
    overwritten."""
    if node.op.inplace or isinstance(node.inputs[0], Constant):
        return None
    handler = get_destroy_handler(fgraph)
    if handler is not None and not handler.can_destroy(node.inputs[0]):
        return None
    new_node = node.op.with_inplace().make_node(*node.inputs)
    for old, new in zip(node.outputs, new_node.outputs):
        copy_stack_trace(old, new)
    return list(new_node.outputs)


@node_rewriter([MRGUniform], inplace=True)
def mrg_random_make_inplace(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``mrg_uniform`` advancing its state matrix in place."""
    return _inplace_state(fgraph, node)


@node_rewriter([RandomFunction], inplace=True)
def random_make_inplace(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """A ``RandomFunction`` drawing from its ``RandomState`` itself, not from a copy."""
    return _inplace_state(fgraph, node)


register_inplace(mrg_random_make_inplace, name="mrg_random_make_inplace", position=90)
register_inplace(random_make_inplace, name="random_make_inplace", position=90.1)
