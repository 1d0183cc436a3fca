"""Theano's one-line text of a graph (``theano.gof.graph.as_string``), which is also what
``str(fgraph)`` shows: ``[Op4(z, y)]``, one string per output.

A node whose results are used more than once is written in full the first time, as
``*1 -> op(...)``, and as ``*1`` afterwards; the output of a multi-output node carries its index
(``*1::0``). Numbers follow the order in which the text first meets the nodes.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Sequence

from jitgraph.graph.basic import Apply, Variable


def _leaf(var: Variable) -> str:
    return str(var)


def _node(node: Apply, argstrings: Sequence[str]) -> str:
    return f"{node.op}({', '.join(argstrings)})"


def _is_leaf(var: Variable, stops: set[int]) -> bool:
    return var.owner is None or id(var) in stops


def _shared_nodes(outputs: Sequence[Variable], stops: set[int]) -> set[int]:
    """The ids of the nodes the text refers to more than once."""
    references: dict[int, int] = {}
    pending = [o for o in outputs if not _is_leaf(o, stops)]
    for var in pending:
        references[id(var.owner)] = references.get(id(var.owner), 0) + 1
    visited: set[int] = set()
    while pending:
        node = pending.pop().owner
        if id(node) in visited:
            continue
        visited.add(id(node))
        for inp in node.inputs:
            if not _is_leaf(inp, stops):
                references[id(inp.owner)] = references.get(id(inp.owner), 0) + 1
                pending.append(inp)
    return {key for key, n in references.items() if n > 1}


def as_string(inputs: Iterable[Variable], outputs: Sequence[Variable],
              leaf_formatter: Callable[[Variable], str] = _leaf,
              node_formatter: Callable[[Apply, Sequence[str]], Any] = _node) -> list[str]:
    """One string per output describing how it is computed from ``inputs``.

    The walk stops at ``inputs`` and at variables without an owner, written with
    ``leaf_formatter(var)``; each node is written with ``node_formatter(node, argument_texts)``.
    """
    stops = {id(v) for v in inputs}
    shared = _shared_nodes(outputs, stops)
    numbers: dict[int, int] = {}

    def describe(var: Variable) -> str:
        if _is_leaf(var, stops):
            return leaf_formatter(var)
        node = var.owner
        index = "" if len(node.outputs) == 1 else f"::{node.outputs.index(var)}"
        if id(node) in numbers:
            return f"*{numbers[id(node)]}{index}"
        if id(node) in shared:
            numbers[id(node)] = len(numbers) + 1
            label = numbers[id(node)]
            return f"*{label} -> {node_formatter(node, [describe(i) for i in node.inputs])}"
        return str(node_formatter(node, [describe(i) for i in node.inputs]))

    return [describe(o) for o in outputs]


__all__ = ["as_string"]
