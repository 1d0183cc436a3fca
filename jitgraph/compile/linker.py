"""Linkers: turn a rewritten FunctionGraph into a runnable program of thunks over storage cells.

The ``py`` and ``vm`` linkers run each node's NumPy ``perform``. Backends
(:mod:`jitgraph.compile.backend`) provide further linkers (``cvm``, ``c|py``, ``c``); without
one, those names fall back to the Python VM with the same garbage-collection behaviour.
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from jitgraph.compile.backend import backends
from jitgraph.compile.rewriting import schedule
from jitgraph.config import config
from jitgraph.graph.basic import Apply, Constant, Variable
from jitgraph.graph.fg import FunctionGraph
from jitgraph.graph.printing import debugprint

Cell = list  # a one-element list holding a value


@dataclass
class InlinedCall:
    """A program's own lines for a function's generated call (:mod:`.fast_call`), which
    places them where the program would be run."""

    #: statements indented by 4, running the program (in ``namespace``)
    lines: list[str]
    #: per result cell asked for: the expression of its value after ``lines``, or None when
    #: it is read from its cell
    results: list[str | None]
    #: id of each result cell kept in a local -> (the cell's name in ``namespace``, the local)
    kept: dict[int, tuple[str, str]]
    #: the globals ``lines`` run in
    namespace: dict[str, Any]


class Program:
    """Thunks to run in order, with the cells holding the graph's inputs and outputs.

    A backend's program type may override :meth:`compared_nodes`, :meth:`precomputed_nodes`
    and :meth:`inline_call`, and set :attr:`lowered` (see :mod:`jitgraph.compile.backend`).
    """

    #: per node, what the backend made of it, or None: ``registered`` (a lowering of its own,
    #: even when it runs as Python) and ``constant_outputs`` (evaluated while linking)
    lowered: list[Any] | None = None

    def __init__(self, fgraph: FunctionGraph, order: list[Apply], thunks: list[Callable],
                 storage: dict[Variable, Cell], free_after: list[list[Cell]],
                 kinds: list[str]) -> None:
        self.fgraph = fgraph
        self.order = order
        self.thunks = thunks
        self.storage = storage
        self.free_after = free_after
        self.kinds = kinds  # per node: "Py", "Numba", "CUDA"
        self.input_cells = [storage[i] for i in fgraph.inputs]
        self.output_cells = [storage[o] for o in fgraph.outputs]
        self.callback: Callable | None = None
        # Hooks of run_nodes() (checking modes, the profiler); run() never looks at them.
        #: called once at the start of run_nodes() (NanGuardMode checks the inputs there)
        self.before_run: Callable[[], None] | None = None
        #: ``pre_node(i, node, thunk)`` / ``post_node(i, node, thunk)`` around node ``i``
        self.pre_node: Callable[[int, Apply, Callable], None] | None = None
        self.post_node: Callable[[int, Apply, Callable], None] | None = None

    def run(self) -> None:
        """Run every thunk; errors are re-raised with the failing node described."""
        thunks, free_after = self.thunks, self.free_after
        i = 0
        try:
            for i, thunk in enumerate(thunks):
                thunk()
                for cell in free_after[i]:
                    cell[0] = None
        except Exception as exc:
            raise_with_node(exc, self.order[i], i, self.storage)

    def compared_nodes(self) -> set[int]:
        """Nodes whose compiled implementation differs from ``perform`` (DebugMode compares
        them)."""
        lowered = self.lowered
        return {i for i, kind in enumerate(self.kinds)
                if kind != "Py" or (lowered is not None
                                    and getattr(lowered[i], "registered", False))}

    def precomputed_nodes(self) -> set[int]:
        """Nodes the backend evaluated while linking (constant inputs): their thunks write
        nothing."""
        return {i for i, lw in enumerate(self.lowered or [])
                if getattr(lw, "constant_outputs", None) is not None}

    def inline_call(self, results: Sequence[Cell], run: Callable) -> InlinedCall | None:
        """This program's lines for a function's generated call, which calls ``run`` (this
        program's ``run``, or a wrapper of it) and reads ``results``; None: the call runs
        ``run()``."""
        return None

    def run_nodes(self, times: list[float] | None = None,
                  sync: Callable[[], None] | None = None) -> None:
        """Run the thunks one by one, calling the hooks around each (slower than :meth:`run`).

        ``times[i]`` accumulates the seconds of node ``i``; ``sync`` is called after each
        ``CUDA`` node inside the timed region (``gpuarray.sync``). An error in a thunk is
        re-raised with the node described; an error in a hook propagates unchanged.
        """
        thunks, free_after, order, kinds = self.thunks, self.free_after, self.order, self.kinds
        pre, post = self.pre_node, self.post_node
        if self.before_run is not None:
            self.before_run()
        clock = time.perf_counter
        for i, thunk in enumerate(thunks):
            if pre is not None:
                pre(i, order[i], thunk)
            try:
                if times is None:
                    thunk()
                else:
                    t0 = clock()
                    thunk()
                    if sync is not None and kinds[i] == "CUDA":
                        sync()
                    times[i] += clock() - t0
            except Exception as exc:
                raise_with_node(exc, order[i], i, self.storage)
            if post is not None:
                post(i, order[i], thunk)
            for cell in free_after[i]:
                cell[0] = None


def make_program(fgraph: FunctionGraph, allow_gc: bool, order: Sequence[Apply] | None = None,
                 thunk_factory: Callable[[Apply, dict], tuple[Callable, str]] | None = None
                 ) -> Program:
    """Storage cells for every variable and one thunk per node (``perform`` by default)."""
    order = list(order if order is not None else fgraph.toposort())
    storage: dict[Variable, Cell] = {}
    for var in fgraph.variables:
        storage[var] = [var.data] if isinstance(var, Constant) else [None]
    for var in fgraph.inputs:
        storage.setdefault(var, [None])
    factory = thunk_factory or perform_thunk
    thunks, kinds = [], []
    for node in order:
        thunk, kind = factory(node, storage)
        thunks.append(thunk)
        kinds.append(kind)
    free_after = _gc_plan(fgraph, order, storage) if allow_gc else [[] for _ in order]
    return Program(fgraph, order, thunks, storage, free_after, kinds)


def perform_thunk(node: Apply, storage: dict[Variable, Cell]) -> tuple[Callable, str]:
    """A thunk running ``node.op.perform`` on the node's storage cells."""
    in_cells = [storage[i] for i in node.inputs]
    out_cells = [storage[o] for o in node.outputs]
    perform = node.op.perform

    def thunk() -> None:
        perform(node, [c[0] for c in in_cells], out_cells)

    return thunk, "Py"


def _gc_plan(fgraph: FunctionGraph, order: list[Apply], storage: dict[Variable, Cell]
             ) -> list[list[Cell]]:
    """For each node, the cells of intermediates whose last reader it is."""
    keep = set(fgraph.inputs) | set(fgraph.outputs)
    last_use: dict[Variable, int] = {}
    for i, node in enumerate(order):
        for inp in node.inputs:
            last_use[inp] = i
        for out in node.outputs:
            last_use.setdefault(out, i)  # unused outputs are freed right away
    plan: list[list[Cell]] = [[] for _ in order]
    for var, i in last_use.items():
        if var in keep or isinstance(var, Constant) or var.owner is None:
            continue
        plan[i].append(storage[var])
    return plan


def raise_with_node(exc: Exception, node: Apply, index: int, storage: dict[Variable, Cell]
                    ) -> None:
    """Re-raise ``exc`` with the failing node, its input types, shapes and strides."""
    values = [storage[i][0] for i in node.inputs]
    lines = [str(exc), f"Apply node that caused the error: {node}", f"Toposort index: {index}",
             f"Inputs types: {[str(i.type) for i in node.inputs]}",
             f"Inputs shapes: {[getattr(v, 'shape', 'no shape') for v in values]}",
             f"Inputs strides: {[getattr(v, 'strides', 'no strides') for v in values]}",
             f"Inputs values: {[_small(v) for v in values]}"]
    if config.exception_verbosity == "high":
        lines.append("Debugprint of the apply node:")
        lines.append(debugprint(node.outputs, file="str"))
    else:
        lines.append("HINT: Use the flag 'exception_verbosity=high' for a debugprint of this "
                     "apply node.")
    trace = getattr(node.outputs[0].tag, "trace", None)
    if trace:
        lines.append("Backtrace when the node was created:")
        lines.extend(f'  File "{f.filename}", line {f.lineno}, in {f.name}\n    {f.line}'
                     for f in trace)
    message = "\n".join(lines)
    try:
        new_exc = type(exc)(message)
    except Exception:
        raise exc
    new_exc.__traceback__ = exc.__traceback__
    raise new_exc from exc


def _small(value: Any) -> str:
    """How an input value appears in an error message: small NumPy arrays and other values by
    their ``repr``; larger arrays are not shown, and an array of another kind (a device array)
    only by its type, dtype and shape -- its ``repr`` would copy it to the host, and after a
    device error the copy itself fails."""
    if isinstance(value, np.ndarray):
        return "not shown" if value.size > 10 else repr(value)
    if hasattr(value, "shape") and hasattr(value, "dtype") and not np.isscalar(value):
        return f"<{type(value).__module__}.{type(value).__name__} {value.dtype} {value.shape}>"
    return repr(value)


# ---------------------------------------------------------------------------------------------
# The linker table

class Linker:
    """Builds a :class:`Program` for a FunctionGraph."""

    name = "vm"
    compiled = False

    def __init__(self, allow_gc: bool | None = None) -> None:
        self._allow_gc = allow_gc

    @property
    def allow_gc(self) -> bool:
        if self._allow_gc is not None:
            return self._allow_gc

        return config.allow_gc

    def make_program(self, fgraph: FunctionGraph, order: Sequence[Apply] | None = None
                     ) -> Program:
        if order is None:
            order = schedule(fgraph)
        return make_program(fgraph, self.allow_gc, order)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"

    # Theano's linker protocol: ``linker.accept(fgraph).make_function()(*inputs)``.
    def accept(self, fgraph: FunctionGraph, no_recycling: Any = None, profile: Any = None
               ) -> "Linker":
        """This linker bound to ``fgraph`` (a copy of it when it is bound to another graph)."""
        bound = getattr(self, "fgraph", None)
        linker = self if bound is None or bound is fgraph else copy.copy(self)
        linker.fgraph = fgraph
        return linker

    def make_function(self, unpack_single: bool = True, **kwargs: Any) -> Callable[..., Any]:
        """A callable running the graph given to :meth:`accept` as it is (not rewritten):
        inputs by position, the outputs as a list (one output alone with ``unpack_single``)."""
        fgraph = getattr(self, "fgraph", None)
        if fgraph is None:
            raise ValueError(f"{self}.make_function(): no graph; call accept(fgraph) first")
        program = self.make_program(fgraph)
        inputs = fgraph.inputs

        def run(*args: Any) -> Any:
            if len(args) != len(inputs):
                raise TypeError(f"this function takes {len(inputs)} inputs, got {len(args)}")
            for cell, var, value in zip(program.input_cells, inputs, args):
                cell[0] = var.type.filter(value)
            program.run()
            outputs = [cell[0] for cell in program.output_cells]
            return outputs[0] if unpack_single and len(outputs) == 1 else outputs

        return run


class PerformLinker(Linker):
    """Every node runs its NumPy ``perform`` (the ``py`` linker)."""

    name = "py"


class VMLinker(Linker):
    """The Python VM (``vm`` / ``vm_nogc``).

    ``callback(node, thunk, storage_map, compute_map)``, when given, is called after each node
    runs (Theano's ``VM_Linker(callback=...)``, a debugging aid): ``storage_map`` maps the
    graph's variables to their cells, ``compute_map[var][0]`` says whether ``var`` holds a
    value."""

    name = "vm"

    def __init__(self, allow_gc: bool | None = None,
                 callback: Callable[[Apply, Callable, dict, Any], Any] | None = None) -> None:
        super().__init__(allow_gc)
        self.callback = callback

    def make_program(self, fgraph: FunctionGraph, order: Sequence[Apply] | None = None
                     ) -> Program:
        program = super().make_program(fgraph, order)
        callback = self.callback
        if callback is not None:
            storage = program.storage
            computed = _ComputeMap(storage)
            program.post_node = lambda i, node, thunk: callback(node, thunk, storage, computed)
            program.run = program.run_nodes  # type: ignore[method-assign]
        return program


class _ComputeMap:
    """``compute_map[var]``: ``[True]`` when ``var``'s cell holds a value (read when asked)."""

    def __init__(self, storage: dict) -> None:
        self._storage = storage

    def __getitem__(self, var: Any) -> list[bool]:
        return [self._storage[var][0] is not None]

    def __contains__(self, var: Any) -> bool:
        return var in self._storage


#: linker name -> factory taking no argument
LINKERS: dict[str, Callable[[], Linker]] = {
    "py": lambda: PerformLinker(),
    "vm": lambda: VMLinker(),
    "vm_nogc": lambda: VMLinker(allow_gc=False),
}

# Names whose compiled implementation comes from a backend; the Python VM stands in until then.
COMPILED_LINKER_NAMES = ("cvm", "cvm_nogc", "c|py", "c|py_nogc", "c")


def register_linker(name: str, factory: Callable[[], Linker]) -> None:
    LINKERS[name] = factory


def _factory(name: str) -> Callable[[], Linker] | None:
    """The factory of linker ``name``: the table's, else a backend's."""
    factory = LINKERS.get(name)
    if factory is None:
        factory = next((b.linkers()[name] for b in backends() if name in b.linkers()), None)
    return factory


def linker_names() -> set[str]:
    """Every linker name :func:`get_linker` knows."""
    return set(LINKERS).union(*(b.linkers() for b in backends()))


def get_linker(name: str | Linker) -> Linker:
    """The linker called ``name`` (any value of the ``linker`` flag), or ``name`` itself;
    every backend may wrap it (:meth:`~.backend.Backend.wrap_linker`)."""
    if isinstance(name, Linker):
        return name
    factory = _factory(name)
    if factory is not None:
        linker = factory()
    elif name in COMPILED_LINKER_NAMES:
        linker = VMLinker(allow_gc=False if name.endswith("nogc") or name == "c" else None)
    else:
        raise ValueError(f"unknown linker {name!r}; valid linkers: "
                         f"{sorted(linker_names() | set(COMPILED_LINKER_NAMES))}")
    return wrapped_by_backends(name, linker)


def wrapped_by_backends(name: str, linker: Linker) -> Linker:
    """``linker`` (called ``name``) as this process's backends hand it out (the GPU backend
    wraps the compiled linkers once a GPU is in use)."""
    for backend in backends():
        linker = backend.wrap_linker(name, linker)
    return linker
