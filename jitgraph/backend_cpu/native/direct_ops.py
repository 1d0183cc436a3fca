"""Scalar operations of the direct compiler: casts, arithmetic, comparisons and math functions,
emitted as LLVM IR with Numba's semantics (see :mod:`.direct_types` for the typing rules)."""

from __future__ import annotations

import ast

from jitgraph.backend_cpu.native.direct_types import (
    Unsupported, arithmetic, bits, comparison, constant, kind, literal_dtype, unified, value_type)
from jitgraph.backend_cpu.native.direct_values import Literal, Value, Writer


def as_value(obj: object, what: str = "operand") -> Value:
    """A :class:`Value` of a scalar or a literal number."""
    if isinstance(obj, Value):
        return obj
    if isinstance(obj, Literal) and isinstance(obj.value, (bool, int, float)):
        dtype = literal_dtype(obj.value)
        return Value(constant(obj.value, dtype), dtype)
    raise Unsupported(f"{what}: {obj!r} is not a scalar")


def cast(w: Writer, v: Value, dtype: str) -> Value:
    """``v`` converted to ``dtype`` (NumPy's ``astype`` conversions, as Numba emits them)."""
    if v.dtype == dtype:
        return v
    src, dst = kind(v.dtype), kind(dtype)
    to = value_type(dtype)
    if dst == "b":
        if src == "f":
            return Value(w.value(f"fcmp une {v.llvm} {v.ref}, 0.0"), "bool")
        return Value(w.value(f"icmp ne {v.llvm} {v.ref}, 0"), "bool")
    if src == "b":
        op = "uitofp" if dst == "f" else "zext"
        return Value(w.value(f"{op} i1 {v.ref} to {to}"), dtype)
    if src == "f" and dst == "f":
        op = "fpext" if bits(dtype) > bits(v.dtype) else "fptrunc"
    elif src == "f":
        op = "fptosi" if dst == "i" else "fptoui"
    elif dst == "f":
        op = "sitofp" if src == "i" else "uitofp"
    elif bits(dtype) == bits(v.dtype):
        return Value(v.ref, dtype)
    elif bits(dtype) < bits(v.dtype):
        op = "trunc"
    else:
        op = "sext" if src == "i" else "zext"
    return Value(w.value(f"{op} {v.llvm} {v.ref} to {to}"), dtype)


def _fm(fastmath: str) -> str:
    return f"{fastmath} " if fastmath else ""


_FLOAT_OPS = {ast.Add: "fadd", ast.Sub: "fsub", ast.Mult: "fmul", ast.Div: "fdiv"}
_INT_OPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.BitAnd: "and",
            ast.BitOr: "or", ast.BitXor: "xor", ast.LShift: "shl"}


def binary(w: Writer, op: ast.operator, a: Value, b: Value, fastmath: str) -> Value:
    """``a <op> b``."""
    optype = type(op)
    if optype in (ast.BitAnd, ast.BitOr, ast.BitXor) and a.dtype == b.dtype == "bool":
        return Value(w.value(f"{_INT_OPS[optype]} i1 {a.ref}, {b.ref}"), "bool")
    if optype is ast.Div:
        dtype = arithmetic(a.dtype, b.dtype)
        if kind(dtype) != "f":
            dtype = "float64"
    else:
        dtype = arithmetic(a.dtype, b.dtype)
    a, b = cast(w, a, dtype), cast(w, b, dtype)
    ty = value_type(dtype)
    if kind(dtype) == "f":
        if optype not in _FLOAT_OPS:
            raise Unsupported(f"{optype.__name__} on floats")
        return Value(w.value(f"{_FLOAT_OPS[optype]} {_fm(fastmath)}{ty} {a.ref}, {b.ref}"),
                     dtype)
    if optype in _INT_OPS:
        return Value(w.value(f"{_INT_OPS[optype]} {ty} {a.ref}, {b.ref}"), dtype)
    if optype is ast.RShift:
        shift = "ashr" if kind(dtype) == "i" else "lshr"
        return Value(w.value(f"{shift} {ty} {a.ref}, {b.ref}"), dtype)
    if optype in (ast.FloorDiv, ast.Mod):
        return _int_divmod(w, optype is ast.FloorDiv, a, b)
    raise Unsupported(f"{optype.__name__} on integers")


def _int_divmod(w: Writer, floor: bool, a: Value, b: Value) -> Value:
    """Python's floor division / modulo (0 on division by zero and on MIN // -1, as Numba
    under ``error_model='numpy'``)."""
    ty = a.llvm
    signed = kind(a.dtype) == "i"
    zero = w.value(f"icmp eq {ty} {b.ref}, 0")
    if signed:
        minval = -(2 ** (bits(a.dtype) - 1))
        is_min = w.value(f"icmp eq {ty} {a.ref}, {minval}")
        is_m1 = w.value(f"icmp eq {ty} {b.ref}, -1")
        overflow = w.value(f"and i1 {is_min}, {is_m1}")
        zero = w.value(f"or i1 {zero}, {overflow}")
    safe_b = w.value(f"select i1 {zero}, {ty} 1, {ty} {b.ref}")
    if not signed:
        res = w.value(f"{'udiv' if floor else 'urem'} {ty} {a.ref}, {safe_b}")
    else:
        q = w.value(f"sdiv {ty} {a.ref}, {safe_b}")
        r = w.value(f"srem {ty} {a.ref}, {safe_b}")
        sign = w.value(f"xor {ty} {r}, {safe_b}")
        differ = w.value(f"icmp slt {ty} {sign}, 0")
        nonzero = w.value(f"icmp ne {ty} {r}, 0")
        adjust = w.value(f"and i1 {differ}, {nonzero}")
        if floor:
            q1 = w.value(f"sub {ty} {q}, 1")
            res = w.value(f"select i1 {adjust}, {ty} {q1}, {ty} {q}")
        else:
            r1 = w.value(f"add {ty} {r}, {safe_b}")
            res = w.value(f"select i1 {adjust}, {ty} {r1}, {ty} {r}")
    return Value(w.value(f"select i1 {zero}, {ty} 0, {ty} {res}"), a.dtype)


_FCMP = {ast.Lt: "olt", ast.LtE: "ole", ast.Gt: "ogt", ast.GtE: "oge", ast.Eq: "oeq",
         ast.NotEq: "une"}
_ICMP = {ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge"}


def compare(w: Writer, op: ast.cmpop, a: Value, b: Value, fastmath: str) -> Value:
    dtype = comparison(a.dtype, b.dtype)
    a, b = cast(w, a, dtype), cast(w, b, dtype)
    optype = type(op)
    k = kind(dtype)
    if k == "f":
        if optype not in _FCMP:
            raise Unsupported(f"{optype.__name__} comparison")
        return Value(w.value(f"fcmp {_fm(fastmath)}{_FCMP[optype]} {a.llvm} {a.ref}, {b.ref}"),
                     "bool")
    if optype is ast.Eq:
        pred = "eq"
    elif optype is ast.NotEq:
        pred = "ne"
    elif optype in _ICMP:
        pred = ("s" if k == "i" else "u") + _ICMP[optype]
    else:
        raise Unsupported(f"{optype.__name__} comparison")
    return Value(w.value(f"icmp {pred} {a.llvm} {a.ref}, {b.ref}"), "bool")


def truth(w: Writer, v: Value) -> str:
    """The i1 truth value of a scalar."""
    return cast(w, v, "bool").ref


def unary(w: Writer, op: ast.unaryop, v: Value, fastmath: str) -> Value:
    k = kind(v.dtype)
    if isinstance(op, ast.Not):
        return Value(w.value(f"xor i1 {truth(w, v)}, true"), "bool")
    if isinstance(op, ast.UAdd) and k == "f":
        return v
    # Numba negates/inverts an integer in its own width, then widens the result to int64
    if isinstance(op, ast.USub):
        if k == "f":
            return Value(w.value(f"fneg {_fm(fastmath)}{v.llvm} {v.ref}"), v.dtype)
        if k == "i":
            return cast(w, Value(w.value(f"sub {v.llvm} 0, {v.ref}"), v.dtype), "int64")
    if isinstance(op, ast.Invert) and k == "i":
        return cast(w, Value(w.value(f"xor {v.llvm} {v.ref}, -1"), v.dtype), "int64")
    raise Unsupported(f"unary {type(op).__name__} on {v.dtype}")


def select(w: Writer, cond: str, a: Value, b: Value) -> Value:
    return Value(w.value(f"select i1 {cond}, {a.llvm} {a.ref}, {b.llvm} {b.ref}"), a.dtype)


def minmax(w: Writer, is_max: bool, args: list[Value], fastmath: str) -> Value:
    """Python's ``min``/``max`` of scalars, as Numba computes them (``v < acc ? v : acc``)."""
    acc = args[0]
    for v in args[1:]:
        dtype = unified(acc.dtype, v.dtype)
        acc, v = cast(w, acc, dtype), cast(w, v, dtype)
        better = compare(w, ast.Gt() if is_max else ast.Lt(), v, acc, fastmath)
        acc = select(w, better.ref, v, acc)
    return acc


def absolute(w: Writer, v: Value, fastmath: str) -> Value:
    k = kind(v.dtype)
    if k == "f":
        return call_intrinsic(w, "fabs", [v], fastmath)
    if k == "i":
        neg = w.value(f"icmp slt {v.llvm} {v.ref}, 0")
        minus = w.value(f"sub {v.llvm} 0, {v.ref}")
        return select(w, neg, Value(minus, v.dtype), v)
    if k == "u":
        return v
    raise Unsupported(f"abs of {v.dtype}")


# -- math functions ---------------------------------------------------------------------------

#: name -> (LLVM intrinsic or libm function, number of arguments); libm names get an ``f``
#: suffix for float32.
_INTRINSICS = {"exp": 1, "log": 1, "sqrt": 1, "sin": 1, "cos": 1, "fabs": 1, "floor": 1,
               "ceil": 1, "trunc": 1, "rint": 1, "exp2": 1, "log2": 1, "log10": 1, "pow": 2,
               "copysign": 2, "fmuladd": 3}
_LIBM = {"tan": 1, "tanh": 1, "sinh": 1, "cosh": 1, "asin": 1, "acos": 1, "atan": 1,
         "atan2": 2, "asinh": 1, "acosh": 1, "atanh": 1, "log1p": 1, "expm1": 1, "erf": 1,
         "erfc": 1, "hypot": 2, "lgamma": 1, "tgamma": 1}
#: Python's names of libm functions named otherwise in C (libm's tgamma, like lgamma, is not
#: bit for bit Numba's own port of CPython's gamma: the few-ulp difference is accepted)
_ALIASES = {"gamma": "tgamma"}
#: ``math.floor`` etc. return an int64 in Numba (as Python's do an int)
MATH_TO_INT = {"floor", "ceil", "trunc"}


def _float_args(w: Writer, args: list[Value]) -> list[Value]:
    dtype = "float32" if all(a.dtype == "float32" for a in args) else "float64"
    out = []
    for a in args:
        if kind(a.dtype) == "b":
            raise Unsupported("math function of a bool")
        out.append(cast(w, a, dtype))
    return out


def call_intrinsic(w: Writer, name: str, args: list[Value], fastmath: str) -> Value:
    """A float math function of ``args`` (ints are converted to float64 first)."""
    if name in ("isnan", "isinf", "isfinite"):
        (v,) = args
        if kind(v.dtype) != "f":
            return Value("false" if name != "isfinite" else "true", "bool")
        if name == "isnan":
            return Value(w.value(f"fcmp uno {v.llvm} {v.ref}, 0.0"), "bool")
        mag = call_intrinsic(w, "fabs", [v], "")
        inf = constant(float("inf"), v.dtype)
        pred = "oeq" if name == "isinf" else "one"
        return Value(w.value(f"fcmp {pred} {v.llvm} {mag.ref}, {inf}"), "bool")
    name = _ALIASES.get(name, name)
    arity = _INTRINSICS.get(name) or _LIBM.get(name)
    if arity is None or arity != len(args):
        raise Unsupported(f"math function {name} with {len(args)} arguments")
    args = _float_args(w, args)
    ty = args[0].llvm
    suffix = "f32" if ty == "float" else "f64"
    if name in _INTRINSICS:
        fn = f"llvm.{name}.{suffix}"
    else:
        fn = name + ("f" if ty == "float" else "")
    params = ", ".join([ty] * arity)
    w.declare(fn, f"declare {ty} @{fn}({params})")
    actual = ", ".join(f"{ty} {a.ref}" for a in args)
    return Value(w.value(f"call {_fm(fastmath)}{ty} @{fn}({actual})"), args[0].dtype)
