"""``jitgraph.gof`` (Theano's ``theano.gof``): the graph classes under their old import path.

Only re-exports; the code lives in :mod:`jitgraph.graph` (and the compile/backend packages for
the linkers). ``gof.opt`` has Theano's node-rewrite spellings (``local_optimizer`` on ``f(node)``,
``OpRemove``, ``OpSub``) next to jitgraph's own rewriters, which take ``(fgraph, node)``: see
:mod:`jitgraph.rewrite`.
"""

from __future__ import annotations

import importlib
from typing import Any

from jitgraph.gof import fg, graph, op, opt, type, utils  # noqa: A004  (Theano's module names)
from jitgraph.graph.basic import Apply, Constant, Variable
from jitgraph.graph.c_code import ParamsType
from jitgraph.graph.fg import Feature, FunctionGraph, InconsistencyError, MissingInputError
from jitgraph.graph.op import Op
from jitgraph.graph.openmp_op import OpenMPOp
from jitgraph.graph.type import GenericType as Generic
from jitgraph.graph.type import Type, generic
from jitgraph.graph.utils import MethodNotDefined, hashtype, object2

# Names whose modules import the compiler: loaded on first use.
_LAZY = {
    "Container": ("jitgraph.graph.container", "Container"),
    "Linker": ("jitgraph.compile.linker", "Linker"),
    "LocalLinker": ("jitgraph.compile.linker", "Linker"),
    "PerformLinker": ("jitgraph.compile.linker", "PerformLinker"),
    "CLinker": ("jitgraph.backend_cpu.theano_linkers", "CLinker"),
    "OpWiseCLinker": ("jitgraph.backend_cpu.theano_linkers", "OpWiseCLinker"),
    "DualLinker": ("jitgraph.backend_cpu.theano_linkers", "DualLinker"),
    **{name: ("jitgraph.rewrite.theano_api", name)
       for name in ("LocalOptimizer", "OpRemove", "OpSub", "local_optimizer")},
}

__all__ = ["Apply", "Constant", "Variable", "Op", "OpenMPOp", "Type", "Generic", "generic",
           "FunctionGraph", "Feature", "InconsistencyError", "MissingInputError",
           "MethodNotDefined", "hashtype", "object2", "ParamsType", "graph", "fg", "op", "opt",
           "type", "utils", *_LAZY]


# Theano's gof submodules that ``import theano`` loaded: attributes, imported on first use.
_SUBMODULES = {"toolbox", "destroyhandler", "link", "vm", "optdb", "null_type", "sched",
               "callcache", "compiledir", "compilelock", "params_type", "cc", "cmodule"}


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    if name in _LAZY:
        module, attr = _LAZY[name]
        value = getattr(importlib.import_module(module), attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'jitgraph.gof' has no attribute {name!r}")
