"""``Unique``: the sorted distinct values of an array (``numpy.unique``), optionally with the
index of each one's first occurrence, the inverse mapping and the counts; Theano 1.0 keeps it in
``theano.tensor.extra_ops`` as an op class only (no ``unique`` function)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from jitgraph.graph.basic import Apply
from jitgraph.graph.op import Op
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.core.type import TensorType
from jitgraph.tensor.shaping.dims import _prod

__all__ = ["Unique"]


class Unique(Op):
    """Outputs: the unique values (a vector, or with ``axis`` the unique slices along it), then
    as asked, int64 vectors: ``return_index`` (first occurrences), ``return_inverse`` (for each
    input entry/slice, its position among the unique ones) and ``return_counts``."""

    __props__ = ("return_index", "return_inverse", "return_counts", "axis")

    def __init__(self, return_index: bool = False, return_inverse: bool = False,
                 return_counts: bool = False, axis: int | None = None) -> None:
        if axis is not None and not isinstance(axis, (int, np.integer)):
            raise TypeError(f"Unique: axis must be an int or None, got {axis!r}")
        self.return_index = bool(return_index)
        self.return_inverse = bool(return_inverse)
        self.return_counts = bool(return_counts)
        self.axis = None if axis is None else int(axis)

    def __str__(self) -> str:
        return (f"Unique{{return_index={self.return_index}, return_inverse="
                f"{self.return_inverse}, return_counts={self.return_counts}, axis={self.axis}}}")

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        if self.axis is None:
            values = TensorType(x.dtype, (False,))()
        else:
            if not -x.ndim <= self.axis < x.ndim:
                raise ValueError(f"{self}: axis {self.axis} is out of range for the {x.ndim}-d "
                                 f"input {x.type}")
            values = TensorType(x.dtype, (False,) * x.ndim)()
        extras = sum((self.return_index, self.return_inverse, self.return_counts))
        return Apply(self, [x], [values] + [TensorType("int64", (False,))()
                                            for _ in range(extras)])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        (x,) = inputs
        found = np.unique(x, return_index=self.return_index,
                          return_inverse=self.return_inverse,
                          return_counts=self.return_counts, axis=self.axis)
        found = found if isinstance(found, tuple) else (found,)
        output_storage[0][0] = np.asarray(found[0], dtype=x.dtype)
        for cell, extra in zip(output_storage[1:], found[1:]):
            # NumPy 2 shapes the inverse like the input when axis is None: Theano's is flat
            cell[0] = np.asarray(extra, dtype=np.int64).reshape(-1)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple | None]:
        """The inverse has one entry per input entry (per slice with ``axis``); the number of
        distinct values, and so every other output's size, is known only once computed."""
        shapes: list[tuple | None] = [None] * len(node.outputs)
        if self.return_inverse:
            (x_shape,) = input_shapes
            n = _prod(x_shape) if self.axis is None else x_shape[self.axis % len(x_shape)]
            shapes[1 + self.return_index] = (n,)
        return shapes
