"""``jitgraph.printing``: ``debugprint`` and ``pp`` (Theano's module name)."""

from jitgraph.graph.printing import debugprint, pp, pprint

__all__ = ["debugprint", "pp", "pprint"]
