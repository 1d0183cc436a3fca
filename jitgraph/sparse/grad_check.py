"""``verify_grad_sparse``: ``verify_grad`` for functions of sparse matrices. The sparse
arguments are handed to ``verify_grad`` as dense arrays (``structured=False``: the whole matrix
is perturbed) or as their stored values (``structured=True``: only the stored values are, the
structure staying fixed), and converted back to sparse inside the checked function."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from jitgraph.graph.basic import Variable
from jitgraph.sparse import helpers as H
from jitgraph.sparse.basic import CSM, DenseFromSparse, SparseFromDense
from jitgraph.sparse.variable import as_sparse_or_tensor_variable
from jitgraph.tensor.core.grad_check import verify_grad


def _converter(value: Any, structured: bool) -> tuple[Any, Callable[[Variable], Variable]]:
    """The point handed to verify_grad for ``value`` and the function rebuilding the sparse
    variable from it."""
    if not H.is_sparse(value):
        return value, lambda v: v
    if value.format not in ("csc", "csr"):
        raise NotImplementedError(f"verify_grad_sparse: no conversion for the {value.format} "
                                  "format; use csc or csr")
    if not structured:
        return value.toarray(), SparseFromDense(value.format)
    indices = value.indices[:value.nnz].astype("int32")
    indptr = value.indptr.astype("int32")
    shape = list(value.shape)
    build = CSM(value.format)
    return value.data.copy(), lambda data: build(data, indices, indptr, shape)


def verify_grad_sparse(op: Callable, pt: Sequence[Any], structured: bool = False, *args: Any,
                       **kwargs: Any) -> None:
    """Check the gradient of ``op`` (an op or a function of variables) at the point ``pt``
    (arrays and scipy.sparse matrices) against finite differences, as ``verify_grad`` does.

    With ``structured`` the stored values of each sparse argument are perturbed (a structured
    gradient is checked); otherwise every element of the dense matrix is. A sparse output is
    made dense (keeping only its stored values' gradient when ``structured``). Extra
    arguments go to :func:`jitgraph.tensor.core.grad_check.verify_grad`."""
    pairs = [_converter(p, structured) for p in pt]
    points = [p for p, _ in pairs]
    rebuild = [f for _, f in pairs]
    probe = op(*[as_sparse_or_tensor_variable(p) for p in pt])
    if isinstance(probe, (list, tuple)):
        raise NotImplementedError("verify_grad_sparse checks functions with one output")
    to_dense = DenseFromSparse(structured=structured) if H.is_sparse_variable(probe) else None

    def checked(*inputs: Variable) -> Variable:
        out = op(*[f(v) for f, v in zip(rebuild, inputs)])
        return to_dense(out) if to_dense is not None else out

    verify_grad(checked, points, *args, **kwargs)
