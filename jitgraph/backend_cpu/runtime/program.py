"""A compiled program: the generated driver ``run()`` of a graph, its thunks and cells.

:mod:`.driver` builds one by lowering every node; :mod:`.stored_program` restores one from
the compiledir. This module is what both produce and what runs, so restoring a program does not
import the lowerings or the code generators.
"""

from __future__ import annotations

import bisect
from typing import Any, Callable, Sequence

from jitgraph.backend_cpu.native import KernelError
from jitgraph.backend_cpu.runtime.stored_program import StoredProgram
from jitgraph.compile.linker import InlinedCall, Program, raise_with_node
from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.fg import FunctionGraph

#: the most lines of ``run()`` a function's call inlines: what inlining saves (a frame and a
#: cell round trip per result, ~0.1 us a call) only shows next to a small program's run, while
#: compiling the call again with the driver's lines costs ~7 us a line (0.09 s for the 12000
#: lines of a 1500-node training step)
INLINED_LINES = 1000

#: thunk kinds, as shown by the profiler
NUMBA = "Numba"  # a compiled kernel
BLAS = "BLAS"    # NumPy's BLAS (np.dot) called from the driver
PY = "Py"        # Python / NumPy code: a registered view/shape lowering or ``perform``


#: what marks a placeholder in a driver template (a NUL never occurs in generated Python:
#: ``repr`` escapes it)
_MARK = "\x00"


def placeholder(number: int) -> str:
    """The placeholder of result ``number`` in a driver template (see :class:`InlinableRun`)."""
    return f"{_MARK}{number}{_MARK}"


class InlinableRun:
    """The driver's ``run()`` in a form a function's call can inline.

    ``body`` is the text of ``run()``'s ``try`` block (indented by 8) in which the value of
    each result -- a graph output a node computes -- is a placeholder; ``cells[k]`` is the
    driver's global name of result ``k``'s cell, and ``local_ok[k]`` says whether result
    ``k`` may live in a local variable instead: it is set by a line of its own at a node's top
    level (so on every run), its cell is only ever read or written as ``cell[0]``, and no
    object (a perform node, a loop) is handed the cell to write it.

    The lines of node ``nodes[j]`` start at line ``starts[j]`` of ``body`` (0-based): the
    ``except`` clause right after the body finds the failing node from the line that raised
    (:meth:`failed_node`), so that the body needs no line per node saying which one runs.
    """

    def __init__(self, body: str, cells: Sequence[str], local_ok: Sequence[bool],
                 starts: Sequence[int] = (), nodes: Sequence[int] = ()) -> None:
        self.body = body
        self.cells = list(cells)
        self.local_ok = list(local_ok)
        self.starts = list(starts)
        self.nodes = list(nodes)
        self._lines = body.count("\n") + 1

    def lines(self) -> int:
        """The number of lines of ``body``."""
        return self._lines

    def failed_node(self, exc: BaseException) -> int | None:
        """The node whose lines raised ``exc``, caught by the ``except`` clause that follows
        the body (in ``run()`` or in a call inlining it) and calls ``_fail(_exc)`` on the next
        line; None when the line is not the body's."""
        tb = exc.__traceback__
        if tb is None or not self.starts:
            return None
        # the frame runs the _fail(_exc) line: the body ends two lines above it
        first = tb.tb_frame.f_lineno - 1 - self._lines
        line = tb.tb_lineno - first
        if not 0 <= line < self._lines:
            return None
        return self.nodes[bisect.bisect_right(self.starts, line) - 1]

    def render(self, template: str, values: Sequence[str] | None = None) -> str:
        """``template`` with each placeholder replaced by ``values[k]`` (default: the cell's
        ``cell[0]``)."""
        if values is None:
            values = [f"{name}[0]" for name in self.cells]
        parts = template.split(_MARK)
        parts[1::2] = [values[int(number)] for number in parts[1::2]]
        return "".join(parts)


class CompiledProgram(Program):
    """A :class:`Program` whose ``run`` is the generated driver.

    Its thunks (one function per node, ``thunk_<i>`` in ``thunk_source``) are compiled on
    first use, in the driver's namespace: only the tools that run nodes one by one (DebugMode,
    MonitorMode, the profiler) need them, and compiling them costs as much as the driver.
    """

    def __init__(self, fgraph: FunctionGraph, order: list[Apply], thunk_source: str,
                 storage: dict, free_after: list, kinds: list[str], run: Callable,
                 source: str, lowered: list, inlinable: InlinableRun | None = None) -> None:
        self._thunks: list[Callable] | None = None
        self.thunk_source = thunk_source
        self._driver_run = run  # (``run`` may be wrapped later; this is the driver itself)
        super().__init__(fgraph, order, None, storage, free_after, kinds)  # type: ignore[arg-type]
        self.run = run  # type: ignore[method-assign]
        self.driver_source = source
        self.lowered = lowered
        self.inlinable = inlinable
        #: variables evaluated once at link time (views of constants)
        self.precomputed: set[Variable] = set()
        self.compiled_while_linking: dict = {"compiled": 0, "compile_seconds": 0.0}
        #: False when every node is a compiled kernel or BLAS call, which never raise NumPy
        #: floating-point warnings: the caller may skip ``np.errstate``.
        self.needs_errstate = any(k == PY and not lw.constant_outputs
                                  for k, lw in zip(kinds, lowered))

    @property  # type: ignore[override]
    def thunks(self) -> list[Callable]:
        """One function per node of ``order`` (compiled the first time they are asked for)."""
        if self._thunks is None:
            ns = self._driver_run.__globals__
            exec(compile(self.thunk_source, "<jitgraph driver thunks>", "exec"), ns)
            self._thunks = [ns[f"thunk_{i}"] for i in range(len(self.order))]
        return self._thunks

    @thunks.setter
    def thunks(self, thunks: list[Callable] | None) -> None:
        self._thunks = thunks

    def kernel_keys(self) -> list[tuple]:
        return [k for lw in self.lowered for k in lw.kernel_keys]

    def stored(self) -> Any:
        """This program in the form the compiledir keeps (see :mod:`.stored_program`); None
        when it was not built by a linker that can restore it."""
        settings = getattr(self, "link_settings", None)
        if settings is None:
            return None
        return StoredProgram(self, *settings)

    def compile_report(self) -> dict:
        """Kernels compiled while this program was linked (the profiler prints it); kernels
        other graphs had compiled already are reused and not counted."""
        return dict(self.compiled_while_linking)

    def inline_call(self, results: Sequence[list], run: Callable) -> InlinedCall | None:
        """The driver's lines for a function's call, the results in ``results`` (cells) kept
        in locals where :class:`InlinableRun` allows; None when ``run`` is not the driver as
        generated (a profiled, monitored or guarded program) or longer than
        :data:`INLINED_LINES` lines."""
        layout = self.inlinable
        if (layout is None or run is not self._driver_run or layout.lines() > INLINED_LINES
                or any(getattr(self, hook) is not None
                       for hook in ("callback", "before_run", "pre_node", "post_node"))):
            return None
        ns = run.__globals__
        number = {id(ns[name]): k for k, name in enumerate(layout.cells)}
        values = [f"{name}[0]" for name in layout.cells]
        exprs: list[str | None] = []
        kept: dict[int, tuple[str, str]] = {}
        for cell in results:
            k = number.get(id(cell))
            if k is None or not layout.local_ok[k]:
                exprs.append(None)
                continue
            values[k] = f"_fc_l_{layout.cells[k]}"  # (a result listed twice: the same local)
            kept[id(cell)] = (layout.cells[k], values[k])
            exprs.append(values[k])
        lines = ["    try:", *layout.render(layout.body, values).split("\n"),
                 "    except Exception as _exc:", "        _fail(_exc)"]
        return InlinedCall(lines, exprs, kept, ns)


def from_driver(fgraph: FunctionGraph, order: list[Apply], source: str, ns: dict,
                storage: dict, free_after: list, lowered: list, code: Any = None,
                inlinable: InlinableRun | None = None, thunk_source: str = ""
                ) -> CompiledProgram:
    """The program whose driver is ``source`` (its ``run()``), executed in ``ns`` (which
    holds its kernels, cells and constants); ``lowered`` says, per node of ``order``, what
    kind of thunk it is. ``code``: ``source`` compiled already (a stored program's);
    ``inlinable``: its ``run()`` as a template; ``thunk_source``: the node's thunks
    (compiled when first asked for, see :class:`CompiledProgram`)."""
    ns["_fail"] = failure_handler(order, storage, lowered, inlinable)
    if code is None:
        code = compile(source, "<jitgraph driver>", "exec")
    exec(code, ns)
    kinds = [lw.kind for lw in lowered]
    program = CompiledProgram(fgraph, order, thunk_source, storage, free_after, kinds,
                              ns["run"], source, lowered, inlinable)
    program.driver_code = code
    #: per graph output, the cell a caller may fill with the array to compute it into (None:
    #: the output has none); see ``driver._destinations``
    program.output_dests = ns.get("_output_dests")
    return program


def failure_handler(order: list[Apply], storage: dict, lowered: list,
                    layout: InlinableRun | None) -> Callable:
    """The driver's ``_fail(exc)``: re-raises ``exc`` with the failing node described (the
    node found by ``layout``, see :meth:`InlinableRun.failed_node`)."""

    def fail(exc: Exception) -> None:
        index = None if layout is None else layout.failed_node(exc)
        if index is None:
            raise exc
        node = order[index]
        if lowered[index].kind in (NUMBA, BLAS):
            exc = _reference_error(node, storage) or exc
        if isinstance(exc, KernelError):
            exc = exc.exception()
        raise_with_node(exc, node, index, storage)

    return fail


def _reference_error(node: Apply, storage: dict) -> Exception | None:
    """The error ``perform`` gives on the same inputs (kernels raise terse messages)."""
    values = [storage[i][0] for i in node.inputs]
    try:
        node.op.perform(node, values, [[None] for _ in node.outputs])
    except Exception as exc:  # noqa: BLE001 - any reference error explains the failure
        return exc
    return None


def describe(program: CompiledProgram) -> str:
    """One line per node: index, kind, op (what the profiler prints)."""
    return "\n".join(f"{i:3d} {kind:5s} {node.op}"
                     for i, (node, kind) in enumerate(zip(program.order, program.kinds)))


def int64_scalar(value: int) -> Any:
    """A 0-d int64 array (what ``Shape_i`` nodes produce; drivers call it)."""
    import numpy as np

    return np.asarray(value, dtype="int64")


__all__ = ["CompiledProgram", "InlinableRun", "INLINED_LINES", "placeholder", "from_driver",
           "describe", "int64_scalar", "NUMBA", "BLAS", "PY"]
