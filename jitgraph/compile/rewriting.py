"""The bridge from a Mode's optimizer setting to the rewrite database."""

from __future__ import annotations

from typing import Any

from jitgraph.graph.fg import FunctionGraph


def rewrite_for_mode(fgraph: FunctionGraph, optimizer: Any, include: tuple = (),
                     exclude: tuple = (), require: tuple = ()) -> Any:
    """Rewrite ``fgraph`` in place for the optimizer level (or query) ``optimizer``."""
    return None
