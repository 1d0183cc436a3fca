"""Indexing ops: basic (``Subtensor``), advanced (``AdvancedSubtensor1``, ``AdvancedSubtensor``) and
their in-place-update counterparts (``IncSubtensor``, ``AdvancedIncSubtensor1``,
``AdvancedIncSubtensor``). The user-facing functions are in :mod:`jitgraph.tensor.subtensor`.

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
from jitgraph.graph.op import Op
from jitgraph.tensor import dtypes as dt
from jitgraph.tensor.conversion import as_tensor_variable, constant
from jitgraph.tensor.elemwise import _fit_gradient
from jitgraph.tensor.shape import (_add, _const_int, _dim, _eq, _floordiv, _is_pyint, _lt,
                                   _maximum, _minimum, _sub, _switch)
from jitgraph.tensor.type import TensorType

__all__ = ["Subtensor", "AdvancedSubtensor1", "AdvancedSubtensor", "IncSubtensor",
           "AdvancedIncSubtensor1", "AdvancedIncSubtensor"]

FULL_SLICE = ("slice", False, False, False)


# ---------------------------------------------------------------------------------------------
# The index encoding

def _check_idx_list(idx_list: Sequence[Any], advanced: bool) -> tuple:
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


def _reraise(op: Op, x: np.ndarray, index: tuple, exc: Exception) -> None:
    kind = IndexError if isinstance(exc, IndexError) else ValueError
    raise kind(f"{op}: {exc} (input shape {np.shape(x)}, index "
               f"{_describe_index(index)})") from None


def _describe_index(index: tuple) -> str:
    def one(e: Any) -> str:
        if isinstance(e, np.ndarray):
            return f"array{e.shape}" if e.ndim else str(e.item())
        if isinstance(e, slice):
            return ":".join("" if p is None else str(p) for p in (e.start, e.stop, e.step))
        if e is Ellipsis:
            return "..."
        return str(e)

    return "[" + ", ".join(one(e) for e in index) + "]"


def _sum_to_value(g: Variable, y: Variable) -> Variable:
    """The gradient ``g`` of the broadcast ``y`` summed back to ``y``'s type."""
    from jitgraph.tensor.reduction import sum as tsum

    g = as_tensor_variable(g)
    if g.ndim > y.ndim:
        g = tsum(g, axis=list(range(g.ndim - y.ndim)))
    return _fit_gradient(g, y)


def _check_value(y: Variable, sub_ndim: int, who: str) -> None:
    if y.ndim > sub_ndim:
        raise ValueError(f"{who}: the value {y} has {y.ndim} dimensions, more than the "
                         f"{sub_ndim} of the indexed subtensor")


def _as_target(x: np.ndarray, inplace: bool) -> np.ndarray:
    if inplace and x.flags.writeable:
        return x
    return x.copy()


def _increment(op: Op, out: np.ndarray, index: tuple, y: np.ndarray, setting: bool,
               accumulate: bool) -> None:
    """``out[index] = y`` or ``+= y``; ``accumulate`` adds once per repeated index."""
    y = np.asarray(y)
    if y.dtype != out.dtype:
        y = y.astype(out.dtype)
    try:
        if setting:
            out[index] = y
        elif accumulate:
            np.add.at(out, index, y)
        else:
            out[index] = out[index] + y
    except (IndexError, ValueError) as exc:
        _reraise(op, out, index, exc)


# ---------------------------------------------------------------------------------------------
# Basic indexing

class _IndexedRead(Op):
    """What Subtensor and AdvancedSubtensor share: ``x[index]`` and its gradient, which
    increments zeros at the same index with the matching update op (``_writer``)."""

    def _writer(self) -> type:
        raise NotImplementedError

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, *values = inputs
        index = build_index(self.idx_list, values)
        try:
            out = x[index]
        except (IndexError, ValueError) as exc:
            _reraise(self, x, index, exc)
        output_storage[0][0] = np.asarray(out)  # a scalar for an all-int index

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        from jitgraph.tensor.basic import zeros_like

        x, *index = inputs
        rest: list = [None] * len(index)
        if dt.is_discrete(x.dtype):
            return [None, *rest]
        gx = self._writer()(self.idx_list)(zeros_like(x), output_grads[0], *index)
        return [gx, *rest]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        return [None if eval_points[0] is None else self(eval_points[0], *inputs[1:])]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True]] + [[False]] * (len(node.inputs) - 1)


class Subtensor(_IndexedRead):
    """Basic indexing ``x[ints and slices]``: a view of ``x``."""

    __props__ = ("idx_list",)
    view_map = {0: [0]}

    def __init__(self, idx_list: Sequence[Any]) -> None:
        self.idx_list = _check_idx_list(idx_list, advanced=False)

    def __str__(self) -> str:
        return f"Subtensor{{{idx_str(self.idx_list)}}}"

    def make_node(self, x: Any, *index: Any) -> Apply:
        x = as_tensor_variable(x)
        if len(self.idx_list) > x.ndim:
            raise IndexError(f"{self}: too many indices for the {x.ndim}-d tensor {x}")
        inputs = [as_index_scalar(i, str(self)) for i in index]
        if len(inputs) != n_index_inputs(self.idx_list):
            raise TypeError(f"{self} expects {n_index_inputs(self.idx_list)} index inputs, got "
                            f"{len(inputs)}")
        bcast = basic_output_broadcastable(x, self.idx_list, index_vars(self.idx_list, inputs))
        return Apply(self, [x, *inputs], [TensorType(x.dtype, bcast).make_variable()])

    def _writer(self) -> type:
        return IncSubtensor

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        xshape = input_shapes[0]
        dims = []
        entries = index_vars(self.idx_list, node.inputs[1:])
        for d, (e, v) in enumerate(zip(self.idx_list, entries)):
            if isinstance(e, tuple):
                dims.append(slice_length(xshape[d], *v))
        dims.extend(xshape[len(self.idx_list):])
        return [tuple(dims)]


class _IndexedUpdate(Op):
    """What IncSubtensor and AdvancedIncSubtensor share: ``x`` with ``x[index]`` set to (or
    incremented by) ``y``, which broadcasts to the indexed shape; with ``inplace`` the result
    overwrites ``x``. Subclasses say which op reads the index and whether repeats accumulate."""

    _labels = ("IncSubtensor", "SetSubtensor")

    def _setup(self, idx_list: Sequence[Any], set_instead_of_inc: bool, inplace: bool,
               advanced: bool) -> None:
        self.idx_list = _check_idx_list(idx_list, advanced=advanced)
        self.set_instead_of_inc = bool(set_instead_of_inc)
        self.inplace = bool(inplace)
        if inplace:
            self.destroy_map = {0: [0]}

    def _reader(self) -> Op:
        """The op reading ``x[index]`` for this index structure."""
        raise NotImplementedError

    def _accumulates(self) -> bool:
        return False

    def __str__(self) -> str:
        # Theano's text: IncSubtensor{InplaceSet;int64::},
        # AdvancedIncSubtensor{inplace=False,  set_instead_of_inc=True}
        name = self._labels[0]
        if name == "IncSubtensor":
            mode = ("Inplace" if self.inplace else "") + ("Set" if self.set_instead_of_inc
                                                          else "Inc")
            return f"{name}{{{mode};{idx_str(self.idx_list)}}}"
        flags = f"inplace={self.inplace},  set_instead_of_inc={self.set_instead_of_inc}"
        if any(e != "array" for e in self.idx_list):
            flags += f";{idx_str(self.idx_list)}"
        return f"{name}{{{flags}}}"

    def make_node(self, x: Any, y: Any, *index: Any) -> Apply:
        x, y = as_tensor_variable(x), as_tensor_variable(y)
        sub = self._reader().make_node(x, *index)
        _check_value(y, sub.outputs[0].ndim, str(self))
        return Apply(self, [x, y, *sub.inputs[1:]], [x.type.make_variable()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, y, *values = inputs
        out = _as_target(x, self.inplace)
        _increment(self, out, build_index(self.idx_list, values), y, self.set_instead_of_inc,
                   accumulate=self._accumulates())
        output_storage[0][0] = out

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        x, y, *index = inputs
        (gz,) = output_grads
        rest: list = [None] * len(index)
        gx = gy = None
        if not dt.is_discrete(x.dtype):
            if self.set_instead_of_inc:
                # Overwritten positions receive no gradient from x.
                zero = constant(np.zeros((), dtype=gz.dtype))
                gx = type(self)(self.idx_list, set_instead_of_inc=True)(gz, zero, *index)
            else:
                gx = gz
        if not dt.is_discrete(y.dtype):
            gy = _sum_to_value(self._reader()(gz, *index), y)
        return [gx, gy, *rest]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        # Linear in (x, y) together: the same update applied to the tangents (never in place).
        return [_update_rop(self, inputs, eval_points)]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True], [True]] + [[False]] * (len(node.inputs) - 2)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        return [tuple(input_shapes[0])]


def _update_rop(op: Op, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]
                ) -> Variable | None:
    """R-op of ``x`` with ``x[index]`` set to / incremented by ``y``: the same update of the
    tangents (zeros for the one that does not move), by a non-inplace op."""
    from jitgraph.tensor.basic import zeros_like

    (x, y, *index), (vx, vy) = inputs, eval_points[:2]
    if vx is None and vy is None:
        return None
    update = type(op)(**{**{p: getattr(op, p) for p in op.__props__}, "inplace": False})
    return update(zeros_like(x) if vx is None else vx, zeros_like(y) if vy is None else vy,
                  *index)


class IncSubtensor(_IndexedUpdate):
    """``x`` with ``x[index]`` set to (or incremented by) ``y``, for a basic index."""

    __props__ = ("idx_list", "set_instead_of_inc", "inplace")

    def __init__(self, idx_list: Sequence[Any], set_instead_of_inc: bool = False,
                 inplace: bool = False) -> None:
        self._setup(idx_list, set_instead_of_inc, inplace, advanced=False)

    def _reader(self) -> Op:
        return Subtensor(self.idx_list)


# ---------------------------------------------------------------------------------------------
# Advanced indexing along axis 0 with an int vector

def _as_int_vector(ilist: Any, who: str) -> Variable:
    if isinstance(ilist, (list, tuple, np.ndarray)):
        ilist = constant(np.asarray(ilist, dtype="int64"))
    ilist = as_tensor_variable(ilist)
    if ilist.ndim != 1 or not dt.is_discrete(ilist.dtype) or ilist.dtype == "bool":
        raise TypeError(f"{who}: the index must be an integer vector, got {ilist} "
                        f"({ilist.type})")
    return ilist


class AdvancedSubtensor1(Op):
    """``x[ilist]`` for an int vector ``ilist`` (rows of ``x``; a copy)."""

    __props__ = ()

    def make_node(self, x: Any, ilist: Any) -> Apply:
        x = as_tensor_variable(x)
        ilist = _as_int_vector(ilist, str(self))
        if x.ndim == 0:
            raise IndexError(f"{self}: a 0-d tensor cannot be indexed by an array")
        bcast = (ilist.broadcastable[0],) + x.broadcastable[1:]
        return Apply(self, [x, ilist], [TensorType(x.dtype, bcast).make_variable()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, ilist = inputs
        try:
            output_storage[0][0] = np.take(x, ilist, axis=0)
        except IndexError as exc:
            _reraise(self, x, (ilist,), exc)

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        from jitgraph.tensor.basic import zeros_like

        x, ilist = inputs
        if dt.is_discrete(x.dtype):
            return [None, None]
        return [AdvancedIncSubtensor1()(zeros_like(x), output_grads[0], ilist), None]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        return [None if eval_points[0] is None else self(eval_points[0], inputs[1])]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True], [False]]

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        xshape, ishape = input_shapes
        return [(ishape[0], *xshape[1:])]


class AdvancedIncSubtensor1(Op):
    """``x`` with rows ``x[ilist]`` set to / incremented by ``y``; repeated indices accumulate
    when incrementing (the last write wins when setting, as in NumPy)."""

    __props__ = ("set_instead_of_inc", "inplace")

    def __init__(self, set_instead_of_inc: bool = False, inplace: bool = False) -> None:
        self.set_instead_of_inc = bool(set_instead_of_inc)
        self.inplace = bool(inplace)
        if inplace:
            self.destroy_map = {0: [0]}

    def __str__(self) -> str:
        # Theano's text: AdvancedIncSubtensor1{no_inplace,set}
        return (f"AdvancedIncSubtensor1{{{'inplace' if self.inplace else 'no_inplace'},"
                f"{'set' if self.set_instead_of_inc else 'inc'}}}")

    def make_node(self, x: Any, y: Any, ilist: Any) -> Apply:
        x, y = as_tensor_variable(x), as_tensor_variable(y)
        sub = AdvancedSubtensor1().make_node(x, ilist)
        _check_value(y, sub.outputs[0].ndim, str(self))
        return Apply(self, [x, y, sub.inputs[1]], [x.type.make_variable()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, y, ilist = inputs
        out = _as_target(x, self.inplace)
        _increment(self, out, (np.asarray(ilist),), y, self.set_instead_of_inc, accumulate=True)
        output_storage[0][0] = out

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        x, y, ilist = inputs
        (gz,) = output_grads
        gx = gy = None
        if not dt.is_discrete(x.dtype):
            if self.set_instead_of_inc:
                zero = constant(np.zeros((), dtype=gz.dtype))
                gx = AdvancedIncSubtensor1(set_instead_of_inc=True)(gz, zero, ilist)
            else:
                gx = gz
        if not dt.is_discrete(y.dtype):
            gy = _sum_to_value(AdvancedSubtensor1()(gz, ilist), y)
        return [gx, gy, None]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        return [_update_rop(self, inputs, eval_points)]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True], [True], [False]]

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        return [tuple(input_shapes[0])]


# ---------------------------------------------------------------------------------------------
# General advanced indexing

def _advanced_inputs(idx_list: tuple, index: Sequence[Any], who: str) -> list[Variable]:
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


class AdvancedSubtensor(_IndexedRead):
    """General NumPy indexing mixing int/bool arrays with ints, slices, new axes and an
    ellipsis (a copy)."""

    __props__ = ("idx_list",)

    def __init__(self, idx_list: Sequence[Any]) -> None:
        self.idx_list = _check_idx_list(idx_list, advanced=True)

    def __str__(self) -> str:
        if all(e == "array" for e in self.idx_list):
            return "AdvancedSubtensor"  # as Theano prints it
        return f"AdvancedSubtensor{{{idx_str(self.idx_list)}}}"

    def make_node(self, x: Any, *index: Any) -> Apply:
        x = as_tensor_variable(x)
        inputs = _advanced_inputs(self.idx_list, index, str(self))
        bcast = advanced_output_broadcastable(x, self.idx_list,
                                              index_vars(self.idx_list, inputs), str(self))
        return Apply(self, [x, *inputs], [TensorType(x.dtype, bcast).make_variable()])

    def _writer(self) -> type:
        return AdvancedIncSubtensor

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        return [_advanced_shape(node, input_shapes)]


def _advanced_shape(node: Apply, input_shapes: Sequence[Sequence[Any]]) -> tuple:
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


class AdvancedIncSubtensor(_IndexedUpdate):
    """``x`` with ``x[index]`` (general NumPy index) set to / incremented by ``y``.

    Repeated indices accumulate when incrementing unless ``ignore_duplicates``.
    """

    __props__ = ("idx_list", "set_instead_of_inc", "inplace", "ignore_duplicates")
    _labels = ("AdvancedIncSubtensor", "AdvancedSetSubtensor")

    def __init__(self, idx_list: Sequence[Any], set_instead_of_inc: bool = False,
                 inplace: bool = False, ignore_duplicates: bool = False) -> None:
        self._setup(idx_list, set_instead_of_inc, inplace, advanced=True)
        self.ignore_duplicates = bool(ignore_duplicates)

    def _reader(self) -> Op:
        return AdvancedSubtensor(self.idx_list)

    def _accumulates(self) -> bool:
        return not self.ignore_duplicates
