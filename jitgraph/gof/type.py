"""``theano.gof.type``: the Type base class and the generic type (re-exported from
:mod:`jitgraph.graph.type`)."""

from jitgraph.graph.type import GenericType as Generic
from jitgraph.graph.type import Type, generic

__all__ = ["Type", "Generic", "generic"]
