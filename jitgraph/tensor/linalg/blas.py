"""Linear algebra ops: dot products, the BLAS-shaped ops the rewrites specialise ``dot`` into, and
products of stacks of matrices.

The user-facing functions (:func:`batched_dot`, :func:`batched_tensordot` here; ``dot``,
``outer``, ``tensordot`` and ``matmul`` in :mod:`jitgraph.tensor.linalg.dot_functions`) build graphs of
two general ops, :class:`Dot` (vectors and matrices) and
:class:`BatchedDot` (stacks of matrices with broadcast leading dimensions). The rewrite system
replaces ``Dot`` by the specialised :class:`Dot22`, :class:`Gemv`, :class:`Gemm` and :class:`Ger`
(names as in Theano), whose inplace variants overwrite their first input (``destroy_map``).

Every ``perform`` calls NumPy (``np.dot`` / ``np.matmul``, i.e. the bundled BLAS) and never
writes through ``out=``, so it is correct for inputs of any strides.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.op import Op
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.core.conversion import as_tensor_variable, constant
from jitgraph.tensor.elementwise.elemwise import _fit_gradient, dimshuffle
from jitgraph.tensor.core.type import TensorType
from jitgraph.tensor.elementwise.math import cast
from jitgraph.tensor.elementwise.reduction import sum as tsum
from jitgraph.tensor.shaping.shape import patternbroadcast, reshape, shape_i

# The op classes under ``T``; the rewrite helpers (gemv, gemm, dot22 and the op instances
# gemv_inplace, gemm_no_inplace, ger, ger_destructive, ...) stay under ``T.blas``.
__all__ = ["Dot", "Dot22", "Gemv", "Gemm", "Ger", "BatchedDot", "batched_dot", "batched_tensordot"]

_BLAS_DTYPES = ("float32", "float64", "complex64", "complex128")


def _T(x: Variable) -> Variable:
    """The transpose of a matrix (a view)."""
    return dimshuffle(x, (1, 0))


def _grad_for(g: Variable, x: Variable) -> Variable | None:
    """``g`` fitted to ``x`` (dtype, broadcastable dims). An integer ``x`` keeps the float
    gradient (the ops' outputs are continuous, so its derivative exists, as in Theano)."""
    g = as_tensor_variable(g)
    if g.dtype != x.dtype and not dt.is_discrete(x.dtype):
        g = cast(g, x.dtype)
    return _fit_gradient(g, x)


def _sum_terms(terms: Sequence[Variable | None]) -> Variable | None:
    """The sum of the terms that are not None (None if all are): an R-op from its parts."""
    present = [t for t in terms if t is not None]
    if not present:
        return None
    total = present[0]
    for t in present[1:]:
        total = total + t
    return total


def _sum_all(x: Variable) -> Variable:
    return tsum(x)


# ---------------------------------------------------------------------------------------------
# Dot and Dot22

class _DotBase(Op):
    __props__ = ()
    _ndims: tuple[tuple[int, ...], tuple[int, ...]] = ((1, 2), (1, 2))

    def make_node(self, a: Any, b: Any) -> Apply:
        a, b = as_tensor_variable(a), as_tensor_variable(b)
        if a.ndim not in self._ndims[0] or b.ndim not in self._ndims[1]:
            raise TypeError(f"{self} takes {self._ndims[0]}-d and {self._ndims[1]}-d inputs, "
                            f"got {a.type} and {b.type}; use dot() or tensordot() for others")
        bcast = a.broadcastable[:-1] + b.broadcastable[1:]
        out = TensorType(dt.upcast(a.dtype, b.dtype), bcast).make_variable()
        return Apply(self, [a, b], [out])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list) -> None:
        a, b = inputs
        if a.shape[-1] != b.shape[0]:
            raise ValueError(f"{self}: shapes {a.shape} and {b.shape} are not aligned: "
                             f"{a.shape[-1]} (last dim of the first input) != {b.shape[0]} "
                             "(first dim of the second input)")
        out_dtype = node.outputs[0].dtype
        output_storage[0][0] = np.asarray(np.dot(a, b)).astype(out_dtype, copy=False)

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        x, y = inputs
        (g,) = output_grads
        g = as_tensor_variable(g)
        if x.ndim == 1 and y.ndim == 1:
            gx, gy = g * y, g * x
        elif x.ndim == 2 and y.ndim == 1:
            gx, gy = _outer(g, y), _dot(_T(x), g)
        elif x.ndim == 1 and y.ndim == 2:
            gx, gy = _dot(y, g), _outer(x, g)
        else:
            gx, gy = _dot(g, _T(y)), _dot(_T(x), g)
        return [_grad_for(gx, x), _grad_for(gy, y)]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        # Bilinear: d(a b) = da b + a db.
        (a, b), (va, vb) = inputs, eval_points
        return [_sum_terms([None if va is None else self(va, b),
                            None if vb is None else self(a, vb)])]

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        sa, sb = input_shapes
        return [tuple(sa[:-1]) + tuple(sb[1:])]


class Dot(_DotBase):
    """NumPy ``dot`` of vectors and matrices: inner product, matrix-vector, vector-matrix and
    matrix-matrix products. The output dtype is the upcast of the input dtypes."""

    def __str__(self) -> str:
        return "dot"  # as Theano prints it


class Dot22(_DotBase):
    """Matrix-matrix product (what the rewrites turn a matrix ``Dot`` into; BLAS gemm)."""

    _ndims = ((2,), (2,))


_dot = Dot()
_dot22 = Dot22()


def _outer(x: Variable, y: Variable) -> Variable:
    return _dot(dimshuffle(x, (0, "x")), dimshuffle(y, ("x", 0)))


# ---------------------------------------------------------------------------------------------
# Gemv, Gemm, Ger

def _scalar_arg(value: Any, dtype: str, op: Op, what: str) -> Variable:
    if not isinstance(value, Variable):
        return constant(np.asarray(value, dtype=dtype))
    value = as_tensor_variable(value)
    data = getattr(value, "data", None)
    if data is not None and value.ndim == 0 and value.dtype != dtype:
        return constant(np.asarray(data, dtype=dtype))  # a literal: its dtype was never chosen
    if value.ndim != 0 or value.dtype != dtype:
        raise TypeError(f"{op}: {what} must be a 0-d {dtype} tensor, got {value.type}")
    return value


def _check_blas_inputs(op: Op, named: Sequence[tuple[str, Variable, int]]) -> None:
    dtype = named[0][1].dtype
    if dtype not in _BLAS_DTYPES:
        raise TypeError(f"{op} works on {_BLAS_DTYPES}, got {named[0][0]} of dtype {dtype}")
    for label, var, ndim in named:
        if var.ndim != ndim or var.dtype != dtype:
            types = ", ".join(f"{n}={v.type}" for n, v, _ in named)
            raise TypeError(f"{op}: {label} must be a {ndim}-d {dtype} tensor ({types})")


class _InplaceBlas(Op):
    __props__ = ("inplace",)

    def __init__(self, inplace: bool = False) -> None:
        self.inplace = bool(inplace)
        if self.inplace:
            self.destroy_map = {0: [0]}

    def __str__(self) -> str:
        return f"{type(self).__name__}{{{'inplace' if self.inplace else 'no_inplace'}}}"

    def _store(self, target: np.ndarray, result: np.ndarray, output_storage: list) -> None:
        if self.inplace:
            target[...] = result
            output_storage[0][0] = target
        else:
            output_storage[0][0] = np.asarray(result).astype(target.dtype, copy=False)


class Gemv(_InplaceBlas):
    """``beta * y + alpha * dot(A, x)`` for a matrix ``A`` and vectors ``x``, ``y``.

    Inputs ``(y, alpha, A, x, beta)`` (Theano's order); all of one float dtype, ``alpha`` and
    ``beta`` 0-d. As in BLAS, ``beta == 0`` ignores the values of ``y`` (it may be uninitialised).
    With ``inplace`` the result overwrites ``y``.
    """

    def make_node(self, y: Any, alpha: Any, A: Any, x: Any, beta: Any) -> Apply:
        y, A, x = (as_tensor_variable(v) for v in (y, A, x))
        _check_blas_inputs(self, [("y", y, 1), ("A", A, 2), ("x", x, 1)])
        alpha = _scalar_arg(alpha, y.dtype, self, "alpha")
        beta = _scalar_arg(beta, y.dtype, self, "beta")
        return Apply(self, [y, alpha, A, x, beta], [y.type.make_variable()])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list) -> None:
        y, alpha, A, x, beta = inputs
        if A.shape != (y.shape[0], x.shape[0]):
            raise ValueError(f"{self}: shapes do not match: y {y.shape}, A {A.shape}, "
                             f"x {x.shape} (A must be (len(y), len(x)))")
        prod = alpha * np.dot(A, x)
        self._store(y, prod if beta == 0 else beta * y + prod, output_storage)

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        y, alpha, A, x, beta = inputs
        (g,) = output_grads
        return [_grad_for(beta * g, y), _grad_for(_sum_all(g * _dot(A, x)), alpha),
                _grad_for(alpha * _outer(g, x), A), _grad_for(alpha * _dot(_T(A), g), x),
                _grad_for(_sum_all(g * y), beta)]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        return [_scaled_product_rop(inputs, eval_points)]

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        return [tuple(input_shapes[0])]


class Gemm(_InplaceBlas):
    """``beta * Z + alpha * dot(X, Y)`` for matrices; inputs ``(Z, alpha, X, Y, beta)``.

    Same conventions as :class:`Gemv` (``beta == 0`` ignores ``Z``; ``inplace`` overwrites it).
    """

    def make_node(self, Z: Any, alpha: Any, X: Any, Y: Any, beta: Any) -> Apply:
        Z, X, Y = (as_tensor_variable(v) for v in (Z, X, Y))
        _check_blas_inputs(self, [("Z", Z, 2), ("X", X, 2), ("Y", Y, 2)])
        alpha = _scalar_arg(alpha, Z.dtype, self, "alpha")
        beta = _scalar_arg(beta, Z.dtype, self, "beta")
        return Apply(self, [Z, alpha, X, Y, beta], [Z.type.make_variable()])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list) -> None:
        Z, alpha, X, Y, beta = inputs
        if X.shape[1] != Y.shape[0] or Z.shape != (X.shape[0], Y.shape[1]):
            raise ValueError(f"{self}: shapes do not match: Z {Z.shape}, X {X.shape}, "
                             f"Y {Y.shape} (need X (m, k), Y (k, n), Z (m, n))")
        prod = alpha * np.dot(X, Y)
        self._store(Z, prod if beta == 0 else beta * Z + prod, output_storage)

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        Z, alpha, X, Y, beta = inputs
        (g,) = output_grads
        return [_grad_for(beta * g, Z), _grad_for(_sum_all(g * _dot(X, Y)), alpha),
                _grad_for(alpha * _dot(g, _T(Y)), X), _grad_for(alpha * _dot(_T(X), g), Y),
                _grad_for(_sum_all(g * Z), beta)]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        return [_scaled_product_rop(inputs, eval_points)]

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        return [tuple(input_shapes[0])]


class Ger(_InplaceBlas):
    """``A + alpha * outer(x, y)`` (BLAS ger); inputs ``(A, alpha, x, y)``.

    With ``inplace`` (Theano: ``destructive``) the result overwrites ``A``.
    """

    @property
    def destructive(self) -> bool:
        return self.inplace

    def make_node(self, A: Any, alpha: Any, x: Any, y: Any) -> Apply:
        A, x, y = (as_tensor_variable(v) for v in (A, x, y))
        _check_blas_inputs(self, [("A", A, 2), ("x", x, 1), ("y", y, 1)])
        alpha = _scalar_arg(alpha, A.dtype, self, "alpha")
        return Apply(self, [A, alpha, x, y], [A.type.make_variable()])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list) -> None:
        A, alpha, x, y = inputs
        if A.shape != (x.shape[0], y.shape[0]):
            raise ValueError(f"{self}: shapes do not match: A {A.shape}, x {x.shape}, "
                             f"y {y.shape} (A must be (len(x), len(y)))")
        self._store(A, A + alpha * np.outer(x, y), output_storage)

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        A, alpha, x, y = inputs
        (g,) = output_grads
        g_y = _dot(g, y)
        return [_grad_for(g, A), _grad_for(_dot(x, g_y), alpha), _grad_for(alpha * g_y, x),
                _grad_for(alpha * _dot(_T(g), x), y)]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        (A, alpha, x, y), (vA, valpha, vx, vy) = inputs, eval_points
        return [_sum_terms([vA, None if valpha is None else valpha * _outer(x, y),
                            None if vx is None else alpha * _outer(vx, y),
                            None if vy is None else alpha * _outer(x, vy)])]

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        return [tuple(input_shapes[0])]


def _scaled_product_rop(inputs: Sequence[Any], eval_points: Sequence[Variable | None]
                        ) -> Variable | None:
    """R-op of ``beta * z + alpha * dot(a, b)`` (gemv and gemm: inputs ``(z, alpha, a, b,
    beta)``)."""
    (z, alpha, a, b, beta), (vz, valpha, va, vb, vbeta) = inputs, eval_points
    terms = [None if vz is None else beta * vz,
             None if valpha is None else valpha * _dot(a, b),
             None if va is None else alpha * _dot(va, b),
             None if vb is None else alpha * _dot(a, vb),
             None if vbeta is None else vbeta * z]
    return _sum_terms(terms)


gemv_no_inplace = Gemv(inplace=False)
gemv_inplace = Gemv(inplace=True)
gemm_no_inplace = Gemm(inplace=False)
gemm_inplace = Gemm(inplace=True)
ger = Ger(inplace=False)
ger_destructive = Ger(inplace=True)


def gemv(y: Any, alpha: Any, A: Any, x: Any, beta: Any, inplace: bool = False) -> Variable:
    """``beta * y + alpha * dot(A, x)`` as one :class:`Gemv` node (numbers become constants)."""
    return Gemv(inplace)(y, alpha, A, x, beta)


def gemm(Z: Any, alpha: Any, X: Any, Y: Any, beta: Any, inplace: bool = False) -> Variable:
    """``beta * Z + alpha * dot(X, Y)`` as one :class:`Gemm` node (numbers become constants)."""
    return Gemm(inplace)(Z, alpha, X, Y, beta)


def dot22(x: Any, y: Any) -> Variable:
    """Matrix-matrix product as one :class:`Dot22` node."""
    return _dot22(x, y)


# ---------------------------------------------------------------------------------------------
# Stacks of matrices

class BatchedDot(Op):
    """Matrix products over stacks: ``a (..., n, k) x b (..., k, m) -> (..., n, m)``.

    The leading (batch) dimensions broadcast like NumPy's ``matmul``, under the graph's static
    rule: only dimensions declared broadcastable (or missing) may stretch.
    """

    __props__ = ()

    def make_node(self, a: Any, b: Any) -> Apply:
        a, b = as_tensor_variable(a), as_tensor_variable(b)
        if a.ndim < 2 or b.ndim < 2:
            raise TypeError(f"{self} needs inputs with at least 2 dimensions, got {a.type} and "
                            f"{b.type}")
        nb = max(a.ndim, b.ndim) - 2
        ba = (True,) * (nb - a.ndim + 2) + a.broadcastable[:-2]
        bb = (True,) * (nb - b.ndim + 2) + b.broadcastable[:-2]
        bcast = tuple(x and y for x, y in zip(ba, bb)) + (a.broadcastable[-2],
                                                          b.broadcastable[-1])
        out = TensorType(dt.upcast(a.dtype, b.dtype), bcast).make_variable()
        return Apply(self, [a, b], [out])

    def perform(self, node: Apply, inputs: Sequence[np.ndarray], output_storage: list) -> None:
        a, b = inputs
        if a.shape[-1] != b.shape[-2]:
            raise ValueError(f"{self}: shapes {a.shape} and {b.shape} are not aligned: "
                             f"{a.shape[-1]} (dim -1) != {b.shape[-2]} (dim -2)")
        va, vb = node.inputs
        nb = node.outputs[0].ndim - 2
        for d in range(nb):
            sizes = {x.shape[d - nb - 2] for x, v in ((a, va), (b, vb))
                     if d - nb - 2 >= -x.ndim and not v.broadcastable[d - nb - 2]}
            if len(sizes) > 1:
                raise ValueError(f"{self}: batch dimension mismatch between shapes {a.shape} "
                                 f"and {b.shape} (only broadcastable dimensions may differ)")
        out_dtype = node.outputs[0].dtype
        output_storage[0][0] = np.asarray(np.matmul(a, b)).astype(out_dtype, copy=False)

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        a, b = inputs
        (g,) = output_grads
        g = as_tensor_variable(g)
        ga = self(g, _swap_last(b))
        gb = self(_swap_last(a), g)
        return [_grad_for(_sum_leading(ga, a.ndim), a), _grad_for(_sum_leading(gb, b.ndim), b)]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        (a, b), (va, vb) = inputs, eval_points
        return [_sum_terms([None if va is None else self(va, b),
                            None if vb is None else self(a, vb)])]

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Sequence[Any]]
                    ) -> list[tuple]:
        (va, vb), (sa, sb) = node.inputs, input_shapes
        nb = node.outputs[0].ndim - 2
        batch = []
        for d in range(nb):
            pick = 1
            for v, s in ((va, sa), (vb, sb)):
                k = d - nb - 2
                if k >= -v.ndim and not v.broadcastable[k]:
                    pick = s[k]
                    break
            batch.append(pick)
        return [tuple(batch) + (sa[-2], sb[-1])]


_batched_dot = BatchedDot()


def _swap_last(x: Variable) -> Variable:
    order = list(range(x.ndim))
    order[-2], order[-1] = order[-1], order[-2]
    return dimshuffle(x, order)


def _sum_leading(g: Variable, ndim: int) -> Variable:
    """Sum away the leading axes ``g`` has beyond ``ndim`` (batch axes an input broadcast over)."""
    extra = g.ndim - ndim
    if extra <= 0:
        return g

    return tsum(g, axis=tuple(range(extra)))


def _normalize_axes(axes: Any, a: Variable, b: Variable) -> tuple[list[int], list[int]]:
    if isinstance(axes, (int, np.integer)):
        n = int(axes)
        if n < 0 or n > a.ndim or n > b.ndim:
            raise ValueError(f"tensordot: axes={n} needs 0 <= axes <= ndim of both operands "
                             f"({a.type}, {b.type})")
        return list(range(a.ndim - n, a.ndim)), list(range(n))
    try:
        axes_a, axes_b = axes
    except (TypeError, ValueError):
        raise ValueError(f"tensordot: axes must be an int or a pair of axis lists, got "
                         f"{axes!r}") from None
    axes_a = [axes_a] if isinstance(axes_a, (int, np.integer)) else list(axes_a)
    axes_b = [axes_b] if isinstance(axes_b, (int, np.integer)) else list(axes_b)
    if len(axes_a) != len(axes_b):
        raise ValueError(f"tensordot: {len(axes_a)} axes of a ({axes_a}) cannot be summed with "
                         f"{len(axes_b)} axes of b ({axes_b})")
    norm = []
    for ax, x, label in ((axes_a, a, "a"), (axes_b, b, "b")):
        out = []
        for d in ax:
            if not -x.ndim <= int(d) < x.ndim:
                raise ValueError(f"tensordot: axis {d} out of range for {label} ({x.type})")
            out.append(int(d) % x.ndim)
        if len(set(out)) != len(out):
            raise ValueError(f"tensordot: repeated axis in {ax} for {label}")
        norm.append(out)
    return norm[0], norm[1]


def _dims(x: Variable, axes: Sequence[int]) -> list[Any]:
    """Symbolic lengths of ``axes`` of ``x`` (1 for broadcastable axes, so reshapes keep them)."""
    return [1 if x.broadcastable[d] else shape_i(x, d) for d in axes]


def _collapse(x: Variable, groups: Sequence[Sequence[int]]) -> Variable:
    """``x`` (axes already ordered group by group) reshaped to one axis per non-empty group."""
    sizes = [len(g) for g in groups if g]
    if all(s == 1 for s in sizes) and len(sizes) == x.ndim:
        return x

    shp = _dims(x, range(x.ndim))
    new_shape: list[Any] = []
    k = 0
    for s in sizes:
        group = [d for d in shp[k:k + s] if not isinstance(d, int)]
        if not group:
            new_shape.append(1)
        else:
            size = group[0]
            for d in group[1:]:
                size = size * d
            new_shape.append(size)
        k += s
    return reshape(x, new_shape, ndim=len(new_shape))


def _with_bcast(x: Variable, bcast: tuple[bool, ...]) -> Variable:
    """Restore the broadcastable pattern a reshape could not infer (those dims have length 1)."""
    if x.broadcastable == bcast:
        return x

    return patternbroadcast(x, bcast)


def batched_dot(a: Any, b: Any) -> Variable:
    """Theano's ``batched_dot``: ``dot(a[i], b[i])`` for every i along the first axis.

    Shapes ``(B, k) . (B, k) -> (B,)``, ``(B, n, k) . (B, k, m) -> (B, n, m)``, and the mixed
    2-d/3-d forms; 1-d operands scale the other operand; more than 3 dims contract the last axis
    of ``a`` with the second-to-last of ``b`` (see :func:`batched_tensordot`).
    """
    a, b = as_tensor_variable(a), as_tensor_variable(b)
    if a.ndim == 0 or b.ndim == 0:
        raise TypeError(f"batched_dot: operands need a batch axis, got {a.type} and {b.type}")
    if a.ndim == 1:
        return dimshuffle(a, [0] + ["x"] * (b.ndim - 1)) * b
    if b.ndim == 1:
        return a * dimshuffle(b, [0] + ["x"] * (a.ndim - 1))
    if a.ndim > 3 or b.ndim > 3:
        return batched_tensordot(a, b, [[a.ndim - 1], [max(1, b.ndim - 2)]])
    a3 = dimshuffle(a, (0, "x", 1)) if a.ndim == 2 else a
    b3 = dimshuffle(b, (0, 1, "x")) if b.ndim == 2 else b
    out = _batched_dot(a3, b3)
    keep = [0] + ([1] if a.ndim == 3 else []) + ([2] if b.ndim == 3 else [])
    return dimshuffle(out, keep) if len(keep) != 3 else out


def batched_tensordot(x: Any, y: Any, axes: Any = 2) -> Variable:
    """``tensordot(x[i], y[i], axes)`` for every i along the first (batch) axis.

    ``axes`` counts or names axes of the full operands (axis 0, the batch axis, is excluded).
    """
    x, y = as_tensor_variable(x), as_tensor_variable(y)
    if isinstance(axes, (int, np.integer)):
        n = int(axes)
        axes_x, axes_y = list(range(x.ndim - n, x.ndim)), list(range(1, n + 1))
    else:
        axes_x, axes_y = _normalize_axes(axes, x, y)
    if 0 in axes_x or 0 in axes_y or len(axes_x) != len(axes_y):
        raise ValueError(f"batched_tensordot: invalid axes {axes!r} (axis 0 is the batch axis)")
    free_x = [d for d in range(1, x.ndim) if d not in axes_x]
    free_y = [d for d in range(1, y.ndim) if d not in axes_y]
    x3 = _collapse(dimshuffle(x, [0] + free_x + axes_x), [[0], free_x, axes_x])
    y3 = _collapse(dimshuffle(y, [0] + axes_y + free_y), [[0], axes_y, free_y])
    x3 = x3 if free_x else dimshuffle(x3, (0, "x", 1))
    y3 = y3 if free_y else dimshuffle(y3, (0, 1, "x"))
    out = _batched_dot(x3, y3)
    out_bcast = ((x.broadcastable[0] and y.broadcastable[0],)
                 + tuple(x.broadcastable[d] for d in free_x)
                 + tuple(y.broadcastable[d] for d in free_y))
    if len(free_x) == 1 and len(free_y) == 1:
        return _with_bcast(out, out_bcast)

    out_shape = _dims(x, [0]) + _dims(x, free_x) + _dims(y, free_y)
    return _with_bcast(reshape(out, out_shape, ndim=len(out_shape)), out_bcast)
