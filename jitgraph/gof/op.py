"""``theano.gof.op``: the Op base classes (re-exported from :mod:`jitgraph.graph`)."""

from jitgraph.graph.op import Op
from jitgraph.graph.openmp_op import OpenMPOp

__all__ = ["Op", "OpenMPOp"]
