"""jitgraph's native toolchain: generated kernels -> LLVM IR -> one native object,
stored and loaded again without Numba (see README.md). What the rest of jitgraph
uses of it is re-exported here; the modules inside are its implementation."""

from __future__ import annotations

from jitgraph.backend_cpu.native.direct import build as build_direct, prepare
from jitgraph.backend_cpu.native.objects import (KernelError, NATIVE_VERSION, NativeObject,
                                                 Unavailable, add_symbol, build, load,
                                                 python_function, retarget,
                                                 retargetable_function)

__all__ = ["KernelError", "NATIVE_VERSION", "NativeObject", "Unavailable", "add_symbol",
           "build", "build_direct", "load", "prepare", "python_function", "retarget",
           "retargetable_function"]
