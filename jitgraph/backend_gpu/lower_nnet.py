"""Softmax and LogSoftmax (generated row kernels), and the one-hot categorical cross-entropy and
its gradient (CuPy indexing, with the CPU op's label checks)."""

from __future__ import annotations

from typing import Any

import numpy as np

from jitgraph.tensor import nnet as N

from jitgraph.backend_gpu.cuda_types import Unsupported, is_float
from jitgraph.backend_gpu.kernels import CudaSource, load
from jitgraph.backend_gpu.nnet_codegen import ENTRY, RowwiseStructure, softmax_source
from jitgraph.backend_gpu.registry import CUDA, Lowered, check_dtypes_of, register
from jitgraph.backend_gpu.device import active, import_cupy


def structure_of(node: Any) -> RowwiseStructure:
    op = getattr(node.op, "cpu_op", node.op)
    return RowwiseStructure(isinstance(op, N.LogSoftmax), node.inputs[0].type.dtype,
                            node.outputs[0].type.dtype)


def module_source(st: RowwiseStructure) -> CudaSource:
    return CudaSource(st.key(), softmax_source(st), (ENTRY,), st.describe())


def _check_softmax(node: Any) -> None:
    check_dtypes_of(node)
    if not is_float(node.outputs[0].type.dtype):
        raise Unsupported("softmax of a non-float output")


def _block(n: int) -> int:
    b = 32
    while b < n and b < 256:
        b *= 2
    return b


@register(N.Softmax, N.LogSoftmax, check=_check_softmax)
def lower_softmax(op: Any, node: Any, ctx: Any) -> Lowered:
    cp = import_cupy()
    st = structure_of(node)
    kernel = load(module_source(st)).get(ENTRY)
    sms = active().multiprocessors if active() is not None else 80
    itemsize = np.dtype(st.out_dtype).itemsize
    axis = op.axis

    def make(in_cells: list, out_cells: list) -> Any:
        (x_cell,), (out_cell,) = in_cells, out_cells

        def thunk() -> None:
            x = x_cell[0]
            if axis is None or x.ndim == 0:
                src = cp.ascontiguousarray(x.reshape(-1))
                n = int(src.size)
            else:
                ax = axis % x.ndim
                src = cp.ascontiguousarray(cp.moveaxis(x, ax, -1))
                n = int(x.shape[ax])
            out = cp.empty(src.shape, dtype=st.out_dtype)
            rows = int(src.size) // n if n else 0
            if rows:
                block = _block(n)
                kernel((min(rows, 32 * sms),), (block,), (src, out, np.int64(rows), np.int64(n)),
                       shared_mem=block * itemsize)
            if axis is None or x.ndim == 0:
                out = out.reshape(x.shape)
            else:
                out = cp.moveaxis(out, -1, axis % x.ndim)
            out_cell[0] = out

        return thunk

    return Lowered(CUDA, make, kernel_keys=(st.key(),))


def _check_labels(op: Any, coding: Any, labels: Any) -> None:
    if coding.shape[0] != labels.shape[0]:
        raise ValueError(f"{op}: {coding.shape[0]} rows of coding_dist (shape {coding.shape}) "
                         f"but {labels.shape[0]} labels (shape {labels.shape})")
    if labels.size:
        lo, hi = int(labels.min()), int(labels.max())
        if lo < 0 or hi >= coding.shape[1]:
            raise ValueError(f"{op}: labels must lie in [0, {coding.shape[1]}) for coding_dist "
                             f"of shape {coding.shape}; got values in [{lo}, {hi}]")


@register(N.CrossentropyCategorical1Hot)
def lower_xent(op: Any, node: Any, ctx: Any) -> Lowered:
    cp = import_cupy()

    def make(in_cells: list, out_cells: list) -> Any:
        (c_cell, l_cell), (out_cell,) = in_cells, out_cells

        def thunk() -> None:
            coding, labels = c_cell[0], l_cell[0]
            _check_labels(op, coding, labels)
            picked = coding[cp.arange(coding.shape[0]), labels]
            out_cell[0] = -cp.log(picked)

        return thunk

    return Lowered(CUDA, make)


@register(N.CrossentropyCategorical1HotGrad)
def lower_xent_grad(op: Any, node: Any, ctx: Any) -> Lowered:
    cp = import_cupy()
    dtype = node.outputs[0].type.dtype

    def make(in_cells: list, out_cells: list) -> Any:
        (g_cell, c_cell, l_cell), (out_cell,) = in_cells, out_cells

        def thunk() -> None:
            g, coding, labels = g_cell[0], c_cell[0], l_cell[0]
            _check_labels(op, coding, labels)
            rows = cp.arange(coding.shape[0])
            out = cp.zeros(coding.shape, dtype=dtype)
            out[rows, labels] = (-g / coding[rows, labels]).astype(dtype, copy=False)
            out_cell[0] = out

        return thunk

    return Lowered(CUDA, make)
