"""Writing a scalar onto a diagonal: ``FillDiagonal`` (the main diagonal of an array of rank >= 2,
like ``numpy.fill_diagonal`` without wrapping) and ``FillDiagonalOffset`` (a matrix's diagonal
``offset`` places above (> 0) or below (< 0) the main one). Theano keeps both in
``theano.tensor.extra_ops``; :mod:`jitgraph.tensor.extras.extra_ops` re-exports them.

Both are linear in (array, value) jointly, so the gradients are fills again: the array's
gradient is the output gradient with the diagonal zeroed, the value's is the sum of the output
gradient over the diagonal (computed against a 0/1 mask made by the same op, which keeps one
code path for every rank and offset).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.op import Op
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.core.basic import zeros_like
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.core.gradient import grad_undefined
from jitgraph.tensor.elementwise.math import cast

__all__ = ["FillDiagonal", "FillDiagonalOffset", "fill_diagonal", "fill_diagonal_",
           "fill_diagonal_offset", "fill_diagonal_offset_"]


def _fill_value(op: Op, a: Variable, val: Any) -> Variable:
    """``val`` as a scalar of ``a``'s dtype, refusing a value that would need ``a`` upcast."""
    val = as_tensor_variable(val)
    if val.ndim != 0:
        raise TypeError(f"{op}: the value to write (val) must be a scalar, got {val.type}")
    wanted = dt.upcast(a.dtype, val.dtype)
    if wanted != a.dtype:
        raise TypeError(f"{op}: the value to write (val, {val.dtype}) needs the array (a, "
                        f"{a.dtype}) upcast to {wanted}; cast val to {a.dtype} first")
    return val if val.dtype == a.dtype else cast(val, a.dtype)


def _no_grad_for(x: Variable) -> bool:
    return dt.is_discrete(x.dtype) or dt.is_complex(x.dtype)


class FillDiagonal(Op):
    """``a`` (rank >= 2) with ``a[i, i, ..., i] = val`` for every ``i < min(a.shape)``; an array
    of rank > 2 must have all dimensions equal (as ``numpy.fill_diagonal`` requires)."""

    __props__ = ()

    def __str__(self) -> str:
        return "FillDiagonal"

    def make_node(self, a: Any, val: Any) -> Apply:
        a = as_tensor_variable(a)
        if a.ndim < 2:
            raise TypeError(f"{self}: the array (a) must have at least 2 dimensions, got the "
                            f"{a.ndim}-d {a.type}")
        val = _fill_value(self, a, val)
        return Apply(self, [a, val], [a.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        a, val = inputs
        out = np.array(a, copy=True)
        if out.ndim > 2 and len(set(out.shape)) > 1:
            raise ValueError(f"{self}: an array of rank {out.ndim} needs all dimensions equal, "
                             f"got shape {out.shape}")
        np.fill_diagonal(out, val)
        output_storage[0][0] = out

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        return [tuple(input_shapes[0])]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        a, val = inputs
        (gz,) = output_grads
        if _no_grad_for(a):
            return [None, None]
        ga = fill_diagonal(gz, np.zeros((), dtype=a.dtype))
        mask = fill_diagonal(zeros_like(gz), np.ones((), dtype=a.dtype))
        return [ga, (gz * mask).sum().astype(val.dtype)]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        a, val = inputs
        ea, ev = eval_points
        if ea is None and ev is None:
            return [None]
        ea = zeros_like(a) if ea is None else ea
        ev = np.zeros((), dtype=a.dtype) if ev is None else ev.astype(a.dtype)
        return [fill_diagonal(ea, ev)]


fill_diagonal_ = FillDiagonal()


def fill_diagonal(a: Any, val: Any) -> Variable:
    """A copy of ``a`` (rank >= 2) with its main diagonal set to the scalar ``val``.

    ``val`` is cast to ``a``'s dtype when that loses nothing (a float into an int array is an
    error). A non-square matrix gets ``min(a.shape)`` entries written; an array of rank > 2 must
    have equal dimensions. Differentiable with respect to ``a`` and ``val``.
    """
    return fill_diagonal_(a, val)


class FillDiagonalOffset(Op):
    """The matrix ``a`` with ``a[i, i + offset] = val`` (``offset >= 0``) or
    ``a[i - offset, i] = val`` (``offset < 0``) wherever that entry exists."""

    __props__ = ()

    def __str__(self) -> str:
        return "FillDiagonalOffset"

    def make_node(self, a: Any, val: Any, offset: Any) -> Apply:
        a = as_tensor_variable(a)
        if a.ndim != 2:
            raise TypeError(f"{self}: the array (a) must be a matrix, got the {a.ndim}-d "
                            f"{a.type}")
        val = _fill_value(self, a, val)
        offset = as_tensor_variable(offset)
        if offset.ndim != 0 or not dt.is_discrete(offset.dtype) or offset.dtype == "bool":
            raise TypeError(f"{self}: offset must be an integer scalar, got {offset.type}; "
                            f"cast it with jitgraph.tensor.cast(offset, 'int64')")
        return Apply(self, [a, val, offset], [a.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        a, val, offset = inputs
        out = np.array(a, copy=True)
        rows, cols = _offset_diagonal(out.shape, int(offset))
        out[rows, cols] = val
        output_storage[0][0] = out

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        return [tuple(input_shapes[0])]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        a, val, offset = inputs
        (gz,) = output_grads
        g_offset = grad_undefined(self, 2, offset, "offset is an integer position: "
                                  "fill_diagonal_offset(a, val, offset + eps) is undefined")
        if _no_grad_for(a):
            return [None, None, g_offset]
        ga = fill_diagonal_offset(gz, np.zeros((), dtype=a.dtype), offset)
        mask = fill_diagonal_offset(zeros_like(gz), np.ones((), dtype=a.dtype), offset)
        return [ga, (gz * mask).sum().astype(val.dtype), g_offset]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        a, val, offset = inputs
        ea, ev, _ = eval_points
        if ea is None and ev is None:
            return [None]
        ea = zeros_like(a) if ea is None else ea
        ev = np.zeros((), dtype=a.dtype) if ev is None else ev.astype(a.dtype)
        return [fill_diagonal_offset(ea, ev, offset)]


def _offset_diagonal(shape: tuple, offset: int) -> tuple[np.ndarray, np.ndarray]:
    """Row and column indices of the diagonal ``offset`` of a matrix of ``shape``."""
    n_rows, n_cols = shape
    first_row, first_col = (0, offset) if offset >= 0 else (-offset, 0)
    length = max(0, min(n_rows - first_row, n_cols - first_col))
    steps = np.arange(length)
    return first_row + steps, first_col + steps


fill_diagonal_offset_ = FillDiagonalOffset()


def fill_diagonal_offset(a: Any, val: Any, offset: Any) -> Variable:
    """A copy of the matrix ``a`` with the diagonal ``offset`` places above the main one
    (below it when ``offset < 0``) set to the scalar ``val``; entries outside the matrix are
    skipped. Differentiable with respect to ``a`` and ``val`` (not the integer ``offset``)."""
    return fill_diagonal_offset_(a, val, offset)
