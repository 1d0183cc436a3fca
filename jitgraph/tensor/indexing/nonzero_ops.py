"""Where a tensor is non-zero: :class:`Nonzero`, ``nonzero``, ``flatnonzero`` and
``nonzero_values`` (Theano 1.0's ``theano.tensor`` functions; the lengths of their results
depend on the data, so their shapes are only known at run time)."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.op import Op
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.shaping.shape import Shape_i, flatten
from jitgraph.tensor.core.type import TensorType

__all__ = ["Nonzero", "nonzero", "flatnonzero", "nonzero_values"]


class Nonzero(Op):
    """The indices of the non-zero entries of ``a`` as an int64 matrix: row ``d`` holds the
    indices along axis ``d`` (``numpy.nonzero`` stacked)."""

    __props__ = ()

    def make_node(self, a: Any) -> Apply:
        a = as_tensor_variable(a)
        if a.ndim == 0:
            raise ValueError(f"Nonzero only supports non-scalar arrays, got the scalar {a}")
        return Apply(self, [a], [TensorType("int64", (False, False)).make_variable()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        (a,) = inputs
        per_axis = np.nonzero(a)
        out = np.empty((a.ndim, per_axis[0].size), dtype="int64")
        for d, idx in enumerate(per_axis):
            out[d] = idx
        output_storage[0][0] = out

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        # the number of non-zeros is only known by computing them
        return [(node.inputs[0].ndim, Shape_i(1)(node.outputs[0]))]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[False]]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        return [None]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        return [None]


def nonzero(a: Any, return_matrix: bool = False) -> Any:
    """The indices of the non-zero entries of ``a``: a tuple of one int64 vector per axis
    (``numpy.nonzero``), or with ``return_matrix`` the ``a.ndim x count`` matrix of them."""
    matrix = Nonzero()(a)
    if return_matrix:
        return matrix
    return tuple(matrix[d] for d in range(matrix.owner.inputs[0].ndim))


def flatnonzero(a: Any) -> Variable:
    """The indices of the non-zero entries of ``a`` flattened (``numpy.flatnonzero``)."""
    a = as_tensor_variable(a)
    if a.ndim == 0:
        raise ValueError(f"flatnonzero: a must not be a scalar, got {a}")
    return nonzero(flatten(a, 1), return_matrix=True)[0]


def nonzero_values(a: Any) -> Variable:
    """The non-zero entries of ``a`` in flattened (C) order, like ``a[a.nonzero()]``."""
    a = as_tensor_variable(a)
    if a.ndim == 0:
        raise ValueError(f"nonzero_values: a must not be a scalar, got {a}")
    flat = flatten(a, 1)
    return flat[flatnonzero(flat)]
