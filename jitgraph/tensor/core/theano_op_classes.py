"""Op classes that Theano 1.0 exposed in ``theano.tensor`` beside functions which jitgraph
builds from other ops: :class:`Flatten` (``flatten`` is a Reshape), :class:`Tile` (``tile`` is an
Alloc and a Reshape), :class:`Mean` (``mean`` is a Sum and a division) and :class:`MaxAndArgmax`
(``max_and_argmax`` is a Max and an Argmax). Programs that build these ops directly, or check
for them, get working ops with NumPy references, shapes and gradients."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.op import Op
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.core.conversion import as_tensor_variable, constant
from jitgraph.tensor.shaping.dims import _dim, _element, _is_pyint, _mul, _prod
from jitgraph.tensor.elementwise.elemwise import _fit_gradient, dimshuffle
from jitgraph.tensor.shaping.shape import _shape_dims, reshape
from jitgraph.tensor.core.type import TensorType
from jitgraph.graph.gradient_types import is_disconnected
from jitgraph.tensor.core.basic import zeros_like
from jitgraph.tensor.elementwise.math import cast, eq
from jitgraph.tensor.elementwise.reduction import sum as tsum
from jitgraph.tensor.extras.extra_ops import arange

__all__ = ["Flatten", "Tile", "Mean", "MaxAndArgmax"]


# ---------------------------------------------------------------------------------------------
# Flatten

class Flatten(Op):
    """``x`` with its trailing axes merged so that ``outdim`` dimensions remain."""

    __props__ = ("outdim",)

    def __init__(self, outdim: int = 1) -> None:
        if not _is_pyint(outdim) or outdim < 1:
            raise ValueError(f"Flatten needs a positive int outdim, got {outdim!r}")
        self.outdim = int(outdim)

    def __str__(self) -> str:
        return f"Flatten{{{self.outdim}}}"

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        if self.outdim > max(x.ndim, 1):
            raise ValueError(f"{self}: cannot flatten the {x.ndim}-d {x} to {self.outdim} "
                             "dimensions")
        keep = x.broadcastable[:self.outdim - 1]
        last = all(x.broadcastable[self.outdim - 1:])
        return Apply(self, [x], [TensorType(x.dtype, (*keep, last)).make_variable()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        (x,) = inputs
        keep = x.shape[:self.outdim - 1]
        output_storage[0][0] = x.reshape(keep + (int(np.prod(x.shape[self.outdim - 1:])),))

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        (shp,) = input_shapes
        return [(*shp[:self.outdim - 1], _prod(shp[self.outdim - 1:]))]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        (x,) = inputs
        return [reshape(output_grads[0], _shape_dims(x), ndim=x.ndim)]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        return [None if eval_points[0] is None else self(eval_points[0])]


# ---------------------------------------------------------------------------------------------
# Tile

class Tile(Op):
    """``numpy.tile(x, reps)`` with an ``ndim``-dimensional result (``reps`` an int vector)."""

    __props__ = ("ndim",)

    def __init__(self, ndim: int) -> None:
        if not _is_pyint(ndim) or ndim < 0:
            raise ValueError(f"Tile needs a non-negative int ndim, got {ndim!r}")
        self.ndim = int(ndim)

    def __str__(self) -> str:
        return f"Tile{{ndim={self.ndim}}}"

    def make_node(self, x: Any, reps: Any) -> Apply:
        x = as_tensor_variable(x)
        if isinstance(reps, (list, tuple)):
            reps = constant(np.asarray(reps, dtype="int64"))
        reps = as_tensor_variable(reps)
        if reps.ndim != 1 or not dt.is_discrete(reps.dtype) or reps.dtype == "bool":
            raise TypeError(f"{self}: reps must be an int vector, got {reps} ({reps.type})")
        if x.ndim > self.ndim:
            raise ValueError(f"{self}: the {x.ndim}-d {x} has more dimensions than the result")
        out = TensorType(x.dtype, (False,) * self.ndim).make_variable()
        return Apply(self, [x, reps], [out])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, reps = inputs
        if len(reps) != self.ndim:
            raise ValueError(f"{self}: reps has {len(reps)} entries, expected {self.ndim}")
        output_storage[0][0] = np.tile(x, tuple(int(r) for r in reps))

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        xs = (1,) * (self.ndim - len(input_shapes[0])) + tuple(input_shapes[0])
        return [tuple(_mul(_element(node.inputs[1], d), xs[d]) for d in range(self.ndim))]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True], [False]]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        x, reps = inputs
        if dt.is_discrete(x.dtype):
            return [None, None]
        padded = dimshuffle(x, ["x"] * (self.ndim - x.ndim) + list(range(x.ndim)))
        dims = _shape_dims(padded)
        split = []  # (r0, s0, r1, s1, ...): each tiled axis as (copy, position)
        for d in range(self.ndim):
            split += [_element(reps, d), dims[d]]
        g = reshape(output_grads[0], split, ndim=2 * self.ndim)
        g = tsum(g, axis=list(range(0, 2 * self.ndim, 2)))
        g = reshape(g, _shape_dims(x), ndim=x.ndim)
        return [_fit_gradient(g, x), None]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        return [None if eval_points[0] is None else self(eval_points[0], inputs[1])]


# ---------------------------------------------------------------------------------------------
# Reductions as single ops

def _axes(axis: Any, who: str) -> tuple[int, ...] | None:
    if axis is None:
        return None
    items = list(axis) if isinstance(axis, (list, tuple, np.ndarray)) else [axis]
    for a in items:
        if not _is_pyint(a):
            raise TypeError(f"{who}: axis must be None, an int or a list of ints, got {axis!r}")
    return tuple(int(a) for a in items)


def _normalized(axes: tuple[int, ...] | None, x: Variable, who: str) -> tuple[int, ...]:
    if axes is None:
        return tuple(range(x.ndim))
    out = []
    for a in axes:
        if not -x.ndim <= a < x.ndim:
            raise ValueError(f"{who}: axis {a} is out of range for the {x.ndim}-d {x}")
        out.append(a % x.ndim)
    if len(set(out)) != len(out):
        raise ValueError(f"{who}: repeated axis in {axes}")
    return tuple(sorted(out))


def _reduced_type(x: Variable, axes: tuple[int, ...], dtype: str) -> TensorType:
    return TensorType(dtype, tuple(b for d, b in enumerate(x.broadcastable) if d not in axes))


def _keep_axes(v: Variable, x: Variable, axes: tuple[int, ...]) -> Variable:
    """``v`` (reduced over ``axes``) with those axes put back as broadcastable ones."""
    it = iter(range(v.ndim))
    return dimshuffle(v, ["x" if d in axes else next(it) for d in range(x.ndim)])


class Mean(Op):
    """The mean of ``x`` over ``axis`` (None: all axes), accumulated in float64; integer
    inputs give float64."""

    __props__ = ("axis",)

    def __init__(self, axis: Any = None) -> None:
        self.axis = _axes(axis, "Mean")

    def __str__(self) -> str:
        if self.axis is None:
            return "Mean"
        return "Mean{" + ", ".join(str(a) for a in self.axis) + "}"

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        axes = _normalized(self.axis, x, str(self))
        dtype = x.dtype if dt.is_float(x.dtype) else "float64"
        return Apply(self, [x], [_reduced_type(x, axes, dtype).make_variable()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        (x,) = inputs
        axes = _normalized(self.axis, node.inputs[0], str(self))
        out = np.mean(x, axis=axes, dtype="float64")
        output_storage[0][0] = np.asarray(out, dtype=node.outputs[0].dtype)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        axes = _normalized(self.axis, node.inputs[0], str(self))
        return [tuple(s for d, s in enumerate(input_shapes[0]) if d not in axes)]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        (x,) = inputs
        if dt.is_discrete(x.dtype):
            return [None]
        axes = _normalized(self.axis, x, str(self))
        count = _prod([x.shape[d] for d in axes])
        g = _keep_axes(output_grads[0], x, axes) / cast(_dim(count), output_grads[0].dtype)
        return [_fit_gradient(zeros_like(x) + g, x)]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        return [None if eval_points[0] is None else self(eval_points[0])]


class MaxAndArgmax(Op):
    """The maximum of ``x`` over ``axis`` (a list of axes) and where it is: the index into
    those axes flattened in order (the first maximum wins)."""

    __props__ = ("axis",)

    def __init__(self, axis: Any) -> None:
        if axis is None:
            raise TypeError("MaxAndArgmax needs a list of axes (for all axes, list them: "
                            "list(range(x.ndim)))")
        self.axis = _axes(axis, "MaxAndArgmax")

    def __str__(self) -> str:
        return f"MaxAndArgmax{{axis={self.axis}}}"

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        axes = _normalized(self.axis, x, str(self))
        outs = [_reduced_type(x, axes, x.dtype).make_variable(),
                _reduced_type(x, axes, "int64").make_variable()]
        return Apply(self, [x], outs)

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        (x,) = inputs
        axes = _normalized(self.axis, node.inputs[0], str(self))
        if any(x.shape[d] == 0 for d in axes):
            raise ValueError(f"{self}: cannot take the maximum over an empty axis (input shape "
                             f"{x.shape})")
        kept = [d for d in range(x.ndim) if d not in axes]
        moved = np.transpose(x, kept + list(axes))
        flat = moved.reshape(moved.shape[:len(kept)] + (-1,))
        output_storage[0][0] = np.asarray(np.max(flat, axis=-1), dtype=x.dtype)
        output_storage[1][0] = np.asarray(np.argmax(flat, axis=-1), dtype="int64")

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        axes = _normalized(self.axis, node.inputs[0], str(self))
        kept = tuple(s for d, s in enumerate(input_shapes[0]) if d not in axes)
        return [kept, kept]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True, False]]

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list:
        (x,) = inputs
        g_max = output_grads[0]
        if dt.is_discrete(x.dtype) or is_disconnected(g_max):
            return [None]
        axes = _normalized(self.axis, x, str(self))
        # every entry equal to the maximum receives the gradient (as Theano's did)
        at_max = eq(x, _keep_axes(outputs[0], x, axes))
        return [_fit_gradient(_keep_axes(g_max, x, axes) * at_max, x)]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        if eval_points[0] is None:
            return [None, None]
        (x,) = inputs
        axes = _normalized(self.axis, x, str(self))
        _, argmax = self(x)
        # one-hot of the argmax position: flat positions laid over the reduced axes
        dims = [x.shape[d] for d in axes]
        positions = reshape(arange(_dim(_prod(dims))), dims, ndim=len(axes))
        it = iter(range(len(axes)))
        laid = dimshuffle(positions, [next(it) if d in axes else "x" for d in range(x.ndim)])
        hot = eq(laid, _keep_axes(argmax, x, axes))
        return [tsum(eval_points[0] * hot, axis=list(axes)), None]
