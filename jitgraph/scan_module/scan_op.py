"""``theano.scan_module.scan_op``: the :class:`Scan` op, the class of every loop node in a
jitgraph graph (``isinstance(node.op, Scan)``), from :mod:`jitgraph.scan.op`.

Theano's ``Scan`` kept its inner graph as lists of inputs and outputs in a fixed order
(``op.inputs``, ``op.outputs``, ``op.info``); jitgraph's keeps a :class:`~jitgraph.scan.info.ScanInfo`
and an inner function graph: see :mod:`jitgraph.scan.op` before reading its fields.
"""

from jitgraph.compile.profiling_scan import ScanProfileStats
from jitgraph.scan.info import ScanInfo
from jitgraph.scan.op import Scan

__all__ = ["Scan", "ScanInfo", "ScanProfileStats"]
