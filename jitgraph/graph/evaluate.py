"""A direct reference evaluator: runs each node's NumPy ``perform`` in topological order.

Used by tests and by checking modes as the ground truth every backend is compared against.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from jitgraph.graph.basic import Constant, Variable, graph_inputs, io_toposort


def evaluate(outputs: Variable | Sequence[Variable], givens: Mapping[Variable, Any] | None = None
             ) -> Any:
    """Values of ``outputs`` given values for their free inputs (constants and shared variables
    supply their own)."""
    single = isinstance(outputs, Variable)
    outs = [outputs] if single else list(outputs)
    values: dict[Variable, Any] = {}
    for var, value in (givens or {}).items():
        values[var] = var.type.filter(value, allow_downcast=True)
    for var in graph_inputs(outs, list(values)):
        if var in values:
            continue
        if isinstance(var, Constant):
            values[var] = var.data
        elif hasattr(var, "get_value"):
            values[var] = var.get_value(borrow=True)
        else:
            raise ValueError(f"no value given for input {var}")
    for node in io_toposort(list(values), outs):
        storage: list[list[Any]] = [[None] for _ in node.outputs]
        node.op.perform(node, [values[i] for i in node.inputs], storage)
        for out, cell in zip(node.outputs, storage):
            values[out] = cell[0]
    result = [values[o] for o in outs]
    return result[0] if single else result
