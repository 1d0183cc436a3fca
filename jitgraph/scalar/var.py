"""Scalar variables and constants: Python operators build scalar graphs; ``as_scalar`` and
``constant`` turn values and 0-d tensors into scalar variables."""

from __future__ import annotations

from typing import Any

import numpy as np

from jitgraph.config import config
from jitgraph.graph.basic import Apply, Constant, Variable
from jitgraph.scalar.type import ScalarType, get_scalar_type
from jitgraph.scalar_expr.errors import ComplexError
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.core.type import TensorType
from jitgraph.tensor.elementwise import math as tensor_math
from jitgraph.tensor.elementwise.math import IntegerDivisionError
from jitgraph.tensor.elementwise.scalar_ops import Cast


def _complex_refused_mod(x: Any, y: Any) -> Any:
    """``x % y`` of scalars; as Theano, ``%`` refuses complex operands (NumPy has no complex
    remainder)."""
    for v in (x, y):
        dtype = getattr(v, "dtype", None) or np.asarray(v).dtype.name
        if dt.is_complex(str(dtype)):
            raise ComplexError(f"% is not defined for complex numbers ({v} is {dtype})")
    return _op("mod")(x, y)


def _op(name: str) -> Any:
    from jitgraph.tensor.elementwise.scalar_ops import op

    return op(name)


def _div(x: Any, y: Any) -> Any:
    """``/``: true division, except integer/integer follows ``config.int_division``, as for
    tensors."""
    x, y = as_scalar(x), as_scalar(y)
    if dt.is_discrete(x.dtype) and dt.is_discrete(y.dtype):
        if config.int_division == "raise":
            raise IntegerDivisionError(f"dividing integer scalars {x} / {y} with "
                                       "int_division='raise': use // or cast an operand first")
        if config.int_division == "int":
            return _op("int_div")(x, y)
        return cast(_op("true_div")(x, y), config.floatX)
    return _op("true_div")(x, y)


def cast(x: Any, dtype: str) -> "ScalarVariable":
    """``x`` converted to ``dtype`` (a no-op when it already has it)."""
    x = as_scalar(x)
    dtype = dt.normalize_dtype(dtype)
    return x if x.dtype == dtype else Cast(dtype)(x)


class _ScalarOperators:
    """Operators of scalar variables and constants (``==`` keeps identity semantics: use
    ``eq``)."""

    ndim = 0
    broadcastable: tuple = ()

    @property
    def dtype(self) -> str:
        return self.type.dtype

    def __add__(self, other): return _op("add")(self, other)
    def __radd__(self, other): return _op("add")(other, self)
    def __sub__(self, other): return _op("sub")(self, other)
    def __rsub__(self, other): return _op("sub")(other, self)
    def __mul__(self, other): return _op("mul")(self, other)
    def __rmul__(self, other): return _op("mul")(other, self)
    def __truediv__(self, other): return _div(self, other)
    def __rtruediv__(self, other): return _div(other, self)
    def __floordiv__(self, other): return _op("int_div")(self, other)
    def __rfloordiv__(self, other): return _op("int_div")(other, self)
    def __mod__(self, other): return _complex_refused_mod(self, other)
    def __rmod__(self, other): return _complex_refused_mod(other, self)
    def __pow__(self, other): return _op("pow")(self, other)
    def __rpow__(self, other): return _op("pow")(other, self)
    def __neg__(self): return _op("neg")(self)
    def __abs__(self): return _op("abs")(self)
    def __invert__(self): return _op("invert")(self)
    def __and__(self, other): return _op("and_")(self, other)
    def __rand__(self, other): return _op("and_")(other, self)
    def __or__(self, other): return _op("or_")(self, other)
    def __ror__(self, other): return _op("or_")(other, self)
    def __xor__(self, other): return _op("xor")(self, other)
    def __rxor__(self, other): return _op("xor")(other, self)
    def __lt__(self, other): return _op("lt")(self, other)
    def __le__(self, other): return _op("le")(self, other)
    def __gt__(self, other): return _op("gt")(self, other)
    def __ge__(self, other): return _op("ge")(self, other)

    def __bool__(self) -> bool:
        # Theano 1.0.5: every scalar variable is true, comparisons included (only tensor
        # comparisons refuse a truth value)
        return True

    def zeros_like(self, dtype: str | None = None) -> "ScalarVariable":
        zero = constant(np.zeros((), dtype=dtype or self.dtype))
        return _op("second")(self, zero)

    def ones_like(self, dtype: str | None = None) -> "ScalarVariable":
        one = constant(np.ones((), dtype=dtype or self.dtype))
        return _op("second")(self, one)

    def astype(self, dtype: str) -> "ScalarVariable":
        return cast(self, dtype)

    def as_tensor(self) -> Variable:
        """This scalar as a 0-d tensor (what ``T.as_tensor_variable`` gives for it)."""
        from jitgraph.scalar.bridge import tensor_from_scalar

        return tensor_from_scalar(self)


class ScalarVariable(_ScalarOperators, Variable):
    """A symbolic number."""


class ScalarConstant(_ScalarOperators, Constant):
    """A number embedded in a scalar graph."""

    def __str__(self) -> str:
        if self.name is not None:
            return self.name
        return f"Constant{{{self.type.short_value_repr(self.data)}}}"


def constant(x: Any, name: str | None = None, dtype: str | None = None) -> ScalarConstant:
    """A scalar constant; Python numbers get the smallest dtype that holds them exactly
    (``config.cast_policy``), as for tensor constants."""
    arr = np.asarray(x, dtype=dt.normalize_dtype(dtype)) if dtype else dt.as_array(x)
    if arr.ndim != 0:
        raise TypeError(f"a scalar constant holds one number, got a value of shape {arr.shape}")
    return ScalarConstant(get_scalar_type(arr.dtype.name), arr[()], name)


def as_scalar(x: Any, name: str | None = None) -> Variable:
    """``x`` as a scalar variable: scalar variables pass through, 0-d tensors are converted
    (``scalar_from_tensor``), numbers become constants."""
    if isinstance(x, Apply):
        if len(x.outputs) != 1:
            raise ValueError(f"{x} has several outputs: pick one")
        x = x.outputs[0]
    if isinstance(x, Variable):
        if isinstance(x.type, ScalarType):
            return x
        if getattr(x.type, "ndim", None) == 0 and hasattr(x.type, "dtype"):
            from jitgraph.scalar.bridge import scalar_from_tensor

            return scalar_from_tensor(x)
        raise TypeError(f"cannot use {x} of type {x.type} as a scalar (only scalars and 0-d "
                        "tensors can)")
    if x is None:
        raise TypeError("cannot convert None to a scalar")
    return constant(x, name=name)


def int_or_true_div(x_discrete: bool, y_discrete: bool) -> Any:
    """The scalar op ``/`` uses for operands of these kinds: ``int_div`` for two integers when
    ``config.int_division`` is 'int', else ``true_div`` (IntegerDivisionError for two integers
    under 'raise')."""
    if x_discrete and y_discrete:
        if config.int_division == "raise":
            raise IntegerDivisionError("dividing two integers with int_division='raise': use "
                                       "// or cast an operand first")
        if config.int_division == "int":
            return _op("int_div")
    return _op("true_div")


def as_common_dtype(*variables: Any) -> Any:
    """The variables (scalars, or tensor variables) cast to their common dtype (a generator,
    as in Theano)."""
    def typed(v: Any) -> Any:
        return v if isinstance(getattr(v, "type", None), TensorType) else as_scalar(v)

    values = [typed(v) for v in variables]
    common = dt.upcast(*[v.dtype for v in values])
    return (tensor_math.cast(v, common) if isinstance(v.type, TensorType) else cast(v, common)
            for v in values)


def mod_check(x: Any, y: Any) -> Any:
    """``x % y`` for scalars, refusing complex operands (NumPy deprecated ``%`` on them)."""
    x, y = as_scalar(x), as_scalar(y)
    if dt.is_complex(x.dtype) or dt.is_complex(y.dtype):
        raise ComplexError(f"% is not supported on complex numbers ({x.dtype} % {y.dtype}): "
                           "NumPy deprecated it; take the real part first")
    return _op("mod")(x, y)


__all__ = ["ScalarVariable", "ScalarConstant", "constant", "as_scalar", "cast",
           "int_or_true_div", "as_common_dtype", "mod_check"]
