"""Theano's ``theano.scan_module`` path: re-exports :mod:`jitgraph.scan` (and ``clone``, which
Theano defined in its scan utilities). Its submodules (``scan_op``, ``scan_utils``, ...) are
attributes as ``import theano`` had loaded them (:mod:`jitgraph._facade.paths`)."""

from jitgraph.graph.replace import clone  # noqa: F401
from jitgraph.scan import (OrderedUpdates, Scan, foldl, foldr, map, reduce,  # noqa: F401,A004
                           scan, scan_checkpoints, until)

__all__ = ["scan", "map", "reduce", "foldl", "foldr", "scan_checkpoints", "until", "Scan",
           "OrderedUpdates", "clone"]

