"""``theano.scan_module.scan``: the ``scan`` function (:mod:`jitgraph.scan.builder`)."""

from collections import OrderedDict

from jitgraph.graph.shared import SharedVariable
from jitgraph.config import config
from jitgraph.scan.builder import scan
from jitgraph.scan.updates import OrderedUpdates

__all__ = ["scan", "OrderedUpdates", "OrderedDict", "SharedVariable", "config"]
