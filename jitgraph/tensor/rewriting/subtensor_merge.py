"""Merging consecutive basic indexing: ``x[s1][s2]`` -> one ``Subtensor`` ``x[s]``.

One view instead of two (one node fewer, and the later rewrites see the whole index). The merge
is done per axis of ``x``, and only where it is exact for every length of that axis; anything
else leaves the graph alone:

* an axis the first index takes an integer of keeps that integer (the second index does not see
  the axis);
* where one of the two entries keeps the whole axis (absent, ``:``, ``0::1``), the other entry
  is used as it is, symbolic bounds and integers included;
* two slices are composed only when all their bounds are constants, every start and stop is
  non-negative (or absent) and every step positive (or absent). Then, with ``a1:b1:c1``
  followed by ``a2:b2:c2``, the result is ``a1 + c1*a2 : min(b1, a1 + c1*b2) : c1*c2``: the
  element ``k`` of ``x[a1:b1:c1]`` is ``x[a1 + c1*k]`` and ``k < len`` exactly when
  ``a1 + c1*k < min(b1, len(x))``, so NumPy's clamping of the merged stop to ``len(x)`` gives
  the same elements (and an empty result where the first slice is empty).

Negative bounds or steps, symbolic bounds on both sides and an integer taken from a proper slice
are not merged: their result depends on the axis length (or must keep an out-of-range error),
which a constant index cannot express.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.fg import FunctionGraph
from jitgraph.rewrite.context import copy_stack_trace
from jitgraph.rewrite.engine import node_rewriter
from jitgraph.rewrite.phases import register_canonicalize
from jitgraph.tensor.indexing.index_encoding import index_vars
from jitgraph.tensor.indexing.subtensor_ops import Subtensor
from jitgraph.tensor.rewriting.utils import broadcast_like, get_constant

__all__ = ["local_subtensor_merge", "compose_slices"]

_INT64_MAX = int(np.iinfo(np.int64).max)

#: an entry that keeps a whole axis: a slice with no bounds
_WHOLE = (None, None, None)


def _value(bound: Variable | None) -> int | None:
    """The Python int of a constant bound (None if absent); raises LookupError if symbolic."""
    if bound is None:
        return None
    c = get_constant(bound)
    if c is None:
        raise LookupError(bound)
    return int(c)


def _keeps_whole_axis(entry: Any) -> bool:
    """A slice entry whose bounds are absent or the defaults (start 0, step 1)."""
    if not isinstance(entry, tuple):
        return False
    start, stop, step = entry
    return (stop is None and (start is None or get_constant(start) == 0)
            and (step is None or get_constant(step) == 1))


def compose_slices(first: tuple, second: tuple) -> tuple | None:
    """``(start, stop, step)`` of Python ints/None with ``seq[slice(*first)][slice(*second)]
    == seq[slice(*result)]`` for every sequence, or None where that needs the length.

    Only non-negative starts and stops and positive steps are composed (see the module doc).
    """
    if any(b is not None and b < 0 for b in first[:2] + second[:2]):
        return None
    if any(s is not None and s <= 0 for s in (first[2], second[2])):
        return None
    a1, b1, c1 = first[0] or 0, first[1], first[2] or 1
    a2, b2, c2 = second[0] or 0, second[1], second[2] or 1
    start = min(a1 + c1 * a2, _INT64_MAX)
    stops = [b for b in (b1, None if b2 is None else a1 + c1 * b2) if b is not None]
    stop = min(stops) if stops else None
    if stop is not None and stop > _INT64_MAX:
        stop = None  # past any axis length: the same as no stop
    step = c1 * c2
    if step > _INT64_MAX:
        return None
    return start, stop, step


def _merge_entry(first: Any, second: Any) -> Any:
    """The merged entry of one axis (a variable for an integer, a bounds tuple for a slice), or
    None where the merge is not known to be exact."""
    if _keeps_whole_axis(first):
        return second
    if _keeps_whole_axis(second):
        return first
    if not isinstance(second, tuple):
        return None  # an integer out of a proper slice: its range check would be lost
    try:
        ints = compose_slices(tuple(map(_value, first)), tuple(map(_value, second)))
    except LookupError:
        return None
    return ints


def _merged_index(node: Apply, inner: Apply) -> list[Any] | None:
    """Per axis of the inner input: the merged entry, or None if some axis cannot merge."""
    x = inner.inputs[0]
    first = index_vars(inner.op.idx_list, inner.inputs[1:])
    first += [_WHOLE] * (x.ndim - len(first))
    second = iter(index_vars(node.op.idx_list, node.inputs[1:]))
    merged: list[Any] = []
    for entry in first:
        if not isinstance(entry, tuple):
            merged.append(entry)  # the axis is gone from the inner result
            continue
        entry2 = next(second, _WHOLE)
        m = _merge_entry(entry, entry2)
        if m is None:
            return None
        merged.append(m)
    return merged


def _as_subtensor(x: Variable, merged: list[Any]) -> Variable:
    """``x[merged]`` as one Subtensor; bounds that are ints become constants."""
    while merged and merged[-1] == _WHOLE:
        merged.pop()
    idx_list: list[Any] = []
    inputs: list[Any] = []
    for entry in merged:
        if isinstance(entry, tuple):
            idx_list.append(("slice",) + tuple(b is not None for b in entry))
            inputs.extend(b for b in entry if b is not None)
        else:
            idx_list.append("int")
            inputs.append(entry)
    return Subtensor(idx_list)(x, *inputs)


@register_canonicalize
@node_rewriter([Subtensor])
def local_subtensor_merge(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """``x[s1][s2]`` -> ``x[s]`` where the per-axis merge is exact (module doc)."""
    inner = node.inputs[0].owner
    if inner is None or not isinstance(inner.op, Subtensor):
        return None
    merged = _merged_index(node, inner)
    if merged is None:
        return None
    new = _as_subtensor(inner.inputs[0], merged)
    copy_stack_trace([node.outputs[0], node.inputs[0]], new)
    return [broadcast_like(new, node.outputs[0], fgraph)]
