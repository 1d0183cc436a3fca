"""Theano 1.0's indexing helpers from ``theano.tensor.subtensor`` (exported by
``theano.tensor``): ``as_index_variable``, ``make_constant``, ``get_idx_list``,
``get_canonical_form_slice``, ``adv_index_broadcastable_pattern``,
``check_advanced_indexing_dimensions``, ``ceil_intdiv`` and the ``SubtensorPrinter``."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from jitgraph.graph.basic import Variable
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.core.conversion import as_tensor_variable, constant
from jitgraph.tensor.shaping.dims import _const_int, _is_pyint
from jitgraph.tensor.printing.pprint_rules import SubtensorPrinter
from jitgraph.tensor.core.type_other import NoneConst, NoneTypeT, SliceType, make_slice
from jitgraph.tensor.elementwise import math
from jitgraph.tensor.indexing.boolean_index import _plain_entry
from jitgraph.tensor.indexing.index_encoding import index_vars, n_index_inputs
from jitgraph.tensor.indexing.subtensor import getitem

__all__ = ["as_index_variable", "make_constant", "get_idx_list", "get_canonical_form_slice",
           "adv_index_broadcastable_pattern", "check_advanced_indexing_dimensions",
           "ceil_intdiv", "SubtensorPrinter"]


def as_index_variable(idx: Any) -> Variable:
    """One index entry as a variable: ``None`` -> ``NoneConst``, a slice -> a ``make_slice``
    variable, anything else -> an integer or boolean tensor."""
    if idx is None:
        return NoneConst
    if isinstance(idx, slice):
        return make_slice(idx)
    if isinstance(idx, Variable) and isinstance(idx.type, (SliceType, NoneTypeT)):
        return idx
    v = as_tensor_variable(idx)
    if not dt.is_discrete(v.dtype):
        raise TypeError(f"as_index_variable: an index must hold integers or be a boolean mask, "
                        f"got {v} ({v.type})")
    return v


def make_constant(args: Sequence[Any]) -> tuple:
    """The index ``args`` with its Python ints (also inside slices) as int64 constants."""
    def convert(a: Any) -> Any:
        if isinstance(a, slice):
            return slice(convert(a.start), convert(a.stop), convert(a.step))
        if _is_pyint(a):
            return constant(np.asarray(a, dtype="int64"))
        return a

    return tuple(convert(a) for a in args)


def get_idx_list(inputs: Sequence[Any], idx_list: Sequence[Any],
                 get_count: bool = False) -> Any:
    """The index of an indexing node as a tuple of its input variables: ``inputs`` are the
    node's inputs (the indexed tensor first), ``idx_list`` its op's ``idx_list``. Ints and
    arrays become their inputs, slices ``slice(start, stop, step)`` of inputs or None.
    With ``get_count``: the number of index inputs instead."""
    if get_count:
        return n_index_inputs(idx_list)
    values = list(inputs[1:])
    needed = n_index_inputs(idx_list)
    if len(values) < needed:
        raise ValueError(f"get_idx_list: idx_list needs {needed} index inputs after the "
                         f"indexed tensor, got {len(values)}")
    out = []
    for e, v in zip(idx_list, index_vars(idx_list, values[len(values) - needed:])):
        if isinstance(e, tuple):
            out.append(slice(*v))
        elif e == "...":
            out.append(Ellipsis)
        else:
            out.append(v)
    return tuple(out)


# ---------------------------------------------------------------------------------------------
# Canonical slices

def _ops() -> Any:
    return math


def _int64(v: Any) -> Any:
    """A Python int, or an int64 variable."""
    if _is_pyint(v):
        return int(v)
    v = as_tensor_variable(v)
    if v.ndim != 0 or not dt.is_discrete(v.dtype) or v.dtype == "bool":
        raise TypeError(f"get_canonical_form_slice: expected an integer scalar, got {v} "
                        f"({v.type})")
    return v if v.dtype == "int64" else _ops().cast(v, "int64")


def _all_ints(*vs: Any) -> bool:
    return all(v is None or _is_pyint(v) for v in vs)


def _canonical_ints(sl: slice, length: int) -> tuple[slice, int]:
    start, stop, step = sl.indices(length)
    if step > 0:
        return slice(start, max(start, stop), step), 1
    count = len(range(start, stop, step))
    if count == 0:
        return slice(0, 0, -step), -1
    return slice(start + (count - 1) * step, start + 1, -step), -1


def _clamp(v: Any, lo: Any, hi: Any) -> Any:
    m = _ops()
    return m.minimum(m.maximum(v, lo), hi)


def _wrapped(v: Any, length: Any) -> Any:
    m = _ops()
    return m.switch(m.lt(v, 0), v + length, v)


def _canonical_symbolic(sl: slice, length: Any, step: Any, negative: bool) -> tuple[Any, Any]:
    """``(start, stop)`` of the increasing slice (step ``|step|``) over the same entries."""
    m = _ops()
    if not negative:
        start = 0 if sl.start is None else _clamp(_wrapped(_int64(sl.start), length), 0, length)
        stop = length if sl.stop is None else _clamp(_wrapped(_int64(sl.stop), length), 0,
                                                     length)
        return start, m.maximum(stop, start)
    last = length - 1
    first = last if sl.start is None else _clamp(_wrapped(_int64(sl.start), length), -1, last)
    end = -1 if sl.stop is None else _clamp(_wrapped(_int64(sl.stop), length), -1, last)
    size = -step
    count = m.maximum(m.int_div(first - end + size - 1, size), 0)
    empty = m.eq(count, 0)
    return (m.switch(empty, 0, first - (count - 1) * size), m.switch(empty, 0, first + 1))


def get_canonical_form_slice(theslice: Any, length: Any) -> tuple[Any, Any]:
    """``(canonical, direction)`` for an index entry on an axis of length ``length``.

    For a slice: ``canonical`` is a slice with a positive step over the same entries and
    ``direction`` is 1, or -1 when the original step was negative (the entries then come in
    reverse order: ``x[theslice] == x[canonical][::-1]``). For an int: the non-negative index
    and 1. Python ints give Python ints; symbolic ones give int64 variables.
    """
    if isinstance(theslice, Variable) and isinstance(theslice.type, SliceType):
        theslice = _plain_entry(theslice)
    if not isinstance(theslice, slice):
        index = _int64(theslice)
        if _is_pyint(index) and _is_pyint(length):
            return (index + length if index < 0 else index), 1
        return _wrapped(index, _int64(length)), 1
    step = 1 if theslice.step is None else theslice.step
    known_step = _const_int(step) if not _is_pyint(step) else int(step)
    if known_step == 0:
        raise ValueError("get_canonical_form_slice: slice step cannot be zero")
    if _all_ints(theslice.start, theslice.stop, step) and _is_pyint(length):
        return _canonical_ints(slice(theslice.start, theslice.stop, step), int(length))
    length = _int64(length)
    if known_step is not None:
        start, stop = _canonical_symbolic(theslice, length, known_step, known_step < 0)
        return slice(start, stop, abs(known_step)), (1 if known_step > 0 else -1)
    # a step whose sign is only known at run time: both forms, chosen by the sign
    m = _ops()
    step = _int64(step)
    up = _canonical_symbolic(theslice, length, step, False)
    down = _canonical_symbolic(theslice, length, step, True)
    negative = m.lt(step, 0)
    return (slice(m.switch(negative, down[0], up[0]), m.switch(negative, down[1], up[1]),
                  m.abs(step)), m.sgn(step))


# ---------------------------------------------------------------------------------------------
# Advanced-index checks

def adv_index_broadcastable_pattern(a: Any, idx: Sequence[Any]) -> tuple[bool, ...]:
    """The broadcastable pattern of ``a[idx]`` for an advanced index ``idx`` (tensors, slices
    as Python or ``make_slice`` ones, None)."""
    return getitem(as_tensor_variable(a), tuple(_plain_entry(e) for e in idx)).broadcastable


def _static_shape(x: Any) -> tuple[int | None, ...]:
    if isinstance(x, np.ndarray):
        return x.shape
    x = as_tensor_variable(x)
    data = getattr(x, "data", None)
    if isinstance(data, np.ndarray):
        return data.shape
    return tuple(1 if b else None for b in x.broadcastable)


def check_advanced_indexing_dimensions(input: Any, idx_list: Sequence[Any]) -> None:
    """Raise :class:`IndexError` if a boolean mask in ``idx_list`` does not match the axes of
    ``input`` it covers (NumPy arrays are checked fully, symbolic ones where their lengths are
    known when the graph is built)."""
    in_shape = _static_shape(input)
    axis = 0
    for entry in idx_list:
        if entry is None or (isinstance(entry, Variable) and isinstance(entry.type, NoneTypeT)):
            continue
        is_mask = (isinstance(entry, np.ndarray) and entry.dtype == bool) or \
            (isinstance(entry, Variable) and getattr(entry.type, "dtype", None) == "bool")
        if not is_mask:
            axis += 1
            continue
        for k, n in enumerate(_static_shape(entry)):
            have = in_shape[axis + k] if axis + k < len(in_shape) else None
            if n is not None and have is not None and n != have:
                raise IndexError(f"boolean index did not match the indexed array along axis "
                                 f"{axis + k}: the axis has length {have} but the boolean "
                                 f"index has length {n}")
        axis += np.ndim(entry) if isinstance(entry, np.ndarray) else entry.ndim


def ceil_intdiv(a: Any, b: Any) -> Variable:
    """``ceil(a / b)`` for integers, computed in integers (safe for large values)."""
    m = _ops()
    a, b = as_tensor_variable(a), as_tensor_variable(b)
    quotient = m.int_div(a, b)
    return quotient + m.cast(m.neq(a % b, 0), quotient.dtype)
