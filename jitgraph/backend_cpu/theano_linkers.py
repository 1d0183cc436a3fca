"""Theano's C linker classes, mapped to jitgraph's compiled (LLVM) linkers.

Theano generated C code for ops and compiled it with g++. jitgraph compiles kernels through
LLVM instead, so its linkers by these names build the same compiled programs as the linker
names ``Mode(linker=...)`` accepts:

==================  ==================  ================================================
Theano class        jitgraph linker      behaviour
==================  ==================  ================================================
``CLinker``         ``'c'``              every op compiled (an op without a lowering is
                                         an error naming it); no garbage collection
``OpWiseCLinker``   ``'c|py'``           ops compiled where a lowering exists, ``perform``
                                         elsewhere (``fallback_on_perform=False``: ``'c'``)
``DualLinker``      DebugMode's linker   every node run with ``perform`` and compiled,
                                         results compared (``BadThunkOutput`` on mismatch)
==================  ==================  ================================================
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from jitgraph.backend_cpu.linker import NumbaLinker
from jitgraph.compile.debugmode import DebugLinker, DebugOptions
from jitgraph.graph.basic import Apply
from jitgraph.graph.fg import FunctionGraph


class _Scheduled:
    """Mixin: ``schedule(fgraph)`` (Theano's argument) picks the node order when given."""

    schedule: Callable[[FunctionGraph], Sequence[Apply]] | None = None

    def _order(self, fgraph: FunctionGraph, order: Sequence[Apply] | None
               ) -> Sequence[Apply] | None:
        if order is None and self.schedule is not None:
            return list(self.schedule(fgraph))
        return order


class CLinker(_Scheduled, NumbaLinker):
    """Every op of the graph compiled (jitgraph's ``'c'`` linker)."""

    def __init__(self, schedule: Callable | None = None) -> None:
        super().__init__("c", allow_gc=False, strict=True)
        self.schedule = schedule

    def make_program(self, fgraph: FunctionGraph, order: Sequence[Apply] | None = None) -> Any:
        return super().make_program(fgraph, self._order(fgraph, order))


class OpWiseCLinker(_Scheduled, NumbaLinker):
    """Ops compiled where they have a lowering, ``perform`` for the others (``'c|py'``);
    ``fallback_on_perform=False`` requires every op to compile."""

    def __init__(self, fallback_on_perform: bool = True, allow_gc: bool | None = None,
                 nice_errors: bool = True, schedule: Callable | None = None) -> None:
        super().__init__("c|py", allow_gc=allow_gc, strict=not fallback_on_perform)
        self.schedule = schedule

    def make_program(self, fgraph: FunctionGraph, order: Sequence[Apply] | None = None) -> Any:
        return super().make_program(fgraph, self._order(fgraph, order))


class DualLinker(DebugLinker):
    """Runs every node with ``perform`` and with its compiled kernel and compares the results
    (DebugMode's checking linker, without its other checks). A custom ``checker`` is not
    supported: results are compared with each output type's ``values_eq_approx``."""

    def __init__(self, checker: Callable | None = None, schedule: Callable | None = None
                 ) -> None:
        if checker is not None:
            raise TypeError("DualLinker(checker=...) is not supported: results are compared "
                            "with each output type's values_eq_approx, as DebugMode does")
        if schedule is not None:
            raise TypeError("DualLinker(schedule=...) is not supported: nodes run in the "
                            "order of jitgraph's scheduler")
        super().__init__(DebugOptions(patience=1, check_c=True, check_py=True,
                                      check_finite=False, warn_input_not_reused=False))


__all__ = ["CLinker", "OpWiseCLinker", "DualLinker"]
