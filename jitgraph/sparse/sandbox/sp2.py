"""``theano.sparse.sandbox.sp2``: random sparse matrices (``poisson``, ``Binomial``,
``multinomial``), drawn in Python with NumPy's global random generator as in Theano (seed it
with ``numpy.random.seed`` for repeatable draws), and the sparse ops Theano re-exported here.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from jitgraph.graph.basic import Apply, Variable
from jitgraph.graph.op import Op
from jitgraph.sparse import (SparseType, as_sparse_variable, hstack,  # noqa: F401
                             mul_s_v, sampling_dot, structured_add_s_v, vstack)
from jitgraph.tensor.core.conversion import as_tensor_variable
from jitgraph.tensor.core.gradient import grad_undefined


class _RandomSparse(Op):
    def __str__(self) -> str:
        return type(self).__name__

    def do_constant_folding(self, node: Apply) -> bool:
        return False  # a new draw at each call


class Poisson(_RandomSparse):
    """``poisson(x)``: a sparse matrix with ``x``'s structure whose entries are Poisson draws
    with the entries of ``x`` as means."""

    __props__ = ()

    def make_node(self, x: Any) -> Apply:
        x = as_sparse_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        (x,) = inputs
        out = x.copy()
        out.data = np.asarray(np.random.poisson(out.data), dtype=x.dtype)
        out.eliminate_zeros()
        output_storage[0][0] = out

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        return [grad_undefined(self, 0, inputs[0], "a random draw has no gradient")]


class Binomial(_RandomSparse):
    """``Binomial(format, dtype)(n, p, shape)``: a ``shape`` matrix of binomial draws
    (``n`` trials of probability ``p``), stored sparse in ``format``."""

    __props__ = ("format", "dtype")

    def __init__(self, format: str, dtype: str) -> None:
        self.format = format
        self.dtype = str(np.dtype(dtype))

    def make_node(self, n: Any, p: Any, shape: Any) -> Apply:
        n = as_tensor_variable(n)
        p = as_tensor_variable(p)
        shape = as_tensor_variable(shape)
        if shape.ndim != 1 or not shape.dtype.startswith(("int", "uint")):
            raise TypeError(f"Binomial: shape must be an integer vector, got {shape.type}")
        return Apply(self, [n, p, shape], [SparseType(self.format, self.dtype)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        import scipy.sparse

        n, p, shape = inputs
        dense = np.random.binomial(n, p, size=tuple(int(s) for s in shape))
        matrix = scipy.sparse.csr_matrix if self.format == "csr" else scipy.sparse.csc_matrix
        output_storage[0][0] = matrix(dense, dtype=self.dtype)

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        return [grad_undefined(self, i, v, "a random draw has no gradient")
                for i, v in enumerate(inputs)]


csr_fbinomial = Binomial("csr", "float32")
csc_fbinomial = Binomial("csc", "float32")
csr_dbinomial = Binomial("csr", "float64")
csc_dbinomial = Binomial("csc", "float64")


class Multinomial(_RandomSparse):
    """``multinomial(n, p)``: for each row ``i`` of the CSR matrix ``p``, a multinomial draw
    of ``n[i]`` (or ``n``) trials over that row's stored probabilities, in ``p``'s structure."""

    __props__ = ()

    def make_node(self, n: Any, p: Any) -> Apply:
        n = as_tensor_variable(n)
        p = as_sparse_variable(p)
        if p.type.format != "csr":
            raise NotImplementedError(f"multinomial: p must be a CSR matrix, got {p.type}")
        if n.ndim > 1:
            raise TypeError(f"multinomial: n must be a scalar or a vector, got {n.type}")
        return Apply(self, [n, p], [p.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list) -> None:
        n, p = inputs
        out = p.copy()
        rows = p.shape[0]
        if n.ndim == 1 and len(n) != rows:
            raise ValueError(f"multinomial: n has {len(n)} entries for {rows} rows of p")
        for i in range(rows):
            start, stop = out.indptr[i], out.indptr[i + 1]
            trials = int(n[i] if n.ndim == 1 else n)
            out.data[start:stop] = np.random.multinomial(trials, p.data[start:stop])
        output_storage[0][0] = out

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        return [grad_undefined(self, i, v, "a random draw has no gradient")
                for i, v in enumerate(inputs)]


poisson = Poisson()
multinomial = Multinomial()

__all__ = ["Poisson", "poisson", "Binomial", "csr_fbinomial", "csc_fbinomial",
           "csr_dbinomial", "csc_dbinomial", "Multinomial", "multinomial"]
