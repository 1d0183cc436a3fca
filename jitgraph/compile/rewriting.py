"""The bridge from a Mode's optimizer setting to the rewrite database."""

from __future__ import annotations

from typing import Any, Iterable

from jitgraph.graph.fg import FunctionGraph
from jitgraph.rewrite.destroyhandler import DestroyHandler, get_destroy_handler
from jitgraph.rewrite.levels import rewrite_fgraph
from jitgraph.rewrite.ordering import toposort_with_orderings


def protect_inputs(fgraph: FunctionGraph, mutable: Iterable[Any] = ()) -> None:
    """Attach the in-place bookkeeping: only ``mutable`` graph inputs may be overwritten."""
    if get_destroy_handler(fgraph) is None:
        fgraph.attach_feature(DestroyHandler(mutable=list(mutable)))


def rewrite_for_mode(fgraph: FunctionGraph, optimizer: Any, include: tuple = (),
                     exclude: tuple = (), require: tuple = ()) -> Any:
    """Rewrite ``fgraph`` in place for the optimizer level (or query) ``optimizer``."""
    protect_inputs(fgraph)
    level = None if optimizer in (None, "None") else optimizer
    return rewrite_fgraph(fgraph, level, include=include, exclude=exclude, require=require)


def schedule(fgraph: FunctionGraph) -> list:
    """Node order for the linker: topological, with in-place ops after the other readers.
    A graph from the compiledir comes with the order computed when it was stored."""
    stored = getattr(fgraph, "stored_order", None)
    if stored is not None and len(stored) == len(fgraph.apply_nodes) \
            and fgraph.apply_nodes.issuperset(stored):
        return list(stored)

    if get_destroy_handler(fgraph) is None and any(n.op.destroy_map for n in fgraph.apply_nodes):
        # A copied or unpickled graph has lost its DestroyHandler, and with it the orderings
        # that run an in-place node after the other readers of the value it overwrites.
        # A temporary one (checking nothing: every input mutable) recomputes them.
        handler = DestroyHandler(mutable=fgraph.inputs)
        fgraph.attach_feature(handler)
        try:
            return toposort_with_orderings(fgraph)
        finally:
            fgraph.remove_feature(handler)
    return toposort_with_orderings(fgraph)
