"""``theano.sparse.sandbox.truedot``: ``true_dot`` (sparse x sparse/dense products with a
sparse result), from :mod:`jitgraph.sparse.products`."""

from jitgraph.sparse import SparseType, as_sparse_variable, dense_from_sparse, transpose
from jitgraph.sparse.products import TrueDot, true_dot

__all__ = ["TrueDot", "true_dot", "SparseType", "as_sparse_variable", "dense_from_sparse",
           "transpose"]
