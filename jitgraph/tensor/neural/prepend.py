"""Adding a first column to a matrix: ``prepend_scalar_to_each_row`` and the constant variants
``prepend_0_to_each_row``/``prepend_1_to_each_row`` of ``theano.tensor.nnet``."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.op import Op
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.core.type import TensorType

__all__ = ["Prepend_scalar_constant_to_each_row", "Prepend_scalar_to_each_row",
           "prepend_scalar_to_each_row", "prepend_0_to_each_row", "prepend_1_to_each_row"]


def _matrix(mat: Any, who: str) -> Variable:
    mat = as_tensor_variable(mat)
    if mat.ndim != 2:
        raise TypeError(f"{who}: mat must be a matrix, got {mat.type}")
    return mat


def _prepend(value: Any, mat: np.ndarray, dtype: str) -> np.ndarray:
    out = np.empty((mat.shape[0], mat.shape[1] + 1), dtype=dtype)
    out[:, 0] = value
    out[:, 1:] = mat
    return out


class Prepend_scalar_constant_to_each_row(Op):  # noqa: N801 - Theano's name
    """``[val, row...]`` for each row of a matrix; ``val`` a constant parameter."""

    __props__ = ("val",)

    def __init__(self, val: float = 0) -> None:
        self.val = float(val)

    def make_node(self, mat: Any) -> Apply:
        mat = _matrix(mat, "prepend_scalar_to_each_row")
        return Apply(self, [mat], [TensorType(mat.dtype, (False, False)).make_variable()])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list) -> None:
        output_storage[0][0] = _prepend(self.val, inputs[0], node.outputs[0].dtype)

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        return [output_grads[0][:, 1:]]

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        rows, cols = input_shapes[0]
        return [(rows, cols + 1)]


class Prepend_scalar_to_each_row(Op):  # noqa: N801 - Theano's name
    """``[val, row...]`` for each row of ``mat``; ``val`` a scalar input."""

    __props__ = ()

    def make_node(self, val: Any, mat: Any) -> Apply:
        val, mat = as_tensor_variable(val), _matrix(mat, "prepend_scalar_to_each_row")
        if val.ndim != 0:
            raise TypeError(f"prepend_scalar_to_each_row: val must be a scalar, got {val.type}")
        dtype = dt.upcast(val.dtype, mat.dtype)
        return Apply(self, [val, mat], [TensorType(dtype, (False, False)).make_variable()])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list) -> None:
        val, mat = inputs
        output_storage[0][0] = _prepend(val, mat, node.outputs[0].dtype)

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        (g,) = output_grads
        return [g[:, 0].sum(), g[:, 1:]]

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        rows, cols = input_shapes[1]
        return [(rows, cols + 1)]


prepend_scalar_to_each_row = Prepend_scalar_to_each_row()
prepend_0_to_each_row = Prepend_scalar_constant_to_each_row(0.0)
prepend_1_to_each_row = Prepend_scalar_constant_to_each_row(1.0)
