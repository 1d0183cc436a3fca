"""The neutral description of one element's computation: a small typed expression DAG.

A scalar op's row gives an *expression function*: called with one :class:`Expr` per input
(already of the dtype the row's ``cast_inputs`` policy gives them), it returns the output as an
:class:`Expr` built with Python operators and the builders below. Each backend renders the DAG
(:mod:`.render`): the CPU one to the Python the direct compiler and Numba compile, the GPU one
to CUDA C. The backends decide *how* a node is computed (NumPy's exact integer ``//`` by zero,
wrapping, NaN-propagating ``maximum``, vecmath stages, ...); the expression only says *what*.

Typing follows NumPy: a node's dtype comes from its operands'; a Python number is a weak
literal taking the dtype of the operand it meets (``1.0 + x`` stays float32 for a float32 ``x``);
operands of different dtypes are converted to ``np.result_type`` first. Building a node the
backends cannot compute (arithmetic on booleans, a float function of an integer, ...) raises
:class:`Unsupported`, and the node falls back to the op's NumPy ``perform``.

Complex values (``complex64``/``complex128``) are expressions too, for what NumPy defines on
them: ``+ - * /``, ``**``, negation, ``==``/``!=``, ``abs`` (a float), :func:`real`,
:func:`imag`, :func:`conj`, :func:`make_complex`, casts, ``where`` and the complex functions of
:data:`COMPLEX_FUNCTIONS`; anything else raises :class:`Unsupported`. Whether a backend computes
them is its own choice (:attr:`.render.ScalarBody.computes`: the CPU kernels do, the GPU ones
refuse); and a row only gets complex operands when it says so (``complex_expr``, see
:func:`.render.op_expression`).

``==`` and ``!=`` build comparisons (as in NumPy), so an :class:`Expr` cannot be tested for
truth: write ``where(x == 0, a, b)``, never ``if x == 0``.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

#: dtypes every backend computes (float16 stays on NumPy's ``perform``, and complex dtypes on
#: the backends that do not compute :data:`COMPLEX_DTYPES`)
SUPPORTED_DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                    "uint64", "float32", "float64")
#: complex dtypes an expression may have (see the module docstring) -> their component's dtype
COMPLEX_DTYPES = {"complex64": "float32", "complex128": "float64"}
#: every dtype an expression node may have
EXPR_DTYPES = SUPPORTED_DTYPES + tuple(COMPLEX_DTYPES)


class Unsupported(Exception):
    """No code path for this op/dtype combination: the node runs its ``perform``."""


def check_dtypes(*dtypes: str) -> None:
    """Refuse dtypes outside :data:`SUPPORTED_DTYPES` (what every backend computes)."""
    for d in dtypes:
        if d not in SUPPORTED_DTYPES:
            raise Unsupported(f"dtype {d} has no compiled code path")


def check_expr_dtypes(*dtypes: str) -> None:
    """Refuse dtypes no expression node may have (float16, strings, ...)."""
    for d in dtypes:
        if d not in EXPR_DTYPES:
            raise Unsupported(f"dtype {d} has no compiled code path")


def is_float(d: str) -> bool:
    return d in ("float32", "float64")


def is_complex(d: str | None) -> bool:
    return d in COMPLEX_DTYPES


def component(d: str) -> str:
    """The float dtype of a complex dtype's parts (a real dtype is its own)."""
    return COMPLEX_DTYPES.get(d, d)


def complex_of(d: str) -> str:
    """The complex dtype whose parts have float dtype ``d``."""
    return "complex64" if d == "float32" else "complex128"


def _no_complex(op: str, *dtypes: str | None) -> None:
    if any(is_complex(d) for d in dtypes):
        raise Unsupported(f"{op} of complex numbers (NumPy does not define it, or no kernel "
                          f"computes it)")


def is_signed(d: str) -> bool:
    return d.startswith("int")


def is_unsigned(d: str) -> bool:
    return d.startswith("uint")


def is_int(d: str) -> bool:
    return is_signed(d) or is_unsigned(d)


class Expr:
    """One node: ``op`` (what it computes), ``args`` (operand nodes), ``dtype`` (None for a weak
    literal) and ``attr`` (the literal's value, the input's text, the cast's target dtype, the
    math function's name or the helper function called)."""

    __slots__ = ("op", "args", "dtype", "attr")

    def __init__(self, op: str, args: tuple, dtype: str | None, attr: Any = None) -> None:
        self.op = op
        self.args = args
        self.dtype = dtype
        self.attr = attr

    def __repr__(self) -> str:
        inner = ", ".join(map(repr, self.args)) if self.args else repr(self.attr)
        return f"{self.op}[{self.dtype}]({inner})"

    __hash__ = object.__hash__

    def __bool__(self) -> bool:
        raise TypeError("a scalar expression has no truth value: use where(cond, a, b)")

    # arithmetic
    def __add__(self, o: Any) -> Expr: return add(self, o)
    def __radd__(self, o: Any) -> Expr: return add(o, self)
    def __sub__(self, o: Any) -> Expr: return _arith("sub", self, o)
    def __rsub__(self, o: Any) -> Expr: return _arith("sub", o, self)
    def __mul__(self, o: Any) -> Expr: return mul(self, o)
    def __rmul__(self, o: Any) -> Expr: return mul(o, self)
    def __truediv__(self, o: Any) -> Expr: return _arith("truediv", self, o)
    def __rtruediv__(self, o: Any) -> Expr: return _arith("truediv", o, self)
    def __floordiv__(self, o: Any) -> Expr: return _arith("floordiv", self, o)
    def __rfloordiv__(self, o: Any) -> Expr: return _arith("floordiv", o, self)
    def __mod__(self, o: Any) -> Expr: return _arith("mod", self, o)
    def __rmod__(self, o: Any) -> Expr: return _arith("mod", o, self)
    def __pow__(self, o: Any) -> Expr: return _arith("pow", self, o)
    def __rpow__(self, o: Any) -> Expr: return _arith("pow", o, self)
    def __neg__(self) -> Expr: return _unary("neg", self)
    def __abs__(self) -> Expr: return _unary("abs", self)
    def __invert__(self) -> Expr: return _unary("invert", self)
    # bitwise / logical
    def __and__(self, o: Any) -> Expr: return bitwise("and", self, o)
    def __rand__(self, o: Any) -> Expr: return bitwise("and", o, self)
    def __or__(self, o: Any) -> Expr: return bitwise("or", self, o)
    def __ror__(self, o: Any) -> Expr: return bitwise("or", o, self)
    def __xor__(self, o: Any) -> Expr: return bitwise("xor", self, o)
    def __rxor__(self, o: Any) -> Expr: return bitwise("xor", o, self)
    # comparisons (computed in the operands' common dtype; the result is bool)
    def __eq__(self, o: Any) -> Expr: return compare("eq", self, o)  # type: ignore[override]
    def __ne__(self, o: Any) -> Expr: return compare("ne", self, o)  # type: ignore[override]
    def __lt__(self, o: Any) -> Expr: return compare("lt", self, o)
    def __le__(self, o: Any) -> Expr: return compare("le", self, o)
    def __gt__(self, o: Any) -> Expr: return compare("gt", self, o)
    def __ge__(self, o: Any) -> Expr: return compare("ge", self, o)


def arg(text: str | int, dtype: str) -> Expr:
    """An input: ``text`` is what the backend already has for it (a variable name), or the
    index of the argument it stands for (see :func:`.render.render_expr`)."""
    check_expr_dtypes(dtype)
    return Expr("arg", (), dtype, text)


def const(value: Any, dtype: str | None = None) -> Expr:
    """A literal; without ``dtype`` it takes the dtype of the operand it is combined with."""
    if isinstance(value, Expr):
        return value if dtype is None else cast(value, dtype)
    if not isinstance(value, (bool, int, float, complex, np.number, np.bool_)):
        raise TypeError(f"a scalar expression operand must be a number or an Expr, "
                        f"not {type(value).__name__}")
    return Expr("const", (), dtype, value.item() if isinstance(value, np.generic) else value)


def _lift(v: Any) -> Expr:
    return v if isinstance(v, Expr) else const(v)


def _typed(e: Expr, dtype: str) -> Expr:
    """``e`` as ``dtype``: a weak literal takes it, anything else is converted."""
    if e.op == "const" and e.dtype is None:
        return Expr("const", (), dtype, e.attr)
    return cast(e, dtype)


def _unify(*values: Any) -> tuple[list[Expr], str]:
    """The operands in their common dtype (weak literals adopt it) and that dtype."""
    xs = [_lift(v) for v in values]
    typed = [x.dtype for x in xs if x.dtype is not None]
    if not typed:
        typed = ["complex128" if any(isinstance(x.attr, complex) for x in xs) else
                 "float64" if any(isinstance(x.attr, float) for x in xs) else "int64"]
    common = typed[0] if all(t == typed[0] for t in typed) else np.result_type(*typed).name
    check_expr_dtypes(common)
    return [_typed(x, common) for x in xs], common


def cast(x: Any, dtype: str) -> Expr:
    """``x`` converted to ``dtype`` like NumPy's ``astype`` (floats truncate toward zero,
    ``bool`` tests ``!= 0``, a complex number converted to a real dtype keeps its real part)."""
    x = _lift(x)
    check_expr_dtypes(dtype)
    if x.dtype is None:
        return Expr("const", (), dtype, x.attr)
    if x.dtype == dtype:
        return x
    return Expr("cast", (x,), dtype, dtype)


def _no_bool(op: str, dtype: str) -> None:
    if dtype == "bool":
        raise Unsupported(f"{op} of booleans (NumPy refuses it or computes it as int8)")


def _nary(op: str, values: tuple) -> Expr:
    xs, dtype = _unify(*values)
    _no_bool(op, dtype)
    return Expr(op, tuple(xs), dtype)


def add(*values: Any) -> Expr:
    """``x0 + x1 + ...`` (wrapping for integers)."""
    return _nary("add", values)


def mul(*values: Any) -> Expr:
    """``x0 * x1 * ...`` (wrapping for integers)."""
    return _nary("mul", values)


def _arith(op: str, x: Any, y: Any) -> Expr:
    """sub, truediv (floats only), floordiv/mod (Python's signs; integer division by zero
    gives 0), pow (an integer to a negative integer power is an error)."""
    (a, b), dtype = _unify(x, y)
    _no_bool(op, dtype)
    if op == "truediv" and not (is_float(dtype) or is_complex(dtype)):
        raise Unsupported(f"true division in {dtype}: cast the operands to a float first")
    if op in ("floordiv", "mod"):
        _no_complex(op, dtype)
    return Expr(op, (a, b), dtype)


def _unary(op: str, x: Any) -> Expr:
    x = _lift(x)
    if x.dtype is None:
        raise TypeError(f"{op} of a bare literal: give it a dtype with const(value, dtype)")
    if op == "neg":
        _no_bool(op, x.dtype)
    if op == "invert" and (is_float(x.dtype) or is_complex(x.dtype)):
        raise Unsupported("bitwise invert of a float")
    # abs of a complex number is its modulus, a float
    return Expr(op, (x,), component(x.dtype) if op == "abs" else x.dtype)


def bitwise(op: str, *values: Any) -> Expr:
    """``and``/``or``/``xor`` of booleans or integers (logical for booleans)."""
    xs, dtype = _unify(*values)
    if is_float(dtype) or is_complex(dtype):
        raise Unsupported(f"bitwise {op} of floats")
    return Expr(op, tuple(xs), dtype)


def compare(op: str, x: Any, y: Any) -> Expr:
    """``eq``/``ne``/``lt``/``le``/``gt``/``ge`` in the operands' common dtype (NaN compares
    False, ``ne`` True; complex numbers are only ``eq``/``ne``: equal when both parts are)."""
    (a, b), dtype = _unify(x, y)
    if op not in ("eq", "ne"):
        _no_complex(f"ordering ({op})", dtype)
    return Expr(op, (a, b), "bool")


def where(cond: Any, a: Any, b: Any) -> Expr:
    """``a`` where ``cond`` else ``b`` (a non-bool condition is tested ``!= 0``)."""
    c = _lift(cond)
    if c.dtype != "bool":
        c = compare("ne", c, 0)
    (x, y), dtype = _unify(a, b)
    return Expr("where", (c, x, y), dtype)


def _extremum(op: str, x: Any, y: Any) -> Expr:
    (a, b), dtype = _unify(x, y)
    _no_complex(op, dtype)  # NumPy orders complex numbers lexicographically: not computed
    if is_float(dtype):  # NaN-propagating: a wins when it is NaN or beats b, else b
        beats = compare("ge" if op == "max" else "le", a, b)
        return where(bitwise("or", beats, compare("ne", a, a)), a, b)
    if dtype == "bool":
        return bitwise("or" if op == "max" else "and", a, b)
    return Expr(op, (a, b), dtype)


def maximum(x: Any, y: Any) -> Expr:
    """The larger operand; NaN if either is NaN (``or`` for booleans)."""
    return _extremum("max", x, y)


def minimum(x: Any, y: Any) -> Expr:
    """The smaller operand; NaN if either is NaN (``and`` for booleans)."""
    return _extremum("min", x, y)


#: float functions every backend provides: name (C99's) -> number of arguments
MATH_FUNCTIONS = {
    "exp": 1, "exp2": 1, "expm1": 1, "log": 1, "log2": 1, "log10": 1, "log1p": 1, "sqrt": 1,
    "sin": 1, "cos": 1, "tan": 1, "asin": 1, "acos": 1, "atan": 1, "sinh": 1, "cosh": 1,
    "tanh": 1, "asinh": 1, "acosh": 1, "atanh": 1, "erf": 1, "erfc": 1, "floor": 1, "ceil": 1,
    "trunc": 1, "rint": 1, "fabs": 1, "atan2": 2, "pow": 2, "lgamma": 1, "tgamma": 1,
    "copysign": 2, "hypot": 2,
}
#: float tests (bool result; False for integers and booleans)
FLOAT_TESTS = ("isnan", "isinf", "isfinite")
#: the functions of :data:`MATH_FUNCTIONS` also defined for complex operands (C99's ``cexp``,
#: ``clog``, ...; ``pow`` is ``**``), computed in their complex dtype
COMPLEX_FUNCTIONS = ("exp", "log", "sqrt", "sin", "cos", "tanh")


def math(name: str, *values: Any) -> Expr:
    """The C99 float function ``name`` of float operands (computed in their dtype); the
    functions of :data:`COMPLEX_FUNCTIONS` also of complex operands."""
    if name in FLOAT_TESTS:
        (x,) = values
        x = _lift(x)
        if is_complex(x.dtype):  # NumPy's tests of complex numbers look at both parts
            parts = [math(name, real(x)), math(name, imag(x))]
            return bitwise("and" if name == "isfinite" else "or", *parts)
        if x.dtype is None or not is_float(x.dtype):
            return const(name == "isfinite", "bool")
        return Expr("test", (x,), "bool", name)
    if MATH_FUNCTIONS.get(name) != len(values):
        raise TypeError(f"math function {name!r} takes {MATH_FUNCTIONS.get(name)} arguments")
    xs, dtype = _unify(*values)
    if is_complex(dtype) and name in COMPLEX_FUNCTIONS:
        return Expr("cfn", tuple(xs), dtype, name)
    if not is_float(dtype):
        raise Unsupported(f"{name} of {dtype}: cast the operand to a float first")
    return Expr("fn", tuple(xs), dtype, name)


def real(x: Any) -> Expr:
    """The real part of a complex operand (a real operand itself)."""
    x = _lift(x)
    return Expr("real", (x,), component(x.dtype)) if is_complex(x.dtype) else x


def imag(x: Any) -> Expr:
    """The imaginary part of a complex operand (0 of a real one's dtype)."""
    x = _lift(x)
    return Expr("imag", (x,), component(x.dtype)) if is_complex(x.dtype) else \
        const(0, x.dtype)


def conj(x: Any) -> Expr:
    """The complex conjugate (a real operand itself)."""
    x = _lift(x)
    return Expr("conj", (x,), x.dtype) if is_complex(x.dtype) else x


def make_complex(re: Any, im: Any) -> Expr:
    """``re + i im`` from real operands, part by part (no arithmetic: ``make_complex(x, inf)``
    has real part ``x``), in the complex dtype of their common float dtype."""
    (a, b), dtype = _unify(re, im)
    if not is_float(dtype):
        raise Unsupported(f"complex parts of dtype {dtype}: cast them to a float first")
    return Expr("complex", (a, b), complex_of(dtype))


def _math_builder(name: str) -> Callable[..., Expr]:
    def build(*values: Any) -> Expr:
        return math(name, *values)

    build.__name__ = build.__qualname__ = name
    build.__doc__ = f"C99's ``{name}`` of float operands, in their dtype."
    return build


def call(function: Callable, *values: Any) -> Expr:
    """A helper function of restricted Python (:mod:`.helpers`) applied to float operands:
    computed in float64, the result converted back to the operands' float dtype."""
    from jitgraph.scalar_expr.helpers import helper

    fn = helper(function)
    if len(values) != fn.nargs:
        raise TypeError(f"{fn.name} takes {fn.nargs} arguments, got {len(values)}")
    xs, dtype = _unify(*values)
    if not is_float(dtype):
        raise Unsupported(f"{fn.name} of {dtype}: cast the operand to a float first")
    wide = [cast(x, "float64") for x in xs]
    return cast(Expr("call", tuple(wide), "float64", fn), dtype)


exp, exp2, expm1, log, log2, log10, log1p, sqrt = (
    _math_builder(n) for n in ("exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt"))
sin, cos, tan, asin, acos, atan, atan2 = (
    _math_builder(n) for n in ("sin", "cos", "tan", "asin", "acos", "atan", "atan2"))
sinh, cosh, tanh, asinh, acosh, atanh = (
    _math_builder(n) for n in ("sinh", "cosh", "tanh", "asinh", "acosh", "atanh"))
erf, erfc, lgamma, tgamma, pow_, copysign, hypot = (
    _math_builder(n) for n in ("erf", "erfc", "lgamma", "tgamma", "pow", "copysign", "hypot"))
floor, ceil, trunc, rint, fabs = (_math_builder(n) for n in ("floor", "ceil", "trunc", "rint",
                                                             "fabs"))
isnan, isinf, isfinite = (_math_builder(n) for n in FLOAT_TESTS)


def uses(root: Expr) -> dict[int, int]:
    """How many parents each node of the DAG (by ``id``) has; the root counts one."""
    counts: dict[int, int] = {id(root): 1}
    stack = [root]
    seen = {id(root)}
    while stack:
        node = stack.pop()
        for a in node.args:
            counts[id(a)] = counts.get(id(a), 0) + 1
            if id(a) not in seen:
                seen.add(id(a))
                stack.append(a)
    return counts
