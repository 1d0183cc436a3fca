"""Tensor construction and assembly: ``alloc``/``zeros``/``ones``/``full``, ``join``/``concatenate``/
``stack``, ``arange``, ``repeat``, ``tile``, and constant analysis (``get_scalar_constant_value``,
``get_vector_length``) used by the rewrites.
"""

from __future__ import annotations

import warnings
from typing import Any, Sequence

import numpy as np

from jitgraph.graph.basic import Apply, Constant, Variable
from jitgraph.graph.op import Op
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.core.assertion import Assert
from jitgraph.tensor.core.conversion import as_tensor_variable, constant
from jitgraph.tensor.shaping.dims import _add, _const_int, _constant_elements, _dim, _is_pyint
from jitgraph.tensor.elementwise.elemwise import DimShuffle, Elemwise, _fit_gradient
from jitgraph.tensor.elementwise.scalar_ops import Cast
from jitgraph.tensor.shaping.shape import (Reshape, Shape, Shape_i, SpecifyShape, Unbroadcast,
                                           _scalar_int_input, shape_i, shape_padaxis)
from jitgraph.tensor.core.type import TensorType
from jitgraph.tensor.elementwise.math import cast, second
from jitgraph.tensor.elementwise.reduction import sum as tsum
from jitgraph.tensor.indexing.subtensor_ops import Subtensor

__all__ = [
    "NotScalarConstantError", "EmptyConstantError", "get_scalar_constant_value",
    "get_vector_length", "extract_constant", "as_tensor_variable", "constant",
    "MakeVector", "make_vector", "Alloc", "alloc", "zeros", "ones", "full", "zeros_like",
    "ones_like", "full_like", "Join", "join", "concatenate", "stack",
]


# ---------------------------------------------------------------------------------------------
# Constant analysis

class NotScalarConstantError(Exception):
    """The variable is not provably a scalar constant when the graph is built."""


class EmptyConstantError(NotScalarConstantError):
    """A constant expected to hold one number holds none (it is empty)."""



def _unique_value(data: Any) -> Any:
    arr = np.asarray(data)
    if arr.ndim == 0:
        return arr[()]
    if arr.size == 0:
        raise EmptyConstantError("empty constant")
    first = arr.flat[0]
    if np.all(arr == first) or (arr.dtype.kind in "fc" and np.all(np.isnan(arr))
                                and np.isnan(first)):
        return first
    raise NotScalarConstantError("constant with several distinct values")


def _constant_unique_value(c: Constant) -> Any:
    # Rewrites ask this of the same constants over and over; scanning a big array each time
    # would dominate, so the answer (or the failure) is remembered on the immutable constant.
    cached = getattr(c.tag, "unique_value", None)
    if cached is None:
        try:
            cached = (True, _unique_value(c.data))
        except NotScalarConstantError as exc:
            cached = (False, exc)
        c.tag.unique_value = cached
    ok, value = cached
    if not ok:
        raise type(value)(*value.args)
    return value


def get_scalar_constant_value(v: Any, elemwise: bool = True, only_process_constants: bool = False,
                              max_recur: int = 10) -> Any:
    """The value of ``v`` as a NumPy scalar, when it is provably constant.

    Looks through constants (a non-0-d constant counts when all its entries are equal), casts,
    ``fill``, dimshuffles, broadcastable-pattern changes, ``alloc``, reshapes, ``shape_i`` of
    broadcastable or constant-shaped inputs, ``x.shape[i]``, indexing into ``make_vector`` and,
    with ``elemwise``, elementwise ops on constants. Raises :class:`NotScalarConstantError`.
    """
    while True:
        if v is None:
            raise NotScalarConstantError("None is not a constant")
        if isinstance(v, (bool, int, float, complex, np.generic, np.ndarray)):
            return _unique_value(v)
        if isinstance(v, Constant):
            return _constant_unique_value(v)
        if only_process_constants or not isinstance(v, Variable) or v.owner is None:
            raise NotScalarConstantError(f"{v} is not a constant")
        node = v.owner
        op = node.op
        # (an op defined above this module says so with ``keeps_input_value``)
        if isinstance(op, (DimShuffle, Unbroadcast, SpecifyShape, Reshape, Alloc)) or getattr(
                op, "keeps_input_value", False):
            v = node.inputs[0]
            continue
        if isinstance(op, Assert):  # the value, when every condition is a true constant
            if not all(get_scalar_constant_value(c, elemwise, only_process_constants,
                                                 max_recur) for c in node.inputs[1:]):
                raise NotScalarConstantError(f"{v} is asserted by a false condition")
            v = node.inputs[0]
            continue
        if isinstance(op, Shape_i):
            return _shape_i_constant(node.inputs[0], op.i)
        if isinstance(op, Elemwise):
            sop = op.scalar_op
            if isinstance(sop, Cast):
                value = get_scalar_constant_value(node.inputs[0], elemwise,
                                                  only_process_constants, max_recur)
                return np.asarray(value).astype(sop.dtype)[()]
            if sop.name == "second":
                v = node.inputs[1]
                continue
            if sop.name == "identity":
                v = node.inputs[0]
                continue
            if elemwise and max_recur > 0 and len(node.outputs) == 1:
                values = [get_scalar_constant_value(i, elemwise, only_process_constants,
                                                    max_recur - 1) for i in node.inputs]
                with np.errstate(all="ignore"):
                    out = sop.compute([np.asarray(x) for x in values], v.dtype)
                return np.asarray(out).astype(v.dtype)[()]
            raise NotScalarConstantError(f"{v} is not a constant")
        if isinstance(op, Subtensor):
            return _subtensor_constant(node, elemwise, max_recur)
        raise NotScalarConstantError(f"{v} is computed by {op}, which is not constant-folded here")


def _shape_i_constant(x: Variable, i: int) -> Any:
    if x.broadcastable[i]:
        return np.int64(1)
    if isinstance(x, Constant):
        return np.int64(x.data.shape[i])
    if x.owner is not None and isinstance(x.owner.op, SpecifyShape) and x.owner.op.known[i]:
        k = sum(x.owner.op.known[:i])
        return np.int64(get_scalar_constant_value(x.owner.inputs[1 + k]))
    if x.owner is not None and isinstance(x.owner.op, Alloc):
        return np.int64(get_scalar_constant_value(x.owner.inputs[1 + i]))
    if x.owner is not None and isinstance(x.owner.op, Reshape):
        known = _constant_elements(x.owner.inputs[1])
        if len(known) > i and known[i] is not None and known[i] >= 0:
            return np.int64(known[i])
    raise NotScalarConstantError(f"dimension {i} of {x} is not known when the graph is built")


def _subtensor_constant(node: Apply, elemwise: bool, max_recur: int) -> Any:
    op = node.op
    x = node.inputs[0]
    try:
        idx = [int(get_scalar_constant_value(i)) for i in node.inputs[1:]]
    except NotScalarConstantError:
        raise NotScalarConstantError(f"{node.outputs[0]} has a symbolic index") from None
    if op.idx_list == ("int",):
        (i,) = idx
        if x.owner is not None and isinstance(x.owner.op, Shape):
            inner = x.owner.inputs[0]
            if -inner.ndim <= i < inner.ndim:
                return _shape_i_constant(inner, i % inner.ndim)
        if x.owner is not None and isinstance(x.owner.op, MakeVector):
            elems = x.owner.inputs
            if -len(elems) <= i < len(elems):
                value = get_scalar_constant_value(elems[i], elemwise, False, max_recur)
                return np.asarray(value).astype(x.dtype)[()]
    if isinstance(x, Constant) and node.outputs[0].ndim == 0:
        storage: list = [[None]]
        try:
            op.perform(node, [x.data, *[np.int64(i) for i in idx]], storage)
        except IndexError:
            raise NotScalarConstantError("constant index out of range") from None
        return np.asarray(storage[0][0])[()]
    raise NotScalarConstantError(f"{node.outputs[0]} is not a constant")


def extract_constant(x: Any, elemwise: bool = True, only_process_constants: bool = False) -> Any:
    """The value of ``x`` (a new 0-d array of its dtype, as in Theano) when
    :func:`get_scalar_constant_value` can fold it, else ``x`` itself."""
    try:
        value = get_scalar_constant_value(x, elemwise, only_process_constants)
    except NotScalarConstantError:
        return x
    if isinstance(x, Variable):
        return np.array(value, dtype=x.dtype)
    return value


def get_vector_length(v: Any) -> int:
    """The length of the vector ``v`` if it is known when the graph is built (else ValueError)."""
    v = as_tensor_variable(v)
    if v.ndim != 1:
        raise TypeError(f"get_vector_length: {v} is not a vector ({v.type})")
    if v.broadcastable[0]:
        return 1
    if isinstance(v, Constant):
        return len(v.data)
    if v.owner is not None:
        op = v.owner.op
        if isinstance(op, Shape):
            return v.owner.inputs[0].ndim
        if isinstance(op, MakeVector):
            return len(v.owner.inputs)
        if isinstance(op, Join):
            return sum(get_vector_length(i) for i in v.owner.inputs)
        if isinstance(op, (Unbroadcast, SpecifyShape)):
            return get_vector_length(v.owner.inputs[0])
        if isinstance(op, Elemwise) and len(v.owner.inputs) == 1:
            return get_vector_length(v.owner.inputs[0])
        length = _sliced_length(v)
        if length is not None:
            return length
    raise ValueError(f"the length of the vector {v} is not known when the graph is built")


def _sliced_length(v: Variable) -> int | None:
    if not isinstance(v.owner.op, Subtensor) or not v.owner.op.idx_list:
        return None
    if not isinstance(v.owner.op.idx_list[0], tuple):
        return None
    try:
        n = get_vector_length(v.owner.inputs[0])
        bounds = [int(get_scalar_constant_value(i)) for i in v.owner.inputs[1:]]
    except (ValueError, NotScalarConstantError):
        return None
    it = iter(bounds)
    _, has_start, has_stop, has_step = v.owner.op.idx_list[0]
    sl = slice(next(it) if has_start else None, next(it) if has_stop else None,
               next(it) if has_step else None)
    return len(range(n)[sl])


# ---------------------------------------------------------------------------------------------
# MakeVector

class MakeVector(Op):
    """A vector built from 0-d inputs (all of dtype ``dtype``)."""

    __props__ = ("dtype",)

    def __init__(self, dtype: str = "int64") -> None:
        self.dtype = dt.normalize_dtype(dtype)

    def __str__(self) -> str:
        return f"MakeVector{{dtype='{self.dtype}'}}"

    def make_node(self, *inputs: Any) -> Apply:
        elems = []
        for k, e in enumerate(inputs):
            e = as_tensor_variable(e)
            if e.ndim != 0:
                raise TypeError(f"{self}: input {k} must be a scalar (0-d), got {e} ({e.type})")
            if e.dtype != self.dtype:
                if not (np.can_cast(e.dtype, self.dtype, "safe") or _fits(e, self.dtype)):
                    raise TypeError(f"{self}: input {k} of dtype {e.dtype} cannot be stored "
                                    f"without loss in {self.dtype}")
                e = cast(e, self.dtype)
            elems.append(e)
        out = TensorType(self.dtype, (len(elems) == 1,)).make_variable()
        return Apply(self, elems, [out])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        output_storage[0][0] = np.array([np.asarray(i).item() for i in inputs], dtype=self.dtype)

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        (gz,) = output_grads
        if dt.is_discrete(self.dtype):
            return [None] * len(inputs)
        return [None if dt.is_discrete(x.dtype) else _fit_gradient(gz[k], x)
                for k, x in enumerate(inputs)]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        if dt.is_discrete(self.dtype) or all(v is None for v in eval_points):
            return [None]
        return [self(*[zeros_like(x) if v is None else v for x, v in zip(inputs, eval_points)])]

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        return [(len(node.inputs),)]


def _fits(e: Variable, dtype: str) -> bool:
    """True if ``e`` is a constant whose value is exactly representable in ``dtype``."""
    if not isinstance(e, Constant):
        return False
    with np.errstate(all="ignore"):
        converted = np.asarray(e.data).astype(dtype)
    return bool(np.all(converted == e.data))


def make_vector(*elements: Any, dtype: str | None = None) -> Variable:
    """A symbolic vector of the scalars ``elements`` (dtype: their common upcast, or int64)."""
    elems = [as_tensor_variable(e) for e in elements]
    if dtype is None:
        dtype = dt.upcast(*[e.dtype for e in elems]) if elems else "int64"
    return MakeVector(dtype)(*elems)


# ---------------------------------------------------------------------------------------------
# Alloc and friends

class Alloc(Op):
    """A fresh array of the given shape filled with ``value`` (broadcast like NumPy)."""

    __props__ = ()

    def make_node(self, value: Any, *shape: Any) -> Apply:
        value = as_tensor_variable(value)
        dims = [_scalar_int_input(s, "Alloc") for s in shape]
        if value.ndim > len(dims):
            raise TypeError(f"Alloc: the value {value} has {value.ndim} dimensions, more than "
                            f"the {len(dims)} of the requested shape")
        bcast = [_const_int(d) == 1 for d in dims]
        return Apply(self, [value, *dims], [TensorType(value.dtype, bcast).make_variable()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        value, *shape = inputs
        shape = tuple(int(s) for s in shape)
        if any(s < 0 for s in shape):
            raise ValueError(f"Alloc: negative dimension in the requested shape {shape}")
        try:
            src = np.broadcast_to(value, shape)
        except ValueError:
            raise ValueError(f"Alloc: a value of shape {np.shape(value)} cannot be broadcast to "
                             f"the requested shape {shape}") from None
        out = np.empty(shape, dtype=node.outputs[0].dtype)
        out[...] = src
        output_storage[0][0] = out

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        value = inputs[0]
        rest: list = [None] * (len(inputs) - 1)
        if dt.is_discrete(value.dtype):
            return [None, *rest]
        gz = as_tensor_variable(output_grads[0])
        n_new = gz.ndim - value.ndim
        if n_new:
            gz = tsum(gz, axis=list(range(n_new)))
        return [_fit_gradient(gz, value), *rest]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        if eval_points[0] is None:
            return [None]
        return [self(eval_points[0], *inputs[1:])]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True]] + [[False]] * (len(node.inputs) - 1)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        return [tuple(_dim(s) for s in node.inputs[1:])]


_alloc = Alloc()


def _shape_args(shape: Sequence[Any], who: str) -> list[Any]:
    """Shape arguments (ints, scalars, one tuple/list, or one int vector) as a list of dims."""
    if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
        shape = tuple(shape[0])
    elif len(shape) == 1 and not _is_pyint(shape[0]):
        vec = as_tensor_variable(shape[0])
        if vec.ndim == 1:
            n = get_vector_length(vec)
            return [vec[i] for i in range(n)]
    for s in shape:
        if isinstance(s, (bool, float, np.floating)):
            raise TypeError(f"{who}: shape entries must be integers, got {s!r}")
    return list(shape)


def alloc(value: Any, *shape: Any) -> Variable:
    """An array of shape ``shape`` filled with ``value`` (a scalar or a tensor broadcast to it).

    ``shape`` entries are ints or symbolic int scalars: ``alloc(0., n, 3)``; ``alloc(v, *x.shape)``
    also works.
    """
    return _alloc(value, *_shape_args(shape, "alloc"))


def _filled(shape: Any, value: Any, dtype: str | None, who: str) -> Variable:
    if _is_pyint(shape):
        shape = (shape,)
    dims = _shape_args((shape,), who)
    return _alloc(constant(np.asarray(value, dtype=dt.normalize_dtype(dtype or "floatX"))),
                  *dims)


def zeros(shape: Any, dtype: str | None = None) -> Variable:
    """An array of zeros of shape ``shape`` (int, sequence, or int vector); dtype floatX."""
    return _filled(shape, 0, dtype, "zeros")


def ones(shape: Any, dtype: str | None = None) -> Variable:
    """An array of ones of shape ``shape`` (int, sequence, or int vector); dtype floatX."""
    return _filled(shape, 1, dtype, "ones")


def full(shape: Any, fill_value: Any, dtype: str | None = None) -> Variable:
    """An array of shape ``shape`` filled with ``fill_value`` (its dtype unless ``dtype``)."""
    value = as_tensor_variable(fill_value)
    if dtype is not None:
        value = cast(value, dtype)
    if _is_pyint(shape):
        shape = (shape,)
    return _alloc(value, *_shape_args((shape,), "full"))


def full_like(x: Any, fill_value: Any, dtype: str | None = None) -> Variable:
    """An array like ``x`` (shape and broadcastable pattern) filled with ``fill_value``."""
    x = as_tensor_variable(x)
    dtype = dt.normalize_dtype(dtype) if dtype is not None else x.dtype
    return second(x, constant(np.asarray(fill_value, dtype=dtype)))


def zeros_like(x: Any, dtype: str | None = None) -> Variable:
    """Zeros with the shape and broadcastable pattern of ``x`` (its dtype unless ``dtype``)."""
    return full_like(x, 0, dtype)


def ones_like(x: Any, dtype: str | None = None) -> Variable:
    """Ones with the shape and broadcastable pattern of ``x`` (its dtype unless ``dtype``)."""
    return full_like(x, 1, dtype)


# ---------------------------------------------------------------------------------------------
# Join, concatenate, stack

# numpy's AxisError is both a ValueError and an IndexError (numpy.exceptions from NumPy 1.25)
AxisError = np.exceptions.AxisError if hasattr(np, "exceptions") else np.AxisError


class Join(Op):
    """Concatenation of tensors of equal rank along ``axis``.

    ``Join()`` without an axis is Theano's calling convention, ``Join()(axis, *tensors)``: the
    first input is the axis. It must be a constant, and the node built is ``Join(axis)``'s, since
    kernels are specialised to the join axis.
    """

    __props__ = ("axis",)

    def __init__(self, axis: int | None = None) -> None:
        if axis is not None and not _is_pyint(axis):
            raise TypeError(f"Join needs an int axis, got {axis!r}")
        self.axis = None if axis is None else int(axis)

    def __str__(self) -> str:
        return "Join" if self.axis is None else f"Join{{axis={self.axis}}}"

    def _axis(self, ndim: int) -> int:
        if not -ndim <= self.axis < ndim:
            raise AxisError(
                f"{self}: axis {self.axis} is out of range for {ndim}-d inputs")
        return self.axis % ndim

    def make_node(self, *tensors: Any) -> Apply:
        if self.axis is None:
            if not tensors:
                raise ValueError("Join()(axis, *tensors) needs the axis as its first input")
            return Join(_int_axis(tensors[0], "Join"))._make_node(tensors[1:])
        return self._make_node(tensors)

    def _make_node(self, tensors: Sequence[Any]) -> Apply:
        if not tensors:
            raise ValueError(f"{self} needs at least one tensor")
        ts = [as_tensor_variable(t) for t in tensors]
        ndim = ts[0].ndim
        if ndim == 0:
            raise TypeError(f"{self}: 0-d tensors cannot be joined; use stack")
        if any(t.ndim != ndim for t in ts):
            raise TypeError(f"{self}: all inputs must have the same number of dimensions, got "
                            f"{[str(t.type) for t in ts]}")
        axis = self._axis(ndim)
        bcast = [any(t.broadcastable[d] for t in ts) for d in range(ndim)]
        bcast[axis] = len(ts) == 1 and ts[0].broadcastable[axis]
        out_dtype = dt.upcast(*[t.dtype for t in ts])
        return Apply(self, ts, [TensorType(out_dtype, bcast).make_variable()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        axis = self._axis(node.outputs[0].ndim)
        try:
            out = np.concatenate(inputs, axis=axis)
        except ValueError:
            raise ValueError(f"{self}: cannot join inputs of shapes "
                             f"{[np.shape(i) for i in inputs]} along axis {axis} (all other "
                             "dimensions must match)") from None
        output_storage[0][0] = out.astype(node.outputs[0].dtype, copy=False)

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        (gz,) = output_grads
        if dt.is_discrete(gz.dtype):
            return [None] * len(inputs)
        axis = self._axis(gz.ndim)
        grads = []
        start: Any = 0
        for x in inputs:
            stop = _add(start, 1 if x.broadcastable[axis] else shape_i(x, axis))
            index = (slice(None),) * axis + (slice(start, stop),)
            grads.append(_fit_gradient(gz[index], x))  # an integer input too, as in Theano
            start = stop
        return grads

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        if all(v is None for v in eval_points):
            return [None]
        return [self(*[zeros_like(x) if v is None else v for x, v in zip(inputs, eval_points)])]

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        ndim = node.outputs[0].ndim
        axis = self._axis(ndim)
        dims = []
        for d in range(ndim):
            if d == axis:
                total: Any = 0
                for s in input_shapes:
                    total = _add(total, s[d])
                dims.append(total)
            elif node.outputs[0].broadcastable[d]:
                dims.append(1)
            else:
                dims.append(input_shapes[0][d])
        return [tuple(dims)]


def _int_axis(axis: Any, who: str) -> int:
    if _is_pyint(axis):
        return int(axis)
    try:
        return int(get_scalar_constant_value(axis))
    except NotScalarConstantError:
        raise TypeError(f"{who}: the axis must be known when the graph is built, got "
                        f"{axis}") from None


def join(axis: Any, *tensors: Any) -> Variable:
    """Concatenate ``tensors`` (all of the same rank) along ``axis``; one tensor is returned
    unchanged."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if not tensors:
        raise ValueError("join needs at least one tensor")
    ts = [as_tensor_variable(t) for t in tensors]
    axis = _int_axis(axis, "join")
    if len(ts) == 1:
        return ts[0]
    ndim = ts[0].ndim
    if ndim and -ndim <= axis < ndim:
        axis %= ndim
    return Join(axis)(*ts)


def concatenate(tensor_list: Sequence[Any], axis: int = 0) -> Variable:
    """Concatenate a list of tensors along ``axis`` (like ``numpy.concatenate``)."""
    if not isinstance(tensor_list, (list, tuple)):
        raise TypeError("concatenate: the first argument must be a list or tuple of tensors "
                        "(did you forget the [] around them?)")
    return join(axis, *tensor_list)


def stack(*args: Any, tensors: Sequence[Any] | None = None, axis: Any = 0) -> Variable:
    """Stack tensors of equal shape along a new axis ``axis``: ``stack([a, b], axis=0)`` (or
    ``stack(tensors=[a, b], axis=0)``).

    Theano's older form ``stack(a, b, c)`` is accepted too, with a DeprecationWarning as in
    Theano. Scalars stacked along axis 0 give a :class:`MakeVector`.
    """
    if tensors is not None:
        if args:
            raise TypeError("stack: give the tensors either as a list or as tensors=, not both")
        args = (tensors,)
    if args and isinstance(args[0], (list, tuple)):
        if len(args) > 2:
            raise TypeError("stack(tensors, axis): too many positional arguments")
        if len(args) == 2:
            axis = args[1]
        tensors = tuple(args[0])
    else:
        if args:
            warnings.warn("stack(a, b, ...) is deprecated: pass a list, stack([a, b, ...], "
                          "axis)", DeprecationWarning, stacklevel=2)
        tensors = args
    if not tensors:
        raise ValueError("stack needs at least one tensor")
    axis = _int_axis(axis, "stack")
    ts = [as_tensor_variable(t) for t in tensors]
    if all(t.ndim == 0 for t in ts) and axis in (0, -1):
        return make_vector(*ts)
    ndims = {t.ndim for t in ts}
    if len(ndims) != 1:
        raise ValueError(f"stack: all tensors must have the same rank, got "
                         f"{[str(t.type) for t in ts]}")
    ndim = ndims.pop()
    if not -ndim - 1 <= axis <= ndim:
        raise AxisError(f"stack: axis {axis} is out of range for stacking {ndim}-d tensors")
    axis %= ndim + 1
    return join(axis, *[shape_padaxis(t, axis) for t in ts])
