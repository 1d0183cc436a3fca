"""Lowering of ``Elemwise`` (single scalar ops and fused ``Composite`` groups) to Numba kernels.

The kernel is chosen by structure only (:class:`~.elemwise_codegen.ElemwiseStructure`): scalar
program with dtypes, broadcast patterns (hence ndim), in-place pattern and codegen options. The
driver lines of a node: read the inputs, allocate the outputs (or take the destroyed input for an
in-place output), pick the C-contiguous or strided variant, call it (on all threads when
``openmp`` and the output has at least ``openmp_elemwise_minsize`` elements), store the outputs.
"""

from __future__ import annotations

from typing import Any

from jitgraph.tensor.elemwise import Elemwise

from jitgraph.backend_cpu.elemwise_codegen import (ElemwiseStructure, check_program,
                                                   elemwise_source)
from jitgraph.backend_cpu.kernels import KernelModule, LazyEntry, kernel_module
from jitgraph.backend_cpu.registry import NUMBA, Lowered, register_lowering
from jitgraph.backend_cpu.scalar_templates import check_dtypes


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


def entry_name(ctx: Any, module: KernelModule, entry: str, hint: str) -> str:
    """A driver global for ``entry``: the dispatcher, or a :class:`LazyEntry` until compiled."""
    if module.is_compiled(entry):
        return ctx.ref(module.get(entry), hint)
    name = ctx.new_global(None, hint)
    ctx.ns[name] = LazyEntry(module, entry, ctx.ns, name)
    return name


@register_lowering(Elemwise)
def lower_elemwise(op: Elemwise, node: Any, ctx: Any) -> Lowered | None:
    check_dtypes(*[v.dtype for v in node.inputs + node.outputs])
    st = structure_of(node)
    check_program(st)
    ks = elemwise_source(st, ctx.options)
    module = kernel_module(ks)
    module.get("kernel_c")  # compile now: the contiguous variant is the one nearly always used
    fn_c = entry_name(ctx, module, "kernel_c", "kc")
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
        outer = f"{outs[0]}.shape[0]" if st.ndim else "1"
        lines += nc.kernel_call(fn_c, fn_a, check, ins + outs, outer, f"{outs[0]}.size")
        lines += [nc.set_out(k, name) for k, name in enumerate(outs)]
        return lines

    return Lowered(NUMBA, emit, kernel_keys=(ks.key,))
