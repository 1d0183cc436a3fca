"""``ScalarType`` (Theano's ``Scalar``): the type of one number of a given dtype, and its
instances ``float64``, ``int32``, ... (called to make variables: ``float64('x')``).

A scalar variable's value is a NumPy scalar (``numpy.float64(2.0)``). Scalar graphs are for
per-element programs (``Composite``) and for code written against ``theano.scalar``; tensors of
rank 0 (``T.dscalar``) are what array programs normally use.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from jitgraph.graph.type import Type
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.core.type import TensorType


class ScalarType(Type):
    """One number of dtype ``dtype``; ``ScalarType('float64')('x')`` makes a variable."""

    ndim = 0
    broadcastable: tuple = ()

    def __init__(self, dtype: str) -> None:
        self.dtype = dt.normalize_dtype(dtype)

    def __str__(self) -> str:
        return self.dtype

    def __repr__(self) -> str:
        return f"Scalar({self.dtype})"

    def _as_tensor_type(self) -> Any:  # values compare as 0-d arrays
        return TensorType(self.dtype, ())

    def filter(self, data: Any, strict: bool = False, allow_downcast: bool | None = None) -> Any:
        """``data`` as a NumPy scalar of this dtype, or TypeError saying why it does not fit.

        A value converts when it keeps its value (``3.0`` fits ``int32``, ``300`` does not fit
        ``int8``); ``allow_downcast`` accepts any conversion; with ``strict`` only a NumPy
        scalar (or 0-d array) of exactly this dtype is accepted.
        """
        given = np.asarray(data) if isinstance(data, (np.generic, np.ndarray)) else None
        if given is not None and given.dtype.name == self.dtype and given.ndim == 0:
            return given[()]
        if strict:
            raise TypeError(f"{self.dtype} expected a numpy.{self.dtype}, got {data!r} of type "
                            f"{type(data).__name__}")
        if np.ndim(data) != 0:
            raise TypeError(f"a {self.dtype} scalar holds one number, got a value of shape "
                            f"{np.shape(data)}")
        try:
            with np.errstate(all="ignore"):
                converted = np.asarray(data, dtype=self.dtype)
        except (TypeError, ValueError, OverflowError) as exc:
            raise TypeError(f"cannot convert {data!r} ({type(data).__name__}) to "
                            f"{self.dtype}: {exc}") from None
        if not allow_downcast and not _same_value(converted, data):
            raise TypeError(f"cannot convert {data!r} ({type(data).__name__}) to {self.dtype} "
                            "without changing its value; cast it first or pass "
                            "allow_input_downcast=True")
        return converted[()]

    def is_valid_value(self, data: Any) -> bool:
        return isinstance(data, np.generic) and data.dtype.name == self.dtype

    def values_eq(self, a: Any, b: Any) -> bool:
        return self._as_tensor_type().values_eq(a, b)

    def values_eq_approx(self, a: Any, b: Any, **kwargs: Any) -> bool:
        return self._as_tensor_type().values_eq_approx(a, b, **kwargs)

    def value_signature(self, data: Any) -> tuple:
        return (self.dtype, np.asarray(data).tobytes())

    def short_value_repr(self, data: Any) -> str:
        return str(np.asarray(data).item())

    def make_variable(self, name: str | None = None) -> Any:
        from jitgraph.scalar.var import ScalarVariable

        return ScalarVariable(self, None, None, name)

    def make_constant(self, value: Any, name: str | None = None) -> Any:
        from jitgraph.scalar.var import ScalarConstant

        return ScalarConstant(self, value, name)

    def get_shape_info(self, value: Any) -> tuple:
        return ()

    def get_size(self, shape_info: Any) -> int:
        return np.dtype(self.dtype).itemsize


def _same_value(converted: np.ndarray, original: Any) -> bool:
    try:
        with np.errstate(all="ignore"):
            return bool(np.array_equal(converted, np.asarray(original),
                                       equal_nan=converted.dtype.kind in "fc"))
    except TypeError:
        return False


@lru_cache(maxsize=None)
def get_scalar_type(dtype: str) -> ScalarType:
    """The (shared) scalar type of ``dtype``."""
    return ScalarType(dtype)


#: exported as ``jitgraph.scalar.bool`` (Theano's name); not shadowing the builtin here
bool_ = get_scalar_type("bool")
int8 = get_scalar_type("int8")
int16 = get_scalar_type("int16")
int32 = get_scalar_type("int32")
int64 = get_scalar_type("int64")
uint8 = get_scalar_type("uint8")
uint16 = get_scalar_type("uint16")
uint32 = get_scalar_type("uint32")
uint64 = get_scalar_type("uint64")
float16 = get_scalar_type("float16")
float32 = get_scalar_type("float32")
float64 = get_scalar_type("float64")
complex64 = get_scalar_type("complex64")
complex128 = get_scalar_type("complex128")

int_types = (int8, int16, int32, int64)
uint_types = (uint8, uint16, uint32, uint64)
float_types = (float16, float32, float64)
complex_types = (complex64, complex128)
discrete_types = (bool_,) + int_types + uint_types
continuous_types = float_types + complex_types
all_types = discrete_types + continuous_types


def upcast(dtype: str, *dtypes: str) -> str:
    """The dtype that holds values of all the given dtypes (NumPy's promotion, keeping float32
    under ``floatX=float32`` as Theano did)."""
    return dt.upcast(dtype, *dtypes)


def _several(scalar_type: ScalarType):
    def make(*names: Any) -> Any:
        if len(names) == 1 and isinstance(names[0], int):
            return [scalar_type() for _ in range(names[0])]
        if len(names) == 1 and isinstance(names[0], str):
            text = names[0]
            # as the tensor constructors (``dscalars``): "x y" / "x,y" name several variables,
            # "xyz" is read letter by letter (as in Theano), one letter gives one variable
            split = text.replace(",", " ").split() if (" " in text or "," in text) else text
            if len(split) == 1:
                return scalar_type(split[0])
            names = tuple(split)
        return [scalar_type(n) for n in names]

    make.__doc__ = (f"Several {scalar_type.dtype} scalar variables: ``(3)``, ``('a', 'b')``, "
                    "``('a b')`` or ``('ab')`` (one per letter); one name gives one variable.")
    return make


ints = _several(int64)
floats = _several(float64)
complexs = _several(complex128)
complexs64 = _several(complex64)
complexs128 = _several(complex128)
