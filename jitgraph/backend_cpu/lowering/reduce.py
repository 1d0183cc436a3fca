"""Lowering of reductions (``CAReduce`` and its subclasses, with or without a fused ``pre_op``)
and of ``Argmax``/``Argmin`` to Numba kernels."""

from __future__ import annotations

from typing import Any

from jitgraph.tensor.elementwise import reduction as R

from jitgraph.backend_cpu.codegen.kernels import KernelSource, kernel_module
from jitgraph.backend_cpu.lowering.elemwise import entry_name
from jitgraph.backend_cpu.codegen.reduce import (ArgStructure, ReduceStructure, arg_source,
                                                 identity_literal, reduce_source)
from jitgraph.backend_cpu.lowering.registry import NUMBA, Lowered, register_lowering
from jitgraph.backend_cpu.codegen.scalar_templates import Unsupported, check_dtypes


def _kept_shape(ins: list[str], patterns: list, axes: tuple, ndim: int) -> str:
    dims = []
    for d in range(ndim):
        if d in axes:
            continue
        src = next((j for j, p in enumerate(patterns) if not p[d]), None)
        dims.append("1" if src is None else f"{ins[src]}.shape[{d}]")
    return f"({', '.join(dims)},)" if dims else "()"


#: kernel key -> source, for the reductions this process lowered (the nodes of a network's
#: repeated blocks share a few structures: each source is generated once)
_SOURCES: dict[tuple, KernelSource] = {}


def _source(st: ReduceStructure, options: Any) -> KernelSource:
    key = st.key(options)
    ks = _SOURCES.get(key)
    if ks is None:
        ks = _SOURCES[key] = reduce_source(st, options)
    return ks


@register_lowering(R.CAReduce)
def lower_careduce(op: R.CAReduce, node: Any, ctx: Any) -> Lowered | None:
    check_dtypes(*[v.dtype for v in node.inputs + node.outputs])
    x_dtype = op._reduced_input_type(node.inputs).dtype
    acc_dtype = op.acc_dtype_for(x_dtype)
    check_dtypes(x_dtype, acc_dtype)
    ndim = node.inputs[0].ndim
    axes = tuple(op.reduced_axes(ndim))
    name = op.scalar_op.name
    try:
        identity_literal(name, acc_dtype)
    except KeyError:
        raise Unsupported(f"reduction with {name}") from None
    patterns = [tuple(v.broadcastable) for v in node.inputs]
    st = ReduceStructure(
        scalar_op=op.scalar_op, pre_op=op.pre_op, op_name=name,
        pre_key=None if op.pre_op is None else op.pre_op.key,
        in_dtypes=tuple(v.dtype for v in node.inputs), patterns=tuple(patterns),
        x_dtype=x_dtype, acc_dtype=acc_dtype, out_dtype=node.outputs[0].dtype, axes=axes,
        test_nonzero=isinstance(op, R._BoolReduce),
        no_identity=name in ("maximum", "minimum"))
    ks = _source(st, ctx.options)
    module = kernel_module(ks)
    fn_c = entry_name(ctx, module, "kernel_c", "rc", now=True)
    fn_a = entry_name(ctx, module, "kernel_a", "ra")

    def emit(nc: Any) -> list[str]:
        ins = [nc.local("a") for _ in node.inputs]
        lines = [f"{name} = {nc.inp(j)}" for j, name in enumerate(ins)]
        alloc, out = nc.alloc(0, _kept_shape(ins, patterns, axes, ndim), st.out_dtype)
        lines += alloc
        check = [a for a, p in zip(ins, patterns) if not all(p)]
        if check:
            cond = " and ".join(f"{a}.flags.c_contiguous" for a in check)
            lines.append(f"({fn_c} if {cond} else {fn_a})({', '.join(ins)}, {out})")
        else:
            lines.append(f"{fn_c}({', '.join(ins)}, {out})")
        lines.append(nc.set_out(0, out))
        return lines

    return Lowered(NUMBA, emit, kernel_keys=(ks.key,))


@register_lowering(R.Argmax, R.Argmin)
def lower_argreduce(op: Any, node: Any, ctx: Any) -> Lowered | None:
    (x,) = node.inputs
    check_dtypes(x.dtype)
    axes = tuple(range(x.ndim)) if op.axis is None else tuple(op.axis)
    kind = "argmax" if isinstance(op, R.Argmax) else "argmin"
    st = ArgStructure(kind, x.dtype, x.ndim, axes)
    ks = arg_source(st, ctx.options)
    fn = ctx.ref(kernel_module(ks).get("kernel"), "arg")
    pattern = [tuple(x.broadcastable)]

    def emit(nc: Any) -> list[str]:
        a = nc.local("a")
        lines = [f"{a} = {nc.inp(0)}"]
        alloc, out = nc.alloc(0, _kept_shape([a], pattern, axes, x.ndim), "int64")
        lines += alloc
        lines.append(f"{fn}({a}, {out})")
        lines.append(nc.set_out(0, out))
        return lines

    return Lowered(NUMBA, emit, kernel_keys=(ks.key,))
