"""Putting tensors together and apart: :class:`Split`/``split``, ``stacklists``,
``horizontal_stack``, ``vertical_stack``, ``join_``, ``mgrid``/``ogrid``, :class:`AllocEmpty` and
``tensor_copy`` (Theano 1.0's ``theano.tensor`` names and signatures)."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.op import Op
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.core.basic import Join, _int_axis, alloc, concatenate, stack, zeros_like
from jitgraph.tensor.core.conversion import as_tensor_variable, constant
from jitgraph.tensor.shaping.dims import _const_int, _dim, _element, _eq, _is_pyint, _switch
from jitgraph.tensor.elementwise.math import cast, identity
from jitgraph.tensor.shaping.shape import _scalar_int_input
from jitgraph.tensor.core.type import TensorType
from jitgraph.graph.gradient_types import is_disconnected
from jitgraph.tensor.elementwise.elemwise import dimshuffle
from jitgraph.tensor.extras.extra_ops import arange

__all__ = ["Split", "split", "stacklists", "horizontal_stack", "vertical_stack", "join_",
           "mgrid", "ogrid", "AllocEmpty", "tensor_copy"]

#: ``tensor_copy(x)``: a copy of ``x`` (Theano's elementwise identity)
tensor_copy = identity


# ---------------------------------------------------------------------------------------------
# Split

class Split(Op):
    """``x`` cut along ``axis`` into ``len_splits`` pieces of the lengths in ``splits`` (an int
    vector summing to the length of that axis); inputs ``(x, axis, splits)``."""

    __props__ = ("len_splits",)

    def __init__(self, len_splits: int) -> None:
        if not _is_pyint(len_splits) or len_splits < 1:
            raise ValueError(f"Split needs a positive int number of pieces, got {len_splits!r}")
        self.len_splits = int(len_splits)

    def __str__(self) -> str:
        return f"Split{{{self.len_splits}}}"

    def make_node(self, x: Any, axis: Any, splits: Any) -> Apply:
        x = as_tensor_variable(x)
        axis = _scalar_int_input(axis, f"{self} (axis)")
        if isinstance(splits, (list, tuple)):
            splits = constant(np.asarray(splits, dtype="int64"))
        splits = as_tensor_variable(splits)
        if splits.ndim != 1 or not dt.is_discrete(splits.dtype) or splits.dtype == "bool":
            raise TypeError(f"{self}: splits must be an int vector, got {splits} "
                            f"({splits.type})")
        if x.ndim == 0:
            raise TypeError(f"{self}: cannot split the scalar {x}")
        known_axis = _const_int(axis)
        if known_axis is not None and not -x.ndim <= known_axis < x.ndim:
            raise ValueError(f"{self}: axis {known_axis} is out of range for the {x.ndim}-d {x}")
        outs = [TensorType(x.dtype, x.broadcastable).make_variable()
                for _ in range(self.len_splits)]
        return Apply(self, [x, axis, splits], outs)

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, axis, splits = inputs
        axis = int(axis)
        if not -x.ndim <= axis < x.ndim:
            raise ValueError(f"{self}: axis {axis} is out of range for an input of shape "
                             f"{x.shape}")
        axis %= x.ndim
        if len(splits) != self.len_splits:
            raise ValueError(f"{self}: got {len(splits)} split lengths, expected "
                             f"{self.len_splits}")
        if np.any(np.asarray(splits) < 0):
            raise ValueError(f"{self}: split lengths must not be negative, got "
                             f"{[int(s) for s in splits]}")
        if int(np.sum(splits)) != x.shape[axis]:
            raise ValueError(f"{self}: the split lengths {[int(s) for s in splits]} sum to "
                             f"{int(np.sum(splits))}, but axis {axis} has length "
                             f"{x.shape[axis]}")
        bounds = np.cumsum(splits)[:-1]
        for cell, piece in zip(output_storage, np.split(x, bounds, axis=axis)):
            cell[0] = piece.copy()

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        x, axis, splits = node.inputs
        shape = list(input_shapes[0])
        known = _const_int(axis)
        out = []
        for k in range(self.len_splits):
            length = _dim(_element(splits, k))
            if known is not None:
                dims = list(shape)
                dims[known % x.ndim] = length
            else:
                pos = axis % x.ndim
                dims = [_switch(_eq(pos, d), length, s) for d, s in enumerate(shape)]
            out.append(tuple(dims))
        return out

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        n = self.len_splits
        return [[True] * n, [False] * n, [False] * n]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        x, axis, _ = inputs
        if dt.is_discrete(x.dtype):
            return [None, None, None]
        known = _const_int(axis)
        if known is None:
            raise NotImplementedError(f"{self}: the gradient needs an axis known when the "
                                      "graph is built")
        outputs = self(*inputs, return_list=True)
        pieces = [zeros_like(o) if is_disconnected(g) else g
                  for o, g in zip(outputs, output_grads)]
        return [Join(known % x.ndim)(*pieces) if len(pieces) > 1 else pieces[0], None, None]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        if eval_points[0] is None:
            return [None] * self.len_splits
        return self(eval_points[0], inputs[1], inputs[2], return_list=True)


def split(x: Any, splits_size: Any, n_splits: int, axis: Any = 0) -> list[Variable]:
    """``x`` cut along ``axis`` into ``n_splits`` pieces of lengths ``splits_size`` (an int
    vector or list, checked when the function runs)."""
    return Split(n_splits)(x, axis, splits_size, return_list=True)


# ---------------------------------------------------------------------------------------------
# Stacking

def stacklists(arg: Any) -> Any:
    """A tensor from nested lists of tensors (or scalars): ``stacklists([[a, b], [c, d]])`` is
    the 2 x 2 matrix of the scalars a, b, c, d."""
    if isinstance(arg, (list, tuple)):
        return stack([stacklists(a) for a in arg])
    return arg


def _matrices(args: Sequence[Any], who: str) -> list[Variable]:
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    ts = [as_tensor_variable(a) for a in args]
    for k, t in enumerate(ts):
        if t.ndim != 2:
            raise TypeError(f"{who}: argument {k} must be a matrix, got {t} ({t.type})")
    return ts


def horizontal_stack(*args: Any) -> Variable:
    """The matrices ``args`` side by side (joined along axis 1)."""
    return concatenate(_matrices(args, "horizontal_stack"), axis=1)


def vertical_stack(*args: Any) -> Variable:
    """The matrices ``args`` one above the other (joined along axis 0)."""
    return concatenate(_matrices(args, "vertical_stack"), axis=0)


def join_(axis: Any, *tensors: Any) -> Variable:
    """A :class:`Join` node of ``tensors`` along ``axis`` (Theano's op instance ``join_``;
    unlike :func:`join`, one tensor still gets its own node)."""
    if not tensors:
        raise ValueError("join_ needs at least one tensor")
    ts = [as_tensor_variable(t) for t in tensors]
    axis = _int_axis(axis, "join_")
    return Join(axis % ts[0].ndim if ts[0].ndim and -ts[0].ndim <= axis < ts[0].ndim
                else axis)(*ts)


# ---------------------------------------------------------------------------------------------
# mgrid, ogrid

class _Grid:
    """``mgrid[...]`` / ``ogrid[...]``: coordinate tensors from slices (``numpy.mgrid``)."""

    def __init__(self, sparse: bool) -> None:
        self.sparse = sparse

    def __repr__(self) -> str:
        return "ogrid" if self.sparse else "mgrid"

    def __getitem__(self, index: Any) -> list[Variable]:
        slices = index if isinstance(index, tuple) else (index,)
        ranges = []
        for k, sl in enumerate(slices):
            if not isinstance(sl, slice):
                raise TypeError(f"{self}[...]: entry {k} must be a slice like 0:n:step, got "
                                f"{sl!r}")
            if isinstance(sl.step, complex):
                raise NotImplementedError(f"{self}[...]: complex steps (a number of points) "
                                          "are not supported; use a real step")
            if sl.stop is None:
                raise ValueError(f"{self}[...]: slice {k} needs a stop")
            ranges.append(arange(0 if sl.start is None else sl.start, sl.stop,
                                 1 if sl.step is None else sl.step))
        ndim = len(ranges)
        placed = [dimshuffle(r, ["x"] * k + [0] + ["x"] * (ndim - 1 - k))
                  for k, r in enumerate(ranges)]
        if self.sparse:
            return placed

        # numpy.mgrid gives every grid the common dtype of all the ranges
        dtype = dt.upcast(*[r.dtype for r in ranges])
        lengths = [r.shape[0] for r in ranges]
        return [alloc(cast(p, dtype), *lengths) for p in placed]


#: ``mgrid[0:3, 0:4]``: the dense coordinate grids (a list of tensors), like ``numpy.mgrid``
mgrid = _Grid(sparse=False)
#: ``ogrid[0:3, 0:4]``: the open (broadcastable) coordinate grids, like ``numpy.ogrid``
ogrid = _Grid(sparse=True)


# ---------------------------------------------------------------------------------------------
# AllocEmpty

class AllocEmpty(Op):
    """An uninitialised array of the given shape and ``dtype`` (``numpy.empty``); for buffers
    that are written in full before being read."""

    __props__ = ("dtype",)

    def __init__(self, dtype: str) -> None:
        self.dtype = dt.normalize_dtype(dtype)

    def __str__(self) -> str:
        return f"AllocEmpty{{dtype='{self.dtype}'}}"

    def make_node(self, *shape: Any) -> Apply:
        dims = [_scalar_int_input(s, f"{self} (shape)") for s in shape]
        bcast = tuple(_const_int(d) == 1 for d in dims)
        return Apply(self, dims, [TensorType(self.dtype, bcast).make_variable()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        shape = tuple(int(s) for s in inputs)
        if any(s < 0 for s in shape):
            raise ValueError(f"{self}: negative dimension in the shape {shape}")
        output_storage[0][0] = np.empty(shape, dtype=self.dtype)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        return [tuple(_dim(s) for s in node.inputs)]

    def do_constant_folding(self, node: Apply) -> bool:
        return False  # folding would give every use the same (arbitrary) contents

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[False] for _ in node.inputs]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        return [None] * len(inputs)

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        return [None]
