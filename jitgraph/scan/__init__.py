"""Loops in graphs: ``scan`` and its special cases (``map``, ``reduce``, ``foldl``, ``foldr``,
``scan_checkpoints``), ``until`` for do-while loops, and the :class:`Scan` op.

Theano's ``theano.scan_module`` re-exports these names (:mod:`jitgraph.scan_module`).
"""

from jitgraph.scan.builder import scan
from jitgraph.scan.checkpoints import scan_checkpoints
from jitgraph.scan.construct import MissingNonSequenceError
from jitgraph.scan.info import ScanInfo
from jitgraph.scan.op import Scan
from jitgraph.scan.returns import until
from jitgraph.scan.updates import OrderedUpdates
from jitgraph.scan.views import foldl, foldr, map, reduce  # noqa: A004 - Theano's names
from jitgraph.scan.rewrites import register_all as _register_rewrites

_register_rewrites()  # a graph can hold a Scan only once this package is imported

__all__ = ["scan", "map", "reduce", "foldl", "foldr", "scan_checkpoints", "until", "Scan",
           "ScanInfo", "OrderedUpdates", "MissingNonSequenceError"]
