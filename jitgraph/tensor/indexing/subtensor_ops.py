"""Indexing ops: basic (``Subtensor``), advanced (``AdvancedSubtensor1``, ``AdvancedSubtensor``) and
their in-place-update counterparts (``IncSubtensor``, ``AdvancedIncSubtensor1``,
``AdvancedIncSubtensor``). The user-facing functions are in
:mod:`jitgraph.tensor.indexing.subtensor`; how
an index is encoded (``idx_list``) and the shapes it gives are in
:mod:`jitgraph.tensor.indexing.index_encoding`.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.op import Op
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.core.conversion import as_tensor_variable, constant
from jitgraph.tensor.elementwise.elemwise import _fit_gradient
from jitgraph.tensor.indexing.index_encoding import (advanced_index_inputs,
                                                     advanced_output_broadcastable,
                                                     advanced_output_shape, as_index_scalar,
                                                     basic_output_broadcastable, build_index,
                                                     check_idx_list, idx_str, index_vars,
                                                     n_index_inputs, slice_length)
from jitgraph.tensor.core.type import TensorType
from jitgraph.tensor.elementwise.reduction import sum as tsum

__all__ = ["Subtensor", "AdvancedSubtensor1", "AdvancedSubtensor", "IncSubtensor",
           "AdvancedIncSubtensor1", "AdvancedIncSubtensor"]


# ---------------------------------------------------------------------------------------------
# What the ops share

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
        from jitgraph.tensor.core.basic import zeros_like

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
        self.idx_list = check_idx_list(idx_list, advanced=False)

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
        self.idx_list = check_idx_list(idx_list, advanced=advanced)
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
    from jitgraph.tensor.core.basic import zeros_like

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
    #: an integer input receives the gradient reaching the integer output (Theano's rule)
    grad_through_integer_outputs = True

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
        from jitgraph.tensor.core.basic import zeros_like

        x, ilist = inputs
        (gz,) = output_grads  # float, also for an integer x (grad_through_integer_outputs)
        return [AdvancedIncSubtensor1()(zeros_like(x, gz.dtype), gz, ilist), None]

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

class AdvancedSubtensor(_IndexedRead):
    """General NumPy indexing mixing int/bool arrays with ints, slices, new axes and an
    ellipsis (a copy)."""

    __props__ = ("idx_list",)

    def __init__(self, idx_list: Sequence[Any]) -> None:
        self.idx_list = check_idx_list(idx_list, advanced=True)

    def __str__(self) -> str:
        if all(e == "array" for e in self.idx_list):
            return "AdvancedSubtensor"  # as Theano prints it
        return f"AdvancedSubtensor{{{idx_str(self.idx_list)}}}"

    def make_node(self, x: Any, *index: Any) -> Apply:
        x = as_tensor_variable(x)
        inputs = advanced_index_inputs(self.idx_list, index, str(self))
        bcast = advanced_output_broadcastable(x, self.idx_list,
                                              index_vars(self.idx_list, inputs), str(self))
        return Apply(self, [x, *inputs], [TensorType(x.dtype, bcast).make_variable()])

    def _writer(self) -> type:
        return AdvancedIncSubtensor

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        return [advanced_output_shape(node, input_shapes)]


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
