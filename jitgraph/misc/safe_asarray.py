"""``theano.misc.safe_asarray``: ``_asarray``, ``numpy.asarray`` that is sure to return the
dtype asked for (``'floatX'`` means ``config.floatX``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from jitgraph.config import config


def _asarray(a: Any, dtype: Any, order: str | None = None) -> np.ndarray:
    """``a`` as an array of exactly ``dtype``. NumPy may return an equivalent dtype object
    (same kind and size) that is not the one asked for: the result is then a view with the
    requested dtype."""
    if str(dtype) == "floatX":
        dtype = config.floatX
    dtype = np.dtype(dtype)
    result = np.asarray(a, dtype=dtype, order=order)
    if result.dtype.num != dtype.num:
        if result.dtype.str != dtype.str:
            raise TypeError(f"_asarray: numpy returned dtype {result.dtype} for the requested "
                            f"{dtype}, and they are not the same in memory")
        result = result.view(dtype=dtype)
    return result


__all__ = ["_asarray"]
