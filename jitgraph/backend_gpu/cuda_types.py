"""NumPy dtypes as CUDA C types, literals and limits (no CUDA header is ever included).

Generated kernels are plain C++ for NVRTC: they use the built-in scalar types and the CUDA math
functions NVRTC declares itself, so they compile with only the ``nvidia-cuda-nvrtc`` wheel.
"""

from __future__ import annotations

import math

from jitgraph.scalar_expr.expr import (SUPPORTED_DTYPES, Unsupported, check_dtypes, is_float,
                                       is_int, is_signed, is_unsigned)

__all__ = ["C_TYPES", "SHORT", "ULL", "SUPPORTED_DTYPES", "Unsupported", "check_dtypes",
           "ctype", "cv", "is_float", "is_int", "is_signed", "is_unsigned", "lit", "math_fn",
           "type_max", "type_min"]

C_TYPES = {
    "bool": "bool", "int8": "signed char", "int16": "short", "int32": "int",
    "int64": "long long", "uint8": "unsigned char", "uint16": "unsigned short",
    "uint32": "unsigned int", "uint64": "unsigned long long", "float32": "float",
    "float64": "double",
}

#: short names used in generated identifiers and typedefs
SHORT = {"bool": "b1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
         "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64", "float32": "f32",
         "float64": "f64"}

ULL = "unsigned long long"


def ctype(dtype: str) -> str:
    check_dtypes(dtype)
    return C_TYPES[dtype]


def lit(value: float, dtype: str) -> str:
    """A literal of ``dtype`` (floats with the right suffix; inf and NaN as bit patterns)."""
    if is_float(dtype):
        value = float(value)
        if math.isnan(value):
            return "__int_as_float(0x7fc00000)" if dtype == "float32" else \
                "__longlong_as_double(0x7ff8000000000000LL)"
        if math.isinf(value):
            if dtype == "float32":
                return f"__int_as_float({'0xff800000' if value < 0 else '0x7f800000'})"
            bits = "0xfff0000000000000ULL" if value < 0 else "0x7ff0000000000000ULL"
            return f"__longlong_as_double((long long){bits})"
        text = repr(value)
        if "e" not in text and "." not in text:
            text += ".0"
        return f"{text}f" if dtype == "float32" else text
    if dtype == "bool":
        return "true" if value else "false"
    value = int(value)
    if dtype == "int64" and value == -(2 ** 63):
        return "(-9223372036854775807LL - 1)"
    if dtype == "int32" and value == -(2 ** 31):
        return "(-2147483647 - 1)"
    suffix = {"int64": "LL", "uint64": "ULL", "uint32": "U"}.get(dtype, "")
    return f"(({C_TYPES[dtype]}){value}{suffix})"


def type_min(dtype: str) -> str:
    if is_float(dtype):
        return lit(-math.inf, dtype)
    if dtype == "bool":
        return "false"
    bits = int(dtype.lstrip("uint"))
    return lit(0 if is_unsigned(dtype) else -(2 ** (bits - 1)), dtype)


def type_max(dtype: str) -> str:
    if is_float(dtype):
        return lit(math.inf, dtype)
    if dtype == "bool":
        return "true"
    bits = int(dtype.lstrip("uint"))
    return lit(2 ** bits - 1 if is_unsigned(dtype) else 2 ** (bits - 1) - 1, dtype)


def math_fn(name: str, dtype: str) -> str:
    """The CUDA math function ``name`` for a float dtype (``expf`` for float32)."""
    return f"{name}f" if dtype == "float32" else name


def cv(expr: str, src: str, dst: str) -> str:
    """``expr`` (of dtype ``src``) converted to ``dst`` like NumPy's ``astype``.

    Floats go to small integers through a 64-bit integer (wrapping like the CPU backend); the
    conversion of NaN or out-of-range floats to integers is undefined in NumPy too.
    """
    if src == dst:
        return expr
    if dst == "bool":
        return f"({expr} != 0)"
    if is_float(src) and is_int(dst) and dst != "uint64":
        return f"(({C_TYPES[dst]})(long long)({expr}))"
    return f"(({C_TYPES[dst]})({expr}))"
