"""The direct compiler (:mod:`jitgraph.backend_cpu.native.direct`): kernel source -> LLVM IR without
Numba. Mostly differential: each kernel source is compiled both by the direct compiler and by
Numba (``numba.njit(SIG_f)(f)`` of the same module, with the options jitgraph uses), and the two
must compute the same bits. Targeted checks pin down the semantics Numba itself has (integer
division by zero, negative indices, fallbacks for what is not translated)."""

from __future__ import annotations

import ctypes
import itertools
import math
import os
import random
from collections.abc import Callable

import numba
import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from jitgraph.backend_cpu.codegen import kernels
from jitgraph.backend_cpu.native import direct, objects as native
from jitgraph.backend_cpu.runtime import blocks
from jitgraph.backend_cpu.options import CodegenOptions

_COUNTER = itertools.count()

INT64_MIN = np.iinfo(np.int64).min
INT64_MAX = np.iinfo(np.int64).max
INT32_MIN = np.iinfo(np.int32).min


def _unique(prefix: str) -> str:
    """A fresh export name (``native.load`` memoises objects by export name)."""
    return f"jg_test_direct_{prefix}_{os.getpid()}_{next(_COUNTER)}"


def arr(dtype: str, ndim: int = 1, layout: str = "C", readonly: bool = True) -> str:
    """Source text of a Numba array type of a kernel signature."""
    return kernels.numba_array_type(dtype, ndim, layout, readonly)


def kernel_source(params: list[str], body: str, prelude: str = "") -> str:
    """A kernel module: the header, an optional prelude, ``SIG_f`` and ``def f``."""
    return (f"{kernels.HEADER}{prelude}\n"
            f"SIG_f = {kernels.signature_text(params)}\n\n\n{body.strip()}\n")


def build_direct(source: str, entry: str = "f", kind: str = "python") -> native.NativeObject:
    obj, why = direct.build(source, entry, _unique(entry), kind, CodegenOptions())
    assert obj is not None, why
    assert why == ""
    return obj


def compile_direct(source: str, entry: str = "f") -> Callable:
    """The direct compiler's kernel, as a builtin function."""
    obj = build_direct(source, entry)
    return native.python_function(native.load(obj), entry)


def compile_numba(source: str, entry: str = "f") -> Callable:
    """Numba's kernel of the same source, compiled as jitgraph compiles it."""
    module = kernels.exec_module(source, _unique("numba_module"))
    return numba.njit(getattr(module, f"SIG_{entry}"),
                      **CodegenOptions().njit_kwargs())(getattr(module, entry))


def run_both(source: str, inputs: list, outputs: list) -> tuple[list, list]:
    """Run the direct and the Numba kernel of ``source`` on copies of ``outputs``."""
    results = []
    for fn in (compile_direct(source), compile_numba(source)):
        outs = [o.copy() for o in outputs]
        assert fn(*inputs, *outs) is None
        results.append(outs)
    return results[0], results[1]


def assert_same_bits(got: list, expected: list) -> None:
    for k, (g, e) in enumerate(zip(got, expected)):
        assert g.dtype == e.dtype
        np.testing.assert_array_equal(g, e, err_msg=f"output {k}", strict=True)


def check_against_numba(source: str, inputs: list, outputs: list) -> list:
    got, expected = run_both(source, inputs, outputs)
    assert_same_bits(got, expected)
    return got


# -- 1. integer floor division and modulo ---------------------------------------------------

DIVMOD = """
def f(a, b, q, r):
    for i in range(a.shape[0]):
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]
"""


@pytest.mark.parametrize("dtype", ["int64", "int32"])
def test_integer_floor_division_and_modulo_match_numba(dtype):
    info = np.iinfo(dtype)
    a = np.array([7, -7, 7, -7, 0, 5, -5, 0, info.min, info.min, info.max, info.min, -1, 6],
                 dtype=dtype)
    b = np.array([2, 2, -2, -2, 3, 0, 0, 0, -1, 1, -1, info.max, info.min, -4], dtype=dtype)
    # int32 operands are promoted to int64 (as in Numba): an int64 output shows it
    outs = [np.full(a.shape, 99, np.int64), np.full(a.shape, 99, np.int64)]
    src = kernel_source([arr(dtype), arr(dtype), arr("int64", readonly=False),
                         arr("int64", readonly=False)], DIVMOD)
    q, r = check_against_numba(src, [a, b], outs)
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    nonzero = b64 != 0
    regular = nonzero & ~((a64 == INT64_MIN) & (b64 == -1))
    np.testing.assert_array_equal(q[regular], a64[regular] // b64[regular])
    np.testing.assert_array_equal(r[regular], np.mod(a64[regular], b64[regular]))
    # Python's floor semantics on the signs
    np.testing.assert_array_equal(q[:4], [3, -4, -4, 3])
    np.testing.assert_array_equal(r[:4], [1, 1, -1, -1])
    # error_model='numpy': division by zero gives 0 (quotient and remainder)
    assert (q[~nonzero] == 0).all() and (r[~nonzero] == 0).all()
    if dtype == "int64":
        assert q[8] == 0 and r[8] == 0            # INT64_MIN // -1 overflows: 0
        assert q[9] == INT64_MIN and q[10] == -INT64_MAX
    else:
        assert q[8] == 2 ** 31 and r[8] == 0     # computed in int64: no overflow


def test_int64_min_floor_divided_by_minus_one_is_zero_for_scalars():
    src = kernel_source(["_nt.int64", "_nt.int64", arr("int64", readonly=False)], """
def f(x, y, out):
    out[0] = x // y
    out[1] = x % y
    out[2] = x // 0
    out[3] = x % 0
""")
    got, expected = run_both(src, [INT64_MIN, -1], [np.full(4, 7, np.int64)])
    assert_same_bits(got, expected)
    np.testing.assert_array_equal(got[0], [0, 0, 0, 0])


def test_unsigned_floor_division_and_modulo_match_numba():
    a = np.array([7, 2 ** 64 - 1, 0, 5, 2 ** 63], dtype=np.uint64)
    b = np.array([2, 3, 0, 0, 2 ** 64 - 1], dtype=np.uint64)
    src = kernel_source([arr("uint64"), arr("uint64"), arr("uint64", readonly=False),
                         arr("uint64", readonly=False)], DIVMOD)
    q, r = check_against_numba(src, [a, b], [np.zeros(5, np.uint64), np.zeros(5, np.uint64)])
    np.testing.assert_array_equal(q, [3, (2 ** 64 - 1) // 3, 0, 0, 0])
    np.testing.assert_array_equal(r, [1, 0, 0, 0, 2 ** 63])


# -- 2. indexing: negative and unsigned indices, layouts -------------------------------------

INDEXING = """
def f(a, k, out):
    n = a.shape[0]
    out[0] = a[-1]
    out[1] = a[-n]
    out[2] = a[k]
    for i in range(n):
        out[3 + i] = a[i - n]
        out[3 + n + i] = a[np.uint64(n - 1 - i)]
"""


@pytest.mark.parametrize("layout, view", [
    ("C", lambda x: x),
    ("A", lambda x: x),
    ("A", lambda x: np.repeat(x, 3)[::3]),
    ("A", lambda x: x[::-1].copy()[::-1]),
    ("A", lambda x: np.repeat(x[::-1], 2)[::-2]),   # a[::-2] of a twice as long
])
def test_negative_and_unsigned_indices(layout, view):
    base = np.arange(10.0, 15.0)
    a = view(base)
    np.testing.assert_array_equal(a, base)
    src = kernel_source([arr("float64", 1, layout), "_nt.int64", arr("float64", readonly=False)],
                        INDEXING)
    n = a.shape[0]
    out, = check_against_numba(src, [a, -2], [np.zeros(3 + 2 * n)])
    np.testing.assert_array_equal(out, [14, 10, 13, *base, *base[::-1]])


def test_two_dimensional_strided_views_with_negative_indices():
    src = kernel_source([arr("int32", 2, "A"), arr("int64", 2, "A", readonly=False)], """
def f(a, out):
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            out[i, j] = a[-1 - i, j - a.shape[1]] * 10 + a[i, -1]
""")
    base = np.arange(60, dtype=np.int32).reshape(6, 10)
    views = [base[::-2, 1::3], base.T[::2, ::-1], np.asfortranarray(base)]
    for a in views:
        target = np.zeros((a.shape[1], a.shape[0]), np.int64).T  # an F-ordered output
        direct_out, numba_out = run_both(src, [a], [target])
        assert_same_bits(direct_out, numba_out)
        expected = a[::-1, :].astype(np.int64) * 10 + a[:, -1:]
        np.testing.assert_array_equal(direct_out[0], expected)


def test_c_layout_rejects_non_contiguous_and_readonly_outputs():
    src = kernel_source([arr("float64"), arr("float64", readonly=False)], """
def f(a, out):
    for i in range(a.shape[0]):
        out[i] = a[i]
""")
    fn = compile_direct(src)
    with pytest.raises(TypeError, match="argument 0"):
        fn(np.arange(8.0)[::2], np.zeros(4))
    frozen = np.zeros(4)
    frozen.flags.writeable = False
    with pytest.raises(TypeError, match="argument 1"):
        fn(np.arange(4.0), frozen)


def test_entry_code_is_left_unoptimised_and_still_checks_its_arguments(monkeypatch):
    # The entry code (argument checks) is optnone: optimising and carefully selecting its
    # instructions was a fifth of a kernel's native compilation, for no time per call.
    glues = []
    finish = native.finish
    monkeypatch.setattr(native, "finish", lambda module, glue, *a, **k:
                        glues.append(glue) or finish(module, glue, *a, **k))
    src = kernel_source([arr("float64"), arr("float64", readonly=False)], """
def f(a, out):
    for i in range(a.shape[0]):
        out[i] = a[i] * 2.0
""")
    fn = compile_direct(src)
    assert len(glues) == 1 and "attributes #0 = { noinline optnone }" in glues[0]
    out = np.zeros(3)
    fn(np.arange(3.0), out)
    np.testing.assert_array_equal(out, [0.0, 2.0, 4.0])
    with pytest.raises(TypeError, match="exactly 2 arguments"):
        fn(np.arange(3.0))
    with pytest.raises(TypeError, match="argument 0"):
        fn([0.0, 1.0, 2.0], out)
    with pytest.raises(TypeError, match="argument 1"):
        fn(np.arange(3.0), np.zeros(3, dtype=np.float32))


# -- 3. booleans, and/or/not, conditional expressions ----------------------------------------

BOOLEANS = """
@numba.njit
def bump(counter):
    counter[0] += 1
    return True


def f(p, q, x, o_and, o_or, o_not, o_logic, o_sc, o_tern, o_mixed, o_wide, counter):
    for i in range(p.shape[0]):
        o_and[i] = p[i] & q[i]
        o_or[i] = p[i] | q[i]
        o_not[i] = not p[i]
        o_logic[i] = (p[i] and x[i] > 0) or (q[i] and not x[i] < -1.0)
        o_sc[i] = (p[i] and bump(counter)) or (q[i] or bump(counter))
        o_tern[i] = x[i] if p[i] else i
        t = 1 if q[i] else 2.5
        o_mixed[i] = t
        o_wide[i] = np.float32(x[i]) if p[i] and q[i] else 16777217
"""


def test_booleans_and_conditional_expressions():
    rng = np.random.default_rng(1)
    p = rng.random(32) < 0.5
    q = rng.random(32) < 0.5
    x = rng.normal(size=32) * 3
    x[:3] = [np.nan, 0.0, -0.0]
    params = [arr("bool"), arr("bool"), arr("float64")] + [arr("bool", readonly=False)] * 5 + [
        arr("float64", readonly=False)] * 3 + [arr("int64", readonly=False)]
    src = kernel_source(params, BOOLEANS, prelude="import numba\n")
    outs = [np.zeros(32, bool) for _ in range(5)] + [np.zeros(32) for _ in range(3)] + [
        np.zeros(1, np.int64)]
    got = check_against_numba(src, [p, q, x], outs)
    o_and, o_or, o_not, o_logic, o_sc, o_tern, o_mixed, o_wide, counter = got
    np.testing.assert_array_equal(o_and, p & q)
    np.testing.assert_array_equal(o_or, p | q)
    np.testing.assert_array_equal(o_not, ~p)
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(o_logic, (p & (x > 0)) | (q & ~(x < -1)))
    assert o_sc.all()
    # bump runs only where the short-circuit evaluation reaches it
    assert counter[0] == np.count_nonzero(p) + np.count_nonzero(~p & ~q)
    np.testing.assert_array_equal(o_tern, np.where(p, x, np.arange(32.0)))
    np.testing.assert_array_equal(o_mixed, np.where(q, 1.0, 2.5))
    # float32 with an int64 unifies to float64: 2**24 + 1 is kept exactly
    np.testing.assert_array_equal(
        o_wide, np.where(p & q, x.astype(np.float32).astype(np.float64), 16777217.0))


def test_boolean_scalar_arguments_and_bool_outputs_are_bytes():
    src = kernel_source(["_nt.boolean", arr("bool", readonly=False), arr("uint8")], """
def f(flag, out, raw):
    for i in range(out.shape[0]):
        out[i] = flag != (raw[i] > np.uint8(1))
""")
    raw = np.array([0, 1, 2, 255], np.uint8)
    fns = compile_direct(src), compile_numba(src)
    for flag in (True, False, np.True_, np.False_):
        outs = []
        for fn in fns:
            out = np.full(4, True)
            fn(flag, out, raw)
            outs.append(out)
        np.testing.assert_array_equal(outs[0], outs[1])
        np.testing.assert_array_equal(outs[0], bool(flag) != (raw > 1))
        assert set(outs[0].view(np.uint8)) <= {0, 1}


CONTROL_FLOW = """
@numba.njit
def clip(v, lo):
    if v < lo:
        return lo
    if v != v:
        return 0.0
    return v * 1.0


def f(a, o):
    j = 0
    for i in range(1, a.shape[0], 2):
        o[j] = clip(a[i], -1.0)
        j += 1
    k = 0
    while True:
        k += 1
        if k < 3:
            continue
        if k > 5:
            break
        o[j] = k
        j += 1
    for i in range(a.shape[0]):
        if a[i] > 3.5:
            break
        if a[i] < 0:
            continue
        o[j] = a[i] + i
        j += 1
    o[j] = i
"""


def test_loops_break_continue_and_inlined_functions():
    src = kernel_source([arr("float64"), arr("float64", readonly=False)], CONTROL_FLOW,
                        prelude="import numba\n")
    a = np.array([1.0, -5.0, np.nan, np.nan, 3.0, -2.0, 7.0, 4.0])
    out, = check_against_numba(src, [a], [np.zeros(12)])
    np.testing.assert_array_equal(out, [-1, 0, -1, 4, 3, 4, 5, 1, np.nan, np.nan, 7, 6])


# -- 4. float32 arithmetic and its promotions ------------------------------------------------

FLOAT32 = """
def f(x, y, a8, a16, u8, a32, a64, o_ff, o_f8, o_f16, o_u8, o_f32i, o_f64i, o_lit, o_fl, o_st):
    for i in range(x.shape[0]):
        o_ff[i] = x[i] * y[i] + x[i] / y[i] - y[i]
        o_f8[i] = x[i] * a8[i] + a8[i] / x[i]
        o_f16[i] = x[i] - a16[i] * y[i]
        o_u8[i] = (x[i] + u8[i]) * y[i]
        o_f32i[i] = x[i] * a32[i] + y[i]
        o_f64i[i] = x[i] * a64[i] - y[i]
        o_lit[i] = x[i] * 3 + y[i] * 0.1
        o_fl[i] = np.float32(x[i] * y[i]) * np.float32(0.1) + np.float32(a64[i])
        t = x[i] * y[i]
        t += y[i]
        o_st[i] = t
"""


def test_float32_arithmetic_matches_numba_bit_for_bit():
    rng = np.random.default_rng(2)
    n = 64
    x = (rng.normal(size=n) * 100).astype(np.float32)
    y = (rng.normal(size=n) * 7).astype(np.float32)
    x[:4] = [np.inf, -0.0, np.nan, 1e-40]
    y[4:6] = [0.0, -np.inf]
    a8 = rng.integers(-128, 128, n).astype(np.int8)
    a16 = rng.integers(-2 ** 15, 2 ** 15, n).astype(np.int16)
    u8 = rng.integers(0, 256, n).astype(np.uint8)
    a32 = rng.integers(-2 ** 31, 2 ** 31, n).astype(np.int32)
    a64 = rng.integers(-2 ** 62, 2 ** 62, n).astype(np.int64)
    a64[:2] = [2 ** 53 + 1, INT64_MIN]
    ins = [x, y, a8, a16, u8, a32, a64]
    params = [arr(str(v.dtype)) for v in ins] + [arr("float64", readonly=False)] * 9
    src = kernel_source(params, FLOAT32)
    with np.errstate(all="ignore"):
        got = check_against_numba(src, ins, [np.zeros(n) for _ in range(9)])
        o_ff, o_f8, _, o_u8, o_f32i, o_f64i, o_lit, _, o_st = got
        # float32 with float32 (and with <= 16-bit integers) is computed in float32 ...
        np.testing.assert_array_equal(o_ff, (x * y + x / y - y).astype(np.float64))
        np.testing.assert_array_equal(
            o_f8, (x * a8.astype(np.float32) + a8.astype(np.float32) / x).astype(np.float64))
        np.testing.assert_array_equal(o_u8, ((x + u8.astype(np.float32)) * y).astype(np.float64))
        # ... with a 32- or 64-bit integer, or a float literal, in float64
        x64, y64 = x.astype(np.float64), y.astype(np.float64)
        np.testing.assert_array_equal(o_f32i, x64 * a32 + y64)
        np.testing.assert_array_equal(o_f64i, x64 * a64.astype(np.float64) - y64)
        np.testing.assert_array_equal(o_lit, x64 * 3 + y64 * 0.1)
        np.testing.assert_array_equal(o_st, (x * y + y).astype(np.float64))


def test_float32_outputs_round_once():
    src = kernel_source([arr("float64"), arr("int64"), arr("float32", readonly=False),
                         arr("float32", readonly=False)], """
def f(x, k, o1, o2):
    for i in range(x.shape[0]):
        o1[i] = x[i]
        o2[i] = k[i]
""")
    x = np.array([0.1, 1e300, -1e-300, np.nan, 16777217.0, 3.4028235677973366e38])
    k = np.array([2 ** 24 + 1, INT64_MIN, INT64_MAX, -3, 0, 2 ** 60 + 2 ** 36 + 1],
                 dtype=np.int64)
    with np.errstate(all="ignore"):
        o1, o2 = check_against_numba(src, [x, k], [np.zeros(6, np.float32)] * 2)
        np.testing.assert_array_equal(o1, x.astype(np.float32))
        np.testing.assert_array_equal(o2, k.astype(np.float32))


# -- 5. math functions ----------------------------------------------------------------------

MATH = """
def f(x, y, o_exp, o_log, o_sqrt, o_tanh, o_log1p, o_atan2, o_copysign, o_nexp, o_nfloor,
      o_floor, o_isnan, o_nisnan):
    for i in range(x.shape[0]):
        o_exp[i] = math.exp(x[i])
        o_log[i] = math.log(x[i])
        o_sqrt[i] = math.sqrt(x[i])
        o_tanh[i] = math.tanh(x[i])
        o_log1p[i] = math.log1p(x[i])
        o_atan2[i] = math.atan2(x[i], y[i])
        o_copysign[i] = math.copysign(x[i], y[i])
        o_nexp[i] = np.exp(x[i]) + np.sqrt(y[i]) * np.tanh(y[i])
        o_nfloor[i] = np.floor(x[i])
        if math.isnan(x[i]) or math.isinf(x[i]) or abs(x[i]) > 1e18:
            o_floor[i] = -7
        else:
            o_floor[i] = math.floor(x[i]) * 3
        o_isnan[i] = math.isnan(x[i])
        o_nisnan[i] = np.isnan(y[i]) or np.isfinite(x[i])
"""


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_math_functions_match_numba(dtype):
    rng = np.random.default_rng(3)
    n = 48
    x = np.concatenate([rng.normal(size=n - 12) * 4,
                        [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-310, -1.0, -2.5, 700.0,
                         -745.5, 1e30, 88.5]]).astype(dtype)
    y = np.concatenate([rng.normal(size=n - 6) * 4, [-0.0, 0.0, np.nan, np.inf, -np.inf, -3.0]]
                       ).astype(dtype)
    y = y[rng.permutation(n)]
    params = [arr(dtype), arr(dtype)] + [arr(dtype, readonly=False)] * 9 + [
        arr("int64", readonly=False), arr("bool", readonly=False), arr("bool", readonly=False)]
    src = kernel_source(params, MATH)
    outs = [np.zeros(n, dtype) for _ in range(9)] + [np.zeros(n, np.int64), np.zeros(n, bool),
                                                     np.zeros(n, bool)]
    with np.errstate(all="ignore"):
        got = check_against_numba(src, [x, y], outs)
        o_exp, o_log, o_sqrt, o_tanh, o_log1p, o_atan2, o_copysign = got[:7]
        o_floor, o_isnan = got[9], got[10]
        # against NumPy, loosely (libm and NumPy's own loops may differ in the last ulp)
        rtol = 1e-6 if dtype == "float32" else 1e-14
        for mine, ref in [(o_exp, np.exp(x)), (o_log, np.log(x)), (o_sqrt, np.sqrt(x)),
                          (o_tanh, np.tanh(x)), (o_log1p, np.log1p(x)),
                          (o_atan2, np.arctan2(x, y))]:
            np.testing.assert_allclose(mine, ref, rtol=rtol, atol=0)
        np.testing.assert_array_equal(o_copysign, np.copysign(x, y))
        np.testing.assert_array_equal(o_isnan, np.isnan(x))
        ok = np.isfinite(x) & (np.abs(x) <= 1e18)
        np.testing.assert_array_equal(o_floor[ok], np.floor(x[ok]).astype(np.int64) * 3)
        assert (o_floor[~ok] == -7).all()


def test_math_floor_returns_an_integer():
    """``math.floor`` of a float is an int64 in Numba: ``x // 2`` is then integer division."""
    src = kernel_source([arr("float64"), arr("float64", readonly=False)], """
def f(x, out):
    for i in range(x.shape[0]):
        k = math.floor(x[i])
        out[i] = k // 2 + math.ceil(x[i]) % 3 + math.trunc(x[i])
""")
    x = np.array([-3.5, -0.5, 0.0, 2.7, 5.0, 1e15 + 0.5])
    out, = check_against_numba(src, [x], [np.zeros(6)])
    expected = [math.floor(v) // 2 + math.ceil(v) % 3 + math.trunc(v) for v in x]
    np.testing.assert_array_equal(out, expected)


# -- 6. exceptions --------------------------------------------------------------------------

def test_raise_value_error_becomes_kernel_error():
    src = kernel_source([arr("float64"), arr("float64", readonly=False)], """
def f(x, out):
    if x.shape[0] != out.shape[0]:
        raise ValueError("direct kernel: shapes differ")
    for i in range(x.shape[0]):
        if x[i] < 0:
            raise ValueError("negative input", 3)
        out[i] = math.sqrt(x[i])
""")
    fn = compile_direct(src)
    out = np.zeros(3)
    fn(np.array([4.0, 9.0, 16.0]), out)
    np.testing.assert_array_equal(out, [2.0, 3.0, 4.0])
    with pytest.raises(native.KernelError) as info:
        fn(np.zeros(2), out)
    exc = info.value.exception()
    assert type(exc) is ValueError and exc.args == ("direct kernel: shapes differ",)
    assert str(info.value) == "direct kernel: shapes differ"
    with pytest.raises(native.KernelError) as info:
        fn(np.array([1.0, -1.0, 4.0]), out)
    exc = info.value.exception()
    assert type(exc) is ValueError and exc.args == ("negative input", 3)
    assert out[0] == 1.0 and out[2] == 4.0  # written before the raise / left from before
    # and Numba raises the same error for the same source
    with pytest.raises(ValueError, match="shapes differ"):
        compile_numba(src)(np.zeros(2), out)


# -- 7. what is not translated falls back (never raises) -------------------------------------

UNSUPPORTED = {
    "while-else": """
def f(x, out):
    i = 0
    while i < x.shape[0]:
        out[i] = x[i]
        i += 1
    else:
        out[0] = 1.0
""",
    "list literal": """
def f(x, out):
    values = [1.0, 2.0]
    out[0] = x[0] + values[1]
""",
    "unknown function": """
def f(x, out):
    out[0] = math.gamma(x[0]) + hypothetical_helper(x[0])
""",
    "unknown method": """
def f(x, out):
    out[0] = x.sum()
""",
    "signed with unsigned": """
def f(x, out):
    for i in range(x.shape[0]):
        out[i] = i + np.uint32(i)
""",
    "for-else": """
def f(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i]
    else:
        out[0] = 0.0
""",
    "float floor division": """
def f(x, out):
    out[0] = x[0] // 2.0
""",
    "keyword arguments": """
def f(x, out):
    out[0] = np.float64(x=x[0])
""",
    "variable changing type": """
def f(x, out):
    t = 1
    t = x[0]
    out[0] = t
""",
    "syntax error": """
def f(x, out):
    out[0] = x[0] +
""",
}


@pytest.mark.parametrize("case", sorted(UNSUPPORTED))
def test_unsupported_constructs_fall_back(case):
    src = kernel_source([arr("float64"), arr("float64", readonly=False)], UNSUPPORTED[case])
    export = _unique("unsupported")
    before = len(direct.FALLBACKS)
    obj, why = direct.build(src, "f", export, "python", CodegenOptions())
    assert obj is None
    assert isinstance(why, str) and why
    assert len(direct.FALLBACKS) == before + 1
    described, reason = direct.FALLBACKS[-1]
    assert export in described and reason == why


def test_signed_with_unsigned_is_left_to_numba():
    src = kernel_source([arr("int64"), arr("uint32"), arr("float64", readonly=False)], """
def f(a, u, out):
    for i in range(a.shape[0]):
        out[i] = a[i] + u[i]
""")
    obj, why = direct.build(src, "f", _unique("mixed"), "python", CodegenOptions())
    assert obj is None and "unsigned" in why
    out = np.zeros(3)
    compile_numba(src)(np.array([-1, 2, 3]), np.array([1, 2, 3], np.uint32), out)
    np.testing.assert_array_equal(out, [0.0, 4.0, 6.0])  # Numba: float64 arithmetic


def test_missing_entry_and_switches_fall_back(monkeypatch):
    src = kernel_source([arr("float64"), arr("float64", readonly=False)], """
def f(x, out):
    out[0] = x[0]
""")
    obj, why = direct.build(src, "g", _unique("missing"), "python", CodegenOptions())
    assert obj is None and "g" in why
    obj, why = direct.build(src, "f", _unique("debug"), "python", CodegenOptions(debug=True))
    assert obj is None and why
    monkeypatch.setenv("JITGRAPH_DIRECT", "0")
    obj, why = direct.build(src, "f", _unique("off"), "python", CodegenOptions())
    assert obj is None and "JITGRAPH_DIRECT" in why
    monkeypatch.delenv("JITGRAPH_DIRECT")
    assert direct.build(src, "f", _unique("on"), "python", CodegenOptions())[0] is not None


# -- typing details where the direct compiler follows Numba (found by differential testing) --

def test_mixed_width_integer_unification_matches_numba():
    src = kernel_source([arr("int8"), arr("int32"), arr("bool"), arr("int64", readonly=False),
                         arr("int64", readonly=False)], """
def f(a, b, c, o1, o2):
    for i in range(a.shape[0]):
        o1[i] = abs(min(a[i], b[i]))
        o2[i] = abs(a[i] if c[i] else b[i])
""")
    a = np.array([1, -5], np.int8)
    b = np.array([INT32_MIN, INT32_MIN], np.int32)
    c = np.array([False, False])
    check_against_numba(src, [a, b, c], [np.zeros(2, np.int64), np.zeros(2, np.int64)])


def test_negation_of_narrow_integers_matches_numba():
    src = kernel_source([arr("int16"), arr("int32"), arr("int64", readonly=False),
                         arr("int64", readonly=False)], """
def f(a, b, o1, o2):
    for i in range(a.shape[0]):
        o1[i] = -a[i]
        o2[i] = 1 if -b[i] > 0 else 0
""")
    a = np.array([-2 ** 15, 3], np.int16)
    b = np.array([INT32_MIN, 5], np.int32)
    check_against_numba(src, [a, b], [np.zeros(2, np.int64), np.zeros(2, np.int64)])


def test_range_with_negative_step_is_translated():
    src = kernel_source([arr("float64"), arr("float64", readonly=False)], """
def f(a, out):
    j = 0
    for i in range(a.shape[0] - 1, -1, -2):
        out[j] = a[i]
        j += 1
""")
    out, = check_against_numba(src, [np.arange(7.0)], [np.zeros(4)])
    np.testing.assert_array_equal(out, [6.0, 4.0, 2.0, 0.0])


def test_signed_overflow_wraps():
    """Integer arithmetic wraps around in the direct kernel (as in NumPy). Numba emits ``add
    nsw`` (overflow is undefined), so LLVM folds ``a < a + 2`` to True there: for
    ``a = INT64_MAX`` Numba's kernel says 1 where this one says 0. Only kernels whose integer
    arithmetic overflows can see the difference; both store the same wrapped sums."""
    src = kernel_source([arr("int64"), arr("int64", readonly=False),
                         arr("int64", readonly=False)], """
def f(a, o1, o2):
    for i in range(a.shape[0]):
        o1[i] = a[i] + 2
        o2[i] = 1 if a[i] < a[i] + 2 else 0
""")
    a = np.array([0, INT64_MAX, INT64_MIN, -3], np.int64)
    o1, o2 = np.zeros(4, np.int64), np.zeros(4, np.int64)
    compile_direct(src)(a, o1, o2)
    np.testing.assert_array_equal(o1, [2, INT64_MIN + 1, INT64_MIN + 2, -1])
    np.testing.assert_array_equal(o2, [1, 0, 1, 1])
    numba_o1 = np.zeros(4, np.int64)
    compile_numba(src)(a, numba_o1, np.zeros(4, np.int64))
    np.testing.assert_array_equal(o1, numba_o1)


# -- 8. the vecmath block functions ----------------------------------------------------------

_BLOCK_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64)
_NUMPY_OF = {"exp": np.exp, "log": np.log, "log1p": np.log1p, "sin": np.sin, "cos": np.cos,
             "expm1": np.expm1, "tanh": np.tanh}


def _block_inputs(name: str) -> np.ndarray:
    rng = np.random.default_rng(4)
    _, _, lo, hi = blocks.BLOCKS[name]
    with np.errstate(over="ignore"):
        beyond = [np.nextafter(lo, -np.inf), np.nextafter(hi, np.inf)]
    special = [np.inf, -np.inf, np.nan, 0.0, -0.0, 1e308, -1e308, 5e-324, -5e-324, 1.0, -1.0,
               lo, hi, *beyond, 1e-300, 3e5, -3e5]
    width = min(hi - lo, 1400.0)
    center = max(lo, min(hi, 0.0) if lo < 0 else lo)
    inside = rng.uniform(max(lo, center - width / 2), min(hi, center + width / 2), 500)
    small = rng.normal(size=200) * 2.0
    if lo >= 0:
        inside = np.concatenate([rng.uniform(0, 10, 100), 10.0 ** rng.uniform(-300, 300, 300)])
        small = np.abs(small)
    parts = [special, inside, small]
    values = np.concatenate(parts)
    return values[np.random.default_rng(5).permutation(values.size)]  # specials in all blocks


@pytest.mark.parametrize("name", sorted(blocks.BLOCKS))
def test_block_functions_compile_directly_and_match_numpy(name):
    obj = build_direct(blocks.block_source(name), "block", kind="c")
    assert obj.kind == "c"
    call = _BLOCK_FN(native.load(obj))
    x = _block_inputs(name)
    out = np.full_like(x, 12345.0)
    call(x.ctypes.data, out.ctypes.data, x.size)
    with np.errstate(all="ignore"):
        ref = _NUMPY_OF[name](x)
    np.testing.assert_array_equal(np.isnan(out), np.isnan(ref))
    np.testing.assert_allclose(out, ref, rtol=4e-16 * 4, atol=1e-300)
    # and bit for bit what Numba compiles from the same source
    module = kernels.exec_module(blocks.block_source(name), _unique("block_module"))
    cfunc = numba.cfunc(module.SIG_block, nogil=True, error_model="numpy")(module.block)
    numba_out = np.full_like(x, -1.0)
    _BLOCK_FN(cfunc.address)(x.ctypes.data, numba_out.ctypes.data, x.size)
    np.testing.assert_array_equal(out, numba_out)
    # n = 0 touches nothing; a short tail is handled
    before = out.copy()
    call(x.ctypes.data, out.ctypes.data, 0)
    np.testing.assert_array_equal(out, before)
    tail = np.full(3, 7.0)
    call(x[:3].ctypes.data, tail.ctypes.data, 3)
    np.testing.assert_array_equal(tail, out[:3])


# -- 9. random elementwise expressions against Numba -----------------------------------------

_DTYPES = ["float64", "float32", "int64", "int32"]
_CONSTANTS = ["2", "3", "0.5", "1.5", "0.1"]
_COMPARISONS = ["<", "<=", ">", ">=", "==", "!="]


def random_expression(rng: random.Random, depth: int = 4) -> str:
    """A random scalar expression of ``a[i]`` and ``b[i]`` (never an operation of two
    constants only, which the direct compiler folds the way Python would)."""
    if depth == 0 or rng.random() < 0.2:
        return rng.choice(["a[i]", "b[i]", "a[i]", "b[i]", *_CONSTANTS])

    def sub() -> str:
        return random_expression(rng, depth - 1)

    form = rng.randrange(6)
    if form <= 1:
        left, right = sub(), sub()
        if left in _CONSTANTS and right in _CONSTANTS:
            right = "b[i]"
        return f"({left} {rng.choice('+-*/')} {right})"
    if form == 2:
        return f"({sub()} if {sub()} {rng.choice(_COMPARISONS)} {sub()} else {sub()})"
    if form == 3:
        return f"{rng.choice(['abs', 'np.float64', 'np.float32'])}({sub()})"
    if form == 4:
        return f"-{sub()}"
    return f"{rng.choice(['min', 'max'])}({sub()}, {sub()})"


def _values(dtype: str, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if dtype.startswith("float"):
        v = rng.normal(size=24) * 10.0 ** rng.integers(-3, 4, 24)
        v[:8] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -2.0, 3.0]
    else:  # small enough for no expression to overflow (see test_signed_overflow_wraps)
        v = rng.integers(-10, 11, 24)  # 16 factors of 10 stay below 2**63
        v[:4] = [0, -1, 1, 2]
    return rng.permutation(v).astype(dtype)


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck),
          derandomize=True, database=None,
          phases=[Phase.explicit, Phase.generate])  # shrinking would take minutes of compiles
@given(seed=st.integers(0, 2 ** 32 - 1), da=st.sampled_from(_DTYPES),
       db=st.sampled_from(_DTYPES))
def test_random_expressions_match_numba(seed, da, db):
    rng = random.Random(seed)
    exprs = [random_expression(rng) for _ in range(3)]
    body = "\n".join(f"        out{k}[i] = {e}" for k, e in enumerate(exprs))
    src = kernel_source([arr(da), arr(db)] + [arr("float64", readonly=False)] * 3, f"""
def f(a, b, out0, out1, out2):
    for i in range(a.shape[0]):
{body}
""")
    a, b = _values(da, seed % 1000), _values(db, seed % 1000 + 1)
    with np.errstate(all="ignore"):
        got, expected = run_both(src, [a, b], [np.full(24, -99.0) for _ in range(3)])
    for g, e, expr in zip(got, expected, exprs):
        np.testing.assert_array_equal(g, e, err_msg=f"{expr} ({da}, {db})", strict=True)
