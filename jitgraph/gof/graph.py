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
from typing import Any, Callable, Iterable, Sequence

from jitgraph.graph.basic import (Apply, Constant, Variable, clone, clone_get_equiv,
                                  equal_computations, io_toposort, is_in_ancestors,
                                  stack_search)
from jitgraph.graph.analysis import is_same_graph
from jitgraph.graph.as_string import as_string


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


def general_toposort(outputs: Iterable[Any], deps: Callable[[Any], Sequence[Any] | None],
                     debug_print: bool = False, compute_deps_cache: Any = None,
                     deps_cache: Any = None, clients: Any = None) -> list[Any]:
    """Every item ``outputs`` depend on (themselves included), each after its dependencies.

    ``deps(item)`` lists what ``item`` depends on (variables on their owner node, nodes on
    their inputs, for a graph). Items are found by Theano's depth-first walk from the last
    output, and the ones that depend on nothing start the order in the order the walk met them,
    so the result is Theano's. The cache and ``clients`` arguments of Theano's version are
    accepted and not needed.
    """
    cached: dict[int, list] = {}

    def dependencies(item: Any) -> list:
        if id(item) not in cached:
            cached[id(item)] = list(deps(item) or ())
        return cached[id(item)]

    reachable, dependents = stack_search(deque(outputs), dependencies, "dfs", build_inv=True)
    waiting = {id(item): len({id(d) for d in dependencies(item)}) for item in reachable}
    ready = deque(item for item in reachable if not waiting[id(item)])
    order: list = []
    placed: set[int] = set()
    while ready:
        item = ready.popleft()
        if id(item) in placed:
            continue
        placed.add(id(item))
        order.append(item)
        # a user listing ``item`` twice (a node using a variable twice) waits for it once
        for user in {id(u): u for u in dependents.get(item, ())}.values():
            waiting[id(user)] -= 1
            if not waiting[id(user)]:
                ready.append(user)
    if len(order) != len(reachable):
        raise ValueError("general_toposort: the dependencies contain a cycle")
    return order


def ops(i: Iterable[Variable], o: Iterable[Variable]) -> set[Apply]:
    """The nodes between the variables ``i`` and ``o`` (Theano's ``gof.graph.ops``)."""
    return set(io_toposort(list(i), list(o)))


__all__ = ["Apply", "Constant", "Variable", "ancestors", "as_string", "clone", "clone_get_equiv",
           "equal_computations", "general_toposort", "inputs", "io_toposort", "is_in_ancestors",
           "is_same_graph", "ops", "stack_search"]
