"""The bridge from a Mode's optimizer setting to the rewrite database."""

from __future__ import annotations

from typing import Any, Iterable

from jitgraph.graph.fg import FunctionGraph


def protect_inputs(fgraph: FunctionGraph, mutable: Iterable[Any] = ()) -> None:
    """Attach the in-place bookkeeping: only ``mutable`` graph inputs may be overwritten."""
    from jitgraph.rewrite import DestroyHandler, get_destroy_handler

    if get_destroy_handler(fgraph) is None:
        fgraph.attach_feature(DestroyHandler(mutable=list(mutable)))


def rewrite_for_mode(fgraph: FunctionGraph, optimizer: Any, include: tuple = (),
                     exclude: tuple = (), require: tuple = ()) -> Any:
    """Rewrite ``fgraph`` in place for the optimizer level (or query) ``optimizer``."""
    from jitgraph.rewrite import rewrite_fgraph

    protect_inputs(fgraph)
    level = None if optimizer in (None, "None") else optimizer
    return rewrite_fgraph(fgraph, level, include=include, exclude=exclude, require=require)


def schedule(fgraph: FunctionGraph) -> list:
    """Node order for the linker: topological, with in-place ops after the other readers."""
    from jitgraph.rewrite import toposort_with_orderings

    return toposort_with_orderings(fgraph)
