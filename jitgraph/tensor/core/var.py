"""TensorVariable and TensorConstant: Python operators and NumPy-like methods on symbolic tensors.

``==`` and ``!=`` keep Python identity semantics (variables are dict keys everywhere); use
``T.eq`` / ``T.neq`` for elementwise comparison, as in Theano.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from jitgraph.config import config
from jitgraph.graph.basic import Constant, Variable
from jitgraph.scalar_expr.errors import ComplexError


def _m():
    from jitgraph.tensor.elementwise import math

    return math


def _comparison(result: Any) -> Any:
    """Mark the result of a Python comparison operator as having no truth value."""
    result._from_comparison_operator = True
    return result


def _r():
    from jitgraph.tensor.elementwise import reduction

    return reduction


def _stats():
    from jitgraph.tensor.elementwise import statistics

    return statistics


def _s():
    # Not "from jitgraph.tensor import shape": the package re-exports the function shape(),
    # which hides the submodule of the same name.
    import importlib

    return importlib.import_module("jitgraph.tensor.shaping.shape")


def _is_sparse(x: Any) -> bool:
    return getattr(getattr(x, "type", None), "is_sparse", False)


class _TensorOperators:
    """Operators shared by tensor variables, constants and shared variables."""

    __array_priority__ = 1000  # make ndarray <op> variable call our reflected operator

    # -- arithmetic -----------------------------------------------------------------------
    # A sparse operand answers +, - and * itself (its reflected operator, sparse.add/mul).
    def __add__(self, other):
        return NotImplemented if _is_sparse(other) else _m().add(self, other)

    def __radd__(self, other): return _m().add(other, self)

    def __sub__(self, other):
        return NotImplemented if _is_sparse(other) else _m().sub(self, other)

    def __rsub__(self, other): return _m().sub(other, self)

    def __mul__(self, other):
        return NotImplemented if _is_sparse(other) else _m().mul(self, other)

    def __rmul__(self, other): return _m().mul(other, self)
    # ``/`` is true division whatever config.int_division says: in Theano 1.0 under Python 3
    # the flag only governs scalar ``/`` and ``T.div_proxy`` (int32 / int32 -> float64 here).
    def __truediv__(self, other): return _m().true_div(self, other)
    def __rtruediv__(self, other): return _m().true_div(other, self)
    def __floordiv__(self, other): return _m().int_div(self, other)
    def __rfloordiv__(self, other): return _m().int_div(other, self)
    def __mod__(self, other):
        if self.dtype.startswith("complex"):  # as Theano's % (its T.mod takes complex values)
            raise ComplexError(f"% is not defined for complex numbers ({self} is {self.dtype})")
        return _m().mod(self, other)

    def __divmod__(self, other): return self // other, self % other
    def __rdivmod__(self, other): return _m().int_div(other, self), _m().mod(other, self)
    def __rmod__(self, other): return _m().mod(other, self)
    def __pow__(self, other): return _m().pow(self, other)
    def __rpow__(self, other): return _m().pow(other, self)
    def __neg__(self): return _m().neg(self)
    def __pos__(self): return self
    def __abs__(self): return _m().abs(self)
    def __invert__(self): return _m().invert(self)
    def __and__(self, other): return _m().and_(self, other)
    def __rand__(self, other): return _m().and_(other, self)
    def __or__(self, other): return _m().or_(self, other)
    def __ror__(self, other): return _m().or_(other, self)
    def __xor__(self, other): return _m().xor(self, other)
    def __rxor__(self, other): return _m().xor(other, self)
    def __lt__(self, other): return _comparison(_m().lt(self, other))
    def __le__(self, other): return _comparison(_m().le(self, other))
    def __gt__(self, other): return _comparison(_m().gt(self, other))
    def __ge__(self, other): return _comparison(_m().ge(self, other))
    def __matmul__(self, other): return _m().matmul(self, other)
    def __rmatmul__(self, other): return _m().matmul(other, self)

    def __bool__(self) -> bool:
        # As in Theano, a variable is true (programs test ``if not input:`` to build a default
        # input, as the RBM tutorial does), except the result of ``<``/``<=``/``>``/``>=``:
        # there a truth value would make ``a < b < c`` silently mean ``b < c``.
        if self.__dict__.get("_from_comparison_operator", False):
            raise TypeError("the result of a comparison operator (<, <=, >, >=) on symbolic "
                            "tensors has no truth value; use T.switch, T.and_, ... for "
                            "elementwise logic")
        return True

    def __iter__(self):
        from jitgraph.tensor.core.basic import get_vector_length

        try:
            # A vector of known length (x.shape, make_vector, ...) iterates; so does a
            # constant-shaped graph.
            n = get_vector_length(self) if self.ndim == 1 else int(self.shape[0].eval())
        except Exception as exc:
            raise TypeError("a symbolic tensor cannot be iterated over: its length is not "
                            "known until run time") from exc
        return (self[i] for i in range(n))

    def __len__(self) -> int:
        raise TypeError("len() of a symbolic tensor is unknown before run time; use x.shape[0]")

    def __getitem__(self, index: Any):
        from jitgraph.tensor.indexing.subtensor import getitem

        return getitem(self, index)

    # -- attributes -----------------------------------------------------------------------
    @property
    def ndim(self) -> int:
        return self.type.ndim

    @property
    def dtype(self) -> str:
        return self.type.dtype

    @property
    def broadcastable(self) -> tuple[bool, ...]:
        return self.type.broadcastable

    @property
    def shape(self):
        return _s().shape(self)

    @property
    def size(self):
        return _r().prod(self.shape)

    @property
    def T(self):
        return self.transpose()

    # -- methods --------------------------------------------------------------------------
    def dimshuffle(self, *pattern: Any):
        from jitgraph.tensor.elementwise.elemwise import dimshuffle

        if len(pattern) == 1 and isinstance(pattern[0], (list, tuple)):
            pattern = tuple(pattern[0])
        return dimshuffle(self, pattern)

    def transpose(self, *axes: Any):
        from jitgraph.tensor.elementwise.elemwise import transpose

        if len(axes) == 1 and isinstance(axes[0], (list, tuple)):
            axes = tuple(axes[0])
        return transpose(self, axes or None)

    def reshape(self, *shape: Any, ndim: int | None = None, **by_name: Any):
        if by_name:  # Theano's signature reshape(shape, ndim=None), shape given by name
            if shape or set(by_name) != {"shape"}:
                raise TypeError("reshape takes the shape as arguments or as shape=...; got "
                                f"{len(shape)} positional and the keywords {sorted(by_name)}")
            shape = (by_name["shape"],)
        if len(shape) == 1 and not isinstance(shape[0], int):
            shape = shape[0]
        return _s().reshape(self, shape, ndim=ndim)

    def flatten(self, ndim: int = 1):
        return _s().flatten(self, ndim)

    def ravel(self):
        return _s().flatten(self, 1)

    def squeeze(self, axis: Any = None):
        return _s().squeeze(self, axis)

    def repeat(self, repeats: Any, axis: int | None = None):
        from jitgraph.tensor.extras.extra_ops import repeat

        return repeat(self, repeats, axis)

    def sort(self, axis: Any = -1, kind: str = "quicksort", order: Any = None):
        from jitgraph.tensor.extras.sort import sort

        return sort(self, axis, kind, order)

    def argsort(self, axis: Any = -1, kind: str = "quicksort", order: Any = None):
        from jitgraph.tensor.extras.sort import argsort

        return argsort(self, axis, kind, order)

    def cumsum(self, axis: int | None = None):
        from jitgraph.tensor.extras.cumulative import cumsum

        return cumsum(self, axis)

    def cumprod(self, axis: int | None = None):
        from jitgraph.tensor.extras.cumulative import cumprod

        return cumprod(self, axis)

    def searchsorted(self, v: Any, side: str = "left", sorter: Any = None):
        from jitgraph.tensor.extras.binning import searchsorted

        return searchsorted(self, v, side, sorter)

    def compress(self, a: Any, axis: int | None = None):
        """As Theano 1.0's method: ``self`` is the *condition* selecting from ``a``."""
        from jitgraph.tensor.extras.extra_ops import compress

        return compress(self, a, axis=axis)

    def astype(self, dtype: str):
        return _m().cast(self, dtype)

    def copy(self, name: str | None = None):
        out = _m().identity(self)
        out.name = name
        return out

    def clip(self, a_min: Any, a_max: Any):
        return _m().clip(self, a_min, a_max)

    def dot(self, other: Any):
        return _m().dot(self, other)

    def sum(self, axis: Any = None, dtype: str | None = None, keepdims: bool = False,
            acc_dtype: str | None = None):
        return _r().sum(self, axis=axis, dtype=dtype, keepdims=keepdims, acc_dtype=acc_dtype)

    def prod(self, axis: Any = None, dtype: str | None = None, keepdims: bool = False,
             acc_dtype: str | None = None):
        return _r().prod(self, axis=axis, dtype=dtype, keepdims=keepdims, acc_dtype=acc_dtype)

    def mean(self, axis: Any = None, dtype: str | None = None, keepdims: bool = False,
             acc_dtype: str | None = None):
        return _stats().mean(self, axis=axis, dtype=dtype, keepdims=keepdims, acc_dtype=acc_dtype)

    def var(self, axis: Any = None, ddof: int = 0, keepdims: bool = False,
            corrected: bool = False):
        return _stats().var(self, axis=axis, ddof=ddof, keepdims=keepdims, corrected=corrected)

    def std(self, axis: Any = None, ddof: int = 0, keepdims: bool = False,
            corrected: bool = False):
        return _stats().std(self, axis=axis, ddof=ddof, keepdims=keepdims, corrected=corrected)

    def max(self, axis: Any = None, keepdims: bool = False):
        return _r().max(self, axis=axis, keepdims=keepdims)

    def min(self, axis: Any = None, keepdims: bool = False):
        return _r().min(self, axis=axis, keepdims=keepdims)

    def argmax(self, axis: Any = None, keepdims: bool = False):
        return _r().argmax(self, axis=axis, keepdims=keepdims)

    def argmin(self, axis: Any = None, keepdims: bool = False):
        return _r().argmin(self, axis=axis, keepdims=keepdims)

    def all(self, axis: Any = None, keepdims: bool = False):
        return _r().all(self, axis=axis, keepdims=keepdims)

    def any(self, axis: Any = None, keepdims: bool = False):
        return _r().any(self, axis=axis, keepdims=keepdims)

    def norm(self, L: float = 2, axis: Any = None, keepdims: bool = False):
        """The L-norm over ``axis`` (None: all axes): ``sum(|x| ** L) ** (1.0 / L)``, for any
        finite, non-zero ``L`` (dtypes as that formula gives: an integer tensor's norm is a
        float); ``keepdims`` keeps the reduced axes with length 1."""
        if L == 0 or np.isinf(L):
            raise NotImplementedError(f"norm(L={L}): only finite, non-zero L are supported "
                                      "(the L-0 count and the max-norm are not)")
        powered = _m().pow(_m().abs(self), L)
        return _m().pow(_r().sum(powered, axis=axis, keepdims=keepdims), 1.0 / L)

    def zeros_like(self, dtype: str | None = None):
        from jitgraph.tensor.core.basic import zeros_like

        return zeros_like(self, dtype)

    def ones_like(self, dtype: str | None = None):
        from jitgraph.tensor.core.basic import ones_like

        return ones_like(self, dtype)

    def fill(self, value: Any):
        return _m().fill(self, value)

    def transfer(self, target: str):
        """This tensor placed on ``target`` (see :func:`jitgraph.tensor.core.helpers.transfer`)."""
        from jitgraph.tensor.core.helpers import transfer

        return transfer(self, target)

    # ``theano.dot(a, b)`` asks its operands for these (a sparse matrix may answer instead).
    def __dot__(self, other: Any):
        return _m().dot(self, other)

    def __rdot__(self, other: Any):
        return _m().dot(other, self)

    # Theano's remaining ndarray-like methods.
    def nonzero(self, return_matrix: bool = False):
        from jitgraph.tensor.indexing.nonzero_ops import nonzero
        return nonzero(self, return_matrix=return_matrix)

    def nonzero_values(self):
        from jitgraph.tensor.indexing.nonzero_ops import nonzero_values
        return nonzero_values(self)

    def ptp(self, axis: Any = None):
        from jitgraph.tensor.elementwise.statistics import ptp
        return ptp(self, axis=axis)

    def swapaxes(self, axis1: int, axis2: int):
        from jitgraph.tensor.indexing.reorder import swapaxes
        return swapaxes(self, axis1, axis2)

    def take(self, indices: Any, axis: int | None = None, mode: str = "raise"):
        from jitgraph.tensor.indexing.reorder import take
        return take(self, indices, axis=axis, mode=mode)

    def choose(self, choices: Any, out: Any = None, mode: str = "raise"):
        from jitgraph.tensor.indexing.reorder import choose
        return choose(self, choices, out=out, mode=mode)

    def diagonal(self, offset: int = 0, axis1: int = 0, axis2: int = 1):
        from jitgraph.tensor.shaping.special_matrices import diagonal
        return diagonal(self, offset=offset, axis1=axis1, axis2=axis2)

    def trace(self):
        from jitgraph.tensor.linalg.nlinalg import trace
        return trace(self)

    def round(self, mode: str | None = None):
        return _m().round(self) if mode is None else _m().round(self, mode)

    def conj(self):
        import jitgraph.tensor
        return jitgraph.tensor.conj(self)

    conjugate = conj

    @property
    def real(self):
        import jitgraph.tensor
        return jitgraph.tensor.real(self)

    @property
    def imag(self):
        import jitgraph.tensor
        return jitgraph.tensor.imag(self)

    def get_scalar_constant_value(self):
        from jitgraph.tensor.core.basic import get_scalar_constant_value
        return get_scalar_constant_value(self)

    def __floor__(self): return _m().floor(self)
    def __ceil__(self): return _m().ceil(self)
    def __trunc__(self): return _m().trunc(self)

    def __str__(self) -> str:
        text = Variable.__str__(self)  # type: ignore[arg-type]

        if config.print_test_value and hasattr(self.tag, "test_value"):
            text += f" (test value: {self.tag.test_value!r})"
        return text


def _elementwise_method(name: str):
    def method(self):
        import jitgraph.tensor

        return getattr(jitgraph.tensor, name)(self)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"``{name}`` of each element (``theano.tensor.{name}(self)``)."
    return method


# x.exp(), x.sqrt(), ...: the unary elementwise functions Theano's tensors have as methods
for _name in ("arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh", "ceil", "cos",
              "cosh", "deg2rad", "exp", "exp2", "expm1", "floor", "log", "log10", "log1p", "log2",
              "rad2deg", "sin", "sinh", "sqrt", "tan", "tanh", "trunc"):
    setattr(_TensorOperators, _name, _elementwise_method(_name))


class TensorVariable(_TensorOperators, Variable):
    """A symbolic ndarray."""


class TensorConstant(_TensorOperators, Constant):
    """A constant ndarray embedded in a graph."""

    def __str__(self) -> str:
        # As in Theano, a tensor constant prints its value even when it has a name.
        return f"TensorConstant{{{self.type.short_value_repr(self.data)}}}"


class TensorConstantSignature(tuple):
    """``(type, data)`` of a constant, compared by value: equal when the types, shapes, NaN
    positions and all other elements agree. The hash uses the type, shape and sum only."""

    def __eq__(self, other: Any) -> bool:
        if type(other) is not type(self):
            return False
        (t0, d0), (t1, d1) = self, other
        if t0 != t1 or np.shape(d0) != np.shape(d1):
            return False
        if self.sum != other.sum:  # cheap rejection before the elementwise comparison
            return False
        nan0, nan1 = _nan_mask(d0), _nan_mask(d1)
        return bool(np.array_equal(nan0, nan1) and np.array_equal(np.asarray(d0)[~nan0],
                                                                  np.asarray(d1)[~nan1]))

    def __ne__(self, other: Any) -> bool:
        return not self == other

    def __hash__(self) -> int:
        t, d = self
        return hash((type(self), t, np.shape(d), self.sum))

    def theano_hash(self) -> int:
        return hash(self)

    @property
    def no_nan(self) -> np.ma.MaskedArray:
        """The data as a masked array with its NaNs masked."""
        data = np.asarray(self[1])
        return np.ma.masked_array(data, _nan_mask(data))

    @property
    def has_nan(self) -> bool:
        return bool(_nan_mask(self[1]).any())

    @property
    def sum(self) -> Any:
        """The sum of the non-NaN elements (0 for an empty or all-NaN constant)."""
        data = np.asarray(self[1])
        kept = data[~_nan_mask(data)]
        return kept.sum() if kept.size else data.dtype.type(0)


def _nan_mask(data: Any) -> np.ndarray:
    data = np.asarray(data)
    if data.dtype.kind in "fc":
        return np.isnan(data)
    return np.zeros(data.shape, dtype=bool)


def is_tensor(x: Any) -> bool:
    return isinstance(x, _TensorOperators)


def numpy_value(x: Any) -> np.ndarray | None:
    """The value of a constant tensor, or None if it is not a constant."""
    return x.data if isinstance(x, TensorConstant) else None
