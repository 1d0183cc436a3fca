"""CPU backend: graphs lowered to Numba (LLVM) kernels, run by one generated driver per graph.

Pipeline (one module per step):

* :mod:`.registry` -- op type -> lowering (``register_lowering``; ``lower`` is a
  ``functools.singledispatch``). ``lower_elemwise``, ``lower_reduce``, ``lower_blas``,
  ``lower_nnet``, ``lower_views`` register the lowerings of the tensor library.
* :mod:`.scalar_templates` -- how scalar-op expressions (:mod:`jitgraph.scalar_expr`) are written
  in Python for Numba and the direct compiler.
* :mod:`.elemwise_codegen`, :mod:`.reduce_codegen` -- generated kernel sources, one loop nest per
  ``Elemwise``/fused ``Composite`` (or reduction, with a fused elementwise ``pre_op``).
* :mod:`.vecmath` -- vectorizable exp/log/log1p/sin/cos/tanh polynomials; :mod:`.blocks` -- the
  block functions kernels call with them.
* :mod:`.kernels` -- :class:`~.kernels.KernelSource` (structural key + module source that can be
  written to ``mod.py`` and imported again) and the in-process memo: each distinct kernel is
  compiled once, with an explicit signature, whatever graph needs it.
* :mod:`.native`, :mod:`.native_ir` -- what Numba compiled, as an object file with a CPython
  entry written in LLVM IR: stored in the compiledir and loaded by later processes with llvmlite
  alone (a warm process never imports Numba).
* :mod:`.driver` -- builds the :class:`~.driver.CompiledProgram` of a graph: a straight-line
  Python function calling the kernels with preallocated cells.
* :mod:`.parallel` -- ``openmp=True``: the same kernels on chunks of the outer axis, on threads.
* :mod:`.options` -- ``cxx``/``gcc.cxxflags``/``cmodule.*`` mapped to Numba/LLVM options.
* :mod:`.linker` -- the ``cvm``, ``cvm_nogc``, ``c|py``, ``c|py_nogc`` and ``c`` linkers;
  :mod:`.backend` -- the backend as the compiler sees it (registered when imported).

Importing this package does not import Numba; neither does running kernels loaded from the
compiledir.
"""

from __future__ import annotations

from typing import Any

from jitgraph.backend_cpu.codegen.kernels import compile_stats as _stats
from jitgraph.backend_cpu.lowering.registry import (load_lowerings_for, lower as _lower,
                                                    register_lowering as _reg)
from jitgraph.backend_cpu.runtime.driver import build_program as _build

__all__ = ["build_program", "register_lowering", "lower", "compile_stats", "kernel_keys"]


def build_program(fgraph: Any, allow_gc: bool = True, order: Any = None, strict: bool = False
                  ) -> Any:
    """Lower ``fgraph`` and return its :class:`~.driver.CompiledProgram`."""
    return _build(fgraph, allow_gc, order, strict)


def register_lowering(*op_types: type) -> Any:
    """Decorator: ``fn(op, node, ctx) -> Lowered | None`` lowers nodes of ``op_types``."""
    return _reg(*op_types)


def lower(op: Any, node: Any, ctx: Any) -> Any:
    load_lowerings_for(type(op))
    return _lower(op, node, ctx)


def compile_stats() -> dict:
    """Kernels compiled in this process and the seconds spent compiling them."""
    return _stats()


def kernel_keys(fn: Any) -> list:
    """The structural keys of the kernels a compiled ``jitgraph.function`` uses."""
    program = getattr(fn, "_program", fn)
    return program.kernel_keys() if hasattr(program, "kernel_keys") else []
