"""Scalar helper functions written in restricted Python, callable from scalar expressions.

A row's expression may call a plain Python function (``expr.call(special_math.erfinv, x)``).
The same source serves the NumPy reference (call it per element), the CPU kernels (its source,
renamed, is defined in the kernel's module: Numba compiles it, the direct compiler inlines it)
and the GPU kernels (translated to a ``__device__`` function, :mod:`jitgraph.backend_gpu.
python_to_cuda`). So a helper keeps to the part of Python all three read the same way:

* positional float parameters, float/int/bool locals, float/int literals;
* assignments to plain names (``=`` and ``+=``-style), ``if``/``elif``/``else``, ``while``,
  ``for i in range(<int expr>[, stop[, constant step]])``, ``break``, ``continue``,
  ``return <expr>``, a docstring;
* arithmetic ``+ - * / // % **``, comparisons (chained too), ``and``/``or``/``not``,
  ``a if c else b``;
* ``math.<fn>(...)`` for fn in :data:`MATH_CALLS`, ``math.inf``/``nan``/``pi``/``e``,
  module-level number constants (written into the rendered code as literals), and calls of
  other functions that keep to these rules, of the same module or imported from another of
  jitgraph's helper modules (each is rendered once, under its own module's symbol).

Anything else raises :class:`HelperError` naming the function, the line and the construct.
Values are typed as NumPy would: ``bool`` < ``int`` < ``float`` (a local assigned both an int
and a float is a float); ``math.floor``/``ceil`` give floats (``np.floor``) so that all three
backends agree; a helper returns a float (or a bool when every ``return`` is a comparison).
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from functools import cached_property
from typing import Any, Callable

#: the ``math`` functions a helper may call -> their C99 name
MATH_CALLS = {
    "exp": "exp", "log": "log", "log1p": "log1p", "expm1": "expm1", "sqrt": "sqrt",
    "sin": "sin", "cos": "cos", "tan": "tan", "floor": "floor", "ceil": "ceil",
    "fabs": "fabs", "erf": "erf", "erfc": "erfc", "lgamma": "lgamma", "gamma": "tgamma",
    "isnan": "isnan", "isinf": "isinf", "isfinite": "isfinite", "copysign": "copysign",
    "pow": "pow", "atan2": "atan2", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh",
}
MATH_CONSTANTS = ("inf", "nan", "pi", "e")
_BOOL_CALLS = frozenset({"isnan", "isinf", "isfinite"})
_ORDER = {"bool": 0, "int": 1, "float": 2}


class HelperError(TypeError):
    """A helper function uses Python outside the restricted subset (see the module doc)."""


def join(*kinds: str | None) -> str | None:
    """The wider of value kinds ``bool`` < ``int`` < ``float`` (None: not known yet)."""
    known = [k for k in kinds if k is not None]
    return max(known, key=_ORDER.__getitem__) if known else None


_ALLOWED_NODES = (
    ast.Module, ast.FunctionDef, ast.arguments, ast.arg, ast.Assign, ast.AugAssign, ast.If,
    ast.While, ast.For, ast.Break, ast.Continue, ast.Return, ast.Expr, ast.Pass, ast.Name,
    ast.Load, ast.Store, ast.Constant, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare,
    ast.IfExp, ast.Call, ast.Attribute, ast.operator, ast.unaryop, ast.boolop, ast.cmpop,
)


class HelperFunction:
    """One restricted-Python function, checked, typed, and ready to render."""

    def __init__(self, fn: Callable) -> None:
        self.fn = fn
        self.name = fn.__name__
        self.module = fn.__module__
        self.symbol = f"jgh_{self.module.rsplit('.', 1)[-1]}_{self.name}"
        source = textwrap.dedent(inspect.getsource(fn))
        tree = ast.parse(source)
        node = tree.body[0]
        if not isinstance(node, ast.FunctionDef):
            raise HelperError(f"{self.name}: a helper must be a plain 'def' function")
        self._line0 = fn.__code__.co_firstlineno - 1
        node.decorator_list = []
        node.returns = None
        for a in node.args.args:
            a.annotation = None
        self.node = node
        self.params = [a.arg for a in node.args.args]
        self.nargs = len(self.params)
        self.locals = set(self.params) | {
            t.id for n in ast.walk(node)
            for t in (n.targets if isinstance(n, ast.Assign) else
                      [n.target] if isinstance(n, (ast.AugAssign, ast.For)) else [])
            if isinstance(t, ast.Name)}
        self._check()

    def __repr__(self) -> str:
        return f"<helper {self.module}.{self.name}>"

    def fail(self, node: ast.AST, what: str) -> HelperError:
        line = getattr(node, "lineno", 1) + self._line0
        return HelperError(f"{self.module}.{self.name} (line {line}): {what} is outside the "
                           f"restricted Python of scalar helpers (see jitgraph.scalar_expr."
                           f"helpers)")

    # -- checking -----------------------------------------------------------------------------

    def _check(self) -> None:
        args = self.node.args
        if args.vararg or args.kwarg or args.kwonlyargs or args.defaults or args.posonlyargs:
            raise self.fail(self.node, "a parameter that is not plain positional")
        for node in ast.walk(self.node):
            if not isinstance(node, _ALLOWED_NODES):
                raise self.fail(node, type(node).__name__)
            if isinstance(node, ast.FunctionDef) and node is not self.node:
                raise self.fail(node, "a nested function")
            if isinstance(node, ast.Assign) and (
                    len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name)):
                raise self.fail(node, "assignment to something other than one name")
            if isinstance(node, ast.AugAssign) and not isinstance(node.target, ast.Name):
                raise self.fail(node, "augmented assignment to something other than a name")
            if isinstance(node, (ast.For, ast.While)) and node.orelse:
                raise self.fail(node, "a loop with 'else'")
            if isinstance(node, ast.For):
                self._check_for(node)
            if isinstance(node, ast.Attribute):
                self._check_attribute(node)
            if isinstance(node, ast.Call):
                self._check_call(node)
            if isinstance(node, ast.Constant) and not isinstance(node.value, (int, float)):
                if not (isinstance(node.value, str) and self._is_docstring(node)):
                    raise self.fail(node, f"the constant {node.value!r}")
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) \
                    and node.id not in self.locals and node.id not in ("math", "range") \
                    and self.constant(node.id) is None and self._callee(node.id) is None:
                raise self.fail(node, f"the name {node.id!r} (neither a local, a module-level "
                                      f"number nor a helper function)")
            if isinstance(node, ast.Return) and node.value is None:
                raise self.fail(node, "'return' without a value")
            if isinstance(node, (ast.BinOp,)) and isinstance(
                    node.op, (ast.MatMult, ast.LShift, ast.RShift, ast.BitOr, ast.BitAnd,
                              ast.BitXor)):
                raise self.fail(node, f"the operator {type(node.op).__name__}")
            if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):
                raise self.fail(node, "the operator ~")
            if isinstance(node, ast.Compare) and any(
                    isinstance(o, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for o in node.ops):
                raise self.fail(node, "is/in comparisons")

    def _is_docstring(self, node: ast.Constant) -> bool:
        first = self.node.body[0]
        return isinstance(first, ast.Expr) and first.value is node

    def _check_for(self, node: ast.For) -> None:
        it = node.iter
        if not (isinstance(node.target, ast.Name) and isinstance(it, ast.Call)
                and isinstance(it.func, ast.Name) and it.func.id == "range"
                and 1 <= len(it.args) <= 3 and not it.keywords):
            raise self.fail(node, "a for loop other than 'for name in range(...)'")
        if len(it.args) == 3 and constant_step(it.args[2]) is None:
            raise self.fail(node, "a range step that is not a nonzero integer constant")

    def _check_attribute(self, node: ast.Attribute) -> None:
        if not (isinstance(node.value, ast.Name) and node.value.id == "math"
                and (node.attr in MATH_CALLS or node.attr in MATH_CONSTANTS)):
            raise self.fail(node, f"the attribute {ast.unparse(node)}")

    def _check_call(self, node: ast.Call) -> None:
        if node.keywords:
            raise self.fail(node, "keyword arguments")
        f = node.func
        if isinstance(f, ast.Attribute):
            if f.attr not in MATH_CALLS:
                raise self.fail(node, f"the call {ast.unparse(f)}")
            return
        if isinstance(f, ast.Name) and f.id == "range":
            return  # checked with its for loop
        if not isinstance(f, ast.Name) or self._callee(f.id) is None:
            raise self.fail(node, f"the call of {ast.unparse(f)}")

    def constant(self, name: str) -> int | float | None:
        """The value of module-level number ``name`` (None if it is not one)."""
        if name in self.locals:
            return None
        value = self.fn.__globals__.get(name)
        return value if isinstance(value, (int, float)) and not isinstance(value, bool) \
            else None

    def _callee(self, name: str) -> HelperFunction | None:
        # a function of this module, or one a helper module of jitgraph's imports from another
        # (the Bessel functions call special_math's gamma): each is checked by the same rules
        target = self.fn.__globals__.get(name)
        if inspect.isfunction(target) and (target.__module__ == self.module
                                           or target.__module__.startswith("jitgraph.")):
            return helper(target)
        return None

    # -- structure ----------------------------------------------------------------------------

    @cached_property
    def callees(self) -> list[HelperFunction]:
        """The helpers this one calls directly."""
        seen: dict[str, HelperFunction] = {}
        for node in ast.walk(self.node):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                    and node.func.id != "range":
                callee = self._callee(node.func.id)
                if callee is not None and callee is not self:
                    seen.setdefault(callee.symbol, callee)
        return list(seen.values())

    def closure(self) -> list[HelperFunction]:
        """This helper and every helper it calls, callees first."""
        order: list[HelperFunction] = []
        done: set[str] = set()

        def visit(h: HelperFunction, path: tuple[str, ...]) -> None:
            if h.symbol in path:
                raise HelperError(f"{h.name}: recursive helpers are not supported "
                                  f"({' -> '.join(path + (h.symbol,))})")
            if h.symbol in done:
                return
            for c in h.callees:
                visit(c, path + (h.symbol,))
            done.add(h.symbol)
            order.append(h)

        visit(self, ())
        return order

    # -- types --------------------------------------------------------------------------------

    @cached_property
    def local_kinds(self) -> dict[str, str]:
        """The kind (``bool``/``int``/``float``) of every parameter and local."""
        kinds: dict[str, str | None] = {p: "float" for p in self.params}
        for _ in range(32):  # to a fixed point; kinds only widen
            before = dict(kinds)
            for node in ast.walk(self.node):
                if isinstance(node, ast.Assign):
                    name = node.targets[0].id
                    kinds[name] = join(kinds.get(name), self.kind(node.value, kinds))
                elif isinstance(node, ast.AugAssign):
                    name = node.target.id
                    now = self._binop_kind(node.op, kinds.get(name),
                                           self.kind(node.value, kinds))
                    kinds[name] = join(kinds.get(name), now)
                elif isinstance(node, ast.For):
                    kinds[node.target.id] = join(kinds.get(node.target.id), "int")
            if kinds == before:
                break
        return {k: v or "float" for k, v in kinds.items()}

    @cached_property
    def return_kind(self) -> str:
        """``bool`` when every return value is a bool, else ``float``."""
        kinds = [self.kind(n.value, self.local_kinds) for n in ast.walk(self.node)
                 if isinstance(n, ast.Return)]
        return "bool" if kinds and all(k == "bool" for k in kinds) else "float"

    def _binop_kind(self, op: ast.operator, a: str | None, b: str | None) -> str | None:
        if isinstance(op, (ast.Div, ast.Pow)):
            return "float"
        k = join(a, b)
        return "int" if k == "bool" else k

    def kind(self, node: ast.expr, kinds: dict[str, str | None] | None = None) -> str | None:
        """The value kind of expression ``node`` (None while a local's is unknown)."""
        kinds = self.local_kinds if kinds is None else kinds
        if isinstance(node, ast.Constant):
            return "bool" if isinstance(node.value, bool) else \
                "int" if isinstance(node.value, int) else "float"
        if isinstance(node, ast.Name):
            value = self.constant(node.id)
            if value is not None:
                return "int" if isinstance(value, int) else "float"
            return kinds.get(node.id)
        if isinstance(node, ast.Attribute):
            return "float"
        if isinstance(node, ast.BinOp):
            return self._binop_kind(node.op, self.kind(node.left, kinds),
                                    self.kind(node.right, kinds))
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.Not):
                return "bool"
            k = self.kind(node.operand, kinds)
            return "int" if k == "bool" else k
        if isinstance(node, (ast.Compare, ast.BoolOp)):
            return "bool"
        if isinstance(node, ast.IfExp):
            return join(self.kind(node.body, kinds), self.kind(node.orelse, kinds))
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Attribute):
                return "bool" if node.func.attr in _BOOL_CALLS else "float"
            return self._callee(node.func.id).return_kind
        raise self.fail(node, type(node).__name__)

    # -- CPU rendering ------------------------------------------------------------------------

    def python_source(self) -> str:
        """The function as kernel-module source: named :attr:`symbol`, calling its callees by
        their symbols, ``math.floor``/``ceil`` as ``np.floor``/``np.ceil`` (floats), integer
        literals of float variables and returns written as floats, float ``range`` bounds
        converted with ``np.int64``, chained comparisons split (so Numba and the direct
        compiler type and compile it alike)."""
        tree = _PythonRenderer(self).visit(ast.parse(ast.unparse(self.node)))
        ast.fix_missing_locations(tree)
        return ast.unparse(tree)


def constant_step(node: ast.expr) -> int | None:
    """The value of a nonzero integer constant (``2``, ``-1``), else None."""
    value = None
    if isinstance(node, ast.Constant) and type(node.value) is int:
        value = node.value
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) \
            and isinstance(node.operand, ast.Constant) and type(node.operand.value) is int:
        value = -node.operand.value
    return value or None


class _PythonRenderer(ast.NodeTransformer):
    """The rewrites of :meth:`HelperFunction.python_source`."""

    def __init__(self, fn: HelperFunction) -> None:
        self.fn = fn
        self.kinds = fn.local_kinds

    def _float(self, node: ast.expr) -> ast.expr:
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return ast.Constant(float(node.value))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return ast.UnaryOp(ast.USub(), self._float(node.operand))
        return node

    def visit_Name(self, node: ast.Name) -> ast.AST:
        value = self.fn.constant(node.id) if isinstance(node.ctx, ast.Load) else None
        if value is None:
            return node
        return ast.Constant(value) if value >= 0 else ast.UnaryOp(ast.USub(), ast.Constant(-value))

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        node.name = self.fn.symbol
        first = node.body[0]
        if len(node.body) > 1 and isinstance(first, ast.Expr) \
                and isinstance(first.value, ast.Constant):
            node.body = node.body[1:]  # the docstring: the kernel module does not need it
        self.generic_visit(node)
        return node

    def visit_Assign(self, node: ast.Assign) -> ast.AST:
        self.generic_visit(node)
        if self.kinds.get(node.targets[0].id) == "float":
            node.value = self._float(node.value)
        return node

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST:
        self.generic_visit(node)
        if self.kinds.get(node.target.id) == "float":
            node.value = self._float(node.value)
        return node

    def visit_Return(self, node: ast.Return) -> ast.AST:
        kind = self.fn.kind(node.value)  # before callees are renamed
        self.generic_visit(node)
        if self.fn.return_kind == "float":
            node.value = self._float(node.value)
            if kind != "float" and not isinstance(node.value, ast.Constant):
                node.value = ast.Call(ast.Name("float", ast.Load()), [node.value], [])
        return node

    def visit_For(self, node: ast.For) -> ast.AST:
        it = node.iter
        floats = [self.fn.kind(a) == "float" for a in it.args]  # before callees are renamed
        self.generic_visit(node)
        it.args = [ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "int64", ast.Load()),
                            [a], []) if f else a for a, f in zip(it.args, floats)]
        return node

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        self.generic_visit(node)
        if len(node.ops) == 1:
            return node
        # a < b < c as (a < b) and (b < c): the direct compiler has no chained comparisons
        lefts = [node.left] + node.comparators[:-1]
        return ast.BoolOp(ast.And(), [ast.Compare(a, [op], [b]) for a, op, b in
                                      zip(lefts, node.ops, node.comparators)])

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        f = node.func
        if isinstance(f, ast.Attribute) and f.attr in ("floor", "ceil"):
            node.func = ast.Attribute(ast.Name("np", ast.Load()), f.attr, ast.Load())
        elif isinstance(f, ast.Name) and f.id != "range":
            node.func = ast.Name(self.fn._callee(f.id).symbol, ast.Load())
        return node


_HELPERS: dict[Any, HelperFunction] = {}


def helper(fn: Callable | HelperFunction) -> HelperFunction:
    """The (checked, cached) :class:`HelperFunction` of ``fn``."""
    if isinstance(fn, HelperFunction):
        return fn
    found = _HELPERS.get(fn)
    if found is None:
        if not inspect.isfunction(fn):
            raise HelperError(f"{fn!r} is not a Python function")
        found = _HELPERS[fn] = HelperFunction(fn)
    return found
