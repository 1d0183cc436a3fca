"""Sums, diagonals and row/column scaling of sparse matrices."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from jitgraph.config import config
from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.op import Op
from jitgraph.sparse import helpers as H
from jitgraph.sparse.basic import SparseFromDense, dense_from_sparse, sp_ones_like, transpose
from jitgraph.sparse.scipy_support import format_class
import jitgraph.tensor as T
from jitgraph.tensor.elementwise.math import minimum


class SpSum(Op):
    """The sum of a sparse matrix (``axis`` None: a scalar; 0 or 1: a dense vector). With
    ``sparse_grad`` the gradient is structured (only the stored positions receive it)."""

    __props__ = ("axis", "sparse_grad")

    def __init__(self, axis: int | None = None, sparse_grad: bool = True) -> None:
        if axis not in (None, 0, 1):
            raise ValueError(f"SpSum: axis must be None, 0 or 1, got {axis!r}")
        self.axis = axis
        self.sparse_grad = bool(sparse_grad)

    def __str__(self) -> str:
        return f"SpSum{{axis={self.axis}}}"

    def make_node(self, x: Any) -> Apply:
        x = H.require_sparse(self, 0, x)
        return Apply(self, [x], [H.tensor_out(x.dtype, 0 if self.axis is None else 1)])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        (x,) = inputs
        dtype = node.outputs[0].dtype
        if self.axis is None:
            out[0][0] = np.asarray(x.sum(dtype=dtype), dtype=dtype)
        else:
            out[0][0] = np.asarray(x.sum(axis=self.axis, dtype=dtype), dtype=dtype).ravel()

    def grad(self, inputs: Sequence[Variable], gout: Sequence[Variable]) -> list:
        (x,) = inputs
        (gz,) = gout
        if not x.dtype.startswith(("float", "complex")):
            return [x.zeros_like(dtype=config.floatX)]
        if self.sparse_grad:
            ones = sp_ones_like(x)
            if self.axis is None:
                from jitgraph.sparse.arithmetic import mul_s_d

                return [mul_s_d(ones, gz)]
            return [col_scale(ones, gz) if self.axis == 0 else row_scale(ones, gz)]
        dense = dense_from_sparse(x)
        if self.axis is None:
            r = T.second(dense, gz)
        elif self.axis == 0:
            r = T.addbroadcast(gz.dimshuffle("x", 0), 0) * T.ones_like(dense)
        else:
            r = T.addbroadcast(gz.dimshuffle(0, "x"), 1) * T.ones_like(dense)
        return [SparseFromDense(x.format)(r)]

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        if self.axis is None:
            return [()]
        return [(shapes[0][1 - self.axis],)]


def sp_sum(x: Any, axis: int | None = None, sparse_grad: bool = False) -> Variable:
    """The sum of the sparse matrix ``x`` over ``axis`` (None: all), dense. With
    ``sparse_grad`` its gradient keeps x's structure."""
    return SpSum(axis, sparse_grad)(x)


class Diag(Op):
    """The diagonal of a square sparse matrix, as a dense vector."""

    __props__ = ()

    def make_node(self, x: Any) -> Apply:
        x = H.require_sparse(self, 0, x)
        return Apply(self, [x], [H.tensor_out(x.dtype, 1)])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        (x,) = inputs
        if x.shape[0] != x.shape[1]:
            raise ValueError(f"{self}: {H.label(node, 0)} must be square, got shape "
                             f"{x.shape}")
        out[0][0] = np.asarray(x.diagonal(), dtype=node.outputs[0].dtype)

    def grad(self, inputs: Sequence[Variable], gout: Sequence[Variable]) -> list:
        return [square_diagonal(gout[0])]

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        return [(minimum(*shapes[0]),)]


diag = Diag()


class SquareDiagonal(Op):
    """The square csc matrix with the dense vector ``diag`` on its diagonal."""

    __props__ = ()

    def make_node(self, diag: Any) -> Apply:
        diag = H.require_dense(self, 0, diag, (1,))
        return Apply(self, [diag], [H.sparse_out("csc", diag.dtype)])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        (z,) = inputs
        n = z.shape[0]
        idx = np.arange(n, dtype=np.int32)
        out[0][0] = format_class("csc")((z.copy(), idx, np.arange(n + 1, dtype=np.int32)),
                                        shape=(n, n))

    def grad(self, inputs: Sequence[Variable], gout: Sequence[Variable]) -> list:
        return [diag(gout[0])]

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        return [(shapes[0][0], shapes[0][0])]


square_diagonal = SquareDiagonal()


class _ScaleCSC(Op):
    """A csc matrix with each stored value multiplied by an entry of a dense vector."""

    __props__ = ()
    axis_name = ""

    def make_node(self, x: Any, s: Any) -> Apply:
        x = H.require_sparse(self, 0, x)
        if x.format != "csc":
            raise ValueError(f"{self}: needs a csc matrix, got {x.type}")
        s = H.require_dense(self, 1, s, (1,))
        return Apply(self, [x, s], [H.sparse_out("csc", H.upcast(x.dtype, s.dtype))])

    def _positions(self, x: Any) -> np.ndarray:
        raise NotImplementedError

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        x, s = inputs
        axis = 1 if self.axis_name == "columns" else 0
        if x.shape[axis] != s.shape[0]:
            raise ValueError(f"{self}: {H.label(node, 0)} has {x.shape[axis]} "
                             f"{self.axis_name} but {H.label(node, 1)} has length {s.shape[0]}")
        z = x.astype(node.outputs[0].dtype)
        z.data = (x.data * s[self._positions(x)]).astype(z.dtype, copy=False)
        out[0][0] = z

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        return [shapes[0]]


class ColScaleCSC(_ScaleCSC):
    """Column ``j`` of a csc matrix times ``s[j]``."""

    axis_name = "columns"

    def _positions(self, x: Any) -> np.ndarray:
        return H.outer_positions(x)

    def grad(self, inputs: Sequence[Variable], gout: Sequence[Variable]) -> list:
        from jitgraph.sparse.arithmetic import mul

        x, s = inputs
        return [col_scale(gout[0], s), sp_sum(mul(x, gout[0]), axis=0)]


class RowScaleCSC(_ScaleCSC):
    """Row ``i`` of a csc matrix times ``s[i]``."""

    axis_name = "rows"

    def _positions(self, x: Any) -> np.ndarray:
        return x.indices

    def grad(self, inputs: Sequence[Variable], gout: Sequence[Variable]) -> list:
        from jitgraph.sparse.arithmetic import mul

        x, s = inputs
        return [row_scale(gout[0], s), sp_sum(mul(x, gout[0]), axis=1)]


def col_scale(x: Any, s: Any) -> Variable:
    """The sparse matrix ``x`` with column ``j`` multiplied by ``s[j]``."""
    x = H.require_sparse("col_scale", 0, x)
    if x.format == "csc":
        return ColScaleCSC()(x, s)
    if x.format == "csr":
        return transpose(RowScaleCSC()(transpose(x), s))
    raise NotImplementedError(f"col_scale needs a csc or csr matrix, got {x.type}")


def row_scale(x: Any, s: Any) -> Variable:
    """The sparse matrix ``x`` with row ``i`` multiplied by ``s[i]``."""
    return transpose(col_scale(transpose(x), s))
