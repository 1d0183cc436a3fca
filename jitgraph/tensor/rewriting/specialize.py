"""Specialization: small integer powers, division by constants, reductions of dimshuffles.

These run in the ``specialize`` phase (position 2, tag fast_run): they turn the canonical form
into cheaper operations, and are not needed for correctness or stability, so FAST_COMPILE skips
them. The canonical clean-ups (constants collected, ``--x``, ``x * -1``, useless fills and
dimshuffles) are registered here again because the stabilize phase can create such patterns.

* ``local_pow_specialize``: ``x ** n`` for a constant integer ``|n| <= 16`` -> ``sqr``/``mul``
  by repeated squaring (negative ``n``: ``reciprocal`` of that, floats only); ``x ** 0.5`` ->
  ``sqrt``; ``x ** -0.5`` -> ``reciprocal(sqrt(x))``.
* ``local_div_to_mul_constant``: ``x / c`` -> ``x * (1 / c)`` for a float constant ``c``
  (rounding can differ in the last bit, hence fast_run only).
* ``local_mul_self_to_sqr``: ``x * x`` -> ``sqr(x)``.
* ``local_argmax_pushdown``: ``argmax(f(x))`` -> ``argmax(x)`` (and ``argmin``) for ``f``
  increasing: ``exp``, ``tanh``, ``sigmoid``, ``softplus``, a softmax along the reduced axis;
  ``argmax(softmax_with_bias(x, b), axis=1)`` -> ``argmax(x + b, axis=1)``. The function is
  not computed at all, and where it rounds distinct values to one (``sigmoid(40)`` and
  ``sigmoid(50)`` are both 1.0) the index is that of the true maximum, as in Theano.
* ``local_sum_of_alloc``: ``sum(alloc(c, *dims), axes)`` -> ``alloc(c * prod(reduced dims),
  *kept dims)`` for a scalar ``c`` (just ``c``'s zeros when ``c`` is 0): a sum of a broadcast
  constant, as the difference of two equal computations leaves, is not computed.
* ``local_reduce_dimshuffle``: ``sum(dimshuffle(x), axes)`` (and every other reduction, so
  ``mean`` too) -> a reduction of ``x`` over the matching axes, followed by a dimshuffle of
  what is left.
"""

from __future__ import annotations

import numpy as np

from jitgraph.graph.basic import Apply, Constant, Variable
from jitgraph.graph.fg import FunctionGraph
from jitgraph.tensor.rewriting.canonicalize import (local_collect_constants, local_dimshuffle_merge,
                                           local_int_div_one, local_maximum_of_nonnegative,
                                           local_neg_mul_constant, local_neg_neg,
                                           local_sub_canonical, local_useless_cast,
                                           local_useless_dimshuffle, local_useless_fill,
                                           local_useless_switch)
from jitgraph.rewrite.context import copy_stack_trace
from jitgraph.rewrite.engine import node_rewriter
from jitgraph.rewrite.merge import MergeGraphRewriter
from jitgraph.rewrite.phases import register_specialize
from jitgraph.tensor.rewriting.utils import (broadcast_like, const_like_var, elemwise,
                                             elemwise_of, get_constant, scalar_constant,
                                             scalar_op_name)
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.elementwise.composite import Composite
from jitgraph.tensor.core.conversion import constant
from jitgraph.tensor.elementwise.elemwise import DimShuffle, Elemwise, dimshuffle
from jitgraph.tensor.elementwise.math import cast
from jitgraph.tensor.core.basic import Alloc, alloc
from jitgraph.tensor.elementwise.reduction import Argmax, Argmin, CAReduce, Sum
from jitgraph.tensor.neural.softmax_xent import SoftmaxWithBias
from jitgraph.tensor.nnet import Softmax

__all__: list[str] = []

register_specialize(MergeGraphRewriter("specialize_merge"), "merge", final=True)

# Also the integer identities: the shape graphs that specialize inserts (alloc sizes) need them.
for _rw in (local_collect_constants, local_neg_neg, local_neg_mul_constant, local_useless_fill,
            local_useless_dimshuffle, local_dimshuffle_merge, local_useless_cast,
            local_sub_canonical, local_int_div_one, local_maximum_of_nonnegative,
            local_useless_switch):
    register_specialize(_rw)

#: the largest integer exponent expanded into multiplications
MAX_POW_EXPONENT = 16


def _int_power(x: Variable, n: int) -> Variable:
    """``x ** n`` for an integer ``n >= 1`` by repeated squaring."""
    result: Variable | None = None
    base = x
    while True:
        if n & 1:
            result = base if result is None else elemwise("mul", result, base)
        n >>= 1
        if not n:
            break
        base = elemwise("sqr", base)
    assert result is not None
    return result


@register_specialize
@node_rewriter([Elemwise], op_test=elemwise_of("pow"))
def local_pow_specialize(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``x ** c`` for a few constants ``c``: sqr/mul chains, sqrt, reciprocal."""
    if scalar_op_name(node) != "pow":
        return None
    x, y = node.inputs
    out = node.outputs[0]
    c = get_constant(y)  # a uniform non-scalar exponent is fine: broadcast_like restores it
    if c is None or not np.isfinite(c) or c in (0, 1):
        return None  # 0 and 1 are canonicalize's
    is_float = dt.is_float(out.dtype)
    base = x if x.dtype == out.dtype else cast(x, out.dtype)
    if float(c) == int(c) and 0 < abs(int(c)) <= MAX_POW_EXPONENT:
        n = int(c)
        if n < 0 and not is_float:
            return None  # NumPy refuses negative integer powers of integers
        new = _int_power(base, abs(n))
        if n < 0:
            new = elemwise("reciprocal", new)
    elif is_float and c == 0.5:
        new = elemwise("sqrt", base)
    elif is_float and c == -0.5:
        new = elemwise("reciprocal", elemwise("sqrt", base))
    else:
        return None
    return [broadcast_like(new, out, fgraph)]


@register_specialize
@node_rewriter([Elemwise], op_test=elemwise_of("true_div"))
def local_div_to_mul_constant(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``x / c`` -> ``x * (1/c)`` for a non-zero float constant ``c`` (a multiplication is
    cheaper than a division; the result can differ in the last bit)."""
    if scalar_op_name(node) != "true_div":
        return None
    x, y = node.inputs
    out = node.outputs[0]
    c = scalar_constant(y)
    if c is None or not dt.is_float(out.dtype) or dt.is_discrete(y.dtype):
        return None
    with np.errstate(all="ignore"):
        inv = np.asarray(1, dtype=out.dtype) / np.asarray(c, dtype=out.dtype)
    if c == 0 or not np.isfinite(inv):
        return None
    new = elemwise("mul", x, const_like_var(inv, out))
    if new.dtype != out.dtype:
        return None
    return [broadcast_like(new, out, fgraph)]


@register_specialize
@node_rewriter([Elemwise], op_test=elemwise_of("mul"))
def local_mul_self_to_sqr(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``x * x`` -> ``sqr(x)`` (and ``x * x * y`` -> ``sqr(x) * y``)."""
    if scalar_op_name(node) != "mul" or len(node.inputs) < 2:
        return None
    inputs = list(node.inputs)
    for i in range(len(inputs)):
        for j in range(i + 1, len(inputs)):
            if inputs[i] is inputs[j] and inputs[i].dtype == node.outputs[0].dtype:
                sq = elemwise("sqr", inputs[i])
                rest = [v for k, v in enumerate(inputs) if k not in (i, j)]
                new = elemwise("mul", sq, *rest) if rest else sq
                return [broadcast_like(new, node.outputs[0], fgraph)]
    return None


@register_specialize
@node_rewriter([CAReduce])
def local_reduce_dimshuffle(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``reduce(dimshuffle(x), axes)`` -> ``dimshuffle(reduce(x, matching axes))``.

    Reduced axes that the dimshuffle inserted have length 1 and disappear; the others map to
    axes of ``x``. What survives is reordered by a DimShuffle of the (smaller) result.
    """
    op = node.op
    if op.pre_op is not None or len(node.inputs) != 1:
        return None
    ds = node.inputs[0]
    if ds.owner is None or not isinstance(ds.owner.op, DimShuffle):
        return None
    x = ds.owner.inputs[0]
    order = ds.owner.op.new_order
    reduced = op.reduced_axes(ds.ndim)
    x_axes = sorted(order[k] for k in reduced if order[k] != "x")
    kept_out = [k for k in range(ds.ndim) if k not in reduced]
    out = node.outputs[0]
    if not x_axes:
        if out.dtype != x.dtype:
            return None  # nothing left to reduce, but the reduction changes the dtype
        new = dimshuffle(x, [order[k] for k in kept_out])
        return [broadcast_like(new, out, fgraph)]
    axis = None if len(x_axes) == x.ndim else tuple(x_axes)
    reduced_x = op.clone_with(axis=axis)(x)
    remaining = [d for d in range(x.ndim) if d not in x_axes]
    pattern = ["x" if order[k] == "x" else remaining.index(order[k]) for k in kept_out]
    new = dimshuffle(reduced_x, pattern)
    if new.dtype != out.dtype:
        return None
    return [broadcast_like(new, out, fgraph)]


#: elementwise functions that are increasing everywhere (no NaN where the input is finite)
_INCREASING = ("exp", "tanh", "sigmoid", "softplus")


def _order_preserved_input(v: Variable, axes: tuple[int, ...]) -> Variable | None:
    """``x`` when ``v = f(x)`` orders the entries of each lane along ``axes`` as ``x`` does."""
    node = v.owner
    if node is None:
        return None
    if isinstance(node.op, Elemwise) and len(node.inputs) == 1 \
            and scalar_op_name(node) in _INCREASING:
        return node.inputs[0]
    if type(node.op) is Softmax:
        softmax_axes = tuple(range(v.ndim)) if node.op.axis is None else (node.op.axis % v.ndim,)
        return node.inputs[0] if softmax_axes == axes else None
    if isinstance(node.op, SoftmaxWithBias) and axes == (1,):
        x, b = node.inputs
        row_b = dimshuffle(b, ["x", 0])
        biased = elemwise("add", x, row_b)
        copy_stack_trace(v, [row_b, biased])  # errors in them point at the softmax
        return biased
    return None


@register_specialize
@node_rewriter([Argmax, Argmin])
def local_argmax_pushdown(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``argmax(f(x))`` -> ``argmax(x)`` for an ``f`` that keeps the order (see the module
    docstring); repeated until no such ``f`` is left."""
    arg = node.inputs[0]
    axes = tuple(range(arg.ndim)) if node.op.axis is None else tuple(node.op.axis)
    x = _order_preserved_input(arg, axes)
    if x is None:
        return None
    while True:
        inner = _order_preserved_input(x, axes)
        if inner is None:
            break
        x = inner
    new = type(node.op)(node.op.axis)(x)
    copy_stack_trace(node.outputs[0], new)
    return [broadcast_like(new, node.outputs[0], fgraph)]


@register_specialize
@node_rewriter([Sum])
def local_sum_of_alloc(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``sum(alloc(c, *dims), axes)`` -> ``alloc(c * prod(reduced dims), *kept dims)``."""
    spread = node.inputs[0]
    if node.op.pre_op is not None or spread.owner is None \
            or not isinstance(spread.owner.op, Alloc):
        return None
    value, *dims = spread.owner.inputs
    if not all(value.broadcastable):
        return None
    value = dimshuffle(value, [])  # one number, whatever its broadcastable dims
    out = node.outputs[0]
    axes = node.op.reduced_axes(spread.ndim)
    total = cast(value, out.dtype)
    if get_constant(value) != 0:
        for d in axes:
            total = elemwise("mul", total, cast(dims[d], out.dtype))
    kept = [d for k, d in enumerate(dims) if k not in axes]
    return [broadcast_like(alloc(total, *kept) if kept else total, out, fgraph)]


def _computes_in_output_dtype(op: Elemwise) -> bool:
    """An Elemwise (out of place) whose scalar op casts every input to its output dtype."""
    sop = op.scalar_op
    return sop.cast_inputs == "all" and not isinstance(sop, Composite) and not op.inplace_pattern


@register_specialize
@node_rewriter([Elemwise], op_test=_computes_in_output_dtype)
def local_upcast_constant_inputs(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """Constants of an elementwise node that computes in its output dtype (a table row that
    casts every input to it: ``add``, ``mul``, ``maximum``, ...) stored in that dtype: ``5 * x``
    with a float64 ``x`` holds ``5.0``, as Theano 1.0's FAST_RUN graphs print. The kernel
    computes the same numbers: the node converted the constant to that dtype anyway. (A fused
    Composite does not cast its inputs: its inner graph fixes their dtypes.)"""
    if not _computes_in_output_dtype(node.op):
        return None
    dtype = node.outputs[0].dtype
    inputs = [_in_dtype(inp, dtype) if isinstance(inp, Constant) else inp
              for inp in node.inputs]
    if all(new is old for new, old in zip(inputs, node.inputs)) or \
            any(new.broadcastable != old.broadcastable for new, old in zip(inputs, node.inputs)):
        return None
    new = node.op(*inputs)
    return [new] if new.type == node.outputs[0].type else None


def _in_dtype(const: Constant, dtype: str) -> Variable:
    """``const`` stored as ``dtype`` (itself when it already is)."""
    if const.dtype == dtype:
        return const
    with np.errstate(all="ignore"):
        return constant(np.asarray(const.data).astype(dtype), name=const.name)
