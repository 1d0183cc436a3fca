"""Removing :class:`~jitgraph.graph.view_op.ViewOp` nodes: ``view_op`` and the gradient-only ops
(``zero_grad``, ``disconnected_grad``, ``grad_clip``, ``grad_scale``...) compute nothing once
gradients have been taken, so compiled graphs drop them (under FAST_COMPILE too)."""

from __future__ import annotations

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.fg import FunctionGraph
from jitgraph.graph.view_op import ViewOp
from jitgraph.rewrite.engine import node_rewriter
from jitgraph.rewrite.phases import register_canonicalize, register_useless

__all__: list[str] = []


@register_useless
@register_canonicalize
@node_rewriter([ViewOp])
def local_remove_view_op(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``view_op(x)`` (or any gradient-only identity) -> ``x``."""
    return [node.inputs[0]]
