"""Reductions on the GPU: ``CAReduce`` (and its subclasses, with or without a fused ``pre_op``)
as generated kernels; ``Argmax``/``Argmin`` through CuPy's own reductions.

Per call the host broadcasts the input shapes, coalesces the kept and the reduced axes (see
``reduce_codegen``) and picks the entry: one thread per output for short reductions, one block
per output otherwise, and two launches (partials, then their combination) when a few outputs
each reduce very many elements.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from jitgraph.tensor.elementwise import reduction as R

from jitgraph.backend_gpu.cuda_types import Unsupported
from jitgraph.backend_gpu.kernels import CudaSource, launch_config, load
from jitgraph.backend_gpu.reduce_codegen import (ENTRIES, ReduceStructure, check_program,
                                                 coalesce_axes, reduce_source)
from jitgraph.backend_gpu.registry import CUDA, Lowered, check_dtypes_of, register
from jitgraph.backend_gpu.device import active, import_cupy


def structure_of(node: Any) -> ReduceStructure:
    op = getattr(node.op, "cpu_op", node.op)
    inputs = getattr(node.op, "cpu_node", lambda n: n)(node).inputs
    x_dtype = op._reduced_input_type(inputs).dtype
    return ReduceStructure(
        scalar_op=op.scalar_op, pre_op=op.pre_op, op_name=op.scalar_op.name,
        pre_key=None if op.pre_op is None else op.pre_op.key,
        in_dtypes=tuple(v.type.dtype for v in node.inputs),
        patterns=tuple(tuple(v.type.broadcastable) for v in node.inputs),
        x_dtype=x_dtype, acc_dtype=op.acc_dtype_for(x_dtype),
        out_dtype=node.outputs[0].type.dtype,
        test_nonzero=isinstance(op, R._BoolReduce))


def check_careduce(node: Any) -> None:
    check_dtypes_of(node)
    try:
        check_program(structure_of(node))
    except (TypeError, ValueError) as exc:
        raise Unsupported(str(exc)) from None


def module_source(st: ReduceStructure, kr: int, rr: int) -> CudaSource:
    return CudaSource(st.key() + (kr, rr), reduce_source(st, kr, rr), ENTRIES,
                      f"{st.describe()} kept rank {kr} reduced rank {rr}")


def _pow2(n: int, lo: int = 32, hi: int = 256) -> int:
    b = lo
    while b < n and b < hi:
        b *= 2
    return b


class ReduceRunner:
    """Launches one reduction structure on CuPy arrays."""

    def __init__(self, st: ReduceStructure, op: Any, ndim: int) -> None:
        self.st, self.op, self.ndim = st, op, ndim
        self.cp = import_cupy()
        self.axes = tuple(op.reduced_axes(ndim))
        self.kept = [d for d in range(ndim) if d not in self.axes]
        self.mods: dict[tuple[int, int], Any] = {}
        self.sms = active().multiprocessors if active() is not None else 80
        self.acc_size = np.dtype(st.acc_dtype).itemsize
        self.needs_error = "jg_err" in reduce_source(st, 0, 0)

    def shape(self, inputs: list) -> list[int]:
        st = self.st
        shape = []
        for d in range(self.ndim):
            src = [x.shape[d] for x, p in zip(inputs, st.patterns) if not p[d]]
            if len(set(src)) > 1:
                raise ValueError(f"GpuCAReduce{{{self.op}}}: input dimension mismatch on axis "
                                 f"{d}: input shapes {[tuple(x.shape) for x in inputs]}")
            shape.append(int(src[0]) if src else 1)
        return shape

    def __call__(self, inputs: list) -> Any:
        st, cp = self.st, self.cp
        shape = self.shape(inputs)
        if st.op_name in ("maximum", "minimum") and any(shape[a] == 0 for a in self.axes):
            raise ValueError(f"{self.op}: cannot reduce a zero-size array of shape "
                             f"{tuple(shape)} over axes {list(self.axes)}: {st.op_name} has "
                             "no identity")
        out = cp.empty(tuple(shape[d] for d in self.kept), dtype=st.out_dtype)
        nk = int(np.prod([shape[d] for d in self.kept], dtype=np.int64))
        nr = int(np.prod([shape[a] for a in self.axes], dtype=np.int64))
        if nk == 0:
            return out
        arrays = [(x, p) for j, (x, p) in enumerate(zip(inputs, st.patterns))
                  if not st.is_scalar_like(j)]
        strides = [[0 if p[d] else int(x.strides[d]) for d in range(self.ndim)]
                   for x, p in arrays]
        kdims, kstrs = coalesce_axes(shape, strides, self.kept)
        rdims, rstrs = coalesce_axes(shape, strides, list(self.axes))
        kr, rr = len(kdims), len(rdims)
        mod = self.mods.get((kr, rr))
        if mod is None:
            mod = self.mods[(kr, rr)] = load(module_source(st, kr, rr))
        i64 = np.int64
        tail = [i64(d) for d in kdims[1:]] + [i64(d) for d in rdims[1:]]
        tail += [i64(s) for ss in kstrs for s in ss] + [i64(s) for ss in rstrs for s in ss]
        err = [cp.zeros(1, dtype=np.int32)] if self.needs_error else []
        head = list(inputs)
        if nr <= 16 or (nk >= 64 * self.sms and nr <= 128):
            grid, block = launch_config(nk, 128)
            mod.get("jg_rthread")(grid, block, tuple(head + [out, i64(nk), i64(nr)] + tail
                                                     + err))
        elif nk >= 2 * self.sms or nr <= 65536:
            block = _pow2(nr)
            grid = (max(1, min(nk, 32 * self.sms)),)
            mod.get("jg_rblock")(grid, (block,), tuple(head + [out, i64(nk), i64(nr)] + tail
                                                        + err),
                                 shared_mem=block * self.acc_size)
        else:
            g = int(max(1, min(max(1, (4 * self.sms) // nk), -(-nr // 4096), 1024)))
            part = cp.empty(nk * g, dtype=st.acc_dtype)
            grid = (max(1, min(nk * g, 32 * self.sms)),)
            mod.get("jg_rsplit")(grid, (256,), tuple(head + [part, i64(nk), i64(nr)] + tail
                                                     + [i64(g)] + err),
                                 shared_mem=256 * self.acc_size)
            grid, block = launch_config(nk, 128)
            mod.get("jg_rfinish")(grid, block, (part, out, i64(nk), i64(g)))
        if err and int(err[0].get()[0]):
            raise ValueError("Integers to negative integer powers are not allowed.")
        return out


@register(R.CAReduce, check=check_careduce)
def lower_careduce(op: R.CAReduce, node: Any, ctx: Any) -> Lowered:
    st = structure_of(node)
    runner = ReduceRunner(st, op, node.inputs[0].type.ndim)

    def make(in_cells: list, out_cells: list) -> Any:
        (out_cell,) = out_cells

        def thunk() -> None:
            out_cell[0] = runner([c[0] for c in in_cells])

        return thunk

    return Lowered(CUDA, make, kernel_keys=(st.key(),))


def _check_arg(node: Any) -> None:
    check_dtypes_of(node)
    if node.inputs[0].type.dtype == "bool":
        raise Unsupported("arg-extremum of booleans")


@register(R.Argmax, R.Argmin, check=_check_arg)
def lower_argreduce(op: Any, node: Any, ctx: Any) -> Lowered:
    cp = import_cupy()
    ndim = node.inputs[0].type.ndim
    axes = tuple(range(ndim)) if op.axis is None else tuple(op.axis)
    kept = [d for d in range(ndim) if d not in axes]
    fn = cp.argmax if isinstance(op, R.Argmax) else cp.argmin

    def make(in_cells: list, out_cells: list) -> Any:
        (x_cell,), (out_cell,) = in_cells, out_cells

        def thunk() -> None:
            x = x_cell[0]
            if any(x.shape[a] == 0 for a in axes):
                raise ValueError(f"{op}: cannot take the arg-extremum of a zero-size array of "
                                 f"shape {x.shape} over axes {list(axes)}")
            moved = x.transpose(kept + list(axes))
            block = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
            flat = moved.reshape(moved.shape[:len(kept)] + (block,))
            out_cell[0] = fn(flat, axis=-1).astype(np.int64, copy=False)

        return thunk

    return Lowered(CUDA, make)
