"""Constant folding: a node whose inputs are all constants is computed once, at compile time.

The node's op must agree (``op.do_constant_folding(node)``; ops producing large or uninitialised
arrays, such as allocations, say no). The value comes from the op's NumPy ``perform`` and becomes a
constant through ``out.type.make_constant``. A folded output larger than :data:`MAX_FOLD_BYTES`
(10 MiB) is dropped: a huge constant bloats the compiled function and the kernel cache, and is
cheaper to recompute. The op has then already been run once, so ops that know their output is
big should refuse in ``do_constant_folding``. Nodes that destroy an input are never folded.
"""

from __future__ import annotations

from jitgraph.graph.basic import Apply, Constant, Variable
from jitgraph.graph.fg import FunctionGraph
from jitgraph.rewrite.context import copy_stack_trace
from jitgraph.rewrite.engine import FunctionNodeRewriter

#: folded outputs bigger than this (in bytes) are not turned into constants
MAX_FOLD_BYTES = 10 * 2**20


def fold_node(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """Constants for ``node``'s outputs, or None if the node cannot or should not be folded."""
    if not node.inputs or not all(isinstance(i, Constant) for i in node.inputs):
        return None
    op = node.op
    if op.destroy_map or not op.do_constant_folding(node):
        return None
    storage: list[list] = [[None] for _ in node.outputs]
    op.perform(node, [i.data for i in node.inputs], storage)
    folded = []
    for out, (value,) in zip(node.outputs, storage):
        if getattr(value, "nbytes", 0) > MAX_FOLD_BYTES:
            return None
        if op.view_map and hasattr(value, "copy"):
            # A view would share memory with the input constant; constants own their data.
            value = value.copy()
        const = out.type.make_constant(value)
        copy_stack_trace(out, const)
        folded.append(const)
    return folded


#: the node rewriter registered in canonicalize and as a final step
constant_folding = FunctionNodeRewriter(fold_node, None, name="constant_folding")
