"""Value helpers of DebugMode: copying, comparing, aliasing, validity and reference evaluation.

They work on NumPy arrays and, where it matters (aliasing, finiteness, comparisons), on device
arrays too (through ``__cuda_array_interface__`` or a copy to the host for error reports).
"""

from __future__ import annotations

import copy as _copy
from typing import Any

import numpy as np

from jitgraph.compile.debugmode_errors import to_host
from jitgraph.graph.basic import Constant, Variable


def copy_value(value: Any) -> Any:
    """An independent copy of a value (arrays: ``.copy()``; immutable scalars: themselves)."""
    if value is None or isinstance(value, (int, float, complex, str, bool)):
        return value
    copy = getattr(value, "copy", None)
    if callable(copy):
        try:
            return copy()
        except TypeError:
            pass
    return _copy.deepcopy(value)


def identical(a: Any, b: Any) -> bool:
    """Exact equality (same shape and dtype, NaN equal to NaN) of two values."""
    a, b = to_host(a), to_host(b)
    if hasattr(a, "getnnz") and hasattr(b, "getnnz"):  # scipy.sparse matrices
        return (a.format == b.format and a.shape == b.shape and a.dtype == b.dtype
                and (a != b).nnz == 0)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        return bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
    if isinstance(a, np.random.RandomState) and isinstance(b, np.random.RandomState):
        # a copy of a generator equals it by state, not by identity (RandomStreams draws)
        sa, sb = a.get_state(), b.get_state()
        return sa[0] == sb[0] and bool(np.array_equal(sa[1], sb[1])) and sa[2:] == sb[2:]
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - values that cannot be compared are not reported
        return True


def approx_equal(var: Variable, a: Any, b: Any) -> bool:
    """``var.type.values_eq_approx(a, b)`` (exact equality for types without it)."""
    a, b = to_host(a), to_host(b)
    compare = getattr(var.type, "values_eq_approx", None)
    try:
        return bool(compare(a, b)) if compare is not None else identical(a, b)
    except Exception:  # noqa: BLE001 - fall back to exact equality
        return identical(a, b)


def replacement_equal(old: Variable, new: Variable, old_val: Any, new_val: Any) -> bool:
    """Whether a rewrite kept the value: ``new.tag.values_eq_approx`` when the rewrite set one,
    else the type's comparison. Where the replaced expression was not finite (it overflowed),
    any value is accepted: stabilizing rewrites exist to compute something better there."""
    custom = getattr(new.tag, "values_eq_approx", None)
    if custom is not None:
        return bool(custom(to_host(old_val), to_host(new_val)))
    if approx_equal(old, old_val, new_val):
        return True
    a, b = to_host(old_val), to_host(new_val)
    if (isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.shape == b.shape
            and a.dtype.kind in "fc" and not np.all(np.isfinite(a))):
        finite = np.isfinite(a)
        return approx_equal(old, a[finite], b[finite])
    return False


def is_valid(var: Variable, value: Any) -> bool:
    """Whether ``value`` is a valid value of ``var``'s type (asked of the value itself: a GPU
    type holds device arrays only, a host copy of one is not valid)."""
    try:
        return bool(var.type.is_valid_value(value))
    except Exception:  # noqa: BLE001 - a type that cannot tell is not reported
        return True


def type_mismatch(var: Variable, value: Any) -> str:
    """Why ``value`` is not valid for ``var``'s type (the InvalidValueError hint)."""
    v = to_host(value)
    got = (f"{type(v).__name__} of dtype {v.dtype} and shape {v.shape}"
           if hasattr(v, "dtype") and hasattr(v, "shape") else type(v).__name__)
    return f"the value is not valid for {var.type}: got {got}"


def has_non_finite(value: Any) -> bool:
    """True for a float or complex array (or scipy.sparse matrix) holding NaN or Inf."""
    if hasattr(value, "getnnz"):  # a sparse matrix: its stored values
        value = value.data
    dtype = getattr(value, "dtype", None)
    if dtype is None or np.dtype(dtype).kind not in "fc" or getattr(value, "size", 0) == 0:
        return False
    return not bool(np.all(np.isfinite(to_host(value))))


def nonempty(value: Any) -> bool:
    """True for an array with at least one element."""
    return getattr(value, "size", 0) > 0


def effective_strides(value: Any) -> tuple | None:
    """The strides of the dimensions longer than 1 (the others do not matter)."""
    if not isinstance(value, np.ndarray):
        return None
    return tuple(s for n, s in zip(value.shape, value.strides) if n > 1)


def garbage(shape: tuple, dtype: np.dtype) -> np.ndarray:
    """A buffer filled with values no correct kernel leaves in its output."""
    dtype = np.dtype(dtype)
    if dtype.kind in "fc":
        fill: Any = np.nan
    elif dtype.kind in "iu":
        fill = np.iinfo(dtype).max
    elif dtype.kind == "b":
        fill = True
    else:
        return np.empty(shape, dtype)
    return np.full(shape, fill, dtype)


def strided_garbage(ref: np.ndarray, steps: tuple[int, ...]) -> np.ndarray:
    """A garbage view of ``ref``'s shape whose inner dimensions step by ``steps``."""
    inner = steps[-ref.ndim:] if ref.ndim else ()
    pad = (1,) * (ref.ndim - len(inner)) + tuple(inner)
    big = garbage(tuple(n * abs(s) for n, s in zip(ref.shape, pad)), ref.dtype)
    return big[tuple(slice(None, None, s) for s in pad)]


def evaluate(var: Variable, memo: dict) -> Any:
    """The value of ``var`` from the values in ``memo`` (running ``perform`` on copies)."""
    stack = [var]
    while stack:
        top = stack[-1]
        if top in memo:
            stack.pop()
            continue
        if isinstance(top, Constant):
            memo[top] = top.data
            stack.pop()
            continue
        node = top.owner
        if node is None:
            raise KeyError(f"no value for {top}")
        missing = [v for v in node.inputs if v not in memo]
        if missing:
            stack.extend(missing)
            continue
        cells: list[list[Any]] = [[None] for _ in node.outputs]
        node.op.perform(node, [copy_value(memo[v]) for v in node.inputs], cells)
        for out, cell in zip(node.outputs, cells):
            memo[out] = cell[0]
        stack.pop()
    return memo[var]


__all__ = ["copy_value", "identical", "approx_equal", "replacement_equal", "is_valid",
           "type_mismatch", "has_non_finite", "nonempty",
           "effective_strides", "garbage", "strided_garbage", "evaluate"]
