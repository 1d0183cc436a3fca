"""SparseType: the type of variables whose values are ``scipy.sparse`` matrices of one format
(``'csc'`` or ``'csr'``; ``'bsr'`` exists for Theano's ``bsr_matrix`` constructor) and dtype.

Sparse matrices have exactly two dimensions and no broadcastable pattern (SciPy has neither
other ranks nor broadcasting). A value must already be a matrix of the type's format and
dtype: unlike Theano 1.0, which converted a dense array or the other format silently, a wrong
value is refused with a message saying what was expected and how to convert it.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

from jitgraph.graph.type import Type
from jitgraph.sparse.scipy_support import format_class, is_sparse_value, scipy_sparse
from jitgraph.tensor.elementwise.math import cast

#: the dtypes a sparse matrix may have (Theano's ``sparse.all_dtypes``)
all_dtypes = {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
              "float32", "float64", "complex64", "complex128"}

#: Theano's dtype groups of ``theano.sparse`` (its tests and user code read them there)
complex_dtypes = tuple(sorted(t for t in all_dtypes if t.startswith("complex")))
float_dtypes = tuple(sorted(t for t in all_dtypes if t.startswith("float")))
int_dtypes = tuple(sorted(t for t in all_dtypes if t.startswith("int")))
uint_dtypes = tuple(sorted(t for t in all_dtypes if t.startswith("uint")))
integer_dtypes = int_dtypes + uint_dtypes
discrete_dtypes = integer_dtypes
continuous_dtypes = complex_dtypes + float_dtypes

FORMATS = ("csc", "csr", "bsr")
#: the formats Theano's ``theano.sparse.sparse_formats`` names (bsr is accepted here too)
sparse_formats = ("csc", "csr")


class SparseType(Type):
    """``SparseType(format, dtype)``: a ``scipy.sparse`` matrix in ``format`` with ``dtype``."""

    ndim = 2
    #: gradients of this type stay sparse (``grad`` does not convert them to tensors)
    is_sparse = True

    def __init__(self, format: str, dtype: str) -> None:
        if format not in FORMATS:
            raise NotImplementedError(f"sparse format must be one of {FORMATS}, got "
                                      f"{format!r}")
        dtype = str(np.dtype(dtype)) if dtype is not None else dtype
        if dtype not in all_dtypes:
            raise NotImplementedError(f"unsupported dtype {dtype!r} for a sparse matrix; "
                                      f"sparse.all_dtypes lists {sorted(all_dtypes)}")
        scipy_sparse()  # a sparse graph needs SciPy: fail here, naming the extra
        self.format = format
        self.dtype = dtype

    def __str__(self) -> str:
        return f"Sparse[{self.dtype}, {self.format}]"

    __repr__ = __str__

    def __eq__(self, other: object) -> bool:
        return (type(other) is type(self) and other.format == self.format
                and other.dtype == self.dtype)

    def __hash__(self) -> int:
        return hash((type(self), self.format, self.dtype))

    def clone(self, format: str | None = None, dtype: str | None = None) -> SparseType:
        return SparseType(format or self.format, dtype or self.dtype)

    # -- values ---------------------------------------------------------------------------
    def filter(self, data: Any, strict: bool = False, allow_downcast: bool | None = None
               ) -> Any:
        """``data`` if it is a scipy.sparse matrix of this format and dtype; a TypeError
        saying what was expected otherwise."""
        if is_sparse_value(data) and data.format == self.format:
            if str(data.dtype) == self.dtype:
                return data
            raise TypeError(f"expected a sparse {self.format} matrix of dtype {self.dtype} "
                            f"({self}), got one of dtype {data.dtype}; convert it with "
                            f"value.astype({self.dtype!r})")
        cls = f"scipy.sparse.{self.format}_matrix"
        if is_sparse_value(data):
            got = f"a sparse {data.format} matrix"
            hint = f"convert it with value.to{self.format}()"
        else:
            got = f"a {type(data).__module__}.{type(data).__name__}"
            if hasattr(data, "shape"):
                got += f" of shape {tuple(data.shape)}"
            hint = f"build one with {cls}(value)"
        raise TypeError(f"expected a {cls} of dtype {self.dtype} ({self}), got {got}; {hint}")

    def is_valid_value(self, data: Any) -> bool:
        return (is_sparse_value(data) and data.format == self.format
                and str(data.dtype) == self.dtype)

    @staticmethod
    def may_share_memory(a: Any, b: Any) -> bool:
        """Whether ``a`` and ``b`` (sparse matrices or ndarrays) may share memory: a sparse
        matrix through its ``data``, ``indices`` and ``indptr`` arrays (its shape is a tuple)."""
        def arrays(value: Any) -> list:
            if is_sparse_value(value):
                return [getattr(value, name) for name in ("data", "indices", "indptr")
                        if isinstance(getattr(value, name, None), np.ndarray)]
            return [value] if isinstance(value, np.ndarray) else []
        return any(np.may_share_memory(x, y) for x in arrays(a) for y in arrays(b))

    def values_eq(self, a: Any, b: Any) -> bool:
        """Same shape and the same values (stored zeros and index order do not matter)."""
        if not (is_sparse_value(a) and is_sparse_value(b)) or a.shape != b.shape:
            return False
        diff = abs(a - b)
        return diff.nnz == 0 or not np.any(diff.data)

    def values_eq_approx(self, a: Any, b: Any, eps: float = 1e-6) -> bool:
        if not (is_sparse_value(a) and is_sparse_value(b)) or a.shape != b.shape:
            return False
        return bool(np.allclose(a.toarray(), b.toarray(), atol=eps, rtol=eps))

    def value_signature(self, data: Any) -> Any:
        return (self.format, self.dtype, hash_from_sparse(data))

    def short_value_repr(self, data: Any) -> str:
        return f"{self.format}{tuple(data.shape)} nnz={data.nnz}"

    def get_shape_info(self, value: Any) -> tuple:
        return (value.shape, value.data.size, value.indices.size, value.indptr.size)

    def get_size(self, shape_info: tuple) -> int:
        _, n_data, n_indices, n_indptr = shape_info
        return (n_data * np.dtype(self.dtype).itemsize + (n_indices + n_indptr)
                * np.dtype("int32").itemsize)

    def symbolic_shape(self, var: Any) -> tuple | None:
        """The two dims of the sparse variable ``var`` as int64 scalars (what the shape
        rewrites start from when no op says better)."""
        from jitgraph.sparse.basic import csm_shape

        if self.format not in ("csc", "csr"):
            return None  # csm_properties reads csc and csr matrices only
        shape = cast(csm_shape(var), "int64")
        return (shape[0], shape[1])

    # -- variables ------------------------------------------------------------------------
    def make_variable(self, name: str | None = None):  # type: ignore[override]
        from jitgraph.sparse.variable import SparseVariable

        return SparseVariable(self, None, None, name)

    def make_constant(self, value: Any, name: str | None = None):  # type: ignore[override]
        from jitgraph.sparse.variable import SparseConstant

        return SparseConstant(self, value, name)


def hash_from_sparse(data: Any) -> str:
    """A hex digest of a sparse matrix: its format, shape, dtype and stored arrays (Theano's
    ``hash_from_sparse``; two matrices with the same storage hash alike)."""
    h = hashlib.sha256()
    h.update(f"{data.format}{data.shape}{data.dtype}".encode())
    for arr in (data.data, data.indices, data.indptr):
        h.update(np.ascontiguousarray(arr).tobytes())
        h.update(str(arr.dtype).encode())
    return h.hexdigest()


def format_of(value: Any) -> str:
    """The format of a scipy.sparse value (a csc/csr matrix keeps its own; others -> csc)."""
    return value.format if value.format in ("csc", "csr") else "csc"


def as_format(value: Any, fmt: str) -> Any:
    """``value`` converted to a scipy matrix of format ``fmt``."""
    return format_class(fmt)(value)
