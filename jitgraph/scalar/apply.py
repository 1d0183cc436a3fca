"""Scalar ops applied to scalar variables: ``theano.scalar.add(x, y)`` builds a scalar graph.

The scalar-op table (``jitgraph.tensor.elementwise.scalar_ops``) holds per-element functions, which
``Elemwise`` maps over arrays. Applied to scalar variables, a scalar op becomes the graph op
:class:`ScalarGraphOp` wrapping it: its value is the table entry's NumPy reference on NumPy
scalars, and its gradient is the entry's gradient rule, evaluated on 0-d tensors.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.op import Op
from jitgraph.scalar.bridge import scalar_from_tensor, tensor_from_scalar
from jitgraph.scalar.type import get_scalar_type
from jitgraph.scalar.var import as_scalar, cast
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.elementwise.elemwise import Elemwise


class ScalarGraphOp(Op):
    """A node of a scalar graph: ``scalar_op`` applied to scalar variables. It prints as the
    scalar op (``add``) and its ``scalar_op`` attribute is the table entry."""

    __props__ = ("scalar_op",)

    def __init__(self, scalar_op: Any) -> None:
        self.scalar_op = scalar_op

    def __str__(self) -> str:
        return str(self.scalar_op)

    __repr__ = __str__

    def make_node(self, *inputs: Any) -> Apply:
        sop = self.scalar_op
        if sop.nin not in (-1, len(inputs)):
            raise TypeError(f"{sop} takes {sop.nin} inputs, got {len(inputs)}")
        if not inputs:
            raise TypeError(f"{sop} needs at least one input")
        scalars = [as_scalar(i) for i in inputs]
        out_dtypes = sop.output_dtypes(*[s.dtype for s in scalars])
        return Apply(self, scalars, [get_scalar_type(d).make_variable() for d in out_dtypes])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        if len(node.outputs) == 1:
            results = (self.scalar_op.compute(inputs, node.outputs[0].dtype),)
        else:
            results = self.scalar_op.impl(*inputs)
        for cell, out, value in zip(output_storage, node.outputs, results):
            cell[0] = np.asarray(value, dtype=out.dtype)[()]

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list:
        if len(outputs) != 1:
            raise NotImplementedError(f"{self} has several outputs: differentiate the scalar "
                                      "graph it was built from")
        as_tensor = [as_tensor_variable(v) for v in (*inputs, outputs[0], output_grads[0])]
        grads = self.scalar_op.grad(as_tensor[:-2], as_tensor[-2], as_tensor[-1])
        return [None if g is None else _as_scalar_of(scalar_from_tensor(as_tensor_variable(g)),
                                                     x.dtype)
                for g, x in zip(grads, inputs)]


def _as_scalar_of(g: Variable, dtype: str) -> Variable:
    return g if dt.is_discrete(dtype) else cast(g, dtype)


def apply_scalar_op(scalar_op: Any, *inputs: Any) -> Any:
    """``scalar_op`` applied to scalar variables (or 0-d tensors, or numbers): its output
    variable (a list when it has several). With a tensor of rank 1 or more among the inputs,
    the op is applied elementwise instead (``Elemwise(scalar_op)``): this is what the gradient
    of a user-defined scalar op receives (see :mod:`jitgraph.scalar.custom`)."""
    if any(isinstance(i, Variable) and getattr(i.type, "ndim", 0) > 0 for i in inputs):
        return Elemwise(scalar_op)(*inputs)
    return ScalarGraphOp(scalar_op)(*inputs)


__all__ = ["ScalarGraphOp", "apply_scalar_op"]
