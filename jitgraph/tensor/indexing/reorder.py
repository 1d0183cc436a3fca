"""Moving entries around: ``swapaxes``, ``roll``, ``take``, ``choose``/:class:`Choose`,
``permute_row_elements``/:class:`PermuteRowElements` and ``inverse_permutation`` (Theano 1.0's
``theano.tensor`` signatures; NumPy's semantics)."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.op import Op
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.shaping.dims import _eq, _is_pyint, _maximum, _switch
from jitgraph.tensor.elementwise.elemwise import _fit_gradient, dimshuffle
from jitgraph.tensor.shaping.shape import _shape_dims, flatten, reshape, shape_i
from jitgraph.tensor.core.type import TensorType
from jitgraph.tensor.core.basic import AxisError, join, zeros_like
from jitgraph.tensor.elementwise.math import clip, eq
from jitgraph.tensor.elementwise.reduction import sum as tsum
from jitgraph.tensor.extras.extra_ops import arange

__all__ = ["swapaxes", "roll", "take", "Choose", "choose", "PermuteRowElements",
           "permute_row_elements", "inverse_permutation"]


def _axis_of(x: Variable, axis: Any, who: str) -> int:
    if not _is_pyint(axis):
        raise TypeError(f"{who}: axis must be an int, got {axis!r}")
    if not -x.ndim <= axis < x.ndim:
        raise AxisError(f"{who}: axis {axis} is out of range for the {x.ndim}-d {x}")
    return int(axis) % x.ndim


def swapaxes(y: Any, axis1: int, axis2: int) -> Variable:
    """``y`` with axes ``axis1`` and ``axis2`` interchanged (``numpy.swapaxes``)."""
    y = as_tensor_variable(y)
    a1, a2 = _axis_of(y, axis1, "swapaxes"), _axis_of(y, axis2, "swapaxes")
    order = list(range(y.ndim))
    order[a1], order[a2] = order[a2], order[a1]
    return dimshuffle(y, order)


def roll(x: Any, shift: Any, axis: int | None = None) -> Variable:
    """``x`` rotated by ``shift`` positions along ``axis`` (None: over the flattened tensor,
    keeping the shape), like ``numpy.roll``. ``shift`` may be symbolic."""
    x = as_tensor_variable(x)
    if x.ndim == 0:
        raise ValueError(f"roll: x must have at least one dimension, got the scalar {x}")
    if axis is None:
        if x.ndim == 1:
            return roll(x, shift, 0)
        return reshape(roll(flatten(x, 1), shift, 0), _shape_dims(x), ndim=x.ndim)
    axis = _axis_of(x, axis, "roll")
    shift = as_tensor_variable(shift)
    if not dt.is_discrete(shift.dtype) or shift.ndim != 0:
        raise TypeError(f"roll: shift must be an int scalar, got {shift} ({shift.type})")

    # The last `shift` entries come first; shift % n keeps both slices in range (0 gives x).
    start = -(shift % shape_i(x, axis))
    before = (slice(None),) * axis
    return join(axis, x[before + (slice(start, None),)], x[before + (slice(0, start),)])


def _int_indices(indices: Any, who: str) -> Variable:
    if isinstance(indices, (list, tuple)) and not indices:
        indices = np.zeros(0, dtype="int64")
    indices = as_tensor_variable(indices)
    if not dt.is_discrete(indices.dtype) or indices.dtype == "bool":
        raise TypeError(f"{who}: indices must be integers, got {indices} ({indices.type})")
    return indices


def take(a: Any, indices: Any, axis: int | None = None, mode: str = "raise") -> Variable:
    """``numpy.take``: the entries of ``a`` at ``indices`` along ``axis`` (None: of the
    flattened ``a``). ``mode``: 'raise' (out-of-range indices are errors; negative ones count
    from the end), 'wrap' (indices modulo the length) or 'clip' (clamped to the valid range)."""
    a = as_tensor_variable(a)
    indices = _int_indices(indices, "take")
    if axis is None:
        return take(flatten(a, 1), indices, 0, mode)
    axis = _axis_of(a, axis, "take")
    length = shape_i(a, axis)
    if mode == "wrap":
        indices = indices % length
    elif mode == "clip":
        indices = clip(indices, 0, length - 1)
    elif mode != "raise":
        raise ValueError(f"take: mode must be 'raise', 'wrap' or 'clip', got {mode!r}")
    return a[(slice(None),) * axis + (indices,)]


# ---------------------------------------------------------------------------------------------
# Choose

_CHOOSE_MODES = ("raise", "wrap", "clip")


class Choose(Op):
    """``numpy.choose(a, choices, mode=mode)``: entry ``i`` of the result is entry ``i`` of
    ``choices[a[i]]`` (``a`` and the choices broadcast together).

    ``choices`` is one tensor (its first axis enumerates the choices) or a list of tensors;
    ``listed`` records which (a list node has one input per choice).
    """

    __props__ = ("mode", "listed")

    def __init__(self, mode: str = "raise", listed: bool = False) -> None:
        if mode not in _CHOOSE_MODES:
            raise ValueError(f"Choose: mode must be one of {_CHOOSE_MODES}, got {mode!r}")
        self.mode = mode
        self.listed = bool(listed)

    def __str__(self) -> str:
        return f"Choose{{mode='{self.mode}'}}"

    def make_node(self, a: Any, choices: Any, *more: Any) -> Apply:
        a = _int_indices(a, "choose (a)")
        if isinstance(choices, (list, tuple)) or more:
            listed = list(choices) + list(more) if isinstance(choices, (list, tuple)) \
                else [choices, *more]
            if not listed:
                raise ValueError("choose: choices must not be empty")
            chs = [as_tensor_variable(c) for c in listed]
            op = self if self.listed else Choose(self.mode, listed=True)
            dtype = dt.upcast(*[c.dtype for c in chs])
            patterns = [a.broadcastable] + [c.broadcastable for c in chs]
        else:
            chs = [as_tensor_variable(choices)]
            if chs[0].ndim == 0:
                raise TypeError(f"choose: choices must be a list or a tensor of at least one "
                                f"dimension, got the scalar {chs[0]}")
            op = Choose(self.mode, listed=False) if self.listed else self
            dtype = chs[0].dtype
            patterns = [a.broadcastable, chs[0].broadcastable[1:]]
        ndim = max(len(p) for p in patterns)
        padded = [(True,) * (ndim - len(p)) + tuple(p) for p in patterns]
        bcast = tuple(all(p[d] for p in padded) for d in range(ndim))
        return Apply(op, [a, *chs], [TensorType(dtype, bcast).make_variable()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        a, *chs = inputs
        choices = chs if self.listed else chs[0]
        try:
            out = np.choose(a, choices, mode=self.mode)
        except ValueError as exc:
            raise ValueError(f"{self}: {exc} (a of shape {np.shape(a)}, "
                             f"{len(chs) if self.listed else np.shape(chs[0])[0]} choices)"
                             ) from None
        output_storage[0][0] = np.asarray(out, dtype=node.outputs[0].dtype)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        shapes = [input_shapes[0]] + ([list(s) for s in input_shapes[1:]] if self.listed
                                      else [list(input_shapes[1])[1:]])
        variables = [node.inputs[0]] + (list(node.inputs[1:]) if self.listed
                                        else [None])
        ndim = node.outputs[0].ndim
        dims = []
        for d in range(ndim):
            dim: Any = 1
            for k, s in enumerate(shapes):
                j = d - (ndim - len(s))
                if j < 0:
                    continue
                var = variables[k]
                if var is not None and var.broadcastable[j]:
                    continue
                dim = s[j] if dim == 1 else _switch(_eq(dim, 1), s[j], dim)
            dims.append(dim)
        return [tuple(dims)]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[False]] + [[True]] * (len(node.inputs) - 1)

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        raise NotImplementedError("choose has no gradient (neither had Theano's Choose); "
                                  "write the selection with switch() to differentiate it")

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        if all(v is None for v in eval_points[1:]):
            return [None]

        points = [zeros_like(c) if v is None else v
                  for c, v in zip(inputs[1:], eval_points[1:])]
        return [self(inputs[0], points if self.listed else points[0])]


def choose(a: Any, choices: Any, out: Any = None, mode: str = "raise") -> Variable:
    """``numpy.choose``: pick each entry from ``choices[a[i]]``; ``choices`` is a list of
    tensors or one tensor whose first axis enumerates them. ``mode``: 'raise', 'wrap', 'clip'.
    ``out`` must be None (symbolic results are never written into an existing array)."""
    if out is not None:
        raise ValueError("choose: out must be None; a symbolic result is a new variable")
    return Choose(mode)(a, choices)


# ---------------------------------------------------------------------------------------------
# PermuteRowElements

class PermuteRowElements(Op):
    """Permute the last axis of ``x`` by the int tensor ``y`` (its rows apply to the matching
    rows of ``x``; the leading axes broadcast): ``out[..., i] = x[..., y[..., i]]``, or with a
    true ``inverse`` ``out[..., y[..., i]] = x[..., i]``."""

    __props__ = ()

    def make_node(self, x: Any, y: Any, inverse: Any) -> Apply:
        x = as_tensor_variable(x)
        y = _int_indices(y, "PermuteRowElements (y)")
        inverse = as_tensor_variable(inverse)
        if x.ndim < 1 or y.ndim < 1:
            raise TypeError(f"PermuteRowElements: x and y need at least one dimension, got "
                            f"{x} ({x.type}) and {y} ({y.type})")
        if inverse.ndim != 0 or not dt.is_discrete(inverse.dtype):
            raise TypeError(f"PermuteRowElements: inverse must be an int or bool scalar, got "
                            f"{inverse} ({inverse.type})")
        ndim = max(x.ndim, y.ndim)
        xb = (True,) * (ndim - x.ndim) + x.broadcastable
        yb = (True,) * (ndim - y.ndim) + y.broadcastable
        bcast = tuple(p and q for p, q in zip(xb[:-1], yb[:-1])) + (xb[-1] and yb[-1],)
        return Apply(self, [x, y, inverse], [TensorType(x.dtype, bcast).make_variable()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, y, inverse = inputs
        ndim = node.outputs[0].ndim
        x = x.reshape((1,) * (ndim - x.ndim) + x.shape)
        y = y.reshape((1,) * (ndim - y.ndim) + y.shape)
        if x.shape[-1] != y.shape[-1]:
            raise ValueError(f"{self}: the permutation has length {y.shape[-1]} but x's last "
                             f"axis has {x.shape[-1]} entries")
        try:
            lead = np.broadcast_shapes(x.shape[:-1], y.shape[:-1])
        except ValueError:
            raise ValueError(f"{self}: the leading axes of x {x.shape} and y {y.shape} do not "
                             "broadcast") from None
        xs = np.broadcast_to(x, lead + x.shape[-1:])
        ys = np.broadcast_to(y, lead + y.shape[-1:])
        if not np.array_equal(np.sort(ys, axis=-1), np.broadcast_to(np.arange(ys.shape[-1]),
                                                                      ys.shape)):
            raise ValueError(f"{self}: y must hold permutations of 0..{ys.shape[-1] - 1}")
        if inverse:
            out = np.empty(xs.shape, dtype=x.dtype)
            np.put_along_axis(out, ys, xs, axis=-1)
        else:
            out = np.take_along_axis(xs, ys, axis=-1)
        output_storage[0][0] = out

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        ndim = node.outputs[0].ndim
        xs, ys = (((1,) * (ndim - len(s)) + tuple(s)) for s in input_shapes[:2])
        return [tuple(_maximum(p, q) for p, q in zip(xs[:-1], ys[:-1])) + (xs[-1],)]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True], [False], [False]]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        x, y, inverse = inputs
        if dt.is_discrete(x.dtype):
            return [None, None, None]
        gx = self(output_grads[0], y, eq(inverse, 0))
        # sum over the axes x was broadcast (or padded) along
        gx_ndim = gx.ndim
        if gx_ndim > x.ndim:
            gx = tsum(gx, axis=list(range(gx_ndim - x.ndim)))
        return [_fit_gradient(gx, x), None, None]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        if eval_points[0] is None:
            return [None]
        return [self(eval_points[0], inputs[1], inputs[2])]


def permute_row_elements(x: Any, y: Any, inverse: Any = 0) -> Variable:
    """Permute the last axis of ``x`` by ``y`` (see :class:`PermuteRowElements`)."""
    return PermuteRowElements()(x, y, inverse)


def inverse_permutation(perm: Any) -> Variable:
    """The inverse of the permutation(s) ``perm`` (an int vector, or rows of them)."""
    perm = _int_indices(perm, "inverse_permutation")
    positions = arange(shape_i(perm, perm.ndim - 1), dtype=perm.dtype)
    return permute_row_elements(positions, perm, inverse=1)
