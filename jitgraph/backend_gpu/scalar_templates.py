"""One CUDA C template per scalar-op name (``jitgraph.tensor.scalar_ops``).

A template turns argument expressions (with their dtypes) into one C expression of the step's
output dtype, possibly emitting statements first through a :class:`Body`. The semantics are the
NumPy reference's, as in the CPU templates: integer ``//`` and ``%`` by zero give 0 (``MIN // -1``
wraps), ``//``/``%`` floor (Python signs), integers to negative integer powers raise
``ValueError`` (the kernel sets an error flag the host checks), ``round`` is half to even,
``maximum``/``minimum``/``clip`` propagate NaN, comparisons are done in ``np.result_type`` of
the operands, casts to bool test ``!= 0``. Signed and unsigned integer arithmetic is done in
``unsigned long long`` and wrapped back, which equals NumPy's wrapping arithmetic and is free of
C++'s signed-overflow undefined behaviour.

A float operation on a small integer input (``exp(int8)``) is computed in the op's declared
output dtype (float32), as on the CPU. ``float16`` and complex dtypes have no template: such nodes
stay on the CPU.
"""

from __future__ import annotations

import re
from typing import Callable

import numpy as np

from jitgraph.backend_gpu.cuda_types import (C_TYPES, ULL, Unsupported, check_dtypes, cv,
                                             is_float, is_signed, is_unsigned, lit, math_fn)
from jitgraph.backend_gpu import helpers_cuda as H

#: scalar-op names deliberately left to the CPU (none today)
CPU_ONLY: frozenset[str] = frozenset()

_NAME = re.compile(r"[A-Za-z_]\w*")
_DEF = re.compile(r"const [\w ]+? (\w+) = ")
_REF = re.compile(r"\b[a-z]\d+\b")


class Body:
    """Statements of one element's computation, the dtype of every temporary, the helper
    functions used, and whether the kernel needs the error flag."""

    def __init__(self, prefix: str = "t") -> None:
        self.lines: list[str] = []
        self.prefix = prefix
        self.count = 0
        self.dtypes: dict[str, str] = {}
        self.helpers: set[str] = set()
        self.needs_error = False
        self.memo: dict = {}

    def tmp(self, expr: str, dtype: str) -> str:
        if _NAME.fullmatch(expr) and expr not in ("true", "false"):
            self.dtypes.setdefault(expr, dtype)
            return expr
        name = f"{self.prefix}{self.count}"
        self.count += 1
        self.lines.append(f"const {C_TYPES[dtype]} {name} = {expr};")
        self.dtypes[name] = dtype
        return name

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


Template = Callable[[Body, list, list, str], str]
TEMPLATES: dict[str, Template] = {}


def template(*names: str) -> Callable[[Template], Template]:
    def deco(fn: Template) -> Template:
        for name in names:
            TEMPLATES[name] = fn
        return fn

    return deco


def get_template(name: str) -> Template:
    if name.startswith("convert_to_"):
        return _cast_template(name[len("convert_to_"):])
    try:
        return TEMPLATES[name]
    except KeyError:
        raise Unsupported(f"no CUDA template for scalar op {name!r}") from None


def wrap_int(op: str, xs: list[str], out: str) -> str:
    """``x0 op x1 op ...`` in ``unsigned long long``, wrapped back to the integer ``out``."""
    joined = f" {op} ".join(f"({ULL})({x})" for x in xs)
    return f"(({C_TYPES[out]})({joined}))"


# -- arithmetic -------------------------------------------------------------------------------

def _nary(op: str) -> Template:
    def tpl(b: Body, a: list, dts: list, out: str) -> str:
        check_dtypes(out, *dts)
        xs = [cv(x, d, out) for x, d in zip(a, dts)]
        if is_float(out):
            return "(" + f" {op} ".join(xs) + ")"
        if out == "bool":
            raise Unsupported(f"arithmetic '{op}' with a bool output")
        return wrap_int(op, xs, out)

    return tpl


TEMPLATES["add"] = _nary("+")
TEMPLATES["mul"] = _nary("*")
TEMPLATES["sub"] = _nary("-")


@template("true_div")
def _true_div(b: Body, a: list, dts: list, out: str) -> str:
    check_dtypes(out, *dts)
    if not is_float(out):
        raise Unsupported(f"true_div with output dtype {out}")
    return f"({cv(a[0], dts[0], out)} / {cv(a[1], dts[1], out)})"


def _operands(b: Body, a: list, dts: list, out: str) -> tuple[str, str]:
    return b.tmp(cv(a[0], dts[0], out), out), b.tmp(cv(a[1], dts[1], out), out)


@template("int_div")
def _int_div(b: Body, a: list, dts: list, out: str) -> str:
    check_dtypes(out, *dts)
    x, y = _operands(b, a, dts, out)
    if is_float(out):
        return f"{b.use(H.FFLOORDIV)}({x}, {y})"
    if out == "bool":
        raise Unsupported("int_div with a bool output")
    return f"{b.use(H.SFLOORDIV if is_signed(out) else H.UDIV)}({x}, {y})"


@template("mod")
def _mod(b: Body, a: list, dts: list, out: str) -> str:
    check_dtypes(out, *dts)
    x, y = _operands(b, a, dts, out)
    if is_float(out):
        return f"{b.use(H.FMOD)}({x}, {y})"
    if out == "bool":
        raise Unsupported("mod with a bool output")
    return f"{b.use(H.SMOD if is_signed(out) else H.UMOD)}({x}, {y})"


@template("pow")
def _pow(b: Body, a: list, dts: list, out: str) -> str:
    check_dtypes(out, *dts)
    x, y = _operands(b, a, dts, out)
    if is_float(out):
        return f"{math_fn('pow', out)}({x}, {y})"
    if out == "bool":
        raise Unsupported("pow with a bool output")
    if is_signed(out):
        b.needs_error = True
        return f"{b.use(H.SIPOW)}({x}, {y}, jg_err)"
    return f"{b.use(H.UIPOW)}({x}, {y})"


def _fmax(x: str, y: str, greater: str) -> str:
    # NaN-propagating: x wins when it is NaN or beats y; otherwise y (NaN if y is).
    return f"((({x} {greater} {y}) || ({x} != {x})) ? {x} : {y})"


def _extremum(greater: str, boolop: str) -> Template:
    def tpl(b: Body, a: list, dts: list, out: str) -> str:
        check_dtypes(out, *dts)
        if out == "bool":
            return f"({cv(a[0], dts[0], out)} {boolop} {cv(a[1], dts[1], out)})"
        x, y = _operands(b, a, dts, out)
        if is_float(out):
            return _fmax(x, y, greater)
        return f"(({x} {greater[0]} {y}) ? {x} : {y})"

    return tpl


TEMPLATES["maximum"] = _extremum(">=", "||")
TEMPLATES["minimum"] = _extremum("<=", "&&")


@template("clip")
def _clip(b: Body, a: list, dts: list, out: str) -> str:
    check_dtypes(out, *dts)
    x, lo, hi = (b.tmp(cv(v, d, out), out) for v, d in zip(a, dts))
    if out == "bool":
        return f"(({x} || {lo}) && {hi})"
    if is_float(out):
        low = b.tmp(_fmax(x, lo, ">="), out)
        return _fmax(low, hi, "<=")
    low = b.tmp(f"(({x} > {lo}) ? {x} : {lo})", out)
    return f"(({low} < {hi}) ? {low} : {hi})"


def _compare(op: str) -> Template:
    def tpl(b: Body, a: list, dts: list, out: str) -> str:
        check_dtypes(*dts)
        ct = np.result_type(*dts).name
        check_dtypes(ct)
        return f"({cv(a[0], dts[0], ct)} {op} {cv(a[1], dts[1], ct)})"

    return tpl


for _name, _op in (("eq", "=="), ("neq", "!="), ("lt", "<"), ("le", "<="), ("gt", ">"),
                   ("ge", ">=")):
    TEMPLATES[_name] = _compare(_op)


def _bitwise(op: str) -> Template:
    def tpl(b: Body, a: list, dts: list, out: str) -> str:
        check_dtypes(out, *dts)
        joined = f" {op} ".join(cv(x, d, out) for x, d in zip(a, dts))
        return f"(({C_TYPES[out]})({joined}))"

    return tpl


TEMPLATES["and_"] = _bitwise("&")
TEMPLATES["or_"] = _bitwise("|")
TEMPLATES["xor"] = _bitwise("^")


@template("second")
def _second(b: Body, a: list, dts: list, out: str) -> str:
    check_dtypes(out, *dts)
    return cv(a[1], dts[1], out)


@template("identity")
def _identity(b: Body, a: list, dts: list, out: str) -> str:
    check_dtypes(out, *dts)
    return cv(a[0], dts[0], out)


@template("switch")
def _switch(b: Body, a: list, dts: list, out: str) -> str:
    check_dtypes(out, *dts)
    cond = a[0] if dts[0] == "bool" else f"({a[0]} != 0)"
    return f"({cond} ? {cv(a[1], dts[1], out)} : {cv(a[2], dts[2], out)})"


# -- unary ------------------------------------------------------------------------------------

@template("neg")
def _neg(b: Body, a: list, dts: list, out: str) -> str:
    check_dtypes(out, *dts)
    if out == "bool":
        raise Unsupported("negation of booleans (NumPy refuses it)")
    x = cv(a[0], dts[0], out)
    if is_float(out):
        return f"(-{x})"
    return f"(({C_TYPES[out]})(0ULL - ({ULL})({x})))"


@template("abs")
def _abs(b: Body, a: list, dts: list, out: str) -> str:
    check_dtypes(out, *dts)
    x = b.tmp(cv(a[0], dts[0], out), out)
    if out == "bool" or is_unsigned(out):
        return x
    if is_float(out):
        return f"{math_fn('fabs', out)}({x})"
    return f"(({x} < 0) ? (({C_TYPES[out]})(0ULL - ({ULL})({x}))) : {x})"


@template("sgn")
def _sgn(b: Body, a: list, dts: list, out: str) -> str:
    check_dtypes(out, *dts)
    if out == "bool":
        raise Unsupported("sign of booleans (NumPy refuses it)")
    x = b.tmp(cv(a[0], dts[0], out), out)
    if is_float(out):
        one = lit(1.0, out)
        return f"(({x} > 0) ? {one} : (({x} < 0) ? -{one} : {x}))"
    if is_unsigned(out):
        return f"(({C_TYPES[out]})({x} > 0))"
    return f"(({C_TYPES[out]})(({x} > 0) - ({x} < 0)))"


def _float_unary(fn: str) -> Template:
    def tpl(b: Body, a: list, dts: list, out: str) -> str:
        check_dtypes(out, *dts)
        if not is_float(out):
            raise Unsupported(f"{fn} with output dtype {out}")
        return f"{math_fn(fn, out)}({cv(a[0], dts[0], out)})"

    return tpl


for _name, _fn in (("exp", "exp"), ("exp2", "exp2"), ("expm1", "expm1"), ("log", "log"),
                   ("log2", "log2"), ("log10", "log10"), ("log1p", "log1p"), ("sqrt", "sqrt"),
                   ("sin", "sin"), ("cos", "cos"), ("tan", "tan"), ("arcsin", "asin"),
                   ("arccos", "acos"), ("arctan", "atan"), ("sinh", "sinh"), ("cosh", "cosh"),
                   ("tanh", "tanh"), ("arcsinh", "asinh"), ("arccosh", "acosh"),
                   ("arctanh", "atanh"), ("erf", "erf"), ("erfc", "erfc")):
    TEMPLATES[_name] = _float_unary(_fn)


@template("arctan2")
def _arctan2(b: Body, a: list, dts: list, out: str) -> str:
    check_dtypes(out, *dts)
    if not is_float(out):
        raise Unsupported(f"arctan2 with output dtype {out}")
    return f"{math_fn('atan2', out)}({cv(a[0], dts[0], out)}, {cv(a[1], dts[1], out)})"


@template("reciprocal")
def _reciprocal(b: Body, a: list, dts: list, out: str) -> str:
    check_dtypes(out, *dts)
    if not is_float(out):
        raise Unsupported(f"reciprocal with output dtype {out}")
    return f"({lit(1.0, out)} / {cv(a[0], dts[0], out)})"


@template("sqr")
def _sqr(b: Body, a: list, dts: list, out: str) -> str:
    check_dtypes(out, *dts)
    x = b.tmp(cv(a[0], dts[0], out), out)
    if is_float(out):
        return f"({x} * {x})"
    if out == "bool":
        raise Unsupported("sqr with a bool output")
    return wrap_int("*", [x, x], out)


def _rounding(fn: str) -> Template:
    def tpl(b: Body, a: list, dts: list, out: str) -> str:
        check_dtypes(out, *dts)
        x = cv(a[0], dts[0], out)
        return f"{math_fn(fn, out)}({x})" if is_float(out) else x

    return tpl


TEMPLATES["floor"] = _rounding("floor")
TEMPLATES["ceil"] = _rounding("ceil")
TEMPLATES["trunc"] = _rounding("trunc")
TEMPLATES["round_half_to_even"] = _rounding("rint")


@template("round_half_away_from_zero")
def _round_away(b: Body, a: list, dts: list, out: str) -> str:
    check_dtypes(out, *dts)
    if not is_float(out):
        return cv(a[0], dts[0], out)
    # The reference formula, in the output precision: sign(x) * floor(|x| + 0.5).
    x = b.tmp(cv(a[0], dts[0], out), out)
    sign = b.tmp(_sgn(b, [x], [out], out), out)
    return (f"({sign} * {math_fn('floor', out)}({math_fn('fabs', out)}({x}) "
            f"+ {lit(0.5, out)}))")


def _float_test(fn: str) -> Template:
    def tpl(b: Body, a: list, dts: list, out: str) -> str:
        check_dtypes(*dts)
        return f"((bool){fn}({a[0]}))" if is_float(dts[0]) else "false"

    return tpl


TEMPLATES["isnan"] = _float_test("isnan")
TEMPLATES["isinf"] = _float_test("isinf")


@template("invert")
def _invert(b: Body, a: list, dts: list, out: str) -> str:
    check_dtypes(out, *dts)
    x = cv(a[0], dts[0], out)
    if out == "bool":
        return f"(!{x})"
    if is_float(out):
        raise Unsupported("invert of floats")
    return f"(({C_TYPES[out]})(~{x}))"


@template("sigmoid")
def _sigmoid(b: Body, a: list, dts: list, out: str) -> str:
    check_dtypes(out, *dts)
    if not is_float(out):
        raise Unsupported(f"sigmoid with output dtype {out}")
    x = b.tmp(cv(a[0], dts[0], out), out)
    e = b.tmp(f"{math_fn('exp', out)}(-{math_fn('fabs', out)}({x}))", out)  # never overflows
    one = lit(1.0, out)
    return f"(({x} >= 0) ? ({one} / ({one} + {e})) : ({e} / ({one} + {e})))"


@template("softplus")
def _softplus(b: Body, a: list, dts: list, out: str) -> str:
    check_dtypes(out, *dts)
    if not is_float(out):
        raise Unsupported(f"softplus with output dtype {out}")
    x = b.tmp(cv(a[0], dts[0], out), out)
    e = b.tmp(f"{math_fn('exp', out)}(-{math_fn('fabs', out)}({x}))", out)
    return (f"((({x} > 0) ? {x} : {lit(0.0, out)}) + {math_fn('log1p', out)}({e}))")


@template("xlogx", "xlogy0")
def _xlogy0(b: Body, a: list, dts: list, out: str) -> str:
    # x * log(y) (y = x for xlogx), 0 where x == 0 even when log(y) is -inf or NaN.
    check_dtypes(out, *dts)
    if not is_float(out):
        raise Unsupported(f"xlogx/xlogy0 with output dtype {out}")
    x = b.tmp(cv(a[0], dts[0], out), out)
    y = x if len(a) == 1 else b.tmp(cv(a[1], dts[1], out), out)
    zero = lit(0.0, out)
    return f"(({x} == {zero}) ? {zero} : ({x} * {math_fn('log', out)}({y})))"


# -- casts ------------------------------------------------------------------------------------

def _cast_template(dst: str) -> Template:
    def tpl(b: Body, a: list, dts: list, out: str) -> str:
        check_dtypes(out, dst, *dts)
        return cv(a[0], dts[0], dst)

    return tpl
