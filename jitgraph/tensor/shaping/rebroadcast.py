"""``Rebroadcast``: Theano's op that sets the broadcastable flag of chosen dims of a tensor.

jitgraph's own ``patternbroadcast``/``addbroadcast``/``unbroadcast`` build ``Unbroadcast`` and
``SpecifyShape`` nodes; this op exists for programs that build ``Rebroadcast((axis, flag), ...)``
themselves or look for it in a graph (``theano.compile.Rebroadcast``, ``theano.tensor.Rebroadcast``).
The value is returned as a view; a dim made broadcastable is checked to have length 1.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.op import Op
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.core.type import TensorType


class Rebroadcast(Op):
    """``Rebroadcast((axis, flag), ...)(x)``: ``x`` with dim ``axis`` broadcastable iff ``flag``.

    Dims that are not listed keep their flag. Setting a flag to True asserts, at run time, that
    the dim has length 1.
    """

    __props__ = ("axis",)
    view_map = {0: [0]}

    def __init__(self, *axis: tuple[int, bool]) -> None:
        flags: dict[int, bool] = {}
        for pair in axis:
            if not (isinstance(pair, (tuple, list)) and len(pair) == 2):
                raise TypeError(f"Rebroadcast takes (axis, flag) pairs, got {pair!r}")
            dim, flag = pair
            if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool) or dim < 0:
                raise ValueError(f"Rebroadcast needs non-negative int axes, got {dim!r}")
            flags[int(dim)] = bool(flag)
        #: ((axis, flag), ...) sorted by axis
        self.axis = tuple(sorted(flags.items()))

    def __str__(self) -> str:
        if not self.axis:
            return "Rebroadcast{}"
        pattern = ["?"] * (self.axis[-1][0] + 1)
        for dim, flag in self.axis:
            pattern[dim] = str(int(flag))
        return "Rebroadcast{" + ",".join(pattern) + "}"

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        if self.axis and self.axis[-1][0] >= x.ndim:
            raise ValueError(f"{self}: axis {self.axis[-1][0]} is out of range for the "
                             f"{x.ndim}-d {x}")
        flags = dict(self.axis)
        bcast = [flags.get(d, b) for d, b in enumerate(x.broadcastable)]
        return Apply(self, [x], [TensorType(x.dtype, bcast).make_variable()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        (x,) = inputs
        for dim, flag in self.axis:
            if flag and x.shape[dim] != 1:
                raise ValueError(f"{self}: dimension {dim} of the input was declared "
                                 f"broadcastable but has length {x.shape[dim]} (input shape "
                                 f"{x.shape})")
        output_storage[0][0] = x

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        (x,) = inputs
        restore = [(dim, x.broadcastable[dim]) for dim, _ in self.axis]
        return [Rebroadcast(*restore)(output_grads[0])]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        if eval_points[0] is None:
            return [None]
        return [self(eval_points[0])]

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        flags = dict(self.axis)
        return [tuple(1 if flags.get(d) else s for d, s in enumerate(input_shapes[0]))]


__all__ = ["Rebroadcast"]
