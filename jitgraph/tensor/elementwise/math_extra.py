"""The rest of ``theano.tensor``'s elementwise math: Theano's aliases (``power``, ``square``,
``bitwise_*``, ``isinf_``/``isnan_``), angle conversions, ``iround``, ``divmod``, ``isclose`` /
``allclose``, and the complex-number functions (:mod:`jitgraph.tensor.elementwise.complex_math`).

``deg2rad``/``rad2deg`` are rows of the scalar-op table
(:mod:`jitgraph.tensor.elementwise.scalar_ops`); the
other functions are compositions of existing ops, as in Theano. Theano 1.0 has no bit-shift
functions, so there are none here either.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from jitgraph.graph.basic import Variable
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.elementwise import math as tm
from jitgraph.tensor.elementwise.complex_math import (angle, complex, complex_from_polar, conj,
                                                      imag, real)  # noqa: A004
from jitgraph.tensor.core.basic import alloc
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.elementwise.scalar_ops import (define_op, float_out,
                                                    unary_grad)
from jitgraph.tensor.elementwise.reduction import all as all_

# -- Theano's aliases -----------------------------------------------------------------------

bitwise_and = tm.and_
bitwise_or = tm.or_
bitwise_xor = tm.xor
bitwise_not = tm.invert
square = tm.sqr
isinf_ = tm.isinf_
isnan_ = tm.isnan_


def isnan(x: Any) -> Variable:
    """Where ``x`` is NaN, as a bool tensor. An integer or bool ``x`` has none: the result is
    all False, without an elementwise op (as in Theano, whose ``isnan_`` is the op itself)."""
    return _float_test(isnan_, x)


def isinf(x: Any) -> Variable:
    """Where ``x`` is +-inf, as a bool tensor (all False for an integer or bool ``x``, without
    an elementwise op, as :func:`isnan`)."""
    return _float_test(isinf_, x)


def _float_test(test: Any, x: Any) -> Variable:
    x = as_tensor_variable(x)
    if dt.is_discrete(x.dtype):
        return alloc(np.asarray(False), *[x.shape[i] for i in range(x.ndim)])
    return test(x)


def power(x: Any, y: Any) -> Variable:
    """``x ** y`` elementwise (Theano's ``power``; the same op as ``pow``)."""
    return tm.pow(x, y)


# -- angle conversions (rows of the scalar-op table) ----------------------------------------

_DEGREE = math.pi / 180.0


def _scaled_grad(factor: float):
    return unary_grad(lambda x, out, gz: gz * tm.const_like(factor, out))


deg2rad = tm.elemwise_of(define_op(
    "deg2rad", 1, np.deg2rad, float_out, _scaled_grad(_DEGREE), lambda x: x * _DEGREE,
    theano_class="Deg2Rad", doc="degrees to radians: x * pi / 180"))
rad2deg = tm.elemwise_of(define_op(
    "rad2deg", 1, np.rad2deg, float_out, _scaled_grad(1.0 / _DEGREE),
    lambda x: x * (1.0 / _DEGREE), theano_class="Rad2Deg",
    doc="radians to degrees: x * 180 / pi"))


# -- rounding, division, closeness ----------------------------------------------------------

def iround(a: Any, mode: str | None = None) -> Variable:
    """``round(a, mode)`` as int64 (Theano's ``iround``); ``mode`` None means
    ``'half_to_even'``. Only float inputs are accepted, as in Theano."""
    a = as_tensor_variable(a)
    if not a.dtype.startswith("float"):
        raise TypeError(f"iround: only float inputs are supported, got {a} of dtype {a.dtype}")
    return tm.cast(tm.round(a, "half_to_even" if mode is None else mode), "int64")


def divmod(x: Any, y: Any) -> tuple[Variable, Variable]:  # noqa: A001 - Theano's name
    """``(x // y, x % y)`` elementwise, with Python's sign rules (Theano's ``divmod``)."""
    x, y = as_tensor_variable(x), as_tensor_variable(y)
    for name, v in (("x", x), ("y", y)):
        if dt.is_complex(v.dtype):
            raise TypeError(f"divmod: {name} is complex ({v.dtype}); // and % are not defined "
                            "for complex numbers")
    return tm.int_div(x, y), tm.mod(x, y)


def isclose(a: Any, b: Any, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: bool = False) -> Variable:
    """Elementwise ``|a - b| <= atol + rtol * |b|`` as a bool tensor, like ``numpy.isclose``:
    infinities are close only to the same infinity; NaNs are close to each other only with
    ``equal_nan``."""
    a, b = as_tensor_variable(a), as_tensor_variable(b)
    for name, v in (("a", a), ("b", b)):
        if v.dtype == "bool" or dt.is_complex(v.dtype):
            raise TypeError(f"isclose: {name} has dtype {v.dtype}; integer or float tensors "
                            "are expected")
    finite = tm.and_(tm.invert(tm.or_(isnan(a), isinf(a))),
                     tm.invert(tm.or_(isnan(b), isinf(b))))
    within = tm.le(abs(a - b), atol + rtol * abs(b))
    same_infinity = tm.and_(tm.and_(isinf(a), isinf(b)), tm.eq(a, b))
    close = tm.or_(tm.and_(finite, within), same_infinity)
    if equal_nan:
        close = tm.or_(close, tm.and_(isnan(a), isnan(b)))
    return close


def allclose(a: Any, b: Any, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> Variable:
    """A 0-d bool: every element of ``a`` is close to the matching element of ``b``
    (:func:`isclose`)."""
    return all_(isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "square", "isinf_",
           "isnan_", "isinf", "isnan", "power", "deg2rad", "rad2deg", "iround", "divmod",
           "isclose", "allclose", "complex", "real", "imag", "angle", "conj", "complex_from_polar"]
