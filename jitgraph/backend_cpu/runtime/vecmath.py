"""Vectorizable float64 ``exp``, ``expm1``, ``log``, ``log1p``, ``sin``, ``cos`` and ``tanh`` for the
generated kernels.

pip's llvmlite has no SVML, so Numba's ``math.exp``/``math.sin`` are scalar libm calls and a loop
using them is not vectorized. These functions are straight-line arithmetic (range reduction, a
polynomial, exponent bit manipulation) that LLVM inlines and vectorizes (AVX2/AVX-512). Each one
is accurate to about 1 ulp (``sin``/``cos`` 2 ulp) against NumPy **inside its fast range**.

Kernels do not inline them: they call the **block functions** (``block_call("exp", src, dst,
n)`` on a block of float64 buffers; :mod:`.blocks` compiles, stores and loads them). A block
function evaluates the whole block with the polynomial (a vectorized loop that also and-reduces
the range checks) and, when some argument falls outside the fast range (overflow, underflow to
subnormals, inf, NaN, non-positive logs, huge trig arguments), recomputes just those elements
with libm. Keeping
the polynomials out of the kernels keeps each kernel's compile time close to that of plain
arithmetic (see ``elemwise_codegen``).

Fast ranges:

==========  =======================================================
``fexp``    ``|x| <= 708``
``flog``    ``2.2250738585072014e-308 <= x <= 1.79e308`` (normal, positive, finite)
``flog1p``  ``-0.9999 <= x <= 1e300``
``fsin``    ``|x| <= 1e5``
``fcos``    ``|x| <= 1e5``
``fexpm1``  ``|x| <= 708``
``ftanh``   ``|x| <= 354``
==========  =======================================================

The polynomial coefficients are Taylor coefficients (``1/n!``, ``2/(2k+1)``) evaluated by Horner's
rule; the reduction constants are pi/2 and ln 2 split into exactly representable parts
(Cody-Waite), computed from their decimal expansions. The functions are compiled without
fast-math flags whatever the kernel's flags, so ``-ffast-math`` cannot reassociate the reductions.
``ftanh`` evaluates its polynomials with explicit fused multiply-adds (:func:`fmuladd`): the
same instructions under Numba and the direct compiler, about 35% faster than separate
multiplies and adds on 8192 values, with a shorter latency for loops recurring through tanh.
"""

from __future__ import annotations

import math

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

# -- bit casts (free in the generated code) ---------------------------------------------------


@intrinsic
def i64_as_f64(typingctx, v):  # noqa: ANN001 - Numba intrinsic signature
    """Reinterpret the bits of an int64 as a float64."""
    if v != types.int64:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())

    return types.float64(types.int64), codegen


@intrinsic
def f64_as_i64(typingctx, v):  # noqa: ANN001
    """Reinterpret the bits of a float64 as an int64."""
    if v != types.float64:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(64))

    return types.int64(types.float64), codegen


@intrinsic
def fmuladd(typingctx, a, b, c):  # noqa: ANN001
    """``a * b + c``, one fused multiply-add where the CPU has it (LLVM's ``fmuladd``: the
    direct compiler emits the same call, so both compile to the same instructions)."""
    if not (a == b == c == types.float64):
        return None

    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.DoubleType(), [ir.DoubleType()] * 3)
        fn = builder.module.declare_intrinsic("llvm.fmuladd", [ir.DoubleType()], fnty)
        return builder.call(fn, args)

    return types.float64(types.float64, types.float64, types.float64), codegen


# -- constants --------------------------------------------------------------------------------

LOG2E = 1.4426950408889634
LN2_HI = 0.6931471803691238      # ln 2 truncated to 32 bits: k * LN2_HI is exact for |k| < 2**21
LN2_LO = 1.9082149292705877e-10  # ln 2 - LN2_HI
PIO2_1 = 1.570796325802803       # pi/2 in three parts of 30, 30 and 53 bits
PIO2_2 = 9.920935791635221e-10
PIO2_3 = 5.170182981794105e-19
TWO_OVER_PI = 0.6366197723675814
SQRT2 = 1.4142135623730951

from jitgraph.backend_cpu.runtime.blocks import (  # noqa: E402 - the fast ranges live there
    BLOCKS, EXP_LIMIT, LOG1P_MAX, LOG1P_MIN, LOG_MAX, LOG_MIN, PRIMITIVES, TANH_LIMIT,
    TRIG_LIMIT, require, symbol)

_JIT = dict(nogil=True, error_model="numpy", cache=False)


@numba.njit(**_JIT)
def fexp(x):  # noqa: ANN001, ANN201 - Numba function
    """exp(x) for |x| <= 708 (see the module docstring)."""
    kf = math.floor(x * LOG2E + 0.5)
    r = (x - kf * LN2_HI) - kf * LN2_LO
    p = 1.6059043836821613e-10  # 1/13!
    p = p * r + 2.08767569878681e-09
    p = p * r + 2.505210838544172e-08
    p = p * r + 2.755731922398589e-07
    p = p * r + 2.7557319223985893e-06
    p = p * r + 2.48015873015873e-05
    p = p * r + 0.0001984126984126984
    p = p * r + 0.001388888888888889
    p = p * r + 0.008333333333333333
    p = p * r + 0.041666666666666664
    p = p * r + 0.16666666666666666
    p = p * r + 0.5
    p = p * r + 1.0
    p = p * r + 1.0
    k = np.int64(kf)
    return p * i64_as_f64((k + 1023) << 52)


@numba.njit(**_JIT)
def flog(x):  # noqa: ANN001, ANN201
    """log(x) for normal positive finite x."""
    bits = f64_as_i64(x)
    e = (bits >> 52) - 1023
    m = i64_as_f64((bits & 0x000FFFFFFFFFFFFF) | 0x3FF0000000000000)
    big = m > SQRT2
    m = m * 0.5 if big else m
    e = e + 1 if big else e
    f = m - 1.0
    s = f / (2.0 + f)
    z = s * s
    # R = sum_{k=1..10} 2 z^k / (2k+1): 2*atanh(s) = 2s + s*R
    q = 2.0 / 21.0
    q = q * z + 2.0 / 19.0
    q = q * z + 2.0 / 17.0
    q = q * z + 2.0 / 15.0
    q = q * z + 2.0 / 13.0
    q = q * z + 2.0 / 11.0
    q = q * z + 2.0 / 9.0
    q = q * z + 2.0 / 7.0
    q = q * z + 2.0 / 5.0
    q = q * z + 2.0 / 3.0
    R = q * z
    hfsq = 0.5 * f * f
    ef = np.float64(e)
    return ef * LN2_HI + (f - (hfsq - (s * (hfsq + R) + ef * LN2_LO)))


@numba.njit(**_JIT)
def flog1p(x):  # noqa: ANN001, ANN201
    """log(1 + x) for -0.9999 <= x <= 1e300 (a correction term keeps small x accurate)."""
    u = 1.0 + x
    c = (u - 1.0) - x  # the rounding error of 1 + x
    r = flog(u) - c / u
    return x if u == 1.0 else r


@numba.njit(**_JIT)
def fexpm1(x):  # noqa: ANN001, ANN201
    """exp(x) - 1 for |x| <= 708: Taylor series for |x| < 0.7 (no cancellation), else
    fexp(x) - 1."""
    p = 1.5619206968586225e-16  # 1/18!
    p = p * x + 2.8114572543455206e-15
    p = p * x + 4.779477332387385e-14
    p = p * x + 7.647163731819816e-13
    p = p * x + 1.1470745597729725e-11
    p = p * x + 1.6059043836821613e-10
    p = p * x + 2.08767569878681e-09
    p = p * x + 2.505210838544172e-08
    p = p * x + 2.755731922398589e-07
    p = p * x + 2.7557319223985893e-06
    p = p * x + 2.48015873015873e-05
    p = p * x + 0.0001984126984126984
    p = p * x + 0.001388888888888889
    p = p * x + 0.008333333333333333
    p = p * x + 0.041666666666666664
    p = p * x + 0.16666666666666666
    p = p * x + 0.5
    small = x + x * (x * p)
    big = fexp(x) - 1.0
    return small if abs(x) < 0.7 else big


@numba.njit(**_JIT)
def ftanh(x):  # noqa: ANN001, ANN201
    """tanh(x) for |x| <= 354, as expm1(2|x|) / (expm1(2|x|) + 2) with the sign of x:
    the series of ``fexpm1`` and the polynomial of ``fexp`` by Horner's rule with fused
    multiply-adds (half the instructions and a shorter dependency chain: a recurrence
    through tanh waits on its latency)."""
    u = 2.0 * abs(x)
    p = 1.5619206968586225e-16  # 1/18!
    p = fmuladd(p, u, 2.8114572543455206e-15)
    p = fmuladd(p, u, 4.779477332387385e-14)
    p = fmuladd(p, u, 7.647163731819816e-13)
    p = fmuladd(p, u, 1.1470745597729725e-11)
    p = fmuladd(p, u, 1.6059043836821613e-10)
    p = fmuladd(p, u, 2.08767569878681e-09)
    p = fmuladd(p, u, 2.505210838544172e-08)
    p = fmuladd(p, u, 2.755731922398589e-07)
    p = fmuladd(p, u, 2.7557319223985893e-06)
    p = fmuladd(p, u, 2.48015873015873e-05)
    p = fmuladd(p, u, 0.0001984126984126984)
    p = fmuladd(p, u, 0.001388888888888889)
    p = fmuladd(p, u, 0.008333333333333333)
    p = fmuladd(p, u, 0.041666666666666664)
    p = fmuladd(p, u, 0.16666666666666666)
    p = fmuladd(p, u, 0.5)
    small = fmuladd(u, u * p, u)
    kf = math.floor(u * LOG2E + 0.5)
    r = (u - kf * LN2_HI) - kf * LN2_LO
    q = 1.6059043836821613e-10  # 1/13!
    q = fmuladd(q, r, 2.08767569878681e-09)
    q = fmuladd(q, r, 2.505210838544172e-08)
    q = fmuladd(q, r, 2.755731922398589e-07)
    q = fmuladd(q, r, 2.7557319223985893e-06)
    q = fmuladd(q, r, 2.48015873015873e-05)
    q = fmuladd(q, r, 0.0001984126984126984)
    q = fmuladd(q, r, 0.001388888888888889)
    q = fmuladd(q, r, 0.008333333333333333)
    q = fmuladd(q, r, 0.041666666666666664)
    q = fmuladd(q, r, 0.16666666666666666)
    q = fmuladd(q, r, 0.5)
    q = fmuladd(q, r, 1.0)
    q = fmuladd(q, r, 1.0)
    big = q * i64_as_f64((np.int64(kf) + 1023) << 52) - 1.0
    t = small if u < 0.7 else big
    return math.copysign(t / (t + 2.0), x)


@numba.njit(**_JIT)
def _sin_kernel(r, r2):  # noqa: ANN001, ANN201
    s = -8.22063524662433e-18  # -1/19!
    s = s * r2 + 2.8114572543455206e-15
    s = s * r2 - 7.647163731819816e-13
    s = s * r2 + 1.6059043836821613e-10
    s = s * r2 - 2.505210838544172e-08
    s = s * r2 + 2.7557319223985893e-06
    s = s * r2 - 0.0001984126984126984
    s = s * r2 + 0.008333333333333333
    s = s * r2 - 0.16666666666666666
    return r + r * r2 * s


@numba.njit(**_JIT)
def _cos_kernel(r2):  # noqa: ANN001, ANN201
    c = 1.5619206968586225e-16  # 1/18!
    c = c * r2 - 4.779477332387385e-14
    c = c * r2 + 1.1470745597729725e-11
    c = c * r2 - 2.08767569878681e-09
    c = c * r2 + 2.755731922398589e-07
    c = c * r2 - 2.48015873015873e-05
    c = c * r2 + 0.001388888888888889
    c = c * r2 - 0.041666666666666664
    c = c * r2 + 0.5
    return 1.0 - r2 * c


@numba.njit(**_JIT)
def _sincos(x, shift):  # noqa: ANN001, ANN201
    qf = math.floor(x * TWO_OVER_PI + 0.5)
    r = ((x - qf * PIO2_1) - qf * PIO2_2) - qf * PIO2_3
    r2 = r * r
    s = _sin_kernel(r, r2)
    c = _cos_kernel(r2)
    q = np.int64(qf) + shift
    v = c if (q & 1) else s
    return -v if (q & 2) else v


@numba.njit(**_JIT)
def fsin(x):  # noqa: ANN001, ANN201
    """sin(x) for |x| <= 1e5 (keeps the sign of a zero)."""
    v = _sincos(x, 0)
    return x if x == 0.0 else v


@numba.njit(**_JIT)
def fcos(x):  # noqa: ANN001, ANN201
    """cos(x) for |x| <= 1e5."""
    return _sincos(x, 1)


# -- block functions: what kernels call ------------------------------------------------------
#
# Each block function is a C-callable ``void(double *src, double *dst, int64 n)`` compiled once
# per process (on first use) and published to the JIT linker under a fixed symbol name. Kernels
# call it through :func:`block_call`, which declares the symbol as external: LLVM cannot inline
# it, so a kernel using exp five times does not re-optimize five copies of a vectorized loop
# (which tripled kernel compile times), and a kernel loaded from a cache only needs the symbol,
# which :func:`require` provides.

@intrinsic
def block_call(typingctx, name, src, dst, n):  # noqa: ANN001, ANN201
    """``block_call("exp", src, dst, n)``: the block function on two float64 C arrays."""
    if not isinstance(name, types.StringLiteral) or name.literal_value not in BLOCKS:
        return None
    sym = symbol(name.literal_value)

    def codegen(context, builder, signature, args):
        from numba.core import cgutils

        require(name.literal_value)
        _, s, d, count = args
        s_arr = context.make_array(signature.args[1])(context, builder, s)
        d_arr = context.make_array(signature.args[2])(context, builder, d)
        ptr = ir.DoubleType().as_pointer()
        fnty = ir.FunctionType(ir.VoidType(), [ptr, ptr, ir.IntType(64)])
        fn = cgutils.get_or_insert_function(builder.module, fnty, sym)
        builder.call(fn, [s_arr.data, d_arr.data, count])
        return context.get_dummy_value()

    return types.void(name, src, dst, types.int64), codegen
