"""``permute_row_elements(x, y, inverse=False)``: reorder the last axis of ``x`` by the
permutations ``y`` (Theano's ``PermuteRowElements``, used by ``shuffle_row_elements``).

``out[..., j] = x[..., y[..., j]]``; with ``inverse``, ``out[..., y[..., j]] = x[..., j]``. The
leading axes of ``x`` and ``y`` broadcast against each other. The gradient with respect to
``x`` permutes the output gradient back (the inverse permutation).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.op import Op
from jitgraph.tensor import as_tensor_variable as atv, eq
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.core.type import TensorType
from jitgraph.tensor.elementwise.elemwise import _fit_gradient, _pad_left


class PermuteRowElements(Op):
    """Inputs ``(x, y, inverse)``: data, integer permutations, and an int8 flag."""

    __props__ = ()

    def make_node(self, x: Any, y: Any, inverse: Any) -> Apply:
        x, y, inverse = (as_tensor_variable(v) for v in (x, y, inverse))
        if y.dtype[:3] not in ("int", "uin"):
            raise TypeError(f"permute_row_elements: y must hold integer permutations, got "
                            f"{y.type}")
        if inverse.ndim != 0:
            raise TypeError("permute_row_elements: inverse must be a scalar flag")
        ndim = max(x.ndim, y.ndim)
        x, y = _pad_left(x, ndim), _pad_left(y, ndim)
        bcast = tuple(bx and by for bx, by in zip(x.broadcastable[:-1], y.broadcastable[:-1]))
        out = TensorType(x.dtype, bcast + (x.broadcastable[-1] and y.broadcastable[-1],))
        return Apply(self, [x, y, inverse], [out()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, y, inverse = inputs
        lead = np.broadcast_shapes(x.shape[:-1], y.shape[:-1])
        if x.shape[-1] != y.shape[-1]:
            raise ValueError(f"permute_row_elements: rows of length {x.shape[-1]} and "
                             f"permutations of length {y.shape[-1]}")
        xb = np.broadcast_to(x, lead + x.shape[-1:])
        yb = np.broadcast_to(y, lead + y.shape[-1:])
        if inverse:
            out = np.empty(xb.shape, dtype=x.dtype)
            np.put_along_axis(out, yb.astype(np.intp), xb, axis=-1)
        else:
            out = np.take_along_axis(xb, yb.astype(np.intp), axis=-1)
        output_storage[0][0] = np.ascontiguousarray(out)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence) -> list:
        x = node.inputs[0]
        xs, ys, _ = input_shapes
        dims = [ys[d] if x.broadcastable[d] else xs[d] for d in range(x.ndim - 1)]
        return [tuple(dims) + (xs[-1],)]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        x, y, inverse = inputs
        (gz,) = output_grads
        gx = permute_row_elements(gz, y, eq(inverse, 0))
        return [_fit_gradient(gx, x), None, None]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True], [False], [False]]


_permute = PermuteRowElements()


def permute_row_elements(x: Any, y: Any, inverse: Any = 0) -> Variable:
    """``x`` with its last axis reordered by the permutations ``y`` (see the module doc)."""
    return _permute(x, y, atv(np.int8(1 if inverse is True else inverse))
                    if not isinstance(inverse, Variable) else inverse)
