"""Addition and multiplication with sparse operands: sparse+sparse, sparse+dense, the
structured row-vector forms, and the ``add``/``sub``/``mul`` functions choosing among them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.op import Op
from jitgraph.sparse import helpers as H
from jitgraph.sparse.basic import dense_from_sparse, neg, sp_ones_like
from jitgraph.sparse.reductions import sp_sum
from jitgraph.sparse.variable import as_sparse_or_tensor_variable
from jitgraph.tensor.elementwise.math import neg as dense_neg


class AddSS(Op):
    """Sparse + sparse (equal shapes); the result has the first operand's format."""

    __props__ = ()

    def make_node(self, x: Any, y: Any) -> Apply:
        x, y = H.require_sparse(self, 0, x), H.require_sparse(self, 1, y)
        return Apply(self, [x, y], [H.sparse_out(x.format, H.upcast(x.dtype, y.dtype))])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        x, y = inputs
        H.check_same_shape(node, x, y, "sparse addition")
        out[0][0] = H.as_declared(x + y, node.outputs[0].type)

    def grad(self, inputs: Sequence[Variable], gout: Sequence[Variable]) -> list:
        return [gout[0], gout[0]]

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        return [shapes[0]]


add_s_s = AddSS()


class AddSSData(Op):
    """The sum of two sparse matrices with the same structure (their data arrays added)."""

    __props__ = ()

    def make_node(self, x: Any, y: Any) -> Apply:
        x, y = H.require_sparse(self, 0, x), H.require_sparse(self, 1, y)
        if x.type != y.type:
            raise NotImplementedError(f"{self}: both operands need the same format and dtype, "
                                      f"got {x.type} and {y.type}")
        return Apply(self, [x, y], [x.type.make_variable()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        x, y = inputs
        H.check_same_shape(node, x, y, "adding data arrays")
        if x.data.shape != y.data.shape:
            raise ValueError(f"{self}: {H.label(node, 0)} stores {x.data.size} values and "
                             f"{H.label(node, 1)} {y.data.size}; the structures must be equal")
        z = x.copy()
        z.data = x.data + y.data
        out[0][0] = z

    def grad(self, inputs: Sequence[Variable], gout: Sequence[Variable]) -> list:
        return [gout[0], gout[0]]

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        return [shapes[0]]


add_s_s_data = AddSSData()


class AddSD(Op):
    """Sparse + dense matrix -> dense. The sparse operand's gradient is structured."""

    __props__ = ()

    def make_node(self, x: Any, y: Any) -> Apply:
        x = H.require_sparse(self, 0, x)
        y = H.require_dense(self, 1, y, (2,))
        out = H.tensor_out(H.upcast(x.dtype, y.dtype), 2)
        return Apply(self, [x, y], [out])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        x, y = inputs
        H.check_same_shape(node, x, y, "sparse + dense")
        z = np.array(y, dtype=node.outputs[0].dtype)
        rows, cols = H.rows_cols(x)
        np.add.at(z, (rows, cols), x.data)
        out[0][0] = z

    def grad(self, inputs: Sequence[Variable], gout: Sequence[Variable]) -> list:
        x, _ = inputs
        return [mul_s_d(sp_ones_like(x), gout[0]), gout[0]]

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        return [shapes[1]]


add_s_d = AddSD()


class _StoredValuesWithRow(Op):
    """A sparse matrix combined with a dense row vector on its stored values only (the value
    in column ``j`` with ``y[j]``): the sparsity pattern is kept."""

    __props__ = ()

    def make_node(self, x: Any, y: Any) -> Apply:
        x = H.require_sparse(self, 0, x)
        y = H.require_dense(self, 1, y, (1,))
        if x.dtype != y.dtype:
            raise NotImplementedError(f"{self}: the matrix ({x.dtype}) and the vector "
                                      f"({y.dtype}) need the same dtype")
        return Apply(self, [x, y], [x.type.make_variable()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        x, y = inputs
        if x.shape[1] != y.shape[0]:
            raise ValueError(f"{self}: {H.label(node, 0)} has {x.shape[1]} columns but "
                             f"{H.label(node, 1)} has length {y.shape[0]}")
        _, cols = H.rows_cols(x)
        z = x.copy()
        z.data = self.combine(x.data, y[cols])
        out[0][0] = z

    @staticmethod
    def combine(values: np.ndarray, row_values: np.ndarray) -> np.ndarray:
        raise NotImplementedError


class StructuredAddSV(_StoredValuesWithRow):
    """Sparse matrix + dense row vector, added to the stored values only."""

    combine = staticmethod(np.add)

    def grad(self, inputs: Sequence[Variable], gout: Sequence[Variable]) -> list:
        return [gout[0], sp_sum(gout[0], axis=0, sparse_grad=True)]

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        return [shapes[0]]


structured_add_s_v = StructuredAddSV()


class MulSS(Op):
    """Elementwise product of two sparse matrices (equal shapes)."""

    __props__ = ()

    def make_node(self, x: Any, y: Any) -> Apply:
        x, y = H.require_sparse(self, 0, x), H.require_sparse(self, 1, y)
        return Apply(self, [x, y], [H.sparse_out(x.format, H.upcast(x.dtype, y.dtype))])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        x, y = inputs
        H.check_same_shape(node, x, y, "an elementwise product")
        out[0][0] = H.as_declared(x.multiply(y), node.outputs[0].type)

    def grad(self, inputs: Sequence[Variable], gout: Sequence[Variable]) -> list:
        x, y = inputs
        return [mul_s_s(y, gout[0]), mul_s_s(x, gout[0])]

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        return [shapes[0]]


mul_s_s = MulSS()


class MulSD(Op):
    """Sparse matrix times a dense matrix (equal shapes) or scalar: a sparse matrix with the
    first operand's structure (stored zeros stay stored)."""

    __props__ = ()

    def make_node(self, x: Any, y: Any) -> Apply:
        x = H.require_sparse(self, 0, x)
        y = H.require_dense(self, 1, y, (0, 2))
        return Apply(self, [x, y], [H.sparse_out(x.format, H.upcast(x.dtype, y.dtype))])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        x, y = inputs
        dtype = node.outputs[0].dtype
        z = x.astype(dtype)  # a copy with the structure of x
        if y.ndim == 0:
            z.data = x.data * y
        else:
            H.check_same_shape(node, x, y, "an elementwise product")
            rows, cols = H.rows_cols(x)
            z.data = x.data * y[rows, cols]
        z.data = z.data.astype(dtype, copy=False)
        out[0][0] = z

    def grad(self, inputs: Sequence[Variable], gout: Sequence[Variable]) -> list:
        x, y = inputs
        gz = gout[0]
        gx = mul_s_d(gz, y)
        if y.ndim == 0:
            return [gx, sp_sum(mul_s_s(x, gz))]
        return [gx, dense_from_sparse(mul_s_s(x, gz))]

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        return [shapes[0]]


mul_s_d = MulSD()


class MulSV(_StoredValuesWithRow):
    """Sparse matrix times a dense row vector (column ``j`` scaled by ``y[j]``), structured."""

    combine = staticmethod(np.multiply)

    def grad(self, inputs: Sequence[Variable], gout: Sequence[Variable]) -> list:
        x, y = inputs
        gz = gout[0]
        return [mul_s_v(gz, y), sp_sum(mul_s_s(x, gz), axis=0, sparse_grad=True)]

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        return [shapes[0]]


mul_s_v = MulSV()


# -- the functions ----------------------------------------------------------------------------

def _operands(fname: str, x: Any, y: Any) -> tuple[Variable, Variable]:
    x, y = as_sparse_or_tensor_variable(x), as_sparse_or_tensor_variable(y)
    if not (H.is_sparse_variable(x) or H.is_sparse_variable(y)):
        raise TypeError(f"sparse.{fname} needs at least one sparse operand, got {x.type} and "
                        f"{y.type}; use the tensor function for dense ones")
    return x, y


def add(x: Any, y: Any) -> Variable:
    """``x + y`` with at least one sparse operand: sparse if both are, else dense."""
    x, y = _operands("add", x, y)
    if H.is_sparse_variable(x) and H.is_sparse_variable(y):
        return add_s_s(x, y)
    sparse, dense = (x, y) if H.is_sparse_variable(x) else (y, x)
    if dense.ndim != 2:
        raise TypeError(f"sparse.add: the dense operand {dense} must be a matrix of the "
                        f"sparse one's shape, got {dense.ndim} dimensions; structured_add adds "
                        "a scalar to the stored values, structured_add_s_v a row vector")
    return add_s_d(sparse, dense)


def sub(x: Any, y: Any) -> Variable:
    """``x - y`` with at least one sparse operand (``x + (-y)``)."""
    x, y = _operands("sub", x, y)
    if H.is_sparse_variable(y):
        return add(x, neg(y))

    return add(x, dense_neg(y))


def mul(x: Any, y: Any) -> Variable:
    """``x * y`` elementwise with at least one sparse operand: sparse*sparse, or a sparse
    matrix times a dense matrix or scalar (a sparse result with the sparse one's structure)."""
    x, y = _operands("mul", x, y)
    if H.is_sparse_variable(x) and H.is_sparse_variable(y):
        if x.dtype == "float32" and y.dtype == "float64":
            x = x.astype("float64")
        return mul_s_s(x, y)
    sparse, dense = (x, y) if H.is_sparse_variable(x) else (y, x)
    if dense.ndim not in (0, 2):
        raise TypeError(f"sparse.mul: the dense operand {dense} must be a scalar or a matrix, "
                        f"got {dense.ndim} dimensions; mul_s_v scales the columns by a vector")
    if sparse.dtype == "float32" and dense.dtype == "float64":
        sparse = sparse.astype("float64")
    return mul_s_d(sparse, dense)
