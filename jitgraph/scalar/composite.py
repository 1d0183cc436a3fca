"""``Composite(inputs, outputs)``: a scalar graph turned into one scalar op (usable with
``Elemwise``), as Theano users write it."""

from __future__ import annotations

from typing import Any, Sequence

from jitgraph.graph.basic import Constant, Variable, io_toposort
from jitgraph.scalar.apply import ScalarGraphOp
from jitgraph.tensor.elementwise.composite import Composite as FusedComposite


def _program(inputs: Sequence[Variable], outputs: Sequence[Variable]) -> tuple:
    """``(in_dtypes, steps, output_refs)`` of the scalar graph from ``inputs`` to ``outputs``."""
    refs: dict[Variable, int] = {v: k for k, v in enumerate(inputs)}
    if len(refs) != len(inputs):
        raise ValueError("Composite: an input is listed twice")
    steps = []
    for node in io_toposort(list(inputs), list(outputs)):
        if not isinstance(node.op, ScalarGraphOp) or node.op.scalar_op.nout != 1:
            raise TypeError(f"Composite: {node.op} is not a single-output scalar op; the graph "
                            "must be built from scalar ops on scalar variables")
        args = []
        for arg in node.inputs:
            if arg in refs:
                args.append(refs[arg])
            elif isinstance(arg, Constant):
                raise ValueError(
                    f"Composite: the constant {arg} is inside the graph; jitgraph's fused "
                    "programs take constants as inputs (so one kernel serves every value): add "
                    "a scalar input for it and pass the constant when applying the op")
            else:
                raise ValueError(f"Composite: {arg} is not computed from the given inputs")
        refs[node.outputs[0]] = len(inputs) + len(steps)
        steps.append((node.op.scalar_op, tuple(args), node.outputs[0].dtype))
    missing = [o for o in outputs if o not in refs]
    if missing:
        raise ValueError(f"Composite: outputs {missing} are not computed from the inputs")
    return tuple(v.dtype for v in inputs), steps, [refs[o] for o in outputs]


class Composite(FusedComposite):
    """The scalar graph from the scalar variables ``inputs`` to ``outputs`` as one scalar op:
    ``Elemwise(Composite([x, y], [x * y + x]))`` evaluates it elementwise in one kernel."""

    def __init__(self, inputs: Sequence[Variable], outputs: Sequence[Variable]) -> None:
        super().__init__(*_program(inputs, outputs))

    def __reduce__(self) -> Any:
        return (FusedComposite, (self.in_dtypes, self.steps, self.outputs))


__all__ = ["Composite"]
