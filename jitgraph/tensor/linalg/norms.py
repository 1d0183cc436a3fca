"""Vector and matrix norms as graphs of elementwise ops and reductions (``nlinalg.norm``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from jitgraph.graph.basic import Variable
from jitgraph.tensor.elementwise import math
from jitgraph.tensor.elementwise.reduction import max as tmax, min as tmin, sum as tsum


def _order(ord: Any) -> Any:  # noqa: A002
    """Theano spells the infinite orders 'inf' and '-inf'; NumPy's floats mean the same."""
    if isinstance(ord, (float, np.floating)) and np.isinf(ord):
        return "inf" if ord > 0 else "-inf"
    return ord


def vector_norm(x: Variable, ord: Any) -> Variable:  # noqa: A002
    """``numpy.linalg.norm`` of the vector ``x``: None (2), 'inf', '-inf', 0 (number of
    nonzeros), or any other number p (``sum(|x|**p) ** (1/p)``)."""
    ord = _order(ord)  # noqa: A001
    if ord is None:
        return math.sqrt(tsum(math.sqr(math.abs(x))))
    if ord == "inf":
        return tmax(math.abs(x))
    if ord == "-inf":
        return tmin(math.abs(x))
    if isinstance(ord, str):
        raise ValueError(f"norm: invalid order {ord!r} for a vector; expected None, 'inf', "
                         "'-inf' or a number")
    if ord == 0:
        return tsum(math.neq(x, 0))
    return tsum(math.abs(x) ** ord) ** (1.0 / ord)


def matrix_norm(x: Variable, ord: Any) -> Variable:  # noqa: A002
    """``numpy.linalg.norm`` of the matrix ``x``: None or 'fro' (Frobenius), 'inf'/'-inf'
    (largest/smallest absolute row sum), 1/-1 (largest/smallest absolute column sum)."""
    ord = _order(ord)  # noqa: A001
    if ord is None or ord == "fro":
        return math.sqrt(tsum(math.sqr(math.abs(x))))
    reducers = {"inf": (tmax, 1), "-inf": (tmin, 1), 1: (tmax, 0), -1: (tmin, 0)}
    if isinstance(ord, bool) or ord not in reducers:
        raise ValueError(f"norm: unsupported order {ord!r} for a matrix; expected None, 'fro', "
                         "'inf', '-inf', 1 or -1 (2, -2 and 'nuc' need an SVD: use "
                         "nlinalg.svd)")
    reduce, axis = reducers[ord]
    return reduce(tsum(math.abs(x), axis=axis))
