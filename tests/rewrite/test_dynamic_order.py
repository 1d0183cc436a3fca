"""The Pearce-Kelly order maintenance behind the destroy handler's kept execution order:
random edge insertions into random DAGs, checked against plain reachability."""

from __future__ import annotations

import random

import pytest

from jitgraph.rewrite.dynamic_order import add_edge
from jitgraph.rewrite.dynamic_order import reaches as reaches_in_order


def reaches(succ: dict, a: int, b: int) -> bool:
    stack, seen = [a], {a}
    while stack:
        n = stack.pop()
        if n == b:
            return True
        for m in succ[n]:
            if m not in seen:
                seen.add(m)
                stack.append(m)
    return False


@pytest.mark.parametrize("seed", range(40))
def test_random_insertions_keep_a_valid_order(seed):
    rng = random.Random(seed)
    n = rng.randint(2, 30)
    succ = {k: set() for k in range(n)}
    pred = {k: set() for k in range(n)}
    for a in range(n):  # a random DAG in the order 0..n-1
        for b in range(a + 1, n):
            if rng.random() < 0.1:
                succ[a].add(b)
                pred[b].add(a)
    labels = list(range(n))
    rng.shuffle(labels)
    # a valid order other than the construction order: by longest-path depth, ties shuffled
    depth = {}
    for k in range(n):
        depth[k] = max([depth[p] + 1 for p in pred[k]], default=0)
    order = sorted(range(n), key=lambda k: (depth[k], labels[k]))
    position = {k: float(i) for i, k in enumerate(order)}
    for _ in range(3 * n):
        a, b = rng.sample(range(n), 2)
        if b in succ[a]:
            continue
        cycle = reaches(succ, b, a)
        got = add_edge(position, a, b, succ.__getitem__, pred.__getitem__)
        assert got is (not cycle)
        if got:
            succ[a].add(b)
            pred[b].add(a)
        assert len(set(position.values())) == n
        for x in range(n):
            for y in succ[x]:
                assert position[x] < position[y]


def test_unknown_nodes_and_ties_ask_for_a_full_order():
    assert add_edge({1: 0.0}, 1, 2, lambda n: (), lambda n: ()) is None
    position = {1: 1.0, 2: 1.0}
    assert add_edge(position, 1, 2, lambda n: (), lambda n: ()) is None
    assert add_edge({1: 0.0, 2: 1.0}, 1, 2, lambda n: (), lambda n: ()) is True


def test_a_cycle_is_found_along_the_latest_placed_nodes_first():
    """A rejected in-place candidate: the new edge's head already reaches its tail through a
    long path whose every node also has dead-end readers. The search goes on from the node
    placed latest, so it follows the path instead of emptying every dead end first (a deep
    network's in-place pass made that search for most of its nodes: quadratic work)."""
    length, dead_ends = 50, 10
    chains = [f"chain{k}" for k in range(length + 1)]  # the search compares nodes by identity
    succ: dict = {}
    position: dict = {}
    for k in range(length):
        ends = [f"end{k}.{j}" for j in range(dead_ends)]
        succ[chains[k]] = [chains[k + 1], *ends]  # the path first: a plain stack pops it last
        position[chains[k]] = k * (dead_ends + 1)
        for j, end in enumerate(ends):
            succ[end] = []
            position[end] = k * (dead_ends + 1) + 1 + j
    succ[chains[length]] = []
    position[chains[length]] = length * (dead_ends + 1)
    calls = [0]

    def successors(node):
        calls[0] += 1
        return succ[node]

    # the edge last -> first closes a cycle
    assert add_edge(dict(position), chains[-1], chains[0], successors, lambda n: []) is False
    assert calls[0] <= length + 1


@pytest.mark.parametrize("seed", range(20))
def test_reaches_searches_only_between_the_positions(seed):
    # reaches(start, targets) agrees with plain reachability on random DAGs, and visits no
    # node placed after the last target
    rng = random.Random(seed)
    n = rng.randint(2, 30)
    succ = {k: {b for b in range(k + 1, n) if rng.random() < 0.15} for k in range(n)}
    position = {k: float(k) for k in range(n)}
    for _ in range(2 * n):
        start = rng.randrange(n)
        others = [k for k in range(n) if k != start]
        targets = set(rng.sample(others, min(len(others), rng.randint(1, 3))))
        visited = []

        def successors(node, visited=visited):
            visited.append(node)
            return succ[node]

        got = reaches_in_order(position, start, targets, successors)
        assert got is any(reaches(succ, start, t) for t in targets)
        visited_before = len(visited)
        limited = reaches_in_order(position, start, targets, successors, limit=2)
        assert limited is None or limited is got  # past 2 nodes: no answer
        assert len(visited) - visited_before <= 2
        assert all(position[v] < max(position[t] for t in targets) for v in visited)
    assert reaches_in_order({0: 0.0}, 0, {1}, succ.__getitem__) is None  # 1 has no position
