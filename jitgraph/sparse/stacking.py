"""Joining sparse matrices side by side (``hstack``) or on top of each other (``vstack``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from jitgraph.config import config
from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.op import Op
from jitgraph.sparse import helpers as H
from jitgraph.sparse.basic import SparseFromDense, csm_shape, dense_from_sparse
from jitgraph.sparse.scipy_support import scipy_sparse
from jitgraph.sparse.variable import as_sparse_variable
from jitgraph.tensor.elementwise.math import add


class HStack(Op):
    """Sparse matrices joined along columns into one of ``format`` and ``dtype``."""

    __props__ = ("format", "dtype")
    axis = 1

    def __init__(self, format: str | None = None, dtype: str | None = None) -> None:
        self.format = format or "csc"
        self.dtype = dtype or config.floatX

    def __str__(self) -> str:
        return f"{type(self).__name__}({self.format},{self.dtype})"

    def make_node(self, *blocks: Any) -> Apply:
        if not blocks:
            raise ValueError(f"{type(self).__name__} needs at least one matrix")
        blocks = [H.require_sparse(self, k, b) for k, b in enumerate(blocks)]
        return Apply(self, blocks, [H.sparse_out(self.format, self.dtype)])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        other = 1 - self.axis
        sizes = {b.shape[other] for b in inputs}
        if len(sizes) > 1:
            what = "rows" if other == 0 else "columns"
            shapes = ", ".join(f"{H.label(node, k)}: {b.shape}" for k, b in enumerate(inputs))
            raise ValueError(f"{self}: every block needs the same number of {what}; got "
                             f"{shapes}")
        join = scipy_sparse().hstack if self.axis == 1 else scipy_sparse().vstack
        out[0][0] = H.as_declared(join(inputs, format=self.format, dtype=self.dtype),
                                  node.outputs[0].type)

    def grad(self, inputs: Sequence[Variable], gout: Sequence[Variable]) -> list:
        gz = gout[0]
        if H.is_sparse_variable(gz):
            gz = dense_from_sparse(gz)
        grads: list = []
        start: Any = 0
        for block in inputs:
            stop = add(start, csm_shape(block)[self.axis]) if grads else \
                csm_shape(block)[self.axis]
            piece = gz[:, start:stop] if self.axis == 1 else gz[start:stop]
            continuous = block.dtype.startswith(("float", "complex"))
            grads.append(SparseFromDense(block.format)(piece) if continuous else None)
            start = stop
        return grads

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        total = shapes[0][self.axis]
        for s in shapes[1:]:
            total = add(total, s[self.axis])
        return [(shapes[0][0], total) if self.axis == 1 else (total, shapes[0][1])]


class VStack(HStack):
    """Sparse matrices joined along rows into one of ``format`` and ``dtype``."""

    axis = 0


def _stack(cls: type, blocks: Sequence[Any], format: str | None, dtype: str | None
           ) -> Variable:
    blocks = [as_sparse_variable(b) for b in blocks]
    if dtype is None:
        dtype = H.upcast(*[b.dtype for b in blocks])
    return cls(format=format, dtype=dtype)(*blocks)


def hstack(blocks: Sequence[Any], format: str | None = None, dtype: str | None = None
           ) -> Variable:
    """The sparse matrices ``blocks`` side by side (default format csc, dtype their
    upcast)."""
    return _stack(HStack, blocks, format, dtype)


def vstack(blocks: Sequence[Any], format: str | None = None, dtype: str | None = None
           ) -> Variable:
    """The sparse matrices ``blocks`` on top of each other (default format csc)."""
    return _stack(VStack, blocks, format, dtype)
