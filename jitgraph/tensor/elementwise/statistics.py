"""Statistics of data built on the reductions: ``mean``, ``var``, ``std``, ``ptp`` (peak to peak)
and ``cov`` (covariance matrix), with Theano 1.0's ``theano.tensor`` signatures and NumPy's
results."""

from __future__ import annotations

from typing import Any

import numpy as np

from jitgraph.graph.basic import Variable
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.core.basic import concatenate
from jitgraph.tensor.core.conversion import as_tensor_variable, constant
from jitgraph.tensor.elementwise import math as M
from jitgraph.tensor.elementwise.math import cast, sqrt, true_div
from jitgraph.tensor.elementwise.reduction import max as tmax
from jitgraph.tensor.elementwise.reduction import min as tmin
from jitgraph.tensor.elementwise.reduction import normalize_axis, sum_output_dtype, with_kept_dims
from jitgraph.tensor.elementwise.reduction import sum as tsum
from jitgraph.tensor.linalg.dot_functions import dot
from jitgraph.tensor.shaping.shape import shape_i, squeeze

__all__ = ["mean", "var", "std", "ptp", "cov"]


def _count(x: Variable, axes: tuple[int, ...] | None, dtype: str) -> Variable:
    """The number of elements reduced over ``axes`` of ``x``, as a 0-d ``dtype`` tensor."""
    axes = tuple(range(x.ndim)) if axes is None else axes
    if not axes:
        return constant(np.ones((), dtype=dtype))

    dims = [shape_i(x, a) for a in axes if not x.broadcastable[a]]
    if not dims:
        return constant(np.ones((), dtype=dtype))
    count = dims[0]
    for d in dims[1:]:
        count = count * d
    return cast(count, dtype)


def _mean_dtypes(x_dtype: str, dtype: str | None) -> tuple[str | None, str]:
    """(dtype of the sum, dtype of the count) for :func:`mean`."""
    if dtype is not None:
        dtype = dt.normalize_dtype(dtype)
    sum_dtype = dtype
    if x_dtype == "float16" and dtype in (None, "float16"):
        sum_dtype = "float32"  # accumulate and divide in float32, cast back at the end
    s_dtype = sum_dtype or sum_output_dtype(x_dtype)
    return sum_dtype, ("float32" if s_dtype in ("float16", "float32", "complex64") else "float64")


def mean(x: Any, axis: Any = None, dtype: str | None = None, keepdims: bool = False,
         acc_dtype: str | None = None) -> Variable:
    """Arithmetic mean over ``axis``: ``sum / count``.

    The element count is cast to float32 when the sum is float16/float32, else float64, so a
    float32 input gives a float32 mean (Theano's pitfall was dividing by an int64 count, which
    upcasts to float64). Integer inputs give a float64 mean. ``dtype`` sets the dtype of the sum
    (float16 inputs sum in float32 and the mean is cast back to float16).
    """
    x = as_tensor_variable(x)
    axes = normalize_axis(axis, x.ndim, "mean")
    sum_dtype, count_dtype = _mean_dtypes(x.dtype, dtype)
    s = tsum(x, axis=axes, dtype=sum_dtype, acc_dtype=acc_dtype)
    out = true_div(s, _count(x, axes, count_dtype))
    if dtype == "float16" or (dtype is None and x.dtype == "float16"):
        out = cast(out, "float16")
    out = with_kept_dims(out, x.ndim, axes, keepdims)
    out.name = "mean"
    return out


def var(x: Any, axis: Any = None, ddof: int = 0, keepdims: bool = False,
        corrected: bool = False) -> Variable:
    """Variance over ``axis``: ``sum((x - mean)**2) / (count - ddof)`` (two-pass).

    ``corrected=True`` subtracts the rounding error left in the mean (the corrected two-pass
    algorithm: ``(sum(c**2) - sum(c)**2 / count) / (count - ddof)`` with ``c = x - mean``).
    """
    x = as_tensor_variable(x)
    axes = normalize_axis(axis, x.ndim, "var")
    centered = x - mean(x, axis=axes, keepdims=True)
    sq = M.sqr(centered)
    if ddof == 0 and not corrected:
        out = mean(sq, axis=axes, keepdims=keepdims)
    else:
        count = _count(x, axes, _mean_dtypes(sq.dtype, None)[1])
        total = tsum(sq, axis=axes)
        if corrected:
            total = total - M.true_div(M.sqr(tsum(centered, axis=axes)), count)
        out = with_kept_dims(M.true_div(total, count - ddof), x.ndim, axes, keepdims)
    out.name = "var"
    return out


def std(x: Any, axis: Any = None, ddof: int = 0, keepdims: bool = False,
        corrected: bool = False) -> Variable:
    """Standard deviation over ``axis``: ``sqrt(var(x, axis, ddof, corrected=corrected))``."""
    out = sqrt(var(x, axis=axis, ddof=ddof, keepdims=keepdims, corrected=corrected))
    out.name = "std"
    return out


def ptp(a: Any, axis: Any = None) -> Variable:
    """The range (maximum - minimum) of ``a`` over ``axis`` (None: all axes), like
    ``numpy.ptp``."""

    a = as_tensor_variable(a)
    return tmax(a, axis) - tmin(a, axis)


def _observations(m: Any, rowvar: bool, who: str) -> Variable:
    """``m`` as a matrix with one variable per row."""
    m = as_tensor_variable(m)
    if m.ndim == 1:
        m = m.dimshuffle("x", 0)
    elif m.ndim == 2:
        m = m if rowvar else m.T
    else:
        raise ValueError(f"cov: {who} must be a vector or a matrix, got the {m.ndim}-d {m}")
    return m if dt.is_float(m.dtype) else cast(m, "float64")


def cov(m: Any, y: Any = None, rowvar: bool = True, bias: bool = False, ddof: Any = None,
        fweights: Any = None, aweights: Any = None) -> Variable:
    """The covariance matrix of the variables in ``m`` (one per row, or per column with
    ``rowvar=False``), with the variables of ``y`` appended, like ``numpy.cov``. Normalised by
    ``N - ddof``; ``ddof`` defaults to 1, or 0 with ``bias``. One variable gives a scalar."""
    if fweights is not None or aweights is not None:
        raise NotImplementedError("cov: fweights and aweights are not supported (nor were "
                                  "they in Theano); weight the observations yourself")
    x = _observations(m, rowvar, "m")
    if y is not None:
        x = concatenate([x, _observations(y, rowvar, "y")], axis=0)
    if ddof is None:
        ddof = 0 if bias else 1
    centred = x - mean(x, axis=1, keepdims=True)
    count = cast(x.shape[1] - ddof, x.dtype)
    return squeeze(dot(centred, centred.T) / count)
