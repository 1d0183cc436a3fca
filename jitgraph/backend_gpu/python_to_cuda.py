"""Scalar helper functions of restricted Python (:mod:`jitgraph.scalar_expr.helpers`) translated
to CUDA ``__device__`` functions.

Floats are ``double``, ints ``long long``, bools ``bool`` (the kinds the helper's type inference
gives); every local is declared at the top of the function. Python's semantics are kept where C
differs: ``/`` is float division, ``//`` and ``%`` floor (the ``jg_*floordiv``/``jg_*mod``
helpers of :mod:`.helpers_cuda`, 0 for an integer division by zero where Python raises), ``**``
is ``pow``, a chained comparison evaluates as ``a < b and b < c``. A float ``range`` bound is
converted to ``long long``. Helpers with loops or calls are ``__noinline__`` (see
:func:`_signature`).
"""

from __future__ import annotations

import ast
import math

from jitgraph.backend_gpu import helpers_cuda as H
from jitgraph.scalar_expr.helpers import MATH_CALLS, HelperFunction, constant_step

_C_TYPES = {"bool": "bool", "int": "long long", "float": "double"}
_BINARY = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*"}
_COMPARE = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">",
            ast.GtE: ">="}
_CONSTANTS = {"inf": "__longlong_as_double(0x7ff0000000000000LL)",
              "nan": "__longlong_as_double(0x7ff8000000000000LL)",
              "pi": repr(math.pi), "e": repr(math.e)}

#: symbol -> helper, for every helper a kernel body has called (see :func:`device_symbol`)
REGISTERED: dict[str, HelperFunction] = {}


def device_symbol(fn: HelperFunction) -> str:
    """The name of ``fn``'s device function (remembered, so :func:`helpers_cuda.helper_sources`
    can define it with its callees)."""
    for h in fn.closure():
        REGISTERED.setdefault(h.symbol, h)
    return fn.symbol


def _float_literal(value: float) -> str:
    if value != value:
        return _CONSTANTS["nan"]
    if value in (math.inf, -math.inf):
        return _CONSTANTS["inf"] if value > 0 else f"(-{_CONSTANTS['inf']})"
    text = repr(float(value))
    return text if ("." in text or "e" in text) else text + ".0"


class _Translator:
    """One helper's body as C statements; ``uses`` collects the :mod:`.helpers_cuda` functions
    it calls."""

    def __init__(self, fn: HelperFunction) -> None:
        self.fn = fn
        self.kinds = fn.local_kinds
        self.uses: set[str] = set()
        self.lines: list[str] = []

    def kind(self, node: ast.expr) -> str:
        return self.fn.kind(node) or "float"

    # -- expressions --------------------------------------------------------------------------

    def expr(self, node: ast.expr) -> str:
        method = getattr(self, f"e_{type(node).__name__}", None)
        if method is None:
            raise self.fn.fail(node, type(node).__name__)
        return method(node)

    def as_double(self, node: ast.expr) -> str:
        text = self.expr(node)
        return text if self.kind(node) == "float" else f"((double)({text}))"

    def e_Constant(self, node: ast.Constant) -> str:
        if isinstance(node.value, bool):
            return "true" if node.value else "false"
        if isinstance(node.value, int):
            return f"{node.value}LL"
        return _float_literal(node.value)

    def e_Name(self, node: ast.Name) -> str:
        value = self.fn.constant(node.id)
        if value is None:
            return node.id
        return f"{value}LL" if isinstance(value, int) else f"({_float_literal(value)})"

    def e_Attribute(self, node: ast.Attribute) -> str:
        return _CONSTANTS[node.attr]

    def e_BinOp(self, node: ast.BinOp) -> str:
        op = type(node.op)
        kind = self.kind(node)
        if op in _BINARY:
            return f"({self.expr(node.left)} {_BINARY[op]} {self.expr(node.right)})"
        if op is ast.Div:
            return f"({self.as_double(node.left)} / {self.as_double(node.right)})"
        if op is ast.Pow:
            return f"pow({self.as_double(node.left)}, {self.as_double(node.right)})"
        if op in (ast.FloorDiv, ast.Mod):
            floats = kind == "float"
            name = {(ast.FloorDiv, True): H.FFLOORDIV, (ast.FloorDiv, False): H.SFLOORDIV,
                    (ast.Mod, True): H.FMOD, (ast.Mod, False): H.SMOD}[(op, floats)]
            self.uses.add(name)
            a, b = ((self.as_double(node.left), self.as_double(node.right)) if floats else
                    (f"((long long)({self.expr(node.left)}))",
                     f"((long long)({self.expr(node.right)}))"))
            return f"{name}({a}, {b})"
        raise self.fn.fail(node, f"the operator {op.__name__}")

    def e_UnaryOp(self, node: ast.UnaryOp) -> str:
        operand = self.expr(node.operand)
        if isinstance(node.op, ast.Not):
            return f"(!{operand})"
        return f"({'-' if isinstance(node.op, ast.USub) else '+'}{operand})"

    def e_BoolOp(self, node: ast.BoolOp) -> str:
        op = " && " if isinstance(node.op, ast.And) else " || "
        return "(" + op.join(f"({self.expr(v)})" for v in node.values) + ")"

    def e_Compare(self, node: ast.Compare) -> str:
        parts = []
        left = node.left
        for op, right in zip(node.ops, node.comparators):
            parts.append(f"({self.expr(left)} {_COMPARE[type(op)]} {self.expr(right)})")
            left = right
        return parts[0] if len(parts) == 1 else "(" + " && ".join(parts) + ")"

    def e_IfExp(self, node: ast.IfExp) -> str:
        return (f"(({self.expr(node.test)}) ? ({self.expr(node.body)}) : "
                f"({self.expr(node.orelse)}))")

    def e_Call(self, node: ast.Call) -> str:
        f = node.func
        if isinstance(f, ast.Attribute):
            args = ", ".join(self.as_double(a) for a in node.args)
            name = MATH_CALLS[f.attr]
            return f"((bool){name}({args}))" if name.startswith("is") else f"{name}({args})"
        callee = self.fn._callee(f.id)
        return f"{callee.symbol}({', '.join(self.as_double(a) for a in node.args)})"

    # -- statements ---------------------------------------------------------------------------

    def block(self, body: list[ast.stmt], depth: int) -> None:
        for stmt in body:
            method = getattr(self, f"s_{type(stmt).__name__}", None)
            if method is None:
                raise self.fn.fail(stmt, type(stmt).__name__)
            method(stmt, depth)

    def emit(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)

    def s_Expr(self, node: ast.Expr, depth: int) -> None:
        pass  # the docstring (the only expression statement the checker lets through)

    def s_Pass(self, node: ast.Pass, depth: int) -> None:
        pass

    def s_Assign(self, node: ast.Assign, depth: int) -> None:
        self.emit(depth, f"{node.targets[0].id} = {self.expr(node.value)};")

    def s_AugAssign(self, node: ast.AugAssign, depth: int) -> None:
        name = node.target.id
        value = ast.BinOp(ast.Name(name, ast.Load()), node.op, node.value)
        self.emit(depth, f"{name} = {self.expr(value)};")

    def s_Return(self, node: ast.Return, depth: int) -> None:
        self.emit(depth, f"return {self.expr(node.value)};")

    def s_Break(self, node: ast.Break, depth: int) -> None:
        self.emit(depth, "break;")

    def s_Continue(self, node: ast.Continue, depth: int) -> None:
        self.emit(depth, "continue;")

    def s_If(self, node: ast.If, depth: int) -> None:
        self.emit(depth, f"if ({self.expr(node.test)}) {{")
        self.block(node.body, depth + 1)
        while len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):
            node = node.orelse[0]
            self.emit(depth, f"}} else if ({self.expr(node.test)}) {{")
            self.block(node.body, depth + 1)
        if node.orelse:
            self.emit(depth, "} else {")
            self.block(node.orelse, depth + 1)
        self.emit(depth, "}")

    def s_While(self, node: ast.While, depth: int) -> None:
        self.emit(depth, f"while ({self.expr(node.test)}) {{")
        self.block(node.body, depth + 1)
        self.emit(depth, "}")

    def s_For(self, node: ast.For, depth: int) -> None:
        args = node.iter.args
        bounds = [f"((long long)({self.expr(a)}))" if self.kind(a) != "int" else self.expr(a)
                  for a in args[:2]]
        start, stop = ("0LL", bounds[0]) if len(args) == 1 else bounds
        step = constant_step(args[2]) if len(args) == 3 else 1
        i = node.target.id
        # Python evaluates the range once: the bound is kept in a variable of its own.
        self.emit(depth, "{")
        self.emit(depth + 1, f"const long long jg_stop_{i} = {stop};")
        cmp = "<" if step > 0 else ">"
        self.emit(depth + 1, f"for ({i} = {start}; {i} {cmp} jg_stop_{i}; {i} += {step}LL) {{")
        self.block(node.body, depth + 2)
        self.emit(depth + 1, "}")
        self.emit(depth, "}")


def _signature(fn: HelperFunction) -> str:
    params = ", ".join(f"double {p}" for p in fn.params)
    # A helper with a loop or calls is compiled once and called: NVRTC inlining every call of
    # such helpers (special_math's Bessel functions call gammaln, ... at many sites) made one
    # module take over a minute to compile instead of seconds. Straight-line leaves inline.
    heavy = fn.callees or any(isinstance(n, (ast.While, ast.For)) for n in ast.walk(fn.node))
    inline = "__noinline__ " if heavy else ""
    return f"__device__ {inline}{_C_TYPES[fn.return_kind]} {fn.symbol}({params})"


def device_source(fn: HelperFunction) -> tuple[str, set[str]]:
    """The prototype and definition of ``fn``'s device function, and the :mod:`.helpers_cuda`
    functions it calls."""
    t = _Translator(fn)
    t.block(fn.node.body, 1)
    params = set(fn.params)
    decls = [f"    {_C_TYPES[k]} {name} = 0;" for name, k in sorted(fn.local_kinds.items())
             if name not in params]
    if not isinstance(fn.node.body[-1], ast.Return):  # Python checked it never gets here
        t.lines.append(f"    return ({_C_TYPES[fn.return_kind]})0;")
    body = "\n".join([f"{_signature(fn)} {{", *decls, *t.lines, "}", ""])
    return body, t.uses

