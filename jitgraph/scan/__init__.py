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

__all__ = ["scan", "map", "reduce", "foldl", "foldr", "scan_checkpoints", "until", "Scan",
           "ScanInfo", "OrderedUpdates", "MissingNonSequenceError"]
