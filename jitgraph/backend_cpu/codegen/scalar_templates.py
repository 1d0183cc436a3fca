"""How the CPU kernels write scalar expressions (:mod:`jitgraph.scalar_expr`): Python that Numba
and the direct compiler (:mod:`.direct`) compile.

Every scalar op's computation is one row of the scalar-op table; this module only says how each
node kind of :mod:`jitgraph.scalar_expr.expr` is written in Python, with NumPy's semantics:
integer ``//`` and ``%`` by zero give 0 (and ``MIN // -1`` wraps instead of trapping), integers
to negative integer powers raise ``ValueError`` (``ipow``), ``maximum``/``minimum`` propagate
NaN, comparisons with NaN are False (``!=`` True), float->int casts truncate, casts to bool test
``!= 0``. Arithmetic on small integers is done in 64 bits and wrapped back (``np.int8(a + b)``),
which equals NumPy's wrapping arithmetic. Float64 results of float64 operands are not wrapped
(fewer calls to type make kernels compile faster).

A float operation on a small integer input (``exp(int8)``) is computed in the op's declared output
dtype (float32), as Theano did. (NumPy would compute it in float16 and the ``perform`` reference
then casts to float32, so the two differ at float16 precision for those dtypes.)

In *fast* bodies (``Body(fast=True)``, the innermost loops of elementwise kernels) a
transcendental primitive (exp, expm1, log, log1p, sin, cos, tanh) is not called inline: its
argument is stored in a block buffer, the statement list gets a stage break (a
:class:`StageCall`) at which the kernel calls the vectorized block function of :mod:`.vecmath`,
and the result is read back from another buffer (see ``elemwise_codegen``). Helper functions of
restricted Python (:mod:`jitgraph.scalar_expr.helpers`) are defined in the kernel's module and
called by name. ``float16`` has no code path (Numba has no float16 arithmetic): such nodes
run their ``perform``.

Complex values (in elementwise kernels, the bodies with ``allow_helpers``) are Numba's
``complex64``/``complex128``: ``+ - *``, negation, ``==``/``!=``, ``.real``/``.imag`` and
conjugation are Numba's (the formulas NumPy uses); division, ``**`` and the complex functions
(``exp``, ``log``, ``sqrt``, ``sin``, ``cos``, ``tanh``) call :mod:`.complex_scalar`, which
gives NumPy's special values (Numba's complex division raises on a zero divisor, its
``cmath.log`` is inexact near the unit circle). Those compute in complex128; complex64 values
are converted there and back. The vecmath stages are float64-only and never see a complex
value. Other code generators' bodies refuse complex dtypes (``Unsupported``).
"""

from __future__ import annotations

from typing import Any

from jitgraph.scalar_expr.expr import (COMPLEX_DTYPES, SUPPORTED_DTYPES, Expr, Unsupported,
                                       check_dtypes, component, is_complex, is_float,
                                       is_signed, is_unsigned)
from jitgraph.codegen.render import OPERATORS, Dialect, ScalarBody, template_of
from jitgraph.backend_cpu.runtime.blocks import PRIMITIVES

__all__ = ["Body", "StageCall", "Unsupported", "SUPPORTED_DTYPES", "check_dtypes", "cv",
           "get_template", "helper_source", "lit", "wrap"]


def cv(expr: str, src: str, dst: str) -> str:
    """``expr`` (of dtype ``src``) converted to ``dst`` like NumPy's ``astype`` (a complex
    value converted to a real dtype keeps its real part)."""
    if src == dst:
        return expr
    if dst == "bool":
        return f"({expr} != 0)"
    if is_complex(dst):
        if is_complex(src) or is_float(src):
            return f"np.{dst}({expr})"
        return f"np.{dst}({cv(expr, src, component(dst))})"  # integers: rounded once
    if is_complex(src):
        return cv(f"({expr}).real", component(src), dst)
    if is_float(src) and (is_signed(dst) or is_unsigned(dst)) and dst != "uint64":
        return f"np.{dst}(np.int64({expr}))"
    return f"np.{dst}({expr})"


def wrap(expr: str, out: str) -> str:
    """``expr`` (computed in a wider type) brought back to ``out``. Float64 results of float64
    operands stay float64 in Numba: no conversion call."""
    return f"({expr})" if out in ("bool", "float64") else f"np.{out}({expr})"


def wrap_arith(expr: str, out: str) -> str:
    """:func:`wrap` for ``+ - * /`` and negation, which Numba already computes in float32
    for float32 operands: only integers are brought back."""
    return f"({expr})" if out in ("float32", "complex64", "complex128") else wrap(expr, out)


def lit(value: Any, dtype: str) -> str:
    """A literal of ``dtype`` (inf and NaN through ``math``)."""
    if is_complex(dtype):
        value = complex(value)
        text = f"complex({lit(value.real, 'float64')}, {lit(value.imag, 'float64')})"
        return text if dtype == "complex128" else f"np.complex64({text})"
    if dtype == "bool":
        return "True" if value else "False"
    if is_float(dtype):
        value = float(value)
        text = repr(value) if value == value and abs(value) != float("inf") else \
            ("math.nan" if value != value else "math.inf" if value > 0 else "-math.inf")
        text = f"({text})" if text.startswith("-") else text
        return text if dtype == "float64" else f"np.{dtype}({text})"
    # Python ints unify with every integer type but uint64 (which they would make float64)
    text = str(int(value)) if int(value) >= 0 else f"({int(value)})"
    return f"np.uint64({text})" if dtype == "uint64" else text


def wide(d: str) -> str:
    """The 64-bit type small integers are computed in."""
    return "uint64" if is_unsigned(d) else "int64" if is_signed(d) or d == "bool" else d


class StageCall:
    """A stage break: block function ``fn`` from the argument to the result buffer."""

    def __init__(self, fn: str, index: int) -> None:
        self.fn = fn
        self.arg = f"pa{index}"
        self.res = f"pr{index}"


class Body(ScalarBody):
    """Statements of one loop body, with the dtype of every temporary.

    With ``fast`` (and ``vecmath``), transcendental primitives become stage calls (see the module
    docstring); otherwise they are libm calls. ``helpers`` are the helper functions the body
    calls; a code generator that does not define them in its module leaves ``allow_helpers``
    off, and bodies calling one are refused (``Unsupported``).
    """

    def __init__(self, fast: bool, vecmath: bool = True, prefix: str = "t",
                 allow_helpers: bool = False) -> None:
        super().__init__(prefix)
        self.dialect = PYTHON
        self.fast = fast and vecmath
        self.calls: list[StageCall] = []
        self.helpers: dict[str, Any] = {}  # symbol -> HelperFunction (with its callees)
        self.allow_helpers = allow_helpers
        # complex values need helper functions (complex_scalar): kernels defining them only
        self.computes = SUPPORTED_DTYPES + tuple(COMPLEX_DTYPES) if allow_helpers \
            else SUPPORTED_DTYPES

    def complex_call(self, name: str, args: list[str], dtype: str) -> str:
        """``name(*args)`` of :mod:`.complex_scalar` (complex128) for values of complex
        ``dtype``."""
        if not self.allow_helpers:
            raise Unsupported(f"complex {name} outside an elementwise kernel")
        self.helpers.setdefault(name, ImportedHelper(name))
        if dtype == "complex128":
            return f"{name}({', '.join(args)})"
        return f"np.complex64({name}({', '.join(f'np.complex128({a})' for a in args)}))"

    def statement(self, name: str, expr: str, dtype: str) -> str:
        return f"{name} = {expr}"

    def prim(self, name: str, arg: str, dtype: str) -> str:
        """``name(arg)`` for a float ``dtype``: a stage call in fast bodies, else libm."""
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


class ImportedHelper:
    """A function of :mod:`.complex_scalar` a body calls (imported by the kernel module)."""

    module = "jitgraph.backend_cpu.runtime.complex_scalar"
    #: written into the kernel source: bump it when complex_scalar's functions change, so that
    #: kernels compiled with the old ones (stored in a compiledir) are rebuilt
    version = 1

    def __init__(self, symbol: str) -> None:
        self.symbol = symbol


def helper_source(helpers: dict[str, Any]) -> str:
    """The definitions of ``helpers`` (symbol -> HelperFunction, callees first) for a kernel
    module: Numba compiles each as a function of its own; the direct compiler inlines them.
    :class:`ImportedHelper` entries are imported instead."""
    if not helpers:
        return ""
    imported = sorted(h.symbol for h in helpers.values() if isinstance(h, ImportedHelper))
    lines = [f"from {ImportedHelper.module} import {', '.join(imported)}  "
             f"# v{ImportedHelper.version}"] if imported else []
    defined = [fn for fn in helpers.values() if not isinstance(fn, ImportedHelper)]
    if defined:
        lines += ["import numba as _numba", ""]
    for fn in defined:
        lines += ["", '@_numba.njit(nogil=True, error_model="numpy", cache=False)',
                  fn.python_source(), ""]
    return "\n".join(lines)


#: Python spelling of the C99 functions of :data:`~jitgraph.scalar_expr.expr.MATH_FUNCTIONS`
#: that are not ``math.<name>`` (NumPy's keep the float32 type; ``math.floor`` is an int)
_PY_FUNCTIONS = {"exp2": "np.exp2", "floor": "np.floor", "ceil": "np.ceil", "trunc": "np.trunc",
                 "rint": "np.rint", "fabs": "abs", "tgamma": "math.gamma", "pow": "math.pow"}
_UNWRAPPED = frozenset({"floor", "ceil", "trunc", "rint", "fabs"})
#: signed integer // and %: 0 for a zero divisor, MIN // -1 wraps (no trap), x % -1 is 0
_INT_DIVISION = {"floordiv": ("//", "0 if {y} == 0 else (-{x} if {y} == -1 else {x} // {y})"),
                 "mod": ("%", "0 if ({y} == 0) | ({y} == -1) else {x} % {y}")}


def _modulus(b: Body, z: str, out: str) -> str:
    """|z| as NumPy's (C's ``hypot``: inf if a part is infinite, even with a NaN), without a
    libm call so that the loop vectorizes (``hypot`` is 15x slower than NumPy's SIMD loop).
    complex64: the exact sum of squares in double precision; complex128: the larger part
    times sqrt(1 + ratio^2), which neither overflows nor underflows (within 2 ulp)."""
    x = b.tmp(f"abs(np.float64({z}.real))", "float64")
    y = b.tmp(f"abs(np.float64({z}.imag))", "float64")
    inf = f"(math.isinf({x}) | math.isinf({y}))"
    if out == "float32":
        return f"(np.float32(math.inf) if {inf} else np.float32(math.sqrt({x} * {x} + {y} * {y})))"
    big = b.tmp(f"({x} if {x} > {y} else {y})", "float64")  # NaN in either: NaN below
    small = b.tmp(f"({y} if {x} > {y} else {x})", "float64")
    ratio = b.tmp(f"{small} / {big}", "float64")
    return (f"(math.inf if {inf} else ({x} + {y} if {big} == 0.0 else "
            f"{big} * math.sqrt(1.0 + {ratio} * {ratio})))")


class PythonDialect(Dialect):
    """Scalar expression nodes as Python for Numba / the direct compiler."""

    name = "numba"
    literal = staticmethod(lit)
    convert = staticmethod(cv)

    def _joined(self, b: Body, n: Expr, a: list[str]) -> str:
        return wrap_arith(f" {OPERATORS[n.op]} ".join(a), n.dtype)

    add = sub = mul = bitwise = _joined

    def truediv(self, b: Body, n: Expr, a: list[str]) -> str:
        if is_complex(n.dtype):
            return b.complex_call("jgc_div", a, n.dtype)
        return wrap_arith(f"{a[0]} / {a[1]}", n.dtype)

    def _int_operands(self, b: Body, n: Expr, a: list[str]) -> tuple[str, str, str]:
        w = wide(n.dtype)
        return b.tmp(cv(a[0], n.dtype, w), w), b.tmp(cv(a[1], n.dtype, w), w), w

    def _division(self, b: Body, n: Expr, a: list[str]) -> str:
        op, signed = _INT_DIVISION[n.op]
        if is_float(n.dtype):
            return wrap(f"{a[0]} {op} {a[1]}", n.dtype)
        x, y, w = self._int_operands(b, n, a)
        if w == "uint64":  # a plain 0 would unify with uint64 as float64
            return wrap(f"np.uint64(0) if {y} == 0 else {x} {op} {y}", n.dtype)
        return wrap(signed.format(x=x, y=y), n.dtype)

    floordiv = mod = _division

    def pow(self, b: Body, n: Expr, a: list[str]) -> str:
        if is_complex(n.dtype):
            return b.complex_call("jgc_pow", a, n.dtype)
        if is_float(n.dtype):
            return wrap(f"{a[0]} ** {a[1]}", n.dtype)
        x, y, _ = self._int_operands(b, n, a)
        return wrap(f"ipow({x}, {y})", n.dtype)

    def neg(self, b: Body, n: Expr, a: list[str]) -> str:
        return wrap_arith(f"-{a[0]}", n.dtype)

    def abs(self, b: Body, n: Expr, a: list[str]) -> str:
        src = n.args[0].dtype
        if is_complex(src):
            return _modulus(b, b.tmp(a[0], src), n.dtype)
        if n.dtype == "bool" or is_unsigned(n.dtype):
            return a[0]
        if is_float(n.dtype):
            return f"abs({a[0]})"
        return wrap(f"abs(np.int64({a[0]}))", n.dtype)

    def invert(self, b: Body, n: Expr, a: list[str]) -> str:
        return f"(not {a[0]})" if n.dtype == "bool" else wrap(f"~{a[0]}", n.dtype)

    def where(self, b: Body, n: Expr, a: list[str]) -> str:
        return f"({a[1]} if {a[0]} else {a[2]})"

    def extremum(self, b: Body, n: Expr, a: list[str]) -> str:
        return f"{n.op}({a[0]}, {a[1]})"  # the builtins max and min

    def fn(self, b: Body, n: Expr, a: list[str]) -> str:
        if n.attr in PRIMITIVES:
            return b.prim(n.attr, a[0], n.dtype)
        call = f"{_PY_FUNCTIONS.get(n.attr, f'math.{n.attr}')}({', '.join(a)})"
        return call if n.attr in _UNWRAPPED else wrap(call, n.dtype)

    def test(self, b: Body, n: Expr, a: list[str]) -> str:
        return f"math.{n.attr}({a[0]})"

    def cfn(self, b: Body, n: Expr, a: list[str]) -> str:
        return b.complex_call(f"jgc_{n.attr}", a, n.dtype)  # complex_scalar's cexp, clog, ...

    def real(self, b: Body, n: Expr, a: list[str]) -> str:
        return f"({a[0]}).real"

    def imag(self, b: Body, n: Expr, a: list[str]) -> str:
        return f"({a[0]}).imag"

    def conj(self, b: Body, n: Expr, a: list[str]) -> str:
        return f"({a[0]}).conjugate()"

    def complex(self, b: Body, n: Expr, a: list[str]) -> str:
        text = f"complex({a[0]}, {a[1]})"
        return text if n.dtype == "complex128" else f"np.complex64({text})"

    def call(self, b: Body, n: Expr, a: list[str]) -> str:
        if not b.allow_helpers:
            raise Unsupported(f"helper function {n.attr.name} outside an elementwise kernel")
        for fn in n.attr.closure():
            b.helpers.setdefault(fn.symbol, fn)
        return f"{n.attr.symbol}({', '.join(a)})"


PYTHON = PythonDialect()


def get_template(name: str) -> Any:
    """The renderer of table op ``name``: ``(body, args, arg_dtypes, out_dtype) -> text``."""
    return template_of(name)
