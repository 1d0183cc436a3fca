"""``theano.d3viz``: interactive HTML views of graphs (:func:`d3viz`) and their dot source
(:func:`d3write`); see :mod:`jitgraph.d3viz.d3viz`."""

from jitgraph.d3viz.d3viz import d3viz, d3write

__all__ = ["d3viz", "d3write"]
