"""``theano.misc.doubleop``: ``DoubleOp``, the example op of the "extending" tutorial (it
doubles its input), with gradient, R-op and shape."""

from __future__ import annotations

from typing import Any, Sequence

from jitgraph.graph.basic import Apply
from jitgraph.graph.op import Op
from jitgraph.tensor.core.conversion import as_tensor_variable


class DoubleOp(Op):
    """``DoubleOp()(x)`` is ``x * 2``, computed in Python."""

    __props__ = ()

    def __str__(self) -> str:
        return type(self).__name__

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        output_storage[0][0] = inputs[0] * 2

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Any]) -> list:
        return list(input_shapes)

    def grad(self, inputs: Sequence[Any], output_grads: Sequence[Any]) -> list:
        return [output_grads[0] * 2]

    def R_op(self, inputs: Sequence[Any], eval_points: Sequence[Any]) -> list:
        if eval_points[0] is None:
            return list(eval_points)
        return self.grad(inputs, eval_points)


__all__ = ["DoubleOp"]
