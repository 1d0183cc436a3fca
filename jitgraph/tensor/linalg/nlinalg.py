"""``theano.tensor.nlinalg``: linear algebra through NumPy's LAPACK (``numpy.linalg``).

Every op runs ``numpy.linalg`` on the whole array (the CPU backend calls it straight from the
generated driver, see ``backend_cpu/lowering/linalg.py``). Output dtypes follow Theano 1.0 for float
and complex inputs; an integer input gives float64 results (Theano declared the integer dtype
and then truncated, or stored float64 values under an integer type).

The decompositions without a gradient in Theano 1.0 (``Eig``, ``SVD``, ``QRFull``,
``QRIncomplete``, ``lstsq``, ``TensorInv``, ``TensorSolve``) have none here either.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.gradient_types import DisconnectedType
from jitgraph.graph.op import Op
from jitgraph.tensor.core import dtypes as dt
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.shaping.diag_ops import ExtractDiag
from jitgraph.tensor.linalg.common import (as_matrix, cast_result, check_square, float_dtype,
                                           real_dtype)
from jitgraph.tensor.core.type import TensorType
from jitgraph.tensor.core.basic import alloc, zeros_like
from jitgraph.tensor.elementwise.reduction import sum as tsum
from jitgraph.tensor.linalg.dot_functions import dot
from jitgraph.tensor.linalg.norms import matrix_norm, vector_norm
from jitgraph.tensor.shaping.dims import _minimum

__all__ = ["AllocDiag", "Apply", "Det", "DisconnectedType", "Eig", "Eigh", "EighGrad",
           "ExtractDiag", "MatrixInverse", "MatrixPinv", "Op", "QRFull", "QRIncomplete", "SVD",
           "TensorInv", "TensorSolve", "alloc_diag", "as_tensor_variable", "det", "diag", "eig",
           "eigh", "extract_diag", "lstsq", "matrix_dot", "matrix_inverse", "matrix_power",
           "norm", "pinv", "qr", "svd", "tensorinv", "tensorsolve", "trace"]


def _tensor(dtype: str, ndim: int) -> Variable:
    return TensorType(dtype, (False,) * ndim).make_variable()


def _identity(n: Any, dtype: str) -> Variable:
    return alloc_diag(alloc(np.asarray(1, dtype=dtype), n))


def _dot(a: Variable, b: Variable) -> Variable:
    return dot(a, b)


# ---------------------------------------------------------------------------------------------
# Inverse, pseudo-inverse, determinant

class MatrixInverse(Op):
    """The inverse of a square matrix (``numpy.linalg.inv``)."""

    __props__ = ()

    def make_node(self, x: Any) -> Apply:
        x = as_matrix(x, self, "x")
        return Apply(self, [x], [_tensor(float_dtype(x.dtype), 2)])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        check_square(inputs[0], self, "x")
        output_storage[0][0] = cast_result(np.linalg.inv(inputs[0]), node.outputs[0])

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        # d(X^-1) = -X^-1 dX X^-1, so dL/dX = -X^-T gz X^-T
        xinv_t = self(inputs[0]).T
        return [-_dot(_dot(xinv_t, output_grads[0]), xinv_t)]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        if eval_points[0] is None:
            return [None]
        xinv = self(inputs[0])
        return [-_dot(_dot(xinv, eval_points[0]), xinv)]

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Any]) -> list:
        return [tuple(input_shapes[0])]


matrix_inverse = MatrixInverse()


class MatrixPinv(Op):
    """The Moore-Penrose pseudo-inverse (``numpy.linalg.pinv``) of any matrix."""

    __props__ = ()

    def make_node(self, x: Any) -> Apply:
        x = as_matrix(x, self, "x")
        return Apply(self, [x], [_tensor(float_dtype(x.dtype), 2)])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        output_storage[0][0] = cast_result(np.linalg.pinv(inputs[0]), node.outputs[0])

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list:
        # Golub & Pereyra's derivative of X+ (valid where the rank does not change):
        # dX+ = -X+ dX X+ + X+ X+^T dX^T (I - X X+) + (I - X+ X) dX^T X+^T X+
        (x,), (z,), (gz,) = inputs, outputs, output_grads
        gz_t = gz.T
        grad = (-_dot(_dot(z.T, gz), z.T)
                + _dot(gz_t - _dot(x, _dot(z, gz_t)), _dot(z, z.T))
                + _dot(_dot(z.T, z), gz_t - _dot(_dot(gz_t, z), x)))
        return [grad]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        if eval_points[0] is None:
            return [None]
        x, dx = inputs[0], eval_points[0]
        z, dx_t = self(x), eval_points[0].T
        return [-_dot(_dot(z, dx), z)
                + _dot(_dot(z, z.T), dx_t - _dot(_dot(dx_t, x), z))
                + _dot(dx_t - _dot(z, _dot(x, dx_t)), _dot(z.T, z))]

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Any]) -> list:
        rows, cols = input_shapes[0]
        return [(cols, rows)]


pinv = MatrixPinv()


class Det(Op):
    """The determinant of a square matrix (``numpy.linalg.det``)."""

    __props__ = ()

    def make_node(self, x: Any) -> Apply:
        x = as_matrix(x, self, "x")
        return Apply(self, [x], [_tensor(float_dtype(x.dtype), 0)])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        check_square(inputs[0], self, "x")
        output_storage[0][0] = cast_result(np.linalg.det(inputs[0]), node.outputs[0])

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        # d det(X) = det(X) tr(X^-1 dX)
        (x,), (gz,) = inputs, output_grads
        return [gz * self(x) * matrix_inverse(x).T]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        if eval_points[0] is None:
            return [None]
        x = inputs[0]
        return [self(x) * trace(_dot(matrix_inverse(x), eval_points[0]))]

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Any]) -> list:
        return [()]


det = Det()


# ---------------------------------------------------------------------------------------------
# Eigen-decompositions

class Eig(Op):
    """Eigenvalues ``w`` and right eigenvectors ``v`` (columns) of a square matrix
    (``numpy.linalg.eig``). Outputs have the input's dtype: a real matrix with complex
    eigenvalues is an error (pass a complex matrix)."""

    __props__ = ()

    def make_node(self, x: Any) -> Apply:
        x = as_matrix(x, self, "x")
        dtype = float_dtype(x.dtype)
        return Apply(self, [x], [_tensor(dtype, 1), _tensor(dtype, 2)])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        check_square(inputs[0], self, "x")
        w, v = np.linalg.eig(inputs[0])
        for k, value in enumerate((w, v)):
            output_storage[k][0] = cast_result(value, node.outputs[k], who=str(self))

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Any]) -> list:
        n = input_shapes[0][0]
        return [(n,), (n, n)]


eig = Eig()


def _check_uplo(uplo: Any, who: str) -> str:
    if uplo not in ("L", "U"):
        raise ValueError(f"{who}: UPLO must be 'L' or 'U', got {uplo!r}")
    return uplo


class Eigh(Eig):
    """Eigenvalues (ascending) and orthonormal eigenvectors of a symmetric/Hermitian matrix
    (``numpy.linalg.eigh``), reading only its lower (``UPLO='L'``) or upper triangle."""

    __props__ = ("UPLO",)

    def __init__(self, UPLO: str = "L") -> None:  # noqa: N803 - Theano's name
        self.UPLO = _check_uplo(UPLO, "Eigh")

    def make_node(self, x: Any) -> Apply:
        x = as_matrix(x, self, "x")
        dtype = float_dtype(x.dtype)
        return Apply(self, [x], [_tensor(real_dtype(dtype), 1), _tensor(dtype, 2)])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        check_square(inputs[0], self, "x")
        w, v = np.linalg.eigh(inputs[0], self.UPLO)
        output_storage[0][0] = cast_result(w, node.outputs[0])
        output_storage[1][0] = cast_result(v, node.outputs[1])

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        (x,) = inputs
        w, v = self(x)
        gw, gv = zeros_for_disconnected([w, v], output_grads)
        return [EighGrad(self.UPLO)(x, w, v, gw, gv)]


def zeros_for_disconnected(outputs: Sequence[Variable], grads: Sequence[Variable]
                           ) -> list[Variable]:
    """``grads`` with each disconnected gradient replaced by zeros shaped like its output
    (Theano's ``nlinalg._zero_disconnected``)."""
    return [zeros_like(o) if isinstance(g.type, DisconnectedType) else g
            for o, g in zip(outputs, grads)]


def eigh(a: Any, UPLO: str = "L") -> list[Variable]:  # noqa: N803 - Theano's name
    """``(w, v)``: eigenvalues and eigenvectors of the symmetric/Hermitian matrix ``a``."""
    return Eigh(UPLO)(a)


class EighGrad(Op):
    """The gradient of :class:`Eigh`: inputs ``(x, w, v, gw, gv)``; the result is nonzero only
    on the triangle that ``Eigh`` reads (the other triangle's gradient is folded onto it)."""

    __props__ = ("UPLO",)

    def __init__(self, UPLO: str = "L") -> None:  # noqa: N803
        self.UPLO = _check_uplo(UPLO, "EighGrad")

    def make_node(self, x: Any, w: Any, v: Any, gw: Any, gv: Any) -> Apply:
        x, v, gv = (as_matrix(a, self, name) for a, name in ((x, "x"), (v, "v"), (gv, "gv")))
        w, gw = as_tensor_variable(w), as_tensor_variable(gw)
        for name, a in (("w", w), ("gw", gw)):
            if a.ndim != 1:
                raise TypeError(f"{self}: {name} must be a vector, got {a} ({a.type})")
        dtype = dt.upcast(x.dtype, w.dtype, v.dtype, gw.dtype, gv.dtype)
        return Apply(self, [x, w, v, gw, gv], [_tensor(float_dtype(dtype), 2)])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        _, w, v, gw, gv = inputs
        n = w.shape[0]
        # dL/dA for a full symmetric A: V (diag(gw) + F o (V^H gv)) V^H, F_ij = 1/(w_j - w_i)
        with np.errstate(divide="ignore"):
            gaps = 1.0 / (w[np.newaxis, :] - w[:, np.newaxis])
        gaps[np.arange(n), np.arange(n)] = 0.0
        inner = np.diag(gw) + gaps * (v.conj().T @ gv)
        full = v @ inner @ v.conj().T
        # A entry below (above) the diagonal stands for itself and its mirror image.
        if self.UPLO == "L":
            out = np.tril(full) + np.tril(full.T, -1)
        else:
            out = np.triu(full) + np.triu(full.T, 1)
        output_storage[0][0] = cast_result(out, node.outputs[0])

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Any]) -> list:
        return [tuple(input_shapes[0])]


# ---------------------------------------------------------------------------------------------
# SVD, QR, least squares

class SVD(Op):
    """``numpy.linalg.svd``: ``(u, s, v)``, or ``s`` alone when ``compute_uv`` is false."""

    __props__ = ("full_matrices", "compute_uv")

    def __init__(self, full_matrices: Any = True, compute_uv: Any = True) -> None:
        self.full_matrices = full_matrices
        self.compute_uv = compute_uv

    def make_node(self, x: Any) -> Apply:
        x = as_matrix(x, self, "x")
        dtype = float_dtype(x.dtype)
        s = _tensor(real_dtype(dtype), 1)
        outs = [_tensor(dtype, 2), s, _tensor(dtype, 2)] if self.compute_uv else [s]
        return Apply(self, [x], outs)

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        result = np.linalg.svd(inputs[0], bool(self.full_matrices), bool(self.compute_uv))
        values = result if self.compute_uv else (result,)
        for k, value in enumerate(values):
            output_storage[k][0] = cast_result(value, node.outputs[k])

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Any]) -> list:
        rows, cols = input_shapes[0]
        k = _minimum(rows, cols)
        if not self.compute_uv:
            return [(k,)]
        if self.full_matrices:
            return [(rows, rows), (k,), (cols, cols)]
        return [(rows, k), (k,), (k, cols)]


def svd(a: Any, full_matrices: Any = 1, compute_uv: Any = 1) -> Any:
    """Singular value decomposition ``a = u @ diag(s) @ v`` (NumPy's convention)."""
    return SVD(full_matrices, compute_uv)(a)


_QR_MODES = ("reduced", "complete", "r", "raw")


class QRFull(Op):
    """``numpy.linalg.qr`` in mode ``'reduced'``/``'complete'`` (``q, r``) or ``'raw'``
    (``h, tau``)."""

    __props__ = ("mode",)

    def __init__(self, mode: str) -> None:
        if mode not in ("reduced", "complete", "raw"):
            raise ValueError(f"QRFull: mode must be 'reduced', 'complete' or 'raw', got {mode!r}"
                             " (use QRIncomplete for 'r')")
        self.mode = mode

    def make_node(self, x: Any) -> Apply:
        x = as_matrix(x, self, "x")
        dtype = float_dtype(x.dtype)
        second = _tensor(dtype, 1 if self.mode == "raw" else 2)
        return Apply(self, [x], [_tensor(dtype, 2), second])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        first, second = np.linalg.qr(inputs[0], self.mode)
        output_storage[0][0] = cast_result(first, node.outputs[0])
        output_storage[1][0] = cast_result(second, node.outputs[1])

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Any]) -> list:
        rows, cols = input_shapes[0]
        k = _minimum(rows, cols)
        if self.mode == "complete":
            return [(rows, rows), (rows, cols)]
        if self.mode == "raw":
            return [(cols, rows), (k,)]
        return [(rows, k), (k, cols)]


class QRIncomplete(Op):
    """``numpy.linalg.qr(x, mode='r')``: the ``r`` factor alone."""

    __props__ = ("mode",)

    def __init__(self, mode: str) -> None:
        if mode != "r":
            raise ValueError(f"QRIncomplete: mode must be 'r', got {mode!r} (use QRFull)")
        self.mode = mode

    def make_node(self, x: Any) -> Apply:
        x = as_matrix(x, self, "x")
        return Apply(self, [x], [_tensor(float_dtype(x.dtype), 2)])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        output_storage[0][0] = cast_result(np.linalg.qr(inputs[0], "r"), node.outputs[0])

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Any]) -> list:
        rows, cols = input_shapes[0]
        return [(_minimum(rows, cols), cols)]


def qr(a: Any, mode: str = "reduced") -> Any:
    """QR decomposition of the matrix ``a`` (``numpy.linalg.qr``'s modes: ``'reduced'``,
    ``'complete'``, ``'r'``, ``'raw'``)."""
    if mode not in _QR_MODES:
        raise ValueError(f"qr: unrecognized mode {mode!r}; expected one of {_QR_MODES}")
    if mode == "r":
        return QRIncomplete(mode)(a)
    return QRFull(mode)(a)


class lstsq(Op):  # noqa: N801 - Theano's name (an Op class)
    """``numpy.linalg.lstsq(x, y, rcond)``: ``(solution, residuals, rank, singular values)``.

    ``rcond`` is a scalar input (-1 for the old machine-precision cutoff)."""

    __props__ = ()

    def make_node(self, x: Any, y: Any, rcond: Any) -> Apply:
        x = as_matrix(x, self, "x")
        y = as_tensor_variable(y)
        rcond = as_tensor_variable(rcond)
        if y.ndim not in (1, 2):
            raise TypeError(f"{self}: y must be a vector or a matrix, got {y} ({y.type})")
        if rcond.ndim != 0:
            raise TypeError(f"{self}: rcond must be a scalar, got {rcond} ({rcond.type})")
        outs = [_tensor("float64", y.ndim), _tensor("float64", 1), _tensor("int64", 0),
                _tensor("float64", 1)]
        return Apply(self, [x, y, rcond], outs)

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        x, y, rcond = inputs
        results = np.linalg.lstsq(x, y, rcond=float(rcond))
        for k, value in enumerate(results):
            output_storage[k][0] = cast_result(np.asarray(value), node.outputs[k])


# ---------------------------------------------------------------------------------------------
# Tensor inverse and solve

class TensorInv(Op):
    """``numpy.linalg.tensorinv(a, ind)``."""

    __props__ = ("ind",)

    def __init__(self, ind: int = 2) -> None:
        if isinstance(ind, bool) or not isinstance(ind, (int, np.integer)) or ind <= 0:
            raise ValueError(f"TensorInv: ind must be a positive int, got {ind!r}")
        self.ind = int(ind)

    def make_node(self, a: Any) -> Apply:
        a = as_tensor_variable(a)
        if a.ndim < self.ind:
            raise TypeError(f"{self}: a needs at least ind={self.ind} dimensions, got {a} "
                            f"({a.type})")
        return Apply(self, [a], [_tensor(float_dtype(a.dtype), a.ndim)])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        output_storage[0][0] = cast_result(np.linalg.tensorinv(inputs[0], self.ind),
                                           node.outputs[0])

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Any]) -> list:
        shape = tuple(input_shapes[0])
        return [shape[self.ind:] + shape[:self.ind]]


def tensorinv(a: Any, ind: int = 2) -> Variable:
    """The inverse of ``a`` for :func:`numpy.tensordot` over its first ``ind`` axes."""
    return TensorInv(ind)(a)


class TensorSolve(Op):
    """``numpy.linalg.tensorsolve(a, b, axes)``: ``x`` with ``tensordot(a, x, x.ndim) == b``."""

    __props__ = ("axes",)

    def __init__(self, axes: Any = None) -> None:
        self.axes = None if axes is None else tuple(int(a) for a in axes)

    def make_node(self, a: Any, b: Any) -> Apply:
        a, b = as_tensor_variable(a), as_tensor_variable(b)
        if a.ndim < b.ndim:
            raise TypeError(f"{self}: a ({a.type}) must have at least as many dimensions as "
                            f"b ({b.type})")
        dtype = float_dtype(dt.upcast(a.dtype, b.dtype))
        return Apply(self, [a, b], [_tensor(dtype, a.ndim - b.ndim)])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        a, b = inputs
        output_storage[0][0] = cast_result(np.linalg.tensorsolve(a, b, self.axes),
                                           node.outputs[0])


def tensorsolve(a: Any, b: Any, axes: Any = None) -> Variable:
    """Solve ``tensordot(a, x, axes=x.ndim) == b`` for ``x``."""
    return TensorSolve(axes)(a, b)


# ---------------------------------------------------------------------------------------------
# Diagonals (nlinalg's own AllocDiag: vector -> diagonal matrix)

class AllocDiag(Op):
    """A square matrix with the vector ``x`` on its diagonal (``numpy.diag(x)``).

    This is ``theano.tensor.nlinalg.AllocDiag``, distinct from ``T.AllocDiag`` (offset/axes)."""

    __props__ = ()

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        if x.ndim != 1:
            raise TypeError(f"{self}: works on vectors only, got {x} ({x.type})")
        return Apply(self, [x], [_tensor(x.dtype, 2)])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        output_storage[0][0] = np.diag(inputs[0])

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        return [extract_diag(output_grads[0])]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        return [None if eval_points[0] is None else self(eval_points[0])]

    def infer_shape(self, fgraph: Any, node: Apply, input_shapes: Sequence[Any]) -> list:
        (n,) = input_shapes[0]
        return [(n, n)]


alloc_diag = AllocDiag()
extract_diag = ExtractDiag()


def diag(x: Any) -> Variable:
    """``numpy.diag``: the diagonal matrix of a vector, or the diagonal of a matrix."""
    x = as_tensor_variable(x)
    if x.ndim == 1:
        return alloc_diag(x)
    if x.ndim == 2:
        return extract_diag(x)
    raise TypeError(f"diag: x must be a vector or a matrix, got {x} ({x.type})")


def trace(X: Any) -> Variable:  # noqa: N803 - Theano's name
    """The sum of the main diagonal of the matrix ``X``."""
    return tsum(extract_diag(X))


# ---------------------------------------------------------------------------------------------
# Functions built from other ops

def matrix_dot(*args: Any) -> Variable:
    """``args[0] @ args[1] @ ...`` (at least one matrix)."""
    if not args:
        raise TypeError("matrix_dot: needs at least one argument")
    result = as_tensor_variable(args[0])
    for a in args[1:]:
        result = _dot(result, a)
    return result


def matrix_power(M: Any, n: int) -> Variable:  # noqa: N803 - Theano's name
    """``M`` to the integer power ``n`` by repeated squaring (``n < 0`` inverts ``M``;
    ``n == 0`` gives the identity, as ``numpy.linalg.matrix_power`` does)."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"matrix_power: n must be a Python int, got {n!r}")
    M = as_matrix(M, "matrix_power", "M")
    n = int(n)
    if n < 0:
        M, n = matrix_inverse(M), -n
    if n == 0:
        return _identity(M.shape[0], M.dtype)
    result, square = None, M
    while True:
        if n & 1:
            result = square if result is None else _dot(result, square)
        n >>= 1
        if not n:
            return result
        square = _dot(square, square)


def norm(x: Any, ord: Any) -> Variable:  # noqa: A002 - Theano's name
    """Vector or matrix norm (``numpy.linalg.norm``'s orders; matrices: None/'fro', 'inf',
    '-inf', 1, -1)."""
    x = as_tensor_variable(x)
    if x.ndim == 1:
        return vector_norm(x, ord)
    if x.ndim == 2:
        return matrix_norm(x, ord)
    if x.ndim > 2:
        raise NotImplementedError(f"norm: x must be a vector or a matrix, got {x} ({x.type})")
    raise ValueError(f"norm: x must be a vector or a matrix, got the scalar {x} ({x.type})")
