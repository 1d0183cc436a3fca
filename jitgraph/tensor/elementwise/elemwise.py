"""Elemwise (a scalar op applied with broadcasting) and DimShuffle (transpose / add / drop axes)."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.op import Op
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.core.conversion import as_tensor_variable, constant
from jitgraph.tensor.elementwise.scalar_ops import ScalarOp
from jitgraph.tensor.core.type import TensorType
from jitgraph.graph.gradient_types import NullType
from jitgraph.tensor.printing.theano_names import default_elemwise_name, elemwise_str


class Elemwise(Op):
    """Apply ``scalar_op`` elementwise, broadcasting inputs against each other.

    Dimensions marked broadcastable may have length 1 and stretch; other dimensions must agree
    exactly at run time (gradients rely on the static broadcastable pattern).
    ``inplace_pattern`` maps an output index to the input it overwrites.
    """

    __props__ = ("scalar_op", "inplace_pattern")

    def __init__(self, scalar_op: ScalarOp, inplace_pattern: dict[int, int] | None = None,
                 name: str | None = None) -> None:
        self.scalar_op = scalar_op
        self.inplace_pattern = tuple(sorted((inplace_pattern or {}).items()))
        self.destroy_map = {o: [i] for o, i in self.inplace_pattern}

        # As in Theano, an elementwise function's op carries its printed name
        # (``y.owner.op.name == 'Elemwise{mul,no_inplace}'``); in-place ops, casts and fused
        # composites have none.
        self.name = name if name is not None else default_elemwise_name(self)

    def __str__(self) -> str:
        if self.name:
            return self.name

        return elemwise_str(self)  # Theano's names: Elemwise{add,no_inplace}, Elemwise{Add}[(0, 0)]

    def make_node(self, *inputs: Any) -> Apply:
        sop = self.scalar_op
        if sop.nin not in (-1, len(inputs)):
            raise TypeError(f"{sop.name} takes {sop.nin} inputs, got {len(inputs)}")
        if not inputs:
            raise TypeError(f"{sop.name} needs at least one input")
        tensors = [as_tensor_variable(i) for i in inputs]
        ndim = max(t.ndim for t in tensors)
        tensors = [_pad_left(t, ndim) for t in tensors]
        out_dtypes = sop.output_dtypes(*[t.dtype for t in tensors])
        bcast = tuple(all(t.broadcastable[d] for t in tensors) for d in range(ndim))
        for o, i in self.inplace_pattern:
            src = tensors[i]
            if src.dtype != out_dtypes[o] or src.broadcastable != bcast:
                raise TypeError(f"{self} cannot write output {o} into input {i}: "
                                f"{src.type} vs TensorType({out_dtypes[o]}, {bcast})")
        return Apply(self, tensors, [TensorType(d, bcast).make_variable() for d in out_dtypes])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list) -> None:
        _check_broadcast(node, inputs)
        if len(node.outputs) == 1:
            results = (self.scalar_op.compute(inputs, node.outputs[0].dtype),)
        else:
            results = self.scalar_op.impl(*inputs)
        destroyed = dict(self.inplace_pattern)
        for k, (out, result) in enumerate(zip(node.outputs, results)):
            if k in destroyed:
                target = inputs[destroyed[k]]
                np.copyto(target, result, casting="unsafe")
                output_storage[k][0] = target
                continue
            result = np.asarray(result)
            if result.dtype.name != out.dtype:
                result = result.astype(out.dtype)
            elif any(result is i for i in inputs):
                result = result.copy()
            output_storage[k][0] = result

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list:
        if len(outputs) != 1:
            raise NotImplementedError(f"{self} has several outputs; differentiate the unfused "
                                      "graph instead")
        raw = self.scalar_op.grad(inputs, outputs[0], output_grads[0])

        # a NullType gradient (grad_not_implemented / grad_undefined) passes through as it is
        return [g if g is None or isinstance(g.type, NullType) else _fit_gradient(g, x)
                for x, g in zip(inputs, raw)]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        shape_only = getattr(self.scalar_op, "shape_only_inputs", ())
        return [[k not in shape_only] * len(node.outputs) for k in range(len(node.inputs))]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        # J v = sum_k (d out / d x_k) v_k. The scalar op's gradient rule is linear in the
        # output gradient, so with a gradient of 1 it yields each partial derivative.
        pure = Elemwise(self.scalar_op) if self.inplace_pattern else self  # never overwrite
        out = pure.make_node(*inputs).outputs
        if len(out) != 1:
            raise NotImplementedError(f"{self} has several outputs; take the R_op of the "
                                      "unfused graph instead")
        one_dtype = out[0].dtype if not dt.is_discrete(out[0].dtype) else dt.floatx()

        partials = self.scalar_op.grad(inputs, out[0], constant(np.ones((), dtype=one_dtype)))
        terms = [p * v for p, v in zip(partials, eval_points) if p is not None and v is not None]
        if not terms:
            # a moving input with no partial derivative (round, floor, sgn, ...) moves the
            # output by zero, as in Theano; with no moving input the output does not move
            moving = any(v is not None for v in eval_points)
            return [_fit_tangent(out[0].zeros_like(), out[0]) if moving else None]
        from jitgraph.tensor.elementwise.math import add

        return [_fit_tangent(terms[0] if len(terms) == 1 else add(*terms), out[0])]

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        out = node.outputs[0]
        dims: list[Any] = []
        for d, b in enumerate(out.broadcastable):
            if b:
                dims.append(1)
                continue
            for inp, shp in zip(node.inputs, input_shapes):
                if not inp.broadcastable[d]:
                    dims.append(shp[d])
                    break
        return [tuple(dims)] * len(node.outputs)


def _pad_left(t: Variable, ndim: int) -> Variable:
    if t.ndim == ndim:
        return t
    return dimshuffle(t, ["x"] * (ndim - t.ndim) + list(range(t.ndim)))


def _check_broadcast(node: Apply, inputs: Sequence[np.ndarray]) -> None:
    ndim = node.outputs[0].ndim
    for d in range(ndim):
        sizes = {inputs[k].shape[d] for k, v in enumerate(node.inputs)
                 if not v.broadcastable[d]}
        if len(sizes) > 1:
            shapes = [np.shape(i) for i in inputs]
            raise ValueError(f"{node.op}: input dimension mismatch on axis {d}: input shapes "
                             f"{shapes} (only dimensions declared broadcastable may differ)")


def _fit_gradient(g: Variable, x: Variable) -> Variable:
    """Sum ``g`` over the axes ``x`` was broadcast along, and give it ``x``'s dtype."""
    from jitgraph.tensor.elementwise import math

    g = as_tensor_variable(g)
    axes = [d for d, (bx, bg) in enumerate(zip(x.broadcastable, g.broadcastable)) if bx and not bg]
    if axes:
        from jitgraph.tensor.elementwise.reduction import sum as tsum

        g = tsum(g, axis=axes, keepdims=True)
    if g.broadcastable != x.broadcastable:
        from jitgraph.tensor.shaping.shape import patternbroadcast

        g = patternbroadcast(g, x.broadcastable)
    if g.dtype != x.dtype and not dt.is_discrete(x.dtype):
        g = math.cast(g, x.dtype)
    return g


def _fit_tangent(t: Variable, like: Variable) -> Variable:
    """The tangent ``t`` with ``like``'s dtype and broadcastable pattern (stretched to its
    shape where ``t`` varies along fewer axes)."""
    from jitgraph.tensor.elementwise import math
    from jitgraph.tensor.shaping.shape import patternbroadcast

    t = as_tensor_variable(t)
    if t.dtype != like.dtype:
        t = math.cast(t, like.dtype)
    if t.ndim < like.ndim or any(tb and not lb for tb, lb in
                                 zip(t.broadcastable, like.broadcastable)):
        t = math.second(like, t)
    return patternbroadcast(t, like.broadcastable)


class DimShuffle(Op):
    """Reorder, insert ('x') or drop (broadcastable only) dimensions. The output is a view."""

    __props__ = ("input_broadcastable", "new_order")
    view_map = {0: [0]}

    def __init__(self, input_broadcastable: Sequence[bool], new_order: Sequence[Any]) -> None:
        self.input_broadcastable = tuple(bool(b) for b in input_broadcastable)
        self.new_order = tuple("x" if o == "x" else int(o) for o in new_order)
        ndim = len(self.input_broadcastable)
        kept = [o for o in self.new_order if o != "x"]
        if len(set(kept)) != len(kept):
            raise ValueError(f"invalid dimshuffle pattern {tuple(new_order)}: the same input "
                             "dimension may not appear twice in the pattern")
        if any(not 0 <= o < ndim for o in kept):
            raise ValueError(f"invalid dimshuffle pattern {new_order} for {ndim} dimensions")
        for d in range(ndim):
            if d not in kept and not self.input_broadcastable[d]:
                raise ValueError(f"dimshuffle {new_order} drops dimension {d}, which is not "
                                 "broadcastable (only length-1 dimensions may be dropped)")
        self.shuffle = tuple(kept)
        self.drop = tuple(d for d in range(ndim) if d not in kept)
        self.augment = tuple(i for i, o in enumerate(self.new_order) if o == "x")

    def __str__(self) -> str:
        # Theano 1.0's DimShuffle returns a view by default and prints as InplaceDimShuffle.
        return "InplaceDimShuffle{" + ",".join(str(o) for o in self.new_order) + "}"

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        if x.broadcastable != self.input_broadcastable:
            if len(x.broadcastable) != len(self.input_broadcastable) or any(
                    b and not xb for b, xb in zip(self.input_broadcastable, x.broadcastable)):
                raise TypeError(f"{self} expects an input with broadcastable pattern "
                                f"{self.input_broadcastable}, got {x.type}")
        bcast = tuple(True if o == "x" else x.broadcastable[o] for o in self.new_order)
        return Apply(self, [x], [TensorType(x.dtype, bcast).make_variable()])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list) -> None:
        (x,) = inputs
        res = x.transpose(self.shuffle + self.drop)
        shape = list(res.shape[:len(self.shuffle)])
        for i in self.augment:
            shape.insert(i, 1)
        output_storage[0][0] = res.reshape(shape)

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        (x,) = inputs
        (gz,) = output_grads
        if dt.is_discrete(x.dtype):
            return [None]
        gz = as_tensor_variable(gz)
        # After dropping the inserted axes, axis k of the gradient is input axis shuffle[k].
        order = [self.shuffle.index(d) if d in self.shuffle else "x" for d in range(x.ndim)]
        grad_in = dimshuffle(_drop_augmented(gz, self.augment), order)
        return [_fit_gradient(grad_in, x)]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        (v,) = eval_points
        if v is None:
            return [None]
        from jitgraph.tensor.shaping.shape import patternbroadcast

        return [self(patternbroadcast(v, self.input_broadcastable))]

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        (shp,) = input_shapes
        return [tuple(1 if o == "x" else shp[o] for o in self.new_order)]


def _drop_augmented(gz: Variable, augment: tuple[int, ...]) -> Variable:
    if not augment:
        return gz
    keep = [i for i in range(gz.ndim) if i not in augment]
    bcast = list(gz.broadcastable)
    for i in augment:
        bcast[i] = True  # the inserted axes have length 1 in every value
    from jitgraph.tensor.shaping.shape import patternbroadcast

    return dimshuffle(patternbroadcast(gz, bcast), keep)


def dimshuffle(x: Any, pattern: Sequence[Any]) -> Variable:
    """``x`` with its axes reordered by ``pattern`` ('x' inserts a broadcastable axis)."""
    x = as_tensor_variable(x)
    pattern = tuple(pattern)
    if pattern == tuple(range(x.ndim)):
        return x
    return DimShuffle(x.broadcastable, pattern)(x)


def transpose(x: Any, axes: Sequence[int] | None = None) -> Variable:
    """``x`` with its axes permuted (reversed by default)."""
    x = as_tensor_variable(x)
    if axes is None:
        axes = tuple(range(x.ndim - 1, -1, -1))
    axes = tuple(a % x.ndim if x.ndim else a for a in axes)
    # Always a new variable, even for a vector (as in Theano): naming the transpose must not
    # rename ``x``. The rewrites drop an identity DimShuffle.
    out = DimShuffle(x.broadcastable, axes)(x)
    if x.name and axes == tuple(range(x.ndim - 1, -1, -1)):
        out.name = f"{x.name}.T"  # as Theano names a transpose
    return out
