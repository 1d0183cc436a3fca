"""The fixed-point driver: apply a set of rewrites until none of them changes the graph.

Each sweep visits every node in topological order (and, by default, the nodes that rewrites create
during the sweep) and tries the node rewriters tracking its op, in registration order. Graph
rewriters listed in the set run at the start of every sweep; ``final_rewriters`` (e.g. a merge
cleanup) run after every sweep. Sweeps repeat until one applies nothing.

Two rewrites that undo each other would loop forever, so the number of times any one rewrite may
apply is bounded by ``max_use_ratio`` (default ``config.optdb.max_use_ratio``) times the number of
nodes the graph had when the phase started. When the bound is hit the phase stops early with a
warning naming the rewrite and the ones applied just before it; the graph is still valid.
"""

from __future__ import annotations

import warnings
from collections import deque
from collections.abc import Iterable

from jitgraph.graph.fg import FunctionGraph
from jitgraph.rewrite.context import RewriteContext, RewriteWarning
from jitgraph.rewrite.engine import (
    GraphRewriter,
    NodeRewriter,
    RewriterDispatch,
    _ImportQueue,
    run_phase,
    try_node_rewrite,
)


class EquilibriumGraphRewriter(GraphRewriter):
    """Applies node rewriters (and per-sweep graph rewriters) until a fixed point."""

    def __init__(self, rewriters: Iterable[NodeRewriter | GraphRewriter],
                 max_use_ratio: float | None = None,
                 final_rewriters: Iterable[GraphRewriter] = (),
                 ignore_newtrees: bool = False, name: str | None = None) -> None:
        super().__init__(name or "EquilibriumGraphRewriter")
        rewriters = list(rewriters)
        self.node_rewriters = [r for r in rewriters if isinstance(r, NodeRewriter)]
        self.graph_rewriters = [r for r in rewriters if isinstance(r, GraphRewriter)]
        other = [r for r in rewriters if not isinstance(r, (NodeRewriter, GraphRewriter))]
        if other:
            raise TypeError(f"not a node or graph rewriter: {other[0]!r}")
        self.final_rewriters = list(final_rewriters)
        self.max_use_ratio = max_use_ratio
        self.ignore_newtrees = ignore_newtrees
        self._dispatch = RewriterDispatch(self.node_rewriters)

    def __len__(self) -> int:
        return len(self.node_rewriters) + len(self.graph_rewriters)

    def add_requirements(self, fgraph: FunctionGraph) -> None:
        for rw in (*self.node_rewriters, *self.graph_rewriters, *self.final_rewriters):
            rw.add_requirements(fgraph)

    def apply(self, fgraph: FunctionGraph, ctx: RewriteContext) -> None:
        ratio = self.max_use_ratio if self.max_use_ratio is not None else ctx.max_use_ratio
        n_nodes = max(len(fgraph.apply_nodes), 1)
        max_uses = max(int(ratio * n_nodes), 1)
        uses: dict[int, int] = {}
        recent: deque[str] = deque(maxlen=8)
        sweeps = 0
        while True:
            sweeps += 1
            if sweeps > max_uses:  # graph rewriters alone can loop too
                self._warn_loop(None, recent, ratio, n_nodes, ctx)
                return
            applied_before = ctx.n_applied
            for rw in self.graph_rewriters:
                run_phase(rw, fgraph, ctx, record=False)
            looping = self._sweep(fgraph, ctx, uses, recent, max_uses)
            if looping is not None:
                self._warn_loop(looping, recent, ratio, n_nodes, ctx)
                return
            if ctx.n_applied != applied_before:
                for rw in self.final_rewriters:
                    run_phase(rw, fgraph, ctx, record=False)
            if ctx.n_applied == applied_before:
                return

    def _sweep(self, fgraph: FunctionGraph, ctx: RewriteContext, uses: dict[int, int],
               recent: deque, max_uses: int) -> NodeRewriter | None:
        """One pass over the graph; returns the rewrite that exceeded its bound, if any."""
        if not self.node_rewriters:
            return None
        queue: deque = deque(fgraph.toposort())
        listener = None if self.ignore_newtrees else _ImportQueue(queue)
        if listener is not None:
            fgraph.attach_feature(listener)
        rewriters_for = self._dispatch.run_lookup()
        try:
            while queue:
                node = queue.popleft()
                for rw in rewriters_for(node.op):
                    if node not in fgraph.apply_nodes:
                        break
                    if try_node_rewrite(rw, fgraph, node, ctx):
                        recent.append(rw.name)
                        count = uses[id(rw)] = uses.get(id(rw), 0) + 1
                        if count > max_uses:
                            return rw
        finally:
            if listener is not None:
                fgraph.remove_feature(listener)
        return None

    def _warn_loop(self, rw: NodeRewriter | None, recent: deque, ratio: float, n_nodes: int,
                   ctx: RewriteContext) -> None:
        if rw is None:
            what = "its sweeps kept changing the graph"
            culprit = ", ".join(r.name for r in self.graph_rewriters) or "?"
        else:
            what = f"rewrite {rw.name} was applied"
            culprit = rw.name
        ctx.stats.loops.append((self.name, culprit))
        warnings.warn(
            f"{self.name}: {what} more than {ratio:g} x {n_nodes} times "
            f"(optdb.max_use_ratio x the number of nodes); it probably undoes another rewrite or "
            f"itself in a loop (last rewrites applied: {', '.join(recent) or culprit}). This phase "
            "stopped early; the graph is still valid. If the graph really needs that many "
            "rewrites, raise config.optdb.max_use_ratio.", RewriteWarning, stacklevel=2)
