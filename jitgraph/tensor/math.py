"""Elementwise math: the public functions built from the scalar-op table, casts and ``/``."""

from __future__ import annotations

import warnings
from functools import lru_cache
from typing import Any

import numpy as np

from jitgraph.graph.basic import Variable
from jitgraph.tensor import dtypes as dt
from jitgraph.tensor import scalar_ops as scalar
from jitgraph.tensor.conversion import as_tensor_variable, constant
from jitgraph.tensor.elemwise import Elemwise


class IntegerDivisionError(TypeError):
    """``/`` on two integer tensors while ``config.int_division`` is 'raise'."""


@lru_cache(maxsize=None)
def elemwise_op(name: str) -> Elemwise:
    """The (shared) Elemwise op applying scalar op ``name``."""
    return Elemwise(scalar.op(name))


def _apply(name: str, *args: Any) -> Variable:
    return elemwise_op(name)(*args)


def _define(name: str, public: str, doc: str):
    def fn(*args: Any) -> Variable:
        return _apply(name, *args)

    fn.__name__ = fn.__qualname__ = public
    fn.__doc__ = doc
    return fn


_UNARY_DOCS = {
    "neg": "-x", "abs": "|x|", "sgn": "sign of x (-1, 0, 1)", "exp": "e**x", "exp2": "2**x",
    "expm1": "e**x - 1, accurate near 0", "log": "natural logarithm", "log2": "base-2 logarithm",
    "log10": "base-10 logarithm", "log1p": "log(1 + x), accurate near 0", "sqrt": "square root",
    "sqr": "x*x", "reciprocal": "1/x", "sin": "sine", "cos": "cosine", "tan": "tangent",
    "arcsin": "inverse sine", "arccos": "inverse cosine", "arctan": "inverse tangent",
    "sinh": "hyperbolic sine", "cosh": "hyperbolic cosine", "tanh": "hyperbolic tangent",
    "arcsinh": "inverse hyperbolic sine", "arccosh": "inverse hyperbolic cosine",
    "arctanh": "inverse hyperbolic tangent", "floor": "round down", "ceil": "round up",
    "trunc": "round toward zero", "erf": "error function", "erfc": "1 - erf(x)",
    "sigmoid": "logistic function 1/(1+exp(-x)), computed stably",
    "softplus": "log(1 + exp(x)), computed stably", "isnan": "x is NaN", "isinf": "x is +-inf",
    "invert": "bitwise / logical not", "identity": "a copy of x",
}
_BINARY_DOCS = {
    "add": "x + y + ... (any number of inputs)", "mul": "x * y * ... (any number of inputs)",
    "sub": "x - y", "true_div": "x / y as floats", "int_div": "x // y (floor division)",
    "mod": "x % y (sign of y)", "pow": "x ** y", "maximum": "elementwise maximum",
    "minimum": "elementwise minimum", "arctan2": "angle of (x, y) = arctan(y/x), quadrant-aware",
    "eq": "x == y", "neq": "x != y", "lt": "x < y", "le": "x <= y", "gt": "x > y", "ge": "x >= y",
    "and_": "bitwise / logical and", "or_": "bitwise / logical or",
    "xor": "bitwise / logical exclusive or",
    "switch": "elementwise choice: a where cond else b", "clip": "x limited to [lo, hi]",
    "second": "y broadcast to the shape of x",
}

for _name, _doc in {**_UNARY_DOCS, **_BINARY_DOCS}.items():
    globals()[_name] = _define(_name, _name, _doc)

# Theano spellings.
abs_ = globals()["abs"]
inv = globals()["reciprocal"]
where = globals()["switch"]
fill = globals()["second"]
neq_ = globals()["neq"]


def round(a: Any, mode: str = "half_to_even") -> Variable:  # noqa: A001 - Theano's name
    """Round to the nearest integer: ``half_to_even`` (NumPy's rule) or ``half_away_from_zero``."""
    if mode not in ("half_to_even", "half_away_from_zero"):
        raise ValueError(f"round mode must be 'half_to_even' or 'half_away_from_zero', not {mode!r}")
    return _apply(f"round_{mode}", a)


round_half_to_even = _define("round_half_to_even", "round_half_to_even", "round, ties to even")
round_half_away_from_zero = _define("round_half_away_from_zero", "round_half_away_from_zero",
                                    "round, ties away from zero")


def cast(x: Any, dtype: str) -> Variable:
    """``x`` converted to ``dtype`` ('floatX' allowed); a no-op when it already has it."""
    x = as_tensor_variable(x)
    dtype = dt.normalize_dtype(dtype)
    if x.dtype == dtype:
        return x
    return _cast_op(dtype)(x)


@lru_cache(maxsize=None)
def _cast_op(dtype: str) -> Elemwise:
    return Elemwise(scalar.Cast(dtype))


def div_proxy(x: Any, y: Any) -> Variable:
    """The ``/`` operator: true division, except integer/integer follows ``config.int_division``."""
    from jitgraph.config import config

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
    from jitgraph.tensor.blas import dot as _dot

    return _dot(a, b)


def matmul(a: Any, b: Any) -> Variable:
    """NumPy's ``matmul`` (``@``): batched over leading dimensions."""
    from jitgraph.tensor.blas import matmul as _matmul

    return _matmul(a, b)


def real_dtype_of(x: Any) -> str:
    return scalar.real_out(as_tensor_variable(x).dtype)
