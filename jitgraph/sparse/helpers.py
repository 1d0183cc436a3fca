"""Small helpers shared by the sparse ops: argument checks with messages naming the input,
output values in the declared format and dtype, and tensor types."""

from __future__ import annotations

from typing import Any

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.sparse.scipy_support import format_class, is_sparse_value
from jitgraph.tensor.core import dtypes as dt
from jitgraph.sparse.type import SparseType
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.core.type import TensorType
from jitgraph.sparse.variable import as_sparse_variable
from jitgraph.tensor.core.conversion import as_tensor_variable


def is_sparse_variable(x: Any) -> bool:
    """Whether ``x`` is a symbolic sparse matrix."""
    return isinstance(x, Variable) and isinstance(x.type, SparseType)


def is_dense_variable(x: Any) -> bool:
    """Whether ``x`` is a symbolic tensor."""
    return isinstance(x, Variable) and isinstance(x.type, TensorType)


def is_sparse(value: Any) -> bool:
    """Whether a value is a scipy.sparse matrix (Theano's ``_is_sparse``)."""
    return is_sparse_value(value)


def label(node: Apply, k: int) -> str:
    """``input k (name)`` of ``node``, for error messages."""
    var = node.inputs[k]
    return f"input {k} ({var})"


def require_sparse(op: Any, k: int, x: Any) -> Variable:
    """``x`` as a sparse variable, or a TypeError naming argument ``k`` of ``op``."""
    try:
        return as_sparse_variable(x)
    except TypeError as exc:
        raise TypeError(f"{op}: argument {k} must be a sparse matrix: {exc}") from None


def require_dense(op: Any, k: int, x: Any, ndims: tuple[int, ...]) -> Variable:
    """``x`` as a tensor of one of ``ndims`` dimensions, or a TypeError naming it."""
    if is_sparse_variable(x):
        raise TypeError(f"{op}: argument {k} must be a dense tensor, got the sparse {x} "
                        f"({x.type}); convert it with dense_from_sparse")
    x = as_tensor_variable(x)
    if x.ndim not in ndims:
        expected = " or ".join(str(n) for n in ndims)
        raise TypeError(f"{op}: argument {k} ({x}) must have {expected} dimensions, got "
                        f"{x.ndim} ({x.type})")
    return x


def tensor_out(dtype: str, ndim: int) -> Variable:
    return TensorType(dtype, (False,) * ndim).make_variable()


def product_out(dtype: str, dense: Variable) -> Variable:
    """The dense result of (sparse matrix) @ ``dense``: its rows are the matrix's, its
    columns the dense operand's (a single column stays broadcastable)."""
    return TensorType(dtype, (False,) + tuple(dense.broadcastable[1:])).make_variable()


def sparse_out(fmt: str, dtype: str) -> Variable:
    return SparseType(fmt, dtype).make_variable()


def as_declared(value: Any, out_type: SparseType) -> Any:
    """A scipy result in the output type's format and dtype (scipy picks its own)."""
    if value.format != out_type.format or not isinstance(value, format_class(out_type.format)):
        value = format_class(out_type.format)(value)
    if str(value.dtype) != out_type.dtype:
        value = value.astype(out_type.dtype)
    return value


def check_same_shape(node: Apply, a: Any, b: Any, what: str) -> None:
    """A ValueError naming both inputs when the shapes of ``a`` and ``b`` differ."""
    if tuple(a.shape) != tuple(b.shape):
        raise ValueError(f"{node.op}: {what} needs equal shapes, but {label(node, 0)} has "
                         f"shape {tuple(a.shape)} and {label(node, 1)} has shape "
                         f"{tuple(b.shape)}")


def check_product_shapes(node: Apply, a: Any, b: Any) -> None:
    """A ValueError naming both inputs when ``a @ b`` is not defined."""
    if a.shape[-1] != b.shape[0]:
        raise ValueError(f"{node.op}: shapes do not align for a matrix product: "
                         f"{label(node, 0)} has shape {tuple(a.shape)}, {label(node, 1)} has "
                         f"shape {tuple(b.shape)}")


def outer_positions(value: Any) -> np.ndarray:
    """For each stored element, its index along the compressed axis (the column of a csc
    matrix, the row of a csr matrix)."""
    counts = np.diff(value.indptr)
    return np.repeat(np.arange(counts.size, dtype=np.int64), counts)


def rows_cols(value: Any) -> tuple[np.ndarray, np.ndarray]:
    """Row and column of every stored element, in storage order."""
    outer = outer_positions(value)
    if value.format == "csc":
        return value.indices, outer
    return outer, value.indices


def upcast(*dtypes: str) -> str:
    """The dtype holding values of all the given dtypes (:func:`jitgraph.tensor.core.dtypes.upcast`)."""
    return dt.upcast(*dtypes)
