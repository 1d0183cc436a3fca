"""How the GPU kernels write scalar expressions (:mod:`jitgraph.scalar_expr`): CUDA C.

Every scalar op's computation is one row of the scalar-op table; this module only says how each
node kind of :mod:`jitgraph.scalar_expr.expr` is written in CUDA C, with the NumPy reference's
semantics, as on the CPU: integer ``//`` and ``%`` by zero give 0 (``MIN // -1`` wraps),
``//``/``%`` floor (Python signs), integers to negative integer powers raise ``ValueError`` (the
kernel sets an error flag the host checks), ``maximum``/``minimum`` propagate NaN, casts to bool
test ``!= 0``. Signed and unsigned integer arithmetic is done in ``unsigned long long`` and
wrapped back, which equals NumPy's wrapping arithmetic and is free of C++'s signed-overflow
undefined behaviour. Helper functions of restricted Python
(:mod:`jitgraph.scalar_expr.helpers`) become ``__device__`` functions computing in double
(:mod:`.python_to_cuda`).

A float operation on a small integer input (``exp(int8)``) is computed in the op's declared
output dtype (float32), as on the CPU. ``float16`` and complex dtypes have no code path: such
nodes stay on the CPU.
"""

from __future__ import annotations

import re
from typing import Any

from jitgraph.backend_gpu import helpers_cuda as H
from jitgraph.backend_gpu.cuda_types import (C_TYPES, ULL, Unsupported, cv, is_float,
                                             is_signed, is_unsigned, lit, math_fn)
from jitgraph.scalar_expr.expr import Expr
from jitgraph.codegen.render import OPERATORS, Dialect, ScalarBody, template_of
from jitgraph.backend_gpu.python_to_cuda import device_symbol

_DEF = re.compile(r"const [\w ]+? (\w+) = ")
_REF = re.compile(r"\b[a-z]\d+\b")


class Body(ScalarBody):
    """Statements of one element's computation, the dtype of every temporary, the helper
    functions used, and whether the kernel needs the error flag."""

    def __init__(self, prefix: str = "t") -> None:
        super().__init__(prefix)
        self.dialect = CUDA
        self.helpers: set[str] = set()
        self.needs_error = False

    def statement(self, name: str, expr: str, dtype: str) -> str:
        return f"const {C_TYPES[dtype]} {name} = {expr};"

    def use(self, helper: str) -> str:
        self.helpers.add(helper)
        return helper

    def live(self, results: list[str]) -> tuple[list[str], set[str]]:
        """The statements ``results`` depend on (dead steps of a fused program dropped, so
        NVRTC has nothing to warn about) and the names they read."""
        wanted = {n for r in results for n in _REF.findall(r)}
        kept: list[str] = []
        for line in reversed(self.lines):
            name = _DEF.match(line).group(1)
            if name in wanted:
                kept.append(line)
                wanted.update(_REF.findall(line.split("=", 1)[1]))
        kept.reverse()
        return kept, wanted


def wrap_int(op: str, xs: list[str], out: str) -> str:
    """``x0 op x1 op ...`` in ``unsigned long long``, wrapped back to the integer ``out``."""
    joined = f" {op} ".join(f"({ULL})({x})" for x in xs)
    return f"(({C_TYPES[out]})({joined}))"


_LOGICAL = {"and": "&&", "or": "||", "xor": "!="}


class CudaDialect(Dialect):
    """Scalar expression nodes as CUDA C."""

    name = "cuda"
    literal = staticmethod(lit)
    convert = staticmethod(cv)

    def _arith(self, b: Body, n: Expr, a: list[str]) -> str:
        op = OPERATORS[n.op]
        if is_float(n.dtype):
            return "(" + f" {op} ".join(a) + ")"
        return wrap_int(op, a, n.dtype)

    add = sub = mul = _arith

    def truediv(self, b: Body, n: Expr, a: list[str]) -> str:
        return f"({a[0]} / {a[1]})"

    def _helper(self, b: Body, n: Expr, a: list[str], floats: str, signed: str,
                unsigned: str) -> str:
        x, y = b.tmp(a[0], n.dtype), b.tmp(a[1], n.dtype)
        name = floats if is_float(n.dtype) else signed if is_signed(n.dtype) else unsigned
        return f"{b.use(name)}({x}, {y})"

    def floordiv(self, b: Body, n: Expr, a: list[str]) -> str:
        return self._helper(b, n, a, H.FFLOORDIV, H.SFLOORDIV, H.UDIV)

    def mod(self, b: Body, n: Expr, a: list[str]) -> str:
        return self._helper(b, n, a, H.FMOD, H.SMOD, H.UMOD)

    def pow(self, b: Body, n: Expr, a: list[str]) -> str:
        x, y = b.tmp(a[0], n.dtype), b.tmp(a[1], n.dtype)
        if is_float(n.dtype):
            return f"{math_fn('pow', n.dtype)}({x}, {y})"
        if is_signed(n.dtype):
            b.needs_error = True
            return f"{b.use(H.SIPOW)}({x}, {y}, jg_err)"
        return f"{b.use(H.UIPOW)}({x}, {y})"

    def neg(self, b: Body, n: Expr, a: list[str]) -> str:
        if is_float(n.dtype):
            return f"(-{a[0]})"
        return f"(({C_TYPES[n.dtype]})(0ULL - ({ULL})({a[0]})))"

    def abs(self, b: Body, n: Expr, a: list[str]) -> str:
        if n.dtype == "bool" or is_unsigned(n.dtype):
            return a[0]
        if is_float(n.dtype):
            return f"{math_fn('fabs', n.dtype)}({a[0]})"
        x = b.tmp(a[0], n.dtype)
        return f"(({x} < 0) ? (({C_TYPES[n.dtype]})(0ULL - ({ULL})({x}))) : {x})"

    def invert(self, b: Body, n: Expr, a: list[str]) -> str:
        return f"(!{a[0]})" if n.dtype == "bool" else f"(({C_TYPES[n.dtype]})(~{a[0]}))"

    def bitwise(self, b: Body, n: Expr, a: list[str]) -> str:
        if n.dtype == "bool":  # logical operators: bool results without conversions
            return "(" + f" {_LOGICAL[n.op]} ".join(a) + ")"
        return f"(({C_TYPES[n.dtype]})({f' {OPERATORS[n.op]} '.join(a)}))"

    def where(self, b: Body, n: Expr, a: list[str]) -> str:
        return f"({a[0]} ? {a[1]} : {a[2]})"

    def extremum(self, b: Body, n: Expr, a: list[str]) -> str:
        x, y = b.tmp(a[0], n.dtype), b.tmp(a[1], n.dtype)
        return f"(({x} {'>' if n.op == 'max' else '<'} {y}) ? {x} : {y})"

    def fn(self, b: Body, n: Expr, a: list[str]) -> str:
        return f"{math_fn(n.attr, n.dtype)}({', '.join(a)})"

    def test(self, b: Body, n: Expr, a: list[str]) -> str:
        return f"((bool){n.attr}({a[0]}))"

    def call(self, b: Body, n: Expr, a: list[str]) -> str:
        return f"{b.use(device_symbol(n.attr))}({', '.join(a)})"


CUDA = CudaDialect()


def get_template(name: str) -> Any:
    """The renderer of table op ``name``: ``(body, args, arg_dtypes, out_dtype) -> text``."""
    return template_of(name)


__all__ = ["Body", "CUDA", "Unsupported", "get_template", "wrap_int"]
