"""Shape arithmetic on "dims": Python ints or 0-d int64 variables, as ``infer_shape`` and the shape
rules of the ops compute them. Folding Python ints keeps the graphs that ``infer_shape`` builds
small when most dimensions are known; ``k * 1``, ``k + 0`` build no node."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from jitgraph.graph.basic import Constant, Variable
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.elementwise import math
from jitgraph.tensor.elementwise.math import cast, switch

def _is_pyint(v: Any) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _dim(v: Any) -> Any:
    """A dim as a Python int when it is provably constant, else as an int64 variable."""
    if _is_pyint(v):
        return int(v)
    from jitgraph.tensor.core.basic import NotScalarConstantError, get_scalar_constant_value

    try:
        return int(get_scalar_constant_value(v))
    except NotScalarConstantError:
        pass
    return _int64(v)


def _int64(v: Any) -> Variable:
    v = as_tensor_variable(v)
    if v.dtype != "int64":
        v = cast(v, "int64")
    return v


def _const_int(v: Any) -> int | None:
    """``v`` as a Python int if it is provably constant, else None (builds no graph)."""
    if v is None:
        return None
    if _is_pyint(v):
        return int(v)
    from jitgraph.tensor.core.basic import NotScalarConstantError, get_scalar_constant_value

    try:
        return int(get_scalar_constant_value(v))
    except NotScalarConstantError:
        return None


#: name -> (right identity, left identity): ``x op right == x``, ``left op x == x``
_IDENTITIES = {"add": (0, 0), "sub": (0, None), "mul": (1, 1), "int_div": (1, None)}


def _binop(name: str, py: Any, a: Any, b: Any) -> Any:
    a, b = _dim(a), _dim(b)
    if _is_pyint(a) and _is_pyint(b):
        return py(a, b)
    right, left = _IDENTITIES.get(name, (None, None))
    if _is_pyint(b) and b == right:  # no node for ``k * 1`` (a convolution's shape, ...)
        return a
    if _is_pyint(a) and a == left:
        return b
    # One of a, b is a variable that is not provably constant, so the result is not either
    # (get_scalar_constant_value folds an elementwise op only when every input folds): no
    # need to ask, walking the expression again at each step of a chain of shape arithmetic.
    return _int64(getattr(math, name)(a, b))


def _add(a: Any, b: Any) -> Any:
    return _binop("add", lambda p, q: p + q, a, b)


def _sub(a: Any, b: Any) -> Any:
    return _binop("sub", lambda p, q: p - q, a, b)


def _mul(a: Any, b: Any) -> Any:
    return _binop("mul", lambda p, q: p * q, a, b)


def _floordiv(a: Any, b: Any) -> Any:
    # Division by zero only happens for shapes NumPy would reject anyway; give 0 then.
    return _binop("int_div", lambda p, q: p // q if q else 0, a, b)


def _maximum(a: Any, b: Any) -> Any:
    return _binop("maximum", max, a, b)


def _minimum(a: Any, b: Any) -> Any:
    return _binop("minimum", min, a, b)


def _lt(a: Any, b: Any) -> Any:
    return _binop("lt", lambda p, q: p < q, a, b)


def _eq(a: Any, b: Any) -> Any:
    return _binop("eq", lambda p, q: p == q, a, b)


def _switch(cond: Any, a: Any, b: Any) -> Any:
    if isinstance(cond, (bool, np.bool_)):
        return a if cond else b
    a, b = _dim(a), _dim(b)
    if _is_pyint(a) and _is_pyint(b) and a == b:
        return a

    return _dim(switch(cond, a, b))


def _prod(dims: Sequence[Any]) -> Any:
    out: Any = 1
    for d in dims:
        out = _mul(out, d)
    return out


def _constant_elements(vec: Variable) -> list[int | None]:
    """The entries of an int vector that are known when the graph is built (None: unknown)."""
    from jitgraph.tensor.core.basic import (MakeVector, NotScalarConstantError,
                                       get_scalar_constant_value, get_vector_length)

    if isinstance(vec, Constant):
        return [int(v) for v in np.asarray(vec.data).ravel()]
    if vec.owner is not None and isinstance(vec.owner.op, MakeVector):
        out: list[int | None] = []
        for e in vec.owner.inputs:
            try:
                out.append(int(get_scalar_constant_value(e)))
            except NotScalarConstantError:
                out.append(None)
        return out
    try:
        return [None] * get_vector_length(vec)
    except ValueError:
        return []


def _element(vec: Variable, i: int) -> Any:
    """Entry ``i`` of an int vector, taken from a MakeVector's input when there is one."""
    from jitgraph.tensor.core.basic import MakeVector

    if isinstance(vec, Constant):
        return int(np.asarray(vec.data)[i])
    if vec.owner is not None and isinstance(vec.owner.op, MakeVector):
        return _dim(vec.owner.inputs[i])
    return _dim(vec[i])
