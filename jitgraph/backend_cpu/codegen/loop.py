"""Source generation for a whole scan loop as one native kernel (no Python per step).

The inner graph (as rewritten for compilation) is written out node by node as explicit loops
inside ``for t in range(n_steps)``: elementwise nodes as loop nests over their output with the
scalar program of :mod:`.elemwise_codegen` in the body (transcendentals through the vecmath
block functions, as the elementwise kernels compute them), the BLAS-like products (``Gemv``,
``Gemm``, ``Ger``, ``Dot``, ``Dot22``), sums and max/min reductions, ``Softmax`` as loops, and
``DimShuffle``, ``Unbroadcast`` and basic indexing by index mapping (no copy). Sequence slices
and taps are read in place from the outer arrays; each step's results are copied into the
output buffers (ring buffers when only the last entries are kept). Nodes that do not depend on
the step run once, before the loop.

The kernel stays inside the subset the direct compiler translates (no allocation, no array
views, no tuples): every intermediate array is a *scratch* argument. A small Python function
generated alongside (``prepare``) checks the shapes once per call and allocates the scratch
arrays (kept for the next call of the same shapes) and the nit-sot arrays; shapes are
therefore required to follow from the input shapes. The kernel takes
``(n_steps, done, sequences, buffers, non-sequences, constants, scratch, nit-sot buffers)``
(0-d non-sequences as length-1 arrays) and stores the number of steps run in ``done[0]``. Any
node without loop code, or a shape that depends on values, raises
:class:`~.scalar_templates.Unsupported`: the loop then runs the inner program once per step.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from jitgraph.backend_cpu.codegen.elemwise import emit_scalar_program
from jitgraph.backend_cpu.codegen.kernels import (HEADER, KernelSource, numba_array_type,
                                          signature_text)
from jitgraph.backend_cpu.lowering.scan import LoopPlan
from jitgraph.backend_cpu.codegen.scalar_templates import Body, Unsupported, check_dtypes, cv
from jitgraph.graph.basic import Apply, Constant, Variable


@dataclass
class Val:
    """A value of the loop body: a scalar expression (0-d), an array read with an index
    prefix (a sequence row, a tap), or a view of another value (an index mapping)."""

    dtype: str
    shape: list[str]
    scalar: str | None = None
    array: str | None = None
    prefix: list[str] = field(default_factory=list)
    base: "Val | None" = None
    index_map: Callable[[list[str]], list[str]] | None = None
    invariant: bool = True

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def read(self, idx: list[str]) -> str:
        if self.scalar is not None:
            return self.scalar
        if self.base is not None:
            return self.base.read(self.index_map(idx))
        return f"{self.array}[{', '.join(self.prefix + idx)}]"


def _loops(idx: list[str], shape: list[str], inner: list[str]) -> list[str]:
    lines, pad = [], ""
    for i, s in zip(idx, shape):
        lines.append(f"{pad}for {i} in range({s}):")
        pad += "    "
    return lines + [pad + line for line in inner]


def _np_dtype(dtype: str) -> str:
    return "np.bool_" if dtype == "bool" else f"np.{dtype}"


def _literal(data: np.ndarray) -> str:
    value = data.item()
    dtype = data.dtype.name
    if dtype == "bool":
        return repr(bool(value))
    if dtype in ("float32", "float64") and not np.isfinite(value):
        text = "math.nan" if np.isnan(value) else ("math.inf" if value > 0 else "-math.inf")
        return text if dtype == "float64" else f"np.float32({text})"
    if dtype == "float64":
        return repr(float(value))
    return f"np.{dtype}({value!r})"


def _dtype(var: Variable) -> None:
    dtype = getattr(var.type, "dtype", None)
    if dtype is None or var.type.ndim > 3:
        raise Unsupported(f"{var} is not a tensor of rank <= 3")
    check_dtypes(dtype)


class LoopWriter:
    """Writes the kernel of one Scan node (see the module docstring)."""

    def __init__(self, op: Any, fgraph: Any, vecmath: bool = True) -> None:
        self.op = op
        #: elementwise transcendentals through the vecmath block functions (as the
        #: step-by-step program's elementwise kernels compute them)
        self.vecmath = vecmath
        self.info = op.info
        self.fgraph = fgraph
        self.pre: list[str] = []
        self.body: list[str] = []
        self.ring_init: list[str] = []  # ring positions: before the loop, end of each step
        self.ring_step: list[str] = []
        self.vals: dict[Variable, Val] = {}
        self.plan = LoopPlan()
        self._count = 0

    def name(self, hint: str) -> str:
        self._count += 1
        return f"{hint}{self._count}"

    def emit(self, invariant: bool, lines: list[str]) -> None:
        (self.pre if invariant else self.body).extend(lines)

    def check(self, a: str, b: str, what: str) -> None:
        if a != b:
            self.plan.checks.append((a, b, what))

    # -- inputs ---------------------------------------------------------------------------
    def bind_inputs(self) -> None:
        info, names = self.info, self.plan.arg_names
        inner_in = self.fgraph.inputs
        for j in range(info.n_seqs):
            names.append(f"s{j}")
            self.vals[inner_in[j]] = self._row(inner_in[j], f"s{j}", "t")
        for k in range(info.n_rec):
            buf = f"b{k}"
            names.append(buf)
            # rg{k} = t % len(b{k}), advanced once per step (no integer division per tap)
            self.ring_init += [f"nb{k} = {buf}.shape[0]", f"rg{k} = 0"]
            self.ring_step += [f"rg{k} += 1", f"if rg{k} == nb{k}:", f"    rg{k} = 0"]
            for tap, var in zip(info.rec_taps[k], inner_in[info.inner_taps(k)]):
                pos = self._ring_pos(k, info.n_init(k) + tap)
                self.vals[var] = self._row(var, buf, pos)
        if info.n_shared:
            raise Unsupported("shared states (random streams) run in Python")
        for j in range(info.n_non_seqs):
            var = inner_in[info.inner_non_seqs().start + j]
            name = f"p{j}"
            names.append(name)
            _dtype(var)
            self.vals[var] = (Val(var.dtype, [], scalar=f"{name}[0]") if var.ndim == 0 else
                              Val(var.dtype, [f"{name}.shape[{d}]" for d in range(var.ndim)],
                                  array=name))

    def _ring_pos(self, k: int, offset: int) -> str:
        """A local holding ``(t + offset) % len(b{k})`` at this step."""
        pos, off = self.name("pos"), self.name("off")
        self.ring_init.append(f"{off} = {offset} % nb{k} if nb{k} > 0 else 0")
        self.body += [f"{pos} = rg{k} + {off}", f"if {pos} >= nb{k}:", f"    {pos} -= nb{k}"]
        return pos

    def _row(self, var: Variable, arr: str, pos: str) -> Val:
        _dtype(var)
        if var.ndim == 0:
            local = self.name("r")
            self.body.append(f"{local} = {arr}[{pos}]")
            return Val(var.dtype, [], scalar=local, invariant=False)
        return Val(var.dtype, [f"{arr}.shape[{d + 1}]" for d in range(var.ndim)], array=arr,
                   prefix=[pos], invariant=False)

    def value(self, var: Variable) -> Val:
        found = self.vals.get(var)
        if found is not None:
            return found
        if not isinstance(var, Constant):
            raise Unsupported(f"{var} is neither an input nor computed")
        _dtype(var)
        data = np.asarray(var.data)
        if data.ndim == 0:
            val = Val(var.dtype, [], scalar=_literal(data))
        else:
            name = f"k{len(self.plan.consts)}"
            self.plan.consts.append(np.ascontiguousarray(data))
            val = Val(var.dtype, [f"{name}.shape[{d}]" for d in range(data.ndim)], array=name)
        self.vals[var] = val
        return val

    # -- nodes ----------------------------------------------------------------------------
    def write_nodes(self) -> None:
        for node in self.fgraph.toposort():
            emitter = EMITTERS.get(type(node.op).__name__)
            if emitter is None:
                raise Unsupported(f"{node.op} has no loop code")
            ins = [self.value(v) for v in node.inputs]
            # a shape is the same at every step, even when the array's values are not
            invariant = all(v.invariant for v in ins) or type(node.op).__name__ == "Shape_i"
            for var, val in zip(node.outputs, emitter(self, node, ins, invariant)):
                val.invariant = invariant
                self.vals[var] = val

    def new_array(self, var: Variable, shape: list[str]) -> Val:
        _dtype(var)
        name = f"w{len(self.plan.scratch)}"
        self.plan.scratch.append((name, list(shape), var.dtype))
        return Val(var.dtype, list(shape), array=name)

    def new_value(self, var: Variable, shape: list[str]) -> Val:
        """An array for ``var``, or a scalar local when it is 0-d."""
        if shape:
            return self.new_array(var, shape)
        _dtype(var)
        return Val(var.dtype, [], scalar=self.name("v"))

    def target(self, val: Val, idx: list[str]) -> str:
        return val.read(idx) if val.shape else val.scalar  # type: ignore[return-value]

    # -- outputs --------------------------------------------------------------------------
    def write_outputs(self) -> list[str]:
        info = self.info
        outs = [self.value(v) for v in self.fgraph.outputs]
        store: list[str] = []
        for k in range(info.n_rec):
            val, buf = outs[k], f"b{k}"
            for d, s in enumerate(val.shape):
                self.check(s, f"{buf}.shape[{d + 1}]",
                           f"recurrent output {k} of scan {self.op.name!r}: the step's value "
                           "and the initial value (outputs_info) differ in shape")
            pos = self.name("pos")
            off = self.name("off")
            self.ring_init.append(f"{off} = {info.n_init(k)} % nb{k} if nb{k} > 0 else 0")
            store += [f"{pos} = rg{k} + {off}", f"if {pos} >= nb{k}:", f"    {pos} -= nb{k}"]
            store += self._copy(val, buf, pos)
        for i in range(info.n_nit_sot):
            val = outs[info.n_rec + i]
            self.plan.nit.append((list(val.shape), val.dtype))
            store += self._copy(val, f"n{i}", "t")
        if info.as_while:
            store += [f"if {outs[-1].read([])}:", "    done[0] = t + 1", "    break"]
        return store

    def _copy(self, val: Val, buf: str, pos: str) -> list[str]:
        idx = [self.name("i") for _ in val.shape]
        return _loops(idx, val.shape, [f"{buf}[{', '.join([pos] + idx)}] = {val.read(idx)}"])

    # -- assembly -------------------------------------------------------------------------
    def source(self) -> tuple[str, str]:
        """The kernel's text and signature; fills in the plan's ``prepare``."""
        self.bind_inputs()
        self.write_nodes()
        store = self.write_outputs()
        plan, info = self.plan, self.info
        consts = [f"k{c}" for c in range(len(plan.consts))]
        scratch = [name for name, _, _ in plan.scratch]
        nits = [f"n{i}" for i in range(info.n_nit_sot)]
        arrays = plan.arg_names + consts
        for _, shape, _ in plan.scratch:
            self._require_static(shape, arrays)
        for shape, _ in plan.nit:
            self._require_static(shape, arrays)
        self._require_static(plan.work, arrays)
        args = ["n_steps", "done"] + arrays + scratch + nits
        lines = ["    done[0] = n_steps"]
        lines += ["    " + line for line in self.ring_init + self.pre]
        lines.append("    for t in range(n_steps):")
        lines += ["        " + line for line in self.body + store + self.ring_step]
        plan.prepare_source = self._prepare_source(arrays)
        # Two entries of one body: any strides, and C-contiguous outer arrays (unit strides
        # known to LLVM: contiguous loads, vectorizable inner loops); each compiled when a
        # call first needs it.
        text = ""
        for entry in ("loop", "loop_c"):
            text += f"\n\n\ndef {entry}({', '.join(args)}):\n" + "\n".join(lines) + "\n"
        sigs = {layout: signature_text(self._arg_types(layout)) for layout in ("A", "C")}
        return text, sigs

    def _require_static(self, shape: list[str], arrays: list[str]) -> None:
        for expr in shape:
            words = set(re.findall(r"[A-Za-z_][A-Za-z_0-9]*", expr)) - {"shape", "min", "max"}
            if not words <= set(arrays):
                raise Unsupported("an array whose shape depends on values computed in the loop")

    def _prepare_source(self, arrays: list[str]) -> str:
        plan = self.plan
        lines = [f"def prepare(n_steps, memo, {', '.join(arrays)}):" if arrays else
                 "def prepare(n_steps, memo):"]
        for a, b, what in plan.checks:
            lines += [f"    if {a} != {b}:",
                      f"        raise ValueError({what!r} + ': %d != %d' % ({a}, {b}))"]
        # scratch arrays never leave the kernel: kept in ``memo`` for calls of the same shapes
        dims = [d for _, shape, _ in plan.scratch for d in shape]
        scratch = [f"np.empty(({', '.join(shape)},), {_np_dtype(dtype)})"
                   for _, shape, dtype in plan.scratch]
        lines += [f"    key = ({''.join(d + ', ' for d in dims)})",
                  "    if memo[0] != key:",
                  f"        memo[1] = [{', '.join(scratch)}]",
                  "        memo[0] = key"]
        nits = [f"np.empty((n_steps, {', '.join(shape)}), {_np_dtype(dtype)})"
                for shape, dtype in plan.nit]
        work = " + ".join(f"({w})" for w in plan.work) or "0"
        lines.append(f"    return memo[1], [{', '.join(nits)}], {work}")
        return "\n".join(lines) + "\n"

    def _arg_types(self, layout: str) -> list[str]:
        """The kernel's argument types, the outer arrays of ``layout`` ('A' or 'C')."""
        info, inner_in, plan = self.info, self.fgraph.inputs, self.plan
        types = ["_nt.int64", numba_array_type("int64", 1, "C")]
        types += [numba_array_type(inner_in[j].dtype, inner_in[j].ndim + 1, layout, True)
                  for j in range(info.n_seqs)]
        for k in range(info.n_rec):
            var = inner_in[info.inner_taps(k).start]
            types.append(numba_array_type(var.dtype, var.ndim + 1, layout))
        for j in range(info.n_non_seqs):
            var = inner_in[info.inner_non_seqs().start + j]
            types.append(numba_array_type(var.dtype, max(var.ndim, 1), layout, True))
        types += [numba_array_type(c.dtype.name, c.ndim, "C", True) for c in plan.consts]
        types += [numba_array_type(dtype, len(shape), "C") for _, shape, dtype in plan.scratch]
        types += [numba_array_type(dtype, len(shape) + 1, "C") for shape, dtype in plan.nit]
        return types


def loop_source(op: Any, fgraph: Any, options: Any) -> tuple[KernelSource, LoopPlan]:
    """The kernel module of the native loop of ``op`` over its rewritten inner ``fgraph``."""
    from jitgraph.backend_cpu.codegen.loop_nodes import EMITTERS as emitters

    EMITTERS.update(emitters)
    writer = LoopWriter(op, fgraph, options.vecmath)
    body, sigs = writer.source()
    source = (HEADER + f"\nSIG_loop = {sigs['A']}\nSIG_loop_c = {sigs['C']}\n" + body)
    digest = hashlib.sha256(source.encode()).hexdigest()
    ks = KernelSource(key=("scan_loop", digest, options.key()), source=source,
                      entries=("loop", "loop_c"), options=options,
                      description=f"scan loop {op.name}")
    return ks, writer.plan


#: op class name -> ``fn(writer, node, input values, invariant) -> output values`` (filled
#: from :mod:`.loop_nodes`)
EMITTERS: dict[str, Callable] = {}


def scalar_lines(writer: LoopWriter, sop: Any, args: list[str], in_dtypes: list[str],
                 out_dtypes: list[str], staged: bool = False) -> tuple[list[Any], list[str]]:
    """Statements computing scalar op ``sop`` on ``args``, and the result expressions.
    ``staged``: transcendental primitives become :class:`StageCall` entries (block functions
    of :mod:`.vecmath`, see :func:`.loop_nodes.elemwise`) instead of libm calls."""
    body = Body(fast=staged, vecmath=writer.vecmath, prefix=writer.name("e") + "_")
    res = emit_scalar_program(body, sop, args, in_dtypes, out_dtypes)
    return [line for line in body.lines if staged or isinstance(line, str)], res


__all__ = ["LoopWriter", "LoopPlan", "Val", "loop_source", "scalar_lines", "cv", "Apply"]
