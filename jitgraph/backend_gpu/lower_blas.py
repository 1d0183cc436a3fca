"""BLAS ops on the GPU: the products through cuBLAS (``cupy.dot``), the ``beta * Z + alpha * P``
epilogue of Gemm/Gemv and Ger's rank-1 update as one generated kernel (``jg_axpby``, strided, in
place into ``Z``/``A`` for the in-place ops).

``alpha`` and ``beta`` stay on the host (they are constants or scalars), so the thunk reads them
without a device synchronisation and passes them to the kernel by value; ``beta == 0`` ignores
``Z`` as BLAS does. Only float32 and float64 run here; other dtypes stay on the CPU.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from jitgraph.tensor.linalg import blas as B

from jitgraph.backend_gpu.cuda_types import C_TYPES, Unsupported
from jitgraph.backend_gpu.kernels import CudaSource, launch_config, load
from jitgraph.backend_gpu.registry import CUDA, Lowered, check_dtypes_of, register
from jitgraph.backend_gpu.device import import_cupy

_REAL = ("float32", "float64")


def axpby_source(dtype: str) -> CudaSource:
    t = C_TYPES[dtype]
    src = f"""\
// jitgraph CUDA BLAS epilogue: out = beta * y + alpha * t ({dtype}); y ignored when beta == 0
extern "C" __global__ void jg_axpby(const {t}* __restrict__ p, const char* y, char* out,
                                    long long n0, long long n1, long long sy0, long long sy1,
                                    long long so0, long long so1, {t} alpha, {t} beta) {{
    const long long n = n0 * n1;
    for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < n;
         k += (long long)blockDim.x * gridDim.x) {{
        const long long i = k / n1;
        const long long j = k - i * n1;
        {t} v = alpha * p[k];
        if (beta != 0) v += beta * *(const {t}*)(y + i * sy0 + j * sy1);
        *({t}*)(out + i * so0 + j * so1) = v;
    }}
}}
"""
    return CudaSource(("cuda-axpby", dtype), src, ("jg_axpby",), f"axpby {dtype}")


def _check_real(node: Any) -> None:
    check_dtypes_of(node)
    dtypes = {v.type.dtype for v in node.inputs if v.type.ndim > 0} | \
        {o.type.dtype for o in node.outputs}
    if len(dtypes) != 1 or dtypes.pop() not in _REAL:
        raise Unsupported("GPU BLAS needs float32 or float64 operands of one dtype")


def _blas_placement(node: Any) -> tuple[tuple[bool, ...], tuple[bool, ...]]:
    """Arrays on the device, the scalars alpha and beta on the host."""
    return (tuple(v.type.ndim > 0 for v in node.inputs), (True,))


class Axpby:
    def __init__(self, dtype: str) -> None:
        self.cp = import_cupy()
        self.kernel = load(axpby_source(dtype)).get("jg_axpby")
        self.scalar = np.dtype(dtype).type

    def __call__(self, p: Any, y: Any, out: Any, alpha: float, beta: float) -> Any:
        """``out = beta * y + alpha * p`` (``p`` C-contiguous, of ``out``'s shape)."""
        if out.size == 0:
            return out
        shape = (1,) + tuple(out.shape) if out.ndim == 1 else tuple(out.shape)
        ys = (0,) + tuple(y.strides) if y.ndim == 1 else tuple(y.strides)
        os_ = (0,) + tuple(out.strides) if out.ndim == 1 else tuple(out.strides)
        grid, block = launch_config(int(out.size))
        i64 = np.int64
        self.kernel(grid, block, (p, y, out, i64(shape[0]), i64(shape[1]), i64(ys[0]),
                                  i64(ys[1]), i64(os_[0]), i64(os_[1]), self.scalar(alpha),
                                  self.scalar(beta)))
        return out


@register(B.Dot, B.Dot22, check=_check_real)
def lower_dot(op: Any, node: Any, ctx: Any) -> Lowered:
    cp = import_cupy()

    def make(in_cells: list, out_cells: list) -> Any:
        (a_cell, b_cell), (out_cell,) = in_cells, out_cells

        def thunk() -> None:
            out_cell[0] = cp.dot(a_cell[0], b_cell[0])

        return thunk

    return Lowered(CUDA, make)


@register(B.Gemm, B.Gemv, check=_check_real, placement=_blas_placement)
def lower_gemm(op: Any, node: Any, ctx: Any) -> Lowered:
    cp = import_cupy()
    dtype = node.outputs[0].type.dtype
    axpby = Axpby(dtype)
    inplace = bool(op.inplace)
    name = type(op).__name__

    def make(in_cells: list, out_cells: list) -> Any:
        (out_cell,) = out_cells

        def thunk() -> None:
            z, alpha, x, y, beta = (c[0] for c in in_cells)
            product = cp.dot(x, y)
            if z.shape != product.shape:
                raise ValueError(f"{name}: shapes do not match: {z.shape} vs product "
                                 f"{product.shape}")
            a, b = float(alpha), float(beta)
            if not inplace and b == 0 and a == 1:
                out_cell[0] = product
                return
            # the epilogue reads the product through a __restrict__ pointer: never write it
            # there (a non-in-place Gemm gets a new array)
            target = z if inplace else cp.empty(product.shape, dtype=dtype)
            out_cell[0] = axpby(product, z, target, a, b)

        return thunk

    return Lowered(CUDA, make, kernel_keys=(axpby_source(dtype).key,))


@register(B.Ger, check=_check_real, placement=_blas_placement)
def lower_ger(op: Any, node: Any, ctx: Any) -> Lowered:
    cp = import_cupy()
    dtype = node.outputs[0].type.dtype
    axpby = Axpby(dtype)
    inplace = bool(op.inplace)

    def make(in_cells: list, out_cells: list) -> Any:
        (out_cell,) = out_cells

        def thunk() -> None:
            a, alpha, x, y = (c[0] for c in in_cells)
            if a.shape != (x.shape[0], y.shape[0]):
                raise ValueError(f"ger: shapes do not match: A {a.shape}, x {x.shape}, "
                                 f"y {y.shape}")
            product = cp.outer(x, y)
            target = a if inplace else cp.empty(a.shape, dtype=dtype)
            out_cell[0] = axpby(product, a, target, float(alpha), 1.0)

        return thunk

    return Lowered(CUDA, make, kernel_keys=(axpby_source(dtype).key,))
