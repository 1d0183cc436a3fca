"""``theano.gof.fg``: FunctionGraph (re-exported from :mod:`jitgraph.graph.fg`)."""

from jitgraph.graph.fg import Feature, FunctionGraph, InconsistencyError, MissingInputError

__all__ = ["Feature", "FunctionGraph", "InconsistencyError", "MissingInputError"]
