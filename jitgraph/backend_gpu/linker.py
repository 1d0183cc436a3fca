"""GPU-aware linkers: every compiled linker (``cvm``, ``c|py``, ``vm``, ... and their
``_nogc`` forms) builds the GPU program (``program.py``) for graphs that have GPU nodes and
defers to its usual implementation otherwise.

The GPU backend (:mod:`.backend`) wraps each linker the compiler hands out, whoever registered
it, once wrapping is on: from the start when the flags request a GPU, else from
:func:`jitgraph.backend_gpu.use`. With ``device=cpu`` and no ``init_gpu_device`` nothing is
wrapped (and CuPy is never imported).
"""

from __future__ import annotations

from typing import Any, Sequence

from jitgraph.backend_gpu import device, requested
from jitgraph.backend_gpu.program import build_program, has_gpu_nodes
from jitgraph.compile.linker import Linker
from jitgraph.compile.rewriting import schedule
from jitgraph.graph.basic import Apply
from jitgraph.graph.fg import FunctionGraph

#: the linkers that are wrapped (``py`` stays the pure ``perform`` reference)
WRAPPED = ("vm", "vm_nogc", "cvm", "cvm_nogc", "c|py", "c|py_nogc", "c")


class GpuLinker(Linker):
    """``base`` for CPU graphs, the GPU program for graphs with GPU nodes."""

    def __init__(self, base: Linker) -> None:
        super().__init__(None)
        self.base = base
        self.name = base.name
        self.compiled = True

    @property
    def allow_gc(self) -> bool:
        return self.base.allow_gc

    @property
    def _allow_gc(self) -> Any:  # monitor/nanguard modes copy a linker and set this
        return self.base._allow_gc

    @_allow_gc.setter
    def _allow_gc(self, value: Any) -> None:
        if hasattr(self, "base"):
            self.base._allow_gc = value

    def make_program(self, fgraph: FunctionGraph, order: Sequence[Apply] | None = None) -> Any:
        if has_gpu_nodes(fgraph):
            if order is None:
                order = schedule(fgraph)
            program = build_program(fgraph, self.allow_gc, order)
            if program is not None:
                return program
        return self.base.make_program(fgraph, order)

    def __copy__(self) -> "GpuLinker":
        import copy

        return GpuLinker(copy.copy(self.base))

    def __repr__(self) -> str:
        return f"GpuLinker({self.base!r})"


_state = {"wrapping": False}


def wrap_linkers() -> None:
    """Wrap the linkers of :data:`WRAPPED` from now on (a GPU is in use)."""
    _state["wrapping"] = True


def wrap(name: str, linker: Linker) -> Linker:
    """``linker`` (called ``name``) as the compiler hands it out."""
    if _state["wrapping"] and name in WRAPPED and not isinstance(linker, GpuLinker):
        return GpuLinker(linker)
    return linker


def _requested() -> bool:
    try:
        return requested()[0] is not None
    except Exception:  # noqa: BLE001 - a bad device flag is reported by the config
        return False


def _wrap_as_flags_say() -> None:
    _state["wrapping"] = _requested()


_wrap_as_flags_say()
device.on_reset(_wrap_as_flags_say)  # a forgotten GPU (tests) no longer wraps the linkers
