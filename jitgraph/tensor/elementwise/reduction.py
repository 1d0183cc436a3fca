"""Reductions: sum, prod, max, min, all, any, argmax, argmin (``mean``/``var``/``std``, built on
them, are in :mod:`jitgraph.tensor.elementwise.statistics`).

Every commutative/associative reduction is one :class:`CAReduce` op: a scalar op from the table
(``add``, ``mul``, ``maximum``, ``minimum``, ``and_``, ``or_``) folded over a set of axes. The loop
structure lives in one place (:meth:`CAReduce.perform`, which folds with
:func:`jitgraph.tensor.elementwise.reduction_reference.fold`), so that backends lower a
single op family and the fusion rewrite can hand a reduction an elementwise *pre-op* (``pre_op``):
the reduction then consumes ``pre_op(*inputs)`` without materialising it.

Dtype rules (Theano's, with one documented difference):

* ``sum``/``prod`` return int64 for bool and signed ints, uint64 for unsigned ints, and the input
  dtype for floats; ``dtype=`` overrides the output dtype.
* They accumulate (``acc_dtype``) in int64/uint64 for integers, float32 for float16, float64
  for float32 and complex128 for complex64, as Theano does: a compiled reduction adds its terms in order, so a float32
  accumulator loses about ``n * 2**-24`` of the total over ``n`` terms (the mean of 50,000 values
  near 1e4 was off by 7), where NumPy's pairwise summation would not. Pass
  ``acc_dtype='float32'`` to trade that accuracy for speed. An ``acc_dtype`` less precise than the
  input is refused.
* ``max``/``min`` keep the input dtype; ``all``/``any`` return bool; ``argmax``/``argmin`` int64.

``keepdims`` is not an op parameter: the public functions re-insert the reduced axes with a
``DimShuffle``, which keeps the ops few and the rewrites simple.
"""

from __future__ import annotations

import builtins  # sum/max/min/all/any are shadowed by Theano's names below
from typing import Any as _Any, Sequence

import numpy as np

from jitgraph.graph.basic import Apply, Constant, Variable
from jitgraph.graph.op import Op
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.core.conversion import as_tensor_variable, constant
from jitgraph.tensor.elementwise.elemwise import Elemwise, _fit_gradient, dimshuffle
from jitgraph.tensor.elementwise.reduction_reference import fold
# The scalar-op table (``T.scalar`` is the variable constructor, as in Theano).
from jitgraph.tensor.elementwise.scalar_ops import ScalarOp
from jitgraph.tensor.elementwise.scalar_ops import op as _scalar_op
from jitgraph.tensor.core.type import TensorType
from jitgraph.tensor.core.gradient import grad
from jitgraph.tensor.elementwise import math as M
from jitgraph.tensor.elementwise.math import cast, second
from jitgraph.tensor.printing.theano_names import arg_reduction_str, reduction_str

__all__ = [
    "CAReduce", "Sum", "Prod", "Max", "Min", "All", "Any", "Argmax", "Argmin",
    "sum", "prod", "max", "min", "argmax", "argmin", "max_and_argmax",
    "all", "any",
]

_SUM_OUT = {"bool": "int64", "int8": "int64", "int16": "int64", "int32": "int64",
            "int64": "int64", "uint8": "uint64", "uint16": "uint64", "uint32": "uint64",
            "uint64": "uint64"}
_SUM_ACC = {**_SUM_OUT, "float16": "float32", "float32": "float64", "complex64": "complex128"}


def sum_output_dtype(in_dtype: str) -> str:
    """The dtype of ``sum(x)`` for an ``x`` of ``in_dtype`` (no ``dtype=`` given)."""
    return _SUM_OUT.get(in_dtype, in_dtype)


def normalize_axis(axis: _Any, ndim: int, op_name: str = "reduction") -> tuple[int, ...] | None:
    """``axis`` (None, int, negative int, sequence, constant) as a sorted tuple, or None for all.

    An axis named twice counts once, as in Theano (NumPy refuses it); a constant None
    (``NoneConst``) means all axes.
    """
    if axis is None:
        return None
    if isinstance(axis, Variable):
        if not isinstance(axis, Constant):
            raise TypeError(f"{op_name}: axis must be known when the graph is built, got {axis}")
        if axis.data is None:
            return None
        axis = np.asarray(axis.data).tolist()
    if isinstance(axis, np.ndarray):
        axis = axis.tolist()
    axes = [axis] if isinstance(axis, (int, np.integer)) else list(axis)
    # Theano's tests pass 0-d integer arrays as entries: [np.array(0), np.array(1)]
    axes = [a.item() if isinstance(a, np.ndarray) and a.ndim == 0 and a.dtype.kind in "iu"
            else a for a in axes]
    norm = []
    for a in axes:
        if not isinstance(a, (int, np.integer)) or isinstance(a, bool):
            raise TypeError(f"{op_name}: axis entries must be integers, got {a!r}")
        a = int(a)
        if not -ndim <= a < ndim:
            raise ValueError(f"{op_name}: axis {a} is out of bounds for a {ndim}-d input")
        norm.append(a % ndim if ndim else a)
    return tuple(sorted(set(norm)))


def _check_axis_prop(axis: _Any, allow_negative: bool = False) -> tuple[int, ...] | None:
    """``axis`` as an op parameter. Reductions (``allow_negative``) also take Theano's negative
    or unsorted axes, which their ``make_node`` resolves for the input's rank."""
    if axis is None:
        return None
    axis = tuple(int(a) for a in ([axis] if isinstance(axis, (int, np.integer)) else axis))
    if allow_negative and len(set(axis)) == len(axis):
        return axis
    if builtins.any(a < 0 for a in axis) or list(axis) != sorted(set(axis)):
        raise ValueError(f"a reduction op's axis must be sorted, distinct and non-negative, "
                         f"got {axis}; use the public functions to normalise user axes")
    return axis


class CAReduce(Op):
    """Fold the commutative, associative ``scalar_op`` over ``axis`` (None: all axes).

    ``pre_op`` (None unless set by the fusion rewrite) is a scalar op applied elementwise, with
    broadcasting, to the inputs before reducing; without it the op takes exactly one input.
    """

    __props__ = ("scalar_op", "axis", "pre_op")

    def __init__(self, scalar_op: ScalarOp, axis: Sequence[int] | int | None = None,
                 pre_op: ScalarOp | None = None) -> None:
        if not (scalar_op.commutative and scalar_op.associative):
            raise ValueError(f"CAReduce needs a commutative and associative scalar op, got "
                             f"{scalar_op}")
        self.scalar_op = scalar_op
        self.axis = _check_axis_prop(axis, allow_negative=True)
        self.pre_op = pre_op

    # -- parameters -----------------------------------------------------------------------
    def clone_with(self, **changes: _Any) -> "CAReduce":
        """The same reduction with some parameters changed (e.g. ``pre_op`` by fusion).

        Every reduction class takes all of its ``__props__`` as keyword arguments, so
        ``type(op)(**{p: getattr(op, p) for p in op.__props__})`` rebuilds any of them.
        """
        params = {p: getattr(self, p) for p in self.__props__}
        params.update(changes)
        return type(self)(**params)

    def __str__(self) -> str:
        return reduction_str(self)  # Theano's text: Sum{axis=[0]}, Reduce{maximum}{0}, Any{0}

    def str_for_node(self, node: Apply) -> str:
        """The text printed for ``node``: with the accumulator dtype and axes the node fixes."""
        return reduction_str(self, node)

    def reduced_axes(self, ndim: int) -> tuple[int, ...]:
        return tuple(range(ndim)) if self.axis is None else self.axis

    # -- types ----------------------------------------------------------------------------
    def output_dtype(self, in_dtype: str) -> str:
        return self.scalar_op.output_dtype(in_dtype, in_dtype)

    def acc_dtype_for(self, in_dtype: str) -> str:
        return self.output_dtype(in_dtype)

    def _reduced_input_type(self, inputs: list[Variable]) -> TensorType:
        if self.pre_op is None:
            return inputs[0].type
        return Elemwise(self.pre_op).make_node(*inputs).outputs[0].type

    def make_node(self, *inputs: _Any) -> Apply:
        name = type(self).__name__
        inputs_t = [as_tensor_variable(i) for i in inputs]
        if self.pre_op is None:
            if len(inputs_t) != 1:
                raise TypeError(f"{name} takes one input, got {len(inputs_t)}")
        else:
            # The fused pre-op broadcasts like Elemwise: pad inputs to a common rank.
            inputs_t = Elemwise(self.pre_op).make_node(*inputs_t).inputs
        rtype = self._reduced_input_type(inputs_t)
        resolved = self._resolved_for(rtype)
        if resolved != self:
            return resolved.make_node(*inputs_t)
        axes = self.reduced_axes(rtype.ndim)
        if axes and axes[-1] >= rtype.ndim:
            raise ValueError(f"{name}: axis {list(axes)} is out of bounds for the "
                             f"{rtype.ndim}-d input {rtype}")
        self._check_input_dtype(rtype.dtype)
        bcast = tuple(b for d, b in enumerate(rtype.broadcastable) if d not in axes)
        out = TensorType(self.output_dtype(rtype.dtype), bcast).make_variable()
        return Apply(self, inputs_t, [out])

    def _resolved_for(self, rtype: TensorType) -> "CAReduce":
        """The op applied to an input of ``rtype``: as in Theano, negative axes count from the
        end (and come sorted); dtype reductions also fix ``dtype`` and ``acc_dtype``."""
        axis = self.axis
        if axis is None or list(axis) == sorted(set(axis)) and builtins.min(axis, default=0) >= 0:
            return self
        return self.clone_with(axis=normalize_axis(self.axis, rtype.ndim, type(self).__name__))

    def _check_input_dtype(self, in_dtype: str) -> None:
        self.output_dtype(in_dtype)  # raises for dtypes the scalar op refuses

    # -- evaluation -----------------------------------------------------------------------
    def _prepare(self, node: Apply, inputs: Sequence[np.ndarray]) -> np.ndarray:
        if self.pre_op is None:
            return inputs[0]
        dtype = self._reduced_input_type(node.inputs).dtype
        return np.asarray(self.pre_op.impl(*inputs)).astype(dtype, copy=False)

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list) -> None:
        x = self._prepare(node, inputs)
        axes = self.reduced_axes(x.ndim)
        out_dtype = node.outputs[0].dtype
        result = fold(self.scalar_op, x, axes, self.acc_dtype_for(x.dtype.name), str(self))
        output_storage[0][0] = np.asarray(result).astype(out_dtype, copy=False)

    def infer_shape(self, fgraph: _Any, node: Apply, input_shapes: Sequence[Sequence[_Any]]
                    ) -> list[tuple]:
        shape = _broadcast_shape(node.inputs, input_shapes)
        axes = self.reduced_axes(len(shape))
        return [tuple(s for d, s in enumerate(shape) if d not in axes)]

    # -- gradient -------------------------------------------------------------------------
    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list:
        if self.pre_op is None:
            return [self._reduction_grad(inputs[0], outputs[0], output_grads[0])]
        # Fused form (rare: fusion runs after differentiation): rebuild the pre-op as an
        # elementwise graph, differentiate the reduction of it, then backpropagate through it.

        y = _unfuse(self.pre_op, list(inputs))
        gy = self.clone_with(pre_op=None)._reduction_grad(y, outputs[0], output_grads[0])
        if gy is None:
            return [None] * len(inputs)
        return grad(None, list(inputs), known_grads={y: gy}, disconnected_inputs="ignore",
                    return_disconnected="None")

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        if self.pre_op is not None:  # fused form: the R-op of the unfused graph
            from jitgraph.tensor.core.rop import Rop

            y = _unfuse(self.pre_op, list(inputs))
            moving = [(x, v) for x, v in zip(inputs, eval_points) if v is not None]
            vy = Rop(y, [x for x, _ in moving], [v for _, v in moving],
                     disconnected_outputs="ignore", return_disconnected="None")
            return self.clone_with(pre_op=None).R_op([y], [vy])
        (x,), (v,) = inputs, eval_points
        if v is None:
            return [None]
        if self.scalar_op.name == "add":
            return [self(v)]  # a sum is linear
        # Otherwise the derivative of the output with respect to each reduced element (the
        # gradient for an output gradient of 1), times v, summed over the reduced axes.

        out = self(x)
        local = self._reduction_grad(x, out, second(out, constant(np.ones((), out.dtype))))
        if local is None:
            return [None]
        return [cast(Sum(self.axis)(local * v), out.dtype)]

    def _reduction_grad(self, x: Variable, out: Variable, gz: Variable) -> Variable | None:
        # A generic CAReduce of a known scalar op differentiates like the named class.
        named = {"add": Sum, "mul": Prod, "maximum": Max, "minimum": Min, "and_": All,
                 "or_": Any}.get(self.scalar_op.name)
        if named is None:
            if dt.is_discrete(x.dtype):
                return None
            raise NotImplementedError(f"{self} has no gradient")
        return named(self.axis)._reduction_grad(x, out, gz)


def _unfuse(pre_op: ScalarOp, inputs: list[Variable]) -> Variable:
    """``pre_op`` applied to ``inputs`` as ordinary Elemwise nodes (a Composite step by step)."""
    steps = getattr(pre_op, "steps", None)
    if steps is None:
        return Elemwise(pre_op)(*inputs)

    values = list(inputs)
    for sop, args, dtype in steps:
        values.append(cast(Elemwise(sop)(*[values[a] for a in args]), dtype))
    return values[pre_op.outputs[0]]


def _broadcast_shape(inputs: Sequence[Variable], shapes: Sequence[Sequence[_Any]]) -> list:
    if len(inputs) == 1:
        return list(shapes[0])
    ndim = inputs[0].ndim
    dims: list[_Any] = []
    for d in range(ndim):
        src = [s[d] for v, s in zip(inputs, shapes) if not v.broadcastable[d]]
        dims.append(src[0] if src else 1)
    return dims


def _insert_axes(v: Variable, ndim: int, axes: tuple[int, ...] | None) -> Variable:
    """``v`` (reduced over ``axes`` of an ``ndim``-d tensor) with those axes re-inserted as
    broadcastable dims: keepdims, and the shape gradients are broadcast back from."""
    axes = tuple(range(ndim)) if axes is None else axes
    it = iter(range(ndim - len(axes)))
    return dimshuffle(v, ["x" if d in axes else next(it) for d in range(ndim)])


def _expand_to_input(g: Variable, x: Variable, axes: tuple[int, ...]) -> Variable:
    return _insert_axes(g, x.ndim, axes)


def _cast_grad(g: Variable, x: Variable) -> Variable:
    # an integer input keeps the float gradient (a gradient is never integer-valued)
    return _fit_gradient(cast(g, x.dtype) if g.dtype != x.dtype and not dt.is_discrete(x.dtype)
                         else g, x)


class _DtypeReduce(CAReduce):
    """A reduction with Theano's ``dtype`` (output) and ``acc_dtype`` (accumulator) parameters."""

    __props__ = ("scalar_op", "axis", "dtype", "acc_dtype", "pre_op")
    _scalar_name = ""

    def __init__(self, axis: Sequence[int] | int | None = None, dtype: str | None = None,
                 acc_dtype: str | None = None, pre_op: ScalarOp | None = None,
                 scalar_op: ScalarOp | None = None) -> None:
        super().__init__(_scalar_op(self._scalar_name), axis, pre_op)
        self.dtype = None if dtype is None else dt.normalize_dtype(dtype)
        self.acc_dtype = None if acc_dtype is None else dt.normalize_dtype(acc_dtype)

    def output_dtype(self, in_dtype: str) -> str:
        return self.dtype or _SUM_OUT.get(in_dtype, in_dtype)

    def acc_dtype_for(self, in_dtype: str) -> str:
        if self.acc_dtype is None:
            default = _SUM_ACC.get(in_dtype, in_dtype)
            if self.dtype is not None and not dt.is_discrete(self.dtype):
                # A requested float output at least as precise as the input sets the precision.
                return np.promote_types(default, self.dtype).name
            return default
        if dt.is_discrete(in_dtype) and not dt.is_discrete(self.acc_dtype):
            return self.acc_dtype
        if np.promote_types(in_dtype, self.acc_dtype).name != self.acc_dtype:
            raise TypeError(f"{type(self).__name__}: acc_dtype={self.acc_dtype} would lose "
                            f"precision on a {in_dtype} input; pick a wider accumulator")
        return self.acc_dtype

    def _check_input_dtype(self, in_dtype: str) -> None:
        self.acc_dtype_for(in_dtype)

    def _resolved_for(self, rtype: TensorType) -> "CAReduce":
        op = super()._resolved_for(rtype)
        return op.clone_with(dtype=op.output_dtype(rtype.dtype),
                             acc_dtype=op.acc_dtype_for(rtype.dtype))


class Sum(_DtypeReduce):
    """Sum over ``axis``. Bool and int inputs sum in int64 (uints in uint64)."""

    _scalar_name = "add"

    def _reduction_grad(self, x: Variable, out: Variable, gz: Variable) -> Variable | None:
        if dt.is_discrete(out.dtype):  # an integer input summed in a float dtype has one
            return None

        g = _expand_to_input(as_tensor_variable(gz), x, self.reduced_axes(x.ndim))
        return _cast_grad(second(x, g), x)


class Prod(_DtypeReduce):
    """Product over ``axis``. With ``no_zeros_in_input`` the gradient is the cheaper ``prod/x``;
    otherwise zeros are handled exactly (one zero: only it gets a gradient; more: none does)."""

    __props__ = _DtypeReduce.__props__ + ("no_zeros_in_input",)
    _scalar_name = "mul"

    def __init__(self, axis: Sequence[int] | int | None = None, dtype: str | None = None,
                 acc_dtype: str | None = None, pre_op: ScalarOp | None = None,
                 no_zeros_in_input: bool = False, scalar_op: ScalarOp | None = None) -> None:
        super().__init__(axis, dtype, acc_dtype, pre_op)
        self.no_zeros_in_input = bool(no_zeros_in_input)

    def _reduction_grad(self, x: Variable, out: Variable, gz: Variable) -> Variable | None:
        if dt.is_discrete(x.dtype):
            return None

        axes = self.reduced_axes(x.ndim)
        g = _expand_to_input(as_tensor_variable(gz), x, axes)
        if self.no_zeros_in_input:
            return _cast_grad(g * _expand_to_input(out, x, axes) / x, x)
        one = M.ones_like_scalar(x)
        zero = M.zeros_like_scalar(x)
        is_zero = M.eq(x, zero)
        # Dividing the product by x fails at zeros; the product of the non-zero entries, divided
        # by x where no zero exists, is exact, and is itself the gradient at a lone zero.
        x_safe = M.switch(is_zero, one, x)
        nz_prod = _expand_to_input(Prod(self.axis, dtype=x.dtype)(x_safe), x, axes)
        n_zeros = _expand_to_input(Sum(self.axis)(is_zero), x, axes)
        lone_zero = M.and_(M.eq(n_zeros, 1), is_zero)
        local = M.switch(M.eq(n_zeros, 0), nz_prod / x_safe, M.switch(lone_zero, nz_prod, zero))
        return _cast_grad(M.second(x, g) * local, x)


class _ExtremumReduce(CAReduce):
    __props__ = ("scalar_op", "axis", "pre_op")
    _scalar_name = ""
    grad_through_integer_outputs = False

    def __init__(self, axis: Sequence[int] | int | None = None, pre_op: ScalarOp | None = None,
                 scalar_op: ScalarOp | None = None) -> None:
        super().__init__(_scalar_op(self._scalar_name), axis, pre_op)

    def output_dtype(self, in_dtype: str) -> str:
        return in_dtype

    def _reduction_grad(self, x: Variable, out: Variable, gz: Variable) -> Variable | None:
        # As in Theano, every position equal to the extremum receives the full gradient (ties
        # share it undivided); elsewhere the gradient is zero. Only Max passes a gradient to
        # an integer input (grad_through_integer_outputs).
        if dt.is_discrete(x.dtype) and not self.grad_through_integer_outputs:
            return None

        axes = self.reduced_axes(x.ndim)
        g = _expand_to_input(as_tensor_variable(gz), x, axes)
        hit = M.eq(x, _expand_to_input(out, x, axes))
        return _cast_grad(M.switch(hit, g, M.zeros_like_scalar(g)), x)


class Max(_ExtremumReduce):
    """Maximum over ``axis`` (keeps the dtype; NaN propagates like ``np.max``)."""

    #: an integer input receives the gradient reaching the integer output (Theano's max; its
    #: min of integers is -max(-x), whose negation passes none)
    grad_through_integer_outputs = True

    _scalar_name = "maximum"


class Min(_ExtremumReduce):
    """Minimum over ``axis`` (keeps the dtype; NaN propagates like ``np.min``)."""

    _scalar_name = "minimum"


class _BoolReduce(_ExtremumReduce):
    """Logical reduction: non-bool inputs are tested against zero first; the output is bool."""

    def output_dtype(self, in_dtype: str) -> str:
        return "bool"

    def acc_dtype_for(self, in_dtype: str) -> str:
        return "bool"

    def _check_input_dtype(self, in_dtype: str) -> None:
        pass

    def _prepare(self, node: Apply, inputs: Sequence[np.ndarray]) -> np.ndarray:
        x = super()._prepare(node, inputs)
        return x if x.dtype == np.bool_ else x != 0

    def _reduction_grad(self, x: Variable, out: Variable, gz: Variable) -> Variable | None:
        return None


class All(_BoolReduce):
    """True where every element along ``axis`` is non-zero."""

    _scalar_name = "and_"


class Any(_BoolReduce):
    """True where some element along ``axis`` is non-zero."""

    _scalar_name = "or_"


class _ArgReduce(Op):
    __props__ = ("axis",)
    _fn = staticmethod(np.argmax)

    def __init__(self, axis: Sequence[int] | int | None = None) -> None:
        self.axis = _check_axis_prop(axis)

    def __str__(self) -> str:
        return arg_reduction_str(self)  # Theano's text: Argmax{axis=(1,)}

    def str_for_node(self, node: Apply) -> str:
        return arg_reduction_str(self, node)

    def make_node(self, x: _Any) -> Apply:
        x = as_tensor_variable(x)
        axes = tuple(range(x.ndim)) if self.axis is None else self.axis
        if axes and axes[-1] >= x.ndim:
            raise ValueError(f"{self}: axis out of bounds for the {x.ndim}-d input {x.type}")
        bcast = tuple(b for d, b in enumerate(x.broadcastable) if d not in axes)
        return Apply(self, [x], [TensorType("int64", bcast).make_variable()])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list) -> None:
        (x,) = inputs
        axes = tuple(range(x.ndim)) if self.axis is None else self.axis
        if builtins.any(x.shape[a] == 0 for a in axes):
            raise ValueError(f"{self}: cannot take the arg-extremum of a zero-size array of "
                             f"shape {x.shape} over axes {list(axes)}")
        kept = [d for d in range(x.ndim) if d not in axes]
        # Several axes: move them last and flatten them, so the index is into that flat block
        # (what NumPy would give on the flattened input for axis=None).
        moved = np.transpose(x, kept + list(axes))
        block = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
        flat = moved.reshape(moved.shape[:len(kept)] + (block,))  # (not -1: 0-size inputs)
        output_storage[0][0] = np.asarray(self._fn(flat, axis=-1), dtype="int64")

    def infer_shape(self, fgraph: _Any, node: Apply, input_shapes: Sequence[Sequence[_Any]]
                    ) -> list[tuple]:
        (shp,) = input_shapes
        axes = tuple(range(len(shp))) if self.axis is None else self.axis
        return [tuple(s for d, s in enumerate(shp) if d not in axes)]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        return [None]  # connected (as in Theano), with a zero gradient


class Argmax(_ArgReduce):
    """Index (int64) of the first maximum over ``axis``; several axes index their flat block."""

    _fn = staticmethod(np.argmax)


class Argmin(_ArgReduce):
    """Index (int64) of the first minimum over ``axis``; several axes index their flat block."""

    _fn = staticmethod(np.argmin)


# ---------------------------------------------------------------------------------------------
# Public functions

def with_kept_dims(out: Variable, x_ndim: int, axes: tuple[int, ...] | None,
                   keepdims: bool) -> Variable:
    """``out``, a reduction of an ``x_ndim``-d tensor over ``axes``, with the reduced axes put
    back as broadcastable dims when ``keepdims``."""
    return _insert_axes(out, x_ndim, axes) if keepdims else out


def _op_axis(axes: tuple[int, ...] | None, ndim: int) -> tuple[int, ...] | None:
    # One canonical spelling of "every axis" lets merge/CSE and kernel caches see equal ops.
    if axes is None or len(axes) == ndim:
        return None
    return axes


def _apply(cls: type, x: _Any, axis: _Any, keepdims: bool, name: str, **params: _Any) -> Variable:
    x = as_tensor_variable(x)
    axes = normalize_axis(axis, x.ndim, name)
    out = cls(_op_axis(axes, x.ndim), **params)(x)
    return with_kept_dims(out, x.ndim, axes, keepdims)


def sum(x: _Any, axis: _Any = None, dtype: str | None = None, keepdims: bool = False,  # noqa: A001
        acc_dtype: str | None = None) -> Variable:
    """Sum of ``x`` over ``axis`` (None: all; int, negative int or tuple).

    Bool/int inputs give int64 (uint: uint64); ``dtype`` sets the output dtype and ``acc_dtype``
    the accumulator (see the module docstring). The sum of an empty array is 0.
    """
    return _apply(Sum, x, axis, keepdims, "sum", dtype=dtype, acc_dtype=acc_dtype)


def prod(x: _Any, axis: _Any = None, dtype: str | None = None, keepdims: bool = False,
         acc_dtype: str | None = None, no_zeros_in_input: bool = False) -> Variable:
    """Product of ``x`` over ``axis``; dtype rules as :func:`sum`. The product of nothing is 1.

    ``no_zeros_in_input=True`` promises there are no zeros, for a cheaper gradient.
    """
    return _apply(Prod, x, axis, keepdims, "prod", dtype=dtype, acc_dtype=acc_dtype,
                  no_zeros_in_input=no_zeros_in_input)


def max(x: _Any, axis: _Any = None, keepdims: bool = False) -> Variable:  # noqa: A001
    """Maximum of ``x`` over ``axis``. A zero-size reduction raises ValueError (like NumPy)."""
    return _apply(Max, x, axis, keepdims, "max")


def min(x: _Any, axis: _Any = None, keepdims: bool = False) -> Variable:  # noqa: A001
    """Minimum of ``x`` over ``axis``. A zero-size reduction raises ValueError (like NumPy)."""
    return _apply(Min, x, axis, keepdims, "min")


def all(x: _Any, axis: _Any = None, keepdims: bool = False) -> Variable:  # noqa: A001
    """True where all elements over ``axis`` are non-zero (bool output; empty -> True)."""
    return _apply(All, x, axis, keepdims, "all")


def any(x: _Any, axis: _Any = None, keepdims: bool = False) -> Variable:  # noqa: A001
    """True where some element over ``axis`` is non-zero (bool output; empty -> False)."""
    return _apply(Any, x, axis, keepdims, "any")


def max_and_argmax(x: _Any, axis: _Any = None, keepdims: bool = False) -> list[Variable]:
    """``[max(x, axis), argmax(x, axis)]`` (Theano's combined function)."""
    return [max(x, axis=axis, keepdims=keepdims), argmax(x, axis=axis, keepdims=keepdims)]


def argmax(x: _Any, axis: _Any = None, keepdims: bool = False) -> Variable:
    """Index (int64) of the maximum over ``axis``; over several axes, the index into them
    flattened in C order. Not differentiable."""
    return _apply(Argmax, x, axis, keepdims, "argmax")


def argmin(x: _Any, axis: _Any = None, keepdims: bool = False) -> Variable:
    """Index (int64) of the minimum over ``axis`` (see :func:`argmax`)."""
    return _apply(Argmin, x, axis, keepdims, "argmin")
