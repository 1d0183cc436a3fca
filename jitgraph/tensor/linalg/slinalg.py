"""``theano.tensor.slinalg``: linear algebra through SciPy (``scipy.linalg``).

SciPy is an optional extra (``pip install jitgraph[scipy]``), imported on first use: building
one of these ops without it raises an ImportError that says what to install. ``kron`` is a graph
of elementwise ops and needs no SciPy.

Gradients follow Theano 1.0: an op that reads one triangle of its matrix (``Cholesky``,
``Eigvalsh``, the triangular ``Solve``) returns a gradient on that triangle only, the mirrored
entries folded onto it.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.op import Op
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.linalg.common import (as_matrix, cast_result, check_rows, check_square,
                                           float_dtype)
from jitgraph.tensor.core.type import TensorType
from jitgraph.tensor.core.type_other import NoneTypeT
from jitgraph.tensor.elementwise import math
from jitgraph.tensor.elementwise.math import dot
from jitgraph.tensor.extras.extra_ops import arange
from jitgraph.tensor.linalg.dot_functions import outer
from jitgraph.tensor.shaping.shape import reshape

__all__ = ["Apply", "Cholesky", "CholeskyGrad", "Eigvalsh", "EigvalshGrad", "Expm", "ExpmGrad",
           "MATRIX_STRUCTURES", "Op", "Solve", "as_tensor_variable", "cho_solve", "cholesky",
           "eigvalsh", "expm", "kron", "solve", "solve_lower_triangular", "solve_symmetric",
           "solve_triangular", "solve_upper_triangular"]

#: the ``A_structure`` values Theano accepts (``Solve`` handles the first four specially; the
#: others are solved as general matrices)
MATRIX_STRUCTURES = ("general", "symmetric", "lower_triangular", "upper_triangular", "hermitian",
                     "banded", "diagonal", "toeplitz")


def scipy_linalg() -> Any:
    """``scipy.linalg``, or an ImportError saying how to install it."""
    try:
        import scipy.linalg
    except ImportError as exc:
        raise ImportError("jitgraph.tensor.linalg.slinalg needs SciPy, which is not installed: "
                          "pip install 'jitgraph[scipy]' (or pip install scipy)") from exc
    return scipy.linalg


def _tensor(dtype: str, ndim: int) -> Variable:
    return TensorType(dtype, (False,) * ndim).make_variable()


def _fold_onto_triangle(g: np.ndarray, lower: bool) -> np.ndarray:
    """The gradient with respect to the entries of one triangle of a symmetric matrix whose
    full gradient is ``g``: each off-diagonal entry also stands for its mirror image."""
    if lower:
        return np.tril(g) + np.tril(g.T, -1)
    return np.triu(g) + np.triu(g.T, 1)


# ---------------------------------------------------------------------------------------------
# Cholesky

class Cholesky(Op):
    """The Cholesky factor of a symmetric positive-definite matrix: lower (``L @ L.T == x``)
    or upper. ``on_error='nan'`` returns a matrix of NaNs instead of raising when ``x`` is not
    positive definite."""

    __props__ = ("lower", "destructive", "on_error")

    def __init__(self, lower: bool = True, on_error: str = "raise") -> None:
        if on_error not in ("raise", "nan"):
            raise ValueError(f"Cholesky: on_error must be 'raise' or 'nan', got {on_error!r}")
        self.lower = lower
        self.destructive = False
        self.on_error = on_error

    def make_node(self, x: Any) -> Apply:
        scipy_linalg()
        x = as_matrix(x, self, "x")
        return Apply(self, [x], [_tensor(float_dtype(x.dtype), 2)])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        linalg = scipy_linalg()
        (x,) = inputs
        check_square(x, self, "x")
        try:
            factor = linalg.cholesky(x, lower=self.lower)
        except linalg.LinAlgError:
            if self.on_error == "raise":
                raise
            factor = np.full(np.shape(x), np.nan)
        output_storage[0][0] = cast_result(factor, node.outputs[0])

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list:
        return [CholeskyGrad(self.lower)(inputs[0], outputs[0], output_grads[0])]

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Any]) -> list:
        return [tuple(input_shapes[0])]


cholesky = Cholesky()


class CholeskyGrad(Op):
    """The gradient of :class:`Cholesky`: inputs ``(x, l, dz)`` (the factor ``l`` and the
    gradient ``dz`` with respect to it); nonzero on the triangle the factorisation reads."""

    __props__ = ("lower", "destructive")

    def __init__(self, lower: bool = True) -> None:
        self.lower = lower
        self.destructive = False

    def make_node(self, x: Any, l: Any, dz: Any) -> Apply:  # noqa: E741 - Theano's name
        scipy_linalg()
        x, l, dz = (as_matrix(a, self, name) for a, name in ((x, "x"), (l, "l"), (dz, "dz")))
        dtype = float_dtype(dt.upcast(x.dtype, l.dtype, dz.dtype))
        return Apply(self, [x, l, dz], [_tensor(dtype, 2)])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        linalg = scipy_linalg()
        _, factor, dz = inputs
        if not np.all(np.isfinite(factor)):
            # Cholesky(on_error='nan') failed (x not positive definite): no gradient either
            output_storage[0][0] = np.full(np.shape(factor), np.nan, node.outputs[0].dtype)
            return
        # Work with the lower factor L (x = L L^T); the upper factor is its transpose.
        low = factor if self.lower else factor.T
        lbar = np.tril(dz if self.lower else dz.T)
        # Murray (2016): S = L^-T Phi(L^T Lbar) L^-1, Phi = lower triangle, halved diagonal
        phi = np.tril(low.T @ lbar)
        phi[np.diag_indices_from(phi)] *= 0.5
        left = linalg.solve_triangular(low, phi, lower=True, trans="T")        # L^-T phi
        s = linalg.solve_triangular(low, left.T, lower=True, trans="T").T      # ... L^-1
        grad = _fold_onto_triangle(0.5 * (s + s.T), lower=True)
        output_storage[0][0] = cast_result(grad if self.lower else grad.T, node.outputs[0])

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Any]) -> list:
        return [tuple(input_shapes[0])]


# ---------------------------------------------------------------------------------------------
# Solve

class Solve(Op):
    """``x`` with ``A @ x == b`` (``b`` a vector or a matrix), using the structure of ``A``:
    ``'general'`` through LAPACK's gesv (``numpy.linalg.solve``), ``'symmetric'`` through
    ``scipy.linalg.solve``, the triangular ones through ``scipy.linalg.solve_triangular``
    (reading the triangle the structure names)."""

    __props__ = ("A_structure", "lower", "overwrite_A", "overwrite_b")

    def __init__(self, A_structure: str = "general", lower: bool = False,  # noqa: N803
                 overwrite_A: bool = False, overwrite_b: bool = False) -> None:  # noqa: N803
        if A_structure not in MATRIX_STRUCTURES:
            raise ValueError(f"Solve: invalid A_structure {A_structure!r}; expected one of "
                             f"{MATRIX_STRUCTURES}")
        self.A_structure = A_structure
        self.lower = lower
        self.overwrite_A = overwrite_A
        self.overwrite_b = overwrite_b

    @property
    def _triangular(self) -> bool:
        return self.A_structure in ("lower_triangular", "upper_triangular")

    @property
    def _reads_lower(self) -> bool:
        """Which triangle is read: a triangular structure names it (as in Theano, whatever
        ``lower`` says); for a symmetric ``A``, ``lower`` does."""
        if self._triangular:
            return self.A_structure == "lower_triangular"
        return bool(self.lower)

    def make_node(self, A: Any, b: Any) -> Apply:  # noqa: N803
        scipy_linalg()
        A = as_matrix(A, self, "A")
        b = as_tensor_variable(b)
        if b.ndim not in (1, 2):
            raise TypeError(f"{self}: b must be a vector or a matrix, got {b} ({b.type})")
        return Apply(self, [A, b], [_tensor(solve_dtype(A.dtype, b.dtype), b.ndim)])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        linalg = scipy_linalg()
        A, b = inputs
        check_square(A, self, "A")
        check_rows(A, b, self)
        # LAPACK has no float16 (nor small-integer) routines: compute in the output's dtype
        A, b = (np.asarray(v, dtype=node.outputs[0].dtype) for v in (A, b))
        if self._triangular:
            x = linalg.solve_triangular(A, b, lower=self._reads_lower)
        elif self.A_structure == "symmetric":
            x = linalg.solve(A, b, assume_a="sym", lower=self._reads_lower)
        else:
            # The same LAPACK routine (gesv) as scipy.linalg.solve, without its ~30 µs of
            # argument checks per call (NaNs give NaNs instead of SciPy's ValueError).
            x = np.linalg.solve(A, b)
        output_storage[0][0] = cast_result(x, node.outputs[0])

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list:
        (A, _), (x,), (gx,) = inputs, outputs, output_grads
        # x = A^-1 b: gb = A^-T gx, gA = -gb x^T
        gb = self._transposed()(A.T, gx)
        gA = -outer(gb, x) if x.ndim == 1 else -dot(gb, x.T)  # noqa: N806
        if self._triangular:
            gA = _triangle(gA, self._reads_lower)  # noqa: N806
        return [gA, gb]

    def _transposed(self) -> "Solve":
        """The op solving with ``A.T`` (a triangle flips side)."""
        if not self._triangular:
            return self
        flipped = {"lower_triangular": "upper_triangular", "upper_triangular": "lower_triangular"}
        return Solve(flipped[self.A_structure], not self._reads_lower)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Any]) -> list:
        a_shape, b_shape = input_shapes
        return [(a_shape[1],) + tuple(b_shape[1:])]


def solve_dtype(a_dtype: str, b_dtype: str) -> str:
    """The dtype of ``solve(A, b)``: as SciPy's (and Theano's) solvers, the common dtype of
    ``A``, ``b`` and float32, so integers up to 16 bits and float16 give float32, wider
    integers float64."""
    return np.result_type(a_dtype, b_dtype, np.float32).name


def _triangle(x: Variable, lower: bool) -> Variable:
    """``x`` with the entries off its lower (upper) triangle set to zero."""
    rows = arange(x.shape[0]).dimshuffle(0, "x")
    cols = arange(x.shape[1]).dimshuffle("x", 0)
    keep = math.ge(rows, cols) if lower else math.le(rows, cols)
    return math.switch(keep, x, 0)


solve = Solve()
solve_lower_triangular = Solve(A_structure="lower_triangular", lower=True)
solve_upper_triangular = Solve(A_structure="upper_triangular", lower=False)
solve_symmetric = Solve(A_structure="symmetric")


def solve_triangular(a: Any, b: Any, lower: bool = False) -> Variable:
    """``x`` with ``a @ x == b`` for a triangular ``a`` (not in Theano 1.0: SciPy's name)."""
    return (solve_lower_triangular if lower else solve_upper_triangular)(a, b)


def cho_solve(c_and_lower: tuple, b: Any) -> Variable:
    """``x`` with ``A @ x == b`` given ``(c, lower)``, the Cholesky factor of ``A`` (not in
    Theano 1.0: SciPy's name). Two triangular solves, so it is differentiable."""
    c, lower = c_and_lower
    c = as_matrix(c, "cho_solve", "c")
    if lower:
        return solve_upper_triangular(c.T, solve_lower_triangular(c, b))
    return solve_upper_triangular(c, solve_lower_triangular(c.T, b))


# ---------------------------------------------------------------------------------------------
# Eigenvalues of a symmetric (generalized) problem

class Eigvalsh(Op):
    """Eigenvalues (ascending) of the symmetric problem ``a v = w b v`` (``b`` may be None:
    the standard problem), reading the lower (``lower=True``) or upper triangles."""

    __props__ = ("lower",)

    def __init__(self, lower: bool = True) -> None:
        self.lower = lower

    def make_node(self, a: Any, b: Any = None) -> Apply:
        scipy_linalg()
        a = as_matrix(a, self, "a")
        inputs = [a] if _is_none(b) else [a, as_matrix(b, self, "b")]
        dtype = float_dtype(dt.upcast(*(i.dtype for i in inputs)))
        return Apply(self, inputs, [_tensor(dtype, 1)])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        linalg = scipy_linalg()
        b = inputs[1] if len(inputs) == 2 else None
        check_square(inputs[0], self, "a")
        if b is not None and b.shape != inputs[0].shape:
            raise ValueError(f"{self}: b must have the shape of a {inputs[0].shape}, got "
                             f"{b.shape}")
        w = linalg.eigvalsh(inputs[0], b, lower=self.lower)
        output_storage[0][0] = cast_result(w, node.outputs[0])

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        return list(EigvalshGrad(self.lower).make_node(*inputs, output_grads[0]).outputs)

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Any]) -> list:
        return [(input_shapes[0][0],)]


def _is_none(b: Any) -> bool:
    return b is None or isinstance(getattr(b, "type", None), NoneTypeT)


def eigvalsh(a: Any, b: Any, lower: bool = True) -> Variable:
    """Eigenvalues of the symmetric generalized problem ``a v = w b v``."""
    return Eigvalsh(lower)(a, b)


class EigvalshGrad(Op):
    """The gradient of :class:`Eigvalsh`: inputs ``(a, b, gw)`` (or ``(a, gw)``), outputs the
    gradients for ``a`` (and ``b``) on the triangle ``Eigvalsh`` reads."""

    __props__ = ("lower",)

    def __init__(self, lower: bool = True) -> None:
        self.lower = lower

    def make_node(self, *inputs: Any) -> Apply:
        scipy_linalg()
        if len(inputs) not in (2, 3):
            raise TypeError(f"{self}: expects inputs (a, b, gw) or (a, gw), got {len(inputs)}")
        mats = [as_matrix(m, self, name) for m, name in zip(inputs[:-1], ("a", "b"))]
        gw = as_tensor_variable(inputs[-1])
        if gw.ndim != 1:
            raise TypeError(f"{self}: gw must be a vector, got {gw} ({gw.type})")
        dtype = float_dtype(dt.upcast(*(m.dtype for m in mats), gw.dtype))
        return Apply(self, [*mats, gw], [_tensor(dtype, 2) for _ in mats])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        linalg = scipy_linalg()
        *mats, gw = inputs
        w, v = linalg.eigh(*mats, lower=self.lower)
        # dw_i = v_i^T (da - w_i db) v_i with the eigenvectors b-orthonormal
        grads = [v @ np.diag(gw) @ v.T, -(v @ np.diag(gw * w) @ v.T)]
        for k in range(len(mats)):
            output_storage[k][0] = cast_result(_fold_onto_triangle(grads[k], self.lower),
                                               node.outputs[k])

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Any]) -> list:
        return [tuple(s) for s in input_shapes[:-1]]


# ---------------------------------------------------------------------------------------------
# Matrix exponential

class Expm(Op):
    """The matrix exponential (``scipy.linalg.expm``)."""

    __props__ = ()

    def make_node(self, A: Any) -> Apply:  # noqa: N803
        scipy_linalg()
        A = as_matrix(A, self, "A")
        return Apply(self, [A], [_tensor(float_dtype(A.dtype), 2)])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        check_square(inputs[0], self, "A")
        output_storage[0][0] = cast_result(scipy_linalg().expm(inputs[0]), node.outputs[0])

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        return [ExpmGrad()(inputs[0], output_grads[0])]

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Any]) -> list:
        return [tuple(input_shapes[0])]


expm = Expm()


class ExpmGrad(Op):
    """The gradient of :class:`Expm`: inputs ``(A, gw)``; the adjoint of the Fréchet
    derivative, ``L(A^T, gw)`` (exact, no diagonalisability assumed)."""

    __props__ = ()

    def make_node(self, A: Any, gw: Any) -> Apply:  # noqa: N803
        scipy_linalg()
        A, gw = as_matrix(A, self, "A"), as_matrix(gw, self, "gw")  # noqa: N806
        return Apply(self, [A, gw], [_tensor(float_dtype(dt.upcast(A.dtype, gw.dtype)), 2)])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        A, gw = inputs  # noqa: N806
        frechet = scipy_linalg().expm_frechet(A.conj().T, gw, compute_expm=False)
        output_storage[0][0] = cast_result(frechet, node.outputs[0])

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Any]) -> list:
        return [tuple(input_shapes[0])]


# ---------------------------------------------------------------------------------------------
# Kronecker product

def kron(a: Any, b: Any) -> Variable:
    """The Kronecker product of ``a`` and ``b`` (``numpy.kron``): block ``[i, j]`` of the
    result is ``a[i, j] * b``; the result has ``max(a.ndim, b.ndim)`` dimensions.

    Theano 1.0 matches NumPy for two matrices only (other ranks gave reshaped results)."""
    a, b = as_tensor_variable(a), as_tensor_variable(b)
    if a.ndim + b.ndim < 2:
        raise TypeError(f"kron: needs inputs of at least 1 dimension each, got {a.type} and "
                        f"{b.type}")
    n = max(a.ndim, b.ndim)
    a = a.dimshuffle(*(["x"] * (n - a.ndim)), *range(a.ndim))
    b = b.dimshuffle(*(["x"] * (n - b.ndim)), *range(b.ndim))
    # interleave: product[i0, j0, i1, j1, ...] = a[i0, i1, ...] * b[j0, j1, ...]
    spread_a = a.dimshuffle(*[p for k in range(n) for p in (k, "x")])
    spread_b = b.dimshuffle(*[p for k in range(n) for p in ("x", k)])
    product = spread_a * spread_b
    return reshape(product, [a.shape[k] * b.shape[k] for k in range(n)], ndim=n)
