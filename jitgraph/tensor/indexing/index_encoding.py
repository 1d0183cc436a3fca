"""How an index is encoded in the indexing ops, and what it gives: the ``idx_list`` entries, the
index inputs they take, NumPy's index tuple at run time, and the output's broadcastable pattern
and shape. The ops are in :mod:`jitgraph.tensor.indexing.subtensor_ops`.

An op's ``idx_list`` records the structure of the index; the values are graph inputs (after ``x``,
and ``y`` for the increment ops), so ``x[i]`` for different ``i`` share one op. Entries:

* ``"int"``: an integer (one 0-d int input);
* ``("slice", has_start, has_stop, has_step)``: a slice (one 0-d int input per present bound);
* ``"array"``: an int or bool array (advanced indexing only; one input);
* ``None`` (new axis) and ``"..."`` (Ellipsis): advanced indexing only. Basic indexing adds new
  axes with a DimShuffle and expands ellipses, so that ``Subtensor`` stays a plain view.
"""

from __future__ import annotations

from typing import Any, Iterator, Sequence

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.core.conversion import as_tensor_variable, constant
from jitgraph.tensor.shaping.dims import (_add, _const_int, _dim, _eq, _floordiv, _is_pyint, _lt,
                                          _maximum, _minimum, _sub, _switch)

FULL_SLICE = ("slice", False, False, False)


# ---------------------------------------------------------------------------------------------
# The index encoding

def check_idx_list(idx_list: Sequence[Any], advanced: bool) -> tuple:
    out = []
    for e in idx_list:
        if e == "int" or (isinstance(e, tuple) and len(e) == 4 and e[0] == "slice"):
            out.append(e if e == "int" else ("slice", bool(e[1]), bool(e[2]), bool(e[3])))
        elif advanced and (e is None or e in ("array", "...")):
            out.append(e)
        else:
            raise ValueError(f"invalid index entry {e!r} for a "
                             f"{'advanced' if advanced else 'basic'} index")
    if advanced and out.count("...") > 1:
        raise ValueError("an index can only have a single ellipsis ('...')")
    return tuple(out)


def n_index_inputs(idx_list: Sequence[Any]) -> int:
    """The number of graph inputs the index entries take."""
    n = 0
    for e in idx_list:
        if e in ("int", "array"):
            n += 1
        elif isinstance(e, tuple):
            n += sum(e[1:])
    return n


def idx_str(idx_list: Sequence[Any]) -> str:
    """Theano's text for an index: ``int64`` per integer, ``int64:int64:`` per slice (a bound
    shows the index dtype, int64 as Theano converts indices), ``[]`` per array."""
    parts = []
    for e in idx_list:
        if e == "int":
            parts.append("int64")
        elif e == "array":
            parts.append("[]")
        elif e is None:
            parts.append("None")
        elif e == "...":
            parts.append("...")
        else:
            a, b, c = ("int64" if h else "" for h in e[1:])
            parts.append(f"{a}:{b}:{c}")
    return ", ".join(parts)


def build_index(idx_list: Sequence[Any], values: Sequence[Any]) -> tuple:
    """The NumPy index tuple for ``idx_list`` with the index inputs' ``values``."""
    it = iter(values)
    index: list[Any] = []
    for e in idx_list:
        if e == "int":
            index.append(int(next(it)))
        elif e == "array":
            index.append(np.asarray(next(it)))
        elif e is None:
            index.append(None)
        elif e == "...":
            index.append(Ellipsis)
        else:
            index.append(slice(*(int(next(it)) if h else None for h in e[1:])))
    return tuple(index)


def index_vars(idx_list: Sequence[Any], inputs: Sequence[Variable]) -> list[Any]:
    """Per entry: the input variable (int/array), a tuple of bound variables/None (slice), or
    the entry itself (None / '...')."""
    it = iter(inputs)
    out: list[Any] = []
    for e in idx_list:
        if e in ("int", "array"):
            out.append(next(it))
        elif isinstance(e, tuple):
            out.append(tuple(next(it) if h else None for h in e[1:]))
        else:
            out.append(e)
    return out


def as_index_scalar(v: Any, who: str) -> Variable:
    """An integer index or slice bound as a 0-d int variable (Python ints become int64)."""
    if _is_pyint(v):
        return constant(np.asarray(v, dtype="int64"))
    v = as_tensor_variable(v)
    if v.ndim != 0 or not dt.is_discrete(v.dtype) or v.dtype == "bool":
        raise TypeError(f"{who}: indices and slice bounds must be integer scalars, got {v} "
                        f"({v.type})")
    return v


def _slice_of_one_kept(bounds: Sequence[Any]) -> bool:
    """True if the slice, applied to a length-1 axis, provably keeps its one element."""
    consts = [None if b is None else _const_int(b) for b in bounds]
    if any(b is not None and c is None for b, c in zip(bounds, consts)):
        return False
    if consts[2] == 0:
        return False
    return len(range(1)[slice(*consts)]) == 1


def slice_length(n: Any, start: Any, stop: Any, step: Any) -> Any:
    """``len(range(n)[start:stop:step])`` on dims (Python ints or int64 scalars); None bounds."""
    start, stop, step = (None if b is None else _dim(b) for b in (start, stop, step))
    n = _dim(n)
    if all(b is None or _is_pyint(b) for b in (n, start, stop, step)):
        return len(range(n)[slice(start, stop, step)])
    if step is None:
        step = 1
    if _is_pyint(step):
        return _directed_length(n, start, stop, step, step > 0)
    pos = _directed_length(n, start, stop, step, True)
    neg = _directed_length(n, start, stop, step, False)
    return _switch(_lt(0, step), pos, neg)


def _directed_length(n: Any, start: Any, stop: Any, step: Any, positive: bool) -> Any:
    def wrap(i: Any) -> Any:  # a negative bound counts from the end
        return _switch(_lt(i, 0), _add(i, n), i)

    def clip(i: Any, lo: Any, hi: Any) -> Any:
        return _minimum(_maximum(i, lo), hi)

    if positive:
        first = 0 if start is None else clip(wrap(start), 0, n)
        last = n if stop is None else clip(wrap(stop), 0, n)
        span, stride = _sub(last, first), step
    else:
        first = _sub(n, 1) if start is None else clip(wrap(start), -1, _sub(n, 1))
        last = -1 if stop is None else clip(wrap(stop), -1, _sub(n, 1))
        span, stride = _sub(first, last), _sub(0, step)
    # ceil(span / stride) for stride > 0
    return _maximum(0, _floordiv(_add(span, _sub(stride, 1)), stride))


def basic_output_broadcastable(x: Variable, idx_list: Sequence[Any],
                               entries: Sequence[Any]) -> tuple[bool, ...]:
    """Broadcastable pattern of ``x[index]`` for a basic (int/slice) index."""
    bcast = []
    for d, (e, v) in enumerate(zip(idx_list, entries)):
        if isinstance(e, tuple):
            bcast.append(x.broadcastable[d] and _slice_of_one_kept(v))
    return tuple(bcast) + x.broadcastable[len(idx_list):]


def advanced_output_broadcastable(x: Variable, idx_list: Sequence[Any],
                                  entries: Sequence[Any], who: str) -> tuple[bool, ...]:
    """Broadcastable pattern of ``x[index]`` under NumPy's advanced-indexing rules.

    The advanced indices (arrays, and ints when an array is present) broadcast together; their
    dims replace the first advanced entry when all advanced entries are adjacent in the index,
    and go first otherwise.
    """
    has_array = "array" in idx_list
    consumed = 0
    for e, v in zip(idx_list, entries):
        if e == "array":
            consumed += v.ndim if v.dtype == "bool" else 1
        elif e == "int" or isinstance(e, tuple):
            consumed += 1
    if consumed > x.ndim:
        raise IndexError(f"{who}: too many indices for a {x.ndim}-d tensor ({consumed} indexed)")
    parts: list[Any] = []  # bools, or the marker "ADV" where the advanced dims would go
    adv_patterns: list[tuple[bool, ...]] = []
    adv_positions: list[int] = []
    d = 0
    for pos, (e, v) in enumerate(zip(idx_list, entries)):
        if e is None:
            parts.append(True)
        elif e == "...":
            for _ in range(x.ndim - consumed):
                parts.append(x.broadcastable[d])
                d += 1
        elif isinstance(e, tuple):
            parts.append(x.broadcastable[d] and _slice_of_one_kept(v))
            d += 1
        elif e == "int" and not has_array:
            d += 1
        else:
            adv_positions.append(pos)
            parts.append("ADV")
            if e == "int":
                adv_patterns.append(())
                d += 1
            elif v.dtype == "bool":
                adv_patterns.append((False,))
                d += v.ndim
            else:
                adv_patterns.append(v.broadcastable)
                d += 1
    parts.extend(x.broadcastable[d:])
    if not adv_positions:
        return tuple(parts)
    nd = max(len(p) for p in adv_patterns)
    adv = tuple(all(p[len(p) - nd + k] for p in adv_patterns if len(p) - nd + k >= 0)
                for k in range(nd))
    adjacent = adv_positions[-1] - adv_positions[0] + 1 == len(adv_positions)
    out: list[bool] = [] if adjacent else list(adv)
    placed = False
    for p in parts:
        if p == "ADV":
            if adjacent and not placed:
                out.extend(adv)
                placed = True
        else:
            out.append(p)
    return tuple(out)


def advanced_index_inputs(idx_list: tuple, index: Sequence[Any], who: str) -> list[Variable]:
    if len(index) != n_index_inputs(idx_list):
        raise TypeError(f"{who} expects {n_index_inputs(idx_list)} index inputs, got "
                        f"{len(index)}")
    it: Iterator[Any] = iter(index)
    inputs: list[Variable] = []
    for e in idx_list:
        if e == "array":
            arr = next(it)
            if isinstance(arr, (list, tuple, np.ndarray)):
                arr = constant(np.asarray(arr))
            arr = as_tensor_variable(arr)
            if not dt.is_discrete(arr.dtype):
                raise IndexError(f"{who}: arrays used as indices must be of integer or boolean "
                                 f"type, got {arr} ({arr.type})")
            if arr.dtype == "bool" and arr.ndim == 0:
                raise TypeError(f"{who}: 0-d boolean indices are not supported")
            inputs.append(arr)
        elif e == "int":
            inputs.append(as_index_scalar(next(it), who))
        elif isinstance(e, tuple):
            inputs.extend(as_index_scalar(next(it), who) for _ in range(sum(e[1:])))
    return inputs


def advanced_output_shape(node: Apply, input_shapes: Sequence[Sequence[Any]]) -> tuple:
    """The output shape of an AdvancedSubtensor node, mirroring advanced_output_broadcastable."""
    idx_list = node.op.idx_list
    x = node.inputs[0]
    xshape = list(input_shapes[0])
    entries = index_vars(idx_list, node.inputs[1:])
    shapes = iter(input_shapes[1:])
    entry_shapes = []
    for e in idx_list:
        if e in ("int", "array"):
            entry_shapes.append(next(shapes))
        elif isinstance(e, tuple):
            entry_shapes.append([next(shapes) for _ in range(sum(e[1:]))])
        else:
            entry_shapes.append(None)
    has_array = "array" in idx_list
    consumed = 0
    for e, v in zip(idx_list, entries):
        if e == "array":
            if v.dtype == "bool":
                # The length of a mask's result depends on its values, not on shapes.
                raise NotImplementedError("the shape of a boolean-mask index is data dependent")
            consumed += 1
        elif e == "int" or isinstance(e, tuple):
            consumed += 1
    parts: list[Any] = []
    adv_shapes: list[Sequence[Any]] = []
    adv_positions = []
    d = 0
    for pos, (e, v, s) in enumerate(zip(idx_list, entries, entry_shapes)):
        if e is None:
            parts.append(1)
        elif e == "...":
            for _ in range(x.ndim - consumed):
                parts.append(xshape[d])
                d += 1
        elif isinstance(e, tuple):
            parts.append(slice_length(xshape[d], *v))
            d += 1
        elif e == "int" and not has_array:
            d += 1
        else:
            adv_positions.append(pos)
            parts.append("ADV")
            adv_shapes.append(() if e == "int" else tuple(s))
            d += 1
    parts.extend(xshape[d:])
    if not adv_positions:
        return tuple(parts)
    nd = max(len(s) for s in adv_shapes)
    adv = []
    for k in range(nd):
        dim: Any = None
        for s in adv_shapes:
            j = len(s) - nd + k
            if j >= 0:
                # Valid broadcasting: each length is 1 or the common length (possibly 0).
                dim = s[j] if dim is None else _switch(_eq(dim, 1), s[j], dim)
        adv.append(dim)
    adjacent = adv_positions[-1] - adv_positions[0] + 1 == len(adv_positions)
    out: list[Any] = [] if adjacent else list(adv)
    placed = False
    for p in parts:
        if isinstance(p, str) and p == "ADV":
            if adjacent and not placed:
                out.extend(adv)
                placed = True
        else:
            out.append(p)
    return tuple(out)
