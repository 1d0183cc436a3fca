"""Turning Python values, arrays and variables into tensor variables."""

from __future__ import annotations

from typing import Any

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.core.type import TensorType
from jitgraph.tensor.core.var import TensorConstant, _TensorOperators


class AsTensorError(TypeError):
    """A value or variable cannot be used as a tensor."""


def constant(x: Any, name: str | None = None, ndim: int | None = None, dtype: str | None = None):
    """A TensorConstant holding ``x`` (Python scalars are typed by ``config.cast_policy``)."""
    if dtype is not None:
        arr = np.asarray(x, dtype=dt.normalize_dtype(dtype))
    else:
        arr = dt.as_array(x)
    if ndim is not None and arr.ndim != ndim:
        if arr.ndim > ndim or ndim < 0:
            raise ValueError(f"constant of shape {arr.shape} cannot have {ndim} dimensions")
        arr = arr.reshape((1,) * (ndim - arr.ndim) + arr.shape)
    ttype = TensorType(arr.dtype.name, [s == 1 for s in arr.shape])
    return TensorConstant(ttype, arr, name)


def as_tensor_variable(x: Any, name: str | None = None, ndim: int | None = None,
                       dtype: str | None = None) -> Variable:
    """``x`` as a tensor variable: variables pass through, values become constants.

    A list or tuple that contains variables is stacked into one tensor.
    """
    if isinstance(x, Apply):
        x = x.out
    if isinstance(x, _TensorOperators):
        var = x
        if dtype is not None and var.dtype != dt.normalize_dtype(dtype):
            from jitgraph.tensor.elementwise.math import cast

            var = cast(var, dtype)
        if ndim is not None and var.ndim != ndim:
            var = _fix_ndim(var, ndim)
        return var
    if isinstance(x, Variable):
        converted = getattr(x, "as_tensor", None)
        if converted is not None:
            return as_tensor_variable(converted(), name, ndim, dtype)
        raise AsTensorError(f"cannot use {x} of type {x.type} as a tensor")
    if isinstance(x, (list, tuple)) and any(_contains_variable(e) for e in x):
        from jitgraph.tensor.core.basic import stack

        return as_tensor_variable(stack([as_tensor_variable(e) for e in x]), name, ndim, dtype)
    if hasattr(x, "__cuda_array_interface__") and hasattr(x, "get"):
        x = x.get()
    if x is None:
        raise AsTensorError("cannot convert None to a tensor")
    if isinstance(x, bool):
        # As Theano: a Python bool here is most often a mistake (``x == y`` on variables is
        # identity in Python; ``T.eq(x, y)`` compares them).
        raise AsTensorError(f"cannot use the Python bool {x} as a tensor; pass "
                            f"numpy.array({x}) for a boolean constant (is it the result of "
                            "== or != on variables? T.eq and T.neq compare elementwise)")
    try:
        return constant(x, name=name, ndim=ndim, dtype=dtype)
    except TypeError as exc:
        raise AsTensorError(f"cannot convert {x!r} to a tensor: {exc}") from exc


#: Theano's short name
as_tensor = as_tensor_variable


def _contains_variable(x: Any) -> bool:
    if isinstance(x, Variable):
        return True
    return isinstance(x, (list, tuple)) and any(_contains_variable(e) for e in x)


def _fix_ndim(var: Variable, ndim: int) -> Variable:
    from jitgraph.tensor.elementwise.elemwise import dimshuffle

    if var.ndim > ndim:
        extra = var.ndim - ndim
        if all(var.broadcastable[:extra]):
            return dimshuffle(var, list(range(extra, var.ndim)))
    elif var.ndim < ndim:
        return dimshuffle(var, ["x"] * (ndim - var.ndim) + list(range(var.ndim)))
    raise ValueError(f"{var} has {var.ndim} dimensions ({var.type}); {ndim} were expected")
