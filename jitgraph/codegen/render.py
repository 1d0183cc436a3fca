"""Rendering scalar expressions to a backend's source text, shared by every backend.

A backend provides a :class:`Dialect`: one method per node kind of :mod:`.expr` returning the
text computing that node from its operands' texts (and a :class:`ScalarBody` subclass saying
how a temporary is declared). This module walks the DAG, binds every node used more than once
to a temporary (so it is computed once), applies a scalar op's row (its ``cast_inputs`` policy
and its expression function), and emits whole scalar programs (fused ``Composite`` steps, with
value numbering: a step repeated with the same arguments is computed once).
"""

from __future__ import annotations

import re
from typing import Any, Callable, Sequence

from jitgraph.scalar_expr import expr as E
from jitgraph.scalar_expr.expr import (SUPPORTED_DTYPES, Expr, Unsupported, check_expr_dtypes,
                                       is_complex)
from jitgraph.tensor.elementwise import scalar_ops
from jitgraph.tensor.elementwise.composite import Composite

_NAME = re.compile(r"[A-Za-z_]\w*")
_KEYWORDS = frozenset({"True", "False", "true", "false", "None"})


class ScalarBody:
    """Statements of one element's computation and the dtype of every temporary; subclasses
    say how a statement is written (:meth:`statement`) and carry their :class:`Dialect`."""

    dialect: "Dialect"
    #: the dtypes this body computes: a node of any other dtype raises :class:`Unsupported`
    #: (the CPU's elementwise bodies add the complex dtypes)
    computes: tuple[str, ...] = SUPPORTED_DTYPES

    def __init__(self, prefix: str = "t") -> None:
        self.lines: list = []
        self.prefix = prefix
        self.count = 0
        self.dtypes: dict[str, str] = {}
        self.memo: dict = {}

    def statement(self, name: str, expr: str, dtype: str) -> Any:
        raise NotImplementedError

    def tmp(self, expr: str, dtype: str) -> str:
        """``expr`` bound to a new temporary (a plain variable name is returned as it is)."""
        if _NAME.fullmatch(expr) and expr not in _KEYWORDS:
            self.dtypes.setdefault(expr, dtype)
            return expr
        name = f"{self.prefix}{self.count}"
        self.count += 1
        self.lines.append(self.statement(name, expr, dtype))
        self.dtypes[name] = dtype
        return name


class Dialect:
    """How one backend writes each node kind (see :mod:`.expr`). Every method returns source
    text; ``b`` is the body statements may be added to, ``n`` the node, ``a`` the texts of its
    operands. Methods raise :class:`Unsupported` for what the backend cannot compute.
    ``extremum`` sees integers only (float max/min are NaN-propagating ``where``
    expressions, boolean ones ``or``/``and``)."""

    name = "?"
    #: ``literal(value, dtype)`` and ``convert(text, src_dtype, dst_dtype)`` of the language
    literal: Callable[[Any, str], str]
    convert: Callable[[str, str, str], str]

    def const(self, b: ScalarBody, value: Any, dtype: str) -> str:
        return self.literal(value, dtype)

    def cast(self, b: ScalarBody, x: str, src: str, dst: str) -> str:
        return self.convert(x, src, dst)

    def add(self, b: ScalarBody, n: Expr, a: list[str]) -> str: raise NotImplementedError
    def sub(self, b: ScalarBody, n: Expr, a: list[str]) -> str: raise NotImplementedError
    def mul(self, b: ScalarBody, n: Expr, a: list[str]) -> str: raise NotImplementedError
    def truediv(self, b: ScalarBody, n: Expr, a: list[str]) -> str: raise NotImplementedError
    def floordiv(self, b: ScalarBody, n: Expr, a: list[str]) -> str: raise NotImplementedError
    def mod(self, b: ScalarBody, n: Expr, a: list[str]) -> str: raise NotImplementedError
    def pow(self, b: ScalarBody, n: Expr, a: list[str]) -> str: raise NotImplementedError
    def neg(self, b: ScalarBody, n: Expr, a: list[str]) -> str: raise NotImplementedError
    def abs(self, b: ScalarBody, n: Expr, a: list[str]) -> str: raise NotImplementedError
    def invert(self, b: ScalarBody, n: Expr, a: list[str]) -> str: raise NotImplementedError
    def bitwise(self, b: ScalarBody, n: Expr, a: list[str]) -> str: raise NotImplementedError

    def compare(self, b: ScalarBody, n: Expr, a: list[str]) -> str:
        return f"({a[0]} {OPERATORS[n.op]} {a[1]})"  # C's and Python's spelling

    def where(self, b: ScalarBody, n: Expr, a: list[str]) -> str: raise NotImplementedError
    def extremum(self, b: ScalarBody, n: Expr, a: list[str]) -> str: raise NotImplementedError
    def fn(self, b: ScalarBody, n: Expr, a: list[str]) -> str: raise NotImplementedError
    def test(self, b: ScalarBody, n: Expr, a: list[str]) -> str: raise NotImplementedError
    def call(self, b: ScalarBody, n: Expr, a: list[str]) -> str: raise NotImplementedError

    # complex nodes: only reached for bodies whose ``computes`` has complex dtypes
    def real(self, b: ScalarBody, n: Expr, a: list[str]) -> str: raise Unsupported(n.op)
    def imag(self, b: ScalarBody, n: Expr, a: list[str]) -> str: raise Unsupported(n.op)
    def conj(self, b: ScalarBody, n: Expr, a: list[str]) -> str: raise Unsupported(n.op)
    def complex(self, b: ScalarBody, n: Expr, a: list[str]) -> str: raise Unsupported(n.op)
    def cfn(self, b: ScalarBody, n: Expr, a: list[str]) -> str: raise Unsupported(n.op)


#: node kind -> Dialect method (kinds sharing one method tell them apart by ``n.op``)
_METHODS = {"add": "add", "sub": "sub", "mul": "mul", "truediv": "truediv",
            "floordiv": "floordiv", "mod": "mod", "pow": "pow", "neg": "neg", "abs": "abs",
            "invert": "invert", "and": "bitwise", "or": "bitwise", "xor": "bitwise",
            "eq": "compare", "ne": "compare", "lt": "compare", "le": "compare",
            "gt": "compare", "ge": "compare", "where": "where", "max": "extremum",
            "min": "extremum", "fn": "fn", "test": "test", "call": "call", "real": "real",
            "imag": "imag", "conj": "conj", "complex": "complex", "cfn": "cfn"}

#: C / Python spelling of the comparison and bitwise kinds (the same in both languages)
OPERATORS = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">=",
             "add": "+", "sub": "-", "mul": "*", "and": "&", "or": "|", "xor": "^"}


def render_expr(b: ScalarBody, root: Expr, args: Sequence[str] = (),
                counts: dict[int, int] | None = None) -> str:
    """The text of ``root`` (statements for its shared nodes added to ``b``). An input leaf
    whose ``attr`` is an index stands for ``args[index]``; ``counts`` are the parents of each
    node (:func:`~.expr.uses`), when known already."""
    d = b.dialect
    counts = E.uses(root) if counts is None else counts
    done: dict[int, str] = {}
    stack: list[tuple[Expr, bool]] = [(root, False)]
    while stack:  # iterative post-order: deep helper expressions do not hit recursion limits
        node, expanded = stack.pop()
        if id(node) in done:
            continue
        if not expanded and node.args:
            stack.append((node, True))
            stack.extend((a, False) for a in reversed(node.args) if id(a) not in done)
            continue
        if node.dtype is not None and node.dtype not in b.computes:
            raise Unsupported(f"dtype {node.dtype} has no {d.name} code path")
        if node.op == "arg":
            text = args[node.attr] if isinstance(node.attr, int) else node.attr
        elif node.op == "const":
            text = d.const(b, node.attr, node.dtype or E._unify(node)[1])
        elif node.op == "cast":
            (x,) = node.args
            text = d.cast(b, done[id(x)], x.dtype, node.dtype)
        else:
            text = getattr(d, _METHODS[node.op])(b, node, [done[id(a)] for a in node.args])
        if counts.get(id(node), 0) > 1 and node.op not in ("arg", "const"):
            text = b.tmp(text, node.dtype)
        done[id(node)] = text
    return done[id(root)]


def op_expression(sop: Any, arg_dtypes: Sequence[str], out: str,
                  args: Sequence[str] | None = None) -> Expr:
    """The expression of scalar op ``sop`` (its row's ``expr``): inputs converted as its
    ``cast_inputs`` policy says, the result converted to ``out``. The inputs are the texts
    ``args``, or without them leaves standing for argument 0, 1, ... (see
    :func:`render_expr`). Complex operands or results are only given to rows that say they
    compute them as NumPy does (``complex_expr``): a row written for real numbers may use
    operations that mean something else for complex ones (NumPy's ``reciprocal`` is no
    ``1 / x``)."""
    check_expr_dtypes(out, *arg_dtypes)
    build = getattr(sop, "expr", None)
    if build is None:
        raise Unsupported(f"scalar op {sop.name} has no expression")
    if not getattr(sop, "complex_expr", False) and any(map(is_complex, (out, *arg_dtypes))):
        raise Unsupported(f"scalar op {sop.name} has no complex expression")
    policy = getattr(sop, "cast_inputs", "all")
    n = len(arg_dtypes)
    flags = [True] * n if policy == "all" else [False] * n if policy == "none" else list(policy)
    leaves = [E.arg(a, d) for a, d in zip(range(n) if args is None else args, arg_dtypes)]
    inputs = [E.cast(x, out) if f else x for x, f in zip(leaves, flags)]
    return E.cast(E.const(build(*inputs)), out)


#: (expression function, op key, input dtypes, output dtype) -> (expression, parent counts):
#: an op's expression does not depend on the texts of its arguments, so it is built once
_EXPRESSIONS: dict[tuple, tuple[Any, Any]] = {}  # (None, the Unsupported) when refused


def render_op(b: ScalarBody, sop: Any, args: Sequence[str], arg_dtypes: Sequence[str],
              out: str) -> str:
    """The text of ``sop`` applied to ``args`` (see :func:`op_expression`)."""
    for d in (out, *arg_dtypes):
        if d not in b.computes:
            raise Unsupported(f"dtype {d} has no {b.dialect.name} code path")
    key = (getattr(sop, "expr", None), sop.key, tuple(arg_dtypes), out)
    hit = _EXPRESSIONS.get(key)
    if hit is None:
        try:
            root = op_expression(sop, arg_dtypes, out)
            hit = (root, E.uses(root))
        except Unsupported as exc:
            hit = (None, exc)
        _EXPRESSIONS[key] = hit
    if hit[0] is None:
        raise Unsupported(str(hit[1]))
    return render_expr(b, hit[0], args, hit[1])


def emit_scalar_program(b: ScalarBody, sop: Any, args: Sequence[str],
                        arg_dtypes: Sequence[str], out_dtypes: Sequence[str]) -> list[str]:
    """Emit ``sop`` (a table op or a fused ``Composite``) applied to ``args``; return one
    variable name per output."""
    if isinstance(sop, Composite):
        for d in (*arg_dtypes, *sop.in_dtypes):
            if d not in b.computes:
                raise Unsupported(f"dtype {d} has no {b.dialect.name} code path")
        vals = [b.tmp(b.dialect.cast(b, a, d, want), want) if d != want else a
                for a, d, want in zip(args, arg_dtypes, sop.in_dtypes)]
        dts = list(sop.in_dtypes)
        for op, refs, dtype in sop.steps:
            (res,) = emit_scalar_program(b, op, [vals[r] for r in refs], [dts[r] for r in refs],
                                         [dtype])
            vals.append(res)
            dts.append(dtype)
        return [vals[r] for r in sop.outputs]
    # Value numbering: a step repeated with the same arguments is computed once (smaller
    # kernels compile faster; LLVM would only merge them after inlining everything).
    memo_key = (sop.key, tuple(args), tuple(arg_dtypes), out_dtypes[0])
    hit = b.memo.get(memo_key)
    if hit is None:
        expr = render_op(b, sop, list(args), list(arg_dtypes), out_dtypes[0])
        hit = b.memo[memo_key] = b.tmp(expr, out_dtypes[0])
    return [hit]


def template_of(name: str) -> Any:
    """A renderer for the table op ``name`` (``convert_to_<dtype>`` included) with the
    signature ``(body, args, arg_dtypes, out_dtype) -> text``, for code generators that
    combine two values with a reduction's scalar op."""
    if name.startswith("convert_to_"):
        sop = scalar_ops.Cast(name[len("convert_to_"):])
    else:
        try:
            sop = scalar_ops.op(name)
        except KeyError:
            raise Unsupported(f"no scalar op {name!r}") from None

    def render(b: ScalarBody, args: list, dts: list, out: str) -> str:
        return render_op(b, sop, args, dts, out)

    return render
