"""Integer labels and bins: ``bincount`` (occurrences of each label, optionally weighted),
``searchsorted`` (the bin of each value in a sorted vector, ``SearchsortedOp``) and
``to_one_hot`` (labels as rows of an indicator matrix), as in ``theano.tensor.extra_ops``.

``bincount`` and ``to_one_hot`` are graphs of indexing ops (as in Theano), so they differentiate
with respect to the weights and run compiled wherever indexing does; like Theano's, they index
with the labels directly, so a negative label counts from the end (``bincount`` refuses it with
``assert_nonneg=True``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.gradient_types import disconnected_type
from jitgraph.graph.op import Op
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.core.basic import zeros, zeros_like
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.core.type import TensorType
from jitgraph.tensor.elementwise.math import cast, maximum
from jitgraph.tensor.indexing.subtensor import advanced_inc_subtensor1, set_subtensor

__all__ = ["NonNegativeCheck", "SearchsortedOp", "bincount", "searchsorted", "to_one_hot"]


def _is_integer(dtype: str) -> bool:
    return dt.is_discrete(dtype) and dtype != "bool"


class NonNegativeCheck(Op):
    """Passes an integer array through, raising ``AssertionError(msg)`` at run time when an
    entry is negative (``bincount(..., assert_nonneg=True)``)."""

    __props__ = ("msg",)
    view_map = {0: [0]}

    def __init__(self, msg: str = "the input has negative values") -> None:
        self.msg = msg

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        (x,) = inputs
        if np.size(x) and np.min(x) < 0:
            raise AssertionError(self.msg)
        output_storage[0][0] = x

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        return [tuple(input_shapes[0])]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        return [output_grads[0]]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        return [eval_points[0]]


def bincount(x: Any, weights: Any = None, minlength: Any = None,
             assert_nonneg: bool = False) -> Variable:
    """Count of each value ``0..max(x)`` in the integer vector ``x`` (``numpy.bincount``):
    output ``k`` is the number of entries equal to ``k``, or the sum of their ``weights``.

    The output has ``max(max(x) + 1, minlength)`` entries and ``x``'s dtype (``weights``' dtype
    when weighted). ``assert_nonneg=True`` checks at run time that no entry is negative.
    """
    x = as_tensor_variable(x)
    if not _is_integer(x.dtype):
        raise TypeError(f"bincount: x must hold integers, got {x.type}")
    if x.ndim != 1:
        raise TypeError(f"bincount: x must be a vector, got the {x.ndim}-d {x.type}")
    if assert_nonneg:
        x = NonNegativeCheck("Input to bincount has negative values!")(x)
    length = cast(x.max() + 1, "int64")
    if minlength is not None:
        length = maximum(length, cast(as_tensor_variable(minlength), "int64"))
    if weights is None:
        return advanced_inc_subtensor1(zeros([length], dtype=x.dtype),
                                       np.ones((), dtype=x.dtype), x)
    weights = as_tensor_variable(weights)
    if weights.ndim != 1:
        raise TypeError(f"bincount: weights must be a vector like x, got {weights.type}")
    return advanced_inc_subtensor1(zeros([length], dtype=weights.dtype), weights, x)


class SearchsortedOp(Op):
    """Indices where the values ``v`` would be inserted into the sorted vector ``x`` to keep it
    sorted (``numpy.searchsorted``); an optional integer ``sorter`` sorts ``x``."""

    __props__ = ("side",)

    def __init__(self, side: str = "left") -> None:
        if side not in ("left", "right"):
            raise ValueError(f"SearchsortedOp: side must be 'left' or 'right', got {side!r}")
        self.side = side

    def __str__(self) -> str:
        return f"SearchsortedOp{{side={self.side!r}}}"

    def make_node(self, x: Any, v: Any, sorter: Any = None) -> Apply:
        x = as_tensor_variable(x)
        v = as_tensor_variable(v)
        # Theano's choice: a wrong rank is a ValueError, a wrong dtype a TypeError
        if x.ndim != 1:
            raise ValueError(f"{self}: the sorted array (x) must be a vector, got {x.type}")
        inputs = [x, v]
        if sorter is not None:
            sorter = as_tensor_variable(sorter)
            if sorter.ndim != 1:
                raise ValueError(f"{self}: sorter must be a vector, got {sorter.type}")
            if not _is_integer(sorter.dtype):
                raise TypeError(f"{self}: sorter must hold integers, got {sorter.type}")
            inputs.append(sorter)
        return Apply(self, inputs, [TensorType("int64", v.broadcastable)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, v = inputs[:2]
        sorter = inputs[2] if len(inputs) == 3 else None
        found = np.searchsorted(x, v, side=self.side, sorter=sorter)
        output_storage[0][0] = np.asarray(found, dtype=np.int64)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        return [tuple(input_shapes[1])]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True], [True]] + [[False]] * (len(node.inputs) - 2)

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        # a piecewise-constant function of x and v: zero gradient
        grads = [None if dt.is_discrete(i.dtype) else zeros_like(i, dtype=i.dtype)
                 for i in inputs[:2]]
        return grads + [disconnected_type()] * (len(inputs) - 2)

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        if all(e is None for e in eval_points[:2]):
            return [None]
        return [zeros_like(self(*inputs), dtype="float64")]


def searchsorted(x: Any, v: Any, side: str = "left", sorter: Any = None) -> Variable:
    """For each value of ``v``, the index at which inserting it into the sorted vector ``x``
    keeps ``x`` sorted (``numpy.searchsorted``; ``side='right'`` goes after equal entries).
    ``sorter``: integer indices that sort ``x`` (e.g. ``argsort(x)``). Output: int64, ``v``'s
    shape."""
    return SearchsortedOp(side=side)(x, v, sorter)


def to_one_hot(y: Any, nb_class: Any, dtype: str | None = None) -> Variable:
    """The integer label vector ``y`` as a ``(len(y), nb_class)`` matrix with a 1 in column
    ``y[i]`` of row ``i`` and 0 elsewhere (``dtype``: default ``floatX``)."""
    from jitgraph.tensor.extras.extra_ops import arange

    y = as_tensor_variable(y)
    if not _is_integer(y.dtype):
        raise TypeError(f"to_one_hot: y must hold integer labels, got {y.type}")
    if y.ndim != 1:
        raise TypeError(f"to_one_hot: y must be a vector of labels, got the {y.ndim}-d "
                        f"{y.type}")
    dtype = dt.floatx() if dtype is None else dt.normalize_dtype(dtype)
    n = y.shape[0]
    rows = zeros((n, nb_class), dtype=dtype)
    return set_subtensor(rows[arange(n), y], np.ones((), dtype=dtype))
