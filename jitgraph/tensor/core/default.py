"""``default(x, fallback)``: ``x``, or a copy of ``fallback`` when the value of ``x`` is None."""

from __future__ import annotations

from typing import Any, Sequence

from jitgraph.graph.basic import Apply
from jitgraph.graph.op import Op
from jitgraph.tensor.core.conversion import as_tensor_variable


class Default(Op):
    """Returns its first input, or a copy of the second when the first holds None at run time.
    Both inputs must have the same type."""

    __props__ = ()  # no parameters: all instances are equal

    view_map = {0: [0]}

    def make_node(self, x: Any, fallback: Any) -> Apply:
        x, fallback = as_tensor_variable(x), as_tensor_variable(fallback)
        if x.type != fallback.type:
            raise TypeError(f"default() needs two arguments of the same type, got {x} "
                            f"({x.type}) and {fallback} ({fallback.type})")
        return Apply(self, [x, fallback], [x.type.make_variable()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, fallback = inputs
        output_storage[0][0] = fallback.copy() if x is None else x


default = Default()
setdefault = default  # Theano's second name for it

__all__ = ["Default", "default", "setdefault"]
