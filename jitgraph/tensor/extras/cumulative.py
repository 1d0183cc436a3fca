"""Running sums, products and differences along an axis: ``CumOp`` (``cumsum``/``cumprod``)
and ``DiffOp`` (``diff``), as in ``theano.tensor.extra_ops``.

Outputs keep the input's dtype (integers wrap around; a boolean running sum is a running "or",
a boolean difference is "not equal"), as Theano's compiled ops do. With ``axis=None`` a running
op works on the flattened input and returns a vector.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from math import comb
from typing import Any

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.op import Op
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.shaping.dims import _dim, _is_pyint, _prod, _sub
from jitgraph.tensor.core.type import TensorType
from jitgraph.tensor.core.basic import zeros_like
from jitgraph.tensor.elementwise.math import maximum
from jitgraph.tensor.indexing.subtensor import inc_subtensor

__all__ = ["CumOp", "CumprodOp", "CumsumOp", "DiffOp", "cumprod", "cumsum", "diff"]

#: ``CumOp`` mode -> the NumPy function it computes
_RUNNING = {"add": np.cumsum, "mul": np.cumprod}


def _check_axis(who: str, axis: int, ndim: int) -> int:
    """``axis`` of an input of rank ``ndim``, made non-negative."""
    if not -ndim <= axis < max(ndim, 1) or (ndim == 0 and axis not in (0, -1)):
        raise ValueError(f"{who}: axis={axis} is out of bounds for a {ndim}-d input "
                         f"(valid: {-ndim}..{ndim - 1})")
    return axis % max(ndim, 1)


class CumOp(Op):
    """Running sum (``mode='add'``) or product (``mode='mul'``) along ``axis`` (None: over
    the flattened input)."""

    __props__ = ("axis", "mode")
    #: an integer input receives the gradient reaching the integer output (Theano's rule)
    grad_through_integer_outputs = True

    def __init__(self, axis: int | None = None, mode: str = "add") -> None:
        if mode not in _RUNNING:
            raise ValueError(f'CumOp: Unknown mode "{mode}" (expected "add" or "mul")')
        if axis is not None and not _is_pyint(axis):
            raise TypeError(f"CumOp: axis must be an int or None, got {axis!r}")
        self.axis = None if axis is None else int(axis)
        self.mode = mode

    def __str__(self) -> str:
        return f"CumOp{{{self.axis}, {self.mode}}}"

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        if self.axis is None:
            out = TensorType(x.dtype, (False,))()
        else:
            _check_axis(str(self), self.axis, x.ndim)
            out = x.type()
        return Apply(self, [x], [out])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        (x,) = inputs
        output_storage[0][0] = running(x, self.axis, self.mode)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        if self.axis is None:
            return [(_prod(input_shapes[0]),)]
        return [tuple(input_shapes[0])]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        (x,) = inputs
        (gz,) = output_grads
        axis = -1 if self.axis is None else self.axis
        if self.mode == "add":
            # out[i] = sum_{j <= i} x[j]: x[j] receives sum_{i >= j} gz[i].
            gx = _reversed(CumOp(axis, "add")(_reversed(gz, axis)), axis)
        else:
            # Theano 1.0's rule (it divides by x, so a zero input gives NaN there).
            flat_x = x.flatten() if self.axis is None else x
            gx = _reversed(CumOp(axis, "add")(_reversed(self(x) * gz, axis)), axis) / flat_x
        return [gx if self.axis is not None else gx.reshape(x.shape, ndim=x.ndim)]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        (x,), (ev,) = inputs, eval_points
        if ev is None:
            return [None]
        if self.mode == "add":
            return [self(ev)]
        flat = (lambda v: v.flatten()) if self.axis is None else (lambda v: v)
        axis = -1 if self.axis is None else self.axis
        return [self(x) * CumOp(axis, "add")(flat(ev) / flat(x))]


def running(x: np.ndarray, axis: int | None, mode: str) -> np.ndarray:
    """The NumPy reference of :class:`CumOp`: the running ``mode`` of ``x`` in its dtype."""
    x = np.asarray(x)
    if axis is not None and x.ndim == 0:
        return np.array(x, copy=True)
    return _RUNNING[mode](x, axis=axis, dtype=x.dtype)


def _reversed(v: Variable, axis: int) -> Variable:
    index: list[Any] = [slice(None)] * v.ndim
    index[axis] = slice(None, None, -1)
    return v[tuple(index)]


def _deprecated_running_op(mode: str, name: str) -> type:
    def __new__(cls: type, axis: int | None = None) -> CumOp:
        warnings.warn(f"{name} is deprecated; use CumOp(axis, mode={mode!r}) or "
                      f"{'cumsum' if mode == 'add' else 'cumprod'}(x, axis)",
                      DeprecationWarning, stacklevel=2)
        return CumOp(axis, mode)

    doc = (f"Deprecated (as in Theano 1.0): ``{name}(axis)`` builds ``CumOp(axis, "
           f"mode={mode!r})``.")
    return type(name, (), {"__new__": __new__, "__doc__": doc, "__props__": ("axis",),
                           "__module__": __name__})


CumsumOp = _deprecated_running_op("add", "CumsumOp")
CumprodOp = _deprecated_running_op("mul", "CumprodOp")


def cumsum(x: Any, axis: int | None = None) -> Variable:
    """Running sum of ``x`` along ``axis`` (None: of the flattened ``x``, a vector), like
    ``numpy.cumsum`` but in ``x``'s dtype."""
    return CumOp(axis=axis, mode="add")(x)


def cumprod(x: Any, axis: int | None = None) -> Variable:
    """Running product of ``x`` along ``axis`` (None: of the flattened ``x``, a vector), like
    ``numpy.cumprod`` but in ``x``'s dtype."""
    return CumOp(axis=axis, mode="mul")(x)


# ---------------------------------------------------------------------------------------------
# DiffOp

class DiffOp(Op):
    """The ``n``-th discrete difference along ``axis`` (``numpy.diff``)."""

    __props__ = ("n", "axis")

    def __init__(self, n: int = 1, axis: int = -1) -> None:
        if not _is_pyint(n) or n < 0:
            raise ValueError(f"DiffOp: n must be a non-negative int, got {n!r}")
        if not _is_pyint(axis):
            raise TypeError(f"DiffOp: axis must be an int, got {axis!r}")
        self.n = int(n)
        self.axis = int(axis)

    def __str__(self) -> str:
        return f"DiffOp{{n={self.n}, axis={self.axis}}}"

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        if x.ndim == 0:
            raise ValueError(f"{self}: the input (x) must have at least one dimension")
        axis = _check_axis(str(self), self.axis, x.ndim)
        # the differenced axis has length max(0, len - n): never known to be 1 once n > 0
        bcast = tuple(b and (d != axis or self.n == 0) for d, b in enumerate(x.broadcastable))
        return Apply(self, [x], [TensorType(x.dtype, bcast)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        (x,) = inputs
        result = np.diff(x, n=self.n, axis=self.axis)
        # n=0 gives back the input itself: the output must not alias it
        output_storage[0][0] = result.copy() if result is x else result

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        dims = list(input_shapes[0])
        axis = self.axis % len(dims)
        length = dims[axis]
        if isinstance(length, (int, np.integer)):
            dims[axis] = max(0, int(length) - self.n)
        else:
            dims[axis] = _dim(maximum(_sub(length, self.n), 0))
        return [tuple(dims)]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        (x,) = inputs
        (gz,) = output_grads
        if dt.is_discrete(x.dtype):
            return [None]
        # out[i] = sum_k (-1)^(n-k) C(n, k) x[i + k], so x[i + k] receives that multiple of
        # gz[i]: n + 1 shifted, scaled additions (empty when the axis is shorter than n).
        axis = self.axis % x.ndim
        length = gz.shape[axis]
        gx = zeros_like(x)
        for k in range(self.n + 1):
            coef = (-1) ** (self.n - k) * comb(self.n, k)
            index: list[Any] = [slice(None)] * x.ndim
            index[axis] = slice(k, k + length)
            gx = inc_subtensor(gx[tuple(index)], np.asarray(coef, dtype=x.dtype) * gz)
        return [gx]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        (ev,) = eval_points
        return [None if ev is None else self(ev)]


def diff(x: Any, n: int = 1, axis: int = -1) -> Variable:
    """The ``n``-th discrete difference of ``x`` along ``axis`` (``numpy.diff``): the axis
    shrinks by ``n`` (to 0 at least)."""
    return DiffOp(n=n, axis=axis)(x)
