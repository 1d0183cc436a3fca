"""Source generation for elementwise kernels: one loop nest per Elemwise / fused Composite.

Every kernel takes ``(i0, .., i{n-1}, o0, .., o{m-1}, start, stop)``: the inputs, the outputs
(allocated by the caller; an in-place output is the destroyed input passed again) and the range
``[start, stop)`` of the outermost axis to process (threads split that range). Two entries per
structure:

* ``kernel_c``: every array C-contiguous. Without partially broadcast inputs it is a single flat
  loop over ``reshape``-d 1-D views, which LLVM vectorizes; otherwise a loop nest over C arrays
  (the innermost loop still has unit stride).
* ``kernel_a``: any strides (negative too, Fortran order, views): a loop nest over ``'A'``
  arrays. Compiled only when such an input first appears.

Inputs broadcast along every axis (scalars, constants) are read once; inputs broadcast along the
inner axes are read in the loop of their last non-broadcast axis. Broadcasting is static: a
dimension is broadcast only where the input's type says it has length 1; every other dimension
must equal the output's, which the kernel checks (``ValueError``).

When the body uses a transcendental primitive (exp, log, log1p, sin, cos, and so sigmoid and
softplus), the innermost loop runs in blocks of ``BLOCK`` elements, each block as a few stages:
a vectorizable loop computing the primitive's arguments into a block buffer, a call to the
vectorized block function of :mod:`.vecmath` (compiled once per process, not per kernel), the
next stage reading the results, and so on; temporaries needed across stages are kept in block
buffers. The kernel itself stays plain arithmetic, so it compiles about as fast as one without
transcendentals, and runs at SIMD speed instead of libm's scalar speed. Outputs are written only
in the last stage, so in-place outputs never clobber inputs a stage still has to read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from jitgraph.backend_cpu.codegen.kernels import (HEADER, KernelSource, numba_array_type,
                                          numba_scalar_type, signature_text)
from jitgraph.backend_cpu.options import CodegenOptions
from jitgraph.backend_cpu.codegen.scalar_templates import Body, StageCall, helper_source
from jitgraph.codegen.elemwise_structure import ElemwiseStructure as SharedStructure
from jitgraph.codegen.render import emit_scalar_program

__all__ = ["BLOCK", "ElemwiseStructure", "check_program", "elemwise_source",
           "emit_scalar_program"]

BLOCK = 512


@dataclass(frozen=True)
class ElemwiseStructure(SharedStructure):
    """What a CPU elementwise kernel depends on; ``key(options)`` is its identity."""

    def key(self, options: CodegenOptions) -> tuple:
        return ("elemwise", self.op_key, self.in_dtypes, self.out_dtypes, self.patterns,
                self.out_pattern, self.inplace, options.key())


def check_program(st: ElemwiseStructure) -> Body:
    """The exact body of the scalar program; raises ``Unsupported`` if a step has no code
    path for its dtypes (without compiling)."""
    body = Body(fast=False, allow_helpers=True)
    emit_scalar_program(body, st.scalar_op, [f"x{j}" for j in range(st.nin)], st.in_dtypes,
                        st.out_dtypes)
    return body


# -- loops ------------------------------------------------------------------------------------

class _Writer:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.mark = 0  # where :meth:`prologue` inserts (the end of the function's prologue)
        self.helpers: dict = {}  # helper functions the bodies call (defined in the module)

    def prologue(self, lines: Sequence[str]) -> None:
        """Insert statements at depth 1 at the end of the prologue (buffer allocations)."""
        for line in lines:
            self.lines.insert(self.mark, "    " + line)
            self.mark += 1

    def __call__(self, depth: int, line: str) -> None:
        self.lines.append("    " * depth + line)

    def extend(self, depth: int, lines: Sequence[str]) -> None:
        for line in lines:
            self(depth, line)


_VAR = re.compile(r"\b(t\d+|x\d+)\b")


_BLOCK_CALL = re.compile(r'block_call\("(\w+)"')
_RESULT = re.compile(r"\bpr(\d+)\b")
_ARG = re.compile(r"pa(\d+)\[ub\]")


def _schedule(body: Body, final: list[str]) -> list[tuple[list[str], list[StageCall]]]:
    """Statements grouped into as few stages as the primitives' dependencies allow.

    A statement goes to the earliest stage where everything it reads exists: a temporary from an
    earlier statement, or a primitive's result, which exists from the stage after the one that
    stored the primitive's argument (the block call runs between the two). Independent
    primitives therefore share a stage. The output stores (``final``) go to the last stage.
    Returns ``[(lines, calls run after the stage's loop)]``.
    """
    calls = {c.arg: c for c in body.calls}
    var_stage: dict[str, int] = {}
    call_stage: dict[int, int] = {}
    placed: list[tuple[int, str]] = []
    for line in body.lines:
        if isinstance(line, StageCall):
            continue
        lhs, _, rhs = line.partition(" = ")
        stage = max([var_stage.get(v, 0) for v in _VAR.findall(rhs)]
                    + [call_stage[int(i)] + 1 for i in _RESULT.findall(rhs)] + [0])
        arg = _ARG.fullmatch(lhs)
        if arg:
            call_stage[int(arg.group(1))] = stage
        else:
            var_stage[lhs] = stage
        placed.append((stage, line))
    last = max([s for s, _ in placed] + [c + 1 for c in call_stage.values()] + [0])
    stages: list[tuple[list[str], list[StageCall]]] = [([], []) for _ in range(last + 1)]
    for stage, line in placed:
        stages[stage][0].append(line)
    stages[last][0].extend(final)
    for index, stage in sorted(call_stage.items()):
        stages[stage][1].append(calls[f"pa{index}"])
    return stages


def _inner_loop(w: _Writer, depth: int, st: ElemwiseStructure, lo: str, hi: str,
                loads: list[tuple[int, str]], stores: list[str], vecmath: bool) -> None:
    """The innermost loop over ``k`` in ``[lo, hi)``. ``loads``: (input, indexed expr using
    ``uk``); ``stores``: per output, the element expression to assign (using ``uk``).

    Array indices are unsigned (``uk = np.uint64(k)``): Numba then emits no negative-index
    wraparound, which would otherwise stop LLVM from vectorizing loops whose start is not a
    constant.

    Without transcendental primitives (or with ``vecmath`` off) this is one loop. Otherwise the
    range is processed in blocks of ``BLOCK``; each block runs the body as stages separated by
    calls to the vecmath block functions. A temporary needed by a later stage is re-read from its
    result buffer when it is one, else kept in a block buffer (``sp_*``); inputs are re-read.
    """
    body = Body(fast=True, vecmath=vecmath, allow_helpers=True)
    outs = emit_scalar_program(body, st.scalar_op, [f"x{j}" for j in range(st.nin)],
                               st.in_dtypes, st.out_dtypes)
    w.helpers.update(body.helpers)
    final = [f"{t} = {v}" for t, v in zip(stores, outs)]
    if not body.calls:
        w(depth, f"for k in range({lo}, {hi}):")
        w(depth + 1, "uk = np.uint64(k)")
        for j, expr in loads:
            w(depth + 1, f"x{j} = {expr}")
        w.extend(depth + 1, body.lines + final)
        return
    stages = _schedule(body, final)
    _emit_stages(w, depth, stages, body, loads, lo, hi)


def _emit_stages(w: _Writer, depth: int, stages: list, body: Body,
                 loads: list[tuple[int, str]], lo: str, hi: str) -> None:
    """The block loop running ``stages`` (see :func:`_schedule`) over ``[lo, hi)``."""
    defined_in: dict[str, int] = {}
    definition: dict[str, str] = {}
    for s_i, (lines, _) in enumerate(stages):
        for line in lines:
            name = line.partition(" = ")[0]
            if _VAR.fullmatch(name):
                defined_in[name] = s_i
                definition[name] = line
    refs = {v: set(_VAR.findall(line.partition(" = ")[2])) for v, line in definition.items()}
    # A temporary computed from inputs and result buffers only is recomputed where a later
    # stage needs it (as cheap as a reload); any other is kept in a block buffer ``sp_*``.
    remat = {v for v in definition if all(r.startswith("x") for r in refs[v])}
    uses = [set(_VAR.findall(" ".join(lines))) for lines, _ in stages]
    early = [{v for v in used if v in defined_in and defined_in[v] < s_i}
             for s_i, used in enumerate(uses)]
    for s_i, vs in enumerate(early):
        uses[s_i] |= {r for v in vs & remat for r in refs[v]}
    spilled = sorted({v for vs in early for v in vs} - remat, key=lambda v: int(v[1:]))
    w(depth, f"for b0 in range({lo}, {hi}, {BLOCK}):")
    w(depth + 1, f"b1 = min(b0 + {BLOCK}, {hi})")
    for s_i, (lines, calls) in enumerate(stages):
        w(depth + 1, "for k in range(b0, b1):")
        w(depth + 2, "uk = np.uint64(k)")
        w(depth + 2, "ub = np.uint64(k - b0)")
        for j, expr in loads:
            if f"x{j}" in uses[s_i]:
                w(depth + 2, f"x{j} = {expr}")
        for v in sorted(early[s_i], key=lambda v: int(v[1:])):
            w(depth + 2, definition[v] if v in remat else f"{v} = sp_{v}[ub]")
        w.extend(depth + 2, lines)
        for v in spilled:
            if defined_in[v] == s_i:
                w(depth + 2, f"sp_{v}[ub] = {v}")
        for call in calls:
            w(depth + 1, f'block_call("{call.fn}", {call.arg}, {call.res}, b1 - b0)')
    w.prologue([f"{c.arg} = stack_empty({BLOCK}, np.float64)" for c in body.calls]
               + [f"{c.res} = stack_empty({BLOCK}, np.float64)" for c in body.calls]
               + [f"sp_{v} = stack_empty({BLOCK}, np.{body.dtypes[v]})" for v in spilled])


def _prologue(w: _Writer, st: ElemwiseStructure, name: str) -> None:
    args = [f"i{j}" for j in range(st.nin)] + [f"o{o}" for o in range(st.nout)]
    w(0, f"def {name}({', '.join(args)}, start, stop):")
    for j, pattern in enumerate(st.patterns):
        conds = [f"i{j}.shape[{d}] != o0.shape[{d}]" for d, b in enumerate(pattern) if not b]
        if conds:
            w(1, f"if {' or '.join(conds)}:")
            w(2, 'raise ValueError("elemwise: input shapes do not match")')
    for j in range(st.nin):
        if st.is_scalar_like(j):
            w(1, f"x{j} = i{j}[{', '.join(['0'] * st.ndim)}]" if st.ndim else f"x{j} = i{j}[()]")
    w.mark = len(w.lines)


def _flat_kernel(st: ElemwiseStructure, name: str, vecmath: bool) -> _Writer:
    w = _Writer()
    _prologue(w, st, name)
    if st.ndim == 0:
        exact = Body(fast=False, allow_helpers=True)
        exact_out = emit_scalar_program(exact, st.scalar_op, [f"x{j}" for j in range(st.nin)],
                                        st.in_dtypes, st.out_dtypes)
        w.helpers.update(exact.helpers)
        w.extend(1, exact.lines)
        for o, val in enumerate(exact_out):
            w(1, f"o{o}[()] = {val}")
        return w
    if st.ndim == 1:  # already flat: no reshape (each one costs compile time)
        flat_in, flat_out, lo, hi = "i", "o", "start", "stop"
    else:
        inner = " * ".join(f"o0.shape[{d}]" for d in range(1, st.ndim))
        w(1, f"inner = {inner}")
        for j in range(st.nin):
            if not st.is_scalar_like(j):
                w(1, f"f{j} = flat_view(i{j})")
        for o in range(st.nout):
            w(1, f"g{o} = flat_view(o{o})")
        flat_in, flat_out, lo, hi = "f", "g", "start * inner", "stop * inner"
    loads = [(j, f"{flat_in}{j}[uk]") for j in range(st.nin) if not st.is_scalar_like(j)]
    stores = [f"{flat_out}{o}[uk]" for o in range(st.nout)]
    _inner_loop(w, 1, st, lo, hi, loads, stores, vecmath)
    return w


def _nested_kernel(st: ElemwiseStructure, name: str, vecmath: bool) -> _Writer:
    w = _Writer()
    _prologue(w, st, name)
    nd = st.ndim
    if nd == 0:
        return _flat_kernel(st, name, vecmath)
    idx = [f"m{d}" for d in range(nd - 1)] + ["uk"]

    def index(j: int) -> str:
        return ", ".join("0" if b else idx[d] for d, b in enumerate(st.patterns[j]))

    # depth at which input j is loaded: after the loop of its last non-broadcast axis
    last_axis = {j: max(d for d, b in enumerate(st.patterns[j]) if not b)
                 for j in range(st.nin) if not st.is_scalar_like(j)}
    for d in range(nd - 1):
        lo, hi = ("start", "stop") if d == 0 else ("0", f"o0.shape[{d}]")
        w(1 + d, f"for n{d} in range({lo}, {hi}):")
        w(2 + d, f"m{d} = np.uint64(n{d})")
        for j, axis in last_axis.items():
            if axis == d:
                w(2 + d, f"x{j} = i{j}[{index(j)}]")
    loads = [(j, f"i{j}[{index(j)}]") for j, axis in last_axis.items() if axis == nd - 1]
    stores = [f"o{o}[{', '.join(idx)}]" for o in range(st.nout)]
    lo, hi = ("start", "stop") if nd == 1 else ("0", f"o0.shape[{nd - 1}]")
    _inner_loop(w, nd, st, lo, hi, loads, stores, vecmath)
    return w


def _signature(st: ElemwiseStructure, layout: str) -> str:
    args = []
    for j, dtype in enumerate(st.in_dtypes):
        lay = "C" if st.is_scalar_like(j) else layout
        args.append(numba_array_type(dtype, st.ndim, lay, readonly=True))
    destroyed = {o for o, _ in st.inplace}
    for o, dtype in enumerate(st.out_dtypes):
        args.append(numba_array_type(dtype, st.ndim, layout if o in destroyed else "C"))
    args += [numba_scalar_type("int64")] * 2
    return signature_text(args)


def elemwise_source(st: ElemwiseStructure, options: CodegenOptions) -> KernelSource:
    """The module source with ``kernel_c`` and ``kernel_a`` for this structure."""
    partial = any(st.is_partial(j) for j in range(st.nin))
    c_kernel = (_nested_kernel if partial else _flat_kernel)(st, "kernel_c", options.vecmath)
    a_kernel = _nested_kernel(st, "kernel_a", options.vecmath)
    c_lines, a_lines = c_kernel.lines, a_kernel.lines
    blocks = sorted(set(_BLOCK_CALL.findall("\n".join(c_lines + a_lines))))
    helpers = helper_source({**c_kernel.helpers, **a_kernel.helpers})
    text = "\n".join([HEADER, helpers, f"require{tuple(blocks)!r}" if blocks else "",
                      f"SIG_kernel_c = {_signature(st, 'C')}",
                      f"SIG_kernel_a = {_signature(st, 'A')}", "", "",
                      *c_lines, "", "", *a_lines, ""])
    return KernelSource(st.key(options), text, ("kernel_c", "kernel_a"), options,
                        st.describe())
