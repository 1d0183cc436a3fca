"""jitgraph: a Theano-style symbolic array compiler.

Graphs of tensor variables are rewritten and lowered to Numba kernels on the CPU and to CuPy/NVRTC
kernels on the GPU; no C toolchain is needed. ``import jitgraph`` is cheap: it imports neither numba
nor cupy, and the public names below load their modules on first use.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

from jitgraph.config import config  # noqa: E402  (config first: everything reads it)

change_flags = config.change_flags

# public name -> (module, attribute)
_LAZY = {
    "function": ("jitgraph.compile.function", "function"),
    "In": ("jitgraph.compile.io", "In"),
    "Out": ("jitgraph.compile.io", "Out"),
    "shared": ("jitgraph.compile.sharedvalue", "shared"),
    "Mode": ("jitgraph.compile.mode", "Mode"),
    "ProfileMode": ("jitgraph.compile.profilemode", "ProfileMode"),
    "grad": ("jitgraph.tensor.gradient", "grad"),
    "clone_replace": ("jitgraph.graph.basic", "clone_replace"),
    "clone": ("jitgraph.graph.basic", "clone_replace"),
    "pp": ("jitgraph.graph.printing", "pp"),
    "pprint": ("jitgraph.graph.printing", "pprint"),
    "debugprint": ("jitgraph.graph.printing", "debugprint"),
    "dprint": ("jitgraph.graph.printing", "debugprint"),
    "FunctionGraph": ("jitgraph.graph.fg", "FunctionGraph"),
    "Variable": ("jitgraph.graph.basic", "Variable"),
    "Apply": ("jitgraph.graph.basic", "Apply"),
    "Op": ("jitgraph.graph.op", "Op"),
    "SharedVariable": ("jitgraph.compile.sharedvalue", "SharedVariable"),
}
_SUBMODULES = {"tensor", "compile", "graph", "rewrite", "printing", "gradient", "cache",
               "backend_cpu", "backend_gpu"}

__all__ = ["config", "change_flags", *_LAZY, *sorted(_SUBMODULES)]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        module, attr = _LAZY[name]
        value = getattr(importlib.import_module(module), attr)
        globals()[name] = value
        return value
    if name in _SUBMODULES:
        return importlib.import_module(f"jitgraph.{name}")
    raise AttributeError(f"module 'jitgraph' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
