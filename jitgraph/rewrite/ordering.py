"""Execution order with extra constraints from features (the destroy handler's orderings).

Data dependencies alone do not order an in-place node after the other readers of the value it
overwrites. Features that know such constraints expose ``orderings(fgraph) -> {node: {nodes that
must run before it}}``; a linker must schedule nodes with :func:`toposort_with_orderings`.
"""

from __future__ import annotations

import heapq

from jitgraph.graph.basic import Apply
from jitgraph.graph.fg import FunctionGraph


def fgraph_orderings(fgraph: FunctionGraph) -> dict[Apply, set[Apply]]:
    """The union of the ``orderings`` of every feature of ``fgraph`` that provides them."""
    merged: dict[Apply, set[Apply]] = {}
    for feature in fgraph.features:
        get = getattr(feature, "orderings", None)
        if get is None:
            continue
        for node, before in get(fgraph).items():
            if before:
                merged.setdefault(node, set()).update(before)
    return merged


def toposort_with_orderings(fgraph: FunctionGraph,
                            orderings: dict[Apply, set[Apply]] | None = None) -> list[Apply]:
    """The nodes in an order respecting data dependencies and ``orderings``.

    ``orderings`` defaults to :func:`fgraph_orderings`. Among the valid orders, the one closest to
    ``fgraph.toposort()`` is returned. Raises ``ValueError`` if the constraints form a cycle.
    """
    base = fgraph.toposort()
    if orderings is None:
        orderings = fgraph_orderings(fgraph)
    if not orderings:
        return base
    position = {node: k for k, node in enumerate(base)}
    successors: dict[Apply, list[Apply]] = {node: [] for node in base}
    indegree = dict.fromkeys(base, 0)
    for node in base:
        preds = {i.owner for i in node.inputs if i.owner in position}
        preds.update(p for p in orderings.get(node, ()) if p in position and p is not node)
        indegree[node] = len(preds)
        for p in preds:
            successors[p].append(node)
    ready = [position[n] for n in base if indegree[n] == 0]
    heapq.heapify(ready)
    order: list[Apply] = []
    while ready:
        node = base[heapq.heappop(ready)]
        order.append(node)
        for succ in successors[node]:
            indegree[succ] -= 1
            if indegree[succ] == 0:
                heapq.heappush(ready, position[succ])
    if len(order) != len(base):
        stuck = [n for n in base if indegree[n] > 0]
        raise ValueError(f"the execution-order constraints form a cycle through {stuck[0]}")
    return order


def ordering_is_possible(fgraph: FunctionGraph, orderings: dict[Apply, set[Apply]]
                         ) -> list[Apply] | None:
    """Some execution order of ``fgraph``'s nodes respecting data dependencies and
    ``orderings``, or None when they form a cycle. Cheaper than
    :func:`toposort_with_orderings` (no preferred order, no heap): for cycle checks."""
    nodes = fgraph.apply_nodes
    waiting: dict[Apply, int] = {}
    successors: dict[Apply, list[Apply]] = {}
    ready: list[Apply] = []
    for node in nodes:
        preds = {i.owner for i in node.inputs if i.owner is not None and i.owner in nodes}
        extra = orderings.get(node)
        if extra:
            preds.update(p for p in extra if p in nodes and p is not node)
        if preds:
            waiting[node] = len(preds)
            for p in preds:
                successors.setdefault(p, []).append(node)
        else:
            ready.append(node)
    order: list[Apply] = []
    while ready:
        node = ready.pop()
        order.append(node)
        for succ in successors.get(node, ()):
            left = waiting[succ] - 1
            waiting[succ] = left
            if left == 0:
                ready.append(succ)
    return order if len(order) == len(nodes) else None
