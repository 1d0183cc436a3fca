"""``theano.sparse_grad(x[ilist])``: the same indexing, whose gradient with respect to ``x``
is a sparse matrix holding only the indexed rows (cheap for a large embedding matrix)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from jitgraph.graph.basic import Variable
from jitgraph.sparse.indexing import construct_sparse_from_list
from jitgraph.tensor.indexing.subtensor_ops import AdvancedSubtensor1


class SparseGradAdvancedSubtensor1(AdvancedSubtensor1):
    """``x[ilist]`` (rows of x) with a sparse gradient for ``x``."""

    def __str__(self) -> str:
        return "AdvancedSubtensor1"

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        x, ilist = inputs
        if x.ndim != 2:
            raise TypeError("sparse_grad: a sparse gradient exists only for matrices (a "
                            f"sparse matrix is 2-d), {x} has {x.ndim} dimensions")
        if not x.dtype.startswith(("float", "complex")):
            return [None, None]
        return [construct_sparse_from_list(x, output_grads[0], ilist), None]


def sparse_grad(var: Any) -> Variable:
    """``var`` (the result of ``x[ilist]`` for a matrix ``x`` and an integer vector
    ``ilist``) rebuilt so that its gradient with respect to ``x`` is sparse."""
    owner = getattr(var, "owner", None)
    if owner is None or not isinstance(owner.op, AdvancedSubtensor1):
        op = owner.op if owner is not None else "no op (a graph input)"
        raise TypeError(f"sparse_grad works on x[ilist] (AdvancedSubtensor1) only; {var} comes "
                        f"from {op}")
    return SparseGradAdvancedSubtensor1()(*owner.inputs)
