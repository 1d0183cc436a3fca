"""jitgraph: a Theano-style symbolic array compiler.

Graphs of tensor variables are rewritten and lowered to Numba kernels on the CPU and to CuPy/NVRTC
kernels on the GPU; no C toolchain is needed. ``import jitgraph`` is cheap: it imports neither numba
nor cupy, and the public names below load their modules on first use.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

from jitgraph.about import VERSION as __version__  # noqa: E402

# Theano's module paths (jitgraph.tensor.nnet.sigm, ...) are served from one table; the finder
# must be in place before any subpackage is imported.
from jitgraph._facade.finder import install as _install_theano_paths  # noqa: E402

_install_theano_paths()

from jitgraph.config import config  # noqa: E402  (config first: everything reads it)

change_flags = config.change_flags

from jitgraph.logging_setup import disable_log_handler, has_handlers  # noqa: E402
# What lower layers ask the package for by name (jitgraph.services), and the modules loaded as
# plugins (rewrites, backends): wired once, here at the top (jitgraph/wiring.py).
from jitgraph.wiring import (BACKEND_MODULES, FAMILY_REWRITE_MODULES,  # noqa: E402,F401
                             REWRITE_MODULES)

# public name -> (module, attribute), imported on first use. A name whose module or attribute
# does not exist (yet) is left out of __all__/dir() and raises AttributeError, never a stub.
# To export a name at the top level, add one line here (and its test in tests/test_namespaces.py).
_LAZY = {
    "function": ("jitgraph.compile.function", "function"),
    "function_dump": ("jitgraph.compile.dump", "function_dump"),
    "FunctionMaker": ("jitgraph.compile.function", "FunctionMaker"),
    "In": ("jitgraph.compile.io", "In"),
    "Out": ("jitgraph.compile.io", "Out"),
    "Param": ("jitgraph.compile.io", "Param"),
    "SymbolicInput": ("jitgraph.compile.io", "SymbolicInput"),
    "SymbolicOutput": ("jitgraph.compile.io", "SymbolicOutput"),
    "shared": ("jitgraph.compile.sharedvalue", "shared"),
    "SharedVariable": ("jitgraph.compile.sharedvalue", "SharedVariable"),
    "Mode": ("jitgraph.compile.mode", "Mode"),
    "ProfileMode": ("jitgraph.compile.profilemode", "ProfileMode"),
    "ProfileStats": ("jitgraph.compile.profiling", "ProfileStats"),
    "OpFromGraph": ("jitgraph.compile.builders", "OpFromGraph"),
    "as_op": ("jitgraph.compile.ops", "as_op"),
    "Container": ("jitgraph.graph.container", "Container"),
    "Linker": ("jitgraph.compile.linker", "Linker"),
    "LocalLinker": ("jitgraph.compile.linker", "Linker"),  # every jitgraph linker is local
    "PerformLinker": ("jitgraph.compile.linker", "PerformLinker"),
    "CLinker": ("jitgraph.backend_cpu.theano_linkers", "CLinker"),
    "OpWiseCLinker": ("jitgraph.backend_cpu.theano_linkers", "OpWiseCLinker"),
    "DualLinker": ("jitgraph.backend_cpu.theano_linkers", "DualLinker"),
    "grad": ("jitgraph.tensor.core.gradient", "grad"),
    "Rop": ("jitgraph.gradient", "Rop"),
    "Lop": ("jitgraph.gradient", "Lop"),
    "subgraph_grad": ("jitgraph.gradient", "subgraph_grad"),
    "OrderedUpdates": ("jitgraph.scan.updates", "OrderedUpdates"),
    "scan": ("jitgraph.scan.builder", "scan"),
    "scan_checkpoints": ("jitgraph.scan.checkpoints", "scan_checkpoints"),
    "map": ("jitgraph.scan.views", "map"),
    "reduce": ("jitgraph.scan.views", "reduce"),
    "foldl": ("jitgraph.scan.views", "foldl"),
    "foldr": ("jitgraph.scan.views", "foldr"),
    "dot": ("jitgraph.tensor.core.helpers", "operand_dot"),
    "get_scalar_constant_value": ("jitgraph.tensor.core.basic", "get_scalar_constant_value"),
    "clone_replace": ("jitgraph.graph.basic", "clone_replace"),
    "clone": ("jitgraph.graph.replace", "clone"),
    "pp": ("jitgraph.graph.printing", "pp"),
    "pprint": ("jitgraph.graph.printing", "pprint"),
    "debugprint": ("jitgraph.graph.printing", "debugprint"),
    "dprint": ("jitgraph.graph.printing", "debugprint"),
    "FunctionGraph": ("jitgraph.graph.fg", "FunctionGraph"),
    "InconsistencyError": ("jitgraph.graph.fg", "InconsistencyError"),
    "Variable": ("jitgraph.graph.basic", "Variable"),
    "Constant": ("jitgraph.graph.basic", "Constant"),
    "Apply": ("jitgraph.graph.basic", "Apply"),
    "Op": ("jitgraph.graph.op", "Op"),
    "OpenMPOp": ("jitgraph.graph.openmp_op", "OpenMPOp"),
    "Type": ("jitgraph.graph.type", "Type"),
    "Generic": ("jitgraph.graph.type", "GenericType"),
    "generic": ("jitgraph.graph.type", "generic"),
    "object2": ("jitgraph.graph.utils", "object2"),
    "test": ("jitgraph.self_test", "test"),
    "sparse_grad": ("jitgraph.sparse.subtensor_grad", "sparse_grad"),
    "provide_theano": ("jitgraph.theano_compat", "provide_theano"),
    # Theano's private helper its own tests and some user code reach as ``theano._asarray``
    # (left out of __all__, as an underscore name)
    "_asarray": ("jitgraph.misc.safe_asarray", "_asarray"),
}
_SUBMODULES = {"tensor", "compile", "graph", "rewrite", "printing", "gradient", "cache",
               "backend_cpu", "backend_gpu", "scalar", "gof", "scan", "scan_module", "ifelse",
               "random", "sandbox", "sparse", "misc", "configparser", "compat", "configdefaults",
               "updates", "version"}
# Submodules reached as attributes but left out of __all__: importing them needs an optional
# extra (``jitgraph.dask`` imports Dask), so ``from jitgraph import *`` must not touch them.
_OPTIONAL_SUBMODULES = {"dask"}


def _lookup(name: str) -> Any:
    """The value of the lazy name ``name``; AttributeError if its provider lacks it."""
    module, attr = _LAZY[name]
    try:
        return getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError):
        raise AttributeError(f"module 'jitgraph' has no attribute {name!r} ({module}.{attr} "
                             "is not available)") from None


def _provided(name: str) -> bool:
    try:
        _lookup(name)
        return True
    except AttributeError:
        return False


_EAGER = ["config", "change_flags", "disable_log_handler", "has_handlers"]


def _public_names() -> list[str]:
    """``__all__``: computed when first asked for (it imports the providers of the lazy names,
    so that only names that exist are listed)."""
    return [*_EAGER, *(n for n in _LAZY if not n.startswith("_") and _provided(n)),
            *sorted(_SUBMODULES)]


def __getattr__(name: str) -> Any:
    if name == "__all__":
        return _public_names()
    if name in _LAZY:
        value = _lookup(name)
        globals()[name] = value
        return value
    if name in _SUBMODULES or name in _OPTIONAL_SUBMODULES:
        return importlib.import_module(f"jitgraph.{name}")
    if name == "theano":  # Theano 1.0's package is its own attribute: PyMC3 3.x does
        return sys.modules[__name__]  # `from theano import theano`
    raise AttributeError(f"module 'jitgraph' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_public_names()))
