"""Matrix products with a sparse operand: ``structured_dot`` (gradient kept on the sparse
operand's structure), ``dot`` (dense gradients), ``true_dot`` (a sparse result),
``sampling_dot`` (a dense product computed only where a sparse matrix stores values) and
``usmm`` (``z + alpha * x @ y``, made by the rewrites)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.op import Op
from jitgraph.sparse import helpers as H
from jitgraph.sparse.arithmetic import mul_s_s
from jitgraph.sparse.basic import CSC, CSR, csm_properties, dense_from_sparse, transpose
from jitgraph.sparse.scipy_support import scipy_sparse
from jitgraph.sparse.variable import as_sparse_or_tensor_variable
import jitgraph.tensor as T
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.core.gradient import grad_not_implemented


def sparse_times(a: Any, b: Any) -> Any:
    """``a @ b`` for scipy/NumPy operands, at least one sparse (scipy's own product)."""
    if H.is_sparse(a):
        return a @ b
    return (b.T @ a.T).T


def _as_array(value: Any, dtype: str) -> np.ndarray:
    if H.is_sparse(value):
        value = value.toarray()
    return np.asarray(value).astype(dtype, copy=False)


class StructuredDot(Op):
    """``a @ b`` for a sparse ``a`` and a dense (or sparse) matrix ``b``. The gradient with
    respect to ``a`` is structured: computed only at a's stored positions."""

    __props__ = ()

    def make_node(self, a: Any, b: Any) -> Apply:
        a = H.require_sparse(self, 0, a)
        if H.is_sparse_variable(b):
            return Apply(self, [a, b], [H.sparse_out(a.format, H.upcast(a.dtype, b.dtype))])
        b = H.require_dense(self, 1, b, (2,))
        return Apply(self, [a, b], [H.product_out(H.upcast(a.dtype, b.dtype), b)])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        a, b = inputs
        H.check_product_shapes(node, a, b)
        result = a @ b
        out_type = node.outputs[0].type
        if H.is_sparse_variable(node.outputs[0]):
            out[0][0] = H.as_declared(result, out_type)
        else:
            out[0][0] = np.asarray(result).astype(out_type.dtype, copy=False)

    def grad(self, inputs: Sequence[Variable], gout: Sequence[Variable]) -> list:
        a, b = inputs
        (g,) = gout
        if H.is_sparse_variable(b):
            raise NotImplementedError("the gradient of structured_dot with two sparse operands "
                                      "is not implemented; use true_dot")
        return [structured_dot_grad(a, b, g), structured_dot(transpose(a), g)]

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        return [(shapes[0][0], shapes[1][1])]


_structured_dot = StructuredDot()


def structured_dot(x: Any, y: Any) -> Variable:
    """``x @ y`` with at least one sparse operand (a dense ``x`` is handled through
    transposes); the sparse operand's gradient keeps its structure."""
    x, y = as_sparse_or_tensor_variable(x), as_sparse_or_tensor_variable(y)
    if H.is_sparse_variable(x):
        return _structured_dot(x, y)
    if not H.is_sparse_variable(y):
        raise TypeError(f"structured_dot needs at least one sparse operand, got {x.type} and "
                        f"{y.type}")
    return _structured_dot(transpose(y), x.T).T


class _StructuredDotGrad(Op):
    """The gradient of ``a @ b`` at a's stored positions: for the value at (i, j),
    ``dot(g_ab[i, :], b[j, :])`` (a given by its indices and indptr)."""

    __props__ = ()
    format = ""

    def make_node(self, a_indices: Any, a_indptr: Any, b: Any, g_ab: Any) -> Apply:
        a_indices, a_indptr = as_tensor_variable(a_indices), as_tensor_variable(a_indptr)
        b = H.require_dense(self, 2, b, (2,))
        g_ab = H.require_dense(self, 3, g_ab, (2,))
        out = H.tensor_out(H.upcast(g_ab.dtype, b.dtype), 1)
        return Apply(self, [a_indices, a_indptr, b, g_ab], [out])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        indices, indptr, b, g = inputs
        outer = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
        rows, cols = (indices, outer) if self.format == "csc" else (outer, indices)
        dtype = node.outputs[0].dtype
        out[0][0] = np.einsum("ij,ij->i", g[rows].astype(dtype), b[cols].astype(dtype))

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        return [(shapes[0][0],)]


class StructuredDotGradCSC(_StructuredDotGrad):
    """:class:`_StructuredDotGrad` for a csc ``a``."""

    format = "csc"


class StructuredDotGradCSR(_StructuredDotGrad):
    """:class:`_StructuredDotGrad` for a csr ``a``."""

    format = "csr"


sdg_csc = StructuredDotGradCSC()
sdg_csr = StructuredDotGradCSR()


def structured_dot_grad(sparse_A: Any, dense_B: Any, ga: Any) -> Variable:
    """The structured gradient of ``sparse_A @ dense_B`` with respect to ``sparse_A`` given
    the output gradient ``ga``: a sparse matrix with A's structure."""
    sparse_A = H.require_sparse("structured_dot_grad", 0, sparse_A)
    if sparse_A.format not in ("csc", "csr"):
        raise NotImplementedError(f"structured_dot_grad needs csc or csr, got {sparse_A.type}")
    _, indices, indptr, shape = csm_properties(sparse_A)
    grad_op, build = (sdg_csc, CSC) if sparse_A.format == "csc" else (sdg_csr, CSR)
    return build(grad_op(indices, indptr, dense_B, ga), indices, indptr, shape)


class TrueDot(Op):
    """``x @ y`` for a sparse ``x`` and a sparse or dense ``y``, as a sparse matrix in x's
    format. Its gradients are full (not structured); with ``grad_preserves_dense`` the
    gradient for a dense ``y`` is dense."""

    __props__ = ("grad_preserves_dense",)

    def __init__(self, grad_preserves_dense: bool = True) -> None:
        self.grad_preserves_dense = bool(grad_preserves_dense)

    def __str__(self) -> str:
        return "TrueDot"

    def make_node(self, x: Any, y: Any) -> Apply:
        x = H.require_sparse(self, 0, x)
        y = as_sparse_or_tensor_variable(y)
        if not H.is_sparse_variable(y) and y.ndim not in (1, 2):
            raise TypeError(f"{self}: argument 1 must be a matrix or vector, got {y.type}")
        if x.format not in ("csc", "csr"):
            raise NotImplementedError(f"{self} needs a csc or csr x, got {x.type}")
        return Apply(self, [x, y], [H.sparse_out(x.format, H.upcast(x.dtype, y.dtype))])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        x, y = inputs
        H.check_product_shapes(node, x, y)
        result = x @ y
        if not H.is_sparse(result):
            result = np.asarray(result)
            result = result.reshape(-1, 1) if result.ndim == 1 else result
        out[0][0] = H.as_declared(scipy_sparse().csr_matrix(result) if not H.is_sparse(result)
                                  else result, node.outputs[0].type)

    def grad(self, inputs: Sequence[Variable], gout: Sequence[Variable]) -> list:
        x, y = inputs
        (gz,) = gout
        gx = true_dot(gz, y.T if H.is_dense_variable(y) else transpose(y))
        gy = true_dot(transpose(x), gz)
        if H.is_dense_variable(y) and self.grad_preserves_dense:
            gy = dense_from_sparse(gy)
        return [gx, gy]

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        ys = shapes[1]
        return [(shapes[0][0], ys[1] if len(ys) == 2 else 1)]


def true_dot(x: Any, y: Any, grad_preserves_dense: bool = True) -> Variable:
    """``x @ y`` as a sparse matrix (at least one operand sparse)."""
    x, y = as_sparse_or_tensor_variable(x), as_sparse_or_tensor_variable(y)
    op = TrueDot(grad_preserves_dense)
    if H.is_sparse_variable(x):
        return op(x, y)
    if not H.is_sparse_variable(y):
        raise TypeError(f"true_dot needs at least one sparse operand, got {x.type} and "
                        f"{y.type}")
    return transpose(op(transpose(y), x.T))


class Dot(Op):
    """``x @ y`` with at least one sparse operand, as a dense matrix (a vector when the dense
    operand is a vector). Gradients are dense."""

    __props__ = ()

    def __str__(self) -> str:
        return "SparseDot"

    def make_node(self, x: Any, y: Any) -> Apply:
        x, y = as_sparse_or_tensor_variable(x), as_sparse_or_tensor_variable(y)
        if not (H.is_sparse_variable(x) or H.is_sparse_variable(y)):
            raise TypeError(f"{self} needs at least one sparse operand, got {x.type} and "
                            f"{y.type}")
        for k, v in enumerate((x, y)):
            if not H.is_sparse_variable(v) and v.ndim not in (1, 2):
                raise TypeError(f"{self}: input {k} ({v}) must have 1 or 2 dimensions, got "
                                f"{v.ndim}")
        ndim = 1 if (x.ndim == 1 or y.ndim == 1) else 2
        return Apply(self, [x, y], [H.tensor_out(H.upcast(x.dtype, y.dtype), ndim)])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        x, y = inputs
        H.check_product_shapes(node, x, y)
        out[0][0] = _as_array(sparse_times(x, y), node.outputs[0].dtype)

    def grad(self, inputs: Sequence[Variable], gout: Sequence[Variable]) -> list:
        x, y = inputs
        (gz,) = gout
        if H.is_dense_variable(y):
            gx = T.outer(gz, y) if y.ndim == 1 else T.dot(gz, y.T)
        else:
            gx = dot(gz, transpose(y))
        if H.is_dense_variable(x):
            gy = T.outer(x, gz) if x.ndim == 1 else T.dot(x.T, gz)
        else:
            gy = dot(transpose(x), gz)
        return [gx, gy]

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        xs, ys = shapes
        if len(xs) == 1:
            return [(ys[1],)]
        if len(ys) == 1:
            return [(xs[0],)]
        return [(xs[0], ys[1])]


_dot = Dot()


def dot(x: Any, y: Any) -> Variable:
    """``x @ y`` with at least one sparse operand, as a dense result (dense gradients)."""
    x, y = as_sparse_or_tensor_variable(x), as_sparse_or_tensor_variable(y)
    if not (H.is_sparse_variable(x) or H.is_sparse_variable(y)):
        raise TypeError(f"sparse.dot needs at least one sparse operand, got {x.type} and "
                        f"{y.type}; use tensor.dot")
    return _dot(x, y)


class SamplingDot(Op):
    """``p * (x @ y.T)`` computed only where the sparse ``p`` stores values (dense ``x`` and
    ``y``): the result has p's structure."""

    __props__ = ()

    def make_node(self, x: Any, y: Any, p: Any) -> Apply:
        x = H.require_dense(self, 0, x, (2,))
        y = H.require_dense(self, 1, y, (2,))
        p = H.require_sparse(self, 2, p)
        return Apply(self, [x, y, p],
                     [H.sparse_out(p.format, H.upcast(x.dtype, y.dtype, p.dtype))])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        x, y, p = inputs
        if x.shape[1] != y.shape[1] or p.shape != (x.shape[0], y.shape[0]):
            raise ValueError(f"{self}: shapes do not fit x @ y.T sampled by p: "
                             f"{H.label(node, 0)} {x.shape}, {H.label(node, 1)} {y.shape}, "
                             f"{H.label(node, 2)} {p.shape}")
        dtype = node.outputs[0].dtype
        rows, cols = H.rows_cols(p)
        z = p.astype(dtype)
        z.data = (np.einsum("ij,ij->i", x[rows].astype(dtype), y[cols].astype(dtype))
                  * p.data).astype(dtype, copy=False)
        out[0][0] = z

    def grad(self, inputs: Sequence[Variable], gout: Sequence[Variable]) -> list:
        x, y, p = inputs
        pg = mul_s_s(p, gout[0])
        return [dot(pg, y), dot(transpose(pg), x),
                grad_not_implemented(self, 2, p, "the gradient of sampling_dot with respect "
                                                 "to the sampling matrix is not implemented")]

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        return [shapes[2]]


sampling_dot = SamplingDot()


class Usmm(Op):
    """``z + alpha * (x @ y)`` with a sparse ``x`` or ``y`` and a dense ``z`` (made by the
    rewrites from ``z - a * dot(x, y)``-style graphs; it has no gradient)."""

    __props__ = ("inplace",)

    def __init__(self, inplace: bool = False) -> None:
        self.inplace = bool(inplace)
        if self.inplace:
            self.destroy_map = {0: [3]}

    def __str__(self) -> str:
        return "Usmm{inplace}" if self.inplace else "Usmm{no_inplace}"

    def make_node(self, alpha: Any, x: Any, y: Any, z: Any) -> Apply:
        alpha = H.require_dense(self, 0, alpha, (0, 2))  # Theano's: a (1, 1) matrix
        if alpha.ndim == 2 and alpha.broadcastable != (True, True):
            raise TypeError(f"{self}: alpha must be a scalar or a broadcastable (1, 1) matrix, "
                            f"got {alpha.type}")
        x, y = as_sparse_or_tensor_variable(x), as_sparse_or_tensor_variable(y)
        z = H.require_dense(self, 3, z, (2,))
        if not (H.is_sparse_variable(x) or H.is_sparse_variable(y)):
            raise TypeError(f"{self} needs a sparse x or y")
        dtype = H.upcast(alpha.dtype, x.dtype, y.dtype, z.dtype)
        if self.inplace and dtype != z.dtype:
            raise TypeError(f"{self}: the in-place output must keep z's dtype {z.dtype}")
        return Apply(self, [alpha, x, y, z], [H.tensor_out(dtype, 2)])

    def perform(self, node: Apply, inputs: Sequence[Any], out: list) -> None:
        alpha, x, y, z = inputs
        product = _as_array(sparse_times(x, y), node.outputs[0].dtype)
        if self.inplace:
            z += alpha * product
            out[0][0] = z
        else:
            out[0][0] = (z + alpha * product).astype(node.outputs[0].dtype, copy=False)

    def infer_shape(self, fgraph: Any, node: Apply, shapes: Sequence) -> list:
        return [shapes[3]]


usmm = Usmm()
