"""``xlogx(x)`` = x·log(x) and ``xlogy0(x, y)`` = x·log(y), both 0 where x is 0 (Theano's
``theano.tensor.xlogx``).

These are the entropy terms: the limit of x·log(x) at 0 is 0, so ``-sum(p * log(p))`` written
with ``xlogx`` stays finite when a probability is exactly 0. Each is one scalar op (one table
entry, with its expression for the compiled backends) applied elementwise.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from jitgraph.scalar_expr import expr as E
from jitgraph.tensor.elementwise import math, scalar_ops
from jitgraph.tensor.elementwise.elemwise import Elemwise
from jitgraph.tensor.elementwise.scalar_ops import ScalarOp, float_out


def _xlogx_impl(x: Any) -> np.ndarray:
    x = np.asarray(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x == 0, np.zeros((), dtype=x.dtype), x * np.log(x))


def _xlogy0_impl(x: Any, y: Any) -> np.ndarray:
    x, y = np.asarray(x), np.asarray(y)
    with np.errstate(divide="ignore", invalid="ignore"):
        product = x * np.log(y)
    return np.where(x == 0, np.zeros((), dtype=product.dtype), product)


def _T():
    return math


def _xlogx_grad(inputs: list, output: Any, gz: Any) -> list:
    (x,) = inputs
    return [gz * (1 + _T().log(x))]


def _xlogy0_grad(inputs: list, output: Any, gz: Any) -> list:
    x, y = inputs
    return [gz * _T().log(y), gz * x / y]


class XlogX(ScalarOp):
    """The scalar op x·log(x), 0 at x = 0 (float output; integers are computed as floats)."""

    def __init__(self) -> None:
        super().__init__("xlogx", 1, _xlogx_impl, float_out, _xlogx_grad,
                         doc="x * log(x), defined as 0 at x = 0",
                         expr=lambda x: E.where(x == 0, 0, x * E.log(x)))


class XlogY0(ScalarOp):
    """The scalar op x·log(y), 0 where x = 0 whatever y is (float output)."""

    def __init__(self) -> None:
        super().__init__("xlogy0", 2, _xlogy0_impl, float_out, _xlogy0_grad,
                         doc="x * log(y), defined as 0 where x = 0",
                         expr=lambda x, y: E.where(x == 0, 0, x * E.log(y)))


# Registered so that pickled graphs and compiled kernels find them by name.
scalar_xlogx = scalar_ops.register(XlogX())
scalar_xlogy0 = scalar_ops.register(XlogY0())

#: ``xlogx(x)``: x·log(x) elementwise, 0 where x is 0
xlogx = Elemwise(scalar_xlogx, name="xlogx")
#: ``xlogy0(x, y)``: x·log(y) elementwise (broadcasting), 0 where x is 0
xlogy0 = Elemwise(scalar_xlogy0, name="xlogy0")

__all__ = ["XlogX", "XlogY0", "scalar_xlogx", "scalar_xlogy0", "xlogx", "xlogy0"]
