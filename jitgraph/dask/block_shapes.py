"""Output shapes of a graph for given input shapes, by shape inference (no trial call).

The graph's :class:`~jitgraph.tensor.rewriting.shape.ShapeFeature` gives every output's shape as small
integer graphs over the inputs' dims (``Shape_i(k)(x)``); those dims are given their values and
the integer graphs evaluated with the ops' NumPy ``perform``. An op without ``infer_shape``
leaves a dim that only running the graph could tell: that is reported, naming the op.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from jitgraph.graph.basic import Constant, Variable, ancestors
from jitgraph.graph.evaluate import evaluate
from jitgraph.graph.fg import FunctionGraph
from jitgraph.tensor.rewriting.shape import ShapeFeature
from jitgraph.tensor.shaping.shape import Shape_i

__all__ = ["ShapeInference", "ShapeInferenceError"]


class ShapeInferenceError(ValueError):
    """An output's shape cannot be known from the input shapes alone."""


class ShapeInference:
    """The symbolic output shapes of ``outputs`` over ``inputs`` (every free variable of the
    graph must be among ``inputs``); :meth:`evaluate` turns them into tuples of ints."""

    def __init__(self, inputs: Sequence[Variable], outputs: Sequence[Variable]) -> None:
        self.fgraph = FunctionGraph(list(inputs), list(outputs), clone=True)
        feature = ShapeFeature()
        self.fgraph.attach_feature(feature)
        self.dims = [feature.get_shape(o) or () for o in self.fgraph.outputs]
        self._input_dims = self._find_input_dims()

    def _find_input_dims(self) -> dict[Variable, tuple[int, int]]:
        """Each ``Shape_i(d)(input k)`` the shapes use -> ``(k, d)``; anything else that
        refers to the graph's values is a dim only known at run time."""
        position = {v: k for k, v in enumerate(self.fgraph.inputs)}

        found: dict[Variable, tuple[int, int]] = {}
        flat = [d for dims in self.dims for d in dims]
        graph_vars = self.fgraph.variables
        for var in ancestors(flat):
            node = var.owner
            if node is not None and isinstance(node.op, Shape_i) and node.inputs[0] in position:
                found[var] = (position[node.inputs[0]], node.op.i)
        # A dim that reaches a graph value other than through Shape_i(input) needs a run.
        for var in ancestors(flat, blockers=list(found)):
            if var in found or isinstance(var, Constant):
                continue
            if var in graph_vars and var not in position:
                op = var.owner.op if var.owner is not None else var
                raise ShapeInferenceError(
                    f"the shape of an output depends on the value of {var}, computed by {op}, "
                    "which has no infer_shape: give the op an infer_shape")
        return found

    def evaluate(self, input_shapes: Sequence[Sequence[int]]) -> list[tuple[int, ...]]:
        """The outputs' shapes when the inputs have ``input_shapes`` (in the order of the
        inputs given to the constructor)."""
        givens = {var: np.int64(input_shapes[k][d]) for var, (k, d) in self._input_dims.items()}
        flat = [d for dims in self.dims for d in dims]
        if not flat:
            return [() for _ in self.dims]
        values = iter(evaluate(flat, givens))
        return [tuple(int(next(values)) for _ in dims) for dims in self.dims]
