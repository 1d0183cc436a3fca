"""Stabilization of the sigmoid family: 1/(1+exp(-x)) -> sigmoid(x), 1-sigmoid(x) -> sigmoid(-x),
log(sigmoid(x)) -> -softplus(-x), exp(x) * sigmoid(-x) -> sigmoid(x); on request only, the
approximation sigmoid(x) -> hard_sigmoid(x) (``local_hard_sigmoid``).

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
from jitgraph.rewrite.phases import optdb, register_specialize
from jitgraph.tensor.nnet import hard_sigmoid
from jitgraph.tensor.rewriting.mul_tree import (compute_mul, parse_mul_tree,
                                                perform_sigm_times_exp, simplify_mul)
from jitgraph.tensor.rewriting.utils import (broadcast_like, elemwise_of, is_constant_value,
                                             mul_factors, same_expression, scalar_op_name)
from jitgraph.tensor.elementwise.elemwise import DimShuffle, Elemwise
from jitgraph.tensor.shaping.shape import Reshape
from jitgraph.tensor.elementwise import math


#: ops that only rearrange elements, so that an elementwise function commutes with them
_VIEWS = (Reshape, DimShuffle)


def _negate(var: Variable) -> Variable:
    """``-var``, without stacking negations: -(-v) is v and -(a - b) is b - a."""
    name = scalar_op_name(var)
    if name == "neg":
        return var.owner.inputs[0]
    if name == "sub":
        a, b = var.owner.inputs
        return math.sub(b, a)
    return math.neg(var)


def _one_plus_exp_argument(var: Variable) -> Variable | None:
    """``u`` when ``var`` is ``1 + exp(u)`` (in either order), else None."""
    if scalar_op_name(var) != "add" or len(var.owner.inputs) != 2:
        return None
    a, b = var.owner.inputs
    for one, other in ((a, b), (b, a)):
        if is_constant_value(one, 1.0) and scalar_op_name(other) == "exp":
            return other.owner.inputs[0]
    return None


def _replace(fgraph: Any, node: Any, new: Variable) -> list[Variable]:
    """``new`` as the replacement of ``node``'s output, with exactly its type and shape."""
    old = node.outputs[0]
    fitted = broadcast_like(new, old, fgraph)
    copy_stack_trace(old, fitted)
    return [fitted]


@register_stabilize("fast_compile")
@node_rewriter([Elemwise], op_test=elemwise_of("true_div", "reciprocal"))
def local_inv_1_plus_exp(fgraph: Any, node: Any) -> list[Variable] | None:
    """1/(1+exp(u)) -> sigmoid(-u) (also reciprocal(1+exp(u)))."""
    name = node.op.scalar_op.name
    if name == "true_div" and is_constant_value(node.inputs[0], 1.0):
        denominator = node.inputs[1]
    elif name == "reciprocal":
        denominator = node.inputs[0]
    else:
        return None
    u = _one_plus_exp_argument(denominator)
    if u is None:
        return None
    return _replace(fgraph, node, math.sigmoid(_negate(u)))


@register_stabilize("fast_compile")
@node_rewriter([Elemwise], op_test=elemwise_of("sub", "add"))
def local_1msigmoid(fgraph: Any, node: Any) -> list[Variable] | None:
    """1 - sigmoid(x) -> sigmoid(-x) (also 1 + (-sigmoid(x)))."""
    name = node.op.scalar_op.name
    if name == "sub":
        one, s = node.inputs
    elif name == "add" and len(node.inputs) == 2:
        a, b = node.inputs
        one, negated = (a, b) if scalar_op_name(b) == "neg" else (b, a)
        if scalar_op_name(negated) != "neg":
            return None
        s = negated.owner.inputs[0]
    else:
        return None
    if not is_constant_value(one, 1.0):
        return None
    if scalar_op_name(s) == "sigmoid":
        return _replace(fgraph, node, math.sigmoid(_negate(s.owner.inputs[0])))
    # 1 - view(sigmoid(x)) -> sigmoid(-view(x)): a reshape or dimshuffle of the elementwise
    # sigmoid is the sigmoid of the same view (log(1 - flatten(sigmoid(x))) stays finite)
    if s.owner is not None and isinstance(s.owner.op, _VIEWS) \
            and scalar_op_name(s.owner.inputs[0]) == "sigmoid":
        x = s.owner.inputs[0].owner.inputs[0]
        viewed = s.owner.op(x, *s.owner.inputs[1:])
        return _replace(fgraph, node, math.sigmoid(_negate(viewed)))
    return None


@register_stabilize("fast_compile")
@node_rewriter([Elemwise], op_test=elemwise_of("log"))
def local_log_sigmoid(fgraph: Any, node: Any) -> list[Variable] | None:
    """log(sigmoid(x)) -> -softplus(-x), finite for every x."""
    if node.op.scalar_op.name != "log" or scalar_op_name(node.inputs[0]) != "sigmoid":
        return None
    x = node.inputs[0].owner.inputs[0]
    return _replace(fgraph, node, math.neg(math.softplus(_negate(x))))


@register_stabilize("fast_compile")
@node_rewriter([Elemwise], op_test=elemwise_of("log"))
def local_log1p_exp(fgraph: Any, node: Any) -> list[Variable] | None:
    """log(1 + exp(x)) -> softplus(x), which does not overflow for large x."""
    if node.op.scalar_op.name != "log":
        return None
    u = _one_plus_exp_argument(node.inputs[0])
    if u is None:
        return None
    return _replace(fgraph, node, math.softplus(u))


@register_stabilize("fast_compile")
@node_rewriter([Elemwise], op_test=elemwise_of("mul"))
def local_cancel_div_mul(fgraph: Any, node: Any) -> list[Variable] | None:
    """(a / d) * d * rest -> a * rest.

    Gradients of log(f(x)) have this shape (``g / f * f'``, with ``f' = f * ...``); when ``f``
    underflows to 0 the uncancelled product is 0 * inf = NaN although the limit is finite.
    """
    if node.op.scalar_op.name != "mul":
        return None
    factors = mul_factors(node.outputs[0])
    for k, factor in enumerate(factors):
        if scalar_op_name(factor) != "true_div":
            continue
        numerator, denominator = factor.owner.inputs
        if denominator not in factors:
            continue
        rest = list(factors)
        rest.pop(k)
        rest.remove(denominator)
        product = math.mul(numerator, *rest) if rest else numerator
        return _replace(fgraph, node, product)
    return None


def _ratio_of_exp_products(fgraph: Any, node: Any) -> list[Variable] | None:
    """``num / den`` with factors ``1 + exp(u)`` of ``den``: each becomes ``sigmoid(u)`` with a
    factor ``exp(u)`` of ``num`` (``exp(u) / (1 + exp(u))``), else ``sigmoid(-u)``
    (``1 / (1 + exp(u))``). Constant factors of ``num`` equal to 1 are dropped and -1 becomes a
    negation. None when ``den`` has no such factor."""
    numerator, denominator = node.inputs
    num, den = mul_factors(numerator), mul_factors(denominator)
    kept_den, sigmoids = [], []
    for d in den:
        u = _one_plus_exp_argument(d)
        if u is None:
            kept_den.append(d)
            continue
        partner = next((f for f in num if scalar_op_name(f) == "exp"
                        and same_expression(f.owner.inputs[0], u)), None)
        if partner is not None:
            num.remove(partner)
            sigmoids.append(math.sigmoid(u))
        else:
            sigmoids.append(math.sigmoid(_negate(u)))
    if not sigmoids:
        return None
    ones = [f for f in num if is_constant_value(f, 1.0)]
    minus_ones = [f for f in num if is_constant_value(f, -1.0)]
    num = [f for f in num if f not in ones and f not in minus_ones]
    negated = len(minus_ones) % 2 == 1
    factors = num + sigmoids
    product = math.mul(*factors) if len(factors) > 1 else factors[0]
    if kept_den:
        product = math.true_div(product, math.mul(*kept_den) if len(kept_den) > 1
                                else kept_den[0])
    return _replace(fgraph, node, math.neg(product) if negated else product)


@register_stabilize("fast_compile")
@node_rewriter([Elemwise], op_test=elemwise_of("true_div", "mul"))
def local_exp_over_1_plus_exp(fgraph: Any, node: Any) -> list[Variable] | None:
    """exp(u)/(1+exp(u)) -> sigmoid(u), in any ratio of products (see
    :func:`_ratio_of_exp_products`: ``-exp(x) / ((1+exp(x)) * (1+exp(-x)))`` is
    ``-sigmoid(x) * sigmoid(x)``), also as factors of a product:
    (a / (1+exp(u))) * exp(u) * rest -> a * sigmoid(u) * rest.

    The derivative of 1/(1+exp(u)) has this shape; exp(u) overflows to inf for u > ~709 and the
    product becomes inf/inf = NaN, although sigmoid(u) is just 1."""
    name = node.op.scalar_op.name
    if name == "true_div":
        return _ratio_of_exp_products(fgraph, node)
    if name != "mul":
        return None
    factors = mul_factors(node.outputs[0])
    for k, factor in enumerate(factors):
        if scalar_op_name(factor) != "true_div":
            continue
        numerator, denominator = factor.owner.inputs
        u = _one_plus_exp_argument(denominator)
        if u is None:
            continue
        partner = next((f for f in factors if scalar_op_name(f) == "exp"
                        and f.owner.inputs[0] is u), None)
        if partner is None:
            continue
        rest = [f for j, f in enumerate(factors) if j != k]
        rest.remove(partner)
        return _replace(fgraph, node, math.mul(numerator, math.sigmoid(u), *rest))
    return None


#: Theano's flag saying whether its ``1 - sigmoid(x)`` rewrite is registered (Theano 1.0 had
#: turned it off); here :func:`local_1msigmoid` is, in stabilize
register_local_1msigmoid = True


@register_stabilize("fast_compile")
@register_specialize
@node_rewriter([Elemwise], op_test=elemwise_of("mul"))
def local_sigm_times_exp(fgraph: Any, node: Any) -> list[Variable] | None:
    """``exp(x) * sigmoid(-x)`` -> ``sigmoid(x)`` among the factors of a product, signs and
    nesting included (:func:`~jitgraph.tensor.rewriting.mul_tree.perform_sigm_times_exp`):
    finite where ``exp`` overflows (``inf * 0``)."""
    if node.op.scalar_op.name != "mul":
        return None
    tree = parse_mul_tree(node.outputs[0])
    if not perform_sigm_times_exp(tree):
        return None
    # a pair leaves a sigmoid behind, so the simplified product is never empty
    return _replace(fgraph, node, compute_mul(simplify_mul(tree)))


@node_rewriter([Elemwise], op_test=elemwise_of("sigmoid"))
def local_hard_sigmoid(fgraph: Any, node: Any) -> list[Variable] | None:
    """``sigmoid(x)`` -> ``clip(0.2 * x + 0.5, 0, 1)``, Theano's piecewise-linear
    approximation: cheaper, but off by up to 0.076 (at ``x = +-2.5``). Only on request (``mode.including('local_hard_sigmoid')``)."""
    if node.op.scalar_op.name != "sigmoid":
        return None
    return _replace(fgraph, node, hard_sigmoid(node.inputs[0]))


optdb["specialize"].register("local_hard_sigmoid", local_hard_sigmoid,
                             use_db_name_as_tag=False)  # selected by its name only
