"""``theano.compile`` kept its containers here; they are graph-level objects now
(:mod:`jitgraph.graph.container`). This path stays so that code and pickles naming it work."""

from jitgraph.graph.container import Container, SharedContainer

__all__ = ["Container", "SharedContainer"]
