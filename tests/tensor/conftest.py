"""Helpers shared by the tensor tests."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from jitgraph.graph.basic import Variable
from jitgraph.graph.evaluate import evaluate


def check_infer_shape(outputs: Any, givens: dict) -> None:
    """Assert that each output's ``infer_shape`` (fed symbolic and then Python-int input shapes)
    gives the shape the output actually has."""
    from jitgraph.tensor.shaping.shape import shape_i

    outs = [outputs] if isinstance(outputs, Variable) else list(outputs)
    for out in outs:
        node = out.owner
        values = evaluate(list(node.inputs) + [out], givens)
        in_values, actual = values[:-1], np.shape(values[-1])
        symbolic = [tuple(shape_i(i, d) for d in range(i.ndim)) for i in node.inputs]
        concrete = [tuple(np.shape(v)) for v in in_values]
        for in_shapes in (symbolic, concrete):
            inferred = node.op.infer_shape(None, node, in_shapes)[out.index]
            assert len(inferred) == out.ndim, (node.op, inferred)
            dims = []
            for d in inferred:
                if isinstance(d, Variable):
                    assert d.ndim == 0 and d.dtype == "int64", (node.op, d.type)
                    dims.append(int(evaluate(d, givens)))
                else:
                    assert isinstance(d, (int, np.integer)), (node.op, d)
                    dims.append(int(d))
            assert tuple(dims) == actual, (node.op, in_shapes, dims, actual)


@pytest.fixture(scope="session")
def infer_shape_ok():
    """The :func:`check_infer_shape` helper."""
    return check_infer_shape
