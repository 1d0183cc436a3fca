"""The compiled linkers (:data:`LINKERS`, which the CPU backend gives the compiler).

==============  ===========================================================================
``cvm``         Numba kernels where a lowering exists, ``perform`` elsewhere; one generated
                driver per graph; intermediates freed after their last use per ``allow_gc``.
``cvm_nogc``    the same, keeping intermediate buffers between calls (reused while shapes
                repeat).
``c|py``        same as ``cvm`` (Theano's op-wise C linker with a Python fallback).
``c|py_nogc``   same as ``cvm_nogc``.
``c``           every op must have a registered lowering (else ``MissingLowering`` naming the
                op, raised when the function is compiled); no garbage collection.
==============  ===========================================================================

With ``cxx=''`` (compiled code disabled) ``cvm``/``c|py`` (and their ``_nogc`` forms) give the
Python VM with the same garbage-collection behaviour, as Theano did without g++; ``c`` raises.
Importing this module does not import Numba: that happens when the first program is built.
"""

from __future__ import annotations

from typing import Any, Sequence

from jitgraph.backend_cpu.runtime.driver import build_program
from jitgraph.compile.linker import Linker, VMLinker
from jitgraph.compile.rewriting import schedule
from jitgraph.config import config
from jitgraph.graph.basic import Apply
from jitgraph.graph.fg import FunctionGraph


class CompiledCodeDisabled(RuntimeError):
    """The ``c`` linker was asked for while ``cxx`` is empty."""


class NumbaLinker(Linker):
    """Builds a :class:`~jitgraph.backend_cpu.runtime.driver.CompiledProgram`."""

    compiled = True

    def __init__(self, name: str = "cvm", allow_gc: bool | None = None, strict: bool = False
                 ) -> None:
        super().__init__(allow_gc)
        self.name = name
        self.strict = strict

    def make_program(self, fgraph: FunctionGraph, order: Sequence[Apply] | None = None) -> Any:
        if not config.cxx:
            if self.strict:
                raise CompiledCodeDisabled("linker 'c' needs compiled code, but the cxx flag is "
                                           "empty; set cxx (any value enables Numba) or use "
                                           "linker='vm'")
            return VMLinker(self._allow_gc).make_program(fgraph, order)
        stored = getattr(fgraph, "stored_program", None)
        if stored is not None and stored.matches(order, self.allow_gc, self.strict):
            fgraph.stored_program = None  # one program per graph: a second link builds anew
            return stored.restore(fgraph)

        if order is None:
            order = schedule(fgraph)
        program = build_program(fgraph, self.allow_gc, order, strict=self.strict)
        program.link_settings = (self.allow_gc, self.strict)
        return program


def _factory(name: str, allow_gc: bool | None, strict: bool = False):
    def make() -> Linker:
        if not config.cxx and not strict:
            linker = VMLinker(allow_gc)
            return linker
        return NumbaLinker(name, allow_gc, strict)

    return make


#: linker name -> factory
LINKERS = {
    "cvm": _factory("cvm", None),
    "cvm_nogc": _factory("cvm_nogc", False),
    "c|py": _factory("c|py", None),
    "c|py_nogc": _factory("c|py_nogc", False),
    "c": _factory("c", False, strict=True),
}
LINKER_NAMES = tuple(LINKERS)
