"""Lowering of ``Elemwise`` (single scalar ops and fused ``Composite`` groups) to Numba kernels.

The kernel is chosen by structure only (:class:`~.elemwise_codegen.ElemwiseStructure`): scalar
program with dtypes, broadcast patterns (hence ndim), in-place pattern and codegen options. The
driver lines of a node: read the inputs, allocate the outputs (or take the destroyed input for an
in-place output), pick the C-contiguous or strided variant, call it (on all threads when
``openmp`` and the output has at least ``openmp_elemwise_minsize`` elements), store the outputs.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from jitgraph.tensor.elementwise.elemwise import Elemwise

from jitgraph.backend_cpu.codegen import compile_ahead
from jitgraph.backend_cpu.codegen.elemwise import (ElemwiseStructure, check_program,
                                                   elemwise_source)
from jitgraph.backend_cpu.codegen.kernels import (KernelModule, KernelSource, LazyEntry,
                                                  kernel_module)
from jitgraph.backend_cpu.lowering.registry import NUMBA, Lowered, register_lowering
from jitgraph.scalar_expr.expr import check_expr_dtypes


def structure_of(node: Any) -> ElemwiseStructure:
    """The kernel structure of an Elemwise node."""
    op = node.op
    return ElemwiseStructure(
        scalar_op=op.scalar_op, op_key=op.scalar_op.key,
        in_dtypes=tuple(i.dtype for i in node.inputs),
        out_dtypes=tuple(o.dtype for o in node.outputs),
        patterns=tuple(tuple(i.broadcastable) for i in node.inputs),
        out_pattern=tuple(node.outputs[0].broadcastable),
        inplace=tuple(op.inplace_pattern))


def entry_name(ctx: Any, module: KernelModule, entry: str, hint: str, now: bool = False
               ) -> str:
    """A driver global for ``entry``: the dispatcher, or a :class:`LazyEntry` until compiled.
    ``now``: the program will call it, so it is compiled with the program's other kernels
    (:mod:`.compile_ahead`) and the global is the dispatcher itself."""
    if module.is_compiled(entry):
        return ctx.ref(module.get(entry), hint)
    name = ctx.new_global(None, hint)
    lazy = ctx.ns[name] = LazyEntry(module, entry, ctx.ns, name)
    if now:
        compile_ahead.want(module, entry, lazy)
    return name


def flat_structure(st: ElemwiseStructure) -> ElemwiseStructure | None:
    """The 1-d structure computing ``st`` on C-contiguous arrays seen flat, when every input
    has the output's broadcast pattern or is scalar-like (an SGD update, a tanh gradient, ...):
    one kernel then serves every rank. None when it does not apply (1-d already, partial
    broadcasting)."""
    if st.ndim < 2 or all(st.out_pattern):
        return None
    if not all(p == st.out_pattern or all(p) for p in st.patterns):
        return None
    if any(all(st.patterns[j]) for _, j in st.inplace):
        return None
    return dataclasses.replace(
        st, patterns=tuple((all(p),) for p in st.patterns), out_pattern=(False,))


#: kernel key -> the kernel's source and its flat variant's (None: it has none), for the
#: structures this process lowered: the nodes of a network's repeated blocks share a few
#: structures, whose sources are generated (only to find their keys) and checked once
_SOURCES: dict[tuple, tuple[KernelSource, KernelSource | None]] = {}


def kernel_sources(st: ElemwiseStructure, flat: ElemwiseStructure | None, options: Any
                   ) -> tuple[KernelSource, KernelSource | None]:
    """The source of the kernel of ``st`` and of its flat variant ``flat`` (see
    :func:`flat_structure`); raises ``Unsupported`` when the scalar program has no code."""
    key = st.key(options)
    found = _SOURCES.get(key)
    if found is None:
        check_program(st)
        found = _SOURCES[key] = (elemwise_source(st, options),
                                 None if flat is None else elemwise_source(flat, options))
    return found


@register_lowering(Elemwise)
def lower_elemwise(op: Elemwise, node: Any, ctx: Any) -> Lowered | None:
    # complex dtypes too: the kernel body refuses what it does not compute (Unsupported)
    check_expr_dtypes(*[v.dtype for v in node.inputs + node.outputs])
    st = structure_of(node)
    flat = flat_structure(st)
    ks, flat_ks = kernel_sources(st, flat, ctx.options)
    module = kernel_module(ks)
    keys: tuple = (ks.key,)
    if flat_ks is None:
        # the contiguous variant is the one nearly always used: compiled with the program
        fn_c = entry_name(ctx, module, "kernel_c", "kc", now=True)
    else:
        keys += (flat_ks.key,)
        fn_c = entry_name(ctx, kernel_module(flat_ks), "kernel_c", "kf", now=True)
    fn_a = entry_name(ctx, module, "kernel_a", "ka")
    full = [j for j, p in enumerate(st.patterns) if p == st.out_pattern]
    destroyed = dict(st.inplace)

    def emit(nc: Any) -> list[str]:
        ins = [nc.local("a") for _ in node.inputs]
        lines = [f"{name} = {nc.inp(j)}" for j, name in enumerate(ins)]
        if full:
            shape = f"{ins[full[0]]}.shape"
        else:
            dims = []
            for d, b in enumerate(st.out_pattern):
                src = next((j for j, p in enumerate(st.patterns) if not p[d]), None)
                dims.append("1" if b or src is None else f"{ins[src]}.shape[{d}]")
            shape = f"({', '.join(dims)},)" if dims else "()"
        outs = []
        for k, dtype in enumerate(st.out_dtypes):
            if k in destroyed:
                outs.append(ins[destroyed[k]])
                continue
            alloc, name = nc.alloc(k, shape, dtype)
            lines += alloc
            outs.append(name)
        check = [ins[j] for j in range(st.nin) if not st.is_scalar_like(j)]
        if flat is None:
            outer = f"{outs[0]}.shape[0]" if st.ndim else "1"
            lines += nc.kernel_call(fn_c, fn_a, check, ins + outs, outer, f"{outs[0]}.size")
        else:
            lines += _flat_call(nc, st, fn_c, fn_a, ins, outs, check)
        lines += [nc.set_out(k, name) for k, name in enumerate(outs)]
        return lines

    return Lowered(NUMBA, emit, kernel_keys=keys)


def _flat_call(nc: Any, st: ElemwiseStructure, fn_flat: str, fn_a: str, ins: list[str],
               outs: list[str], check: list[str]) -> list[str]:
    """Call the 1-d kernel on flat views when every array is C-contiguous and the inputs have
    the output's shape (else the strided kernel of the node's rank, which reports a shape
    mismatch)."""
    ref = outs[0]
    cond = [f"{a}.flags.c_contiguous" for a in dict.fromkeys(check + outs)]
    cond += [f"{a}.shape == {ref}.shape" for a in check if a != ref]
    flat = [f"{a}.reshape({1 if j < st.nin and st.is_scalar_like(j) else -1})"
            for j, a in enumerate(ins + outs)]
    size = f"{ref}.size"
    lines = [f"if {' and '.join(cond)}:"]
    lines += ["    " + line for line in nc.kernel_call(fn_flat, fn_flat, [], flat, size, size)]
    lines.append("else:")
    outer = f"{ref}.shape[0]"
    lines += ["    " + line for line in nc.kernel_call(fn_a, fn_a, [], ins + outs, outer, size)]
    return lines
