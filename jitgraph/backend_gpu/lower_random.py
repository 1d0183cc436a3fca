"""``mrg_uniform`` on the GPU: one CUDA thread per stream of the state matrix.

Thread ``s`` loads row ``s`` of the state, draws samples ``s``, ``s + n_streams``, ... (so a
warp writes consecutive samples: coalesced) and stores the state back; with more streams than
threads, threads take several streams (grid-stride). The arithmetic is 32-bit: the
multiplications modulo ``m1`` and ``m2`` reduce to shifts, masks and a product by 21069
(``2**31 = 1 mod m1``, ``2**31 = 21069 mod m2``), wrapping, with arithmetic shifts and the
order of sums and reductions of Theano's C code (so that the negative states of negative seeds
draw Theano's numbers too). The samples are those of :mod:`jitgraph.random.mrg31k3p` bit for
bit.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from jitgraph.random import mrg31k3p
from jitgraph.random.mrg_op import MRGUniform, sample_count

from jitgraph.backend_gpu.cuda_types import Unsupported
from jitgraph.backend_gpu.kernels import CudaSource, load
from jitgraph.backend_gpu.registry import CUDA, Lowered, register
from jitgraph.backend_gpu.device import active, import_cupy

THREADS = 256


def entry_name(dtype: str) -> str:
    return f"mrg31k3p_uniform_{dtype}"


def mrg_cuda_source(dtype: str) -> CudaSource:
    """The CUDA module drawing ``dtype`` samples (float32 or float64)."""
    if dtype not in ("float32", "float64"):
        raise Unsupported(f"mrg_uniform draws float32 or float64 on the GPU, not {dtype}")
    ctype = "float" if dtype == "float32" else "double"
    if dtype == "float32":
        convert = f"__int2float_rn((int)z) * {float(mrg31k3p.NORM32)!r}f"
    else:
        convert = f"__int2double_rn((int)z) * {mrg31k3p.NORM64!r}"
    m1, m2 = mrg31k3p.M1, mrg31k3p.M2
    source = f"""
#define JG_M1 {m1}u
#define JG_M2 {m2}u

// y - m when the int32 word y is negative or at least m: as unsigned, y >= m
__device__ __forceinline__ unsigned int jg_reduce(unsigned int y, unsigned int m) {{
    return y >= m ? y - m : y;
}}

// the arithmetic right shift of the int32 word x (negative words keep their sign bits)
__device__ __forceinline__ unsigned int jg_sar(unsigned int x, int k) {{
    return (unsigned int)((int)x >> k);
}}

extern "C" __global__ void {entry_name(dtype)}(int* __restrict__ state,
                                               {ctype}* __restrict__ out,
                                               long long n, long long ns) {{
    for (long long s = (long long)blockIdx.x * blockDim.x + threadIdx.x; s < ns;
         s += (long long)gridDim.x * blockDim.x) {{
        int* st = state + 6 * s;
        unsigned int a0 = st[0], a1 = st[1], a2 = st[2];
        unsigned int b0 = st[3], b1 = st[4], b2 = st[5];
        for (long long i = s; i < n; i += ns) {{
            // x1[n] = 2**22 x1[n-2] + 129 x1[n-3]  (mod m1), sums and reductions in
            // Theano's order (it matters only for the negative words of negative seeds)
            unsigned int y1 = ((a1 & 511u) << 22) + jg_sar(a1, 9)
                              + ((a2 & 16777215u) << 7) + jg_sar(a2, 24);
            y1 = jg_reduce(jg_reduce(y1, JG_M1) + a2, JG_M1);
            // x2[n] = 2**15 x2[n-1] + (2**15 + 1) x2[n-3]  (mod m2)
            unsigned int p = jg_reduce(((b0 & 65535u) << 15) + jg_sar(b0, 16) * 21069u, JG_M2);
            unsigned int q = jg_reduce(((b2 & 65535u) << 15) + jg_sar(b2, 16) * 21069u, JG_M2);
            q = jg_reduce(q + b2, JG_M2);
            unsigned int y2 = jg_reduce(q + p, JG_M2);
            a2 = a1; a1 = a0; a0 = y1;
            b2 = b1; b1 = b0; b0 = y2;
            unsigned int z = (int)y1 <= (int)y2 ? y1 - y2 + JG_M1 : y1 - y2;
            out[i] = {convert};
        }}
        st[0] = (int)a0; st[1] = (int)a1; st[2] = (int)a2;
        st[3] = (int)b0; st[4] = (int)b1; st[5] = (int)b2;
    }}
}}
"""
    return CudaSource(("mrg31k3p", 2, dtype, THREADS), source, (entry_name(dtype),),
                      f"mrg31k3p uniform {dtype}")


def _placement(node: Any) -> tuple[tuple[bool, ...], tuple[bool, ...]]:
    """The state matrix and the sample on the device, the size on the host."""
    return (True, False), (True, True)


def _check(node: Any) -> None:
    if node.op.dtype not in ("float32", "float64"):
        raise Unsupported(f"mrg_uniform of {node.op.dtype} has no CUDA kernel")


@register(MRGUniform, placement=_placement, check=_check)
def lower_mrg_uniform(op: Any, node: Any, ctx: Any) -> Lowered:
    cp = import_cupy()
    cpu_op = getattr(op, "cpu_op", op)
    dtype, inplace = cpu_op.dtype, cpu_op.inplace
    src = mrg_cuda_source(dtype)
    kernel = load(src).get(entry_name(dtype))
    sms = active().multiprocessors if active() is not None else 80

    def make(in_cells: list, out_cells: list) -> Any:
        (state_cell, size_cell), (new_state_cell, sample_cell) = in_cells, out_cells

        def thunk() -> None:
            state, size = state_cell[0], size_cell[0]
            if state.dtype != np.int32 or state.ndim != 2 or state.shape[1] != 6:
                raise ValueError(f"mrg_uniform: the state must be an (n_streams, 6) int32 "
                                 f"matrix, got {state.dtype} of shape {state.shape}")
            n = sample_count(size)
            state = cp.ascontiguousarray(state) if inplace else cp.array(state, order="C")
            out = cp.empty(n, dtype=dtype)
            ns = int(state.shape[0])
            if n:
                blocks = min(-(-ns // THREADS), 32 * sms)
                kernel((blocks,), (THREADS,), (state, out, np.int64(n), np.int64(ns)))
            if inplace and state is not state_cell[0]:
                state_cell[0][...] = state
                state = state_cell[0]
            new_state_cell[0] = state
            sample_cell[0] = out.reshape(tuple(int(d) for d in size))

        return thunk

    return Lowered(CUDA, make, kernel_keys=(src.key,))
