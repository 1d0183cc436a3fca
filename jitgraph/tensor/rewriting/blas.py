"""dot specialized into the BLAS ops Dot22, Gemv, Gemm and Ger.

Registered in the ``specialize`` phase with tag fast_run (not fast_compile: FAST_COMPILE keeps the
plain ``Dot``, whose ``perform`` is the same NumPy call). All three rewrites need both operands in
one BLAS dtype (float32/64, complex64/128); a mixed float32/float64 product casts the narrower
operand, as ``np.dot`` itself would.

* ``local_dot_to_dot22``: ``dot(matrix, matrix)`` -> ``Dot22``.
* ``local_dot_to_gemv``: ``dot(matrix, vector)`` -> ``Gemv(y, 1, A, x, 0)`` and
  ``dot(vector, matrix)`` -> ``Gemv(y, 1, B.T, v, 0)``, where ``y`` is a zero-filled ``alloc``
  (BLAS ignores ``y`` when ``beta == 0``).
* ``local_gemm_combine``: a sum of scaled terms ``a * dot(A, x) + b * y + ...`` (through
  ``add``/``sub``/``neg`` and multiplication by scalars, and through existing Gemv/Gemm nodes)
  -> ``Gemv``/``Gemm`` with those coefficients, and ``Z + a * outer(u, v)`` -> ``Ger``. Equal
  terms are collected first, so ``w - 0.01 * (dot(X.T, g) + 0.02 * w)`` becomes one
  ``Gemv(w, -0.01, X.T, g, 0.9998)``. It only fires when the result has fewer elementwise
  nodes, so it cannot undo itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from jitgraph.graph.basic import Apply, Constant, Variable
from jitgraph.graph.fg import FunctionGraph
from jitgraph.rewrite.engine import node_rewriter
from jitgraph.rewrite.phases import register_specialize
from jitgraph.tensor.rewriting.utils import (as_scalar, broadcast_like, const_like_var, elemwise,
                                             elemwise_of, get_constant, is_scalar_like,
                                             scalar_op_name, shape_of, single_client)
from jitgraph.tensor.core.basic import alloc
from jitgraph.tensor.linalg.blas import Dot, Dot22, Gemm, Gemv, dot22, gemm, gemv, ger
from jitgraph.tensor.core.conversion import constant
from jitgraph.tensor.elementwise.elemwise import DimShuffle, Elemwise, dimshuffle
from jitgraph.tensor.elementwise.math import cast

__all__: list[str] = []

_BLAS_DTYPES = ("float32", "float64", "complex64", "complex128")


def _as_dtype(v: Variable, dtype: str) -> Variable:
    return v if v.dtype == dtype else cast(v, dtype)


def _zeros(fgraph: FunctionGraph, like: Variable) -> Variable:
    """A zero-filled array shaped like ``like`` (the ignored ``y`` of a beta == 0 Gemv)."""
    dims = [constant(np.int64(1)) if b else d
            for b, d in zip(like.broadcastable, shape_of(fgraph, like))]
    return alloc(constant(np.zeros((), dtype=like.dtype)), *dims)


@register_specialize
@node_rewriter([Dot])
def local_dot_to_dot22(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``dot(matrix, matrix)`` -> ``Dot22`` (in the output's BLAS dtype)."""
    a, b = node.inputs
    out = node.outputs[0]
    if a.ndim != 2 or b.ndim != 2 or out.dtype not in _BLAS_DTYPES:
        return None
    return [broadcast_like(dot22(_as_dtype(a, out.dtype), _as_dtype(b, out.dtype)), out,
                           fgraph)]


@register_specialize
@node_rewriter([Dot])
def local_dot_to_gemv(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """Matrix-vector and vector-matrix ``dot`` -> ``Gemv`` with ``beta = 0``."""
    a, b = node.inputs
    out = node.outputs[0]
    if out.dtype not in _BLAS_DTYPES:
        return None
    if a.ndim == 2 and b.ndim == 1:
        A, x = a, b
    elif a.ndim == 1 and b.ndim == 2:
        A, x = dimshuffle(b, (1, 0)), a
    else:
        return None
    A, x = _as_dtype(A, out.dtype), _as_dtype(x, out.dtype)
    return [broadcast_like(gemv(_zeros(fgraph, out), 1.0, A, x, 0.0), out, fgraph)]


# ---------------------------------------------------------------------------------------------
# Linear combinations

Coef = list  # factors: Python/NumPy numbers and 0-d variables, multiplied together


@dataclass
class _Term:
    coef: Coef
    var: Variable | None = None                    # a plain term: coef * var
    dot: tuple[str, Variable, Variable] | None = None  # ('gemv'|'gemm', A, B): coef * A.B


@dataclass
class _Expansion:
    terms: list[_Term] = field(default_factory=list)
    consumed: int = 0  # elementwise nodes the terms replace


def _dot_parts(node: Apply, dtype: str) -> tuple[str, Variable, Variable] | None:
    a, b = node.inputs
    if a.dtype != dtype or b.dtype != dtype or dtype not in _BLAS_DTYPES:
        return None
    if isinstance(node.op, Dot22) or (isinstance(node.op, Dot) and a.ndim == b.ndim == 2):
        return ("gemm", a, b)
    if isinstance(node.op, Dot) and a.ndim == 2 and b.ndim == 1:
        return ("gemv", a, b)
    if isinstance(node.op, Dot) and a.ndim == 1 and b.ndim == 2:
        return ("gemv", dimshuffle(b, (1, 0)), a)
    return None


def _expand(fgraph: FunctionGraph, v: Variable, coef: Coef, dtype: str, acc: _Expansion,
            root: bool = False) -> None:
    """Append ``coef * v`` to ``acc`` as scaled terms, looking through the single-use add, sub,
    neg, scalar mul, Dot, Gemv and Gemm nodes below ``v``."""
    node = v.owner
    absorbable = node is not None and v.dtype == dtype and (root or single_client(fgraph, v))
    name = scalar_op_name(v) if absorbable else None
    if name == "add":
        acc.consumed += 1
        for i in node.inputs:
            _expand(fgraph, i, coef, dtype, acc)
        return
    if name == "sub":
        acc.consumed += 1
        _expand(fgraph, node.inputs[0], coef, dtype, acc)
        _expand(fgraph, node.inputs[1], coef + [-1], dtype, acc)
        return
    if name == "neg":
        acc.consumed += 1
        _expand(fgraph, node.inputs[0], coef + [-1], dtype, acc)
        return
    if name == "mul" and not is_scalar_like(v):
        scalars = [i for i in node.inputs if is_scalar_like(i)]
        rest = [i for i in node.inputs if not is_scalar_like(i)]
        if len(rest) == 1 and rest[0].ndim == v.ndim:
            acc.consumed += 1
            factors = [_scalar_factor(s, dtype) for s in scalars]
            _expand(fgraph, rest[0], coef + factors, dtype, acc)
            return
    if absorbable and isinstance(node.op, (Dot, Dot22)) and not root:
        parts = _dot_parts(node, dtype)
        if parts is not None:
            acc.terms.append(_Term(coef, dot=parts))
            return
    if absorbable and isinstance(node.op, (Gemv, Gemm)) and not node.op.inplace and not root:
        y, alpha, A, B, beta = node.inputs
        kind = "gemv" if isinstance(node.op, Gemv) else "gemm"
        acc.terms.append(_Term(coef + [_scalar_factor(alpha, dtype)], dot=(kind, A, B)))
        if get_constant(beta) != 0:
            acc.terms.append(_Term(coef + [_scalar_factor(beta, dtype)], var=y))
        return
    acc.terms.append(_Term(coef, var=v))


def _scalar_factor(s: Variable, dtype: str) -> Any:
    """A number, or the scalar-like variable itself (made 0-d only if the rewrite fires)."""
    c = get_constant(s) if isinstance(s, Constant) or s.owner is not None else None
    if c is not None:
        return np.asarray(c).astype(dtype)[()]
    return s


def _coef_value(coef: Coef, dtype: str) -> Any:
    """The product of the factors: a NumPy scalar when all are numbers, else a 0-d variable."""
    number = np.asarray(1, dtype=dtype)
    symbolic: list[Variable] = []
    with np.errstate(all="ignore"):
        for f in coef:
            if isinstance(f, Variable):
                symbolic.append(_as_dtype(as_scalar(f), dtype))
            else:
                number = (number * np.asarray(f, dtype=dtype)).astype(dtype)
    if not symbolic:
        return number[()]
    if number != 1:
        symbolic.append(constant(number))
    return symbolic[0] if len(symbolic) == 1 else elemwise("mul", *symbolic)


def _coef_sum(a: Any, b: Any, dtype: str) -> Any:
    if not isinstance(a, Variable) and not isinstance(b, Variable):
        with np.errstate(all="ignore"):
            return (np.asarray(a, dtype=dtype) + np.asarray(b, dtype=dtype)).astype(dtype)[()]
    a = a if isinstance(a, Variable) else constant(np.asarray(a, dtype=dtype))
    b = b if isinstance(b, Variable) else constant(np.asarray(b, dtype=dtype))
    return elemwise("add", a, b)


def _is_number(c: Any, value: float) -> bool:
    return not isinstance(c, Variable) and bool(c == value)


def _outer_vectors(A: Variable, B: Variable) -> tuple[Variable, Variable] | None:
    """``(u, v)`` if ``A`` is ``u[:, None]`` and ``B`` is ``v[None, :]``."""
    if A.owner is None or B.owner is None:
        return None
    if not (isinstance(A.owner.op, DimShuffle) and isinstance(B.owner.op, DimShuffle)):
        return None
    if A.owner.op.new_order != (0, "x") or B.owner.op.new_order != ("x", 0):
        return None
    u, v = A.owner.inputs[0], B.owner.inputs[0]
    if u.ndim != 1 or v.ndim != 1:  # (0, 'x') can also drop a broadcastable axis
        return None
    return u, v


@register_specialize
@node_rewriter([Elemwise], op_test=elemwise_of("add", "sub", "neg", "mul"))
def local_gemm_combine(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``alpha * dot(A, x) + beta * y (+ rest)`` -> ``Gemv/Gemm(y, alpha, A, x, beta) (+ rest)``;
    ``Z + alpha * outer(u, v)`` -> ``Ger(Z, alpha, u, v)``."""
    if scalar_op_name(node) not in ("add", "sub", "neg", "mul"):
        return None
    out = node.outputs[0]
    dtype = out.dtype
    if dtype not in _BLAS_DTYPES or out.ndim not in (1, 2):
        return None
    acc = _Expansion()
    _expand(fgraph, out, [], dtype, acc, root=True)
    # The dot computed by the new node must have the output's shape (not a broadcast part).
    dots = [t for t in acc.terms if t.dot is not None and _dot_pattern(t.dot) == out.broadcastable]
    if not dots:
        return None
    # Every term left over costs at least one elementwise node: give up before building any.
    n_plain = len({id(t.var) for t in acc.terms if t.var is not None})
    has_y = any(t.var is not None and t.var.type == out.type for t in acc.terms)
    if n_plain - has_y + sum(t.dot is not None for t in acc.terms) - 1 >= acc.consumed:
        return None
    # Collect equal plain terms: w - 0.0002 * w is one term.
    plain: dict[int, tuple[Variable, Any]] = {}
    order: list[int] = []
    for t in acc.terms:
        if t.var is None:
            continue
        c = _coef_value(t.coef, dtype)
        key = id(t.var)
        if key in plain:
            plain[key] = (t.var, _coef_sum(plain[key][1], c, dtype))
        else:
            plain[key] = (t.var, c)
            order.append(key)
    if any(_is_number(plain[k][1], 0) for k in order):
        return None  # beta == 0 would discard NaNs in that term; leave such graphs alone
    main = dots[0]
    _, A, B = main.dot
    alpha = _coef_value(main.coef, dtype)
    y_key = next((k for k in order if plain[k][0].type == out.type), None)
    if y_key is not None:
        y, beta = plain[y_key]
        outer = _outer_vectors(A, B) if out.ndim == 2 else None
        if outer is not None and _is_number(beta, 1):
            new = ger(y, _scalar_arg(alpha, dtype), *outer)
        elif out.ndim == 1:
            new = gemv(y, _scalar_arg(alpha, dtype), A, B, _scalar_arg(beta, dtype))
        else:
            new = gemm(y, _scalar_arg(alpha, dtype), A, B, _scalar_arg(beta, dtype))
        rest_keys = [k for k in order if k != y_key]
    else:
        zeros = _zeros(fgraph, out)
        if out.ndim == 1:
            new = gemv(zeros, _scalar_arg(alpha, dtype), A, B, 0.0)
        else:
            new = gemm(zeros, _scalar_arg(alpha, dtype), A, B, 0.0)
        rest_keys = order
    created = 0
    for t in acc.terms:
        if t.dot is None or t is main:
            continue
        _, A2, B2 = t.dot  # rebuilt as a plain dot; the rewrites above specialize it again
        new, n = _add_scaled(new, _plain_dot(A2, B2), _coef_value(t.coef, dtype), dtype)
        created += n
    for k in rest_keys:
        var, c = plain[k]
        new, n = _add_scaled(new, var, c, dtype)
        created += n
    if created >= acc.consumed:
        return None
    return [broadcast_like(new, out, fgraph)]


def _dot_pattern(dot: tuple[str, Variable, Variable]) -> tuple[bool, ...]:
    kind, A, B = dot
    return (A.broadcastable[0],) if kind == "gemv" else (A.broadcastable[0], B.broadcastable[1])


def _plain_dot(A: Variable, B: Variable) -> Variable:
    return Dot()(A, B)


def _scalar_arg(c: Any, dtype: str) -> Any:
    if isinstance(c, Variable):
        return _as_dtype(c, dtype)
    return constant(np.asarray(c, dtype=dtype))


def _add_scaled(total: Variable, var: Variable, c: Any, dtype: str) -> tuple[Variable, int]:
    """``total + c * var`` with as few elementwise nodes as possible; returns (it, the count)."""
    if _is_number(c, 1):
        return elemwise("add", total, var), 1
    if _is_number(c, -1):
        return elemwise("sub", total, var), 1
    if isinstance(c, Variable):
        scale = dimshuffle(c, ["x"] * var.ndim) if var.ndim else c
    else:
        scale = const_like_var(c, var)
    return elemwise("add", total, elemwise("mul", scale, var)), 2
