"""``theano.gof.graph``: variables, nodes and graph traversal (re-exported from
:mod:`jitgraph.graph.basic`).

``ancestors`` and ``inputs`` here list variables in Theano's order, which code written for
Theano can depend on (PyMC3 creates one step method per ``inputs(model.vars)`` entry, in that
order, so the order decides which random numbers each variable gets): depth first, starting from
the *last* variable given, each node's inputs in order. jitgraph's own traversals
(:func:`jitgraph.graph.basic.ancestors`, ``graph_inputs``) start from the first.
"""

from __future__ import annotations

from collections import deque
from typing import Iterable

from jitgraph.graph.basic import (Apply, Constant, Variable, clone, clone_get_equiv,
                                  equal_computations, io_toposort, is_in_ancestors,
                                  stack_search)
from jitgraph.graph.analysis import is_same_graph


def ancestors(variable_list: Iterable[Variable],
              blockers: Iterable[Variable] | None = None) -> list[Variable]:
    """Every variable the given ones depend on (themselves included), in Theano's order; the
    walk does not go past ``blockers``."""
    blocked = list(blockers or ())

    def expand(var: Variable) -> list[Variable] | None:
        if var.owner is not None and not any(var is b for b in blocked):
            return list(reversed(var.owner.inputs))
        return None

    return stack_search(deque(variable_list), expand, "dfs")


def inputs(variable_list: Iterable[Variable],
           blockers: Iterable[Variable] | None = None) -> list[Variable]:
    """The ownerless variables (inputs, shared variables, constants) among the ancestors, in
    Theano's order."""
    return [v for v in ancestors(variable_list, blockers) if v.owner is None]


def ops(i: Iterable[Variable], o: Iterable[Variable]) -> set[Apply]:
    """The nodes between the variables ``i`` and ``o`` (Theano's ``gof.graph.ops``)."""
    return set(io_toposort(list(i), list(o)))


__all__ = ["Apply", "Constant", "Variable", "ancestors", "clone", "clone_get_equiv",
           "equal_computations", "inputs", "io_toposort", "is_in_ancestors", "is_same_graph",
           "stack_search"]
