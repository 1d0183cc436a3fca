"""Dtype families and the implicit casting rules (``floatX``, ``cast_policy``).

The rules follow Theano's: Python scalars become the smallest dtype that holds them exactly under
``cast_policy=custom`` (Python floats become ``floatX`` when it is float32), and mixing float32
with integers keeps float32 when ``floatX`` is float32.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from jitgraph.config import config

bool_dtypes = ("bool",)
int_dtypes = ("int8", "int16", "int32", "int64")
uint_dtypes = ("uint8", "uint16", "uint32", "uint64")
float_dtypes = ("float16", "float32", "float64")
complex_dtypes = ("complex64", "complex128")
integer_dtypes = int_dtypes + uint_dtypes
discrete_dtypes = bool_dtypes + integer_dtypes
continuous_dtypes = float_dtypes + complex_dtypes
all_dtypes = discrete_dtypes + continuous_dtypes

# Theano's "upgrade to float": the float dtype an integer is computed in by exp, log, /, ...
_TO_FLOAT = {
    "bool": "float32", "int8": "float32", "int16": "float32", "uint8": "float32",
    "uint16": "float32", "int32": "float64", "int64": "float64", "uint32": "float64",
    "uint64": "float64",
}


def floatx() -> str:
    return config.floatX


_NAMES = frozenset(all_dtypes)


def normalize_dtype(dtype: Any) -> str:
    """The canonical dtype name; ``'floatX'`` means ``config.floatX``."""
    if type(dtype) is str and dtype in _NAMES:
        return dtype  # already canonical: every type a rewrite builds (NumPy's lookup is slow)
    if dtype == "floatX":
        return floatx()
    try:
        name = np.dtype(dtype).name
    except TypeError as exc:
        raise TypeError(f"unsupported dtype {dtype!r}; expected one of {all_dtypes}") from exc
    if name not in all_dtypes:
        raise TypeError(f"unsupported dtype {name!r}; expected one of {all_dtypes}")
    return name


def upcast(*dtypes: str) -> str:
    """The dtype NumPy gives when combining ``dtypes`` -- also under floatX=float32, as Theano
    1.0.5 does: int32 + float32 is float64 (Python float literals are what floatX keeps in
    float32: they become float32 constants, see ``autocast_float``)."""
    return np.result_type(*[np.dtype(d) for d in dtypes]).name


def upgrade_to_float(dtype: str) -> str:
    """The float dtype used when a transcendental function is applied to ``dtype``."""
    return _TO_FLOAT.get(dtype, dtype)


def is_discrete(dtype: str) -> bool:
    return dtype in discrete_dtypes


def is_float(dtype: str) -> bool:
    return dtype in float_dtypes


def is_complex(dtype: str) -> bool:
    return dtype in complex_dtypes


def _smallest_exact(value: Any, candidates: tuple[str, ...]) -> np.ndarray:
    arr = None
    for dtype in candidates:
        try:
            with np.errstate(all="ignore"):
                arr = np.asarray(value, dtype=dtype)
        except OverflowError:  # NumPy 2 refuses out-of-range Python ints: try the next dtype
            continue
        # Compare at Python precision: NumPy 2 would compare 0.1 in float32 and call it exact.
        if arr.item() == value:
            return arr
    return arr


class FloatAutocaster:
    """The dtypes a Python float may become under ``cast_policy='custom'`` (Theano's
    ``autocast_float``): ``floatX`` when it is one of them and narrower than float64, else the
    first that holds the value exactly, else the last (float16 only under ``floatX=float16``).
    :class:`autocast_float_as` changes ``dtypes`` for a ``with`` block."""

    def __init__(self, dtypes: tuple[str, ...]) -> None:
        self.dtypes = tuple(dtypes)

    def __call__(self, value: float) -> np.ndarray:
        fx = config.floatX
        if fx in self.dtypes and fx != "float64":
            return np.asarray(value, dtype=fx)
        tried = tuple(d for d in self.dtypes if fx == "float16" or d != "float16")
        return _smallest_exact(value, tried or self.dtypes[-1:])


autocast_float = FloatAutocaster(float_dtypes)


class autocast_float_as:  # noqa: N801  (Theano's name; used as ``with autocast_float_as(...)``)
    """Within the ``with`` block, Python floats in graphs become the first of ``dtypes`` that
    holds them exactly (``autocast_float_as('float32')``: always float32). Only meaningful
    under ``cast_policy='custom'``, the default; blocks nest."""

    def __init__(self, *dtypes: str) -> None:
        self.dtypes = tuple(normalize_dtype(d) for d in dtypes)
        self._check_policy()

    @staticmethod
    def _check_policy() -> None:
        if config.cast_policy != "custom":
            raise ValueError("autocast_float_as sets the dtypes of Python floats under "
                             f"cast_policy='custom'; the cast_policy is {config.cast_policy!r}")

    def __enter__(self) -> "autocast_float_as":
        self._check_policy()
        self._saved = autocast_float.dtypes
        autocast_float.dtypes = self.dtypes
        return self

    def __exit__(self, *exc: Any) -> None:
        autocast_float.dtypes = self._saved


def _check_int_range(value: int) -> None:
    """Refuse a Python int no integer dtype holds (as Theano does): a float64 would silently
    round it (``2**64 + 1`` would become ``2**64``)."""
    if not np.iinfo(np.int64).min <= value <= np.iinfo(np.uint64).max:
        raise OverflowError(f"the Python int {value} fits no integer dtype (int64 or uint64); "
                            "pass a float if an approximate value will do")


def autocast_scalar(value: Any) -> np.ndarray:
    """A 0-d array for a Python/NumPy scalar, following ``config.cast_policy``."""
    if isinstance(value, np.generic) or (isinstance(value, np.ndarray)):
        return np.asarray(value)
    if isinstance(value, int) and not isinstance(value, bool):
        _check_int_range(value)
    if config.cast_policy == "numpy+floatX":
        arr = np.asarray(value)
        if isinstance(value, float) and arr.dtype.name != config.floatX:
            arr = arr.astype(config.floatX)
        return arr
    if isinstance(value, bool):
        return np.asarray(value, dtype="bool")
    if isinstance(value, int):
        return _smallest_exact(value, int_dtypes + ("uint64",))
    if isinstance(value, float):
        return autocast_float(value)
    if isinstance(value, complex):
        return _smallest_exact(value, complex_dtypes)
    return np.asarray(value)


def as_array(value: Any) -> np.ndarray:
    """An ndarray for any literal (scalars autocast, sequences via NumPy with floatX for floats)."""
    if isinstance(value, np.ndarray):
        return value
    if np.isscalar(value) or isinstance(value, np.generic):
        return autocast_scalar(value)
    arr = np.asarray(value)
    if arr.size == 0 and not hasattr(value, "dtype"):
        arr = np.asarray(value, dtype=floatx())
    if arr.dtype.kind in "iu" and arr.dtype.name not in all_dtypes:
        arr = arr.astype("int64")
    if arr.dtype.name not in all_dtypes:
        raise TypeError(f"cannot make a tensor from {type(value).__name__} with dtype {arr.dtype}")
    return arr
