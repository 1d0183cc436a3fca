"""``Assert``: a value passed through unchanged once run-time conditions hold
(``theano.tensor.opt.Assert``, ``assert_op``).

``Assert(msg)(x, cond1, cond2, ...)`` is ``x``; running it raises ``AssertionError(msg)`` when
a condition (a scalar) is false. Libraries use it to check shapes or ranges at run time; the
result is a view of ``x``, its gradient is the output gradient and the conditions have none.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.gradient_types import disconnected_type
from jitgraph.graph.op import Op
from jitgraph.tensor.core.conversion import as_tensor_variable

__all__ = ["Assert", "assert_op", "assert_"]


class Assert(Op):
    """``Assert(msg)(x, *conds)``: ``x``, after checking that every scalar ``cond`` is true."""

    __props__ = ("msg",)
    view_map = {0: [0]}

    def __init__(self, msg: str = "Theano Assert failed!") -> None:
        self.msg = msg

    def make_node(self, value: Any, *conds: Any) -> Apply:
        value = as_tensor_variable(value)
        conditions = [as_tensor_variable(c) for c in conds]
        for cond in conditions:
            if cond.ndim != 0:
                raise TypeError(f"Assert: each condition must be a scalar, got {cond.type} "
                                f"(reduce it first, e.g. with all())")
        return Apply(self, [value, *conditions], [value.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        value, *conds = inputs
        output_storage[0][0] = value
        if not all(bool(np.all(c)) for c in conds):
            raise AssertionError(self.msg)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        return [tuple(input_shapes[0])]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True]] + [[False]] * (len(node.inputs) - 1)

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        return [output_grads[0]] + [disconnected_type() for _ in inputs[1:]]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        return [eval_points[0]]

    def __str__(self) -> str:
        return f"Assert{{msg='{self.msg}'}}"


#: the Assert with Theano's default message
assert_op = assert_ = Assert()
