"""``theano.tensor.nnet.confusion_matrix``: counts of (actual, predicted) label pairs."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.op import Op
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.core.type import TensorType

__all__ = ["ConfusionMatrix", "confusion_matrix"]


class ConfusionMatrix(Op):
    """Inputs ``(actual, pred)`` (label vectors of equal length); outputs the matrix
    ``conf[i, j]`` = number of samples of actual label ``order[i]`` predicted as ``order[j]``
    (int64), and ``order``, the sorted labels present in either vector."""

    __props__ = ()

    def make_node(self, actual: Any, pred: Any) -> Apply:
        actual, pred = as_tensor_variable(actual), as_tensor_variable(pred)
        for name, v in (("actual", actual), ("pred", pred)):
            # labels of any real dtype (float labels compare by value), as in Theano; a wrong
            # rank is Theano's ValueError
            if v.ndim != 1:
                raise ValueError(f"confusion_matrix: {name} must be a vector of labels, got "
                                 f"{v.type}")
            if dt.is_complex(v.dtype):
                raise TypeError(f"confusion_matrix: {name} must hold real labels, got {v.type}")
        order_dtype = dt.upcast(actual.dtype, pred.dtype)
        return Apply(self, [actual, pred], [TensorType("int64", (False, False)).make_variable(),
                                            TensorType(order_dtype, (False,)).make_variable()])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list) -> None:
        actual, pred = inputs
        if actual.shape != pred.shape:
            raise ValueError(f"confusion_matrix: actual has {actual.shape[0]} labels, pred "
                             f"{pred.shape[0]}")
        order = np.unique(np.concatenate([actual, pred]))
        rows, cols = np.searchsorted(order, actual), np.searchsorted(order, pred)
        conf = np.zeros((order.size, order.size), dtype="int64")
        np.add.at(conf, (rows, cols), 1)
        output_storage[0][0] = conf
        output_storage[1][0] = order.astype(node.outputs[1].dtype)

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        return [None, None]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[False, False], [False, False]]


def confusion_matrix(actual: Any, pred: Any) -> list:
    """``[conf_mat, order]`` (see :class:`ConfusionMatrix`)."""
    return ConfusionMatrix()(actual, pred)
