"""``theano.gof.sched``: orders of a graph's nodes chosen by comparison functions, for the
``schedule`` argument of the linkers (``CLinker(schedule=sort_schedule_fn(cmp))``).

A comparison ``cmp(a, b)`` returns a negative number when ``a`` must run before ``b``, a
positive one when after, 0 when it does not care. Data dependencies always come first.
"""

from __future__ import annotations

import heapq
from typing import Any, Callable, Iterable, Sequence

from jitgraph.graph.basic import Apply, Variable, applys_between
from jitgraph.graph.utils import key_to_cmp

Cmp = Callable[[Any, Any], int]


def memodict(f: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """``f`` (of one hashable argument) with its results remembered."""
    memo: dict[Any, Any] = {}

    def wrapped(arg: Any) -> Any:
        if arg not in memo:
            memo[arg] = f(arg)
        return memo[arg]

    return wrapped


def make_depends() -> Callable[[tuple[Apply, Apply]], bool]:
    """``depends((a, b))``: whether node ``a`` uses, directly or not, an output of node ``b``
    (memoised)."""

    @memodict
    def depends(pair: tuple[Apply, Apply]) -> bool:
        a, b = pair
        parents = [i.owner for i in a.inputs if i.owner is not None]
        return any(p is b for p in parents) or any(depends((p, b)) for p in parents)

    return depends


def make_dependence_cmp() -> Cmp:
    """A comparison that puts each node after the nodes whose outputs it uses."""
    depends = make_depends()

    def dependence(a: Apply, b: Apply) -> int:
        if depends((a, b)):
            return 1
        if depends((b, a)):
            return -1
        return 0

    return dependence


def reverse_dict(d: dict[Any, Iterable[Any]]) -> dict[Any, tuple[Any, ...]]:
    """``{value: (keys listing it, ...)}`` from ``{key: values}``."""
    result: dict[Any, tuple[Any, ...]] = {}
    for key, values in d.items():
        for value in values:
            result[value] = (*result.get(value, ()), key)
    return result


def posort(items: Sequence[Any], *cmps: Cmp) -> list[Any]:
    """``items`` in an order that every comparison accepts (for each pair, the first
    comparison that cares decides); items nobody orders keep their relative order. Raises
    ``ValueError`` when the comparisons contradict each other (a cycle)."""
    items = list(items)
    after: list[list[int]] = [[] for _ in items]
    waiting = [0] * len(items)
    for i, a in enumerate(items):
        for j in range(i + 1, len(items)):
            b = items[j]
            verdict = next((c for c in (cmp(a, b) for cmp in cmps) if c), 0)
            if verdict < 0:
                after[i].append(j)
                waiting[j] += 1
            elif verdict > 0:
                after[j].append(i)
                waiting[i] += 1
    ready = [i for i, n in enumerate(waiting) if n == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        i = heapq.heappop(ready)
        order.append(items[i])
        for j in after[i]:
            waiting[j] -= 1
            if waiting[j] == 0:
                heapq.heappush(ready, j)
    if len(order) != len(items):
        raise ValueError("posort: the comparison functions contradict each other (they order "
                         "some items in a cycle)")
    return order


def sort_apply_nodes(inputs: Sequence[Variable], outputs: Sequence[Variable],
                     cmps: Sequence[Cmp]) -> list[Apply]:
    """The nodes between ``inputs`` and ``outputs``, ordered by ``cmps`` (after the data
    dependencies)."""
    return posort(applys_between(inputs, outputs), make_dependence_cmp(), *cmps)


def sort_schedule_fn(*cmps: Cmp) -> Callable[[Any], list[Apply]]:
    """``schedule(fgraph)`` ordering the graph's nodes by ``cmps`` (after the data
    dependencies), for a linker's ``schedule`` argument."""

    def schedule(fgraph: Any) -> list[Apply]:
        return sort_apply_nodes(fgraph.inputs, fgraph.outputs, cmps)

    return schedule


__all__ = ["memodict", "make_depends", "make_dependence_cmp", "reverse_dict", "posort",
           "sort_apply_nodes", "sort_schedule_fn", "key_to_cmp"]
