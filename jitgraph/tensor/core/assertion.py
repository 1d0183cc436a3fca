"""``Assert(msg)(x, *conditions)``: ``x``, checked at run time (Theano's ``tensor.opt.Assert``)."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.gradient_types import disconnected_type
from jitgraph.graph.op import Op
from jitgraph.tensor.core.conversion import as_tensor_variable


class Assert(Op):
    """Returns its first input (a view of it) after checking that every other input, a 0-d
    condition, is true when the function runs; else raises ``AssertionError(msg)``.

    Not constant-folded: a failing check on constants fails when the function runs, not when
    it is compiled. The gradient flows to the value only.
    """

    __props__ = ("msg",)
    view_map = {0: [0]}

    def __init__(self, msg: str = "Theano Assert failed!") -> None:
        self.msg = msg

    def make_node(self, value: Any, *conditions: Any) -> Apply:
        if not isinstance(value, Variable):
            value = as_tensor_variable(value)
        conds = [as_tensor_variable(c) for c in conditions]
        for c in conds:
            if c.ndim != 0:
                raise TypeError(f"Assert: each condition must be a 0-d tensor, got {c} "
                                f"({c.type}); reduce it first, e.g. with all()")
        return Apply(self, [value, *conds], [value.type.make_variable()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        if not all(bool(np.all(c)) for c in inputs[1:]):
            raise AssertionError(self.msg)
        output_storage[0][0] = inputs[0]

    def do_constant_folding(self, node: Apply) -> bool:
        return False

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        return [output_grads[0]] + [disconnected_type() for _ in inputs[1:]]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True]] + [[False] for _ in node.inputs[1:]]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list:
        return [eval_points[0]]

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list:
        return [input_shapes[0]]


#: Theano's instance, under both of its names
assert_op = assert_ = Assert()

__all__ = ["Assert", "assert_op", "assert_"]
