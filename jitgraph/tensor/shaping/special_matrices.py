"""Identity, triangular and diagonal matrices with Theano 1.0's ``theano.tensor`` signatures:
``eye``/:class:`Eye`, ``tri``/:class:`Tri`, ``tril``, ``triu``, ``identity_like``, and ``diag``,
``diagonal`` built on :class:`~jitgraph.tensor.shaping.diag_ops.AllocDiag` and
:class:`~jitgraph.tensor.shaping.diag_ops.ExtractDiag` (re-exported here for ``T.AllocDiag``).

``fill_diagonal``/``fill_diagonal_offset`` live in :mod:`jitgraph.tensor.extras.extra_ops` (Theano kept
them in ``theano.tensor.extra_ops``).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.op import Op
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.shaping.diag_ops import AllocDiag, ExtractDiag
from jitgraph.tensor.shaping.dims import _dim
from jitgraph.tensor.shaping.shape import _scalar_int_input, shape_i
from jitgraph.tensor.core.type import TensorType

__all__ = ["Eye", "eye", "Tri", "tri", "tril", "triu", "identity_like", "AllocDiag",
           "ExtractDiag", "diag", "diagonal"]


# ---------------------------------------------------------------------------------------------
# Eye, Tri: (n, m, k) -> an n x m matrix

class _MatrixFromSizes(Op):
    """What Eye and Tri share: three int scalars (rows, columns, diagonal offset) in, one
    matrix of ``dtype`` out; nothing to differentiate."""

    __props__ = ("dtype",)
    _numpy: Any = None

    def __init__(self, dtype: str | None = None) -> None:
        self.dtype = dt.normalize_dtype(dtype or "floatX")

    def __str__(self) -> str:
        return f"{type(self).__name__}{{dtype='{self.dtype}'}}"

    def make_node(self, n: Any, m: Any, k: Any) -> Apply:
        who = type(self).__name__
        args = [_scalar_int_input(a, f"{who} ({name})") for name, a in zip("nmk", (n, m, k))]
        return Apply(self, args, [TensorType(self.dtype, (False, False)).make_variable()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        n, m, k = (int(i) for i in inputs)
        if n < 0 or m < 0:
            raise ValueError(f"{self}: negative size {n} x {m}")
        output_storage[0][0] = type(self)._numpy(n, m, k, dtype=self.dtype)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        return [(_dim(node.inputs[0]), _dim(node.inputs[1]))]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[False], [False], [False]]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        return [None, None, None]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        return [None]


class Eye(_MatrixFromSizes):
    """The ``n x m`` matrix with ones on diagonal ``k`` (``numpy.eye``)."""

    _numpy = staticmethod(lambda n, m, k, dtype: np.eye(n, m, k, dtype=dtype))


class Tri(_MatrixFromSizes):
    """The ``n x m`` matrix with ones at and below diagonal ``k`` (``numpy.tri``)."""

    _numpy = staticmethod(lambda n, m, k, dtype: np.tri(n, m, k, dtype=dtype))


def eye(n: Any, m: Any = None, k: Any = 0, dtype: str | None = None) -> Variable:
    """An ``n x m`` matrix (``m`` defaults to ``n``) with ones on diagonal ``k`` (0: main,
    > 0: above, < 0: below) and zeros elsewhere; dtype floatX unless ``dtype``."""
    return Eye(dtype)(n, n if m is None else m, k)


def tri(N: Any, M: Any = None, k: Any = 0, dtype: str | None = None) -> Variable:
    """An ``N x M`` matrix (``M`` defaults to ``N``) with ones at and below diagonal ``k``;
    dtype floatX unless ``dtype``."""
    return Tri(dtype)(N, N if M is None else M, k)


def _last_two(m: Any, who: str) -> tuple[Variable, Any, Any]:
    m = as_tensor_variable(m)
    if m.ndim < 2:
        raise ValueError(f"{who}: m must have at least 2 dimensions, got the {m.ndim}-d {m}")
    return m, shape_i(m, m.ndim - 2), shape_i(m, m.ndim - 1)


def tril(m: Any, k: Any = 0) -> Variable:
    """``m`` with the entries above diagonal ``k`` zeroed (over its last two axes)."""
    m, rows, cols = _last_two(m, "tril")
    return m * tri(rows, cols, k=k, dtype=m.dtype)


def triu(m: Any, k: Any = 0) -> Variable:
    """``m`` with the entries below diagonal ``k`` zeroed (over its last two axes)."""
    m, rows, cols = _last_two(m, "triu")
    below = tri(rows, cols, k=k - 1, dtype=m.dtype)
    return m * (1 - below)


def identity_like(x: Any) -> Variable:
    """The identity matrix with the shape and dtype of the matrix ``x``."""
    x = as_tensor_variable(x)
    if x.ndim != 2:
        raise ValueError(f"identity_like: x must be a matrix, got the {x.ndim}-d {x}")
    return eye(shape_i(x, 0), shape_i(x, 1), k=0, dtype=x.dtype)


# ---------------------------------------------------------------------------------------------
# Diagonals (the ops live in jitgraph.tensor.shaping.diag_ops)

def diag(v: Any, k: int = 0) -> Variable:
    """For a vector ``v``: the square matrix with ``v`` on diagonal ``k``; for a matrix: its
    diagonal ``k`` (``numpy.diag``)."""
    v = as_tensor_variable(v)
    if v.ndim == 1:
        return AllocDiag(k)(v)
    if v.ndim == 2:
        return ExtractDiag(k)(v)
    raise ValueError(f"diag: v must be a vector or a matrix, got the {v.ndim}-d {v}")


def diagonal(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Variable:
    """Diagonal ``offset`` of ``a`` over ``axis1``/``axis2``, as its last axis
    (``numpy.diagonal``)."""
    return ExtractDiag(offset, axis1, axis2)(a)
