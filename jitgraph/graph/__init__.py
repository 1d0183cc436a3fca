"""The graph IR: variables, Apply nodes, ops, types, FunctionGraph, traversal and printing."""

from jitgraph.graph.basic import (Apply, Constant, Variable, ancestors, clone, clone_replace,
                                  graph_inputs, io_toposort)
from jitgraph.graph.fg import Feature, FunctionGraph, InconsistencyError
from jitgraph.graph.op import Op
from jitgraph.graph.type import Type

__all__ = ["Apply", "Constant", "Variable", "Op", "Type", "FunctionGraph", "Feature",
           "InconsistencyError", "ancestors", "clone", "clone_replace", "graph_inputs",
           "io_toposort"]
