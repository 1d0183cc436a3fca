"""``theano.gof.graph``: variables, nodes and graph traversal (re-exported from
:mod:`jitgraph.graph.basic`)."""

from jitgraph.graph.basic import (Apply, Constant, Variable, ancestors, clone, clone_get_equiv,
                                  equal_computations, io_toposort, is_in_ancestors,
                                  stack_search)
from jitgraph.graph.basic import graph_inputs as inputs

__all__ = ["Apply", "Constant", "Variable", "ancestors", "clone", "clone_get_equiv",
           "equal_computations", "inputs", "io_toposort", "is_in_ancestors", "stack_search"]
