"""``theano.typed_list.opt``: the rewrite that makes the list-changing ops work in place
(registered with the other in-place passes, tags ``fast_run`` and ``inplace``; the
DestroyHandler refuses it where the input list is still needed)."""

from __future__ import annotations

from typing import Any

from jitgraph.rewrite.engine import node_rewriter
from jitgraph.rewrite.phases import register_inplace
from jitgraph.typed_list.basic import Append, Extend, Insert, Remove, Reverse


@node_rewriter([Append, Extend, Insert, Remove, Reverse], inplace=True)
def typed_list_inplace_opt(fgraph: Any, node: Any) -> Any:
    """``Append()`` (and the others) becomes ``Append(inplace=True)``."""
    if node.op.inplace:
        return None
    return type(node.op)(inplace=True).make_node(*node.inputs).outputs


register_inplace(typed_list_inplace_opt, name="typed_list_inplace_opt", position=60)

__all__ = ["typed_list_inplace_opt"]
