"""Canonicalization: algebraic identities, flattening add/mul chains, collecting constants,
merging dimshuffles and casts, removing useless ops.

Everything here is registered with ``register_canonicalize`` (tags fast_run, fast_compile), so it
also runs under FAST_COMPILE; the trivial removals are in the ``useless`` pass too. The rewrites
bring graphs to one form so that the later phases only have to recognise that form:

* add/mul chains are flat n-ary nodes with at most one constant, which is never the identity;
* negation is ``neg(x)`` or ``x - y`` (``x + -y`` -> ``x - y``, ``-(x * c)`` -> ``x * -c``,
  ``x * -1`` -> ``-x``, ``--x`` -> ``x``);
* ``fill`` (``second``) is pushed towards the outputs, where it disappears once the shapes are
  provably equal.

Floating-point identities that would change a NaN or an infinity into a number are applied only
where the issue asks for them (``x - x`` -> 0 and ``x / x`` -> 1, as in Theano). ``x * 0`` is
**not** simplified for floats (``inf * 0`` is NaN); it is for integer dtypes, where it is exact.
Combining constants reassociates floating-point sums and products (``(x + 1) + 2`` ->
``x + 3``), which can change the last bits of a result.
"""

from __future__ import annotations

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.fg import FunctionGraph
from jitgraph.rewrite.engine import node_rewriter
from jitgraph.rewrite.phases import register_canonicalize, register_useless
from jitgraph.tensor.rewriting.utils import (broadcast_like, const_like_var, elemwise,
                                             elemwise_of, fill, get_constant, is_constant_value,
                                             is_elemwise, is_scalar_like, same_dim,
                                             same_expression, same_shape, scalar_constant,
                                             scalar_op_name, shape_of, single_client)
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.core.basic import Join
from jitgraph.tensor.elementwise.elemwise import DimShuffle, Elemwise, dimshuffle
from jitgraph.tensor.elementwise.math import cast
from jitgraph.tensor.elementwise.reduction import CAReduce
from jitgraph.tensor.elementwise.scalar_ops import Cast, op as scalar_op
from jitgraph.tensor.shaping.shape import Shape_i
from jitgraph.tensor.indexing.subtensor_ops import Subtensor
from jitgraph.tensor.indexing.index_encoding import index_vars
from jitgraph.tensor.extras.sort import TopKOp

__all__: list[str] = []


def _signed_or_float(dtype: str) -> bool:
    """Negation is exact (no wrap-around) and keeps the dtype."""
    return dtype not in ("bool",) and not dtype.startswith("uint")


# ---------------------------------------------------------------------------------------------
# DimShuffle

@register_useless
@register_canonicalize
@node_rewriter([DimShuffle])
def local_useless_dimshuffle(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """A DimShuffle that keeps every axis in place is its input."""
    x = node.inputs[0]
    if node.op.new_order == tuple(range(x.ndim)) and x.type == node.outputs[0].type:
        return [x]
    return None


@register_canonicalize
@node_rewriter([DimShuffle])
def local_dimshuffle_merge(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``dimshuffle(dimshuffle(x, p1), p2)`` -> one ``dimshuffle(x, p)`` (or ``x``)."""
    inner = node.inputs[0]
    if inner.owner is None or not isinstance(inner.owner.op, DimShuffle):
        return None
    first = inner.owner.op.new_order
    composed = ["x" if o == "x" else first[o] for o in node.op.new_order]
    x = inner.owner.inputs[0]
    return [broadcast_like(dimshuffle(x, composed), node.outputs[0], fgraph)]


# ---------------------------------------------------------------------------------------------
# Join

@register_useless
@register_canonicalize
@node_rewriter([Join])
def local_join_1(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """A Join of one tensor (``Join()(axis, x)`` builds one) is that tensor."""
    if len(node.inputs) == 1 and node.inputs[0].type == node.outputs[0].type:
        return [node.inputs[0]]
    return None


# ---------------------------------------------------------------------------------------------
# Casts

@register_useless
@register_canonicalize
@node_rewriter([Elemwise], op_test=elemwise_of("cast"))
def local_useless_cast(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """A cast to the dtype its input already has is its input."""
    if scalar_op_name(node) != "cast":
        return None
    x = node.inputs[0]
    if x.type == node.outputs[0].type:
        return [x]
    return None


@register_canonicalize
@node_rewriter([Elemwise], op_test=elemwise_of("cast"))
def local_cast_merge(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``cast(cast(x, t1), t2)`` -> ``cast(x, t2)`` when the first cast loses nothing."""
    if scalar_op_name(node) != "cast":
        return None
    inner = node.inputs[0]
    if scalar_op_name(inner) != "cast":
        return None
    x = inner.owner.inputs[0]
    if not np.can_cast(x.dtype, inner.dtype, "safe"):
        return None
    new = x if x.dtype == node.outputs[0].dtype else Elemwise(Cast(node.outputs[0].dtype))(x)
    return [broadcast_like(new, node.outputs[0], fgraph)]


# ---------------------------------------------------------------------------------------------
# add / mul chains

def _flatten_inputs(fgraph: FunctionGraph, node: Apply, name: str) -> list[Variable] | None:
    """The inputs of an add/mul node with nested same-op nodes (used only here, and of the
    same dtype) spliced in; None if there is nothing to splice."""
    out_dtype = node.outputs[0].dtype
    flat: list[Variable] = []
    changed = False
    for inp in node.inputs:
        if (is_elemwise(inp, name) and inp.dtype == out_dtype and single_client(fgraph, inp)):
            flat.extend(inp.owner.inputs)
            changed = True
        else:
            flat.append(inp)
    return flat if changed else None


@register_canonicalize
@node_rewriter([Elemwise], op_test=elemwise_of("add", "mul"))
def local_add_mul_flatten(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``add(add(a, b), c)`` -> ``add(a, b, c)`` (and the same for mul)."""
    name = scalar_op_name(node)
    if name not in ("add", "mul"):
        return None
    flat = _flatten_inputs(fgraph, node, name)
    if flat is None:
        return None
    return [broadcast_like(elemwise(name, *flat), node.outputs[0], fgraph)]


@register_canonicalize
@node_rewriter([Elemwise], op_test=elemwise_of("add", "mul"))
def local_collect_constants(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """Fold the scalar constants of an add/mul node into one; drop it when it is the identity
    (``x + 0``, ``x * 1``); ``x * -1`` -> ``-x``; integer ``x * 0`` -> zeros.

    The constants are combined in the node's output dtype, which is where the node itself
    computes (so ``int8`` literals cannot overflow where the original did not).
    """
    name = scalar_op_name(node)
    if name not in ("add", "mul"):
        return None
    out = node.outputs[0]
    consts, others = [], []
    for inp in node.inputs:
        c = scalar_constant(inp)
        (others if c is None else consts).append(inp if c is None else c)
    if not consts:
        return None
    sop = scalar_op(name)
    with np.errstate(all="ignore"):
        value = sop.compute([np.asarray(c) for c in consts], out.dtype)[()]
    identity = 0 if name == "add" else 1
    if name == "mul" and value == 0 and dt.is_discrete(out.dtype):
        model = others[0] if others else node.inputs[0]
        return [broadcast_like(fill(model, const_like_var(0, out)), out, fgraph)]
    if others and value == identity:
        new = others[0] if len(others) == 1 else elemwise(name, *others)
        return [broadcast_like(new, out, fgraph)]
    if (name == "mul" and value == -1 and len(others) == 1 and _signed_or_float(out.dtype)
            and others[0].dtype == out.dtype):
        return [broadcast_like(elemwise("neg", others[0]), out, fgraph)]
    if len(consts) < 2 or not others:
        return None  # one constant is the canonical form; constant folding does all-constant
    new = elemwise(name, *others, const_like_var(value, out))
    return [broadcast_like(new, out, fgraph)]


# ---------------------------------------------------------------------------------------------
# neg / sub

@register_canonicalize
@node_rewriter([Elemwise], op_test=elemwise_of("neg"))
def local_neg_neg(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``-(-x)`` -> ``x``; ``-(x - y)`` -> ``y - x``."""
    if scalar_op_name(node) != "neg":
        return None
    inner = node.inputs[0]
    if is_elemwise(inner, "neg"):
        return [broadcast_like(inner.owner.inputs[0], node.outputs[0], fgraph)]
    if is_elemwise(inner, "sub") and single_client(fgraph, inner):
        a, b = inner.owner.inputs
        return [broadcast_like(elemwise("sub", b, a), node.outputs[0], fgraph)]
    return None


@register_canonicalize
@node_rewriter([Elemwise], op_test=elemwise_of("neg"))
def local_neg_mul_constant(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``-(x * c)`` -> ``x * (-c)`` for a constant ``c``."""
    if scalar_op_name(node) != "neg":
        return None
    inner = node.inputs[0]
    out = node.outputs[0]
    if not is_elemwise(inner, "mul") or inner.dtype != out.dtype \
            or not _signed_or_float(out.dtype) or not single_client(fgraph, inner):
        return None
    inputs = list(inner.owner.inputs)
    for k, inp in enumerate(inputs):
        c = scalar_constant(inp)
        if c is not None:
            inputs[k] = const_like_var(-np.asarray(c, dtype=out.dtype), out)
            return [broadcast_like(elemwise("mul", *inputs), out, fgraph)]
    return None


@register_canonicalize
@node_rewriter([Elemwise], op_test=elemwise_of("mul"))
def local_mul_neg(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``c * (-y) * z`` -> ``(-c) * y * z``; ``(-a) * (-b)`` -> ``a * b``."""
    if scalar_op_name(node) != "mul":
        return None
    out = node.outputs[0]
    if not _signed_or_float(out.dtype):
        return None
    negs = [k for k, i in enumerate(node.inputs)
            if is_elemwise(i, "neg") and i.dtype == out.dtype]
    const_at = [k for k, i in enumerate(node.inputs) if scalar_constant(i) is not None]
    if not negs or (len(negs) < 2 and not const_at):
        return None
    inputs = list(node.inputs)
    flips = 0
    for k in negs if const_at else negs[:2 * (len(negs) // 2)]:
        inputs[k] = inputs[k].owner.inputs[0]
        flips += 1
    if flips % 2:
        k = const_at[0]
        c = np.asarray(scalar_constant(node.inputs[k]), dtype=out.dtype)
        inputs[k] = const_like_var(-c, out)
    return [broadcast_like(elemwise("mul", *inputs), out, fgraph)]


@register_canonicalize
@node_rewriter([Elemwise], op_test=elemwise_of("sub"))
def local_sub_canonical(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``x - x`` -> 0, ``x - 0`` -> ``x``, ``0 - x`` -> ``-x``, ``x - (-y)`` -> ``x + y``."""
    if scalar_op_name(node) != "sub":
        return None
    a, b = node.inputs
    out = node.outputs[0]
    if a is b:
        return [broadcast_like(fill(a, const_like_var(0, out)), out, fgraph)]
    if scalar_constant(b) is not None and is_constant_value(b, 0):
        return [broadcast_like(a, out, fgraph)]
    if (scalar_constant(a) is not None and is_constant_value(a, 0)
            and _signed_or_float(out.dtype) and b.dtype == out.dtype):
        return [broadcast_like(elemwise("neg", b), out, fgraph)]
    if is_elemwise(b, "neg") and b.dtype == out.dtype and _signed_or_float(out.dtype):
        return [broadcast_like(elemwise("add", a, b.owner.inputs[0]), out, fgraph)]
    return None


@register_canonicalize
@node_rewriter([Elemwise], op_test=elemwise_of("add"))
def local_add_neg_to_sub(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``a + (-b)`` -> ``a - b``; ``a + c + (-b) + (-d)`` -> ``(a + c) - (b + d)``."""
    if scalar_op_name(node) != "add" or len(node.inputs) < 2:
        return None
    out = node.outputs[0]
    if not _signed_or_float(out.dtype):
        return None
    negs = [i for i in node.inputs if is_elemwise(i, "neg") and i.dtype == out.dtype]
    pos = [i for i in node.inputs if not (is_elemwise(i, "neg") and i.dtype == out.dtype)]
    if not negs or not pos:
        return None
    plus = pos[0] if len(pos) == 1 else elemwise("add", *pos)
    minus = [n.owner.inputs[0] for n in negs]
    minus_v = minus[0] if len(minus) == 1 else elemwise("add", *minus)
    return [broadcast_like(elemwise("sub", plus, minus_v), out, fgraph)]


# ---------------------------------------------------------------------------------------------
# div, pow

@register_canonicalize
@node_rewriter([Elemwise], op_test=elemwise_of("true_div"))
def local_div_self(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``x / x`` -> ones shaped like ``x`` (Theano's identity; 0/0 and inf/inf included)."""
    if scalar_op_name(node) != "true_div":
        return None
    a, b = node.inputs
    if a is not b:
        return None
    out = node.outputs[0]
    return [broadcast_like(fill(a, const_like_var(1, out)), out, fgraph)]


@register_canonicalize
@node_rewriter([Elemwise], op_test=elemwise_of("pow"))
def local_pow_trivial(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``x ** 1`` -> ``x`` and ``x ** 0`` -> ones (exact, NaN included, as in NumPy)."""
    if scalar_op_name(node) != "pow":
        return None
    x, y = node.inputs
    out = node.outputs[0]
    c = scalar_constant(y)
    if c is None:
        return None
    if c == 1:
        return [broadcast_like(x, out, fgraph)]
    if c == 0:
        return [broadcast_like(fill(x, const_like_var(1, out)), out, fgraph)]
    return None


# ---------------------------------------------------------------------------------------------
# fill (second)

@register_canonicalize
@node_rewriter([Elemwise], op_test=elemwise_of("second"))
def local_useless_fill(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``second(model, v)`` -> ``v`` when ``v`` has the output's type and provably the
    model's shape (or ``v`` is the model)."""
    if scalar_op_name(node) != "second":
        return None
    model, value = node.inputs
    out = node.outputs[0]
    if value.type != out.type:
        return None
    dims = [d for d in range(out.ndim) if not model.broadcastable[d]]
    if model is value or same_shape(fgraph, model, value, dims):
        return [value]
    return None


@register_canonicalize
@node_rewriter([Elemwise])
def local_fill_sink(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``f(second(m, v), y)`` -> ``second(m, f(v, y))`` for elementwise ``f``: the fill moves
    towards the outputs, where ``local_useless_fill`` removes it once shapes agree."""
    if len(node.outputs) != 1 or scalar_op_name(node) in ("second", None) \
            or node.op.destroy_map:
        return None
    models: list[Variable] = []
    inputs: list[Variable] = []
    for inp in node.inputs:
        if is_elemwise(inp, "second"):
            model, value = inp.owner.inputs
            models.append(model)
            inputs.append(value)
        else:
            inputs.append(inp)
    if not models:
        return None
    out = node.outputs[0]
    new = node.op(*inputs)
    if new.dtype != out.dtype:
        return None
    for model in models:
        new = fill(model, new)
    return [broadcast_like(new, out, fgraph)]


# ---------------------------------------------------------------------------------------------
# Subtensor

def _full_slice(fgraph: FunctionGraph, x: Variable, axis: int, bounds: tuple) -> bool:
    """True if the slice ``start:stop:step`` provably keeps all of axis ``axis`` of ``x``."""
    start, stop, step = bounds
    if step is not None and get_constant(step) != 1:
        return False
    if start is not None and get_constant(start) != 0:
        return False
    if stop is None:
        return True
    length = shape_of(fgraph, x)[axis]
    c, n = get_constant(stop), get_constant(length)
    if c is not None:
        return bool(c >= np.iinfo(np.int64).max // 2 or (n is not None and c >= n))
    return same_dim(length, stop)


@register_useless
@register_canonicalize
@node_rewriter([Subtensor])
def local_useless_subtensor(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``x[:]``, ``x[0:n]`` (n = len), ``x[::1]`` ... -> ``x``."""
    x = node.inputs[0]
    out = node.outputs[0]
    entries = index_vars(node.op.idx_list, node.inputs[1:])
    for axis, (e, v) in enumerate(zip(node.op.idx_list, entries)):
        if not isinstance(e, tuple) or not _full_slice(fgraph, x, axis, v):
            return None
    return [broadcast_like(x, out, fgraph)]


# ---------------------------------------------------------------------------------------------
# Small integer identities (the shape graphs of indexing and arange are full of them)

@register_canonicalize
@node_rewriter([Elemwise], op_test=elemwise_of("switch"))
def local_useless_switch(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``switch(c, a, a)`` -> ``a``; ``switch(constant, a, b)`` -> the chosen branch."""
    if scalar_op_name(node) != "switch":
        return None
    cond, a, b = node.inputs
    out = node.outputs[0]
    if same_expression(a, b):
        chosen = a
    else:
        c = scalar_constant(cond)
        if c is None:
            return None
        chosen = a if c else b
    if chosen.dtype != out.dtype or not all(
            cond.broadcastable[d] or not chosen.broadcastable[d] for d in range(out.ndim)):
        chosen = elemwise("second", cond, chosen) if not is_scalar_like(cond) else chosen
    return [broadcast_like(chosen, out, fgraph)]


@register_canonicalize
@node_rewriter([Elemwise], op_test=elemwise_of("int_div"))
def local_int_div_one(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``x // 1`` -> ``x`` for integers (not floats: ``floor(x / 1)`` rounds them)."""
    if scalar_op_name(node) != "int_div":
        return None
    x, y = node.inputs
    out = node.outputs[0]
    if not dt.is_discrete(out.dtype) or not dt.is_discrete(x.dtype):
        return None
    if scalar_constant(y) is None or not is_constant_value(y, 1):
        return None
    return [broadcast_like(x, out, fgraph)]


def _non_negative(v: Variable) -> bool:
    if v.owner is not None and isinstance(v.owner.op, Shape_i):
        return True
    if scalar_op_name(v) == "cast" and dt.is_discrete(v.dtype):
        return _non_negative(v.owner.inputs[0])
    c = scalar_constant(v)
    return c is not None and c >= 0


@register_canonicalize
@node_rewriter([Elemwise], op_test=elemwise_of("maximum"))
def local_maximum_of_nonnegative(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``maximum(n, 0)`` -> ``n`` when ``n`` is a length (``Shape_i``) or a constant >= 0."""
    if scalar_op_name(node) != "maximum":
        return None
    a, b = node.inputs
    out = node.outputs[0]
    for x, zero in ((a, b), (b, a)):
        if scalar_constant(zero) is not None and is_constant_value(zero, 0) \
                and _non_negative(x) and dt.is_discrete(out.dtype):
            return [broadcast_like(x, out, fgraph)]
    return None


@register_canonicalize
@register_useless
@node_rewriter([TopKOp])
def local_useless_topk(fgraph: FunctionGraph, node: Apply) -> dict[Variable, Variable] | None:
    """A TopKOp computing values and positions of which the graph uses only one computes only
    that one (``topk(x, k)`` builds both; Theano's rewrite of the same name)."""
    op = node.op
    if not (op.return_values and op.return_indices):
        return None
    values, positions = node.outputs
    used_values, used_positions = (bool(fgraph.clients.get(v)) for v in (values, positions))
    if used_values == used_positions:
        return None
    kept = values if used_values else positions
    lean = TopKOp(axis=op.axis, sorted=op.sorted, idx_dtype=op.idx_dtype,
                  return_values=used_values, return_indices=used_positions)
    return {kept: lean(*node.inputs)}


@register_canonicalize("local_cut_useless_reduce")  # (Theano's name, for mode.excluding)
@node_rewriter([CAReduce])
def local_useless_reduce(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """A reduction over no axis, or over axes of length 1 only, folds one element: it is its
    input (the fused ``pre_op`` applied) without those axes, cast to the accumulator's then
    the output's dtype, as the reduction would (``any``/``all`` give ``x != 0``). Keras 1
    averages every loss over ``axis=[]``; Theano removes such reductions too, and a kernel
    is a kernel to compile."""
    op = node.op
    value = node.inputs[0] if op.pre_op is None else Elemwise(op.pre_op)(*node.inputs)
    axes = op.reduced_axes(value.ndim)
    if not all(value.broadcastable[a] for a in axes):
        return None
    if axes:
        value = dimshuffle(value, [d for d in range(value.ndim) if d not in axes])
    for dtype in (op.acc_dtype_for(value.dtype), node.outputs[0].dtype):
        if value.dtype != dtype:
            value = cast(value, dtype)
    return [value]
