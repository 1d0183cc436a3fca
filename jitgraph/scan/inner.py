"""Inner graphs: the graph an op carries inside it (scan's step, ifelse's branches).

:class:`InnerGraph` holds a FunctionGraph of its own and compares by structure, so two ops
carrying equal graphs are equal (merging, caches and the compiledir's graph keys rely on it).
:class:`InnerFunction` is that graph compiled once, by a mode, into a program whose input and
output cells the caller fills and reads around each ``run()``: no argument checking, no copies
per call.
"""

from __future__ import annotations

import threading
from typing import Any, Sequence

from jitgraph.compile.concurrency import COMPILE_LOCK, compiling
from jitgraph.compile.function import FunctionMaker
from jitgraph.compile.io import In
from jitgraph.compile.mode import Mode, get_mode
from jitgraph.compile.rewriting import protect_inputs
from jitgraph.config import config
from jitgraph.graph.basic import Constant, Variable, graph_inputs
from jitgraph.graph.fg import FunctionGraph


class InnerGraph:
    """A self-contained graph from ``inputs`` to ``outputs`` (cloned), identified by structure.

    Every free variable of ``outputs`` other than a constant must be one of ``inputs``.
    ``signature`` is a nested tuple of ops, types and constant values: hashable, and written out
    exactly by the compiledir's graph keys.
    """

    __props__ = ("signature",)

    def __init__(self, inputs: Sequence[Variable], outputs: Sequence[Variable]) -> None:
        _check_closed(inputs, outputs)
        self.fgraph = FunctionGraph(list(inputs), list(outputs), clone=True)
        self.signature = graph_signature(self.fgraph)
        self._hash = hash(self.signature)

    @property
    def inputs(self) -> list[Variable]:
        return self.fgraph.inputs

    @property
    def outputs(self) -> list[Variable]:
        return self.fgraph.outputs

    def clone(self) -> tuple[list[Variable], list[Variable]]:
        """Fresh copies of the inputs and outputs (to build new graphs from this one)."""
        fg, equiv = self.fgraph.clone_get_equiv()
        return list(fg.inputs), list(fg.outputs)

    def __eq__(self, other: Any) -> bool:
        return (type(other) is type(self) and self._hash == other._hash
                and self.signature == other.signature)

    def __hash__(self) -> int:
        return self._hash

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state.pop("_compiled", None)  # compiled programs belong to this process
        state.pop("_rewritten", None)
        return state

    def __repr__(self) -> str:
        return f"InnerGraph({len(self.inputs)} inputs, {len(self.outputs)} outputs, " \
               f"{len(self.fgraph.apply_nodes)} nodes)"

    def rewritten(self, mode: Any, mutable: tuple[int, ...] = ()) -> FunctionGraph:
        """This graph rewritten by ``mode`` as :meth:`compiled` rewrites it, without linking
        a program: a native loop is generated from it, and the step-by-step program (with
        the kernels of its nodes) is then built only when a call needs it."""
        token = _mode_token(mode)
        key = (token, tuple(mutable))
        done = self.__dict__.get("_compiled", {}).get(key)
        if done is not None and not (token[0] == "id" and done.mode_ref is not mode):
            return done.fgraph
        cache = self.__dict__.setdefault("_rewritten", {})
        found = cache.get(key)
        if found is None or (token[0] == "id" and found[0] is not mode):
            fg = FunctionGraph(list(self.fgraph.inputs), list(self.fgraph.outputs), clone=True)
            protect_inputs(fg, [fg.inputs[k] for k in mutable])
            get_mode(mode).rewrite(fg)
            found = cache[key] = (mode, fg)
        return found[1]

    @compiling
    def compiled(self, mode: Any, mutable: tuple[int, ...] = ()) -> "InnerFunction":
        """This graph compiled by ``mode`` (None: the default mode), once per mode; the
        program may overwrite the inputs at the positions ``mutable``."""
        cache = self.__dict__.setdefault("_compiled", {})
        token = _mode_token(mode)
        key = (token, tuple(mutable))
        found = cache.get(key)
        if found is None or (token[0] == "id" and found.mode_ref is not mode):
            found = cache[key] = InnerFunction(self, mode, mutable)
        return found


def _mode_token(mode: Any) -> tuple:
    """What identifies the program ``mode`` compiles: a plain Mode by its settings (every
    function compiled by the default mode gets a new Mode object, and must not compile the
    inner graph again), any other mode (checking, profiling) by identity."""
    if mode is None:
        return ("default", bool(config.scan.allow_gc))

    if type(mode) is Mode and isinstance(mode.optimizer, str):
        return ("plain", mode.optimizer, mode.include, mode.exclude, mode.require,
                mode.linker.name, type(mode.linker).__qualname__, mode.linker.allow_gc,
                bool(config.scan.allow_gc))
    if isinstance(mode, str):
        return ("name", mode)
    return ("id", id(mode))


def _check_closed(inputs: Sequence[Variable], outputs: Sequence[Variable]) -> None:
    allowed = set(inputs)
    for var in graph_inputs(list(outputs), list(inputs)):
        if var not in allowed and not isinstance(var, Constant):
            raise ValueError(f"the inner graph uses {var} ({var.type}), which is not one of its "
                             "inputs")


def graph_signature(fgraph: FunctionGraph) -> tuple:
    """The structure of ``fgraph``: input types, each node (op, inputs, output types) in
    topological order, and the outputs; constants appear by value."""
    refs: dict[Variable, tuple] = {}
    parts: list[tuple] = [("in", tuple(v.type for v in fgraph.inputs))]
    for k, var in enumerate(fgraph.inputs):
        refs[var] = ("i", k)

    def ref(var: Variable) -> tuple:
        found = refs.get(var)
        if found is None:
            if not isinstance(var, Constant):
                raise ValueError(f"{var} is neither an input nor computed in the inner graph")
            found = ("c", var.signature())
        return found

    for n, node in enumerate(fgraph.toposort()):
        parts.append((node.op, tuple(ref(v) for v in node.inputs),
                      tuple(o.type for o in node.outputs)))
        for j, out in enumerate(node.outputs):
            refs[out] = ("n", n, j)
    parts.append(("out", tuple(ref(v) for v in fgraph.outputs)))
    return tuple(parts)


class InnerFunction:
    """An inner graph compiled by a mode: set ``input_cells[i][0]``, call ``run()``, read
    ``output_cells[j][0]``. The graph's inputs are never overwritten by the program."""

    def __init__(self, inner: InnerGraph, mode: Any, mutable: tuple[int, ...] = ()) -> None:
        self.mode_ref = mode
        self.mode = _keeping_buffers(get_mode(mode))
        #: held by a caller from filling the input cells to reading the outputs: the program
        #: is cached on its graph, so every function (and copy) holding the op shares it;
        #: callers finding it held run a spare (see :meth:`borrow`)
        self.lock = threading.Lock()
        self._spares: list[InnerFunction] = []
        self._made_from = (inner, mutable)
        fg = inner.fgraph
        inputs = [In(v, mutable=True) if k in mutable else v for k, v in enumerate(fg.inputs)]
        maker = FunctionMaker(inputs, list(fg.outputs), self.mode,
                              no_default_updates=True, on_unused_input="ignore",
                              name="inner graph")
        self.maker = maker
        self.program = maker.program
        self.input_cells = self.program.input_cells
        self.output_cells = self.program.output_cells
        #: per output, the cell where a caller may put the array to compute it into (None
        #: where the output has none, or the linker offers none)
        self.output_dests = getattr(self.program, "output_dests", None)
        #: the cells of outputs the program leaves on a device (a deferred ``HostFromGpu`` of
        #: a graph compiled for the GPU), read back after each run: the caller (a loop on the
        #: host) gets host arrays, as from a graph compiled for the host
        self.device_output_cells = [self.output_cells[k] for k in
                                    sorted(getattr(self.program, "device_outputs", ()))]
        self.run = self.downloading(self.program.run)
        #: per output: whether its value may share memory with an input or a constant (a
        #: caller handing it on must copy it)
        self.output_aliases = [_may_alias_input(v, set(maker.fgraph.inputs))
                               for v in maker.fgraph.outputs]

    @property
    def input_storage(self) -> list["CellView"]:
        """The cells the inputs are put in, as Theano's containers (``.value``)."""
        return [CellView(cell) for cell in self.input_cells]

    @property
    def output_storage(self) -> list["CellView"]:
        """The cells the outputs are read from, as Theano's containers (``.value``)."""
        return [CellView(cell) for cell in self.output_cells]

    @property
    def fgraph(self) -> FunctionGraph:
        """The rewritten graph the program runs."""
        return self.maker.fgraph

    def borrow(self) -> "InnerFunction":
        """This program, held (:attr:`lock`), or when another call holds it (another thread,
        or a nested call) a spare one of the same graph (its own cells and buffers), made the
        first time one is needed; give it back with :meth:`give_back`."""
        if self.lock.acquire(False):
            return self
        try:
            return self._spares.pop()
        except IndexError:
            with COMPILE_LOCK:
                inner, mutable = self._made_from
                return InnerFunction(inner, self.mode_ref, mutable)

    def give_back(self, fn: "InnerFunction") -> None:
        """End the use of ``fn``, which :meth:`borrow` gave."""
        if fn is self:
            self.lock.release()
        else:
            self._spares.append(fn)

    def downloading(self, run: Any) -> Any:
        """``run``, then the device outputs read back into their cells (``run`` itself when
        the program leaves none on a device)."""
        cells = self.device_output_cells
        if not cells:
            return run

        def run_and_download() -> None:
            run()
            for cell in cells:
                cell[0] = cell[0].get()  # (a device array: what Function does with its own)

        return run_and_download


class CellView:
    """A program's cell (a one-element list) read as a container: ``value``."""

    __slots__ = ("cell",)

    def __init__(self, cell: list) -> None:
        self.cell = cell

    @property
    def value(self) -> Any:
        return self.cell[0]


def _keeping_buffers(mode: Any) -> Any:
    """``mode`` with the garbage collection of its linker set by the ``scan.allow_gc`` flag
    (False by default, as in Theano: the intermediate buffers of one step, matrix products
    included, are written again by the next instead of being allocated anew). Only plain modes
    change; a checking mode's linker is left as it is."""
    import copy

    wanted = bool(config.scan.allow_gc)
    linker = mode.linker
    if type(mode) is not Mode or linker.allow_gc == wanted or not hasattr(linker, "_allow_gc"):
        return mode
    linker = copy.copy(linker)
    linker._allow_gc = wanted
    return mode.clone(linker=linker)


def _may_alias_input(var: Variable, inputs: set) -> bool:
    seen = set()
    stack = [var]
    while stack:
        v = stack.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        if v in inputs or isinstance(v, Constant):
            return True
        if v.owner is None:
            continue
        op = v.owner.op
        for j in op.view_map.get(v.index, []) + op.destroy_map.get(v.index, []):
            stack.append(v.owner.inputs[j])
    return False
