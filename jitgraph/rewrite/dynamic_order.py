"""Keeping a topological order valid while edges are added (Pearce and Kelly, "A dynamic
topological sort algorithm for directed acyclic graphs", 2006).

The destroy handler keeps positions of a valid execution order. When a new constraint
``src`` before ``dst`` contradicts them, only the nodes between the two positions that are
reachable from ``dst`` (they must stay after it) or reach ``src`` (they must stay before it) are
reordered, among the positions they already hold; finding ``src`` from ``dst`` proves a cycle.
This replaces an O(nodes) toposort per new constraint by work proportional to the affected
region.
"""

from __future__ import annotations

from typing import Callable, Hashable, Iterable

Neighbours = Callable[[Hashable], Iterable[Hashable]]


def add_edge(position: dict, src: Hashable, dst: Hashable, successors: Neighbours,
             predecessors: Neighbours) -> bool | None:
    """Make ``position[src] < position[dst]`` for a new edge ``src -> dst`` by reordering the
    affected nodes (``successors``/``predecessors`` give the existing edges' ends; only the
    edges the positions already respect are followed).

    Returns True when the positions respect the edge, False when ``dst`` already reaches
    ``src`` (the edge would close a cycle), None when a node met has no position or two share
    one (the caller then recomputes a full order).
    """
    low, high = position.get(dst), position.get(src)
    if low is None or high is None:
        return None
    if high < low:
        return True
    forward = _reach(position, dst, successors, lambda p, here: here < p <= high, src)
    if forward is None or forward is False:
        return forward
    backward = _reach(position, src, predecessors, lambda p, here: low <= p < here, None)
    if backward is None or backward is False:
        return backward
    slots = sorted(position[n] for n in backward | forward)
    if len(set(slots)) < len(slots):
        return None  # nodes placed at the same position (imported side by side): no room
    ordered = sorted(backward, key=position.__getitem__) + sorted(forward,
                                                                 key=position.__getitem__)
    for node, slot in zip(ordered, slots):
        position[node] = slot
    return True


def reaches(position: dict, start: Hashable, targets: set, successors: Neighbours,
            limit: int | None = None) -> bool | None:
    """Whether a path of edges leads from ``start`` to one of ``targets``. The positions
    respect the edges, so only the nodes placed after ``start`` and up to the last target are
    searched. None when a node met has no position, or when the search would go on past
    ``limit`` nodes (a caller asking for a cheap answer)."""
    placed = [position.get(t) for t in targets]
    if any(p is None for p in placed):
        return None
    low = position.get(start)
    if low is None:
        return None
    high = max(placed, default=low)
    if high <= low:
        return False
    seen = {start}
    stack = [start]
    while stack:
        if limit is not None:
            if limit <= 0:
                return None
            limit -= 1
        met = []
        for other in successors(stack.pop()):
            if other in seen:
                continue
            if other in targets:
                return True
            p = position.get(other)
            if p is None:
                return None
            seen.add(other)
            if p < high:
                met.append((p, other))
        # the node placed latest first: a path to a target is usually found at once (as in
        # _reach); a search that finds none visits the same nodes in any order
        met.sort(key=_first)
        stack.extend(other for _, other in met)
    return False


def _reach(position: dict, start: Hashable, neighbours: Neighbours,
           inside: Callable[[float, float], bool], target: Hashable | None
           ) -> set | bool | None:
    """The nodes reachable from ``start`` through respected edges whose far end lies
    ``inside`` the window; False if ``target`` is among them, None if a node has no position."""
    found = {start}
    stack = [start]
    while stack:
        node = stack.pop()
        here = position[node]
        met = []
        for other in neighbours(node):
            if other in found:
                continue
            p = position.get(other)
            if p is None:
                return None
            if not inside(p, here):
                continue
            if other is target:
                return False
            found.add(other)
            met.append((p, other))
        if target is not None and len(met) > 1:
            # Searching for a cycle: go on from the node placed latest, nearest the target
            # (a rejected in-place candidate's path to its reader is usually found at once
            # instead of after the whole window). The order changes no result, only the work.
            met.sort(key=_first)
        stack.extend(other for _, other in met)
    return found


def _first(pair: tuple) -> float:
    return pair[0]
