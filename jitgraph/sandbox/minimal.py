"""``theano.sandbox.minimal``: ``Minimal``, the smallest possible op (Theano's example of one):
it takes any inputs, prints how many it got and the largest value of the first, and returns
the int64 scalar 0."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from jitgraph.graph.basic import Apply
from jitgraph.graph.op import Op
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.core.type import TensorType


class Minimal(Op):
    """``minimal(a, b, ...)``: an int64 scalar 0, computed in Python with a printout."""

    __props__ = ()

    def make_node(self, *args: Any) -> Apply:
        return Apply(self, [as_tensor_variable(a) for a in args], [TensorType("int64", ())()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        print(f"perform got {len(inputs)} arguments")
        print("Max of input[0] is ", np.max(inputs[0]))
        output_storage[0][0] = np.asarray(0, dtype="int64")

    def do_constant_folding(self, node: Apply) -> bool:
        return False  # the printout belongs to the run


minimal = Minimal()

__all__ = ["Minimal", "minimal"]
