"""Stabilization of the sigmoid family: 1/(1+exp(-x)) -> sigmoid(x), 1-sigmoid(x) -> sigmoid(-x),
log(sigmoid(x)) -> -softplus(-x).

Why these matter: with the textbook logistic regression, ``p = 1/(1+exp(-z))`` is exactly 1.0 once
z > ~37, so ``log(1-p)`` is -inf and its gradient ``1/(1-p)`` is inf*0 = NaN. Recognising the
sigmoid and rewriting ``1 - sigmoid(z)`` as ``sigmoid(-z)`` keeps the forward value and every
gradient term that divides by it finite. They are tagged ``fast_compile`` too, so FAST_COMPILE
gives finite gradients (as PyTensor's does).
"""

from __future__ import annotations

from typing import Any

from jitgraph.graph.basic import Variable
from jitgraph.rewrite import copy_stack_trace, node_rewriter, register_stabilize
from jitgraph.tensor.elemwise import Elemwise


def _scalar_name(var: Variable) -> str | None:
    owner = var.owner
    if owner is None or not isinstance(owner.op, Elemwise) or len(owner.outputs) != 1:
        return None
    return owner.op.scalar_op.name


def _is_constant(var: Variable, value: float) -> bool:
    from jitgraph.tensor.basic import NotScalarConstantError, get_scalar_constant_value

    try:
        return float(get_scalar_constant_value(var)) == value
    except (NotScalarConstantError, TypeError, ValueError):
        return False


def _negate(var: Variable) -> Variable:
    """``-var``, without stacking negations: -(-v) is v and -(a - b) is b - a."""
    from jitgraph.tensor import math

    name = _scalar_name(var)
    if name == "neg":
        return var.owner.inputs[0]
    if name == "sub":
        a, b = var.owner.inputs
        return math.sub(b, a)
    return math.neg(var)


def _fit(new: Variable, old: Variable) -> Variable | None:
    """``new`` with exactly ``old``'s type, or None when that is not possible."""
    from jitgraph.tensor import math

    if new.dtype != old.dtype:
        new = math.cast(new, old.dtype)
    if new.broadcastable == old.broadcastable:
        return new
    if new.ndim != old.ndim:
        return None
    if all(o or not n for n, o in zip(new.broadcastable, old.broadcastable)):
        from jitgraph.tensor.shape import unbroadcast

        return unbroadcast(new, *[i for i, (n, o) in enumerate(zip(new.broadcastable,
                                                                    old.broadcastable)) if n and not o])
    return None


def _one_plus_exp_argument(var: Variable) -> Variable | None:
    """``u`` when ``var`` is ``1 + exp(u)`` (in either order), else None."""
    if _scalar_name(var) != "add" or len(var.owner.inputs) != 2:
        return None
    a, b = var.owner.inputs
    for one, other in ((a, b), (b, a)):
        if _is_constant(one, 1.0) and _scalar_name(other) == "exp":
            return other.owner.inputs[0]
    return None


def _replace(node: Any, new: Variable) -> list[Variable] | None:
    old = node.outputs[0]
    fitted = _fit(new, old)
    if fitted is None:
        return None
    copy_stack_trace(old, fitted)
    return [fitted]


@register_stabilize("fast_compile")
@node_rewriter([Elemwise])
def local_inv_1_plus_exp(fgraph: Any, node: Any) -> list[Variable] | None:
    """1/(1+exp(u)) -> sigmoid(-u) (also reciprocal(1+exp(u)))."""
    from jitgraph.tensor import math

    name = node.op.scalar_op.name
    if name == "true_div" and _is_constant(node.inputs[0], 1.0):
        denominator = node.inputs[1]
    elif name == "reciprocal":
        denominator = node.inputs[0]
    else:
        return None
    u = _one_plus_exp_argument(denominator)
    if u is None:
        return None
    return _replace(node, math.sigmoid(_negate(u)))


@register_stabilize("fast_compile")
@node_rewriter([Elemwise])
def local_1msigmoid(fgraph: Any, node: Any) -> list[Variable] | None:
    """1 - sigmoid(x) -> sigmoid(-x) (also 1 + (-sigmoid(x)))."""
    from jitgraph.tensor import math

    name = node.op.scalar_op.name
    if name == "sub":
        one, s = node.inputs
    elif name == "add" and len(node.inputs) == 2:
        a, b = node.inputs
        one, negated = (a, b) if _scalar_name(b) == "neg" else (b, a)
        if _scalar_name(negated) != "neg":
            return None
        s = negated.owner.inputs[0]
    else:
        return None
    if not _is_constant(one, 1.0) or _scalar_name(s) != "sigmoid":
        return None
    return _replace(node, math.sigmoid(_negate(s.owner.inputs[0])))


@register_stabilize("fast_compile")
@node_rewriter([Elemwise])
def local_log_sigmoid(fgraph: Any, node: Any) -> list[Variable] | None:
    """log(sigmoid(x)) -> -softplus(-x), finite for every x."""
    from jitgraph.tensor import math

    if node.op.scalar_op.name != "log" or _scalar_name(node.inputs[0]) != "sigmoid":
        return None
    x = node.inputs[0].owner.inputs[0]
    return _replace(node, math.neg(math.softplus(_negate(x))))


@register_stabilize("fast_compile")
@node_rewriter([Elemwise])
def local_log1p_exp(fgraph: Any, node: Any) -> list[Variable] | None:
    """log(1 + exp(x)) -> softplus(x), which does not overflow for large x."""
    from jitgraph.tensor import math

    if node.op.scalar_op.name != "log":
        return None
    u = _one_plus_exp_argument(node.inputs[0])
    if u is None:
        return None
    return _replace(node, math.softplus(u))


def _mul_factors(var: Variable) -> list[Variable]:
    """The factors of a (possibly nested) product."""
    if _scalar_name(var) != "mul":
        return [var]
    factors: list[Variable] = []
    for inp in var.owner.inputs:
        factors.extend(_mul_factors(inp))
    return factors


@register_stabilize("fast_compile")
@node_rewriter([Elemwise])
def local_cancel_div_mul(fgraph: Any, node: Any) -> list[Variable] | None:
    """(a / d) * d * rest -> a * rest.

    Gradients of log(f(x)) have this shape (``g / f * f'``, with ``f' = f * ...``); when ``f``
    underflows to 0 the uncancelled product is 0 * inf = NaN although the limit is finite.
    """
    from jitgraph.tensor import math

    if node.op.scalar_op.name != "mul":
        return None
    factors = _mul_factors(node.outputs[0])
    for k, factor in enumerate(factors):
        if _scalar_name(factor) != "true_div":
            continue
        numerator, denominator = factor.owner.inputs
        if denominator not in factors:
            continue
        rest = list(factors)
        rest.pop(k)
        rest.remove(denominator)
        product = math.mul(numerator, *rest) if rest else numerator
        old = node.outputs[0]
        if product.broadcastable != old.broadcastable:
            # The cancelled factors are the numerator's divisor and its twin: broadcasting the
            # product against the divisor restores the output's shape.
            product = math.second(denominator, product)
        return _replace(node, product)
    return None
