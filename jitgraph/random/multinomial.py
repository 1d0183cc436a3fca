"""Categorical draws from uniform numbers: ``MultinomialFromUniform`` and ``ChoiceFromUniform``.

Both read ``pvals`` (one distribution per row) and a vector of uniform numbers; draw ``k`` of
row ``r`` uses ``unis[k * n_rows + r]`` (all rows' first draws, then all second draws), and an
outcome is the first ``j`` whose cumulative probability (summed in float64) exceeds the uniform
number. ``ChoiceFromUniform`` samples without replacement: after each draw the chosen outcome's
probability is set to 0 and the row renormalised. These are Theano's rules, so MRG draws pick
Theano's outcomes.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.op import Op
from jitgraph.tensor.core.basic import zeros_like
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.core.type import TensorType


def _first_exceeding(cumulative: np.ndarray, unis: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row, the first column whose cumulative value exceeds ``unis`` and whether any does."""
    above = unis[:, None] < cumulative
    return above.argmax(axis=1), above.any(axis=1)


def _check_inputs(pvals: np.ndarray, unis: np.ndarray, n: int, who: str) -> None:
    if unis.shape[0] != pvals.shape[0] * n:
        raise ValueError(f"{who}: unis has {unis.shape[0]} numbers, pvals has {pvals.shape[0]} "
                         f"rows and n is {n}: unis.shape[0] must be pvals.shape[0] * n")


class _FromUniform(Op):
    def _node(self, pvals: Any, unis: Any, n: Any, out_bcast: tuple, auto_dtype: str) -> Apply:
        pvals = as_tensor_variable(pvals)
        unis = as_tensor_variable(unis)
        n = as_tensor_variable(n)
        if pvals.ndim != 2:
            raise NotImplementedError(f"{self}: pvals must be a matrix (one distribution per "
                                      f"row), got {pvals.type}")
        if unis.ndim != 1:
            raise TypeError(f"{self}: unis must be a vector, got {unis.type}")
        if n.ndim != 0 or n.dtype[:3] not in ("int", "uin"):
            raise TypeError(f"{self}: n must be an integer scalar, got {n.type}")
        odtype = auto_dtype if self.odtype == "auto" else self.odtype
        return Apply(self, [pvals, unis, n], [TensorType(odtype, out_bcast)()])

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        # Zeros, as Theano's op answers: the distributions wrap pvals in undefined_grad, which
        # is where a gradient through the draw becomes undefined.

        return [zeros_like(inp) if k < 2 and not inp.dtype.startswith(("int", "uint")) else None
                for k, inp in enumerate(inputs)]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True], [True], [False]]


class MultinomialFromUniform(_FromUniform):
    """Counts of ``n`` draws per row (shape of ``pvals``), as ``odtype`` ('auto': pvals')."""

    __props__ = ("odtype",)

    def __init__(self, odtype: str = "auto") -> None:
        self.odtype = odtype

    def __str__(self) -> str:
        return f"MultinomialFromUniform{{{self.odtype}}}"

    __repr__ = __str__

    def make_node(self, pvals: Any, unis: Any, n: Any = 1) -> Apply:
        pv = as_tensor_variable(pvals)
        return self._node(pv, unis, n, tuple(pv.broadcastable), pv.dtype)

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        pvals, unis, n = inputs
        n = int(n)
        _check_inputs(pvals, unis, n, str(self))
        rows = pvals.shape[0]
        cumulative = np.cumsum(pvals.astype(np.float64), axis=1)
        counts = np.zeros(pvals.shape, dtype=np.int64)
        index = np.arange(rows)
        for k in range(n):
            pick, found = _first_exceeding(cumulative, unis[k * rows:(k + 1) * rows])
            np.add.at(counts, (index[found], pick[found]), 1)
        output_storage[0][0] = counts.astype(node.outputs[0].dtype)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence) -> list:
        return [input_shapes[0]]


class ChoiceFromUniform(_FromUniform):
    """``n`` distinct outcomes per row (shape (rows, n)), drawn without replacement, as
    ``odtype`` ('auto': int64, as in Theano)."""

    __props__ = ("odtype", "replace")

    def __init__(self, odtype: str = "auto", replace: bool = False) -> None:
        if replace:
            raise NotImplementedError("ChoiceFromUniform samples without replacement only")
        self.odtype = odtype
        self.replace = False

    def __str__(self) -> str:
        return f"ChoiceFromUniform{{odtype={self.odtype!r}, replace=False}}"

    __repr__ = __str__

    def make_node(self, pvals: Any, unis: Any, n: Any = 1) -> Apply:
        pv = as_tensor_variable(pvals)
        # (rows, n) with pvals' pattern, as Theano's type: rows of one outcome (broadcastable)
        # give one draw, which n cannot exceed
        return self._node(pv, unis, n, tuple(pv.broadcastable), "int64")

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        pvals, unis, n = inputs
        n = int(n)
        if n > pvals.shape[1]:
            raise ValueError("Cannot sample without replacement n samples bigger than the size "
                             "of the distribution.")
        _check_inputs(pvals, unis, n, str(self))
        rows = pvals.shape[0]
        p = np.array(pvals, copy=True)
        out = np.empty((rows, n), dtype=node.outputs[0].dtype)
        index = np.arange(rows)
        for k in range(n):
            cumulative = np.cumsum(p.astype(np.float64), axis=1)
            pick, found = _first_exceeding(cumulative, unis[k * rows:(k + 1) * rows])
            # rounding can leave the total just below the uniform number: take the last
            # outcome still possible
            last = p.shape[1] - 1 - np.argmax((p > 0)[:, ::-1], axis=1)
            pick = np.where(found, pick, last)
            out[:, k] = pick
            p[index, pick] = 0
            with np.errstate(invalid="ignore", divide="ignore"):
                p = p / p.sum(axis=1, keepdims=True, dtype=p.dtype)
        output_storage[0][0] = out

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence) -> list:
        return [(input_shapes[0][0], node.inputs[2])]
