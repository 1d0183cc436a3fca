"""Shape, view and indexing ops on the GPU through CuPy array methods ("Py" thunks: host code
driving the device; views move no data).

Index scalars, slice bounds and shape vectors stay on the host; integer index arrays live on the
device. Out-of-range integer indices raise ``IndexError`` as in NumPy (CuPy would wrap them), at
the cost of reading their minimum and maximum back. ``inc_subtensor`` with repeated advanced
indices accumulates (``cupyx.scatter_add``); ``set_subtensor`` with repeated indices keeps one of
the values, which one being unspecified on the GPU (NumPy keeps the last).
"""

from __future__ import annotations

import importlib
from typing import Any, Sequence

import numpy as np

from jitgraph.tensor.core import basic as TB
from jitgraph.tensor.indexing import subtensor_ops as SO
from jitgraph.tensor.elementwise.elemwise import DimShuffle

from jitgraph.backend_gpu.cuda_types import Unsupported
from jitgraph.backend_gpu.registry import (PY, Lowered, all_device, check_dtypes_of,
                                           first_on_device, register)
from jitgraph.backend_gpu.device import import_cupy

# (not "from jitgraph.tensor import shape": the package re-exports the function shape())
TS = importlib.import_module("jitgraph.tensor.shaping.shape")

_SCATTER_DTYPES = ("float32", "float64", "int32", "uint32", "uint64")


def _cp() -> Any:
    return import_cupy()


def _simple(fn: Any) -> Any:
    """A thunk factory applying ``fn(*input values) -> output value``."""

    def make(in_cells: list, out_cells: list) -> Any:
        (out_cell,) = out_cells

        def thunk() -> None:
            out_cell[0] = fn(*[c[0] for c in in_cells])

        return thunk

    return make


# -- views and shapes -------------------------------------------------------------------------

@register(DimShuffle)
def lower_dimshuffle(op: DimShuffle, node: Any, ctx: Any) -> Lowered:
    perm = op.shuffle + op.drop

    def fn(x: Any) -> Any:
        res = x.transpose(perm)
        shape = list(res.shape[:len(op.shuffle)])
        for i in op.augment:
            shape.insert(i, 1)
        return res.reshape(tuple(shape))

    return Lowered(PY, _simple(fn))


def _shape_placement(node: Any) -> tuple[tuple[bool, ...], tuple[bool, ...]]:
    return (True,), (False,)


@register(TS.Shape, placement=_shape_placement)
def lower_shape(op: Any, node: Any, ctx: Any) -> Lowered:
    return Lowered(PY, _simple(lambda x: np.asarray(x.shape, dtype="int64")))


@register(TS.Shape_i, placement=_shape_placement)
def lower_shape_i(op: Any, node: Any, ctx: Any) -> Lowered:
    return Lowered(PY, _simple(lambda x: np.asarray(x.shape[op.i], dtype="int64")))


@register(TS.Reshape, placement=first_on_device)
def lower_reshape(op: Any, node: Any, ctx: Any) -> Lowered:
    def fn(x: Any, shp: Any) -> Any:
        requested = tuple(int(s) for s in shp)
        if len(requested) != op.ndim:
            raise ValueError(f"{op}: the shape vector {requested} has {len(requested)} "
                             f"entries, expected {op.ndim}")
        try:
            return x.reshape(requested)
        except ValueError as exc:
            raise ValueError(f"{op}: cannot reshape an input of shape {x.shape} ({x.size} "
                             f"elements) into the requested shape {requested}: {exc}") from None

    return Lowered(PY, _simple(fn))


@register(TS.SpecifyShape, placement=first_on_device)
def lower_specify_shape(op: Any, node: Any, ctx: Any) -> Lowered:
    def fn(x: Any, *dims: Any) -> Any:
        it = iter(dims)
        for axis, k in enumerate(op.known):
            if k:
                expected = int(next(it))
                if x.shape[axis] != expected:
                    raise TS.SpecifyShapeError(
                        f"{op}: dimension {axis} of the input has length {x.shape[axis]}, "
                        f"expected {expected} (input shape {x.shape})")
        return x

    return Lowered(PY, _simple(fn))


@register(TS.Unbroadcast)
def lower_unbroadcast(op: Any, node: Any, ctx: Any) -> Lowered:
    return Lowered(PY, _simple(lambda x: x))


@register(TB.Alloc, placement=first_on_device)
def lower_alloc(op: Any, node: Any, ctx: Any) -> Lowered:
    dtype = node.outputs[0].type.dtype

    def fn(value: Any, *shape: Any) -> Any:
        shape = tuple(int(s) for s in shape)
        if any(s < 0 for s in shape):
            raise ValueError(f"Alloc: negative dimension in the requested shape {shape}")
        try:
            np.broadcast_shapes(tuple(value.shape), shape)
        except ValueError:
            raise ValueError(f"Alloc: a value of shape {tuple(value.shape)} cannot be broadcast "
                             f"to the requested shape {shape}") from None
        out = _cp().empty(shape, dtype=dtype)
        out[...] = value
        return out

    return Lowered(PY, _simple(fn))


@register(TB.Join)
def lower_join(op: Any, node: Any, ctx: Any) -> Lowered:
    dtype = node.outputs[0].type.dtype
    ndim = node.outputs[0].type.ndim

    def fn(*tensors: Any) -> Any:
        axis = op._axis(ndim)
        try:
            out = _cp().concatenate(tensors, axis=axis)
        except ValueError:
            raise ValueError(f"{op}: cannot join inputs of shapes "
                             f"{[tuple(t.shape) for t in tensors]} along axis {axis} (all "
                             "other dimensions must match)") from None
        return out.astype(dtype, copy=False)

    return Lowered(PY, _simple(fn))


# -- indexing ---------------------------------------------------------------------------------

def _entry_inputs(idx_list: Sequence[Any]) -> list[str]:
    """For each index input, what it is: 'int', 'array' or 'bound'."""
    kinds: list[str] = []
    for e in idx_list:
        if e in ("int", "array"):
            kinds.append(e)
        elif e is None or e == "...":
            continue
        else:
            kinds.extend("bound" for h in e[1:] if h)
    return kinds


def _index_placement(first: int) -> Any:
    """Inputs before ``first`` (x, and y for updates) on the device; index arrays too."""

    def placement(node: Any) -> tuple[tuple[bool, ...], tuple[bool, ...]]:
        kinds = _entry_inputs(node.op.idx_list)
        return ((True,) * first + tuple(k == "array" for k in kinds), (True,))

    return placement


def build_index(idx_list: Sequence[Any], values: Sequence[Any]) -> tuple:
    """The CuPy index for ``idx_list`` (arrays stay device arrays)."""
    it = iter(values)
    index: list[Any] = []
    for e in idx_list:
        if e == "int":
            index.append(int(next(it)))
        elif e == "array":
            index.append(next(it))
        elif e is None:
            index.append(None)
        elif e == "...":
            index.append(Ellipsis)
        else:
            index.append(slice(*(int(next(it)) if h else None for h in e[1:])))
    return tuple(index)


def _check_bounds(op: Any, x: Any, index: tuple) -> None:
    """NumPy's IndexError for out-of-range integer array indices (CuPy would wrap them)."""
    if any(i is Ellipsis for i in index):
        return
    axis = 0
    for i in index:
        if i is None:
            continue
        if hasattr(i, "dtype") and hasattr(i, "__cuda_array_interface__"):
            if i.dtype.kind in "iu" and i.size:
                n = x.shape[axis]
                lo, hi = int(i.min()), int(i.max())
                if lo < -n or hi >= n:
                    raise IndexError(f"{op}: index {hi if hi >= n else lo} is out of bounds for "
                                     f"axis {axis} with size {n}")
        axis += 1


def _check_index_ops(node: Any) -> None:
    check_dtypes_of(node)


@register(SO.Subtensor, placement=_index_placement(1), check=_check_index_ops)
def lower_subtensor(op: Any, node: Any, ctx: Any) -> Lowered:
    def fn(x: Any, *values: Any) -> Any:
        index = build_index(op.idx_list, values)
        try:
            return x[index]
        except (IndexError, ValueError) as exc:
            raise type(exc)(f"{op}: {exc} (input shape {x.shape})") from None

    return Lowered(PY, _simple(fn))


@register(SO.AdvancedSubtensor, placement=_index_placement(1), check=_check_index_ops)
def lower_advanced_subtensor(op: Any, node: Any, ctx: Any) -> Lowered:
    def fn(x: Any, *values: Any) -> Any:
        index = build_index(op.idx_list, values)
        _check_bounds(op, x, index)
        return x[index]

    return Lowered(PY, _simple(fn))


@register(SO.AdvancedSubtensor1)
def lower_advanced_subtensor1(op: Any, node: Any, ctx: Any) -> Lowered:
    def fn(x: Any, ilist: Any) -> Any:
        _check_bounds(op, x, (ilist,))
        return _cp().take(x, ilist, axis=0)

    return Lowered(PY, _simple(fn))


def _check_update(node: Any) -> None:
    check_dtypes_of(node)
    op = node.op
    accumulates = not op.set_instead_of_inc and (
        isinstance(op, SO.AdvancedIncSubtensor1) or op._accumulates())
    if accumulates and node.outputs[0].type.dtype not in _SCATTER_DTYPES:
        raise Unsupported(f"accumulating {node.outputs[0].type.dtype} updates on the GPU")


def _update(op: Any, out: Any, index: tuple, y: Any, accumulate: bool) -> None:
    if y.dtype != out.dtype:
        y = y.astype(out.dtype)
    if op.set_instead_of_inc:
        out[index] = y
    elif accumulate:
        import cupyx

        cupyx.scatter_add(out, index, y)
    else:
        out[index] = out[index] + y


def _lower_update(op: Any, node: Any, first_index: int, accumulate: bool, advanced: bool
                  ) -> Lowered:
    inplace = bool(op.inplace)

    def fn(x: Any, y: Any, *values: Any) -> Any:
        out = x if inplace else x.copy()
        if hasattr(op, "idx_list"):
            index = build_index(op.idx_list, values)
        else:
            index = (values[0],)
        if advanced:
            _check_bounds(op, out, index)
        try:
            _update(op, out, index, y, accumulate)
        except (IndexError, ValueError) as exc:
            raise type(exc)(f"{op}: {exc} (x shape {x.shape}, y shape {y.shape})") from None
        return out

    return Lowered(PY, _simple(fn))


@register(SO.IncSubtensor, placement=_index_placement(2), check=_check_update)
def lower_inc_subtensor(op: Any, node: Any, ctx: Any) -> Lowered:
    return _lower_update(op, node, 2, accumulate=False, advanced=False)


@register(SO.AdvancedIncSubtensor, placement=_index_placement(2), check=_check_update)
def lower_advanced_inc_subtensor(op: Any, node: Any, ctx: Any) -> Lowered:
    return _lower_update(op, node, 2, accumulate=op._accumulates(), advanced=True)


@register(SO.AdvancedIncSubtensor1, placement=all_device, check=_check_update)
def lower_advanced_inc_subtensor1(op: Any, node: Any, ctx: Any) -> Lowered:
    return _lower_update(op, node, 2, accumulate=True, advanced=True)
