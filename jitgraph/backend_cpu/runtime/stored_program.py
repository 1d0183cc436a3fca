"""Linked programs kept in the compiledir with the rewritten graph they run.

Linking a graph means lowering every node, generating each kernel's source (only to find its
key) and the driver's. For a graph that comes from the compiledir (:mod:`jitgraph.compile.
graph_cache`) all of that is known already: :class:`StoredProgram` is what the driver needs,
pickled in the same file as the graph (so its cells, nodes and constants are the graph's own
objects), and :meth:`StoredProgram.restore` rebuilds the program from it without importing the
lowerings or the code generators.

Kernel entries are stored by reference (their :class:`~.kernels.KernelSource` and entry name,
see :func:`.kernels.restore_entry`): loading resolves them through the kernel cache, so a stored
program never holds code, and a kernel that is missing from the compiledir is compiled again
from its source. A program is only stored when everything else in its namespace pickles.
"""

from __future__ import annotations

import marshal
import sys
from typing import Any

from jitgraph.backend_cpu.options import num_threads

#: Bumped when what is stored changes.
STORED_PROGRAM_VERSION = 7  # 7: no _n line per node (``InlinableRun.starts``, ``nodes``)

_NOT_STORED = ("_fail", "run")


class RestoredLowering:
    """What a restored program keeps of each node's :class:`~.registry.Lowered` (no ``emit``:
    nothing is lowered again)."""

    __slots__ = ("kind", "registered", "kernel_keys", "constant_outputs", "notes")

    def __init__(self, kind: str, registered: bool, kernel_keys: tuple,
                 constant_outputs: list | None, notes: dict) -> None:
        self.kind, self.registered, self.kernel_keys = kind, registered, kernel_keys
        self.constant_outputs, self.notes = constant_outputs, notes


class StoredProgram:
    """What :func:`.driver.build_program` produced, in a picklable form."""

    def __init__(self, program: Any, allow_gc: bool, strict: bool) -> None:
        ns = program.run.__globals__
        self.version = STORED_PROGRAM_VERSION
        self.source = program.driver_source
        self.thunk_source = program.thunk_source
        run = program.inlinable
        self.inlinable = None if run is None else (run.body, run.cells, run.local_ok,
                                                   run.starts, run.nodes)
        # the driver's bytecode too (compiling it is a good part of a warm start), for this
        # interpreter only: another one compiles the source
        code = getattr(program, "driver_code", None)
        self.code = None if code is None else (_bytecode_tag(), marshal.dumps(code))
        self.namespace = {k: v for k, v in ns.items()
                          if not k.startswith(("__", "thunk_")) and k not in _NOT_STORED}
        self.storage = program.storage
        self.order = program.order
        self.free_after = program.free_after
        self.lowered = [(lw.kind, lw.registered, lw.kernel_keys, lw.constant_outputs, lw.notes)
                        for lw in program.lowered]
        self.precomputed = program.precomputed
        self.allow_gc, self.strict, self.nthreads = allow_gc, strict, num_threads()

    def matches(self, order: Any, allow_gc: bool, strict: bool) -> bool:
        """Whether this program is what linking the graph now would produce."""
        return (self.version == STORED_PROGRAM_VERSION and self.allow_gc == allow_gc
                and self.strict == strict and self.nthreads == num_threads()
                and (order is None or list(order) == self.order))

    def restore(self, fgraph: Any) -> Any:
        """The :class:`~.program.CompiledProgram` (``fgraph`` holds this program's nodes)."""
        from jitgraph.backend_cpu.runtime.program import InlinableRun, from_driver

        ns = dict(self.namespace)
        for value in ns.values():
            rebind = getattr(value, "rebind", None)  # lazy kernel entries name their namespace
            if rebind is not None:
                rebind(ns)
        code = None
        stored = getattr(self, "code", None)
        if stored is not None and stored[0] == _bytecode_tag():
            try:
                code = marshal.loads(stored[1])
            except (ValueError, EOFError, TypeError):
                code = None
        program = from_driver(fgraph, list(self.order), self.source, ns, self.storage,
                              self.free_after, [RestoredLowering(*lw) for lw in self.lowered],
                              code, None if self.inlinable is None
                              else InlinableRun(*self.inlinable), self.thunk_source)
        program.precomputed = set(self.precomputed)
        program.restored = True
        return program


def _bytecode_tag() -> tuple:
    """What bytecode is valid for: the interpreter, to its exact version."""
    return (sys.implementation.cache_tag, sys.version)
