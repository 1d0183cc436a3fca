"""One Numba code template per scalar-op name (``jitgraph.tensor.scalar``).

A template turns argument expressions (with their dtypes) into one expression of the step's
output dtype, possibly emitting statements first through a :class:`Body`. Semantics follow the
NumPy reference (``perform``): integer ``//`` and ``%`` by zero give 0 (and ``MIN // -1`` wraps
instead of trapping), integers to negative integer powers raise ``ValueError``, ``round`` is half
to even, ``maximum``/``minimum``/``clip`` propagate NaN, comparisons with NaN are False (``!=``
True), float->int casts truncate, casts to bool test ``!= 0``. Arithmetic on small integers is done
in 64 bits and wrapped back, which equals NumPy's wrapping arithmetic.

A float operation on a small integer input (``exp(int8)``) is computed in the op's declared output
dtype (float32), as Theano did. (NumPy would compute it in float16 and the ``perform`` reference
then casts to float32, so the two differ at float16 precision for those dtypes.)

``float16`` and complex dtypes have no template (Numba has no float16 arithmetic): such nodes run
their ``perform``.
"""

from __future__ import annotations

import re
from typing import Callable

import numpy as np

SUPPORTED_DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                    "uint64", "float32", "float64")

#: Names in ``scalar.all_scalar_ops()`` deliberately left to ``perform`` (none today).
PY_ONLY: frozenset[str] = frozenset()


class Unsupported(Exception):
    """The template cannot handle these dtypes; the node falls back to ``perform``."""


_NAME = re.compile(r"[A-Za-z_]\w*")


class Body:
    """Statements of one loop body, with the dtype of every temporary.

    With ``fast`` (and ``vecmath``), a transcendental primitive is not computed inline: its
    argument is stored in a block buffer, the statement list gets a stage break (a
    :class:`StageCall`) at which the kernel calls the vectorized block function of
    :mod:`.vecmath`, and the result is read back from another buffer (see
    ``elemwise_codegen``). Otherwise primitives are libm calls.
    """

    def __init__(self, fast: bool, vecmath: bool = True, prefix: str = "t") -> None:
        self.fast = fast and vecmath
        self.lines: list = []  # str statements and StageCall markers
        self.prefix = prefix
        self.count = 0
        self.dtypes: dict[str, str] = {}
        self.calls: list[StageCall] = []
        self.memo: dict = {}  # (op key, args, dtypes, out dtype) -> variable (value numbering)

    def tmp(self, expr: str, dtype: str) -> str:
        if _NAME.fullmatch(expr):  # already a variable: no alias
            self.dtypes.setdefault(expr, dtype)
            return expr
        name = f"{self.prefix}{self.count}"
        self.count += 1
        self.lines.append(f"{name} = {expr}")
        self.dtypes[name] = dtype
        return name

    def prim(self, name: str, arg: str, dtype: str) -> str:
        """``name(arg)`` for a float ``dtype``: a stage call in fast bodies, else libm."""
        from jitgraph.backend_cpu.blocks import PRIMITIVES

        block_fn, libm = PRIMITIVES[name]
        if not self.fast:
            call = f"{libm}({arg})"
            return call if dtype == "float64" else f"np.float32({call})"
        hit = self.memo.get(("prim", name, arg))
        if hit is not None:
            return hit if dtype == "float64" else f"np.float32({hit})"
        call = StageCall(block_fn, len(self.calls))
        self.calls.append(call)
        self.lines.append(f"{call.arg}[ub] = {arg if dtype == 'float64' else f'np.float64({arg})'}")
        self.lines.append(call)
        result = f"{call.res}[ub]"
        self.memo[("prim", name, arg)] = result
        return result if dtype == "float64" else f"np.float32({result})"


class StageCall:
    """A stage break: block function ``fn`` from the argument to the result buffer."""

    def __init__(self, fn: str, index: int) -> None:
        self.fn = fn
        self.arg = f"pa{index}"
        self.res = f"pr{index}"


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
        raise Unsupported(f"no Numba template for scalar op {name!r}") from None


# -- dtype helpers ----------------------------------------------------------------------------

def is_float(d: str) -> bool:
    return d in ("float32", "float64")


def is_signed(d: str) -> bool:
    return d.startswith("int")


def is_unsigned(d: str) -> bool:
    return d.startswith("uint")


def check_dtypes(*dtypes: str) -> None:
    for d in dtypes:
        if d not in SUPPORTED_DTYPES:
            raise Unsupported(f"dtype {d} has no Numba code path")


def cv(expr: str, src: str, dst: str) -> str:
    """``expr`` (of dtype ``src``) converted to ``dst`` like NumPy's ``astype``."""
    if src == dst:
        return expr
    if dst == "bool":
        return f"({expr} != 0)"
    if is_float(src) and (is_signed(dst) or is_unsigned(dst)) and dst != "uint64":
        return f"np.{dst}(np.int64({expr}))"
    return f"np.{dst}({expr})"


def wrap(expr: str, out: str) -> str:
    """``expr`` (computed in a wider type) brought back to ``out``. Templates compute float64
    results from float64 operands, which Numba keeps float64: no conversion call (fewer calls
    to type make kernels compile faster)."""
    return expr if out in ("bool", "float64") else f"np.{out}({expr})"


def lit(value: float, dtype: str) -> str:
    return repr(float(value)) if dtype == "float64" else f"np.{dtype}({float(value)!r})"


def wide(d: str) -> str:
    """The 64-bit type small integers are computed in."""
    return "uint64" if is_unsigned(d) else "int64" if is_signed(d) or d == "bool" else d


# -- arithmetic -------------------------------------------------------------------------------

def _nary(op: str) -> Template:
    def tpl(b: Body, a: list, dts: list, out: str) -> str:
        check_dtypes(out, *dts)
        return wrap(f" {op} ".join(cv(x, d, out) for x, d in zip(a, dts)), out)

    return tpl


TEMPLATES["add"] = _nary("+")
TEMPLATES["mul"] = _nary("*")
TEMPLATES["sub"] = _nary("-")


@template("true_div")
def _true_div(b: Body, a: list, dts: list, out: str) -> str:
    check_dtypes(out, *dts)
    return wrap(f"{cv(a[0], dts[0], out)} / {cv(a[1], dts[1], out)}", out)


def _int_operands(b: Body, a: list, dts: list, out: str) -> tuple[str, str, str]:
    w = wide(out)
    x = b.tmp(cv(a[0], dts[0], w) if dts[0] != "bool" else f"np.{w}({a[0]})", w)
    y = b.tmp(cv(a[1], dts[1], w) if dts[1] != "bool" else f"np.{w}({a[1]})", w)
    return x, y, w


@template("int_div")
def _int_div(b: Body, a: list, dts: list, out: str) -> str:
    check_dtypes(out, *dts)
    if is_float(out):
        return wrap(f"{cv(a[0], dts[0], out)} // {cv(a[1], dts[1], out)}", out)
    x, y, w = _int_operands(b, a, dts, out)
    if w == "uint64":  # a plain 0 would unify with uint64 as float64
        return wrap(f"(np.uint64(0) if {y} == 0 else {x} // {y})", out)
    return wrap(f"(0 if {y} == 0 else (-{x} if {y} == -1 else {x} // {y}))", out)


@template("mod")
def _mod(b: Body, a: list, dts: list, out: str) -> str:
    check_dtypes(out, *dts)
    if is_float(out):
        return wrap(f"{cv(a[0], dts[0], out)} % {cv(a[1], dts[1], out)}", out)
    x, y, w = _int_operands(b, a, dts, out)
    if w == "uint64":
        return wrap(f"(np.uint64(0) if {y} == 0 else {x} % {y})", out)
    return wrap(f"(0 if ({y} == 0) | ({y} == -1) else {x} % {y})", out)


@template("pow")
def _pow(b: Body, a: list, dts: list, out: str) -> str:
    check_dtypes(out, *dts)
    if is_float(out):
        return wrap(f"{cv(a[0], dts[0], out)} ** {cv(a[1], dts[1], out)}", out)
    x, y, w = _int_operands(b, a, dts, out)
    return wrap(f"ipow({x}, {y})", out)


def _fmax(x: str, y: str, greater: str) -> str:
    # NaN-propagating: x wins when it is NaN or beats y; otherwise y (NaN if y is).
    return f"({x} if ({x} {greater} {y}) | ({x} != {x}) else {y})"


def _extremum(greater: str, pick: str, boolop: str) -> Template:
    def tpl(b: Body, a: list, dts: list, out: str) -> str:
        check_dtypes(out, *dts)
        if out == "bool":
            return f"({cv(a[0], dts[0], out)} {boolop} {cv(a[1], dts[1], out)})"
        x = b.tmp(cv(a[0], dts[0], out), out)
        y = b.tmp(cv(a[1], dts[1], out), out)
        if is_float(out):
            return _fmax(x, y, greater)
        return f"{pick}({x}, {y})"

    return tpl


TEMPLATES["maximum"] = _extremum(">=", "max", "|")
TEMPLATES["minimum"] = _extremum("<=", "min", "&")


@template("clip")
def _clip(b: Body, a: list, dts: list, out: str) -> str:
    check_dtypes(out, *dts)
    x, lo, hi = (b.tmp(cv(v, d, out), out) for v, d in zip(a, dts))
    if out == "bool":
        return f"(({x} | {lo}) & {hi})"
    if is_float(out):
        low = b.tmp(_fmax(x, lo, ">="), out)
        return _fmax(low, hi, "<=")
    return f"min(max({x}, {lo}), {hi})"


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
        return wrap(f" {op} ".join(cv(x, d, out) for x, d in zip(a, dts)), out)

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
    return f"({cv(a[1], dts[1], out)} if {cond} else {cv(a[2], dts[2], out)})"


# -- unary ------------------------------------------------------------------------------------

@template("neg")
def _neg(b: Body, a: list, dts: list, out: str) -> str:
    check_dtypes(out, *dts)
    if out == "bool":
        raise Unsupported("negation of booleans (NumPy refuses it)")
    return wrap(f"-{cv(a[0], dts[0], out)}", out)


@template("abs")
def _abs(b: Body, a: list, dts: list, out: str) -> str:
    check_dtypes(out, *dts)
    x = cv(a[0], dts[0], out)
    if out == "bool" or is_unsigned(out):
        return x
    if is_float(out):
        return f"abs({x})"
    return wrap(f"abs(np.int64({x}))", out)


@template("sgn")
def _sgn(b: Body, a: list, dts: list, out: str) -> str:
    check_dtypes(out, *dts)
    if out == "bool":
        raise Unsupported("sign of booleans (NumPy refuses it)")
    x = b.tmp(cv(a[0], dts[0], out), out)
    if is_float(out):
        one = lit(1.0, out)
        return f"({one} if {x} > 0 else (-{one} if {x} < 0 else {x}))"
    if is_unsigned(out):
        return wrap(f"np.int64({x} > 0)", out)
    return wrap(f"(np.int64({x} > 0) - np.int64({x} < 0))", out)


def _float_unary(fn: str) -> Template:
    def tpl(b: Body, a: list, dts: list, out: str) -> str:
        check_dtypes(out, *dts)
        if not is_float(out):
            raise Unsupported(f"{fn} with output dtype {out}")
        return wrap(f"{fn}({cv(a[0], dts[0], out)})", out)

    return tpl


for _name, _fn in (("exp2", "np.exp2"), ("log2", "math.log2"),
                   ("log10", "math.log10"), ("sqrt", "math.sqrt"), ("tan", "math.tan"),
                   ("arcsin", "math.asin"), ("arccos", "math.acos"), ("arctan", "math.atan"),
                   ("sinh", "math.sinh"), ("cosh", "math.cosh"),
                   ("arcsinh", "math.asinh"), ("arccosh", "math.acosh"),
                   ("arctanh", "math.atanh"), ("erf", "math.erf"), ("erfc", "math.erfc")):
    TEMPLATES[_name] = _float_unary(_fn)


def _prim_unary(prim: str) -> Template:
    def tpl(b: Body, a: list, dts: list, out: str) -> str:
        check_dtypes(out, *dts)
        if not is_float(out):
            raise Unsupported(f"{prim} with output dtype {out}")
        return b.prim(prim, cv(a[0], dts[0], out), out)

    return tpl


for _name in ("exp", "expm1", "log", "log1p", "sin", "cos", "tanh"):
    TEMPLATES[_name] = _prim_unary(_name)


@template("arctan2")
def _arctan2(b: Body, a: list, dts: list, out: str) -> str:
    check_dtypes(out, *dts)
    return wrap(f"math.atan2({cv(a[0], dts[0], out)}, {cv(a[1], dts[1], out)})", out)


@template("reciprocal")
def _reciprocal(b: Body, a: list, dts: list, out: str) -> str:
    check_dtypes(out, *dts)
    return wrap(f"{lit(1.0, out)} / {cv(a[0], dts[0], out)}", out)


@template("sqr")
def _sqr(b: Body, a: list, dts: list, out: str) -> str:
    check_dtypes(out, *dts)
    x = b.tmp(cv(a[0], dts[0], out), out)
    return wrap(f"{x} * {x}", out)


def _rounding(fn: str) -> Template:
    def tpl(b: Body, a: list, dts: list, out: str) -> str:
        check_dtypes(out, *dts)
        x = cv(a[0], dts[0], out)
        return f"{fn}({x})" if is_float(out) else x

    return tpl


TEMPLATES["floor"] = _rounding("np.floor")
TEMPLATES["ceil"] = _rounding("np.ceil")
TEMPLATES["trunc"] = _rounding("np.trunc")
TEMPLATES["round_half_to_even"] = _rounding("np.rint")


@template("round_half_away_from_zero")
def _round_away(b: Body, a: list, dts: list, out: str) -> str:
    check_dtypes(out, *dts)
    if not is_float(out):
        return cv(a[0], dts[0], out)
    # The reference formula, in the output precision: sign(x) * floor(|x| + 0.5).
    x = b.tmp(cv(a[0], dts[0], out), out)
    sign = _sgn(b, [x], [out], out)
    return f"({sign} * np.floor(abs({x}) + {lit(0.5, out)}))"


def _float_test(fn: str) -> Template:
    def tpl(b: Body, a: list, dts: list, out: str) -> str:
        check_dtypes(*dts)
        return f"{fn}({a[0]})" if is_float(dts[0]) else "False"

    return tpl


TEMPLATES["isnan"] = _float_test("math.isnan")
TEMPLATES["isinf"] = _float_test("math.isinf")


@template("invert")
def _invert(b: Body, a: list, dts: list, out: str) -> str:
    check_dtypes(out, *dts)
    if out == "bool":
        return f"(not {cv(a[0], dts[0], out)})"
    return wrap(f"~{cv(a[0], dts[0], out)}", out)


@template("sigmoid")
def _sigmoid(b: Body, a: list, dts: list, out: str) -> str:
    check_dtypes(out, *dts)
    if not is_float(out):
        raise Unsupported(f"sigmoid with output dtype {out}")
    x = b.tmp(cv(a[0], dts[0], out), out)
    e = b.tmp(b.prim("exp", f"-abs({x})", out), out)  # exp(-|x|) never overflows
    one = lit(1.0, out)
    return f"({one} / ({one} + {e}) if {x} >= 0 else {e} / ({one} + {e}))"


@template("softplus")
def _softplus(b: Body, a: list, dts: list, out: str) -> str:
    check_dtypes(out, *dts)
    if not is_float(out):
        raise Unsupported(f"softplus with output dtype {out}")
    x = b.tmp(cv(a[0], dts[0], out), out)
    e = b.tmp(b.prim("exp", f"-abs({x})", out), out)
    tail = b.prim("log1p", e, out)
    return f"(({x} if {x} > 0 else {lit(0.0, out)}) + {tail})"


@template("xlogx", "xlogy0")
def _xlogy0(b: Body, a: list, dts: list, out: str) -> str:
    # x * log(y) (y = x for xlogx), 0 where x == 0 even when log(y) is -inf or NaN.
    check_dtypes(out, *dts)
    if not is_float(out):
        raise Unsupported(f"xlogx/xlogy0 with output dtype {out}")
    x = b.tmp(cv(a[0], dts[0], out), out)
    y = x if len(a) == 1 else b.tmp(cv(a[1], dts[1], out), out)
    log_y = b.tmp(b.prim("log", y, out), out)
    return f"({lit(0.0, out)} if {x} == 0 else {x} * {log_y})"


# -- casts ------------------------------------------------------------------------------------

def _cast_template(dst: str) -> Template:
    def tpl(b: Body, a: list, dts: list, out: str) -> str:
        check_dtypes(out, *dts)
        return cv(a[0], dts[0], dst)

    return tpl
