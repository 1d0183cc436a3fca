"""Spread of data: ``ptp`` (peak to peak) and ``cov`` (covariance matrix), with Theano 1.0's
``theano.tensor`` signatures and NumPy's results."""

from __future__ import annotations

from typing import Any

from jitgraph.graph.basic import Variable
from jitgraph.tensor import dtypes as dt
from jitgraph.tensor.conversion import as_tensor_variable

__all__ = ["ptp", "cov"]


def ptp(a: Any, axis: Any = None) -> Variable:
    """The range (maximum - minimum) of ``a`` over ``axis`` (None: all axes), like
    ``numpy.ptp``."""
    from jitgraph.tensor.reduction import max as tmax
    from jitgraph.tensor.reduction import min as tmin

    a = as_tensor_variable(a)
    return tmax(a, axis) - tmin(a, axis)


def _observations(m: Any, rowvar: bool, who: str) -> Variable:
    """``m`` as a matrix with one variable per row."""
    from jitgraph.tensor.math import cast

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
    from jitgraph.tensor.basic import concatenate
    from jitgraph.tensor.blas import dot
    from jitgraph.tensor.math import cast
    from jitgraph.tensor.reduction import mean
    from jitgraph.tensor.shape import squeeze

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
