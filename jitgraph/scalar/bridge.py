"""Between scalars and 0-d tensors: ``tensor_from_scalar`` and ``scalar_from_tensor``."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.op import Op
from jitgraph.scalar.type import get_scalar_type
from jitgraph.scalar.var import as_scalar
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.core.type import TensorType


class TensorFromScalar(Op):
    """A scalar variable as a 0-d tensor of the same dtype."""

    __props__ = ()  # no parameters: all instances are equal
    keeps_input_value = True  # get_scalar_constant_value looks through it

    def make_node(self, s: Any) -> Apply:
        s = as_scalar(s)
        return Apply(self, [s], [TensorType(s.dtype, ()).make_variable()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        output_storage[0][0] = np.asarray(inputs[0], dtype=node.outputs[0].dtype)

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        return [scalar_from_tensor(output_grads[0])]

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        return [()]


class ScalarFromTensor(Op):
    """A 0-d tensor as a scalar variable of the same dtype."""

    __props__ = ()  # no parameters: all instances are equal
    keeps_input_value = True  # get_scalar_constant_value looks through it

    def make_node(self, t: Any) -> Apply:
        t = as_tensor_variable(t)
        if t.ndim != 0:
            raise TypeError(f"scalar_from_tensor needs a 0-d tensor, got {t} of type {t.type}")
        return Apply(self, [t], [get_scalar_type(t.dtype).make_variable()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        output_storage[0][0] = np.asarray(inputs[0]).copy()[()]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        return [tensor_from_scalar(output_grads[0])]


tensor_from_scalar = TensorFromScalar()
scalar_from_tensor = ScalarFromTensor()


__all__ = ["TensorFromScalar", "ScalarFromTensor", "tensor_from_scalar", "scalar_from_tensor"]
