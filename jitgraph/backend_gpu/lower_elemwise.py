"""``Elemwise`` (single scalar ops and fused ``Composite`` groups) on the GPU.

:class:`ElemwiseRunner` is the host side of one kernel structure: it checks shapes like
``Elemwise.perform``, allocates outputs, and launches the contiguous entry when every array is
C-contiguous (32-bit indices when they suffice), else the strided entry for the coalesced rank
(compiled on first use). BLAS and nnet lowerings reuse it for their elementwise epilogues.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from jitgraph.tensor.elementwise.elemwise import Elemwise

from jitgraph.backend_gpu.elemwise_codegen import (KERNEL_C, KERNEL_S, ElemwiseStructure,
                                                   check_program, coalesce, contiguous_source,
                                                   needs_error_flag, strided_source)
from jitgraph.backend_gpu.kernels import CudaSource, launch_config, load
from jitgraph.backend_gpu.registry import CUDA, Lowered, check_dtypes_of, register
from jitgraph.backend_gpu.device import import_cupy

INT32_LIMIT = 2**31 - 1


def int32_indices(n: int, reach: int, stride: int) -> bool:
    """Whether a grid-stride loop over ``n`` items, whose element offsets go up to ``reach``,
    may count in ``int``: its index goes up to ``n - 1 + stride`` (the last step adds the whole
    grid, ``gridDim.x * blockDim.x``, before the loop test), which must not overflow."""
    return n - 1 + stride <= INT32_LIMIT and reach <= INT32_LIMIT


def structure_of(node: Any, scalar_op: Any = None, inplace: Any = None) -> ElemwiseStructure:
    """The kernel structure of an Elemwise node (CPU or GPU: only types are read)."""
    op = getattr(node.op, "cpu_op", node.op)
    sop = scalar_op if scalar_op is not None else op.scalar_op
    return ElemwiseStructure(
        scalar_op=sop, op_key=sop.key,
        in_dtypes=tuple(i.type.dtype for i in node.inputs),
        out_dtypes=tuple(o.type.dtype for o in node.outputs),
        patterns=tuple(tuple(i.type.broadcastable) for i in node.inputs),
        out_pattern=tuple(node.outputs[0].type.broadcastable),
        inplace=tuple(op.inplace_pattern) if inplace is None else tuple(inplace))


def contiguous_module_source(st: ElemwiseStructure) -> CudaSource:
    return CudaSource(st.key() + ("contiguous",), contiguous_source(st), KERNEL_C,
                      st.describe())


def strided_module_source(st: ElemwiseStructure, rank: int) -> CudaSource:
    return CudaSource(st.key() + ("strided", rank), strided_source(st, rank), KERNEL_S,
                      f"{st.describe()} strided rank {rank}")


def check_elemwise(node: Any) -> None:
    check_dtypes_of(node)
    check_program(structure_of(node))


def _int_t(small: bool) -> Any:
    return np.int32 if small else np.int64


class ElemwiseRunner:
    """Launches the kernels of one :class:`ElemwiseStructure` on CuPy arrays."""

    def __init__(self, st: ElemwiseStructure) -> None:
        self.st = st
        self.cp = import_cupy()
        self.needs_error = needs_error_flag(st)
        self.c_mod = load(contiguous_module_source(st)) if st.has_contiguous_form else None
        self.s_mods: dict[int, Any] = {}
        self.keys = [contiguous_module_source(st).key] if self.c_mod is not None else []

    def out_shape(self, inputs: Sequence[Any]) -> tuple[int, ...]:
        st = self.st
        shape = []
        for d, b in enumerate(st.out_pattern):
            src = next((x.shape[d] for x, p in zip(inputs, st.patterns) if not p[d]), 1)
            shape.append(1 if b else int(src))
        for j, (x, p) in enumerate(zip(inputs, st.patterns)):
            if any(not b and x.shape[d] != shape[d] for d, b in enumerate(p)):
                shapes = [tuple(v.shape) for v in inputs]
                raise ValueError(f"GpuElemwise{{{st.scalar_op}}}: input dimension mismatch: "
                                 f"input shapes {shapes} (only dimensions declared "
                                 "broadcastable may differ)")
        return tuple(shape)

    def run(self, inputs: Sequence[Any], outputs: Sequence[Any]) -> None:
        st = self.st
        n = int(outputs[0].size)
        if n == 0:
            return
        err = self.cp.zeros(1, dtype=np.int32) if self.needs_error else None
        full = [x for j, x in enumerate(inputs) if not st.is_scalar_like(j)]
        grid, block = launch_config(n)
        stride = grid[0] * block[0]
        if self.c_mod is not None and all(a.flags.c_contiguous for a in full) and \
                all(o.flags.c_contiguous for o in outputs):
            small = int32_indices(n, 0, stride)
            kern = self.c_mod.get(KERNEL_C[0 if small else 1])
            args = list(inputs) + list(outputs) + [_int_t(small)(n)]
        else:
            kern, args = self._strided_call(inputs, outputs, n, stride)
        if err is not None:
            args.append(err)
        kern(grid, block, tuple(args))
        if err is not None and int(err.get()[0]):
            raise ValueError("Integers to negative integer powers are not allowed.")

    def _strided_call(self, inputs: Sequence[Any], outputs: Sequence[Any], n: int, stride: int
                      ) -> tuple[Any, list]:
        st = self.st
        shape = outputs[0].shape
        arrays = [(x, st.patterns[j]) for j, x in enumerate(inputs) if not st.is_scalar_like(j)]
        arrays += [(o, (False,) * st.ndim) for o in outputs]
        strides = [[0 if p[d] else int(a.strides[d]) for d in range(st.ndim)]
                   for a, p in arrays]
        dims, strs = coalesce(shape, strides)
        rank = len(dims)
        reach = max((sum((n_d - 1) * abs(s) for n_d, s in zip(dims, ss)) for ss in strs),
                    default=0)
        small = int32_indices(n, reach, stride)
        mod = self.s_mods.get(rank)
        if mod is None:
            mod = self.s_mods[rank] = load(strided_module_source(st, rank))
            self.keys.append(strided_module_source(st, rank).key)
        t = _int_t(small)
        args = list(inputs) + list(outputs) + [t(n)] + [t(d) for d in dims[1:]]
        args += [t(s) for ss in strs for s in ss]
        return mod.get(KERNEL_S[0 if small else 1]), args


def elemwise_thunk(runner: ElemwiseRunner, in_cells: list, out_cells: list,
                   destroyed: dict[int, int]) -> Any:
    cp = runner.cp
    dtypes = runner.st.out_dtypes

    def thunk() -> None:
        ins = [c[0] for c in in_cells]
        shape = runner.out_shape(ins)
        outs = [ins[destroyed[k]] if k in destroyed else cp.empty(shape, dtype=d)
                for k, d in enumerate(dtypes)]
        runner.run(ins, outs)
        for cell, value in zip(out_cells, outs):
            cell[0] = value

    return thunk


@register(Elemwise, check=check_elemwise)
def lower_elemwise(op: Elemwise, node: Any, ctx: Any) -> Lowered:
    st = structure_of(node)
    runner = ElemwiseRunner(st)
    destroyed = dict(st.inplace)
    return Lowered(CUDA, lambda ins, outs: elemwise_thunk(runner, ins, outs, destroyed),
                   kernel_keys=tuple(runner.keys))
