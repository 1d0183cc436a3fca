"""The products users call: ``dot``, ``outer``, ``tensordot`` and ``matmul`` (NumPy's semantics),
built from the ops of :mod:`jitgraph.tensor.linalg.blas` (``Dot`` and ``BatchedDot``, with dimshuffles
and reshapes), so that the BLAS rewrites apply to them. ``batched_dot`` and
``batched_tensordot`` are Theano's ``theano.tensor.blas`` functions, beside ``BatchedDot``."""

from __future__ import annotations

from typing import Any

from jitgraph.graph.basic import Variable
from jitgraph.tensor.linalg.blas import (_batched_dot, _collapse, _dims, _dot, _normalize_axes,
                                         _outer, _with_bcast)
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.elementwise.elemwise import dimshuffle
from jitgraph.tensor.elementwise.math import mul
from jitgraph.tensor.shaping.shape import reshape

__all__ = ["dot", "outer", "tensordot", "matmul"]


def dot(a: Any, b: Any) -> Variable:
    """NumPy's ``dot``: scalar product for 0-d operands, inner product of vectors, matrix
    products for matrices, and for N-d ``tensordot(a, b, [[a.ndim-1], [b.ndim-2]])`` (the last
    axis of ``a`` with the second-to-last of ``b``). Python and NumPy operands are converted."""
    a, b = as_tensor_variable(a), as_tensor_variable(b)
    if a.ndim == 0 or b.ndim == 0:
        return mul(a, b)
    if a.ndim <= 2 and b.ndim <= 2:
        return _dot(a, b)
    return tensordot(a, b, [[a.ndim - 1], [max(0, b.ndim - 2)]])


def outer(x: Any, y: Any) -> Variable:
    """Outer product ``x[:, None] * y[None, :]`` of two vectors (N-d operands are flattened)."""
    x, y = as_tensor_variable(x), as_tensor_variable(y)
    if x.ndim != 1:
        x = x.flatten()
    if y.ndim != 1:
        y = y.flatten()
    return _outer(x, y)


def tensordot(a: Any, b: Any, axes: Any = 2) -> Variable:
    """Sum of products over the given axes, like ``np.tensordot``.

    ``axes`` is an int n (the last n axes of ``a`` with the first n of ``b``) or a pair of axis
    lists. Built from dimshuffle, reshape and one :class:`Dot`, so the BLAS rewrites apply.
    """
    a, b = as_tensor_variable(a), as_tensor_variable(b)
    axes_a, axes_b = _normalize_axes(axes, a, b)
    free_a = [d for d in range(a.ndim) if d not in axes_a]
    free_b = [d for d in range(b.ndim) if d not in axes_b]
    out_bcast = tuple(a.broadcastable[d] for d in free_a) + tuple(b.broadcastable[d]
                                                                  for d in free_b)
    if not axes_a:
        # Nothing to sum: a broadcast elementwise product gives the outer product directly.

        left = dimshuffle(a, list(range(a.ndim)) + ["x"] * b.ndim)
        right = dimshuffle(b, ["x"] * a.ndim + list(range(b.ndim)))
        return mul(left, right)
    a2 = _collapse(dimshuffle(a, free_a + axes_a), [free_a, axes_a])
    b2 = _collapse(dimshuffle(b, axes_b + free_b), [axes_b, free_b])
    out = _dot(a2, b2)
    if out.ndim != len(out_bcast):
        out_shape = _dims(a, free_a) + _dims(b, free_b)
        out = reshape(out, out_shape, ndim=len(out_shape))
    return _with_bcast(out, out_bcast)


def matmul(a: Any, b: Any) -> Variable:
    """NumPy's ``matmul`` (the ``@`` operator): matrix products batched over leading dimensions
    that broadcast; a 1-d operand is a vector (its added axis is removed from the result)."""
    a, b = as_tensor_variable(a), as_tensor_variable(b)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError(f"matmul: operands must have at least 1 dimension, got {a.type} and "
                         f"{b.type} (use * for scalars)")
    if a.ndim <= 2 and b.ndim <= 2:
        return _dot(a, b)
    a2 = dimshuffle(a, ("x", 0)) if a.ndim == 1 else a
    b2 = dimshuffle(b, (0, "x")) if b.ndim == 1 else b
    out = _batched_dot(a2, b2)
    drop = ([out.ndim - 2] if a.ndim == 1 else []) + ([out.ndim - 1] if b.ndim == 1 else [])
    if drop:
        out = dimshuffle(out, [d for d in range(out.ndim) if d not in drop])
    return out
