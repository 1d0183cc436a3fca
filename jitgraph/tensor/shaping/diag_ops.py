"""Diagonals of tensors: ``ExtractDiag`` (``numpy.diagonal``) and its inverse ``AllocDiag``
(named ``diag_ops`` so that ``T.diagonal``, the function, is not shadowed by a module).

Theano 1.0 defines both classes in ``theano.tensor.basic`` (where ``T.ExtractDiag`` and
``T.AllocDiag`` come from); ``theano.tensor.nlinalg`` reuses ``ExtractDiag`` (the same class) but
defines an ``AllocDiag`` of its own, a vector-to-diagonal-matrix op without parameters, which
lives in :mod:`jitgraph.tensor.linalg.nlinalg`.

Both ops here are linear, so their gradients and R_ops are each other (plus a zero-filled
scatter when the extracted diagonal came from a non-square slice).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.op import Op
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.shaping.dims import _add, _maximum, _minimum, _sub
from jitgraph.tensor.core.type import TensorType
from jitgraph.graph.gradient_types import disconnected_type

__all__ = ["ExtractDiag", "AllocDiag", "DiagonalScatter"]


def _normalized_axes(axis1: int, axis2: int, ndim: int, who: str) -> tuple[int, int]:
    """``axis1``, ``axis2`` as non-negative axes of an ``ndim``-d array, checked."""
    axes = []
    for name, axis in (("axis1", axis1), ("axis2", axis2)):
        if not -ndim <= axis < ndim:
            raise ValueError(f"{who}: {name}={axis} is out of range for a {ndim}-d tensor")
        axes.append(axis % ndim)
    if axes[0] == axes[1]:
        raise ValueError(f"{who}: axis1 and axis2 must be different axes, got {axis1} and "
                         f"{axis2} for a {ndim}-d tensor")
    return axes[0], axes[1]


def _check_int(value: Any, name: str, who: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{who}: {name} must be an int, got {value!r}")
    return int(value)


def _diagonal_length(d1: Any, d2: Any, offset: int) -> Any:
    """Length of diagonal ``offset`` of a ``d1 x d2`` slice (symbolic or int)."""
    if offset >= 0:
        n = _minimum(d1, _sub(d2, offset))
    else:
        n = _minimum(_add(d1, offset), d2)
    return _maximum(n, 0)


def _diagonal_index(shape: Sequence[int], offset: int, axis1: int, axis2: int) -> tuple:
    """An index tuple selecting diagonal ``offset`` of axes ``axis1``/``axis2`` of an array of
    ``shape`` moved so that those axes are last (the layout ``numpy.diagonal`` returns)."""
    n = max(0, min(shape[axis1], shape[axis2] - offset) if offset >= 0
            else min(shape[axis1] + offset, shape[axis2]))
    i = np.arange(n)
    return (Ellipsis, i + max(0, -offset), i + max(0, offset))


class ExtractDiag(Op):
    """``numpy.diagonal(x, offset, axis1, axis2)``: the diagonal becomes the last axis.

    ``view=True`` returns NumPy's (read-only) view instead of a copy.
    """

    __props__ = ("offset", "axis1", "axis2", "view")

    def __init__(self, offset: int = 0, axis1: int = 0, axis2: int = 1,
                 view: bool = False) -> None:
        self.offset = _check_int(offset, "offset", "ExtractDiag")
        self.axis1 = _check_int(axis1, "axis1", "ExtractDiag")
        self.axis2 = _check_int(axis2, "axis2", "ExtractDiag")
        self.view = bool(view)
        if self.view:
            self.view_map = {0: [0]}

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        if x.ndim < 2:
            raise ValueError(f"{self}: needs an input with 2 or more dimensions, got {x} "
                             f"({x.type})")
        _normalized_axes(self.axis1, self.axis2, x.ndim, str(self))
        out = TensorType(x.dtype, (False,) * (x.ndim - 1)).make_variable()
        return Apply(self, [x], [out])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        (x,) = inputs
        diag = np.diagonal(x, self.offset, self.axis1, self.axis2)
        output_storage[0][0] = diag if self.view else diag.copy()

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        (shape,) = input_shapes
        a1, a2 = _normalized_axes(self.axis1, self.axis2, len(shape), str(self))
        rest = [d for k, d in enumerate(shape) if k not in (a1, a2)]
        return [(*rest, _diagonal_length(shape[a1], shape[a2], self.offset))]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        (x,), (gz,) = inputs, output_grads
        return [DiagonalScatter(self.offset, self.axis1, self.axis2)(x, gz)]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        if eval_points[0] is None:
            return [None]
        return [ExtractDiag(self.offset, self.axis1, self.axis2)(eval_points[0])]


class DiagonalScatter(Op):
    """Zeros shaped like ``x`` with ``values`` on diagonal ``offset`` of axes ``axis1``/``axis2``
    (the gradient of :class:`ExtractDiag`; only ``x``'s shape is used)."""

    __props__ = ("offset", "axis1", "axis2")

    def __init__(self, offset: int = 0, axis1: int = 0, axis2: int = 1) -> None:
        self.offset = _check_int(offset, "offset", "DiagonalScatter")
        self.axis1 = _check_int(axis1, "axis1", "DiagonalScatter")
        self.axis2 = _check_int(axis2, "axis2", "DiagonalScatter")

    def make_node(self, x: Any, values: Any) -> Apply:
        x, values = as_tensor_variable(x), as_tensor_variable(values)
        _normalized_axes(self.axis1, self.axis2, x.ndim, str(self))
        if values.ndim != x.ndim - 1:
            raise TypeError(f"{self}: values must have {x.ndim - 1} dimensions (the diagonal "
                            f"of {x}), got {values} ({values.type})")
        out = TensorType(values.dtype, x.broadcastable).make_variable()
        return Apply(self, [x, values], [out])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, values = inputs
        out = np.zeros(np.shape(x), dtype=node.outputs[0].dtype)
        moved = np.moveaxis(out, (self.axis1, self.axis2), (-2, -1))  # a writable view
        index = _diagonal_index(out.shape, self.offset, self.axis1, self.axis2)
        moved[index] = values
        output_storage[0][0] = out

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        return [tuple(input_shapes[0])]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[False], [True]]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        (gz,) = output_grads
        return [disconnected_type(), ExtractDiag(self.offset, self.axis1, self.axis2)(gz)]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        if eval_points[1] is None:
            return [None]
        return [self(inputs[0], eval_points[1])]


class AllocDiag(Op):
    """The inverse of ``numpy.diagonal(out, offset, axis1, axis2)``: an array of zeros whose
    diagonal (along ``axis1``/``axis2`` of the output) holds the last axis of ``x``.

    Theano's ``T.AllocDiag``; a vector input gives a square matrix of side ``len + |offset|``.
    """

    __props__ = ("offset", "axis1", "axis2")

    def __init__(self, offset: int = 0, axis1: int = 0, axis2: int = 1) -> None:
        self.offset = _check_int(offset, "offset", "AllocDiag")
        self.axis1 = _check_int(axis1, "axis1", "AllocDiag")
        self.axis2 = _check_int(axis2, "axis2", "AllocDiag")

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        if x.ndim < 1:
            raise ValueError(f"{self}: needs an input with 1 or more dimensions, got {x} "
                             f"({x.type})")
        _normalized_axes(self.axis1, self.axis2, x.ndim + 1, str(self))
        out = TensorType(x.dtype, (False,) * (x.ndim + 1)).make_variable()
        return Apply(self, [x], [out])

    def _out_axes(self, ndim_out: int) -> tuple[int, int]:
        return _normalized_axes(self.axis1, self.axis2, ndim_out, str(self))

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        (x,) = inputs
        x = np.asarray(x)
        a1, a2 = self._out_axes(x.ndim + 1)
        side = x.shape[-1] + abs(self.offset)
        shape = list(x.shape[:-1])
        for axis in sorted((a1, a2)):
            shape.insert(axis, side)
        out = np.zeros(shape, dtype=node.outputs[0].dtype)
        moved = np.moveaxis(out, (a1, a2), (-2, -1))
        moved[_diagonal_index(shape, self.offset, a1, a2)] = x
        output_storage[0][0] = out

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        (shape,) = input_shapes
        a1, a2 = self._out_axes(len(shape) + 1)
        side = _add(shape[-1], abs(self.offset))
        out = list(shape[:-1])
        for axis in sorted((a1, a2)):
            out.insert(axis, side)
        return [tuple(out)]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        return [ExtractDiag(self.offset, self.axis1, self.axis2)(output_grads[0])]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        return [None if eval_points[0] is None else self(eval_points[0])]
