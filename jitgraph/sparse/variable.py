"""Sparse variables and constants, their Python operators, the variable constructors
(``csc_matrix``, ``csr_matrix``, ...), conversions (``as_sparse_variable``) and the shared
variables holding a ``scipy.sparse`` matrix."""

from __future__ import annotations

from typing import Any

from jitgraph.config import config
from jitgraph.graph.basic import Apply, Constant, Variable
from jitgraph.sparse.scipy_support import is_sparse_value, scipy_sparse
from jitgraph.sparse.type import SparseType, format_of, hash_from_sparse
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.elementwise.math import cast


def _ops():
    import jitgraph.sparse as S  # the operators call the public functions (cycle-free)

    return S


class _SparseOperators:
    """Operators and methods shared by sparse variables, constants and shared variables."""

    # -- arithmetic (Theano's sparse operators: +, -, *, comparisons, unary minus) --------
    def __neg__(self): return _ops().neg(self)
    def __add__(self, other): return _ops().add(self, other)
    def __radd__(self, other): return _ops().add(other, self)
    def __sub__(self, other): return _ops().sub(self, other)
    def __rsub__(self, other): return _ops().sub(other, self)
    def __mul__(self, other): return _ops().mul(self, other)
    def __rmul__(self, other): return _ops().mul(other, self)
    def __lt__(self, other): return _ops().lt(self, other)
    def __le__(self, other): return _ops().le(self, other)
    def __gt__(self, other): return _ops().gt(self, other)
    def __ge__(self, other): return _ops().ge(self, other)

    # ``theano.dot(a, b)`` with a sparse operand is the structured product.
    def __dot__(self, other): return _ops().structured_dot(self, other)
    def __rdot__(self, other): return _ops().structured_dot(other, self)

    def __bool__(self) -> bool:
        # Theano 1.0.5: every sparse variable is true, comparisons included (programs test
        # ``if not x:`` for a default argument)
        return True

    # -- attributes -----------------------------------------------------------------------
    @property
    def T(self): return _ops().transpose(self)

    @property
    def ndim(self) -> int: return self.type.ndim

    @property
    def dtype(self) -> str: return self.type.dtype

    @property
    def format(self) -> str: return self.type.format

    @property
    def shape(self):
        """The shape as an int64 vector (as a tensor's: ``csm_shape`` cast)."""
        return cast(_ops().csm_shape(self), "int64")

    @property
    def size(self):
        """The number of stored entries, explicit zeros included, as ``scipy.sparse``'s
        ``size`` (the length of the ``data`` array)."""
        return _ops().csm_data(self).size

    def toarray(self):
        """The dense matrix (``dense_from_sparse``)."""
        return _ops().dense_from_sparse(self)

    def zeros_like(self, dtype: str | None = None):
        """A sparse matrix of the same shape and format with no stored element."""
        out = _ops().sp_zeros_like(self)
        return out if dtype is None or dtype == out.dtype else _ops().cast(out, dtype)

    def astype(self, dtype: str):
        return _ops().cast(self, dtype)

    def sum(self, axis: int | None = None, sparse_grad: bool = False):
        return _ops().sp_sum(self, axis=axis, sparse_grad=sparse_grad)

    def transpose(self):
        return _ops().transpose(self)

    def __getitem__(self, index: Any):
        return _ops().getitem(self, index)

    def __iter__(self):
        raise TypeError("a symbolic sparse matrix cannot be iterated over")

    def __len__(self) -> int:
        raise TypeError("len() of a symbolic sparse matrix is unknown before run time; use "
                        "x.shape[0]")


class SparseVariable(_SparseOperators, Variable):
    """A symbolic sparse matrix (the output of a sparse op, or a graph input)."""

    def __str__(self) -> str:
        if self.name is None and self.owner is None:
            return f"SparseVariable{{{self.type.format},{self.type.dtype}}}"
        return Variable.__str__(self)

    __repr__ = __str__


class SparseConstantSignature(tuple):
    """What makes two sparse constants equal: their type and stored data (hashable)."""

    def __eq__(self, other: object) -> bool:
        return tuple.__eq__(self, other)

    def __hash__(self) -> int:
        return tuple.__hash__(self)


class SparseConstant(_SparseOperators, Constant):
    """A sparse matrix fixed in the graph."""

    def signature(self) -> SparseConstantSignature:
        return SparseConstantSignature((self.type, hash_from_sparse(self.data)))

    def __str__(self) -> str:
        if self.name is not None:
            return self.name
        return (f"SparseConstant{{{self.type.format},{self.type.dtype},shape={self.data.shape},"
                f"nnz={self.data.nnz}}}")

    __repr__ = __str__


# -- constructors ----------------------------------------------------------------------------

def _constructor(fmt: str, default_dtype: str | None):
    def make(name: str | None = None, dtype: str | None = None) -> SparseVariable:
        return SparseType(fmt, dtype or default_dtype or config.floatX).make_variable(name)

    make.__name__ = f"{fmt}_matrix"
    make.__doc__ = (f"A symbolic {fmt} sparse matrix named ``name`` of ``dtype`` (default "
                    f"{default_dtype or 'config.floatX'}).")
    return make


csc_matrix = _constructor("csc", None)
csr_matrix = _constructor("csr", None)
bsr_matrix = _constructor("bsr", None)
csc_dmatrix = _constructor("csc", "float64")
csr_dmatrix = _constructor("csr", "float64")
bsr_dmatrix = _constructor("bsr", "float64")
csc_fmatrix = _constructor("csc", "float32")
csr_fmatrix = _constructor("csr", "float32")
bsr_fmatrix = _constructor("bsr", "float32")
for _f, _n in ((csc_dmatrix, "csc_dmatrix"), (csr_dmatrix, "csr_dmatrix"),
               (bsr_dmatrix, "bsr_dmatrix"), (csc_fmatrix, "csc_fmatrix"),
               (csr_fmatrix, "csr_fmatrix"), (bsr_fmatrix, "bsr_fmatrix")):
    _f.__name__ = _n


def matrix(format: str, name: str | None = None, dtype: str | None = None) -> SparseVariable:
    """A symbolic sparse matrix of ``format`` ('csc' or 'csr')."""
    return SparseType(format, dtype or config.floatX).make_variable(name)


# -- conversions ----------------------------------------------------------------------------

def _is_sparse_variable(x: Any) -> bool:
    return isinstance(x, Variable) and isinstance(x.type, SparseType)


def as_sparse_variable(x: Any, name: str | None = None) -> Variable:
    """``x`` as a sparse variable: sparse variables pass through, scipy.sparse matrices become
    constants; anything else is a TypeError."""
    if isinstance(x, Apply):
        if len(x.outputs) != 1:
            raise ValueError("It is ambiguous which output of a multi-output Op has to be "
                             "fetched.", x)
        x = x.outputs[0]
    if isinstance(x, Variable):
        if not isinstance(x.type, SparseType):
            raise TypeError(f"expected a sparse variable, got {x} of type {x.type}; convert "
                            "a dense matrix with csc_from_dense / csr_from_dense")
        return x
    if is_sparse_value(x):
        return constant(x, name=name)
    raise TypeError(f"cannot convert {type(x).__name__} to a sparse variable; expected a "
                    "sparse variable or a scipy.sparse csc/csr matrix")


as_sparse = as_sparse_variable


def as_sparse_or_tensor_variable(x: Any, name: str | None = None) -> Variable:
    """``x`` as a sparse variable when it is sparse, else as a tensor variable."""
    try:
        return as_sparse_variable(x, name)
    except (ValueError, TypeError):
        return as_tensor_variable(x, name)


def constant(x: Any, name: str | None = None) -> SparseConstant:
    """A sparse constant holding a copy of the scipy.sparse matrix ``x`` (csc/csr; other formats
    are converted to csc). The copy keeps the constant's value when the caller later changes
    ``x`` in place, as Theano's does."""
    if not is_sparse_value(x):
        scipy_sparse()
        raise TypeError(f"sparse.constant needs a scipy.sparse matrix, got {type(x).__name__}")
    fmt = format_of(x)
    x = x.asformat(fmt, copy=True)
    return SparseConstant(SparseType(fmt, str(x.dtype)), x, name)

