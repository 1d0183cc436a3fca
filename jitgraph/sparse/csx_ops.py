"""Array-level forms of the sparse ops, on the ``data``/``indices``/``indptr`` arrays of a csc
or csr matrix (what the rewrites in :mod:`jitgraph.sparse.rewrites` turn products and
structured elementwise ops into, and what the CPU backend compiles into loops over the
compressed storage: :mod:`jitgraph.backend_cpu.lowering.sparse`).

Each op has a ``format`` parameter: with ``csr`` the compressed (outer) axis is the rows and
``indices`` holds columns; with ``csc`` the other way round. ``perform`` is the NumPy reference.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.op import Op
from jitgraph.sparse import helpers as H
from jitgraph.sparse.scipy_support import format_class
from jitgraph.tensor.core.conversion import as_tensor_variable


def _outer(indptr: np.ndarray) -> np.ndarray:
    return np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))


def rows_cols_of(fmt: str, indices: np.ndarray, indptr: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Row and column of each stored value of a ``fmt`` matrix given by its index arrays."""
    outer = _outer(indptr)
    return (outer, indices) if fmt == "csr" else (indices, outer)


class _CSxOp(Op):
    __props__ = ("format",)

    def __init__(self, format: str) -> None:
        if format not in ("csc", "csr"):
            raise ValueError(f"{type(self).__name__}: format must be 'csc' or 'csr', got "
                             f"{format!r}")
        self.format = format

    def __str__(self) -> str:
        return f"{type(self).__name__}{{{self.format}}}"


def _arrays(*values: Any) -> list[Variable]:
    return [as_tensor_variable(v) for v in values]


class StructuredDotCSx(_CSxOp):
    """``A @ b`` for the matrix ``A`` given by ``(data, indices, indptr)`` with ``n_rows``
    rows, and a dense matrix or vector ``b``."""

    def make_node(self, data: Any, indices: Any, indptr: Any, n_rows: Any, b: Any) -> Apply:
        data, indices, indptr, n_rows, b = _arrays(data, indices, indptr, n_rows, b)
        if b.ndim not in (1, 2):
            raise TypeError(f"{self}: b must be a matrix or a vector, got {b.type}")
        out = H.product_out(H.upcast(data.dtype, b.dtype), b)
        return Apply(self, [data, indices, indptr, n_rows, b], [out])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        data, indices, indptr, n_rows, b = inputs

        n_outer = len(indptr) - 1
        shape = (n_outer, b.shape[0]) if self.format == "csr" else (int(n_rows), n_outer)
        if shape[1] != b.shape[0]:
            raise ValueError(f"{self}: the sparse matrix has {shape[1]} columns but b has "
                             f"{b.shape[0]} rows")
        a = format_class(self.format)((data, indices, indptr), shape=shape)
        out[0][0] = np.asarray(a @ b).astype(node.outputs[0].dtype, copy=False)

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        n_rows = node.inputs[3]
        return [(n_rows,) + tuple(shapes[4][1:])]


class _DataGather(_CSxOp):
    """A new data array from the stored values and a dense operand read at their positions."""

    ranks: tuple[int, ...] = (2,)

    def make_node(self, data: Any, indices: Any, indptr: Any, y: Any) -> Apply:
        data, indices, indptr, y = _arrays(data, indices, indptr, y)
        if y.ndim not in self.ranks:
            raise TypeError(f"{self}: the dense operand must have {self.ranks} dimensions, "
                            f"got {y.type}")
        out = H.tensor_out(H.upcast(data.dtype, y.dtype), 1)
        return Apply(self, [data, indices, indptr, y], [out])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        data, indices, indptr, y = inputs
        rows, cols = rows_cols_of(self.format, indices, indptr)
        out[0][0] = self.combine(data, y, rows, cols).astype(node.outputs[0].dtype, copy=False)

    def combine(self, data: np.ndarray, y: np.ndarray, rows: np.ndarray, cols: np.ndarray
                ) -> np.ndarray:
        raise NotImplementedError

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        return [shapes[0]]


class MulSDCSx(_DataGather):
    """Stored values times the dense matrix at their positions (``mul_s_d`` on the data)."""

    def combine(self, data, y, rows, cols):
        return data * y[rows, cols]


class MulSVCSx(_DataGather):
    """Stored values times ``y[column]`` (``mul_s_v`` on the data)."""

    ranks = (1,)

    def combine(self, data, y, rows, cols):
        return data * y[cols]


class StructuredAddSVCSx(_DataGather):
    """Stored values plus ``y[column]`` (``structured_add_s_v`` on the data)."""

    ranks = (1,)

    def combine(self, data, y, rows, cols):
        return data + y[cols]


class SamplingDotCSx(_CSxOp):
    """``p.data * dot(x[i, :], y[j, :])`` at each stored position (i, j) of ``p``."""

    def make_node(self, x: Any, y: Any, data: Any, indices: Any, indptr: Any) -> Apply:
        x, y, data, indices, indptr = _arrays(x, y, data, indices, indptr)
        out = H.tensor_out(H.upcast(x.dtype, y.dtype, data.dtype), 1)
        return Apply(self, [x, y, data, indices, indptr], [out])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        x, y, data, indices, indptr = inputs
        rows, cols = rows_cols_of(self.format, indices, indptr)
        dtype = node.outputs[0].dtype
        out[0][0] = (np.einsum("ij,ij->i", x[rows].astype(dtype), y[cols].astype(dtype))
                     * data).astype(dtype, copy=False)

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        return [shapes[2]]


class AddSDCSx(_CSxOp):
    """The dense ``y`` plus the stored values at their positions."""

    def make_node(self, data: Any, indices: Any, indptr: Any, y: Any) -> Apply:
        data, indices, indptr, y = _arrays(data, indices, indptr, y)
        out = H.tensor_out(H.upcast(data.dtype, y.dtype), 2)
        return Apply(self, [data, indices, indptr, y], [out])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        data, indices, indptr, y = inputs
        rows, cols = rows_cols_of(self.format, indices, indptr)
        z = np.array(y, dtype=node.outputs[0].dtype)
        np.add.at(z, (rows, cols), data)
        out[0][0] = z

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        return [shapes[3]]
