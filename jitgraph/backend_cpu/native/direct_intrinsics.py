"""Constant folding and the helpers :mod:`.direct_lower` implements itself (``stack_empty``,
``flat_view``, ``numba.carray``, ``block_call``, bit casts, ``abs``/``min``/``max``/``len``):
each takes the :class:`~.direct_lower.FunctionLowering`, the call node and the evaluated
arguments, and returns what the call evaluates to."""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from jitgraph.backend_cpu.native import direct_ops as ops
from jitgraph.backend_cpu.native.direct_types import Unsupported, itemsize, memory_type, value_type
from jitgraph.backend_cpu.native.direct_values import ArrayValue, DType, Literal, Pointer, Value
from jitgraph.backend_cpu.runtime.blocks import BLOCKS, symbol

if TYPE_CHECKING:
    from jitgraph.backend_cpu.native.direct_lower import FunctionLowering


_FOLDABLE = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
             ast.Mult: lambda a, b: a * b, ast.Div: lambda a, b: a / b}


def fold(op: ast.operator, a: Any, b: Any) -> Literal:
    """Arithmetic on two constants, where Python computes what the compiled code would (IEEE
    doubles; integers of at most 53 bits)."""
    fold = _FOLDABLE.get(type(op))
    numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (a, b))
    exact = all(isinstance(v, float) or abs(v) < 2 ** 53 for v in (a, b)) if numbers else False
    if fold is None or not exact or (type(op) is ast.Div and b == 0):
        raise Unsupported("arithmetic on these constants")
    result = fold(float(a), float(b)) if type(op) is ast.Div else fold(a, b)
    if isinstance(result, int) and abs(result) >= 2 ** 53:
        raise Unsupported("integer constant arithmetic overflowing 53 bits")
    return Literal(result)


# -- intrinsics -------------------------------------------------------------------------------

def _stack_empty(fl: FunctionLowering, node: ast.Call, args: list[Any]) -> ArrayValue:
    n, dtype = args
    if not isinstance(n, Literal) or not isinstance(dtype, DType):
        raise Unsupported("stack_empty needs a constant length and a dtype")
    slot = fl.w.alloca(memory_type(dtype.dtype), int(n.value), align=64)
    return ArrayValue(dtype.dtype, "C", slot, (str(int(n.value)),), (str(itemsize(dtype.dtype)),))


def _flat_view(fl: FunctionLowering, node: ast.Call, args: list[Any]) -> ArrayValue:
    (arr,) = args
    if not isinstance(arr, ArrayValue) or arr.layout != "C":
        raise Unsupported("flat_view of a non-C array")
    return ArrayValue(arr.dtype, "C", arr.data, (fl.nitems(arr).ref,),
                      (str(itemsize(arr.dtype)),))


def _carray(fl: FunctionLowering, node: ast.Call, args: list[Any]) -> ArrayValue:
    ptr, n = args
    if not isinstance(ptr, Pointer):
        raise Unsupported("carray of a non-pointer")
    count = fl._int64(n, "carray length")
    return ArrayValue(ptr.dtype, "C", ptr.ref, (count.ref,), (str(itemsize(ptr.dtype)),))


def _block_call(fl: FunctionLowering, node: ast.Call, args: list[Any]) -> Literal:
    name, src, dst, n = args
    if not (isinstance(name, Literal) and name.value in BLOCKS and isinstance(src, ArrayValue)
            and isinstance(dst, ArrayValue)):
        raise Unsupported("block_call arguments")
    count = fl._int64(n, "block length")
    sym = symbol(name.value)
    fl.w.declare(sym, f"declare void @{sym}(ptr, ptr, i64)")
    fl.w.emit(f"call void @{sym}(ptr {src.data}, ptr {dst.data}, i64 {count.ref})")
    return Literal(None)


def _bitcast(to: str) -> Callable:
    def lower(fl: FunctionLowering, node: ast.Call, args: list[Any]) -> Value:
        (arg,) = args
        v = ops.as_value(arg)
        src = "int64" if to == "float64" else "float64"
        if v.dtype != src:
            raise Unsupported(f"bit cast of {v.dtype}")
        return Value(fl.w.value(f"bitcast {v.llvm} {v.ref} to {value_type(to)}"), to)
    return lower


def _abs(fl: FunctionLowering, node: ast.Call, args: list[Any]) -> Value:
    return ops.absolute(fl.w, ops.as_value(args[0]), fl.fastmath)


def _minmax(is_max: bool) -> Callable:
    def lower(fl: FunctionLowering, node: ast.Call, args: list[Any]) -> Value:
        if len(args) < 2:
            raise Unsupported("min/max of an iterable")
        return ops.minmax(fl.w, is_max, [ops.as_value(a) for a in args], fl.fastmath)
    return lower


def _len(fl: FunctionLowering, node: ast.Call, args: list[Any]) -> Value:
    (arr,) = args
    if not isinstance(arr, ArrayValue) or arr.ndim == 0:
        raise Unsupported("len of a non-array")
    return Value(arr.shape[0], "int64")


def _convert(dtype: str) -> Callable:
    def lower(fl: FunctionLowering, node: ast.Call, args: list[Any]) -> Value:
        (arg,) = args
        return ops.cast(fl.w, ops.as_value(arg), dtype)
    return lower


def _fmuladd(fl: FunctionLowering, node: ast.Call, args: list[Any]) -> Value:
    values = [ops.as_value(a) for a in args]
    if len(values) != 3 or any(v.dtype != "float64" for v in values):
        raise Unsupported("fmuladd of other than three float64 values")
    return ops.call_intrinsic(fl.w, "fmuladd", values, "")


def _require(fl: FunctionLowering, node: ast.Call, args: list[Any]) -> Literal:
    return Literal(None)  # block functions are resolved when the object is loaded


INTRINSIC_CALLS: dict[str, Callable] = {
    "stack_empty": _stack_empty, "flat_view": _flat_view, "carray": _carray,
    "block_call": _block_call, "i64_as_f64": _bitcast("float64"),
    "f64_as_i64": _bitcast("int64"), "abs": _abs, "min": _minmax(False), "max": _minmax(True),
    "len": _len, "float": _convert("float64"), "require": _require, "fmuladd": _fmuladd,
}
