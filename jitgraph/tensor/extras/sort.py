"""Sorting (Theano's ``theano.tensor.sort``): ``sort``/``argsort`` (``SortOp``/``ArgSortOp``,
``numpy.sort``/``numpy.argsort`` along an axis given as a graph input) and the ``k`` largest or
smallest entries along an axis, ``topk``/``argtopk``/``topk_and_argtopk`` (``TopKOp``).

As in Theano, ``jitgraph.tensor.extras.sort`` names the *function*: the package imports it over the
submodule's name; the module itself is ``sys.modules['jitgraph.tensor.extras.sort']`` and
``from jitgraph.tensor.extras.sort import topk`` works.

The gradients send each output gradient back to the position its value came from (a scatter
through the permutation ``argsort``/``argtopk`` computed); positions and ``kth`` have none.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.op import Op
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.core.basic import NotScalarConstantError, get_scalar_constant_value, zeros_like
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.elementwise.elemwise import dimshuffle
from jitgraph.tensor.extras.extra_ops import arange  # also a name of Theano's sort module
from jitgraph.tensor.core.gradient import grad_not_implemented
from jitgraph.tensor.core.gradient import grad_undefined  # also a name of Theano's sort module
from jitgraph.tensor.elementwise.math import mul  # noqa: F401  (Theano's sort module exports it)
from jitgraph.tensor.indexing.subtensor import set_subtensor  # noqa: F401  (likewise)
from jitgraph.tensor.core.type import TensorType
from jitgraph.graph.gradient_types import is_disconnected
from jitgraph.tensor.elementwise.math import abs as tabs
from jitgraph.tensor.indexing.subtensor import inc_subtensor
from jitgraph.tensor.shaping.dims import _dim

__all__ = ["argsort", "argtopk", "sort", "topk", "topk_and_argtopk"]

_KINDS = ("quicksort", "mergesort", "heapsort", "stable")


def _integer_scalar(who: str, name: str, value: Any) -> Variable:
    v = as_tensor_variable(value)
    if v.ndim != 0 or not dt.is_discrete(v.dtype) or v.dtype == "bool":
        raise TypeError(f"{who}: {name} must be an integer scalar, got {v.type}")
    return v


def _axis_scalar(who: str, axis: Any) -> Variable:
    """The sort axis as a scalar; as in Theano, a float constant with an integral value
    (``axis=1.0``) is that integer, and a float variable (``T.scalar()``) is taken as it is:
    a value that is not a whole number is refused when the sort runs (1.5 at once)."""
    v = as_tensor_variable(axis)
    if v.ndim == 0 and dt.is_float(v.dtype):
        try:
            value = float(get_scalar_constant_value(v))
        except NotScalarConstantError:
            return v  # checked by _SortBase._axis when it runs
        if value.is_integer():
            return as_tensor_variable(np.int64(value))
    return _integer_scalar(who, "axis", v)


def _along_axis(like: Variable, positions: Variable, axis: int) -> tuple:
    """An advanced index picking, for each entry of ``positions`` (shaped like ``like`` except
    along ``axis``), that position along ``axis`` (``numpy.take_along_axis``'s index)."""
    index: list[Any] = []
    for d in range(like.ndim):
        if d == axis:
            index.append(positions)
        else:
            pattern: list[Any] = ["x"] * like.ndim
            pattern[d] = 0
            index.append(dimshuffle(arange(positions.shape[d]), pattern))
    return tuple(index)


def _scatter_along(x: Variable, positions: Variable, values: Variable, axis: int) -> Variable:
    """Zeros shaped like ``x`` (in the dtype of ``values``) with ``values`` added at
    ``positions`` along ``axis``."""
    return inc_subtensor(zeros_like(x, values.dtype)[_along_axis(x, positions, axis)], values)


def _constant_axis(axis: Variable, ndim: int) -> int | None:
    """The value of ``axis`` (made non-negative) when known before running, else None."""
    try:
        return int(get_scalar_constant_value(axis)) % ndim
    except NotScalarConstantError:
        return None


class _SortBase(Op):
    __props__ = ("kind", "order")

    def __init__(self, kind: str = "quicksort", order: Any = None) -> None:
        if kind not in _KINDS:
            raise ValueError(f"{type(self).__name__}: kind must be one of {_KINDS}, got {kind!r}")
        if isinstance(order, (list, tuple)) and not order:
            order = None  # no fields (Theano's tests write SortOp(kind, []))
        if order is not None:
            raise ValueError(f"{type(self).__name__}: order={order!r} sorts structured arrays "
                             "by field, and tensors have no fields; leave it None")
        self.kind = kind
        self.order = order

    def __str__(self) -> str:
        return f"{type(self).__name__}{{{self.kind}, {self.order}}}"

    def _inputs(self, x: Any, axis: Any) -> tuple[Variable, Variable]:
        x = as_tensor_variable(x)
        if x.ndim == 0:
            raise ValueError(f"{self}: cannot sort a scalar ({x.type}); use axis=None")
        return x, _axis_scalar(str(self), axis)

    def _axis(self, x: np.ndarray, axis: Any) -> int:
        if int(axis) != axis:
            raise ValueError(f"{self}: the sort axis must be a whole number, got {axis}")
        a = int(axis)
        if not -x.ndim <= a < x.ndim:
            raise ValueError(f"{self}: axis {a} is out of bounds for an input of rank {x.ndim}")
        return a

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        return [tuple(input_shapes[0])]


class SortOp(_SortBase):
    """``numpy.sort(x, axis, kind)``; inputs ``x`` and the integer scalar ``axis``."""

    #: an integer input receives the gradient reaching the integer output (Theano's rule)
    grad_through_integer_outputs = True

    def make_node(self, input: Any, axis: Any = -1) -> Apply:
        x, axis = self._inputs(input, axis)
        return Apply(self, [x, axis], [x.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, axis = inputs
        output_storage[0][0] = np.sort(x, axis=self._axis(x, axis), kind=self.kind)

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        x, axis = inputs
        (gz,) = output_grads
        g_axis = grad_undefined(self, 1, axis, "the axis of sort is an integer")
        a = _constant_axis(axis, x.ndim)
        if a is None:
            return [grad_not_implemented(self, 0, x, "the gradient of sort needs the axis "
                                         "known when the graph is built"), g_axis]
        # out[..., i, ...] = x[..., idx[i], ...]: x[idx[i]] receives gz[i]
        idx = ArgSortOp(self.kind, self.order)(x, axis)
        return [_scatter_along(x, idx, gz, a), g_axis]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        x, axis = inputs
        if eval_points[0] is None:
            return [None]
        a = _constant_axis(axis, x.ndim)
        if a is None:
            raise NotImplementedError(f"{self}: R_op needs the axis known when the graph is "
                                      f"built, got the symbolic {axis}")
        idx = ArgSortOp(self.kind, self.order)(x, axis)
        return [eval_points[0][_along_axis(x, idx, a)]]


class ArgSortOp(_SortBase):
    """``numpy.argsort(x, axis, kind)`` as int64; inputs ``x`` and the integer scalar
    ``axis``."""

    def make_node(self, input: Any, axis: Any = -1) -> Apply:
        x, axis = self._inputs(input, axis)
        return Apply(self, [x, axis], [TensorType("int64", x.broadcastable)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, axis = inputs
        order = np.argsort(x, axis=self._axis(x, axis), kind=self.kind)
        output_storage[0][0] = np.asarray(order, dtype=np.int64)

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        x, axis = inputs
        g_axis = grad_undefined(self, 1, axis, "the axis of argsort is an integer")
        # positions are piecewise constant in x
        return [None if dt.is_discrete(x.dtype) else zeros_like(x), g_axis]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        return [None]


def _flat_if_none(a: Any, axis: Any) -> tuple[Variable, Any]:
    a = as_tensor_variable(a)
    return (a.flatten(), 0) if axis is None else (a, axis)


def sort(a: Any, axis: Any = -1, kind: str = "quicksort", order: Any = None) -> Variable:
    """``a`` sorted along ``axis`` (an int or integer scalar variable; None: the flattened
    ``a``), like ``numpy.sort``. ``kind``: 'quicksort', 'mergesort', 'heapsort' or 'stable'."""
    a, axis = _flat_if_none(a, axis)
    return SortOp(kind, order)(a, axis)


def argsort(a: Any, axis: Any = -1, kind: str = "quicksort", order: Any = None) -> Variable:
    """The int64 indices that sort ``a`` along ``axis`` (None: the flattened ``a``), like
    ``numpy.argsort``."""
    a, axis = _flat_if_none(a, axis)
    return ArgSortOp(kind, order)(a, axis)


# ---------------------------------------------------------------------------------------------
# top-k

class TopKOp(Op):
    """The ``|kth|`` largest (``kth > 0``) or smallest (``kth < 0``) entries along ``axis`` and
    their positions (outputs as ``return_values``/``return_indices`` ask, in that order).

    ``sorted=True`` orders them most extreme first (descending for ``kth > 0``, ascending for
    ``kth < 0``; Theano 1.0 refused ``sorted=True``); ``sorted=False`` leaves them in
    ``numpy.argpartition``'s order."""

    __props__ = ("axis", "sorted", "return_values", "return_indices", "idx_dtype")

    def __init__(self, axis: int = -1, sorted: bool = True, idx_dtype: str = "int64",
                 return_values: bool = True, return_indices: bool = True) -> None:
        if not isinstance(axis, (int, np.integer)):
            raise TypeError(f'TopKOp: "axis" parameter must be an integer, got {axis!r}')
        idx_dtype = dt.normalize_dtype(idx_dtype)
        if not dt.is_discrete(idx_dtype) or idx_dtype == "bool":
            raise TypeError(f'TopKOp: "idx_dtype" parameter must be an integer dtype, got '
                            f'"{idx_dtype}"')
        if not (return_values or return_indices):
            raise ValueError("TopKOp: neither return_values nor return_indices is True, "
                             "the op would have no output")
        self.axis = int(axis)
        self.sorted = bool(sorted)
        self.idx_dtype = idx_dtype
        self.return_values = bool(return_values)
        self.return_indices = bool(return_indices)

    def __str__(self) -> str:
        return f"TopKOp{{axis={self.axis}, sorted={self.sorted}}}"

    def make_node(self, inp: Any, kth: Any) -> Apply:
        x = as_tensor_variable(inp)
        if x.ndim == 0:
            raise ValueError(f"{self}: cannot take the top entries of a scalar ({x.type})")
        if not -x.ndim <= self.axis < x.ndim:
            raise IndexError(f'{self}: "axis" parameter out of range, expected an integer '
                             f"within [{-x.ndim}, {x.ndim - 1}]")
        kth = _integer_scalar(str(self), "kth", kth)
        outputs = []
        if self.return_values:
            outputs.append(x.type())
        if self.return_indices:
            outputs.append(TensorType(self.idx_dtype, x.broadcastable)())
        return Apply(self, [x, kth], outputs)

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, kth = inputs
        positions = top_positions(x, int(kth), self.axis, self.sorted)
        results = []
        if self.return_values:
            results.append(np.take_along_axis(x, positions, axis=self.axis))
        if self.return_indices:
            results.append(positions.astype(self.idx_dtype))
        for cell, value in zip(output_storage, results):
            cell[0] = value

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        dims = list(input_shapes[0])
        dims[self.axis % len(dims)] = _dim(tabs(node.inputs[1]))
        return [tuple(dims)] * len(node.outputs)

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list:
        x, kth = inputs
        g_kth = grad_undefined(self, 1, kth, "topk: kth (the number of entries) is an integer")
        gz = output_grads[0] if self.return_values else None
        if gz is None or is_disconnected(gz) or dt.is_discrete(x.dtype):
            return [None, g_kth]  # only the positions are used: piecewise constant in x
        positions = outputs[1] if self.return_indices else argtopk(
            x, kth, self.axis, self.sorted, self.idx_dtype)
        return [_scatter_along(x, positions, gz, self.axis % x.ndim), g_kth]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        x, kth = inputs
        ev = eval_points[0]
        tangents: list[Variable | None] = []
        if self.return_values:
            if ev is None:
                tangents.append(None)
            else:
                positions = argtopk(x, kth, self.axis, self.sorted, self.idx_dtype)
                tangents.append(ev[_along_axis(x, positions, self.axis % x.ndim)])
        if self.return_indices:
            tangents.append(None)  # integer positions: no tangent
        return tangents


def top_positions(x: np.ndarray, k: int, axis: int, ordered: bool) -> np.ndarray:
    """The NumPy reference of :class:`TopKOp`: positions along ``axis`` of the ``k`` largest
    (``k > 0``) or ``-k`` smallest entries (``ordered``: most extreme first)."""
    n = x.shape[axis]
    if k == 0:
        raise ValueError("topk: kth must not be zero")
    if abs(k) > n:
        raise ValueError(f"topk: |kth|={abs(k)} is larger than the size {n} of axis {axis}")
    if k > 0:
        chosen = np.take(np.argpartition(x, n - k, axis=axis), np.arange(n - k, n), axis=axis)
    else:
        chosen = np.take(np.argpartition(x, -k - 1, axis=axis), np.arange(-k), axis=axis)
    if ordered:
        order = np.argsort(np.take_along_axis(x, chosen, axis=axis), axis=axis, kind="stable")
        if k > 0:
            order = np.flip(order, axis=axis)
        chosen = np.take_along_axis(chosen, order, axis=axis)
    return chosen


def _topk_node(x: Any, kth: Any, axis: Any, sorted: bool, idx_dtype: str) -> list[Variable]:
    x, axis = _flat_if_none(x, axis)
    return TopKOp(axis=axis, sorted=sorted, idx_dtype=idx_dtype).make_node(x, kth).outputs


def topk(x: Any, kth: Any, axis: Any = -1, sorted: bool = True, idx_dtype: str = "int64"
         ) -> Variable:
    """The ``kth`` largest entries of ``x`` along ``axis`` (``kth < 0``: the ``-kth``
    smallest; None: of the flattened ``x``). ``sorted``: most extreme first, else in no
    particular order. Differentiable with respect to ``x``."""
    return _topk_node(x, kth, axis, sorted, idx_dtype)[0]


def argtopk(x: Any, kth: Any, axis: Any = -1, sorted: bool = True, idx_dtype: str = "int64"
            ) -> Variable:
    """The positions (``idx_dtype``) along ``axis`` of :func:`topk`'s entries."""
    return _topk_node(x, kth, axis, sorted, idx_dtype)[1]


def topk_and_argtopk(x: Any, kth: Any, axis: Any = -1, sorted: bool = True,
                     idx_dtype: str = "int64") -> tuple[Variable, Variable]:
    """``(topk(...), argtopk(...))`` from one node."""
    values, positions = _topk_node(x, kth, axis, sorted, idx_dtype)
    return values, positions

