"""Flat indices and coordinates of an array of a given shape: ``ravel_multi_index``
(coordinates -> flat index, ``RavelMultiIndex``) and ``unravel_index`` (flat index ->
coordinates, ``UnravelIndex``), as ``numpy.ravel_multi_index``/``numpy.unravel_index`` and
``theano.tensor.extra_ops``. Integer-valued, so no gradients.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.op import Op
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.core.basic import get_vector_length
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.core.type import TensorType
from jitgraph.tensor.elementwise.math import cast

__all__ = ["RavelMultiIndex", "UnravelIndex", "ravel_multi_index", "unravel_index"]

_MODES = ("raise", "wrap", "clip")
_ORDERS = ("C", "F")


def _integer_input(who: str, name: str, value: Any) -> Variable:
    v = as_tensor_variable(value)
    if not dt.is_discrete(v.dtype) or v.dtype == "bool":
        raise TypeError(f"{who}: {name} must hold integers, got {v.type}")
    return v


def _dims_input(who: str, dims: Any) -> Variable:
    dims = _integer_input(who, "dims", dims)
    if dims.ndim != 1:
        raise TypeError(f"{who}: dims must be a vector of dimensions, got {dims.type}")
    return dims if dims.dtype == "int64" else cast(dims, "int64")


def _check_order(who: str, order: str) -> None:
    if order not in _ORDERS:
        raise ValueError(f"{who}: order must be 'C' or 'F', got {order!r}")


class RavelMultiIndex(Op):
    """Flat index into an array of shape ``dims`` of each coordinate tuple: inputs are one
    integer array per dimension, then the ``dims`` vector."""

    __props__ = ("mode", "order")

    def __init__(self, mode: str = "raise", order: str = "C") -> None:
        if mode not in _MODES:
            raise ValueError(f"RavelMultiIndex: mode must be one of {_MODES}, got {mode!r}")
        _check_order("RavelMultiIndex", order)
        self.mode = mode
        self.order = order

    def __str__(self) -> str:
        return f"RavelMultiIndex{{mode={self.mode!r}, order={self.order!r}}}"

    def make_node(self, *inputs: Any) -> Apply:
        if len(inputs) < 2:
            raise TypeError(f"{self}: needs at least one coordinate array and dims")
        coords = [_integer_input(str(self), f"multi_index[{k}]", c)
                  for k, c in enumerate(inputs[:-1])]
        dims = _dims_input(str(self), inputs[-1])
        ndim = max(c.ndim for c in coords)
        padded = [(True,) * (ndim - c.ndim) + tuple(c.broadcastable) for c in coords]
        bcast = tuple(all(p[d] for p in padded) for d in range(ndim))
        return Apply(self, [*coords, dims], [TensorType("int64", bcast)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        *coords, dims = inputs
        if len(coords) != len(dims):
            raise ValueError(f"{self}: {len(coords)} coordinate arrays for the "
                             f"{len(dims)} dimensions {[int(d) for d in dims]}")
        flat = np.ravel_multi_index(tuple(coords), tuple(int(d) for d in dims),
                                    mode=self.mode, order=self.order)
        output_storage[0][0] = np.asarray(flat, dtype=np.int64)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        out = node.outputs[0]
        dims: list[Any] = []
        for d, known_one in enumerate(out.broadcastable):
            # the coordinates broadcast together (NumPy's rule, shapes aligned on the right)
            size: Any = 1
            for coord, shape in zip(node.inputs[:-1], input_shapes[:-1]):
                k = d - (out.ndim - coord.ndim)
                if not known_one and k >= 0 and not coord.broadcastable[k]:
                    size = shape[k]
                    break
            dims.append(size)
        return [tuple(dims)]


def ravel_multi_index(multi_index: Sequence[Any], dims: Any, mode: str = "raise",
                      order: str = "C") -> Variable:
    """Flat indices into an array of shape ``dims`` of the coordinates ``multi_index`` (a
    tuple/list with one integer array per dimension), like ``numpy.ravel_multi_index``.

    ``mode``: what an out-of-range coordinate does ('raise', 'wrap', 'clip'); ``order``: 'C'
    (row-major) or 'F' (column-major) flattening. Output: int64, the coordinates' shape."""
    if not isinstance(multi_index, (tuple, list)):
        raise TypeError(f"ravel_multi_index: multi_index must be a tuple or a list of integer "
                        f"arrays (one per dimension), got {type(multi_index).__name__}")
    return RavelMultiIndex(mode=mode, order=order)(*multi_index, dims)


class UnravelIndex(Op):
    """The ``ndim`` coordinates, in an array of shape ``dims``, of each flat index."""

    __props__ = ("ndim", "order")

    def __init__(self, ndim: int, order: str = "C") -> None:
        if not isinstance(ndim, (int, np.integer)) or ndim < 1:
            raise ValueError(f"UnravelIndex: ndim must be a positive int, got {ndim!r}")
        _check_order("UnravelIndex", order)
        self.ndim = int(ndim)
        self.order = order

    def __str__(self) -> str:
        return f"UnravelIndex{{ndim={self.ndim}, order={self.order!r}}}"

    def make_node(self, indices: Any, dims: Any) -> Apply:
        indices = _integer_input(str(self), "indices", indices)
        dims = _dims_input(str(self), dims)
        outputs = [TensorType("int64", indices.broadcastable)() for _ in range(self.ndim)]
        return Apply(self, [indices, dims], outputs)

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        indices, dims = inputs
        if len(dims) != self.ndim:
            raise ValueError(f"{self}: dims {[int(d) for d in dims]} has {len(dims)} entries, the op was "
                             f"built for ndim={self.ndim}")
        coords = np.unravel_index(indices, tuple(int(d) for d in dims), order=self.order)
        for cell, c in zip(output_storage, coords):
            cell[0] = np.asarray(c, dtype=np.int64)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        return [tuple(input_shapes[0])] * self.ndim


def unravel_index(indices: Any, dims: Any, order: str = "C", ndim: int | None = None
                  ) -> tuple[Variable, ...]:
    """The coordinates in an array of shape ``dims`` of the flat ``indices``, like
    ``numpy.unravel_index``: a tuple of int64 arrays of ``indices``' shape, one per dimension.

    ``ndim`` (the number of dimensions) is needed only when ``dims`` is a symbolic vector whose
    length is unknown."""
    if ndim is None:
        try:
            ndim = get_vector_length(as_tensor_variable(dims))
        except ValueError:
            raise ValueError(f"unravel_index: the length of dims ({dims}) is not known before "
                             f"running the graph, so the number of coordinates to return is "
                             f"unknown; pass ndim=...") from None
    return tuple(UnravelIndex(ndim, order).make_node(indices, dims).outputs)
