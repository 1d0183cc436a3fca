"""Structured elementwise functions: a tensor function applied to the stored values of a sparse
matrix only (zeros that are not stored stay zero), built as
``CSM(f(data), indices, indptr, shape)`` — the data loop is an ordinary elementwise kernel, and
the gradient is structured (it flows through ``CSM`` to the stored values only)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from jitgraph.graph.basic import Variable
from jitgraph.sparse import helpers as H
from jitgraph.sparse.basic import CSM, csm_properties
import jitgraph.tensor as T
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.elementwise.math import round_half_to_even
from jitgraph.tensor.nnet import sigmoid


def structured_monoid(tensor_op: Callable) -> Callable:
    """Decorator: the decorated function (its docstring documents it) becomes
    ``tensor_op`` applied to the stored values of its first argument, a sparse matrix; the
    other arguments are passed to ``tensor_op`` unchanged."""

    def decorator(f: Callable) -> Callable:
        @functools.wraps(f)
        def structured(x: Any, *args: Any) -> Variable:
            x = H.require_sparse(f.__name__, 0, x)
            extra = [as_tensor_variable(a) for a in args]
            for k, a in enumerate(extra, start=1):
                if a.ndim != 0:
                    raise TypeError(f"{f.__name__}: argument {k} must be a scalar (it is "
                                    f"applied to every stored value), got {a.ndim} dimensions")
            data, indices, indptr, shape = csm_properties(x)
            return CSM(x.format)(tensor_op(data, *extra), indices, indptr, shape)

        return structured

    return decorator


def _tensor(name: str) -> Callable:
    """The tensor function ``name`` (jitgraph.tensor), resolved when first called."""

    def call(*args: Any) -> Variable:
        fn = getattr(T, name, None)
        if fn is None:
            fn = _FALLBACKS[name]
        return fn(*args)

    return call


def _deg2rad(x: Any) -> Variable:
    return x * np.asarray(np.pi / 180, dtype=x.dtype)


def _rad2deg(x: Any) -> Variable:
    return x * np.asarray(180 / np.pi, dtype=x.dtype)


def _rint(x: Any) -> Variable:
    return round_half_to_even(x)


def _conj(x: Any) -> Variable:
    if x.dtype.startswith("complex"):
        raise NotImplementedError("sparse.conj of complex values needs tensor.conj")
    return x


def _sigmoid(x: Any) -> Variable:
    return sigmoid(x)


_FALLBACKS = {"deg2rad": _deg2rad, "rad2deg": _rad2deg, "rint": _rint, "conj": _conj}


@structured_monoid(_sigmoid)
def structured_sigmoid(x: Any) -> Variable:
    """Structured elementwise sigmoid."""


@structured_monoid(_tensor("exp"))
def structured_exp(x: Any) -> Variable:
    """Structured elementwise exponential."""


@structured_monoid(_tensor("log"))
def structured_log(x: Any) -> Variable:
    """Structured elementwise logarithm."""


@structured_monoid(_tensor("pow"))
def structured_pow(x: Any, y: Any) -> Variable:
    """Structured elementwise power of the stored values to the scalar ``y``."""


@structured_monoid(_tensor("minimum"))
def structured_minimum(x: Any, y: Any) -> Variable:
    """Structured elementwise minimum with the scalar ``y``."""


@structured_monoid(_tensor("maximum"))
def structured_maximum(x: Any, y: Any) -> Variable:
    """Structured elementwise maximum with the scalar ``y``."""


@structured_monoid(_tensor("add"))
def structured_add(x: Any, y: Any) -> Variable:
    """The scalar ``y`` added to the stored values of ``x``."""


def _unary(name: str, doc: str) -> Callable:
    def f(x: Any) -> Variable:
        pass

    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"Structured elementwise {doc} (only the stored values)."
    f.__module__ = __name__
    return structured_monoid(_tensor(name))(f)


sin = _unary("sin", "sine")
tan = _unary("tan", "tangent")
arcsin = _unary("arcsin", "inverse sine")
arctan = _unary("arctan", "inverse tangent")
sinh = _unary("sinh", "hyperbolic sine")
arcsinh = _unary("arcsinh", "inverse hyperbolic sine")
arctanh = _unary("arctanh", "inverse hyperbolic tangent")
tanh = _unary("tanh", "hyperbolic tangent")
rad2deg = _unary("rad2deg", "radians to degrees")
deg2rad = _unary("deg2rad", "degrees to radians")
rint = _unary("rint", "round to the nearest integer (ties to even)")
sgn = _unary("sgn", "sign")
ceil = _unary("ceil", "ceiling")
floor = _unary("floor", "floor")
trunc = _unary("trunc", "truncation toward zero")
log1p = _unary("log1p", "log(1 + x)")
expm1 = _unary("expm1", "exp(x) - 1")
sqr = _unary("sqr", "square")
sqrt = _unary("sqrt", "square root")
conj = _unary("conj", "complex conjugate")
abs_ = _unary("abs_", "absolute value")
