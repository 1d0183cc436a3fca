"""Numerical stabilization: log1p, expm1, log_softmax, logsumexp, stable cross-entropies and
their gradients.

Registered in ``stabilize`` (position 1.5, tag fast_run). The sigmoid family (``1/(1+exp(-x))``,
``1 - sigmoid``, ``log(sigmoid)``) lives in :mod:`jitgraph.tensor.rewriting.sigmoid`; binary cross-entropy
of a sigmoid is stabilised by those rewrites.

* ``local_log1p``: ``log(1 + x)`` -> ``log1p(x)``, ``log(1 - x)`` -> ``log1p(-x)``;
  ``log1p(exp(x))`` -> ``softplus(x)``.
* ``local_expm1``: ``exp(x) - 1`` -> ``expm1(x)``.
* ``local_log_softmax`` (also fast_compile): ``log(softmax(x))`` -> ``log_softmax(x)``, also
  through indexing (``log(softmax(x)[i, y])`` -> ``log_softmax(x)[i, y]``).
* ``local_softmax_of_exp_ratio``: ``exp(x) / sum(exp(x), axis, keepdims=True)`` (one axis, or
  all) -> ``softmax(x, axis)``, which cannot overflow (the ratio is NaN once ``exp`` does).
* ``local_logsumexp``: ``log(sum(exp(x), axis))`` -> ``m + log(sum(exp(x - m), axis))`` with
  ``m = max(x, axis)`` (0 where ``m`` is infinite, so all-``-inf`` rows stay ``-inf``);
  ``local_logsumexp_grad``: its gradient ``g / sum(exp(x)) * exp(x)`` -> ``g * softmax(x)``.
* ``local_crossentropy_softmax`` (also fast_compile):
  ``CrossentropyCategorical1Hot(softmax(x), y)`` -> ``-log_softmax(x)[arange(n), y]``.
* ``local_softmax_grad_stable`` (also fast_compile): the softmax gradient
  ``(G - sum(G * sm)) * sm`` with ``G * sm`` known in closed form ``h`` (``G = h / sm``, the
  one-hot cross-entropy gradient, or an indexed ``h / sm[idx]``) -> ``h - sum(h) * sm``. This
  is what keeps the gradient of a softmax cross-entropy finite when a probability underflows.

The ones tagged ``fast_compile`` are what FAST_COMPILE needs for finite gradients of a softmax
cross-entropy (the MLP example).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.fg import FunctionGraph
from jitgraph.rewrite.engine import node_rewriter
from jitgraph.rewrite.merge import MergeGraphRewriter
from jitgraph.rewrite.phases import register_stabilize
from jitgraph.tensor.rewriting.utils import (broadcast_like, elemwise, elemwise_of,
                                             is_constant_value, is_elemwise, mul_factors,
                                             same_expression, scalar_constant, scalar_op_name,
                                             shape_of)
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.extras.extra_ops import arange
from jitgraph.tensor.core.conversion import constant
from jitgraph.tensor.elementwise.elemwise import DimShuffle, Elemwise, dimshuffle
from jitgraph.tensor.elementwise.math import cast
from jitgraph.tensor.nnet import (CrossentropyCategorical1Hot, CrossentropyCategorical1HotGrad,
                                  LogSoftmax, Softmax)
from jitgraph.tensor.elementwise.reduction import Max, Sum
from jitgraph.tensor.indexing.subtensor_ops import (AdvancedIncSubtensor, AdvancedIncSubtensor1,
                                          AdvancedSubtensor, AdvancedSubtensor1, Subtensor)

__all__: list[str] = []

# Stabilizations build new nodes that often duplicate existing ones (two sigmoid(-x) from two
# rewrites); merging after every sweep lets the next sweep see them as one variable.
register_stabilize(MergeGraphRewriter("stabilize_merge"), "fast_compile", "merge", final=True)

_INDEXING = (Subtensor, AdvancedSubtensor, AdvancedSubtensor1)


def _in_dtype(x: Variable, dtype: str) -> Variable:
    return x if x.dtype == dtype else cast(x, dtype)


# ---------------------------------------------------------------------------------------------
# log1p, expm1

@register_stabilize
@node_rewriter([Elemwise], op_test=elemwise_of("log1p", "log"))
def local_log1p(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``log(1 + x)`` -> ``log1p(x)``; ``log(1 - x)`` -> ``log1p(-x)``;
    ``log1p(exp(x))`` -> ``softplus(x)``."""
    name = scalar_op_name(node)
    out = node.outputs[0]
    arg = node.inputs[0]
    if name == "log1p":
        if is_elemwise(arg, "exp"):
            return [broadcast_like(elemwise("softplus", arg.owner.inputs[0]), out, fgraph)]
        return None
    if name != "log":
        return None
    work = arg.dtype  # where the sum was computed; log1p of it gives log's output dtype
    if is_elemwise(arg, "add"):
        inputs = arg.owner.inputs
        ones = [k for k, i in enumerate(inputs)
                if scalar_constant(i) is not None and is_constant_value(i, 1)]
        if not ones:
            return None
        rest = [i for k, i in enumerate(inputs) if k != ones[0]]
        x = rest[0] if len(rest) == 1 else elemwise("add", *rest)
    elif is_elemwise(arg, "sub"):
        one, y = arg.owner.inputs
        if scalar_constant(one) is None or not is_constant_value(one, 1) or dt.is_discrete(work):
            return None
        x = elemwise("neg", _in_dtype(y, work))
    else:
        return None
    new = elemwise("log1p", _in_dtype(x, work))
    if new.dtype != out.dtype:
        return None
    return [broadcast_like(new, out, fgraph)]


@register_stabilize
@node_rewriter([Elemwise], op_test=elemwise_of("sub", "add"))
def local_expm1(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``exp(x) - 1`` -> ``expm1(x)`` (also ``exp(x) + (-1) + y`` -> ``expm1(x) + y``)."""
    name = scalar_op_name(node)
    out = node.outputs[0]
    if name == "sub":
        e, one = node.inputs
        if not is_elemwise(e, "exp") or scalar_constant(one) is None \
                or not is_constant_value(one, 1):
            return None
        new = elemwise("expm1", _in_dtype(e.owner.inputs[0], out.dtype))
    elif name == "add":
        inputs = list(node.inputs)
        exps = [k for k, i in enumerate(inputs) if is_elemwise(i, "exp")]
        mones = [k for k, i in enumerate(inputs)
                 if scalar_constant(i) is not None and is_constant_value(i, -1)]
        if not exps or not mones:
            return None
        rest = [i for k, i in enumerate(inputs) if k not in (exps[0], mones[0])]
        em1 = elemwise("expm1", _in_dtype(inputs[exps[0]].owner.inputs[0], out.dtype))
        new = elemwise("add", em1, *rest) if rest else em1
    else:
        return None
    if new.dtype != out.dtype:
        return None
    return [broadcast_like(new, out, fgraph)]


# ---------------------------------------------------------------------------------------------
# softmax

def _is_softmax(v: Variable) -> bool:
    return v.owner is not None and type(v.owner.op) is Softmax


@register_stabilize("fast_compile")
@node_rewriter([Elemwise], op_test=elemwise_of("log"))
def local_log_softmax(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``log(softmax(x))`` -> ``log_softmax(x)``; ``log(softmax(x)[idx])`` ->
    ``log_softmax(x)[idx]`` (basic or advanced indexing)."""
    if scalar_op_name(node) != "log":
        return None
    arg = node.inputs[0]
    out = node.outputs[0]
    if _is_softmax(arg):
        sm = arg.owner
        return [broadcast_like(LogSoftmax(sm.op.axis)(sm.inputs[0]), out, fgraph)]
    if arg.owner is not None and isinstance(arg.owner.op, _INDEXING) \
            and _is_softmax(arg.owner.inputs[0]):
        sm = arg.owner.inputs[0].owner
        logsm = LogSoftmax(sm.op.axis)(sm.inputs[0])
        new = arg.owner.op(logsm, *arg.owner.inputs[1:])
        return [broadcast_like(new, out, fgraph)]
    return None


def _kept_sum_of(v: Variable) -> tuple[Variable, tuple[int, ...]] | None:
    """``(e, axes)`` when ``v`` is ``sum(e, axes)`` with the reduced axes put back as length 1
    in place (``keepdims=True``)."""
    if v.owner is None or not isinstance(v.owner.op, DimShuffle):
        return None
    s = v.owner.inputs[0]
    if s.owner is None or not isinstance(s.owner.op, Sum) or s.owner.op.pre_op is not None:
        return None
    e = s.owner.inputs[0]
    axes = s.owner.op.reduced_axes(e.ndim)
    kept = iter(range(e.ndim - len(axes)))
    if list(v.owner.op.new_order) != ["x" if d in axes else next(kept) for d in range(e.ndim)]:
        return None
    return e, axes


@register_stabilize
@node_rewriter([Elemwise], op_test=elemwise_of("true_div"))
def local_softmax_of_exp_ratio(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``exp(x) / sum(exp(x), axis, keepdims=True)`` -> ``softmax(x, axis)``."""
    if scalar_op_name(node) != "true_div":
        return None
    e, kept_sum = node.inputs
    found = _kept_sum_of(kept_sum)
    if found is None or found[0] is not e or not is_elemwise(e, "exp"):
        return None
    axes = found[1]
    if len(axes) == e.ndim:
        axis = None
    elif len(axes) == 1:
        axis = axes[0]
    else:
        return None
    new = Softmax(axis)(e.owner.inputs[0])
    if new.dtype != node.outputs[0].dtype:
        return None
    return [broadcast_like(new, node.outputs[0], fgraph)]


@register_stabilize("fast_compile")
@node_rewriter([CrossentropyCategorical1Hot])
def local_crossentropy_softmax(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``crossentropy_categorical_1hot(softmax(x), y)`` -> ``-log_softmax(x)[arange(n), y]``
    (finite however small the probability of the true class)."""
    sm, y = node.inputs
    if not _is_softmax(sm) or sm.ndim != 2 or sm.owner.op.axis not in (1, -1):
        return None
    x = sm.owner.inputs[0]
    n = shape_of(fgraph, sm)[0]
    logsm = LogSoftmax(sm.owner.op.axis)(x)
    picked = AdvancedSubtensor(("array", "array"))(logsm, arange(n), y)
    return [broadcast_like(elemwise("neg", picked), node.outputs[0], fgraph)]


def _through_dimshuffle(v: Variable) -> Variable:
    if v.owner is not None and isinstance(v.owner.op, DimShuffle):
        return v.owner.inputs[0]
    return v


def _sum_keepdims_of(v: Variable, axis: tuple[int, ...] | None, ndim: int) -> Variable | None:
    """The summand ``p`` if ``v`` is ``sum(p, axis, keepdims=True)`` (a DimShuffle that puts
    back the reduced axes), else None."""
    s = _through_dimshuffle(v)
    if s is v or s.owner is None or not isinstance(s.owner.op, Sum) or s.owner.op.pre_op:
        return None
    p = s.owner.inputs[0]
    if p.ndim != ndim or s.owner.op.reduced_axes(ndim) != (tuple(range(ndim)) if axis is None
                                                         else axis):
        return None
    return p


def _strip_fill(v: Variable) -> Variable:
    while is_elemwise(v, "second"):
        v = v.owner.inputs[1]
    return v


def _softmax_axes(sm: Variable) -> tuple[int, ...] | None:
    axis = sm.owner.op.axis
    return None if axis is None else (axis % sm.ndim,)


def _products_with_sm(fgraph: FunctionGraph, G: Variable, sm: Variable
                      ) -> tuple[Variable, list[Variable]] | None:
    """``(h, forms)``: the closed form ``h`` of ``G * sm`` and the variables that may stand for
    that product inside the gradient's sum."""
    forms: list[Variable] = []
    if is_elemwise(G, "true_div") and G.owner.inputs[1] is sm:
        h = G.owner.inputs[0]
        forms.append(h)
    elif G.owner is not None and isinstance(G.owner.op, CrossentropyCategorical1HotGrad) \
            and G.owner.inputs[1] is sm:
        g, _, labels = G.owner.inputs
        classes = arange(shape_of(fgraph, sm)[1])
        onehot = elemwise("eq", dimshuffle(labels, (0, "x")), dimshuffle(classes, ("x", 0)))
        h = elemwise("mul", elemwise("neg", dimshuffle(g, (0, "x"))),
                     cast(onehot, sm.dtype))
    elif G.owner is not None and isinstance(G.owner.op, (AdvancedIncSubtensor,
                                                          AdvancedIncSubtensor1)) \
            and not G.owner.op.set_instead_of_inc and is_constant_value(G.owner.inputs[0], 0):
        zeros, val, *idx = G.owner.inputs
        val = _strip_fill(val)
        if not is_elemwise(val, "true_div"):
            return None
        num, den = val.owner.inputs
        picked = den.owner
        if picked is None or picked.op != _indexing_of(G.owner.op) or picked.inputs[0] is not sm \
                or list(picked.inputs[1:]) != list(idx):
            return None
        h = G.owner.op(zeros, num, *idx)
    else:
        return None
    return h, forms


def _indexing_of(op: Any) -> Any:
    if isinstance(op, AdvancedIncSubtensor):
        return AdvancedSubtensor(op.idx_list)
    return AdvancedSubtensor1()


@register_stabilize("fast_compile")
@node_rewriter([Elemwise], op_test=elemwise_of("mul"))
def local_softmax_grad_stable(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``(G - sum(G * sm, axis, keepdims)) * sm`` -> ``h - sum(h, axis, keepdims) * sm``
    where ``sm = softmax(x, axis)`` and ``G * sm == h`` in closed form."""
    if scalar_op_name(node) != "mul" or len(node.inputs) != 2:
        return None
    out = node.outputs[0]
    for sm, d in (node.inputs, node.inputs[::-1]):
        if not _is_softmax(sm) or not is_elemwise(d, "sub"):
            continue
        G, S = d.owner.inputs
        G = _strip_fill(G)  # fills only repeat the shape G already has (sm's)
        axes = _softmax_axes(sm)
        p = _sum_keepdims_of(S, axes, sm.ndim)
        if p is None:
            continue
        p = _strip_fill(p)
        found = _products_with_sm(fgraph, G, sm)
        if found is None:
            continue
        h, forms = found
        if h.broadcastable != sm.broadcastable:
            h = elemwise("second", sm, h)  # G * sm has sm's shape, whatever h's is
        is_product = is_elemwise(p, "mul") and len(p.owner.inputs) == 2 and \
            {id(i) for i in p.owner.inputs} == {id(G), id(sm)}
        if not is_product and not any(p is f for f in forms):
            continue
        h = _in_dtype(h, out.dtype)
        total = Sum(None if axes is None or len(axes) == sm.ndim else axes)(h)
        kept = dimshuffle(total, ["x" if axes is None or k in axes else
                                  k - sum(1 for a in (axes or ()) if a < k)
                                  for k in range(sm.ndim)])
        new = elemwise("sub", h, elemwise("mul", _in_dtype(kept, out.dtype), sm))
        return [broadcast_like(new, out, fgraph)]
    return None


# ---------------------------------------------------------------------------------------------
# logsumexp

def _shifted_by_max(x: Variable) -> bool:
    """True for ``x - max(...)`` (possibly made safe by a switch): already stabilized."""
    if not is_elemwise(x, "sub"):
        return False
    m = _through_dimshuffle(x.owner.inputs[1])
    if is_elemwise(m, "switch"):
        m = m.owner.inputs[2]
    return m.owner is not None and isinstance(m.owner.op, Max)


@register_stabilize
@node_rewriter([Elemwise], op_test=elemwise_of("log"))
def local_logsumexp(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``log(sum(exp(x), axis))`` -> ``m + log(sum(exp(x - m), axis))``, ``m = max(x, axis)``
    (with ``m`` replaced by 0 where it is infinite)."""
    if scalar_op_name(node) != "log":
        return None
    out = node.outputs[0]
    arg = node.inputs[0]
    pattern = None
    s = arg
    if arg.owner is not None and isinstance(arg.owner.op, DimShuffle):
        pattern = arg.owner.op.new_order
        s = arg.owner.inputs[0]
    if s.owner is None or not isinstance(s.owner.op, Sum) or s.owner.op.pre_op is not None:
        return None
    e = s.owner.inputs[0]
    if not is_elemwise(e, "exp") or e.dtype != s.dtype:
        return None
    x = e.owner.inputs[0]
    if dt.is_discrete(x.dtype) or _shifted_by_max(x):
        return None
    axes = s.owner.op.reduced_axes(x.ndim)
    m = Max(s.owner.op.axis)(x)
    zero = constant(np.zeros((), dtype=m.dtype))
    m_safe = elemwise("switch", elemwise("isinf", m), zero, m)
    it = iter(range(x.ndim - len(axes)))
    m_keep = dimshuffle(m_safe, ["x" if d in axes else next(it) for d in range(x.ndim)])
    shifted = Sum(s.owner.op.axis, dtype=s.owner.op.dtype,
                  acc_dtype=s.owner.op.acc_dtype)(elemwise("exp", elemwise("sub", x, m_keep)))
    new = elemwise("add", _in_dtype(m_safe, shifted.dtype), elemwise("log", shifted))
    if pattern is not None:
        new = dimshuffle(new, pattern)
    if new.dtype != out.dtype:
        return None
    return [broadcast_like(new, out, fgraph)]


@register_stabilize
@node_rewriter([Elemwise], op_test=elemwise_of("mul"))
def local_logsumexp_grad(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``(g / sum(exp(x), axis))[keepdims] * exp(x)`` -> ``g[keepdims] * softmax(x, axis)``:
    the gradient of ``log(sum(exp(x)))``, finite where ``exp(x)`` overflows."""
    if scalar_op_name(node) != "mul" or len(node.inputs) != 2:
        return None
    out = node.outputs[0]
    for q, e in (node.inputs, node.inputs[::-1]):
        if not is_elemwise(e, "exp") or q.owner is None or not isinstance(q.owner.op,
                                                                          DimShuffle):
            continue
        ratio = q.owner.inputs[0]
        if not is_elemwise(ratio, "true_div"):
            continue
        g, s = ratio.owner.inputs
        if s.owner is None or not isinstance(s.owner.op, Sum) or s.owner.inputs[0] is not e:
            continue
        x = e.owner.inputs[0]
        axes = s.owner.op.reduced_axes(x.ndim)
        if len(axes) == x.ndim:
            axis = None
        elif len(axes) == 1:
            axis = axes[0]
        else:
            continue
        sm = Softmax(axis)(x)
        g_keep = q.owner.op(g)
        new = elemwise("mul", g_keep, sm)
        if new.dtype != out.dtype:
            continue
        return [broadcast_like(new, out, fgraph)]
    return None


# ---------------------------------------------------------------------------------------------
# Cancelling divisions through a sum

@register_stabilize("fast_compile")
@node_rewriter([Elemwise], op_test=elemwise_of("mul"))
def local_mul_div_distribute(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``(a / d1 - b / d2) * d1 * d2 * r`` -> ``a * d2 * r - b * d1 * r``.

    Distributes a product over a sum (add or sub, terms possibly negated) when *every* term is
    a division by one of the product's other factors, so that each division cancels. Gradients
    of cross-entropies have this shape (``(-t / s + (1 - t) / (1 - s)) * s * (1 - s)`` for a
    sigmoid ``s``), and are NaN as written once ``s`` rounds to 0 or 1.
    """
    if scalar_op_name(node) != "mul" or len(node.inputs) < 2:
        return None
    out = node.outputs[0]
    factors = mul_factors(out)
    for k, total in enumerate(factors):
        kind = scalar_op_name(total)
        if kind not in ("add", "sub") or total.dtype != out.dtype:
            continue
        others = [v for j, v in enumerate(factors) if j != k]
        new_terms = []
        for term in total.owner.inputs:
            negated = is_elemwise(term, "neg")
            t = term.owner.inputs[0] if negated else term
            if not is_elemwise(t, "true_div") or t.dtype != out.dtype:
                break
            num, den = t.owner.inputs
            at = next((j for j, f in enumerate(others) if same_expression(f, den)), None)
            if at is None:
                break
            rest = others[:at] + others[at + 1:]
            prod = elemwise("mul", num, *rest) if rest else num
            new_terms.append(elemwise("neg", prod) if negated else prod)
        else:
            new = elemwise(kind, *new_terms)
            if new.dtype != out.dtype:
                continue
            return [broadcast_like(new, out, fgraph)]
    return None
