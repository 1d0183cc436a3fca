"""``theano.gof.destroyhandler``: the :class:`DestroyHandler` feature that keeps in-place
operations safe (:mod:`jitgraph.rewrite.destroyhandler`)."""

from jitgraph.graph.fg import InconsistencyError
from jitgraph.misc.ordered_set import OrderedSet
from jitgraph.rewrite.destroyhandler import (AddDestroyHandler, DestroyHandler,
                                             ensure_destroy_handler, get_destroy_handler)

__all__ = ["DestroyHandler", "AddDestroyHandler", "ensure_destroy_handler",
           "get_destroy_handler", "InconsistencyError", "OrderedSet"]
