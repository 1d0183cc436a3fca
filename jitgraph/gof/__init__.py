"""``jitgraph.gof`` (Theano's ``theano.gof``): the graph classes under their old import path.

Only re-exports; the code lives in :mod:`jitgraph.graph` (and the compile/backend packages for
the linkers). ``gof.opt`` has Theano's node-rewrite spellings (``local_optimizer`` on ``f(node)``,
``OpRemove``, ``OpSub``) next to jitgraph's own rewriters, which take ``(fgraph, node)``: see
:mod:`jitgraph.rewrite`.
"""

from __future__ import annotations

from jitgraph.gof import fg, graph, op, opt, type, utils  # noqa: A004  (Theano's module names)
from jitgraph.graph.basic import Apply, Constant, Variable
from jitgraph.graph.c_code import ParamsType
from jitgraph.graph.fg import Feature, FunctionGraph, InconsistencyError, MissingInputError
from jitgraph.graph.op import Op
from jitgraph.graph.openmp_op import OpenMPOp
from jitgraph.graph.type import GenericType as Generic
from jitgraph.graph.type import Type, generic
from jitgraph.graph.utils import MethodNotDefined, hashtype, object2

__all__ = ["Apply", "Constant", "Variable", "Op", "OpenMPOp", "Type", "Generic", "generic",
           "FunctionGraph", "Feature", "InconsistencyError", "MissingInputError",
           "MethodNotDefined", "hashtype", "object2", "ParamsType", "graph", "fg", "op", "opt",
           "type", "utils",
           # from the compiler and the rewrites, added by jitgraph._facade.paths (imported on
           # first use), as are Theano's submodule attributes (toolbox, link, vm, ...)
           "Container", "Linker", "LocalLinker", "PerformLinker", "CLinker", "OpWiseCLinker",
           "DualLinker", "LocalOptimizer", "OpRemove", "OpSub", "local_optimizer"]
