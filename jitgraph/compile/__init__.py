"""Compiling graphs into callables: ``function``, modes, linkers, shared variables."""

from jitgraph.compile.function import Function, FunctionMaker, function
from jitgraph.compile.io import In, Out
from jitgraph.compile.mode import Mode, get_default_mode, get_mode
from jitgraph.compile.sharedvalue import SharedVariable, shared

__all__ = ["function", "Function", "FunctionMaker", "In", "Out", "Mode", "get_mode",
           "get_default_mode", "shared", "SharedVariable"]
