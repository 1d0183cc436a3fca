"""NumPy indexing on symbolic tensors (``x[...]``), ``set_subtensor`` and ``inc_subtensor``.

``getitem`` picks the op: basic indexing (ints, slices, ``None``, ``...``) gives a
:class:`Subtensor` view (plus a DimShuffle for new axes); an int vector on axis 0 gives
:class:`AdvancedSubtensor1`; any other use of int/bool arrays gives :class:`AdvancedSubtensor`.
The ops live in :mod:`jitgraph.tensor.indexing.subtensor_ops`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from jitgraph.graph.basic import Constant, Variable
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.core.conversion import _contains_variable, as_tensor_variable, constant
from jitgraph.tensor.shaping.dims import _is_pyint
from jitgraph.tensor.elementwise.elemwise import DimShuffle, _drop_augmented, dimshuffle
from jitgraph.tensor.indexing.index_encoding import FULL_SLICE, as_index_scalar
from jitgraph.tensor.shaping.shape import Reshape, _shape_dims, reshape, shape_padleft
from jitgraph.tensor.indexing.subtensor_ops import (AdvancedIncSubtensor, AdvancedIncSubtensor1,
                                           AdvancedSubtensor, AdvancedSubtensor1, IncSubtensor,
                                           Subtensor)
from jitgraph.tensor.core.basic import alloc

__all__ = [
    "getitem", "set_subtensor", "inc_subtensor", "Subtensor", "AdvancedSubtensor1",
    "AdvancedSubtensor", "IncSubtensor", "AdvancedIncSubtensor1", "AdvancedIncSubtensor",
    "advanced_subtensor1", "advanced_inc_subtensor1", "advanced_set_subtensor1",
    "NonIntegerIndexError",
]

_ARRAY = "array"


class NonIntegerIndexError(IndexError, TypeError):
    """An index array of a non-integer, non-boolean dtype. NumPy raises ``IndexError`` for it
    and Theano ``TypeError``; this error is both, so code written for either catches it."""


# ---------------------------------------------------------------------------------------------
# Parsing an index

def _bound(b: Any) -> Any:
    """A slice bound: None, a Python int, or a 0-d int variable."""
    if b is None or _is_pyint(b):
        return None if b is None else int(b)
    if isinstance(b, np.ndarray) and b.ndim == 0 and b.dtype.kind in "iu":
        return int(b)
    if isinstance(b, Variable):
        return as_index_scalar(b, "slice")
    raise TypeError(f"slice indices must be integers, None or integer scalars, got {b!r}")


def _entry(e: Any) -> Any:
    """One index entry as None, Ellipsis, int, slice, 0-d int variable or ("array", var)."""
    if e is None or e is Ellipsis:
        return e
    if isinstance(e, slice):
        step = _bound(e.step)
        if _is_pyint(step) and step == 0:
            raise ValueError("slice step cannot be zero")
        return slice(_bound(e.start), _bound(e.stop), step)
    if isinstance(e, (bool, np.bool_)):
        raise TypeError("a Python bool is not a valid tensor index; use a boolean tensor mask")
    if _is_pyint(e):
        return int(e)
    if isinstance(e, (list, tuple)) and _contains_variable(e):
        e = as_tensor_variable(e)
    if not isinstance(e, Variable):
        arr = np.asarray(e)
        if arr.size == 0 and arr.dtype.kind == "f":
            arr = arr.astype("int64")  # [] as an index means "no elements"
        if arr.dtype.kind not in "iub":
            raise NonIntegerIndexError(f"only integers, slices, None, Ellipsis and integer or "
                                       f"boolean arrays are valid indices, got {e!r}")
        if arr.ndim == 0 and arr.dtype.kind != "b":
            return int(arr)
        e = constant(arr.astype("int64") if arr.dtype.kind in "iu" else arr)
    e = as_tensor_variable(e)
    if not dt.is_discrete(e.dtype):
        raise NonIntegerIndexError(f"arrays used as indices must be of integer or boolean type, "
                                   f"got {e} ({e.type})")
    if e.ndim == 0 and e.dtype != "bool":
        return e
    if e.ndim == 0:
        raise TypeError("0-d boolean indices are not supported")
    return (_ARRAY, e)


def _consumed(entry: Any) -> int:
    if entry is None or entry is Ellipsis:
        return 0
    if isinstance(entry, tuple):
        return entry[1].ndim if entry[1].dtype == "bool" else 1
    return 1


def _known_length(x: Variable, axis: int) -> int | None:
    if x.broadcastable[axis]:
        return 1
    if isinstance(x, Constant):
        return int(x.data.shape[axis])
    return None


def _is_tuple_like_list(index: Any) -> bool:
    """A list holding a slice, ``None`` or ``...`` indexes one axis per entry, as a tuple does
    (Theano 1.0 and old NumPy; Keras' ``reverse`` indexes with such a list)."""
    return isinstance(index, list) and any(
        e is None or e is Ellipsis or isinstance(e, slice) for e in index)


def getitem(x: Any, index: Any) -> Variable:
    """``x[index]`` with NumPy semantics (the implementation of ``Variable.__getitem__``).

    Supports ints (negative too), slices with any (also symbolic) bounds and steps, ``None``,
    ``...``, integer arrays/lists/symbolic int tensors and boolean masks.
    """
    x = as_tensor_variable(x)
    raw = index if isinstance(index, tuple) or _is_tuple_like_list(index) else (index,)
    entries = [_entry(e) for e in raw]
    if sum(e is Ellipsis for e in entries) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    consumed = sum(_consumed(e) for e in entries)
    if consumed > x.ndim:
        raise IndexError(f"too many indices for tensor: {x} is {x.ndim}-dimensional, but "
                         f"{consumed} were indexed")
    if any(isinstance(e, tuple) for e in entries):
        return _advanced_getitem(x, entries)
    expanded: list[Any] = []
    for e in entries:
        if e is Ellipsis:
            expanded.extend([slice(None)] * (x.ndim - consumed))
        else:
            expanded.append(e)
    return _basic_getitem(x, expanded)


def _basic_getitem(x: Variable, entries: list[Any]) -> Variable:
    idx_list: list[Any] = []
    inputs: list[Variable] = []
    pattern: list[Any] = []  # DimShuffle of the Subtensor output that inserts the new axes
    out_dim = 0
    for e in entries:
        if e is None:
            pattern.append("x")
            continue
        axis = len(idx_list)
        if isinstance(e, slice):
            idx_list.append(("slice", e.start is not None, e.stop is not None,
                             e.step is not None))
            inputs.extend(as_index_scalar(b, "index") for b in (e.start, e.stop, e.step)
                          if b is not None)
            pattern.append(out_dim)
            out_dim += 1
        else:
            n = _known_length(x, axis)
            if _is_pyint(e) and n is not None and not -n <= e < n:
                raise IndexError(f"index {e} is out of bounds for axis {axis} with size {n} "
                                 f"({x}, {x.type})")
            idx_list.append("int")
            inputs.append(as_index_scalar(e, "index"))
    while idx_list and idx_list[-1] == FULL_SLICE:  # x[i, :] is x[i]
        idx_list.pop()
    # Even x[:] or x[()] makes a (trivial) Subtensor, so that set_subtensor(x[...], y) works.
    out = Subtensor(idx_list)(x, *inputs)
    rest = list(range(out_dim, out.ndim))
    if "x" in pattern:
        out = dimshuffle(out, pattern + rest)
    return out


def _advanced_getitem(x: Variable, entries: list[Any]) -> Variable:
    arrays = [e for e in entries if isinstance(e, tuple)]
    # x[ivec] (optionally followed by full slices / an ellipsis) is the common fast case.
    rest = entries[1:]
    if (len(arrays) == 1 and entries[0] is arrays[0] and arrays[0][1].ndim == 1
            and arrays[0][1].dtype != "bool"
            and all(e is Ellipsis or (isinstance(e, slice) and e == slice(None)) for e in rest)):
        return AdvancedSubtensor1()(x, arrays[0][1])
    idx_list, inputs = advanced_index(entries)
    if any(a[1].dtype == "bool" for a in arrays):
        from jitgraph.tensor.indexing.boolean_index import AdvancedBooleanSubtensor

        return AdvancedBooleanSubtensor(idx_list)(x, *inputs)
    return AdvancedSubtensor(idx_list)(x, *inputs)


def advanced_index(entries: list[Any]) -> tuple[list[Any], list[Variable]]:
    """The ``idx_list`` and index inputs of parsed index entries (see :func:`_entry`)."""
    idx_list: list[Any] = []
    inputs: list[Variable] = []
    for e in entries:
        if e is None:
            idx_list.append(None)
        elif e is Ellipsis:
            idx_list.append("...")
        elif isinstance(e, tuple):
            idx_list.append(_ARRAY)
            inputs.append(e[1])
        elif isinstance(e, slice):
            idx_list.append(("slice", e.start is not None, e.stop is not None,
                             e.step is not None))
            inputs.extend(as_index_scalar(b, "index") for b in (e.start, e.stop, e.step)
                          if b is not None)
        else:
            idx_list.append("int")
            inputs.append(as_index_scalar(e, "index"))
    return idx_list, inputs


# ---------------------------------------------------------------------------------------------
# set_subtensor / inc_subtensor

def set_subtensor(x: Any, y: Any, inplace: bool = False,
                  tolerate_inplace_aliasing: bool = False) -> Variable:
    """The tensor that ``x`` was indexed from, with the indexed part replaced by ``y``.

    ``x`` must be the result of indexing (``set_subtensor(a[1:, 0], y)``); ``y`` broadcasts to
    ``x``'s shape.
    """
    return inc_subtensor(x, y, inplace, set_instead_of_inc=True,
                         tolerate_inplace_aliasing=tolerate_inplace_aliasing)


def inc_subtensor(x: Any, y: Any, inplace: bool = False, set_instead_of_inc: bool = False,
                  tolerate_inplace_aliasing: bool = False,
                  ignore_duplicates: bool = False) -> Variable:
    """The tensor that ``x`` was indexed from, with ``y`` added to the indexed part.

    ``x`` must be the result of indexing (``inc_subtensor(a[idx], y)``); ``y`` broadcasts to
    ``x``'s shape. Repeated indices in an advanced index add once per occurrence (like
    ``numpy.add.at``) unless ``ignore_duplicates``.
    """
    x = as_tensor_variable(x)
    y = as_tensor_variable(y)
    who = "set_subtensor" if set_instead_of_inc else "inc_subtensor"
    if y.ndim > x.ndim:
        raise TypeError(f"{who}: trying to {'set' if set_instead_of_inc else 'increment'} a "
                        f"{x.ndim}-dimensional subtensor with a {y.ndim}-dimensional value")
    node = x.owner
    op = None if node is None else node.op
    if isinstance(op, Subtensor):
        return IncSubtensor(op.idx_list, set_instead_of_inc, inplace)(
            node.inputs[0], y, *node.inputs[1:])
    if isinstance(op, AdvancedSubtensor1):
        if ignore_duplicates and not set_instead_of_inc:
            return AdvancedIncSubtensor([_ARRAY], False, inplace, True)(
                node.inputs[0], y, node.inputs[1])
        return AdvancedIncSubtensor1(set_instead_of_inc, inplace)(node.inputs[0], y,
                                                                 node.inputs[1])
    if isinstance(op, AdvancedSubtensor):
        return op._writer()(op.idx_list, set_instead_of_inc, inplace,
                            ignore_duplicates)(node.inputs[0], y, *node.inputs[1:])
    if isinstance(op, DimShuffle):
        # x is a view of an indexed tensor with axes reordered/inserted/dropped: map y back.
        inner = node.inputs[0]
        y_full = shape_padleft(y, x.ndim - y.ndim)
        y_kept = _drop_augmented(y_full, op.augment)
        order = [op.shuffle.index(d) if d in op.shuffle else "x" for d in range(inner.ndim)]
        return inc_subtensor(inner, dimshuffle(y_kept, order), inplace, set_instead_of_inc,
                             tolerate_inplace_aliasing, ignore_duplicates)
    if isinstance(op, Reshape):
        inner = node.inputs[0]
        y_inner = reshape(alloc(y, *_shape_dims(x)), _shape_dims(inner), ndim=inner.ndim)
        return inc_subtensor(inner, y_inner, inplace, set_instead_of_inc,
                             tolerate_inplace_aliasing, ignore_duplicates)
    made_by = "a graph input" if node is None else str(op)
    raise TypeError(f"{who}: x must be the result of indexing a tensor (e.g. a[1:, idx]), but "
                    f"{x} is {made_by}")


# Theano's function-style names for the axis-0 advanced ops.

def advanced_subtensor1(x: Any, ilist: Any) -> Variable:
    """``x[ilist]`` for an int vector ``ilist``."""
    return AdvancedSubtensor1()(x, ilist)


def advanced_inc_subtensor1(x: Any, y: Any, ilist: Any) -> Variable:
    """``x`` with ``y`` added to the rows ``ilist`` (repeats accumulate)."""
    return AdvancedIncSubtensor1()(x, y, ilist)


def advanced_set_subtensor1(x: Any, y: Any, ilist: Any) -> Variable:
    """``x`` with the rows ``ilist`` set to ``y``."""
    return AdvancedIncSubtensor1(set_instead_of_inc=True)(x, y, ilist)
