"""``theano.gof.null_type``: :class:`NullType`, the type of an undefined gradient, and
``null_type()`` (:mod:`jitgraph.graph.gradient_types`, the ones ``grad`` uses)."""

from jitgraph.graph.gradient_types import NullType, null_type

__all__ = ["NullType", "null_type"]
