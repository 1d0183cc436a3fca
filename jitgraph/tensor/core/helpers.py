"""Small helpers of Theano's ``theano.tensor.basic`` that user code reaches through ``T``.

Axis normalization (``check_and_normalize_axes``) and re-inserting reduced axes
(``makeKeepDims``); ``numpy_scalar`` (the value of a constant that holds one number); the test
helper ``check_equal_numpy``; ``largest``/``smallest`` over several tensors; ``mod_check``
(``%`` refusing complex numbers); the ``transfer`` registry (``x.transfer('cpu')``); and the
error classes ``ShapeError`` and ``EmptyConstantError``.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from jitgraph.graph.basic import Variable
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.core.basic import (EmptyConstantError, NotScalarConstantError,
                                       get_vector_length, stack)
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.core.var import TensorConstant
from jitgraph.tensor.elementwise.elemwise import dimshuffle
from jitgraph.tensor.elementwise.math import gt, lt, mod, switch
from jitgraph.tensor.elementwise.reduction import max as tmax, min as tmin


class ShapeError(Exception):
    """A shape is inconsistent with what an operation needs."""


# -- axes -------------------------------------------------------------------------------------

def check_and_normalize_axes(x: Any, axis: Any) -> list[int]:
    """``axis`` (None, an int, a list/tuple of ints, or a constant tensor of them) as a sorted
    list of distinct non-negative axes of ``x``; None gives ``[]``."""
    x = as_tensor_variable(x)
    if axis is None:
        return []

    if isinstance(axis, TensorConstant):
        axis = axis.data
    elif isinstance(axis, Variable):
        raise TypeError(f"the axis must be a constant, got the symbolic {axis!r}")
    if isinstance(axis, np.ndarray):
        if axis.dtype.kind not in "iub":
            raise TypeError(f"axes must be integers, got an array of dtype {axis.dtype}")
        axis = axis.ravel().tolist()
    entries = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    normalized = set()
    for a in entries:
        if not isinstance(a, (int, np.integer)):
            raise TypeError(f"an axis must be an integer, a tuple or list of integers or a "
                            f"constant tensor; got {a!r}")
        n = int(a) + x.ndim if a < 0 else int(a)
        if not 0 <= n < x.ndim:
            raise ValueError(f"axis {int(a)} is out of range for the {x.ndim}-d tensor {x}")
        normalized.add(n)
    return sorted(normalized)


def makeKeepDims(x: Any, y: Any, axis: Any) -> Variable:
    """``y``, the result of reducing ``x`` over ``axis`` (None: every axis), with the reduced
    axes put back as broadcastable length-1 axes (what ``keepdims=True`` gives)."""
    x, y = as_tensor_variable(x), as_tensor_variable(y)
    axes = list(range(x.ndim)) if axis is None else check_and_normalize_axes(x, axis)
    if y.ndim != x.ndim - len(axes):
        raise ValueError(f"{y} has {y.ndim} dimensions; reducing the {x.ndim}-d {x} over axes "
                         f"{axes} leaves {x.ndim - len(axes)}")
    kept = iter(range(y.ndim))
    return dimshuffle(y, ["x" if d in axes else next(kept) for d in range(x.ndim)])


def is_flat(var: Any, ndim: int | None = None, outdim: int | None = None) -> bool:
    """Whether ``var`` has ``ndim`` dimensions (default 1; ``outdim`` is the old name)."""
    if ndim is not None and outdim is not None:
        raise ValueError("give ndim or outdim (its old name), not both")
    wanted = ndim if ndim is not None else outdim if outdim is not None else 1
    return var.ndim == wanted


def alloc_validate_shape(shape: Any) -> tuple[list[Variable], list[bool]]:
    """The dimensions of ``shape`` (a sequence, or a vector of known length) as 0-d integer
    tensors, and for each whether it is the constant 1 (so that the result broadcasts)."""
    if isinstance(shape, Variable):
        shape = [shape[i] for i in range(get_vector_length(shape))]
    dims, broadcastable = [], []
    for k, s in enumerate(shape):
        dim = as_tensor_variable(s, ndim=0)
        if not dt.is_discrete(dim.dtype) or dim.dtype == "bool":
            raise TypeError(f"shape dimension {k} must be an integer, got {s!r} of dtype "
                            f"{dim.dtype}")
        dims.append(dim)
        data = getattr(dim, "data", None)
        broadcastable.append(data is not None and int(data) == 1)
    return dims, broadcastable


# -- constants --------------------------------------------------------------------------------

def numpy_scalar(data: Any) -> np.ndarray:
    """``data`` checked to hold exactly one number (any number of length-1 axes allowed):
    EmptyConstantError when it is empty, NotScalarConstantError when it holds several values or
    is not numeric."""
    data = np.asarray(data)
    if data.ndim > 0 and max(data.shape) == 0:
        raise EmptyConstantError(f"the constant {data!r} is empty")
    if data.dtype.kind not in "biufc" or data.size != 1:
        raise NotScalarConstantError(f"expected one numeric value, got {data!r}")
    return data


def check_equal_numpy(x: Any, y: Any) -> Any:
    """Test helper: arrays are equal when dtype and shape agree and every element is within
    1e-10 (NaN never is); random states when their states agree; anything else by ``==``."""
    if isinstance(x, np.ndarray) and isinstance(y, np.ndarray):
        if x.dtype != y.dtype or x.shape != y.shape:
            return False
        with np.errstate(invalid="ignore"):
            return np.all(np.abs(x - y) < 1e-10)
    if isinstance(x, np.random.RandomState) and isinstance(y, np.random.RandomState):
        return all(np.all(a == b) for a, b in zip(x.get_state(), y.get_state()))
    return x == y


def values_eq_approx_always_true(a: Any, b: Any) -> bool:
    """A ``values_eq_approx`` that accepts any pair (for outputs that need no checking)."""
    return True


# -- several tensors --------------------------------------------------------------------------

def _extreme(args: Sequence[Any], who: str, pick_first: Callable, reduce: Callable) -> Variable:
    if not args:
        raise TypeError(f"{who}() needs at least one tensor")
    if len(args) == 2:
        a, b = (as_tensor_variable(v) for v in args)

        return switch(pick_first(a, b), a, b)

    return reduce(stack([as_tensor_variable(v) for v in args]), axis=0)


def largest(*args: Any) -> Variable:
    """The elementwise maximum of the arguments (all of the same rank when more than two)."""
    return _extreme(args, "largest", gt, tmax)


def smallest(*args: Any) -> Variable:
    """The elementwise minimum of the arguments (all of the same rank when more than two)."""
    return _extreme(args, "smallest", lt, tmin)


def mod_check(x: Any, y: Any) -> Variable:
    """``x % y``, refusing complex operands (NumPy deprecated ``%`` on complex numbers)."""
    from jitgraph.scalar_expr.errors import ComplexError

    x, y = as_tensor_variable(x), as_tensor_variable(y)
    if dt.is_complex(x.dtype) or dt.is_complex(y.dtype):
        raise ComplexError(f"% is not supported on complex numbers ({x.dtype} % {y.dtype}): "
                           "NumPy deprecated it; take the real part first")
    return mod(x, y)


def constructor(f: Callable) -> Callable:
    """Marks ``f`` as a variable constructor (documentation only: returns ``f`` unchanged)."""
    return f


def operand_dot(l: Any, r: Any) -> Variable:
    """``jitgraph.dot(l, r)`` (Theano's ``theano.dot``): the product as the operands define it
    (``l.__dot__(r)``, else ``r.__rdot__(l)``; tensors give ``T.dot``, a sparse matrix its
    sparse product). At least one operand must be symbolic."""
    if not isinstance(l, Variable) and not isinstance(r, Variable):
        raise NotImplementedError(f"dot needs a symbolic operand, got {type(l).__name__} and "
                                  f"{type(r).__name__}; use numpy.dot for values")
    failures = []
    for owner, method, other in ((l, "__dot__", r), (r, "__rdot__", l)):
        fn = getattr(owner, method, None)
        if fn is None:
            failures.append(f"{type(owner).__name__} has no {method}")
            continue
        try:
            return fn(other)
        except Exception as exc:  # the other operand may still know how
            failures.append(f"{type(owner).__name__}.{method}: {exc}")
    raise NotImplementedError("dot failed: " + "; ".join(failures))


# -- transfer ---------------------------------------------------------------------------------

_TRANSFERS: list[Callable[[Variable, str], Any]] = []


def register_transfer(fn: Callable[[Variable, str], Any]) -> None:
    """Adds ``fn(var, target)``, which returns ``var`` moved to ``target`` or None when it does
    not know that target, to the functions :func:`transfer` tries."""
    _TRANSFERS.append(fn)


def transfer(var: Any, target: str) -> Variable:
    """``var`` placed on ``target``: ``'cpu'`` keeps a tensor on the host; other targets are
    handled by the functions given to :func:`register_transfer`. (jitgraph moves computation
    to the GPU itself when ``device=cuda``: no transfer is needed for that.)"""
    if target == "cpu":
        return as_tensor_variable(var)
    for fn in _TRANSFERS:
        moved = fn(var, target)
        if moved is not None:
            return moved
    raise ValueError(f"cannot transfer {var} to target {target!r}: only 'cpu' and targets of "
                     "functions given to register_transfer are known (with device=cuda, "
                     "jitgraph places computation on the GPU by itself)")


__all__ = ["ShapeError", "EmptyConstantError", "check_and_normalize_axes", "makeKeepDims",
           "is_flat", "alloc_validate_shape", "numpy_scalar", "check_equal_numpy", "values_eq_approx_always_true", "largest",
           "smallest", "mod_check", "constructor", "register_transfer", "transfer"]
