"""The MRG31k3p draw (``mrg_uniform``) and the fused multiply-add of random affine maps
(``MulAdd``) as generated kernels.

MRG kernel: sample ``i`` comes from stream ``i % n_streams`` at round ``i // n_streams``, so the
output is written in its own order, round after round (each round one contiguous run of
``n_streams`` samples): at 10**7 samples the writes limit the speed, and the earlier kernel,
which drew all the rounds of a block of 256 streams at once (1 KB runs ``n_streams`` samples
apart), ran at about half the speed. The states are held in a scratch ``(6, n_streams)``
uint32 matrix (one row per state word, about 360 KB for 15360 streams: it stays in L2) that the
inner loop reads and writes contiguously (float64 adds a seventh row, see the round loop). A
step does not shift the three words of a component:
the new word overwrites the oldest, so which row holds ``x[n-1]``, ``x[n-2]``, ``x[n-3]``
rotates with the round modulo 3 (three copies of the loop); the state is written back in its
order at the end. The arithmetic is shift-and-add only (the multiplications modulo ``m1`` and
``m2`` reduce to shifts, masks and a multiplication by 21069, since ``2**31 = 1 mod m1`` and
``2**31 = 21069 mod m2``), in 32 bits, so LLVM vectorises it; the order of its sums and
reductions and its arithmetic shifts are those of Theano's C code, which matters for the
out-of-range states of negative seeds. The integer output ``z`` in
[1, m1] becomes ``z * 2**-31`` (float64), ``float32(z) * NORM32`` (float32) or, as Theano's
float16 draws, ``((z & 0x7fff) + 1) * NORM16`` rounded to float16, the numbers of
:mod:`jitgraph.random.mrg31k3p` bit for bit. Arrays are indexed by ``np.uint64`` indices: a
signed index may count from the end, and that test kept LLVM from vectorising the loop (the
kernel ran at a fifth of the speed). Streams are independent: under ``openmp`` groups
of :data:`GROUP` streams are split across threads (:func:`~.parallel.run_chunks`). The state is
advanced in place when the op is the in-place variant, else in a copy.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from jitgraph.graph.basic import Constant
from jitgraph.random import mrg31k3p
from jitgraph.random.mrg_op import MRGUniform, check_state_matrix, sample_count
from jitgraph.random.muladd import MulAdd

from jitgraph.backend_cpu.codegen.elemwise import _Writer
from jitgraph.backend_cpu.codegen.kernels import (HEADER, KernelSource, kernel_module,
                                                  numba_array_type, signature_text)
from jitgraph.backend_cpu.options import CodegenOptions
from jitgraph.backend_cpu.lowering.registry import NUMBA, Lowered, register_lowering
from jitgraph.backend_cpu.native import KernelError

#: streams per unit of the split across threads (each thread's part of a round is a run of
#: at least this many samples; two threads share at most one cache line of it)
GROUP = 64


def _u(expr: str) -> str:
    """``expr`` kept in 32 bits (Numba widens unsigned arithmetic to 64 bits, which would halve
    the lanes of the vectorised loop); literals are written as uint32 too, since mixing signed
    and unsigned integers changes Numba's typing."""
    return f"np.uint32({expr})"


def _reduce(var: str, modulus: str) -> str:
    return f"{var} = {_u(f'{var} - {modulus}')} if {var} >= {modulus} else {var}"


#: which scratch rows hold (x1[n-1], x1[n-2], x1[n-3], x2[n-1], x2[n-2], x2[n-3]) after a
#: number of steps congruent to 0, 1, 2 modulo 3 (the new word replaces the oldest)
_ROWS_AFTER = ((0, 1, 2, 3, 4, 5), (2, 0, 1, 5, 3, 4), (1, 2, 0, 4, 5, 3))


def _sar(expr: str, k: int) -> str:
    """The int32 word ``expr`` (held in a uint32) shifted right arithmetically by ``k``: a
    negative word (a state Theano reaches from a negative seed) keeps its sign bits, as in
    Theano's C code. Numba widens the signed shift to 64 bits; the truncation back to uint32
    lets LLVM narrow it again (as fast as the logical shift; a logical shift corrected by the
    sign bit was about 10% slower at 10**7 float32 samples)."""
    return _u(f"np.int32({expr}) >> S{k}")


def _step_lines(w: _Writer, d: int, phase: int) -> None:
    """One MRG31k3p step of stream ``j`` after ``phase`` (mod 3) steps, leaving ``z``.

    ``x1`` uses ``x1[n-2]`` and ``x1[n-3]``, ``x2`` uses ``x2[n-1]`` and ``x2[n-3]``; each new
    word goes to the row of its component's ``n-3`` word. The words are int32 held in uint32:
    the sums wrap, and a reduction ``y >= m`` in uint32 is the test ``y < 0 or y >= m`` of the
    int32 word. For states in range every sum is a sum of residues and the step is exact; for
    the negative words of a negative seed, the order of the sums and reductions and the
    arithmetic shifts are those of Theano's C code, whose numbers they then reproduce (see
    :mod:`jitgraph.random.mrg31k3p`). ``M1``, ``M2``, ``K*`` (uint32) and ``S*`` (int32) are
    constants bound at the top of the kernel."""
    r = _ROWS_AFTER[phase]
    w(d, f"b = sc[{r[1]}, i]")
    w(d, f"c = sc[{r[2]}, i]")
    # 2**22 * b + 129 * c mod m1: b = hi * 2**9 + lo, c = hi * 2**24 + lo, 2**31 = 1 (mod m1)
    w(d, "t = " + _u(f"{_u('(b & K511) << K22')} + {_sar('b', 9)}"))
    w(d, "v = " + _u(f"{_u('(c & K16777215) << K7')} + {_sar('c', 24)}"))
    w(d, "y1 = " + _u("t + v"))
    w(d, _reduce("y1", "M1"))
    w(d, "y1 = " + _u("y1 + c"))
    w(d, _reduce("y1", "M1"))
    w(d, f"e = sc[{r[3]}, i]")
    w(d, f"f = sc[{r[5]}, i]")
    # 2**15 * e mod m2: e = hi * 2**16 + lo and 2**31 = 21069 (mod m2)
    for var, src in (("p", "e"), ("q", "f")):
        w(d, f"{var} = " + _u(f"{_u(f'({src} & K65535) << K15')} + "
                              f"{_u(_sar(src, 16) + ' * K21069')}"))
        w(d, _reduce(var, "M2"))
    w(d, "q = " + _u("q + f"))
    w(d, _reduce("q", "M2"))
    w(d, "y2 = " + _u("q + p"))
    w(d, _reduce("y2", "M2"))
    w(d, f"sc[{r[2]}, i] = y1")
    w(d, f"sc[{r[5]}, i] = y2")
    # a signed comparison: a reduced negative word may stay negative
    w(d, "z = " + _u("y1 - y2 + M1") + " if np.int32(y1) <= np.int32(y2) else "
         + _u("y1 - y2"))


#: the uint32 constants of the step bound once per kernel call
_CONSTANTS = {"M1": mrg31k3p.M1, "M2": mrg31k3p.M2, **{f"K{k}": k for k in
              (7, 15, 22, 511, 21069, 65535, 16777215)}}
#: the int32 counts of the arithmetic shifts
_SHIFTS = (9, 16, 24)


def _convert(dtype: str) -> str:
    if dtype == "float64":
        return f"np.float64(np.int32(z)) * {mrg31k3p.NORM64!r}"
    if dtype == "float16":  # mrg31k3p.float16_from_integers: Theano's 15-bit draws
        return f"np.float64((np.int32(z) & np.int32(32767)) + 1) * {mrg31k3p.NORM16!r}"
    return f"np.float32(np.int32(z)) * np.float32({float(mrg31k3p.NORM32)!r})"


def _by_phase(w: _Writer, d: int, phase: str, body: Any) -> None:
    """``body(w, depth, p)`` under ``if``/``elif`` branches on ``phase == p`` for p = 0, 1, 2."""
    for p in range(3):
        w(d, f"{'if' if p == 0 else 'elif'} {phase} == {p}:")
        body(w, d + 1, p)


def scratch_rows(dtype: Any) -> int:
    """Rows of the scratch matrix: the six state words, and for float64 a row holding a
    round's integers before their conversion."""
    return 6 if np.dtype(dtype) == np.float32 else 7


def mrg_source(dtype: str, options: CodegenOptions) -> KernelSource:
    """The kernel ``kernel(state, out, sc, first_group, end_group)``: streams
    ``[first_group * GROUP, end_group * GROUP)`` draw their samples of ``out``, through the
    scratch matrix ``sc`` (uint32, shape (:func:`scratch_rows`, n_streams))."""
    w = _Writer()
    w(0, "def kernel(state, out, sc, first_group, end_group):")
    w(1, "ns = state.shape[0]")
    w(1, "n = out.shape[0]")
    # the driver's direct call relies on these checks (run_mrg makes them before calling)
    w(1, "if ns < 1 or state.shape[1] != 6:")
    w(2, 'raise ValueError("mrg_uniform: the state must be an (n_streams, 6) int32 matrix")')
    w(1, f"if sc.shape[0] != {scratch_rows(dtype)} or sc.shape[1] < ns:")  # new stream count
    w(2, 'raise ValueError("mrg_uniform: the scratch matrix is smaller than the state")')
    for name, value in _CONSTANTS.items():
        w(1, f"{name} = np.uint32({value})")
    for k in _SHIFTS:
        w(1, f"S{k} = np.int32({k})")
    w(1, f"first = first_group * {GROUP}")
    w(1, f"end = min(ns, end_group * {GROUP})")
    w(1, "for j in range(first, end):")
    w(2, "i = np.uint64(j)")
    for k in range(6):
        w(2, f"sc[{k}, i] = np.uint32(state[i, {k}])")
    w(1, "rounds = n // ns")
    w(1, "for r in range(rounds):")
    w(2, "base = r * ns")
    w(2, "ph = r % 3")

    def round_loop(stop: str) -> Any:
        def body(w: _Writer, d: int, p: int) -> None:
            w(d, f"for j in range(first, {stop}):")
            w(d + 1, "i = np.uint64(j)")
            _step_lines(w, d + 1, p)
            if dtype == "float32":
                w(d + 1, f"out[np.uint64(base + j)] = {_convert(dtype)}")
                return
            # float64: the integers of the round go to the scratch's last row and are
            # converted by a second loop; in one loop the 64-bit floats would set the vector
            # width, and the 32-bit step would run on half as many lanes
            w(d + 1, "sc[6, i] = z")
            w(d, f"for j in range(first, {stop}):")
            w(d + 1, "z = sc[6, np.uint64(j)]")
            w(d + 1, f"out[np.uint64(base + j)] = {_convert(dtype)}")
        return body

    _by_phase(w, 2, "ph", round_loop("end"))
    # the last, partial round: the streams below n - base draw once more
    w(1, "base = rounds * ns")
    w(1, "mid = max(first, min(end, n - base))")
    w(1, "ph = rounds % 3")
    _by_phase(w, 1, "ph", round_loop("mid"))

    def write_back(lo: str, hi: str) -> Any:
        def body(w: _Writer, d: int, p: int) -> None:
            w(d, f"for j in range({lo}, {hi}):")
            w(d + 1, "i = np.uint64(j)")
            for k, row in enumerate(_ROWS_AFTER[p]):
                w(d + 1, f"state[i, {k}] = np.int32(sc[{row}, i])")
        return body

    w(1, "ph = (rounds + 1) % 3")
    _by_phase(w, 1, "ph", write_back("first", "mid"))
    w(1, "ph = rounds % 3")
    _by_phase(w, 1, "ph", write_back("mid", "end"))
    sig = signature_text([numba_array_type("int32", 2, "C"), numba_array_type(dtype, 1, "C"),
                          numba_array_type("uint32", 2, "C"), "_nt.int64", "_nt.int64"])
    text = "\n".join([HEADER, f"SIG_kernel = {sig}", "", "", *w.lines, ""])
    key = ("mrg31k3p", 11, dtype, GROUP, options.key())
    return KernelSource(key, text, ("kernel",), options, f"mrg31k3p uniform {dtype}")


def run_mrg(kernel: Any, run_chunks: Any, state: np.ndarray, size: Any, dtype: Any,
            inplace: bool, parallel_min: int, buf: list | None = None,
            scratch: list | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(new_state, sample)``: the driver's call of the MRG kernel (``parallel_min``: the
    sample count from which groups of streams are split across threads; 0 = never; ``buf``: a
    one-element list keeping the sample's buffer between calls, given when the driver may
    reuse it, i.e. ``allow_gc=False`` and a sample that is not a graph output; ``scratch``: a
    one-element list keeping the scratch state matrix between calls, whose contents do not
    outlive a call). Kept lean: it runs on every call (a small draw's call is a few
    microseconds, each allocation a tenth of that)."""
    if state.dtype is not _INT32 or state.ndim != 2 or state.shape[1] != 6:
        check_state_matrix(state)  # raises the error that says what is wrong (if anything)
    # a constant size comes as the tuple of its dimensions
    shape = size if type(size) is tuple else tuple(size.tolist())
    n = 1
    for d in shape:
        if d < 0:
            sample_count(size)  # raises
        n *= d
    if not inplace:
        state = np.array(state, order="C")  # the op returns a new state: advance a copy
    work = state if state.flags.c_contiguous else np.ascontiguousarray(state)
    if buf is None:
        out = np.empty(n, dtype)
    else:  # a fresh buffer costs its page faults: about a third of the time at 10**7
        out = buf[0]
        if out is None or out.shape[0] != n:
            out = buf[0] = np.empty(n, dtype)
    ns = work.shape[0]
    if scratch is None:
        sc = np.empty((scratch_rows(dtype), ns), dtype=_UINT32)
    else:
        sc = scratch[0]
        if sc is None or sc.shape[1] != ns:
            sc = scratch[0] = np.empty((scratch_rows(dtype), ns), dtype=_UINT32)
    groups = -(-ns // GROUP)
    if parallel_min and n >= parallel_min and groups > 1:
        run_chunks(kernel, (work, out, sc), groups)
    else:
        kernel(work, out, sc, 0, groups)
    if work is not state:  # a strided state updated in place
        state[...] = work
    return state, (out if len(shape) == 1 else out.reshape(shape))


_UINT32 = np.dtype(np.uint32)
_INT32 = np.dtype(np.int32)


@register_lowering(MRGUniform)
def lower_mrg_uniform(op: MRGUniform, node: Any, ctx: Any) -> Lowered | None:
    if op.dtype not in ("float32", "float64"):
        return None
    from jitgraph.backend_cpu.runtime.parallel import run_chunks

    ks = mrg_source(op.dtype, ctx.options)
    kern = ctx.ref(kernel_module(ks).get("kernel"), "mrg")
    runner = ctx.ref(run_mrg, "run_mrg")
    chunks = ctx.ref(run_chunks, "run_chunks")
    parallel_min = ctx.minsize if ctx.openmp else 0

    def emit(nc: Any) -> list[str]:
        st, out = nc.local("st"), nc.local("u")
        buf = nc.b.new_global([None], "buf") if nc.can_reuse(1) else "None"
        scratch = nc.b.new_global([None], "scratch")
        dtype = nc.b.dtype(op.dtype)  # a dtype object: np.empty resolves it faster
        size = nc.inp(1)
        shape = None
        if isinstance(node.inputs[1], Constant):  # spares the array's conversion every call
            shape = tuple(int(d) for d in node.inputs[1].data)
            size = nc.b.new_global(shape, "shape")
        general = (f"{st}, {out} = {runner}({kern}, {chunks}, {nc.inp(0)}, {size}, "
                   f"{dtype}, {op.inplace}, {parallel_min}, {buf}, {scratch})")
        lines = [general]
        if shape is not None and op.inplace and all(d >= 0 for d in shape) and not (
                parallel_min and int(np.prod(shape)) >= parallel_min):
            lines = _direct_call_lines(nc, kern, st, out, shape, dtype, buf, scratch, general)
        return lines + [nc.set_out(0, st), nc.set_out(1, out)]

    return Lowered(NUMBA, emit, kernel_keys=(ks.key,))


def _direct_call_lines(nc: Any, kern: str, st: str, out: str, shape: tuple, dtype: str,
                       buf: str, scratch: str, general: str) -> list[str]:
    """The in-place draw of a constant ``shape`` on one thread, called straight from the
    driver (a small draw's call is about a microsecond; :func:`run_mrg`'s Python was most of
    it). Whatever the direct call cannot take fails before any work and goes through
    :func:`run_mrg`, which raises the error a bad state deserves: the kernel's entry refuses
    a scratch matrix not made yet (the first call) and a state that is not C-contiguous
    (TypeError), the kernel a state of another width or a scratch matrix of fewer streams
    (a new number of streams; ValueError, or KernelError from a native kernel)."""
    flat = nc.local("flat")
    n = int(np.prod(shape))
    if buf == "None":
        alloc = [f"{flat} = empty({n}, {dtype})"]
    else:
        alloc = [f"{flat} = {buf}[0]", f"if {flat} is None:",
                 f"    {flat} = {buf}[0] = empty({n}, {dtype})"]
    shaped = (f"{out} = {flat}" if len(shape) == 1 else
              f"{out} = {flat}.reshape({nc.b.new_global(shape, 'shape')})")
    refused = nc.b.new_global((TypeError, ValueError, KernelError), "refused")
    # (every local is bound on every path: the driver deletes them after the node)
    return [f"{st} = {nc.inp(0)}", *alloc,
            "try:",
            f"    {kern}({st}, {flat}, {scratch}[0], 0, {_ALL_GROUPS})",
            f"except {refused}:",
            f"    {general}",
            "else:",
            f"    {shaped}"]


#: an ``end_group`` past every stream (the kernel stops at its number of streams)
_ALL_GROUPS = 1 << 40


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
