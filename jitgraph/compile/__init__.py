"""Compiling graphs into callables (Theano's ``theano.compile``): ``function``, modes, linkers,
shared variables, user-defined ops (``OpFromGraph``, ``as_op``) and the compile-time tools.

``function`` and ``pfunc`` are bound when the package is imported (each shares its name with
the module defining it); every other name is imported on first use.
"""

from __future__ import annotations

import importlib
from typing import Any

from jitgraph.compile.backend import load_backends
from jitgraph.compile.function import function
from jitgraph.compile.pfunc import pfunc
from jitgraph.rewrite import load_tensor_rewrites

#: public name -> (module, attribute)
_EXPORTS: dict[str, tuple[str, str]] = {
    "Function": ("jitgraph.compile.function", "Function"),
    "FunctionMaker": ("jitgraph.compile.function", "FunctionMaker"),
    "UnusedInputError": ("jitgraph.compile.function", "UnusedInputError"),
    "In": ("jitgraph.compile.io", "In"),
    "Out": ("jitgraph.compile.io", "Out"),
    "Param": ("jitgraph.compile.io", "Param"),
    "SymbolicInput": ("jitgraph.compile.io", "SymbolicInput"),
    "SymbolicOutput": ("jitgraph.compile.io", "SymbolicOutput"),
    "Mode": ("jitgraph.compile.mode", "Mode"),
    "get_mode": ("jitgraph.compile.mode", "get_mode"),
    "get_default_mode": ("jitgraph.compile.mode", "get_default_mode"),
    "register_mode": ("jitgraph.compile.mode", "register_mode"),
    "register_linker": ("jitgraph.compile.mode", "register_linker"),
    "register_optimizer": ("jitgraph.compile.mode", "register_optimizer"),
    "FAST_RUN": ("jitgraph.compile.mode", "FAST_RUN"),
    "FAST_COMPILE": ("jitgraph.compile.mode", "FAST_COMPILE"),
    "OPT_NONE": ("jitgraph.compile.mode", "OPT_NONE"),
    "OPT_MERGE": ("jitgraph.compile.mode", "OPT_MERGE"),
    "OPT_FAST_RUN": ("jitgraph.compile.mode", "OPT_FAST_RUN"),
    "OPT_FAST_RUN_STABLE": ("jitgraph.compile.mode", "OPT_FAST_RUN_STABLE"),
    "OPT_FAST_COMPILE": ("jitgraph.compile.mode", "OPT_FAST_COMPILE"),
    "OPT_O2": ("jitgraph.compile.mode", "OPT_O2"),
    "OPT_O3": ("jitgraph.compile.mode", "OPT_O3"),
    "OPT_STABILIZE": ("jitgraph.compile.mode", "OPT_STABILIZE"),
    "OPT_UNSAFE": ("jitgraph.compile.mode", "OPT_UNSAFE"),
    "DebugMode": ("jitgraph.compile.debugmode", "DebugMode"),
    "MonitorMode": ("jitgraph.compile.monitormode", "MonitorMode"),
    "ProfileStats": ("jitgraph.compile.profiling", "ProfileStats"),
    "ScanProfileStats": ("jitgraph.compile.profiling_scan", "ScanProfileStats"),
    "shared": ("jitgraph.compile.sharedvalue", "shared"),
    "shared_constructor": ("jitgraph.compile.sharedvalue", "shared_constructor"),
    "SharedVariable": ("jitgraph.compile.sharedvalue", "SharedVariable"),
    "OpFromGraph": ("jitgraph.compile.builders", "OpFromGraph"),
    "inline_ofg_expansion": ("jitgraph.compile.builders", "inline_ofg_expansion"),
    "as_op": ("jitgraph.compile.ops", "as_op"),
    "FromFunctionOp": ("jitgraph.compile.ops", "FromFunctionOp"),
    "DeepCopyOp": ("jitgraph.compile.ops", "DeepCopyOp"),
    "deep_copy_op": ("jitgraph.compile.ops", "deep_copy_op"),
    "ViewOp": ("jitgraph.compile.ops", "ViewOp"),
    "view_op": ("jitgraph.compile.ops", "view_op"),
    "Shape": ("jitgraph.compile.ops", "Shape"),
    "Shape_i": ("jitgraph.compile.ops", "Shape_i"),
    "SpecifyShape": ("jitgraph.compile.ops", "SpecifyShape"),
    "Rebroadcast": ("jitgraph.compile.ops", "Rebroadcast"),
    "shape": ("jitgraph.compile.ops", "shape"),
    "specify_shape": ("jitgraph.compile.ops", "specify_shape"),
    "register_deep_copy_op_c_code": ("jitgraph.compile.ops", "register_deep_copy_op_c_code"),
    "register_view_op_c_code": ("jitgraph.compile.ops", "register_view_op_c_code"),
    "register_shape_c_code": ("jitgraph.compile.ops", "register_shape_c_code"),
    "register_shape_i_c_code": ("jitgraph.compile.ops", "register_shape_i_c_code"),
    "register_specify_shape_c_code": ("jitgraph.compile.ops", "register_specify_shape_c_code"),
    "register_rebroadcast_c_code": ("jitgraph.compile.ops", "register_rebroadcast_c_code"),
    "function_dump": ("jitgraph.compile.dump", "function_dump"),
    "orig_function": ("jitgraph.compile.pfunc", "orig_function"),
    "rebuild_collect_shared": ("jitgraph.compile.pfunc", "rebuild_collect_shared"),
    "std_fgraph": ("jitgraph.compile.specs", "std_fgraph"),
    "convert_function_input": ("jitgraph.compile.specs", "convert_function_input"),
    "fgraph_updated_vars": ("jitgraph.compile.specs", "fgraph_updated_vars"),
    "get_info_on_inputs": ("jitgraph.compile.specs", "get_info_on_inputs"),
    "Supervisor": ("jitgraph.compile.aliasing", "Supervisor"),
    "AliasedMemoryError": ("jitgraph.compile.aliasing", "AliasedMemoryError"),
    "alias_root": ("jitgraph.compile.aliasing", "alias_root"),
    "view_tree_set": ("jitgraph.compile.aliasing", "view_tree_set"),
    "infer_reuse_pattern": ("jitgraph.compile.aliasing", "infer_reuse_pattern"),
    "insert_deepcopy": ("jitgraph.compile.aliasing", "insert_deepcopy"),
    "check_equal": ("jitgraph.compile.checkers", "check_equal"),
    "register_checker": ("jitgraph.compile.checkers", "register_checker"),
    "PrintCurrentFunctionGraph": ("jitgraph.compile.graph_rewriters",
                                  "PrintCurrentFunctionGraph"),
    "AddFeatureOptimizer": ("jitgraph.compile.graph_rewriters", "AddFeatureOptimizer"),
    "AddDestroyHandler": ("jitgraph.rewrite.destroyhandler", "AddDestroyHandler"),
    "is_same_graph": ("jitgraph.graph.analysis", "is_same_graph"),
    "io_connection_pattern": ("jitgraph.graph.analysis", "io_connection_pattern"),
    "Variable": ("jitgraph.graph.basic", "Variable"),
    "config": ("jitgraph.config", "config"),
    "NullType": ("jitgraph.gradient", "NullType"),
    "DisconnectedType": ("jitgraph.gradient", "DisconnectedType"),
}


def _optdb() -> Any:
    """The rewrite database, with the tensor rewrites and the backends' passes registered (so
    queries see them)."""
    from jitgraph.rewrite.phases import optdb

    load_tensor_rewrites()
    load_backends()
    return optdb


def _local_useless() -> Any:
    from jitgraph.compile.graph_rewriters import local_useless

    return local_useless()


#: names whose value is computed on first use
_COMPUTED = {"optdb": _optdb, "local_useless": _local_useless}

_SUBMODULES = {"aliasing", "builders", "builders_grad", "checkers", "debugmode", "dump",
               "function_call", "function_module", "graph_rewriters", "io", "linker", "mode",
               "monitormode", "nanguardmode", "ops", "profilemode", "profiling",
               "profiling_scan", "rewriting", "sharedvalue", "specs"}

__all__ = ["function", "pfunc", *_EXPORTS, *_COMPUTED]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        module, attr = _EXPORTS[name]
        value = getattr(importlib.import_module(module), attr)
    elif name in _COMPUTED:
        value = _COMPUTED[name]()
    elif name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__) | _SUBMODULES)
