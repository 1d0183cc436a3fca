"""``ViewOp``: the identity as an op; its output is a view of its input.

It marks a point in a graph without computing anything: Theano's ``theano.compile.view_op``, and
the base of the gradient-blocking ops of :mod:`jitgraph.gradient` (``zero_grad``,
``disconnected_grad``, ``grad_clip``...), which change only how gradients flow through that point.
The rewrites remove every ViewOp when a function is compiled
(:mod:`jitgraph.rewrite.view_ops`), so compiled code never pays for one.
"""

from __future__ import annotations

from typing import Any, Sequence

from jitgraph import services
from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.op import Op


class ViewOp(Op):
    """Returns its input unchanged (a view of it); works on variables of any type."""

    __props__: tuple[str, ...] = ()
    view_map = {0: [0]}

    def __str__(self) -> str:
        return type(self).__name__

    def make_node(self, x: Any) -> Apply:
        if not isinstance(x, Variable):
            x = services.get("as_tensor_variable")(x)
        return Apply(self, [x], [x.type.make_variable()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        output_storage[0][0] = inputs[0]

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        return [tuple(input_shapes[0])]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        return list(output_grads)

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        return list(eval_points)


view_op = ViewOp()
