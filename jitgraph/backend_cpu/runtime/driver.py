"""The program driver: one generated, straight-line Python function per compiled graph.

Instead of a VM looping over thunks, :func:`build_program` asks each node's lowering for a few
lines of Python (read the input cells, allocate outputs, call the kernel, store the outputs) and
joins them, in order, into one function ``run()``; kernels, dtypes and cells are globals of that
function. Garbage collection (``allow_gc``) is a ``cell[0] = None`` after the last reader; errors
go through :func:`jitgraph.compile.linker.raise_with_node` with the failing node. The same lines
also make one thunk per node (``Program.thunks``) for tools that run nodes one by one,
compiled only when such a tool first asks for them.

With ``allow_gc=False`` the output buffers of intermediate results are kept between calls and
reused while their shape repeats. Buffers of graph outputs (and of anything a graph output is a
view of or was computed in place into) are never reused: the caller owns what it was returned.
A caller may instead hand a graph output the array to compute it into (its destination cell,
``_output_dests``): a scan's loop has each step computed straight into its output buffer.

Nodes whose inputs are all constants and whose lowering can precompute them (views such as the
``DimShuffle`` that pads a literal to the rank of an elementwise operation) are evaluated once
here and read as constants by the nodes that use them.
"""

from __future__ import annotations

import itertools
from typing import Any, Sequence

import numpy as np

from jitgraph.graph.basic import Apply, Constant, Variable
from jitgraph.graph.fg import FunctionGraph

from jitgraph.backend_cpu.runtime.program import (CompiledProgram, InlinableRun, describe,
                                                  from_driver, placeholder)  # noqa: F401
from jitgraph.backend_cpu.lowering.registry import (NUMBA, PY, Lowered, load_lowerings,
                                                    load_lowerings_for, lower)
from jitgraph.backend_cpu.codegen.scalar_templates import Unsupported
from jitgraph.backend_cpu.codegen import compile_ahead
from jitgraph.backend_cpu.codegen.kernels import COMPILE_LOG
from jitgraph.backend_cpu.options import current_options, num_threads
from jitgraph.backend_cpu.runtime.parallel import run_chunks
from jitgraph.config import config


class MissingLowering(NotImplementedError):
    """The strict (``c``) linker met an op without a compiled lowering."""


class BuildContext:
    """What lowerings need while a program is built (flags, the namespace of the driver)."""

    def __init__(self, fgraph: FunctionGraph, storage: dict, allow_gc: bool, options: Any,
                 openmp: bool, minsize: int, nthreads: int) -> None:
        self.fgraph = fgraph
        self.storage = storage
        self.allow_gc = allow_gc
        self.options = options
        self.openmp = openmp and nthreads > 1
        self.minsize = minsize
        self.nthreads = nthreads
        self.ns: dict[str, Any] = {"np": np, "empty": np.empty}
        self._names = itertools.count()
        self._ids: dict[int, str] = {}
        self.known: dict[Variable, Any] = {}  # constants and precomputed values
        self.escaping: set[Variable] = set()
        #: variable -> name of its destination cell (see :func:`_destinations`)
        self.dests: dict[Variable, str] = {}
        #: graph outputs computed by a node -> their placeholder's number: the driver's text
        #: writes their values as placeholders, so that a function's call may inline the
        #: driver with them in locals (:class:`~.program.InlinableRun`)
        self.results: dict[Variable, int] = {}
        #: results set by a line of their own at a node's top level (every run sets them)
        self.set_every_run: set[Variable] = set()
        #: results whose cell a line names other than through its value
        self.cell_named: set[Variable] = set()

    def ref(self, obj: Any, hint: str = "g") -> str:
        """A global name of the driver bound to ``obj`` (one name per object)."""
        name = self._ids.get(id(obj))
        if name is None:
            name = f"{hint}{next(self._names)}"
            self.ns[name] = obj
            self._ids[id(obj)] = name
        return name

    def new_global(self, obj: Any, hint: str) -> str:
        name = f"{hint}{next(self._names)}"
        self.ns[name] = obj
        return name

    def dtype(self, dtype: str) -> str:
        return self.ref(np.dtype(dtype), f"dt_{dtype}_")

    def known_value(self, var: Variable) -> Any:
        """The value of a constant (or precomputed) variable, else None."""
        return self.known.get(var)


class NodeContext:
    """Names and helpers for the lines of one node."""

    def __init__(self, bctx: BuildContext, node: Apply, index: int) -> None:
        self.b = bctx
        self.node = node
        self.index = index
        self.locals: list[str] = []
        #: (output, line) of every set_out (see :meth:`emit`)
        self.sets: list[tuple[Variable, str]] = []

    def emit(self, lowered: Lowered) -> list[str]:
        """The node's lines; notes the results they set on a top-level line of their own."""
        lines = list(lowered.emit(self))
        top_level = set(lines)
        self.b.set_every_run.update(var for var, line in self.sets if line in top_level)
        return lines

    def local(self, hint: str) -> str:
        name = f"{hint}_{self.index}_{len(self.locals)}"
        self.locals.append(name)
        return name

    def cell(self, var: Variable) -> str:
        """The global name of ``var``'s cell (the cell itself, as an object)."""
        if var in self.b.results:
            self.b.cell_named.add(var)
        return self._cell_name(var)

    def _cell_name(self, var: Variable) -> str:
        return self.b.ref(self.b.storage[var], "c")

    def value(self, var: Variable) -> str:
        """The expression reading or writing ``var``'s current value (``cell[0]``)."""
        name = self._cell_name(var)  # (named here: names follow the order of first use)
        number = self.b.results.get(var)
        return f"{name}[0]" if number is None else placeholder(number)

    def inp(self, j: int) -> str:
        var = self.node.inputs[j]
        if var in self.b.known:
            return self.b.new_global(self.b.known[var], "k")
        return self.value(var)

    def set_out(self, k: int, expr: str) -> str:
        var = self.node.outputs[k]
        line = f"{self.value(var)} = {expr}"
        self.sets.append((var, line))
        return line

    def can_reuse(self, k: int) -> bool:
        return not self.b.allow_gc and self.node.outputs[k] not in self.b.escaping

    def dest(self, k: int) -> str | None:
        """The destination cell of output ``k`` (see :func:`_destinations`), or None."""
        return self.b.dests.get(self.node.outputs[k])

    def alloc(self, k: int, shape: str, dtype: str) -> tuple[list[str], str]:
        """Lines allocating output ``k`` (reusing last call's buffer when allowed, or
        taking the array the caller put in its destination cell when it fits)."""
        out = self.local("o")
        dt = self.b.dtype(dtype)
        dest = self.dest(k)
        if dest is not None:
            shp = self.local("shp")
            return [f"{shp} = {shape}", f"{out} = {dest}[0]",
                    f"if {out} is None or {out}.shape != {shp} or {out}.dtype != {dt}:",
                    f"    {out} = empty({shp}, {dt})"], out
        if not self.can_reuse(k):
            return [f"{out} = empty({shape}, {dt})"], out
        buf = self.b.new_global([None], "buf")
        shp = self.local("shp")
        return [f"{shp} = {shape}", f"{out} = {buf}[0]",
                f"if {out} is None or {out}.shape != {shp}:",
                f"    {out} = {buf}[0] = empty({shp}, {dt})"], out

    def kernel_call(self, fn_c: str, fn_a: str, check: list[str], args: list[str],
                    outer: str, size: str) -> list[str]:
        """Call the C variant when every array in ``check`` is C-contiguous, else the strided
        one; with openmp and at least ``minsize`` elements, on all threads."""
        kern = fn_c
        lines: list[str] = []
        if check:
            kern = self.local("kern")
            cond = " and ".join(f"{a}.flags.c_contiguous" for a in check)
            lines.append(f"{kern} = {fn_c} if {cond} else {fn_a}")
        call = f"{kern}({', '.join(args)}, 0, {outer})"
        if self.b.openmp:
            par = self.b.ref(run_chunks, "run_chunks")
            lines += [f"if {size} >= {self.b.minsize}:",
                      f"    {par}({kern}, ({', '.join(args)},), {outer})",
                      "else:", f"    {call}"]
        else:
            lines.append(call)
        return lines


def _perform_lowering(node: Apply, registered: bool = False) -> Lowered:
    def emit(nc: NodeContext) -> list[str]:
        perform = nc.b.ref(node.op.perform, "perform")
        n = nc.b.new_global(node, "node")
        outs = nc.b.new_global([nc.b.storage[o] for o in node.outputs], "outcells")
        args = ", ".join(nc.inp(j) for j in range(len(node.inputs)))
        return [f"{perform}({n}, [{args}], {outs})"]

    return Lowered(PY, emit, registered=registered)


def _escaping(fgraph: FunctionGraph, order: Sequence[Apply]) -> set[Variable]:
    """Graph outputs and every variable one of them may share memory with."""
    esc = set(fgraph.outputs)
    for node in reversed(order):
        for k, out in enumerate(node.outputs):
            if out in esc:
                for j in node.op.view_map.get(k, []) + node.op.destroy_map.get(k, []):
                    esc.add(node.inputs[j])
    return esc


def _destinations(fgraph: FunctionGraph, known: dict) -> dict[Variable, int]:
    """For each graph output whose memory a node of the graph allocates (the output itself,
    or the variable it was computed in place into, through in-place nodes only), that
    variable -> the output's position. A caller may put an array of the output's shape and
    dtype in the output's destination cell (``_output_dests`` of the driver's namespace)
    before a run: the node then computes into it (a loop's inner program writes the step's
    result straight into the loop's output buffer). Outputs sharing memory get none."""
    roots: dict[Variable, int] = {}
    shared: set[Variable] = set()
    inputs = set(fgraph.inputs)
    for k, var in enumerate(fgraph.outputs):
        root = var
        while root.owner is not None:
            destroyed = root.owner.op.destroy_map.get(root.index)
            if not destroyed:
                break
            root = root.owner.inputs[destroyed[0]]
        if (root.owner is None or root in inputs or isinstance(root, Constant) or root in known
                or root.owner.op.view_map.get(root.index)):
            continue
        if root in roots:
            shared.add(root)
        roots[root] = k
    return {var: k for var, k in roots.items() if var not in shared}


def _gc_plan(fgraph: FunctionGraph, order: Sequence[Apply], storage: dict, skip: set
             ) -> list[list[Variable]]:
    keep = set(fgraph.inputs) | set(fgraph.outputs) | skip
    last: dict[Variable, int] = {}
    for i, node in enumerate(order):
        for inp in node.inputs:
            last[inp] = i
        for out in node.outputs:
            last.setdefault(out, i)
    plan: list[list[Variable]] = [[] for _ in order]
    for var, i in last.items():
        if var in keep or isinstance(var, Constant) or var.owner is None:
            continue
        plan[i].append(var)
    return plan


def build_program(fgraph: FunctionGraph, allow_gc: bool, order: Sequence[Apply] | None = None,
                  strict: bool = False) -> CompiledProgram:
    """Lower every node and generate the driver (see the module docstring)."""
    load_lowerings()
    n_compiled = len(COMPILE_LOG)
    order = list(order if order is not None else fgraph.toposort())
    storage: dict[Variable, list] = {}
    for var in fgraph.variables:
        storage[var] = [var.data] if isinstance(var, Constant) else [None]
    for var in fgraph.inputs:
        storage.setdefault(var, [None])
    bctx = BuildContext(fgraph, storage, allow_gc, current_options(), bool(config.openmp),
                        int(config.openmp_elemwise_minsize), num_threads())
    for var in fgraph.variables:
        if isinstance(var, Constant):
            bctx.known[var] = var.data
    bctx.escaping = _escaping(fgraph, order)
    for var in fgraph.outputs:
        if var.owner is not None and var not in bctx.results:
            bctx.results[var] = len(bctx.results)
    output_dests: list[list | None] = [None] * len(fgraph.outputs)
    for var, k in _destinations(fgraph, bctx.known).items():
        output_dests[k] = [None]
        bctx.dests[var] = bctx.new_global(output_dests[k], "dest")
    bctx.ns["_output_dests"] = output_dests
    outputs = set(fgraph.outputs)
    lowered: list[Lowered] = []
    precomputed: set[Variable] = set()
    compile_ahead.start()  # the kernels lowerings want are compiled together, below
    try:
        for node in order:
            lw = _lower_node(node, bctx, strict)
            if lw.constant_outputs is not None and not any(o in outputs for o in node.outputs):
                for out, value in zip(node.outputs, lw.constant_outputs):
                    bctx.known[out] = value
                    storage[out][0] = value
                    precomputed.add(out)
            elif lw.constant_outputs is not None:
                lw = _perform_lowering(node, registered=True)
            lowered.append(lw)
    except BaseException:
        compile_ahead.discard()
        raise
    compile_ahead.compile_wanted()
    plan = _gc_plan(fgraph, order, storage, precomputed) if allow_gc else [[] for _ in order]
    node_lines: list[list[str]] = []
    for i, (node, lw) in enumerate(zip(order, lowered)):
        nc = NodeContext(bctx, node, i)
        lines = [] if node.outputs[0] in precomputed else nc.emit(lw)
        if allow_gc:
            lines += [f"{nc.value(v)} = None" for v in plan[i]]
            if nc.locals:
                lines.append(f"del {', '.join(nc.locals)}")
        node_lines.append(lines)
    program = _assemble(fgraph, order, storage, bctx, lowered, node_lines,
                        [[storage[v] for v in p] for p in plan])
    program.precomputed = precomputed
    built = COMPILE_LOG[n_compiled:]
    program.compiled_while_linking = {"compiled": len(built),
                                      "compile_seconds": sum(r.seconds for r in built)}
    return program


def _lower_node(node: Apply, bctx: BuildContext, strict: bool) -> Lowered:
    load_lowerings_for(type(node.op))
    try:
        lw = lower(node.op, node, bctx)
    except Unsupported as exc:
        lw, reason = None, str(exc)
    else:
        reason = "no Numba lowering is registered for this op"
    if lw is None:
        if strict:
            raise MissingLowering(f"linker 'c' needs a compiled implementation of every op, but "
                                  f"{node.op} ({type(node.op).__name__}) has none: {reason}. "
                                  "Use linker='c|py' or 'cvm' to run it with its perform().")
        lw = _perform_lowering(node)
    return lw


def _assemble(fgraph: FunctionGraph, order: list[Apply], storage: dict, bctx: BuildContext,
              lowered: list[Lowered], node_lines: list[list[str]], free_after: list
              ) -> CompiledProgram:
    thunks: list[str] = []
    for i, lines in enumerate(node_lines):
        thunks.append(f"def thunk_{i}():")
        thunks.extend(f"    {line}" for line in lines or ["pass"])
        thunks.append("")
    body: list[str] = []
    starts: list[int] = []  # where each node's lines start in the body (see InlinableRun)
    nodes: list[int] = []
    at = 0
    for i, lines in enumerate(node_lines):
        if not lines:
            continue
        starts.append(at)
        nodes.append(i)
        body.extend(f"        {line}" for line in lines)
        at += sum(line.count("\n") + 1 for line in lines)
    body.append("        pass")
    src = ["def run():", "    try:", *body, "    except Exception as _exc:",
           "        _fail(_exc)"]
    results = sorted(bctx.results, key=bctx.results.__getitem__)
    handed = _handed_cells(bctx.ns)
    run = InlinableRun("\n".join(body), [bctx.ref(storage[var], "c") for var in results],
                       [var in bctx.set_every_run and var not in bctx.cell_named
                        and id(storage[var]) not in handed for var in results], starts, nodes)
    return from_driver(fgraph, order, run.render("\n".join(src) + "\n"), bctx.ns, storage,
                       free_after, lowered, inlinable=run,
                       thunk_source=run.render("\n".join(thunks) + "\n"))


def _handed_cells(ns: dict) -> set[int]:
    """Ids of the cells the driver hands to an object in a list (a perform node's or a loop's
    output cells), which may write them at any time."""
    return {id(item) for obj in ns.values() if type(obj) in (list, tuple)
            for item in obj if type(item) is list}


__all__ = ["BuildContext", "NodeContext", "CompiledProgram", "build_program", "MissingLowering",
           "describe", "NUMBA", "PY"]
