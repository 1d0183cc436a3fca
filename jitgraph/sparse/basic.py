"""The storage of a sparse matrix as a graph: ``csm_properties`` (its data, indices, indptr and
shape), ``CSM`` (a matrix from those four), conversions to and from dense matrices, and the
ops that keep the structure: transpose, negation, casts, sorting indices, removing zeros."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from jitgraph.config import config
from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.gradient_types import disconnected_type
from jitgraph.graph.op import Op
from jitgraph.sparse import helpers as H
from jitgraph.sparse.scipy_support import format_class
from jitgraph.tensor.core.basic import ones_like, zeros_like
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.shaping.shape import patternbroadcast

_INDEX_DTYPE = "int32"


# -- properties and construction -------------------------------------------------------------

class CSMProperties(Op):
    """The four arrays of a csc/csr matrix: ``data`` (values), ``indices`` (int32 row or
    column of each value), ``indptr`` (int32 offsets per column or row) and ``shape``."""

    __props__ = ()
    view_map = {0: [0], 1: [0], 2: [0]}

    def make_node(self, csm: Any) -> Apply:
        csm = H.require_sparse(self, 0, csm)
        if csm.format not in ("csc", "csr"):
            raise NotImplementedError(f"csm_properties needs a csc or csr matrix, got "
                                      f"{csm.format}")
        return Apply(self, [csm], [H.tensor_out(csm.dtype, 1), H.tensor_out(_INDEX_DTYPE, 1),
                                   H.tensor_out(_INDEX_DTYPE, 1), H.tensor_out(_INDEX_DTYPE, 1)])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        (x,) = inputs
        out[0][0] = x.data
        out[1][0] = x.indices.astype(_INDEX_DTYPE, copy=False)
        out[2][0] = x.indptr.astype(_INDEX_DTYPE, copy=False)
        out[3][0] = np.asarray(x.shape, dtype=_INDEX_DTYPE)

    def grad(self, inputs: Sequence[Variable], g: Sequence[Variable]) -> list:
        (csm,) = inputs
        _, indices, indptr, shape = csm_properties(csm)
        return [CSM(csm.format)(g[0], indices, indptr, shape)]


csm_properties = CSMProperties()


def csm_data(csm: Any) -> Variable:
    """The stored values of a sparse matrix (a view)."""
    return csm_properties(csm)[0]


def csm_indices(csm: Any) -> Variable:
    """The row (csc) or column (csr) of each stored value."""
    return csm_properties(csm)[1]


def csm_indptr(csm: Any) -> Variable:
    """Where each column (csc) or row (csr) starts in data/indices."""
    return csm_properties(csm)[2]


def csm_shape(csm: Any) -> Variable:
    """The shape of a sparse matrix, as an int32 vector."""
    return csm_properties(csm)[3]


class CSM(Op):
    """A csc or csr matrix built from ``data``, ``indices``, ``indptr`` and ``shape``.

    The gradient with respect to ``data`` is :class:`CSMGrad` (the output gradient read at
    the positions of the stored values); the other inputs are not differentiable."""

    __props__ = ("format",)
    #: the matrix stores its input arrays (no copy)
    view_map = {0: [0, 1, 2]}

    def __init__(self, format: str, kmap: Any = None) -> None:
        if format not in ("csc", "csr"):
            raise ValueError(f"CSM: format must be 'csc' or 'csr', got {format!r}")
        if kmap is not None:
            raise NotImplementedError("CSM(kmap=...) is not supported: build the data vector "
                                      "in storage order instead")
        self.format = format
        self.kmap = None

    def __str__(self) -> str:
        return f"CSM{{format={self.format!r}}}"

    def make_node(self, data: Any, indices: Any, indptr: Any, shape: Any) -> Apply:
        from jitgraph.tensor.elementwise.math import cast

        data = as_tensor_variable(data)
        if data.ndim != 1:
            raise TypeError(f"CSM: data must be a vector, got {data} ({data.type})")
        parts = []
        for name, v in (("indices", indices), ("indptr", indptr), ("shape", shape)):
            v = as_tensor_variable(v)
            if v.ndim != 1 or not v.dtype.startswith(("int", "uint")):
                raise TypeError(f"CSM: {name} must be an integer vector, got {v} ({v.type})")
            parts.append(v if v.dtype == _INDEX_DTYPE else cast(v, _INDEX_DTYPE))
        return Apply(self, [data, *parts], [H.sparse_out(self.format, data.dtype)])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        data, indices, indptr, shape = inputs
        if len(shape) != 2:
            raise ValueError(f"CSM: the shape input must have 2 entries, got {list(shape)}")
        if data.size != indices.size:
            raise ValueError(f"CSM: data ({data.size} values) and indices ({indices.size}) "
                             "must have the same length")
        value = format_class(self.format)((data, indices, indptr),
                                          shape=(int(shape[0]), int(shape[1])), copy=False)
        out[0][0] = value

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True], [False], [False], [False]]

    def grad(self, inputs: Sequence[Variable], gout: Sequence[Variable]) -> list:
        data, indices, indptr, shape = inputs
        g_data, g_indices, g_indptr, g_shape = csm_properties(gout[0])
        return [csm_grad(data, indices, indptr, shape, g_data, g_indices, g_indptr, g_shape),
                disconnected_type(), disconnected_type(), disconnected_type()]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list:
        if eval_points[0] is None:
            return [None]
        return [self(eval_points[0], *inputs[1:])]

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        shape = node.inputs[3]
        return [(shape[0], shape[1])]


CSC = CSM("csc")
CSR = CSM("csr")


class CSMGrad(Op):
    """The gradient of a matrix's ``data``: the output gradient ``g`` (another sparse matrix,
    possibly stored differently) read at each stored position of ``x``."""

    __props__ = ()

    def __init__(self, kmap: Any = None) -> None:
        if kmap is not None:
            raise NotImplementedError("CSMGrad(kmap=...) is not supported")
        self.kmap = None

    def make_node(self, x_data: Any, x_indices: Any, x_indptr: Any, x_shape: Any,
                  g_data: Any, g_indices: Any, g_indptr: Any, g_shape: Any) -> Apply:
        inputs = [as_tensor_variable(v) for v in (x_data, x_indices, x_indptr, x_shape, g_data,
                                                    g_indices, g_indptr, g_shape)]
        return Apply(self, inputs, [H.tensor_out(inputs[4].dtype, 1)])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        _, x_ind, x_ptr, _, g_data, g_ind, g_ptr, g_shape = inputs
        dtype = node.outputs[0].dtype
        if (x_ptr.shape == g_ptr.shape and x_ind.shape == g_ind.shape
                and np.array_equal(x_ptr, g_ptr) and np.array_equal(x_ind, g_ind)):
            out[0][0] = g_data.astype(dtype, copy=True)
            return
        out[0][0] = gather_at_positions(x_ind, x_ptr, g_data, g_ind, g_ptr,
                                        int(g_shape[0]), int(g_shape[1])).astype(dtype)

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        return [shapes[0]]


def gather_at_positions(x_ind: np.ndarray, x_ptr: np.ndarray, g_data: np.ndarray,
                        g_ind: np.ndarray, g_ptr: np.ndarray, n0: int, n1: int) -> np.ndarray:
    """The values of the compressed matrix ``(g_data, g_ind, g_ptr)`` (duplicates summed) at
    the stored positions of ``(x_ind, x_ptr)`` (same compression axis)."""
    n_outer = len(x_ptr) - 1
    n_inner = n0 if n_outer == n1 else n1
    g = format_class("csc")((g_data, g_ind, g_ptr), shape=(n_inner, n_outer))
    g.sum_duplicates()
    if x_ind.size == 0:
        return np.zeros(0, dtype=g_data.dtype)
    outer = np.repeat(np.arange(n_outer), np.diff(x_ptr))
    return np.asarray(g[x_ind, outer]).ravel()


csm_grad = CSMGrad()


# -- dense <-> sparse ---------------------------------------------------------------------------

class DenseFromSparse(Op):
    """The dense matrix of a sparse one. With ``structured`` (the default, as ``dense_from_
    sparse``) the gradient keeps the input's sparsity pattern; otherwise it is the full
    gradient converted to the input's format."""

    __props__ = ("sparse_grad",)

    def __init__(self, structured: bool = True) -> None:
        self.sparse_grad = bool(structured)

    def __str__(self) -> str:
        return f"DenseFromSparse{{structured_grad={self.sparse_grad}}}"

    def make_node(self, x: Any) -> Apply:
        x = H.require_sparse(self, 0, x)
        return Apply(self, [x], [H.tensor_out(x.dtype, 2)])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        out[0][0] = inputs[0].toarray()

    def grad(self, inputs: Sequence[Variable], gout: Sequence[Variable]) -> list:
        from jitgraph.sparse.arithmetic import mul_s_d

        (x,) = inputs
        (gz,) = gout
        if self.sparse_grad:
            return [mul_s_d(sp_ones_like(x), gz)]
        return [SparseFromDense(x.format)(gz)]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list:
        return [None if eval_points[0] is None else self(eval_points[0])]

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        return [shapes[0]]


dense_from_sparse = DenseFromSparse()
todense = dense_from_sparse


class SparseFromDense(Op):
    """A dense matrix (vectors and scalars become 1-row / 1x1 matrices) stored as csc/csr."""

    __props__ = ("format",)

    def __init__(self, format: str) -> None:
        self.format = format

    def __str__(self) -> str:
        return f"SparseFromDense{{{self.format}}}"

    def make_node(self, x: Any) -> Apply:
        if H.is_sparse_variable(x):
            raise TypeError(f"{self}: input is already sparse ({x.type})")
        x = as_tensor_variable(x)
        if x.ndim > 2:
            raise TypeError(f"{self}: sparse matrices have 2 dimensions, but {x} has "
                            f"{x.ndim}")
        if x.ndim == 1:
            x = x.dimshuffle("x", 0)
        elif x.ndim == 0:
            x = x.dimshuffle("x", "x")
        return Apply(self, [x], [H.sparse_out(self.format, x.dtype)])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        out[0][0] = format_class(self.format)(inputs[0])

    def grad(self, inputs: Sequence[Variable], gout: Sequence[Variable]) -> list:
        (x,) = inputs
        gz = gout[0]  # sparse, or dense when the consumer's gradient is (sparse.dot's)
        gx = dense_from_sparse(gz) if H.is_sparse_variable(gz) else gz
        return [patternbroadcast(gx, x.broadcastable)]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list:
        return [None if eval_points[0] is None else self(eval_points[0])]

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        return [shapes[0]]


csr_from_dense = SparseFromDense("csr")
csc_from_dense = SparseFromDense("csc")


# -- structure-preserving ops -------------------------------------------------------------------

class Transpose(Op):
    """The transpose: a csc matrix becomes csr (the same arrays) and vice versa."""

    __props__ = ()
    view_map = {0: [0]}
    _FLIP = {"csc": "csr", "csr": "csc"}

    def __str__(self) -> str:
        return "SparseTranspose"

    def make_node(self, x: Any) -> Apply:
        x = H.require_sparse(self, 0, x)
        return Apply(self, [x], [H.sparse_out(self._FLIP[x.format], x.dtype)])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        out[0][0] = H.as_declared(inputs[0].transpose(), node.outputs[0].type)

    def grad(self, inputs: Sequence[Variable], gout: Sequence[Variable]) -> list:
        return [transpose(gout[0])]

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        return [shapes[0][::-1]]


transpose = Transpose()


class Neg(Op):
    """``-x``, keeping the structure."""

    __props__ = ()

    def __str__(self) -> str:
        return "SparseNeg"

    def make_node(self, x: Any) -> Apply:
        x = H.require_sparse(self, 0, x)
        return Apply(self, [x], [x.type.make_variable()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        out[0][0] = -inputs[0]

    def grad(self, inputs: Sequence[Variable], gout: Sequence[Variable]) -> list:
        return [neg(gout[0])]

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        return [shapes[0]]


neg = Neg()


class Cast(Op):
    """The sparse matrix with its values cast to ``out_type``."""

    __props__ = ("out_type",)

    def __init__(self, out_type: str) -> None:
        self.out_type = str(np.dtype(out_type))

    def __str__(self) -> str:
        return f"Cast({self.out_type})"

    def make_node(self, x: Any) -> Apply:
        x = H.require_sparse(self, 0, x)
        return Apply(self, [x], [H.sparse_out(x.format, self.out_type)])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        out[0][0] = inputs[0].astype(self.out_type)

    def grad(self, inputs: Sequence[Variable], gout: Sequence[Variable]) -> list:
        (x,) = inputs
        if x.dtype.startswith("complex") or gout[0].dtype.startswith("complex"):
            raise NotImplementedError("the gradient of a sparse Cast with complex values is "
                                      "not implemented")
        if not x.dtype.startswith("float"):
            return [x.zeros_like(dtype=config.floatX)]
        return [Cast(x.dtype)(gout[0])]

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        return [shapes[0]]


bcast = Cast("int8")
wcast = Cast("int16")
icast = Cast("int32")
lcast = Cast("int64")
fcast = Cast("float32")
dcast = Cast("float64")
ccast = Cast("complex64")
zcast = Cast("complex128")


def cast(variable: Any, dtype: str) -> Variable:
    """``variable`` (sparse) with its values cast to ``dtype`` (no op when it has it)."""
    variable = H.require_sparse("cast", 0, variable)
    if variable.dtype == str(np.dtype(dtype)):
        return variable
    return Cast(dtype)(variable)


class EnsureSortedIndices(Op):
    """The matrix with the indices of each column (csc) or row (csr) sorted; ``inplace``
    sorts the input itself."""

    __props__ = ("inplace",)

    def __init__(self, inplace: bool = False) -> None:
        self.inplace = bool(inplace)
        if self.inplace:
            self.destroy_map = {0: [0]}

    def __str__(self) -> str:
        return f"EnsureSortedIndices{{{'inplace' if self.inplace else 'no_inplace'}}}"

    def make_node(self, x: Any) -> Apply:
        x = H.require_sparse(self, 0, x)
        return Apply(self, [x], [x.type.make_variable()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        (x,) = inputs
        if self.inplace:
            x.sort_indices()
            out[0][0] = x
        else:
            out[0][0] = x.sorted_indices()

    def grad(self, inputs: Sequence[Variable], gout: Sequence[Variable]) -> list:
        return [gout[0]]

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        return [shapes[0]]


ensure_sorted_indices = EnsureSortedIndices(inplace=False)


class Remove0(Op):
    """The matrix without its explicitly stored zeros."""

    __props__ = ("inplace",)

    def __init__(self, inplace: bool = False) -> None:
        self.inplace = bool(inplace)
        if self.inplace:
            self.destroy_map = {0: [0]}

    def __str__(self) -> str:
        return "Remove0{inplace}" if self.inplace else "Remove0{}"

    def make_node(self, x: Any) -> Apply:
        x = H.require_sparse(self, 0, x)
        return Apply(self, [x], [x.type.make_variable()])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        x = inputs[0] if self.inplace else inputs[0].copy()
        x.eliminate_zeros()
        out[0][0] = x

    def grad(self, inputs: Sequence[Variable], gout: Sequence[Variable]) -> list:
        return [gout[0]]

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        return [shapes[0]]


remove0 = Remove0()


def clean(x: Any) -> Variable:
    """``x`` without stored zeros and with sorted indices."""
    return ensure_sorted_indices(remove0(x))


# -- like ---------------------------------------------------------------------------------------

def sp_ones_like(x: Any) -> Variable:
    """A matrix with x's structure whose stored values are all 1."""
    x = H.require_sparse("sp_ones_like", 0, x)
    data, indices, indptr, shape = csm_properties(x)
    return CSM(x.format)(ones_like(data), indices, indptr, shape)


def sp_zeros_like(x: Any) -> Variable:
    """A matrix of x's shape and format with no stored value."""
    x = H.require_sparse("sp_zeros_like", 0, x)
    _, _, indptr, shape = csm_properties(x)
    return CSM(x.format)(np.array([], dtype=x.dtype), np.array([], dtype=_INDEX_DTYPE),
                         zeros_like(indptr), shape)


# -- Theano's theano.sparse.basic path ------------------------------------------------------------
# Theano defined every sparse name in this module; its private helpers were imported from here
# by user code too.
_is_sparse_variable = H.is_sparse_variable
_is_dense_variable = H.is_dense_variable
_is_sparse = H.is_sparse


def _is_dense(value: Any) -> bool:
    return isinstance(value, np.ndarray)


def __getattr__(name: str) -> Any:
    """Theano's ``_mtypes`` (the scipy.sparse classes of the csc and csr formats) and
    ``_mtype_to_str``, built on first use so that this module imports without SciPy."""
    if name == "_mtypes":
        return [format_class("csc"), format_class("csr")]
    if name == "_mtype_to_str":
        return {format_class("csc"): "csc", format_class("csr"): "csr"}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
