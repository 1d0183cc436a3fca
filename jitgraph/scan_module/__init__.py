"""Theano's ``theano.scan_module`` path: re-exports :mod:`jitgraph.scan` (and ``clone``, which
Theano defined in its scan utilities)."""

from jitgraph.graph.replace import clone  # noqa: F401
from jitgraph.scan import (OrderedUpdates, Scan, foldl, foldr, map, reduce,  # noqa: F401,A004
                           scan, scan_checkpoints, until)

__all__ = ["scan", "map", "reduce", "foldl", "foldr", "scan_checkpoints", "until", "Scan",
           "OrderedUpdates", "clone"]


def __getattr__(name: str):  # noqa: ANN202
    """Theano's scan submodules (``scan_utils``, ``scan_op``, ...), loaded on first use as
    ``import theano`` had loaded them."""
    if name in ("scan_op", "scan_utils", "scan_views", "scan_checkpoints", "scan_opt"):
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
