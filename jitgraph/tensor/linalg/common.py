"""Checks and dtype rules shared by the linear-algebra ops (``nlinalg``, ``slinalg``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from jitgraph.graph.basic import Variable
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.core.conversion import as_tensor_variable


def as_matrix(x: Any, who: Any, name: str) -> Variable:
    """``x`` as a tensor variable, which must be a matrix (a clear error names ``name``)."""
    x = as_tensor_variable(x)
    if x.ndim != 2:
        raise TypeError(f"{who}: {name} must be a matrix (2 dimensions), got {x} ({x.type}) "
                        f"with {x.ndim}")
    return x


def float_dtype(dtype: str) -> str:
    """The dtype of a linear-algebra result for an input of ``dtype``: floats and complexes
    keep theirs, integers and booleans compute in float64 (as ``numpy.linalg`` does)."""
    return "float64" if dt.is_discrete(dtype) else dtype


def real_dtype(dtype: str) -> str:
    """The real dtype matching ``dtype`` (complex64 -> float32, complex128 -> float64)."""
    return {"complex64": "float32", "complex128": "float64"}.get(dtype, dtype)


def cast_result(value: Any, out: Variable, who: str | None = None) -> np.ndarray:
    """A NumPy result in the dtype of the output variable ``out`` (no copy when it already
    has it). A complex result for a real output must have a zero imaginary part."""
    value = np.asarray(value)
    dtype = out.type.dtype
    if np.iscomplexobj(value) and not dt.is_complex(dtype):
        if np.any(value.imag):
            raise ValueError(f"{who or out}: the result is complex but the output is {dtype}; "
                             "pass a complex input to get complex results")
        value = value.real
    return value.astype(dtype, copy=False)


def check_square(x: np.ndarray, who: Any, name: str) -> None:
    """Raise numpy's LinAlgError, naming the op and the argument, unless ``x`` is square."""
    if x.ndim != 2 or x.shape[0] != x.shape[1]:
        raise np.linalg.LinAlgError(f"{who}: {name} must be a square matrix, got shape "
                                    f"{x.shape}")


def check_rows(a: np.ndarray, b: np.ndarray, who: Any) -> None:
    """Raise a ValueError unless ``b`` has as many rows as the square ``a``."""
    if b.shape[0] != a.shape[0]:
        raise ValueError(f"{who}: b must have as many rows as A ({a.shape[0]}), got b of shape "
                         f"{b.shape}")
