"""Indexing sparse matrices: rows by a list (``get_item_list``), elements by two lists
(``get_item_2lists``, dense), slices (``get_item_2d``), one element (``get_item_scalar``), the
``x[...]`` dispatch of sparse variables, and ``construct_sparse_from_list`` (the sparse
gradient of ``x[ilist]`` that ``theano.sparse_grad`` asks for)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.gradient_types import disconnected_type
from jitgraph.graph.op import Op
from jitgraph.sparse import helpers as H
from jitgraph.sparse.basic import dense_from_sparse
from jitgraph.sparse.scipy_support import format_class
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.core.gradient import grad_undefined
from jitgraph.tensor.indexing.subtensor import advanced_subtensor1


def _int_vector(op: Any, k: int, v: Any) -> Variable:
    v = as_tensor_variable(v)
    if v.ndim != 1 or not v.dtype.startswith(("int", "uint")):
        raise TypeError(f"{op}: argument {k} must be an integer vector, got {v} ({v.type})")
    return v


def _int_scalar(op: Any, what: str, v: Any) -> Variable:
    v = as_tensor_variable(v)
    if v.ndim != 0 or not v.dtype.startswith(("int", "uint")):
        raise TypeError(f"{op}: {what} must be an integer scalar, got {v} ({v.type})")
    return v


def _last_occurrences(keys: np.ndarray) -> np.ndarray:
    """Positions in ``keys`` of the last occurrence of each distinct key (assignment
    semantics: a later write to the same place wins)."""
    reversed_keys = keys[::-1]
    _, first_in_reversed = np.unique(reversed_keys, return_index=True)
    return keys.size - 1 - first_in_reversed


class GetItemList(Op):
    """The rows ``x[indices]`` of a sparse matrix (sparse, x's format)."""

    __props__ = ()

    def make_node(self, x: Any, index: Any) -> Apply:
        x = H.require_sparse(self, 0, x)
        return Apply(self, [x, _int_vector(self, 1, index)], [x.type.make_variable()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        x, index = inputs
        _check_bounds(node, index, x.shape[0], "rows")
        out[0][0] = H.as_declared(x[index], node.outputs[0].type)

    def grad(self, inputs: Sequence[Variable], gout: Sequence[Variable]) -> list:
        x, index = inputs
        return [get_item_list_grad(x, index, gout[0]),
                grad_undefined(self, 1, index, "No gradient for this input")]

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        return [(shapes[1][0], shapes[0][1])]


get_item_list = GetItemList()


class GetItemListGrad(Op):
    """The gradient of :class:`GetItemList`: a matrix shaped like ``x`` whose row
    ``indices[a]`` is ``gz[a]`` (a repeated index keeps its last row, as Theano did)."""

    __props__ = ()

    def make_node(self, x: Any, index: Any, gz: Any) -> Apply:
        x = H.require_sparse(self, 0, x)
        gz = H.require_sparse(self, 2, gz)
        return Apply(self, [x, _int_vector(self, 1, index), gz],
                     [H.sparse_out(x.format, gz.dtype)])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        x, index, gz = inputs
        index = np.where(index < 0, index + x.shape[0], index)
        keep = _last_occurrences(index)
        placement = format_class("csr")(
            (np.ones(keep.size, dtype=gz.dtype), keep, np.arange(keep.size + 1)),
            shape=(keep.size, gz.shape[0]))
        rows = format_class("csr")((np.ones(keep.size, dtype=gz.dtype), index[keep],
                                    np.arange(keep.size + 1)), shape=(keep.size, x.shape[0]))
        out[0][0] = H.as_declared(rows.T @ (placement @ gz), node.outputs[0].type)

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        return [shapes[0]]


get_item_list_grad = GetItemListGrad()


class GetItem2Lists(Op):
    """The elements ``x[ind1[a], ind2[a]]`` as a dense vector."""

    __props__ = ()

    def make_node(self, x: Any, ind1: Any, ind2: Any) -> Apply:
        x = H.require_sparse(self, 0, x)
        return Apply(self, [x, _int_vector(self, 1, ind1), _int_vector(self, 2, ind2)],
                     [H.tensor_out(x.dtype, 1)])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        x, ind1, ind2 = inputs
        _check_bounds(node, ind1, x.shape[0], "rows")
        _check_bounds(node, ind2, x.shape[1], "columns")
        out[0][0] = np.asarray(x[ind1, ind2], dtype=node.outputs[0].dtype).ravel()

    def grad(self, inputs: Sequence[Variable], gout: Sequence[Variable]) -> list:
        x, ind1, ind2 = inputs
        return [get_item_2lists_grad(x, ind1, ind2, gout[0]),
                grad_undefined(self, 1, ind1, "No gradient for this input"),
                grad_undefined(self, 2, ind2, "No gradient for this input")]

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        return [shapes[1]]


get_item_2lists = GetItem2Lists()


class GetItem2ListsGrad(Op):
    """The gradient of :class:`GetItem2Lists`: ``gz[a]`` at ``(ind1[a], ind2[a])`` (a repeated
    position keeps the last value, as Theano did)."""

    __props__ = ()

    def make_node(self, x: Any, ind1: Any, ind2: Any, gz: Any) -> Apply:
        x = H.require_sparse(self, 0, x)
        gz = H.require_dense(self, 3, gz, (1,))
        return Apply(self, [x, _int_vector(self, 1, ind1), _int_vector(self, 2, ind2), gz],
                     [H.sparse_out(x.format, gz.dtype)])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        x, ind1, ind2, gz = inputs
        n0, n1 = x.shape
        rows = np.where(ind1 < 0, ind1 + n0, ind1).astype(np.int64)
        cols = np.where(ind2 < 0, ind2 + n1, ind2).astype(np.int64)
        keep = _last_occurrences(rows * n1 + cols)
        coo = format_class("csr")((gz[keep], (rows[keep], cols[keep])), shape=(n0, n1))
        out[0][0] = H.as_declared(coo, node.outputs[0].type)

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        return [shapes[0]]


get_item_2lists_grad = GetItem2ListsGrad()


def _check_bounds(node: Apply, index: np.ndarray, n: int, what: str) -> None:
    if index.size and (index.max() >= n or index.min() < -n):
        raise IndexError(f"{node.op}: an index in {index.tolist()[:10]} is out of bounds for "
                         f"{n} {what} of {H.label(node, 0)}")


class GetItem2d(Op):
    """``x[a:b:c, d:e:f]`` of a sparse matrix (sparse). ``pattern`` says which of the six
    slice bounds are given (each given one is a scalar input); an integer index ``i`` is the
    slice ``i:i+1``."""

    __props__ = ("pattern",)

    def __init__(self, pattern: tuple[bool, ...] = (False,) * 6) -> None:
        self.pattern = tuple(bool(p) for p in pattern)

    def __str__(self) -> str:
        return "GetItem2d"

    def make_node(self, x: Any, *index: Any) -> Apply:
        x = H.require_sparse(self, 0, x)
        if len(index) == 1 and isinstance(index[0], (tuple, slice)) or not index:
            bounds = _slice_bounds(self, index[0] if index else ())
            op = GetItem2d(tuple(b is not None for b in bounds))
            given = [b for b in bounds if b is not None]
        elif len(index) == sum(self.pattern):  # the bounds themselves (a rebuilt node)
            op, given = self, list(index)
        else:
            raise TypeError(f"{self}: expected a tuple of slices, got {index!r}")
        inputs = [x] + [_int_scalar(self, "a slice bound", b) for b in given]
        return Apply(op, inputs, [x.type.make_variable()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        x, *given = inputs
        values = iter(given)
        bounds = [int(next(values)) if present else None for present in self.pattern]
        index = (slice(*bounds[:3]), slice(*bounds[3:]))
        out[0][0] = H.as_declared(x[index], node.outputs[0].type)


def _slice_bounds(op: Any, index: Any) -> list:
    if not isinstance(index, tuple):
        index = (index,)
    if len(index) > 2:
        raise IndexError(f"{op}: a sparse matrix has 2 dimensions, got {len(index)} indices")
    index = index + (slice(None),) * (2 - len(index))
    bounds: list = []
    for ind in index:
        if isinstance(ind, slice):
            bounds += [ind.start, ind.stop, ind.step]
        elif _is_scalar_index(ind):
            bounds += [ind, ind + 1, None]
        else:
            raise TypeError(f"{op}: sparse matrices take slices, integers or integer lists as "
                            f"indices, got {ind!r}")
    return bounds


def _is_scalar_index(ind: Any) -> bool:
    if isinstance(ind, (int, np.integer)):
        return True
    return (isinstance(ind, Variable) and getattr(ind, "ndim", None) == 0
            and ind.dtype.startswith(("int", "uint")))


get_item_2d = GetItem2d()


class GetItemScalar(Op):
    """The element ``x[i, j]`` of a sparse matrix, as a dense scalar."""

    __props__ = ()

    def make_node(self, x: Any, index: Any) -> Apply:
        x = H.require_sparse(self, 0, x)
        if not isinstance(index, tuple) or len(index) != 2:
            raise TypeError(f"{self}: index must be a pair of integers, got {index!r}")
        i, j = (_int_scalar(self, "an index", v) for v in index)
        return Apply(self, [x, i, j], [H.tensor_out(x.dtype, 0)])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        x, i, j = inputs
        out[0][0] = np.asarray(x[int(i), int(j)], dtype=node.outputs[0].dtype)

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        return [()]


get_item_scalar = GetItemScalar()


def getitem(x: Any, index: Any) -> Variable:
    """``x[index]`` for a sparse ``x``: two scalars give an element, two lists elements, a
    list rows, slices (or one scalar and a slice) a sparse sub-matrix."""
    index = index if isinstance(index, tuple) else (index,)
    if len(index) == 2:
        if _is_scalar_index(index[0]) and _is_scalar_index(index[1]):
            return get_item_scalar(x, index)
        if isinstance(index[0], list):
            return get_item_2lists(x, index[0], index[1])
        return get_item_2d(x, index)
    if isinstance(index[0], list) or (isinstance(index[0], Variable)
                                      and getattr(index[0], "ndim", None) == 1):
        return get_item_list(x, index[0])
    return get_item_2d(x, index)


class ConstructSparseFromList(Op):
    """A csc matrix shaped like the dense ``x`` whose row ``ilist[i]`` holds ``values[i]``
    (repeated rows are summed). Only x's shape is an input (x itself is not kept alive)."""

    __props__ = ()

    def make_node(self, x: Any, values: Any, ilist: Any) -> Apply:
        from jitgraph.tensor.shaping.shape import shape

        x = H.require_dense(self, 0, x, (1, 2))  # a matrix, or its shape (a rebuilt node)
        values = H.require_dense(self, 1, values, (2,))
        ilist = as_tensor_variable(ilist)
        if ilist.ndim != 1 or not ilist.dtype.startswith(("int", "uint")):
            raise TypeError(f"{self}: ilist must be an integer vector, got {ilist.type}")
        out_shape = shape(x) if x.ndim == 2 else x
        dtype = x.dtype if x.ndim == 2 else values.dtype
        return Apply(self, [out_shape, values, ilist], [H.sparse_out("csc", dtype)])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        out_shape, values, ilist = inputs
        n_rows, n_cols = values.shape
        if n_rows != ilist.shape[0]:
            raise ValueError(f"{self}: values has {n_rows} rows but ilist has "
                             f"{ilist.shape[0]} entries")
        indptr = np.arange(n_cols + 1, dtype=np.int64) * n_rows
        indices = np.tile(np.where(ilist < 0, ilist + out_shape[0], ilist), n_cols)
        data = np.ascontiguousarray(values.T).ravel().astype(node.outputs[0].dtype)
        out[0][0] = format_class("csc")((data, indices, indptr),
                                        shape=(int(out_shape[0]), int(out_shape[1])))

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[False], [True], [False]]

    def grad(self, inputs: Sequence[Variable], gout: Sequence[Variable]) -> list:
        _, _, ilist = inputs
        g = gout[0]
        dense = dense_from_sparse(g) if H.is_sparse_variable(g) else g
        return [disconnected_type(), advanced_subtensor1(dense, ilist), disconnected_type()]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list:
        return [None]

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        shape = node.inputs[0]
        return [(shape[0], shape[1])]


construct_sparse_from_list = ConstructSparseFromList()
