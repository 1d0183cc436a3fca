"""Elementwise math: the public functions built from the scalar-op table, casts and ``/``."""

from __future__ import annotations

import warnings
from functools import lru_cache
from typing import Any

import numpy as np

from jitgraph.graph.basic import Variable
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.elementwise import scalar_ops as scalar
from jitgraph.tensor.core.conversion import as_tensor_variable, constant
from jitgraph.tensor.elementwise.elemwise import Elemwise
from jitgraph.config import config


class IntegerDivisionError(TypeError):
    """``/`` on two integer tensors while ``config.int_division`` is 'raise'."""


@lru_cache(maxsize=None)
def elemwise_op(name: str) -> Elemwise:
    """The (shared) Elemwise op applying scalar op ``name``."""
    return Elemwise(scalar.op(name))


def elemwise_of(op: scalar.ScalarOp) -> Elemwise:
    """The shared Elemwise op of the table row ``op``: the tensor function of a row defined
    outside this module (``erfinv = elemwise_of(define_op(...))``), an op as ``T.add`` is."""
    return elemwise_op(op.name)


def _apply(name: str, *args: Any) -> Variable:
    return elemwise_op(name)(*args)


def _define(name: str, doc: str) -> Elemwise:
    """The shared Elemwise op of row ``name``, which is the tensor function (as in Theano,
    ``T.add`` is an op: ``T.add(x, y, z)`` applies it, ``node.op == T.add`` matches its nodes,
    ``T.add.scalar_op`` is the row). ``doc`` says what it computes."""
    return elemwise_op(name)


# One public op per scalar op of the table: the shared Elemwise, called as a function.
neg = _define("neg", "-x")
abs = _define("abs", "|x|")
sgn = _define("sgn", "sign of x (-1, 0, 1)")
exp = _define("exp", "e**x")
exp2 = _define("exp2", "2**x")
expm1 = _define("expm1", "e**x - 1, accurate near 0")
log = _define("log", "natural logarithm")
log2 = _define("log2", "base-2 logarithm")
log10 = _define("log10", "base-10 logarithm")
log1p = _define("log1p", "log(1 + x), accurate near 0")
sqrt = _define("sqrt", "square root")
sqr = _define("sqr", "x*x")
reciprocal = _define("reciprocal", "1/x")
sin = _define("sin", "sine")
cos = _define("cos", "cosine")
tan = _define("tan", "tangent")
arcsin = _define("arcsin", "inverse sine")
arccos = _define("arccos", "inverse cosine")
arctan = _define("arctan", "inverse tangent")
sinh = _define("sinh", "hyperbolic sine")
cosh = _define("cosh", "hyperbolic cosine")
tanh = _define("tanh", "hyperbolic tangent")
arcsinh = _define("arcsinh", "inverse hyperbolic sine")
arccosh = _define("arccosh", "inverse hyperbolic cosine")
arctanh = _define("arctanh", "inverse hyperbolic tangent")
floor = _define("floor", "round down")
ceil = _define("ceil", "round up")
trunc = _define("trunc", "round toward zero")
erf = _define("erf", "error function")
erfc = _define("erfc", "1 - erf(x)")
sigmoid = _define("sigmoid", "logistic function 1/(1+exp(-x)), computed stably")
softplus = _define("softplus", "log(1 + exp(x)), computed stably")
# Theano's isnan/isinf are functions that skip the op for integers (math_extra); these are the
# ops themselves, under Theano's names for them.
isnan_ = _define("isnan", "x is NaN")
isinf_ = _define("isinf", "x is +-inf")
invert = _define("invert", "bitwise / logical not")
identity = _define("identity", "a copy of x")
add = _define("add", "x + y + ... (any number of inputs)")
mul = _define("mul", "x * y * ... (any number of inputs)")
sub = _define("sub", "x - y")
true_div = _define("true_div", "x / y as floats")
int_div = _define("int_div", "x // y (floor division)")
mod = _define("mod", "x % y (sign of y)")
pow = _define("pow", "x ** y")
maximum = _define("maximum", "elementwise maximum")
minimum = _define("minimum", "elementwise minimum")
arctan2 = _define("arctan2", "angle of (x, y) = arctan(y/x), quadrant-aware")
eq = _define("eq", "x == y")
neq = _define("neq", "x != y")
lt = _define("lt", "x < y")
le = _define("le", "x <= y")
gt = _define("gt", "x > y")
ge = _define("ge", "x >= y")
and_ = _define("and_", "bitwise / logical and")
or_ = _define("or_", "bitwise / logical or")
xor = _define("xor", "bitwise / logical exclusive or")
switch = _define("switch", "elementwise choice: a where cond else b")
clip = _define("clip", "x limited to [lo, hi]")
second = _define("second", "y broadcast to the shape of x")

# Theano spellings.
abs_ = abs
inv = reciprocal
where = switch
fill = second
neq_ = neq


def round(a: Any, mode: str = "half_to_even") -> Variable:  # noqa: A001 - Theano's name
    """Round to the nearest integer: ``half_to_even`` (NumPy's rule) or ``half_away_from_zero``."""
    if mode not in ("half_to_even", "half_away_from_zero"):
        raise ValueError(f"round mode must be 'half_to_even' or 'half_away_from_zero', not {mode!r}")
    return _apply(f"round_{mode}", a)


round_half_to_even = _define("round_half_to_even", "round, ties to even")
round_half_away_from_zero = _define("round_half_away_from_zero",
                                    "round, ties away from zero")


def cast(x: Any, dtype: str) -> Variable:
    """``x`` converted to ``dtype`` ('floatX' allowed); a no-op when it already has it."""
    x = as_tensor_variable(x)
    dtype = dt.normalize_dtype(dtype)
    if x.dtype == dtype:
        return x
    if dt.is_complex(x.dtype) and not dt.is_complex(dtype):
        # dropping the imaginary part without a word would be a silent wrong result
        raise TypeError(f"cast: casting the complex {x} ({x.dtype}) to {dtype} is ambiguous: "
                        "take real(), imag(), angle() or abs() of it first")
    return _cast_op(dtype)(x)


@lru_cache(maxsize=None)
def _cast_op(dtype: str) -> Elemwise:
    return Elemwise(scalar.Cast(dtype))


def div_proxy(x: Any, y: Any) -> Variable:
    """The ``/`` operator: true division, except integer/integer follows ``config.int_division``."""
    x, y = as_tensor_variable(x), as_tensor_variable(y)
    if dt.is_discrete(x.dtype) and dt.is_discrete(y.dtype):
        policy = config.int_division
        if policy == "raise":
            raise IntegerDivisionError(
                f"dividing integer tensors {x} ({x.dtype}) / {y} ({y.dtype}) with "
                "int_division='raise': use // for integer division, or cast an operand to a float")
        if policy == "int":
            _warn_int_division()
            return int_div(x, y)
        return cast(true_div(x, y), config.floatX)
    return true_div(x, y)


_int_division_warned = []


def _warn_int_division() -> None:
    if not _int_division_warned:
        _int_division_warned.append(True)
        warnings.warn("x / y on two integer tensors is an integer division because "
                      "int_division='int' (deprecated Theano behaviour); set the flag "
                      "int_division=floatX or raise, or use // explicitly", DeprecationWarning,
                      stacklevel=3)


def const_like(value: Any, like: Any) -> Variable:
    """A 0-d constant holding ``value`` in ``like``'s dtype (keeps float32 graphs float32)."""
    like = as_tensor_variable(like)
    dtype = like.dtype if not dt.is_discrete(like.dtype) else dt.floatx()
    return constant(np.asarray(value, dtype=dtype))


def zeros_like_scalar(like: Any) -> Variable:
    return constant(np.zeros((), dtype=as_tensor_variable(like).dtype))


def ones_like_scalar(like: Any) -> Variable:
    return constant(np.ones((), dtype=as_tensor_variable(like).dtype))


def dot(a: Any, b: Any) -> Variable:
    """Inner product for vectors, matrix product for matrices (NumPy's ``dot`` rules)."""
    from jitgraph.tensor.linalg.dot_functions import dot as _dot

    return _dot(a, b)


def matmul(a: Any, b: Any) -> Variable:
    """NumPy's ``matmul`` (``@``): batched over leading dimensions."""
    from jitgraph.tensor.linalg.dot_functions import matmul as _matmul

    return _matmul(a, b)


def real_dtype_of(x: Any) -> str:
    return scalar.real_out(as_tensor_variable(x).dtype)
