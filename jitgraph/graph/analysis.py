"""Questions asked about whole graphs: which outputs depend on which inputs
(:func:`io_connection_pattern`) and whether two graphs compute the same thing
(:func:`is_same_graph`)."""

from __future__ import annotations

from typing import Mapping, Sequence

from jitgraph.graph.basic import Variable, ancestors, clone_replace, equal_computations, io_toposort


def io_connection_pattern(inputs: Sequence[Variable], outputs: Sequence[Variable]
                          ) -> list[list[bool]]:
    """``pattern[i][j]`` is True when output ``j`` depends on input ``i`` through connections
    that each op declares (its ``connection_pattern``: ``shape(x)`` does not depend on the
    values of ``x``)."""
    n = len(inputs)
    reach: dict[Variable, frozenset[int]] = {}
    for i, inp in enumerate(inputs):
        reach[inp] = reach.get(inp, frozenset()) | {i}
    for node in io_toposort(inputs, outputs):
        pattern = node.op.connection_pattern(node)
        for j, out in enumerate(node.outputs):
            found: set[int] = set()
            for k, inp in enumerate(node.inputs):
                if pattern[k][j]:
                    found |= reach.get(inp, frozenset())
            reach[out] = frozenset(found)
    return [[i in reach.get(out, frozenset()) for out in outputs] for i in range(n)]


def is_same_graph(var1: Variable, var2: Variable, givens: Mapping[Variable, Variable] | None = None,
                  debug: bool = False) -> bool:
    """True when ``var1`` and ``var2`` are computed by identical graphs from the same inputs.

    ``givens`` pairs variables to be considered equal: a key found in one graph is replaced by
    its value there (the value usually belongs to the other graph). Constants compare by type
    and value; other ownerless variables must be the same object. ``debug`` is accepted for
    Theano's signature.
    """
    pairs = dict(givens or {})
    if pairs:
        var1 = _substitute(var1, pairs)
        var2 = _substitute(var2, pairs)
    return equal_computations([var1], [var2])


def _substitute(var: Variable, pairs: dict[Variable, Variable]) -> Variable:
    inside = set(ancestors([var]))
    here = {old: new for old, new in pairs.items() if old in inside}
    if not here:
        return var
    if var in here:
        return here[var]
    return clone_replace(var, here)


__all__ = ["io_connection_pattern", "is_same_graph"]
