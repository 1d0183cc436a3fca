"""The MRG31k3p draw (``mrg_uniform``) and the fused multiply-add of random affine maps
(``MulAdd``) as generated kernels.

MRG kernel: the streams are processed in blocks of :data:`BLOCK` rows of the state matrix. A
block's states are loaded into six uint32 stack arrays (one per state word), then for each round ``k``
every stream of the block makes one step and writes sample ``k * n_streams + stream``: the
inner loop runs over contiguous stack arrays and a contiguous slice of the output, with
shift-and-add arithmetic only (the multiplications modulo ``m1`` and ``m2`` reduce to shifts,
masks and a multiplication by 21069, since ``2**31 = 1 mod m1`` and ``2**31 = 21069 mod m2``),
so LLVM vectorises it. The integer output ``z`` in [1, m1] becomes ``z * 2**-31`` (float64) or
``float32(z) * NORM32`` (float32), the numbers of :mod:`jitgraph.random.mrg31k3p` bit for bit.
Blocks are independent: under ``openmp`` they are split across threads
(:func:`~.parallel.run_chunks`). The state is advanced in place when the op is the in-place
variant, else in a copy.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from jitgraph.random import mrg31k3p
from jitgraph.random.mrg_op import MRGUniform, check_state_matrix, sample_count
from jitgraph.random.muladd import MulAdd

from jitgraph.backend_cpu.elemwise_codegen import _Writer
from jitgraph.backend_cpu.kernels import (HEADER, KernelSource, kernel_module, numba_array_type,
                                          signature_text)
from jitgraph.backend_cpu.options import CodegenOptions
from jitgraph.backend_cpu.registry import NUMBA, Lowered, register_lowering

#: streams per block (six uint32 stack arrays of this length stay in L1)
BLOCK = 256


def _u(expr: str) -> str:
    """``expr`` kept in 32 bits (Numba widens unsigned arithmetic to 64 bits, which would halve
    the lanes of the vectorised loop); literals are written as uint32 too, since mixing signed
    and unsigned integers changes Numba's typing."""
    return f"np.uint32({expr})"


def _reduce(var: str, modulus: str) -> str:
    return f"{var} = {_u(f'{var} - {modulus}')} if {var} >= {modulus} else {var}"


def _step_lines(w: _Writer, d: int, j: str) -> None:
    """One MRG31k3p step of stream ``j`` of the block (state in s0..s5), leaving ``z``.

    Residues are below 2**31, so the sum of two fits in 32 unsigned bits. ``M1``, ``M2`` and
    ``K*`` are uint32 constants bound at the top of the kernel."""
    w(d, f"b = s1[{j}]")
    w(d, f"c = s2[{j}]")
    # 2**22 * b mod m1: b = hi * 2**9 + lo and 2**31 = 1 (mod m1)
    w(d, "t = " + _u(f"{_u('(b & K511) << K22')} + {_u('b >> K9')}"))
    # 129 * c = 2**7 * c + c (mod m1)
    w(d, "v = " + _u(f"{_u('(c & K16777215) << K7')} + {_u('c >> K24')}"))
    w(d, "v = " + _u("v + c"))
    w(d, _reduce("v", "M1"))
    w(d, "y1 = " + _u("t + v"))
    w(d, _reduce("y1", "M1"))
    w(d, f"e = s3[{j}]")
    w(d, f"f = s5[{j}]")
    # 2**15 * e mod m2: e = hi * 2**16 + lo and 2**31 = 21069 (mod m2)
    for var, src in (("p", "e"), ("q", "f")):
        w(d, f"{var} = " + _u(f"{_u(f'({src} & K65535) << K15')} + "
                              f"{_u(_u(f'{src} >> K16') + ' * K21069')}"))
        w(d, _reduce(var, "M2"))
    w(d, "q = " + _u("q + f"))
    w(d, _reduce("q", "M2"))
    w(d, "y2 = " + _u("p + q"))
    w(d, _reduce("y2", "M2"))
    w(d, f"s2[{j}] = b")
    w(d, f"s1[{j}] = s0[{j}]")
    w(d, f"s0[{j}] = y1")
    w(d, f"s5[{j}] = s4[{j}]")
    w(d, f"s4[{j}] = e")
    w(d, f"s3[{j}] = y2")
    w(d, "z = " + _u("y1 - y2 + M1") + " if y1 <= y2 else " + _u("y1 - y2"))


#: the uint32 constants of the step, bound once per kernel call
_CONSTANTS = {"M1": mrg31k3p.M1, "M2": mrg31k3p.M2, **{f"K{k}": k for k in
              (7, 9, 15, 16, 22, 24, 511, 21069, 65535, 16777215)}}


def _convert(dtype: str) -> str:
    if dtype == "float64":
        return f"np.float64(np.int32(z)) * {mrg31k3p.NORM64!r}"
    return f"np.float32(np.int32(z)) * np.float32({float(mrg31k3p.NORM32)!r})"


def mrg_source(dtype: str, options: CodegenOptions) -> KernelSource:
    """The kernel ``kernel(state, out, first_block, end_block)``."""
    w = _Writer()
    w(0, "def kernel(state, out, first_block, end_block):")
    w(1, "ns = state.shape[0]")
    w(1, "n = out.shape[0]")
    for name, value in _CONSTANTS.items():
        w(1, f"{name} = np.uint32({value})")
    for k in range(6):
        w(1, f"s{k} = stack_empty({BLOCK}, np.uint32)")
    w(1, "for blk in range(first_block, end_block):")
    w(2, f"b0 = blk * {BLOCK}")
    w(2, f"width = min({BLOCK}, ns - b0)")
    w(2, "for j in range(width):")
    for k in range(6):
        w(3, f"s{k}[j] = np.uint32(state[b0 + j, {k}])")
    # rounds where every stream of the block draws, then one round for its first streams
    w(2, "full = (n - b0 - width) // ns + 1 if n >= b0 + width else 0")
    w(2, "for r in range(full):")
    w(3, "base = r * ns + b0")
    w(3, "for j in range(width):")
    _step_lines(w, 4, "j")
    w(4, f"out[base + j] = {_convert(dtype)}")
    w(2, "base = full * ns + b0")
    w(2, "if base < n:")
    w(3, "for j in range(min(width, n - base)):")
    _step_lines(w, 4, "j")
    w(4, f"out[base + j] = {_convert(dtype)}")
    w(2, "for j in range(width):")
    for k in range(6):
        w(3, f"state[b0 + j, {k}] = np.int32(s{k}[j])")
    sig = signature_text([numba_array_type("int32", 2, "C"), numba_array_type(dtype, 1, "C"),
                          "_nt.int64", "_nt.int64"])
    text = "\n".join([HEADER, f"SIG_kernel = {sig}", "", "", *w.lines, ""])
    key = ("mrg31k3p", 3, dtype, BLOCK, options.key())
    return KernelSource(key, text, ("kernel",), options, f"mrg31k3p uniform {dtype}")


def run_mrg(kernel: Any, run_chunks: Any, state: np.ndarray, size: Any, dtype: str,
            inplace: bool, parallel_min: int) -> tuple[np.ndarray, np.ndarray]:
    """``(new_state, sample)``: the driver's call of the MRG kernel (``parallel_min``: the
    sample count from which blocks are split across threads; 0 = never). Kept lean: it runs on
    every call."""
    if state.dtype != _INT32 or state.ndim != 2 or state.shape[1] != 6:
        check_state_matrix(state)  # raises the error that says what is wrong
    shape = tuple(size.tolist())
    n = 1
    for d in shape:
        n *= d
    if n < 0 or min(shape, default=0) < 0:
        sample_count(size)  # raises
    if not inplace:
        state = np.array(state, order="C")  # the op returns a new state: advance a copy
    work = state if state.flags.c_contiguous else np.ascontiguousarray(state)
    out = np.empty(n, dtype=dtype)
    blocks = -(-work.shape[0] // BLOCK)
    if parallel_min and n >= parallel_min and blocks > 1:
        run_chunks(kernel, (work, out), blocks)
    else:
        kernel(work, out, 0, blocks)
    if work is not state:  # a strided state updated in place
        state[...] = work
    return state, out.reshape(shape)


_INT32 = np.dtype(np.int32)


@register_lowering(MRGUniform)
def lower_mrg_uniform(op: MRGUniform, node: Any, ctx: Any) -> Lowered | None:
    if op.dtype not in ("float32", "float64"):
        return None
    from jitgraph.backend_cpu.parallel import run_chunks

    ks = mrg_source(op.dtype, ctx.options)
    kern = ctx.ref(kernel_module(ks).get("kernel"), "mrg")
    runner = ctx.ref(run_mrg, "run_mrg")
    chunks = ctx.ref(run_chunks, "run_chunks")
    parallel_min = ctx.minsize if ctx.openmp else 0

    def emit(nc: Any) -> list[str]:
        st, out = nc.local("st"), nc.local("u")
        return [f"{st}, {out} = {runner}({kern}, {chunks}, {nc.inp(0)}, {nc.inp(1)}, "
                f"{op.dtype!r}, {op.inplace}, {parallel_min})",
                nc.set_out(0, st), nc.set_out(1, out)]

    return Lowered(NUMBA, emit, kernel_keys=(ks.key,))


def muladd_source(dtype: str, options: CodegenOptions) -> KernelSource:
    """``kernel(x, scale, shift, out)``: ``x * scale + shift`` rounded once, for 1-d ``x`` and
    scalar ``scale``/``shift`` (the error-free transformations of
    :mod:`jitgraph.random.muladd`, written out)."""
    w = _Writer()
    w(0, "def kernel(x, scale, shift, out):")
    w(1, "b = np.float64(scale)")
    w(1, "c = np.float64(shift)")
    w(1, "tb = 134217729.0 * b")
    w(1, "bh = tb - (tb - b)")
    w(1, "bl = b - bh")
    w(1, "for i in range(x.shape[0]):")
    w(2, "a = np.float64(x[i])")
    if dtype == "float64":
        w(2, "p = a * b")
        w(2, "ta = 134217729.0 * a")
        w(2, "ah = ta - (ta - a)")
        w(2, "al = a - ah")
        w(2, "e = ((ah * bh - p) + ah * bl + al * bh) + al * bl")
        w(2, "s = p + c")
        w(2, "bb = s - p")
        w(2, "t = (p - (s - bb)) + (c - bb)")
        w(2, "v = t + e")
        w(2, "bv = v - t")
        w(2, "v_err = (t - (v - bv)) + (e - bv)")
        w(2, "r = s + v")
        w(2, "if v_err != 0.0:")  # an exact tie of s + v is broken by the lost error
        w(3, "twice = s + 2.0 * v")
        w(3, "if twice - s == 2.0 * v and (r == s or r == twice):")
        w(4, "r = twice if v_err * v > 0.0 else s")
        w(2, "out[i] = r")
    else:  # the float64 product is exact; a float32 tie of the sum goes the error's way
        w(2, "p = a * b")
        w(2, "s = p + c")
        w(2, "bb = s - p")
        w(2, "t = (p - (s - bb)) + (c - bb)")
        w(2, "r = np.float32(s)")
        w(2, "back = np.float64(r)")
        w(2, "if t != 0.0 and back != s:")
        w(3, "other = s + s - back")
        w(3, "if np.float64(np.float32(other)) == other and (other - back) * t > 0.0:")
        w(4, "r = np.float32(other)")
        w(2, "out[i] = r")
    sig = signature_text([numba_array_type(dtype, 1, "C", readonly=True), f"_nt.{dtype}",
                          f"_nt.{dtype}", numba_array_type(dtype, 1, "C")])
    text = "\n".join([HEADER, f"SIG_kernel = {sig}", "", "", *w.lines, ""])
    return KernelSource(("muladd", dtype, options.key()), text, ("kernel",), options,
                        f"muladd {dtype}")


def run_muladd(kernel: Any, x: np.ndarray, scale: np.ndarray, shift: np.ndarray) -> np.ndarray:
    out = np.empty(x.shape, dtype=x.dtype)
    kernel(np.ascontiguousarray(x).reshape(-1), scale.reshape(()).item(),
           shift.reshape(()).item(), out.reshape(-1))
    return out


@register_lowering(MulAdd)
def lower_muladd(op: MulAdd, node: Any, ctx: Any) -> Lowered | None:
    x, scale, shift = node.inputs
    dtype = node.outputs[0].dtype
    if dtype not in ("float32", "float64") or not all(scale.broadcastable) \
            or not all(shift.broadcastable) or x.broadcastable != node.outputs[0].broadcastable:
        return None  # parameters that vary along the sample: NumPy's perform
    ks = muladd_source(dtype, ctx.options)
    kern = ctx.ref(kernel_module(ks).get("kernel"), "muladd")
    runner = ctx.ref(run_muladd, "run_muladd")

    def emit(nc: Any) -> list[str]:
        return [nc.set_out(0, f"{runner}({kern}, {nc.inp(0)}, {nc.inp(1)}, {nc.inp(2)})")]

    return Lowered(NUMBA, emit, kernel_keys=(ks.key,))
