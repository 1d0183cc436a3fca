"""The special functions of ``theano.tensor`` (``erfinv``, ...): one row of the scalar-op table
each (:mod:`jitgraph.tensor.scalar_ops` explains a row) and its tensor function.

Their computations are helper functions of restricted Python in
:mod:`jitgraph.scalar.special_math`, which the NumPy references call per element and both
compiled backends render (:mod:`jitgraph.scalar_expr`).
"""

from __future__ import annotations

import math

import numpy as np

from jitgraph.scalar import special_math as SM
from jitgraph.scalar_expr import expr as E
from jitgraph.tensor.scalar_ops import define_op, elemwise_function, float_out, unary_grad


def _T():
    from jitgraph.tensor import math as tensor_math

    return tensor_math


def reference(helper):
    """The NumPy reference of a row computing ``helper`` per element (in float64)."""
    return np.vectorize(helper, otypes=[np.float64])


erfinv = elemwise_function(define_op(
    "erfinv", 1, reference(SM.erfinv), float_out,
    unary_grad(lambda x, out, gz: gz * _T().const_like(0.5 * math.sqrt(math.pi), out)
               * _T().exp(_T().sqr(out))),
    lambda x: E.call(SM.erfinv, x),
    theano_class="Erfinv", doc="inverse error function (erf(erfinv(x)) = x on [-1, 1])"))

__all__ = ["erfinv"]
