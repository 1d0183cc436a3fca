"""Types of the direct compiler (:mod:`.direct`): kernel argument descriptors, the scalar types
of the generated code, and the typing rules Numba would apply to them.

The rules are Numba's for the cases the direct compiler accepts; every other combination raises
:class:`Unsupported` (the kernel is then compiled by Numba), so a kernel compiled either way
computes the same values:

* signed with signed integers -> ``int64``; unsigned with unsigned -> ``uint64``;
* float with float -> the wider float; ``float64`` with any integer -> ``float64``;
  ``float32`` with an integer of at most 16 bits -> ``float32``, with a wider one -> ``float64``;
* anything else mixing kinds (booleans in arithmetic, signed with unsigned) -> unsupported.
"""

from __future__ import annotations

import ast
import struct
from dataclasses import dataclass

import numpy as np


class Unsupported(Exception):
    """The kernel uses something the direct compiler does not translate (Numba compiles it)."""


@dataclass(frozen=True)
class ArrayArg:
    """An ndarray argument: element dtype name, rank, layout ('C', 'F' or 'A'), writability."""

    dtype: str
    ndim: int
    layout: str
    mutable: bool


@dataclass(frozen=True)
class ScalarArg:
    """A scalar argument (a bool, an integer or a float)."""

    dtype: str


@dataclass(frozen=True)
class PointerArg:
    """A raw pointer to elements of ``dtype`` (the block functions' C signature)."""

    dtype: str


Arg = ArrayArg | ScalarArg | PointerArg

_INT_BITS = {f"{k}int{b}": b for k in ("", "u") for b in (8, 16, 32, 64)}
_FLOAT_TYPES = {"float32": "float", "float64": "double"}
SCALAR_DTYPES = frozenset(["bool", *_INT_BITS, *_FLOAT_TYPES])


def kind(dtype: str) -> str:
    """'b' (bool), 'i' (signed), 'u' (unsigned) or 'f' (float)."""
    if dtype == "bool":
        return "b"
    if dtype in _FLOAT_TYPES:
        return "f"
    if dtype in _INT_BITS:
        return "u" if dtype.startswith("u") else "i"
    raise Unsupported(f"dtype {dtype}")


def bits(dtype: str) -> int:
    return 1 if dtype == "bool" else _INT_BITS.get(dtype) or (32 if dtype == "float32" else 64)


def value_type(dtype: str) -> str:
    """The LLVM type of a value of ``dtype`` in registers."""
    kind(dtype)
    return _FLOAT_TYPES.get(dtype) or f"i{bits(dtype)}"


def memory_type(dtype: str) -> str:
    """The LLVM type of an element of ``dtype`` in memory (booleans are bytes)."""
    return "i8" if dtype == "bool" else value_type(dtype)


def itemsize(dtype: str) -> int:
    return 1 if dtype == "bool" else bits(dtype) // 8


def param_types(arg: Arg) -> list[str]:
    """The native parameters of one argument, in Numba's calling convention."""
    if isinstance(arg, ArrayArg):
        return ["ptr", "ptr", "i64", "i64", "ptr"] + ["i64"] * (2 * arg.ndim)
    if isinstance(arg, PointerArg):
        return ["ptr"]
    return ["i8" if arg.dtype == "bool" else value_type(arg.dtype)]


def arithmetic(a: str, b: str) -> str:
    """The type Numba gives ``a <op> b`` for + - * and the bitwise operators on integers."""
    ka, kb = kind(a), kind(b)
    if "b" in (ka, kb):
        raise Unsupported(f"boolean arithmetic ({a}, {b})")
    if ka == kb == "f":
        return "float64" if "float64" in (a, b) else "float32"
    if "f" in (ka, kb):
        other = b if ka == "f" else a
        # float32 with an integer Numba converts safely to float32 (at most 16 bits) stays
        # float32; with a wider one both become float64
        return "float32" if "float64" not in (a, b) and bits(other) <= 16 else "float64"
    if ka == kb:
        return "int64" if ka == "i" else "uint64"
    raise Unsupported(f"signed with unsigned ({a}, {b})")


def comparison(a: str, b: str) -> str:
    """The type both operands of a comparison are converted to."""
    if a == b:
        return a
    if "bool" in (a, b):
        raise Unsupported(f"comparison of bool with {a if b == 'bool' else b}")
    return unified(a, b)


def unified(a: str, b: str) -> str:
    """The type Numba unifies ``a`` and ``b`` to (a variable or conditional expression taking
    values of both, ``min``/``max``): the wider of two integers of the same signedness,
    otherwise as :func:`arithmetic`."""
    if a == b:
        return a
    ka, kb = kind(a), kind(b)
    if ka == kb and ka in "iu":
        return a if bits(a) >= bits(b) else b
    return arithmetic(a, b)


def literal_dtype(value: object) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        if not -2**63 <= value < 2**63:
            raise Unsupported(f"integer literal {value} out of int64 range")
        return "int64"
    if isinstance(value, float):
        return "float64"
    raise Unsupported(f"literal {value!r}")


def constant(value: object, dtype: str) -> str:
    """The LLVM text of a constant ``value`` of ``dtype``."""
    k = kind(dtype)
    if k == "b":
        return "true" if value else "false"
    if k == "f":
        number = float(np.float32(value)) if dtype == "float32" else float(value)
        return f"0x{struct.unpack('<Q', struct.pack('<d', number))[0]:016X}"
    return str(int(value))


# -- signatures: the ``SIG_name = _nt.void(...)`` text of a kernel module --------------------

_NUMBA_NAMES = {"boolean": "bool", "bool_": "bool", "intp": "int64", "uintp": "uint64",
                "float_": "float32", "double": "float64"}


def _scalar_name(node: ast.expr) -> str:
    if not isinstance(node, ast.Attribute):
        raise Unsupported(f"signature element {ast.dump(node)}")
    name = _NUMBA_NAMES.get(node.attr, node.attr)
    if name not in SCALAR_DTYPES:
        raise Unsupported(f"signature type {node.attr}")
    return name


def _arg(node: ast.expr) -> Arg:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr == "Array":
            dtype, ndim, layout = node.args
            readonly = any(k.arg == "readonly" and ast.literal_eval(k.value)
                           for k in node.keywords)
            return ArrayArg(_scalar_name(dtype), ast.literal_eval(ndim),
                            ast.literal_eval(layout), not readonly)
        if node.func.attr == "CPointer":
            return PointerArg(_scalar_name(node.args[0]))
        raise Unsupported(f"signature type {node.func.attr}")
    return ScalarArg(_scalar_name(node))


def parse_signature(node: ast.expr) -> tuple[Arg, ...]:
    """The argument types of a ``_nt.void(...)`` signature expression (the kernel returns
    nothing; any other return type is unsupported)."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "void"):
        raise Unsupported("a signature returning a value")
    return tuple(_arg(a) for a in node.args)


def from_numba(ty: object) -> Arg | None:
    """The descriptor of a Numba argument type, or None (no native entry for it)."""
    from numba.core import types

    if isinstance(ty, types.Array):
        dtype = "bool" if isinstance(ty.dtype, types.Boolean) else str(ty.dtype)
        if dtype not in SCALAR_DTYPES:
            return None
        return ArrayArg(dtype, ty.ndim, ty.layout, bool(ty.mutable))
    if isinstance(ty, types.Boolean):
        return ScalarArg("bool")
    if isinstance(ty, (types.Integer, types.Float)) and str(ty) in SCALAR_DTYPES:
        return ScalarArg(str(ty))
    return None
