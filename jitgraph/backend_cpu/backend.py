"""The CPU backend as the compiler sees it (:class:`~jitgraph.compile.backend.Backend`).

Importing this module registers it (the top package lists it in ``BACKEND_MODULES``). It
imports neither Numba nor the lowerings: counters and kernel references are read from the
kernel module only once something loaded it.
"""

from __future__ import annotations

import sys
from typing import Any, Callable, Mapping

from jitgraph.compile.backend import Backend, register
from jitgraph.compile.linker import Linker, Program
from jitgraph.graph.basic import Apply
from jitgraph.graph.fg import FunctionGraph

import jitgraph.backend_cpu as package
from jitgraph.backend_cpu.linker import LINKERS
from jitgraph.config import config

#: the module whose compiled kernels exist once it is loaded
_KERNELS = "jitgraph.backend_cpu.codegen.kernels"


class CpuBackend(Backend):
    """Numba/LLVM kernels run by one generated driver per graph (``cvm``, ``c|py``, ``c``)."""

    name = "cpu"
    priority = 0

    def linkers(self) -> Mapping[str, Callable[[], Linker]]:
        return LINKERS

    def checked_program(self, fgraph: FunctionGraph, order: list[Apply]) -> Program | None:
        if not config.cxx:
            return None
        return package.build_program(fgraph, False, order)

    def counters(self) -> dict[str, float]:
        kernels = sys.modules.get(_KERNELS)
        if kernels is None:
            return {}
        stats = kernels.compile_stats()
        return {"compiled": stats.get("compiled_entries", 0),
                "compile_seconds": stats.get("compile_seconds", 0.0)}

    def pickle_references(self) -> Callable[[Any], tuple | None] | None:
        kernels = sys.modules.get(_KERNELS)  # no kernel exists before it is loaded
        return None if kernels is None else kernels.entry_reference


BACKEND = register(CpuBackend())
