"""TensorType: an ndarray type given by a dtype and a broadcastable pattern."""

from __future__ import annotations

import hashlib
import warnings
from typing import Any, Sequence

import numpy as np

from jitgraph.config import config
from jitgraph.graph.type import Type
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.core.tolerances import comparison_tolerances
from jitgraph.tensor.core.var import TensorConstant, TensorVariable

_PATTERN_NAMES = {(): "scalar", (False,): "vector", (True, False): "row", (False, True): "col",
                  (False, False): "matrix"}

class ArrayTypeIdentity:
    """Identity of an array type by ``dtype`` and ``broadcastable`` (shared by the host
    ``TensorType`` and device array types): its rank, static shape, equality and hash."""

    dtype: str
    broadcastable: tuple[bool, ...]

    @property
    def ndim(self) -> int:
        return len(self.broadcastable)

    @property
    def shape(self) -> tuple[int | None, ...]:
        return tuple(1 if b else None for b in self.broadcastable)

    def __eq__(self, other: Any) -> bool:
        return (type(other) is type(self) and other.dtype == self.dtype
                and other.broadcastable == self.broadcastable)

    def __hash__(self) -> int:
        return hash((type(self), self.dtype, self.broadcastable))


class TensorType(ArrayTypeIdentity, Type):
    """The type of ndarray variables: ``TensorType('float64', (False, True))`` is a column.

    ``broadcastable[i]`` is True when dimension ``i`` is known to have length 1 (so that it
    broadcasts against any length).
    """

    #: When True, :meth:`filter` refuses values with NaN or infinite elements (Theano's class
    #: flag; functions check their arguments with it when compiled while it is set)
    filter_checks_isfinite = False

    def __init__(self, dtype: str, broadcastable: Sequence[bool] | None = None,
                 name: str | None = None, shape: Sequence[int | None] | None = None) -> None:
        self.dtype = dt.normalize_dtype(dtype)
        if broadcastable is None:
            if shape is None:
                raise TypeError("TensorType needs a broadcastable pattern (or a shape)")
            broadcastable = [s == 1 for s in shape]
        self.broadcastable = tuple(bool(b) for b in broadcastable)
        self.name = name

    # -- identity (ndim, shape, ==, hash: ArrayTypeIdentity) ------------------------------
    def __str__(self) -> str:
        if self.name:
            return self.name
        pattern = _PATTERN_NAMES.get(self.broadcastable)
        if pattern is None:
            pattern = f"{self.ndim}D" if not any(self.broadcastable) else str(self.broadcastable)
        return f"TensorType({self.dtype}, {pattern})"

    __repr__ = __str__

    def clone(self, dtype: str | None = None, broadcastable: Sequence[bool] | None = None
              ) -> "TensorType":
        return TensorType(dtype or self.dtype,
                          self.broadcastable if broadcastable is None else broadcastable)

    # -- values ---------------------------------------------------------------------------
    def filter(self, data: Any, strict: bool = False, allow_downcast: bool | None = None
               ) -> np.ndarray:
        """``data`` as an ndarray of this type, or a TypeError saying why it does not fit."""
        if isinstance(data, np.ndarray) and data.dtype == _numpy_dtype(self.dtype):
            arr = data  # the common case, without the (slow) dtype.name
        elif isinstance(data, np.ndarray) and data.dtype.name == self.dtype:
            # Byte-swapped data has the right dtype name but compiled kernels need native order.
            arr = data if data.dtype.isnative else data.astype(data.dtype.newbyteorder("="))
        elif strict:
            raise TypeError(f"expected an ndarray of dtype {self.dtype}, got "
                            f"{type(data).__name__}"
                            + (f" of dtype {data.dtype}" if hasattr(data, "dtype") else ""))
        else:
            arr = self._convert(data, allow_downcast)
        self._check_shape(arr)
        if self.filter_checks_isfinite and arr.dtype.kind in "fc" and not np.isfinite(arr).all():
            raise ValueError(f"{self}: non-finite elements (NaN or inf) are not allowed "
                             "(TensorType.filter_checks_isfinite is set)")
        return arr

    def _convert(self, data: Any, allow_downcast: bool | None) -> np.ndarray:
        if hasattr(data, "__cuda_array_interface__") and hasattr(data, "get"):
            data = data.get()
        if allow_downcast:
            try:
                return np.asarray(data, dtype=self.dtype)
            except OverflowError:
                # Python ints out of the dtype's range wrap around, as a C cast and Theano do
                # (NumPy 2 refuses them in asarray; astype still wraps)
                with np.errstate(all="ignore"):
                    return np.asarray(data).astype(self.dtype)
        src = np.asarray(data)
        if src.dtype == _numpy_dtype(self.dtype):
            return src
        if np.can_cast(src.dtype, self.dtype, "safe"):
            return src.astype(self.dtype)
        python_float = isinstance(data, float) or (
            not hasattr(data, "dtype") and src.dtype.kind == "f")
        if allow_downcast is None and python_float and self.dtype == dt.floatx():
            # Theano lets Python floats through to floatX: the user did not pick a precision.
            return src.astype(self.dtype)
        if not isinstance(data, np.ndarray) and src.dtype.kind in "biufc":
            # Python and NumPy scalars and lists convert when no value changes (1.0 or 3 to a
            # float32 input, 3.0 to an int32 one), as in Theano; an ndarray must be cast
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")  # ComplexWarning: the comparison decides
                converted = src.astype(self.dtype)
                if np.array_equal(converted, src, equal_nan=src.dtype.kind in "fc"):
                    return converted
        if src.dtype.kind in "US":  # text is no number: a wrong value (Theano's ValueError)
            raise ValueError(f"{self} holds numbers; got text {short_text(data)}")
        raise TypeError(f"value of dtype {src.dtype} cannot be stored in a {self} without loss "
                        f"of precision; cast it first or pass allow_input_downcast=True")

    def _check_shape(self, arr: np.ndarray) -> None:
        if arr.ndim != self.ndim:
            raise TypeError(f"wrong number of dimensions: expected {self.ndim} ({self}), got "
                            f"{arr.ndim} (shape {arr.shape})")
        for axis, (b, n) in enumerate(zip(self.broadcastable, arr.shape)):
            if b and n != 1:
                raise TypeError(f"dimension {axis} of {self} is broadcastable (length 1), but the "
                                f"value has shape {arr.shape}")

    def is_valid_value(self, data: Any) -> bool:
        return (isinstance(data, np.ndarray) and data.dtype.name == self.dtype
                and data.ndim == self.ndim
                and all(n == 1 for b, n in zip(self.broadcastable, data.shape) if b))

    # Static, as Theano's: ``TensorType.values_eq_approx(a, b)`` compares two arrays without
    # a type (the dtype comes from the values).
    @staticmethod
    def values_eq(a: Any, b: Any) -> bool:
        a, b = np.asarray(a), np.asarray(b)
        return a.shape == b.shape and bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))

    @staticmethod
    def values_eq_approx(a: Any, b: Any, allow_remove_inf: bool = False,
                         allow_remove_nan: bool = False, rtol: float | None = None,
                         atol: float | None = None) -> bool:
        """Equality up to dtype-aware tolerances (``tensor.cmp_sloppy`` loosens them)."""
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape:
            return False
        if a.dtype.kind not in "fc" and b.dtype.kind not in "fc":
            return bool(np.array_equal(a, b))

        default_atol, default_rtol = comparison_tolerances(a, b)
        atol = default_atol if atol is None else atol
        rtol = default_rtol if rtol is None else rtol
        same_nan = np.isnan(a) == np.isnan(b)
        if allow_remove_nan:
            same_nan = np.ones_like(same_nan)
        mask = ~(np.isnan(a) | np.isnan(b))
        if allow_remove_inf:
            mask &= ~(np.isinf(a) | np.isinf(b))
        close = np.isclose(a[mask], b[mask], rtol=rtol, atol=atol, equal_nan=False)
        return bool(np.all(same_nan) and np.all(close))

    def value_signature(self, data: np.ndarray) -> tuple:
        if data.size <= 16:
            return (data.dtype.name, data.shape, data.tobytes())
        digest = hashlib.sha256(np.ascontiguousarray(data).tobytes()).hexdigest()
        return (data.dtype.name, data.shape, digest)

    def short_value_repr(self, data: np.ndarray) -> str:
        """Theano's text for a constant: ``(2, 3) of 0.0`` when every element is equal, else
        NumPy's ``str``, cut to ``first 10 chars..last 10 chars`` beyond 20 characters."""
        flat = data.ravel()
        if data.ndim > 0 and flat.size and bool(np.all(flat == flat[0])):
            text = f"{data.shape} of {flat[0]}"
        else:
            text = str(data)
        return text if len(text) <= 20 else f"{text[:10]}..{text[-10:]}"

    # -- variables ------------------------------------------------------------------------
    def make_variable(self, name: str | None = None):  # type: ignore[override]
        return TensorVariable(self, None, None, name)

    def make_constant(self, value: Any, name: str | None = None):  # type: ignore[override]
        return TensorConstant(self, value, name)

    def convert_variable(self, var: Any) -> Any:
        """``var`` usable where this type is expected (a length-1 dim may stand for any length)."""
        other = var.type
        if other == self:
            return var
        if (isinstance(other, TensorType) and other.dtype == self.dtype
                and other.ndim == self.ndim
                and all(o or not s for s, o in zip(self.broadcastable, other.broadcastable))):
            from jitgraph.tensor.shaping.shape import unbroadcast

            axes = [i for i, (s, o) in enumerate(zip(self.broadcastable, other.broadcastable))
                    if o and not s]
            return unbroadcast(var, *axes)
        return None

    def value_zeros(self, shape: Sequence[int]) -> np.ndarray:
        """A zero-filled array of this type's dtype and the given shape (what an op's
        ``perform`` allocates its output with)."""
        return np.zeros(shape, dtype=self.dtype)

    def get_shape_info(self, value: np.ndarray) -> tuple[int, ...]:
        return value.shape

    def get_size(self, shape_info: tuple[int, ...]) -> int:
        return int(np.prod(shape_info, dtype=np.int64)) * np.dtype(self.dtype).itemsize


def short_text(value: Any, limit: int = 40) -> str:
    """``repr(value)``, cut to ``limit`` characters (for error messages)."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


_NUMPY_DTYPES: dict[str, np.dtype] = {}


def _numpy_dtype(name: str) -> np.dtype:
    """The native-order ``np.dtype`` of a dtype name (memoised: called on every input)."""
    found = _NUMPY_DTYPES.get(name)
    if found is None:
        found = _NUMPY_DTYPES[name] = np.dtype(name)
    return found


# Theano's module-level comparisons (a rewrite sets one as an output's ``values_eq_approx``
# when it may turn a finite value into an inf or NaN; tests swap them into TensorType). Only
# ``a``'s infs/NaNs are excused, as in Theano.
def _excusing(a: Any, b: Any, excused: Any) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    if a.shape == b.shape and a.dtype.kind in "fc":
        a = np.where(excused(a), b, a).astype(a.dtype, copy=False)
    return TensorType.values_eq_approx(a, b)


def values_eq_approx_remove_inf(a: Any, b: Any) -> bool:
    """Approximate equality where ``a`` may hold an inf in place of ``b``'s value."""
    return _excusing(a, b, np.isinf)


def values_eq_approx_remove_nan(a: Any, b: Any) -> bool:
    """Approximate equality where ``a`` may hold a NaN in place of ``b``'s value."""
    return _excusing(a, b, np.isnan)


def values_eq_approx_remove_inf_nan(a: Any, b: Any) -> bool:
    """Approximate equality where ``a`` may hold an inf or a NaN in place of ``b``'s value."""
    return _excusing(a, b, lambda v: ~np.isfinite(v))


def values_eq_approx_always_true(a: Any, b: Any) -> bool:
    """Any two values compare equal (for a result whose values are not checked)."""
    return True
